// deno-lint-ignore-file no-console
/**
 * Generates docs/tools.md from the tools/list the server actually serves (so the reference can never drift from
 * what a model is shown).
 *
 *   deno run -A scripts/tools_doc.ts          # rewrite docs/tools.md
 *   deno run -A scripts/tools_doc.ts --check  # exit 1 when docs/tools.md is not what the server serves
 *
 * tests/e2e/tools_doc_test.ts runs the check in the test suite.
 */
import { knob } from "../base/config.ts";
import { Client, StdioClientTransport } from "../lib/mcp/sdk.ts";

/** The fields of a served tool the reference shows. */
export interface ServedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: { properties?: Record<string, unknown> | undefined; required?: string[] | undefined };
  annotations?: Record<string, unknown> | undefined;
}

const DOC = new URL("../docs/tools.md", import.meta.url);

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** A JSON-schema type in a few characters: `string`, `integer`, `string[]`, `"a" \| "b"`, `object`. */
function typeOf(schema: unknown): string {
  if (!schema || typeof schema !== "object") return "any";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeOf).join(" | ");
  if (s.type === "array") return `${typeOf(s.items)}[]`;
  if (Array.isArray(s.type)) return s.type.join(" | ");
  return typeof s.type === "string" ? s.type : "any";
}

/** The variable that makes the server list and serve the deprecated aliases (base/config.ts, ADR 0036). */
export const LEGACY_TOOLS_VAR = knob("legacyTools").name;

/**
 * The Markdown reference for `tools` (in the order served by default), then the deprecated aliases: the tools
 * of `legacy` (the list served with AITERM_LEGACY_TOOLS=1) that the default list does not have.
 */
export function renderToolsDoc(tools: ServedTool[], legacy: ServedTool[] = []): string {
  const out: string[] = [
    "# Tool reference",
    "",
    "Generated from the served `tools/list` by `deno run -A scripts/tools_doc.ts`; do not edit by hand",
    "(tests/e2e/tools_doc_test.ts fails when it differs from what the server serves).",
    "",
  ];
  const aliases = legacy.filter((l) => !tools.some((t) => t.name === l.name));
  render(out, tools, "##");
  if (aliases.length) {
    out.push(
      "## Deprecated aliases",
      "",
      `Listed and served only when the server's environment has \`${LEGACY_TOOLS_VAR}=1\``,
      "(`aiterm-mcp setup --legacy-tools` writes it into each client's registration). Without it, calling one is",
      "`TOOL_UNKNOWN` with the main tool to call instead.",
      "",
    );
    render(out, aliases, "###");
  }
  return out.join("\n");
}

function render(out: string[], tools: ServedTool[], heading: string): void {
  for (const t of tools) {
    out.push(`${heading} \`${t.name}\``, "");
    if (t.title) out.push(`**${t.title}**`, "");
    out.push((t.description ?? "").trim(), "");
    const hints = Object.entries(t.annotations ?? {}).filter(([k]) => k.endsWith("Hint"));
    if (hints.length) out.push(`Annotations: ${hints.map(([k, v]) => `\`${k}: ${v}\``).join(", ")}`, "");
    const props = Object.entries(t.inputSchema.properties ?? {});
    if (props.length) {
      const required = new Set(t.inputSchema.required ?? []);
      out.push("| parameter | type | required | description |", "| --- | --- | --- | --- |");
      for (const [name, schema] of props) {
        const description = (schema as { description?: string }).description ?? "";
        out.push(
          `| \`${name}\` | ${cell(typeOf(schema))} | ${required.has(name) ? "yes" : ""} | ${cell(description)} |`,
        );
      }
      out.push("");
    }
  }
}

/** Lists the tools of a freshly started server (`deno run -A main.ts`, default environment). */
export async function servedTools(env: Record<string, string> = Deno.env.toObject()): Promise<ServedTool[]> {
  const main = new URL("../main.ts", import.meta.url).pathname;
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", main],
    env: { ...env, AITERM_LOG: "warn" },
  });
  const client = new Client({ name: "tools-doc", version: "0.0.0" });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools as ServedTool[];
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  delete env[LEGACY_TOOLS_VAR];
  const text = renderToolsDoc(await servedTools(env), await servedTools({ ...env, [LEGACY_TOOLS_VAR]: "1" }));
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(DOC).catch(() => "");
    if (current !== text) {
      console.error("docs/tools.md differs from the served tools/list: run deno run -A scripts/tools_doc.ts");
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(DOC, text);
    console.error(`wrote ${DOC.pathname}`);
  }
}
