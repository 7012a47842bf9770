import { assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import { codexCallCut, codexHomeForServer, codexToolTimeout, toolTimeoutFlag } from "./call_limits.ts";

/** A Codex folder whose config.toml gives aiterm `tool_timeout_sec = seconds`. */
async function codexDir(root: string, name: string, seconds: number): Promise<string> {
  const dir = `${root}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/config.toml`,
    `model = "m"\n\n[mcp_servers.aiterm]\ncommand = "aiterm-mcp"\ntool_timeout_sec = ${seconds}\n\n` +
      `[mcp_servers.aiterm.env]\nX = "1"\n`,
  );
  return dir;
}

/** A live process started with `env` (its /proc environ is what a parent Codex would show). */
function processWith(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command("sleep", { args: ["30"], env, clearEnv: true, stdout: "null", stderr: "null" }).spawn();
}

Deno.test("codex tool_timeout_sec: the server's CODEX_HOME, else the parent Codex's, else ~/.codex", async () => {
  const root = await Deno.makeTempDir({ prefix: "aiterm-codex-cut-" });
  const parent = processWith({ PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", CODEX_HOME: `${root}/parents` });
  try {
    await codexDir(root, "h/.codex", 40);
    await codexDir(root, "own", 20);
    await codexDir(root, "parents", 12);
    const home = `${root}/h`;
    // Nobody says where: ~/.codex.
    assertEquals(codexToolTimeout({ HOME: home }, null), 40);
    // Registered with CODEX_HOME: that one, whatever the parent has.
    assertEquals(codexToolTimeout({ HOME: home, CODEX_HOME: `${root}/own` }, parent.pid), 20);
    assertEquals(codexHomeForServer({ HOME: home, CODEX_HOME: `${root}/own` }, parent.pid), `${root}/own`);
    if (Deno.build.os === "linux") {
      // Codex gave the server no CODEX_HOME (it never does): the parent Codex process's own.
      assertEquals(codexHomeForServer({ HOME: home }, parent.pid), `${root}/parents`);
      assertEquals(codexToolTimeout({ HOME: home }, parent.pid), 12);
    }
    // A parent without CODEX_HOME (or gone): ~/.codex.
    assertEquals(codexToolTimeout({ HOME: home }, 2 ** 22 + 7), 40);
    // No file, no entry: null; the cut says it is Codex's default.
    assertEquals(codexToolTimeout({ HOME: `${root}/nowhere` }, null), null);
    const none = codexCallCut("codex-mcp-client", { HOME: `${root}/nowhere`, CODEX_HOME: `${root}/nowhere` })!;
    assertEquals(none.cutMs, 300_000);
    assertStringIncludes(none.source, "default");
    assertEquals(codexCallCut("claude-code", { HOME: home }), null);
  } finally {
    parent.kill("SIGKILL");
    await parent.status;
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("codex tool_timeout_sec given with -c: every spelling, the last one counts, nothing after --", () => {
  const key = "mcp_servers.aiterm.tool_timeout_sec";
  assertEquals(toolTimeoutFlag(["codex", "exec", "-c", `${key}=12`, "prompt"]), 12);
  assertEquals(toolTimeoutFlag(["codex", "--config", `${key}=7.5`, "exec"]), 7.5);
  assertEquals(toolTimeoutFlag(["codex", `-c${key}=8`]), 8);
  assertEquals(toolTimeoutFlag(["codex", `--config=${key} = 9`]), 9);
  assertEquals(toolTimeoutFlag(["codex", "-c", `${key}=12`, "exec", "-c", `${key}=30`]), 30);
  // Another server's, another key, a value that is no positive number, a prompt after --, a dangling -c.
  assertEquals(toolTimeoutFlag(["codex", "-c", "mcp_servers.other.tool_timeout_sec=5"]), null);
  assertEquals(toolTimeoutFlag(["codex", "-c", "mcp_servers.aiterm.startup_timeout_sec=120"]), null);
  assertEquals(toolTimeoutFlag(["codex", "-c", `${key}=0`, "-c", `${key}="x"`]), null);
  assertEquals(toolTimeoutFlag(["codex", "-c", `${key}=12`, "-c", `${key}=-3`]), 12);
  assertEquals(toolTimeoutFlag(["codex", "exec", "--", "-c", `${key}=12`]), null);
  assertEquals(toolTimeoutFlag(["codex", "-c"]), null);
  // The program's own name is no option.
  assertEquals(toolTimeoutFlag([`-c${key}=12`]), null);
});

Deno.test({
  name: "codex cut: a -c on the parent Codex's command line beats config.toml, and the cut says so",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "aiterm-codex-flag-" });
    // Its command line holds `-c <key>=7` after the script, as a Codex started with that override would.
    const parent = new Deno.Command("bash", {
      args: ["-c", "sleep 30; :", "-c", "mcp_servers.aiterm.tool_timeout_sec=7"],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", CODEX_HOME: `${root}/parents` },
      clearEnv: true,
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      await codexDir(root, "parents", 12);
      // The child runs bash only once it has exec'd: until then its command line is the spawning runtime's.
      for (let i = 0; i < 200; i++) {
        const argv = await Deno.readTextFile(`/proc/${parent.pid}/cmdline`).catch(() => "");
        if (argv.includes("tool_timeout_sec=7")) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const cut = codexCallCut("codex-mcp-client", { HOME: `${root}/h` }, parent.pid)!;
      assertEquals(cut.cutMs, 7_000);
      assertStringIncludes(cut.source, "given with -c");
      // Without the flag: the parent's config.toml.
      const plain = codexCallCut("codex-mcp-client", { HOME: `${root}/h`, CODEX_HOME: `${root}/parents` }, null)!;
      assertEquals(plain.cutMs, 12_000);
      assertStringIncludes(plain.source, "in config.toml");
    } finally {
      parent.kill("SIGKILL");
      await parent.status;
      await Deno.remove(root, { recursive: true });
    }
  },
});
