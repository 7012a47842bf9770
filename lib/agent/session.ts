/**
 * One agent session as the agent layer sees it: the harness adapter, the agent record, the
 * incremental transcript reader and the typing chokepoint, found from a session id in one place.
 * Every agent operation (dispatch, steer, launch's first prompt, approval, configure, answers) starts
 * with {@link AgentSession.open}; nothing in lib/agent reaches the pane but through `session.input`.
 *
 * The path of one agent request (a newcomer's map):
 *   lib/mcp/tools/pty_send.ts | agent_launch.ts   (validate the MCP shape, call the pipeline)
 *     → lib/agent/delivery/request.ts             (the pipeline: clean the text, the parent's delivery
 *                                                  preflight, dispatch, start the delivery, the receipt)
 *     → lib/agent/dispatch.ts dispatchTurn        (under the send lock: AgentSession.open, pane checks,
 *                                                  wait for input, steer or new turn)
 *     → lib/agent/typing.ts PaneInput             (the one typing chokepoint: sanitises, pastes, submits)
 *     → lib/terminal Terminal.typeExact           (the only program-input path into the multiplexer)
 *   and the turn's progress is read by lib/agent/turns.ts loadTurns → transcript_reader.ts.
 */
import { AppError } from "../../base/errors.ts";
import { getHarness, type HarnessAdapter } from "../../harnesses/mod.ts";
import { SESSION_ID_PATTERN, type Terminal } from "../terminal/mod.ts";
import { type AgentRecord, readAgentRecord, writeAgentRecord } from "./record.ts";
import { type LoadedTurns, loadTurns } from "./turns.ts";
import type { TranscriptReaders } from "./transcript_reader.ts";
import type { ModelCatalogs } from "./models.ts";
import { PaneInput } from "./typing.ts";

/** What the agent layer needs from its host (built once by the MCP server). */
export interface AgentDeps {
  terminal: Terminal;
  env: Record<string, string>;
  defaultCwd: string;
  /** The process's incremental transcript readers (lib/app.ts builds one; absent: each check reads afresh). */
  transcripts?: TranscriptReaders;
  /** The process's model catalog reads (lib/app.ts builds one; absent: each check reads afresh). */
  catalogs?: ModelCatalogs;
}

/** See the module doc. */
export class AgentSession {
  readonly deps: AgentDeps;
  readonly id: string;
  readonly adapter: HarnessAdapter;
  /** The one way to type into this session's TUI. */
  readonly input: PaneInput;
  #rec: AgentRecord;

  private constructor(deps: AgentDeps, id: string, rec: AgentRecord, adapter: HarnessAdapter) {
    this.deps = deps;
    this.id = id;
    this.adapter = adapter;
    this.input = new PaneInput(deps.terminal, id, adapter);
    this.#rec = rec;
  }

  /**
   * The agent session `id`, from its record on disk.
   * @throws {AppError} INVALID_ARGUMENT (malformed id), SESSION_NOT_FOUND (no such session at all),
   *   AGENT_SESSION_REQUIRED (a session without an agent launched by aiterm)
   */
  static async open(deps: AgentDeps, id: string): Promise<AgentSession> {
    if (!SESSION_ID_PATTERN.test(id)) await deps.terminal.describe(id); // throws INVALID_ARGUMENT
    const rec = await readAgentRecord(deps.terminal.sessionDir(id));
    const adapter = rec ? getHarness(rec.harness) : null;
    if (rec && adapter) return new AgentSession(deps, id, rec, adapter);
    const { meta, live } = await deps.terminal.describe(id);
    if (!meta && !live) {
      throw new AppError("SESSION_NOT_FOUND", `Session "${id}" does not exist`, {
        suggestion: "call pty_list; launch an agent with agent_launch",
      });
    }
    throw new AppError("AGENT_SESSION_REQUIRED", `Session "${id}" has no agent launched by aiterm`, {
      suggestion: "use agent_launch, or pty_send without agent options",
    });
  }

  /** The agent record as last read or saved. */
  get rec(): AgentRecord {
    return this.#rec;
  }

  get terminal(): Terminal {
    return this.deps.terminal;
  }

  /** Saves `next` as the agent record (and keeps it as {@link rec}). */
  async save(next: AgentRecord): Promise<void> {
    this.#rec = next;
    await writeAgentRecord(this.deps.terminal.sessionDir(this.id), next);
  }

  /** The launch's turns now, through the process's incremental reader of its transcript. */
  turns(rec: AgentRecord = this.#rec): Promise<LoadedTurns> {
    return loadTurns(this.adapter, rec, {
      env: this.deps.env,
      readers: this.deps.transcripts,
      sessionDir: this.deps.terminal.sessionDir(this.id),
    });
  }

  /** Whether the harness process still runs in the pane (false: the pane is gone or dead). */
  async alive(): Promise<boolean> {
    const pane = await this.deps.terminal.pane(this.id);
    return !!pane && !pane.paneDead;
  }

  /** Runs `fn` under the session's send lock. */
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.deps.terminal.withLock(this.id, fn);
  }
}

/** The agent record and adapter of a session (see {@link AgentSession.open} for the errors). */
export async function agentOf(deps: AgentDeps, id: string): Promise<{ rec: AgentRecord; adapter: HarnessAdapter }> {
  const s = await AgentSession.open(deps, id);
  return { rec: s.rec, adapter: s.adapter };
}
