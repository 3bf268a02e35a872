#!/usr/bin/env bash
# simple-nqueens from the command line: bad arguments give a clear error
# and a non-zero exit; --json prints one object whose "solutions" matches
# an independent count (a small Python backtracking solver here) and says
# "verified": true, on one and on several nodes, with every option.
set -u
bin=${1:?usage: test_nqueens_cmd.sh BINDIR}
cmd=$bin/simple-nqueens
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Bad arguments: non-zero exit and a message naming the problem.
for args in "" "0" "21" "-1" "abc" "12x" "8 9" "--bogus 8" "8 --depth" "8 --depth 0" \
            "8 --depth 9" "8 --depth x" "1e1" " "; do
  out=$(SIMPLE_THREADS=1 $cmd $args 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then bad "simple-nqueens $args exited 0"; fi
  if ! grep -q "simple-nqueens:" <<<"$out"; then bad "simple-nqueens $args: no message: $out"; fi
done
$cmd --help | grep -q usage || bad "--help prints no usage"

# The count, independently: plain backtracking in Python.
count() {
  python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
def go(row, cols, d1, d2):
    if row == n:
        return 1
    return sum(go(row + 1, cols | {c}, d1 | {row + c}, d2 | {row - c})
               for c in range(n) if c not in cols and row + c not in d1 and row - c not in d2)
print(go(0, frozenset(), frozenset(), frozenset()))
PY
}

check_json() { # n layout-args... -- options
  local n=$1; shift
  local out
  out=$("$@" 2>&1)
  local rc=$?
  local want
  want=$(count "$n")
  if [ $rc -ne 0 ]; then bad "$*: exit $rc: $out"; return; fi
  local js
  js=$(grep '^{' <<<"$out")
  if [ "$(jq -r .solutions <<<"$js")" != "$want" ]; then bad "$*: solutions != $want: $out"; fi
  if [ "$(jq -r .verified <<<"$js")" != "true" ]; then bad "$*: not verified: $out"; fi
  if [ "$(jq -r .n <<<"$js")" != "$n" ]; then bad "$*: n wrong: $out"; fi
}

check_json 8 env SIMPLE_THREADS=2 $cmd 8 --json
for opt in "" "--static" "--symmetry" "--static --symmetry" "--depth 3"; do
  check_json 9 $bin/simplerun -N 2 -t 2 $cmd 9 --json $opt
done
check_json 1 $bin/simplerun -N 3 -t 1,2,1 $cmd 1 --json --symmetry
check_json 10 $bin/simplerun -N 1 -t 3 $cmd 10 --json --static

# Plain output names the count.
out=$(SIMPLE_THREADS=2 $cmd 6 2>&1) || bad "simple-nqueens 6 failed: $out"
grep -q "^6-queens: 4 solutions (verified)" <<<"$out" || bad "simple-nqueens 6: $out"

if [ $fail -ne 0 ]; then exit 1; fi
echo "simple-nqueens command: all checks passed"
