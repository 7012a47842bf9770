/**
 * OpenAI Codex CLI (`codex`): what code outside harnesses/codex/ may use. Facts, with where each was
 * verified: docs/harnesses/codex-cli.md.
 */
export { codex } from "./adapter.ts";
export { codexBinary } from "./launch.ts";
