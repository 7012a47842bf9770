/**
 * The screen view of `pty_read screen:true`: the rendered screen as the multiplexer captured it (one
 * row per line, padded with spaces to the pane's width), reduced for reading. Pure, no I/O.
 *
 * Reduced (the default): trailing spaces of every row are removed, the blank rows below the last text
 * are left out, a run of {@link RUN_MIN} or more blank rows becomes one `⟨N blank lines⟩` line and a run
 * of as many identical rows (vim's `~`) one row plus `  (×N)`, so every row of the screen is still
 * accounted for. A screen that still costs more than {@link SCREEN_BUDGET} characters (htop, top: a
 * table of long rows) is made smaller in steps, each only while it is over the budget:
 *  1. a run of {@link FILL_MIN} or more of one punctuation or box-drawing character (a meter's `|||`, a
 *     border's `───`) becomes `⟨N×c⟩`;
 *  2. the end of a row that repeats the row above from the same column on (at least {@link DITTO_MIN}
 *     characters, from a word boundary) becomes `⟨〃⟩` (htop's threads of one command line);
 *  3. when it is still over {@link HIDE_OVER} times the budget, rows between the first ones and the last
 *     {@link TAIL_ROWS} (a status or key bar) are hidden, down to the budget, behind one marker line that
 *     names them and how to see them.
 * Steps 1 and 2 lose nothing; the meta line says which were taken. `lines: N` keeps the last N rows that
 * hold the text: with N larger than the screen it reaches into the scrollback (the caller captures N rows
 * of scrollback above the screen), and no budget applies (the caller asked for those rows). `raw` keeps
 * the capture exactly (with `lines`, its last N rows as captured). A meta line says what was shown
 * against the capture: rows, characters and estimated tokens.
 */
import { estimateTokens, repeatMarker, toLines } from "./reduce/mod.ts";

/** Runs at least this long are collapsed (shorter ones cost less than their marker). */
export const RUN_MIN = 3;
/** A reduced screen (without `lines`) is made smaller while its text is longer than this many characters. */
export const SCREEN_BUDGET = 3000;
/** A run of one punctuation or box-drawing character at least this long becomes `⟨N×c⟩` (over budget). */
export const FILL_MIN = 8;
/** A row's end that repeats the row above for at least this many characters becomes `⟨〃⟩` (over budget). */
export const DITTO_MIN = 24;
/**
 * Rows are hidden only when the screen is still over this many times the budget after the lossless steps: a screen
 * a little over (vim on dense code) loses no rows for a few characters.
 */
export const HIDE_OVER = 1.25;
/** The last rows a screen over budget always keeps (a status line, a key bar, a prompt). */
export const TAIL_ROWS = 3;
/** What stands for the end of a row that is the same as the row above's. */
export const DITTO = "⟨〃⟩";

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
  /** Rows hidden to keep a screen within {@link SCREEN_BUDGET}. */
  hiddenRows: number;
}

/** A blank run's marker line. */
export function blankRunMarker(count: number): string {
  return `⟨${count} blank lines⟩`;
}

/** One line of the reduced screen: its text and the rows (0-based, in the rows shown) it stands for. */
interface Entry {
  text: string;
  /** The row as captured (trimmed); null for a blank-run marker. */
  row: string | null;
  first: number;
  last: number;
}

/** Collapses runs of blank rows and of identical rows (see module doc). */
function collapseRuns(rows: readonly string[]): { out: Entry[]; blank: number; repeated: number } {
  const out: Entry[] = [];
  let blank = 0;
  let repeated = 0;
  for (let i = 0; i < rows.length;) {
    const row = rows[i]!;
    let j = i + 1;
    while (j < rows.length && rows[j] === row) j++;
    const run = j - i;
    if (run < RUN_MIN) {
      for (let k = i; k < j; k++) out.push({ text: row, row, first: k, last: k });
    } else if (row === "") {
      out.push({ text: blankRunMarker(run), row: null, first: i, last: j - 1 });
      blank += run - 1;
    } else {
      out.push({ text: repeatMarker(row, run), row, first: i, last: j - 1 });
      repeated += run - 1;
    }
    i = j;
  }
  return { out, blank, repeated };
}

const size = (entries: readonly Entry[]): number => entries.reduce((n, e) => n + e.text.length + 1, 0) - 1;

// One punctuation, symbol or box-drawing character repeated (letters, digits and spaces are text, not fill).
const FILL_RE = new RegExp(`([^\\p{L}\\p{N}\\s])\\1{${FILL_MIN - 1},}`, "gu");

/** Step 1: runs of one fill character as `⟨N×c⟩`; returns how many runs were replaced. */
function compressFills(entries: Entry[]): number {
  let runs = 0;
  for (const e of entries) {
    if (e.row === null) continue;
    e.text = e.text.replace(FILL_RE, (m: string, c: string) => {
      runs++;
      return `⟨${[...m].length}×${c}⟩`;
    });
  }
  return runs;
}

/**
 * Step 2: the end of a row that repeats the row above from the same column on, from a word boundary (a space
 * before it in both rows), at least DITTO_MIN characters long, becomes {@link DITTO}. Rows are compared as
 * captured, so a chain of rows each like the one above all end in the mark. Returns the rows marked.
 */
function dittoTails(entries: Entry[]): number {
  let marked = 0;
  for (let k = 1; k < entries.length; k++) {
    const cur = entries[k]!;
    const above = entries[k - 1]!.row;
    if (cur.row === null || above === null || cur.row.length !== above.length) continue;
    const row = cur.row;
    let from = row.length;
    while (from > 0 && row[from - 1] === above[from - 1]) from--;
    // Start the mark at a word: after a space in both rows (the same column holds the same text from there).
    while (from < row.length && !(from > 0 && row[from - 1] === " " && above[from - 1] === " ")) from++;
    if (row.length - from < DITTO_MIN || row.slice(from).trim() === "") continue;
    // The text before the mark, with step 1 applied like the rest of the row.
    const head = row.slice(0, from).replace(FILL_RE, (m: string, c: string) => `⟨${[...m].length}×${c}⟩`);
    cur.text = cur.first === cur.last ? head + DITTO : repeatMarker(head + DITTO, cur.last - cur.first + 1);
    marked++;
  }
  return marked;
}

/** The marker of rows `from`..`to` (1-based rows of the screen) hidden to keep a screen within the budget. */
export function hiddenRowsMarker(from: number, to: number, rows: number): string {
  return `⟨rows ${from}-${to} hidden (${to - from + 1} rows over ${SCREEN_BUDGET} chars); ` +
    `screen:true lines=${rows} shows every row⟩`;
}

/**
 * Step 3: keeps the first entries and the last TAIL_ROWS that fit the budget with one marker line between them.
 * Returns the rows hidden (0 when it already fits).
 */
function foldRows(entries: Entry[], offset: number, rows: number): number {
  if (size(entries) <= SCREEN_BUDGET * HIDE_OVER || entries.length <= TAIL_ROWS + 1) return 0;
  const tail = entries.slice(-TAIL_ROWS);
  // The marker is at most this long (two row numbers of up to 6 digits).
  let room = SCREEN_BUDGET - size(tail) - hiddenRowsMarker(999999, 999999, rows).length - 2;
  let head = 0;
  while (head < entries.length - TAIL_ROWS && room - (entries[head]!.text.length + 1) >= 0) {
    room -= entries[head]!.text.length + 1;
    head++;
  }
  if (head >= entries.length - TAIL_ROWS) return 0;
  const first = entries[head]!.first;
  const last = entries[entries.length - TAIL_ROWS - 1]!.last;
  const marker: Entry = {
    text: hiddenRowsMarker(offset + first + 1, offset + last + 1, rows),
    row: null,
    first,
    last,
  };
  entries.splice(head, entries.length - TAIL_ROWS - head, marker);
  return last - first + 1;
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
      hiddenRows: 0,
    };
  }
  const trimmed = captured.map((r) => r.trimEnd());
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === "") end--;
  const blankBelow = trimmed.length - end;
  const start = n !== null ? Math.max(0, end - n) : 0;
  const shown = trimmed.slice(start, end);
  const { out, blank, repeated } = collapseRuns(shown);
  const steps: string[] = [];
  let hiddenRows = 0;
  if (n === null && size(out) > SCREEN_BUDGET) {
    const fills = compressFills(out);
    if (fills > 0) steps.push(`${fills} runs of one character as ⟨N×c⟩`);
    if (size(out) > SCREEN_BUDGET) {
      const dittos = dittoTails(out);
      if (dittos > 0) steps.push(`${dittos} row ends like the row above as ${DITTO}`);
    }
    hiddenRows = foldRows(out, start, captured.length);
    if (hiddenRows > 0) steps.push(`${hiddenRows} rows hidden`);
  }
  const text = out.map((e) => e.text).join("\n");
  const notes: string[] = [];
  if (repeated > 0) notes.push(`${repeated} repeated rows`);
  if (blank > 0) notes.push(`${blank} blank rows`);
  const collapsed = notes.length > 0 ? `; collapsed ${notes.join(" and ")}` : "";
  const below = blankBelow > 0 ? `; ${blankBelow} blank rows below the text left out` : "";
  const budget = steps.length > 0 ? `; over ${SCREEN_BUDGET} chars: ${steps.join(", ")}` : "";
  const scope = start > 0 ? `last ${shown.length} of ${captured.length} rows` : `${captured.length} rows`;
  return {
    text,
    meta: `${tag} screen ${scope} as ${out.length} lines / ~${estimateTokens(text)} tok (raw ${rawCost})` +
      `${collapsed}${below}${budget}]`,
    rows: captured.length,
    shownRows: shown.length,
    lines: out.length,
    collapsedBlank: blank,
    collapsedRepeated: repeated,
    blankBelow,
    hiddenRows,
  };
}
