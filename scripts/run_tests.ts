/**
 * `deno task test`: runs the whole suite on a fresh machine. (Not named `test.ts`: deno test would collect it.)
 *
 * Before `deno test` it installs what an unprivileged user can install (the pinned real vendor CLIs, from
 * npm into a cache; see scripts/install_vendor_clis.sh) and says plainly what it could not, so a test that
 * is ignored is never a surprise: each missing piece is named with the tests it turns off. Extra arguments
 * are handed to `deno test` (`deno task test tests/e2e/keys_test.ts`).
 *
 * Set AITERM_SKIP_VENDOR_INSTALL=1 to skip the npm step (offline machines).
 */

import { findExecutable } from "../platform/which.ts";

const decoder = new TextDecoder();

/** One prerequisite the suite can use, and what is ignored without it. */
interface Prerequisite {
  name: string;
  present: boolean;
  without: string;
}

function onPath(program: string): boolean {
  return findExecutable(program, Deno.env.get("PATH")) !== null;
}

function isRoot(): boolean {
  return Deno.build.os !== "windows" && Deno.uid() === 0;
}

function say(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`test: ${line}\n`));
}

/** Runs scripts/install_vendor_clis.sh; returns null on success, else the reason. */
async function installVendorClis(): Promise<string | null> {
  if (Deno.env.get("AITERM_SKIP_VENDOR_INSTALL") === "1") return "AITERM_SKIP_VENDOR_INSTALL=1";
  if (Deno.build.os === "windows") return "the install script needs bash (POSIX only)";
  if (!onPath("bash") || !onPath("npm") || !onPath("node")) return "bash, npm and node are needed to install them";
  const script = new URL("./install_vendor_clis.sh", import.meta.url).pathname;
  const out = await new Deno.Command("bash", { args: [script], stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (out.success) {
    const paths = decoder.decode(out.stdout).trim().split("\n").filter((l) => l.includes("="));
    say(`vendor CLIs ready (${paths.map((l) => l.split("=")[0]).join(", ")})`);
    return null;
  }
  const lines = decoder.decode(out.stderr).trim().split("\n");
  return lines[lines.length - 1] || `install_vendor_clis.sh exited ${out.code}`;
}

async function main(): Promise<number> {
  const vendorFailure = await installVendorClis();
  const prerequisites: Prerequisite[] = [
    { name: "tmux", present: onPath("tmux"), without: "every terminal and agent test" },
    {
      name: "the pinned vendor CLIs",
      present: vendorFailure === null,
      without: `the real Claude Code / Codex / Grok tests (${vendorFailure ?? ""})`,
    },
    {
      name: "sshd as root",
      present: findExecutable("/usr/sbin/sshd", undefined) !== null && onPath("ssh-keygen") && isRoot(),
      without: "the remote relay tests (a private sshd must switch to the login user, which needs root)",
    },
    { name: "pwsh", present: onPath("pwsh"), without: "the PowerShell tests" },
    {
      name: "DENORT_BIN",
      present: Deno.env.get("DENORT_BIN") !== undefined,
      without: "the compiled-binary test, unless deno compile can download its runtime (denort) here",
    },
  ];
  for (const p of prerequisites) {
    if (!p.present) say(`missing ${p.name}: ignored: ${p.without}`);
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--parallel", ...Deno.args],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  return (await child.status).code;
}

if (import.meta.main) Deno.exit(await main());
