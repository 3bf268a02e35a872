#!/bin/sh
# simple-cholesky from the command line: bad arguments give a clear error
# and a non-zero exit, an indefinite matrix an error naming the pivot;
# --json says "verified": true with the residual under 1e-12.
# Usage: test_cholesky_cmd.sh BINDIR
bin=${1:?usage: test_cholesky_cmd.sh BINDIR}
cmd=simple-cholesky
checker='
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["verified"] is True, d
assert d["residual"] < 1e-12, d
assert d["n"] == int(sys.argv[3]), d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

export SIMPLE_THREADS=1
for a in "--n 0" "--n x" "--nb 0" "--nb 5000" "--shift abc" "--bogus" "--n"; do
  cmd_bad "simple-cholesky:" direct $a
done
"$bin/$cmd" --help | grep -q usage || { echo "FAIL: --help prints no usage"; fail=1; }
cmd_bad "not positive definite: pivot" direct --n 50 --nb 8 --shift -30
unset SIMPLE_THREADS
cmd_bad "not positive definite: pivot" "-N 2 -t 2" --n 50 --nb 8 --shift -30
cmd_json "-N 2 -t 2" --n 300 --nb 32
cmd_json "-N 3 -t 1,2,1" --n 200 --nb 50
if [ -r /work/shared/data/bcsstk15.mtx ]; then
  checker='
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["verified"] is True and d["residual"] < 1e-12, d
assert d["matrix"].endswith("bcsstk15.mtx") and d["n"] == 3948, d
  '
  cmd_json "-N 2 -t 2" --matrix /work/shared/data/bcsstk15.mtx
fi
unset SIMPLE_THREADS
export SIMPLE_THREADS=1
bad=$(mktemp)
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n3 1 1\n' >"$bad"
cmd_bad "line 4: entry (3, 1) outside" direct --matrix "$bad"
rm -f "$bad"
cmd_bad "cannot open" direct --matrix /nonexistent.mtx
cmd_bad "simple-cholesky: --matrix needs" direct --matrix
cmd_done test_cholesky_cmd
