/** Grok Build's usage-limit card and its sandbox start-up refusal. */
import { lineAt, prevNonEmpty, screenLines } from "../common/mod.ts";
import type { KeyStep } from "../common/mod.ts";

/** The footer of Grok's question card (the usage-limit card is one): `Tab:next answer │ … │ Shift+x:dismiss`. */
const CARD_FOOTER = /^\s*Tab:next answer\s+│.*Shift\+x:dismiss\s*$/;
/** Headings of the usage-limit card (weekly seen with 1.0.41 after an HTTP 402; the others are its siblings in the binary). */
const LIMIT_HEADING =
  /^(?:You hit your weekly limit\.|You hit your free usage limit\.|You've hit the credit limit for your plan\.|You've hit your spending cap\.)$/;

/**
 * The usage-limit card when it is the current bottom of the screen: the `┃` card whose first line is a
 * limit heading, with the card footer as the last line. A card with anything drawn under it (scrollback,
 * a later composer) is not the current one. Returns the heading, or null.
 */
export function grokRateLimitDialog(screen: string): string | null {
  const lines = screenLines(screen);
  const footer = prevNonEmpty(lines, lines.length - 1);
  if (footer < 0 || !CARD_FOOTER.test(lineAt(lines, footer))) return null;
  const bottom = prevNonEmpty(lines, footer - 1);
  let top = bottom;
  while (top >= 0 && /^\s*┃/.test(lineAt(lines, top))) top--;
  const body = lines.slice(top + 1, bottom + 1).map((l) => l.replace(/^\s*┃/, "").trim()).filter((l) => l !== "");
  const heading = body[0] ?? "";
  return LIMIT_HEADING.test(heading) ? heading : null;
}

/** Shift+x dismisses the usage-limit card (its footer says so); null when the card is not the current screen. */
export function dismissGrokRateLimitDialog(screen: string): KeyStep[] | null {
  return grokRateLimitDialog(screen) ? [{ key: "X" }] : null;
}

/**
 * The CLI's refusal to start its sandbox (`--sandbox read-only`), printed as `error: …` lines before any TUI
 * and followed by exit 1 (real 1.0.41: `error: sandbox profile resolve failed: symlinked GROK_HOME is not
 * allowed …` / `error: this sandbox could not enforce its deny list on Linux: … Refusing to start with denied
 * paths unprotected.`). Returns the error lines without their `error:` prefix, joined by ` / `; else null.
 */
export function grokSandboxRefusal(screen: string): string | null {
  const errors = screenLines(screen).map((l) => l.trim()).filter((l) => /^error: /.test(l));
  if (!errors.some((l) => /sandbox|bwrap/i.test(l)) || !errors.some((l) => /refus/i.test(l))) return null;
  return errors.map((l) => l.replace(/^error:\s*/, "")).join(" / ");
}
