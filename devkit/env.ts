/**
 * Test isolation: every test gets its own state root (hence its own private tmux socket), its own
 * HOME and TMUX_TMPDIR, and no TMUX/TMUX_PANE, so the user's default tmux server is never reached.
 * Teardown kills that server by its socket and removes the directory, even after a failure.
 */

/** One isolated environment. */
export interface TestEnv extends AsyncDisposable {
  root: string;
  stateDir: string;
  home: string;
  socketPath: string;
  env: Record<string, string>;
  /** Runs tmux against this test's private socket (for assertions only). */
  tmux(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** True when a tmux binary runs here. */
export const hasTmux: boolean = (() => {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

/** Options for {@link makeTestEnv}. */
export interface TestEnvOptions {
  /** Name of the state directory under the test root (default `s`); may hold any characters but `/`. */
  stateName?: string;
}

/** Creates an isolated environment. Use with `await using`. */
export async function makeTestEnv(extra: Record<string, string> = {}, options: TestEnvOptions = {}): Promise<TestEnv> {
  // Short path: unix socket paths are limited to ~104 bytes.
  const root = await Deno.makeTempDir({ dir: "/tmp", prefix: "ait-" });
  const stateDir = `${root}/${options.stateName ?? "s"}`;
  const home = `${root}/h`;
  await Deno.mkdir(home);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    // AITERM_TMUX_TRANSPORT passes, so a whole suite can run on the control-mode transport.
    if (k === "TMUX" || k === "TMUX_PANE" || (k.startsWith("AITERM_") && k !== "AITERM_TMUX_TRANSPORT")) continue;
    env[k] = v;
  }
  Object.assign(env, { AITERM_STATE_DIR: stateDir, HOME: home, TMUX_TMPDIR: root, AITERM_LOG: "warn" }, extra);
  const socketPath = `${stateDir}/tmux.sock`;
  const decoder = new TextDecoder();
  const tmux = async (...args: string[]) => {
    const out = await new Deno.Command("tmux", {
      args: ["-S", socketPath, "-f", "/dev/null", ...args],
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
  };
  return {
    root,
    stateDir,
    home,
    socketPath,
    env,
    tmux,
    async [Symbol.asyncDispose]() {
      await tmux("kill-server").catch(() => {});
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes (tests only). */
export async function eventually<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  label = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
}
