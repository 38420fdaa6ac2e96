#!/usr/bin/env bash
# The steps of the pack-lsp GitHub Action (action.yml), runnable anywhere:
# tests/test_action.py runs it locally with a fake GITHUB_OUTPUT.
#
# Inputs (environment): INPUT_PATHS (space-separated, default "."), INPUT_FORMAT
# (default github), INPUT_BASELINE, INPUT_STRICT (true/false), INPUT_SARIF
# (true/false), INPUT_COMPARE (true/false) with BASE_REF (the pull request's base
# branch). GITHUB_ACTION_PATH is the action's checkout: pack-lsp is installed from
# it, so the action runs the version it is pinned to; PACK_LSP_SKIP_INSTALL=1 uses
# the pack-lsp already on PATH. RUNNER_TEMP (default: a temporary directory) gets
# the SARIF file. Exit status: that of pack-lsp --check, or 1 when --compare finds
# a breaking change.
set -uo pipefail

paths="${INPUT_PATHS:-.}"
format="${INPUT_FORMAT:-github}"
out_dir="${RUNNER_TEMP:-$(mktemp -d)}"
output="${GITHUB_OUTPUT:-/dev/null}"

if [ "${PACK_LSP_SKIP_INSTALL:-0}" != "1" ]; then
  python -m pip install --quiet --disable-pip-version-check "${GITHUB_ACTION_PATH:?}" || {
    echo "pack-lsp action: cannot install pack-lsp from ${GITHUB_ACTION_PATH}" >&2
    exit 2
  }
fi

read -r -a targets <<< "$paths"
options=()
if [ -n "${INPUT_BASELINE:-}" ]; then
  options+=(--baseline "$INPUT_BASELINE")
fi
if [ "${INPUT_STRICT:-false}" = "true" ]; then
  options+=(--strict)
fi

echo "::group::pack-lsp --check ${options[*]} ${targets[*]}"
pack-lsp --check --format "$format" "${options[@]}" "${targets[@]}"
status=$?
echo "::endgroup::"

sarif=""
if [ "${INPUT_SARIF:-true}" = "true" ]; then
  sarif="$out_dir/pack-lsp.sarif"
  pack-lsp --check --format sarif "${options[@]}" "${targets[@]}" > "$sarif"
fi
{
  echo "sarif-file=$sarif"
  echo "status=$status"
} >> "$output"

if [ "${INPUT_COMPARE:-false}" = "true" ]; then
  if [ -z "${BASE_REF:-}" ]; then
    echo "pack-lsp action: compare is on but there is no base branch (not a pull request): skipped"
  else
    git fetch --quiet --depth=1 origin "$BASE_REF" 2>/dev/null || true
    base="origin/$BASE_REF"
    git rev-parse --verify --quiet "$base" > /dev/null || base="$BASE_REF"
    echo "::group::pack-lsp --compare $base ${targets[*]}"
    pack-lsp --compare "$base" "${targets[@]}"
    compared=$?
    echo "::endgroup::"
    if [ "$compared" -ne 0 ] && [ "$status" -eq 0 ]; then
      status=$compared
    fi
  fi
fi
exit "$status"
