/**
 * Every claim a served tool definition makes is checked against the code (issue 32 item 3): each error code a
 * description names is a registered code that the named source file throws, each number is the constant it stands
 * for (or a bound of the schema it describes), each `pty_…`/`agent_…` name is a tool or a parameter, and the
 * annotations agree with what the descriptions say. Read from the served tools/list through the real MCP SDK client.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { ERROR_CODES } from "../../base/errors.ts";
import { knob } from "../../base/config.ts";
import { INPUT_LIMIT_BYTES } from "../../lib/terminal/mod.ts";
import { blockWithin, callLimitsFor } from "../../harnesses/clients/mod.ts";
import { codexCallCut } from "../../harnesses/codex/client/call_limits.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const ROOT = new URL("../../", import.meta.url);

interface Listed {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** One piece of model-facing text: the tool's description, or one property's with that property's schema. */
interface Said {
  where: string;
  text: string;
  schema: Json | null;
}

/** The description and every property description (at any depth) of a tool, as a model reads them. */
function said(tool: Listed): Said[] {
  const out: Said[] = [{ where: "description", text: tool.description ?? "", schema: null }];
  const walk = (schema: unknown, path: string) => {
    if (!isObject(schema)) return;
    if (typeof schema.description === "string" && path) {
      out.push({ where: path, text: schema.description, schema });
    }
    if (isObject(schema.properties)) {
      for (const [k, v] of Object.entries(schema.properties)) walk(v, path ? `${path}.${k}` : k);
    }
    if (isObject(schema.items)) walk(schema.items, `${path}[]`);
  };
  walk(tool.inputSchema, "");
  return out;
}

/**
 * Where each tool throws the codes its definition names (`PREFIX_*` for a family). A description that names a code
 * not listed here fails the test: add the file that throws it for that tool, or do not name it.
 */
const THROWN_BY: Record<string, Record<string, string>> = {
  diagnostics: { "TMUX_*": "platform/tmux/tmux.ts", "STATE_ROOT_*": "state/private_dir.ts" },
  pty_open: {
    SESSION_EXISTS: "lib/terminal/sessions.ts",
    SHELL_NOT_FOUND: "lib/terminal/sessions.ts",
    CWD_NOT_FOUND: "lib/terminal/sessions.ts",
  },
  pty_send: {
    INPUT_TOO_LARGE: "lib/terminal/send/size.ts",
    MARK_UNAVAILABLE: "lib/terminal/send/plan.ts",
    SESSION_STALE: "lib/terminal/sessions.ts",
  },
  pty_read: { AGENT_RESULT_PENDING: "lib/agent/answer.ts", SESSION_STALE: "lib/terminal/sessions.ts" },
  pty_key: {
    KEY_UNKNOWN: "lib/terminal/send/keys.ts",
    KEY_UNSUPPORTED: "lib/terminal/send/keys.ts",
    SESSION_STALE: "lib/terminal/sessions.ts",
  },
  pty_observe: { SESSION_STALE: "lib/terminal/sessions.ts" },
  pty_close: { SESSION_STALE: "lib/terminal/sessions.ts" },
  agent_launch: {
    MODEL_UNKNOWN: "lib/agent/models.ts",
    EFFORT_UNSUPPORTED: "lib/agent/models.ts",
    FAST_MODE_NOT_SUPPORTED: "lib/agent/launch.ts",
    FAST_MODE_MODEL_CONFLICT: "lib/agent/launch.ts",
  },
  agent_models: {
    MODEL_UNKNOWN: "lib/agent/models.ts",
    MODEL_CATALOG_UNAVAILABLE: "lib/agent/models.ts",
    HARNESS_NOT_INSTALLED: "lib/mcp/tools/agent_models.ts",
  },
  agent_approval: { SESSION_STALE: "lib/terminal/sessions.ts" },
  agent_configure: {
    MODEL_UNKNOWN: "lib/agent/models.ts",
    EFFORT_UNSUPPORTED: "lib/agent/models.ts",
    AGENT_BUSY: "lib/agent/configure.ts",
    AGENT_BLOCKED: "lib/agent/configure.ts",
    AGENT_NOT_READY: "lib/agent/configure.ts",
    CONFIGURE_UNCONFIRMED: "lib/agent/configure.ts",
    SESSION_STALE: "lib/terminal/sessions.ts",
  },
};

/** The client allowances a wait is bounded by (harnesses/*\/client/call_limits.ts), in seconds, with no overrides. */
function allowanceS(client: "claude-code" | "codex" | "other"): number {
  if (client === "codex") {
    return blockWithin(codexCallCut("codex-mcp-client", { CODEX_HOME: "/nonexistent" }, null)!.cutMs) / 1000;
  }
  return callLimitsFor(client === "other" ? "some-client" : "claude-code", {}).maxBlockMs / 1000;
}

/**
 * The numbers definitions may name beyond a bound of the schema they describe, each with the constant it must be.
 * Keyed by tool; the phrase is matched as written.
 */
const NUMBERS: Record<string, [phrase: string, value: number, truth: () => number][]> = {
  pty_send: [
    ["default 30 s", 30, () => Number(knob("sendWaitS").default)],
    ["64 KiB", 64, () => INPUT_LIMIT_BYTES / 1024],
  ],
  pty_read: [
    ["110 s in Claude Code", 110, () => allowanceS("claude-code")],
    ["285 s in Codex", 285, () => allowanceS("codex")],
    ["55 s elsewhere", 55, () => allowanceS("other")],
    ['"A:B", 1-based', 1, () => 1],
  ],
  agent_launch: [["up to 60 s", 60, () => Number(knob("agentStartupTimeoutMs").default) / 1000]],
  pty_open: [["else 22", 22, () => 22 /* ssh's own default port: aiterm passes -p only when port is given */]],
};

/** Source text without comment lines, so a code named only in a comment does not count as thrown. */
async function codeOf(path: string): Promise<string> {
  const text = await Deno.readTextFile(new URL(path, ROOT));
  return text.split("\n").filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l)).join("\n");
}

async function listed(): Promise<Listed[]> {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  return (await c.client.listTools()).tools as Listed[];
}

Deno.test("every error code a tool definition names is registered and thrown where its table says", opts, async () => {
  const tools = await listed();
  const registered = new Set<string>(ERROR_CODES);
  for (const tool of tools) {
    const table = THROWN_BY[tool.name] ?? {};
    const named = new Set<string>();
    for (const s of said(tool)) {
      for (const m of s.text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_\*|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+/g)) {
        named.add(m[0]);
      }
    }
    for (const code of named) {
      const family = code.endsWith("_*") ? code.slice(0, -1) : null;
      if (family) assert(ERROR_CODES.some((c) => c.startsWith(family)), `${tool.name}: no code is ${code}`);
      else assert(registered.has(code), `${tool.name} names ${code}, which is not in base/errors.ts ERROR_CODES`);
      const file = table[code];
      assert(file, `${tool.name} names ${code}: add where it throws it to THROWN_BY`);
      const literal = family ? new RegExp(`"${family}[A-Z_]+"`) : new RegExp(`"${code}"`);
      assert(literal.test(await codeOf(file)), `${file} does not throw ${code} (for ${tool.name})`);
    }
    for (const code of Object.keys(table)) assert(named.has(code), `THROWN_BY.${tool.name}.${code} is not named`);
  }
  // The known false claims of issue 32 stay fixed.
  const configure = tools.find((x) => x.name === "agent_configure")!;
  assert(!said(configure).some((s) => s.text.includes("CONFIGURE_UNSUPPORTED")), "CONFIGURE_UNSUPPORTED again");
});

Deno.test(
  "every number a tool definition names is the constant it stands for or a bound of its schema",
  opts,
  async () => {
    const tools = await listed();
    for (const tool of tools) {
      const table = NUMBERS[tool.name] ?? [];
      for (const [phrase, value, truth] of table) {
        assert(said(tool).some((s) => s.text.includes(phrase)), `${tool.name} no longer says "${phrase}"`);
        assertEquals(truth(), value, `${tool.name}: "${phrase}"`);
      }
      for (const s of said(tool)) {
        let rest = s.text;
        for (const [phrase] of table) rest = rest.replaceAll(phrase, "");
        // Digits inside names (F1…F63, KP0, sha256, composer-2.5-fast) are not claims.
        for (const m of rest.matchAll(/(?<![\w.…-])\d+(?:\.\d+)?(?![\w…]|\.\d|-\w)/g)) {
          const n = Number(m[0]);
          const bounds = s.schema
            ? ["maxItems", "maxLength", "maximum", "minimum", "minItems"].map((k) => s.schema![k])
            : [];
          assert(
            bounds.includes(n),
            `${tool.name} ${s.where} names ${m[0]} ("…${rest.slice(Math.max(0, m.index - 30), m.index + 10)}…"): ` +
              "add it to NUMBERS with its constant, or derive it from the schema",
          );
        }
      }
    }
  },
);

Deno.test("every tool-like name in a definition is a listed tool or a parameter", opts, async () => {
  const tools = await listed();
  const names = new Set(tools.map((x) => x.name));
  const params = new Set(tools.flatMap((x) => Object.keys((x.inputSchema.properties ?? {}) as Json)));
  for (const tool of tools) {
    for (const s of said(tool)) {
      for (const m of s.text.matchAll(/\b(?:pty|agent)_[a-z_]+\b/g)) {
        assert(
          names.has(m[0]) || params.has(m[0]),
          `${tool.name} ${s.where} names ${m[0]}, neither tool nor parameter`,
        );
      }
    }
  }
});

Deno.test("annotations agree with the descriptions", opts, async () => {
  const tools = await listed();
  for (const tool of tools) {
    const a = tool.annotations ?? {};
    const d = tool.description ?? "";
    if (a.readOnlyHint === true) assert(a.destructiveHint !== true, `${tool.name}: read-only and destructive`);
    assertEquals(
      /\bread-only\b/i.test(d.replace(/"read-only"/g, "")),
      a.readOnlyHint === true,
      `${tool.name}: read-only`,
    );
    if (/\bIdempotent\b/.test(d)) assertEquals(a.idempotentHint, true, `${tool.name}: idempotent`);
    const remote = "remote" in ((tool.inputSchema.properties ?? {}) as Json);
    if (remote) assertEquals(a.openWorldHint, true, `${tool.name} reaches other hosts`);
  }
  const by = Object.fromEntries(tools.map((x) => [x.name, x.annotations ?? {}]));
  // Replacing a running agent's model (and, for Claude Code and Grok, the user's default) is not additive.
  assertEquals(by.agent_configure?.destructiveHint, true);
  for (const name of ["pty_send", "pty_key", "pty_close", "agent_approval"]) {
    assertEquals(by[name]?.destructiveHint, true, name);
  }
});
