/**
 * Named keys for `pty_key`: the only way a key press reaches a terminal. The accepted set is what tmux
 * (3.3a) can turn into bytes: its key names, single characters, and the C-/M-/S- modifiers where a
 * terminal has a code for the combination. Anything else is refused, never typed as text: tmux itself
 * types an unknown name (or a modifier combination it has no code for) as its literal letters.
 */
import { AppError } from "../../../base/errors.ts";

/** Which modifiers a base key takes (tmux 3.3a with extended-keys off, the default). */
type Kind =
  | "special" // cursor, editing and F1…F12 keys: xterm's `CSI 1;<mod>X` forms exist for every combination
  | "plain" // Tab, Enter, Escape, BSpace, BTab, keypad, non-ASCII characters: only Meta (ESC prefix)
  | "space" // Space: Ctrl (NUL) and Meta
  | "char" // a printable ASCII character: Meta; Ctrl where a control code exists
  | "shifted_fn"; // F13…F63: terminfo's names for modified F1…F12, no further modifiers

interface Base {
  /** Canonical name. */
  name: string;
  /** tmux's name for it. */
  mux: string;
  kind: Kind;
}

const special = (name: string, mux = name): Base => ({ name, mux, kind: "special" });
const plain = (name: string, mux = name): Base => ({ name, mux, kind: "plain" });

/** Named keys, canonical name first. */
const NAMED: Base[] = [
  plain("Enter"),
  plain("Tab"),
  plain("BTab"),
  plain("Escape"),
  { name: "Space", mux: "Space", kind: "space" },
  plain("BSpace"),
  special("Delete", "DC"),
  special("Insert", "IC"),
  special("Home"),
  special("End"),
  special("PageUp", "PPage"),
  special("PageDown", "NPage"),
  special("Up"),
  special("Down"),
  special("Left"),
  special("Right"),
  ...Array.from({ length: 12 }, (_, i) => special(`F${i + 1}`)),
  ...["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "/", "*", "-", "+", ".", "Enter"].map((k) => plain(`KP${k}`)),
];

/** Other spellings (lower case) → canonical name: tmux's own synonyms, then friendly ones. */
const ALIASES: Record<string, string> = {
  "dc": "Delete",
  "ic": "Insert",
  "ppage": "PageUp",
  "pgup": "PageUp",
  "npage": "PageDown",
  "pgdn": "PageDown",
  "return": "Enter",
  "cr": "Enter",
  "esc": "Escape",
  "bs": "BSpace",
  "backspace": "BSpace",
  "del": "Delete",
  "ins": "Insert",
  "pagedown": "PageDown",
  "pageup": "PageUp",
  "pgdown": "PageDown",
  "spc": "Space",
  "kpenter": "KPEnter",
};

const BY_NAME: ReadonlyMap<string, Base> = (() => {
  const byName = new Map<string, Base>(NAMED.map((b) => [b.name.toLowerCase(), b]));
  for (const [alias, name] of Object.entries(ALIASES)) byName.set(alias, byName.get(name.toLowerCase())!);
  return byName;
})();

/** Modifier prefixes: tmux's one-letter forms and the spelled-out ones people type. */
const MODIFIER = /^(ctrl|control|alt|meta|shift|c|m|s)[-+](.+)$/is;
const MOD_OF: Record<string, Mod> = {
  c: "C",
  ctrl: "C",
  control: "C",
  m: "M",
  alt: "M",
  meta: "M",
  s: "S",
  shift: "S",
};
type Mod = "C" | "M" | "S";

/** Characters that have a control code, C-<char> → the code tmux sends (letters in either case). */
function controlCode(ch: string): boolean {
  return /^[a-zA-Z@[\\\]^_?]$/.test(ch);
}
/** Digits and punctuation tmux maps to a control code itself (only without Meta). */
const CTRL_ONLY = new Set(["2", "6", "-", "/"]);

/** terminfo (xterm, tmux-256color): F13…F24 = S-F1…F12, F25… = C-, F37… = C-S-, F49… = M-, F61…F63 = M-S-. */
const FN_GROUPS = ["", "S-", "C-", "C-S-", "M-", "M-S-"];

function lookupBase(text: string): Base | null {
  const chars = [...text];
  if (chars.length === 1) {
    if (/^\p{C}$/u.test(text)) return null;
    if (text === " ") return BY_NAME.get("space")!;
    return { name: text, mux: text, kind: text.charCodeAt(0) < 128 ? "char" : "plain" };
  }
  const named = BY_NAME.get(text.toLowerCase());
  if (named) return named;
  const fn = text.match(/^[fF](\d{2})$/);
  const n = fn ? Number(fn[1]) : 0;
  if (n >= 13 && n <= 63) {
    const group = FN_GROUPS[Math.floor((n - 1) / 12)]!;
    return { name: `F${n}`, mux: `${group}F${((n - 1) % 12) + 1}`, kind: "shifted_fn" };
  }
  return null;
}

/** Which modifier sets a base key accepts, as prefixes in canonical order (for messages). */
function allowedPrefixes(base: Base): string[] {
  switch (base.kind) {
    case "special":
      return ["", "C-", "M-", "S-", "C-M-", "C-S-", "M-S-", "C-M-S-"];
    case "plain":
      return ["", "M-"];
    case "space":
      return ["", "C-", "M-", "C-M-"];
    case "char":
      if (controlCode(base.name)) return ["", "C-", "M-", "C-M-"];
      return CTRL_ONLY.has(base.name) ? ["", "C-", "M-"] : ["", "M-"];
    case "shifted_fn":
      return [""];
  }
}

function prefixOf(mods: Set<Mod>): string {
  return (["C", "M", "S"] as const).filter((m) => mods.has(m)).map((m) => `${m}-`).join("");
}

/** A resolved key: its canonical name and the argument tmux's send-keys takes for it. */
export interface ResolvedKey {
  name: string;
  muxKey: string;
}

/**
 * Resolves a key name (`C-c`, `ctrl-c`, `^C`, `Enter`, `esc`, `Up`, `C-Left`, `M-x`, `S-Up`,
 * `C-M-S-Up`, `KPEnter`, `F13`, `x`…) to its canonical name and the multiplexer's key name.
 * Named keys and modifier letters are case-insensitive; a single character is itself (`M-x` ≠ `M-X`).
 * @throws {AppError} KEY_UNKNOWN (not a key name; close matches in the suggestion),
 *   KEY_UNSUPPORTED (a known key with a modifier no terminal has a code for)
 */
export function resolveKey(input: string): ResolvedKey {
  let rest = input === " " ? input : input.trim();
  const mods = new Set<Mod>();
  if (rest.length > 1 && rest.startsWith("^")) {
    mods.add("C");
    rest = rest.slice(1);
  }
  for (let m = rest.match(MODIFIER); m; m = rest.match(MODIFIER)) {
    mods.add(MOD_OF[m[1]!.toLowerCase()]!);
    rest = m[2]!;
  }
  let base = lookupBase(rest);
  if (!base) throw unknownKey(input, rest);
  // Shift+Tab is the back-tab key (tmux has no code for S-Tab itself).
  if (base.name === "Tab" && mods.has("S")) {
    mods.delete("S");
    base = BY_NAME.get("btab")!;
  }
  // C-A and C-a are the same control code; the canonical spelling is lower case.
  if (mods.has("C") && /^[A-Z]$/.test(base.name)) {
    const lower = base.name.toLowerCase();
    base = { ...base, name: lower, mux: lower };
  }
  const prefix = prefixOf(mods);
  const allowed = allowedPrefixes(base);
  if (!allowed.includes(prefix)) throw unsupportedKey(input, prefix, base, allowed);
  return { name: `${prefix}${base.name}`, muxKey: `${prefix}${base.mux}` };
}

function unknownKey(input: string, base: string): AppError {
  const close = closeMatches(base);
  const asText = /\s/.test(input.trim()) || [...base].length > 12 ? "; to type text use pty_send" : "";
  return new AppError("KEY_UNKNOWN", `Cannot send key "${input}": it is not a known key name`, {
    suggestion: `${close.length ? `did you mean ${close.join(", ")}? ` : ""}${KEY_SYNTAX}${asText}`,
    data: { valid: keyNames(), close_matches: close },
  });
}

function unsupportedKey(input: string, prefix: string, base: Base, allowed: string[]): AppError {
  const forms = allowed.map((p) => `${p}${base.name}`).join(", ");
  let hint = `${base.name} can be sent as ${forms}`;
  if (prefix.includes("S-") && !prefix.includes("C-") && /^[a-z]$/.test(base.name)) {
    hint += `; for a capital letter send "${prefix.replace("S-", "")}${base.name.toUpperCase()}"`;
  }
  return new AppError(
    "KEY_UNSUPPORTED",
    `Cannot send key "${input}": a terminal has no code for ${prefix}${base.name} (tmux would type the name as text or send nothing), so nothing was sent`,
    { suggestion: hint, data: { accepted_forms: allowed.map((p) => `${p}${base.name}`) } },
  );
}

/** Up to five known names nearest to what was typed (edit distance ≤ 2, or a shared prefix). */
function closeMatches(text: string): string[] {
  const t = text.toLowerCase();
  if (!t) return [];
  const names = new Map<string, string>();
  for (const [spelling, b] of BY_NAME) names.set(spelling, b.name);
  for (let n = 1; n <= 24; n++) names.set(`f${n}`, `F${n}`);
  const scored: { name: string; d: number }[] = [];
  const limit = t.length <= 3 ? 1 : 2;
  for (const [spelling, name] of names) {
    const prefix = spelling.startsWith(t) || (t.length >= 3 && t.startsWith(spelling));
    const d = prefix ? 0.5 : editDistance(t, spelling);
    if (d <= limit && (prefix || spelling.length >= 3)) scored.push({ name, d });
  }
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return [...new Set(scored.map((s) => s.name))].slice(0, 5);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** One sentence on what `pty_key` accepts, for error suggestions and tool descriptions. */
export const KEY_SYNTAX =
  "keys are tmux names (Enter, Tab, BTab, Escape, Space, BSpace, Delete, Insert, Home, End, PageUp, PageDown, " +
  "Up, Down, Left, Right, F1…F63, KP0…KP9, KPEnter, KP/ KP* KP- KP+ KP.) or one character, with " +
  "modifiers C- (Ctrl), M- (Meta/Alt), S- (Shift) in any order where a terminal has a code: e.g. C-c, M-x, " +
  "C-Left, S-Up, C-M-S-Up, M-Enter, C-Space";

/** The canonical key names (named keys and the C-a…C-z control keys), for error data and descriptions. */
export function keyNames(): string[] {
  return [
    ...NAMED.map((b) => b.name),
    ..."abcdefghijklmnopqrstuvwxyz".split("").map((c) => `C-${c}`),
    "C-\\",
    "C-]",
    "C-@",
    "C-Space",
  ];
}

/**
 * Every canonical name `resolveKey` accepts apart from non-ASCII characters (each of which takes
 * the same forms as `Tab`): the named keys and printable ASCII characters with each modifier set they
 * take, and F13…F63. For tests and documentation.
 */
export function acceptedKeyNames(): string[] {
  const bases: Base[] = [...NAMED];
  for (let c = 33; c < 127; c++) {
    const ch = String.fromCharCode(c);
    bases.push({ name: ch, mux: ch, kind: "char" });
  }
  for (let n = 13; n <= 63; n++) bases.push(lookupBase(`F${n}`)!);
  const out: string[] = [];
  for (const base of bases) {
    for (const prefix of allowedPrefixes(base)) {
      // C-A is spelled C-a: list each control code once.
      if (prefix.startsWith("C-") && /^[A-Z]$/.test(base.name)) continue;
      out.push(`${prefix}${base.name}`);
    }
  }
  return out;
}
