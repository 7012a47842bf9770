import { assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import type { HarnessAdapter, LaunchSpec } from "../../harnesses/mod.ts";
import { claude } from "../../harnesses/claude/mod.ts";
import { cursor } from "../../harnesses/cursor/mod.ts";
import { grok } from "../../harnesses/grok/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import { confirmFast } from "./fast.ts";

const rule = "─".repeat(60);
const FAST_SCREEN = `${
  rule.slice(0, 50)
} ↯ /fast ─\n❯ \n${rule}\n  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents`;
const SLOW_SCREEN = `${rule}\n❯ \n${rule}\n  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents`;

/** A terminal whose screen is `screen` (all confirmFast reads). */
function term(screen: string): Terminal {
  return { screen: () => Promise.resolve(screen) } as unknown as Terminal;
}
const spec = (fastBy: LaunchSpec["fastBy"]): LaunchSpec => ({
  argv: [],
  env: {},
  writeScopeEnforcement: null,
  pinnedSessionId: null,
  noticeChannel: null,
  fastBy,
});
const READY = { status: "ready" as const, reason: "input_accepted" };

Deno.test("confirmFast(): fast:true by a launch option is true only when the ready screen shows it", async () => {
  assertEquals(
    await confirmFast(term(FAST_SCREEN), "s", {
      adapter: claude,
      input: { fast: true },
      spec: spec("launch_option"),
      startup: READY,
    }),
    {
      fast: true,
      error: null,
    },
  );
  const slow = await confirmFast(term(SLOW_SCREEN), "s", {
    adapter: claude,
    input: { fast: true },
    spec: spec("launch_option"),
    startup: READY,
  });
  assertEquals([slow.fast, slow.error?.code], [false, "FAST_MODE_UNCONFIRMED"]);
  assertStringIncludes(slow.error!.message, "normal speed");
  const blocked = await confirmFast(term(FAST_SCREEN), "s", {
    adapter: claude,
    input: { fast: true },
    spec: spec("launch_option"),
    startup: {
      status: "blocked",
      reason: "trust_required",
    },
  });
  assertEquals(blocked.fast, false);
  assertStringIncludes(blocked.error!.message, "trust_required");
});

Deno.test("confirmFast(): a fast model variant is fast; no means to switch is unconfirmed; fast omitted or false", async () => {
  assertEquals(
    await confirmFast(term(""), "s", {
      adapter: cursor,
      input: { fast: true },
      spec: spec("model_variant"),
      startup: READY,
    }),
    {
      fast: true,
      error: null,
    },
  );
  const none = await confirmFast(term(""), "s", {
    adapter: grok as HarnessAdapter,
    input: { fast: true },
    spec: spec(null),
    startup: READY,
  });
  assertEquals([none.fast, none.error?.code], [false, "FAST_MODE_UNCONFIRMED"]);
  // Omitted: a fast model id given directly is the seat's speed; false is normal speed, no error.
  assertEquals(
    await confirmFast(term(""), "s", {
      adapter: cursor,
      input: { model: "composer-2.5-fast" },
      spec: spec(null),
      startup: READY,
    }),
    {
      fast: true,
      error: null,
    },
  );
  assertEquals(
    await confirmFast(term(FAST_SCREEN), "s", {
      adapter: claude,
      input: { fast: false },
      spec: spec(null),
      startup: READY,
    }),
    {
      fast: false,
      error: null,
    },
  );
});
