/**
 * `agent_configure`: change the model and/or reasoning effort of a running, idle agent in place, through
 * the harness's own commands (its `configure` stages: Claude `/model` and `/effort`, the Codex `/model`
 * picker, Cursor `/model`). Inputs are checked against the harness's live catalog first; a running turn,
 * a dialog or text in the composer refuses the change with nothing typed. Each stage types only what the
 * current screen allows and waits for the CLI's own confirmation; the agent record is updated only then.
 */
import { AppError } from "../../base/errors.ts";
import { sleep, waitUntil } from "../../base/wait.ts";
import {
  type CatalogModel,
  type ConfigureGoal,
  type ConfigureStage,
  type ConfigureVerdict,
  type HarnessAdapter,
  harnessBinary,
  resolveBinary,
} from "../../harnesses/mod.ts";
import { turnRunning } from "./dispatch.ts";
import { checkModelChoice, checkModelShape } from "./models.ts";
import { type AgentRecord, readAgentRecord, writeAgentRecord } from "./record.ts";
import { type AgentDeps, AgentSession } from "./session.ts";
import type { PaneInput } from "./typing.ts";

/** Input of {@link configureAgent} (the agent_configure schema). */
export interface ConfigureInput {
  session_id: string;
  model?: string | null | undefined;
  reasoning_effort?: string | null | undefined;
  generation?: string | null | undefined;
}

/** The result (aiterm.agent-configure-result.v1). */
export interface ConfigureReceipt {
  schema: "aiterm.agent-configure-result.v1";
  session_id: string;
  harness: string;
  provider: string;
  /** What the agent uses now, as recorded (null: the CLI's default, never changed through aiterm). */
  model: string | null;
  reasoning_effort: string | null;
  previous: { model: string | null; reasoning_effort: string | null };
  /** The CLI's own confirmation lines, one per stage that confirmed. */
  confirmations: string[];
  /** The CLI said it also saved the choice as the user's default for new sessions (true) or not (false). */
  persisted_default: boolean | null;
}

/** How long one stage may take to be confirmed. */
const STAGE_MS = 10_000;
/** Key rounds one stage may use (list scrolling and cursor moves). */
const STAGE_ROUNDS = 40;
/** Scrollback lines given to a stage with the screen (its echo counts must not miss a line that scrolled). */
const SCROLLBACK = 500;

function field(value: string | null | undefined, name: string): string | null {
  if (value == null) return null;
  if (value.trim() === "" || [...value].some((ch) => ch < " ") || value.length > 200) {
    throw new AppError("INVALID_ARGUMENT", `Cannot configure: ${name} must be a non-empty single-line value`, {
      data: { field: name },
    });
  }
  return value;
}

/** Catalog checks (the same live catalog agent_launch uses); returns the model's catalog entry when known. */
async function validate(
  adapter: HarnessAdapter,
  rec: AgentRecord,
  choice: { model: string | null; effort: string | null },
  deps: AgentDeps,
): Promise<CatalogModel | null> {
  const { model, effort } = choice;
  const rules = adapter.configure;
  if (!rules || (model !== null && !rules.model)) {
    throw new AppError("CONFIGURE_UNSUPPORTED", `${adapter.id} has no command to change the model in place`, {
      suggestion: "launch a new agent with the model you want",
    });
  }
  if (effort !== null && rules.effort === "unsupported") {
    throw new AppError("CONFIGURE_UNSUPPORTED", `${adapter.id} has no command to change reasoning_effort in place`, {
      suggestion: "launch a new agent with the reasoning_effort you want",
    });
  }
  return await checkModelChoice(adapter, {
    action: "configure",
    model,
    effort,
    current: () => rec.model,
    effortNeedsModel: rules.effort === "requires_model",
    unlistedEfforts: "catalog",
    bin: () => {
      const bin = resolveBinary(harnessBinary(adapter.id), deps.env);
      if (!bin) {
        throw new AppError("HARNESS_NOT_INSTALLED", `Cannot read the ${adapter.id} catalog: its CLI is not installed`, {
          data: { harness: adapter.id },
        });
      }
      return bin;
    },
    env: deps.env,
    catalogs: deps.catalogs,
  });
}

/** Refuses (nothing typed) unless the agent idles at an empty composer. */
async function assertIdle(session: AgentSession): Promise<void> {
  const { deps, adapter, rec, id } = session;
  if (!(await session.alive())) {
    throw new AppError("SESSION_ENDED", `Cannot configure agent session "${id}": the ${rec.harness} process has ended`);
  }
  const state = await session.input.state();
  if (state.kind === "blocked") {
    throw new AppError("AGENT_BLOCKED", `Cannot configure agent session "${id}": it shows a dialog (${state.reason})`, {
      suggestion: "nothing was typed; answer the dialog first (agent_approval for approvals)",
      data: { reason: state.reason },
    });
  }
  if (state.kind === "busy" || (await turnRunning(deps, rec, adapter, false)).running) {
    throw new AppError("AGENT_BUSY", `Cannot configure agent session "${id}": a turn is running`, {
      suggestion: "nothing was typed; wait for the turn to end (wait_process), then configure",
    });
  }
  if (state.kind !== "ready") {
    throw new AppError("AGENT_NOT_READY", `Cannot configure agent session "${id}": ${rec.harness} is ${state.kind}`, {
      suggestion: "nothing was typed; try again when it shows its prompt",
    });
  }
  const composer = adapter.composerText?.(state.screen) ?? "";
  if (composer !== "") {
    throw new AppError("AGENT_NOT_READY", `Cannot configure agent session "${id}": its composer holds typed text`, {
      suggestion: "nothing was typed; clear or send that text first",
    });
  }
}

/** Backs out of whatever picker the flow left open (bounded). */
async function leave(input: PaneInput): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const keys = input.adapter.configure?.leave(await input.screen()) ?? null;
    if (!keys) return;
    await input.steps(keys);
    // Let the picker close before looking again (a second Escape on a stale screen may reach the
    // composer). Not measured: it runs only after a stage failed.
    await sleep(250);
  }
}

type Done = Extract<ConfigureVerdict, { kind: "done" }>;

/** Runs one stage: its keys, then its verdicts, until it is done, next, failed or out of time. */
async function runStage(input: PaneInput, stage: ConfigureStage): Promise<Done | null> {
  const { adapter, id } = input;
  const capture = () => input.screen({ scrollback: SCROLLBACK });
  const fail = async (code: "CONFIGURE_REJECTED" | "CONFIGURE_UNCONFIRMED", why: string, vendor: string | null) => {
    await leave(input);
    return new AppError(code, `Cannot configure agent session "${id}": ${why}`, {
      data: { stage: stage.name, vendor_message: vendor },
      suggestion: code === "CONFIGURE_REJECTED"
        ? "nothing changed; check the value against agent_models"
        : "look at the screen with pty_read screen:true before trying again",
    });
  };
  const before = await capture();
  let keys = stage.keys(before);
  if (!keys) throw await fail("CONFIGURE_REJECTED", `the screen does not offer what step ${stage.name} needs`, null);
  await input.steps(keys);
  const started = performance.now();
  const unconfirmed = () =>
    fail("CONFIGURE_UNCONFIRMED", `no confirmation from ${adapter.id} at step ${stage.name}`, null);
  for (let rounds = 1;;) {
    // Each round: let the CLI redraw, then look until it shows anything but "wait" (the stage's budget is shared).
    // The 100 ms is measured as needed: a stage's check cannot always tell the screen from before its keys
    // (a picker still open reads "again"); at 0 ms (tests/probes/configure_pause.ts --redraw 0, the key
    // pauses at 0) Codex 0.169.0 was confirmed 4 of 12 times (3 of 12 with 250 ms after list moves) and
    // Grok 1.0.41 11 of 20; at 100 ms, 48 of 48 and 31 of 31. Claude Code 2.1.328 worked either way (10 of 10).
    await sleep(100);
    const seen = await waitUntil(async () => {
      const screen = await capture();
      return { screen, v: stage.check(screen, before) };
    }, {
      timeoutMs: Math.max(0, STAGE_MS - (performance.now() - started)),
      intervalMs: 100,
      until: ({ v }) => v.kind !== "wait",
    });
    const { screen, v } = seen.status === "done" ? seen.value : seen.last!;
    if (v.kind === "done") return v;
    if (v.kind === "next") return null;
    if (v.kind === "failed") throw await fail("CONFIGURE_REJECTED", `${adapter.id} answered: ${v.message}`, v.message);
    if (seen.status !== "done" || performance.now() - started > STAGE_MS) throw await unconfirmed();
    keys = stage.keys(screen);
    if (!keys || ++rounds > STAGE_ROUNDS) {
      throw await fail("CONFIGURE_REJECTED", `${adapter.id} does not offer that choice (step ${stage.name})`, null);
    }
    await input.steps(keys);
  }
}

/**
 * Changes model and/or effort in place (see module doc).
 * @throws {AppError} INVALID_ARGUMENT, SESSION_STALE, SESSION_NOT_FOUND, AGENT_SESSION_REQUIRED, CONFIGURE_UNSUPPORTED,
 * EFFORT_UNSUPPORTED, MODEL_UNKNOWN, MODEL_CATALOG_UNAVAILABLE, SESSION_ENDED, AGENT_BLOCKED, AGENT_BUSY,
 * AGENT_NOT_READY, SEND_LOCK_BUSY, CONFIGURE_REJECTED, CONFIGURE_UNCONFIRMED
 */
export async function configureAgent(input: ConfigureInput, deps: AgentDeps): Promise<ConfigureReceipt> {
  const model = field(input.model, "model");
  if (model !== null) checkModelShape(model);
  const effort = field(input.reasoning_effort, "reasoning_effort");
  if (model === null && effort === null) {
    throw new AppError("INVALID_ARGUMENT", "Cannot configure: pass model, reasoning_effort or both", {
      data: { field: "model" },
    });
  }
  const id = input.session_id;
  await deps.terminal.checkGeneration(id, input.generation);
  const first = await AgentSession.open(deps, id);
  const entry = await validate(first.adapter, first.rec, { model, effort }, deps);
  return await deps.terminal.withLock(id, async () => {
    const session = await AgentSession.open(deps, id);
    const { rec, adapter } = session;
    await assertIdle(session);
    const goal: ConfigureGoal = {
      model,
      modelLabel: entry?.displayName ?? null,
      effort,
      // The effort in use is kept across a model change only where the new model lists it.
      currentEffort: rec.reasoning_effort && (!entry || entry.efforts.includes(rec.reasoning_effort))
        ? rec.reasoning_effort
        : null,
    };
    const confirmations: string[] = [];
    let now = { model: rec.model, effort: rec.reasoning_effort };
    let persisted: boolean | null = null;
    for (const stage of adapter.configure!.stages(goal)) {
      const done = await runStage(session.input, stage);
      if (!done) continue;
      confirmations.push(done.message);
      now = {
        model: done.model !== undefined ? done.model : now.model,
        effort: done.effort !== undefined ? done.effort : now.effort,
      };
      if (done.persistedDefault !== null) persisted = (persisted ?? false) || done.persistedDefault;
    }
    const latest = (await readAgentRecord(deps.terminal.sessionDir(id))) ?? rec;
    await writeAgentRecord(deps.terminal.sessionDir(id), { ...latest, model: now.model, reasoning_effort: now.effort });
    return {
      schema: "aiterm.agent-configure-result.v1",
      session_id: id,
      harness: rec.harness,
      provider: adapter.provider,
      model: now.model,
      reasoning_effort: now.effort,
      previous: { model: rec.model, reasoning_effort: rec.reasoning_effort },
      confirmations,
      persisted_default: persisted,
    };
  });
}
