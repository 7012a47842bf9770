/** Shared piece of the adapters' model catalogs: running the CLI's list command. */
import { runProcess } from "../../platform/mod.ts";

/**
 * Runs `bin args` (no stdin, killed after `timeoutMs`) and returns its stdout.
 * @throws {Error} `<what> failed (exit N): <last three stderr lines>` when it does not succeed
 */
export async function catalogOutput(
  bin: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  what: string,
): Promise<string> {
  const out = await runProcess(bin, { args, env, timeoutMs });
  if (!out.success) {
    const err = out.stderr.trim().split("\n").slice(-3).join(" / ");
    throw new Error(`${what} failed (exit ${out.code}): ${err}`);
  }
  return out.stdout;
}
