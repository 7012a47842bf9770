/** What the parent-delivery end-to-end tests share: a fake-Claude environment, calls as a client, hook processes. */
import { makeTestEnv, type TestEnv } from "./env.ts";
import type { TestClient } from "./mcp.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A test environment whose `claude` is the fake CLI, with a project folder `proj`. */
export async function fakeClaudeEnv(): Promise<TestEnv> {
  const t = await makeTestEnv();
  t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
  await Deno.mkdir(`${t.root}/proj`);
  return t;
}

/** A tools/call with the `_meta` a client sends: the result, its error code, its structuredContent and text. */
export async function callAs<R>(
  c: TestClient,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown>,
): Promise<{ ok: R | null; code: string | null; sc: Record<string, unknown>; text: string }> {
  const r = await c.client.callTool({ name, arguments: args, _meta: meta }, undefined, { timeout: 120_000 });
  const first = (r.content as { type: string; text?: string }[])[0];
  const text = first?.type === "text" ? first.text ?? "" : "";
  const sc = (r.structuredContent ?? {}) as Record<string, unknown>;
  if (r.isError) return { ok: null, code: (sc as { code?: string }).code ?? null, sc, text };
  return { ok: sc as unknown as R, code: null, sc, text };
}

/** What a process of {@link startAiterm} ended with. */
export interface ProcessEnd {
  code: number;
  stdout: string;
  stderr: string;
  /** When it ended (Date.now()), and how long it ran. */
  at: number;
  ms: number;
}

/** Starts `aiterm-mcp <argv>` the way a client starts a hook (JSON on stdin); `done` gives its end. */
export function startAiterm(
  t: TestEnv,
  argv: string[],
  input: unknown,
): { done: Promise<ProcessEnd>; kill: () => void } {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...argv],
    env: t.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  void w.write(new TextEncoder().encode(input === null ? "" : JSON.stringify(input))).then(() => w.close());
  const started = Date.now();
  const done = child.output().then((o) => ({
    code: o.code,
    stdout: new TextDecoder().decode(o.stdout),
    stderr: new TextDecoder().decode(o.stderr),
    at: Date.now(),
    ms: Date.now() - started,
  }));
  return {
    done,
    kill: () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

/** A delivery record under the state root (`<dir>/<id>.json`). */
export async function deliveryRecord(t: TestEnv, dir: string, id: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(`${t.stateDir}/${dir}/${id}.json`));
}
