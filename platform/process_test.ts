import { assertEquals } from "../tests/helpers/assert.ts";
import { processEnvVar } from "./process.ts";

Deno.test("processEnvVar reads another process's start-up environment (Linux), null when absent", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  const child = new Deno.Command("sleep", {
    args: ["30"],
    env: { AITERM_PROBE_VAR: "a=b c" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    assertEquals(processEnvVar(child.pid, "AITERM_PROBE_VAR"), "a=b c");
    assertEquals(processEnvVar(child.pid, "AITERM_NO_SUCH_VAR"), null);
    assertEquals(processEnvVar(2 ** 22 + 7, "PATH"), null);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
});
