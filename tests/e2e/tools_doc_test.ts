/** docs/tools.md is exactly what the server serves (scripts/tools_doc.ts regenerates it). */
import { assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { renderToolsDoc, type ServedTool } from "../../scripts/tools_doc.ts";

Deno.test({
  name: "docs/tools.md matches the served tools/list (regenerate: deno run -A scripts/tools_doc.ts)",
  ignore: !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const c = await connect(t.env);
    try {
      const tools = (await c.client.listTools()).tools as ServedTool[];
      const doc = await Deno.readTextFile(new URL("../../docs/tools.md", import.meta.url));
      assertEquals(doc, renderToolsDoc(tools));
    } finally {
      await c.close();
    }
  },
});
