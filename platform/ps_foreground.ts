/**
 * The foreground of a terminal where there is no /proc (macOS, the BSDs), from one
 * `ps -t <tty> -o pid=,pgid=,tpgid=,stat=,wchan=,comm=`: which processes form the terminal's foreground group,
 * their state letter, and the wait channel (wait message) each sleeps on. Pure: the reader is `foregroundOf` in
 * process.ts; tests/fixtures/ps_foreground/ holds recorded outputs.
 *
 * What the columns can prove:
 * - state `R` (runnable) or `U`/`D` (uninterruptible) for a member: the group is working, not waiting; `T`: stopped.
 * - wait channel `ttyin`: the member sleeps in the kernel's terminal read (BSD `ttread`), the only channel that
 *   means "reading the terminal". `ttyout`/`ttywri`: blocked writing to it.
 * - `select`, `poll`, `kqread`: waiting on descriptors ps does not name (the terminal may be one of them): cannot tell.
 * - any other named channel (`nanslp`, `piperd`, `sbwait`, `pause`, `wait`…): waiting on something that is not a
 *   terminal read.
 * - `-` (no channel reported): cannot tell. macOS's kernel fills no wait channel in the process table it gives ps
 *   (xnu bsd/kern/kern_sysctl.c leaves `e_wmesg` and `p_wchan` empty), so there `ps -o wchan` is `-` for every
 *   process and only the states decide: a verdict of "waiting" then never comes from ps, and the caller falls back
 *   to the terminal's modes and, last, the program's name — reported as a guess.
 */
import { type Activity, type InputWaitVerdict, verdictOf } from "./input_wait.ts";

/** One row of the `ps` listing. */
export interface PsRow {
  pid: number;
  pgid: number;
  /** The foreground process group of the process's controlling terminal. */
  tpgid: number;
  /** The state letters (`S+`, `R+`, `Ss`, `T`, `I+`…). */
  stat: string;
  /** The wait channel (wait message); `-` or empty when ps reports none. */
  wchan: string;
  /** The program's name (the last path component; a login shell's leading `-` removed). */
  name: string;
}

/** The `ps` options that give {@link parsePsRows} its input (after `-t <tty>`). */
export const PS_FOREGROUND_COLUMNS = ["-o", "pid=,pgid=,tpgid=,stat=,wchan=,comm="] as const;

/** Parses the rows of `ps -o pid=,pgid=,tpgid=,stat=,wchan=,comm=` (comm may hold spaces: it is last). */
export function parsePsRows(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split("\n")) {
    const m = line.trim().match(/^(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(\S+)\s+(.+)$/);
    if (!m) continue;
    const comm = m[6]!.trim();
    rows.push({
      pid: Number(m[1]),
      pgid: Number(m[2]),
      tpgid: Number(m[3]),
      stat: m[4]!,
      wchan: m[5]!,
      name: comm.split("/").pop()!.replace(/^-/, ""),
    });
  }
  return rows;
}

/** Wait channels of a wait on descriptors that may include the terminal (select, poll, kqueue). */
const MULTIPLEX_CHANNELS = /^(select|poll|kqread|kqueue|kevent)$/;
/** Wait channels of a write to the terminal that is blocked. */
const TTY_WRITE_CHANNELS = /^(ttyout|ttywri|ttoutq)$/;

function classifyRow(r: PsRow): { activity: Activity; detail: string } {
  const state = r.stat[0] ?? "";
  if (state === "Z") return { activity: "gone", detail: "exited" };
  if (state === "T") return { activity: "stopped", detail: "stopped by a signal" };
  if (state === "R" || state === "U" || state === "D") {
    return { activity: "running", detail: `state ${r.stat} (ps)` };
  }
  const w = r.wchan;
  if (w === "ttyin") return { activity: "tty_input", detail: "read on the terminal (ps wait channel ttyin)" };
  if (TTY_WRITE_CHANNELS.test(w)) return { activity: "running", detail: `writing to the terminal (${w})` };
  if (w === "-" || w === "" || w === "0") {
    return { activity: "unknown", detail: `sleeping, no wait channel reported (state ${r.stat})` };
  }
  if (MULTIPLEX_CHANNELS.test(w)) return { activity: "maybe_input", detail: `waiting in ${w}, descriptors unknown` };
  if (w === "wait") return { activity: "waiting_child", detail: "waiting for a child" };
  return { activity: "other_wait", detail: `sleeping in ${w}, not a terminal read` };
}

/** The foreground of a terminal as `ps` shows it. */
export interface PsForeground {
  /** The group leader (or, when it has exited, the first member). */
  leader: PsRow;
  /** The foreground process group. */
  pgrp: number;
  /** Same meaning and same rules as classifyInputWait's verdict (platform/input_wait.ts). */
  verdict: InputWaitVerdict;
}

/**
 * The foreground group among `rows` (a terminal's processes) and whether it waits for terminal input: true only when
 * a member sleeps in a terminal read (`ttyin`) and none runs; false when one runs or is stopped, or every member
 * sleeps on something else; null when the channels cannot tell (`-`, select, poll, kqueue). Null when no row belongs
 * to the foreground group.
 */
export function classifyPsForeground(rows: PsRow[]): PsForeground | null {
  const tpgid = rows.find((r) => r.tpgid > 0)?.tpgid ?? 0;
  if (tpgid <= 0) return null;
  const members = rows.filter((r) => r.pgid === tpgid).sort((a, b) => a.pid - b.pid);
  const leader = members.find((r) => r.pid === tpgid) ?? members[0];
  if (!leader) return null;
  const verdict = verdictOf(members.map((r) => ({ pid: r.pid, name: r.name, ...classifyRow(r) })));
  return { leader, pgrp: tpgid, verdict };
}
