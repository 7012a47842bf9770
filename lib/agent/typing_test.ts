/**
 * pasteAndSteer() against a scripted screen: a stub multiplexer whose screen changes with the keys it
 * gets, built from real Grok 1.0.41 captures (harnesses/testdata/grok/) and the fake Cursor's layout.
 */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { getHarness, type HarnessAdapter } from "../../harnesses/mod.ts";
import type { Multiplexer } from "../../platform/mod.ts";
import { pasteAndSteer } from "./typing.ts";

const grokScreen = (name: string) =>
  Deno.readTextFileSync(new URL(`../../harnesses/testdata/grok/screens/${name}.txt`, import.meta.url));

/** A multiplexer whose screen is `screens[n]`, n = the number of submit keys seen so far (last one repeats). */
function scripted(screens: (string | string[])[]): { mux: Multiplexer; keys: string[] } {
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
  const mux = {
    capture: () => Promise.resolve(at()),
    sendKeys: (_n: string, ks: string[]) => Promise.resolve(ks.forEach(key)),
    pasteText: (_n: string, chunks: Uint8Array[], o?: { bracketed?: boolean }) => {
      const text = new TextDecoder().decode(chunks.length === 1 ? chunks[0] : new Uint8Array());
      if (!o?.bracketed) key(JSON.stringify(text));
      return Promise.resolve();
    },
  } as unknown as Multiplexer;
  return { mux, keys };
}

const grok = getHarness("grok-cli")!;
const cursor = getHarness("cursor-cli")!;

Deno.test("pasteAndSteer() presses Grok's send now once the text is first in the queue", async () => {
  const { mux, keys } = scripted([
    grokScreen("real-04-busy"),
    grokScreen("real-08-queued"),
    grokScreen("real-04-busy"),
  ]);
  assertEquals(await pasteAndSteer(mux, grok, "s", "steer text here"), { place: "joined", pressed: true });
  assertEquals(keys, ["Enter", "Enter"]);
});

Deno.test("pasteAndSteer() never presses send now for text queued behind other text", async () => {
  const long = "another queued item that is fairly long: " + "word ".repeat(60) + "END";
  const { mux, keys } = scripted([grokScreen("real-04-busy"), grokScreen("real-09-queued-two")]);
  assertEquals(await pasteAndSteer(mux, grok, "s", long), { place: "queued_behind", pressed: false });
  assertEquals(keys, ["Enter"]);
});

Deno.test("pasteAndSteer() reports text Grok did not queue, and a send now that put it back", async () => {
  const never = scripted([grokScreen("real-04-busy")]);
  assertEquals(await pasteAndSteer(never.mux, grok, "s", "steer text here"), { place: "unseen", pressed: false });
  assertEquals(never.keys, ["Enter"]);
  // "Send now failed. Requeued": the row leaves and comes back.
  const back = [grokScreen("real-04-busy"), grokScreen("real-08-queued")];
  const requeued = scripted([back[0]!, back[1]!, [back[0]!, back[1]!]]);
  assertEquals(await pasteAndSteer(requeued.mux, grok, "s", "steer text here"), { place: "queued", pressed: true });
});

Deno.test("pasteAndSteer() reports Grok composer residue and presses nothing more", async () => {
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

Deno.test("pasteAndSteer() gives a Cursor follow-up one more enter steer, and reports it if it stays", async () => {
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

Deno.test("pasteAndSteer() without steer steps trusts the submit (no queue to look at)", async () => {
  const plain: HarnessAdapter = { ...grok, steerSteps: undefined, steerPlace: undefined } as unknown as HarnessAdapter;
  const { mux, keys } = scripted([grokScreen("real-04-busy")]);
  assertEquals(await pasteAndSteer(mux, plain, "s", "anything"), { place: "joined", pressed: false });
  assertEquals(keys, ["Enter"]);
});
