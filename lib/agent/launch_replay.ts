/**
 * Exact replay of a prompt-less launch (`launch_operation_id`): the first launch saves its receipt
 * with a digest of the request; the same operation id with the same request returns that receipt
 * and launches nothing, the same id with any other request (model, effort, cwd, harness, prompt, …)
 * is `LAUNCH_OPERATION_CONFLICT` — never the old receipt dressed up as this request's success.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { AppError } from "../../base/errors.ts";
import { readJsonFile, writeJsonAtomic } from "../../state/mod.ts";

/** The request fields compared (LaunchInput has them; declared here so this module imports no launch code). */
export interface ReplayRequest {
  harness: string;
  model?: string | null | undefined;
  reasoning_effort?: string | null | undefined;
  fast?: boolean | null | undefined;
  prompt?: string | null | undefined;
  image?: string[] | undefined;
  cwd?: string | null | undefined;
  env_vars?: string[] | undefined;
  write_scope?: string | null | undefined;
  trust_project?: boolean | undefined;
  throughline_source_session?: string | null | undefined;
  throughline_supplement_file?: string | null | undefined;
}

/** A request's digest: the whole and one short digest per field. */
export interface RequestDigest {
  digest: string;
  fields: Record<string, string>;
}

/** `sessions/<id>/launch_receipt.json`. */
interface SavedLaunch<R> {
  launch_operation_id: string;
  /** sha256 of the whole normalised request (absent in files written by older versions: not checked). */
  request_digest?: string;
  /** One short digest per request field, so a conflict can name the fields that differ (no values). */
  request_fields?: Record<string, string>;
  receipt: R;
}

/** The request fields a replay must repeat exactly (everything but session_name and the operation id). */
const FIELDS = [
  "harness",
  "model",
  "reasoning_effort",
  "fast",
  "prompt",
  "image",
  "cwd",
  "env_vars",
  "write_scope",
  "trust_project",
  "throughline_source_session",
  "throughline_supplement_file",
] as const;

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The request as compared: unset and null are the same, cwd is the real path of the effective directory. */
async function normalised(input: ReplayRequest, defaultCwd: string): Promise<Record<string, unknown>> {
  const cwd = input.cwd ?? defaultCwd;
  const real = await Deno.realPath(cwd).catch(() => cwd);
  return {
    harness: input.harness,
    model: input.model ?? null,
    reasoning_effort: input.reasoning_effort ?? null,
    fast: input.fast ?? null,
    prompt: input.prompt ?? null,
    image: input.image ?? [],
    cwd: real,
    env_vars: [...new Set(input.env_vars ?? [])].sort(),
    write_scope: input.write_scope ?? null,
    trust_project: input.trust_project ?? false,
    throughline_source_session: input.throughline_source_session ?? null,
    throughline_supplement_file: input.throughline_supplement_file ?? null,
  };
}

/** The digest of a launch request: the whole (`digest`) and per field (`fields`, 16 hex each). */
export async function launchRequestDigest(input: ReplayRequest, defaultCwd: string): Promise<RequestDigest> {
  const n = await normalised(input, defaultCwd);
  const fields: Record<string, string> = {};
  for (const f of FIELDS) fields[f] = sha256(JSON.stringify(n[f])).slice(0, 16);
  return { digest: `sha256:${sha256(JSON.stringify(FIELDS.map((f) => [f, n[f]])))}`, fields };
}

/**
 * The saved receipt of operation `operationId` in `sessionDir`: null when there is none (or it is
 * another operation's), the receipt when the request is the same.
 * @throws {AppError} LAUNCH_OPERATION_CONFLICT when the saved request differs (nothing was launched)
 */
export async function replayedReceipt<R extends { session_id: string }>(
  sessionDir: string,
  operationId: string,
  request: RequestDigest,
): Promise<R | null> {
  const saved = await readJsonFile<SavedLaunch<R>>(join(sessionDir, "launch_receipt.json")).catch(() => null);
  if (saved?.launch_operation_id !== operationId) return null;
  if (saved.request_digest === undefined || saved.request_digest === request.digest) return saved.receipt;
  const differ = FIELDS.filter((f) => saved.request_fields?.[f] !== request.fields[f]);
  throw new AppError(
    "LAUNCH_OPERATION_CONFLICT",
    `Cannot replay launch operation ${operationId}: session "${saved.receipt.session_id}" was launched by it ` +
      `with a different request (${differ.length ? differ.join(", ") : "another request"} differ)`,
    {
      suggestion:
        "nothing was launched; repeat the first request exactly, or use a new launch_operation_id and session_name",
      data: { fields: differ, session_id: saved.receipt.session_id },
    },
  );
}

/** Saves a launch's receipt for replays of `operationId` (best effort, like before). */
export async function saveLaunchForReplay<R>(
  sessionDir: string,
  operationId: string,
  request: RequestDigest,
  receipt: R,
): Promise<void> {
  const saved: SavedLaunch<R> = {
    launch_operation_id: operationId,
    request_digest: request.digest,
    request_fields: request.fields,
    receipt,
  };
  await writeJsonAtomic(join(sessionDir, "launch_receipt.json"), saved).catch(() => {});
}
