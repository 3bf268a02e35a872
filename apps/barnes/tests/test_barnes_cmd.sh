#!/bin/sh
# simple-barnes from the command line: bad arguments give a clear error and
# a non-zero exit; --json says "verified": true with the sampled force
# error and the momentum error under the stated tolerances.
# Usage: test_barnes_cmd.sh BINDIR
bin=${1:?usage: test_barnes_cmd.sh BINDIR}
cmd=simple-barnes
checker='
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["verified"] is True, d
assert d["max_rel_err"] < d["max_err_tol"], d
assert d["rms_rel_err"] < d["rms_err_tol"], d
assert d["momentum_err"] < 1e-3, d
assert d["bodies"] == int(sys.argv[3]), d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

export SIMPLE_THREADS=1
for a in "--bodies 0" "--bodies 1" "--bodies x" "--steps -1" "--theta 0" "--theta 3" \
         "--bogus" "--bodies"; do
  cmd_bad "simple-barnes:" direct $a
done
"$bin/$cmd" --help | grep -q usage || { echo "FAIL: --help prints no usage"; fail=1; }
unset SIMPLE_THREADS
cmd_json "-N 2 -t 2" --bodies 2000 --steps 1
cmd_json "-N 3 -t 1,2,1" --bodies 500 --steps 2 --per-thread-cache
cmd_done test_barnes_cmd
