/**
 * `agent_launch`: validate everything before a session exists, start the harness CLI in a fresh
 * session with the user's normal environment plus aiterm's lineage variables, pass the start-up
 * gate, and dispatch the first prompt without waiting for its answer.
 */
import { extname, isAbsolute } from "node:path";
import { AppError } from "../../base/errors.ts";
import { log } from "../../base/log.ts";
import { windowsArgumentList } from "../../platform/mod.ts";
import {
  getHarness,
  HARNESS_IDS,
  type HarnessAdapter,
  harnessBinary,
  type HarnessId,
  type LaunchSpec,
  resolveBinary,
} from "../../harnesses/mod.ts";
import { findExecutable } from "../../platform/mod.ts";
import { type DispatchOptions, type DispatchReceipt, dispatchTurn } from "./dispatch.ts";
import {
  type AgentRecord,
  checkLineageEnv,
  childLineage,
  lineageEnv,
  lineageNotice,
  writeAgentRecord,
} from "./record.ts";
import { confirmFast } from "./fast.ts";
import { checkModelChoice } from "./models.ts";
import type { AgentDeps } from "./session.ts";
import { startupGate, type StartupResult } from "./startup.ts";
import { cleanPrompt, PaneInput } from "./typing.ts";
import { type WaitProcess, waitProcessFor } from "./wait_process.ts";
import { launchRequestDigest, replayedReceipt, type ReplayRequest, saveLaunchForReplay } from "./launch_replay.ts";

/** Input of {@link launchAgent} (the agent_launch schema): the replay-compared fields plus the names. */
export interface LaunchInput extends ReplayRequest {
  harness: HarnessId;
  session_name?: string | null | undefined;
  launch_operation_id?: string | null | undefined;
}

/** The launch receipt (aiterm.agent-launch-result.v1). */
export interface LaunchReceipt {
  schema: "aiterm.agent-launch-result.v1";
  harness: HarnessId;
  provider: string;
  session_id: string;
  startup: { status: "ready" | "not_checked" | "blocked"; reason: string };
  initial_prompt: {
    status: "not_requested" | "not_sent" | "submitted_unconfirmed" | "started";
    reason: string;
    turn_started: boolean | null;
  };
  event_cursor: number | null;
  wait_process: WaitProcess | null;
  wait_command: string | null;
  submit_residue: boolean | null;
  managed_completion: true;
  fast: boolean;
  fast_error: { code: string; message: string } | null;
  write_scope?: string;
  write_scope_enforcement?: "enforced_read_only" | "declaration_only_unsupported";
  attach_command: string;
  generation: string;
}

const IMAGE_EXTS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);
const OPERATION_ID = /^sha256:[0-9a-f]{64}$/;

export type { AgentDeps };

async function validate(
  input: LaunchInput,
  deps: AgentDeps,
): Promise<{ adapter: HarnessAdapter; bin: string; cwd: string }> {
  const adapter = getHarness(input.harness);
  if (!adapter) {
    throw new AppError(
      "HARNESS_NOT_SUPPORTED",
      `Cannot launch ${input.harness}: this aiterm version has no adapter for it yet`,
      {
        suggestion: `use ${orList(HARNESS_IDS.filter((id) => getHarness(id)))}`,
      },
    );
  }
  const bin = resolveBinary(harnessBinary(input.harness), deps.env);
  if (!bin) {
    const spec = harnessBinary(input.harness);
    throw new AppError(
      "HARNESS_NOT_INSTALLED",
      `Cannot launch ${input.harness}: its CLI (${spec.pathNames.join("/")}) is not installed`,
      {
        suggestion: `install it or set ${spec.envOverride} to its path`,
        data: { harness: input.harness, env_override: spec.envOverride },
      },
    );
  }
  const cwdIn = input.cwd ?? deps.defaultCwd;
  if (!isAbsolute(cwdIn)) {
    throw new AppError("INVALID_ARGUMENT", `Cannot launch: cwd "${cwdIn}" is not an absolute path`, {
      data: { field: "cwd" },
    });
  }
  const st = await Deno.stat(cwdIn).catch(() => null);
  if (!st?.isDirectory) {
    throw new AppError("CWD_NOT_FOUND", `Cannot launch: cwd "${cwdIn}" is not an existing directory`);
  }
  const cwd = await Deno.realPath(cwdIn);
  if (input.model !== undefined && input.model !== null && input.model.trim() === "") {
    throw new AppError("INVALID_ARGUMENT", "Cannot launch: model is empty", { data: { field: "model" } });
  }
  // The first prompt follows the rule of every typed prompt (lib/agent/typing.ts): checked here, before
  // anything exists, and sanitised by the chokepoint when it is typed.
  if (input.prompt != null && input.prompt !== "") cleanPrompt(input.prompt, "prompt");
  for (const img of input.image ?? []) {
    const ok = isAbsolute(img) && IMAGE_EXTS.has(extname(img).toLowerCase()) &&
      (await Deno.stat(img).then((s) => s.isFile, () => false));
    if (!ok) {
      throw new AppError(
        "IMAGE_INVALID",
        `Cannot attach "${img}": images must be absolute paths to existing png/jpg/jpeg/gif/webp files`,
        {
          data: { field: "image" },
        },
      );
    }
  }
  if ((input.image?.length ?? 0) > 0 && !input.prompt) {
    throw new AppError("INVALID_ARGUMENT", "Cannot attach images without a prompt", { data: { field: "image" } });
  }
  for (const name of input.env_vars ?? []) {
    if (deps.env[name] === undefined) {
      throw new AppError("ENV_VAR_UNSET", `Cannot launch: environment variable ${name} is not set in the server`, {
        data: { name },
      });
    }
  }
  checkThroughlineArgs(input);
  checkLineageEnv(deps.env);
  if (
    (input.throughline_source_session || input.throughline_supplement_file) &&
    !findExecutable("throughline", deps.env.PATH)
  ) {
    throw new AppError(
      "THROUGHLINE_UNAVAILABLE",
      "Cannot launch with Throughline context: the throughline CLI is not installed",
      {
        suggestion: "install Throughline 0.10.8 or later, or omit throughline_*",
      },
    );
  }
  if (
    input.session_name != null && input.launch_operation_id == null &&
    !(await deps.terminal.nameAvailable(input.session_name))
  ) {
    throw new AppError(
      "SESSION_EXISTS",
      `Cannot launch into session "${input.session_name}": that name is taken or malformed`,
      {
        suggestion: "pick another session_name, or pty_close it first",
      },
    );
  }
  await validateModel(adapter, bin, input, deps);
  return { adapter, bin, cwd };
}

async function validateModel(adapter: HarnessAdapter, bin: string, input: LaunchInput, deps: AgentDeps): Promise<void> {
  const model = await checkModelChoice(adapter, {
    action: "launch",
    model: input.model ?? null,
    effort: input.reasoning_effort ?? null,
    current: (catalog) => catalog.defaultModel,
    effortNeedsModel: adapter.effortRequiresModel === true,
    unlistedEfforts: "any",
    needCatalog: input.fast != null,
    beforeCatalog: () => {
      if (input.fast === false && input.model && /(^|-)fast($|-)/.test(input.model)) {
        throw new AppError(
          "FAST_MODE_MODEL_CONFLICT",
          `Cannot launch "${input.model}" with fast:false: the model id is a fast variant`,
        );
      }
    },
    bin: () => bin,
    env: deps.env,
    catalogs: deps.catalogs,
  });
  if (input.fast === true && model && !model.fast) {
    throw new AppError("FAST_MODE_NOT_SUPPORTED", `Cannot launch ${model.id} in fast mode: the model has no fast tier`);
  }
}

/**
 * Launches an agent (see module doc).
 * @throws {AppError} every validation code before any session exists
 */
export async function launchAgent(
  input: LaunchInput,
  deps: AgentDeps,
  hooks: Pick<DispatchOptions, "beforeNewTurn"> = {},
): Promise<LaunchReceipt> {
  checkOperationId(input);
  const request = input.launch_operation_id != null ? await launchRequestDigest(input, deps.defaultCwd) : null;
  if (input.launch_operation_id != null && input.session_name != null && request) {
    // Exact replay: the same operation id and request for the same session returns the first receipt and
    // launches nothing; the same id with another request is LAUNCH_OPERATION_CONFLICT (lib/agent/launch_replay.ts).
    const replay = /^[A-Za-z0-9_-]{1,64}$/.test(input.session_name)
      ? await replayedReceipt<LaunchReceipt>(
        deps.terminal.sessionDir(input.session_name),
        input.launch_operation_id,
        request,
      )
      : null;
    if (replay) return replay;
    if (!(await deps.terminal.nameAvailable(input.session_name))) {
      throw new AppError(
        "SESSION_EXISTS",
        `Cannot launch into session "${input.session_name}": it exists and was launched by another operation`,
        {
          suggestion: "pick another session_name, or pty_close it first",
        },
      );
    }
  }
  const { adapter, bin, cwd } = await validate(input, deps);
  const launchId = crypto.randomUUID().replaceAll("-", "");
  const sessionUuid = crypto.randomUUID();
  // The argv is built again once the session id is known, with the sub-agent notice in it (buildLaunch is pure).
  const buildSpec = (notice: string | null): LaunchSpec =>
    adapter.buildLaunch({
      bin,
      cwd,
      model: input.model ?? null,
      reasoningEffort: input.reasoning_effort ?? null,
      writeScope: input.write_scope ?? null,
      fast: input.fast ?? null,
      images: input.image ?? [],
      sessionUuid,
      notice,
    });
  let spec = buildSpec(null);
  const copied: Record<string, string> = {};
  for (const name of input.env_vars ?? []) copied[name] = deps.env[name]!;
  let record: AgentRecord | null = null;
  const opened = await deps.terminal.openProgram({
    name: input.session_name ?? null,
    cwd,
    build: (id) => {
      const lineage = childLineage(deps.env, id);
      spec = buildSpec(lineageNotice(lineage, id));
      record = {
        schema: "aiterm.agent.v1",
        launch_id: launchId,
        harness: adapter.id,
        session_id: id,
        cwd,
        created_at_ms: Date.now(),
        pinned_session_id: spec.pinnedSessionId,
        transcript_path: null,
        lineage,
        // The notice went to the harness's system-prompt channel, or it is typed before the first prompt.
        preface_pending: spec.noticeChannel === null,
        notice_channel: spec.noticeChannel,
        model: input.model ?? null,
        reasoning_effort: input.reasoning_effort ?? null,
        write_scope: input.write_scope ?? null,
        launch_operation_id: input.launch_operation_id ?? null,
        active_turn: null,
        sent_prompts: [],
      };
      return { argv: spec.argv, env: { ...copied, ...spec.env, ...lineageEnv(lineage, launchId) } };
    },
    prepare: async (_id, dir) => {
      if (record) await writeAgentRecord(dir, record);
    },
  });
  const id = opened.session_id;
  log("info", "agent launched", { session_id: id, harness: adapter.id });

  let startup: StartupResult = { status: "not_checked", reason: "no_prompt_or_trust_requested" };
  // fast:true by a launch option is confirmed on the ready screen, so the gate runs for it too.
  if (input.prompt || input.trust_project || spec.fastBy === "launch_option") {
    startup = await startupGate(new PaneInput(deps.terminal, id, adapter), {
      trustProject: input.trust_project ?? false,
    });
  }
  const fast = await confirmFast(deps.terminal, id, { adapter, input, spec, startup });
  let initial: LaunchReceipt["initial_prompt"] = { status: "not_requested", reason: "no_prompt", turn_started: null };
  let dispatch: DispatchReceipt | null = null;
  if (input.prompt) {
    if (startup.status !== "ready") {
      initial = { status: "not_sent", reason: `startup_${startup.status}:${startup.reason}`, turn_started: null };
    } else {
      dispatch = await dispatchTurn(deps, id, input.prompt, {
        images: input.image ?? [],
        allowSteer: false,
        ...(hooks.beforeNewTurn ? { beforeNewTurn: hooks.beforeNewTurn } : {}),
      });
      initial = dispatch.turn_started
        ? { status: "started", reason: "turn_started", turn_started: true }
        : { status: "submitted_unconfirmed", reason: "no_start_evidence_yet", turn_started: false };
    }
  }
  const cursor = dispatch?.event_cursor ?? null;
  const wait = cursor !== null ? waitProcessFor(id, cursor, opened.generation) : null;
  const receipt: LaunchReceipt = {
    schema: "aiterm.agent-launch-result.v1",
    harness: adapter.id,
    provider: adapter.provider,
    session_id: id,
    startup,
    initial_prompt: initial,
    event_cursor: cursor,
    wait_process: wait,
    wait_command: wait ? `aiterm-wait --session ${id} --cursor ${cursor} --generation ${opened.generation}` : null,
    submit_residue: dispatch ? dispatch.submit_residue : null,
    managed_completion: true,
    fast: fast.fast,
    fast_error: fast.error,
    attach_command: opened.attach_command,
    generation: opened.generation,
  };
  if (input.write_scope != null) {
    receipt.write_scope = input.write_scope;
    receipt.write_scope_enforcement = spec.writeScopeEnforcement ?? "declaration_only_unsupported";
  }
  if (input.launch_operation_id != null && request) {
    await saveLaunchForReplay(deps.terminal.sessionDir(id), input.launch_operation_id, request, receipt);
  }
  return receipt;
}

export { fetchCatalog, ModelCatalogs } from "./models.ts";

/**
 * Throughline arguments that cannot be right whatever is installed (reported before THROUGHLINE_UNAVAILABLE):
 * a supplement needs a source session, and the source's context goes before a mission (the prompt).
 * @throws {AppError} INVALID_ARGUMENT
 */
function checkThroughlineArgs(input: LaunchInput): void {
  const source = input.throughline_source_session ?? null;
  if (input.throughline_supplement_file != null && source === null) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "Cannot launch: throughline_supplement_file needs throughline_source_session",
      { data: { field: "throughline_supplement_file" } },
    );
  }
  if (source !== null && (input.prompt == null || input.prompt.trim() === "")) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "Cannot launch: throughline_source_session needs a prompt (the mission its context goes before)",
      { data: { field: "prompt" } },
    );
  }
}

function checkOperationId(input: LaunchInput): void {
  if (input.launch_operation_id != null) {
    if (!OPERATION_ID.test(input.launch_operation_id)) {
      throw new AppError("INVALID_ARGUMENT", "Cannot launch: launch_operation_id must be sha256:<64 hex>", {
        data: { field: "launch_operation_id" },
      });
    }
    if (!getHarness(input.harness)?.launchReplay || input.prompt || !input.session_name) {
      const replayable = HARNESS_IDS.filter((id) => getHarness(id)?.launchReplay);
      throw new AppError(
        "INVALID_ARGUMENT",
        `Cannot launch: launch_operation_id is only for a prompt-less ${orList(replayable)} launch with session_name`,
        {
          data: { field: "launch_operation_id" },
        },
      );
    }
  }
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

export { windowsArgumentList };
