/**
 * A child process for the store's multi-process tests.
 * `record <state root> <code> <n> [lock timeout ms]`: records n times, prints {"ok":k} (n = 0: forever).
 * `hold <state root>`: takes the writer lock, prints "held", then sleeps until killed.
 */
import { isRuntimeCode } from "../codes.ts";
import { acquireLock } from "../../../state/mod.ts";
import { RuntimeErrorStore } from "../store.ts";

const encoder = new TextEncoder();
const [mode, root, code, count, timeout] = Deno.args;

if (mode === "record" && root && isRuntimeCode(code)) {
  const store = new RuntimeErrorStore(root, { lockTimeoutMs: Number(timeout ?? "60000") });
  const n = Number(count ?? "1");
  let ok = 0;
  for (let i = 0; n === 0 || i < n; i++) {
    if (await store.record(code)) ok++;
  }
  await Deno.stdout.write(encoder.encode(JSON.stringify({ ok }) + "\n"));
} else if (mode === "hold" && root) {
  const store = new RuntimeErrorStore(root);
  Deno.mkdirSync(store.dir, { recursive: true, mode: 0o700 });
  const lock = await acquireLock(store.dir, { timeoutMs: 10_000 });
  await Deno.stdout.write(encoder.encode(lock ? "held\n" : "busy\n"));
  await new Promise(() => setInterval(() => {}, 60_000));
} else {
  Deno.exit(2);
}
