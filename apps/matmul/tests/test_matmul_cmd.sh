#!/bin/sh
# simple-matmul from the command line: the product is verified (--json
# says "verified": true) for both variants, n a multiple of q or not, on
# 1 x 1, 1 x 4 and 2 x 2; bad arguments and non-square processor counts
# give a clear message and a non-zero exit status.
# Usage: test_matmul_cmd.sh BUILD_BIN_DIR ok|errors
bin="$1"
mode="$2"
cmd=simple-matmul
# The JSON every good run must print (the output file, then the arguments).
checker='
import json, sys
with open(sys.argv[1]) as f:
    text = f.read()
lines = [l for l in text.splitlines() if l.strip()]
assert len(lines) == 1, "expected one JSON line, got %r" % text
d = json.loads(lines[0])
args = sys.argv[2:]
n = int(args[args.index("--n") + 1])
assert d["verified"] is True, d
assert d["n"] == n, d
assert d["n_padded"] % d["q"] == 0 and d["n_padded"] >= n, d
assert d["q"] * d["q"] == d["processors"], d
assert d["checksum_relerr"] < 1e-12, d
assert d["time_s"] > 0 and d["gflops"] > 0, d
if "--variant" in args:
    assert d["variant"] == args[args.index("--variant") + 1], d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

if [ "$mode" = ok ]; then
cmd_json "-N 1 -t 1" --n 64
cmd_json "-N 1 -t 4" --n 96 --variant put
cmd_json "-N 1 -t 4" --n 97 --variant get
cmd_json "-N 2 -t 2" --n 128 --variant get
cmd_json "-N 2 -t 2" --n 101 --variant put --reps 2
cmd_json "-N 4 -t 1" --n 60 --variant get
else

cmd_bad "q x q grid" "-N 1 -t 2" --n 64
cmd_bad "q x q grid" "-N 3 -t 1" --n 64 --variant get
cmd_bad "must be positive" direct --n 0
cmd_bad "must be positive" direct --n -5
cmd_bad "whole number" direct --n abc
cmd_bad "too large" direct --n 10000000
cmd_bad "must be positive" "-N 1 -t 1" --n 0
cmd_bad "too large" "-N 1 -t 1" --n 131072
cmd_bad "required" direct --variant put
cmd_bad "put or get" direct --n 8 --variant scatter
cmd_bad "unknown option" direct --n 8 --frobnicate
# In a process other than the first: silent, status 0.
cmd_bad_other --n 8 --frobnicate
cmd_bad "--reps" direct --n 8 --reps 0
fi

cmd_done "test_matmul_cmd $mode"
