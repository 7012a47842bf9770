/**
 * Parent-delivery records on disk. One directory per parent kind (so a reader of one kind never
 * meets a record it does not understand; the directory names come from the parent integrations),
 * one shared claims directory (one request at a time per child across parent kinds). A record is
 * `<id>.json`; the child's answer is kept unmodified in `<id>.body`; the one receiver that takes it is decided by creating `<id>.claim.json` exclusively.
 * Every change of a record happens under a short per-record lock, so the server, hooks and
 * receivers never overwrite each other's transitions.
 */
import { join } from "node:path";
import { acquireLock, removeOldCandidates } from "./owner_lock.ts";
import { createExclusiveJson, readJsonFile, writeFileAtomic, writeJsonAtomic } from "./atomic.ts";
import { ensurePrivateDir } from "./private_dir.ts";
import { type DeliveryNotice, type DeliveryRecord, envelope, me, type ParentKind } from "./delivery_record.ts";

/** Store prefixes: local children, and remote children (kept apart so an older reader never meets them). */
export const STORE_PREFIXES = ["", "remote-"] as const;

/** The directory that holds the shared claims (`<prefix>parent-deliveries/claims`). */
const SHARED_DIR = "parent-deliveries";
const ID = /^[0-9a-f-]{36}$/;
/** Lock candidates older than this were left by a killed writer (a live one renames its own in milliseconds). */
const CANDIDATE_MAX_AGE_MS = 60_000;
/** How long a transition waits for a record's lock before it gives up. */
const LOCK_WAIT_MS = 10_000;

/** A claim on a child session: the delivery whose request the child is working on. */
export interface ChildClaim {
  delivery_id: string;
  parent: ParentKind;
  /** A stable key of the destination (same parent conversation → same key). */
  destination_key: string;
}

/** Where the answer is written by {@link DeliveryStore.handOver}; rejects when the reader went away. */
export type HandOverWrite = (text: string) => Promise<void>;

/**
 * The delivery store under one state root (`prefix` separates remote children's records). `kinds`
 * maps each parent kind to its record directory (from the parent integrations' `storeDir`).
 */
export class DeliveryStore {
  readonly root: string;
  readonly prefix: string;
  readonly #dirs: Readonly<Record<ParentKind, string>>;
  constructor(root: string, kinds: Readonly<Record<ParentKind, string>>, prefix = "") {
    this.root = root;
    this.prefix = prefix;
    this.#dirs = kinds;
  }

  /** The parent kinds this store knows, in registry order. */
  get kinds(): ParentKind[] {
    return Object.keys(this.#dirs);
  }

  /** The same store for another prefix (local ↔ remote children). */
  withPrefix(prefix: string): DeliveryStore {
    return prefix === this.prefix ? this : new DeliveryStore(this.root, this.#dirs, prefix);
  }

  /** The stores of local and remote children under the same root. */
  all(): DeliveryStore[] {
    return STORE_PREFIXES.map((p) => this.withPrefix(p));
  }

  dir(kind: ParentKind): string {
    return join(this.root, this.prefix + (this.#dirs[kind] ?? `${kind}-parent-deliveries`));
  }
  get claimsDir(): string {
    return join(this.root, this.prefix + SHARED_DIR, "claims");
  }

  ensure(kind: ParentKind): void {
    ensurePrivateDir(this.root);
    ensurePrivateDir(join(this.root, this.prefix + SHARED_DIR));
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
  /** The exclusive claim of notice `n` of a delivery (one receiver takes each notice). */
  noticeClaimPath(kind: ParentKind, id: string, n: number): string {
    return join(this.dir(kind), `${id}.notice-${n}.claim.json`);
  }

  async read(kind: ParentKind, id: string): Promise<DeliveryRecord | null> {
    if (!ID.test(id)) return null;
    const rec = await readJsonFile<DeliveryRecord>(this.recordPath(kind, id)).catch(() => null);
    return rec?.schema === "aiterm.parent-delivery.v1" ? rec : null;
  }

  /** Finds a record by id in any kind's directory. */
  async find(id: string): Promise<DeliveryRecord | null> {
    for (const kind of this.kinds) {
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
        // A lock candidate its writer was killed before renaming (./owner_lock.ts): removed once old.
        const candidate = /^([0-9a-f-]{36})\.lock\.[0-9a-f]{32}\.tmp$/.exec(e.name);
        if (candidate) await removeOldCandidates(this.dir(kind), CANDIDATE_MAX_AGE_MS, `${candidate[1]}.lock`);
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

  /**
   * Hands one ready body to a receiver: claim, `sending`, write the envelope, `submitted`. Returns
   * false when the body was not this receiver's to take (already claimed, not ready). A write that
   * fails leaves `unknown` with the body kept, and throws.
   */
  async handOver(kind: ParentKind, rec: DeliveryRecord, receiver: string, write: HandOverWrite): Promise<boolean> {
    if (rec.state !== "ready") return false;
    if (!(await this.claimBody(kind, rec.delivery_id, receiver))) return false;
    const sending = await this.update(
      kind,
      rec.delivery_id,
      (r) => r.state === "ready" ? { ...r, state: "sending", sender: me(), received_by: receiver } : null,
    );
    if (sending?.state !== "sending" || sending.sender?.pid !== Deno.pid) return false;
    const body = await this.readBody(kind, rec.delivery_id);
    if (body === null) {
      await this.update(kind, rec.delivery_id, (r) => ({ ...r, state: "failed", error_code: "DELIVERY_BODY_MISSING" }));
      return false;
    }
    try {
      await write(envelope(sending, body));
    } catch {
      await this.update(kind, rec.delivery_id, (r) => ({
        ...r,
        state: "unknown",
        sender: null,
        error_code: "DELIVERY_OUTPUT_INTERRUPTED",
      }));
      throw new Error("the receiver's output was cut off");
    }
    await this.update(kind, rec.delivery_id, (r) => ({ ...r, state: "submitted", sender: null }));
    return true;
  }

  /**
   * Hands notice `n` of a delivery to one receiver: claim, `sending`, write its text, `submitted`.
   * False when it was not this receiver's to take (claimed by another, no longer ready: the child went
   * on). A write that fails leaves the notice `unknown` (never sent again), and throws.
   */
  async handOverNotice(
    kind: ParentKind,
    id: string,
    n: number,
    receiver: string,
    write: HandOverWrite,
  ): Promise<boolean> {
    const noticeOf = (r: DeliveryRecord | null) => r?.notices?.find((x) => x.n === n) ?? null;
    if (noticeOf(await this.read(kind, id))?.state !== "ready") return false;
    if (!(await createExclusiveJson(this.noticeClaimPath(kind, id, n), { receiver, ...me(), at_ms: Date.now() }))) {
      return false;
    }
    const setNotice = (r: DeliveryRecord, change: (x: DeliveryNotice) => DeliveryNotice | null) => {
      const at = (r.notices ?? []).findIndex((x) => x.n === n);
      const next = at < 0 ? null : change(r.notices![at]!);
      return next ? { ...r, notices: r.notices!.map((x, i) => i === at ? next : x) } : null;
    };
    const sending = await this.update(
      kind,
      id,
      (r) => setNotice(r, (x) => x.state === "ready" ? { ...x, state: "sending", received_by: receiver } : null),
    );
    const notice = noticeOf(sending);
    if (notice?.state !== "sending" || notice.received_by !== receiver) return false;
    try {
      await write(notice.text);
    } catch {
      await this.update(
        kind,
        id,
        (r) => setNotice(r, (x) => ({ ...x, state: "unknown", error_code: "DELIVERY_OUTPUT_INTERRUPTED" })),
      );
      throw new Error("the receiver's output was cut off");
    }
    await this.update(kind, id, (r) => setNotice(r, (x) => ({ ...x, state: "submitted", handed_at_ms: Date.now() })));
    return true;
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
    // The shared lock with owner identity (./owner_lock.ts): a holder that died is seen dead by its pid and start
    // identity and cleaned at once; a live one is never taken over, however long it holds the record.
    const lock = await acquireLock(this.dir(kind), { timeoutMs: LOCK_WAIT_MS, name: `${id}.lock` });
    if (!lock) throw new Error(`delivery record ${id} is locked`);
    try {
      return await fn();
    } finally {
      await lock.release();
    }
  }
}
