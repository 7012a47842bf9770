/**
 * xAI Grok Build CLI (`grok`): what code outside harnesses/grok/ may use. Facts, with where each was
 * verified: docs/harnesses/grok.md.
 */
export { grok } from "./adapter.ts";
export { grokBinary } from "./launch.ts";
export { classifyGrokScreen, grokComposerText } from "./screen.ts";
export { grokCwdKey } from "./session.ts";
