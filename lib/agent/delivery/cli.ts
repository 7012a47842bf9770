/**
 * `aiterm-mcp hook <name>`: the processes AI clients start (hooks read one JSON object on stdin).
 * The names and what each does come from the parent integrations (harnesses/<vendor>/parent.ts);
 * this file only finds the hook and gives it the delivery store of the state root. Hooks touch only
 * that store; stdout carries only what the client's hook contract reads.
 */
import { defaultStateRoot } from "../../../platform/mod.ts";
import { DeliveryStore } from "../../../state/mod.ts";
import { type HookContext, type ParentIntegration, parentStoreDirs } from "../../../harnesses/clients/mod.ts";

const write: HookContext["write"] = async (stream, text) => {
  const w = (stream === "stdout" ? Deno.stdout : Deno.stderr).writable.getWriter();
  try {
    await w.write(new TextEncoder().encode(text));
  } finally {
    w.releaseLock();
  }
};

/** Every hook name the integrations install, in registry order. */
export function hookNames(parents: readonly ParentIntegration[]): string[] {
  return parents.flatMap((p) => Object.keys(p.hooks));
}

/** What a hook or receive process works with: the store of the state root `env` names, and stdio. */
export function hookContext(env: Record<string, string>, parents: readonly ParentIntegration[]): HookContext {
  return { store: new DeliveryStore(defaultStateRoot(env), parentStoreDirs(parents)), env, write };
}

/** Runs one hook; returns its exit code. Unknown names exit 2 with a message on stderr. */
export async function runHook(
  args: string[],
  env: Record<string, string>,
  parents: readonly ParentIntegration[],
): Promise<number> {
  const name = args[0];
  const hook = name && args.length === 1 ? parents.find((p) => Object.hasOwn(p.hooks, name))?.hooks[name] : undefined;
  if (!name || !hook) {
    await write("stderr", `aiterm-mcp hook: expected one of ${hookNames(parents).join(", ")}\n`);
    return 2;
  }
  const stdin = await new Response(Deno.stdin.readable).text();
  try {
    return await hook(stdin, hookContext(env, parents));
  } catch (err) {
    // A hook must never break the client's tool call: report on stderr, exit 1 (non-blocking).
    await write("stderr", `aiterm-mcp hook ${name}: ${(err as Error).message}\n`).catch(() => {});
    return 1;
  }
}
