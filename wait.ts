/** Entry point of the `aiterm-wait` binary (compiled on its own; same code as `aiterm-mcp wait`). */
import { runWait } from "./lib/wait_cli.ts";

if (import.meta.main) Deno.exit(await runWait(Deno.args, Deno.env.toObject()));
