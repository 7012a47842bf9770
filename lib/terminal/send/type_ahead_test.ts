import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { TypeAhead, type TypeAheadLook } from "./type_ahead.ts";

/** A look whose foreground becomes `program` after `afterMs`, counting its calls. */
function look(shell: number, program: number, afterMs: number, prompt = false) {
  const started = performance.now();
  const calls = { fg: 0, prompt: 0, cursors: [] as number[] };
  const l: TypeAheadLook = {
    foreground: () => {
      calls.fg++;
      return performance.now() - started >= afterMs ? program : shell;
    },
    promptAfter: (cursor) => {
      calls.prompt++;
      calls.cursors.push(cursor);
      return Promise.resolve(prompt);
    },
  };
  return { l, calls };
}

Deno.test("TypeAhead: nothing typed at the shell, nothing to wait for", async () => {
  const t = new TypeAhead();
  const { l, calls } = look(10, 11, 0);
  assertEquals(await t.settle("s", l), 0);
  assertEquals(calls.fg + calls.prompt, 0);
});

Deno.test("TypeAhead: a send after a line waits until a program holds the foreground, once", async () => {
  const t = new TypeAhead();
  t.submitted("s", 123, 10);
  const { l, calls } = look(10, 11, 60);
  const waited = await t.settle("s", l);
  assert(waited >= 50, `waited ${waited} ms`);
  assert(calls.cursors.every((c) => c === 123), "the prompt is looked for after the line's cursor");
  // Settled: the next send does not wait for the same line again.
  const again = look(10, 10, 0);
  assertEquals(await t.settle("s", again.l), 0);
  assertEquals(again.calls.fg, 0);
});

Deno.test("TypeAhead: a new prompt after the line ends the wait at once", async () => {
  const t = new TypeAhead();
  t.submitted("s", 5, 10);
  const { l, calls } = look(10, 11, 10_000, true);
  await t.settle("s", l);
  assertEquals(calls.prompt, 1);
});

Deno.test("TypeAhead: a shell that never takes the line costs at most the bound; a closed session nothing", async () => {
  const t = new TypeAhead();
  t.submitted("gone", 5, 10);
  t.forget("gone");
  assertEquals(await t.settle("gone", look(10, 10, 0).l), 0);
  t.submitted("s", 5, 10);
  const waited = await t.settle("s", look(10, 10, 1e9).l);
  assert(waited >= 1_900, `waited ${waited} ms`);
});
