/**
 * Parent-delivery records on disk. One directory per parent kind (so a reader of one kind never
 * meets a record it does not understand), one shared claims directory (one request at a time per
 * child across parent kinds). A record is `<id>.json`; the child's answer is kept unmodified in
 * `<id>.body`; the one receiver that takes it is decided by creating `<id>.claim.json` exclusively.
 * Every change of a record happens under a short per-record lock, so the server, hooks and
 * receivers never overwrite each other's transitions.
 */
import { join } from "node:path";
import {
  createExclusiveJson,
  ensurePrivateDir,
  readJsonFile,
  writeFileAtomic,
  writeJsonAtomic,
} from "../../state/mod.ts";
import { processStartIdentity, sameProcessAlive } from "../../../platform/mod.ts";

/** Who receives answers: the parent AI client kinds with automatic delivery. */
export type ParentKind = "codex" | "claude" | "cursor";

/** Delivery states (see the README's "Parent delivery"). */
export type DeliveryState = "waiting" | "ready" | "sending" | "submitted" | "failed" | "unknown";

/** How the child's turn ended. */
export type ChildOutcome = "done" | "closed" | "rate_limited" | "error";

/** A live process: pid plus its start identity (a reused pid is a different owner). */
export interface ProcessRef {
  pid: number;
  start: string | null;
}

/** Where the answer goes. Only the fields of the record's parent kind are set. */
export interface Destination {
  /** Codex: the thread from the request's `_meta.threadId`, and the Codex home it lives in. */
  thread_id?: string;
  codex_home?: string;
  /** Claude Code: the conversation (PreToolUse session_id) and the tool call that dispatched. */
  claude_session_id?: string;
  tool_use_id?: string;
  /** Cursor: the conversation, bound by the afterMCPExecution/postToolUse hook (null until then). */
  conversation_id?: string | null;
}

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

/** Store prefixes: local children, and remote children (kept apart so an older reader never meets them). */
export const STORE_PREFIXES = ["", "remote-"] as const;

const KIND_DIRS: Record<ParentKind, string> = {
  codex: "parent-deliveries",
  claude: "claude-parent-deliveries",
  cursor: "cursor-parent-deliveries",
};
const ID = /^[0-9a-f-]{36}$/;
const LOCK_STALE_MS = 30_000;

/** A claim on a child session: the delivery whose request the child is working on. */
export interface ChildClaim {
  delivery_id: string;
  parent: ParentKind;
  /** A stable key of the destination (same parent conversation → same key). */
  destination_key: string;
}

/** The delivery store under one state root (`prefix` separates remote children's records). */
export class DeliveryStore {
  readonly root: string;
  readonly prefix: string;
  constructor(root: string, prefix = "") {
    this.root = root;
    this.prefix = prefix;
  }

  dir(kind: ParentKind): string {
    return join(this.root, this.prefix + KIND_DIRS[kind]);
  }
  get claimsDir(): string {
    return join(this.root, this.prefix + KIND_DIRS.codex, "claims");
  }
  /** Hand-over files of the Claude hooks (PreToolUse records, tool_use_id → delivery index, ended conversations). */
  get claudeHooksDir(): string {
    return join(this.root, "claude-parent-hooks");
  }

  ensure(kind: ParentKind): void {
    ensurePrivateDir(this.root);
    ensurePrivateDir(join(this.root, this.prefix + KIND_DIRS.codex));
    ensurePrivateDir(this.claimsDir);
    ensurePrivateDir(this.dir(kind));
  }

  recordPath(kind: ParentKind, id: string): string {
    return join(this.dir(kind), `${id}.json`);
  }
  bodyPath(kind: ParentKind, id: string): string {
    return join(this.dir(kind), `${id}.body`);
  }
  claimPath(kind: ParentKind, id: string): string {
    return join(this.dir(kind), `${id}.claim.json`);
  }

  async read(kind: ParentKind, id: string): Promise<DeliveryRecord | null> {
    if (!ID.test(id)) return null;
    const rec = await readJsonFile<DeliveryRecord>(this.recordPath(kind, id)).catch(() => null);
    return rec?.schema === "aiterm.parent-delivery.v1" ? rec : null;
  }

  /** Finds a record by id in any kind's directory. */
  async find(id: string): Promise<DeliveryRecord | null> {
    for (const kind of Object.keys(KIND_DIRS) as ParentKind[]) {
      const rec = await this.read(kind, id);
      if (rec) return rec;
    }
    return null;
  }

  async create(rec: DeliveryRecord): Promise<void> {
    this.ensure(rec.parent);
    await writeJsonAtomic(this.recordPath(rec.parent, rec.delivery_id), rec);
  }

  /** Every record of a kind (unreadable files skipped). */
  async list(kind: ParentKind): Promise<DeliveryRecord[]> {
    const out: DeliveryRecord[] = [];
    try {
      for await (const e of Deno.readDir(this.dir(kind))) {
        const m = /^([0-9a-f-]{36})\.json$/.exec(e.name);
        if (!m) continue;
        const rec = await this.read(kind, m[1]!);
        if (rec) out.push(rec);
      }
    } catch {
      // no directory yet
    }
    return out;
  }

  /**
   * Changes a record under its lock. `change` returns the new record, or null to leave it as is.
   * Returns the record as it is after the call (null when it does not exist).
   */
  async update(
    kind: ParentKind,
    id: string,
    change: (rec: DeliveryRecord) => DeliveryRecord | null,
  ): Promise<DeliveryRecord | null> {
    if (!(await this.read(kind, id))) return null;
    return await this.#locked(kind, id, async () => {
      const rec = await this.read(kind, id);
      if (!rec) return null;
      const next = change(rec);
      if (!next) return rec;
      const stamped = { ...next, updated_at_ms: Date.now() };
      await writeJsonAtomic(this.recordPath(kind, id), stamped);
      return stamped;
    });
  }

  /** Saves the child's answer exactly as the harness recorded it. */
  async saveBody(kind: ParentKind, id: string, body: string): Promise<void> {
    await writeFileAtomic(this.bodyPath(kind, id), body);
  }

  async readBody(kind: ParentKind, id: string): Promise<string | null> {
    try {
      return await Deno.readTextFile(this.bodyPath(kind, id));
    } catch {
      return null;
    }
  }

  /** Takes the body for one receiver; false when another receiver already took it. */
  async claimBody(kind: ParentKind, id: string, receiver: string): Promise<boolean> {
    return await createExclusiveJson(this.claimPath(kind, id), { receiver, ...me(), at_ms: Date.now() });
  }

  async readClaim(childKey: string): Promise<ChildClaim | null> {
    return await readJsonFile<ChildClaim>(join(this.claimsDir, `${childKey}.json`)).catch(() => null);
  }
  async writeClaim(childKey: string, claim: ChildClaim): Promise<void> {
    await writeJsonAtomic(join(this.claimsDir, `${childKey}.json`), claim);
  }
  async releaseClaim(childKey: string, deliveryId: string): Promise<void> {
    const current = await this.readClaim(childKey);
    if (current?.delivery_id === deliveryId) {
      await Deno.remove(join(this.claimsDir, `${childKey}.json`)).catch(() => {});
    }
  }

  async #locked<T>(kind: ParentKind, id: string, fn: () => Promise<T>): Promise<T> {
    const lock = join(this.dir(kind), `${id}.lock`);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await Deno.mkdir(lock);
        break;
      } catch (err) {
        if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
        const st = await Deno.stat(lock).catch(() => null);
        if (st?.mtime && Date.now() - st.mtime.getTime() > LOCK_STALE_MS) {
          // A lock older than any transition: its holder died between mkdir and remove.
          await Deno.remove(lock).catch(() => {});
          continue;
        }
        if (Date.now() > deadline) throw new Error(`delivery record ${id} is locked`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    try {
      return await fn();
    } finally {
      await Deno.remove(lock).catch(() => {});
    }
  }
}
