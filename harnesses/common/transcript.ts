/** Shared pieces of the adapters' transcript rules: the vendor's home folder, text blocks, a new turn. */
import { join } from "node:path";
import { isRecord } from "./jsonl.ts";
import type { TranscriptTurn } from "./types.ts";

/** The user's home folder from `env` (HOME, else USERPROFILE); "" when neither is set. */
export function homeOf(env: Record<string, string | undefined>): string {
  return env.HOME ?? env.USERPROFILE ?? "";
}

/** The vendor's folder: `env[variable]` when set, else `~/<dotName>`; "" when neither can be derived. */
export function vendorDir(env: Record<string, string | undefined>, variable: string, dotName: string): string {
  const home = homeOf(env);
  return env[variable] || (home ? join(home, dotName) : "");
}

/** The texts of the `{ type: "text", text }` blocks of a message's content (none when it is no array). */
export function textBlocks(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.filter((b) => isRecord(b) && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string);
}

/** A turn that has just started: no answer or error yet. */
export function runningTurn(turnId: string, index: number, prompt: string | null): TranscriptTurn {
  return { turnId, index, prompt, status: "running", answer: null, error: null };
}
