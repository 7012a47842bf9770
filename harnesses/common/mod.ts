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
export * from "./parent.ts";
export * from "./host.ts";
export * from "./json_edit.ts";
export * from "./config_file.ts";
export * from "./register.ts";
export * from "./register_json.ts";
export * from "./hook_json.ts";
export * from "./hook_status.ts";
