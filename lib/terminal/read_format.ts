/** How a read result is shown to an AI as text (pty_read, and pty_send when it waits). */
import type { ReadResult } from "./read.ts";

/** The text an AI reads for a read result: the output, the meta line, and the completion verdict. */
export function formatRead(r: ReadResult): string {
  const parts = [r.text];
  if (r.meta) parts.push(r.meta);
  const cur = r.next_cursor !== null
    ? ` next_cursor=${r.next_cursor}${r.has_more ? " has_more" : ""}${r.truncated ? " truncated" : ""}`
    : "";
  // What follows the verdict: the cursor and whether the session ended; nothing (no dangling ";") for a screen.
  const tail = [cur.trim(), r.state === "ended" ? "session ended" : ""].filter((p) => p !== "").join(" ");
  if (r.via) {
    const exit = (r.exit_status !== null ? ` exit=${r.exit_status}` : "") + (r.prompt ? ` prompt=${r.prompt}` : "");
    parts.push(`[is_complete=${r.is_complete} via ${r.via}${exit} in ${r.waited_ms} ms${tail ? `; ${tail}` : ""}]`);
    if (r.hint) parts.push(`[hint: ${r.hint}]`);
  } else if (tail) {
    parts.push(`[${tail}]`);
  }
  for (const w of r.warnings ?? []) parts.push(`[warning: ${w}]`);
  return parts.filter((p) => p !== "").join("\n");
}
