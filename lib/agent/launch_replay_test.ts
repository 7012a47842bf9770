import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import { AppError } from "../../base/errors.ts";
import { launchRequestDigest, replayedReceipt, saveLaunchForReplay } from "./launch_replay.ts";

const OP = `sha256:${"12".repeat(32)}`;

Deno.test("launch request digest: unset and null are one value, cwd is its real path, env_vars a set", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = await launchRequestDigest({ harness: "claude-code", cwd: dir, env_vars: ["B", "A"] }, "/");
    const b = await launchRequestDigest(
      { harness: "claude-code", model: null, cwd: `${dir}/.`, env_vars: ["A", "B", "A"] },
      "/",
    );
    assertEquals(a, b);
    const viaDefault = await launchRequestDigest({ harness: "claude-code", env_vars: ["A", "B"] }, dir);
    assertEquals(viaDefault.digest, a.digest);
    const other = await launchRequestDigest(
      { harness: "claude-code", cwd: dir, env_vars: ["A", "B"], model: "x" },
      "/",
    );
    assert(other.digest !== a.digest, "model is part of the request");
    assertEquals(Object.keys(a.fields).filter((f) => a.fields[f] !== other.fields[f]), ["model"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("replayed receipt: same request → receipt, other request → LAUNCH_OPERATION_CONFLICT naming the fields", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const receipt = { session_id: "op1", generation: "0123456789ab" };
    const req = await launchRequestDigest({ harness: "claude-code", cwd: dir }, dir);
    assertEquals(await replayedReceipt(dir, OP, req), null);
    await saveLaunchForReplay(dir, OP, req, receipt);
    assertEquals(await replayedReceipt(dir, OP, req), receipt);
    assertEquals(await replayedReceipt(dir, `sha256:${"34".repeat(32)}`, req), null);
    const changed = await launchRequestDigest({ harness: "claude-code", cwd: dir, reasoning_effort: "high" }, dir);
    const err = await assertRejects(() => replayedReceipt(dir, OP, changed));
    assert(err instanceof AppError && err.code === "LAUNCH_OPERATION_CONFLICT", String(err));
    assertEquals(err.data?.fields, ["reasoning_effort"]);
    // A receipt saved by an older version has no digest: it is replayed as before.
    await Deno.writeTextFile(`${dir}/launch_receipt.json`, JSON.stringify({ launch_operation_id: OP, receipt }));
    assertEquals(await replayedReceipt(dir, OP, changed), receipt);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
