/**
 * The screen view of `pty_read screen:true`: the rendered screen as the multiplexer captured it (one
 * row per line, padded with spaces to the pane's width), reduced for reading. Pure, no I/O.
 *
 * Reduced (the default): trailing spaces of every row are removed, the blank rows below the last text
 * are left out, a run of {@link RUN_MIN} or more blank rows becomes one `⟨N blank lines⟩` line and a run
 * of as many identical rows (vim's `~`) one row plus `  (×N)`, so every row of the screen is still
 * accounted for. `lines: N` keeps the last N rows that hold the text: with N larger than the screen
 * it reaches into the scrollback (the caller captures N rows of scrollback above the screen). `raw`
 * keeps the capture exactly (with `lines`, its last N rows as captured). A meta line says what was
 * shown against the capture: rows, characters and estimated tokens.
 */
import { estimateTokens, repeatMarker, toLines } from "./reduce/mod.ts";

/** Runs at least this long are collapsed (shorter ones cost less than their marker). */
export const RUN_MIN = 3;

/** Options of {@link reduceScreen}. */
export interface ScreenOptions {
  /** Session id, used in the meta line. */
  sessionId: string;
  /** Keep the last N rows (see module doc). */
  lines?: number | null | undefined;
  /** Keep the capture exactly. */
  raw?: boolean | undefined;
}

/** The screen view: text without the meta line, the meta line, and the counts behind it. */
export interface ScreenView {
  text: string;
  meta: string;
  /** Rows captured (screen plus any scrollback). */
  rows: number;
  /** Rows the text stands for (after `lines` and the blank rows below the text). */
  shownRows: number;
  /** Lines of text returned. */
  lines: number;
  /** Rows folded into blank-run and repeat markers (not counting the one line each marker takes). */
  collapsedBlank: number;
  collapsedRepeated: number;
  /** Blank rows below the last text that were left out. */
  blankBelow: number;
}

/** A blank run's marker line. */
export function blankRunMarker(count: number): string {
  return `⟨${count} blank lines⟩`;
}

/** Collapses runs of blank rows and of identical rows (see module doc). */
function collapseRuns(rows: readonly string[]): { out: string[]; blank: number; repeated: number } {
  const out: string[] = [];
  let blank = 0;
  let repeated = 0;
  for (let i = 0; i < rows.length;) {
    const row = rows[i]!;
    let j = i + 1;
    while (j < rows.length && rows[j] === row) j++;
    const run = j - i;
    if (run < RUN_MIN) {
      for (let k = i; k < j; k++) out.push(row);
    } else if (row === "") {
      out.push(blankRunMarker(run));
      blank += run - 1;
    } else {
      out.push(repeatMarker(row, run));
      repeated += run - 1;
    }
    i = j;
  }
  return { out, blank, repeated };
}

/** Reduces a captured screen (see module doc). */
export function reduceScreen(shot: string, o: ScreenOptions): ScreenView {
  const captured = toLines(shot);
  const n = o.lines && o.lines > 0 ? o.lines : null;
  const tag = `[aiterm ${o.sessionId}:`;
  const rawCost = `${shot.length} chars / ~${estimateTokens(shot)} tok`;
  if (o.raw) {
    const kept = n !== null && captured.length > n ? captured.slice(-n) : captured;
    const text = kept.length === captured.length ? shot : kept.join("\n") + (shot.endsWith("\n") ? "\n" : "");
    return {
      text,
      meta: `${tag} screen ${captured.length} rows${kept.length < captured.length ? `, last ${kept.length}` : ""}, ` +
        `raw ${rawCost}]`,
      rows: captured.length,
      shownRows: kept.length,
      lines: kept.length,
      collapsedBlank: 0,
      collapsedRepeated: 0,
      blankBelow: 0,
    };
  }
  const trimmed = captured.map((r) => r.trimEnd());
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === "") end--;
  const blankBelow = trimmed.length - end;
  const start = n !== null ? Math.max(0, end - n) : 0;
  const shown = trimmed.slice(start, end);
  const { out, blank, repeated } = collapseRuns(shown);
  const text = out.join("\n");
  const notes: string[] = [];
  if (repeated > 0) notes.push(`${repeated} repeated rows`);
  if (blank > 0) notes.push(`${blank} blank rows`);
  const collapsed = notes.length > 0 ? `; collapsed ${notes.join(" and ")}` : "";
  const below = blankBelow > 0 ? `; ${blankBelow} blank rows below the text left out` : "";
  const scope = start > 0 ? `last ${shown.length} of ${captured.length} rows` : `${captured.length} rows`;
  return {
    text,
    meta: `${tag} screen ${scope} as ${out.length} lines / ~${estimateTokens(text)} tok (raw ${rawCost})` +
      `${collapsed}${below}]`,
    rows: captured.length,
    shownRows: shown.length,
    lines: out.length,
    collapsedBlank: blank,
    collapsedRepeated: repeated,
    blankBelow,
  };
}
