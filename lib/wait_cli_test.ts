import { assertEquals } from "../tests/helpers/assert.ts";
import { MAX_WAIT_TIMEOUT_S, parseWaitArgs } from "./wait_cli.ts";

const base = ["--session", "kid", "--cursor", "3"];

Deno.test("aiterm-wait arguments: defaults, generation, report-now and the cap itself", () => {
  assertEquals(parseWaitArgs(base), { session: "kid", cursor: 3, generation: null, timeoutS: 600 });
  assertEquals(parseWaitArgs([...base, "--generation", "0123456789ab", "--timeout", "0"]), {
    session: "kid",
    cursor: 3,
    generation: "0123456789ab",
    timeoutS: 0,
  });
  assertEquals(
    (parseWaitArgs([...base, "--timeout", String(MAX_WAIT_TIMEOUT_S)]) as { timeoutS: number }).timeoutS,
    86400,
  );
  assertEquals((parseWaitArgs([...base, "--timeout=1.5"]) as { timeoutS: number }).timeoutS, 1.5);
  assertEquals(parseWaitArgs(["-h"]), "help");
});

Deno.test("aiterm-wait arguments: every malformed, repeated or out-of-range input is a usage error", () => {
  const bad: [string[], RegExp][] = [
    [[...base, "--session", "other"], /--session was given more than once/],
    [[...base, "--timeout", "5", "--timeout=9"], /--timeout was given more than once/],
    [[...base, "--timeout", "86400.5"], /above the cap of 86400/],
    [[...base, "--timeout", "1e3"], /number of seconds/],
    [[...base, "--timeout", "-1"], /./],
    [["--cursor", "0"], /--session is required/],
    [["--session", "kid"], /--cursor is required/],
    [["--session", "bad id", "--cursor", "0"], /--session must match/],
    [["--session", "kid", "--cursor", "1.0"], /whole number/],
    [[...base, "--generation", "xyz"], /12 hex digits/],
    [[...base, "extra"], /./],
    [[...base, "--unknown"], /./],
  ];
  for (const [args, want] of bad) {
    const r = parseWaitArgs(args);
    const usage = typeof r === "object" && "usage" in r ? r.usage : "";
    if (!want.test(usage)) throw new Error(`${args.join(" ")}: got ${JSON.stringify(r)}`);
  }
});
