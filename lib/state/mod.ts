/** State on disk: the owner-only root and atomic files. */
export { ensurePrivateDir, privateDirProblem } from "./private_dir.ts";
export {
  createExclusiveJson,
  HotFiles,
  type HotSpare,
  jsonText,
  readJsonFile,
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
