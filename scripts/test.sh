#!/usr/bin/env bash
# Run pack-lsp's checks: ruff (format and lint), mypy --strict and pytest, in .venv (created
# here). By default it changes nothing outside this checkout (tests' temporary files aside): the
# Python tools go into .venv/, pip's cache into .tools/, and the editor tests (Neovim, Emacs,
# VS Code) skip.
#
# The editor tests need editors, some of them system packages. They are included with one
# switch, PACK_LSP_EDITORS=1 (or --editors): scripts/install-editors.sh then installs what
# `bash scripts/install-editors.sh --plan` lists (Debian packages with apt-get, as root or with
# sudo; the rest under .tools/ and vscode-client/node_modules/), and the VS Code extension's
# lint, format check, type check and unit tests run too. .ci/run runs this script with it.
#
# --plan prints what a run would install and run, and stops. Other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTHON="${PYTHON:-python3}"
editors="${PACK_LSP_EDITORS:-0}"
plan=0
pytest_args=()
for arg in "$@"; do
  case "$arg" in
    --editors) editors=1 ;;
    --plan) plan=1 ;;
    *) pytest_args+=("$arg") ;;
  esac
done
if [ "${SKIP_EDITORS:-0}" = "1" ]; then
  editors=0  # the former opt-out: leaving the editors out is now the default
fi

# What this run installs, said before anything else.
echo "== scripts/test.sh: ruff, mypy --strict and pytest, with pack-lsp and its test tools"
echo "   installed into .venv/ from PyPI (pip's cache in .tools/pip-cache/)"
if [ "$editors" = "1" ]; then
  echo "== editor tests included (PACK_LSP_EDITORS=1): scripts/install-editors.sh installs"
  bash scripts/install-editors.sh --plan | sed 's/^/   /'
else
  echo "== editor tests left out (they skip). Included, they would install"
  bash scripts/install-editors.sh --plan | sed 's/^/   /'
  echo "   To include them: PACK_LSP_EDITORS=1 bash scripts/test.sh"
fi
if [ "$plan" = "1" ]; then
  exit 0
fi

if [ "$editors" != "1" ]; then
  # pip's cache stays in the checkout too (with the editors, as asked, pip's usual one).
  export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$ROOT/.tools/pip-cache}"
fi
mkdir -p .tools
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
if [ "$editors" = "1" ]; then
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
.venv/bin/python -m pytest ${pytest_args[@]+"${pytest_args[@]}"}
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
