/**
 * The contract of an AI client as a parent: the client that called aiterm and launched a child agent,
 * to which the child's answer is delivered. Each vendor folder implements {@link ParentIntegration}
 * (harnesses/<vendor>/parent.ts); harnesses/mod.ts lists them; the delivery core
 * (lib/agent/delivery/manager.ts) is a vendor-free state machine over that list. What the core lends
 * an integration is injected ({@link ParentHost}, {@link HookContext}); an integration imports no
 * lib/ module: the delivery store the server and the hooks share is in the state layer (state/, below harnesses/).
 */
import type { DeliveryRecord, DeliveryStore, Destination, ParentKind } from "../../../state/mod.ts";

/** Who called, as the integration that recognised the client reads it from the client's own handshake and `_meta`. */
export interface ParentCall {
  /** The recognising integration's kind; "other" when none did (no automatic delivery). */
  kind: ParentKind;
  /** The id the request carries for its thread or tool call (null: missing or empty). */
  ref: string | null;
  /** The integration that recognised the call (set by {@link identifyParent}). */
  integration?: ParentIntegration;
}

/** A call from a client no integration recognises. */
export const OTHER_PARENT: ParentCall = { kind: "other", ref: null };

/** Whether a parent's hooks are installed (from its hook status reader). */
export interface HookStatus {
  ready: boolean;
  reason: string | null;
}

/** A resolved destination for one request. */
export interface ResolvedDestination {
  kind: ParentKind;
  destination: Destination;
  /** Same parent conversation → same key (claims compare these). */
  key: string;
}

/** What the delivery core lends an integration while it serves a request. */
export interface ParentHost {
  store: DeliveryStore;
  env: Record<string, string>;
}

/** One parent kind's readiness row (diagnostics' `parent_delivery.<kind>`, without the counts). */
export interface ParentReadiness {
  status: "ready" | "setup_required" | "unavailable";
  detail: string | null;
  /** Extra fields of this kind (e.g. a steer state). */
  [field: string]: unknown;
}

/** What a server-side send hands over: a stable id for this message (the delivery id for the answer) and its text. */
export interface PushMessage {
  client_id: string;
  text: string;
}

/** What a server-side send of a ready body ended as. */
export type PushOutcome =
  | { state: "submitted"; queued_submission_id: string | null; received_by: string }
  | {
    state: "failed" | "unknown";
    error_code: string; /** Logged with the code (e.g. how it failed). */
    detail?: string;
  };

/** A receipt warning: something the parent should know that did not fail the call. */
export interface ReceiptWarning {
  code: string;
  message: string;
}

/** What a hook process gets: the store of its state root, the environment, and where its output goes. */
export interface HookContext {
  store: DeliveryStore;
  env: Record<string, string>;
  /** Rejects when the reader went away. */
  write(stream: "stdout" | "stderr", text: string): Promise<void>;
}

/** `aiterm-mcp hook <name>`: reads the client's hook JSON (stdin) and returns the exit code. */
export type ParentHook = (stdin: string, ctx: HookContext) => Promise<number>;

/** One AI client as a parent. */
export interface ParentIntegration {
  /** The record kind: the receipt's `parent`, the key of its readiness row. */
  readonly kind: ParentKind;
  /** Its record directory under the state root (kept as it has always been on disk). */
  readonly storeDir: string;
  /** This client's call, from the `initialize` clientInfo name and the request's `_meta`; null: another client. */
  identify(clientName: string, meta: Record<string, unknown> | undefined): ParentCall | null;
  /**
   * Where this request's answer goes, before anything reaches the child; null: no automatic delivery
   * (the caller gets wait_process). Throws an AppError when the parent lacks what delivery needs.
   */
  resolve(call: ParentCall, host: ParentHost): Promise<ResolvedDestination | null>;
  /** After the record is written (the request is not typed yet): files this kind's receivers look up. */
  created?(rec: DeliveryRecord, host: ParentHost): Promise<void>;
  /**
   * Server-side send (the server pushes) of a ready answer or a notice, as `message` (null: the saved
   * answer is missing); absent: a hook or receiver claims each one.
   */
  push?(rec: DeliveryRecord, message: PushMessage | null, host: ParentHost): Promise<PushOutcome>;
  /** A ready body nobody claims within `limitMs` fails with `code` (body kept). */
  readonly unclaimed?: { limitMs: number; code: string };
  /** A request this parent ended early fails with this code; its child's answer is still saved. */
  readonly endedEarlyCode?: string;
  /** Can an answer be delivered now, or which setup step is missing. */
  readiness(host: ParentHost): Promise<ParentReadiness>;
  /** Removes this kind's own hand-over files that nobody can use any more. */
  prune?(store: DeliveryStore, now: number): Promise<void>;
  /** The subcommand of the process the parent starts to receive a delivery (`<subcommand> --delivery ID`). */
  readonly receiveSubcommand?: string;
  /** The server instructions for this client; `waiter` says how to start a receipt's wait_process. */
  instructions(base: string, waiter: string): string;
  /** A warning for a receipt that got no delivery although this client could have had one. */
  warning?(call: ParentCall, receipt: { delivered: boolean; turnStarted: boolean }): ReceiptWarning | undefined;
  /** The hooks `aiterm-mcp setup` installs into this client, by `aiterm-mcp hook` name. */
  readonly hooks: Readonly<Record<string, ParentHook>>;
}

/** Each kind's record directory, for the DeliveryStore of a state root. */
export function parentStoreDirs(parents: readonly ParentIntegration[]): Record<ParentKind, string> {
  return Object.fromEntries(parents.map((p) => [p.kind, p.storeDir]));
}

/** The call of the first integration that recognises the client, else {@link OTHER_PARENT}. */
export function identifyParent(
  parents: readonly ParentIntegration[],
  clientName: string | undefined,
  meta: Record<string, unknown> | undefined,
): ParentCall {
  for (const p of parents) {
    const call = p.identify(clientName ?? "", meta);
    if (call) return { ...call, integration: p };
  }
  return OTHER_PARENT;
}

/** The readiness row of a parent whose delivery needs only its hooks installed. */
export async function hookReadiness(status: () => Promise<HookStatus>): Promise<ParentReadiness> {
  const s = await status().catch(() => ({ ready: false, reason: "unreadable" }));
  return { status: s.ready ? "ready" : "setup_required", detail: s.ready ? null : s.reason };
}

/** `text` when it is a non-empty string, else null. */
export function nonEmpty(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** One JSON object from a hook's stdin (null when it is not one). */
export function parseHookInput(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
  } catch {
    return null;
  }
}
