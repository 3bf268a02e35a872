#!/bin/sh
# simple-water from the command line: bad arguments give a clear error and
# a non-zero exit; --json says "verified": true with the energy drift and
# the distance to the sequential run under the stated tolerances.
# Usage: test_water_cmd.sh BINDIR
bin=${1:?usage: test_water_cmd.sh BINDIR}
cmd=simple-water
checker='
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["verified"] is True, d
assert d["drift"] < 1e-3, d
assert d["seq_pos_diff"] < 1e-6, d
assert d["molecules"] == int(sys.argv[3]), d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

export SIMPLE_THREADS=1
for a in "--molecules 0" "--molecules 7" "--molecules x" "--steps -1" "--dt 0" "--dt abc" \
         "--bogus" "--molecules"; do
  cmd_bad "simple-water:" direct $a
done
"$bin/$cmd" --help | grep -q usage || { echo "FAIL: --help prints no usage"; fail=1; }
unset SIMPLE_THREADS
cmd_json "-N 2 -t 2" --molecules 64 --steps 3
cmd_json "-N 3 -t 1,2,1" --molecules 27 --steps 2
cmd_done test_water_cmd
