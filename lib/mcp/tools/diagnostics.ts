import { z } from "zod";
import { TMUX_MIN_VERSION } from "../../../platform/mod.ts";
import { getHarnessStatuses } from "../diagnostics_probe.ts";
import { RuntimeErrorStore } from "../../errors_store/mod.ts";
import { defineTool } from "../tool.ts";

const KindSchema = z.object({
  status: z.enum(["ready", "setup_required", "unavailable"]).describe(
    "ready = answers are delivered automatically; setup_required = run aiterm-mcp setup",
  ),
  detail: z.string().nullable().describe("The missing step"),
  deliveries: z.record(z.string(), z.number().int()).describe("Delivery records by state"),
}).strict();

export const diagnostics = defineTool({
  name: "diagnostics",
  title: "Readiness report",
  description:
    "Read-only readiness report: aiterm version, whether tmux is found and new enough, whether the state directory is usable, how many sessions exist, and which coding-agent CLIs resolve. Never returns paths, environment values or terminal content.",
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
      status: z.enum(["ready", "absent", "invalid"]).describe(
        "ready = private directory we own; absent = created on first use",
      ),
    }).strict(),
    sessions: z.object({
      count: z.number().int().nullable().describe("Sessions on the private server; null if unreadable"),
    }).strict(),
    runtime_errors: z.object({
      status: z.enum(["ready", "absent", "unreadable"]).describe("The local runtime-error aggregate"),
      open: z.number().int().nullable().describe("Entries not acknowledged or resolved"),
      total: z.number().int().nullable().describe("Distinct fixed codes recorded"),
      seq: z.number().int().nullable().describe("Monotonic sequence of recorded occurrences"),
    }).strict().describe("Counts of fixed error codes only (aiterm-mcp errors snapshot shows them)"),
    parent_delivery: z.object({
      claude: KindSchema.describe("Claude Code parents: aiterm's PreToolUse/PostToolUse/SessionEnd hooks"),
      cursor: KindSchema.describe("Cursor parents: aiterm's afterMCPExecution/postToolUse hooks"),
      codex: KindSchema.extend({
        steer: z.enum(["unsupported", "not_enabled", "enabled"]).describe(
          "Codex same-turn steer hooks (aiterm-mcp setup --codex-steer; unsupported on Linux)",
        ),
      }).strict().describe("Codex parents: the official queue through the app-server"),
    }).strict().nullable().describe("Per parent client kind; parents without automatic delivery use wait_process"),
    harnesses: z.array(
      z.object({
        harness: z.string().describe("Harness id"),
        resolvable: z.boolean().describe("Its CLI binary was found (env override, standard path or PATH)"),
      }).strict(),
    ).describe("Coding-agent CLIs"),
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (_input, deps) => {
    const mux = deps.terminal.mux;
    const version = await mux.probeVersion();
    let supported = false;
    if (version !== null) supported = await mux.ensureAvailable().then(() => true, () => false);
    const stateStatus = stateRootStatus(deps.terminal.layout.root);
    let count: number | null = null;
    if (supported) count = await mux.listSessions().then((s) => s.length, () => null);
    return {
      version: deps.version,
      overall: supported && stateStatus !== "invalid" ? "ready" as const : "not_ready" as const,
      multiplexer: { kind: mux.kind, found: version !== null, version, minimum: TMUX_MIN_VERSION, supported },
      state_root: { status: stateStatus },
      sessions: { count },
      runtime_errors: await (deps.runtimeErrors?.store ?? new RuntimeErrorStore(deps.terminal.layout.root)).summary(),
      parent_delivery: deps.delivery ? await deps.delivery.readiness() : null,
      harnesses: getHarnessStatuses(deps.env),
    };
  },
});

function stateRootStatus(root: string): "ready" | "absent" | "invalid" {
  try {
    const st = Deno.lstatSync(root);
    if (!st.isDirectory || st.isSymlink) return "invalid";
    if (Deno.build.os !== "windows") {
      if (st.uid !== Deno.uid()) return "invalid";
      if (st.mode !== null && ((st.mode & 0o077) !== 0 || (st.mode & 0o700) !== 0o700)) return "invalid";
    }
    return "ready";
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? "absent" : "invalid";
  }
}
