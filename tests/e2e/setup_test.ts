/**
 * `aiterm-mcp setup` end to end, each test in a throwaway HOME. The real Claude Code and Codex CLIs
 * (installed by scripts/install_vendor_clis.sh) are the clients: after setup `claude mcp list`
 * starts the registered server and reports it connected, and `codex mcp list --json` shows it.
 * Grok and Cursor are fakes that follow their documented layouts: a `grok` with `mcp add` / `mcp
 * list --json` over `~/.grok/config.toml`, and a `cursor-agent` plus `~/.cursor/mcp.json`.
 * The tests are ignored, with the reason in their names, when tmux or the real CLIs are missing.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux } from "../helpers/env.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";

const SETUP = new URL("../../setup/mod.ts", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const clis = findVendorClis();
const skip = !hasTmux
  ? " [ignored: tmux missing]"
  : clis.claude && clis.codex
  ? ""
  : " [ignored: run scripts/install_vendor_clis.sh first]";
const decoder = new TextDecoder();

interface Result {
  status: string;
  reason_code?: string;
  server?: { command: string; args: string[] };
  steps: { step: string; status: string; reason_code?: string; detail?: string }[];
  clients: Record<string, { status: string; reason_code?: string; config_path_kind?: string; health?: string }>;
}

interface Home extends AsyncDisposable {
  home: string;
  env: Record<string, string>;
  bin: string;
}

/** The fake Grok Build CLI: `mcp add [-s S] [-t T] [-e K=V] NAME -- CMD ARGS…` and `mcp list --json`. */
function fakeGrok(): string {
  return `#!/usr/bin/env -S ${Deno.execPath()} run -A --no-config --quiet
const home = Deno.env.get("GROK_HOME") || Deno.env.get("HOME") + "/.grok";
const cfg = home + "/config.toml";
const args = Deno.args;
Deno.mkdirSync(home, { recursive: true });
Deno.writeTextFileSync(home + "/calls.log", JSON.stringify(args) + "\\n", { append: true });
const read = () => { try { return Deno.readTextFileSync(cfg); } catch { return ""; } };
if (args[0] === "mcp" && args[1] === "add") {
  let i = 2, name = null;
  while (i < args.length && args[i] !== "--") {
    if (["-s", "--scope", "-t", "--transport", "-e", "--env"].includes(args[i])) i += 2; else name = args[i++];
  }
  const cmd = args.slice(i + 1);
  const kept = [];
  let skip = false;
  for (const line of read().split("\\n")) {
    const m = /^\\[(.+)\\]\\s*$/.exec(line.trim());
    if (m) skip = m[1] === "mcp_servers." + name || m[1].startsWith("mcp_servers." + name + ".");
    if (!skip) kept.push(line);
  }
  const text = kept.join("\\n").replace(/\\n*$/, "\\n") + "\\n[mcp_servers." + name + "]\\ncommand = " +
    JSON.stringify(cmd[0]) + "\\nargs = " + JSON.stringify(cmd.slice(1)) + "\\nenabled = true\\n";
  Deno.writeTextFileSync(cfg, text);
  console.log("Added MCP server '" + name + "' to " + cfg);
} else if (args[0] === "mcp" && args[1] === "list") {
  const servers = [];
  let cur = null;
  for (const raw of read().split("\\n")) {
    const line = raw.trim();
    const m = /^\\[mcp_servers\\.([^.\\]]+)\\]$/.exec(line);
    if (m) { cur = { name: m[1], scope: "user", transport: "stdio", enabled: true }; servers.push(cur); continue; }
    if (line.startsWith("[")) { cur = null; continue; }
    const kv = /^(\\w+)\\s*=\\s*(.*)$/.exec(line);
    if (cur && kv) cur[kv[1]] = JSON.parse(kv[2]);
  }
  console.log(args.includes("--json") ? JSON.stringify(servers) : servers.map((s) => s.name).join("\\n"));
} else {
  console.error("fake grok: unsupported " + args.join(" "));
  Deno.exit(2);
}
`;
}

/**
 * A throwaway HOME (under the vendor cache: Codex refuses helper links under /tmp) with `claude`
 * and `codex` on PATH, CODEX_HOME inside it, and optionally the fake `grok` and `cursor-agent`.
 */
async function makeHome(opts: { grok?: boolean; cursor?: boolean; real?: boolean } = {}): Promise<Home> {
  const vh = await vendorHome("claude", { apiUrl: "http://127.0.0.1:9", cwd: "/tmp", trusted: false });
  const home = vh.home;
  const bin = `${home}/bin`;
  await Deno.mkdir(bin);
  await Deno.mkdir(`${home}/.codex`);
  if (opts.real !== false) {
    await Deno.symlink(clis.claude!, `${bin}/claude`);
    await Deno.symlink(clis.codex!, `${bin}/codex`);
  }
  if (opts.grok) {
    await Deno.writeTextFile(`${bin}/grok`, fakeGrok());
    await Deno.chmod(`${bin}/grok`, 0o755);
  }
  if (opts.cursor) {
    await Deno.writeTextFile(`${bin}/cursor-agent`, "#!/bin/sh\necho 'cursor-agent (fake)'\n");
    await Deno.chmod(`${bin}/cursor-agent`, 0o755);
  }
  const env: Record<string, string> = {
    ...vh.env,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    CODEX_HOME: `${home}/.codex`,
  };
  // The server that `claude mcp list` starts is `deno run main.ts`: share the module cache.
  const denoDir = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  env.DENO_DIR = denoDir;
  return { home, env, bin, [Symbol.asyncDispose]: () => vh.cleanup() };
}

async function setup(h: Home, ...args: string[]): Promise<{ code: number; result: Result; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SETUP, ...args],
    cwd: h.home,
    env: h.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  let result: Result;
  try {
    result = JSON.parse(stdout);
  } catch {
    throw new Error(`setup printed no JSON (exit ${out.code}):\n${stdout}\n${stderr}`);
  }
  return { code: out.code, result, stderr };
}

async function cli(h: Home, bin: string, ...args: string[]): Promise<{ code: number; stdout: string }> {
  const out = await new Deno.Command(bin, {
    args,
    cwd: h.home,
    env: h.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

async function snapshot(paths: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of paths) {
    try {
      const st = await Deno.lstat(p);
      out[p] = `${st.mtime?.getTime()}:${decoder.decode(await Deno.readFile(p))}`;
    } catch {
      out[p] = "<missing>";
    }
  }
  return out;
}

function statuses(r: Result): Record<string, string> {
  return Object.fromEntries(Object.entries(r.clients).map(([k, v]) => [k, v.status]));
}

const BOM = "\uFEFF";

Deno.test({
  name:
    `setup registers aiterm in Claude Code, Codex, Cursor and Grok, keeps everything else, and a rerun changes nothing${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome({ grok: true, cursor: true });
    const home = h.home;
    // Claude: a BOM, tabs and odd spacing, another server, the onboarding state vendorHome wrote.
    const seeded = JSON.parse(await Deno.readTextFile(`${home}/.claude.json`));
    const claudeBefore = BOM +
      JSON.stringify(
        { ...seeded, mcpServers: { other: { type: "stdio", command: "echo", args: ["hi"], env: {} } } },
        null,
        "\t",
      )
        .replace('"numStartups": 1', '"numStartups" :   1');
    await Deno.writeTextFile(`${home}/.claude.json`, claudeBefore);
    // Cursor: a symlinked JSONC file with comments and a trailing comma.
    await Deno.mkdir(`${home}/dotfiles`);
    await Deno.mkdir(`${home}/.cursor`);
    const cursorBefore =
      '// Cursor MCP servers\n{\n  "mcpServers": {\n    "docs": { "url": "https://example.invalid/mcp" }, // remote\n  },\n}\n';
    await Deno.writeTextFile(`${home}/dotfiles/cursor-mcp.json`, cursorBefore);
    await Deno.symlink(`${home}/dotfiles/cursor-mcp.json`, `${home}/.cursor/mcp.json`);
    // Codex: a comment and another server.
    await Deno.writeTextFile(
      `${home}/.codex/config.toml`,
      '# my codex config\ncheck_for_update_on_startup = false\n\n[mcp_servers.other]\ncommand = "echo"\nargs = ["hi"]\n',
    );
    // Grok: another server in the user config.
    await Deno.mkdir(`${home}/.grok`);
    await Deno.writeTextFile(
      `${home}/.grok/config.toml`,
      '[mcp_servers.probe]\ncommand = "node"\nargs = ["probe.js"]\nenabled = true\n',
    );

    const first = await setup(h);
    assertEquals(first.code, 0, first.stderr);
    assertEquals(first.result.status, "ready");
    assertEquals(statuses(first.result), {
      claude: "registered",
      codex: "registered",
      cursor: "registered",
      grok: "registered",
    });
    assertEquals(first.result.clients.claude!.health, "connected");
    assertEquals(first.result.clients.cursor!.config_path_kind, "symlink");
    assertEquals(first.result.server, { command: Deno.execPath(), args: ["run", "-A", MAIN] });
    assertEquals(first.result.steps.map((s) => `${s.step}:${s.status}`), [
      "preflight:ok",
      "dependencies:ok",
      "server_command:ok",
      "smoke_test:ok",
      "detect_clients:ok",
      "register:ok",
      "read_back:ok",
    ]);

    // The real Claude Code starts the server and reports it connected.
    const list = await cli(h, `${h.bin}/claude`, "mcp", "list");
    assertMatch(list.stdout, /^aiterm: .*main\.ts - ✔ Connected$/m, list.stdout);
    assertMatch(list.stdout, /^other: echo hi - /m);
    const claudeAfter = await Deno.readTextFile(`${home}/.claude.json`);
    // Claude Code itself rewrites ~/.claude.json (two-space JSON, no BOM) when `mcp get`/`mcp list` run;
    // the BOM and layout that setup keeps are checked without the claude CLI in the next test.
    const claudeJson = JSON.parse(claudeAfter.replace(/^\uFEFF/, ""));
    assertEquals(claudeJson.mcpServers.other, { type: "stdio", command: "echo", args: ["hi"], env: {} });
    assertEquals(claudeJson.mcpServers.aiterm, {
      type: "stdio",
      command: Deno.execPath(),
      args: ["run", "-A", MAIN],
      env: {},
    });
    assertEquals(await Deno.readTextFile(`${home}/.claude.json.aiterm-backup`), claudeBefore);

    // The real Codex lists it next to the existing server.
    const codexList = JSON.parse((await cli(h, `${h.bin}/codex`, "mcp", "list", "--json")).stdout);
    const byName = Object.fromEntries(codexList.map((s: { name: string }) => [s.name, s]));
    assertEquals(byName.aiterm.transport.command, Deno.execPath());
    assertEquals(byName.aiterm.transport.args, ["run", "-A", MAIN]);
    assert(byName.other, "codex lost the other server");

    // Cursor: the link is still a link; its target got the entry and kept comments and the remote server.
    assert((await Deno.lstat(`${home}/.cursor/mcp.json`)).isSymlink);
    const cursorAfter = await Deno.readTextFile(`${home}/dotfiles/cursor-mcp.json`);
    assertStringIncludes(cursorAfter, "// Cursor MCP servers");
    assertStringIncludes(cursorAfter, '"docs": { "url": "https://example.invalid/mcp" }, // remote');
    assertStringIncludes(cursorAfter, `"command": ${JSON.stringify(Deno.execPath())}`);
    assertEquals(await Deno.readTextFile(`${home}/dotfiles/cursor-mcp.json.aiterm-backup`), cursorBefore);

    // Grok: registered through its CLI, the other server kept.
    const grokToml = await Deno.readTextFile(`${home}/.grok/config.toml`);
    assertStringIncludes(grokToml, "[mcp_servers.probe]");
    assertStringIncludes(grokToml, "[mcp_servers.aiterm]");

    // Second run: everything already matches, so nothing is written or re-added.
    const files = [
      `${home}/.claude.json`,
      `${home}/.claude.json.aiterm-backup`,
      `${home}/dotfiles/cursor-mcp.json`,
      `${home}/dotfiles/cursor-mcp.json.aiterm-backup`,
      `${home}/.codex/config.toml`,
      `${home}/.grok/config.toml`,
    ];
    const before = await snapshot(files);
    const grokCalls = (await Deno.readTextFile(`${home}/.grok/calls.log`)).trim().split("\n").length;
    const second = await setup(h, "--json");
    assertEquals(second.code, 0, second.stderr);
    assertEquals(statuses(second.result), {
      claude: "already_registered",
      codex: "already_registered",
      cursor: "already_registered",
      grok: "already_registered",
    });
    assertEquals(await snapshot(files), before);
    const calls = (await Deno.readTextFile(`${home}/.grok/calls.log`)).trim().split("\n").slice(grokCalls);
    assert(calls.every((c) => !c.includes('"add"')), `grok mcp add ran again: ${calls}`);
  },
});

Deno.test({
  name: `a corrupt Claude config and a read-only Cursor config fail untouched; Codex still gets registered${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome();
    const home = h.home;
    const corrupt = '{"numStartups": 1, "mcpServers": {"other": {"command": "echo"}},, }';
    await Deno.writeTextFile(`${home}/.claude.json`, corrupt);
    await Deno.writeTextFile(`${home}/.claude.json.aiterm-backup`, "an older backup\n");
    await Deno.mkdir(`${home}/.cursor`);
    const readonly = '{ "mcpServers": { "other": { "command": "echo" } } }\n';
    await Deno.writeTextFile(`${home}/.cursor/mcp.json`, readonly);
    await Deno.chmod(`${home}/.cursor/mcp.json`, 0o444);

    const r = await setup(h);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(statuses(r.result), { claude: "failed", codex: "registered", cursor: "failed", grok: "not_found" });
    assertEquals(r.result.clients.claude!.reason_code, "config_invalid");
    assertEquals(r.result.clients.cursor!.reason_code, "config_readonly");
    assertEquals(r.result.steps.find((s) => s.step === "register")?.reason_code, "client_failed");
    assertEquals(await Deno.readTextFile(`${home}/.claude.json`), corrupt);
    assertEquals(await Deno.readTextFile(`${home}/.claude.json.aiterm-backup`), "an older backup\n");
    assertEquals(await Deno.readTextFile(`${home}/.cursor/mcp.json`), readonly);
    assertEquals((await Array.fromAsync(Deno.readDir(`${home}/.cursor`))).map((e) => e.name), ["mcp.json"]);
  },
});

Deno.test({
  name: `~/.claude.json alone (no claude CLI) is detected and edited in place: BOM, tabs and spacing kept${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome({ real: false });
    const path = `${h.home}/.claude.json`;
    const before = BOM + '{\n\t"numStartups" :   1,\n\t"mcpServers": {\n\t\t"other": {"command": "echo"}\n\t}\n}\n';
    await Deno.writeTextFile(path, before);
    const r = await setup(h);
    assertEquals(r.code, 0, r.stderr);
    const claude = r.result.clients.claude!;
    assertEquals([claude.status, claude.config_path_kind, claude.health], ["registered", "file", "not_checked"]);
    const after = await Deno.readTextFile(path);
    const entry = JSON.stringify(
      { type: "stdio", command: Deno.execPath(), args: ["run", "-A", MAIN], env: {} },
      null,
      "\t",
    )
      .replaceAll("\n", "\n\t\t");
    assertEquals(
      after,
      BOM +
        `{\n\t"numStartups" :   1,\n\t"mcpServers": {\n\t\t"other": {"command": "echo"},\n\t\t"aiterm": ${entry}\n\t}\n}\n`,
    );
    assertEquals(await Deno.readTextFile(`${path}.aiterm-backup`), before);
  },
});

Deno.test({
  name: `--dry-run reports what would change and changes nothing${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome();
    const files = [`${h.home}/.claude.json`, `${h.home}/.claude.json.aiterm-backup`, `${h.home}/.codex/config.toml`];
    const before = await snapshot(files);
    const r = await setup(h, "--dry-run");
    assertEquals(r.code, 0, r.stderr);
    assertEquals(statuses(r.result), {
      claude: "would_register",
      codex: "would_register",
      cursor: "not_found",
      grok: "not_found",
    });
    assertEquals(r.result.steps.find((s) => s.step === "register")?.status, "planned");
    assertEquals(r.result.steps.find((s) => s.step === "read_back")?.status, "skipped");
    assertEquals(await snapshot(files), before);
  },
});

Deno.test({
  name: `no AI client on the machine is a failure (clients_not_detected, exit 1), and --human says so${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome({ real: false });
    await Deno.remove(`${h.home}/.claude.json`);
    const r = await setup(h);
    assertEquals(r.code, 1);
    assertEquals([r.result.status, r.result.reason_code], ["failed", "clients_not_detected"]);
    assertEquals(statuses(r.result), {
      claude: "not_found",
      codex: "not_found",
      cursor: "not_found",
      grok: "not_found",
    });
    assertEquals(r.result.steps.find((s) => s.step === "smoke_test")?.status, "ok");
    const human = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", SETUP, "--human"],
      cwd: h.home,
      env: h.env,
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
    }).output();
    assertEquals(human.code, 1);
    assertStringIncludes(decoder.decode(human.stdout), "aiterm setup: FAILED (clients_not_detected)");
  },
});
