/**
 * aiterm-wait is compiled on its own and started once per parent wait: it must carry only what a
 * waiter needs (state layout, multiplexer, Terminal, the harness rules and the waiter). Its module
 * graph, as `deno info` resolves it, has nothing of the MCP server, parent delivery, the remote
 * relay, the error store or setup, and no npm package (the MCP SDK, zod).
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Folders (and their subfolders) aiterm-wait must not load, with what they are. */
const EXCLUDED: Record<string, string> = {
  "lib/mcp": "the MCP server and its tools",
  "lib/agent/delivery": "parent delivery",
  "lib/remote": "the ssh relay",
  "lib/errors_store": "the runtime-error store",
  "setup": "client registration",
  "harnesses/clients": "the AI clients as parents and their registration",
};

Deno.test("aiterm-wait's module graph has no MCP server, delivery, remote, error store, setup or npm package", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "wait.ts"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: { specifier: string }[] };
  const specifiers = info.modules.map((m) => m.specifier);
  const local = specifiers.filter((s) => s.startsWith(`file://${root}`)).map((s) => s.slice(`file://${root}`.length));
  assert(local.includes("lib/agent/waiter.ts") && local.includes("lib/terminal/terminal.ts"), "the graph was resolved");
  const offenders = local.filter((p) => p.startsWith("node_modules/") || p.startsWith("npm:")).map((p) => `${p}: npm`);
  for (const path of local) {
    for (const [dir, what] of Object.entries(EXCLUDED)) {
      if (path.startsWith(`${dir}/`)) offenders.push(`${path}: ${what}`);
    }
  }
  for (const path of local) {
    // Each vendor's client side (harnesses/<vendor>/client/, harnesses/common/client/) is not the waiter's.
    if (/^harnesses\/[^/]+\/client\//.test(path)) offenders.push(`${path}: a client integration`);
  }
  for (const s of specifiers) {
    // node_modules may be a link to another checkout's, outside this root: an npm package all the same.
    if (s.startsWith("npm:") || s.includes("/node_modules/")) offenders.push(`${s}: npm`);
  }
  assertEquals(offenders, []);
});
