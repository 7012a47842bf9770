/** Grok Build's prompt queue: where a steer's text is after its submit (agent steering). */
import { lineAt, screenLines, squash } from "../common/mod.ts";
import { composerBox, FOOTER, grokComposerHolds } from "./screen.ts";

/** The footer while prompts wait in the queue and the composer is empty: Enter sends the first one now. */
const SEND_NOW_FOOTER = /^\s*Enter:send now\s+│/;
/** A queued prompt row above the in-progress line: `#1 <first line>`, then ` (+N lines)` or a cut-off `…`. */
const QUEUE_ROW = /^\s+#(\d+) (.+)$/;

/** Prompts waiting in Grok's queue (rows `#1 …` above the in-progress line), in order; and whether Enter sends now. */
export function grokQueue(screen: string): { rows: string[]; sendNow: boolean } {
  const lines = screenLines(screen);
  const top = lines.length - 1;
  for (let i = top; i >= 0 && i >= top - 3; i--) {
    const footer = lineAt(lines, i);
    if (!FOOTER.test(footer)) continue;
    const box = composerBox(lines, i);
    if (!box) break;
    // Between the composer and the rows: at most the in-progress line and a hint (`Queued · Enter to send now`).
    const rows: { n: number; text: string }[] = [];
    let others = 0;
    for (let j = box.top - 1; j >= 0 && others <= 2; j--) {
      const l = lineAt(lines, j);
      if (l.trim() === "") continue;
      const m = l.match(QUEUE_ROW);
      if (m) rows.push({ n: Number(m[1]), text: m[2]!.trim() });
      else if (rows.length > 0) break; // the rows are one block; anything above them is the conversation
      else others++;
    }
    rows.sort((a, b) => a.n - b.n);
    return { rows: rows.map((r) => r.text), sendNow: SEND_NOW_FOOTER.test(footer) };
  }
  return { rows: [], sendNow: false };
}

/** Whether a queue row shows `text`: its first line, whole or cut off with `…`, with an optional ` (+N lines)`. */
export function grokQueueRowShows(row: string, text: string): boolean {
  const first = squash(text.split("\n").find((l) => l.trim() !== "") ?? "");
  const shown = squash(row.replace(/\s*\(\+\d+ lines?\)$/, ""));
  if (first === "" || shown === "") return false;
  if (shown.endsWith("…")) {
    const head = shown.slice(0, -1).trimEnd();
    return head !== "" && first.startsWith(head);
  }
  return shown === first;
}

/**
 * Where a steer's text is after paste + Enter while a turn runs: Enter puts it in Grok's queue, and only
 * as the first row with the `Enter:send now` footer will the steer step (Enter) send it now. Grok never
 * shows it joined on screen: that is confirmed from the transcript (`steers`).
 */
export function grokSteerPlace(screen: string, text: string): "composer" | "queued" | "queued_behind" | "unseen" {
  if (grokComposerHolds(screen, text)) return "composer";
  const q = grokQueue(screen);
  const at = q.rows.findIndex((r) => grokQueueRowShows(r, text));
  if (at === 0 && q.sendNow) return "queued";
  return at >= 0 ? "queued_behind" : "unseen";
}
