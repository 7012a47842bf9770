#!/usr/bin/env bash
# Regenerates tests/fixtures/reduce/*.txt by really running tools inside a private tmux server
# (socket "reduce_capture_<pid>", never the default server). Each fixture is the raw byte stream of
# the pane (pipe-pane), i.e. prompt, echoed command, colours, progress and \r exactly as a user sees
# them. Sidecar <name>.json files (command, reducer, verdict, min_ratio) are NOT touched here, except
# that a missing sidecar gets a stub with the command: their verdict lines were taken from the raw
# output (summary lines, failing test names, assertion lines, error locations + messages) and must
# be re-checked against a regenerated capture (timings and hashes change between runs).
#
# Needs: tmux, bash, node+npm (network to the npm registry for jest/vitest/typescript), deno (via npx),
# python3 with pytest, cargo, go, gcc, make, git.
# Usage: bash scripts/capture_reduce_corpus.sh [fixture-name ...]   (no names = all)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/tests/fixtures/reduce"
WORK="${REDUCE_CORPUS_WORK:-/tmp/aiterm_reduce_corpus}"
SOCK="reduce_capture_$$"
mkdir -p "$OUT" "$WORK"

cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null || true; }
trap cleanup EXIT

want() { # want NAME -> true when selected
  [ "${#SELECTED[@]}" -eq 0 ] && return 0
  local n
  for n in "${SELECTED[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}
SELECTED=("$@")

# Make a `deno` binary reachable by its plain name (the project pins deno through npx).
DENO_BIN="$(cd "$ROOT" && npx -y deno@2.9.6 eval 'console.log(Deno.execPath())')"
mkdir -p "$WORK/bin"
ln -sf "$DENO_BIN" "$WORK/bin/deno"

# capture NAME DIR COMMAND [TIMEOUT_SECONDS]
capture() {
  local name="$1" dir="$2" cmd="$3" timeout="${4:-600}"
  want "$name" || return 0
  local ctl="$WORK/ctl_$name"
  rm -rf "$ctl" && mkdir -p "$ctl"
  cat >"$ctl/rc" <<EOF
PS1='dev@box:~/proj\$ '
PROMPT_COMMAND='touch $ctl/ready'
export PATH="$WORK/bin:\$PATH" PAGER=cat GIT_PAGER=cat TERM=xterm-256color LANG=C.UTF-8
unset CI
cd "$dir"
EOF
  tmux -L "$SOCK" -f /dev/null new-session -d -s "$name" -x 160 -y 50 \
    "while [ ! -e $ctl/start ]; do sleep 0.05; done; exec bash --noprofile --rcfile $ctl/rc -i"
  tmux -L "$SOCK" pipe-pane -t "$name" -o "cat > $ctl/raw"
  touch "$ctl/start"
  local i=0
  while [ ! -e "$ctl/ready" ]; do sleep 0.1; done
  sleep 0.3
  rm -f "$ctl/ready"
  tmux -L "$SOCK" send-keys -t "$name" -l "$cmd"
  tmux -L "$SOCK" send-keys -t "$name" Enter
  while [ ! -e "$ctl/ready" ]; do
    sleep 0.2
    i=$((i + 1))
    if [ "$i" -gt $((timeout * 5)) ]; then echo "timeout: $name" >&2; break; fi
  done
  sleep 0.5
  tmux -L "$SOCK" kill-session -t "$name"
  cp "$ctl/raw" "$OUT/$name.txt"
  if [ ! -e "$OUT/$name.json" ]; then
    node -e 'process.stdout.write(JSON.stringify({command: process.argv[1], reducer: "generic", verdict: []}, null, 2) + "\n")' \
      "$cmd" >"$OUT/$name.json"
  fi
  echo "captured $name ($(wc -c <"$OUT/$name.txt") bytes)"
}

# ---------------------------------------------------------------- generators
gen_js_tests() { # gen_js_tests DIR STYLE(deno|node|jest|vitest) FILES TESTS_PER_FILE FAILING(0|1)
  local dir="$1" style="$2" files="$3" per="$4" failing="$5" f t
  mkdir -p "$dir"
  for f in $(seq -w 1 "$files"); do
    local file
    case "$style" in
      deno) file="$dir/mod${f}_test.ts" ;;
      node) file="$dir/mod${f}.test.mjs" ;;
      *) file="$dir/mod${f}.test.js" ;;
    esac
    {
      case "$style" in
        deno | node) echo 'import assert from "node:assert";' ;;
        vitest) echo 'import { describe, expect, test } from "vitest";' ;;
      esac
      if [ "$style" = node ]; then echo 'import { test } from "node:test";'; fi
      if [ "$style" = jest ] || [ "$style" = vitest ]; then echo "describe(\"module ${f}\", () => {"; fi
      for t in $(seq -w 1 "$per"); do
        local bad=0 want=$((10#$t * 3)) got=$((10#$t * 3))
        if [ "$failing" = 1 ] && [ $(((10#$f * 7 + 10#$t) % 47)) -eq 0 ]; then bad=1; got=$((want + 1)); fi
        local tname="computes total for order ${f}-${t}" n=$((10#$t))
        case "$style" in
          deno) echo "Deno.test(\"${tname}\", () => { const total = ${n} * 3 + ${bad}; assert.strictEqual(total, ${want}); });" ;;
          node) echo "test(\"${tname}\", () => { const total = ${n} * 3 + ${bad}; assert.strictEqual(total, ${want}); });" ;;
          *) echo "  test(\"${tname}\", () => { const total = ${n} * 3 + ${bad}; expect(total).toBe(${want}); });" ;;
        esac
      done
      if [ "$style" = jest ] || [ "$style" = vitest ]; then echo "});"; fi
    } >"$file"
  done
}

gen_pytest() { # DIR FILES PER FAILING
  local dir="$1" files="$2" per="$3" failing="$4" f t
  mkdir -p "$dir"
  for f in $(seq -w 1 "$files"); do
    {
      echo "def _price(qty, unit):"
      echo "    return qty * unit"
      echo
      for t in $(seq -w 1 "$per"); do
        local extra=0
        if [ "$failing" = 1 ] && [ $(((10#$f * 7 + 10#$t) % 47)) -eq 0 ]; then extra=1; fi
        echo "def test_price_${f}_${t}():"
        echo "    total = _price($((10#$t)), 3) + ${extra}"
        echo "    assert total == $((10#$t * 3)), f\"wrong total for line ${f}-${t}\""
        echo
      done
    } >"$dir/test_mod${f}.py"
  done
}

gen_cargo_tests() { # DIR TESTS FAILING
  local dir="$1" n="$2" failing="$3" t
  rm -rf "$dir" && mkdir -p "$dir/src"
  printf '[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' >"$dir/Cargo.toml"
  {
    echo "pub fn total(qty: u32, unit: u32) -> u32 { qty * unit }"
    echo
    echo "#[cfg(test)]"
    echo "mod tests {"
    echo "    use super::*;"
    for t in $(seq -w 1 "$n"); do
      local extra=0
      if [ "$failing" = 1 ] && [ $((10#$t % 53)) -eq 0 ]; then extra=1; fi
      echo "    #[test]"
      echo "    fn total_for_line_${t}() { assert_eq!(total($((10#$t)), 3) + ${extra}, $((10#$t * 3))); }"
    done
    echo "}"
  } >"$dir/src/lib.rs"
}

gen_go_tests() { # DIR TESTS FAILING
  local dir="$1" n="$2" failing="$3" t
  rm -rf "$dir" && mkdir -p "$dir/ledger"
  printf 'module example.com/shop\n\ngo 1.19\n' >"$dir/go.mod"
  printf 'package ledger\n\nfunc Total(qty, unit int) int { return qty * unit }\n' >"$dir/ledger/ledger.go"
  {
    echo "package ledger"
    echo
    echo 'import "testing"'
    for t in $(seq -w 1 "$n"); do
      local extra=0
      if [ "$failing" = 1 ] && [ $((10#$t % 53)) -eq 0 ]; then extra=1; fi
      echo
      echo "func TestTotalLine${t}(t *testing.T) {"
      echo "	if got := Total($((10#$t)), 3) + ${extra}; got != $((10#$t * 3)) {"
      echo "		t.Errorf(\"Total($((10#$t)), 3) = %d, want %d\", got, $((10#$t * 3)))"
      echo "	}"
      echo "}"
    done
  } >"$dir/ledger/ledger_test.go"
}

# ---------------------------------------------------------------- npm toolchain (network: npm registry)
NPMDIR="$WORK/npmproj"
if want npm_install || [ ! -d "$NPMDIR/node_modules/jest" ]; then
  rm -rf "$NPMDIR" && mkdir -p "$NPMDIR"
  cat >"$NPMDIR/package.json" <<'EOF'
{ "name": "shop", "version": "1.0.0", "private": true,
  "devDependencies": { "jest": "29.7.0", "vitest": "3.2.4", "typescript": "5.9.3" } }
EOF
  if want npm_install; then
    capture npm_install "$NPMDIR" "npm install" 900
  else
    (cd "$NPMDIR" && npm install --no-fund --no-audit)
  fi
fi

# ---------------------------------------------------------------- test runners
D="$WORK/deno_pass"; rm -rf "$D"; gen_js_tests "$D" deno 10 40 0
capture deno_test_pass "$D" "deno test"
D="$WORK/deno_fail"; rm -rf "$D"; gen_js_tests "$D" deno 10 40 1
capture deno_test_fail "$D" "deno test"

# Type-check failure: leading-zero literals (09 * 3) are rejected by deno's type checker.
D="$WORK/deno_typecheck"; rm -rf "$D"; gen_js_tests "$D" deno 10 40 0
sed -i -E 's/const total = ([0-9]) \*/const total = 0\1 */' "$D"/*.ts
capture deno_test_typecheck "$D" "deno test"

D="$WORK/node_pass"; rm -rf "$D"; gen_js_tests "$D" node 10 40 0
capture node_test_pass "$D" "node --test"
D="$WORK/node_fail"; rm -rf "$D"; gen_js_tests "$D" node 10 40 1
capture node_test_fail "$D" "node --test"

for kind in pass fail; do
  D="$WORK/jest_$kind"; rm -rf "$D"; gen_js_tests "$D" jest 10 40 "$([ $kind = fail ] && echo 1 || echo 0)"
  ln -sfn "$NPMDIR/node_modules" "$D/node_modules"
  echo '{ "name": "shop-jest", "version": "1.0.0", "private": true, "scripts": { "test": "jest --verbose" } }' >"$D/package.json"
  capture "jest_$kind" "$D" "npm test"
  D="$WORK/vitest_$kind"; rm -rf "$D"; gen_js_tests "$D" vitest 10 40 "$([ $kind = fail ] && echo 1 || echo 0)"
  ln -sfn "$NPMDIR/node_modules" "$D/node_modules"
  echo '{ "name": "shop-vitest", "version": "1.0.0", "private": true, "type": "module" }' >"$D/package.json"
  capture "vitest_$kind" "$D" "npx vitest run"
done

D="$WORK/pytest_pass"; rm -rf "$D"; gen_pytest "$D" 10 40 0
capture pytest_pass "$D" "python3 -m pytest -v"
D="$WORK/pytest_fail"; rm -rf "$D"; gen_pytest "$D" 10 40 1
capture pytest_fail "$D" "pytest"

D="$WORK/cargo_test_pass"; gen_cargo_tests "$D" 400 0
capture cargo_test_pass "$D" "CARGO_TERM_COLOR=always cargo test"
D="$WORK/cargo_test_fail"; gen_cargo_tests "$D" 400 1
capture cargo_test_fail "$D" "CARGO_TERM_COLOR=always cargo test"

if command -v go >/dev/null; then
  D="$WORK/go_test_pass"; gen_go_tests "$D" 400 0
  capture go_test_pass "$D" "GOTOOLCHAIN=local GOFLAGS=-mod=mod go test -v ./..."
  D="$WORK/go_test_fail"; gen_go_tests "$D" 400 1
  capture go_test_fail "$D" "GOTOOLCHAIN=local go test -v ./..."
  capture go_test_fail_short "$D" "GOTOOLCHAIN=local go test ./..."
fi

# ---------------------------------------------------------------- builds
D="$WORK/tsc_storm"; rm -rf "$D"; mkdir -p "$D/src"
ln -sfn "$NPMDIR/node_modules" "$D/node_modules"
echo '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2022", "module": "es2022" }, "include": ["src"] }' >"$D/tsconfig.json"
for f in cart orders invoice shipping users; do
  {
    echo "export interface ${f^}Row { id: number; name: string; qty: number }"
    for i in $(seq 1 6); do
      echo "export function ${f}Total${i}(rows: ${f^}Row[]): number {"
      echo "  let sum: number = \"0\";"
      echo "  for (const r of rows) sum += r.price * r.qty;"
      echo "  return rows.map((r) => r.name).join(\",\").lenght + undefinedHelper${i}(sum);"
      echo "}"
    done
  } >"$D/src/$f.ts"
done
capture tsc_storm "$D" "npx tsc -p ."

D="$WORK/make_storm"; rm -rf "$D"; mkdir -p "$D"
printf 'CFLAGS=-Wall -Wextra -O2\nOBJS=parse.o eval.o print.o util.o main.o\n\ncalc: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\n%%.o: %%.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n' >"$D/Makefile"
for f in parse eval print util; do
  {
    echo "#include <stdio.h>"
    echo "static int ${f}_unused(int x) { return x; }"
    for i in 1 2 3; do
      echo "int ${f}_step${i}(const char *s) {"
      echo "  int count = 0"
      echo "  unsigned int n = -1; if (n < 0) count++;"
      echo "  char *p = s;"
      echo "  return count + missing_${f}_${i}(p) + undeclared_var_${i};"
      echo "}"
    done
  } >"$D/$f.c"
done
printf '#include <stdio.h>\nint parse_step1(const char *s);\nint main(void) { printf("%%d\\n", parse_step1("1+2")); return 0; }\n' >"$D/main.c"
capture make_storm "$D" "make -k"

D="$WORK/gcc_direct"; rm -rf "$D"; mkdir -p "$D"
cp "$WORK/make_storm/util.c" "$D/util.c" 2>/dev/null || true
capture gcc_errors "$D" "gcc -Wall -Wextra -c util.c"

D="$WORK/cargo_build"; rm -rf "$D"; mkdir -p "$D/src"
printf '[package]\nname = "inventory"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' >"$D/Cargo.toml"
cat >"$D/src/main.rs" <<'EOF'
use std::collections::HashMap;

struct Item { name: String, qty: u32 }

fn total(items: &[Item]) -> u32 {
    let mut sum: u32 = "0";
    for it in items { sum += it.qty; }
    sum
}

fn lookup(map: &HashMap<String, u32>, key: &str) -> u32 {
    map.get(key)
}

fn main() {
    let unused = 5;
    let items = vec![Item { name: "a".to_string(), qty: 2 }];
    let t: i64 = total(&items);
    println!("{}", t + missing_fn());
    items.push(Item { name: "b".into(), qty: 1 });
}
EOF
capture cargo_build_errors "$D" "CARGO_TERM_COLOR=always cargo build"

# ---------------------------------------------------------------- git, grep
D="$WORK/gitrepo"
if want git_log || want git_status || want git_diff_stat; then
  rm -rf "$D" && mkdir -p "$D" && cd "$D"
  git init -q -b main && git config user.name "Dana Dev" && git config user.email dana@example.com
  mkdir -p src docs
  for i in $(seq -w 1 300); do
    echo "line $i" >>"src/file$((10#$i % 40)).txt"
    GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" GIT_COMMITTER_DATE="2024-01-01T00:00:00Z" \
      git add -A && git commit -q -m "Update module $((10#$i % 40)): step $i of the ledger refactor" \
      -m "Longer body explaining change $i in more detail." --date="2024-01-$(((10#$i % 28) + 1))T10:00:00Z"
  done
  cd "$ROOT"
fi
capture git_log "$D" "git log"
if want git_status || want git_diff_stat; then
  cd "$D"
  for i in $(seq 0 39); do echo "changed $i" >>"src/file$i.txt"; done
  for i in $(seq 1 60); do printf 'a\nb\nc\n' >"docs/new_$i.md"; done
  for i in $(seq 1 25); do echo tmp >"scratch_$i.log"; done
  git rm -q -f src/file39.txt src/file38.txt
  git add docs/new_1.md docs/new_2.md # check_paths: ignore (files of the scratch repository $D)
  cd "$ROOT"
fi
capture git_status "$D" "git status"
capture git_diff_stat "$D" "git diff --stat"

D="$WORK/greptree"
if want grep_wide; then
  rm -rf "$D" && mkdir -p "$D"
  for m in $(seq -w 1 12); do
    mkdir -p "$D/src/mod$m"
    for f in $(seq 1 5); do
      for l in $(seq 1 30); do
        if [ $(((10#$m + f + l) % 3)) -eq 0 ]; then echo "  // TODO(dana): handle edge case $l in module $m file $f"; else echo "  const value$l = compute$l(input);"; fi
      done >"$D/src/mod$m/part$f.ts"
    done
  done
fi
capture grep_wide "$D" "grep -rn --color=always TODO src"

# ---------------------------------------------------------------- installs (pip: local package, PyPI is not needed)
D="$WORK/pippkg"
if want pip_install; then
  rm -rf "$D" && mkdir -p "$D/ledgerkit"
  printf '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "ledgerkit"\nversion = "0.1.0"\n' >"$D/pyproject.toml"
  echo 'VERSION = "0.1.0"' >"$D/ledgerkit/__init__.py"
fi
capture pip_install "$D" "pip install --no-index --no-build-isolation ."
capture apt_install "$WORK" "apt-get install -y --reinstall cowsay" 900

echo "done; fixtures in $OUT"
