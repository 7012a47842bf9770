/**
 * What the vendor folders share: the adapter contract (types.ts) and the helpers every adapter builds
 * on (screen reading, numbered options, JSONL transcripts). Code outside harnesses/common/ imports this file.
 */
export * from "./approval.ts";
export * from "./jsonl.ts";
export * from "./screen.ts";
export * from "./types.ts";
export * from "./catalog.ts";
export * from "./launch.ts";
export * from "./transcript.ts";
