#!/bin/sh
# simple-nqueens from the command line: bad arguments give a clear error
# and a non-zero exit; --json prints one object whose "solutions" matches
# an independent count (a small Python backtracking solver here) and says
# "verified": true, on one and on several nodes, with every option.
# Usage: test_nqueens_cmd.sh BINDIR
bin=${1:?usage: test_nqueens_cmd.sh BINDIR}
cmd=simple-nqueens
# The JSON every good run must print (the output file, then the arguments):
# the count against plain backtracking, written independently here.
checker='
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(lines) == 1, lines
d = json.loads(lines[0])
n = int(sys.argv[2])
def go(row, cols, d1, d2):
    if row == n:
        return 1
    return sum(go(row + 1, cols | {c}, d1 | {row + c}, d2 | {row - c})
               for c in range(n) if c not in cols and row + c not in d1 and row - c not in d2)
assert d["n"] == n, d
assert d["solutions"] == go(0, frozenset(), frozenset(), frozenset()), d
assert d["verified"] is True, d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

# Bad arguments: non-zero exit and a message naming the command (one
# thread, without the launcher: they are refused before the job starts).
export SIMPLE_THREADS=1
cmd_bad "simple-nqueens:" direct
for a in 0 21 -1 abc 12x 1e1 " "; do cmd_bad "simple-nqueens:" direct "$a"; done
cmd_bad "simple-nqueens:" direct 8 9
cmd_bad "simple-nqueens:" direct --bogus 8
cmd_bad "simple-nqueens:" direct 8 --depth
for d in 0 9 x; do cmd_bad "simple-nqueens:" direct 8 --depth "$d"; done
"$bin/$cmd" --help | grep -q usage || { echo "FAIL: --help prints no usage"; fail=1; }

SIMPLE_THREADS=2 cmd_json direct 8
unset SIMPLE_THREADS
for opt in "" "--static" "--symmetry" "--static --symmetry" "--depth 3"; do
  cmd_json "-N 2 -t 2" 9 $opt
done
cmd_json "-N 3 -t 1,2,1" 1 --symmetry
cmd_json "-N 1 -t 3" 10 --static

# Plain output names the count.
if ! SIMPLE_THREADS=2 "$bin/$cmd" 6 2>&1 | grep -q "^6-queens: 4 solutions (verified)"; then
  echo "FAIL: simple-nqueens 6: no '6-queens: 4 solutions (verified)'"
  fail=1
fi
cmd_done test_nqueens_cmd
