/**
 * What the REAL Claude Code (2.1.328) and Codex (0.169.0) hand their model from aiterm, recorded at the
 * loopback fake model servers (issue 18 item 5): the tool definitions they offer, the tool_result of
 * one typical `pty_read` (`ls -la` of 57 files), and the result of a failed `pty_open`. Each CLI runs
 * non-interactively (`claude -p`, `codex exec`) with aiterm registered as an MCP server on this test's
 * private state root; the fake model answers a `MCPCALL <tool> <JSON>` prompt with that one tool call.
 * The session is opened and typed into beforehand through the SDK client, so the CLI makes exactly one
 * aiterm call per run.
 *
 * Observed (and asserted, so a CLI upgrade that changes it shows up here):
 * - Claude Code names MCP tools only ("deferred tools … available via ToolSearch"); ToolSearch `select:`
 *   answers with a `tool_reference` block, and from the next request on the tool is offered as
 *   `{name, description, input_schema, defer_loading}` with aiterm's description and input schema. A
 *   success reaches the model as `JSON.stringify(structuredContent)` (the text block is dropped); an
 *   error as its text, `CODE: message (suggestion)`, with `is_error`; a tool called before it was
 *   loaded gets "This tool's input schema was not in your prompt …" and the whole input schema added.
 * - Codex offers aiterm's tools up front (a model it has no metadata for) in one `mcp__aiterm` namespace
 *   of `{name, description, strict:false, parameters}` without output schemas; a result reaches the
 *   model as `Wall time: N seconds\nOutput:\n` + the JSON of structuredContent, an error likewise
 *   (`{code, message, suggestion}`).
 * The sizes are printed as one JSON line (facts for the docs; not asserted).
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, serverCommand } from "../helpers/mcp.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { FakeServer, RecordedRequest } from "../fixtures/fake_api/mod.ts";

const clis = findVendorClis();
const why = (cli: string | null, name: string) =>
  !hasTmux ? " [ignored: tmux missing]" : cli ? "" : ` [ignored: the real ${name} CLI is not installed]`;

type Json = Record<string, unknown>;
const bodyOf = (r: RecordedRequest): Json => (r.body && typeof r.body === "object" ? r.body as Json : {});

/** A session whose output is a typical listing, and the log cursor just before it. */
async function typicalSession(t: TestEnv): Promise<{ session_id: string; cursor: number }> {
  const dir = `${t.root}/listing`;
  await Deno.mkdir(dir);
  for (let i = 0; i < 57; i++) await Deno.writeTextFile(`${dir}/file-${String(i).padStart(2, "0")}.txt`, "x");
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: dir });
  const sent = await c.ok<{ log_cursor: number }>("pty_send", { wait: false, session_id, text: `ls -la ${dir}` });
  await c.ok("pty_read", { session_id, wait: true, timeout: 20 });
  return { session_id, cursor: sent.log_cursor };
}

/** The MCP server's environment: this test's state root and a warm Deno cache, nothing else of ours. */
async function mcpEnv(t: TestEnv): Promise<Record<string, string>> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped", stderr: "null" })
    .output();
  const denoDir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string | undefined;
  return {
    AITERM_STATE_DIR: t.stateDir,
    TMUX_TMPDIR: t.root,
    HOME: t.home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ...(denoDir ? { DENO_DIR: denoDir } : {}),
  };
}

/** Runs a CLI once and returns the requests the fake server got meanwhile. */
async function run(api: FakeServer, cmd: string, args: string[], env: Record<string, string>, cwd: string) {
  const from = api.requests.length;
  const out = await new Deno.Command(cmd, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assertEquals(out.code, 0, `${dec.decode(out.stdout)}\n${dec.decode(out.stderr)}`);
  return api.requests.slice(from);
}

/** Checks a success as the model got it: exactly the JSON of a compact pty_read, text last. */
function checkRead(json: string): Json {
  const read = JSON.parse(json) as Json;
  assertEquals(JSON.stringify(read), json, "not exactly one JSON object");
  const keys = Object.keys(read);
  assertEquals([keys[0], keys.at(-1)], ["session_id", "text"]);
  // has_more is left out unless true (ADR 0039: fields at their default are not sent).
  assertEquals([read.is_complete, read.has_more], [true, undefined]);
  assertStringIncludes(String(read.text), "file-56.txt");
  for (const [k, v] of Object.entries(read)) assert(v !== null, `${k} is null`);
  assert(!json.includes("[is_complete="), "the text block's verdict line reached the model");
  return read;
}

Deno.test({
  name: `real claude-code: tools by ToolSearch, a read as the JSON of structuredContent, an error as its text${
    why(clis.claude, "claude")
  }`,
  ignore: !!why(clis.claude, "claude"),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const s = await typicalSession(t);
    const proj = `${t.root}/proj`;
    await Deno.mkdir(proj);
    await using api = startFakeAnthropic();
    await using vh = await vendorHome("claude", { apiUrl: api.url, cwd: proj, trusted: true });
    const server = serverCommand();
    const config = { mcpServers: { aiterm: { ...server, env: await mcpEnv(t) } } };
    const claude = (prompt: string) =>
      run(
        api,
        clis.claude!,
        [
          "-p",
          "--mcp-config",
          JSON.stringify(config),
          "--strict-mcp-config",
          "--allowedTools",
          "mcp__aiterm__pty_read,mcp__aiterm__pty_open,ToolSearch",
          "--output-format",
          "json",
          prompt,
        ],
        vh.env,
        proj,
      );
    /** The tool_result blocks of the last request of a run. */
    const results = (reqs: RecordedRequest[]) => {
      const msgs = (bodyOf(reqs.at(-1)!).messages ?? []) as { role: string; content: string | Json[] }[];
      return msgs.flatMap((m) => (typeof m.content === "string" ? [] : m.content)).filter((b) =>
        b.type === "tool_result"
      );
    };
    const textOf = (b: Json) =>
      typeof b.content === "string" ? b.content : (b.content as Json[]).map((x) => String(x.text ?? "")).join("");

    // 1. Discovery: aiterm's tools are only named in a system message; ToolSearch `select:` answers with a
    // tool_reference, and the next request offers the definition (defer_loading) as aiterm serves it.
    const search = await claude(`MCPCALL ToolSearch {"query":"select:mcp__aiterm__pty_open","max_results":5}`);
    const first = JSON.stringify(bodyOf(search[0]!));
    assertStringIncludes(first, "available via ToolSearch");
    assertStringIncludes(first, "mcp__aiterm__pty_open");
    const offered = (r: RecordedRequest) => ((bodyOf(r).tools ?? []) as Json[]);
    assert(!offered(search[0]!).some((x) => String(x.name).startsWith("mcp__aiterm__")), "offered up front");
    assertEquals(results(search).map((b) => b.content), [[{
      type: "tool_reference",
      tool_name: "mcp__aiterm__pty_open",
    }]]);
    const loaded = offered(search.at(-1)!).find((x) => x.name === "mcp__aiterm__pty_open");
    assert(loaded, "the loaded definition is not offered");
    await using c = await connect(t.env);
    const served = (await c.client.listTools()).tools.find((x) => x.name === "pty_open")!;
    assertEquals(Object.keys(loaded).sort(), ["defer_loading", "description", "input_schema", "name"]);
    assertEquals(
      Object.keys(loaded.input_schema as Json).sort(),
      Object.keys(served.inputSchema).sort(),
    );
    assertStringIncludes(String(loaded.description), "Open a persistent shell session");
    const definition = JSON.stringify(loaded);

    // 2. A typical read: the JSON of structuredContent, byte for byte.
    const args = { session_id: s.session_id, cursor: s.cursor, wait: true, timeout: 20 };
    const [read] = results(await claude(`MCPCALL mcp__aiterm__pty_read ${JSON.stringify(args)}`));
    assert(read && read.is_error !== true, JSON.stringify(read));
    const readJson = textOf(read);
    checkRead(readJson);

    // 3. An error: the coded text, flagged.
    const [failed] = results(await claude(`MCPCALL mcp__aiterm__pty_open {"cwd":"${t.root}/missing"}`));
    assertEquals(failed?.is_error, true);
    const errorText = textOf(failed!);
    assertMatch(errorText, /^CWD_NOT_FOUND: Cannot open a session/);
    // Called without ToolSearch first: Claude Code appends the tool's input schema to the error.
    assertStringIncludes(errorText, "input schema was not in your prompt");
    // deno-lint-ignore no-console
    console.log(JSON.stringify({
      client: "claude-code",
      pty_open_definition_chars: definition.length,
      read_chars: readJson.length,
      read_tokens: Math.round(readJson.length / 4),
      error_chars: errorText.length,
    }));
  },
});

Deno.test({
  name: `real codex: one namespace without output schemas, a read and an error as header + JSON${
    why(clis.codex, "codex")
  }`,
  ignore: !!why(clis.codex, "codex"),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const s = await typicalSession(t);
    const proj = `${t.root}/proj`;
    await Deno.mkdir(proj);
    await using api = startFakeOpenAI();
    await using vh = await vendorHome("codex", { apiUrl: api.url, cwd: proj, trusted: true });
    const server = serverCommand();
    const env = await mcpEnv(t);
    const add = await new Deno.Command(clis.codex!, {
      args: [
        "mcp",
        "add",
        "aiterm",
        ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
        "--",
        server.command,
        ...server.args,
      ],
      env: vh.env,
      clearEnv: true,
      cwd: proj,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(add.code, 0, new TextDecoder().decode(add.stderr));
    const codex = (prompt: string) =>
      run(
        api,
        clis.codex!,
        [
          "exec",
          "--skip-git-repo-check",
          "-c",
          'mcp_servers.aiterm.default_tools_approval_mode="approve"',
          "-c",
          "mcp_servers.aiterm.startup_timeout_sec=120",
          prompt,
        ],
        vh.env,
        proj,
      );
    const lastOutput = (reqs: RecordedRequest[]) => {
      const input = (bodyOf(reqs.at(-1)!).input ?? []) as Json[];
      const out = input.at(-1)!;
      assertEquals(out.type, "function_call_output", JSON.stringify(out));
      return String(out.output);
    };

    // 1. A typical read; the request before it shows the tools Codex offers.
    const args = { session_id: s.session_id, cursor: s.cursor, wait: true, timeout: 20 };
    const reqs = await codex(`MCPCALL mcp__aiterm__pty_read ${JSON.stringify(args)}`);
    const ns = ((bodyOf(reqs[0]!).tools ?? []) as Json[]).find((x) =>
      x.type === "namespace" && x.name === "mcp__aiterm"
    );
    assert(ns, "Codex offered no mcp__aiterm namespace");
    const tools = ns.tools as Json[];
    await using c = await connect(t.env);
    const served = (await c.client.listTools()).tools;
    assertEquals(tools.map((x) => x.name).sort(), served.map((x) => x.name).sort());
    for (const x of tools) {
      assertEquals(Object.keys(x).sort(), ["description", "name", "parameters", "strict", "type"], String(x.name));
      assertEquals(x.description, served.find((y) => y.name === x.name)?.description);
    }
    const output = lastOutput(reqs);
    const m = /^Wall time: [\d.]+ seconds\nOutput:\n/.exec(output);
    assert(m, output.slice(0, 200));
    checkRead(output.slice(m[0].length));

    // 2. An error: the same header, then the JSON of the error's structuredContent.
    const failed = lastOutput(await codex(`MCPCALL mcp__aiterm__pty_open {"cwd":"${t.root}/missing"}`));
    const e = /^Wall time: [\d.]+ seconds\nOutput:\n(.*)$/s.exec(failed);
    assert(e, failed);
    const err = JSON.parse(e[1]!) as Json;
    assertEquals(err.code, "CWD_NOT_FOUND");
    assert(typeof err.message === "string" && err.message.length > 0, failed);
    // deno-lint-ignore no-console
    console.log(JSON.stringify({
      client: "codex",
      namespace_chars: JSON.stringify(ns).length,
      namespace_tokens: Math.round(JSON.stringify(ns).length / 4),
      read_chars: output.length,
      read_tokens: Math.round(output.length / 4),
      error_chars: failed.length,
    }));
  },
});
