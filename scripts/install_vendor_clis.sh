#!/usr/bin/env bash
# Installs the pinned real coding-agent CLIs (Claude Code, Codex CLI, Grok Build) from npm into a cache dir,
# so tests/vendor/ can run them against the local fake model servers.
#
#   scripts/install_vendor_clis.sh            # install (skips what is already there), print paths
#   AITERM_VENDOR_CACHE=/some/dir scripts/install_vendor_clis.sh
#
# Layout (one npm prefix per pinned version):
#   $CACHE/claude-code-<ver>/node_modules/@anthropic-ai/claude-code-<platform>/claude   (native binary)
#   $CACHE/codex-<ver>/node_modules/@openai/codex-<platform>/vendor/<triple>/bin/codex (native binary)
#   $CACHE/grok-<ver>/bin/grok                       (native binary, decompressed from grok-<platform>/bin/grok.br)
#
# Only the npm registry is contacted. Both packages ship their native binary in an optional
# dependency; Claude Code's postinstall merely links that binary over bin/claude.exe, so when the
# postinstall is skipped or fails we link it ourselves and never need another download.
# Grok Build ships its binary brotli-compressed in the optional `@xai-official/grok-<platform>` package;
# its postinstall would decompress it into ~/.grok/bin. We install with --ignore-scripts (nothing is
# written to the real ~/.grok) and decompress it ourselves with node's zlib, offline.
# Output: the last lines are `claude=<path>`, `codex=<path>` and `grok=<path>`.
set -euo pipefail

CLAUDE_VERSION="2.1.328"
CODEX_VERSION="0.169.0"
GROK_VERSION="1.0.41"
CACHE="${AITERM_VENDOR_CACHE:-$HOME/.cache/aiterm-vendor}"

log() { printf '%s\n' "$*" >&2; }
die() {
  log "install_vendor_clis: $*"
  exit 1
}

command -v npm >/dev/null || die "npm not found"

# Platform suffixes used by the two packages.
machine="$(uname -m)"
case "$machine" in
x86_64 | amd64) cpu="x64" triple_cpu="x86_64" ;;
aarch64 | arm64) cpu="arm64" triple_cpu="aarch64" ;;
*) die "unsupported cpu: $machine" ;;
esac
case "$(uname -s)" in
Linux)
  libc_suffix=""
  # No pipe into grep -q here: under pipefail, ldd can die of SIGPIPE when grep exits early, which read as musl.
  ldd_out="$(ldd --version 2>&1 || true)"
  case "$ldd_out" in
  *GLIBC* | *glibc* | *"GNU libc"* | *"GNU C Library"*) ;;
  *) libc_suffix="-musl" ;;
  esac
  claude_pkg="@anthropic-ai/claude-code-linux-${cpu}${libc_suffix}"
  codex_triple="${triple_cpu}-unknown-linux-musl"
  codex_pkg="@openai/codex-linux-${cpu}"
  grok_pkg="@xai-official/grok-linux-${cpu}"
  ;;
Darwin)
  claude_pkg="@anthropic-ai/claude-code-darwin-${cpu}"
  codex_triple="${triple_cpu}-apple-darwin"
  codex_pkg="@openai/codex-darwin-${cpu}"
  grok_pkg="@xai-official/grok-darwin-${cpu}"
  ;;
*) die "unsupported OS: $(uname -s)" ;;
esac

claude_dir="$CACHE/claude-code-$CLAUDE_VERSION"
codex_dir="$CACHE/codex-$CODEX_VERSION"
claude_bin="$claude_dir/node_modules/$claude_pkg/claude"
claude_wrapper="$claude_dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
codex_bin="$codex_dir/node_modules/$codex_pkg/vendor/$codex_triple/bin/codex"
grok_dir="$CACHE/grok-$GROK_VERSION"
grok_br="$grok_dir/node_modules/$grok_pkg/bin/grok.br"
grok_bin="$grok_dir/bin/grok"

# Prints the version line when `$1 --version` contains `$2`, else fails.
version_ok() {
  local out
  [ -x "$1" ] || return 1
  out="$(timeout 30 "$1" --version 2>/dev/null)" || return 1
  case "$out" in *"$2"*) printf '%s\n' "$out" ;; *) return 1 ;; esac
}

npm_install() { # dir spec
  mkdir -p "$1"
  # A private package.json keeps npm from walking up into an enclosing project.
  [ -f "$1/package.json" ] || printf '{"name":"aiterm-vendor","private":true}\n' >"$1/package.json"
  log "installing $2 into $1 ..."
  (cd "$1" && npm install --no-audit --no-fund --no-save --loglevel=error --include=optional "$2" >&2) ||
    die "npm install $2 failed"
}

# --- Claude Code -----------------------------------------------------------------------------
if v="$(version_ok "$claude_bin" "$CLAUDE_VERSION")"; then
  log "claude: already installed ($v)"
else
  npm_install "$claude_dir" "@anthropic-ai/claude-code@$CLAUDE_VERSION"
  if [ ! -f "$claude_bin" ]; then
    # npm skipped the optional platform package (for example with omit=optional set globally).
    npm_install "$claude_dir" "$claude_pkg@$CLAUDE_VERSION"
  fi
  [ -f "$claude_bin" ] || die "native Claude Code binary missing: $claude_bin"
  chmod +x "$claude_bin"
  # Make the wrapper's bin/claude.exe the real binary too (what the postinstall would have done).
  if ! version_ok "$claude_wrapper" "$CLAUDE_VERSION" >/dev/null; then
    rm -f "$claude_wrapper"
    ln "$claude_bin" "$claude_wrapper" 2>/dev/null || cp "$claude_bin" "$claude_wrapper"
  fi
  v="$(version_ok "$claude_bin" "$CLAUDE_VERSION")" || die "claude --version does not report $CLAUDE_VERSION"
  log "claude: installed ($v)"
fi

# --- Codex CLI -------------------------------------------------------------------------------
if v="$(version_ok "$codex_bin" "$CODEX_VERSION")"; then
  log "codex: already installed ($v)"
else
  npm_install "$codex_dir" "@openai/codex@$CODEX_VERSION"
  if [ ! -f "$codex_bin" ]; then
    npm_install "$codex_dir" "$codex_pkg@npm:@openai/codex@$CODEX_VERSION-${codex_pkg##*/codex-}"
  fi
  [ -f "$codex_bin" ] || die "native Codex binary missing: $codex_bin"
  v="$(version_ok "$codex_bin" "$CODEX_VERSION")" || die "codex --version does not report $CODEX_VERSION"
  log "codex: installed ($v)"
fi

# --- Grok Build ------------------------------------------------------------------------------
if v="$(HOME="$grok_dir" version_ok "$grok_bin" "$GROK_VERSION")"; then
  log "grok: already installed ($v)"
else
  mkdir -p "$grok_dir"
  [ -f "$grok_dir/package.json" ] || printf '{"name":"aiterm-vendor","private":true}\n' >"$grok_dir/package.json"
  log "installing @xai-official/grok@$GROK_VERSION into $grok_dir ..."
  (cd "$grok_dir" && npm install --no-audit --no-fund --no-save --loglevel=error --include=optional \
    --ignore-scripts "@xai-official/grok@$GROK_VERSION" >&2) || die "npm install @xai-official/grok failed"
  if [ ! -f "$grok_br" ]; then
    (cd "$grok_dir" && npm install --no-audit --no-fund --no-save --loglevel=error --ignore-scripts \
      "$grok_pkg@$GROK_VERSION" >&2) || die "npm install $grok_pkg failed"
  fi
  [ -f "$grok_br" ] || die "compressed Grok binary missing: $grok_br"
  mkdir -p "$grok_dir/bin"
  node -e 'const z=require("zlib"),fs=require("fs");const t=process.argv[2]+".tmp";
fs.writeFileSync(t,z.brotliDecompressSync(fs.readFileSync(process.argv[1])));fs.chmodSync(t,0o755);
fs.renameSync(t,process.argv[2]);' "$grok_br" "$grok_bin" || die "could not decompress $grok_br"
  # HOME points into the cache so `--version` cannot touch the user's ~/.grok.
  v="$(HOME="$grok_dir" version_ok "$grok_bin" "$GROK_VERSION")" || die "grok --version does not report $GROK_VERSION"
  log "grok: installed ($v)"
fi

printf 'claude=%s\n' "$claude_bin"
printf 'codex=%s\n' "$codex_bin"
printf 'grok=%s\n' "$grok_bin"
