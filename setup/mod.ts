/**
 * `aiterm-mcp setup` (also shipped as `aiterm-setup`): flags, output and exit code. The steps
 * themselves are run by run.ts. Exit 0 ready, 1 failed (the JSON says why), 2 bad flags.
 */
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { knob } from "../base/config.ts";
import { type HookActionsRequest, renderHooksHuman, runHookActions } from "./hook_actions.ts";
import { renderHuman, type SetupResult } from "./result.ts";
import { processArgv0 } from "./platform_deps.ts";
import { performSetup } from "./run.ts";
import { isSetupName, type ServerCommand } from "./server_command.ts";

export type { SetupResult } from "./result.ts";

/** One-line usage. */
export const SETUP_USAGE =
  "usage: aiterm-mcp setup [--install-deps] [--legacy-tools] [--dry-run] [--json | --human]\n" +
  "       aiterm-mcp setup [--remove-claude-parent-hooks] [--remove-cursor-parent-hooks]\n" +
  "                        [--codex-steer status|enable|disable] [--dry-run] [--json | --human]";

/** `--help` text. */
export const SETUP_HELP = `${SETUP_USAGE}
  (also installed as aiterm-setup)

Prepares aiterm on this machine, in order: checks tmux (psmux and PowerShell 7 on Windows), runs a
smoke test through the MCP interface (starts the server, opens a terminal, runs a command, reads it,
closes it), finds the AI clients (Claude Code, Codex CLI, Cursor, Grok Build), registers aiterm in
each one and reads every registration back. Where aiterm is registered in Claude Code (2.1.259 or
later) or Cursor, it also adds aiterm's own parent hooks (~/.claude/settings.json, ~/.cursor/hooks.json)
so that a child agent's answer reaches that client by itself, and reads them back. Other hooks and
settings are kept; disableAllHooks is never changed. Running it again changes nothing when all matches.

  --install-deps  install missing dependencies with the system's package manager (otherwise the
                  command is only shown)
  --legacy-tools  register aiterm with AITERM_LEGACY_TOOLS=1 in its environment, so that it also lists
                  and serves the deprecated aliases claude_agent, codex_agent, grok_agent and
                  claude_approval (off by default; without the flag an existing entry is kept as it is)
  --dry-run       change nothing; report what would be installed and registered
  --json          print the result as JSON on stdout (default; schema aiterm.setup-result.v1)
  --human         print a readable summary instead of JSON
  -h, --help      this text

Hook commands (run instead of the setup steps; JSON schema aiterm.setup-hooks-result.v1):
  --remove-claude-parent-hooks  remove only aiterm's hooks from Claude Code's user settings
  --remove-cursor-parent-hooks  remove only aiterm's entries from ~/.cursor/hooks.json
  --codex-steer status|enable|disable
                  Codex steer delivery (macOS and Windows; unsupported on Linux, where enable
                  exits 1): adds or removes aiterm's PostToolUse and Stop hooks in
                  $CODEX_HOME/hooks.json and approves exactly those two through codex app-server;
                  status reads them back

Exit status: 0 ready (smoke test passed and every detected client registered and read back; a dry run:
every step would succeed) or hook commands done, 1 failed (the result says why; clients that did
register stay registered), 2 bad flags. Progress goes to stderr. From a source checkout the registered
command is a development command (deno run -A main.ts); the result says so (server.development).`;

const STEER_REQUESTS = ["status", "enable", "disable"] as const;

function isSteerRequest(v: string): v is typeof STEER_REQUESTS[number] {
  return (STEER_REQUESTS as readonly string[]).includes(v);
}

/** Options for {@link runSetup} (tests). */
export interface RunSetupOptions {
  env?: Record<string, string>;
  /** Override the registered command. */
  server?: () => ServerCommand;
}

const encoder = new TextEncoder();

function write(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let off = 0;
  while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
}

function usageError(message: string): number {
  write(Deno.stderr, `aiterm-setup: ${message}\n${SETUP_USAGE}\n`);
  return 2;
}

/**
 * Runs setup with the arguments after `setup` (or all arguments of `aiterm-setup`); returns the
 * exit code. Writes the result to stdout and progress to stderr.
 */
export async function runSetup(args: string[], options: RunSetupOptions = {}): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        "install-deps": { type: "boolean" },
        "legacy-tools": { type: "boolean" },
        "dry-run": { type: "boolean" },
        json: { type: "boolean" },
        human: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        "remove-claude-parent-hooks": { type: "boolean" },
        "remove-cursor-parent-hooks": { type: "boolean" },
        "codex-steer": { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    return usageError((err as Error).message);
  }
  if (values.help) {
    write(Deno.stdout, SETUP_HELP + "\n");
    return 0;
  }
  if (values.json && values.human) return usageError("--json and --human exclude each other");
  const steer = values["codex-steer"];
  if (steer !== undefined && !isSteerRequest(steer)) {
    return usageError(`--codex-steer takes status, enable or disable, not "${steer}"`);
  }
  const hookRequest: HookActionsRequest = {
    removeClaude: values["remove-claude-parent-hooks"] === true,
    removeCursor: values["remove-cursor-parent-hooks"] === true,
    ...(steer !== undefined ? { codexSteer: steer } : {}),
  };
  if (hookRequest.removeClaude || hookRequest.removeCursor || hookRequest.codexSteer) {
    if (values["install-deps"]) return usageError("--install-deps does not go with the hook commands");
    if (values["legacy-tools"]) return usageError("--legacy-tools does not go with the hook commands");
    const result = await runHookActions(hookRequest, {
      env: options.env ?? Deno.env.toObject(),
      dryRun: values["dry-run"] === true,
    });
    for (const a of result.actions) {
      write(Deno.stderr, `aiterm-setup: ${a.action}: ${a.status}${a.reason_code ? ` [${a.reason_code}]` : ""}\n`);
    }
    write(Deno.stdout, values.human ? renderHooksHuman(result) : JSON.stringify(result, null, 2) + "\n");
    return result.status === "ok" ? 0 : 1;
  }

  const result: SetupResult = await performSetup({
    env: options.env ?? Deno.env.toObject(),
    installDeps: values["install-deps"] === true,
    dryRun: values["dry-run"] === true,
    progress: (line) => write(Deno.stderr, `aiterm-setup: ${line}\n`),
    ...(options.server ? { server: options.server } : {}),
    ...(values["legacy-tools"] ? { serverEnv: { [knob("legacyTools").name]: "1" } } : {}),
  });
  write(Deno.stdout, values.human ? renderHuman(result) : JSON.stringify(result, null, 2) + "\n");
  return result.status === "ready" ? 0 : 1;
}

/**
 * True when this process was started under the name `aiterm-setup` (a copy or hard link of the
 * binary: its own path; a symlink: argv[0], which Linux keeps in /proc/self/cmdline).
 */
export function invokedAsSetup(): boolean {
  if (isSetupName(Deno.execPath())) return true;
  const argv0 = processArgv0();
  return argv0 !== null && isSetupName(basename(argv0));
}

if (import.meta.main) Deno.exit(await runSetup(Deno.args));
