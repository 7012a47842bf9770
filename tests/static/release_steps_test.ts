/**
 * The release workflow's steps that can run on this machine, run as written in .github/workflows/release.yml
 * (issue 31 item 8): the tag-is-the-version check, scripts/compile.ts's argument handling, and the archive and
 * checksum layout that the build, smoke and e2e jobs rely on, built with a stand-in base runtime (DENORT_BIN
 * = /bin/true, an ELF program that is not denort: the archives are real, the binaries inside only look the
 * part). What cannot run here: the compiled binaries themselves (no denort offline; tests/e2e/compiled_test.ts
 * runs them when it can be had), the Windows zip (deno compile needs a PE base) and the GitHub release.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { VERSION } from "../../base/version.ts";

const root = new URL("../../", import.meta.url).pathname;
const workflow = await Deno.readTextFile(`${root}.github/workflows/release.yml`);
const linux = Deno.build.os === "linux";
/** A Linux target other than this machine's (compile.ts smoke-runs the host's binary; a stand-in cannot pass). */
const other = Deno.build.arch === "x86_64" ? "aarch64-unknown-linux-gnu" : "x86_64-unknown-linux-gnu";

const indentOf = (line: string) => line.length - line.trimStart().length;

/** The `run:` script (`run: |` block or one line) of the step named `step` in job `job`, dedented (a small reader for this one file's shape). */
function stepScript(yaml: string, job: string, step: string): string {
  const lines = yaml.split("\n");
  const jobAt = lines.findIndex((l) => l === `  ${job}:`);
  assert(jobAt >= 0, `no job ${job}`);
  let end = lines.findIndex((l, i) => i > jobAt && l.trim() !== "" && indentOf(l) <= 2);
  if (end < 0) end = lines.length;
  const stepAt = lines.findIndex((l, i) => i > jobAt && i < end && l.trim() === `- name: ${step}`);
  assert(stepAt >= 0, `no step "${step}" in job ${job}`);
  const itemIndent = indentOf(lines[stepAt]!);
  for (let i = stepAt + 1; i < end; i++) {
    const l = lines[i]!;
    if (l.trim().startsWith("- ") && indentOf(l) === itemIndent) break;
    const inline = /^run: (?!\|)(.+)$/.exec(l.trim());
    if (inline) return `${inline[1]}\n`;
    if (l.trim() === "run: |") {
      const body: string[] = [];
      for (let j = i + 1; j < end && (lines[j]!.trim() === "" || indentOf(lines[j]!) > indentOf(l)); j++) {
        body.push(lines[j]!);
      }
      const cut = Math.min(...body.filter((b) => b.trim()).map(indentOf));
      return body.map((b) => b.slice(cut)).join("\n").trimEnd() + "\n";
    }
  }
  throw new Error(`step "${step}" in job ${job} has no run:`);
}

/** Runs a step's script the way GitHub's runner runs `shell: bash` (`bash --noprofile --norc -eo pipefail`). */
async function bash(script: string, cwd: string, env: Record<string, string> = {}) {
  const r = await new Deno.Command("bash", {
    args: ["--noprofile", "--norc", "-eo", "pipefail", "-c", script],
    cwd,
    env: { PATH: `${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH") ?? ""}`, ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
}

async function compile(args: string[], env: Record<string, string> = {}) {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/compile.ts", ...args],
    cwd: root,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: r.code, err: new TextDecoder().decode(r.stderr) };
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("release: the tag-is-the-version step passes for v<VERSION> and fails for another tag", async () => {
  const script = stepScript(workflow, "build", "The tag is the version in base/version.ts");
  assertStringIncludes(script, "base/version.ts");
  const tmp = await Deno.makeTempDir({ prefix: "ait-release-" });
  try {
    const env = `${tmp}/github_env`;
    await Deno.writeTextFile(env, "");
    const ok = await bash(script, root, { GITHUB_REF_NAME: `v${VERSION}`, GITHUB_ENV: env });
    assertEquals(ok.code, 0, ok.out);
    assertEquals(await Deno.readTextFile(env), `VERSION=${VERSION}\n`);
    const bad = await bash(script, root, { GITHUB_REF_NAME: "v0.0.0-not-it", GITHUB_ENV: env });
    assertEquals(bad.code, 1, bad.out);
    assertStringIncludes(bad.out, `::error::tag v0.0.0-not-it does not match base/version.ts (${VERSION})`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("release: scripts/compile.ts refuses bad arguments with exit 2 before it builds or writes anything", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ait-release-" });
  try {
    const out = `${tmp}/dist`;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["--bogus"], {}, /usage: deno task compile \[--target TRIPLE\]\.\.\. \[--out DIR\]/],
      [["--target"], {}, /usage: deno task compile/],
      [["--target", "x86_64-unknown-plan9", "--out", out], {}, /unknown target "x86_64-unknown-plan9"; choose from/],
      [["--out", out], { DENORT_BIN: "/bin/true" }, /DENORT_BIN is the base runtime of one target/],
      [
        ["--target", other, "--target", "x86_64-apple-darwin", "--out", out],
        { DENORT_BIN: "/bin/true" },
        /pass exactly one --target/,
      ],
    ];
    for (const [args, env, want] of cases) {
      const r = await compile(args, env);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.err}`);
      assertMatch(r.err, want);
    }
    assertEquals(await exists(out), false, "a refused compile created its output folder");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test({
  name: "release: archives, .sha256 and SHA256SUMS as the build, smoke and e2e jobs read them (stand-in runtime)",
  ignore: !linux,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "ait-release-" });
    try {
      const dist = `${tmp}/dist`;
      const built = await compile(["--target", other, "--out", dist], { DENORT_BIN: "/bin/true" });
      assertEquals(built.code, 0, built.err);
      const name = `aiterm-${VERSION}-${other}`;
      const listing = async (dir: string) => [...await Array.fromAsync(Deno.readDir(dir))].map((e) => e.name).sort();
      assertEquals(await listing(dist), [name, `${name}.tar.gz`, `${name}.tar.gz.sha256`, "SHA256SUMS"].sort());
      const tar = await new Deno.Command("tar", { args: ["-tzf", `${dist}/${name}.tar.gz`], stdout: "piped" }).output();
      const entries = new TextDecoder().decode(tar.stdout).trim().split("\n").map((e) => e.replace(/\/$/, "")).sort();
      assertEquals(
        entries,
        [name, ...["CHANGELOG.md", "README.ja.md", "README.md", "aiterm-mcp", "aiterm-wait"].map((f) => `${name}/${f}`)]
          .sort(),
      );
      const sums = await Deno.readTextFile(`${dist}/SHA256SUMS`);
      assertMatch(sums, new RegExp(`^[0-9a-f]{64}  ${name.replaceAll(".", "\\.")}\\.tar\\.gz\\n$`));
      assertEquals(await Deno.readTextFile(`${dist}/${name}.tar.gz.sha256`), sums);

      // build: "Checksums verify" (working-directory: dist), then the same on a tampered archive.
      const verify = stepScript(workflow, "build", "Checksums verify");
      assertEquals(verify.trim(), "sha256sum -c SHA256SUMS");
      const good = await bash(verify, dist);
      assertEquals(good.code, 0, good.out);
      const tampered = `${tmp}/tampered`;
      await Deno.mkdir(tampered);
      await Deno.copyFile(`${dist}/SHA256SUMS`, `${tampered}/SHA256SUMS`);
      const bytes = await Deno.readFile(`${dist}/${name}.tar.gz`);
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
      await Deno.writeFile(`${tampered}/${name}.tar.gz`, bytes);
      assert((await bash(verify, tampered)).code !== 0, "a tampered archive passed the checksum step");

      // What upload-artifact takes (dist/*.tar.gz, *.zip, *.sha256, SHA256SUMS) is what the other jobs download.
      const artifacts = `${tmp}/job/artifacts`;
      await Deno.mkdir(artifacts, { recursive: true });
      for (const f of [`${name}.tar.gz`, `${name}.tar.gz.sha256`, "SHA256SUMS"]) {
        await Deno.copyFile(`${dist}/${f}`, `${artifacts}/${f}`);
      }

      // smoke (POSIX): checksum and unpack as written, up to starting the binaries (a stand-in cannot answer).
      const smoke = stepScript(workflow, "smoke", "Verify checksum and start the binaries (POSIX)")
        .replaceAll("${{ matrix.target }}", other);
      const start = smoke.indexOf('"$dir/aiterm-mcp" version');
      assert(start > 0, "the smoke step no longer starts aiterm-mcp version");
      const unpacked = await bash(
        `${smoke.slice(0, start)}test -x "$dir/aiterm-mcp"; test -x "$dir/aiterm-wait"; echo "dir=$dir"\n`,
        artifacts,
      );
      assertEquals(unpacked.code, 0, unpacked.out);
      assertStringIncludes(unpacked.out, `dir=x/${name}`);

      // e2e-linux: unpack outside the source tree and name the server (its x86_64 archive stands for ours).
      const unpack = stepScript(workflow, "e2e-linux", "Unpack the Linux x86_64 archive outside the source tree")
        .replaceAll("x86_64-unknown-linux-gnu", other);
      const githubEnv = `${tmp}/github_env`;
      await Deno.writeTextFile(githubEnv, "");
      const runnerTemp = `${tmp}/runner`;
      await Deno.mkdir(runnerTemp);
      const e2e = await bash(unpack, `${tmp}/job`, { RUNNER_TEMP: runnerTemp, GITHUB_ENV: githubEnv });
      assertEquals(e2e.code, 0, e2e.out);
      const server = `${runnerTemp}/aiterm/${name}/aiterm-mcp`;
      assertEquals(await Deno.readTextFile(githubEnv), `AITERM_TEST_SERVER=${server}\n`);
      assert((await Deno.stat(server)).mode! & 0o100, "the unpacked aiterm-mcp is not executable");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "release: compile.ts smoke-runs the host's binary and refuses one that does not answer its version",
  ignore: !linux,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "ait-release-" });
    try {
      const r = await compile(["--target", Deno.build.target, "--out", `${tmp}/dist`], { DENORT_BIN: "/bin/true" });
      assertEquals(r.code, 1, r.err);
      assertStringIncludes(r.err, `the compiled aiterm-mcp does not run: expected "${VERSION}", got ""`);
      assertStringIncludes(r.err, "DENORT_BIN must be a denort base runtime");
      assertEquals(await exists(`${tmp}/dist/SHA256SUMS`), false, "a failed smoke still wrote SHA256SUMS");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
