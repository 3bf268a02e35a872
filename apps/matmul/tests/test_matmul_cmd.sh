#!/bin/sh
# simple-matmul from the command line: the product is verified (--json
# says "verified": true) for both variants, n a multiple of q or not, on
# 1 x 1, 1 x 4 and 2 x 2; bad arguments and non-square processor counts
# give a clear message and a non-zero exit status.
# Usage: test_matmul_cmd.sh BUILD_BIN_DIR ok|errors
bin="$1"
mode="$2"
run="$bin/simplerun"
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

ok() { # layout args...
  layout="$1"
  shift
  if ! "$run" $layout "$bin/simple-matmul" "$@" --json >"$out" 2>"$err"; then
    echo "FAIL: simplerun $layout simple-matmul $* --json exited non-zero"
    cat "$err"
    fail=1
    return
  fi
  if ! python3 - "$out" "$@" <<'PY'; then
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
PY
    echo "FAIL: simplerun $layout simple-matmul $* --json: bad JSON"
    cat "$out"
    fail=1
  fi
}

bad() { # expected-message layout args...
  want="$1"
  layout="$2"
  shift 2
  # Argument errors are found before the job starts: the command runs
  # alone there ("direct"), which is quicker than through simplerun.
  if [ "$layout" = direct ]; then
    "$bin/simple-matmul" "$@" >"$out" 2>"$err"
  else
    "$run" $layout "$bin/simple-matmul" "$@" >"$out" 2>"$err"
  fi
  if [ $? -eq 0 ]; then
    echo "FAIL: simplerun $layout simple-matmul $* succeeded"
    fail=1
  elif ! grep -q -- "$want" "$err"; then
    echo "FAIL: simplerun $layout simple-matmul $*: no '$want' in:"
    cat "$err"
    fail=1
  fi
}

if [ "$mode" = ok ]; then
ok "-N 1 -t 1" --n 64
ok "-N 1 -t 4" --n 96 --variant put
ok "-N 1 -t 4" --n 97 --variant get
ok "-N 2 -t 2" --n 128 --variant get
ok "-N 2 -t 2" --n 101 --variant put --reps 2
ok "-N 4 -t 1" --n 60 --variant get
else

bad "q x q grid" "-N 1 -t 2" --n 64
bad "q x q grid" "-N 3 -t 1" --n 64 --variant get
bad "must be positive" direct --n 0
bad "must be positive" direct --n -5
bad "whole number" direct --n abc
bad "too large" direct --n 10000000
bad "must be positive" "-N 1 -t 1" --n 0
bad "too large" "-N 1 -t 1" --n 131072
bad "required" direct --variant put
bad "put or get" direct --n 8 --variant scatter
bad "unknown option" direct --n 8 --frobnicate
bad "--reps" direct --n 8 --reps 0
fi

[ $fail -eq 0 ] && echo "test_matmul_cmd $mode: all passed"
exit $fail
