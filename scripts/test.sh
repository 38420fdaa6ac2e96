#!/usr/bin/env bash
# Install everything pack-lsp's tests need into .venv and run the whole suite:
# lint (ruff), types (mypy --strict), the VS Code extension's lint (ESLint), format check
# (Prettier), type check and unit tests, and pytest (with the real-editor tests: Neovim, Emacs,
# VS Code via code-server).
# SKIP_EDITORS=1 skips installing the editors and the node modules (the extension's checks and
# the editors' pytest tests then skip).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
if [ "${SKIP_EDITORS:-0}" != "1" ]; then
  echo "== editors: install (scripts/install-editors.sh)"
  editors_start=$(date +%s)
  bash scripts/install-editors.sh
  echo "== vscode-client: lint, format check, type check and unit tests"
  npm --prefix vscode-client run --silent lint
  npm --prefix vscode-client run --silent format:check
  npm --prefix vscode-client run --silent typecheck
  npm --prefix vscode-client test --silent
  echo "editor installs and extension unit tests took $(($(date +%s) - editors_start))s"
  export PACK_LSP_REQUIRE_EDITORS=1
fi
echo "== ruff"
.venv/bin/ruff format --check lsp tests bench
.venv/bin/ruff check lsp tests bench
echo "== mypy --strict"
.venv/bin/mypy
echo "== pytest"
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
