/**
 * Parent delivery with the REAL Codex CLI (0.169.0) as the parent. The parent TUI runs in its own tmux
 * server on a private socket (not aiterm's), with a throwaway HOME and CODEX_HOME, against the
 * loopback fake Responses server. aiterm is registered through the CLI's own `codex mcp add` (the
 * MCP server gets none of the parent's variables, so the state root, the child CLI, the codex binary
 * and CODEX_HOME go in with `--env`). The fake model answers an `MCPCALL` prompt with a
 * `function_call` of `agent_launch` in the `mcp__aiterm` namespace (child: the FAKE claude CLI), then
 * ends the turn with text. Nothing is typed afterwards: aiterm must add the child's answer to the
 * thread's official queue, and Codex must run it by itself, exactly once.
 *
 * Observed with 0.169.0 (facts the docs rely on):
 * - `-c mcp_servers.aiterm.default_tools_approval_mode="approve"` lets the call run with no dialog.
 * - The MCP result reaches the model as a `function_call_output` whose `output` is the string
 *   `Wall time: N seconds\nOutput:\n<aiterm's JSON receipt>`.
 * - The queued answer arrives as a new model request, by itself, whose last input item is a plain
 *   `role:"user"` message with one `input_text`: aiterm's header line, a blank line, the answer
 *   (nothing wraps it). Its `x-codex-turn-metadata` header says `"turn_trigger":"queue"` (a typed
 *   prompt says `"user"`); the screen shows it as a user prompt (`› [aiterm] answer from …`) followed
 *   by the model's reply; the rollout records a `UserMessage` whose `client_id` is the delivery id.
 */
import { gitProject } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { claudeSlug, findFiles, findVendorClis, PrivateTmux, readJsonl, vendorHome } from "../helpers/vendor.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { RecordedRequest } from "../fixtures/fake_api/mod.ts";
import { connect, registeredServerCommand } from "../helpers/mcp.ts";

const clis = findVendorClis();
const FAKE_CLAUDE = new URL("../fixtures/bin/claude", import.meta.url).pathname;
const why = !hasTmux
  ? " [ignored: tmux missing]"
  : clis.codex
  ? ""
  : " [ignored: the real codex CLI is not installed; run scripts/install_vendor_clis.sh]";
// deno-lint-ignore no-console
if (why) console.log(`codex_parent_real_test:${why}`);

const HEADER = "[aiterm] answer from child agent session";

interface Item {
  type?: string;
  role?: string;
  name?: string;
  namespace?: string;
  call_id?: string;
  output?: unknown;
  content?: string | { type?: string; text?: string }[];
}
interface Body {
  input?: Item[];
  tools?: { type?: string; name?: string }[];
}
interface Receipt {
  session_id: string;
  wait_process: unknown;
  parent_delivery: { delivery_id: string; parent: string; state: string } | null;
}

const bodyOf = (r: RecordedRequest): Body => r.body && typeof r.body === "object" ? r.body as Body : {};

/** Main-loop model requests (those that offer tools; thread-title requests offer none). */
function modelRequests(reqs: RecordedRequest[]): RecordedRequest[] {
  return reqs.filter((r) => r.method === "POST" && r.path.endsWith("/responses"))
    .filter((r) => (bodyOf(r).tools ?? []).length > 0);
}

/** The text of an input item (message content parts, or a tool output in any of its shapes). */
function textOf(it: Item | undefined): string {
  if (!it) return "";
  if (typeof it.content === "string") return it.content;
  if (Array.isArray(it.content)) return it.content.map((c) => c.text ?? "").join("\n");
  const o = it.output;
  if (typeof o === "string") return o;
  if (Array.isArray(o)) return o.map((c) => (c as { text?: string }).text ?? "").join("\n");
  return o === undefined ? "" : JSON.stringify(o);
}

/** `turn_trigger` of the `x-codex-turn-metadata` header Codex sends with each model request. */
function turnTrigger(r: RecordedRequest): unknown {
  try {
    return JSON.parse(r.headers["x-codex-turn-metadata"] ?? "{}").turn_trigger;
  } catch {
    return undefined;
  }
}

/** The last user-role message of a request. */
const lastUser = (r: RecordedRequest): Item | undefined => (bodyOf(r).input ?? []).findLast((i) => i.role === "user");

/** The cache this test runs with, so the MCP server starts warm under the throwaway HOME. */
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
  { title: "the parent sits idle until the child finishes", childPrompt: "SLOW child task", holdChild: true },
];

for (const k of CASES) {
  Deno.test({
    name: `real codex parent: ${k.title}; the queued answer runs as a new turn by itself, once${why}`,
    ignore: !!why,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const parentProj = await gitProject(t, "parent");
      const childProj = await gitProject(t, "child");
      await using api = startFakeOpenAI();
      await using vh = await vendorHome("codex", { apiUrl: api.url, cwd: parentProj, trusted: true });
      const cache = await denoDir();
      const server = registeredServerCommand();
      const mcpEnv = {
        AITERM_STATE_DIR: t.stateDir,
        CLAUDE_BIN: FAKE_CLAUDE,
        CODEX_BIN: clis.codex!,
        CODEX_HOME: vh.configDir,
        ...(cache ? { DENO_DIR: cache } : {}),
      };
      // What the same server command offers over MCP, asked directly (own state root): a Codex whose
      // aiterm server failed just offers the model no aiterm tools, which would show up much later.
      const offered = async () => {
        try {
          await using c = await connect({ ...vh.env, ...mcpEnv, AITERM_STATE_DIR: `${t.root}/probe` }, "probe");
          return (await c.client.listTools()).tools.map((x) => x.name).join(",");
        } catch (e) {
          return `error: ${(e as Error).message}`;
        }
      };
      const before = await offered();
      assert(/(^|,)agent_launch(,|$)/.test(before), `the aiterm server offers no agent_launch: ${before}`);
      const add = await new Deno.Command(clis.codex!, {
        args: [
          "mcp",
          "add",
          "aiterm",
          ...Object.entries(mcpEnv).flatMap(([key, v]) => ["--env", `${key}=${v}`]),
          "--",
          server.command,
          ...server.args,
        ],
        env: vh.env,
        clearEnv: true,
        cwd: parentProj,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(add.code, 0, new TextDecoder().decode(add.stderr));

      // The MCP tool runs without a dialog; a cold server start gets more than the default 10 s.
      const parent = await PrivateTmux.start({
        env: vh.env,
        cwd: parentProj,
        argv: [
          clis.codex!,
          "--no-alt-screen",
          "-c",
          'mcp_servers.aiterm.default_tools_approval_mode="approve"',
          "-c",
          "mcp_servers.aiterm.startup_timeout_sec=120",
        ],
      });
      let held: number[] = [];
      try {
        const fail = async (e: Error) => {
          throw new Error(`${e.message}\n--- parent screen ---\n${await parent.screen(200)}`);
        };
        const idle = (s: string) => s.includes("? for shortcuts") && !s.includes("esc to interrupt");
        // 0.169 creates the thread, and starts the MCP servers, only when the first prompt is submitted
        // (the screen says `Waiting for startup` meanwhile).
        await parent.waitFor(idle, 120_000, "idle composer").catch(fail);
        const input = { harness: "claude-code", cwd: childProj, trust_project: true, prompt: k.childPrompt };
        await parent.submit(`MCPCALL mcp__aiterm__agent_launch ${JSON.stringify(input)}`);
        // Codex offers aiterm's tools to the model as one namespace holding agent_launch.
        const first = await eventually(() => Promise.resolve(modelRequests(api.requests)[0]), 120_000, "a request")
          .catch(fail);
        const ns = (bodyOf(first).tools ?? []).find((x) => x.type === "namespace" && x.name === "mcp__aiterm") as
          | { tools?: { name?: string }[] }
          | undefined;
        assert(
          ns?.tools?.some((x) => x.name === "agent_launch"),
          `Codex offered the model no mcp__aiterm.agent_launch; the server offers now: ${await offered()}\n` +
            (await parent.screen(200)),
        );
        const childTranscript = () => findFiles(`${vh.home}/.claude/projects/${claudeSlug(childProj)}`, /\.jsonl$/);
        if (k.holdChild) {
          // Stop the child as soon as its turn has started (its prompt is in its transcript, which is
          // all agent_launch needs), well inside the 3 s of a SLOW turn.
          await eventually(
            async () => {
              const [path] = await childTranscript();
              return path && (await readJsonl(path)).some((r) => r.type === "user");
            },
            120_000,
            "the child's turn start",
          ).catch(fail);
          held = await childTree(t);
          assert(held.length > 0, "no child process to hold");
          signalAll(held, "SIGSTOP");
        }

        // (1) The request after the tool call carries aiterm's receipt in the function_call_output.
        const withResult = await eventually(
          () =>
            Promise.resolve(
              modelRequests(api.requests).find((r) => (bodyOf(r).input ?? []).at(-1)?.type === "function_call_output"),
            ),
          120_000,
          "the request carrying the function_call_output",
        ).catch(fail);
        const items = bodyOf(withResult).input ?? [];
        const call = items.find((i) => i.type === "function_call");
        assertEquals([call?.namespace, call?.name], ["mcp__aiterm", "agent_launch"]);
        const out = items.at(-1)!;
        assertEquals(out.call_id, call?.call_id);
        const resultText = textOf(out);
        const json = resultText.split("\n").reverse().find((l) => l.trim().startsWith("{"));
        assert(json, `no receipt JSON in the function_call_output: ${resultText}`);
        const receipt = JSON.parse(json) as Receipt;
        assert(receipt.parent_delivery, resultText);
        assertEquals([receipt.parent_delivery.parent, receipt.wait_process], ["codex", null]);
        assertMatch(receipt.parent_delivery.state, /^(waiting|ready|sending|submitted)$/);
        const id = receipt.parent_delivery.delivery_id;
        const recPath = `${t.stateDir}/parent-deliveries/${id}.json`;
        const readRec = async () => JSON.parse(await Deno.readTextFile(recPath)) as Record<string, unknown>;
        const dest = (await readRec()).destination as { thread_id: string; codex_home: string };
        // The thread is the parent's own: the one the TUI's requests are made for.
        assertEquals(dest.codex_home, vh.configDir);
        assertEquals(withResult.headers["thread-id"], dest.thread_id);

        if (k.holdChild) {
          // The child cannot finish while stopped: the parent ends its turn and sits idle, no input.
          assertEquals((await readRec()).state, "waiting", "the child finished before it was held");
          await parent.waitFor((s) => idle(s) && s.includes("MOCK_AFTER_TOOL done."), 60_000, "parent idle")
            .catch(fail);
          assertEquals((await readRec()).state, "waiting");
          assertEquals(modelRequests(api.requests).filter((r) => textOf(lastUser(r)).includes(HEADER)), []);
          signalAll(held, "SIGCONT");
          held = [];
        }

        // (2) A new request arrives by itself whose newest user message holds the header and the answer.
        const woken = await eventually(
          () => Promise.resolve(modelRequests(api.requests).find((r) => textOf(lastUser(r)).includes(HEADER))),
          120_000,
          "the woken request",
        ).catch(fail);
        const last = (bodyOf(woken).input ?? []).at(-1)!;
        const text = textOf(last);
        assertEquals(last.role, "user");
        assertStringIncludes(text, `ANSWER(${k.childPrompt})`);
        // Byte-exact: the header line, a blank line, then the answer aiterm saved.
        const saved = await Deno.readTextFile(`${t.stateDir}/parent-deliveries/${id}.body`);
        assertEquals(text, `${HEADER} "${receipt.session_id}" (claude-code), turn 0: done\n\n${saved}`);
        // Codex itself says why this turn started: its queue, not a user (the MCPCALL turn says "user").
        assertEquals(woken.headers["thread-id"], dest.thread_id);
        assertEquals(turnTrigger(woken), "queue");
        assertEquals(turnTrigger(modelRequests(api.requests)[0]!), "user");
        // Nobody typed: the only human prompt in the conversation is the MCPCALL line.
        const humans = (bodyOf(woken).input ?? []).filter((i) => i.role === "user" && textOf(i).includes("MCPCALL "));
        assertEquals(humans.length, 1);

        // (3) The record says the queue took it.
        const rec = await readRec();
        assertEquals([rec.state, rec.child_outcome, rec.received_by], ["submitted", "done", "codex_queue"]);
        assert(typeof rec.queued_submission_id === "string" && rec.queued_submission_id.length > 0, "no queue id");

        // (4) Exactly once: the woken turn ends, and a few seconds later no other request carries it.
        await parent.waitFor((s) => idle(s) && s.includes(`MOCK_REPLY ${HEADER}`), 60_000, "woken turn end")
          .catch(fail);
        await new Promise((r) => setTimeout(r, 3000));
        const carrying = modelRequests(api.requests).filter((r) => textOf(lastUser(r)).includes(HEADER));
        assertEquals(carrying.length, 1);
        const final = modelRequests(api.requests).at(-1)!;
        assertEquals((bodyOf(final).input ?? []).filter((i) => textOf(i).includes(HEADER)).length, 1);
        // The thread's rollout holds it once, as a user message whose client_id is the delivery id.
        const [rollout] = await findFiles(`${vh.configDir}/sessions`, new RegExp(`-${dest.thread_id}\\.jsonl$`));
        assert(rollout, "no rollout for the parent thread");
        const events = await readJsonl(rollout);
        const users = events.map((r) => r.payload as Record<string, unknown> | undefined)
          .map((p) => p?.type === "item_completed" ? p.item as Record<string, unknown> : undefined)
          .filter((i) => i?.type === "UserMessage");
        const ours = users.filter((i) => JSON.stringify(i?.content).includes(HEADER));
        assertEquals(ours.map((i) => i?.client_id), [id]);

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
            tool_output_request_ms: withResult.at,
            child_turn_end_ms: endMs,
            delivery_ready_ms: rec.ready_at_ms,
            delivery_submitted_ms: rec.updated_at_ms,
            parent_first_turn_end_ms: Date.parse(
              String(events.find((r) => (r.payload as { type?: string })?.type === "task_complete")?.timestamp),
            ),
            woken_request_ms: woken.at,
            child_end_to_woken_request_ms: woken.at - endMs,
            submitted_to_woken_request_ms: woken.at - Number(rec.updated_at_ms),
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
