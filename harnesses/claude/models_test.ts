/** Claude Code's model catalog from its `initialize` answer. */
import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { TESTDATA } from "../common/test_kit.ts";
import { parseClaudeInitialize } from "./models.ts";

const dir = TESTDATA;

Deno.test("parseClaudeInitialize() reads the real 2.1.328 initialize answer: ids, resolved ids, efforts, fast", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-2.1.328-initialize.jsonl", dir));
  // Other stream-json lines around the answer are skipped.
  const catalog = parseClaudeInitialize(`{"type":"system","subtype":"init"}\n${text}`);
  assertEquals(catalog.source, "claude-code-initialize");
  assertEquals(catalog.defaultModel, "default");
  assertEquals(
    catalog.models.map((m) => [m.id, m.resolvedModel, m.fast]),
    [
      ["default", "claude-opus-5-5", true],
      ["opus", "claude-opus-5-5", true],
      ["fable", "claude-fable-5-2", true],
      ["sonnet", "claude-sonnet-5-5", false],
      ["haiku", "claude-haiku-5-5", false],
    ],
  );
  assert(catalog.models.every((m) => m.efforts.join() === "low,medium,high,xhigh,max" && !m.hidden));
  assertEquals(catalog.models[1]!.displayName, "Opus");
});

Deno.test("parseClaudeInitialize() refuses output without the answer, another request's answer, or an error", () => {
  const answer = (extra: Record<string, unknown>) =>
    JSON.stringify({
      type: "control_response",
      response: { subtype: "success", request_id: "aiterm-models", response: { models: [] }, ...extra },
    });
  const refused = (stdout: string, part: string) => {
    let err: unknown = null;
    try {
      parseClaudeInitialize(stdout);
    } catch (e) {
      err = e;
    }
    assertStringIncludes(String(err), part);
  };
  refused("", "no answer");
  refused(answer({ request_id: "other" }), "no answer");
  refused(answer({ subtype: "error", error: "nope" }), "nope");
  refused(answer({ response: {} }), "no models");
  assertEquals(parseClaudeInitialize(answer({})).models, []);
});
