// deno-lint-ignore-file no-console
/**
 * What aiterm's tool surface costs a model, against a baseline commit measured in the same run.
 *
 *   deno run -A bench/surface.ts [--base <commit>]
 *
 * For each tool of the served `tools/list`: model-facing characters (name + description + inputSchema as
 * sent, the part a model reads to choose and call a tool) and the whole definition (with title,
 * annotations and outputSchema); tokens are characters / 4. Then one typical read (`ls -la` of 57 files,
 * 60 lines) as Claude Code 2.1.328 and Codex 0.169.0 pass it to their model (measured in
 * ../shared/reference/client-view.md): Claude the JSON of structuredContent, Codex a wall-time header plus
 * the same JSON; the text block reaches neither. The baseline is the same server at `--base` (default: the
 * commit before the surface work), extracted with `git archive` into a temporary directory. The table is the
 * default list, with each description's length in characters; one more line gives the list with AITERM_LEGACY_TOOLS=1
 * (the deprecated aliases added). Last, what the command's result and a waiting read carry besides the output text.
 */
import { parseArgs } from "node:util";
import { Client, StdioClientTransport } from "../lib/mcp/sdk.ts";
import type { CallToolResult } from "../lib/mcp/sdk.ts";
import { baselineTree, makeTestEnv, printTable, runMain } from "./_common.ts";

/** The commit before issue 18 (the lean tool surface) started. */
const DEFAULT_BASE = "336041f";
const REPO = new URL("../", import.meta.url).pathname;

/** Characters a model reads of one tool (its description apart), and of its whole definition. */
interface ToolCost {
  name: string;
  description: number;
  model: number;
  whole: number;
}

/** One result that carries a command's output: its text size, what each client passes on, and the rest. */
interface OutputCost {
  text: number;
  claude: number;
  codex: number;
  /** JSON characters of structuredContent besides its `text` field. */
  other: number;
}

/** One server's surface, its typical command result (pty_send's, or pty_read's before sends waited) and a read. */
interface Surface {
  tools: ToolCost[];
  read: OutputCost;
  /** pty_read wait:true after a send that did not wait. */
  waitedRead: OutputCost;
}

function costOf(r: CallToolResult): OutputCost {
  const sc = (r.structuredContent ?? {}) as Record<string, unknown>;
  const json = JSON.stringify(sc);
  const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return {
    text: text.length,
    claude: json.length,
    codex: "Wall time: 0.0123 seconds\nOutput:\n".length + json.length,
    other: json.length - (typeof sc.text === "string" ? JSON.stringify(sc.text).length + ',"text":'.length : 0),
  };
}

const tokens = (chars: number): number => Math.round(chars / 4);

async function measure(main: string, env: Record<string, string>, dir: string): Promise<Surface> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", main],
    env,
    stderr: "pipe",
  });
  const client = new Client({ name: "bench-surface", version: "0.0.0" });
  await client.connect(transport);
  try {
    const listed = (await client.listTools()).tools;
    const tools = listed.map((t) => ({
      name: t.name,
      description: (t.description ?? "").length,
      model: t.name.length + (t.description ?? "").length + JSON.stringify(t.inputSchema).length,
      whole: JSON.stringify(t).length,
    }));
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
      return r;
    };
    const opened = await call("pty_open", { cwd: dir });
    const id = (opened.structuredContent as { session_id: string }).session_id;
    // One command as a model runs it: where pty_send waits (it takes `wait`), its own result carries the output;
    // otherwise a send and then a waiting read. Either way, the result that carries the output is measured.
    const sendWaits = listed.some((t) => t.name === "pty_send" && "wait" in (t.inputSchema.properties ?? {}));
    const sent = await call("pty_send", { session_id: id, text: `ls -la ${dir}` });
    const read = sendWaits ? sent : await call("pty_read", { session_id: id, wait: true, timeout: 20 });
    // The same command again, read by pty_read wait:true (the send not waiting where it can).
    await call("pty_send", { session_id: id, text: `ls -la ${dir}`, ...(sendWaits ? { wait: false } : {}) });
    const waitedRead = await call("pty_read", { session_id: id, wait: true, timeout: 20 });
    await call("pty_close", { session_id: id });
    return { tools, read: costOf(read), waitedRead: costOf(waitedRead) };
  } finally {
    await client.close().catch(() => {});
  }
}

const { values } = parseArgs({ args: Deno.args, options: { base: { type: "string" } }, strict: true });
const base = values.base ?? DEFAULT_BASE;

await runMain("bench/surface", async () => {
  await using t = await makeTestEnv();
  const listing = `${t.root}/listing`;
  await Deno.mkdir(listing);
  for (let i = 0; i < 57; i++) await Deno.writeTextFile(`${listing}/file-${String(i).padStart(2, "0")}.txt`, "x");
  const now = await measure(`${REPO}main.ts`, t.env, listing);
  // The deprecated aliases are listed only with AITERM_LEGACY_TOOLS=1 (ADR 0036): what that costs on top.
  const legacy = await measure(`${REPO}main.ts`, { ...t.env, AITERM_LEGACY_TOOLS: "1" }, listing);
  const baseMain = await baselineTree(base, t.root);
  const then = baseMain ? await measure(baseMain, t.env, listing) : null;
  const byName = new Map((then?.tools ?? []).map((x) => [x.name, x]));
  const rows = now.tools.map((x) => {
    const b = byName.get(x.name);
    return [
      x.name,
      String(x.description),
      String(tokens(x.model)),
      b ? String(tokens(b.model)) : "new",
      String(tokens(x.whole)),
      b ? String(tokens(b.whole)) : "new",
    ];
  });
  for (const b of then?.tools ?? []) {
    if (!now.tools.some((x) => x.name === b.name)) {
      rows.push([b.name, "gone", "gone", String(tokens(b.model)), "gone", String(tokens(b.whole))]);
    }
  }
  const sum = (s: Surface | null, k: "model" | "whole") => s ? s.tools.reduce((a, x) => a + tokens(x[k]), 0) : NaN;
  rows.push([
    `TOTAL (${now.tools.length} tools)`,
    `max ${Math.max(...now.tools.map((x) => x.description))}`,
    String(sum(now, "model")),
    String(sum(then, "model")),
    String(sum(now, "whole")),
    String(sum(then, "whole")),
  ]);
  console.log(`tool definitions, tokens = characters / 4; baseline = ${baseMain ? base : "unavailable (git)"}`);
  printTable(["tool", "description chars", "model-facing", `at ${base}`, "whole", `at ${base}`], rows);
  const ratio = (a: number, b: number) => (Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");
  console.log(
    `model-facing ${sum(now, "model")} tokens (${ratio(sum(now, "model"), sum(then, "model"))} of baseline); ` +
      `whole tools/list ${sum(now, "whole")} (${ratio(sum(now, "whole"), sum(then, "whole"))})`,
  );
  console.log(
    `with AITERM_LEGACY_TOOLS=1: ${legacy.tools.length} tools, model-facing ${sum(legacy, "model")} tokens, ` +
      `whole tools/list ${sum(legacy, "whole")}`,
  );
  console.log(
    "\none command's output (ls -la, 60 lines: pty_send's result, or pty_read's before it waited), tokens the model receives:",
  );
  printTable(["client", "now", `at ${base}`], [
    [
      "Claude Code (JSON of structuredContent)",
      String(tokens(now.read.claude)),
      String(tokens(then?.read.claude ?? NaN)),
    ],
    ["Codex (header + JSON)", String(tokens(now.read.codex)), String(tokens(then?.read.codex ?? NaN))],
    ["text block (reaches neither)", String(tokens(now.read.text)), String(tokens(then?.read.text ?? NaN))],
  ]);
  console.log("\ncharacters of structuredContent besides the output text (the verdict, cursors and receipt):");
  printTable(["result", "now", `at ${base}`], [
    ["the command's result (above)", String(now.read.other), String(then?.read.other ?? NaN)],
    ["pty_read wait:true", String(now.waitedRead.other), String(then?.waitedRead.other ?? NaN)],
  ]);
  return 0;
});
