/**
 * Fast mode at agent_launch. The harness adapter turns `fast` into a launch option for this seat only
 * (Claude Code `--settings '{"fastMode":true}'`, Codex `-c service_tier="fast"`; the CLIs' own `/fast`
 * commands would also save it as the user's default) or into the model's fast variant (Cursor
 * `<model>-fast`). A launch option is confirmed from the harness's ready screen (Claude's `↯` mark,
 * Codex's `Fast` in the status line): the receipt says `fast: true` only then, otherwise
 * `FAST_MODE_UNCONFIRMED` says why.
 */
import { waitUntil } from "../../base/wait.ts";
import type { HarnessAdapter, LaunchSpec } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import type { StartupResult } from "./startup.ts";

/** The receipt's `fast`, and its `fast_error` (null when confirmed or not asked for). */
export interface FastResult {
  fast: boolean;
  error: { code: string; message: string } | null;
}

/** How long the ready screen is watched for the fast cue (it is drawn with the composer). */
const CONFIRM_MS = 2000;
const POLL_MS = 100;

/** A fast model id (`…-fast`, `…-fast-…`): such an id given directly makes the seat fast. */
const FAST_ID = /(^|-)fast($|-)/;

function unconfirmed(adapter: HarnessAdapter, why: string): FastResult {
  return {
    fast: false,
    error: { code: "FAST_MODE_UNCONFIRMED", message: `fast mode in ${adapter.id} is not confirmed: ${why}` },
  };
}

/** The launch {@link confirmFast} judges. */
export interface FastLaunch {
  adapter: HarnessAdapter;
  /** The launch's own choices. */
  input: { fast?: boolean | null | undefined; model?: string | null | undefined };
  spec: LaunchSpec;
  /** What the start-up gate saw. */
  startup: StartupResult;
}

/**
 * The receipt's `fast` and `fast_error` for a launch in session `id` (see module doc). Reads the screen only for
 * a launch option after a ready start-up gate.
 */
export async function confirmFast(terminal: Terminal, id: string, launch: FastLaunch): Promise<FastResult> {
  const { adapter, input, spec, startup } = launch;
  if (input.fast !== true) {
    return { fast: input.fast == null && input.model != null && FAST_ID.test(input.model), error: null };
  }
  if (spec.fastBy === "model_variant") return { fast: true, error: null };
  if (spec.fastBy !== "launch_option" || !adapter.fastShown) {
    return unconfirmed(adapter, "aiterm has no way to switch this harness to fast mode; it runs at normal speed");
  }
  if (startup.status !== "ready") {
    return unconfirmed(adapter, `the start-up did not reach a ready screen (${startup.status}: ${startup.reason})`);
  }
  const fastShown = adapter.fastShown;
  const seen = await waitUntil(async () => fastShown((await terminal.screen(id)) ?? ""), {
    timeoutMs: CONFIRM_MS,
    intervalMs: POLL_MS,
    until: (shown) => shown === true,
  });
  if (seen.status === "done") return { fast: true, error: null };
  const shown = seen.last ?? null;
  return unconfirmed(
    adapter,
    shown === false
      ? "the CLI started at normal speed (its screen shows no fast mode; the account or model may not allow it)"
      : "its screen does not say whether fast mode is on",
  );
}
