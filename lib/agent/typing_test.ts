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

/**
 * A pane whose composer is one line, `composer: <text>`: a paste shows after `showAfter` looks, and
 * each Enter takes the text (empties the composer) unless it is one of the first `swallow` Enters.
 * Records, for each key, how many looks had shown the text when it was pressed.
 */
function composerPane(showAfter: number, swallow: number) {
  let composer = "";
  let pending: string | null = null;
  let looks = 0;
  let shownLooks = 0;
  const keys: { key: string; shownLooks: number }[] = [];
  const mux = {
    screen: () => {
      if (pending !== null && ++looks > showAfter) [composer, pending] = [pending, null];
      if (composer !== "") shownLooks++;
      return Promise.resolve(`composer: ${composer}`);
    },
    typeExact: (_n: string, input: { keys: string[] } | { paste: string; bracketed: boolean }) => {
      if ("paste" in input) [pending, looks] = [input.paste, 0];
      else {
        for (const key of input.keys) {
          keys.push({ key, shownLooks });
          if (key === "Enter" && keys.length > swallow) composer = "";
        }
      }
      return Promise.resolve();
    },
  } as unknown as Terminal;
  const adapter = {
    ...getHarness("claude-code")!,
    composerHolds: (screen: string, text: string) => {
      const shown = screen.replace(/^composer: /, "");
      return shown !== "" && text.startsWith(shown);
    },
  } as HarnessAdapter;
  return { input: new PaneInput(mux, "s", adapter), keys };
}

Deno.test("PaneInput.submit() presses Enter once the composer shows the paste, and not again once it left", async () => {
  const pane = composerPane(3, 0);
  assertEquals(await pane.input.submit("hello there"), false);
  assertEquals(pane.keys.map((k) => k.key), ["Enter"]);
  // Pressed only after two looks in a row saw the text (the paste showed on the 4th look).
  assertEquals(pane.keys[0]!.shownLooks, 2);
});

Deno.test("PaneInput.submit() presses a swallowed Enter once more, and reports text that stays", async () => {
  const once = composerPane(0, 1);
  assertEquals(await once.input.submit("hello there"), false);
  assertEquals(once.keys.map((k) => k.key), ["Enter", "Enter"]);
  const stuck = composerPane(0, 5);
  assertEquals(await stuck.input.submit("hello there"), true);
  assertEquals(stuck.keys.map((k) => k.key), ["Enter", "Enter"]);
});

Deno.test("PaneInput.steps(): a shownMs step waits for the text step before it, and gives up after its bound", async () => {
  const pane = composerPane(2, 0);
  await pane.input.steps([{ text: "/model x" }, { shownMs: 1000 }, { key: "Enter" }]);
  assertEquals(pane.keys.map((k) => k.key), ["Enter"]);
  assertEquals(pane.keys[0]!.shownLooks, 2);
  // Text that never shows: the key is still pressed once the bound has passed.
  const never = composerPane(1_000_000, 0);
  await never.input.steps([{ text: "/model x" }, { shownMs: 100 }, { key: "Enter" }]);
  assertEquals(never.keys.map((k) => k.key), ["Enter"]);
  assertEquals(never.keys[0]!.shownLooks, 0);
});
