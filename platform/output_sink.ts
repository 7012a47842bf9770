/**
 * The command a multiplexer pipes a pane's output into. It must keep working while no aiterm
 * process runs, so it is a plain POSIX program: `split` writes fixed-size segment files
 * `seg.aaaaaa`, `seg.aaaaab`, … so a byte offset maps to (segment, position) and old segments can be
 * deleted without rewriting anything.
 */
import { posixQuote } from "./shell_dialect.ts";

/** The file-name prefix of log segments. */
export const SEGMENT_PREFIX = "seg.";
/** Suffix length of segment names (26^6 segments before split would run out). */
export const SEGMENT_SUFFIX_LEN = 6;

/** A POSIX sh command line that appends stdin to segment files under `dir`, owner-only. */
export function outputSinkCommand(dir: string, segmentBytes: number): string {
  return `umask 077; exec split -a ${SEGMENT_SUFFIX_LEN} -b ${segmentBytes} - ${
    posixQuote(`${dir}/${SEGMENT_PREFIX}`)
  }`;
}

/** The index of a segment from its file name (`seg.aaaaab` → 1); null for other names. */
export function segmentIndex(fileName: string): number | null {
  if (!fileName.startsWith(SEGMENT_PREFIX)) return null;
  const suffix = fileName.slice(SEGMENT_PREFIX.length);
  if (suffix.length !== SEGMENT_SUFFIX_LEN || !/^[a-z]+$/.test(suffix)) return null;
  let n = 0;
  for (const ch of suffix) n = n * 26 + (ch.charCodeAt(0) - 97);
  return n;
}

/** The file name of segment `index`. */
export function segmentName(index: number): string {
  let s = "";
  let n = index;
  for (let i = 0; i < SEGMENT_SUFFIX_LEN; i++) {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return SEGMENT_PREFIX + s;
}
