/** Shared pieces of the adapters' launch rules: write_scope enforcement and the binary lookup. */
import { join } from "node:path";
import { findExecutable } from "../../platform/mod.ts";
import type { BinarySpec, LaunchSpec } from "./types.ts";

/**
 * Applies write_scope to a launch command line: "read-only" appends the CLI's read-only arguments and
 * is enforced; any other declaration cannot be enforced; null (not given) says nothing.
 */
export function applyWriteScope(
  argv: string[],
  writeScope: string | null,
  readOnlyArgs: string[],
): LaunchSpec["writeScopeEnforcement"] {
  if (writeScope === "read-only") {
    argv.push(...readOnlyArgs);
    return "enforced_read_only";
  }
  return writeScope === null ? null : "declaration_only_unsupported";
}

/** Resolves a harness binary: env override, then vendor standard paths, then PATH. Null when absent. */
export function resolveBinary(spec: BinarySpec, env: Record<string, string | undefined>): string | null {
  const override = env[spec.envOverride];
  if (override) return findExecutable(override, env.PATH);
  const home = env.HOME ?? "";
  for (const p of spec.standardPaths) {
    if (p.startsWith("~/") && !home) continue;
    const found = findExecutable(p.startsWith("~/") ? join(home, p.slice(2)) : p, undefined);
    if (found) return found;
  }
  for (const name of spec.pathNames) {
    const found = findExecutable(name, env.PATH);
    if (found) return found;
  }
  return null;
}
