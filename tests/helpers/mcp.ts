// Moved to devkit/ (shared with bench/, which may not import tests/).
export * from "../../devkit/mcp.ts";
