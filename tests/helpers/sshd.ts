/**
 * A private sshd on 127.0.0.1 for the remote-relay tests: its own host key, config, authorized keys
 * and pid file in a temp dir; the "remote aiterm-mcp" is a wrapper script on the PATH that the
 * remote login shell gives (SetEnv HOME=<temp home> whose .profile prepends the wrapper's dir, and
 * prints a line, to prove profile output never reaches the MCP stream). Runs as the current user.
 */
const SSHD = "/usr/sbin/sshd";

/** True when sshd and ssh-keygen exist and we are root (sshd must switch to the login user). */
export const hasSshd: boolean = (() => {
  try {
    return Deno.statSync(SSHD).isFile && Deno.uid() === 0 &&
      new Deno.Command("ssh-keygen", { args: ["-?"], stdout: "null", stderr: "null" }).outputSync() !== null;
  } catch {
    return false;
  }
})();

/** One running private sshd. */
export interface TestSshd extends AsyncDisposable {
  root: string;
  port: number;
  /** Plain ed25519 key (no passphrase). */
  key: string;
  /** ed25519 key protected by {@link passphrase}. */
  lockedKey: string;
  passphrase: string;
  knownHosts: string;
  /** The remote aiterm's state dir (its tmux socket is `${remoteState}/tmux.sock`). */
  remoteState: string;
  /** The `remote` input for this sshd, with the plain key. */
  remote(extra?: Record<string, unknown>): Record<string, unknown>;
}

async function sh(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${cmd} failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts the sshd. `remoteEnv` is exported by the remote aiterm-mcp wrapper. */
export async function startSshd(remoteEnv: Record<string, string> = {}): Promise<TestSshd> {
  const root = await Deno.makeTempDir({ dir: "/tmp", prefix: "ait-sshd-" });
  const passphrase = `pp-${crypto.randomUUID()}`;
  await sh("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", `${root}/host_key`]);
  await sh("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", `${root}/key`]);
  await sh("ssh-keygen", ["-q", "-t", "ed25519", "-N", passphrase, "-f", `${root}/locked_key`]);
  const auth = (await Deno.readTextFile(`${root}/key.pub`)) + (await Deno.readTextFile(`${root}/locked_key.pub`));
  await Deno.writeTextFile(`${root}/authorized_keys`, auth, { mode: 0o600 });
  const home = `${root}/home`;
  const bin = `${root}/bin`;
  const remoteState = `${root}/rs`;
  await Deno.mkdir(home);
  await Deno.mkdir(bin);
  await Deno.writeTextFile(`${home}/.profile`, `echo "profile noise on stdout"\nPATH="${bin}:$PATH"\nexport PATH\n`);
  const denoDir = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const exports = Object.entries({
    AITERM_STATE_DIR: remoteState,
    TMUX_TMPDIR: root,
    DENO_DIR: denoDir,
    AITERM_LOG: "warn",
    ...remoteEnv,
  }).map(([k, v]) => `export ${k}='${v}'`).join("\n");
  await Deno.writeTextFile(
    `${bin}/aiterm-mcp`,
    `#!/bin/sh\n${exports}\nexec '${Deno.execPath()}' run -A '${main}' "$@"\n`,
    { mode: 0o755 },
  );
  const port = freePort();
  await Deno.writeTextFile(
    `${root}/sshd_config`,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${root}/host_key`,
      `PidFile ${root}/sshd.pid`,
      `AuthorizedKeysFile ${root}/authorized_keys`,
      "UsePAM no",
      "StrictModes no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      `SetEnv HOME=${home}`,
      "LogLevel ERROR",
      "",
    ].join("\n"),
  );
  await Deno.mkdir("/run/sshd", { recursive: true }).catch(() => {});
  await sh(SSHD, ["-f", `${root}/sshd_config`, "-E", `${root}/sshd.log`]);
  const knownHosts = `${root}/known_hosts`;
  return {
    root,
    port,
    key: `${root}/key`,
    lockedKey: `${root}/locked_key`,
    passphrase,
    knownHosts,
    remoteState,
    remote: (extra = {}) => ({
      host: "127.0.0.1",
      port,
      user: "root",
      identity_file: `${root}/key`,
      ssh_options: [`UserKnownHostsFile=${knownHosts}`, "StrictHostKeyChecking=accept-new", "IdentitiesOnly=yes"],
      ...extra,
    }),
    async [Symbol.asyncDispose]() {
      const pid = Number((await Deno.readTextFile(`${root}/sshd.pid`).catch(() => "")).trim());
      if (pid > 0) {
        try {
          Deno.kill(pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
      await new Deno.Command("tmux", { args: ["-S", `${remoteState}/tmux.sock`, "kill-server"], stderr: "null" })
        .output().catch(() => {});
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/** Stops the ssh ControlMaster(s) whose sockets live in `controlDir` (by the pid ssh reports). */
export async function stopMasters(controlDir: string): Promise<void> {
  const entries = await Array.fromAsync(Deno.readDir(controlDir)).catch(() => [] as Deno.DirEntry[]);
  for (const e of entries) {
    if (e.name.endsWith(".log") || e.name.endsWith(".sh")) continue;
    const out = await new Deno.Command("ssh", {
      args: ["-o", `ControlPath=${controlDir}/${e.name}`, "-O", "exit", "x"],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => null);
    void out;
  }
}

/** Pids of ssh masters started with `-N -f` for sockets in `controlDir`. */
export async function masterPids(controlDir: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const cmd = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
    const argv = cmd.split("\0");
    if (argv[0]?.endsWith("ssh") && argv.includes("-N") && cmd.includes(controlDir)) pids.push(Number(e.name));
  }
  return pids;
}
