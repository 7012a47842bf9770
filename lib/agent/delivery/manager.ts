/**
 * The one delivery core. Before a request reaches a child it saves where the answer goes and the
 * child turn that ends it; it observes that turn, saves the answer unmodified, and delivers it: to a
 * Codex parent through the official queue, to Claude Code and Cursor parents by leaving it `ready`
 * for their hook (or Cursor's receive process) to claim exactly once. Every step is a state in the
 * record, so a restart resumes (`waiting` re-observes from the same boundary, `ready` sends the
 * saved body) and an interrupted send becomes `unknown` with the body kept — never resent.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { AppError } from "../../../base/errors.ts";
import { log } from "../../../base/log.ts";
import { ensurePrivateDir, readJsonFile, writeJsonAtomic } from "../../state/mod.ts";
import { processEnvVar } from "../../../platform/mod.ts";
import type { AgentDeps } from "../session.ts";
import type { AgentRecord } from "../record.ts";
import { readAnswer } from "../answer.ts";
import { waitForTurn } from "../waiter.ts";
import {
  alive,
  type ChildBoundary,
  type ChildOutcome,
  type DeliveryReceipt,
  type DeliveryRecord,
  DeliveryStore,
  type Destination,
  me,
  type ParentKind,
  receiptOf,
} from "./store.ts";

/** Who called: decided by the MCP layer from the initialize handshake and the request's `_meta`. */
export type ParentContext =
  | { kind: "codex"; threadId: string | null }
  | { kind: "claude"; toolUseId: string | null }
  | { kind: "cursor"; clientKey: string }
  | { kind: "other" };

/** Whether a parent kind's hooks are installed (from setup's status functions). */
export interface HookStatus {
  ready: boolean;
  reason: string | null;
}

/** The Codex queue (lib/agent/delivery/codex_queue.ts), injected so tests can fake the receiver. */
export type CodexQueueFn = (
  target: { codexBin: string; codexHome: string; threadId: string; env: Record<string, string> },
  body: string,
  clientUserMessageId: string,
) => Promise<{ queuedSubmissionId: string; alreadyQueued: boolean }>;

/** A refused or broken Codex delivery (kind decides failed vs unknown). */
export interface CodexFailure {
  kind: "refused" | "interrupted" | "unavailable";
  code: string;
  message: string;
}

/** How a turn ended, as the observer sees it. */
export interface TurnEnd {
  outcome: "done" | "closed" | "error" | "timeout";
  turn_id: string | null;
  error: string | null;
}

/** How the manager reaches a child: locally (the default) or through ssh (remote children). */
export interface ChildAccess {
  /** Waits up to `timeoutMs` for the boundary turn to end (timeout: not yet). */
  wait(child: ChildBoundary, timeoutMs: number): Promise<TurnEnd>;
  /** The answer of the boundary turn, exactly as recorded. */
  answer(child: ChildBoundary): Promise<{ text: string; turn_id: string }>;
}

/** What the manager needs. */
export interface DeliveryDeps extends AgentDeps {
  /** Remote children: how to reach them (absent: local children). */
  access?: ChildAccess;
  store: DeliveryStore;
  claudeHooks(): Promise<HookStatus>;
  cursorHooks(): Promise<HookStatus>;
  codexQueue: CodexQueueFn;
  /** Whether Codex same-turn steer hooks are selected for the parent's Codex home (a file read, no process). */
  codexSteer?(): Promise<"not_enabled" | "enabled">;
  /** The Codex binary the parent runs (for its app-server); null when none is found. */
  codexBin(): Promise<string | null>;
}

/** A resolved destination for one request. */
export interface ResolvedDestination {
  kind: ParentKind;
  destination: Destination;
  /** Same parent conversation → same key (claims compare these). */
  key: string;
}

const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const THREAD_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** How long a Cursor body waits for a claim before the delivery is failed (body kept). */
export const UNCLAIMED_LIMIT_MS = 24 * 3600_000;
const OBSERVE_SLICE_MS = 600_000;
/** Finished deliveries (and their bodies) are kept this long for inspection. */
const FINISHED_KEEP_MS = 7 * 24 * 3600_000;

/** sha256 hex of a string (file names derived from foreign ids). */
export function digest(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** The text a parent receives: a one-line header with the outcome, then the answer exactly as saved. */
export function envelope(rec: DeliveryRecord, body: string): string {
  const outcome = rec.child_outcome ?? "unknown";
  const head = `[aiterm] answer from child agent session "${rec.child.session_id}" (${rec.child.harness}), ` +
    `turn ${rec.child.cursor}: ${outcome}` + (rec.child_error ? ` (${rec.child_error})` : "");
  return body === "" ? head : `${head}\n\n${body}`;
}

/** The Claude PreToolUse hand-over file for a tool call. */
export function claudePrePath(store: DeliveryStore, toolUseId: string): string {
  return join(store.claudeHooksDir, "pre", `${digest(toolUseId)}.json`);
}
/** tool_use_id → delivery id index written when the delivery is created. */
export function claudeIndexPath(store: DeliveryStore, toolUseId: string): string {
  return join(store.claudeHooksDir, "by-tool-use", `${digest(toolUseId)}.json`);
}

/** The PreToolUse record (written by `aiterm-mcp hook claude-pre-tool-use`). */
export interface ClaudePreRecord {
  session_id: string;
  tool_use_id: string;
  agent_id: string | null;
  at_ms: number;
}

/** Readiness of one parent kind. */
export interface KindReadiness {
  status: "ready" | "setup_required" | "unavailable";
  detail: string | null;
  deliveries: Record<string, number>;
}

/** {@link ParentDeliveryManager.readiness}. */
export interface Readiness {
  claude: KindReadiness;
  cursor: KindReadiness;
  codex: KindReadiness & { steer: "unsupported" | "not_enabled" | "enabled" };
}

/** The delivery core of one server process. */
export class ParentDeliveryManager {
  readonly #deps: DeliveryDeps;
  readonly #observing = new Set<string>();
  readonly #owner = me();
  readonly #access: ChildAccess;
  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
    this.#access = deps.access ?? {
      wait: async (child, timeoutMs) => {
        const o = await waitForTurn(deps.terminal, child.session_id, child.cursor, {
          timeoutMs,
          env: deps.env,
          generation: child.generation,
        });
        // A stuck child is not finished: the observer keeps waiting (reportBlocked is off here anyway).
        // A session gone before the first look (not_found) is closed for a delivery.
        const outcome = o.outcome === "blocked" || o.outcome === "running"
          ? "timeout"
          : o.outcome === "not_found"
          ? "closed"
          : o.outcome;
        return { outcome, turn_id: o.turn_id, error: o.error };
      },
      answer: async (child) => {
        const a = await readAnswer(deps, child.session_id, child.cursor);
        return { text: a.text, turn_id: a.turn_id };
      },
    };
  }

  get store(): DeliveryStore {
    return this.#deps.store;
  }

  /**
   * Decides where this request's answer goes, before anything reaches the child. Null: no automatic
   * delivery (other parents, or a Codex request without a thread): the caller gets wait_process.
   * @throws {AppError} CLAUDE_PARENT_HOOK_UNAVAILABLE, CLAUDE_PARENT_AGENT_UNSUPPORTED, CURSOR_PARENT_HOOK_UNAVAILABLE
   */
  async resolve(parent: ParentContext | undefined): Promise<ResolvedDestination | null> {
    if (!parent || parent.kind === "other") return null;
    if (parent.kind === "codex") {
      if (!parent.threadId || !THREAD_ID.test(parent.threadId)) return null;
      // Codex starts MCP servers with a cleared environment, so CODEX_HOME may be missing here: take the
      // parent Codex process's own value when the OS shows it, else Codex's default.
      const home = this.#deps.env.CODEX_HOME || processEnvVar(Deno.ppid, "CODEX_HOME") ||
        join(this.#deps.env.HOME ?? "", ".codex");
      return {
        kind: "codex",
        destination: { thread_id: parent.threadId, codex_home: home },
        key: `codex:${home}:${parent.threadId}`,
      };
    }
    if (parent.kind === "cursor") {
      const status = await this.#deps.cursorHooks();
      if (!status.ready) {
        throw new AppError(
          "CURSOR_PARENT_HOOK_UNAVAILABLE",
          `Cannot deliver a child's answer to Cursor: aiterm's Cursor hooks are not ready (${status.reason})`,
          { suggestion: "nothing was sent to the child; run `aiterm-mcp setup` to install the hooks, then retry" },
        );
      }
      return { kind: "cursor", destination: { conversation_id: null }, key: `cursor:${parent.clientKey}` };
    }
    return await this.#resolveClaude(parent.toolUseId);
  }

  async #resolveClaude(toolUseId: string | null): Promise<ResolvedDestination> {
    const unavailable = (why: string) =>
      new AppError(
        "CLAUDE_PARENT_HOOK_UNAVAILABLE",
        `Cannot deliver a child's answer to Claude Code: ${why}`,
        { suggestion: "nothing was sent to the child; run `aiterm-mcp setup` (Claude Code ≥ 2.1.259), then retry" },
      );
    if (!toolUseId || !TOOL_USE_ID.test(toolUseId)) {
      throw unavailable('the request carries no _meta["claudecode/toolUseId"]');
    }
    const status = await this.#deps.claudeHooks();
    if (!status.ready) throw unavailable(`aiterm's hooks are not ready (${status.reason})`);
    // PreToolUse runs before Claude sends tools/call; give its file a moment to land.
    const path = claudePrePath(this.store, toolUseId);
    const deadline = Date.now() + 3000;
    let pre: ClaudePreRecord | null = null;
    while (!(pre = await readJsonFile<ClaudePreRecord>(path).catch(() => null)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!pre || pre.tool_use_id !== toolUseId) {
      throw unavailable(
        "aiterm's PreToolUse hook left no record for this call in this server's state root (if AITERM_STATE_DIR " +
          "is set only in the MCP server's env, set it where Claude Code starts too: the hooks run in its environment)",
      );
    }
    // Used once: the hand-over file of this tool call is not needed again.
    await Deno.remove(path).catch(() => {});
    if (pre.agent_id) {
      throw new AppError(
        "CLAUDE_PARENT_AGENT_UNSUPPORTED",
        "Cannot deliver a child's answer to a Claude Code sub-agent or --agent conversation",
        { suggestion: "nothing was sent; dispatch from the main conversation, or use wait_process" },
      );
    }
    return {
      kind: "claude",
      destination: { claude_session_id: pre.session_id, tool_use_id: toolUseId },
      key: `claude:${pre.session_id}`,
    };
  }

  /**
   * Dispatch hooks for one request (see dispatchTurn's options). `created()` gives the
   * delivery made for a new turn; `joined()` the one a steer joined.
   */
  forRequest(dest: ResolvedDestination | null) {
    let created: DeliveryRecord | null = null;
    let joined: DeliveryRecord | null = null;
    const key = dest?.key ?? `other:${this.#owner.pid}`;
    return {
      beforeNewTurn: async (cursor: number, rec: AgentRecord) => {
        await this.securePrevious(rec.session_id);
        if (!dest) return;
        created = await this.create(dest, {
          session_id: rec.session_id,
          launch_id: rec.launch_id,
          harness: rec.harness,
          cursor,
          generation: (await this.#deps.terminal.meta(rec.session_id))?.generation ?? null,
        });
      },
      beforeSteer: async (_joined: number | null, rec: AgentRecord) => {
        joined = await this.checkClaim(rec.session_id, key);
      },
      created: () => created,
      joined: () => joined,
    };
  }

  /** Per parent kind: can an answer be delivered now, or which setup step is missing; plus counts by state. */
  async readiness(): Promise<Readiness> {
    const counts = async (kind: ParentKind) => {
      const by: Record<string, number> = {};
      for (const r of await this.store.list(kind)) by[r.state] = (by[r.state] ?? 0) + 1;
      return by;
    };
    const hook = (s: HookStatus) => ({
      status: s.ready ? "ready" as const : "setup_required" as const,
      detail: s.ready ? null : s.reason,
    });
    const codexBin = await this.#deps.codexBin();
    return {
      claude: {
        ...hook(await this.#deps.claudeHooks().catch(() => ({ ready: false, reason: "unreadable" }))),
        deliveries: await counts("claude"),
      },
      cursor: {
        ...hook(await this.#deps.cursorHooks().catch(() => ({ ready: false, reason: "unreadable" }))),
        deliveries: await counts("cursor"),
      },
      codex: {
        status: codexBin ? "ready" : "unavailable",
        detail: codexBin ? null : "no codex binary found for the official app-server (CODEX_BIN, standard path, PATH)",
        steer: Deno.build.os === "linux" ? "unsupported" : await this.#deps.codexSteer?.() ?? "not_enabled",
        deliveries: await counts("codex"),
      },
    };
  }

  /**
   * The delivery a child is working on, when its request is still running. Another parent's running
   * request refuses the send.
   * @throws {AppError} CHILD_CLAIMED
   */
  async checkClaim(childKey: string, destinationKey: string): Promise<DeliveryRecord | null> {
    const claim = await this.store.readClaim(childKey);
    if (!claim) return null;
    const held = await this.store.read(claim.parent, claim.delivery_id);
    if (!held || held.state !== "waiting") return null;
    if (claim.destination_key !== destinationKey) {
      throw new AppError(
        "CHILD_CLAIMED",
        `Cannot send to "${held.child.session_id}": it is working on another parent's request (delivery ${claim.delivery_id})`,
        { suggestion: "nothing was typed; wait for that turn to end, or use another child" },
      );
    }
    return held;
  }

  /** The claim key of a child: its session id, prefixed with a hash of the destination for a remote one. */
  childKey(child: Pick<ChildBoundary, "session_id" | "remote">): string {
    return child.remote ? `${digest(JSON.stringify(child.remote)).slice(0, 16)}-${child.session_id}` : child.session_id;
  }

  /** Starts observing a delivery this process owns (after the request was typed). */
  start(rec: DeliveryRecord): void {
    void this.#observe(rec.parent, rec.delivery_id);
  }

  /** Drops a delivery whose request never reached the child (the dispatch failed after it was created). */
  async abandon(rec: DeliveryRecord, code: string): Promise<void> {
    await this.store.update(rec.parent, rec.delivery_id, (r) => ({ ...r, state: "failed", error_code: code }));
    await this.store.releaseClaim(this.childKey(rec.child), rec.delivery_id);
  }

  /** The current receipt of a delivery. */
  async receipt(rec: DeliveryRecord): Promise<DeliveryReceipt> {
    return receiptOf((await this.store.read(rec.parent, rec.delivery_id)) ?? rec);
  }

  /**
   * Takes over the records of dead owners (atomically, under each record's lock) and resumes them:
   * `waiting` re-observes from its boundary, `ready` delivers the saved body, `sending` by a dead
   * sender becomes `unknown`. Returns how many were taken over.
   */
  async resume(): Promise<number> {
    await this.#prune();
    let taken = 0;
    for (const kind of ["codex", "claude", "cursor"] as ParentKind[]) {
      for (const rec of await this.store.list(kind)) {
        if (rec.state === "sending" && !alive(rec.sender)) {
          await this.store.update(
            kind,
            rec.delivery_id,
            (r) =>
              r.state === "sending" && !alive(r.sender)
                ? { ...r, state: "unknown", error_code: "DELIVERY_INTERRUPTED", sender: null }
                : null,
          );
          continue;
        }
        if (kind === "cursor" && rec.state === "ready" && rec.ready_at_ms !== null) {
          if (Date.now() - rec.ready_at_ms > UNCLAIMED_LIMIT_MS) {
            await this.store.update(
              kind,
              rec.delivery_id,
              (r) => r.state === "ready" ? { ...r, state: "failed", error_code: "CURSOR_PARENT_UNCLAIMED" } : null,
            );
            continue;
          }
        }
        const resumable = rec.state === "waiting" || (rec.state === "ready" && kind === "codex") || bodyStillOwed(rec);
        if (!resumable || alive(rec.owner) || this.#observing.has(rec.delivery_id)) continue;
        const after = await this.store.update(
          kind,
          rec.delivery_id,
          (r) =>
            (r.state === "waiting" || r.state === "ready" || bodyStillOwed(r)) && !alive(r.owner)
              ? { ...r, owner: this.#owner }
              : null,
        );
        if (after?.owner?.pid === this.#owner.pid && after.owner.start === this.#owner.start) {
          taken++;
          void this.#observe(kind, rec.delivery_id);
        }
      }
    }
    return taken;
  }

  /** Removes hand-over files nobody can use any more, and finished records after a week (bodies with them). */
  async #prune(): Promise<void> {
    const now = Date.now();
    const sweep = async (dir: string, maxAgeMs: number) => {
      try {
        for await (const e of Deno.readDir(dir)) {
          const path = join(dir, e.name);
          const st = await Deno.stat(path).catch(() => null);
          if (st?.mtime && now - st.mtime.getTime() > maxAgeMs) await Deno.remove(path).catch(() => {});
        }
      } catch {
        // nothing there yet
      }
    };
    await sweep(join(this.store.claudeHooksDir, "pre"), 24 * 3600_000);
    await sweep(join(this.store.claudeHooksDir, "by-tool-use"), 2 * UNCLAIMED_LIMIT_MS);
    for (const kind of ["codex", "claude", "cursor"] as ParentKind[]) {
      for (const rec of await this.store.list(kind)) {
        const final = rec.state === "submitted" || rec.state === "failed" || rec.state === "unknown";
        if (!final || now - rec.updated_at_ms < FINISHED_KEEP_MS) continue;
        for (const path of [this.store.bodyPath(kind, rec.delivery_id), this.store.claimPath(kind, rec.delivery_id)]) {
          await Deno.remove(path).catch(() => {});
        }
        await Deno.remove(this.store.recordPath(kind, rec.delivery_id)).catch(() => {});
      }
    }
  }

  /** Records a new delivery for the boundary `child` (before the request is typed) and claims the child. */
  async create(dest: ResolvedDestination, child: ChildBoundary): Promise<DeliveryRecord> {
    const now = Date.now();
    const record: DeliveryRecord = {
      schema: "aiterm.parent-delivery.v1",
      delivery_id: crypto.randomUUID(),
      parent: dest.kind,
      destination: dest.destination,
      child,
      state: "waiting",
      child_outcome: null,
      child_turn_id: null,
      child_error: null,
      queued_submission_id: null,
      error_code: null,
      owner: this.#owner,
      sender: null,
      received_by: null,
      created_at_ms: now,
      ready_at_ms: null,
      updated_at_ms: now,
    };
    await this.store.create(record);
    await this.store.writeClaim(this.childKey(child), {
      delivery_id: record.delivery_id,
      parent: dest.kind,
      destination_key: dest.key,
    });
    if (dest.kind === "claude" && dest.destination.tool_use_id) {
      ensurePrivateDir(this.store.claudeHooksDir);
      ensurePrivateDir(join(this.store.claudeHooksDir, "by-tool-use"));
      await writeJsonAtomic(claudeIndexPath(this.store, dest.destination.tool_use_id), {
        delivery_id: record.delivery_id,
        prefix: this.store.prefix,
      });
    }
    return record;
  }

  /**
   * Before a new request to a child, the answer of its previous delivered request is saved first,
   * so a later turn can never be taken for it.
   * @throws {AppError} DELIVERY_PREVIOUS_PENDING when that answer is not recorded yet (nothing typed)
   */
  async securePrevious(childKey: string): Promise<void> {
    const claim = await this.store.readClaim(childKey);
    if (!claim) return;
    const prev = await this.store.read(claim.parent, claim.delivery_id);
    if (!prev || prev.state !== "waiting") {
      await this.store.releaseClaim(childKey, claim.delivery_id);
      return;
    }
    const childId = prev.child.session_id;
    const deadline = Date.now() + 5000;
    for (;;) {
      const outcome = await this.#access.wait(prev.child, 0);
      if (outcome.outcome !== "timeout") {
        await this.#secure(prev.parent, prev.delivery_id, outcome);
        return;
      }
      if (Date.now() > deadline) {
        throw new AppError(
          "DELIVERY_PREVIOUS_PENDING",
          `Cannot start a new request in "${childId}": the answer of its previous request (turn ${prev.child.cursor}) is not recorded yet`,
          { suggestion: "nothing was typed; retry in a few seconds" },
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async #observe(kind: ParentKind, id: string): Promise<void> {
    if (this.#observing.has(id)) return;
    this.#observing.add(id);
    try {
      for (;;) {
        const rec = await this.store.read(kind, id);
        if (!rec || !sameOwner(rec, this.#owner)) return;
        if (rec.state === "ready" && kind === "codex") return await this.#deliverCodex(id);
        if (rec.state !== "waiting" && !bodyStillOwed(rec)) return;
        const outcome = await this.#access.wait(rec.child, OBSERVE_SLICE_MS);
        if (outcome.outcome === "timeout") continue;
        await this.#secure(kind, id, outcome);
      }
    } catch (err) {
      log("warn", "parent delivery observation stopped", { delivery_id: id, error: (err as Error).message });
    } finally {
      this.#observing.delete(id);
    }
  }

  /** Saves the answer (or the failure) of the boundary turn and marks the record ready. */
  async #secure(
    kind: ParentKind,
    id: string,
    outcome: TurnEnd,
  ): Promise<void> {
    const rec = await this.store.read(kind, id);
    if (!rec) return;
    let childOutcome: ChildOutcome = outcome.outcome === "done"
      ? "done"
      : outcome.outcome === "closed"
      ? "closed"
      : "error";
    let body = "";
    let error = outcome.error;
    let turnId = outcome.turn_id;
    if (outcome.outcome === "done") {
      try {
        const answer = await this.#access.answer(rec.child);
        body = answer.text;
        turnId = answer.turn_id;
      } catch (err) {
        childOutcome = "error";
        error = (err as Error).message;
      }
    }
    if (childOutcome === "error" && error && /^rate_limited\b/i.test(error)) childOutcome = "rate_limited";
    await this.store.saveBody(kind, id, body);
    await this.store.update(kind, id, (r) => {
      const fields = { child_outcome: childOutcome, child_turn_id: turnId, child_error: error };
      // A delivery ended early (e.g. the Claude conversation was cleared) keeps its state; the body is still saved.
      if (r.state !== "waiting") return { ...r, ...fields };
      return { ...r, ...fields, state: "ready", ready_at_ms: Date.now() };
    });
    await this.store.releaseClaim(this.childKey(rec.child), id);
  }

  async #deliverCodex(id: string): Promise<void> {
    const sending = await this.store.update(
      "codex",
      id,
      (r) => r.state === "ready" ? { ...r, state: "sending", sender: this.#owner } : null,
    );
    if (!sending || sending.state !== "sending" || sending.sender?.pid !== this.#owner.pid) return;
    const body = await this.store.readBody("codex", id);
    const bin = await this.#deps.codexBin();
    if (body === null || !bin || !sending.destination.thread_id || !sending.destination.codex_home) {
      await this.store.update("codex", id, (r) => ({
        ...r,
        state: "failed",
        sender: null,
        error_code: bin ? "DELIVERY_BODY_MISSING" : "CODEX_APP_SERVER_UNAVAILABLE",
      }));
      return;
    }
    try {
      const res = await this.#deps.codexQueue(
        {
          codexBin: bin,
          codexHome: sending.destination.codex_home,
          threadId: sending.destination.thread_id,
          env: this.#deps.env,
        },
        envelope(sending, body),
        id,
      );
      await this.store.update("codex", id, (r) => ({
        ...r,
        state: "submitted",
        sender: null,
        queued_submission_id: res.queuedSubmissionId,
        received_by: "codex_queue",
      }));
    } catch (err) {
      const f = codexFailureOf(err);
      await this.store.update("codex", id, (r) => ({
        ...r,
        state: f.kind === "interrupted" ? "unknown" : "failed",
        sender: null,
        error_code: f.code,
      }));
      log("warn", "codex parent delivery failed", { delivery_id: id, code: f.code, kind: f.kind });
    }
  }
}

/**
 * A request ended early (its Claude conversation was cleared or closed) whose child turn has not been
 * saved yet: the answer is still observed and kept, only never delivered.
 */
function bodyStillOwed(rec: DeliveryRecord): boolean {
  return rec.state === "failed" && rec.error_code === "CLAUDE_PARENT_SESSION_ENDED" && rec.child_outcome === null;
}

function sameOwner(rec: DeliveryRecord, owner: { pid: number; start: string | null }): boolean {
  return rec.owner?.pid === owner.pid && rec.owner.start === owner.start;
}

function codexFailureOf(err: unknown): CodexFailure {
  const e = err as Partial<CodexFailure> & Error;
  if (e && (e.kind === "refused" || e.kind === "interrupted" || e.kind === "unavailable")) {
    return { kind: e.kind, code: e.code ?? "CODEX_QUEUE_REFUSED", message: e.message };
  }
  // An unexpected throw after the request may have been written: do not claim it was not sent.
  return { kind: "interrupted", code: "CODEX_QUEUE_UNCONFIRMED", message: String(e?.message ?? err) };
}
