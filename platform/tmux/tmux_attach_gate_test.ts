import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { AttachGate, attachGatePath } from "./tmux_attach_gate.ts";

function later(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("AttachGate: shared holders overlap; an exclusive holder runs alone, from another gate on the file too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ait-gate-" });
  try {
    const path = attachGatePath(`${dir}/tmux.sock`);
    const a = new AttachGate(path);
    const b = new AttachGate(path);
    const events: string[] = [];
    let inside = 0;
    let overlap = 0;
    const shared = (g: AttachGate, tag: string) =>
      g.shared(async () => {
        inside++;
        overlap = Math.max(overlap, inside);
        events.push(`${tag}+`);
        await later(60);
        events.push(`${tag}-`);
        inside--;
      });
    await Promise.all([shared(a, "s1"), shared(b, "s2")]);
    assertEquals(overlap, 2, "two shared holders ran at the same time");

    events.length = 0;
    const x = b.exclusive(async () => {
      events.push("x+");
      await later(80);
      events.push("x-");
    });
    await later(20);
    await Promise.all([x, shared(a, "s3")]);
    assertEquals(events, ["x+", "x-", "s3+", "s3-"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("AttachGate: a holder SIGKILLed while it holds the gate blocks nobody", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ait-gate-" });
  try {
    const path = attachGatePath(`${dir}/tmux.sock`);
    const code = `const f = await Deno.open(${JSON.stringify(path)}, { read: true, write: true, create: true });
await f.lock(true); console.log("held"); await new Promise(() => setInterval(() => {}, 1000));`;
    const child = new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "piped", stderr: "null" }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assertEquals((await reader.read()).value?.trim(), "held");
    let ran = false;
    const waiting = new AttachGate(path).shared(() => Promise.resolve(ran = true));
    await later(100);
    assert(!ran, "the shared holder waits while the other process holds the gate exclusive");
    child.kill("SIGKILL");
    await child.status;
    await waiting;
    assert(ran);
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("AttachGate: where the gate file cannot be made, the work still runs", async () => {
  const gate = new AttachGate("/nonexistent-dir-of-aiterm/tmux.sock.attach.lock");
  assertEquals(await gate.exclusive(() => Promise.resolve(7)), 7);
  assertEquals(await gate.shared(() => Promise.resolve(8)), 8);
});
