import { assertEquals } from "../../tests/helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../../tests/helpers/env.ts";
import { tmuxArg, tmuxFormatArg, tmuxTimeFormatArg } from "./tmux_args.ts";

const HOSTILE = [
  "plain",
  "x#(touch PWNED)",
  "y#{session_name}",
  "ends;",
  "ends\\;",
  ";",
  "a;b",
  "##",
  "#",
  "back\\slash\\",
  "$HOME `id` $(id) 'q' \"d\"",
  "{ } ( ) ; \\ $",
  "日本語 🎉",
  "two\nlines",
];

Deno.test("tmuxArg() only rewrites a trailing ';'", () => {
  assertEquals(tmuxArg("a;b"), "a;b");
  assertEquals(tmuxArg("ends;"), "ends\\;");
  assertEquals(tmuxArg("ends\\;"), "ends\\\\;");
  assertEquals(tmuxFormatArg("x#{y};"), "x##{y}\\;");
  assertEquals(tmuxTimeFormatArg("a %d #{y} 100%;"), "a %%d ##{y} 100%%\\;");
});

Deno.test({
  name: "tmuxArg()/tmuxFormatArg() values arrive exactly in a real tmux, and no #(…) runs",
  ignore: !hasTmux,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true });
    const marker = `${t.root}/PWNED`;
    await t.tmux("new-session", "-d", "-s", "base", "--", "sleep", "60");
    for (const [i, raw] of HOSTILE.entries()) {
      const value = raw.replaceAll("PWNED", marker);
      // A plain argument: set-environment's value.
      const set = await t.tmux("set-environment", "-t", "=base:", `V${i}`, tmuxArg(value));
      assertEquals(set.code, 0, `set-environment ${JSON.stringify(value)}: ${set.stderr}`);
      const shown = await t.tmux("show-environment", "-t", "=base:", `V${i}`);
      assertEquals(shown.stdout.replace(/\n$/, ""), `V${i}=${value}`, JSON.stringify(value));
      // A format argument: new-session -c (the pane's real cwd is what was asked).
      if (value.includes("\n") || value.includes("/")) continue;
      const dir = `${t.root}/${value}`;
      await Deno.mkdir(dir);
      const made = await t.tmux("new-session", "-d", "-s", `c${i}`, "-c", tmuxFormatArg(dir), "--", "sleep", "60");
      assertEquals(made.code, 0, `new-session -c ${JSON.stringify(dir)}: ${made.stderr}`);
      const pid = (await t.tmux("display-message", "-p", "-t", `=c${i}:`, "#{pane_pid}")).stdout.trim();
      // The pane's child changes directory before it execs: read its cwd once it runs `sleep`.
      await eventually(() => Deno.readTextFile(`/proc/${pid}/cmdline`).then((c) => c.startsWith("sleep\0")));
      assertEquals(await Deno.readLink(`/proc/${pid}/cwd`), dir);
      // load-buffer's path is a format too.
      const file = `${dir}/f`;
      await Deno.writeTextFile(file, `content ${i}`);
      const load = await t.tmux("load-buffer", "-b", `b${i}`, tmuxFormatArg(file));
      assertEquals(load.code, 0, `load-buffer ${JSON.stringify(file)}: ${load.stderr}`);
      assertEquals((await t.tmux("show-buffer", "-b", `b${i}`)).stdout, `content ${i}`);
    }
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false, "a #(…) ran");
  },
});

Deno.test({
  name: "tmuxTimeFormatArg(): a pipe-pane command holding # % ; arrives exactly (tmux runs strftime on it)",
  ignore: !hasTmux,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true });
    await t.tmux("new-session", "-d", "-s", "base", "--", "sh", "-c", "sleep 0.5; echo piped-out; sleep 60");
    for (const [i, raw] of ["p %d %Y %% 100%", "q #{session_name} ##", "r #(touch PWNED)", "s ; x;"].entries()) {
      const dir = `${t.root}/${raw.replaceAll("PWNED", `${t.root}/PWNED`).replaceAll("/", "_")}`;
      await Deno.mkdir(dir);
      const out = `${dir}/o`;
      const sink = `cat >> '${out}'`;
      const piped = await t.tmux("pipe-pane", "-t", "=base:", tmuxTimeFormatArg(sink));
      assertEquals(piped.code, 0, `pipe-pane ${JSON.stringify(sink)}: ${piped.stderr}`);
      await t.tmux("send-keys", "-t", "=base:", `k${i}`);
      await eventually(() => Deno.stat(out).then(() => true, () => false), 10_000, `sink file ${JSON.stringify(out)}`);
      await t.tmux("pipe-pane", "-t", "=base:");
    }
    assertEquals(await Deno.stat(`${t.root}/PWNED`).then(() => true, () => false), false, "a #(…) ran");
  },
});
