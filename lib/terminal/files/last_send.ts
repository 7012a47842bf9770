/** What the completion engine needs to know about the last send to a session. */

/** `sessions/<id>/lastcmd.json`. */
export interface LastSend {
  /** The text as the caller sent it (for choosing a reducer), at most 4 KiB. */
  text: string;
  at: string;
  /** Log offset just before the send. */
  cursor: number;
  /** Sentinel nonce when sent with `mark`. */
  nonce: string | null;
  /** Dialect of the sentinel. */
  mark_dialect: "posix" | "pwsh" | null;
  /** The exact sentinel suffix typed (so reads can hide it from the echoed line). */
  mark_suffix: string | null;
  /**
   * The foreground process the marked send was typed into (pid and start identity, platform/process.ts): once it
   * is gone the sentinel can never come, and waits stop requiring it. Null when unmarked or not known (absent in
   * records written before this field).
   */
  mark_process?: { pid: number; start: string | null } | null;
}
