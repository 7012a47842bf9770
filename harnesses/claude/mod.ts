/**
 * Claude Code (`claude`): what code outside harnesses/claude/ may use. Facts, with where each was
 * verified: docs/harnesses/claude-code.md.
 */
export { claude } from "./adapter.ts";
export { claudeBinary } from "./launch.ts";
