// deno-lint-ignore-file no-console
/**
 * Generates docs/errors.md from `ERROR_CODES` in base/errors.ts: every code a caller can receive, with the
 * comment written beside it there (so the reference can never drift from the closed set of codes).
 *
 *   deno run -A scripts/errors_doc.ts          # rewrite docs/errors.md
 *   deno run -A scripts/errors_doc.ts --check  # exit 1 when docs/errors.md is not what base/errors.ts says
 *
 * tests/static/errors_doc_test.ts runs the check in the test suite.
 */
import { ERROR_CODES } from "../base/errors.ts";

const SOURCE = new URL("../base/errors.ts", import.meta.url);
const DOC = new URL("../docs/errors.md", import.meta.url);

/** One code and the meaning its comment gives. */
export interface ErrorCodeDoc {
  code: string;
  meaning: string;
}

/**
 * Reads the `"CODE", // meaning` lines of the `ERROR_CODES` array in the source of base/errors.ts. Throws
 * when the list read differs from `codes` (a code without a comment, or a line the parser did not see).
 */
export function parseErrorCodes(source: string, codes: readonly string[] = ERROR_CODES): ErrorCodeDoc[] {
  const start = source.indexOf("export const ERROR_CODES = [");
  const end = source.indexOf("] as const;", start);
  if (start < 0 || end < 0) throw new Error("base/errors.ts: no ERROR_CODES array");
  const found: ErrorCodeDoc[] = [];
  for (const line of source.slice(start, end).split("\n")) {
    const m = /^\s*"([A-Z][A-Z0-9_]*)",\s*(?:\/\/\s*(.*))?$/.exec(line);
    if (!m) continue;
    const meaning = (m[2] ?? "").trim();
    if (!meaning) throw new Error(`base/errors.ts: ${m[1]} has no comment saying what it means`);
    found.push({ code: m[1]!, meaning });
  }
  const read = found.map((e) => e.code).join(",");
  if (read !== codes.join(",")) {
    throw new Error("base/errors.ts: the commented lines do not match ERROR_CODES (one code per line, each commented)");
  }
  return found;
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

/** Greedy fill to 120 columns, as `deno fmt` wraps Markdown prose (so the file is fmt-stable). */
function fill(paragraph: string, width = 120): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of paragraph.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A Markdown table with its columns padded the way `deno fmt` pads them (so the file is fmt-stable). */
function table(header: [string, string], rows: [string, string][]): string[] {
  const width = (i: 0 | 1) => Math.max(3, ...[header, ...rows].map((r) => [...r[i]].length));
  const w = [width(0), width(1)] as const;
  const pad = (s: string, n: number) => s + " ".repeat(n - [...s].length);
  const line = (r: [string, string]) => `| ${pad(r[0], w[0])} | ${pad(r[1], w[1])} |`;
  return [line(header), `| ${"-".repeat(w[0])} | ${"-".repeat(w[1])} |`, ...rows.map(line)];
}

/** The Markdown reference for `codes` (in the order of ERROR_CODES). */
export function renderErrorsDoc(codes: ErrorCodeDoc[]): string {
  const intro = [
    "Generated from `ERROR_CODES` in base/errors.ts by `deno run -A scripts/errors_doc.ts` (or `deno task docs`); do not " +
    "edit by hand (tests/static/errors_doc_test.ts fails when it differs).",
    "Every failure a caller can see is a tool result with `isError: true`, the text `CODE: message (suggestion)` and " +
    "`structuredContent: {code, message, suggestion?}`. `data.*` below names an error's detail fields inside aiterm " +
    "(the tool result carries only code, message and suggestion). The codes described as a `pty_read` warning are " +
    "never thrown: they appear in a read's `warnings`.",
  ];
  return [
    "# Error codes",
    "",
    ...intro.flatMap((p) => [...fill(p), ""]),
    ...table(["code", "meaning"], codes.map((c) => [`\`${c.code}\``, cell(c.meaning)])),
    "",
  ].join("\n");
}

if (import.meta.main) {
  const text = renderErrorsDoc(parseErrorCodes(await Deno.readTextFile(SOURCE)));
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(DOC).catch(() => "");
    if (current !== text) {
      console.error("docs/errors.md differs from base/errors.ts: run deno run -A scripts/errors_doc.ts");
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(DOC, text);
    console.error(`wrote ${DOC.pathname}`);
  }
}
