/** Where Grok Build keeps a launch's session folder and its `updates.jsonl` transcript. */
import { join } from "node:path";
import { homeOf, realPathOr } from "../common/mod.ts";
import type { TranscriptContext } from "../common/mod.ts";

/** Percent-encodes a path the way Grok Build names its per-cwd session folder (RFC 3986 unreserved kept). */
export function grokCwdKey(cwd: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(cwd)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** GROK_HOME, else `~/.grok` (the CLI canonicalises it; so does this). */
async function grokHome(env: Record<string, string | undefined>): Promise<string | null> {
  if (env.GROK_HOME) return await realPathOr(env.GROK_HOME);
  const home = homeOf(env);
  return home ? join(await realPathOr(home), ".grok") : null;
}

/**
 * The session folder of a launch: `<GROK_HOME>/sessions/<percent-encoded realpath cwd>/<session id>/`.
 * Shared by the turn waiter and the answer reader (both go through {@link locateGrokTranscript}).
 */
export async function grokSessionDir(
  env: Record<string, string | undefined>,
  cwd: string,
  sessionId: string,
): Promise<string | null> {
  const home = await grokHome(env);
  if (!home) return null;
  return join(home, "sessions", grokCwdKey(await realPathOr(cwd)), sessionId);
}

/** `updates.jsonl` of the pinned session (empty before the CLI created it, or without a pinned id). */
export async function locateGrokTranscript(ctx: TranscriptContext): Promise<string[]> {
  if (!ctx.pinnedSessionId) return [];
  const dir = await grokSessionDir(ctx.env, ctx.cwd, ctx.pinnedSessionId);
  if (!dir) return [];
  const path = join(dir, "updates.jsonl");
  try {
    return (await Deno.stat(path)).isFile ? [path] : [];
  } catch {
    return [];
  }
}
