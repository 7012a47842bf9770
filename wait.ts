/** Entry point of the `aiterm-wait` binary (compiled on its own; same code as `aiterm-mcp wait`). */
import { rootConfig } from "./base/config.ts";
import { runWait } from "./lib/wait_cli.ts";

if (import.meta.main) {
  const env = Deno.env.toObject();
  Deno.exit(await runWait(Deno.args, env, rootConfig(env, "aiterm-wait")));
}
