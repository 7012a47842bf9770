import { assertEquals, assertMatch } from "../tests/helpers/assert.ts";
import { programProblem, resolveProgram } from "./which.ts";

const posix = Deno.build.os !== "windows";

Deno.test({
  name: "programProblem: binaries and #! scripts run; text, directories and missing interpreters do not",
  ignore: !posix,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = async (name: string, bytes: Uint8Array | string, mode = 0o755) => {
        const path = `${dir}/${name}`;
        if (typeof bytes === "string") await Deno.writeTextFile(path, bytes);
        else await Deno.writeFile(path, bytes);
        await Deno.chmod(path, mode);
        return path;
      };
      // Every binary header the kernel (Linux, macOS) starts by itself.
      for (const magic of [[0x7f, 0x45, 0x4c, 0x46], [0xcf, 0xfa, 0xed, 0xfe], [0xca, 0xfe, 0xba, 0xbe]]) {
        assertEquals(programProblem(await file(`bin${magic[0]}`, new Uint8Array([...magic, 0, 0]))), null);
      }
      assertEquals(programProblem(await file("script", "#! /bin/sh -e\necho\n")), null);
      assertEquals(programProblem(await file("envscript", "#!/usr/bin/env bash\n")), null);
      assertMatch(programProblem(await file("text", "hello\n"))!, /neither a binary nor a #! script/);
      assertMatch(programProblem(await file("elfish", new Uint8Array([0x7f, 0x45, 0x4c])))!, /neither/);
      assertMatch(programProblem(await file("noexec", "#!/bin/sh\n", 0o600))!, /not executable \(mode 600\)/);
      assertMatch(programProblem(await file("relinterp", "#!sh\n"))!, /interpreter that is not an executable/);
      assertMatch(programProblem(await file("dirinterp", `#!${dir}\n`))!, /interpreter that is not an executable/);
      assertMatch(programProblem(dir)!, /is a directory/);
      assertMatch(programProblem(`${dir}/none`)!, /does not exist/);
      assertMatch(programProblem("/dev/null")!, /not a regular file/);
      // Resolution: names go through PATH, paths must be absolute.
      assertEquals(resolveProgram("script", dir), { path: `${dir}/script` });
      assertEquals(resolveProgram("text", dir), { problem: "is not a program: neither a binary nor a #! script" });
      assertEquals(resolveProgram("noexec", dir), { problem: "is not an executable on PATH" });
      assertEquals(resolveProgram("./script", dir), { problem: "is not an absolute path" });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
