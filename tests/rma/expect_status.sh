#!/usr/bin/env bash
# Runs a command that must end with one exit status, print a line matching
# a pattern (grep -E), and say nothing of MPI_Finalize or MPI_Abort (a job
# whose program ends with exit() after its SPMD part ends quietly).
#   expect_status.sh STATUS PATTERN COMMAND [ARGS...]
set -u
want="$1"
pattern="$2"
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if (( rc != want )); then
  echo "expect_status: '$*' exited $rc, expected $want" >&2
  exit 1
fi
if ! grep -Eq -- "$pattern" <<< "$out"; then
  echo "expect_status: output lacks /$pattern/" >&2
  exit 1
fi
if grep -Eqi -- "finaliz|MPI_ABORT|simple: abort|simple: crash|non-zero (exit|status)" <<< "$out"; then
  echo "expect_status: the job did not end quietly" >&2
  exit 1
fi
echo "expect_status: exited $rc as expected"
