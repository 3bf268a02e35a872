#!/usr/bin/env bash
# simplerun: the layouts it starts (checked through simple-hello's lines),
# what it passes through (input, exit status, signals) and the bad
# arguments it refuses (message and exit status 2).
#   test_simplerun.sh BINDIR
set -u
bin="$1"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# -N 3 -t 1,2,3: six lines, each thread once, with the right context.
out=$("$bin/simplerun" -N 3 -t 1,2,3 "$bin/simple-hello" 2>&1) || fail "hello 3x(1,2,3) exited $?"
want=$(for n in 0 1 2; do
  r=$((n + 1)) first=$((n * (n + 1) / 2))
  for ((t = 0; t < r; t++)); do
    echo "node=$n nodes=3 thread=$t threads=$r pid=$((first + t)) nprocs=6"
  done
done | sort)
got=$(grep '^node=' <<< "$out" | sort)
[[ "$got" == "$want" ]] || fail "hello lines differ:
$got
--- expected:
$want"

# Default layout: 2 nodes, cores/2 threads each (at least 1).
per=$(( $(nproc) / 2 )); (( per >= 1 )) || per=1
n=$("$bin/simplerun" "$bin/simple-hello" | grep -c "nodes=2 .*threads=$per ")
[[ "$n" == $((2 * per)) ]] || fail "default layout gave $n lines, expected $((2 * per))"

# --procs-per-node: a flat job, every process a one-thread node.
n=$("$bin/simplerun" -N 2 --procs-per-node 2 -t 1 "$bin/simple-hello" | grep -c "nodes=4 .*threads=1 ")
[[ "$n" == 4 ]] || fail "-N 2 --procs-per-node 2 gave $n lines, expected 4"

# Standard input reaches the first process; a failing process fails the job.
out=$(echo "to rank zero" | "$bin/simplerun" -N 1 -t 1 cat 2>&1)
[[ "$out" == "to rank zero" ]] || fail "standard input not forwarded: $out"
"$bin/simplerun" -N 2 -t 1 sh -c 'exit 3' > /dev/null 2>&1 && fail "a process exiting 3 left the job's status 0"

# A signal to simplerun ends the whole job (mpirun runs as its child); no
# process of the job outlives it.
marker=$((200 + RANDOM % 100)).25
"$bin/simplerun" -N 2 -t 1 sleep "$marker" > /dev/null 2>&1 &
job=$!
for _ in $(seq 50); do pgrep -f "^sleep $marker" > /dev/null && break; sleep 0.1; done
kill -TERM "$job"
for _ in $(seq 100); do kill -0 "$job" 2> /dev/null || break; sleep 0.1; done
if kill -0 "$job" 2> /dev/null; then
  fail "simplerun still runs 10 s after SIGTERM"
  kill -KILL "$job"
fi
wait "$job" && fail "a job ended by SIGTERM exited 0"
sleep 1
if pgrep -f "^sleep $marker" > /dev/null; then
  fail "processes of a job ended by SIGTERM survived it"
  pkill -f "^sleep $marker"
fi

expect_usage_error() {
  local what="$1" pattern="$2"
  shift 2
  local out rc
  out=$("$bin/simplerun" "$@" 2>&1)
  rc=$?
  [[ $rc == 2 ]] || fail "$what: exit $rc, expected 2"
  grep -Eq -- "$pattern" <<< "$out" || fail "$what: message lacks /$pattern/: $out"
}
expect_usage_error "zero nodes" "NODES must be a positive integer" -N 0 "$bin/simple-hello"
expect_usage_error "negative nodes" "NODES must be a positive integer" -N -2 "$bin/simple-hello"
expect_usage_error "zero threads" "positive integer" -N 2 -t 0 "$bin/simple-hello"
expect_usage_error "negative threads" "positive integer" -N 2 -t -3 "$bin/simple-hello"
expect_usage_error "more counts than nodes" "3 thread counts given for 2 nodes" -N 2 -t 1,2,3 "$bin/simple-hello"
expect_usage_error "fewer counts than nodes" "one per node" -N 3 -t 1,2 "$bin/simple-hello"
expect_usage_error "empty count" "empty count" -N 2 -t 1, "$bin/simple-hello"
expect_usage_error "missing program" "not found" -N 1 ./no-such-program
expect_usage_error "no program" "no program given" -N 1
expect_usage_error "unknown option" "unknown option" --frobnicate "$bin/simple-hello"
expect_usage_error "zero procs per node" "procs-per-node must be a positive integer" --procs-per-node 0 "$bin/simple-hello"
expect_usage_error "per-node counts with ppn" "one thread count for every process" -N 2 --procs-per-node 2 -t 1,2 "$bin/simple-hello"
expect_usage_error "bad bind" "--bind takes none or core" --bind socket "$bin/simple-hello"

# The runtime itself refuses a bad SIMPLE_THREADS (set by hand, bypassing
# simplerun's checks): run the launch command simplerun prints, with the
# variable overridden.
cmd=$("$bin/simplerun" --dry-run -N 2 -t 1 "$bin/simple-hello")
[[ "$cmd" == *simple-hello* ]] || fail "--dry-run prints no command: $cmd"
out=$(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SIMPLE_THREADS=1,2,3 \
      bash -c "$cmd" 2>&1)
rc=$?
[[ $rc != 0 ]] || fail "SIMPLE_THREADS with 3 counts for 2 nodes was accepted"
grep -q "gives 3 counts for 2 nodes" <<< "$out" || fail "no message for a bad SIMPLE_THREADS: $out"

# Bad waiting settings end the job at start with a message.
for bad in "SIMPLE_YIELDS=many|SIMPLE_YIELDS must be" "SIMPLE_SPIN=-3|SIMPLE_SPIN must be"; do
  out=$(env "${bad%%|*}" "$bin/simplerun" -N 2 -t 1 "$bin/simple-hello" 2>&1)
  rc=$?
  [[ $rc != 0 ]] || fail "${bad%%|*} was accepted"
  grep -q "${bad#*|}" <<< "$out" || fail "no message for ${bad%%|*}: $out"
done

if (( fails )); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "simplerun: all checks passed"
