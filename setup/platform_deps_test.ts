import { assert, assertEquals, assertMatch, assertStringIncludes } from "../tests/helpers/assert.ts";
import {
  checkDependencies,
  clientConfigPaths,
  currentOs,
  detectPackageManager,
  displayCommand,
  installArgv,
  parseOsRelease,
  smokeProbe,
  versionAtLeast,
  withPrivilege,
} from "./platform_deps.ts";

async function fakeBins(names: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "aiterm-setup-bin-" });
  for (const n of names) {
    await Deno.writeTextFile(`${dir}/${n}`, "#!/bin/sh\nexit 0\n");
    await Deno.chmod(`${dir}/${n}`, 0o755);
  }
  return dir;
}

Deno.test("os-release: ID and ID_LIKE tokens, quotes removed", () => {
  assertEquals(parseOsRelease('NAME="Pop!_OS"\nID=pop\nID_LIKE="ubuntu debian"\n'), ["pop", "ubuntu", "debian"]);
  assertEquals(parseOsRelease("ID='rocky'\nID_LIKE=\"rhel centos fedora\""), ["rocky", "rhel", "centos", "fedora"]);
});

Deno.test("the official package manager follows os-release and must be on PATH", async () => {
  const bin = await fakeBins(["apt-get", "dnf", "pacman", "apk", "zypper", "yum"]);
  try {
    const env = { PATH: bin };
    assertEquals(detectPackageManager(env, "linux", "ID=ubuntu\n")?.id, "apt");
    assertEquals(detectPackageManager(env, "linux", "ID=linuxmint\nID_LIKE=ubuntu\n")?.id, "apt");
    assertEquals(detectPackageManager(env, "linux", "ID=fedora\n")?.id, "dnf");
    assertEquals(detectPackageManager(env, "linux", "ID=arch\n")?.id, "pacman");
    assertEquals(detectPackageManager(env, "linux", "ID=alpine\n")?.id, "apk");
    assertEquals(detectPackageManager(env, "linux", 'ID="opensuse-tumbleweed"\n')?.id, "zypper");
    assertEquals(detectPackageManager(env, "linux", "ID=gentoo\n"), null);
    assertEquals(detectPackageManager({ PATH: "/nonexistent" }, "linux", "ID=debian\n"), null);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("install commands: sudo when not root, none possible without sudo, quoted for display", async () => {
  const bin = await fakeBins(["apt-get", "sudo"]);
  try {
    const pm = { id: "apt" as const, bin: `${bin}/apt-get`, needsRoot: true };
    const steps = installArgv(pm, "tmux");
    assertEquals(steps, [["apt-get", "update"], ["apt-get", "install", "-y", "tmux"]]);
    assertEquals(withPrivilege(pm, steps, { PATH: bin }, true), steps);
    assertEquals(
      displayCommand(withPrivilege(pm, steps, { PATH: bin }, false)!),
      "sudo apt-get update && sudo apt-get install -y tmux",
    );
    assertEquals(withPrivilege(pm, steps, { PATH: "/nonexistent" }, false), null);
    const brew = { id: "brew" as const, bin: "/opt/homebrew/bin/brew", needsRoot: false };
    assertEquals(withPrivilege(brew, installArgv(brew, "tmux"), { PATH: "" }, false), [["brew", "install", "tmux"]]);
    assertEquals(displayCommand([["echo", "a b", "it's"]]), `echo 'a b' 'it'\\''s'`);
    const winget = { id: "winget" as const, bin: "winget", needsRoot: false };
    assert(installArgv(winget, "pwsh")[0]!.includes("Microsoft.PowerShell"));
    assertEquals(installArgv(winget, "psmux")[0]!.slice(0, 3), ["winget", "install", "psmux"]);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("version comparison: tmux, psmux and PowerShell version texts", () => {
  assert(versionAtLeast("3.3a", "3.2"));
  assert(versionAtLeast("next-3.5", "3.2"));
  assert(!versionAtLeast("3.1c", "3.2"));
  assert(versionAtLeast("psmux 3.3.8", "3.3.8"));
  assert(!versionAtLeast("psmux 3.3.7", "3.3.8"));
  assert(versionAtLeast("PowerShell 7.4.6", "7.0"));
  assert(!versionAtLeast("5.1.19041", "7.0"));
  assert(!versionAtLeast("garbage", "1.0"));
});

Deno.test("client config paths honour CLAUDE_CONFIG_DIR and GROK_HOME; the probe's output is not its input", () => {
  assertEquals(clientConfigPaths({}, "/h"), {
    claude: "/h/.claude.json",
    cursorDir: "/h/.cursor",
    cursor: "/h/.cursor/mcp.json",
    grok: "/h/.grok/config.toml",
  });
  const p = clientConfigPaths({ CLAUDE_CONFIG_DIR: "/c", GROK_HOME: "/g" }, "/h");
  assertEquals([p.claude, p.grok], ["/c/.claude.json", "/g/config.toml"]);
  for (const os of ["linux", "windows"] as const) {
    const probe = smokeProbe(os);
    assert(!probe.text.includes(probe.expect));
  }
});

const PM_NAMES = ["apt-get", "dnf", "yum", "pacman", "zypper", "apk", "brew"];

/** A PATH with only fake package managers (each "installs" a tmux printing `version`) and a pass-through sudo. */
async function fakeSystem(tmuxVersion: string | null): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "aiterm-setup-sys-" });
  const install =
    `#!/bin/sh\nPATH="$PATH:/usr/bin:/bin"\ncase " $* " in *" tmux "*) printf '#!/bin/sh\\necho "tmux 3.4"\\n' > "${dir}/tmux"; ` +
    `chmod 755 "${dir}/tmux";; esac\necho "$0 $*" >> "${dir}/calls.log"\nexit 0\n`;
  for (const n of PM_NAMES) await Deno.writeTextFile(`${dir}/${n}`, install, { mode: 0o755 });
  await Deno.writeTextFile(`${dir}/sudo`, '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  if (tmuxVersion) await Deno.writeTextFile(`${dir}/tmux`, `#!/bin/sh\necho "tmux ${tmuxVersion}"\n`, { mode: 0o755 });
  return dir;
}

const knownSystem = currentOs() === "darwin" ||
  (currentOs() === "linux" && detectPackageManager({ PATH: "/usr/bin:/bin:/usr/sbin:/sbin" }) !== null);

Deno.test({
  name: `dependencies: missing or old tmux shows the install command; --install-deps runs it and re-checks${
    knownSystem ? "" : " [ignored: no known package manager here]"
  }`,
  ignore: !knownSystem,
  async fn() {
    const quiet = { progress: () => {} };
    const old = await fakeSystem("2.5");
    try {
      const r = await checkDependencies({ env: { PATH: old }, install: false, dryRun: false, ...quiet });
      assertEquals([r.status, r.reason_code], ["failed", "tmux_too_old"]);
      assertStringIncludes(r.detail, "--install-deps");
      assertMatch(r.install_command ?? "", /(install|add|-S).*tmux/);
    } finally {
      await Deno.remove(old, { recursive: true });
    }
    const none = await fakeSystem(null);
    try {
      const env = { PATH: none };
      const dry = await checkDependencies({ env, install: true, dryRun: true, ...quiet });
      assertEquals(dry.status, "planned");
      const missing = await checkDependencies({ env, install: false, dryRun: false, ...quiet });
      assertEquals(missing.reason_code, "tmux_missing");
      const done = await checkDependencies({ env, install: true, dryRun: false, ...quiet });
      assertEquals(done.status, "ok", done.detail);
      assertStringIncludes(done.detail, "tmux 3.4 (installed)");
      assertStringIncludes(await Deno.readTextFile(`${none}/calls.log`), "tmux");
    } finally {
      await Deno.remove(none, { recursive: true });
    }
  },
});

Deno.test("dependencies: no known package manager with --install-deps is install_unsupported with the manual command", async () => {
  const empty = await Deno.makeTempDir({ prefix: "aiterm-setup-empty-" });
  try {
    const r = await checkDependencies({
      env: { PATH: empty },
      install: true,
      dryRun: false,
      progress: () => {},
      os: "linux",
    });
    // This machine's os-release may name a manager, but none is on this PATH.
    assertEquals([r.status, r.reason_code], ["failed", "install_unsupported"]);
    assertStringIncludes(r.detail, "install it yourself");
    assert((r.install_command ?? "").includes("tmux"));
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});
