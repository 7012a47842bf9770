/**
 * One parent delivery as it is kept on disk: where a child's answer goes, the child turn that ends
 * it, and how far the hand-over got. Vendor-free: a record's `parent` is the kind of the parent
 * integration (harnesses/<vendor>/parent.ts) that resolved its destination, and the destination's
 * fields are that integration's own.
 */
import { processStartIdentity, sameProcessAlive } from "../platform/mod.ts";

/** The kind of a parent integration (the record directory and the receipt's `parent` say it). */
export type ParentKind = string;

/** Delivery states (see docs/parent-delivery.md). */
export type DeliveryState = "waiting" | "ready" | "sending" | "submitted" | "failed" | "unknown";

/** How the child's turn ended. */
export type ChildOutcome = "done" | "closed" | "rate_limited" | "error";

/** A live process: pid plus its start identity (a reused pid is a different owner). */
export interface ProcessRef {
  pid: number;
  start: string | null;
}

/**
 * Where the answer goes: the fields of the record's parent kind only (a thread and its home, a
 * conversation and the tool call that dispatched, …). Each parent integration reads its own.
 */
export type Destination = Record<string, string | null | undefined>;

/** The child turn the delivery waits for (the completion boundary). */
export interface ChildBoundary {
  session_id: string;
  launch_id: string;
  harness: string;
  cursor: number;
  generation: string | null;
  /** A child on another host: the connection details without any passphrase (null/absent: local). */
  remote?: Record<string, unknown> | null;
}

/**
 * States of a notice: `ready` (waiting for a receiver), `sending`, `submitted` (handed to the parent),
 * `expired` (the child went on before anyone took it: never sent), `failed` / `unknown` (as for answers).
 */
export type NoticeState = "ready" | "sending" | "submitted" | "expired" | "failed" | "unknown";

/**
 * A notice: the child's turn stopped on something it cannot get past by itself (an approval dialog, a
 * login, a usage limit). One per blocking episode; the text says what it waits on and what to do.
 */
export interface DeliveryNotice {
  /** 1, 2, … within its delivery. */
  n: number;
  /** The blocked reason (approval_required, login_required, rate_limited, harness_stopped, …). */
  reason: string;
  /** The approval dialog's digest (agent_approval), or null when there is no readable dialog. */
  digest: string | null;
  /** What the parent receives. */
  text: string;
  state: NoticeState;
  received_by: string | null;
  queued_submission_id: string | null;
  error_code: string | null;
  /** When the observer first saw the child stuck (before the 0.8 s confirmation). */
  seen_at_ms: number;
  ready_at_ms: number;
  /** When a receiver finished handing it over (submitted), else null. */
  handed_at_ms: number | null;
  /** When the observer saw the episode end (the child went on), else null. */
  ended_at_ms: number | null;
}

/** `<kind dir>/<delivery_id>.json`. */
export interface DeliveryRecord {
  schema: "aiterm.parent-delivery.v1";
  delivery_id: string;
  parent: ParentKind;
  destination: Destination;
  child: ChildBoundary;
  state: DeliveryState;
  child_outcome: ChildOutcome | null;
  child_turn_id: string | null;
  /** The harness's error text when the outcome is not done. */
  child_error: string | null;
  queued_submission_id: string | null;
  error_code: string | null;
  /** The aiterm server observing the child (taken over only when dead). */
  owner: ProcessRef | null;
  /** The process sending right now (state sending). */
  sender: ProcessRef | null;
  /** Who took the body (hook, receiver, queue). */
  received_by: string | null;
  created_at_ms: number;
  ready_at_ms: number | null;
  updated_at_ms: number;
  /** Notices of this request's child turn, oldest first (absent in records written before notices). */
  notices?: DeliveryNotice[];
}

/** The notice a receiver may take now: the oldest `ready` one (null when none). */
export function readyNotice(rec: DeliveryRecord): DeliveryNotice | null {
  return rec.notices?.find((n) => n.state === "ready") ?? null;
}

/** How many notices of a delivery reached its parent. */
export function noticesHanded(rec: DeliveryRecord): number {
  return (rec.notices ?? []).filter((n) => n.state === "submitted" || n.state === "unknown").length;
}

/** The public `parent_delivery` receipt field. */
export interface DeliveryReceipt {
  delivery_id: string;
  parent: ParentKind;
  state: DeliveryState;
  child_outcome: ChildOutcome | null;
  child_turn_id: string | null;
  queued_submission_id: string | null;
  error_code: string | null;
}

/** The receipt form of a record. */
export function receiptOf(rec: DeliveryRecord): DeliveryReceipt {
  return {
    delivery_id: rec.delivery_id,
    parent: rec.parent,
    state: rec.state,
    child_outcome: rec.child_outcome,
    child_turn_id: rec.child_turn_id,
    queued_submission_id: rec.queued_submission_id,
    error_code: rec.error_code,
  };
}

/** This process as an owner. */
export function me(): ProcessRef {
  return { pid: Deno.pid, start: processStartIdentity(Deno.pid) };
}

/** True when `ref` names a process that is still running (the same incarnation). */
export function alive(ref: ProcessRef | null): boolean {
  return ref !== null && sameProcessAlive(ref.pid, ref.start);
}

/** The text a parent receives: a one-line header with the outcome, then the answer exactly as saved. */
export function envelope(rec: DeliveryRecord, body: string): string {
  const outcome = rec.child_outcome ?? "unknown";
  const head = `[aiterm] answer from child agent session "${rec.child.session_id}" (${rec.child.harness}), ` +
    `turn ${rec.child.cursor}: ${outcome}` + (rec.child_error ? ` (${rec.child_error})` : "");
  return body === "" ? head : `${head}\n\n${body}`;
}
