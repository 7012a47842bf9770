/** Grok Build's prompt queue and where a steer's text is. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, TESTDATA } from "../common/test_kit.ts";
import { grokQueue, grokQueueRowShows, grokSteerPlace } from "./queue.ts";

const dir = new URL("grok/", TESTDATA);
const screen = (name: string) => screenIn(dir, name);

const IDLE_TAIL =
  "\n  ╭────────────────╮\n  │ ❯              │\n  ╰──── Mock ──────╯\n  Shift+Tab:mode  │  Ctrl+x:shortcuts";

Deno.test("grokQueue() reads the queued rows and the send-now footer (real 1.0.41)", () => {
  assertEquals(grokQueue(screen("real-08-queued")), { rows: ["steer text here"], sendNow: true });
  const two = grokQueue(screen("real-09-queued-two"));
  assertEquals(two.rows.length, 2);
  assertEquals(two.rows[0], "a multi line steer (+2 lines)");
  assert(two.rows[1]!.endsWith("word…"), two.rows[1]);
  assertEquals(grokQueue(screen("real-04-busy")), { rows: [], sendNow: false });
  assertEquals(grokQueue(screen("real-05-after-slow")), { rows: [], sendNow: false });
  // A `#1 …` line of the conversation far above the in-progress line is not a queue row.
  const convo = "     ❯ list\n    #1 first item of an answer\n     more answer\n     Worked for 1s\n" +
    "    ⠧ Waiting for response… 2.9s\n" + IDLE_TAIL;
  assertEquals(grokQueue(convo).rows, []);
});

Deno.test("grokQueueRowShows() matches the first line, a cut-off row and the (+N lines) suffix", () => {
  assert(grokQueueRowShows("steer text here", "steer text here"));
  assert(grokQueueRowShows("a multi line steer (+2 lines)", "a multi line steer\nsecond\nthird"));
  assert(grokQueueRowShows("another queued item: word word…", "another queued item: word word word END"));
  assert(!grokQueueRowShows("steer text here", "steer text"));
  assert(!grokQueueRowShows("other text…", "steer text here"));
  assert(!grokQueueRowShows("…", "anything"));
});

Deno.test("grokSteerPlace() says queued only for the first row with Enter:send now", () => {
  assertEquals(grokSteerPlace(screen("real-08-queued"), "steer text here"), "queued");
  const long = "another queued item that is fairly long: " + "word ".repeat(60) + "END";
  assertEquals(
    grokSteerPlace(screen("real-09-queued-two"), "a multi line steer\nsecond line of it\nthird line"),
    "queued",
  );
  assertEquals(grokSteerPlace(screen("real-09-queued-two"), long), "queued_behind");
  assertEquals(grokSteerPlace(screen("real-08-queued"), "something else"), "unseen");
  assertEquals(grokSteerPlace(screen("real-04-busy"), "steer text here"), "unseen");
  assertEquals(grokSteerPlace(screen("grok-17-ctrlc-cancel"), "SLOW cancel via ctrl-c"), "composer");
  // Without the send-now footer (text typed in the composer) Enter would not send the row now.
  const typed = screen("real-08-queued").replace("Enter:send now", "Enter:queue");
  assertEquals(grokSteerPlace(typed, "steer text here"), "queued_behind");
});
