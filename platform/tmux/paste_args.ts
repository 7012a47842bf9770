/**
 * The tmux command lists that type into a pane: a paste (from a scratch file on the CLI, in the line on
 * the control client), a paste or a key press in the same round trip as the pane check, and the bytes
 * and text they carry. Pure argv builders: platform/tmux/tmux.ts runs them.
 */
import type { MuxOutput } from "../_mux_exec.ts";
import type { PasteData, PasteOptions } from "../multiplexer.ts";
import { commandText, splitCliCommands } from "./control_line.ts";
import { tmuxArg, tmuxFormatArg } from "./tmux_args.ts";

/**
 * The one tmux command list that types a paste: `load-buffer` of the whole text from `file` into
 * buffer `buffer`, `paste-buffer -d` into `target`, then `keysAfter`. Its size does not grow with
 * the text (tmux refuses a command list over 16 KiB: "command too long"), and tmux runs a command
 * list as a unit, so the keys can never overtake the text and a sender that dies after spawning it
 * still types all or nothing. tmux keeps the pane's unread input queued and writes it as the pty
 * accepts it, so a slowly reading program loses nothing. The path is a format (`#` doubled).
 */
export function pasteArgs(target: string, buffer: string, file: string, options: PasteOptions = {}): string[] {
  return ["load-buffer", "-b", buffer, tmuxFormatArg(file), ...pasteTail(target, buffer, options)];
}

/**
 * The control transport's paste: the same command list as {@link pasteArgs}, with the text given to
 * `set-buffer` in the line instead of loaded from a file. A control-mode line has no 16 KiB limit (tmux
 * reads it from the pipe, not from a client message), needs no scratch file, and every command in it
 * runs without waiting (load-buffer of a file waits for the read), so the line runs whole within one
 * pass of the server's command queue. `text` is plain (set-buffer expands nothing).
 */
export function setBufferPasteArgs(target: string, buffer: string, text: string, options: PasteOptions = {}): string[] {
  return ["set-buffer", "-b", buffer, "--", tmuxArg(text), ...pasteTail(target, buffer, options)];
}

/** Whether a pane may be typed into by {@link readyPasteArgs}: alive, with its output pipe attached. */
export const READY_FORMAT = "#{?pane_dead,0,#{pane_pipe}}";
/** What the typing branch prints (once, last). */
export const READY_TYPED = "typed";
/** What the other branch prints, as often as the typing branch has commands. */
export const READY_SKIPPED = "skipped";
/** The answer of a command the control client did not carry (compared by identity: nothing was tried). */
export const NOT_TRIED: MuxOutput = { code: 0, stdout: "", stderr: "" };

/**
 * The control transport's paste in the same round trip as the pane check a send makes first: set-buffer
 * (as {@link setBufferPasteArgs}), then `if-shell -F` on {@link READY_FORMAT} of the target, whose branches
 * tmux runs at once (no shell): paste, keys and `display-message -p typed`, or delete the buffer and print
 * `skipped` as often as the other branch has commands, so the line always makes `blocks` reply blocks. A
 * target that does not exist expands the format to nothing: skipped. Nothing caller-given is in the
 * branches: the buffer name, the target `=<session id>:` and key names.
 */
export function readyPasteArgs(
  target: string,
  buffer: string,
  text: string,
  options: PasteOptions = {},
): { args: string[]; blocks: number } {
  const typed = [...pasteTail(target, buffer, options).slice(1), ";", "display-message", "-p", READY_TYPED];
  const n = splitCliCommands(typed).length;
  const skipped = ["delete-buffer", "-b", buffer];
  for (let i = 1; i < n; i++) skipped.push(";", "display-message", "-p", READY_SKIPPED);
  const args = [
    "set-buffer",
    "-b",
    buffer,
    "--",
    tmuxArg(text),
    ";",
    "if-shell",
    "-F",
    "-t",
    target,
    READY_FORMAT,
    commandText(typed),
    commandText(skipped),
  ];
  return { args, blocks: 2 + n };
}

/** Whether a pane may take keys from {@link aliveKeysArgs}: it exists and is alive. */
export const ALIVE_FORMAT = "#{?pane_dead,0,1}";

/**
 * The control transport's key press in the same round trip as the pane check: `if-shell -F` on {@link ALIVE_FORMAT}
 * of the target runs `send-keys` and `display-message -p typed`, or prints `skipped` twice (both branches make the
 * same number of reply blocks, so the line always makes `blocks`). A target that does not exist fails the if-shell
 * itself (no branch runs). `keys` are tmux key names, already quoted for a command line (tmuxArg).
 */
export function aliveKeysArgs(target: string, keys: string[]): { args: string[]; blocks: number } {
  const typed = ["send-keys", "-t", target, ...keys, ";", "display-message", "-p", READY_TYPED];
  const skipped = ["display-message", "-p", READY_SKIPPED, ";", "display-message", "-p", READY_SKIPPED];
  const args = ["if-shell", "-F", "-t", target, ALIVE_FORMAT, commandText(typed), commandText(skipped)];
  return { args, blocks: 1 + splitCliCommands(typed).length };
}

function pasteTail(target: string, buffer: string, options: PasteOptions): string[] {
  const args = [";", "paste-buffer", "-d"];
  // -p: one bracketed paste, so a TUI sees the text as one paste.
  if (options.bracketed) args.push("-p");
  args.push("-b", buffer, "-t", target);
  if (options.exact) args.push("-r");
  if (options.keysAfter?.length) args.push(";", "send-keys", "-t", target, ...options.keysAfter);
  return args;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/** `data` as a string when it is valid UTF-8 without NUL (what a control-mode line can carry), else null. */
export function utf8Text(data: Uint8Array): string | null {
  if (data.includes(0)) return null;
  try {
    return strictUtf8.decode(data);
  } catch {
    return null;
  }
}

/** The bytes a paste types: the whole text at once (tmux's server queues pane input losslessly; no chunks). */
export function bytesOf(input: PasteData): Uint8Array {
  return typeof input === "string" ? utf8Encoder.encode(input) : input;
}
