/**
 * The one delivery core, vendor-free: a state machine over the parent integrations
 * (harnesses/<vendor>/parent.ts, listed by harnesses/mod.ts). Before a request reaches a child it
 * asks the caller's integration where the answer goes and saves that with the child turn that ends
 * it; it observes that turn, saves the answer unmodified, and delivers it: an integration that
 * pushes (`push`) gets the body sent by the server, the others leave it `ready` for their hook or
 * receive process to claim exactly once. Every step is a state in the record, so a restart resumes
 * (`waiting` re-observes from the same boundary, `ready` sends the saved body) and an interrupted
 * send becomes `unknown` with the body kept — never resent. A turn that stops on something the child
 * cannot get past by itself (an approval dialog, a sign-in, a usage limit: the evidence pty_observe
 * uses) adds a notice to the record, once per blocking episode (ADR 0037); it goes the same way as the
 * answer, and the answer still follows when the child goes on.
 */
import { createHash } from "node:crypto";
import { AppError } from "../../../base/errors.ts";
import { log } from "../../../base/log.ts";
import { waitUntil } from "../../../base/wait.ts";
import {
  alive,
  type ChildBoundary,
  type ChildOutcome,
  type DeliveryNotice,
  type DeliveryReceipt,
  type DeliveryRecord,
  type DeliveryStore,
  envelope,
  me,
  type ParentKind,
  receiptOf,
} from "../../../state/mod.ts";
import type {
  ParentCall,
  ParentHost,
  ParentIntegration,
  ParentReadiness,
  ResolvedDestination,
} from "../../../harnesses/clients/mod.ts";
import type { AgentDeps } from "../session.ts";
import type { AgentRecord } from "../record.ts";
import { readAnswer } from "../answer.ts";
import { waitForTurn } from "../waiter.ts";
import { stuckReason } from "../agent_state.ts";
import { runApproval } from "../approval.ts";
import { noticeText, stuckKey, type StuckView } from "./notice.ts";

/** How a turn ended, as the observer sees it (`blocked`: not ended, stuck; only when asked to report it). */
export interface TurnEnd {
  outcome: "done" | "closed" | "error" | "timeout" | "blocked";
  turn_id: string | null;
  error: string | null;
}

/** How the manager reaches a child: locally (the default) or through ssh (remote children). */
export interface ChildAccess {
  /**
   * Waits up to `timeoutMs` for the boundary turn to end (timeout: not yet). With `reportBlocked` it
   * returns `blocked` once the turn has been stuck for the waiter's confirmation time.
   */
  wait(child: ChildBoundary, timeoutMs: number, options?: { reportBlocked?: boolean }): Promise<TurnEnd>;
  /** What the child is stuck on right now (null: it is not); absent: no notices for these children. */
  stuck?(child: ChildBoundary): Promise<StuckView | null>;
  /** The answer of the boundary turn, exactly as recorded. */
  answer(child: ChildBoundary): Promise<{ text: string; turn_id: string }>;
}

/** What the manager needs. */
export interface DeliveryDeps extends AgentDeps {
  /** Remote children: how to reach them (absent: local children). */
  access?: ChildAccess;
  store: DeliveryStore;
  /** The parent integrations (harnesses/mod.ts parentIntegrations), in diagnostics order. */
  parents: readonly ParentIntegration[];
}

const OBSERVE_SLICE_MS = 600_000;
/** How often a blocking episode is looked at until it ends (after EPISODE_SLOW_AFTER_MS, every EPISODE_SLOW_TICK_MS). */
const EPISODE_TICK_MS = 300;
const EPISODE_SLOW_AFTER_MS = 10_000;
const EPISODE_SLOW_TICK_MS = 1000;
/** A dialog must be gone this long before its episode ends (one redraw is not an answer). */
const EPISODE_END_MS = 1000;
/** How long a new request waits for the previous one's answer to be recorded (then DELIVERY_PREVIOUS_PENDING). */
const PREVIOUS_WAIT_MS = 5000;
/** Finished deliveries (and their bodies) are kept this long for inspection. */
const FINISHED_KEEP_MS = 7 * 24 * 3600_000;

/** sha256 hex of a string (file names derived from foreign ids). */
export function digest(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** Readiness of one parent kind: its integration's row plus its deliveries by state. */
export type KindReadiness = ParentReadiness & { deliveries: Record<string, number> };

/** {@link ParentDeliveryManager.readiness}: one row per parent kind. */
export type Readiness = Record<ParentKind, KindReadiness>;

/** The delivery core of one server process. */
export class ParentDeliveryManager {
  readonly #deps: DeliveryDeps;
  readonly #observing = new Set<string>();
  readonly #owner = me();
  readonly #access: ChildAccess;
  readonly #parents: Map<ParentKind, ParentIntegration>;
  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
    this.#parents = new Map(deps.parents.map((p) => [p.kind, p]));
    this.#access = deps.access ?? {
      wait: async (child, timeoutMs, options) => {
        const o = await waitForTurn(deps.terminal, child.session_id, child.cursor, {
          timeoutMs,
          env: deps.env,
          generation: child.generation,
          reportBlocked: options?.reportBlocked ?? false,
        });
        // A stuck child is not finished (blocked is reported only when asked for); a session gone
        // before the first look (not_found) is closed for a delivery.
        const outcome = o.outcome === "running" ? "timeout" : o.outcome === "not_found" ? "closed" : o.outcome;
        return { outcome, turn_id: o.turn_id, error: o.error };
      },
      stuck: async (child) => {
        const id = child.session_id;
        if (child.generation) {
          const meta = await deps.terminal.meta(id).catch(() => null);
          if (meta?.generation !== child.generation) return null;
        }
        const reason = await stuckReason(deps.terminal, id);
        if (!reason) return null;
        let dialog: StuckView["dialog"] = null;
        if (reason === "approval_required") {
          const seen = await runApproval({ action: "inspect", session_id: id }, deps).catch(() => null);
          if (seen?.status === "approval_required" && seen.digest && seen.kind) {
            dialog = {
              kind: seen.kind,
              text: seen.text ?? "",
              choices: seen.choices.map((c) => ({ id: c.id, label: c.label, single_shot: c.single_shot })),
              digest: seen.digest,
            };
          }
        }
        return { reason, dialog, attach: deps.terminal.attachCommand(id) };
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

  get #host(): ParentHost {
    return { store: this.#deps.store, env: this.#deps.env };
  }

  /**
   * Decides where this request's answer goes, before anything reaches the child, by asking the
   * caller's integration. Null: no automatic delivery (other clients, or a call the integration
   * cannot deliver to): the caller gets wait_process.
   * @throws {AppError} the integration's preflight codes (missing hooks, unsupported conversation)
   */
  async resolve(parent: ParentCall | undefined): Promise<ResolvedDestination | null> {
    const integration = parent ? this.#parents.get(parent.kind) : undefined;
    if (!parent || !integration) return null;
    return await integration.resolve(parent, this.#host);
  }

  /** The integration of a parent kind (undefined for other clients). */
  parent(kind: ParentKind): ParentIntegration | undefined {
    return this.#parents.get(kind);
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
    const out: Readiness = {};
    for (const p of this.#parents.values()) {
      const by: Record<string, number> = {};
      for (const r of await this.store.list(p.kind)) by[r.state] = (by[r.state] ?? 0) + 1;
      out[p.kind] = { ...(await p.readiness(this.#host)), deliveries: by };
    }
    return out;
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
    for (const [kind, parent] of this.#parents) {
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
        const unclaimed = parent.unclaimed;
        if (unclaimed && rec.state === "ready" && rec.ready_at_ms !== null) {
          if (Date.now() - rec.ready_at_ms > unclaimed.limitMs) {
            await this.store.update(
              kind,
              rec.delivery_id,
              (r) => r.state === "ready" ? { ...r, state: "failed", error_code: unclaimed.code } : null,
            );
            continue;
          }
        }
        const owed = (r: DeliveryRecord) => this.#bodyStillOwed(r);
        const resumable = rec.state === "waiting" || (rec.state === "ready" && parent.push !== undefined) ||
          owed(rec);
        if (!resumable || alive(rec.owner) || this.#observing.has(rec.delivery_id)) continue;
        const after = await this.store.update(
          kind,
          rec.delivery_id,
          (r) =>
            (r.state === "waiting" || r.state === "ready" || owed(r)) && !alive(r.owner)
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
    for (const p of this.#parents.values()) await p.prune?.(this.store, now);
    for (const kind of this.#parents.keys()) {
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
    await this.#parents.get(dest.kind)?.created?.(record, this.#host);
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
    const got = await waitUntil(() => this.#access.wait(prev.child, 0), {
      timeoutMs: PREVIOUS_WAIT_MS,
      intervalMs: 200,
      until: (o) => o.outcome !== "timeout",
    });
    if (got.status !== "done") {
      throw new AppError(
        "DELIVERY_PREVIOUS_PENDING",
        `Cannot start a new request in "${childId}": the answer of its previous request (turn ${prev.child.cursor}) is not recorded yet`,
        { suggestion: "nothing was typed; retry in a few seconds" },
      );
    }
    await this.#secure(prev.parent, prev.delivery_id, got.value);
  }

  async #observe(kind: ParentKind, id: string): Promise<void> {
    if (this.#observing.has(id)) return;
    this.#observing.add(id);
    try {
      for (;;) {
        const rec = await this.store.read(kind, id);
        if (!rec || !sameOwner(rec, this.#owner)) return;
        if (rec.state === "ready" && this.#parents.get(kind)?.push) return await this.#push(kind, id);
        if (rec.state !== "waiting" && !this.#bodyStillOwed(rec)) return;
        const notices = rec.state === "waiting" && this.#access.stuck !== undefined;
        const outcome = await this.#access.wait(rec.child, OBSERVE_SLICE_MS, { reportBlocked: notices });
        if (outcome.outcome === "blocked") {
          await this.#episode(kind, id);
          continue;
        }
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
      // A delivery its parent ended early (its conversation was cleared) keeps its state; the body is still saved.
      if (r.state !== "waiting") return { ...r, ...fields, notices: endEpisode(r.notices) };
      return { ...r, ...fields, state: "ready", ready_at_ms: Date.now(), notices: endEpisode(r.notices) };
    });
    await this.store.releaseClaim(this.childKey(rec.child), id);
  }

  /** Sends a ready body through its integration's push (exactly one sender; a lost answer is unknown). */
  async #push(kind: ParentKind, id: string): Promise<void> {
    const parent = this.#parents.get(kind)!;
    const sending = await this.store.update(
      kind,
      id,
      (r) => r.state === "ready" ? { ...r, state: "sending", sender: this.#owner } : null,
    );
    if (!sending || sending.state !== "sending" || sending.sender?.pid !== this.#owner.pid) return;
    const body = await this.store.readBody(kind, id);
    const message = body === null ? null : { client_id: id, text: envelope(sending, body) };
    const outcome = await parent.push!(sending, message, this.#host);
    if (outcome.state === "submitted") {
      await this.store.update(kind, id, (r) => ({
        ...r,
        state: "submitted",
        sender: null,
        queued_submission_id: outcome.queued_submission_id,
        received_by: outcome.received_by,
      }));
      return;
    }
    await this.store.update(
      kind,
      id,
      (r) => ({ ...r, state: outcome.state, sender: null, error_code: outcome.error_code }),
    );
    if (outcome.detail !== undefined) {
      log("warn", "parent delivery push failed", {
        delivery_id: id,
        parent: kind,
        code: outcome.error_code,
        kind: outcome.detail,
      });
    }
  }

  /**
   * One blocking episode of the child (the waiter confirmed it is stuck): a notice for it unless the
   * last notice is for this same episode (same reason and dialog, never seen to end: e.g. after a
   * restart), then a look every EPISODE_TICK_MS (later EPISODE_SLOW_TICK_MS) until it ends: nothing
   * stuck, or something else, for EPISODE_END_MS. A notice nobody took by then expires (it is never sent late).
   */
  async #episode(kind: ParentKind, id: string): Promise<void> {
    const access = this.#access;
    const first = await this.store.read(kind, id);
    if (!first || first.state !== "waiting" || !access.stuck) return;
    const seenAt = Date.now();
    // A look that fails (the tmux server went away) is no evidence: the turn wait decides what happened.
    const view = await access.stuck(first.child).catch(() => null);
    if (!view) return;
    const key = stuckKey(view);
    const last = first.notices?.at(-1);
    let current: number;
    if (last && last.ended_at_ms === null && stuckKey(last) === key) {
      current = last.n;
    } else {
      current = (last?.n ?? 0) + 1;
      const notice: DeliveryNotice = {
        n: current,
        reason: view.reason,
        digest: view.dialog?.digest ?? null,
        text: noticeText(first.child, view),
        state: "ready",
        received_by: null,
        queued_submission_id: null,
        error_code: null,
        seen_at_ms: seenAt,
        ready_at_ms: Date.now(),
        handed_at_ms: null,
        ended_at_ms: null,
      };
      const made = await this.store.update(kind, id, (r) => {
        if (r.state !== "waiting") return null;
        const closed = endEpisode(r.notices);
        return { ...r, notices: [...closed, notice] };
      });
      if (made?.notices?.at(-1)?.n !== current) return;
      if (this.#parents.get(kind)?.push) await this.#pushNotice(kind, id, current);
    }
    let goneSince: number | null = null;
    const since = Date.now();
    for (;;) {
      // A dialog left for long is looked at less often (each look reads the screen and the dialog).
      const tick = Date.now() - since > EPISODE_SLOW_AFTER_MS ? EPISODE_SLOW_TICK_MS : EPISODE_TICK_MS;
      await new Promise((r) => setTimeout(r, tick));
      const rec = await this.store.read(kind, id);
      if (!rec || rec.state !== "waiting" || !sameOwner(rec, this.#owner)) return;
      const now = await access.stuck(rec.child).catch(() => null);
      if (now && stuckKey(now) === key) {
        goneSince = null;
        continue;
      }
      goneSince ??= Date.now();
      if (Date.now() - goneSince >= EPISODE_END_MS) break;
    }
    await this.store.update(kind, id, (r) => ({ ...r, notices: endEpisode(r.notices) }));
  }

  /** Sends notice `n` through its integration's push (as for an answer: a lost one is unknown, never resent). */
  async #pushNotice(kind: ParentKind, id: string, n: number): Promise<void> {
    const parent = this.#parents.get(kind)!;
    const setNotice = (change: (x: DeliveryNotice) => DeliveryNotice | null) => (r: DeliveryRecord) => {
      const x = r.notices?.find((y) => y.n === n);
      const next = x ? change(x) : null;
      return next ? { ...r, notices: r.notices!.map((y) => y.n === n ? next : y) } : null;
    };
    const sending = await this.store.update(
      kind,
      id,
      setNotice((x) => x.state === "ready" ? { ...x, state: "sending" } : null),
    );
    const notice = sending?.notices?.find((x) => x.n === n);
    if (!sending || notice?.state !== "sending") return;
    const outcome = await parent.push!(sending, { client_id: `${id}.notice-${n}`, text: notice.text }, this.#host);
    await this.store.update(
      kind,
      id,
      setNotice((x) =>
        outcome.state === "submitted"
          ? {
            ...x,
            state: "submitted",
            received_by: outcome.received_by,
            queued_submission_id: outcome.queued_submission_id,
            handed_at_ms: Date.now(),
          }
          : { ...x, state: outcome.state, error_code: outcome.error_code }
      ),
    );
  }

  /**
   * A request its parent ended early (e.g. the conversation was cleared or closed) whose child turn
   * has not been saved yet: the answer is still observed and kept, only never delivered.
   */
  #bodyStillOwed(rec: DeliveryRecord): boolean {
    const code = this.#parents.get(rec.parent)?.endedEarlyCode;
    return code !== undefined && rec.state === "failed" && rec.error_code === code && rec.child_outcome === null;
  }
}

/** Notices with the open episode closed now, a ready one expired (the child went on before anyone took it). */
function endEpisode(notices: DeliveryNotice[] | undefined): DeliveryNotice[] {
  return (notices ?? []).map((x) =>
    x.ended_at_ms !== null ? x : { ...x, ended_at_ms: Date.now(), state: x.state === "ready" ? "expired" : x.state }
  );
}

function sameOwner(rec: DeliveryRecord, owner: { pid: number; start: string | null }): boolean {
  return rec.owner?.pid === owner.pid && rec.owner.start === owner.start;
}
