/**
 * The command a multiplexer pipes a pane's output into. It must keep working while no aiterm
 * process runs, so it is a plain POSIX program: `split` writes fixed-size segment files
 * `seg.aaaaaa`, `seg.aaaaab`, … so a byte offset maps to (segment, position) and old segments can be
 * deleted without rewriting anything.
 *
 * Writer generations: `split` always names its first file `…aaaaaa`, so a writer attached again
 * after the first one died (disk full, killed) cannot continue the numbering. It gets its own file
 * prefix instead, `seg.<base>.`, where `<base>` is the six-letter name of the global segment index
 * its first file stands for: `seg.aaaabc.aaaaab` is global segment 28 + 1 = 29. The first writer
 * keeps the plain `seg.` prefix (base 0). A restarted writer's base is always past every segment
 * and base that exists, so absolute cursors only ever grow; the bytes between the old end and the
 * new base are a gap. `gap.<base>` marks that a writer was restarted there (and claims the base,
 * created exclusively, so two processes never start two writers on the same files).
 */
import { posixQuote } from "./shell_dialect.ts";

/** The file-name prefix of log segments. */
export const SEGMENT_PREFIX = "seg.";
/** Suffix length of segment names (26^6 segments before split would run out). */
export const SEGMENT_SUFFIX_LEN = 6;
/** The file-name prefix of writer-restart markers (`gap.<base>`). */
export const GAP_PREFIX = "gap.";

/** A POSIX sh command line that appends stdin to segment files under `dir`, owner-only. */
export function outputSinkCommand(dir: string, segmentBytes: number, base = 0): string {
  return `umask 077; exec split -a ${SEGMENT_SUFFIX_LEN} -b ${segmentBytes} - ${
    posixQuote(`${dir}/${segmentPrefix(base)}`)
  }`;
}

/** The file prefix a writer of generation `base` writes under (`seg.` for base 0). */
export function segmentPrefix(base: number): string {
  return base === 0 ? SEGMENT_PREFIX : `${SEGMENT_PREFIX}${suffixOf(base)}.`;
}

function suffixOf(index: number): string {
  let s = "";
  let n = index;
  for (let i = 0; i < SEGMENT_SUFFIX_LEN; i++) {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return s;
}

function indexOf(suffix: string): number | null {
  if (suffix.length !== SEGMENT_SUFFIX_LEN || !/^[a-z]+$/.test(suffix)) return null;
  let n = 0;
  for (const ch of suffix) n = n * 26 + (ch.charCodeAt(0) - 97);
  return n;
}

/** A segment file name taken apart: the writer generation's base and the global segment index. */
export interface SegmentFile {
  /** Global index of the writer generation's first segment (0 for the first writer). */
  base: number;
  /** Global segment index: the file holds absolute bytes `[index·S, (index+1)·S)`. */
  index: number;
}

/** Parses `seg.xxxxxx` (base 0) or `seg.<base>.xxxxxx`; null for other names. */
export function parseSegmentName(fileName: string): SegmentFile | null {
  if (!fileName.startsWith(SEGMENT_PREFIX)) return null;
  const rest = fileName.slice(SEGMENT_PREFIX.length);
  if (rest.length === SEGMENT_SUFFIX_LEN) {
    const index = indexOf(rest);
    return index === null ? null : { base: 0, index };
  }
  if (rest.length !== 2 * SEGMENT_SUFFIX_LEN + 1 || rest[SEGMENT_SUFFIX_LEN] !== ".") return null;
  const base = indexOf(rest.slice(0, SEGMENT_SUFFIX_LEN));
  const local = indexOf(rest.slice(SEGMENT_SUFFIX_LEN + 1));
  if (base === null || local === null || base === 0) return null;
  return { base, index: base + local };
}

/** The global index of a segment from its file name (`seg.aaaaab` → 1); null for other names. */
export function segmentIndex(fileName: string): number | null {
  return parseSegmentName(fileName)?.index ?? null;
}

/** The file name of global segment `index` as the writer of generation `base` names it (default: the first writer). */
export function segmentName(index: number, base = 0): string {
  return segmentPrefix(base) + suffixOf(index - base);
}

/** The name of the marker of a writer restarted at global segment `base`. */
export function gapMarkerName(base: number): string {
  return GAP_PREFIX + suffixOf(base);
}

/** The base of a `gap.<base>` marker; null for other names. */
export function parseGapMarkerName(fileName: string): number | null {
  if (!fileName.startsWith(GAP_PREFIX)) return null;
  const base = indexOf(fileName.slice(GAP_PREFIX.length));
  return base === null || base === 0 ? null : base;
}
