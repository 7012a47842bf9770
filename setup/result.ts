/** The setup result (`aiterm.setup-result.v1`) and its readable rendering. */
import type { ClientId } from "./clients.ts";

/** Schema id of the JSON setup prints. */
export const SETUP_SCHEMA = "aiterm.setup-result.v1";

/** The steps, in the order setup runs them. */
export const STEP_NAMES = [
  "preflight",
  "dependencies",
  "server_command",
  "smoke_test",
  "detect_clients",
  "register",
  "read_back",
] as const;
/** One of {@link STEP_NAMES}. */
export type StepName = typeof STEP_NAMES[number];

/** One step's outcome. `planned`: dry run, something would change. */
export interface StepResult {
  step: StepName;
  status: "ok" | "failed" | "skipped" | "planned";
  reason_code?: string;
  detail?: string;
  /** dependencies: the package manager command for what is missing. */
  install_command?: string;
}

/** One client's outcome. `would_register` appears only with --dry-run. */
export interface ClientResult {
  status: "registered" | "already_registered" | "would_register" | "not_found" | "failed";
  reason_code?: string;
  detail?: string;
  config_path?: string;
  config_path_kind?: "file" | "symlink" | "created" | "cli";
  backup_path?: string;
  /** Claude Code: `claude mcp get aiterm` started the server and reported it connected. */
  health?: "connected" | "not_checked";
}

/** The whole result. */
export interface SetupResult {
  schema: typeof SETUP_SCHEMA;
  version: string;
  status: "ready" | "failed";
  reason_code?: string;
  dry_run: boolean;
  /** The command registered in the clients. */
  server?: { command: string; args: string[] };
  steps: StepResult[];
  clients: Record<ClientId, ClientResult>;
}

const MARK: Record<string, string> = {
  ok: "ok",
  failed: "FAILED",
  skipped: "skipped",
  planned: "planned",
  registered: "registered",
  already_registered: "already registered",
  would_register: "would register",
  not_found: "not found",
};

/** A readable summary of `result` (the `--human` output). */
export function renderHuman(result: SetupResult): string {
  const lines: string[] = [];
  const head = result.status === "ready" ? "aiterm setup: ready" : `aiterm setup: FAILED (${result.reason_code})`;
  lines.push(result.dry_run ? `${head} [dry run: nothing was changed]` : head);
  if (result.server) lines.push(`server command: ${[result.server.command, ...result.server.args].join(" ")}`);
  lines.push("", "steps:");
  for (const s of result.steps) {
    const code = s.reason_code ? ` [${s.reason_code}]` : "";
    lines.push(`  ${s.step.padEnd(15)} ${MARK[s.status] ?? s.status}${code}${s.detail ? `: ${s.detail}` : ""}`);
  }
  lines.push("", "clients:");
  for (const [id, c] of Object.entries(result.clients)) {
    const code = c.reason_code ? ` [${c.reason_code}]` : "";
    lines.push(`  ${id.padEnd(8)} ${MARK[c.status] ?? c.status}${code}${c.detail ? `: ${c.detail}` : ""}`);
  }
  return lines.join("\n") + "\n";
}
