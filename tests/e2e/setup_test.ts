/**
 * `aiterm-mcp setup` end to end through the real entry (`deno run -A main.ts setup …`), each test in
 * a throwaway HOME. The real Claude Code and Codex CLIs (installed by scripts/install_vendor_clis.sh)
 * are the clients: after setup `claude mcp list` starts the registered server and reports it
 * connected, and `codex mcp list --json` shows it. Grok and Cursor are fakes that follow their
 * documented layouts: a `grok` with `mcp add` / `mcp list --json` over `~/.grok/config.toml`, and a
 * `cursor-agent` plus `~/.cursor/mcp.json` and `~/.cursor/hooks.json`. The parent hooks setup adds
 * to `~/.claude/settings.json` and `~/.cursor/hooks.json` are checked byte for byte, and the real
 * Claude Code is shown to run an installed hook with its argv as written.
 * The tests are ignored, with the reason in their names, when tmux or the real CLIs are missing.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux } from "../helpers/env.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { CLAUDE_HOOK_MATCHER, CLAUDE_POST_MATCHER, installClaudeParentHooks } from "../../harnesses/clients/mod.ts";
import { Client, StdioClientTransport } from "../../lib/mcp/sdk.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const clis = findVendorClis();
const skip = !hasTmux
  ? " [ignored: tmux missing]"
  : clis.claude && clis.codex
  ? ""
  : " [ignored: run scripts/install_vendor_clis.sh first]";
const decoder = new TextDecoder();

interface Hooks {
  status: string;
  ready: boolean;
  reason_code?: string;
  detail: string;
  config_path?: string;
  backup_path?: string;
  client_version?: string;
}

interface Result {
  status: string;
  reason_code?: string;
  server?: { command: string; args: string[]; development?: boolean };
  steps: { step: string; status: string; reason_code?: string; detail?: string }[];
  clients: Record<
    string,
    { status: string; reason_code?: string; config_path_kind?: string; health?: string; parent_hooks?: Hooks }
  >;
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
  const env = [];
  while (i < args.length && args[i] !== "--") {
    if (["-e", "--env"].includes(args[i])) { env.push(args[i + 1]); i += 2; }
    else if (["-s", "--scope", "-t", "--transport"].includes(args[i])) i += 2; else name = args[i++];
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
    JSON.stringify(cmd[0]) + "\\nargs = " + JSON.stringify(cmd.slice(1)) + "\\nenabled = true\\n" +
    (env.length ? "\\n[mcp_servers." + name + ".env]\\n" + env.map((kv) => {
      const at = kv.indexOf("=");
      return kv.slice(0, at) + " = " + JSON.stringify(kv.slice(at + 1)) + "\\n";
    }).join("") : "");
  Deno.writeTextFileSync(cfg, text);
  console.log("Added MCP server '" + name + "' to " + cfg);
} else if (args[0] === "mcp" && args[1] === "list") {
  const servers = [];
  let cur = null;
  for (const raw of read().split("\\n")) {
    const line = raw.trim();
    const m = /^\\[mcp_servers\\.([^.\\]]+)\\]$/.exec(line);
    if (m) { cur = { name: m[1], scope: "user", transport: "stdio", enabled: true }; servers.push(cur); continue; }
    const e = /^\\[mcp_servers\\.([^.\\]]+)\\.env\\]$/.exec(line);
    const owner = e && servers.find((x) => x.name === e[1]);
    if (owner) { owner.env = {}; cur = owner.env; continue; }
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
    args: ["run", "-A", MAIN, "setup", ...args],
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

/** Runs a real client CLI; stdout and stderr stay apart (stdout is parsed; CLIs warn on stderr). */
async function cli(
  h: Home,
  bin: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(bin, {
    args,
    cwd: h.home,
    env: h.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
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

const CLAUDE_SETTINGS =
  '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"PreToolUse": [\n\t\t\t{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}\n\t\t]\n\t},\n\t"permissions": {"allow": []}\n}\n';
const CURSOR_HOOKS =
  '{\n  "version": 1,\n  "hooks": {\n    "afterMCPExecution": [{ "command": "./audit.sh" }]\n  }\n}\n';

/** The hook argv setup writes for this checkout: deno run -A main.ts hook <name>. */
function hookArgs(name: string): string[] {
  return ["run", "-A", MAIN, "hook", name];
}

/** Checks the parent hooks setup added, and that every other byte of both files was kept. */
async function assertParentHooks(home: string): Promise<void> {
  const settings = await Deno.readTextFile(`${home}/.claude/settings.json`);
  const foreignGroup = '{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}';
  assert(settings.startsWith(`{\n\t"model": "opus",\n\t"hooks": {\n\t\t"PreToolUse": [\n\t\t\t${foreignGroup},\n`));
  assert(settings.endsWith('\n\t},\n\t"permissions": {"allow": []}\n}\n'), settings);
  const handler = (name: string, timeout: number) => ({
    type: "command",
    command: Deno.execPath(),
    args: hookArgs(name),
    timeout,
  });
  assertEquals(JSON.parse(settings), {
    model: "opus",
    hooks: {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }] },
        { matcher: CLAUDE_HOOK_MATCHER, hooks: [handler("claude-pre-tool-use", 30)] },
      ],
      PostToolUse: [{
        matcher: CLAUDE_POST_MATCHER,
        hooks: [{ ...handler("claude-post-tool-use", 86400), asyncRewake: true }],
      }],
      SessionEnd: [{ hooks: [handler("claude-session-end", 30)] }],
      Stop: [{ hooks: [{ ...handler("claude-stop", 86400), asyncRewake: true }] }],
    },
    permissions: { allow: [] },
  });
  assertEquals(await Deno.readTextFile(`${home}/.claude/settings.json.aiterm-backup`), CLAUDE_SETTINGS);
  const cursor = JSON.parse(await Deno.readTextFile(`${home}/.cursor/hooks.json`));
  const ours = { command: `${Deno.execPath()} run -A ${MAIN} hook cursor-parent` };
  assertEquals(cursor, {
    version: 1,
    hooks: { afterMCPExecution: [{ command: "./audit.sh" }, ours], postToolUse: [ours] },
  });
}

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
    // Claude hooks: another product's hook and settings, tab-indented; Cursor: another hook.
    await Deno.mkdir(`${home}/.claude`, { recursive: true });
    await Deno.writeTextFile(`${home}/.claude/settings.json`, CLAUDE_SETTINGS);
    await Deno.writeTextFile(`${home}/.cursor/hooks.json`, CURSOR_HOOKS);

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
    assertEquals(first.result.server, { command: Deno.execPath(), args: ["run", "-A", MAIN], development: true });
    assertEquals(first.result.steps.map((s) => `${s.step}:${s.status}`), [
      "preflight:ok",
      "dependencies:ok",
      "server_command:ok",
      "smoke_test:ok",
      "detect_clients:ok",
      "register:ok",
      "read_back:ok",
      "parent_hooks:ok",
    ]);
    const claudeHooks = first.result.clients.claude!.parent_hooks!;
    assertEquals([claudeHooks.status, claudeHooks.ready, claudeHooks.client_version], ["installed", true, "2.1.328"]);
    const cursorHooks = first.result.clients.cursor!.parent_hooks!;
    assertEquals([cursorHooks.status, cursorHooks.ready], ["installed", true]);
    assertEquals(first.result.clients.codex!.parent_hooks, undefined);
    await assertParentHooks(home);

    // The real Claude Code starts the server and reports it connected.
    const list = await cli(h, `${h.bin}/claude`, "mcp", "list");
    assertMatch(list.stdout, /^aiterm: .*main\.ts - ✔ Connected$/m, list.stdout + list.stderr);
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
    // Codex warns ("WARNING: … temporary dir") on stderr when its home is under /tmp: only stdout is JSON.
    const codexOut = await cli(h, `${h.bin}/codex`, "mcp", "list", "--json");
    const codexList = JSON.parse(codexOut.stdout);
    const byName = Object.fromEntries(codexList.map((s: { name: string }) => [s.name, s]));
    assertEquals(byName.aiterm.transport.command, Deno.execPath());
    assertEquals(byName.aiterm.transport.args, ["run", "-A", MAIN]);
    // Codex clears the environment of MCP servers: the CODEX_HOME setup ran with is registered with it.
    assertEquals(byName.aiterm.transport.env?.CODEX_HOME, `${home}/.codex`);
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
      `${home}/.claude/settings.json`,
      `${home}/.claude/settings.json.aiterm-backup`,
      `${home}/.cursor/hooks.json`,
      `${home}/.cursor/hooks.json.aiterm-backup`,
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
    assertEquals(second.result.clients.claude!.parent_hooks!.status, "already_installed");
    assertEquals(second.result.clients.cursor!.parent_hooks!.status, "already_installed");
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

    // A dry run predicts the failure (exit 1, nothing written) …
    const dry = await setup(h, "--dry-run");
    assertEquals([dry.code, dry.result.status, dry.result.reason_code], [1, "failed", "client_failed"], dry.stderr);
    assertEquals(statuses(dry.result), {
      claude: "failed",
      codex: "would_register",
      cursor: "failed",
      grok: "not_found",
    });
    assertEquals(await Deno.readTextFile(`${home}/.codex/config.toml`).catch(() => ""), "");
    // … and the real run fails the same way, with Codex registered all the same.
    const r = await setup(h);
    assertEquals([r.code, r.result.status, r.result.reason_code], [1, "failed", "client_failed"], r.stderr);
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
    // A user's shell history: the smoke test's shell must not append to it.
    await Deno.writeTextFile(`${h.home}/.bash_history`, "ls\n");
    await Deno.writeTextFile(`${h.home}/.bashrc`, "HISTSIZE=1000\nshopt -s histappend\n");
    const files = [
      `${h.home}/.claude.json`,
      `${h.home}/.claude.json.aiterm-backup`,
      `${h.home}/.codex/config.toml`,
      `${h.home}/.claude/settings.json`,
      `${h.home}/.bash_history`,
      `${h.home}/.zsh_history`,
    ];
    const before = await snapshot(files);
    const r = await setup(h, "--dry-run");
    assertEquals(r.code, 0, r.stderr);
    assertEquals(r.result.steps.find((s) => s.step === "smoke_test")?.status, "ok");
    // From a source checkout the registered command is named a development command.
    assertEquals(r.result.server?.development, true);
    assertMatch(r.result.steps.find((s) => s.step === "server_command")?.detail ?? "", /^development command/);
    assertEquals(statuses(r.result), {
      claude: "would_register",
      codex: "would_register",
      cursor: "not_found",
      grok: "not_found",
    });
    assertEquals(r.result.steps.find((s) => s.step === "register")?.status, "planned");
    assertEquals(r.result.steps.find((s) => s.step === "read_back")?.status, "skipped");
    assertEquals(r.result.steps.find((s) => s.step === "parent_hooks")?.status, "planned");
    assertEquals(r.result.clients.claude!.parent_hooks!.status, "would_install");
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
      args: ["run", "-A", MAIN, "setup", "--human"],
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

Deno.test({
  name:
    `--remove-claude-parent-hooks / --remove-cursor-parent-hooks take out only aiterm's entries (exit 0, backup kept)${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome({ cursor: true });
    const home = h.home;
    await Deno.mkdir(`${home}/.claude`, { recursive: true });
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.writeTextFile(`${home}/.claude/settings.json`, CLAUDE_SETTINGS);
    await Deno.writeTextFile(`${home}/.cursor/hooks.json`, CURSOR_HOOKS);
    const installed = await setup(h);
    assertEquals(installed.code, 0, installed.stderr);
    await assertParentHooks(home);
    const withHooks = await Deno.readTextFile(`${home}/.claude/settings.json`);
    // The MCP registration stays; only the hook entries go.
    const claudeJson = await Deno.readTextFile(`${home}/.claude.json`);

    const r = await setup(h, "--remove-claude-parent-hooks", "--remove-cursor-parent-hooks");
    assertEquals(r.code, 0, r.stderr);
    const result = r.result as unknown as { schema: string; status: string; actions: Record<string, unknown>[] };
    assertEquals([result.schema, result.status], ["aiterm.setup-hooks-result.v1", "ok"]);
    assertEquals(result.actions.map((a) => [a.action, a.status, a.removed_entries]), [
      ["remove_claude_parent_hooks", "removed", 4],
      ["remove_cursor_parent_hooks", "removed", 2],
    ]);
    assertEquals(await Deno.readTextFile(`${home}/.claude/settings.json`), CLAUDE_SETTINGS);
    assertEquals(await Deno.readTextFile(`${home}/.claude/settings.json.aiterm-backup`), withHooks);
    assertEquals(await Deno.readTextFile(`${home}/.cursor/hooks.json`), CURSOR_HOOKS);
    assertEquals(await Deno.readTextFile(`${home}/.claude.json`), claudeJson);

    const again = await setup(h, "--remove-claude-parent-hooks");
    assertEquals(again.code, 0, again.stderr);
    assertEquals((again.result as unknown as { actions: { status: string }[] }).actions[0]!.status, "not_installed");
  },
});

Deno.test({
  name: `disableAllHooks: true is left alone; setup says the hooks are installed but not ready${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome();
    await Deno.mkdir(`${h.home}/.claude`, { recursive: true });
    await Deno.writeTextFile(`${h.home}/.claude/settings.json`, '{\n  "disableAllHooks": true\n}\n');
    const r = await setup(h);
    assertEquals(r.code, 0, r.stderr);
    const hooks = r.result.clients.claude!.parent_hooks!;
    assertEquals([hooks.status, hooks.ready, hooks.reason_code], ["installed", false, "claude_hooks_disabled"]);
    const step = r.result.steps.find((s) => s.step === "parent_hooks")!;
    assertEquals([step.status, step.reason_code], ["failed", "claude_hooks_disabled"]);
    const settings = await Deno.readTextFile(`${h.home}/.claude/settings.json`);
    assert(settings.startsWith('{\n  "disableAllHooks": true,\n  "hooks": {'), settings);
  },
});

Deno.test({
  name: `a Claude Code older than 2.1.259 gets no hooks (claude_version_too_old); registration still works${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome({ real: false });
    // The real CLI for everything except --version, which claims an older release.
    await Deno.writeTextFile(
      `${h.bin}/claude`,
      `#!/bin/sh\n[ "$1" = --version ] && { echo '2.1.250 (Claude Code)'; exit 0; }\nexec '${clis.claude}' "$@"\n`,
    );
    await Deno.chmod(`${h.bin}/claude`, 0o755);
    const r = await setup(h);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(r.result.clients.claude!.status, "registered");
    const hooks = r.result.clients.claude!.parent_hooks!;
    assertEquals([hooks.status, hooks.ready, hooks.reason_code], ["failed", false, "claude_version_too_old"]);
    assertStringIncludes(hooks.detail, "2.1.250");
    assertEquals(await Deno.lstat(`${h.home}/.claude/settings.json`).then(() => true, () => false), false);
  },
});

Deno.test({
  name: `the real Claude Code runs an installed hook as command + args, without a shell${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome();
    const log = `${h.home}/hook.log`;
    const recorder = `${h.home}/bin/recorder`;
    // Prints each argument on its own line, then the hook's stdin.
    await Deno.writeTextFile(
      recorder,
      `#!/bin/sh\nfor a in "$@"; do printf 'arg:%s\\n' "$a"; done >> '${log}'\ncat >> '${log}'\n`,
    );
    await Deno.chmod(recorder, 0o755);
    const server = { command: recorder, args: ["two words", "$HOME", "a;b"] };
    await installClaudeParentHooks(server, { env: h.env, home: h.home, dryRun: false });
    // `claude mcp list` runs a short session whose end fires SessionEnd.
    const list = await cli(h, `${h.bin}/claude`, "mcp", "list");
    assertEquals(list.code, 0, list.stdout + list.stderr);
    const text = await Deno.readTextFile(log);
    const args = text.split("\n").filter((l) => l.startsWith("arg:")).map((l) => l.slice(4));
    assertEquals(args, ["two words", "$HOME", "a;b", "hook", "claude-session-end"]);
    const payload = JSON.parse(text.slice(text.indexOf("{")));
    assertEquals(payload.hook_event_name, "SessionEnd");
  },
});

Deno.test("setup --codex-steer through main.ts: status exits 0, enable fails (non-zero), disable has nothing to do", async () => {
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "setup", ...args],
      env: { HOME: "/nonexistent-aiterm-home", PATH: "/usr/bin:/bin" },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, result: JSON.parse(decoder.decode(out.stdout)) };
  };
  const linux = Deno.build.os === "linux";
  const status = await run("--codex-steer", "status");
  assertEquals([status.code, status.result.actions[0].state], [0, linux ? "unsupported" : "not_enabled"]);
  const enable = await run("--codex-steer", "enable");
  assertEquals([enable.code, enable.result.status], [1, "failed"]);
  assertEquals(enable.result.reason_code, linux ? "codex_steer_unsupported" : "codex_home_missing");
  const disable = await run("--codex-steer=disable");
  assertEquals([disable.code, disable.result.actions[0].status], [0, "ok"]);
});

/** The tools a server started as `entry` (a client's registration: command, args, env) lists. */
async function registeredTools(h: Home, entry: { command: string; args: string[]; env?: Record<string, string> }) {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...h.env, ...entry.env },
    cwd: h.home,
    stderr: "pipe",
  });
  const client = new Client({ name: "setup-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

Deno.test({
  name: `setup --legacy-tools adds AITERM_LEGACY_TOOLS=1 to every client's registration; reruns keep it${skip}`,
  ignore: skip !== "",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using h = await makeHome({ grok: true, cursor: true });
    const home = h.home;
    const plain = await setup(h);
    assertEquals(plain.code, 0, plain.stderr);
    const claudeEntry = async () =>
      JSON.parse((await Deno.readTextFile(`${home}/.claude.json`)).replace(/^\uFEFF/, "")).mcpServers.aiterm;
    assertEquals((await claudeEntry()).env, {});
    const aliases = ["claude_agent", "codex_agent", "grok_agent", "claude_approval"];
    const before = await registeredTools(h, await claudeEntry());
    assertEquals(before.length, 12, before.join(","));

    // An existing registration without the variable is updated in every client.
    const legacy = await setup(h, "--legacy-tools");
    assertEquals(legacy.code, 0, legacy.stderr);
    assertEquals(statuses(legacy.result), {
      claude: "registered",
      codex: "registered",
      cursor: "registered",
      grok: "registered",
    });
    assertEquals(legacy.result.clients.claude!.health, "connected");
    const claude = await claudeEntry();
    assertEquals(claude.env, { AITERM_LEGACY_TOOLS: "1" });
    // The server as Claude Code starts it from that entry lists the aliases after the twelve main tools.
    assertEquals(await registeredTools(h, claude), [...before, ...aliases]);
    const codexOut = await cli(h, `${h.bin}/codex`, "mcp", "get", "aiterm", "--json");
    const codexEnv = JSON.parse(codexOut.stdout).transport.env;
    assertEquals(codexEnv, { AITERM_LEGACY_TOOLS: "1", CODEX_HOME: `${home}/.codex` });
    const cursor = JSON.parse(await Deno.readTextFile(`${home}/.cursor/mcp.json`)).mcpServers.aiterm;
    assertEquals(cursor.env, { AITERM_LEGACY_TOOLS: "1" });
    assertStringIncludes(
      await Deno.readTextFile(`${home}/.grok/config.toml`),
      '[mcp_servers.aiterm.env]\nAITERM_LEGACY_TOOLS = "1"\n',
    );

    // Again with the flag, and once without it: nothing changes (a user's entry is kept as it is).
    const files = [
      `${home}/.claude.json`,
      `${home}/.cursor/mcp.json`,
      `${home}/.codex/config.toml`,
      `${home}/.grok/config.toml`,
    ];
    const snap = await snapshot(files);
    for (const args of [["--legacy-tools"], []]) {
      const again = await setup(h, ...args);
      assertEquals(again.code, 0, again.stderr);
      assertEquals(Object.values(statuses(again.result)), [
        "already_registered",
        "already_registered",
        "already_registered",
        "already_registered",
      ], args.join(" "));
    }
    // claude mcp get (the read-back health check) may rewrite ~/.claude.json itself; its aiterm entry is what matters.
    const after = await snapshot(files.slice(1));
    for (const f of files.slice(1)) assertEquals(after[f], snap[f], f);
    assertEquals((await claudeEntry()).env, { AITERM_LEGACY_TOOLS: "1" });
  },
});

Deno.test("setup --legacy-tools does not go with the hook commands (exit 2)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "setup", "--legacy-tools", "--remove-cursor-parent-hooks"],
    env: { HOME: "/nonexistent-aiterm-home", PATH: "/usr/bin:/bin" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2);
  assertStringIncludes(decoder.decode(out.stderr), "--legacy-tools does not go with the hook commands");
});
