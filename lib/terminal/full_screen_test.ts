import { assertEquals } from "../../tests/helpers/assert.ts";
import { fullScreenProgram, ScreenSettle } from "./full_screen.ts";

Deno.test("fullScreenProgram(): the alternate screen, or a screen-drawing program that is not busy", () => {
  assertEquals(fullScreenProgram({ alternateOn: true, name: "vim", readingInput: true }), "vim");
  assertEquals(fullScreenProgram({ alternateOn: true, name: "watch", readingInput: false }), "watch");
  // procps top and less -X (git's LESS=FRX) draw on the normal screen; git's pager is a member of its group.
  assertEquals(fullScreenProgram({ alternateOn: false, name: "top", readingInput: true }), "top");
  assertEquals(
    fullScreenProgram({ alternateOn: false, name: "git", members: ["git", "less"], readingInput: true }),
    "less",
  );
  assertEquals(fullScreenProgram({ alternateOn: undefined, name: "less", readingInput: null }), "less");
  // Shells and REPLs on the normal screen stay nested; a busy top (batch mode) is not waiting.
  assertEquals(fullScreenProgram({ alternateOn: false, name: "python3", readingInput: true }), null);
  assertEquals(fullScreenProgram({ alternateOn: false, name: "bash", readingInput: true }), null);
  assertEquals(fullScreenProgram({ alternateOn: false, name: "top", readingInput: false }), null);
});

Deno.test("ScreenSettle: with a log it captures only after output; an identical redraw is no change", async () => {
  const s = new ScreenSettle(500);
  let screen = "a";
  const cap = () => Promise.resolve(screen);
  assertEquals(await s.settled(1000, 900, cap), false); // first capture; stable since the output at 900
  assertEquals(await s.settled(1300, 900, cap), false); // no output since: no capture
  assertEquals(s.captures, 1);
  assertEquals(await s.settled(1400, 900, cap), true);
  // Output that redrew the same screen: captured, still settled from before.
  assertEquals(await s.settled(1500, 1450, cap), true);
  // A real change restarts the window from the output.
  screen = "b";
  assertEquals(await s.settled(1700, 1650, cap), false);
  assertEquals(await s.settled(2150, 1650, cap), true);
  assertEquals(s.captures, 3);
});

Deno.test("ScreenSettle: without a log it polls captures at most every 200 ms", async () => {
  const s = new ScreenSettle(500);
  const cap = () => Promise.resolve("same");
  for (let t = 0; t <= 600; t += 100) await s.settled(t, null, cap);
  assertEquals(s.captures, 4); // 0, 200, 400, 600
  assertEquals(await s.settled(600, null, cap), true);
  // An unreadable screen never settles.
  const gone = new ScreenSettle(500);
  assertEquals(await gone.settled(0, null, () => Promise.resolve(null)), false);
  assertEquals(await gone.settled(1000, null, () => Promise.resolve(null)), false);
});
