/**
 * Helpers for the approval dialogs and pickers of the adapters that number their options: numbered
 * option lists read from the bottom of a screen, and the mapping of option labels onto choice ids.
 */
import { lineAt, prevNonEmpty } from "./screen.ts";
import type { ApprovalChoice, ApprovalDialog, ApprovalKind, KeyStep } from "./types.ts";

/** One numbered option line (`› 2. No, and tell Codex what to do differently (esc)`). */
export interface OptionLine {
  /** Index of the line in the screen's lines. */
  line: number;
  /** The number shown in front of it. */
  number: number;
  /** The label: the first column, without the key hint in parentheses at its end. */
  label: string;
  /** The selection marker is on this line. */
  marked: boolean;
}

/** Escapes `s` for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The block of numbered options whose last line is `last` (read upwards while lines are options), in
 * screen order. The numbers must run 1, 2, 3 … without gaps; null otherwise or when `last` is no option.
 */
export function optionLines(lines: string[], last: number, marker: string): OptionLine[] | null {
  const re = new RegExp(`^\\s*(${escapeRegExp(marker)})?\\s*(\\d{1,2})\\.\\s+(\\S.*?)\\s*$`);
  const found: OptionLine[] = [];
  for (let i = last; i >= 0; i--) {
    const m = lineAt(lines, i).match(re);
    if (!m) break;
    // A description column (two or more spaces) and a trailing key hint are not part of the label.
    const first = (m[3] ?? "").split(/\s{2,}/)[0] ?? "";
    found.unshift({
      line: i,
      number: Number(m[2]),
      label: first.replace(/\s*\((?:[a-z]|esc|shift\+tab|tab|ctrl\+[a-z])\)$/i, "").trim(),
      marked: m[1] !== undefined,
    });
  }
  if (found.length === 0 || found.some((o, k) => o.number !== k + 1)) return null;
  return found;
}

/**
 * An approval choice from an option: the first rule whose pattern matches the label names its id;
 * unknown labels become `other_<n>`. Only approve_once and deny are single-shot.
 */
export function approvalChoice(option: OptionLine, rules: [RegExp, string][]): ApprovalChoice {
  const id = rules.find(([re]) => re.test(option.label))?.[1] ?? `other_${option.number}`;
  return {
    id,
    label: option.label,
    singleShot: id === "approve_once" || id === "deny",
    key: String(option.number),
  };
}

/**
 * The numbered options right above the footer of a dialog that is the live bottom of the screen (the
 * footer, matching `footer`, is the last non-empty line); null when it is not, or no options are there.
 */
export function optionsAboveFooter(lines: string[], footer: RegExp, marker: string): OptionLine[] | null {
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !footer.test(lineAt(lines, foot))) return null;
  return optionLines(lines, prevNonEmpty(lines, foot - 1), marker);
}

/** An approval dialog from its options: choice ids by `rules`, the option the marker is on selected. */
export function approvalDialog(
  kind: ApprovalKind,
  text: string[],
  options: OptionLine[],
  rules: [RegExp, string][],
): ApprovalDialog {
  const selected = options.findIndex((o) => o.marked);
  return {
    kind,
    text,
    choices: options.map((o) => approvalChoice(o, rules)),
    selected: selected >= 0 ? selected : null,
  };
}

/** `steps` with a final Enter (the selection is on the option) replaced by `instead`. */
export function pressInstead(steps: KeyStep[], instead: KeyStep[]): KeyStep[] {
  const last = steps[steps.length - 1];
  if (steps.length === 1 && last && "key" in last && last.key === "Enter") return instead;
  return steps;
}
