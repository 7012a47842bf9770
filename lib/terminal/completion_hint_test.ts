import { assert } from "../../tests/helpers/assert.ts";
import { nestedHint } from "./completion.ts";

Deno.test("nestedHint() offers mark:true only for shells, never for vim, less or a REPL", () => {
  for (const shell of ["bash", "zsh", "dash", "sh", "pwsh"]) assert(nestedHint(shell).includes("mark:true"), shell);
  for (const program of ["vim", "less", "top", "python3", "node", "cat", "fish", "my-tool"]) {
    const hint = nestedHint(program);
    assert(!hint.includes("mark"), `${program}: ${hint}`);
    assert(!/C-c/.test(hint), `${program}: a waiting program must not be told to be interrupted`);
  }
});

Deno.test("nestedHint() offers a prompt host exactly what pty_send accepts there: a named dialect", () => {
  for (const host of ["ssh", "docker", "su", "sudo"]) {
    const hint = nestedHint(host);
    assert(hint.includes('mark:"posix"') && !hint.includes("mark:true"), `${host}: ${hint}`);
  }
});

Deno.test("nestedHint(guessed) says the verdict rests on the name, and keeps the offer", () => {
  const hint = nestedHint("ssh", true);
  assert(hint.includes("guessed from its name"), hint);
  assert(hint.includes("until"), hint);
  assert(!nestedHint("ssh").includes("guess"), nestedHint("ssh"));
  assert(!nestedHint("python3").includes("guess"), nestedHint("python3"));
});
