/**
 * Input sanitising for `pty_send`: what an AI types must not carry terminal control. Removes ANSI
 * escape sequences (including bracketed-paste markers), C0 controls other than tab and LF, DEL and
 * C1 controls; CRLF and lone CR become LF.
 */

// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[@-Z\\-_])?/g;
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]/g;

/** The sanitised text and how many characters were removed. */
export interface SanitizeResult {
  text: string;
  removed: number;
}

/** Sanitises text typed by a caller (see module doc). */
export function sanitizeInput(input: string): SanitizeResult {
  let text = input.replace(/\r\n?/g, "\n");
  const before = text.length;
  text = text.replace(ESCAPES, "").replace(CONTROLS, "");
  return { text, removed: before - text.length };
}
