import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import type { AggregateEntry } from "./store.ts";
import { CommandReporter, REPORT_SCHEMA, type Reporter, reporterFromConfig, RuntimeErrorRecorder } from "./reporter.ts";
import { RuntimeErrorStore } from "./store.ts";

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir();
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("reporterFromConfig(): nothing unless explicitly configured with an absolute command", () => {
  assertEquals(reporterFromConfig(null), { kind: "none" });
  assertEquals(reporterFromConfig(""), { kind: "none" });
  assertEquals(reporterFromConfig("https://collector.example/errors"), { kind: "invalid" });
  assertEquals(reporterFromConfig("command:relative/path"), { kind: "invalid" });
  assertEquals(reporterFromConfig("command:/usr/local/bin/report").kind, "command");
});

Deno.test("a recorder without a reporter only records", async () => {
  await withRoot(async (root) => {
    const recorder = RuntimeErrorRecorder.fromEnv({ AITERM_STATE_DIR: root });
    assert(await recorder.record("AITERM.INTERNAL"));
    await recorder.flush();
    assertEquals((await recorder.store.summary()).seq, 1);
  });
});

Deno.test("a configured reporter gets the validated entries; its failures never reach the caller", async () => {
  await withRoot(async (root) => {
    const seen: AggregateEntry[][] = [];
    const reporter: Reporter = {
      report: (entries) => {
        seen.push([...entries]);
        return seen.length === 1 ? Promise.reject(new Error("collector down")) : Promise.resolve();
      },
    };
    const recorder = new RuntimeErrorRecorder(new RuntimeErrorStore(root), reporter);
    assert(await recorder.record("AITERM.INTERNAL"));
    await recorder.flush();
    assert(await recorder.record("AITERM.INTERNAL"));
    assert(await recorder.record("AITERM.PTY_BACKEND_FAILED"));
    await recorder.flush();
    assert(seen.length >= 2 && seen.length <= 3, `deliveries coalesce: ${seen.length}`);
    const last = seen[seen.length - 1]!;
    assertEquals(last.map((e) => [e.code, e.count]), [["AITERM.PTY_BACKEND_FAILED", 1], ["AITERM.INTERNAL", 2]]);
  });
});

Deno.test({
  name: "CommandReporter pipes the report to a local program and kills it on timeout",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await withRoot(async (root) => {
      const store = new RuntimeErrorStore(root);
      await store.record("AITERM.TRANSCRIPT_UNREADABLE");
      const snap = await store.snapshot();
      const script = `${root}/report.sh`;
      Deno.writeTextFileSync(script, `#!/bin/sh\ncat > "${root}/received.json"\n`, { mode: 0o700 });
      await new CommandReporter(script).report(snap.entries);
      const got = JSON.parse(Deno.readTextFileSync(`${root}/received.json`));
      assertEquals(got, { schema: REPORT_SCHEMA, entries: snap.entries });

      const slow = `${root}/slow.sh`;
      Deno.writeTextFileSync(slow, "#!/bin/sh\nexec sleep 30\n", { mode: 0o700 });
      const started = performance.now();
      let failed = false;
      await new CommandReporter(slow, 200).report(snap.entries).catch(() => (failed = true));
      assert(failed && performance.now() - started < 5000, "timed out and killed");
      let missing = false;
      await new CommandReporter(`${root}/none`).report([]).catch(() => (missing = true));
      assert(missing);
    });
  },
});
