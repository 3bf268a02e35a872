#!/usr/bin/env bash
# simple-bench coll on one node of several threads times each alltoall's
# copy floor (its worker checks the floor's copies against the closed form
# of the alltoall's result, and fails on a mismatch): a row per alltoall
# size, a positive time; none on one thread, where no block crosses
# between threads. Usage: test_bench_floor.sh BIN_DIR
set -u
bin="$1"
out=$("$bin/simple-bench" coll -N 1 -t 2 --quick --rounds 1 --only alltoall 2>&1) || {
  echo "FAIL: simple-bench coll -N 1 -t 2 failed:"
  echo "$out"
  exit 1
}
rows=$(sed -n '/^copy floor/,$p' <<<"$out" | awk '$1 == "alltoall" && $3 + 0 > 0' | wc -l)
if [ "$rows" -ne 3 ]; then
  echo "FAIL: expected a copy floor row with a positive time for each of the 3 --quick sizes:"
  echo "$out"
  exit 1
fi
out1=$("$bin/simple-bench" coll -N 1 -t 1 --quick --rounds 1 --only alltoall 2>&1) || {
  echo "FAIL: simple-bench coll -N 1 -t 1 failed:"
  echo "$out1"
  exit 1
}
if grep -q '^copy floor' <<<"$out1"; then
  echo "FAIL: a copy floor on one thread:"
  echo "$out1"
  exit 1
fi
echo "bench_floor: ok"
