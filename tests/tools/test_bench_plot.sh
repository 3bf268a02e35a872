#!/usr/bin/env bash
# simple-bench --plot with file names that gnuplot would misread: a quote in
# the name must give a PNG of exactly that name (and run nothing), a control
# character must be refused before the run. Usage: test_bench_plot.sh BIN_DIR
set -u
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

# The name closes gnuplot's quote and tries to run a command (in the
# directory simple-bench runs in, hence a name without a path): it must stay
# a name.
cd "$dir" || exit 1
name="it's'; system 'touch ran'; '.png"
if ! "$bin/simple-bench" coll -N 1 -t 1 --quick --rounds 1 --only barrier --plot "$name" >"$dir/out" 2>&1; then
  echo "FAIL: simple-bench coll --plot with a quote in the name failed:"
  cat "$dir/out"
  fail=1
elif [ "$(head -c 4 "$name" | od -An -c | tr -d ' ')" != '211PNG' ]; then
  echo "FAIL: $name is not a PNG"
  fail=1
fi
if [ -e "$dir/ran" ]; then
  echo "FAIL: a file name ran a gnuplot command"
  fail=1
fi

nl="$dir/a
b.png"
if "$bin/simple-bench" coll -N 1 -t 1 --quick --only barrier --plot "$nl" >"$dir/out" 2>&1; then
  echo "FAIL: a file name with a newline was accepted"
  fail=1
elif ! grep -q "control character" "$dir/out"; then
  echo "FAIL: no clear message for a newline in the name:"
  cat "$dir/out"
  fail=1
fi
[ "$fail" = 0 ] && echo "bench_plot: ok"
exit "$fail"
