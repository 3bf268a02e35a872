#!/usr/bin/env bash
# simple-bench transpose --ops: the block <-> cyclic conversions run on both
# sides, each worker checking its result element by element against the
# closed form (a wrong element aborts it, failing the suite), on a rank
# count that divides n and one that does not; an unknown operation is
# refused before anything runs.
#   test_bench_transpose.sh BINDIR
set -u
bin="$1"
fails=0
for layout in "-N 2 -t 2" "-N 3 -t 1"; do
  # shellcheck disable=SC2086 # the layout's words
  out=$("$bin/simple-bench" transpose $layout --quick --rounds 1 --max-n 256 \
        --ops block-cyclic,cyclic-block,transpose 2>&1)
  rc=$?
  if (( rc != 0 )); then
    echo "FAIL: simple-bench transpose $layout exited $rc:"; echo "$out"; fails=$((fails + 1))
    continue
  fi
  for op in block-cyclic cyclic-block transpose; do
    grep -Eq "^$op +256 " <<< "$out" || { echo "FAIL: $layout: no $op row:"; echo "$out"; fails=$((fails + 1)); }
  done
done
out=$("$bin/simple-bench" transpose --ops transpose,sideways 2>&1)
rc=$?
if (( rc != 2 )) || ! grep -q "unknown operation 'sideways'" <<< "$out"; then
  echo "FAIL: --ops sideways: exit $rc, output: $out"; fails=$((fails + 1))
fi
(( fails == 0 )) && echo "bench transpose --ops: all checks passed"
exit $(( fails != 0 ))
