import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { ALLOWED_SSH_OPTIONS, REFUSED_SSH_OPTIONS, sshOptionProblem } from "./ssh_options.ts";
import { RemoteSchema } from "./schema.ts";

const hasSsh = (() => {
  try {
    return new Deno.Command("ssh", { args: ["-V"], stdout: "null", stderr: "null" }).outputSync() !== null;
  } catch {
    return false;
  }
})();

/** `ssh -G` (print the resolved config, connect nowhere) with only `options` on top of an empty config. */
function resolved(options: string[]): { ok: boolean; config: Map<string, string>; stderr: string } {
  const out = new Deno.Command("ssh", {
    args: ["-F", "/dev/null", ...options.flatMap((o) => ["-o", o]), "-G", "aiterm-test-host"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const config = new Map<string, string[]>();
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = line.match(/^([a-z0-9]+) (.*)$/);
    if (m) config.set(m[1]!, [...(config.get(m[1]!) ?? []), m[2]!]);
  }
  return {
    ok: out.success,
    config: new Map([...config].map(([k, v]) => [k, v.join("\n")])),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Settings an accepted option must never change: everything refused, plus what ssh derives from them. */
const GUARDED = new Set([
  ...REFUSED_SSH_OPTIONS.map((o) => o.toLowerCase()),
  "proxycommand",
  "localcommand",
  "identityfile",
  "hostname",
  "pkcs11provider",
]);

function guardedChanges(base: Map<string, string>, now: Map<string, string>): string[] {
  const keys = new Set([...base.keys(), ...now.keys()]);
  return [...keys].filter((k) => GUARDED.has(k) && base.get(k) !== now.get(k)).map((k) => `${k}: ${now.get(k)}`);
}

Deno.test("sshOptionProblem refuses every option that runs, loads, reads config or is aiterm's, in any case", () => {
  for (const name of REFUSED_SSH_OPTIONS) {
    for (const spelled of [name, name.toLowerCase(), name.toUpperCase()]) {
      const problem = sshOptionProblem(`${spelled}=yes`);
      assert(problem !== null, spelled);
      assertStringIncludes(problem, name, spelled);
      assertStringIncludes(problem, "ssh_config", spelled);
    }
  }
  for (const name of ["ProxyCommand", "LocalCommand", "PermitLocalCommand", "KnownHostsCommand", "Match", "Include"]) {
    assert(REFUSED_SSH_OPTIONS.includes(name), name);
  }
});

Deno.test("sshOptionProblem names a refused option in every spelling ssh accepts, and refuses odd forms", () => {
  const forms = [
    "ProxyCommand touch x",
    "ProxyCommand\ttouch x",
    "-oProxyCommand=touch x",
    "-o ProxyCommand=touch x",
    "-o\tProxyCommand touch x",
    '"ProxyCommand"=touch x',
    "'ProxyCommand' touch x",
    "ProxyCommand =touch x",
    " ProxyCommand=touch x",
    "\tproxycommand=touch x",
  ];
  for (const f of forms) assertStringIncludes(sshOptionProblem(f) ?? "accepted", "ProxyCommand", JSON.stringify(f));
  for (const f of ["", "=x", "Ciphers", "Ciphers aes128-ctr", "-oCiphers=aes128-ctr", "Ciphers\t=x", "1Ciphers=x"]) {
    assert(sshOptionProblem(f) !== null, JSON.stringify(f));
  }
});

Deno.test("sshOptionProblem checks values: no ${…}, no control characters, ProxyJump hops only, 'no' where only no is safe", () => {
  const refused = [
    "UserKnownHostsFile=/tmp/${OPENAI_API_KEY}",
    "CertificateFile=$HOME/c",
    "Ciphers=aes128-ctr\nProxyCommand=x",
    "Ciphers=aes128-ctr\rx",
    "Ciphers=aes\tx",
    "Ciphers= ",
    "ProxyJump=x$(id)",
    "ProxyJump=x;id",
    "ProxyJump=-oProxyCommand=id",
    "ProxyJump=a b",
    "ProxyJump=`id`",
    "ProxyJump=a,,b",
    "ProxyJump=u@-h",
    "ForwardAgent=yes",
    "ForwardAgent=/tmp/agent.sock",
    "ForwardX11=yes",
    "AddKeysToAgent=confirm",
    "Compression=maybe",
    "UserKnownHostsFile=/root/.bashrc",
    "UserKnownHostsFile=~/.ssh/known_hosts",
    "HostKeyAlias=a;reboot",
    "HostKeyAlias=@cert-authority *",
  ];
  for (const o of refused) assert(sshOptionProblem(o) !== null, JSON.stringify(o));
  const accepted = [
    "ProxyJump=none",
    "ProxyJump=bastion",
    "ProxyJump=me@bastion:2222,ssh://you@10.0.0.1:22",
    "ProxyJump=[::1]:22",
    "StrictHostKeyChecking=accept-new",
    "UserKnownHostsFile=none",
    "GlobalKnownHostsFile=/tmp/known hosts",
    "GlobalKnownHostsFile=%d/.ssh/known_hosts_aiterm",
    "HostKeyAlias=prod-1.example",
    "IdentitiesOnly=yes",
    "identitiesonly=YES",
    "ForwardAgent=no",
    "ConnectionAttempts=1",
    "Ciphers=aes256-gcm@openssh.com,chacha20-poly1305@openssh.com",
  ];
  for (const o of accepted) assertEquals(sshOptionProblem(o), null, o);
});

Deno.test("RemoteSchema refuses a refused ssh option with the option's name and index", () => {
  const r = RemoteSchema.safeParse({ host: "h", ssh_options: ["IdentitiesOnly=yes", "proxycommand=touch /tmp/x"] });
  assert(!r.success);
  const issue = r.error.issues[0]!;
  assertEquals(issue.path, ["ssh_options", 1]);
  assertStringIncludes(issue.message, "ProxyCommand");
  assertStringIncludes(issue.message, "ssh_config");
  assert(!RemoteSchema.safeParse({ host: "h", identity_file: "/k/${SECRET}" }).success);
  assert(RemoteSchema.safeParse({ host: "h", ssh_options: ["ProxyJump=none", "IdentitiesOnly=yes"] }).success);
});

/** A sample value for each allowed option, to check that this ssh knows the name. */
const SAMPLE: Record<string, string> = {
  AddressFamily: "inet",
  BindAddress: "127.0.0.1",
  BindInterface: "lo",
  ConnectionAttempts: "1",
  IPQoS: "lowdelay",
  RekeyLimit: "1G",
  ProxyJump: "none",
  Ciphers: "aes128-ctr",
  MACs: "hmac-sha2-256",
  KexAlgorithms: "curve25519-sha256",
  HostKeyAlgorithms: "ssh-ed25519",
  PubkeyAcceptedAlgorithms: "ssh-ed25519",
  PubkeyAcceptedKeyTypes: "ssh-ed25519",
  CASignatureAlgorithms: "ssh-ed25519",
  FingerprintHash: "sha256",
  RequiredRSASize: "2048",
  StrictHostKeyChecking: "accept-new",
  UserKnownHostsFile: "none",
  GlobalKnownHostsFile: "/dev/null",
  HostKeyAlias: "alias",
  UpdateHostKeys: "no",
  VerifyHostKeyDNS: "no",
  RevokedHostKeys: "/dev/null",
  CertificateFile: "/dev/null",
  PreferredAuthentications: "publickey",
  PubkeyAuthentication: "yes",
  KbdInteractiveDevices: "pam",
  NumberOfPasswordPrompts: "1",
  LogLevel: "ERROR",
};

Deno.test(
  "every allowed ssh option is one this ssh knows (ssh -G accepts it)",
  { ignore: !hasSsh },
  () => {
    for (const name of ALLOWED_SSH_OPTIONS) {
      const option = `${name}=${SAMPLE[name] ?? "no"}`;
      assertEquals(sshOptionProblem(option), null, option);
      const r = resolved([option]);
      assert(r.ok, `${option}: ${r.stderr}`);
    }
  },
);

/** A tiny deterministic PRNG (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test(
  "property: no spelling of a dangerous option passes sshOptionProblem and then changes a guarded ssh setting (checked with ssh -G)",
  { ignore: !hasSsh },
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "ait-sshopt-" });
    try {
      const base = resolved([]).config;
      const markAccepted = `${dir}/accepted-ran`;
      const markRefused = `${dir}/refused-ran`;
      const seeds: [string, string][] = [
        ["ProxyCommand", "touch MARK"],
        ["LocalCommand", "touch MARK"],
        ["PermitLocalCommand", "yes"],
        ["KnownHostsCommand", "/bin/sh -c 'touch MARK'"],
        ["Match", 'exec "touch MARK"'],
        ["Include", "/dev/null"],
        ["PKCS11Provider", "/tmp/x.so"],
        ["SmartcardDevice", "/tmp/x.so"],
        ["SecurityKeyProvider", "/tmp/x.so"],
        ["ControlPath", "/tmp/ait-%C"],
        ["ControlMaster", "yes"],
        ["RemoteCommand", "touch MARK"],
        ["SetEnv", "A=b"],
        ["SendEnv", "*"],
        ["XAuthLocation", "/tmp/xauth"],
        ["IdentityAgent", "/tmp/agent.sock"],
        ["LocalForward", "1234 127.0.0.1:22"],
        ["Hostname", "evil.example"],
        ["IdentityFile", "/tmp/other-key"],
        // Allowed names whose value tries to smuggle in another keyword.
        ["Ciphers", "aes128-ctr ProxyCommand=touch MARK"],
        ["UserKnownHostsFile", '/dev/null" ProxyCommand "touch MARK'],
        ["ProxyJump", "x ProxyCommand=touch MARK"],
        ["LogLevel", "ERROR\nProxyCommand touch MARK"],
        ["StrictHostKeyChecking", "no # ProxyCommand touch MARK"],
        ["HostKeyAlias", "a' 'ProxyCommand' 'touch MARK"],
        ["PreferredAuthentications", "publickey,ProxyCommand=touch MARK"],
        ["GlobalKnownHostsFile", "/dev/null\\ ProxyCommand\\ touch MARK"],
      ];
      const prefixes = ["", " ", "\t", "-o", "-o ", '"', "'"];
      const seps = ["=", " ", "\t", " = ", "==", '="', "\t=\t", "=\\"];
      const next = rng(14);
      const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
      const flipCase = (s: string) => [...s].map((c) => next() < 0.5 ? c.toLowerCase() : c.toUpperCase()).join("");
      let accepted = 0;
      let acceptedBySsh = 0;
      let refusedButHonoured = 0;
      for (let i = 0; i < 600; i++) {
        const [name, value] = pick(seeds);
        // Half the time the plain form, so that allowed names with smuggling values get through to ssh -G.
        const quote = next() < 0.5 ? "" : pick(prefixes);
        const closing = quote === '"' || quote === "'" ? (next() < 0.5 ? quote : "") : "";
        const spelled = i < seeds.length ? name : flipCase(name);
        const sep = i < seeds.length || next() < 0.5 ? "=" : pick(seps);
        const candidate = `${quote}${spelled}${closing}${sep}${value}`;
        if (sshOptionProblem(candidate) === null) {
          accepted++;
          const r = resolved([candidate.replaceAll("MARK", markAccepted)]);
          // ssh either refuses the line itself (then nothing runs at all) or changes no guarded setting.
          if (r.ok) {
            assertEquals(guardedChanges(base, r.config), [], `accepted ${JSON.stringify(candidate)} changed ssh`);
            acceptedBySsh++;
          }
        } else if (i % 4 === 0) {
          // Show that the refusal matters: ssh itself would take many of these.
          const r = resolved([candidate.replaceAll("MARK", markRefused)]);
          if (r.ok && guardedChanges(base, r.config).length > 0) refusedButHonoured++;
        }
      }
      assert(!(await Deno.stat(markAccepted).catch(() => null)), "an accepted option ran a command");
      assert(refusedButHonoured > 10, `only ${refusedButHonoured} refused spellings would have worked in ssh`);
      // Some harmless spellings of the allowed names pass (the generator is not refusing everything by luck).
      assert(accepted > 0 && acceptedBySsh > 0, `accepted ${accepted}, of them valid for ssh ${acceptedBySsh}`);
      // deno-lint-ignore no-console
      console.log(
        `accepted ${accepted} (valid for ssh ${acceptedBySsh}); refused but honoured by ssh ${refusedButHonoured}`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
