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
  /** ed25519 key that is NOT in authorized_keys (an unauthorised credential for the same host/port/user). */
  strangerKey: string;
  /** known_hosts with this sshd's host key (passed as GlobalKnownHostsFile, read only). */
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
  await sh("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", `${root}/stranger_key`]);
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
  const hostKey = (await Deno.readTextFile(`${root}/host_key.pub`)).trim().split(/\s+/).slice(0, 2).join(" ");
  await Deno.writeTextFile(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`, { mode: 0o600 });
  return {
    root,
    port,
    key: `${root}/key`,
    lockedKey: `${root}/locked_key`,
    passphrase,
    strangerKey: `${root}/stranger_key`,
    knownHosts,
    remoteState,
    remote: (extra = {}) => ({
      host: "127.0.0.1",
      port,
      user: "root",
      identity_file: `${root}/key`,
      // The host key is known in advance (only read, never written); the user's known_hosts is left alone.
      ssh_options: [
        `GlobalKnownHostsFile=${knownHosts}`,
        "UserKnownHostsFile=none",
        "StrictHostKeyChecking=yes",
        "IdentitiesOnly=yes",
      ],
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

/** One process from /proc. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  argv: string[];
}

/** Every process of this machine, from /proc (Linux only; the remote tests need a local sshd anyway). */
export async function processes(): Promise<ProcInfo[]> {
  const out: ProcInfo[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const cmd = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
    const stat = await Deno.readTextFile(`/proc/${e.name}/stat`).catch(() => "");
    // Field 4 of stat is the ppid; the command name before it may hold spaces, so count from ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!cmd || !Number.isFinite(ppid)) continue;
    out.push({ pid: Number(e.name), ppid, argv: cmd.split("\0").slice(0, -1) });
  }
  return out;
}

/** Files under `dir` whose bytes contain `needle` (the passphrase checks). */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = await Array.fromAsync(Deno.readDir(d));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile) {
        const text = await Deno.readTextFile(p).catch(() => "");
        if (text.includes(needle)) hits.push(p);
      }
    }
  };
  await walk(dir);
  return hits;
}

/** One recorded ssh invocation (see {@link sshRecorder}). */
export interface SshCall {
  argv: string[];
  /** SSH_ASKPASS_REQUIRE in ssh's environment ("" when unset). */
  askpassRequire: string;
  /** Whether SSH_ASKPASS was set. */
  askpass: boolean;
}

/** A directory to put first on PATH: its `ssh` records each invocation, then runs the real ssh. */
export interface SshRecorder {
  binDir: string;
  /** Every ssh invocation so far, in order. */
  calls(): Promise<SshCall[]>;
}

/** Creates an `ssh` wrapper under `dir` that records each call (argv and askpass variables) in `dir/ssh-calls/`. */
export async function sshRecorder(dir: string): Promise<SshRecorder> {
  const real = ["/usr/bin/ssh", "/bin/ssh", "/usr/local/bin/ssh"].find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  }) ?? "ssh";
  const binDir = `${dir}/ssh-bin`;
  const calls = `${dir}/ssh-calls`;
  await Deno.mkdir(binDir, { recursive: true });
  await Deno.mkdir(calls, { recursive: true });
  // One file per call, NUL-separated: SSH_ASKPASS_REQUIRE, whether SSH_ASKPASS is set, then argv.
  const script = [
    "#!/bin/sh",
    `f='${calls}/'"$(date +%s%N).$$"`,
    'printf \'%s\\0\' "${SSH_ASKPASS_REQUIRE:-}" "${SSH_ASKPASS:+set}" "$@" > "$f"',
    `exec '${real}' "$@"`,
    "",
  ].join("\n");
  await Deno.writeTextFile(`${binDir}/ssh`, script, { mode: 0o755 });
  return {
    binDir,
    async calls() {
      const names = (await Array.fromAsync(Deno.readDir(calls))).map((e) => e.name).sort();
      const out: SshCall[] = [];
      for (const n of names) {
        const fields = (await Deno.readTextFile(`${calls}/${n}`)).split("\0").slice(0, -1);
        out.push({ askpassRequire: fields[0] ?? "", askpass: fields[1] === "set", argv: fields.slice(2) });
      }
      return out;
    },
  };
}

/** `useradd` exists (a throwaway login user can be made; it also needs root, see {@link hasSshd}). */
export const hasUseradd: boolean = (() => {
  try {
    return Deno.statSync("/usr/sbin/useradd").isFile && Deno.statSync("/usr/sbin/userdel").isFile;
  } catch {
    return false;
  }
})();

/** A private sshd that takes a password for a throwaway local user (see {@link startPasswordSshd}). */
export interface PasswordSshd extends AsyncDisposable {
  port: number;
  user: string;
  password: string;
  /** The ssh command line that logs in with a password only (no keys, no known_hosts written). */
  sshCommand: string;
}

/**
 * Starts a private sshd on 127.0.0.1 that accepts a password for a throwaway user created here with `useradd` (root
 * only) and removed with `userdel` on dispose. PAM checks the password (`UsePAM yes`) where the PAM stack is
 * installed, as on a real host: a wrong password then costs pam_unix's failure delay (about 2 s) before ssh asks
 * again.
 */
export async function startPasswordSshd(): Promise<PasswordSshd> {
  const root = await Deno.makeTempDir({ dir: "/tmp", prefix: "ait-pwsshd-" });
  const user = `aitpw${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const password = `Pw-${crypto.randomUUID().slice(0, 13)}`;
  await Deno.chmod(root, 0o755); // the user must reach its home below it
  const home = `${root}/home`;
  await Deno.mkdir(home, { mode: 0o755 });
  let made = false;
  const cleanup = async () => {
    const pid = Number((await Deno.readTextFile(`${root}/sshd.pid`).catch(() => "")).trim());
    if (pid > 0) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    if (made) {
      // The user's login processes end with the sshd's session children; userdel refuses while one lives.
      for (let i = 0; i < 20; i++) {
        const out = await new Deno.Command("userdel", { args: ["-f", user], stdout: "null", stderr: "null" }).output();
        if (out.success) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  try {
    await sh("useradd", ["-M", "-d", home, "-s", "/bin/sh", user]);
    made = true;
    await Deno.chown(home, ...(await ids(user)));
    const chpasswd = new Deno.Command("chpasswd", { stdin: "piped", stdout: "null", stderr: "piped" }).spawn();
    const w = chpasswd.stdin.getWriter();
    await w.write(new TextEncoder().encode(`${user}:${password}\n`));
    await w.close();
    const done = await chpasswd.output();
    if (!done.success) throw new Error(`chpasswd failed: ${new TextDecoder().decode(done.stderr)}`);
    await sh("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", `${root}/host_key`]);
    const pam = (() => {
      try {
        return Deno.statSync("/etc/pam.d/sshd").isFile;
      } catch {
        return false;
      }
    })();
    const port = freePort();
    await Deno.writeTextFile(
      `${root}/sshd_config`,
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${root}/host_key`,
        `PidFile ${root}/sshd.pid`,
        `UsePAM ${pam ? "yes" : "no"}`,
        "PasswordAuthentication yes",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication no",
        `AllowUsers ${user}`,
        "PermitRootLogin no",
        "PrintMotd no",
        "PrintLastLog no",
        "LogLevel ERROR",
        "",
      ].join("\n"),
    );
    await Deno.mkdir("/run/sshd", { recursive: true }).catch(() => {});
    await sh(SSHD, ["-f", `${root}/sshd_config`, "-E", `${root}/sshd.log`]);
    const sshCommand = [
      "ssh",
      "-o StrictHostKeyChecking=no",
      "-o UserKnownHostsFile=/dev/null",
      "-o GlobalKnownHostsFile=/dev/null",
      "-o LogLevel=ERROR",
      "-o PubkeyAuthentication=no",
      "-o PreferredAuthentications=password",
      "-o NumberOfPasswordPrompts=3",
      `-p ${port}`,
      `${user}@127.0.0.1`,
    ].join(" ");
    return { port, user, password, sshCommand, [Symbol.asyncDispose]: cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

async function ids(user: string): Promise<[number, number]> {
  const [uid, gid] = await Promise.all([sh("id", ["-u", user]), sh("id", ["-g", user])]);
  return [Number(uid.trim()), Number(gid.trim())];
}
