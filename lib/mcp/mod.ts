/** The MCP layer's way in. */
export { callTool, createServer, toolListing } from "./server.ts";
export type { ToolDeps } from "./tool.ts";
export { RemoteRelay } from "./relay.ts";
export { LineTransport, MAX_REQUEST_BYTES } from "./stdio_transport.ts";
export { type CallToolResult, Client, StdioClientTransport } from "./sdk.ts";
