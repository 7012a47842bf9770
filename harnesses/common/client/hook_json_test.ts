/** The command line a client runs hooks with: quoting round-trips (sh and PowerShell). */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { commandLine, splitCommandLine } from "./hook_json.ts";

Deno.test("command strings: quoting round-trips for spaces, quotes and shell characters (sh and PowerShell)", () => {
  const argv = ["/home/a b/deno", "run", "-A", "/x/it's $HOME/`m`.ts", "hook", "cursor-parent"];
  const sh = commandLine(argv, "linux");
  assertEquals(sh, `'/home/a b/deno' run -A '/x/it'"'"'s $HOME/\`m\`.ts' hook cursor-parent`);
  assertEquals(splitCommandLine(sh, "linux"), argv);
  if (Deno.build.os !== "windows") {
    // A real sh reads the string back into the same argv.
    const out = stdoutOf(
      new Deno.Command("sh", { args: ["-c", `printf '%s\\n' ${sh}`], stdout: "piped" }).outputSync(),
    );
    assertEquals(out.trimEnd().split("\n"), argv);
  }
  const ps = commandLine(["C:\\Program Files\\aiterm\\aiterm-mcp.exe", "hook", "cursor-parent"], "windows");
  assertEquals(ps, "& 'C:\\Program Files\\aiterm\\aiterm-mcp.exe' hook cursor-parent");
  assertEquals(splitCommandLine(ps, "windows"), ["C:\\Program Files\\aiterm\\aiterm-mcp.exe", "hook", "cursor-parent"]);
  assertEquals(splitCommandLine(commandLine(["C:\\it's\\a.exe", "x"], "windows"), "windows"), ["C:\\it's\\a.exe", "x"]);
});

function stdoutOf(out: Deno.CommandOutput): string {
  return new TextDecoder().decode(out.stdout);
}
