#!/bin/sh
# simple-groebner from the command line: bad arguments give a clear error
# and a non-zero exit; --json says "verified": true, a reduced basis equal
# to the sequential run's (Lazard's: 15 polynomials, as SymPy finds).
# Usage: test_groebner_cmd.sh BINDIR
bin=${1:?usage: test_groebner_cmd.sh BINDIR}
cmd=simple-groebner
checker='
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["verified"] is True and d["reduced_basis"] is True, d
assert d["equals_sequential"] is True, d
name = [a for a in sys.argv[2:] if not a.startswith("-")][-1]
assert d["system"] == name, d
assert name != "lazard" or d["basis"] == 15, d
  '
. "$(dirname "$0")/../../../tests/tools/cmd_check.sh"

export SIMPLE_THREADS=1
for a in cyclic-1 cyclic-x katsura-0 katsura-12 lazard-3 Lazard --bogus --system; do
  cmd_bad "simple-groebner:" direct $a
done
cmd_bad "simple-groebner: --system needs" direct --system --json
"$bin/$cmd" --help | grep -q usage || { echo "FAIL: --help prints no usage"; fail=1; }
unset SIMPLE_THREADS
cmd_json "-N 2 -t 2" katsura-4
cmd_json "-N 3 -t 1,2,1" cyclic-5
cmd_json "-N 2 -t 2" --system lazard
cmd_json "-N 1 -t 3" lazard
cmd_done test_groebner_cmd
