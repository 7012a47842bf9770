/** docs/tools.md is exactly what the server serves (scripts/tools_doc.ts regenerates it). */
import { assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { LEGACY_TOOLS_VAR, renderToolsDoc, type ServedTool } from "../../scripts/tools_doc.ts";

Deno.test({
  name: "docs/tools.md matches the served tools/list (regenerate: deno run -A scripts/tools_doc.ts)",
  ignore: !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    await using legacy = await connect({ ...t.env, [LEGACY_TOOLS_VAR]: "1" });
    const tools = (await c.client.listTools()).tools as ServedTool[];
    const all = (await legacy.client.listTools()).tools as ServedTool[];
    const doc = await Deno.readTextFile(new URL("../../docs/tools.md", import.meta.url));
    assertEquals(doc, renderToolsDoc(tools, all));
  },
});
