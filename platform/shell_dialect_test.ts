import { assert, assertEquals, assertMatch } from "../tests/helpers/assert.ts";
import { dialectById, dialectForShell, posixQuote, pwshQuote } from "./shell_dialect.ts";

const posix = dialectById("posix");
const pwsh = dialectById("pwsh");

function sh(line: string): string {
  const out = new Deno.Command("sh", { args: ["-c", line], stdout: "piped", stderr: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("dialectForShell() knows POSIX shells and PowerShell 7, and nothing else", () => {
  assertEquals(dialectForShell("/usr/bin/bash")?.id, "posix");
  assertEquals(dialectForShell("-zsh")?.id, "posix");
  assertEquals(dialectForShell("dash")?.id, "posix");
  assertEquals(dialectForShell("C:\\Program Files\\PowerShell\\7\\pwsh.exe")?.id, "pwsh");
  assertEquals(dialectForShell("powershell.exe"), null);
  assertEquals(dialectForShell("fish"), null);
  assertEquals(dialectForShell("python3"), null);
});

Deno.test("posix scriptLine() is one line that runs a heredoc script with quotes in the current shell", () => {
  const script = 'x=\'it\'\'s\'\ncat <<EOF\nvalue: $x "q" \\\\ `echo tick`\nEOF\ny="$x!"; echo "$y"';
  const line = posix.scriptLine(script);
  assert(!line.includes("\n"), "must be a single line");
  assertEquals(sh(line), sh(script));
  assertEquals(sh(`${posix.scriptLine("cd /tmp\nv=1")}; echo "$(pwd) $v"`), "/tmp 1\n");
});

Deno.test("posix scriptLine() types no tab (line editors complete on it) and still re-creates tabs and backslashes", () => {
  const script = "cat <<'EOF'\na\tb\\tc \\\\ \\0101 \\c end\n\tindented\nEOF\nprintf '%s\\n' 'x\ty'";
  const line = posix.scriptLine(script);
  assert(!line.includes("\t") && !line.includes("\n"), "a tab or newline would be typed");
  for (const shell of ["sh", "bash"]) {
    const run = (l: string) =>
      new TextDecoder().decode(new Deno.Command(shell, { args: ["-c", l], stdout: "piped" }).outputSync().stdout);
    assertEquals(run(line), run(script), shell);
  }
  assertEquals(`$ ${line}\n`.replace(posix.scriptEchoPattern, "<S>"), "$ <S>\n");
});

Deno.test("posixQuote() survives every byte sh can carry", () => {
  const s = "a'b\"c$d`e\\f g\th!";
  assertEquals(sh(`printf %s ${posixQuote(s)}`), s);
});

Deno.test("the posix sentinel reports the exit status and its echo can never match", () => {
  const nonce = "0123456789abcdef";
  const suffix = posix.sentinelSuffix(nonce);
  const out = sh(`(exit 7)${suffix}`);
  assertMatch(out, posix.sentinelPattern(nonce));
  assertEquals(out.match(posix.sentinelPattern(nonce))?.[1], "7");
  assert(!posix.sentinelPattern(nonce).test(suffix), "the command text itself matched the sentinel");
  assert(!posix.sentinelPattern("ffffffffffffffff").test(out), "another send's sentinel matched");
});

Deno.test("pwsh scriptLine() is a dot-sourced UTF-8 Base64 scriptblock (golden)", () => {
  const line = pwsh.scriptLine("$a = 'é'\nWrite-Output $a");
  assertEquals(
    line,
    ". ([ScriptBlock]::Create([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('JGEgPSAnw6knCldyaXRlLU91dHB1dCAkYQ=='))))",
  );
  const b64 = line.match(/'([A-Za-z0-9+/=]+)'/)![1]!;
  const decoded = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  assertEquals(decoded, "$a = 'é'\nWrite-Output $a");
});

Deno.test("pwsh sentinel captures $? and $LASTEXITCODE first, and its echo cannot match", () => {
  const suffix = pwsh.sentinelSuffix("abc123abc123abcd");
  assert(suffix.startsWith("; $__aiterm_ok = $?; $__aiterm_rc = $LASTEXITCODE;"));
  assert(!pwsh.sentinelPattern("abc123abc123abcd").test(suffix));
  assertMatch("\n__AITERM_abc123abc123abcd_0__\n", pwsh.sentinelPattern("abc123abc123abcd"));
  assertEquals(pwshQuote("it's ‘x’"), "'it''s ‘‘x’’'");
});

Deno.test("scriptEchoPattern matches exactly the echo of each dialect's wrapper", () => {
  const script = "a='it''s'\ncat <<EOF\n$a \"q\"\nEOF";
  const echoed = `root@h:~# ${posix.scriptLine(script)}\nit's\n`;
  assertEquals(echoed.replace(posix.scriptEchoPattern, "<S>"), "root@h:~# <S>\nit's\n");
  const ps = `PS C:\\> ${pwsh.scriptLine("Write-Output 1\nWrite-Output 2")}\n1\n2`;
  assertEquals(ps.replace(pwsh.scriptEchoPattern, "<S>"), "PS C:\\> <S>\n1\n2");
  assertEquals('eval "$(date)"'.replace(posix.scriptEchoPattern, "<S>"), 'eval "$(date)"');
});
