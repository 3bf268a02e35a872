#!/usr/bin/env bash
# simple-cc's link-time warning about globals shared by the threads of a
# node: it names the writable globals and statics of tests/rma/bsp_globals.c
# and no thread-local or read-only one, --no-globals-warning silences it,
# and the program runs.
#   simple_cc_globals.sh SIMPLE_CC SOURCE OUTPUT SIMPLERUN
set -u
cc="$1" src="$2" out="$3" run="$4"
fail() { echo "simple_cc_globals: $*" >&2; exit 1; }
warn=$("$cc" -I"$(dirname "$src")" "$src" -o "$out" 2>&1 > /dev/null) || fail "the build failed: $warn"
printf '%s\n' "$warn"
line=$(grep -E "^simple-cc: warning: .* defines writable global or static variables: " <<< "$warn") ||
  fail "no warning"
list=${line#*variables: }
for want in "M" "N" "counter" "name" "calls (static in a function)"; do
  grep -Fq -- "$want" <<< "$list" || fail "the warning does not name $want"
done
for not in tl_sum ro; do
  grep -Eq -- "(^| )$not[,.]" <<< "$list" && fail "the warning names $not"
done
grep -q "_Thread_local" <<< "$warn" || fail "the warning does not say what to do"
quiet=$("$cc" --no-globals-warning -I"$(dirname "$src")" "$src" -o "$out" 2>&1) ||
  fail "the quiet build failed"
[[ -z "$quiet" ]] || fail "--no-globals-warning left: $quiet"
"$run" -N 1 -t 1 "$out" | grep -q "^lu 1 1 1 5$" || fail "the program did not run"
echo "simple_cc_globals: ok"
