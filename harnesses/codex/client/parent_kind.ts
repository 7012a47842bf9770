/** The names every Codex-parent file shares. */

/** The record kind of Codex parents. */
export const CODEX_PARENT = "codex";
/** A Codex thread id as `_meta.threadId` and the hooks' session_id carry it. */
export const THREAD_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
