/**
 * Remote calls: the same tool on another host's aiterm-mcp over ssh's stdio (lib/remote prepares
 * the connection). For an agent request from a parent with automatic delivery, the delivery is
 * owned here, on the calling side: the remote aiterm only sees a plain client. Its records live in
 * the separate `remote-` store, its child keys carry a hash of the destination, completion comes
 * from the remote `aiterm-wait` (through `remote-wait`, which re-observes from the same cursor when
 * ssh itself fails) and the answer from the remote `pty_read(agent_transcript:true, raw:true)`.
 */
import { AppError, ERROR_CODES, type ErrorCode } from "../../base/errors.ts";
import { sleep } from "../../base/wait.ts";
import { runProcess } from "../../platform/mod.ts";
import {
  controlDirFor,
  relayStartFailure,
  remoteCommand,
  remoteWaitProcess,
  secretOf,
  SshConnections,
} from "../remote/mod.ts";
import type { PreparedRemote, RemoteTarget } from "../remote/mod.ts";
import type { ChildAccess, ParentDeliveryManager, TurnEnd } from "../agent/delivery/mod.ts";
import type { ChildBoundary } from "../../state/mod.ts";
import { type GuidedReceipt, receiptGuidance, receiveProcess } from "../agent/delivery/mod.ts";
import { Client, StdioClientTransport } from "./sdk.ts";
import type { CallContext, Relay, ToolDeps } from "./tool.ts";
import { RELAYED_LIMITS_KEY, relayLimits } from "./call_limits.ts";
import type { Terminal } from "../terminal/mod.ts";

/** The longest a relayed call may take (pty_read waits up to 600 s). */
const RELAY_TIMEOUT_MS = 660_000;

/** Tools whose remote receipt may start a child turn that a parent delivery waits for (their aliases too). */
const AGENT_REQUEST_TOOLS = new Set(["pty_send", "agent_launch"]);

/** The connection details a delivery record may keep: everything but the passphrase. */
export function storableTarget(t: RemoteTarget): Record<string, unknown> {
  const { passphrase: _secret, ...rest } = t;
  return rest;
}

function targetKey(t: Record<string, unknown>): string {
  return JSON.stringify([t.host, t.user ?? null, t.port ?? null, t.identity_file ?? null, t.ssh_options ?? []]);
}

/** One kept MCP session with a remote aiterm-mcp over ssh's stdio. */
interface RemoteSession {
  client: InstanceType<typeof Client>;
  version: string | undefined;
  closed: boolean;
}

/** What a {@link RemoteRelay} is built from (lib/app.ts). */
export interface RemoteRelayDeps {
  terminal: Terminal;
  env: Record<string, string>;
  version: string;
  /** The configured ssh_config file (Config.sshConfig), or null. */
  sshConfig: string | null;
  /** The process's ssh state (a fresh one when absent). */
  ssh?: SshConnections;
}

/**
 * The relay of one server process: its kept remote MCP sessions, the passphrases that worked and its
 * ssh connections. Created once by the composition root (lib/app.ts) and handed to the MCP server
 * (ToolDeps.relay) and to the remote delivery manager ({@link RemoteRelay.childAccess}).
 */
export class RemoteRelay implements Relay {
  readonly #deps: RemoteRelayDeps;
  readonly #ssh: SshConnections;
  /**
   * Passphrases that worked in this process, by destination (memory only; a restarted server has none).
   * Only a call that succeeded sets one, so a wrong passphrase never replaces the one a delivery needs.
   */
  readonly #passphrases = new Map<string, string>();
  /**
   * Sessions by connection key (destination and credentials, see `PreparedRemote.connection`), kept for
   * the life of this process (a new remote server per call costs ~1 s). A call with another identity
   * file, options or passphrase never reaches a session that someone else's credentials opened.
   */
  readonly #sessions = new Map<string, Promise<RemoteSession>>();

  constructor(deps: RemoteRelayDeps) {
    this.#deps = deps;
    this.#ssh = deps.ssh ?? new SshConnections();
  }

  async #prepare(target: RemoteTarget): Promise<PreparedRemote> {
    return await this.#ssh.prepare({
      target,
      controlDir: controlDirFor(this.#deps.terminal.stateRoot),
      env: this.#deps.env,
      sshConfig: this.#deps.sshConfig,
    });
  }

  async #openSession(target: RemoteTarget, prepared: PreparedRemote): Promise<RemoteSession> {
    const transport = new StdioClientTransport({
      command: "ssh",
      args: [...prepared.sshArgs, remoteCommand(prepared.shell, "serve")],
      env: prepared.childEnv,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: unknown) => {
      stderr = (stderr + String(chunk)).slice(-8192);
    });
    const client = new Client({ name: "aiterm-relay", version: this.#deps.version });
    try {
      await client.connect(transport, { timeout: 60_000 });
    } catch {
      await client.close().catch(() => {});
      await sleep(50);
      throw relayStartFailure(target.host, stderr, secretOf(prepared.childEnv));
    }
    const session: RemoteSession = { client, version: client.getServerVersion()?.version, closed: false };
    client.onclose = () => {
      session.closed = true;
      void this.#sessions.get(prepared.connection)?.then((kept) => {
        if (kept === session) this.#sessions.delete(prepared.connection);
      }, () => {});
    };
    return session;
  }

  /** The kept session for a connection key, opened when there is none (or the last one closed). */
  async #sessionFor(target: RemoteTarget, prepared: PreparedRemote): Promise<RemoteSession> {
    const key = prepared.connection;
    const kept = await this.#sessions.get(key)?.catch(() => null);
    if (kept && !kept.closed) return kept;
    const opening = this.#openSession(target, prepared);
    this.#sessions.set(key, opening);
    opening.catch(() => this.#sessions.delete(key));
    return await opening;
  }

  /**
   * Calls `tool` with `args` on the remote aiterm-mcp; returns its structured result and version.
   * Calls to one destination share one remote server for the life of this process; a call whose
   * connection breaks midway is an error, never retried (the remote may have acted on it).
   * @throws {AppError} the remote's own code (with the host), REMOTE_CONNECT_FAILED, REMOTE_PROTOCOL_FAILED
   */
  async call(
    tool: string,
    target: RemoteTarget,
    args: Record<string, unknown>,
    ctx: Partial<Pick<CallContext, "progress" | "signal" | "limits">> = {},
  ): Promise<{ sc: Record<string, unknown>; version: string | undefined; prepared: PreparedRemote }> {
    const prepared = await this.#prepare(target);
    const session = await this.#sessionFor(target, prepared);
    // The calling client's limits travel with the call (less the relay's own way there and back), so the remote
    // aiterm's waits and pages fit the client that will read the result (lib/mcp/server.ts relayedLimits).
    const _meta = ctx.limits ? { [RELAYED_LIMITS_KEY]: relayLimits(ctx.limits) } : undefined;
    let result;
    try {
      result = await session.client.callTool({ name: tool, arguments: args, ...(_meta ? { _meta } : {}) }, undefined, {
        timeout: RELAY_TIMEOUT_MS,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.progress ? { onprogress: (p) => void ctx.progress?.(p.progress, p.total, p.message) } : {}),
      });
    } catch (err) {
      throw new AppError(
        "REMOTE_PROTOCOL_FAILED",
        `Cannot complete ${tool} on ${target.host}: ${(err as Error).message}`,
        { data: { host: target.host }, cause: err },
      );
    }
    const sc = (result.structuredContent ?? null) as Record<string, unknown> | null;
    if (result.isError) {
      const code = typeof sc?.code === "string" ? sc.code : "";
      const message = typeof sc?.message === "string" ? sc.message : "the remote call failed";
      const suggestion = typeof sc?.suggestion === "string" ? sc.suggestion : undefined;
      if ((ERROR_CODES as readonly string[]).includes(code)) {
        throw new AppError(code as ErrorCode, `${message} (on ${target.host})`, suggestion ? { suggestion } : {});
      }
      throw new AppError("REMOTE_PROTOCOL_FAILED", `${target.host} answered ${code || "an error"}: ${message}`);
    }
    if (!sc) throw new AppError("REMOTE_PROTOCOL_FAILED", `${target.host} returned no structured result`);
    return { sc, version: session.version, prepared };
  }

  /**
   * Runs a tool call on the remote host and returns its structured result with remote_host and
   * remote_version; wait_process becomes the local remote-wait over ssh. An agent request from a
   * parent with automatic delivery gets its parent_delivery here.
   */
  async relay(
    tool: string,
    remote: RemoteTarget,
    data: unknown,
    deps: ToolDeps,
    ctx: CallContext,
  ): Promise<Record<string, unknown>> {
    const { remote: _remote, ...args } = data as Record<string, unknown>;
    const manager = AGENT_REQUEST_TOOLS.has(ctx.aliasOf ?? tool) ? deps.remoteDelivery : undefined;
    // Preflight before ssh runs: a parent without its hooks gets nothing sent anywhere.
    const dest = manager ? await manager.resolve(ctx.parent) : null;
    const storable = storableTarget(remote);
    let joined = null;
    if (manager && tool === "pty_send" && typeof args.session_id === "string") {
      const key = manager.childKey({ session_id: args.session_id, remote: storable });
      joined = await manager.checkClaim(key, dest?.key ?? "other");
      if (!joined) await manager.securePrevious(key);
    }
    const { sc, version } = await this.call(tool, remote, args, ctx);
    // Kept for this destination's deliveries only once it has logged in.
    if (remote.passphrase) this.#passphrases.set(targetKey(remote), remote.passphrase);
    const out: Record<string, unknown> = { ...sc, remote_host: remote.host };
    if (version) out.remote_version = version;
    const wp = sc.wait_process as { args?: unknown } | null | undefined;
    if (wp && Array.isArray(wp.args)) {
      const rewritten = remoteWaitProcess(await this.#prepare(remote), wp.args.map(String));
      out.wait_process = rewritten;
      if ("wait_command" in sc) out.wait_command = [rewritten.executable, ...rewritten.args.map(shellQuote)].join(" ");
    }
    if (!manager) return withGuidance(tool, out, ctx);
    const cursor = typeof sc.event_cursor === "number" ? sc.event_cursor : null;
    const isNewTurn = cursor !== null && (tool !== "pty_send" || sc.mode === "agent_dispatch");
    if (dest && isNewTurn && typeof sc.session_id === "string") {
      const rec = await manager.create(dest, {
        session_id: sc.session_id,
        launch_id: typeof sc.launch_id === "string" ? sc.launch_id : "",
        harness: typeof sc.harness === "string" ? sc.harness : "",
        cursor,
        generation: typeof sc.generation === "string" ? sc.generation : null,
        remote: storable,
      });
      manager.start(rec);
      out.parent_delivery = await manager.receipt(rec);
      const receiver = manager.parent(rec.parent)?.receiveSubcommand;
      out.wait_process = receiver ? receiveProcess(receiver, rec.delivery_id) : null;
      if ("wait_command" in sc) out.wait_command = null;
    } else if (joined && sc.mode === "agent_steer") {
      out.parent_delivery = await manager.receipt(joined);
    }
    return withGuidance(tool, out, ctx);
  }

  /** How the delivery core reaches a remote child: the remote waiter over ssh and the remote transcript. */
  childAccess(): ChildAccess {
    const targetOf = (child: ChildBoundary): RemoteTarget => {
      const t = { ...(child.remote ?? {}) } as RemoteTarget;
      const secret = this.#passphrases.get(targetKey(t as unknown as Record<string, unknown>));
      return secret && !t.passphrase_env ? { ...t, passphrase: secret } : t;
    };
    return {
      wait: async (child: ChildBoundary, timeoutMs: number): Promise<TurnEnd> => {
        const target = targetOf(child);
        const prepared = await this.#prepare(target);
        const waitArgs = ["--session", child.session_id, "--cursor", String(child.cursor)];
        if (child.generation) waitArgs.push("--generation", child.generation);
        waitArgs.push("--timeout", String(Math.ceil(timeoutMs / 1000)));
        const wp = remoteWaitProcess(prepared, waitArgs);
        const out = await runProcess(wp.executable, { args: wp.args, env: prepared.childEnv, clearEnv: true });
        let parsed: { outcome?: string; turn_id?: string | null; error?: string | null } = {};
        try {
          parsed = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}");
        } catch {
          parsed = {};
        }
        const outcome = parsed.outcome;
        if (outcome === "blocked") {
          // Stuck, not finished: keep waiting (the parent can look with pty_observe); do not spin on ssh.
          await sleep(5000);
          return { outcome: "timeout", turn_id: parsed.turn_id ?? null, error: null };
        }
        if (outcome === "done" || outcome === "closed" || outcome === "error" || outcome === "timeout") {
          return { outcome, turn_id: parsed.turn_id ?? null, error: parsed.error ?? null };
        }
        // The remote waiter itself failed (not ssh: remote-wait already re-observes on exit 255): final.
        return {
          outcome: "error",
          turn_id: null,
          error: `REMOTE_WAIT_FAILED: the remote waiter on ${target.host} exited ${out.code}`,
        };
      },
      answer: async (child: ChildBoundary): Promise<{ text: string; turn_id: string }> => {
        const target = targetOf(child);
        const { sc } = await this.call("pty_read", target, {
          session_id: child.session_id,
          agent_transcript: true,
          raw: true,
          cursor: child.cursor,
        });
        if (sc.cursor !== child.cursor || typeof sc.text !== "string" || typeof sc.turn_id !== "string") {
          // Never deliver a body from another turn.
          throw new AppError(
            "REMOTE_ANSWER_UNAVAILABLE",
            `${target.host} returned no answer for turn ${child.cursor} of "${child.session_id}"`,
          );
        }
        return { text: sc.text, turn_id: sc.turn_id };
      },
    };
  }
}

/**
 * The remote aiterm wrote `next` for its own caller (this relay, a plain client): an agent receipt
 * gets this parent's guidance instead, from the receipt as it is after the rewrites above.
 */
function withGuidance(tool: string, out: Record<string, unknown>, ctx: CallContext): Record<string, unknown> {
  const agentReceipt = AGENT_REQUEST_TOOLS.has(ctx.aliasOf ?? tool) &&
    (tool !== "pty_send" || out.mode === "agent_dispatch" || out.mode === "agent_steer");
  delete out.next;
  delete out.warning;
  if (!agentReceipt || typeof out.session_id !== "string") return out;
  const r: GuidedReceipt = {
    session_id: out.session_id,
    event_cursor: typeof out.event_cursor === "number" ? out.event_cursor : null,
    parent_delivery: (out.parent_delivery ?? null) as GuidedReceipt["parent_delivery"],
    wait_process: (out.wait_process ?? null) as GuidedReceipt["wait_process"],
  };
  if (typeof out.mode === "string") r.mode = out.mode;
  if (typeof out.joined_event_cursor === "number") r.joined_event_cursor = out.joined_event_cursor;
  if (out.initial_prompt && typeof out.initial_prompt === "object") {
    r.initial_prompt = out.initial_prompt as NonNullable<GuidedReceipt["initial_prompt"]>;
  }
  return { ...out, ...receiptGuidance(ctx.parent, r) };
}

function shellQuote(a: string): string {
  return /^[A-Za-z0-9_.:=\/%@,+-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`;
}

/** Re-exported for the remote store's manager (built in lib/app.ts). */
export type { ParentDeliveryManager };
