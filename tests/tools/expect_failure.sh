#!/usr/bin/env bash
# Runs a command that must fail: non-zero exit, within the CTest timeout,
# with output matching a pattern (grep -E), and none matching the --not one.
#   expect_failure.sh [--not PATTERN] PATTERN COMMAND [ARGS...]
set -u
unwanted=""
if [[ "${1:-}" == --not ]]; then
  unwanted="$2"
  shift 2
fi
pattern="$1"
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if (( rc == 0 )); then
  echo "expect_failure: '$*' exited 0, expected a failure" >&2
  exit 1
fi
if ! grep -Eq -- "$pattern" <<< "$out"; then
  echo "expect_failure: output lacks /$pattern/" >&2
  exit 1
fi
if [[ -n "$unwanted" ]] && grep -Eq -- "$unwanted" <<< "$out"; then
  echo "expect_failure: output has /$unwanted/" >&2
  exit 1
fi
echo "expect_failure: failed as expected (exit $rc)"
