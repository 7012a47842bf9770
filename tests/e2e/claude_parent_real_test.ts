/**
 * Parent delivery with the REAL Claude Code (2.1.328) as the parent. The parent runs in its own tmux
 * server on a private socket (not aiterm's), with a throwaway HOME, against the loopback fake
 * Anthropic server. aiterm is registered as a user-scope MCP server through the CLI's own `mcp add`,
 * and its hooks are written into `~/.claude/settings.json` by the function `aiterm-mcp setup` uses.
 * The fake model answers a `MCPCALL` prompt with a tool_use of `mcp__aiterm__agent_launch` (child:
 * the FAKE claude CLI), then ends the turn with text. Nothing is typed afterwards: the child's answer
 * must reach the model by itself, through Claude Code's PostToolUse `asyncRewake` hook, exactly once.
 *
 * Observed with 2.1.328 (facts the docs rely on):
 * - The woken request is a new `/v1/messages` call whose LAST message is `role:"user"` with one text
 *   block: `<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated
 *   background-task event, NOT a message from the user. …<task-notification>\n<summary>Stop hook
 *   feedback</summary>\n</task-notification>\n<system-reminder>\nStop hook blocking error from command
 *   "PostToolUse:mcp__aiterm__agent_launch": <the hook's stderr>…`. The screen shows
 *   `● Stop hook feedback`, then the model's reply as a turn of its own.
 * - MCP tools are announced as deferred ("available via ToolSearch") in a `role:"system"` message, yet
 *   a direct tool_use of `mcp__aiterm__agent_launch` runs (with `--allowedTools`, no dialog).
 * - The hooks run with the parent's environment, not the MCP server's `env`: AITERM_STATE_DIR given
 *   only through `claude mcp add -e` sends the PreToolUse record to the default state root, and the
 *   call is refused with CLAUDE_PARENT_HOOK_UNAVAILABLE. So this test sets it for the parent itself.
 */
import { gitProject } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { claudeSlug, findFiles, findVendorClis, PrivateTmux, readJsonl, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import type { RecordedRequest } from "../fixtures/fake_api/mod.ts";
import { installClaudeParentHooks } from "../../harnesses/clients/mod.ts";
import { registeredServerCommand } from "../helpers/mcp.ts";

const clis = findVendorClis();
const FAKE_CLAUDE = new URL("../fixtures/bin/claude", import.meta.url).pathname;
const why = !hasTmux
  ? " [ignored: tmux missing]"
  : clis.claude
  ? ""
  : " [ignored: the real claude CLI is not installed; run scripts/install_vendor_clis.sh]";
// deno-lint-ignore no-console
if (why) console.log(`claude_parent_real_test:${why}`);

const HEADER = "[aiterm] answer from child agent session";

interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  content?: string | Block[];
}
interface Msg {
  role: string;
  content: string | Block[];
}
interface Body {
  messages?: Msg[];
  tools?: unknown[];
}
interface Receipt {
  session_id: string;
  wait_process: unknown;
  parent_delivery: { delivery_id: string; parent: string; state: string } | null;
}

const bodyOf = (r: RecordedRequest): Body => r.body && typeof r.body === "object" ? r.body as Body : {};

/** Main-loop model requests (those that offer tools; titles and summaries offer none). */
function modelRequests(reqs: RecordedRequest[]): RecordedRequest[] {
  return reqs.filter((r) => r.path.startsWith("/v1/messages?") || r.path === "/v1/messages")
    .filter((r) => (bodyOf(r).tools ?? []).length > 0);
}

/** All text of a message content, tool results included. */
function textOf(c: string | Block[] | undefined): string {
  if (c === undefined) return "";
  if (typeof c === "string") return c;
  return c.map((b) => (b.text ?? "") + textOf(b.content)).join("\n");
}

/** The last user message (2.1.328 may put a `role:"system"` message after it, e.g. the deferred-tools list). */
function lastUser(r: RecordedRequest): Msg | undefined {
  return (bodyOf(r).messages ?? []).findLast((m) => m.role === "user");
}

/** The cache this test runs with, so the hook and server processes start warm under the throwaway HOME. */
async function denoDir(): Promise<string | null> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped", stderr: "null" })
    .output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir ?? null;
  } catch {
    return null;
  }
}

/** Pids of the child's process tree in aiterm's tmux server (the fake claude and whatever wraps it). */
async function childTree(t: TestEnv): Promise<number[]> {
  const panes = (await t.tmux("list-panes", "-a", "-F", "#{pane_pid}")).stdout.split("\n").filter(Boolean).map(Number);
  const parentOf = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      parentOf.set(Number(e.name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const tree = new Set(panes);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

function signalAll(pids: number[], sig: Deno.Signal): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, sig);
    } catch {
      // gone
    }
  }
}

interface Case {
  title: string;
  childPrompt: string;
  /** Hold the child (SIGSTOP) until the parent's turn has visibly ended, then let it finish. */
  holdChild: boolean;
}

const CASES: Case[] = [
  { title: "the answer is ready around the end of the parent's turn", childPrompt: "child task", holdChild: false },
  {
    title: "the parent sits idle until the child finishes",
    childPrompt: "SLOW child task",
    holdChild: true,
  },
];

for (const k of CASES) {
  Deno.test({
    name: `real claude-code parent: ${k.title}; the asyncRewake hook wakes the model with the answer, once${why}`,
    ignore: !!why,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const parentProj = await gitProject(t, "parent");
      const childProj = await gitProject(t, "child");
      await using api = startFakeAnthropic();
      await using vh = await vendorHome("claude", { apiUrl: api.url, cwd: parentProj, trusted: true });
      const cache = await denoDir();
      // The state root reaches the MCP server and the hooks alike through the parent's environment.
      const env = { ...vh.env, AITERM_STATE_DIR: t.stateDir, ...(cache ? { DENO_DIR: cache } : {}) };
      const server = registeredServerCommand();
      const hooks = await installClaudeParentHooks(server, { env, home: vh.home, dryRun: false });
      assertEquals(hooks.outcome, "written");
      // `-e` takes several values, so it goes before `-s`.
      const add = await new Deno.Command(clis.claude!, {
        args: [
          "mcp",
          "add",
          "-e",
          `CLAUDE_BIN=${FAKE_CLAUDE}`,
          "-s",
          "user",
          "aiterm",
          "--",
          server.command,
          ...server.args,
        ],
        env,
        clearEnv: true,
        cwd: parentProj,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(add.code, 0, new TextDecoder().decode(add.stderr));

      const sid = crypto.randomUUID();
      const parent = await PrivateTmux.start({
        env,
        cwd: parentProj,
        argv: [clis.claude!, "--session-id", sid, "--allowedTools", "mcp__aiterm__agent_launch"],
      });
      let held: number[] = [];
      try {
        const idle = (s: string) => /^❯\s*$/m.test(s) && !s.includes("esc to interrupt") && s.includes("────");
        await parent.waitFor(idle, 30_000, "idle composer");
        const input = { harness: "claude-code", cwd: childProj, trust_project: true, prompt: k.childPrompt };
        await parent.submit(`MCPCALL mcp__aiterm__agent_launch ${JSON.stringify(input)}`);
        const fail = async (e: Error) => {
          throw new Error(`${e.message}\n--- parent screen ---\n${await parent.screen(100)}`);
        };
        const childTranscript = () => findFiles(`${vh.home}/.claude/projects/${claudeSlug(childProj)}`, /\.jsonl$/);
        if (k.holdChild) {
          // Stop the child as soon as its turn has started (its prompt is in its transcript, which is
          // all agent_launch needs), well inside the 3 s of a SLOW turn.
          await eventually(
            async () => {
              const [path] = await childTranscript();
              return path && (await readJsonl(path)).some((r) => r.type === "user");
            },
            90_000,
            "the child's turn start",
          ).catch(fail);
          held = await childTree(t);
          assert(held.length > 0, "no child process to hold");
          signalAll(held, "SIGSTOP");
        }

        // (1) The request after the tool call carries aiterm's receipt in the tool_result.
        const withResult = await eventually(
          () =>
            Promise.resolve(
              modelRequests(api.requests).find((r) => {
                const c = lastUser(r)?.content;
                return Array.isArray(c) && c.some((b) => b.type === "tool_result");
              }),
            ),
          90_000,
          "the request carrying the tool_result",
        ).catch(fail);
        const call = (bodyOf(withResult).messages ?? []).flatMap((m) => typeof m.content === "string" ? [] : m.content)
          .find((b) => b.type === "tool_use");
        assertEquals(call?.name, "mcp__aiterm__agent_launch");
        const resultText = textOf(lastUser(withResult)!.content);
        const json = resultText.split("\n").reverse().find((l) => l.trim().startsWith("{"));
        assert(json, `no receipt JSON in the tool_result: ${resultText}`);
        const receipt = JSON.parse(json) as Receipt;
        assert(receipt.parent_delivery, resultText);
        assertEquals([receipt.parent_delivery.parent, receipt.wait_process], ["claude", null]);
        assertMatch(receipt.parent_delivery.state, /^(waiting|ready)$/);
        const id = receipt.parent_delivery.delivery_id;
        const recPath = `${t.stateDir}/claude-parent-deliveries/${id}.json`;
        const readRec = async () => JSON.parse(await Deno.readTextFile(recPath)) as Record<string, unknown>;
        // The real PreToolUse hook tied the delivery to this conversation and this tool call.
        assertEquals((await readRec()).destination, { claude_session_id: sid, tool_use_id: call?.id });

        if (k.holdChild) {
          // The child cannot finish while stopped: the parent ends its turn and sits idle, no input.
          assertEquals((await readRec()).state, "waiting", "the child finished before it was held");
          await parent.waitFor((s) => idle(s) && /MOCK_AFTER_TOOL done\.[\s\S]*· done /.test(s), 30_000, "parent idle")
            .catch(fail);
          assertEquals((await readRec()).state, "waiting");
          assertEquals(modelRequests(api.requests).filter((r) => textOf(lastUser(r)?.content).includes(HEADER)), []);
          signalAll(held, "SIGCONT");
          held = [];
        }

        // (2) A new request arrives by itself whose last message holds the header and the answer.
        const woken = await eventually(
          () =>
            Promise.resolve(
              modelRequests(api.requests).find((r) => textOf(lastUser(r)?.content).includes(HEADER)),
            ),
          90_000,
          "the woken request",
        ).catch(fail);
        // The answer is the newest message of the request, a user-role message.
        const last = (bodyOf(woken).messages ?? []).at(-1)!;
        const text = textOf(last.content);
        assertEquals(last.role, "user");
        assertStringIncludes(text, `${HEADER} "${receipt.session_id}" (claude-code), turn 0: done`);
        assertStringIncludes(text, `ANSWER(${k.childPrompt})`);
        assertStringIncludes(text, 'hook blocking error from command "PostToolUse:mcp__aiterm__agent_launch"');
        assertStringIncludes(text, "NOT USER INPUT");
        // Nobody typed: the only human prompt in the conversation is the MCPCALL line.
        const humans = (bodyOf(woken).messages ?? []).filter((m) =>
          m.role === "user" && textOf(m.content).includes("MCPCALL ")
        );
        assertEquals(humans.length, 1);

        // (3) The record says who took the body.
        const rec = await readRec();
        assertEquals([rec.state, rec.child_outcome, rec.received_by], ["submitted", "done", "claude_post_tool_use"]);

        // (4) Exactly once: the woken turn ends, and a few seconds later no other request carries it.
        await parent.waitFor((s) => idle(s) && /Stop hook feedback[\s\S]*MOCK_REPLY[\s\S]*· done /.test(s), 30_000)
          .catch(fail);
        await new Promise((r) => setTimeout(r, 3000));
        const carrying = modelRequests(api.requests).filter((r) => textOf(lastUser(r)?.content).includes(HEADER));
        assertEquals(carrying.length, 1);
        const final = modelRequests(api.requests).at(-1)!;
        const copies = (bodyOf(final).messages ?? []).filter((m) => textOf(m.content).includes(HEADER));
        assertEquals(copies.length, 1);

        // Facts for the docs (printed, not asserted): the timeline of this run.
        const [transcript] = await childTranscript();
        const childEnd = transcript
          ? (await readJsonl(transcript)).find((r) => r.subtype === "turn_duration")?.timestamp
          : undefined;
        const endMs = typeof childEnd === "string" ? Date.parse(childEnd) : NaN;
        // deno-lint-ignore no-console
        console.log(
          JSON.stringify({
            case: k.childPrompt,
            tool_result_request_ms: withResult.at,
            child_turn_end_ms: endMs,
            delivery_ready_ms: rec.ready_at_ms,
            delivery_submitted_ms: rec.updated_at_ms,
            woken_request_ms: woken.at,
            child_end_to_woken_request_ms: woken.at - endMs,
            ready_to_woken_request_ms: woken.at - Number(rec.ready_at_ms),
            model_requests: modelRequests(api.requests).length,
          }),
        );
      } finally {
        signalAll(held, "SIGCONT");
        await parent.close();
      }
    },
  });
}
