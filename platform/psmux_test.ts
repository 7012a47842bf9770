import { assert, assertEquals, assertRejects, assertStringIncludes } from "../tests/helpers/assert.ts";
import {
  createPsmux,
  gitBashPath,
  parseOutputSinkCommand,
  parsePsmuxVersion,
  psmuxCaptureArgs,
  psmuxGlobalArgs,
  psmuxNamespace,
  psmuxNewSessionArgs,
  psmuxPasteInvocations,
  psmuxTarget,
  psmuxVersionAtLeast,
  utf8Chunks,
} from "./psmux.ts";
import { outputSinkCommand } from "./output_sink.ts";
import { AppError } from "../base/errors.ts";

Deno.test("utf8Chunks() never splits a character and keeps pieces within 256 bytes", () => {
  const text = "a" + "漢😀é".repeat(300);
  const chunks = utf8Chunks(new TextEncoder().encode(text));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let joined = "";
  for (const c of chunks) {
    assert(c.length <= 256);
    joined += decoder.decode(c);
  }
  assertEquals(joined, text);
  assertEquals(utf8Chunks(new Uint8Array(0)), []);
});

Deno.test("parsePsmuxVersion() / psmuxVersionAtLeast(): 3.3.8 is the minimum", () => {
  assertEquals(parsePsmuxVersion("psmux 3.3.8\r\n"), { raw: "3.3.8", major: 3, minor: 3, patch: 8 });
  assertEquals(parsePsmuxVersion("tmux 3.4")?.patch, 0);
  assertEquals(parsePsmuxVersion("psmux"), null);
  const at = (s: string) => psmuxVersionAtLeast(parsePsmuxVersion(s)!, "3.3.8");
  assertEquals(["3.3.7", "3.3.8", "3.3.10", "3.4.0", "2.9.9", "4.0"].map(at), [false, true, true, true, false, true]);
});

Deno.test("psmuxNamespace() is stable per state root and case-insensitive like Windows paths", () => {
  const a = psmuxNamespace("C:\\Users\\me\\AppData\\Local\\aiterm-mcp\\tmux.sock");
  assertEquals(a, "aiterm-b996bbcb");
  assertEquals(psmuxNamespace("c:\\users\\ME\\AppData\\Local\\aiterm-mcp\\tmux.sock"), a);
  assert(psmuxNamespace("C:\\other\\tmux.sock") !== a);
  assertEquals(psmuxGlobalArgs(a), ["-L", a, "-f", "NUL"]);
  assertEquals(psmuxTarget("t1"), "=t1:");
});

Deno.test("parseOutputSinkCommand() recovers dir and segment size from the POSIX sink, quotes included", () => {
  assertEquals(parseOutputSinkCommand(outputSinkCommand("C:\\Users\\o'k\\sessions\\t1\\log", 4096)), {
    dir: "C:\\Users\\o'k\\sessions\\t1\\log",
    segmentBytes: 4096,
    base: 0,
  });
  // A restarted writer's sink keeps its generation.
  assertEquals(parseOutputSinkCommand(outputSinkCommand("/s/sessions/t1/log", 4096, 29))?.base, 29);
  assertEquals(parseOutputSinkCommand("cat > /tmp/x"), null);
});

Deno.test("psmuxNewSessionArgs() golden: one command list, env via -e, sink attached last", () => {
  const spec = {
    name: "t1",
    cwd: "C:\\work",
    argv: ["C:\\Program Files\\PowerShell\\7\\pwsh.exe", "-NoLogo"],
    // Not applied on psmux (platform/psmux.ts newSession): never an -e.
    baseEnv: { PATH: "C:\\Windows", SECRET: "s3cret" },
    env: { AITERM_SESSION_ID: "t1" },
    privateDir: "C:\\state\\sessions\\t1",
    width: 200,
    height: 50,
    outputSink: "",
    keepOnExit: true,
  };
  assertEquals(psmuxNewSessionArgs(spec, "SINK"), [
    "new-session",
    "-d",
    "-s",
    "t1",
    "-x",
    "200",
    "-y",
    "50",
    "-c",
    "C:\\work",
    "-e",
    "AITERM_SESSION_ID=t1",
    "--",
    "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    "-NoLogo",
    ";",
    "set-option",
    "-t",
    "=t1:",
    "history-limit",
    "50000",
    ";",
    "set-option",
    "-w",
    "-t",
    "=t1:",
    "remain-on-exit",
    "on",
    ";",
    "pipe-pane",
    "-t",
    "=t1:",
    "SINK",
  ]);
});

Deno.test("psmuxPasteInvocations(): one round trip per 256-byte UTF-8 chunk, in order, keys on the last", () => {
  const chunks = utf8Chunks(new TextEncoder().encode("é".repeat(200)));
  assertEquals(chunks.map((c) => c.length), [256, 144]);
  const calls = psmuxPasteInvocations("t1", "tag", ["f0", "f1"], { keysAfter: ["Enter"] });
  assertEquals(calls, [
    ["load-buffer", "-b", "tag-0", "f0", ";", "paste-buffer", "-d", "-b", "tag-0", "-t", "=t1:"],
    [
      "load-buffer",
      "-b",
      "tag-1",
      "f1",
      ";",
      "paste-buffer",
      "-d",
      "-b",
      "tag-1",
      "-t",
      "=t1:",
      ";",
      "send-keys",
      "-t",
      "=t1:",
      "Enter",
    ],
  ]);
  assertEquals(psmuxPasteInvocations("t1", "tag", ["f"], { bracketed: true, exact: true }), [
    ["load-buffer", "-b", "tag", "f", ";", "paste-buffer", "-d", "-p", "-b", "tag", "-t", "=t1:", "-r"],
  ]);
  assertEquals(psmuxPasteInvocations("t1", "tag", [], { keysAfter: ["C-c"] }), [["send-keys", "-t", "=t1:", "C-c"]]);
});

Deno.test("psmuxCaptureArgs() golden", () => {
  assertEquals(psmuxCaptureArgs("t1", { scrollback: 100, escapes: true }), [
    "capture-pane",
    "-p",
    "-J",
    "-t",
    "=t1:",
    "-S",
    "-100",
    "-e",
  ]);
});

Deno.test("gitBashPath() prefers Git for Windows and never returns the WSL bridge", () => {
  const none = { exists: () => false, which: () => null };
  assertEquals(
    gitBashPath({ ProgramFiles: "D:\\PF" }, { ...none, exists: (p) => p === "D:\\PF\\Git\\bin\\bash.exe" }),
    "D:\\PF\\Git\\bin\\bash.exe",
  );
  assertEquals(gitBashPath({}, { ...none, which: () => "C:\\Windows\\System32\\bash.exe" }), null);
  assertEquals(
    gitBashPath({}, { ...none, which: () => "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\bash.exe" }),
    null,
  );
  assertEquals(gitBashPath({}, { ...none, which: () => "D:\\Git\\usr\\bin\\bash.exe" }), "D:\\Git\\usr\\bin\\bash.exe");
  assertEquals(gitBashPath({ AITERM_GIT_BASH: "E:\\bash.exe" }, none), "E:\\bash.exe");
});

/** A fake psmux (POSIX sh) that prints `version` for -V and records every other argv, one per line. */
async function fakePsmux(version: string): Promise<{ bin: string; log: string; dir: string }> {
  const dir = await Deno.makeTempDir();
  const bin = `${dir}/psmux`;
  const log = `${dir}/argv.log`;
  await Deno.writeTextFile(
    bin,
    `#!/bin/sh\nif [ "$1" = -V ]; then echo "psmux ${version}"; exit 0; fi\nprintf '%s|' "$@" >> '${log}'\necho >> '${log}'\n`,
  );
  await Deno.chmod(bin, 0o755);
  return { bin, log, dir };
}

Deno.test("the psmux backend refuses psmux older than 3.3.8 with TMUX_TOO_OLD", async () => {
  const f = await fakePsmux("3.3.7");
  try {
    const mux = createPsmux({ socketPath: "/x/tmux.sock", scratchDir: f.dir, bin: f.bin });
    assertEquals(mux.kind, "psmux");
    assertEquals(await mux.probeVersion(), "3.3.7");
    const err = await assertRejects(() => mux.ensureAvailable());
    assert(err instanceof AppError && err.code === "TMUX_TOO_OLD", String(err));
    assertStringIncludes(err.message, "psmux 3.3.7 is older than 3.3.8");
    const missing = createPsmux({ socketPath: "/x/tmux.sock", scratchDir: f.dir, bin: `${f.dir}/nope` });
    const nf = await assertRejects(() => missing.ensureAvailable());
    assert(nf instanceof AppError && nf.code === "TMUX_NOT_FOUND", String(nf));
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("the psmux backend sends every chunk through one chokepoint, in order, and cleans up", async () => {
  const f = await fakePsmux("3.3.8");
  try {
    const mux = createPsmux({ socketPath: "/x/tmux.sock", scratchDir: f.dir, bin: f.bin });
    await mux.pasteText("t1", "あ".repeat(100), { keysAfter: ["Enter"] });
    const lines = (await Deno.readTextFile(f.log)).trim().split("\n");
    assertEquals(lines.length, 2);
    const ns = psmuxNamespace("/x/tmux.sock");
    for (const [i, line] of lines.entries()) {
      const argv = line.split("|").slice(0, -1);
      assertEquals(argv.slice(0, 6), ["-L", ns, "-f", "NUL", "load-buffer", "-b"]);
      assert(argv[6]!.endsWith(`-${i}`), line);
    }
    assert(lines[1]!.endsWith("send-keys|-t|=t1:|Enter|"), lines[1]);
    assertEquals([...Deno.readDirSync(f.dir)].map((e) => e.name).sort(), ["argv.log", "psmux"]);
    assertEquals(mux.attachCommand("t1"), [f.bin, "-L", ns, "attach", "-t", "=t1:"]);
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});
