/**
 * Grok Build as an AI client of aiterm: what code outside harnesses/grok/client/ may use (its registration
 * and, for the clients that can be a delivery parent, its parent integration and hooks). Kept apart from
 * the child adapter (harnesses/grok/mod.ts) so aiterm-wait, which needs only the adapter, loads none of it.
 */
export { grokClient } from "./register.ts";
