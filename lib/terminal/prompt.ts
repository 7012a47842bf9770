/**
 * Prompts that are not a fresh command prompt (issue 15 item 7): gathers the facts for
 * platform/input_prompt.ts — the kernel's input-wait verdict, the terminal's modes (read only when
 * the foreground waits for input), the last integration mark after the send — and words the hint.
 */
import {
  classifyInputPrompt,
  type ForegroundProcess,
  lastIntegrationMark,
  type PromptKind,
  readTerminalModes,
  type TerminalModes,
} from "../../platform/mod.ts";
import { logExtent, readLog } from "./files/output_log.ts";

export type { PromptKind } from "../../platform/mod.ts";

/** How much of the log's end {@link lastMarkSince} looks at (marks are printed right before a prompt). */
const TAIL_BYTES = 64 * 1024;

/**
 * The prompt the pane's foreground waits at, or null, and the terminal's modes when they were read: `stty` runs
 * only when the group may wait for input (the kernel says so, or cannot tell).
 */
export async function promptAt(o: {
  panePid: number;
  /** The pane's tty device (where there is no /proc, the modes are read from it). */
  tty?: string;
  fg: ForegroundProcess | null;
  atShell: boolean;
  integrated: boolean;
  lastMark: "end" | "continuation" | null;
}): Promise<{ kind: PromptKind | null; modes: TerminalModes | null }> {
  if (!o.fg || o.fg.readingInput === false) return { kind: null, modes: null };
  const modes = await readTerminalModes(o.panePid, o.tty);
  const kind = classifyInputPrompt({
    waiting: o.fg.readingInput,
    atShell: o.atShell,
    name: o.fg.name,
    integrated: o.integrated,
    lastMark: o.lastMark,
    modes,
  });
  return { kind, modes };
}

/** The last integration mark in the log after `cursor` (its last 64 KiB), for pty_observe. */
export async function lastMarkSince(
  dir: string,
  segmentBytes: number,
  cursor: number,
): Promise<"end" | "continuation" | null> {
  const ext = await logExtent(dir, segmentBytes);
  const from = Math.max(cursor, ext.end - TAIL_BYTES);
  if (from >= ext.end) return null;
  const slice = await readLog(dir, segmentBytes, { from, maxBytes: ext.end - from });
  return lastIntegrationMark(new TextDecoder().decode(slice.bytes));
}

/** What to send at each kind of prompt (never C-c to a program that simply waits, except to abandon PS2). */
export function promptHint(kind: PromptKind): string {
  switch (kind) {
    case "continuation":
      return "the shell waits for the rest of the command (an open quote, bracket, loop or here-document): send the rest, or press C-c with pty_key to abandon it";
    case "read":
      return "a program waits for a line of input (e.g. the read builtin): send the answer with pty_send";
    case "password":
      return "a password prompt waits (echo is off): send the secret with pty_send (the terminal will not echo it)";
  }
}
