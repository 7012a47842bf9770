import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { ERROR_CODES } from "../../base/errors.ts";
import {
  codeForFingerprint,
  fingerprintOf,
  isRuntimeCode,
  RUNTIME_CODE_LIST,
  RUNTIME_CODES,
  runtimeCodeFor,
  templateOf,
} from "./codes.ts";
import { RuntimeErrorStore } from "./store.ts";

Deno.test("runtime codes are a closed AITERM.* list with distinct sha256 fingerprints", async () => {
  assertEquals(RUNTIME_CODE_LIST.length, Object.keys(RUNTIME_CODES).length);
  const fps = new Set<string>();
  for (const code of RUNTIME_CODE_LIST) {
    assert(/^AITERM\.[A-Z_]+$/.test(code), code);
    assert(templateOf(code).length > 0);
    const fp = fingerprintOf(code);
    assert(/^sha256:[0-9a-f]{64}$/.test(fp), fp);
    assertEquals(codeForFingerprint(fp), code);
    // The recipe is pinned: SHA-256 over UTF-8 "<code>\n<template>", so it is the same everywhere.
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${code}\n${templateOf(code)}`));
    assertEquals(fp, "sha256:" + Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""));
    fps.add(fp);
  }
  assertEquals(fps.size, RUNTIME_CODE_LIST.length);
  assertEquals(codeForFingerprint("sha256:" + "0".repeat(64)), null);
});

Deno.test("isRuntimeCode() accepts only exact list members", () => {
  for (const code of RUNTIME_CODE_LIST) assert(isRuntimeCode(code));
  for (const v of ["", "AITERM.internal", "INTERNAL", "toString", "__proto__", "constructor", " AITERM.INTERNAL"]) {
    assert(!isRuntimeCode(v), v);
  }
  assert(!isRuntimeCode(new String("AITERM.INTERNAL")));
  assert(!isRuntimeCode({ toString: () => "AITERM.INTERNAL" }));
  assert(!isRuntimeCode(null));
});

Deno.test("runtimeCodeFor() maps only environment and product failures", () => {
  assertEquals(runtimeCodeFor("TMUX_NOT_FOUND"), "AITERM.PTY_DEPENDENCY_UNAVAILABLE");
  assertEquals(runtimeCodeFor("TMUX_TOO_OLD"), "AITERM.PTY_DEPENDENCY_UNAVAILABLE");
  assertEquals(runtimeCodeFor("TMUX_COMMAND_FAILED"), "AITERM.PTY_BACKEND_FAILED");
  assertEquals(runtimeCodeFor("STATE_WRITE_FAILED"), "AITERM.PERSISTENCE_WRITE_FAILED");
  assertEquals(runtimeCodeFor("MODEL_CATALOG_UNAVAILABLE"), "AITERM.VENDOR_LAUNCHER_FAILED");
  assertEquals(runtimeCodeFor("INTERNAL"), "AITERM.INTERNAL");
  for (const c of ["INVALID_ARGUMENT", "HARNESS_NOT_INSTALLED", "SEND_LOCK_BUSY", "WAIT_TIMEOUT"] as const) {
    assertEquals(runtimeCodeFor(c), null, c);
  }
  for (const c of ERROR_CODES) {
    const r = runtimeCodeFor(c);
    assert(r === null || isRuntimeCode(r), c);
  }
});

Deno.test("free text cannot enter the store: rejected by the type and at runtime", async () => {
  const root = await Deno.makeTempDir();
  try {
    const store = new RuntimeErrorStore(root);
    const secret = "tmux: error connecting to /home/alice/.ssh/id_rsa (token=sk-live-123)";
    // @ts-expect-error a free-text message is not a RuntimeCode
    assertEquals(await store.record(secret), false);
    // @ts-expect-error nor is an AppError code
    assertEquals(await store.record("TMUX_NOT_FOUND"), false);
    // @ts-expect-error there is no second parameter for details
    assertEquals(await store.record("AITERM.INTERNAL", secret), true);
    const untyped = store.record.bind(store) as unknown as (...args: unknown[]) => Promise<boolean>;
    for (const v of [secret, "", "aiterm.internal", "__proto__", new String("AITERM.INTERNAL"), { code: secret }, 42]) {
      assertEquals(await untyped(v), false, String(v));
    }
    // The fingerprint-based mutations take only fingerprints of the closed list.
    assertEquals(await store.resolve(secret), { ok: false, reason: "INVALID_ARGUMENT" });
    assertEquals(await store.reopen("sha256:" + "a".repeat(64)), { ok: false, reason: "INVALID_ARGUMENT" });

    const text = await Deno.readTextFile(store.file);
    for (const part of ["alice", "ssh", "sk-live", "token", "tmux: error", "/home"]) {
      assert(!text.includes(part), `aggregate contains ${part}`);
    }
    const snap = await store.snapshot();
    assertEquals(snap.seq, 1);
    assertEquals(snap.entries.map((e) => e.code), ["AITERM.INTERNAL"]);
    // Only the fixed keys exist.
    assertEquals(Object.keys(JSON.parse(text)).sort(), ["entries", "schema", "seq"]);
    assertEquals(Object.keys(JSON.parse(text).entries[0]).sort(), [
      "code",
      "count",
      "fingerprint",
      "first_seen",
      "last_seen",
      "last_seq",
      "status",
      "template",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
