#!/bin/sh
# simple-sort's command line: bad arguments fail with a message and a
# non-zero status; --json prints one JSON object that says "verified": true,
# for every algorithm and both widths, on 2 nodes x 2 threads.
# Usage: test_sort_cmd.sh BINDIR
set -u
bin=$1
run="$bin/simplerun -N 2 -t 2 $bin/simple-sort"
fail=0
tmp=${TMPDIR:-/tmp}/test_sort_cmd.$$
trap 'rm -f "$tmp".*' EXIT

# Argument errors are found before the job starts: most are checked on the
# command alone (fast), a few through simplerun (the status must get out).
bad() { # expected message fragment, then arguments
  want=$1
  shift
  if $cmd "$@" >"$tmp.out" 2>"$tmp.err"; then
    echo "FAIL: simple-sort $* exited 0"
    fail=1
  elif ! grep -q -- "$want" "$tmp.err"; then
    echo "FAIL: simple-sort $*: no '$want' in:"
    cat "$tmp.err"
    fail=1
  fi
}

cmd="$bin/simple-sort"
bad "--n N is required"
bad "positive number" --n 0
bad "positive number" --n -5
bad "positive number" --n 12abc
bad "positive number" --n ""
bad "--bits must be 32 or 64" --n 10 --bits 16
bad "unknown --dist" --n 10 --dist gauss
bad "unknown --algo" --n 10 --algo quick
bad "unknown option" --n 10 --frobnicate
bad "needs a value" --n
bad "--digit-bits must be" --n 10 --digit-bits 40
cmd=$run
bad "unknown --algo" --n 10 --algo bogus
bad "memory" --n 100000000000000000 --bits 64
bad "memory" --n 1000000000000000 --bits 32

json() { # arguments; the output must be one JSON object, verified
  if ! $run --json "$@" >"$tmp.out" 2>"$tmp.err"; then
    echo "FAIL: simple-sort --json $* exited non-zero:"
    cat "$tmp.err"
    fail=1
    return
  fi
  if ! python3 - "$tmp.out" "$@" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
o = json.loads(text)  # exactly one object, nothing else
args = sys.argv[2:]
def arg(name, default):
    return args[args.index(name) + 1] if name in args else default
assert o["verified"] is True, o
assert o["n"] == int(arg("--n", "0")), o
assert o["bits"] == int(arg("--bits", "32")), o
assert o["dist"] == arg("--dist", "uniform"), o
assert o["algo"] == arg("--algo", "simple"), o
assert o["nodes"] == 2 and o["threads"] == 2 and o["nprocs"] == 4, o
assert o["threads_per_node"] == "2", o
assert o["time_s"] >= 0 and o["keys_per_s"] >= 0, o
PY
  then
    echo "FAIL: simple-sort --json $*: bad JSON:"
    cat "$tmp.out"
    fail=1
  fi
}

json --n 100000
json --n 3 --bits 64 --dist few
json --n 20001 --bits 64 --algo simple --dist reverse --seed 5
json --n 20001 --bits 32 --algo rdx --dist sorted
json --n 5000 --bits 64 --dist highbits --algo rdxopt

# Plain output says verified.
if ! $run --n 1000 | grep -q "verified"; then
  echo "FAIL: simple-sort --n 1000: no 'verified'"
  fail=1
fi
[ $fail = 0 ] && echo "all simple-sort command checks passed"
exit $fail
