import { assertEquals } from "../../tests/helpers/assert.ts";
import { runRemoteWait } from "./remote_wait.ts";

async function flaky(dir: string, failures: number, finalCode: number): Promise<string> {
  const script = `${dir}/flaky.sh`;
  await Deno.writeTextFile(
    script,
    `#!/bin/sh\nn=$(cat "${dir}/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/n"\n` +
      `if [ $n -le ${failures} ]; then exit 255; fi\nexit ${finalCode}\n`,
  );
  await Deno.chmod(script, 0o755);
  return script;
}

Deno.test("remote-wait re-runs the waiter when ssh fails (255) and passes the waiter's own code through", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = await flaky(dir, 2, 7);
    assertEquals(await runRemoteWait(["--", script], { retryDelayMs: 10 }), 7);
    assertEquals((await Deno.readTextFile(`${dir}/n`)).trim(), "3");
    await Deno.remove(`${dir}/n`);
    const done = await flaky(dir, 0, 0);
    assertEquals(await runRemoteWait(["--", done], { retryDelayMs: 10 }), 0);
    await Deno.remove(`${dir}/n`);
    const down = await flaky(dir, 1000, 0);
    assertEquals(await runRemoteWait(["--", down], { retryDelayMs: 10, budgetMs: 100 }), 3);
    assertEquals(await runRemoteWait([]), 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
