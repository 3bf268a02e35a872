#!/bin/sh
# simple-fft from the command line: --json prints one object saying
# "verified": true (probes, Parseval, round trip, serial FFTW) for both
# directions, both output layouts, n != m, sizes not powers of two nor
# multiples of the processor count, on 1 x 1, 1 x 4, 2 x 2 and 3 x 1-2-3;
# bad arguments and sizes that cannot fit in memory give a clear message
# and a non-zero exit status. simple-fft2d is the same command.
# Usage: test_fft_cmd.sh BUILD_BIN_DIR
bin="$1"
cmd=simple-fft
# The JSON every good run must print (the output file, then the arguments).
checker='
import json, math, sys
with open(sys.argv[1]) as f:
    text = f.read()
lines = [l for l in text.splitlines() if l.strip()]
assert len(lines) == 1, "expected one JSON line, got %r" % text
d = json.loads(lines[0])
args = sys.argv[2:]
n = int(args[args.index("--n") + 1])
m = int(args[args.index("--m") + 1]) if "--m" in args else n
assert d["app"] == "fft2d", d
assert d["verified"] is True, d
assert d["n"] == n and d["m"] == m, d
assert d["direction"] == ("backward" if "--inverse" in args else "forward"), d
assert d["output"] == ("transposed" if "--transposed" in args else "natural"), d
for k in ("probe_relerr", "parseval_relerr", "roundtrip_relerr"):
    assert 0 <= d[k] < 1e-10, (k, d)
if n * m <= 1 << 22 and "--reference" not in args:
    assert d["reference_relerr"] is not None and d["reference_relerr"] < 1e-10, d
assert d["time_s"] > 0 and d["time_median_s"] >= d["time_s"], d
nm = n * m
want = 5 * nm * math.log2(nm) / d["time_s"] / 1e9 if nm > 1 else 0
assert abs(d["gflops"] - want) <= 1e-3 + 1e-2 * want, (want, d)
assert d["processors"] >= d["nodes"] >= 1, d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

cmd_json "-N 1 -t 1" --n 64
cmd_json "-N 1 -t 4" --n 30 --m 50 --reps 2
cmd_json "-N 1 -t 4" --n 3 --m 7 --inverse
cmd_json "-N 2 -t 2" --n 128 --m 96 --transposed --rigor estimate
cmd_json "-N 2 -t 2" --n 45 --inverse --transposed --seed 9
cmd_json "-N 3 -t 1,2,3" --n 100 --m 17 --rigor patient --reps 1
cmd=simple-fft2d
cmd_json "-N 2 -t 2" --n 33 --m 20 --reference no
cmd=simple-fft

cmd_bad "must be positive" "-N 1 -t 1" --n 0
cmd_bad "must be positive" "-N 1 -t 1" --n -5
cmd_bad "must be positive" "-N 1 -t 1" --n 8 --m 0
cmd_bad "whole number" "-N 1 -t 1" --n abc
cmd_bad "whole number" "-N 1 -t 1" --n
cmd_bad "too large" "-N 1 -t 1" --n 10000000 --m 10000000
cmd_bad "too large" "-N 1 -t 1" --n 99999999999
cmd_bad "too large" "-N 2 -t 1" --n 262144 --m 131072
cmd_bad "required" "-N 1 -t 1" --m 8
cmd_bad "unknown option" "-N 1 -t 1" --n 8 --frobnicate
# In a process other than the first: silent, status 0.
cmd_bad_other --n 8 --frobnicate
cmd_bad_other --n 10000000 --m 10000000
cmd_bad "--reps" "-N 1 -t 1" --n 8 --reps 0
cmd_bad "--rigor" "-N 1 -t 1" --n 8 --rigor exhaustive

cmd_done test_fft_cmd
