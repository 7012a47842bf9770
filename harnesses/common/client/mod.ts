/**
 * What the client side of the vendor folders shares (harnesses/<vendor>/client/): the parent
 * integration contract, registration, hook files and their edits, config files edited in place, the
 * host facts setup reads. Re-exports harnesses/common/ too, so a client file has one way in.
 */
export * from "../mod.ts";
export * from "./parent.ts";
export * from "./host.ts";
export * from "./json_edit.ts";
export * from "./config_file.ts";
export * from "./register.ts";
export * from "./register_json.ts";
export * from "./hook_json.ts";
export * from "./hook_status.ts";
export * from "./receive.ts";
export * from "./call_limits.ts";
