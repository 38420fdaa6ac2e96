#!/usr/bin/env bash
# Install everything pack-lsp's tests need into .venv and run the whole suite:
# lint (ruff), types (mypy --strict) and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
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
