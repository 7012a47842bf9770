/**
 * `pty_observe`: structured liveness and activity without returning any screen or argv text. The
 * activity cursor carries a screen digest and per-process CPU so the next call can report deltas.
 */
import { AppError } from "../../base/errors.ts";
import { foregroundOf, processArgvBytes, processTree } from "../../platform/mod.ts";
import { ownPromptWait } from "./foreground.ts";
import { lastMarkSince, promptAt, type PromptKind } from "./prompt.ts";
import { isFullScreen } from "./full_screen.ts";
import type { TerminalParts } from "./parts.ts";

/** The state of a session as observed. */
export type ObservedState =
  | "idle_shell"
  | "running"
  | "input_prompt"
  | "nested"
  | "full_screen"
  | "blocked"
  | "ended";

/** Result of {@link observeSession}. */
export interface ObserveResult {
  session_id: string;
  exists: boolean;
  pane_alive: boolean;
  state: ObservedState;
  reason: string;
  /** With state input_prompt: which prompt waits (continuation, read, password); null otherwise. */
  prompt: PromptKind | null;
  foreground: { pid: number; start: string; argv_digest: string | null; is_shell: boolean } | null;
  activity: {
    cursor: string;
    screen_digest: string | null;
    screen_changed: boolean | null;
    cpu_ms_delta: number | null;
    processes: { pid: number; cpu_ms_delta: number | null }[];
    cpu_delta_complete: boolean | null;
  };
}

interface CursorData {
  v: 1;
  d: string | null;
  p: Record<string, { s: string; c: number }>;
}

async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return "sha256:" + [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function encodeCursor(c: CursorData): string {
  return "v1." + btoa(JSON.stringify(c)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeCursor(s: string): CursorData {
  try {
    if (!s.startsWith("v1.")) throw new Error("version");
    const b64 = s.slice(3).replaceAll("-", "+").replaceAll("_", "/");
    const data = JSON.parse(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4))) as CursorData;
    if (data.v !== 1 || typeof data.p !== "object" || data.p === null) throw new Error("shape");
    return data;
  } catch {
    throw new AppError("INVALID_ARGUMENT", "Cannot use this activity cursor: it was not made by pty_observe", {
      data: { field: "cursor" },
    });
  }
}

/**
 * Observes a session.
 * @throws {AppError} SESSION_NOT_FOUND, INVALID_ARGUMENT
 */
export async function observeSession(
  terminal: TerminalParts,
  id: string,
  cursor?: string | null,
): Promise<ObserveResult> {
  const previous = cursor ? decodeCursor(cursor) : null;
  const { meta, live } = await terminal.describe(id);
  if (!meta && !live) {
    throw new AppError("SESSION_NOT_FOUND", `Cannot observe session "${id}": no such session`, {
      suggestion: "call pty_list",
    });
  }
  if (!live || live.paneDead) {
    if (!live && meta) await terminal.throwIfServerGone(id, "observe");
    return {
      session_id: id,
      exists: true,
      pane_alive: false,
      state: "ended",
      reason: "pane_exited",
      prompt: null,
      foreground: null,
      activity: {
        cursor: encodeCursor({ v: 1, d: null, p: {} }),
        screen_digest: null,
        screen_changed: null,
        cpu_ms_delta: null,
        processes: [],
        cpu_delta_complete: null,
      },
    };
  }
  const screen = await terminal.mux.capture(id).catch(() => null);
  const digest = screen === null ? null : await sha256(screen);
  const fg = await foregroundOf(live.panePid, live.tty);
  const tree = processTree(live.panePid);
  const procs: CursorData["p"] = {};
  for (const p of tree ?? []) procs[String(p.pid)] = { s: p.start, c: p.cpuMs };

  let state: ObservedState;
  let reason: string;
  const isShell = fg ? fg.pid === live.panePid : live.currentCommand === (meta?.shell_path.split("/").pop() ?? "");
  // tmux resumes a stopped pane process, and an interactive shell takes the terminal back from a
  // stopped job, so look for a stopped member of the foreground group (e.g. a harness under a script).
  const stoppedInFg = fg?.stopped || (tree ?? []).some((p) => fg && p.pgrp === fg.pgrp && p.stopped);
  // A prompt that is not a fresh command prompt (PS2, a line read, a password), from the kernel, the
  // terminal's modes and the last integration mark after the last send.
  // A full-screen program (alternate screen; or top, less -X… waiting for keys on the normal screen).
  const fullScreen = !stoppedInFg && !isShell &&
    isFullScreen({
      alternateOn: live.alternateOn,
      name: fg?.name ?? live.currentCommand,
      members: fg?.inputWait?.processes.map((p) => p.name),
      readingInput: fg?.readingInput ?? null,
    });
  const asked = stoppedInFg || fullScreen ? null : await promptAt({
    panePid: live.panePid,
    tty: live.tty,
    fg,
    atShell: isShell,
    integrated: meta?.integration === "osc133",
    lastMark: meta && fg?.readingInput
      ? await lastMarkSince(
        terminal.layout.sessionLogDir(id),
        meta.segment_bytes,
        (await terminal.lastSend(id))?.cursor ?? 0,
      ).catch(() => null)
      : null,
  });
  const prompt = asked?.kind ?? null;
  const own = ownPromptWait({
    name: fg?.name ?? live.currentCommand,
    readingInput: fg?.readingInput ?? null,
    modes: asked?.modes ?? null,
  });
  if (stoppedInFg) {
    state = "blocked";
    reason = "harness_stopped";
  } else if (fullScreen) {
    state = "full_screen";
    reason = live.alternateOn ? "alternate_screen" : "full_screen_program";
  } else if (prompt) {
    state = "input_prompt";
    reason = `waiting_at_${prompt}_prompt`;
  } else if (isShell) {
    state = "idle_shell";
    reason = "shell_in_foreground";
  } else if (own.waiting) {
    state = "nested";
    reason = own.evidence === "kernel" ? "foreground_waiting_for_input" : "foreground_hosts_own_prompt";
  } else {
    state = "running";
    reason = "foreground_command";
  }

  let cpuDelta: number | null = null;
  let complete: boolean | null = null;
  const perProcess: { pid: number; cpu_ms_delta: number | null }[] = [];
  if (previous && tree) {
    cpuDelta = 0;
    complete = true;
    for (const [pid, before] of Object.entries(previous.p)) {
      const now = procs[pid];
      if (!now || now.s !== before.s) complete = false;
    }
    for (const p of tree) {
      const before = previous.p[String(p.pid)];
      const d = before && before.s === p.start ? Math.max(0, p.cpuMs - before.c) : p.cpuMs;
      cpuDelta += d;
      perProcess.push({ pid: p.pid, cpu_ms_delta: d });
    }
  } else {
    for (const p of tree ?? []) perProcess.push({ pid: p.pid, cpu_ms_delta: null });
  }
  const argv = fg ? processArgvBytes(fg.pid) : null;
  const fgStart = fg ? tree?.find((p) => p.pid === fg.pid)?.start ?? "" : "";
  return {
    session_id: id,
    exists: true,
    pane_alive: true,
    state,
    reason,
    prompt,
    foreground: fg
      ? { pid: fg.pid, start: fgStart, argv_digest: argv ? await sha256(argv) : null, is_shell: isShell }
      : null,
    activity: {
      cursor: encodeCursor({ v: 1, d: digest, p: procs }),
      screen_digest: digest,
      screen_changed: previous ? previous.d !== digest : null,
      cpu_ms_delta: cpuDelta,
      processes: perProcess,
      cpu_delta_complete: complete,
    },
  };
}
