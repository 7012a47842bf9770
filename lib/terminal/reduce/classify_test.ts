import assert from "node:assert/strict";
import { classifyCommand, parseCommand, shellWords } from "./classify.ts";

Deno.test("shellWords handles quotes and escapes", () => {
  assert.deepEqual(shellWords(`grep -rn "a b" 'c d' e\\ f`), ["grep", "-rn", "a b", "c d", "e f"]);
});

Deno.test("parseCommand skips assignments and wrappers", () => {
  assert.deepEqual(parseCommand("FOO=1 BAR=x sudo -u me env -i X=1 nice -n 5 time cargo test")?.verb, "cargo");
  assert.equal(parseCommand("command exec /usr/bin/make -j4")?.verb, "make");
  assert.equal(parseCommand("npx -y deno@2.9.6 test -A")?.verb, "deno");
  assert.equal(parseCommand("uv run pytest -x")?.verb, "pytest");
  assert.equal(parseCommand("poetry run python -m pytest")?.verb, "pytest");
  assert.equal(parseCommand("python3 -m pip install x")?.verb, "pip");
  assert.equal(parseCommand("pnpm exec vitest run")?.verb, "vitest");
});

const cases: [string, string[]][] = [
  ["deno test -A lib/", ["deno-test"]],
  ["node --test", ["node-test"]],
  ["npm test", ["jest", "vitest", "node-test", "deno-test"]],
  ["npm run test:unit", ["jest", "vitest", "node-test", "deno-test"]],
  ["npx jest --ci", ["jest"]],
  ["bunx vitest run", ["vitest"]],
  ["pytest -q", ["pytest"]],
  ["python -m pytest tests", ["pytest"]],
  ["cargo +nightly test", ["cargo-test"]],
  ["CARGO_TERM_COLOR=always cargo build --release", ["cargo-build"]],
  ["cargo check", ["cargo-build"]],
  ["go test ./...", ["go-test"]],
  ["npx tsc --noEmit", ["tsc"]],
  ["make -k 2>&1", ["gcc", "tsc"]],
  ["gcc -Wall -c x.c", ["gcc"]],
  ["clang++ main.cpp", ["gcc"]],
  ["git status", ["git-status"]],
  ["git --no-pager -c color.ui=always log -n 5", ["git-log"]],
  ["git diff --stat HEAD~3", ["git-diff-stat"]],
  ["git diff", []],
  ["rg -n TODO", ["grep"]],
  ["grep -rn foo src", ["grep"]],
  ["cargo test 2>&1 | grep FAILED", ["grep", "cargo-test"]],
  ["cargo test | tail -40", ["cargo-test"]],
  ["cd app && npm ci", ["npm-install"]],
  ["pip install -r requirements.txt", ["pip-install"]],
  ["sudo apt-get install -y jq", ["apt-install"]],
  ["apt install jq", ["apt-install"]],
  ["ls -la", []],
  ["", []],
];

for (const [command, expected] of cases) {
  Deno.test(`classifyCommand(${JSON.stringify(command)})`, () => {
    assert.deepEqual(classifyCommand(command), expected);
  });
}

Deno.test("classifyCommand accepts null and undefined", () => {
  assert.deepEqual(classifyCommand(null), []);
  assert.deepEqual(classifyCommand(undefined), []);
});
