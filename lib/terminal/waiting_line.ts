/**
 * The line a waiting program printed last, read back from the log before a cursor: a read that ends `nested` or
 * `input_prompt` with no new output still shows what the program asks (its prompt was printed before the cursor,
 * and an earlier read consumed it).
 */
import { readLog } from "./files/output_log.ts";
import { stripControl } from "./reduce/mod.ts";

/** How far back the line is looked for. */
export const LOOK_BACK_BYTES = 4096;

// A send's sentinel line (lib/terminal/read.ts hides these the same way).
const SENTINEL_LINE_RE = /^__AITERM_[0-9a-f]{8,}_-?\d+__$/;

/**
 * The last line that holds text in the log's `LOOK_BACK_BYTES` before `before`, control sequences applied and
 * right-trimmed; null when there is none.
 */
export async function lastLogLine(dir: string, segmentBytes: number, before: number): Promise<string | null> {
  const from = Math.max(0, before - LOOK_BACK_BYTES);
  if (before <= from) return null;
  const slice = await readLog(dir, segmentBytes, { from, maxBytes: before - from });
  // The first line may start mid-line (mid-character, too): it counts only when the window starts the log.
  const lines = stripControl(new TextDecoder().decode(slice.bytes)).split("\n");
  if (slice.from > 0) lines.shift();
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    if (line.trim() !== "" && !SENTINEL_LINE_RE.test(line.trim())) return line;
  }
  return null;
}
