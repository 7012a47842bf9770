// deno-lint-ignore-file no-console
/**
 * Generates docs/config.md from `KNOBS` and `CHILD_VARS` in base/config.ts: every `AITERM_*` variable a
 * user may set (type, default, accepted values, meaning) and the ones aiterm sets for its own children.
 *
 *   deno run -A scripts/config_doc.ts          # rewrite docs/config.md
 *   deno run -A scripts/config_doc.ts --check  # exit 1 when docs/config.md is not what base/config.ts says
 *
 * tests/static/config_doc_test.ts runs the check in the test suite.
 */
import { CHILD_VAR_MEANINGS, CHILD_VARS, type ChildVar, type Knob, KNOBS } from "../base/config.ts";

const DOC = new URL("../docs/config.md", import.meta.url);

/** Wraps a paragraph at 120 columns the way `deno fmt` does, so the generated file is fmt-stable. */
function wrap(paragraph: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of paragraph.split(/\s+/).filter((w) => w !== "")) {
    if (current !== "" && current.length + 1 + word.length > 120) {
      out.push(current);
      current = word;
    } else {
      current = current === "" ? word : `${current} ${word}`;
    }
  }
  if (current !== "") out.push(current);
  return out;
}

function accepted(k: Knob): string {
  switch (k.type) {
    case "enum":
      return k.values!.map((v) => `\`${v}\``).join(", ");
    case "integer":
      return `a whole number from ${k.min} to ${k.max}`;
    case "reporter":
      return "`command:<absolute path>`";
    case "path":
      return "a path";
    case "command":
      return "a path, or a program name looked up on PATH";
  }
}

function defaultText(k: Knob): string {
  if (k.defaultNote) return k.defaultNote;
  return k.default === null ? "unset (off)" : `\`${k.default}\``;
}

/** The Markdown of docs/config.md. */
export function renderConfigDoc(knobs: readonly Knob[] = KNOBS): string {
  const lines = [
    "# Configuration",
    "",
    ...wrap(
      "Generated from `KNOBS` and `CHILD_VARS` in base/config.ts by `deno run -A scripts/config_doc.ts`; do not edit " +
        "by hand (tests/static/config_doc_test.ts fails when it differs).",
    ),
    "",
    ...wrap(
      "aiterm reads these environment variables once, when a program starts (`aiterm-mcp` and each of its " +
        "subcommands, `aiterm-wait`). An empty value counts as unset. A value a variable does not accept stops the " +
        "program before it does anything: it prints `CONFIG_INVALID: <variable>=… is refused: …` on stderr and exits " +
        "2. No variable falls back to its default silently.",
    ),
    "",
    "## Variables you may set",
    "",
  ];
  for (const k of knobs) {
    lines.push(`### \`${k.name}\``, "", ...wrap(`${k.meaning[0]!.toUpperCase()}${k.meaning.slice(1)}.`), "");
    lines.push(`- accepts: ${accepted(k)}`);
    lines.push(`- default: ${defaultText(k)}`);
    if (k.os) lines.push(`- read on: ${k.os === "windows" ? "Windows only" : "Linux and macOS only"}`);
    lines.push("");
  }
  lines.push(
    "## Variables aiterm sets for its children",
    "",
    ...wrap(
      "aiterm sets these in the sessions, agents and helper processes it starts. They are not settings: setting one " +
        "yourself changes nothing, except that a launch made from inside an aiterm session reads its lineage " +
        "(`AITERM_SESSION_ID`, `AITERM_DELEGATION_DEPTH`, `AITERM_LINEAGE`) to extend it.",
    ),
    "",
  );
  for (const [role, name] of Object.entries(CHILD_VARS)) {
    lines.push(`- \`${name}\`: ${CHILD_VAR_MEANINGS[role as ChildVar]}`);
  }
  lines.push("");
  return lines.join("\n");
}

if (import.meta.main) {
  const text = renderConfigDoc();
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(DOC).catch(() => "");
    if (current !== text) {
      console.error("docs/config.md differs from base/config.ts: run deno run -A scripts/config_doc.ts");
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(DOC, text);
    console.error(`wrote ${DOC.pathname}`);
  }
}
