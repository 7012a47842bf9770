/** What aiterm records about a session it opened (the tmux session itself is the live half). */
import { readJsonFile, writeJsonAtomic } from "../../../state/mod.ts";

/** The session id pattern, shared by every tool. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** `sessions/<id>/meta.json`. */
export interface SessionMeta {
  schema: "aiterm.session.v1";
  id: string;
  /** One generation of content under this id: a new open under the same name gets a new one. */
  generation: string;
  created_at: string;
  /** The shell as asked (`bash`) and as resolved (`/usr/bin/bash`). */
  shell: string;
  shell_path: string;
  /** How multi-line text and sentinels are written for this shell; null = typed as is. */
  dialect: "posix" | "pwsh" | null;
  cwd: string;
  /** Names (never values) of variables copied from the server's environment. */
  env_names: string[];
  /** `osc133` when the shell prints command-end marks (bash, zsh); null otherwise. */
  integration: "osc133" | null;
  /** Log segment size and how many segments are kept. */
  segment_bytes: number;
  keep_segments: number;
  /**
   * `shell`: opened by pty_open (never an agent's session); `program`: opened for a program (an agent CLI). Absent in
   * metas written before it existed: unknown.
   */
  kind?: "shell" | "program";
}

/** Reads a session's meta; null when aiterm has no record of it. */
export async function readMeta(path: string): Promise<SessionMeta | null> {
  try {
    const meta = await readJsonFile<SessionMeta>(path);
    return meta?.schema === "aiterm.session.v1" ? meta : null;
  } catch {
    return null;
  }
}

/** A fresh generation id. */
export function newGeneration(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 12);
}

/** Writes a session's meta atomically. */
export function writeMeta(path: string, meta: SessionMeta): Promise<void> {
  return writeJsonAtomic(path, meta);
}
