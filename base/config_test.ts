import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { AppError } from "./errors.ts";
import {
  CHILD_VAR_MEANINGS,
  CHILD_VARS,
  childVar,
  defaultConfig,
  knobEnv,
  knobFrom,
  KNOBS,
  loadConfig,
} from "./config.ts";

function refused(env: Record<string, string>): AppError {
  try {
    loadConfig(env);
  } catch (err) {
    assert(err instanceof AppError);
    return err;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

Deno.test("loadConfig(): defaults when unset or empty, values when valid", () => {
  const d = defaultConfig();
  assertEquals([d.stateDir, d.log, d.tmuxTransport, d.shellReadyTimeoutMs, d.logKeepSegments], [
    null,
    "info",
    "control",
    15_000,
    8,
  ]);
  assertEquals(loadConfig({ AITERM_LOG: "", AITERM_TMUX_TRANSPORT: "" }), d);
  const c = loadConfig({
    AITERM_STATE_DIR: "/s",
    AITERM_LOG: "debug",
    AITERM_TMUX_TRANSPORT: "cli",
    AITERM_LOG_SEGMENT_BYTES: "1024",
    AITERM_AGENT_STARTUP_TIMEOUT_MS: "5000",
    AITERM_ERROR_REPORTER: "command:/usr/local/bin/report",
    UNRELATED: "x",
  });
  assertEquals([c.stateDir, c.log, c.tmuxTransport, c.logSegmentBytes, c.agentStartupTimeoutMs, c.errorReporter], [
    "/s",
    "debug",
    "cli",
    1024,
    5000,
    "command:/usr/local/bin/report",
  ]);
  assertEquals(knobFrom({ AITERM_PWSH_BIN: "E:\\pwsh.exe" }, "pwshBin"), "E:\\pwsh.exe");
});

Deno.test("loadConfig(): a refused value is CONFIG_INVALID naming the variable, never the default", () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ AITERM_LOG: "verbose" }, "AITERM_LOG", /debug, info, warn, error/],
    [{ AITERM_TMUX_TRANSPORT: "socket" }, "AITERM_TMUX_TRANSPORT", /control, cli/],
    [{ AITERM_SHELL_READY_TIMEOUT_MS: "0" }, "AITERM_SHELL_READY_TIMEOUT_MS", /1 to/],
    [{ AITERM_LOG_KEEP_SEGMENTS: "eight" }, "AITERM_LOG_KEEP_SEGMENTS", /whole number/],
    [{ AITERM_AGENT_STARTUP_TIMEOUT_MS: "1.5" }, "AITERM_AGENT_STARTUP_TIMEOUT_MS", /whole number/],
    [{ AITERM_ERROR_REPORTER: "https://collector.example" }, "AITERM_ERROR_REPORTER", /command:<absolute path>/],
    [{ AITERM_ERROR_REPORTER: "command:relative" }, "AITERM_ERROR_REPORTER", /command:<absolute path>/],
  ];
  for (const [env, variable, why] of cases) {
    const err = refused(env);
    assertEquals([err.code, err.data?.variable], ["CONFIG_INVALID", variable]);
    assert(err.toText().startsWith(`CONFIG_INVALID: ${variable}=`), err.toText());
    assert(why.test(err.message), err.message);
  }
});

Deno.test("KNOBS and CHILD_VARS: AITERM_ names, each once, none in both; every child variable is described", () => {
  const knobs = KNOBS.map((k) => k.name);
  const children = Object.values(CHILD_VARS) as string[];
  for (const n of [...knobs, ...children]) assert(/^AITERM_[A-Z0-9_]+$/.test(n), n);
  assertEquals(new Set([...knobs, ...children]).size, knobs.length + children.length);
  assertEquals(new Set(KNOBS.map((k) => k.key)).size, KNOBS.length);
  assertEquals(Object.keys(CHILD_VAR_MEANINGS).sort(), Object.keys(CHILD_VARS).sort());
  for (const k of KNOBS) {
    assert(k.meaning.length > 10, k.name);
    if (k.default !== null) knobFrom({}, k.key); // every default is a value the knob accepts
  }
});

Deno.test("childVar() and knobEnv()", () => {
  assertEquals(childVar({ AITERM_SESSION_ID: "s1" }, "sessionId"), "s1");
  assertEquals(childVar({}, "lineage"), undefined);
  assertEquals(knobEnv({ stateDir: "/s", log: "warn", tmuxBin: null }), { AITERM_STATE_DIR: "/s", AITERM_LOG: "warn" });
});
