// deno-lint-ignore-file no-console
/**
 * `deno task compile [--target T]…`: self-contained `aiterm-mcp` binaries per target, archived with
 * SHA-256 checksums under dist/. `deno compile` needs the target's base runtime (denort): it is
 * downloaded on release CI; offline, set DENORT_BIN or pre-seed $DENO_DIR/dl/release/v<deno>/.
 */
import { parseArgs } from "node:util";
import { VERSION } from "../lib/version.ts";

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

const { values } = parseArgs({ options: { target: { type: "string", multiple: true }, out: { type: "string" } } });
const targets = values.target?.length ? values.target : [...TARGETS];
for (const t of targets) {
  if (!(TARGETS as readonly string[]).includes(t)) {
    console.error(`compile: unknown target "${t}"; choose from ${TARGETS.join(", ")}`);
    Deno.exit(2);
  }
}
const root = new URL("..", import.meta.url).pathname;
const out = values.out ?? `${root}dist`;
await Deno.mkdir(out, { recursive: true });
const sums: string[] = [];

async function run(cmd: string, args: string[], cwd?: string): Promise<{ ok: boolean; stderr: string }> {
  const r = await new Deno.Command(cmd, { args, cwd: cwd ?? root, stdout: "inherit", stderr: "piped" }).output();
  return { ok: r.success, stderr: new TextDecoder().decode(r.stderr) };
}

async function sha256(path: string): Promise<string> {
  const data = await Deno.readFile(path);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

for (const target of targets) {
  const windows = target.includes("windows");
  const dir = `${out}/aiterm-${VERSION}-${target}`;
  await Deno.mkdir(dir, { recursive: true });
  const exe = `${dir}/aiterm-mcp${windows ? ".exe" : ""}`;
  console.error(`compile: ${target} → ${exe}`);
  const r = await run(Deno.execPath(), ["compile", "-A", "--target", target, "--output", exe, "main.ts"]);
  if (!r.ok) {
    if (/base binary|denort|error sending request|dns error|Failed to unpack/i.test(r.stderr)) {
      console.error(
        `compile: cannot get the Deno base runtime (denort) for ${target}: this machine cannot download it.\n` +
          `  Set DENORT_BIN=/path/to/denort for that target, or copy denort-${target}.zip into ` +
          `$DENO_DIR/dl/release/v${Deno.version.deno}/, then run again.`,
      );
    } else {
      console.error(`compile: deno compile failed for ${target}:\n${r.stderr.trim()}`);
    }
    Deno.exit(1);
  }
  const archive = windows ? `${dir}.zip` : `${dir}.tar.gz`;
  const packed = windows
    ? await run("zip", ["-qr", archive, `aiterm-${VERSION}-${target}`], out)
    : await run("tar", ["-czf", archive, "-C", out, `aiterm-${VERSION}-${target}`]);
  if (!packed.ok) {
    console.error(`compile: cannot archive ${target}: ${packed.stderr.trim()}`);
    Deno.exit(1);
  }
  sums.push(`${await sha256(archive)}  ${archive.split("/").pop()}`);
}
await Deno.writeTextFile(`${out}/SHA256SUMS`, sums.join("\n") + "\n");
console.error(`compile: ${sums.length} archive(s) and SHA256SUMS in ${out}`);
