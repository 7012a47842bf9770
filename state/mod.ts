/** State on disk: the owner-only root and atomic files. */
export { ensurePrivateDir, privateDirProblem } from "./private_dir.ts";
export {
  createExclusiveJson,
  HotFiles,
  jsonText,
  readJsonFile,
  type StagedJson,
  writeFileAtomic,
  writeJsonAtomic,
} from "./atomic.ts";
export { StateLayout } from "./layout.ts";
export {
  type JudgeOptions,
  judgeOwner,
  type LockOwner,
  newOwnerToken,
  ownerRecord,
  type ThisProcess,
  thisProcess,
} from "./owner.ts";
export {
  alive,
  type ChildBoundary,
  type ChildOutcome,
  type DeliveryNotice,
  type DeliveryReceipt,
  type DeliveryRecord,
  type DeliveryState,
  type Destination,
  envelope,
  me,
  noticesHanded,
  type NoticeState,
  type ParentKind,
  type ProcessRef,
  readyNotice,
  receiptOf,
} from "./delivery_record.ts";
export { type ChildClaim, DeliveryStore, type HandOverWrite, STORE_PREFIXES } from "./delivery_store.ts";
export { pendingDeliveries, type PendingDelivery } from "./delivery_pending.ts";
export {
  acquireLock,
  type AcquireOptions,
  inspectLock,
  type LockHandle,
  lockPath,
  type LockState,
  removeDeadOwner,
  removeOldCandidates,
} from "./owner_lock.ts";
