/**
 * PaneInput.steer() against a scripted screen: a stub terminal whose screen changes with the keys it
 * gets, built from real Grok 1.0.41 captures (harnesses/testdata/grok/) and the fake Cursor's layout.
 * Also: the chokepoint sanitises caller text (a bracketed-paste end marker never reaches the pane).
 */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { getHarness, type HarnessAdapter } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import { PaneInput, type SteerTyping } from "./typing.ts";

const grokScreen = (name: string) =>
  Deno.readTextFileSync(new URL(`../../harnesses/testdata/grok/screens/${name}.txt`, import.meta.url));

/** A terminal whose screen is `screens[n]`, n = the number of submit keys seen so far (last one repeats). */
function scripted(screens: (string | string[])[]): { mux: Terminal; keys: string[]; pastes: string[] } {
  const keys: string[] = [];
  let reads = 0;
  const at = () => {
    const s = screens[Math.min(keys.length, screens.length - 1)]!;
    if (typeof s === "string") return s;
    return s[Math.min(reads++, s.length - 1)]!;
  };
  const key = (k: string) => {
    keys.push(k);
    reads = 0;
  };
  const pastes: string[] = [];
  const mux = {
    screen: () => Promise.resolve(at()),
    typeExact: (_n: string, input: { keys: string[] } | { paste: string; bracketed: boolean }) => {
      if ("keys" in input) input.keys.forEach(key);
      else if (!input.bracketed) key(JSON.stringify(input.paste));
      else pastes.push(input.paste);
      return Promise.resolve();
    },
  } as unknown as Terminal;
  return { mux, keys, pastes };
}

/** Steers `text` into session "s" of the stub terminal through the chokepoint. */
function pasteAndSteer(t: Terminal, adapter: HarnessAdapter, id: string, text: string): Promise<SteerTyping> {
  return new PaneInput(t, id, adapter).steer(text);
}

const grok = getHarness("grok-cli")!;
const cursor = getHarness("cursor-cli")!;

Deno.test("PaneInput.steer() presses Grok's send now once the text is first in the queue", async () => {
  const { mux, keys } = scripted([
    grokScreen("real-04-busy"),
    grokScreen("real-08-queued"),
    grokScreen("real-04-busy"),
  ]);
  assertEquals(await pasteAndSteer(mux, grok, "s", "steer text here"), { place: "joined", pressed: true });
  assertEquals(keys, ["Enter", "Enter"]);
});

Deno.test("PaneInput.steer() never presses send now for text queued behind other text", async () => {
  const long = "another queued item that is fairly long: " + "word ".repeat(60) + "END";
  const { mux, keys } = scripted([grokScreen("real-04-busy"), grokScreen("real-09-queued-two")]);
  assertEquals(await pasteAndSteer(mux, grok, "s", long), { place: "queued_behind", pressed: false });
  assertEquals(keys, ["Enter"]);
});

Deno.test("PaneInput.steer() reports text Grok did not queue, and a send now that put it back", async () => {
  const never = scripted([grokScreen("real-04-busy")]);
  assertEquals(await pasteAndSteer(never.mux, grok, "s", "steer text here"), { place: "unseen", pressed: false });
  assertEquals(never.keys, ["Enter"]);
  // "Send now failed. Requeued": the row leaves and comes back.
  const back = [grokScreen("real-04-busy"), grokScreen("real-08-queued")];
  const requeued = scripted([back[0]!, back[1]!, [back[0]!, back[1]!]]);
  assertEquals(await pasteAndSteer(requeued.mux, grok, "s", "steer text here"), { place: "queued", pressed: true });
});

Deno.test("PaneInput.steer() reports Grok composer residue and presses nothing more", async () => {
  const stuck = grokScreen("grok-17-ctrlc-cancel");
  const { mux, keys } = scripted([stuck]);
  assertEquals(await pasteAndSteer(mux, grok, "s", "SLOW cancel via ctrl-c"), { place: "composer", pressed: false });
  assertEquals(keys, ["Enter", "Enter"]); // submit, and the one retry of the final key
});

/** The fake Cursor's layout (tests/fixtures/bin/_fake_cursor.mjs). */
function cursorScreen(followUps: string[], composer = ""): string {
  const lines = [
    "  Cursor Agent v1",
    "  /w",
    "",
    "  ▌ SLOW task",
    "",
    "  ⬢ Working… 2s · 1.2k tokens · ctrl+c to stop",
  ];
  if (followUps.length) {
    lines.push(`  Follow-ups (${followUps.length})`, ...followUps.map((f) => `    › ${f}`), "    enter steer · ↑ edit");
  }
  lines.push("", ` → ${composer || "Add a follow-up"}`, "  composer-2.5 · / commands · @ files · ! shell");
  return lines.join("\n");
}

Deno.test("PaneInput.steer() gives a Cursor follow-up one more enter steer, and reports it if it stays", async () => {
  const enter = JSON.stringify("\x1b[13u");
  const moved = scripted([cursorScreen([]), cursorScreen(["late note"]), cursorScreen([])]);
  assertEquals(await pasteAndSteer(moved.mux, cursor, "s", "late note"), { place: "joined", pressed: false });
  assertEquals(moved.keys, [enter, enter]);
  // Neither the submit's own second Enter nor the steer step moved it.
  const kept = scripted([cursorScreen([]), cursorScreen(["late note"])]);
  assertEquals(await pasteAndSteer(kept.mux, cursor, "s", "late note"), { place: "queued", pressed: true });
  assertEquals(kept.keys, [enter, enter, enter]);
  const composer = scripted([cursorScreen([], "late note")]);
  assertEquals(await pasteAndSteer(composer.mux, cursor, "s", "late note"), { place: "composer", pressed: false });
});

Deno.test("PaneInput.steer() without steer steps trusts the submit (no queue to look at)", async () => {
  const plain: HarnessAdapter = { ...grok, steerSteps: undefined, steerPlace: undefined } as unknown as HarnessAdapter;
  const { mux, keys } = scripted([grokScreen("real-04-busy")]);
  assertEquals(await pasteAndSteer(mux, plain, "s", "anything"), { place: "joined", pressed: false });
  assertEquals(keys, ["Enter"]);
});

Deno.test("the chokepoint sanitises caller text: a bracketed-paste end marker never reaches the pane", async () => {
  const claude = getHarness("claude-code")!;
  const t = scripted(["❯ "]);
  await new PaneInput(t.mux, "s", claude).submit("first line\x1b[201~\nsecond line\x1b]0;title\x07 end");
  assertEquals(t.pastes, ["first line\nsecond line end"]);
  // Harness key steps: a whole escape sequence is a key (typed as is); other text is sanitised.
  const keys = scripted(["x"]);
  await new PaneInput(keys.mux, "s", claude).steps([{ text: "\x1b[13u" }, { text: "/model a\x1b[201~b" }]);
  assertEquals(keys.keys, [JSON.stringify("\x1b[13u"), JSON.stringify("/model ab")]);
});
