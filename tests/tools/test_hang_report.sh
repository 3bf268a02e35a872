#!/usr/bin/env bash
# The hang report, end to end: with SIMPLE_HANG_REPORT=1 a job whose last
# thread holds back a barrier prints, on the nodes that wait, where every thread
# waits (the barrier, MPI) with its last collective and call site; once the
# report is out the thread comes, and the job ends normally.
#   test_hang_report.sh LAUNCHER LAUNCHER_ARGS... -- PROGRAM
set -u
launcher=()
while [[ $# -gt 0 && "$1" != -- ]]; do launcher+=("$1"); shift; done
shift
prog="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
SIMPLE_HANG_REPORT=1 "${launcher[@]}" "$prog" "$dir/go" >"$dir/out" 2>&1 &
job=$!
# The report of the barrier's hang: the held-back thread shown computing
# after its allreduce, then its node's closing line (a slow start may have
# made an earlier wait long enough for a report of its own). Bounded: the
# report is due a second after the barrier; 120 s is the CTest limit.
reported() {
  awk '/is not waiting \(computing\); last collective simple_allreduce/ { seen = 1 }
       seen && /goes on waiting/ { found = 1 } END { exit !found }' "$dir/out"
}
for _ in $(seq 1 1200); do
  reported && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
touch "$dir/go"
wait "$job"
rc=$?
cat "$dir/out"
fail=0
want() {
  if ! grep -Eq -- "$1" "$dir/out"; then
    echo "test_hang_report: no line matching /$1/"
    fail=1
  fi
}
(( rc == 0 )) || { echo "test_hang_report: the job exited $rc, expected 0"; fail=1; }
want "simple: hang report: node [0-9]+ thread [0-9]+ has waited [0-9.]+ s in .*; last collective simple_barrier\(\) from "
want "simple: hang report: node [0-9]+ thread [0-9]+ is not waiting \(computing\); last collective simple_allreduce\(count 1, type int32, op sum\)"
exit "$fail"
