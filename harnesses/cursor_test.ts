import { join } from "node:path";
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import {
  answerCursorStartupDialog,
  buildCursorLaunch,
  classifyCursorScreen,
  CSI_U_ENTER,
  cursor,
  cursorComposerHolds,
  cursorComposerText,
  cursorFolderId,
  cursorFollowUps,
  cursorFooterModel,
  locateCursorTranscripts,
  parseCursorModelCatalog,
  parseCursorTurns,
} from "./cursor.ts";
import { getHarness } from "./mod.ts";
import type { ConfigureGoal, LaunchOptions, ScreenState } from "./types.ts";

const dir = new URL("./testdata/cursor/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));
const short = (s: ScreenState) => s.kind === "blocked" ? `blocked:${s.reason}` : s.kind;

const base: LaunchOptions = {
  bin: "/bin/cursor-agent",
  cwd: "/w",
  model: null,
  reasoningEffort: null,
  writeScope: null,
  fast: null,
  images: [],
  sessionUuid: "u",
  notice: null,
};

Deno.test("cursor: registered as cursor-cli; effort needs a model; submit ends with the CSI u Enter", () => {
  assertEquals(getHarness("cursor-cli"), cursor);
  assertEquals([cursor.efforts, cursor.effortRequiresModel, cursor.readOnlyMode], [null, true, true]);
  const texts = cursor.submitSteps.filter((s) => "text" in s);
  assertEquals(texts, [{ text: "\x1b[13u" }, { text: "\x1b[13u" }]);
  assertEquals(CSI_U_ENTER, "\x1b[13u");
  assert(!cursor.submitSteps.some((s) => "key" in s), "a tmux Enter key would send a plain CR");
});

Deno.test("cursor: buildLaunch puts effort in model brackets, fast as the -fast sibling, read-only as --mode ask", () => {
  assertEquals(buildCursorLaunch(base).argv, ["/bin/cursor-agent"]);
  assertEquals(
    buildCursorLaunch({ ...base, model: "claude-opus-4-8", reasoningEffort: "high" }).argv,
    ["/bin/cursor-agent", "--model", "claude-opus-4-8[effort=high]"],
  );
  assertEquals(buildCursorLaunch({ ...base, model: "composer-2.5", fast: true }).argv.slice(1), [
    "--model",
    "composer-2.5-fast",
  ]);
  assertEquals(buildCursorLaunch({ ...base, model: "composer-2.5-fast", fast: true }).argv.slice(2), [
    "composer-2.5-fast",
  ]);
  // The fast variant is the seat's model: fast by its id. No system-prompt option: the notice is typed.
  const fast = buildCursorLaunch({ ...base, model: "composer-2.5", fast: true, notice: "[aiterm] notice" });
  assertEquals([fast.fastBy, fast.noticeChannel, fast.argv.includes("[aiterm] notice")], [
    "model_variant",
    null,
    false,
  ]);
  assertEquals(buildCursorLaunch({ ...base, fast: true }).fastBy, null);
  const ro = buildCursorLaunch({ ...base, writeScope: "read-only" });
  assertEquals([ro.argv.slice(1), ro.writeScopeEnforcement, ro.pinnedSessionId], [
    ["--mode", "ask"],
    "enforced_read_only",
    null,
  ]);
  assertEquals(
    buildCursorLaunch({ ...base, writeScope: "src/" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
});

Deno.test("cursor: screens classify as ready, busy, trust and exited", () => {
  const expected: Record<string, string> = {
    "idle.txt": "ready",
    "trust.txt": "blocked:trust_required",
    "busy.txt": "busy",
    "busy-followups.txt": "busy",
    "composer-residue.txt": "ready",
    "exited.txt": "exited",
  };
  for (const [name, want] of Object.entries(expected)) {
    assertEquals(short(classifyCursorScreen(read(name))), want, name);
  }
  assertEquals(classifyCursorScreen(""), { kind: "starting" });
  assertEquals(classifyCursorScreen("  Cursor Agent\n  loading"), { kind: "starting" });
});

Deno.test("cursor: trust is answered with `a` only with trust_project", () => {
  assertEquals(answerCursorStartupDialog(read("trust.txt"), true), [{ key: "a" }]);
  assertEquals(answerCursorStartupDialog(read("trust.txt"), false), null);
  assertEquals(answerCursorStartupDialog(read("idle.txt"), true), null);
});

Deno.test("cursor: composer text, follow-ups and residue", () => {
  assertEquals(cursorComposerText(read("idle.txt")), "");
  assertEquals(cursorComposerText(read("busy.txt")), "");
  assertEquals(cursorComposerText(read("composer-residue.txt")), "second task line one\nline two");
  assertEquals(cursorFollowUps(read("busy-followups.txt")), ["also consider this"]);
  assert(cursorComposerHolds(read("composer-residue.txt"), "second task line one\nline two and more"));
  assert(cursorComposerHolds(read("busy-followups.txt"), "also consider this"), "an unsteered follow-up is residue");
  assert(!cursorComposerHolds(read("busy.txt"), "also consider this"));
  assert(!cursorComposerHolds(read("idle.txt"), "first task"));
});

Deno.test("cursor: transcript turns: steer joins the open turn, turn_ended closes it once", () => {
  const turns = parseCursorTurns(read("transcript.jsonl"));
  assertEquals(turns.map((t) => [t.turnId, t.index, t.prompt, t.status]), [
    ["g1", 0, "first task", "done"],
    ["g2", 1, "SLOW second", "done"],
    ["g3", 2, "APIERR", "error"],
    ["g4", 3, "stopped", "interrupted"],
    ["g5", 4, "still running", "running"],
  ]);
  assertEquals(turns[0]!.answer, "ANSWER(first task)");
  assertEquals(turns[1]!.answer, "ANSWER(SLOW second) STEERED(also this)");
  assertEquals([turns[2]!.answer, turns[2]!.error], [null, "API Error: 400 invalid request"]);
});

Deno.test("cursor: folder id and transcript location", async () => {
  assertEquals(cursorFolderId("/home/me/my.app/"), "home-me-my-app");
  const root = await Deno.makeTempDir();
  try {
    const cwd = join(root, "proj");
    await Deno.mkdir(cwd);
    const real = await Deno.realPath(cwd);
    const chat = "0b0c5f0e-1111-4222-8333-444455556666";
    const tdir = join(root, "h", ".cursor", "projects", cursorFolderId(real), "agent-transcripts", chat);
    await Deno.mkdir(tdir, { recursive: true });
    await Deno.writeTextFile(join(tdir, `${chat}.jsonl`), "{}\n");
    const ctx = { cwd, env: { HOME: join(root, "h") }, since: 0, pinnedSessionId: null };
    assertEquals(await locateCursorTranscripts(ctx), [join(tdir, `${chat}.jsonl`)]);
    assertEquals(await locateCursorTranscripts({ ...ctx, since: Date.now() + 60_000 }), []);
    assertEquals(await locateCursorTranscripts({ ...ctx, env: { CURSOR_CONFIG_DIR: join(root, "none") } }), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cursor: --list-models folds effort variants and marks fast siblings", () => {
  const catalog = parseCursorModelCatalog(
    [
      "Available models",
      "",
      "auto - Auto",
      "composer-2.5 - Composer 2.5 (default)",
      "composer-2.5-fast - Composer 2.5 Fast",
      "claude-opus-4-8 - Claude Opus 4.8",
      "claude-opus-4-8[effort=low] - Claude Opus 4.8 (low effort)",
      "claude-opus-4-8[effort=high] - Claude Opus 4.8 (high effort) (current)",
      "",
      "Tip: use --model <id> to switch.",
    ].join("\n"),
  );
  assertEquals(catalog.models.map((m) => m.id), ["auto", "composer-2.5", "composer-2.5-fast", "claude-opus-4-8"]);
  const opus = catalog.models.find((m) => m.id === "claude-opus-4-8")!;
  assertEquals([opus.displayName, opus.efforts, opus.defaultEffort], ["Claude Opus 4.8", ["low", "high"], "high"]);
  const composer = catalog.models.find((m) => m.id === "composer-2.5")!;
  assertEquals([composer.fast, composer.displayName], [true, "Composer 2.5"]);
  assertEquals(catalog.defaultModel, "claude-opus-4-8");
});

// ── agent_configure: /model <filter> (docs-only layout, drawn the same way by the fake cursor-agent) ──

const goal = (g: Partial<ConfigureGoal>): ConfigureGoal => ({
  model: null,
  modelLabel: null,
  effort: null,
  currentEffort: null,
  ...g,
});

Deno.test("cursor configure opens /model with the exact id, selects that row only, and reads the footer", () => {
  assertEquals(cursor.configure!.effort, "requires_model");
  const [open, pick] = cursor.configure!.stages(goal({ model: "claude-opus-4-8", effort: "high" }));
  const idle = read("idle.txt");
  assertEquals(cursorFooterModel(idle), "composer-2.5");
  assertEquals(open!.keys(idle), [{ text: "/model claude-opus-4-8[effort=high]" }, { pauseMs: 300 }, {
    text: CSI_U_ENTER,
  }]);
  assertEquals(open!.keys(read("busy.txt")), null);
  assertEquals(open!.check(read("model-picker.txt"), idle), { kind: "next" });
  // The first row is the base model: move to the effort variant; select once the marker is on it.
  assertEquals(pick!.keys(read("model-picker.txt")), [{ key: "Down" }, { key: "Down" }, { pauseMs: 250 }]);
  assertEquals(pick!.check(read("model-picker.txt"), idle), { kind: "again" });
  assertEquals(pick!.keys(read("model-picker-moved.txt")), [{ text: CSI_U_ENTER }]);
  assertEquals(pick!.check(read("model-changed.txt"), idle), {
    kind: "done",
    model: "claude-opus-4-8",
    effort: "high",
    persistedDefault: null,
    message: "the footer shows claude-opus-4-8[effort=high]",
  });
  // Another model in the footer is a refusal; a row that is not listed is not offered.
  const [, other] = cursor.configure!.stages(goal({ model: "composer-2.5" }));
  assertEquals(other!.check(read("model-changed.txt"), idle).kind, "failed");
  const [, absent] = cursor.configure!.stages(goal({ model: "claude-opus-4-8", effort: "max" }));
  assertEquals(absent!.keys(read("model-picker.txt")), null);
  assertEquals(cursor.configure!.leave(read("model-picker.txt")), [{ key: "Escape" }]);
  assertEquals(cursor.configure!.leave(idle), null);
  assertEquals(cursor.configure!.stages(goal({ effort: "high" })), []);
});
