/** Claude Code's live model catalog: the CLI's own `initialize` answer (stream-json control protocol). */
import { isRecord, rec, str } from "../common/mod.ts";
import type { ModelCatalog } from "../common/mod.ts";

/** The `initialize` control request Claude Code answers in `--input-format stream-json` mode. */
const INITIALIZE_ID = "aiterm-models";

/**
 * Reads the catalog out of Claude Code's stream-json output: the `control_response` to the
 * `initialize` request carries `models` (`value`, `resolvedModel`, `displayName`,
 * `supportedEffortLevels`, `supportsFastMode`), the list its `/model` picker offers for this account.
 * `default` (the account's default model) is listed first and is the default.
 * @throws {Error} when no such answer is in `stdout`
 */
export function parseClaudeInitialize(stdout: string): ModelCatalog {
  for (const line of stdout.split("\n")) {
    if (!line.includes('"control_response"')) continue;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    const outer = isRecord(msg) ? rec(msg, "response") : null;
    if (!outer || str(outer, "request_id") !== INITIALIZE_ID) continue;
    if (str(outer, "subtype") !== "success") throw new Error(`initialize failed: ${str(outer, "error") ?? "error"}`);
    const raw = rec(outer, "response")?.models;
    if (!Array.isArray(raw)) throw new Error("the initialize answer has no models list");
    const models = raw.filter(isRecord).flatMap((m) => {
      const id = str(m, "value");
      if (!id) return [];
      const levels = Array.isArray(m.supportedEffortLevels) ? m.supportedEffortLevels : [];
      return [{
        id,
        displayName: str(m, "displayName"),
        efforts: levels.filter((e): e is string => typeof e === "string"),
        defaultEffort: null,
        hidden: false,
        fast: m.supportsFastMode === true,
        resolvedModel: str(m, "resolvedModel"),
      }];
    });
    return {
      source: "claude-code-initialize",
      defaultModel: models.find((m) => m.id === "default")?.id ?? null,
      models,
    };
  }
  throw new Error("no answer to the initialize request");
}

/**
 * Runs `claude -p` in stream-json mode and asks it `initialize` (no prompt, no model request; about
 * 0.6 s on 2.1.328). Hooks and MCP servers are off for this run and nothing is saved as a session.
 */
export async function readClaudeModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  // Not platform/run.ts: stdin stays open until the answer is read, then closing it ends the CLI.
  const child = new Deno.Command(bin, {
    args: [
      "-p",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--verbose",
      "--no-session-persistence",
      "--strict-mcp-config",
      "--settings",
      JSON.stringify({ disableAllHooks: true }),
    ],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // Offline (no network at all) 2.1.328 answers only after its own connection attempts time out (~19 s).
    signal: AbortSignal.timeout(30_000),
  }).spawn();
  const request = { type: "control_request", request_id: INITIALIZE_ID, request: { subtype: "initialize" } };
  const stderr = new Response(child.stderr).text().catch(() => "");
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n")).catch(() => {});
  let out = "";
  let answered = false;
  // Read to the end: once the answer is in, closing stdin ends the CLI (its pipes are drained meanwhile).
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    out += chunk;
    if (!answered && out.includes(`"${INITIALIZE_ID}"`) && out.endsWith("\n")) {
      answered = true;
      await writer.close().catch(() => {});
    }
  }
  if (!answered) await writer.close().catch(() => {});
  const status = await child.status;
  try {
    return parseClaudeInitialize(out);
  } catch (err) {
    const why = (await stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`claude initialize (exit ${status.code}): ${(err as Error).message}${why ? `: ${why}` : ""}`);
  }
}
