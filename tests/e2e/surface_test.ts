/**
 * The tool surface a model pays for (issue 18), measured on the served tools/list through the real MCP
 * SDK client: the budget, the thin aliases, `remote` spelled out once, advertised schemas slimmer than
 * the server's validation (which still refuses what it refused), and pty_read's result shape.
 * Tokens are characters / 4, as in bench/surface.ts.
 */
import { runWaiter, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

/** The budget of issues 18 and 32 (tokens = characters / 4). */
const MODEL_FACING_TOKENS = 4500;
const WHOLE_TOKENS = 12000;
const DESCRIPTION_CHARS = 700;
/** What a typical read or waited send may carry besides its text, in JSON characters (issue 32 item 4). */
const RESULT_OVERHEAD_CHARS = 200;
const ALIASES = ["claude_agent", "codex_agent", "grok_agent", "claude_approval"];

interface Listed {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** What a model reads of one tool: name, description and input schema as sent. */
const modelChars = (t: Listed) => t.name.length + (t.description ?? "").length + JSON.stringify(t.inputSchema).length;

/** Every key name used anywhere in a JSON value (property names included). */
function keysIn(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => keysIn(x, out));
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      out.add(k);
      keysIn(x, out);
    }
  }
  return out;
}

Deno.test("tools/list stays within the surface budget, with short descriptions and no $ref", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const tools = (await c.client.listTools()).tools as Listed[];
  const model = tools.reduce((a, x) => a + modelChars(x), 0) / 4;
  const whole = tools.reduce((a, x) => a + JSON.stringify(x).length, 0) / 4;
  // deno-lint-ignore no-console
  console.log(`surface: ${tools.length} tools, model-facing ${Math.round(model)} tokens, whole ${Math.round(whole)}`);
  assert(model <= MODEL_FACING_TOKENS, `model-facing ${model} tokens > ${MODEL_FACING_TOKENS}`);
  assert(whole <= WHOLE_TOKENS, `whole tools/list ${whole} tokens > ${WHOLE_TOKENS}`);
  for (const tool of tools) {
    const d = tool.description ?? "";
    assert(d.length <= DESCRIPTION_CHARS, `${tool.name}: description of ${d.length} characters`);
    // Purpose first: the description opens with a capitalised verb phrase or says what it is an alias of.
    assertMatch(d, /^(Deprecated alias|Legacy alias|[A-Z][a-z]+ )/, tool.name);
    const keys = keysIn({ i: tool.inputSchema, o: tool.outputSchema });
    for (const k of ["$ref", "$defs", "definitions", "pattern"]) assert(!keys.has(k), `${tool.name} uses ${k}`);
    // No nullable wrappers in what a model reads.
    assert(!JSON.stringify(tool.inputSchema).includes('"null"'), `${tool.name}: a nullable wrapper`);
  }
});

Deno.test("pty_key states its key syntax once: no repeated key list, the key field points to it", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const key = ((await c.client.listTools()).tools as Listed[]).find((x) => x.name === "pty_key")!;
  const d = key.description ?? "";
  assertEquals(d.split("F1…F63").length, 2, d);
  assert(!/F12|F13/.test(d), `a second function-key list: ${d}`);
  assertEquals(d.split("C-c").length, 2, d);
  const field = (key.inputSchema.properties as Record<string, { description: string }>).key!.description;
  assert(!/C-c|Enter|Escape/.test(field), `the key field repeats names: ${field}`);
});

Deno.test("remote is spelled out in pty_open only; every other tool gives its names and types", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const tools = (await c.client.listTools()).tools as Listed[];
  const remoteOf = (x: Listed) =>
    (x.inputSchema.properties as Record<string, Record<string, unknown>> | undefined)?.remote;
  const full = remoteOf(tools.find((x) => x.name === "pty_open")!)!;
  const fields = Object.keys(full.properties as Record<string, unknown>).sort();
  assertEquals(fields, ["host", "identity_file", "passphrase", "passphrase_env", "port", "ssh_options", "user"]);
  const relayable = tools.filter((x) => remoteOf(x) && x.name !== "pty_open");
  assert(relayable.length >= 8, relayable.map((x) => x.name).join(","));
  for (const x of relayable) {
    const brief = remoteOf(x)!;
    assertEquals(brief.properties, undefined, x.name);
    const d = String(brief.description);
    for (const f of fields) assert(d.includes(f), `${x.name}: remote's short form does not name ${f}: ${d}`);
    assertMatch(d, /port\?: integer/);
    assertMatch(d, /ssh_options\?: string\[\]/);
    assertMatch(d, /pty_open/);
  }
});

Deno.test("aliases cost one line and {type: object}; the server still validates them in full", opts, async () => {
  // The aliases are listed and served only with AITERM_LEGACY_TOOLS=1 (tests/e2e/legacy_tools_test.ts).
  await using t = await makeTestEnv({ CLAUDE_BIN: `${FIXTURE_BIN}claude`, AITERM_LEGACY_TOOLS: "1" });
  await using c = await connect(t.env);
  const tools = (await c.client.listTools()).tools as Listed[];
  for (const name of ALIASES) {
    const x = tools.find((y) => y.name === name);
    assert(x, `no ${name}`);
    assert((x.description ?? "").length <= 200, `${name}: ${x.description}`);
    assertMatch(x.description ?? "", name === "claude_approval" ? /agent_approval/ : /agent_launch\(harness="/);
    assertEquals([x.inputSchema, x.outputSchema], [{ type: "object" }, { type: "object" }]);
  }
  // What the aliases refused before (strict objects, typed fields), they still refuse, with nothing done.
  const refused: [string, Record<string, unknown>][] = [
    ["claude_agent", { harness: "codex-cli" }],
    ["claude_agent", { image: ["/tmp/a.png"] }],
    ["claude_agent", { remote: { host: "h" } }],
    ["codex_agent", { prompt: 42 }],
    ["grok_agent", { session_name: "bad name!" }],
    ["grok_agent", { trust_project: "yes" }],
    ["claude_agent", { no_such_field: true }],
    ["claude_approval", { action: "inspect" }],
    ["claude_approval", { action: "approve", session_id: "s" }],
    ["claude_approval", { action: "respond", session_id: "s", approval_choice: "deny", observed_prompt_digest: "x" }],
  ];
  for (const [tool, args] of refused) {
    assertEquals((await c.err(tool, args)).code, "INVALID_ARGUMENT", `${tool} ${JSON.stringify(args)}`);
  }
  assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions, [], "an alias call started something");
});

Deno.test("slimmer advertised schemas: the server refuses what it refused before, nothing is done", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const sid = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
  const refused: [string, Record<string, unknown>][] = [
    // patterns that are no longer advertised
    ["pty_send", { wait: false, session_id: "bad id!", text: "x" }],
    ["pty_read", { session_id: sid, generation: "XYZ" }],
    ["pty_open", { name: "a".repeat(65) }],
    ["pty_open", { env_vars: ["1BAD"] }],
    ["pty_list", { env_keys: ["A-B"] }],
    ["agent_approval", { action: "respond", session_id: sid, approval_choice: "deny", observed_prompt_digest: "x" }],
    // the short form of remote: every rule of the full one still holds
    ["pty_read", { session_id: sid, remote: {} }],
    ["pty_read", { session_id: sid, remote: { host: "-oProxyCommand=touch /tmp/x" } }],
    ["pty_key", { session_id: sid, key: "Enter", remote: { host: "h", ssh_options: ["ProxyCommand=touch /tmp/x"] } }],
    ["pty_close", { session_id: sid, remote: { host: "h", passphrase: "p", passphrase_env: "P" } }],
    ["pty_observe", { session_id: sid, remote: { host: "h", identity_file: "/k/${HOME}" } }],
    ["pty_list", { remote: { host: "h", port: 0 } }],
    ["agent_models", { harness: "codex-cli", remote: { host: "h", extra: 1 } }],
    // nullable wrappers dropped from the listing: null is still "absent", other types are not
    ["pty_read", { session_id: sid, lines: "5" }],
    ["pty_read", { session_id: sid, lines: 0 }],
    ["pty_read", { session_id: sid, timeout: -1 }],
  ];
  for (const [tool, args] of refused) {
    const e = await c.err(tool, args);
    assertEquals(e.code, "INVALID_ARGUMENT", `${tool} ${JSON.stringify(args)}: ${e.text}`);
  }
  const r = await c.ok<{ session_id: string }>("pty_read", { session_id: sid, lines: null, cursor: null, until: null });
  assertEquals(r.session_id, sid);
  const listed = await c.ok<{ sessions: { session_id: string }[] }>("pty_list");
  assertEquals(listed.sessions.map((s) => s.session_id), [sid]);
});

Deno.test(
  "pty_read: the verdict and cursors come before the text, no null, empty or default fields",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const sid = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
    await c.ok("pty_send", { wait: false, session_id: sid, text: "printf 'one\\ntwo\\n'" });
    const r = await c.call("pty_read", { session_id: sid, wait: true, timeout: 10 });
    const read = r.structuredContent as Record<string, unknown>;
    const keys = Object.keys(read);
    assertEquals(keys[0], "session_id");
    assertEquals(keys.at(-1), "text");
    assertEquals(keys.slice(0, 6), ["session_id", "is_complete", "via", "exit_status", "next_cursor", "waited_ms"]);
    assertEquals(read.is_complete, true);
    assert((read.waited_ms as number) < 5000, `waited ${read.waited_ms} ms`);
    for (const [k, v] of Object.entries(read)) {
      assert(v !== null && !(Array.isArray(v) && v.length === 0), `${k} is ${JSON.stringify(v)}`);
    }
    // One field per fact: nothing at its default, nothing another field already says (ADR 0039).
    for (
      const k of [
        "turn_id",
        "answer_empty",
        "harness",
        "hint",
        "prompt",
        "next_line",
        "warnings",
        "has_more",
        "truncated",
        "state",
        "view",
        "cursor",
        "end",
        "timeout_used",
        "meta",
        "reducer",
      ]
    ) {
      assert(!(k in read), `${k} present: ${JSON.stringify(read)}`);
    }
    const overhead = JSON.stringify(read).length - JSON.stringify(read.text).length;
    assert(overhead <= RESULT_OVERHEAD_CHARS, `${overhead} characters besides the text: ${JSON.stringify(read)}`);
    // A waited send: the verdict, then the receipt without its defaults (Enter pressed, nothing removed, no marker).
    const sent = await c.ok<Record<string, unknown>>("pty_send", { session_id: sid, text: "echo lean-$((6*7))" });
    assertEquals([sent.is_complete, sent.exit_status], [true, 0]);
    for (const k of ["enter", "removed_controls", "marked", "recovered_stale_lock", "state", "has_more", "truncated"]) {
      assert(!(k in sent), `${k} present: ${JSON.stringify(sent)}`);
    }
    const sendOverhead = JSON.stringify(sent).length - JSON.stringify(sent.text).length;
    assert(
      sendOverhead <= RESULT_OVERHEAD_CHARS,
      `${sendOverhead} characters besides the text: ${JSON.stringify(sent)}`,
    );
    // Not at their defaults, they are there: an ended session, a page with more to come.
    const unsubmitted = await c.ok<Record<string, unknown>>("pty_send", { session_id: sid, text: "x", enter: false });
    assertEquals(unsubmitted.enter, false);
    await c.ok("pty_key", { session_id: sid, key: "C-u" });
    await c.ok("pty_send", { session_id: sid, text: "exit" });
    const ended = await c.ok<Record<string, unknown>>("pty_read", { session_id: sid, cursor: 0, lines: 1 });
    assertEquals(ended.state, "ended");
    // The text block (for clients that show it) keeps its verdict line.
    const text = r.content.map((x) => (x.type === "text" ? x.text : "")).join("");
    assertMatch(text, /\[is_complete=true via \w+ .*next_cursor=\d+/);
    // Without wait there is no verdict at all (it used to be null).
    const plain = await c.ok<Record<string, unknown>>("pty_read", { session_id: sid });
    assert(!("is_complete" in plain) && !("via" in plain), JSON.stringify(plain));
    assertEquals(typeof plain.next_cursor, "number");
  },
);

Deno.test(
  "claude_approval answers a claude-code dialog like agent_approval and refuses another harness's session",
  { ...opts, ignore: opts.ignore || !(await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false)) },
  async () => {
    await using t = await makeTestEnv({
      CLAUDE_BIN: `${FIXTURE_BIN}claude`,
      CODEX_BIN: `${FIXTURE_BIN}codex`,
      AITERM_LEGACY_TOOLS: "1",
    });
    t.env.CODEX_HOME = `${t.home}/.codex`;
    await Deno.mkdir(`${t.root}/proj`);
    await using c = await connect(t.env);
    const launch = (harness: string, prompt: string) =>
      c.ok<{ session_id: string; wait_process: WaitProcess | null }>("agent_launch", {
        harness,
        cwd: `${t.root}/proj`,
        trust_project: true,
        prompt,
      });
    const codex = await launch("codex-cli", "first task");
    const wrong = await c.err("claude_approval", { action: "inspect", session_id: codex.session_id });
    assertEquals(wrong.code, "INVALID_ARGUMENT");
    assertMatch(wrong.text, /codex-cli.*agent_approval/);
    const claude = await launch("claude-code", "PERM please");
    const seen = await eventually(
      async () => {
        const a = await c.ok<{ status: string; digest: string; harness: string }>("claude_approval", {
          action: "inspect",
          session_id: claude.session_id,
        });
        return a.status === "approval_required" ? a : null;
      },
      20_000,
      "the fake claude's dialog",
    );
    assertEquals(seen.harness, "claude-code");
    const same = await c.ok<{ digest: string }>("agent_approval", { action: "inspect", session_id: claude.session_id });
    assertEquals(same.digest, seen.digest);
    const done = await c.ok<{ status: string; typed: boolean }>("claude_approval", {
      action: "respond",
      session_id: claude.session_id,
      approval_choice: "approve_once",
      observed_prompt_digest: seen.digest,
    });
    assertEquals([done.status, done.typed], ["submitted", true]);
    assertEquals((await runWaiter(t.env, claude.wait_process!)).code, 0);
  },
);
