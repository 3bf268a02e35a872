#!/bin/sh
# simple-sort's command line: bad arguments fail with a message and a
# non-zero status; --json prints one JSON object that says "verified": true,
# for every algorithm and both widths, on 2 nodes x 2 threads.
# Usage: test_sort_cmd.sh BINDIR
bin=$1
cmd=simple-sort
# The JSON every good run must print (the output file, then the arguments).
checker='
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
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"
job="-N 2 -t 2"

# Argument errors are found before the job starts: most are checked on the
# command alone (fast), a few through simplerun (the status must get out).
cmd_bad "--n N is required" direct
cmd_bad "positive number" direct --n 0
cmd_bad "positive number" direct --n -5
cmd_bad "positive number" direct --n 12abc
cmd_bad "positive number" direct --n ""
cmd_bad "--bits must be 32 or 64" direct --n 10 --bits 16
cmd_bad "unknown --dist" direct --n 10 --dist gauss
cmd_bad "unknown --algo" direct --n 10 --algo quick
cmd_bad "unknown option" direct --n 10 --frobnicate
# In a process other than the first: silent, status 0.
cmd_bad_other --n 10 --frobnicate
cmd_bad_other --n 10 --algo quick
cmd_bad "needs a value" direct --n
cmd_bad "--digit-bits must be" direct --n 10 --digit-bits 40
cmd_bad "unknown --algo" "$job" --n 10 --algo bogus
cmd_bad "memory" "$job" --n 100000000000000000 --bits 64
cmd_bad "memory" "$job" --n 1000000000000000 --bits 32

cmd_json "$job" --n 100000
cmd_json "$job" --n 3 --bits 64 --dist few
cmd_json "$job" --n 20001 --bits 64 --algo simple --dist reverse --seed 5
cmd_json "$job" --n 20001 --bits 32 --algo rdx --dist sorted
cmd_json "$job" --n 5000 --bits 64 --dist highbits --algo rdxopt

# Plain output says verified.
if ! "$run" $job "$bin/simple-sort" --n 1000 | grep -q "verified"; then
  echo "FAIL: simple-sort --n 1000: no 'verified'"
  fail=1
fi
cmd_done test_sort_cmd
