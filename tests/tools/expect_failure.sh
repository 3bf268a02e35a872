#!/usr/bin/env bash
# Runs a command that must fail: non-zero exit, within the CTest timeout,
# with output matching a pattern (grep -E) and every --also one, and none
# matching the --not one.
#   expect_failure.sh [--not PATTERN] [--also PATTERN]... PATTERN COMMAND [ARGS...]
set -u
unwanted=""
also=()
while [[ "${1:-}" == --not || "${1:-}" == --also ]]; do
  if [[ "$1" == --not ]]; then unwanted="$2"; else also+=("$2"); fi
  shift 2
done
pattern="$1"
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if (( rc == 0 )); then
  echo "expect_failure: '$*' exited 0, expected a failure" >&2
  exit 1
fi
for p in "$pattern" ${also[@]+"${also[@]}"}; do
  if ! grep -Eq -- "$p" <<< "$out"; then
    echo "expect_failure: output lacks /$p/" >&2
    exit 1
  fi
done
if [[ -n "$unwanted" ]] && grep -Eq -- "$unwanted" <<< "$out"; then
  echo "expect_failure: output has /$unwanted/" >&2
  exit 1
fi
echo "expect_failure: failed as expected (exit $rc)"
