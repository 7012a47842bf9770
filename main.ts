// deno-lint-ignore-file no-console
/**
 * aiterm-mcp: the composition root. argv → subcommand; `serve` (the default) runs the MCP server on
 * stdio. stdout carries JSON-RPC only; everything else goes to stderr.
 */
import { parseArgs } from "node:util";
import { buildDeps } from "./lib/app.ts";
import { log } from "./base/log.ts";
import { type Config, rootConfig } from "./base/config.ts";
import { createServer, LineTransport } from "./lib/mcp/mod.ts";
import { ALL_TOOLS } from "./lib/mcp/tools/mod.ts";
import { VERSION } from "./base/version.ts";
import { runWait } from "./lib/wait_cli.ts";
import { invokedAsSetup, runSetup, SETUP_HELP } from "./setup/mod.ts";
import { ERRORS_HELP, runErrorsCommand } from "./lib/errors_store/mod.ts";
import { runRemoteWait } from "./lib/remote/mod.ts";
import { hookContext, hookNames, runHook } from "./lib/agent/delivery/mod.ts";
import { parentIntegrations, RECEIVE_USAGE, runCursorReceive } from "./harnesses/clients/mod.ts";
import { serverStdio } from "./platform/mod.ts";

/** One subcommand: its line in `aiterm-mcp --help` and its own `--help` text. */
export interface Subcommand {
  summary: string;
  help: string;
}

/** Every subcommand (exported for the test that checks --help and the README against it). */
export const SUBCOMMANDS: Record<string, Subcommand> = {
  serve: {
    summary: "run the MCP server on stdio (the default)",
    help: `aiterm-mcp serve
  Run the MCP server on stdio (the default when no subcommand is given).
  Environment: AITERM_STATE_DIR (state root; default $XDG_STATE_HOME/aiterm-mcp or ~/.local/state/aiterm-mcp),
  AITERM_LOG=debug|info|warn|error (stderr log level), AITERM_TMUX_BIN (tmux binary); every knob: docs/config.md.
  A refused value exits 2 with CONFIG_INVALID before anything starts.`,
  },
  wait: {
    summary: "block until a child agent's turn ends and print its outcome (also shipped as aiterm-wait)",
    help: `aiterm-mcp wait --session S --cursor N [--generation G] [--timeout 600]
  Block until an agent turn ends and print a JSON outcome; --timeout 0 reports now (done, blocked or running).
  Exit: 0 done, 2 bad arguments, 3 timeout, 4 closed, 5 blocked (stuck on a dialog or stopped), 6 not found (no such
  session, or not an agent session), 7 error, 8 running (--timeout 0 only). The same program ships as aiterm-wait.`,
  },
  setup: { summary: "register aiterm in every AI client found (Claude Code, Codex, Cursor, Grok)", help: SETUP_HELP },
  errors: { summary: "show or clear the runtime-error aggregate", help: ERRORS_HELP },
  "remote-wait": {
    summary: "run a remote agent's waiter over ssh, restarting it when ssh fails",
    help: `aiterm-mcp remote-wait -- ssh … <remote aiterm-mcp wait …>
  Runs a remote agent's waiter and starts it again when ssh itself fails (exit 255); the remote waiter's
  exit code (0 done, 3 timeout, 4 closed, 5 blocked, 7 error) is passed through. Used by remote wait_process receipts.`,
  },
  hook: {
    summary: "entry point of the hooks setup installs into Claude Code, Codex and Cursor",
    help: `aiterm-mcp hook <${hookNames(parentIntegrations()).join("|")}>
  Entry point of the hooks \`aiterm-mcp setup\` installs into Claude Code and Cursor (reads the hook's JSON on stdin).
  claude-post-tool-use waits for the child's answer and hands it to Claude (stderr, exit 2: Claude's wake signal).`,
  },
  "cursor-parent-receive": {
    summary: "wait for a child's answer to a Cursor parent and print it",
    help: `${RECEIVE_USAGE}
  Waits for a child's answer to a Cursor parent, prints it and exits 0 (6: the hook already delivered it;
  3: not claimed in time, the delivery is failed and the body kept; 7: the delivery failed; 4: unknown id).`,
  },
  version: { summary: "print the version (also --version)", help: "aiterm-mcp version\n  Print the version." },
};

/** `aiterm-mcp --help`: every subcommand with one line. */
function topHelp(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((k) => k.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `aiterm-mcp ${VERSION}: an MCP server that drives persistent terminals and coding agents through tmux

usage: aiterm-mcp [subcommand] [options]

subcommands:
${lines.join("\n")}

aiterm-mcp <subcommand> --help shows one subcommand's options; --version prints the version.`;
}

const USAGE = `usage: aiterm-mcp [${Object.keys(SUBCOMMANDS).join("|")}] [--help] [--version]`;

function fail(message: string): never {
  console.error(`aiterm-mcp: ${message}`);
  console.error(USAGE);
  Deno.exit(2);
}

async function serve(env: Record<string, string>, config: Config): Promise<void> {
  const parents = parentIntegrations({ env });
  const deps = buildDeps({ env, cwd: Deno.cwd(), config, parents });
  const server = createServer(deps, ALL_TOOLS, { legacyTools: config.legacyTools === "1" });
  // Our own framing: every malformed or oversized line gets a JSON-RPC error (lib/mcp/stdio_transport.ts).
  const stdio = serverStdio();
  const transport = new LineTransport({ input: stdio.input, output: stdio.output });
  transport.onclose = () => Deno.exit(0);
  await server.connect(transport);
  log("info", "server ready", { version: VERSION, pid: Deno.pid, stdio: stdio.how });
  // Scratch files (typed text) that a server which died mid-send left behind; never another live server's.
  void deps.terminal.sweepScratch();
  // Deliveries whose observing server died (restart, crash) are taken over now and then.
  const resume = () => {
    for (const m of [deps.delivery, deps.remoteDelivery]) {
      void m?.resume().catch((err) => log("warn", "delivery resume failed", { error: String(err) }));
    }
  };
  resume();
  Deno.unrefTimer(setInterval(resume, 30_000));
}

async function main(args: string[]): Promise<void> {
  if (invokedAsSetup()) {
    rootConfig(Deno.env.toObject(), "aiterm-setup");
    Deno.exit(await runSetup(args));
  }
  const first = args[0];
  if (first === "--help" || first === "-h" || first === "help") {
    console.log(topHelp());
    return;
  }
  if (first === "--version" || first === "-V") {
    console.log(VERSION);
    return;
  }
  const sub = first === undefined || first.startsWith("-") ? "serve" : first;
  const rest = first === undefined || first.startsWith("-") ? args : args.slice(1);
  if (!(sub in SUBCOMMANDS)) fail(`unknown subcommand "${sub}"`);
  // Every subcommand reads the environment's knobs once, here; a refused value exits 2 (CONFIG_INVALID).
  const env = Deno.env.toObject();
  const config = rootConfig(env, "aiterm-mcp");
  if (sub === "wait") Deno.exit(await runWait(rest, env, config));
  if (sub === "setup") Deno.exit(await runSetup(rest));
  if (sub === "errors") Deno.exit(await runErrorsCommand(rest, env));
  if (sub === "remote-wait" && !rest.includes("--help") && !rest.includes("-h")) Deno.exit(await runRemoteWait(rest));
  const helpAsked = rest.includes("--help") || rest.includes("-h");
  // Hook processes never ask whether hooks are installed: the integrations without status readers do.
  if (sub === "hook" && !helpAsked) Deno.exit(await runHook(rest, env, parentIntegrations()));
  if (sub === "cursor-parent-receive" && !helpAsked) {
    Deno.exit(await runCursorReceive(rest, hookContext(env, parentIntegrations())));
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: sub === "hook",
    });
  } catch (err) {
    fail((err as Error).message);
  }
  if (parsed.values.help) {
    console.log(SUBCOMMANDS[sub]!.help);
    return;
  }
  if (sub === "serve") return await serve(env, config);
  console.log(VERSION);
}

if (import.meta.main) await main(Deno.args);
