import { z } from "zod";
import { TMUX_MIN_VERSION } from "../../../platform/mod.ts";
import { getHarnessStatuses } from "../diagnostics_probe.ts";
import { RuntimeErrorStore } from "../../errors_store/mod.ts";
import { privateDirProblem } from "../../../state/mod.ts";
import { AppError } from "../../../base/errors.ts";
import { defineTool } from "../tool.ts";

const KindSchema = z.object({
  status: z.enum(["ready", "setup_required", "unavailable"]).describe(
    "ready = answers are delivered automatically; setup_required = run aiterm-mcp setup",
  ),
  detail: z.string().nullable().describe("The missing step"),
  deliveries: z.record(z.string(), z.number().int()).describe("Delivery records by state"),
}).strict();

/** One row per parent kind (a public shape: each kind is spelt out with what its readiness means). */
const ParentDeliveryRowsSchema = z.object({
  claude: KindSchema.describe("Claude Code parents: aiterm's PreToolUse/PostToolUse/SessionEnd hooks"),
  cursor: KindSchema.describe("Cursor parents: aiterm's afterMCPExecution/postToolUse hooks"),
  codex: KindSchema.extend({
    steer: z.enum(["unsupported", "not_enabled", "enabled"]).describe(
      "Codex same-turn steer hooks (aiterm-mcp setup --codex-steer; unsupported on Linux)",
    ),
  }).strict().describe("Codex parents: the official queue through the app-server"),
}).strict();
type ParentDeliveryRows = z.infer<typeof ParentDeliveryRowsSchema>;

export const diagnostics = defineTool({
  name: "diagnostics",
  title: "Readiness report",
  description:
    "Check whether aiterm can work here; read-only: version, tmux found and new enough, state directory usable, session count, output-log writers, which agent CLIs resolve, and per parent client whether a sub-agent's answer reaches you by itself (setup_required: run aiterm-mcp setup). Call it first when a tool fails with a TMUX_* or STATE_ROOT_* code. Returns no paths, environment values or terminal content.",
  input: z.object({}).strict(),
  output: z.object({
    version: z.string().describe("aiterm version"),
    overall: z.enum(["ready", "not_ready"]).describe("ready when the multiplexer and state directory are usable"),
    multiplexer: z.object({
      kind: z.enum(["tmux", "psmux"]).describe("Backend for this OS"),
      found: z.boolean().describe("The binary runs"),
      version: z.string().nullable().describe("Its version"),
      minimum: z.string().describe("Oldest supported version"),
      supported: z.boolean().describe("found and at least the minimum"),
    }).strict(),
    state_root: z.object({
      status: z.enum(["ready", "absent", "invalid", "unsafe"]).describe(
        "ready = private directory we own; absent = created on first use; unsafe = others can write into it, " +
          "or it is a link or another user's (refused, never chmod-ed)",
      ),
    }).strict(),
    sessions: z.object({
      count: z.number().int().nullable().describe("Sessions on the private server; null if unreadable"),
      server: z.enum(["running", "not_running"]).nullable().describe(
        "aiterm's tmux server; not_running = none (the next pty_open starts one; sessions aiterm still lists " +
          "as ended were lost with a killed server); null when the multiplexer is unusable",
      ),
    }).strict(),
    output_log: z.object({
      writers_down: z.number().int().nullable().describe(
        "Running sessions whose output is not being recorded right now (log writer stopped, e.g. disk full; it is " +
          "restarted within about a second once it can be); null when unknown",
      ),
      writer_restarts: z.number().int().nullable().describe(
        "Times a stopped log writer was restarted (AITERM.LOG_WRITER_RESTARTED in the runtime-error aggregate, all " +
          "processes); reads across such a gap say truncated with LOG_WRITER_RESTARTED",
      ),
    }).strict().describe("The durable output logs; overall is not_ready while a writer is down"),
    runtime_errors: z.object({
      status: z.enum(["ready", "absent", "unreadable"]).describe("The local runtime-error aggregate"),
      open: z.number().int().nullable().describe("Entries not acknowledged or resolved"),
      total: z.number().int().nullable().describe("Distinct fixed codes recorded"),
      seq: z.number().int().nullable().describe("Monotonic sequence of recorded occurrences"),
    }).strict().describe("Counts of fixed error codes only (aiterm-mcp errors snapshot shows them)"),
    parent_delivery: ParentDeliveryRowsSchema.nullable().describe(
      "Per parent client kind; parents without automatic delivery use wait_process",
    ),
    harnesses: z.array(
      z.object({
        harness: z.string().describe("Harness id"),
        resolvable: z.boolean().describe("Its CLI binary was found (env override, standard path or PATH)"),
      }).strict(),
    ).describe("Coding-agent CLIs"),
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (_input, deps) => {
    const mux = deps.terminal.backend;
    const version = await mux.probeVersion();
    let supported = false;
    if (version !== null) supported = await mux.ensureAvailable().then(() => true, () => false);
    let stateStatus = stateRootStatus(deps.terminal.stateRoot);
    let count: number | null = null;
    let server: "running" | "not_running" | null = null;
    if (supported && stateStatus !== "unsafe") {
      try {
        server = (await mux.serverRunning()) ? "running" : "not_running";
      } catch (err) {
        // A socket that is not ours is refused before tmux runs: the state root is unsafe.
        if (err instanceof AppError && err.code === "STATE_ROOT_UNSAFE") stateStatus = "unsafe";
      }
      if (server === "not_running") count = 0;
      if (server === "running") count = await mux.listSessions().then((s) => s.length, () => null);
    }
    const store = deps.runtimeErrors?.store ?? new RuntimeErrorStore(deps.terminal.stateRoot);
    const outputLog = await outputLogStatus(
      supported ? { writersDown: () => deps.terminal.logWritersDown() } : null,
      store,
    );
    return {
      version: deps.version,
      overall: supported && stateStatus !== "invalid" && stateStatus !== "unsafe" && !outputLog.writers_down
        ? "ready" as const
        : "not_ready" as const,
      multiplexer: { kind: mux.kind, found: version !== null, version, minimum: TMUX_MIN_VERSION, supported },
      state_root: { status: stateStatus },
      sessions: { count, server },
      output_log: outputLog,
      runtime_errors: await (deps.runtimeErrors?.store ?? new RuntimeErrorStore(deps.terminal.stateRoot)).summary(),
      // The schema spells each parent kind's row (a public shape); the rows come from the integrations.
      parent_delivery: deps.delivery ? await deps.delivery.readiness() as ParentDeliveryRows : null,
      harnesses: getHarnessStatuses(deps.env),
    };
  },
});

/** Writers down now (asked of the multiplexer) and restarts counted in the aggregate. */
async function outputLogStatus(
  logs: { writersDown(): Promise<number | null> } | null,
  store: RuntimeErrorStore,
): Promise<{ writers_down: number | null; writer_restarts: number | null }> {
  const snap = await store.snapshot().catch(() => null);
  const entry = snap?.entries.find((e) => e.code === "AITERM.LOG_WRITER_RESTARTED");
  return {
    writers_down: logs ? await logs.writersDown() : null,
    writer_restarts: snap && snap.status !== "unreadable" ? entry?.count ?? 0 : null,
  };
}

function stateRootStatus(root: string): "ready" | "absent" | "invalid" | "unsafe" {
  try {
    const st = Deno.lstatSync(root);
    if (privateDirProblem(st, Deno.build.os === "windows" ? null : Deno.uid()) !== null) return "unsafe";
    if (!st.isDirectory) return "invalid";
    if (Deno.build.os !== "windows") {
      if (st.uid !== Deno.uid()) return "invalid";
      if (st.mode !== null && ((st.mode & 0o077) !== 0 || (st.mode & 0o700) !== 0o700)) return "invalid";
    }
    return "ready";
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? "absent" : "invalid";
  }
}
