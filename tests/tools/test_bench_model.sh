#!/usr/bin/env bash
# simple-bench model reads its inputs and formulas as documented: message
# costs interpolated between the ping-pong's measured sizes and extended by
# the last segment's slope, k copies on a node in turn where they share a
# core, and a clear error for a formula it cannot read. The expected
# values are worked out by hand below from the fixture's numbers.
# Usage: test_bench_model.sh BIN_DIR
set -u
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

# A ping-pong whose inter row is 10 us + 0.01 us/B up to 1000 B, then
# 0.02 us/B; intra MPI 1 us flat then 0.001 us/B; simple's intra row 0.5
# us empty, 0.5 + 0.0001 us/B.
cat >"$dir/pingpong.csv" <<'CSV'
suite,row,bytes,simple_us,mpi_us,ratio,simple_MBps,mpi_MBps
pingpong,inter,0,10,10,1,,
pingpong,inter,1000,20,20,1,,
pingpong,inter,2000,40,40,1,,
pingpong,intra,0,0.5,1,1,,
pingpong,intra,1000,0.6,2,1,,
CSV
# Two measured rows: 2 nodes x 1 thread (this machine's cores split
# between them) at 500 and 3000 bytes.
cat >"$dir/coll-2x1.csv" <<'CSV'
suite,op,bytes,nodes,threads,simple_us,mpi_default_us,mpi_han_us,anchor,anchor_us,ratio
coll,bcast,500,2,1,1,1,,default,1,1
coll,bcast,3000,2,1,1,1,,default,1,1
CSV
# hybrid: mn(n), flat: cpn(n, 4) + mi(n)
printf 'op\tside\tformula\nbcast\thybrid\tmn(n)\nbcast\tflat\tcpn(n,4) + mi(n)\n' >"$dir/m.tsv"
if ! "$bin/simple-bench" model --dir "$dir" --model "$dir/m.tsv" --csv "$dir/p.csv" >"$dir/out" 2>&1; then
  echo "FAIL: simple-bench model failed:"; cat "$dir/out"; exit 1
fi
cores=$(nproc)
# Expected: mn(500) = 10 + 500 * 0.01 = 15; mn(3000) = 40 + 1000 * 0.02 = 60.
# cp(m) = 0.0001 m; 4 threads on a node of max(1, cores / 2) cores copy in
# ceil(4 / that) turns; mi(500) = 1.5, mi(3000) = 2 + 2000 * 0.001 = 4.
python3 - "$dir/p.csv" "$cores" <<'PY' || fail=1
import csv, math, sys
cores = int(sys.argv[2])
turns = math.ceil(4 / max(1, cores / 2))
want = {500: (15.0, 0.05 * turns + 1.5), 3000: (60.0, 0.3 * turns + 4.0)}
ok = True
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "measured"]
if len(rows) != 2:
    print("FAIL: expected 2 measured rows, got", len(rows)); sys.exit(1)
for r in rows:
    h, f = want[int(float(r["bytes"]))]
    for name, got, exp in (("hybrid", float(r["hybrid_pred_us"]), h),
                           ("flat", float(r["flat_pred_us"]), f)):
        if abs(got - exp) > 1e-3 * exp:
            print("FAIL: %s at %s B: predicted %g, expected %g" % (name, r["bytes"], got, exp))
            ok = False
sys.exit(0 if ok else 1)
PY

# A formula it cannot read: a clear message and a non-zero exit.
printf 'op\tside\tformula\nbcast\thybrid\tmn(n\nbcast\tflat\tnosuch(n)\n' >"$dir/bad.tsv"
if "$bin/simple-bench" model --dir "$dir" --model "$dir/bad.tsv" >"$dir/out" 2>&1; then
  echo "FAIL: an unreadable formula was accepted"; cat "$dir/out"; fail=1
elif ! grep -q "bad formula" "$dir/out"; then
  echo "FAIL: no message for an unreadable formula:"; cat "$dir/out"; fail=1
fi
# No inputs: a clear message and a non-zero exit.
if "$bin/simple-bench" model --dir "$dir/none" >"$dir/out" 2>&1; then
  echo "FAIL: a missing input directory was accepted"; fail=1
fi
exit $fail
