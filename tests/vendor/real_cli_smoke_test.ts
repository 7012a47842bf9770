/**
 * Smoke tests of the REAL vendor CLIs (Claude Code 2.1.328, Codex CLI 0.169.0) in a real PTY (tmux on
 * a private socket) against the loopback fake model servers. They prove the real CLIs run offline here
 * and pin the facts the adapters rely on. Install the CLIs first: `scripts/install_vendor_clis.sh`
 * (otherwise these tests are ignored; the test names say why).
 *
 * Observed on Claude Code 2.1.328 / Codex 0.169.0, differing from facts.md (written for 2.1.197 / 0.171.0):
 *
 * Claude Code 2.1.328
 * - Trust dialog: the options are NOT numbered and the order is reversed — `❯ No, exit` is first
 *   (selected), `Yes, I trust this folder` second. Enter right away EXITS. Press Down, then Enter.
 *   Header/body text is unchanged ("Accessing workspace:", "Quick safety check: …",
 *   "Claude Code'll be able to read, edit, and execute files here.", "Security guide",
 *   "Enter to confirm · Esc to cancel"). Accepting writes projects[<realpath>].hasTrustDialogAccepted.
 * - The default permission mode is now `auto` (not `default`): an "Auto mode is now Claude Code's
 *   default permission mode." banner (lines starting with `▎`) appears above the composer, the
 *   footer is `  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents` — there is NO `? for shortcuts`
 *   at idle — and the effort indicator (`◐ medium · /effort`) sits on its own line ABOVE the top
 *   `────` rule instead of on the footer line. Records carry `permissionMode:"auto"`.
 * - The welcome box is gone: the header is a 3-line logo block `▐▛███▛█   Claude Code v2.1.328` /
 *   `Opus 5.5 · API Usage Billing` / `<cwd>`. Default model `claude-opus-5-5`.
 * - Turn done: `✻ <Verb> for 0s · done 4:11 PM` (wall-clock suffix added). Busy: `✶ Billowing…` (glyph
 *   and verb vary) and `esc to interrupt` in the footer, e.g. `  ⏸ manual mode on · esc to interrupt ·
 *   ← for agents`.
 * - `--permission-mode default` is now shown as "manual mode": idle footer
 *   `  ⏸ manual mode on · ? for shortcuts · ← for agents`. A read-only `echo` via Bash ran without a
 *   permission dialog in both auto and manual mode.
 * - A Bash tool call renders collapsed as `  Ran 1 shell command` (no `● Bash(echo TOOL_OK)` /
 *   `⎿  TOOL_OK` lines) and ran without a permission dialog (auto mode).
 * - API error (HTTP 400): screen `● API Error: 400 Mock 400 error`; the transcript gets the synthetic
 *   assistant record (isApiErrorMessage:true, apiErrorStatus:400, apiErrorType, error:"unknown",
 *   model "<synthetic>") but NO `system/turn_duration` after it, and no `✻ … for Ns` line.
 *   The 400 is retried (4 identical requests, then more with a "ToolSearch is no longer available"
 *   fallback) before the error is shown. An adapter must treat the isApiErrorMessage record as a
 *   turn end on its own.
 * - New transcript record types: `atis-latch`, `api-request-shape`, `api-request-blob`,
 *   `api-request`, `tools-used`, `last-prompt` (written at the end of each turn, before the next
 *   `mode`/`permission-mode`/`atis-latch` trio), new attachment types (`environment`, `model`,
 *   `deferred_tools_delta`, `auto_mode`, `session_context`, `date`, `remote_session_change`,
 *   `prompt_snapshot`). User records gain `turnOrigin:"human"` and
 *   `turnPosition:{promptIndex,turnIndex}`; assistant records gain `requestRef`, `apiBlockIndex`,
 *   `madeBy`, `effort`, `perTurnEffort`, `requestedModel`, `session_id` (snake) besides `sessionId`.
 * - `gitBranch` is "HEAD" in a fresh `git init` dir and also present outside git.
 * - Fresh HOME + no network: full-screen "Welcome to Claude Code v2.1.328" art, then
 *   ` Unable to connect to Anthropic services` / ` Failed to connect to api.anthropic.com: ENOTFOUND`
 *   (ENOTFOUND here, no DNS; facts saw ECONNREFUSED) / ` Check your internet connection and network
 *   settings.` / ` Claude Code might not be available in your country. …`, exit status 1, ~1 s.
 *   It writes `~/.claude.json` and `~/.claude/` before exiting.
 * - Requests go to `POST /v1/messages?beta=true`; no `HEAD /` preflight was seen with
 *   hasCompletedOnboarding:true and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1; no count_tokens.
 *
 * Codex CLI 0.169.0
 * - The trust dialog ("Folder access" / "Trust this folder? …" / `› 1. Trust and continue` /
 *   `2. Back to Agent Command Center` / `enter continue · esc back`) appears ONLY when the cwd is
 *   inside a git repository. A plain directory starts straight at the composer, untrusted, with no
 *   `[projects]` entry written. Esc on the dialog opens the "Agent command center" (not an exit).
 * - Idle text as in facts, but with `v0.169.0`, and a "To get started, describe a task or try one of
 *   these commands:" list (`/init`, `/status`, `/permissions`, `/model`, `/review`) on first launch.
 *   `⚠ 1 warning · f2 to view` at idle; 2 warnings after the first turn.
 * - Done: `• <answer>` then `  Worked for <1s • 16:11`; busy `• Working (1s • esc to interrupt)`.
 *   HTTP 400: `■ {"error":{…raw body…}}`, no `Worked for` line. Tool: `• Ran echo TOOL_OK` / `  └ TOOL_OK`.
 * - Rollout path/envelope as in facts (`sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<uuidv7>.jsonl`,
 *   `{timestamp,ordinal,type,payload[,metadata]}`; file created at the first prompt).
 *   `session_meta` has no `git` key outside git; new keys `account_scoped`, `runtime_workspace_roots`.
 *   `task_started` gains `turn_attribution`. `task_complete` of an API error has
 *   `last_agent_message:null`, `error:{message:<raw body>, codex_error_info:"other"}` and no
 *   `time_to_first_token_ms`.
 * - Each turn also sends a second `POST /v1/responses` WITHOUT tools: the thread-title request
 *   ("Generate a concise, single-line task title …"); the fake answers it `Mock title`.
 * - A prompt submitted while a turn runs is steered into the SAME turn (one task_started, two
 *   UserMessage items, one task_complete); a 400 on the steered request fails the whole turn.
 * - Daemon: feature `daemon_auto_start` is stable/true in 0.169.0 and `--no-daemon` exists. With the
 *   default, the TUI copies itself to `$CODEX_HOME/packages/app-server-daemon/releases/
 *   0.169.0-x86_64-unknown-linux-musl/bin/codex` and starts `codex app-server --listen unix://
 *   --analytics-default-enabled --managed-daemon` plus `codex app-server daemon pid-update-loop`
 *   (pid files `$CODEX_HOME/app-server-daemon/daemon.pid`, `daemon-updater.pid`); both survive the
 *   TUI (reparented to init), and Ctrl-C prints "Disconnected from this task. Any running work
 *   continues." before the "To reconnect, run:" block. With `[features] daemon_auto_start = false`
 *   in config.toml (what vendorHome writes) no background process is started at all.
 *   A CODEX_HOME under /tmp makes Codex warn "Refusing to create helper binaries under temporary
 *   dir"; vendorHome therefore lives under the vendor cache.
 * - The npm wrapper (`bin/codex.js`) cannot `execve` on Node 20 and stays as a parent process; the
 *   tests launch the native binary directly.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux } from "../helpers/env.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import {
  CLAUDE_RECORD_KEYS,
  claudeSlug,
  CODEX_RECORD_KEYS,
  findFiles,
  findVendorClis,
  missingKeys,
  PrivateTmux,
  readJsonl,
  vendorHome,
} from "../helpers/vendor.ts";

const clis = findVendorClis();
const why = (cli: string | null) =>
  !hasTmux ? " [ignored: tmux missing]" : cli ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

type Rec = Record<string, unknown>;

async function waitRecords(path: () => Promise<string | null>, pred: (recs: Rec[]) => boolean, label: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const p = await path();
    const recs = p ? await readJsonl(p) : [];
    if (pred(recs)) return recs;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}; ${recs.length} records in ${p}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function gitProject(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ dir: "/tmp", prefix: "aitv-proj-" }));
  const r = await new Deno.Command("git", { args: ["init", "-q", dir], stdout: "null", stderr: "null" }).output();
  assert(r.success, "git init");
  return dir;
}

const payload = (r: Rec) => (r.payload ?? {}) as Rec;

Deno.test({
  name: `real claude ${"2.1.328"}: trust, answer, transcript, API error${why(clis.claude)}`,
  ignore: !clis.claude || !hasTmux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using srv = startFakeAnthropic();
    const proj = await gitProject();
    await using vh = await vendorHome("claude", { apiUrl: srv.url, cwd: proj, trusted: false });
    const sid = crypto.randomUUID();
    try {
      await using t = await PrivateTmux.start({ env: vh.env, cwd: proj, argv: [clis.claude!, "--session-id", sid] });
      // Trust dialog: 2.1.328 lists "No, exit" first; move the cursor onto "Yes" before Enter.
      await t.waitFor("Yes, I trust this folder", 20_000, "trust dialog");
      for (let i = 0; i < 10 && !/❯ (\d\. )?Yes, I trust this folder/.test(await t.screen()); i++) {
        await t.keys("Down");
        await new Promise((r) => setTimeout(r, 300));
      }
      await t.waitFor(/❯ (\d\. )?Yes, I trust this folder/, 2_000, "cursor on Yes");
      await t.keys("Enter");
      const idle = (s: string) => /^❯\s*$/m.test(s) && !s.includes("esc to interrupt") && s.includes("────");
      await t.waitFor(idle, 20_000, "idle composer");
      const state = JSON.parse(await Deno.readTextFile(`${vh.home}/.claude.json`));
      assertEquals(state.projects?.[proj]?.hasTrustDialogAccepted, true);

      const transcript = `${vh.configDir}/projects/${claudeSlug(proj)}/${sid}.jsonl`;
      const tpath = () => Promise.resolve(transcript);

      // (a) + (b): an answer and the end-of-turn record.
      await t.submit("hello there mock");
      await t.waitFor("● MOCK_REPLY hello there mock", 20_000, "answer on screen");
      let recs = await waitRecords(
        tpath,
        (rs) => rs.some((r) => r.type === "system" && r.subtype === "turn_duration"),
        "turn_duration",
      );
      const user = recs.find((r) => r.type === "user" && (r.message as Rec)?.content === "hello there mock");
      assert(user, "user record");
      assertEquals(missingKeys(user, CLAUDE_RECORD_KEYS.user), []);
      assertEquals((user.origin as Rec)?.kind, "human");
      assertEquals(user.sessionId, sid);
      assertEquals(user.cwd, proj);
      const answer = recs.find((r) =>
        r.type === "assistant" &&
        JSON.stringify((r.message as Rec)?.content).includes("MOCK_REPLY hello there mock")
      );
      assert(answer, "assistant record");
      assertEquals(missingKeys(answer, CLAUDE_RECORD_KEYS.assistant), []);
      const td = recs.find((r) => r.type === "system" && r.subtype === "turn_duration");
      assertEquals(missingKeys(td, CLAUDE_RECORD_KEYS.turnDuration), []);
      assert(recs.indexOf(td!) > recs.indexOf(answer), "turn_duration after the answer");
      await t.waitFor(idle, 10_000, "idle after turn");

      // (c) API error: synthetic assistant record; 2.1.328 writes no turn_duration after it.
      const before = recs.length;
      await t.submit("ERR400 now");
      recs = await waitRecords(tpath, (rs) => rs.some((r) => r.isApiErrorMessage === true), "API error record");
      const err = recs.find((r) => r.isApiErrorMessage === true)!;
      assertEquals(missingKeys(err, CLAUDE_RECORD_KEYS.apiError), []);
      assertEquals(err.apiErrorStatus, 400);
      assertEquals((err.message as Rec)?.model, "<synthetic>");
      await t.waitFor("API Error: 400 Mock 400 error", 10_000, "API error on screen");
      await t.waitFor(idle, 10_000, "idle after error");
      await new Promise((r) => setTimeout(r, 500));
      recs = await readJsonl(transcript);
      const afterErr = recs.slice(recs.indexOf(recs.find((r) => r.isApiErrorMessage === true)!));
      assertEquals(afterErr.filter((r) => r.subtype === "turn_duration").length, 0, "no turn_duration after API error");
      assert(recs.length > before);

      // Ctrl-C twice exits.
      await t.keys("C-c");
      await t.waitFor("Press Ctrl-C again to exit", 5_000);
      await t.keys("C-c");
      for (let i = 0; i < 50 && !(await t.paneState()).dead; i++) await new Promise((r) => setTimeout(r, 100));
      assert((await t.paneState()).dead, "claude exited after Ctrl-C twice");
    } finally {
      await Deno.remove(proj, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: `real claude: fresh HOME without network config prints "Unable to connect" and exits${why(clis.claude)}`,
  ignore: !clis.claude || !hasTmux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = await Deno.makeTempDir({ dir: "/tmp", prefix: "aitv-home-" });
    const proj = await Deno.makeTempDir({ dir: "/tmp", prefix: "aitv-proj-" });
    const env = { HOME: home, PATH: "/usr/bin:/bin", TERM: "xterm-256color", LANG: "C.UTF-8" };
    try {
      await using t = await PrivateTmux.start({
        env,
        cwd: proj,
        argv: ["sh", "-c", '"$0"; echo "EXIT_STATUS=$?"', clis.claude!],
      });
      const screen = await t.waitFor("Unable to connect to Anthropic services", 20_000);
      assert(/Failed to connect to api\.anthropic\.com: E[A-Z]+/.test(screen), screen);
      // tmux 3.3a sometimes reports a dead pane with an empty #{pane_dead_status}; the wrapper
      // prints the status instead.
      await t.waitFor("EXIT_STATUS=1", 10_000, "exit status 1");
    } finally {
      await Deno.remove(home, { recursive: true }).catch(() => {});
      await Deno.remove(proj, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: `real codex ${"0.169.0"}: trust, answer, rollout, API error${why(clis.codex)}`,
  ignore: !clis.codex || !hasTmux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using srv = startFakeOpenAI();
    const proj = await gitProject();
    await using vh = await vendorHome("codex", { apiUrl: srv.url, cwd: proj, trusted: false });
    try {
      await using t = await PrivateTmux.start({ env: vh.env, cwd: proj, argv: [clis.codex!] });
      await t.waitFor("Trust this folder?", 20_000, "trust dialog");
      await t.waitFor("› 1. Trust and continue", 5_000);
      const idle = (s: string) =>
        s.includes("› Ask Codex to do anything") && s.includes("? for shortcuts") && !s.includes("esc to interrupt");
      // Under load the dialog is drawn before codex reads its input, and an Enter sent at that moment
      // is lost. Press Enter again (bounded) while the dialog is still on the visible screen; once it
      // is gone, an extra Enter would only hit an empty composer.
      for (let i = 0; i < 5; i++) {
        await t.keys("Enter");
        let gone = false;
        for (const end = Date.now() + 4_000; !gone && Date.now() < end;) {
          await new Promise((r) => setTimeout(r, 100));
          const visible = await t.screen();
          gone = idle(visible) || !visible.includes("Trust this folder?");
        }
        if (gone) break;
      }
      await t.waitFor(idle, 20_000, "idle composer");
      const toml = await Deno.readTextFile(`${vh.configDir}/config.toml`);
      assert(toml.includes(`[projects."${proj}"]\ntrust_level = "trusted"`), toml);

      // (a) + (b)
      await t.submit("hello codex mock");
      await t.waitFor("• MOCK_REPLY hello codex mock", 20_000, "answer on screen");
      await t.waitFor("Worked for", 10_000);
      const rollout = async () => (await findFiles(`${vh.configDir}/sessions`, /^rollout-.*\.jsonl$/))[0] ?? null;
      let recs = await waitRecords(
        rollout,
        (rs) => rs.some((r) => r.type === "event_msg" && payload(r).type === "task_complete"),
        "task_complete",
      );
      const path = (await rollout())!;
      assert(
        /\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/
          .test(
            path,
          ),
        path,
      );
      for (const r of recs) assertEquals(missingKeys(r, CODEX_RECORD_KEYS.envelope), [], JSON.stringify(r));
      const meta = recs.find((r) => r.type === "session_meta");
      assert(meta, "session_meta");
      assertEquals(missingKeys(payload(meta), CODEX_RECORD_KEYS.sessionMeta), []);
      assertEquals(payload(meta).cwd, proj);
      const started = recs.find((r) => payload(r).type === "task_started")!;
      assertEquals(missingKeys(payload(started), CODEX_RECORD_KEYS.taskStarted), []);
      const turnId = payload(started).turn_id;
      const um = recs.find((r) =>
        payload(r).type === "item_completed" && (payload(r).item as Rec)?.type === "UserMessage"
      )!;
      assertEquals(missingKeys(payload(um), CODEX_RECORD_KEYS.itemCompleted), []);
      assert(JSON.stringify(payload(um).item).includes("hello codex mock"));
      const msg = recs.find((r) => r.type === "response_item" && payload(r).role === "assistant")!;
      assertEquals(missingKeys(payload(msg), CODEX_RECORD_KEYS.message), []);
      const done = recs.find((r) => payload(r).type === "task_complete")!;
      assertEquals(missingKeys(payload(done), CODEX_RECORD_KEYS.taskComplete), []);
      assertEquals(payload(done).turn_id, turnId);
      assertEquals(payload(done).last_agent_message, "MOCK_REPLY hello codex mock");
      await t.waitFor(idle, 10_000, "idle after turn");

      // (c) API error
      await t.submit("ERR400 now");
      recs = await waitRecords(
        rollout,
        (rs) => rs.filter((r) => payload(r).type === "task_complete").length >= 2,
        "second task_complete",
      );
      const failed = recs.filter((r) => payload(r).type === "task_complete")[1]!;
      assertEquals(missingKeys(payload(failed), CODEX_RECORD_KEYS.taskCompleteError), []);
      assertEquals(payload(failed).last_agent_message, null);
      assert(JSON.stringify(payload(failed).error).includes("Mock 400 error"));
      await t.waitFor(/■ \{"error"/, 10_000, "error on screen");
      // No daemon: nothing but the TUI itself runs with this CODEX_HOME.
    } finally {
      await Deno.remove(proj, { recursive: true }).catch(() => {});
    }
  },
});
