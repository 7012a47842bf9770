import { assert, assertEquals, assertRejects, assertStringIncludes } from "../tests/helpers/assert.ts";
import {
  encodeCommand,
  outputSinkScript,
  parseCheckScript,
  parsePwshVersion,
  pwshCandidates,
  pwshScriptArgv,
  pwshScriptCommandLine,
  refusePwshPath,
  resolvePwsh,
  startProcessScript,
} from "./pwsh.ts";
import { dialectById } from "./shell_dialect.ts";
import { segmentName } from "./output_sink.ts";
import { findExecutable } from "./which.ts";
import { AppError } from "../base/errors.ts";

/** A real PowerShell 7 on this machine, for parser round trips; the tests that need it are ignored without it. */
const PWSH = findExecutable("pwsh", Deno.env.get("PATH"));
const decoder = new TextDecoder();

async function runPwsh(script: string, stdin?: Uint8Array): Promise<string> {
  const [cmd, ...args] = pwshScriptArgv(PWSH!, script);
  const child = new Deno.Command(cmd!, { args, stdin: "piped", stdout: "piped", stderr: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  if (stdin) await writer.write(stdin);
  await writer.close();
  const out = await child.output();
  assert(out.success, decoder.decode(out.stderr));
  return decoder.decode(out.stdout);
}

Deno.test("encodeCommand() is Base64 of UTF-16LE (Microsoft's `dir` example; surrogate pairs kept)", () => {
  assertEquals(encodeCommand("dir"), "ZABpAHIA");
  assertEquals(encodeCommand("é€😀"), "6QCsID3YAN4=");
});

Deno.test("pwshScriptArgv() / pwshScriptCommandLine() run an encoded script with no profile", () => {
  const pwsh = "C:\\Program Files\\PowerShell\\7\\pwsh.exe";
  assertEquals(pwshScriptArgv(pwsh, "dir"), [
    pwsh,
    "-NoLogo",
    "-NoProfile",
    "-NonInteractive",
    "-EncodedCommand",
    "ZABpAHIA",
  ]);
  assertEquals(
    pwshScriptCommandLine(pwsh, "Write-Output 'hi'"),
    '"C:\\Program Files\\PowerShell\\7\\pwsh.exe" -NoLogo -NoProfile -NonInteractive -EncodedCommand ' +
      "VwByAGkAdABlAC0ATwB1AHQAcAB1AHQAIAAnAGgAaQAnAA==",
  );
});

Deno.test("startProcessScript() passes one MSVCRT-quoted -ArgumentList string inside a PowerShell literal", () => {
  assertEquals(
    startProcessScript("C:\\Program Files\\aiterm\\aiterm-wait.exe", [
      "--session",
      "a b",
      'say "hi"',
      "C:\\dir\\",
      "it's",
    ], {
      hidden: true,
    }),
    `Start-Process -FilePath 'C:\\Program Files\\aiterm\\aiterm-wait.exe' -ArgumentList ` +
      `'--session "a b" "say \\"hi\\"" C:\\dir\\ it''s' -WindowStyle Hidden`,
  );
  assertEquals(startProcessScript("C:\\x.exe", []), "Start-Process -FilePath 'C:\\x.exe'");
});

Deno.test("outputSinkScript() golden: segment files named like split's, quoted directory", () => {
  const s = outputSinkScript("C:\\Users\\o'k\\log", 1048576);
  assertEquals(s.split("\n").slice(0, 3), [
    "$ErrorActionPreference = 'Stop'",
    "$dir = 'C:\\Users\\o''k\\log'",
    "$size = [long]1048576",
  ]);
  assertStringIncludes(s, "for ($k = 0; $k -lt 6; $k++) {");
  assertStringIncludes(s, "return 'seg.' + $name");
  assertStringIncludes(
    s,
    "[IO.File]::Open($path, [IO.FileMode]::Create, [IO.FileAccess]::Write, [IO.FileShare]'Read, Delete')",
  );
  assertStringIncludes(s, "$out.Flush()");
  assert(!s.includes("\r"), "no CR in the script");
  let threw = false;
  try {
    outputSinkScript("C:\\x", 0);
  } catch (e) {
    threw = e instanceof RangeError;
  }
  assert(threw, "a zero segment size is refused");
});

Deno.test("parsePwshVersion() reads release and preview versions", () => {
  assertEquals(parsePwshVersion("PowerShell 7.4.6\n"), { raw: "7.4.6", major: 7, minor: 4 });
  assertEquals(parsePwshVersion("PowerShell 7.5.0-preview.2")?.raw, "7.5.0-preview.2");
  assertEquals(parsePwshVersion("PowerShell 6.2.7")?.major, 6);
  assertEquals(parsePwshVersion("nope"), null);
});

Deno.test("refusePwshPath() refuses Windows PowerShell, cmd and WSL bridges by name", () => {
  assertEquals(
    refusePwshPath("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"),
    "it is Windows PowerShell 5.1",
  );
  assertEquals(refusePwshPath("C:\\Tools\\powershell.exe"), "it is Windows PowerShell 5.1");
  assertEquals(refusePwshPath("C:\\Windows\\System32\\cmd.exe"), "it is cmd.exe");
  assertEquals(refusePwshPath("C:\\Windows\\System32\\wsl.exe"), "it is a WSL bridge");
  assertEquals(refusePwshPath("C:\\Windows\\System32\\bash.exe"), "it is a WSL bridge");
  assertEquals(refusePwshPath("C:\\Program Files\\PowerShell\\7\\pwsh.exe"), null);
  assertEquals(refusePwshPath("C:\\x\\pwsh.cmd"), 'its name is "pwsh.cmd", not pwsh.exe');
});

Deno.test("pwshCandidates() orders override, PATH, then %ProgramFiles%", () => {
  const which = (p: string) => (p === "pwsh.exe" ? "C:\\scoop\\shims\\pwsh.exe" : null);
  assertEquals(pwshCandidates({ ProgramFiles: "D:\\PF" }, which), [
    "C:\\scoop\\shims\\pwsh.exe",
    "D:\\PF\\PowerShell\\7\\pwsh.exe",
  ]);
  assertEquals(pwshCandidates({ AITERM_PWSH_BIN: "E:\\pwsh.exe" }, () => null), [
    "E:\\pwsh.exe",
    "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
  ]);
});

Deno.test("resolvePwsh() takes the first PowerShell 7+, skipping 6 and refusing 5.1 with every reason named", async () => {
  const versions: Record<string, string> = {
    "C:\\old\\pwsh.exe": "PowerShell 6.2.7",
    "C:\\Program Files\\PowerShell\\7\\pwsh.exe": "PowerShell 7.4.6",
  };
  const probe = {
    which: (p: string) => (p === "pwsh.exe" ? "C:\\old\\pwsh.exe" : null),
    exists: (p: string) => p in versions,
    version: (p: string) => Promise.resolve(versions[p] ?? null),
  };
  assertEquals(await resolvePwsh({}, probe), { path: "C:\\Program Files\\PowerShell\\7\\pwsh.exe", version: "7.4.6" });
  const err = await assertRejects(() =>
    resolvePwsh({ AITERM_PWSH_BIN: "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" }, probe)
  );
  assert(err instanceof AppError && err.code === "SHELL_NOT_FOUND", String(err));
  assertStringIncludes(err.message, "Windows PowerShell 5.1");
  const none = await assertRejects(() => resolvePwsh({}, { ...probe, exists: (p) => p === "C:\\old\\pwsh.exe" }));
  assertStringIncludes(none.message, "PowerShell 6.2.7 is older than 7");
  assertStringIncludes(none.message, "PowerShell\\7\\pwsh.exe: not found");
});

Deno.test("generated PowerShell parses without errors (PowerShell parser round trip)", {
  ignore: PWSH === null,
}, async () => {
  const dialect = dialectById("pwsh");
  const scripts = [
    outputSinkScript("C:\\Users\\o'k\\log", 4096),
    startProcessScript("C:\\a b\\x.exe", ["a b", 'q"', "it's"], { hidden: true }),
    dialect.scriptLine("cd $HOME\nWrite-Output 'héllo'\n@'\nhere\n'@") + dialect.sentinelSuffix("n1"),
  ];
  for (const s of scripts) assertEquals(await runPwsh(parseCheckScript(s)), "0", s);
});

Deno.test("the PowerShell output sink writes split-compatible segments", { ignore: PWSH === null }, async () => {
  const dir = await Deno.makeTempDir();
  try {
    const data = new Uint8Array(10_000).map((_b, i) => i % 251);
    await runPwsh(outputSinkScript(dir, 4096), data);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assertEquals(names, [segmentName(0), segmentName(1), segmentName(2)]);
    const joined = names.map((n) => Deno.readFileSync(`${dir}/${n}`));
    assertEquals(joined.map((b) => b.length), [4096, 4096, 1808]);
    assertEquals([...joined[2]!.slice(-3)], [...data.slice(-3)]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
