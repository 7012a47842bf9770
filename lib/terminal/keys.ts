/** Named keys for `pty_key`: the only way a key press reaches a terminal. Unknown names are refused. */
import { AppError } from "../errors.ts";

/** Canonical key name → multiplexer key name. */
const KEYS: Record<string, string> = {
  "Enter": "Enter",
  "Tab": "Tab",
  "BTab": "BTab",
  "Escape": "Escape",
  "Space": "Space",
  "BSpace": "BSpace",
  "Delete": "DC",
  "Insert": "IC",
  "Home": "Home",
  "End": "End",
  "PageUp": "PPage",
  "PageDown": "NPage",
  "Up": "Up",
  "Down": "Down",
  "Left": "Left",
  "Right": "Right",
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`F${i + 1}`, `F${i + 1}`])),
  ...Object.fromEntries("abcdefghijklmnopqrstuvwxyz".split("").map((c) => [`C-${c}`, `C-${c}`])),
  "C-\\": "C-\\",
  "C-]": "C-]",
  "C-@": "C-@",
  "C-Space": "C-Space",
};

/** Lower-cased aliases → canonical names. */
const ALIASES: Record<string, string> = {
  "return": "Enter",
  "cr": "Enter",
  "esc": "Escape",
  "bs": "BSpace",
  "backspace": "BSpace",
  "del": "Delete",
  "pgup": "PageUp",
  "pgdn": "PageDown",
  "shift-tab": "BTab",
  "s-tab": "BTab",
};

function canonicalIndex(): Map<string, string> {
  const index = new Map<string, string>();
  for (const name of Object.keys(KEYS)) index.set(name.toLowerCase(), name);
  for (const [alias, name] of Object.entries(ALIASES)) index.set(alias, name);
  return index;
}
const INDEX = canonicalIndex();

/** Every canonical key name, for error messages and the tool description. */
export function keyNames(): string[] {
  return Object.keys(KEYS);
}

/**
 * Resolves a key name or alias (`ctrl-c`, `C-c`, `^C`, `enter`, `esc`, `up`…) to the canonical name
 * and the multiplexer's key name.
 * @throws {AppError} KEY_UNKNOWN
 */
export function resolveKey(input: string): { name: string; muxKey: string } {
  let k = input.trim().toLowerCase();
  const ctrl = k.match(/^(?:ctrl|control|c)[-+](.+)$/) ?? k.match(/^\^(.)$/);
  if (ctrl) k = `c-${ctrl[1]}`;
  const name = INDEX.get(k);
  if (!name) {
    throw new AppError("KEY_UNKNOWN", `Cannot send key "${input}": it is not a known key name`, {
      suggestion: `use one of ${keyNames().filter((n) => !/^C-[b-y]$|^F\d/.test(n)).join(", ")}, C-a…C-z, F1…F12`,
      data: { valid: keyNames() },
    });
  }
  return { name, muxKey: KEYS[name]! };
}
