/** The setup result (`aiterm.setup-result.v1`) and its readable rendering. */
import type { ClientId } from "../harnesses/clients/mod.ts";

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
  "parent_hooks",
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

/**
 * Claude Code and Cursor: aiterm's parent hooks (how a child agent's answer reaches this client by
 * itself). `would_install` appears only with --dry-run; `ready` is the read-back after the change.
 */
export interface ParentHooksResult {
  status: "installed" | "already_installed" | "would_install" | "failed" | "not_attempted";
  /** All entries read back in the installed form, their program exists, hooks are not disabled. */
  ready: boolean;
  reason_code?: string;
  detail: string;
  config_path?: string;
  config_path_kind?: "file" | "symlink" | "created";
  backup_path?: string;
  /** Claude Code: the version that was checked. */
  client_version?: string;
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
  /** Claude Code and Cursor only. */
  parent_hooks?: ParentHooksResult;
}

/** The whole result. */
export interface SetupResult {
  schema: typeof SETUP_SCHEMA;
  version: string;
  status: "ready" | "failed";
  reason_code?: string;
  dry_run: boolean;
  /** The command registered in the clients. */
  /** `development`: a `deno run` command from a source checkout or bundle, not a release binary. */
  server?: { command: string; args: string[]; development: boolean };
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
  installed: "installed",
  already_installed: "already installed",
  would_install: "would install",
  not_attempted: "not attempted",
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
    const h = c.parent_hooks;
    if (h) {
      const hcode = h.reason_code ? ` [${h.reason_code}]` : "";
      const state = `${MARK[h.status] ?? h.status}${
        h.ready ? ", ready" : h.status === "would_install" ? "" : ", NOT ready"
      }`;
      lines.push(`  ${"".padEnd(8)} parent hooks: ${state}${hcode}: ${h.detail}`);
    }
  }
  return lines.join("\n") + "\n";
}
