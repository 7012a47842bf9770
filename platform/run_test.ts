import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { runProcess, runProcessSync } from "./run.ts";

const posix = Deno.build.os !== "windows";
const sanitized = { sanitizeOps: true, sanitizeResources: true };

Deno.test({
  name: "runProcess() returns exit code, output and duration of a program that ends",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    const r = await runProcess("sh", { args: ["-c", "echo out; echo err >&2; exit 3"] });
    assertEquals([r.code, r.signal, r.success, r.timedOut, r.stdout, r.stderr], [
      3,
      null,
      false,
      false,
      "out\n",
      "err\n",
    ]);
    assert(r.durationMs > 0);
  },
});

Deno.test({
  name: "runProcess() feeds input on stdin and honours env with clearEnv",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    const r = await runProcess("/bin/sh", {
      args: ["-c", 'read line; printf "%s:%s:%s" "$line" "$ONLY" "${HOME:-unset}"'],
      input: "hello\n",
      env: { ONLY: "x" },
      clearEnv: true,
    });
    assertEquals(r.stdout, "hello:x:unset");
  },
});

Deno.test({
  name: "runProcess() stops a program at its timeout with SIGTERM",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    const r = await runProcess("sleep", { args: ["30"], timeoutMs: 50 });
    assertEquals([r.timedOut, r.signal, r.success], [true, "SIGTERM", false]);
    assert(r.durationMs < 10_000);
  },
});

Deno.test({
  name: "runProcess() escalates to SIGKILL when the program ignores SIGTERM, and keeps what it printed",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    // The shell ignores TERM and its sleep holds the pipes open after the shell is killed.
    const r = await runProcess("sh", {
      args: ["-c", 'trap "" TERM; echo started; sleep 3; echo never'],
      timeoutMs: 100,
      graceMs: 100,
    });
    assertEquals([r.timedOut, r.signal, r.stdout], [true, "SIGKILL", "started\n"]);
    assert(r.durationMs < 4_000, `did not wait for the orphan (${r.durationMs} ms)`);
  },
});

Deno.test({
  name: "runProcess() with graceMs 0 kills at once; an aborted signal stops it without timedOut",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    const killed = await runProcess("sleep", { args: ["30"], timeoutMs: 20, graceMs: 0 });
    assertEquals([killed.timedOut, killed.signal], [true, "SIGKILL"]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const aborted = await runProcess("sleep", { args: ["30"], signal: ac.signal });
    assertEquals([aborted.timedOut, aborted.signal], [false, "SIGTERM"]);
  },
});

Deno.test({
  name: "runProcess() throws NotFound for a missing program; inherit and null capture nothing",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    let thrown: unknown = null;
    try {
      await runProcess("/nonexistent/aiterm-no-such-program");
    } catch (err) {
      thrown = err;
    }
    assert(thrown instanceof Deno.errors.NotFound, String(thrown));
    const r = await runProcess("true", { stdout: "null", stderr: "null" });
    assertEquals([r.code, r.stdout, r.stderr], [0, "", ""]);
  },
});

Deno.test({
  name: "runProcessSync() returns the same shape",
  ignore: !posix,
  fn: () => {
    const r = runProcessSync("sh", { args: ["-c", "echo hi; exit 2"], stderr: "null" });
    assertEquals([r.code, r.success, r.timedOut, r.stdout, r.stderr], [2, false, false, "hi\n", ""]);
  },
});

Deno.test({
  name: "runProcess: a program still open for writing (ETXTBSY) runs once the writer lets go",
  ignore: !posix,
  ...sanitized,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "ait-run-" });
    try {
      const bin = `${dir}/fresh.sh`;
      const writer = await Deno.open(bin, { write: true, create: true, mode: 0o755 });
      await writer.write(new TextEncoder().encode("#!/bin/sh\necho fresh\n"));
      // While this descriptor is open the kernel refuses to execute the file; it closes a moment later.
      const release = new Promise((resolve) => setTimeout(resolve, 30)).then(() => writer.close());
      const out = await runProcess(bin);
      await release;
      assertEquals([out.code, out.stdout], [0, "fresh\n"]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
