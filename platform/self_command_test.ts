import { assertEquals } from "../tests/helpers/assert.ts";
import { selfCommand, windowsArgumentList } from "./self_command.ts";

Deno.test("windowsArgumentList() quotes by the MSVCRT rules", () => {
  assertEquals(windowsArgumentList(["--session", "t1"]), "--session t1");
  assertEquals(windowsArgumentList(["C:\\Program Files\\x", ""]), '"C:\\Program Files\\x" ""');
  assertEquals(windowsArgumentList(['say "hi"']), '"say \\"hi\\""');
  assertEquals(windowsArgumentList(["trail\\ space\\"]), '"trail\\ space\\\\"');
  assertEquals(windowsArgumentList(['a\\\\"b c']), '"a\\\\\\\\\\"b c"');
});

Deno.test("selfCommand() runs the main module through deno when not compiled", () => {
  const argv = selfCommand("wait");
  assertEquals(argv.slice(1, 3), ["run", "-A"]);
  assertEquals(argv[argv.length - 1], "wait");
  assertEquals(argv[3], new URL(Deno.mainModule).pathname);
});
