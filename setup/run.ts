/**
 * The order of setup, owned here and nowhere else:
 *
 *   preflight → dependencies → server_command → smoke_test → detect_clients → register → read_back
 *   → parent_hooks
 *
 * A step that fails stops the steps that depend on it (nothing is registered unless the smoke test
 * passed); client detection is read-only and always runs, so the result can say which clients were
 * found. Setup is ready when the smoke test passed and at least one client was registered (or already
 * was) and read back. Parent hooks (Claude Code, Cursor) are added only where aiterm is registered;
 * their outcome is reported per client and in their own step, and does not change that rule.
 */
import { VERSION } from "../base/version.ts";
import {
  CLIENT_IDS,
  type ClientContext,
  type ClientId,
  CLIENTS,
  type Detection,
  HOOK_CLIENT_IDS,
} from "../harnesses/clients/mod.ts";
import { SetupFailure } from "../harnesses/clients/mod.ts";
import { setupParentHooks } from "./hook_actions.ts";
import { checkDependencies, homeDir } from "./platform_deps.ts";
import { type ClientResult, SETUP_SCHEMA, type SetupResult, type StepResult } from "./result.ts";
import { isDevelopmentCommand, type ServerCommand, serverCommand } from "./server_command.ts";
import { smokeTest } from "./smoke.ts";

/** Options for {@link performSetup}. */
export interface SetupOptions {
  env: Record<string, string>;
  /** Run the package manager for missing dependencies. */
  installDeps: boolean;
  /** Change nothing; report what would change. */
  dryRun: boolean;
  /** One progress line (stderr). */
  progress: (line: string) => void;
  /** The registered command (default: this binary's serve form). */
  server?: () => ServerCommand;
  /** Entries added to the registered server's environment in every client (`--legacy-tools`). */
  serverEnv?: Record<string, string>;
}

const INSTALL_HOOK_EVENTS =
  /^(preinstall|install|postinstall|prepare|prepublish|preuninstall|uninstall|postuninstall)$/;

function failureOf(err: unknown): { reason_code: string; detail: string } {
  if (err instanceof SetupFailure) return { reason_code: err.reasonCode, detail: err.message };
  return { reason_code: "internal", detail: `unexpected failure: ${err instanceof Error ? err.message : String(err)}` };
}

/** Runs every step in order and returns the result (never throws for an expected failure). */
export async function performSetup(options: SetupOptions): Promise<SetupResult> {
  const { env, dryRun } = options;
  const steps: StepResult[] = [];
  const clients = Object.fromEntries(CLIENT_IDS.map((id) => [id, { status: "not_found" }])) as Record<
    ClientId,
    ClientResult
  >;
  const step = (s: StepResult): StepResult => {
    steps.push(s);
    const code = s.reason_code ? ` [${s.reason_code}]` : "";
    options.progress(`${s.step}: ${s.status}${code}${s.detail ? ` - ${s.detail}` : ""}`);
    return s;
  };
  const skipped = (name: StepResult["step"], why: string) => step({ step: name, status: "skipped", detail: why });

  // 1. Preflight: never from an install hook; a home directory to find the client configs in.
  const hook = env.npm_lifecycle_event;
  const home = homeDir(env);
  let blocked: string | null = null;
  if (hook && INSTALL_HOOK_EVENTS.test(hook)) {
    step({
      step: "preflight",
      status: "failed",
      reason_code: "install_hook_refused",
      detail: `setup edits user configuration, so it does not run from a package manager's ${hook} hook; ` +
        "run aiterm-mcp setup yourself",
    });
    blocked = "preflight";
  } else if (!home) {
    step({ step: "preflight", status: "failed", reason_code: "home_unknown", detail: "HOME is not set" });
    blocked = "preflight";
  } else {
    step({ step: "preflight", status: "ok", ...(dryRun ? { detail: "dry run: nothing will be changed" } : {}) });
  }

  // 2. Dependencies.
  let depsOk = false;
  let depsPlanned = false;
  if (blocked) {
    skipped("dependencies", `${blocked} failed`);
  } else {
    const dep = await checkDependencies({
      env,
      install: options.installDeps,
      dryRun,
      progress: options.progress,
    });
    step({
      step: "dependencies",
      status: dep.status,
      ...(dep.reason_code ? { reason_code: dep.reason_code } : {}),
      detail: dep.detail,
      ...(dep.install_command ? { install_command: dep.install_command } : {}),
    });
    depsOk = dep.status === "ok";
    depsPlanned = dep.status === "planned";
    if (!depsOk && !depsPlanned) blocked = "dependencies";
  }

  // 3. The command the clients will start.
  let server: ServerCommand | null = null;
  if (blocked === "preflight") {
    skipped("server_command", "preflight failed");
  } else {
    try {
      server = (options.server ?? serverCommand)();
      const shown = [server.command, ...server.args].join(" ");
      step({
        step: "server_command",
        status: "ok",
        detail: isDevelopmentCommand(server)
          ? `development command (from a source checkout or bundle; a release binary registers itself): ${shown}`
          : shown,
      });
    } catch (err) {
      step({ step: "server_command", status: "failed", ...failureOf(err) });
      blocked ??= "server_command";
    }
  }

  // 4. Smoke test through the public MCP interface, exactly as a client starts the server.
  let smokeOk = false;
  if (blocked || !server) {
    skipped("smoke_test", `${blocked ?? "server_command"} failed`);
  } else if (depsPlanned) {
    skipped("smoke_test", "dry run: runs after the planned install");
  } else {
    options.progress("smoke_test: starting the server and opening a terminal");
    try {
      const report = await smokeTest(server, { ...env, ...options.serverEnv });
      step({ step: "smoke_test", status: "ok", detail: report.detail });
      smokeOk = true;
    } catch (err) {
      step({ step: "smoke_test", status: "failed", ...failureOf(err) });
      blocked = "smoke_test";
    }
  }

  // 5. Client detection (read-only, always).
  const serverEnv = options.serverEnv ?? {};
  const ctx: ClientContext | null = home && server ? { env, home, dryRun, server, serverEnv } : null;
  const detected = new Map<ClientId, Detection>();
  if (blocked === "preflight" || !home) {
    skipped("detect_clients", "preflight failed");
  } else {
    const probeCtx: ClientContext = ctx ?? { env, home, dryRun, server: { command: "", args: [] } };
    const looked: string[] = [];
    for (const id of CLIENT_IDS) {
      const det = await CLIENTS[id].detect(probeCtx);
      if (det.found) {
        detected.set(id, det);
      } else {
        clients[id] = { status: "not_found", detail: det.how };
        looked.push(det.how);
      }
    }
    if (detected.size === 0) {
      step({
        step: "detect_clients",
        status: "failed",
        reason_code: "clients_not_detected",
        detail: `no AI client found: ${looked.join("; ")}`,
      });
      blocked ??= "detect_clients";
    } else {
      step({
        step: "detect_clients",
        status: "ok",
        detail: [...detected].map(([id, det]) => `${id} (${det.how})`).join(", "),
      });
    }
  }

  // 6. Register in every detected client.
  const canRegister = ctx !== null && detected.size > 0 && (smokeOk || (dryRun && depsPlanned));
  if (!canRegister) {
    for (const id of detected.keys()) {
      clients[id] = {
        status: "failed",
        reason_code: "not_attempted",
        detail: `not registered because ${blocked ?? "an earlier step"} failed`,
      };
    }
    skipped("register", `${blocked ?? "an earlier step"} failed`);
  } else {
    for (const [id, det] of detected) {
      try {
        const r = await CLIENTS[id].register(ctx, det);
        clients[id] = { ...r };
      } catch (err) {
        clients[id] = { status: "failed", ...failureOf(err) };
      }
    }
    const failed = [...detected.keys()].filter((id) => clients[id].status === "failed");
    const planned = [...detected.keys()].some((id) => clients[id].status === "would_register");
    step({
      step: "register",
      status: failed.length > 0 ? "failed" : planned ? "planned" : "ok",
      ...(failed.length > 0 ? { reason_code: "client_failed" } : {}),
      detail: [...detected.keys()].map((id) => `${id}: ${clients[id].status}`).join(", "),
    });
  }

  // 7. Read every registration back.
  if (!canRegister) {
    skipped("read_back", "nothing was registered");
  } else if (dryRun) {
    skipped("read_back", "dry run");
  } else {
    const checked: ClientId[] = [];
    for (const [id, det] of detected) {
      const c = clients[id];
      if (c.status !== "registered" && c.status !== "already_registered") continue;
      checked.push(id);
      try {
        const r = await CLIENTS[id].readBack(ctx, det);
        clients[id] = {
          ...c,
          detail: `${c.detail}; read back: ${r.detail}`,
          ...(r.health ? { health: r.health } : {}),
        };
      } catch (err) {
        const f = failureOf(err);
        clients[id] = {
          ...c,
          status: "failed",
          reason_code: f.reason_code,
          detail: `${c.detail}; read back failed: ${f.detail}`,
        };
      }
    }
    const failed = checked.filter((id) => clients[id].status === "failed");
    step({
      step: "read_back",
      status: checked.length === 0 ? "skipped" : failed.length > 0 ? "failed" : "ok",
      ...(failed.length > 0 ? { reason_code: "readback_failed" } : {}),
      detail: checked.map((id) =>
        `${id}: ${clients[id].status === "failed" ? clients[id].reason_code : "ok"}`
      ).join(", ") ||
        "nothing to read back",
    });
  }

  // 8. Parent hooks where aiterm is registered (and read back): Claude Code and Cursor.
  const hookIds = HOOK_CLIENT_IDS.filter((id) => detected.has(id));
  if (!canRegister || hookIds.length === 0) {
    skipped("parent_hooks", canRegister ? "neither Claude Code nor Cursor was found" : "nothing was registered");
  } else {
    const attempted: typeof hookIds = [];
    for (const id of hookIds) {
      const c = clients[id];
      if (c.status === "registered" || c.status === "already_registered" || c.status === "would_register") {
        attempted.push(id);
        clients[id] = { ...c, parent_hooks: await setupParentHooks(id, ctx, detected.get(id)!) };
      } else {
        clients[id] = {
          ...c,
          parent_hooks: {
            status: "not_attempted",
            ready: false,
            reason_code: "not_registered",
            detail: "aiterm is not registered in this client, so no hooks were added",
          },
        };
      }
    }
    const hooks = attempted.map((id) => [id, clients[id].parent_hooks!] as const);
    const bad = hooks.find(([, h]) => h.status === "failed" || (!h.ready && h.status !== "would_install"));
    step({
      step: "parent_hooks",
      status: attempted.length === 0
        ? "skipped"
        : bad
        ? "failed"
        : hooks.some(([, h]) => h.status === "would_install")
        ? "planned"
        : "ok",
      ...(bad?.[1].reason_code ? { reason_code: bad[1].reason_code } : {}),
      detail: hookIds.map((id) => {
        const h = clients[id].parent_hooks!;
        return `${id}: ${h.status}${h.ready ? "" : h.reason_code ? ` (${h.reason_code})` : ""}`;
      }).join(", "),
    });
  }

  const good = Object.values(clients).some((c) =>
    c.status === "registered" || c.status === "already_registered" || (dryRun && c.status === "would_register")
  );
  // Ready means every step up to the registrations succeeded (or, in a dry run, is planned): a client that
  // could not be registered fails the run in both modes, so a dry run predicts the real one. Parent hooks
  // that are not ready only change how answers arrive (a waiter instead), so they do not fail the run.
  const firstFailure = steps.find((s) => s.status === "failed");
  const blocking = steps.some((s) => s.status === "failed" && s.step !== "parent_hooks");
  const ready = (smokeOk || (dryRun && depsPlanned)) && good && !blocking;
  return {
    schema: SETUP_SCHEMA,
    version: VERSION,
    status: ready ? "ready" : "failed",
    ...(ready ? {} : { reason_code: firstFailure?.reason_code ?? "no_client_registered" }),
    dry_run: dryRun,
    ...(server
      ? { server: { command: server.command, args: server.args, development: isDevelopmentCommand(server) } }
      : {}),
    steps,
    clients,
  };
}
