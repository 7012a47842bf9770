/** Where a `mark` sentinel may be typed (issue 15 item 4): by the foreground program, its prompt, or the caller. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { decideMark, markHost, markOffer, promptDialect } from "./mark_target.ts";

const noScreen = () => Promise.reject(new Error("the screen must not be read here"));

Deno.test("markHost() classifies shells, foreign shells, prompt hosts and known non-shells", () => {
  for (const s of ["bash", "zsh", "dash", "sh", "-bash", "/usr/bin/ksh"]) {
    assertEquals(markHost(s), { kind: "shell", dialect: "posix" });
  }
  for (const s of ["pwsh", "pwsh.exe", "powershell.exe"]) assertEquals(markHost(s), { kind: "shell", dialect: "pwsh" });
  for (const s of ["fish", "tcsh", "nu"]) assertEquals(markHost(s).kind, "foreign_shell");
  for (const s of ["ssh", "docker", "su", "sudo", "kubectl"]) assertEquals(markHost(s).kind, "prompt_host");
  for (const s of ["python3", "python3.12", "node", "vim", "less", "top", "cat", "psql"]) {
    assertEquals(markHost(s).kind, "not_a_shell", s);
  }
  assertEquals(markHost("my-tool").kind, "unknown");
});

Deno.test("promptDialect() reads the last non-blank screen line", () => {
  assertEquals(promptDialect("Welcome\nuser@host:~$ \n\n\n"), "posix");
  assertEquals(promptDialect("root@c0ffee:/# \n"), "posix");
  assertEquals(promptDialect("host% "), "posix");
  assertEquals(promptDialect("PS C:\\Users\\me> \n"), "pwsh");
  assertEquals(promptDialect("PS /home/me> "), "pwsh");
  assertEquals(promptDialect("user@host's password: "), null);
  assertEquals(promptDialect(">>> "), null);
  assertEquals(promptDialect(""), null);
});

Deno.test("decideMark(): never into a non-shell, even with a named dialect; nothing read from the screen", async () => {
  for (const fg of ["python3", "node", "vim", "fish"]) {
    for (const req of [true, "posix", "pwsh"] as const) {
      const d = await decideMark(fg, req, noScreen);
      assert(!d.ok, `${fg} ${req}`);
    }
  }
});

Deno.test("decideMark(): a shell by name, a prompt host by its prompt or the caller's dialect", async () => {
  assertEquals(await decideMark("bash", true, noScreen), { ok: true, dialect: "posix", how: "shell" });
  assert(!(await decideMark("bash", "pwsh", noScreen)).ok, "a named dialect that is not the shell's");
  assertEquals(await decideMark("ssh", true, () => Promise.resolve("last login\nme@box:~$ ")), {
    ok: true,
    dialect: "posix",
    how: "prompt",
  });
  assertEquals((await decideMark("docker", true, () => Promise.resolve("PS /> "))).ok && "pwsh", "pwsh");
  assert(!(await decideMark("ssh", true, () => Promise.resolve("me@box's password: "))).ok);
  assertEquals(await decideMark("ssh", "pwsh", noScreen), { ok: true, dialect: "pwsh", how: "caller" });
  assertEquals(await decideMark("my-tool", "posix", noScreen), { ok: true, dialect: "posix", how: "caller" });
  assert(!(await decideMark("my-tool", true, noScreen)).ok);
});

Deno.test("markOffer() offers only what decideMark accepts without a screen", async () => {
  for (const fg of ["bash", "zsh", "pwsh", "ssh", "su", "python3", "vim", "fish", "my-tool"]) {
    const offer = markOffer(fg);
    if (offer === null) continue;
    const req = offer.includes("mark:true") ? true : "posix";
    assert((await decideMark(fg, req, noScreen)).ok, `${fg}: offered "${offer}" but refused`);
  }
  assertEquals(markOffer("python3"), null);
  assertEquals(markOffer("vim"), null);
});
