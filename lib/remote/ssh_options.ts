/**
 * Which `remote.ssh_options` reach ssh. An allow-list: an option passes only when it is named here
 * (case-insensitively, as ssh reads names) and its value looks like one; everything else is refused
 * before ssh runs, with the reason for the options that are refused on purpose. Refused on purpose:
 * options that run a local program or load code, that read other configuration, that aiterm manages
 * itself (the shared connection), that forward ports, agents or environment, or that would break
 * the MCP stream over ssh. Those belong in ssh_config, which the user controls; a tool call
 * (even a read-only one) never gets to choose them.
 */

/** One `-o Key=Value` exactly as ssh reads it: the key is letters and digits, then one `=`. */
const FORM = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/s;

/** A value: printable, one line, no `${…}` (ssh expands environment variables in some values). */
// deno-lint-ignore no-control-regex
const VALUE = /^[^\x00-\x1f\x7f$]*$/;

/** `[ssh://][user@]host[:port]`, hosts and users as remote.host / remote.user accept them. */
const JUMP_HOP =
  /^(?:ssh:\/\/)?(?:[A-Za-z0-9._][A-Za-z0-9._-]{0,127}@)?(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,254}|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

type ValueCheck = (value: string) => string | null;

const anyValue: ValueCheck = () => null;
const yesNo: ValueCheck = (v) => /^(yes|no)$/i.test(v) ? null : "must be yes or no";
const onlyNo: ValueCheck = (v) => /^no$/i.test(v) ? null : "only no is accepted here";
const hostAlias: ValueCheck = (v) => /^[A-Za-z0-9._:\[\]-]{1,255}$/.test(v) ? null : "must be a host name";
const noUserFile: ValueCheck = (v) =>
  /^(none|\/dev\/null)$/.test(v)
    ? null
    : "only none is accepted here: ssh writes host keys to this file (accept-new, UpdateHostKeys) and a tool call must not choose a file ssh appends to (GlobalKnownHostsFile=<file> with UserKnownHostsFile=none is only read)";
const proxyJump: ValueCheck = (v) =>
  /^none$/i.test(v) || v.split(",").every((hop) => JUMP_HOP.test(hop))
    ? null
    : "must be none or comma-separated [user@]host[:port] hops";

/** Options that pass, by their canonical name, with the check of their value. */
const ALLOWED: Record<string, ValueCheck> = {
  // Where and how to connect (ProxyJump hops go through ssh itself, never a shell command of ours).
  AddressFamily: anyValue,
  BindAddress: anyValue,
  BindInterface: anyValue,
  ConnectionAttempts: anyValue,
  IPQoS: anyValue,
  TCPKeepAlive: yesNo,
  Compression: yesNo,
  RekeyLimit: anyValue,
  ProxyJump: proxyJump,
  // Algorithms.
  Ciphers: anyValue,
  MACs: anyValue,
  KexAlgorithms: anyValue,
  HostKeyAlgorithms: anyValue,
  PubkeyAcceptedAlgorithms: anyValue,
  PubkeyAcceptedKeyTypes: anyValue,
  CASignatureAlgorithms: anyValue,
  FingerprintHash: anyValue,
  RequiredRSASize: anyValue,
  // Host keys. Files named here are only read; the one file ssh writes to (UserKnownHostsFile) stays
  // the user's (ssh_config or ~/.ssh/known_hosts) unless it is switched off.
  StrictHostKeyChecking: anyValue,
  UserKnownHostsFile: noUserFile,
  GlobalKnownHostsFile: anyValue,
  HashKnownHosts: yesNo,
  HostKeyAlias: hostAlias,
  CheckHostIP: yesNo,
  NoHostAuthenticationForLocalhost: yesNo,
  UpdateHostKeys: anyValue,
  VerifyHostKeyDNS: anyValue,
  RevokedHostKeys: anyValue,
  VisualHostKey: yesNo,
  // Authentication (BatchMode / askpass stay aiterm's: they come first on the command line).
  IdentitiesOnly: yesNo,
  CertificateFile: anyValue,
  PreferredAuthentications: anyValue,
  PubkeyAuthentication: anyValue,
  PasswordAuthentication: yesNo,
  KbdInteractiveAuthentication: yesNo,
  ChallengeResponseAuthentication: yesNo,
  KbdInteractiveDevices: anyValue,
  NumberOfPasswordPrompts: anyValue,
  GSSAPIAuthentication: yesNo,
  // Turning things off is always fine.
  ClearAllForwardings: yesNo,
  ExitOnForwardFailure: yesNo,
  ForwardAgent: onlyNo,
  ForwardX11: onlyNo,
  AddKeysToAgent: onlyNo,
  GSSAPIDelegateCredentials: onlyNo,
  // Messages.
  LogLevel: anyValue,
};

const RUNS = "it runs a local program";
const LOADS = "it loads code into ssh";
const CONFIG = "it makes ssh read other configuration";
const MANAGED = "aiterm sets it itself for its shared, per-credential connection";
const FORWARDS = "it forwards ports, sockets or credentials beyond this call";
const ENV = "it passes environment variables across the connection";
const STREAM = "it would break the MCP stream aiterm runs over ssh";

/** Options refused on purpose, by canonical name, with why (the rest are refused as unknown). */
const REFUSED: Record<string, string> = {
  ProxyCommand: RUNS,
  LocalCommand: RUNS,
  PermitLocalCommand: `${RUNS} (LocalCommand)`,
  KnownHostsCommand: RUNS,
  ProxyUseFdpass: `${RUNS} (ProxyCommand)`,
  XAuthLocation: RUNS,
  EnableSSHKeysign: `${RUNS} (ssh-keysign)`,
  HostbasedAuthentication: `${RUNS} (ssh-keysign)`,
  PKCS11Provider: LOADS,
  SmartcardDevice: LOADS,
  SecurityKeyProvider: LOADS,
  Match: `${CONFIG} (and Match exec runs a program)`,
  Host: CONFIG,
  Include: CONFIG,
  IgnoreUnknown: CONFIG,
  Tag: CONFIG,
  CanonicalizeHostname: CONFIG,
  CanonicalDomains: CONFIG,
  CanonicalizeFallbackLocal: CONFIG,
  CanonicalizeMaxDots: CONFIG,
  CanonicalizePermittedCNAMEs: CONFIG,
  ControlMaster: MANAGED,
  ControlPath: MANAGED,
  ControlPersist: MANAGED,
  BatchMode: MANAGED,
  ConnectTimeout: MANAGED,
  ServerAliveInterval: MANAGED,
  ServerAliveCountMax: MANAGED,
  IdentityAgent: FORWARDS,
  LocalForward: FORWARDS,
  RemoteForward: FORWARDS,
  DynamicForward: FORWARDS,
  GatewayPorts: FORWARDS,
  PermitRemoteOpen: FORWARDS,
  StreamLocalBindMask: FORWARDS,
  StreamLocalBindUnlink: FORWARDS,
  Tunnel: FORWARDS,
  TunnelDevice: FORWARDS,
  ForwardX11Trusted: FORWARDS,
  ForwardX11Timeout: FORWARDS,
  SendEnv: ENV,
  SetEnv: ENV,
  RemoteCommand: STREAM,
  RequestTTY: STREAM,
  SessionType: STREAM,
  StdinNull: STREAM,
  ForkAfterAuthentication: STREAM,
  EscapeChar: STREAM,
  EnableEscapeCommandline: STREAM,
};

/** Options that have a field of their own in `remote`. */
const FIELDS: Record<string, string> = {
  Hostname: "host",
  Port: "port",
  User: "user",
  IdentityFile: "identity_file",
};

function byLowerName<T>(table: Record<string, T>): Map<string, [string, T]> {
  return new Map(Object.entries(table).map(([name, v]) => [name.toLowerCase(), [name, v]]));
}

const allowed = byLowerName(ALLOWED);
const refused = byLowerName(REFUSED);
const fields = byLowerName(FIELDS);

/** The canonical names of the options that may pass (documentation and tests). */
export const ALLOWED_SSH_OPTIONS: readonly string[] = Object.keys(ALLOWED);
/** The canonical names of the options refused on purpose (documentation and tests). */
export const REFUSED_SSH_OPTIONS: readonly string[] = [...Object.keys(REFUSED), ...Object.keys(FIELDS)];

const ELSEWHERE = "set it in ssh_config (a Host block for this host; AITERM_SSH_CONFIG=<file> adds a file) instead";

/** The option name a caller most likely meant, in any spelling ssh accepts (`-oKey=v`, `Key v`, `"Key"=v`). */
function looseName(option: string): string | null {
  const m = option.replace(/^\s*(?:-o\s*)?["']?/, "").match(/^[A-Za-z][A-Za-z0-9]*/);
  return m ? m[0] : null;
}

function refusal(name: string): string | null {
  const lower = name.toLowerCase();
  const why = refused.get(lower);
  if (why) return `ssh option ${why[0]} is refused (${why[1]}); ${ELSEWHERE}`;
  const field = fields.get(lower);
  if (field) return `ssh option ${field[0]} is refused: use remote.${field[1]}, or ${ELSEWHERE}`;
  return null;
}

/**
 * Why one `remote.ssh_options` entry may not reach ssh, or null when it may. The message names
 * the option and says where such options belong.
 */
export function sshOptionProblem(option: string): string | null {
  const m = option.match(FORM);
  if (!m) {
    const name = looseName(option);
    const why = name ? refusal(name) : null;
    return why ?? "must be Key=Value (an ssh -o option, no spaces before '=')";
  }
  const [, name, value] = m as unknown as [string, string, string];
  const why = refusal(name);
  if (why) return why;
  const entry = allowed.get(name.toLowerCase());
  if (!entry) {
    return `ssh option "${name}" is not one aiterm passes to ssh (allowed: ${
      ALLOWED_SSH_OPTIONS.join(", ")
    }); ${ELSEWHERE}`;
  }
  if (value.trim() === "") return `ssh option ${entry[0]} needs a value`;
  if (!VALUE.test(value)) {
    return `ssh option ${entry[0]} has a value with a control character or '$' (ssh would expand \${…}); ${ELSEWHERE}`;
  }
  const bad = entry[1](value.trim());
  return bad ? `ssh option ${entry[0]}: ${bad}; other values belong in ssh_config` : null;
}

/** The first problem among `options`, with its index, or null. */
export function sshOptionsProblem(options: readonly string[]): { index: number; problem: string } | null {
  for (const [index, option] of options.entries()) {
    const problem = sshOptionProblem(option);
    if (problem) return { index, problem };
  }
  return null;
}
