/** Shared pieces of the agent e2e tests: running a receipt's waiter, server environments, projects. */
import { assert } from "./assert.ts";
import type { TestEnv } from "./env.ts";

/** A receipt's wait_process. */
export interface WaitProcess {
  executable: string;
  args: string[];
}

/** Runs a receipt's wait_process (aiterm-wait) with `env`; returns its exit code and JSON outcome. */
export async function runWaiter(
  env: Record<string, string>,
  wp: WaitProcess,
  timeoutS = 60,
): Promise<{ code: number; json: Record<string, unknown> }> {
  const out = await new Deno.Command(wp.executable, {
    args: [...wp.args, "--timeout", String(timeoutS)],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  return { code: out.code, json: text ? JSON.parse(text) : {} };
}

/** Variables of the test process that must not reach a real CLI (keys, endpoints, config dirs). */
export const VENDOR_VAR =
  /^(?:ANTHROPIC_|CLAUDE_|CLAUDECODE|OPENAI_|CODEX_|XAI_|GROK_|MOCK_API_KEY$|HTTPS?_PROXY$|ALL_PROXY$)/i;

/** The server's environment: the test env (state dir, socket) without vendor variables, plus the CLI's. */
export function serverEnv(
  t: TestEnv,
  cli: Record<string, string>,
  extra: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(t.env)) if (!VENDOR_VAR.test(k)) env[k] = v;
  return { ...env, ...cli, ...extra };
}

/** A fresh git repository (real path) named `name` under the test root. */
export async function gitProject(t: TestEnv, name = "proj"): Promise<string> {
  const dir = `${t.root}/${name}`;
  await Deno.mkdir(dir);
  const r = await new Deno.Command("git", { args: ["init", "-q", dir], stdout: "null", stderr: "null" }).output();
  assert(r.success, "git init");
  return await Deno.realPath(dir);
}
