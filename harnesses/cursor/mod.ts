/**
 * Cursor CLI (`cursor-agent`, also installed as `agent`): what code outside harnesses/cursor/ may use.
 * The CLI could not be installed where this was written: every fact comes from vendor docs, third-party
 * sources or the project's seeds, and each one is listed with its source in docs/harnesses/cursor.md.
 * Composer models (composer-2.5, composer-2.5-fast) are Cursor models run by this harness, not a
 * harness of their own.
 */
export { cursor } from "./adapter.ts";
export { cursorBinary } from "./launch.ts";
