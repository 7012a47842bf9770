// deno-lint-ignore-file no-console
/**
 * `deno task compile [--target T]… [--out DIR]`: self-contained `aiterm-mcp` (main.ts) and `aiterm-wait`
 * (wait.ts) binaries per target, archived as `aiterm-<version>-<target>.tar.gz` (`.zip` on Windows) with
 * a `<archive>.sha256` each and one `SHA256SUMS` under dist/. The version comes from base/version.ts only.
 * `deno compile` needs the target's base runtime (denort): it is downloaded on release CI; offline, set
 * DENORT_BIN (one target at a time) or pre-seed $DENO_DIR/dl/release/v<deno>/denort-<target>.zip.
 */
import { parseArgs } from "node:util";
import { SERVER_V8_FLAGS } from "../platform/self_command.ts";
import { VERSION } from "../base/version.ts";

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/** The programs in every archive: name → entry point. */
const PROGRAMS = [
  ["aiterm-mcp", "main.ts"],
  ["aiterm-wait", "wait.ts"],
] as const;

/** Files copied beside the binaries (documentation only; nothing is read at run time). */
const DOCS = ["README.md", "README.ja.md", "CHANGELOG.md"];

function fail(message: string, code = 1): never {
  console.error(`compile: ${message}`);
  Deno.exit(code);
}

let values: { target?: string[]; out?: string };
try {
  values = parseArgs({ options: { target: { type: "string", multiple: true }, out: { type: "string" } } }).values;
} catch (err) {
  fail(`${(err as Error).message}\nusage: deno task compile [--target TRIPLE]... [--out DIR]`, 2);
}
const targets = values.target?.length ? [...new Set(values.target)] : [...TARGETS];
for (const t of targets) {
  if (!(TARGETS as readonly string[]).includes(t)) fail(`unknown target "${t}"; choose from ${TARGETS.join(", ")}`, 2);
}
if (Deno.env.get("DENORT_BIN") && targets.length !== 1) {
  fail("DENORT_BIN is the base runtime of one target; pass exactly one --target with it", 2);
}
const root = new URL("..", import.meta.url).pathname;
const out = values.out ?? `${root}dist`;
await Deno.mkdir(out, { recursive: true });
const sums: string[] = [];

async function run(
  cmd: string,
  args: string[],
  cwd?: string,
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  try {
    const r = await new Deno.Command(cmd, { args, cwd: cwd ?? root, stdout: "piped", stderr: "piped" }).output();
    const dec = new TextDecoder();
    return { ok: r.success, stdout: dec.decode(r.stdout), stderr: dec.decode(r.stderr) };
  } catch (err) {
    return { ok: false, stdout: "", stderr: `cannot run ${cmd}: ${(err as Error).message}` };
  }
}

async function sha256(path: string): Promise<string> {
  const data = await Deno.readFile(path);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function runtimeUnavailable(target: string): never {
  fail(
    `cannot get the Deno base runtime (denort) for ${target}: this machine cannot download it.\n` +
      `  Set DENORT_BIN=/path/to/denort for that target (with --target ${target}), or copy denort-${target}.zip ` +
      `into $DENO_DIR/dl/release/v${Deno.version.deno}/, then run again.`,
  );
}

for (const target of targets) {
  const windows = target.includes("windows");
  const name = `aiterm-${VERSION}-${target}`;
  const dir = `${out}/${name}`;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(dir, { recursive: true });
  for (const [program, entry] of PROGRAMS) {
    const exe = `${dir}/${program}${windows ? ".exe" : ""}`;
    console.error(`compile: ${target}: ${entry} → ${exe}`);
    const r = await run(Deno.execPath(), [
      "compile",
      "-A",
      SERVER_V8_FLAGS,
      "--quiet",
      "--target",
      target,
      "--output",
      exe,
      entry,
    ]);
    if (!r.ok) {
      if (/base binary|denort|error sending request|dns error|Failed to unpack|download/i.test(r.stderr)) {
        runtimeUnavailable(target);
      }
      fail(`deno compile failed for ${program} (${target}):\n${r.stderr.trim()}`);
    }
  }
  if (target === Deno.build.target) {
    // Smoke: the host-runnable binary answers from outside the source tree.
    const v = await run(`${dir}/aiterm-mcp${windows ? ".exe" : ""}`, ["version"], out);
    if (!v.ok || v.stdout.trim() !== VERSION) {
      const hint = Deno.env.get("DENORT_BIN")
        ? "\n  DENORT_BIN must be a denort base runtime, not the deno CLI (a deno binary ignores the payload)."
        : "";
      fail(
        `the compiled aiterm-mcp does not run: expected "${VERSION}", got ${
          JSON.stringify((v.stdout + v.stderr).slice(0, 200))
        }${hint}`,
      );
    }
  }
  for (const doc of DOCS) await Deno.copyFile(`${root}${doc}`, `${dir}/${doc}`).catch(() => {});
  const archive = windows ? `${dir}.zip` : `${dir}.tar.gz`;
  await Deno.remove(archive).catch(() => {});
  const packed = windows
    ? await run("zip", ["-qr", archive, name], out)
    : await run("tar", ["-czf", archive, "-C", out, name]);
  if (!packed.ok) fail(`cannot archive ${target}: ${packed.stderr.trim()}`);
  const line = `${await sha256(archive)}  ${archive.split("/").pop()}`;
  await Deno.writeTextFile(`${archive}.sha256`, line + "\n");
  sums.push(line);
}
await Deno.writeTextFile(`${out}/SHA256SUMS`, sums.join("\n") + "\n");
console.error(`compile: ${sums.length} archive(s) of aiterm ${VERSION} and SHA256SUMS in ${out}`);
