/** The product version. The only place it is written; `scripts/compile.ts` and the server read it here. */
export const VERSION = "0.1.0";
/** The MCP server name announced in `initialize`. */
export const SERVER_NAME = "aiterm";
