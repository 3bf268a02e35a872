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
    echo "node=$n nodes=3 thread=$t threads=$r pid=$((first + t)) nprocs=6 host=$(hostname)"
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

# Local nodes may all share this host; named hosts may not. Two names of
# this machine are refused before anything starts, and allowed with
# --allow-shared-hosts (then both nodes run here, one per name).
me=$(hostname)
n=$("$bin/simplerun" -H "localhost,$me" --allow-shared-hosts -t 1 "$bin/simple-hello" | grep -c "nodes=2 .*host=$me\$")
[[ "$n" == 2 ]] || fail "-H localhost,$me --allow-shared-hosts gave $n lines, expected 2"
# The runtime's own check, where a launcher placed two nodes of a host list
# on one host: the job refuses to start, naming the nodes and the host.
cmd=$("$bin/simplerun" --dry-run -N 2 -t 1 "$bin/simple-hello")
out=$(SIMPLE_PROCS_PER_HOST=1 bash -c "${cmd/env /env SIMPLE_PROCS_PER_HOST=1 }" 2>&1)
rc=$?
(( rc != 0 )) || fail "two nodes on one host of a host list were accepted"
grep -q "nodes 0,1 share host $me" <<< "$out" || fail "no message for nodes sharing a host: $out"
out=$(SIMPLE_PROCS_PER_HOST=1 SIMPLE_ALLOW_SHARED_HOSTS=1 bash -c "${cmd/env /env SIMPLE_PROCS_PER_HOST=1 SIMPLE_ALLOW_SHARED_HOSTS=1 }" 2>&1) ||
  fail "SIMPLE_ALLOW_SHARED_HOSTS=1 did not allow two nodes on one host: $out"

# A thread count above the cores a node may use runs, with a warning.
cores=$(nproc)
out=$("$bin/simplerun" -N 1 -t $((cores + 1)) "$bin/simple-hello" 2>&1) || fail "-t above the cores failed: $out"
grep -q "warning: node 0 runs $((cores + 1)) threads on host $me, which gives it $cores core" <<< "$out" ||
  fail "no oversubscription warning: $out"

# -x and --mpi-args reach the processes and the launcher; --dry-run prints
# a command that runs as printed, the values of -x included.
out=$(SIMPLE_X_TEST=1 "$bin/simplerun" -N 2 -t 1 -x 'XVAR=a b' -x SIMPLE_X_TEST sh -c 'echo "[$XVAR][$SIMPLE_X_TEST]"')
[[ "$out" == $'[a b][1]\n[a b][1]' ]] || fail "-x values not passed: $out"
cmd=$("$bin/simplerun" --dry-run -N 2 -t 1 -x 'XVAR=c d' sh -c 'echo "[$XVAR]"')
[[ "$cmd" == *XVAR=c\\\ d* ]] || fail "--dry-run lacks the -x value: $cmd"
out=$(env -u XVAR bash -c "$cmd" 2>&1)
[[ "$out" == $'[c d]\n[c d]' ]] || fail "the --dry-run command did not run as printed: $out"
if "$bin/simplerun" --version | grep -q "^simplerun (simple) [0-9]"; then :; else fail "--version"; fi
cmd=$("$bin/simplerun" --dry-run -N 1 -t 1 --mpi-args --tag-output -- "$bin/simple-hello")
[[ "$cmd" == *" --tag-output "*simple-hello* ]] || fail "--mpi-args not passed before the program: $cmd"

# Inside a job already started (mpirun ... simplerun), simplerun runs the
# program itself, with per-node counts for the job's processes.
cmd=$("$bin/simplerun" --dry-run -N 3 -t 1 true)
out=$(bash -c "${cmd% true } $bin/simplerun -t 1,2,1 $bin/simple-hello" 2>&1)
n=$(grep -c '^node=1 nodes=3 .*threads=2 ' <<< "$out")
[[ "$n" == 2 && $(grep -c '^node=' <<< "$out") == 4 ]] || fail "simplerun inside mpirun -n 3 with -t 1,2,1: $out"

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
# Counts are checked as strings: never arithmetic on a number that
# overflows, never a silent default.
expect_usage_error "empty nodes" "NODES must be a positive integer, not ''" -N '' "$bin/simple-hello"
expect_usage_error "empty nodes (=)" "NODES must be a positive integer, not ''" --nodes= "$bin/simple-hello"
expect_usage_error "huge nodes" "NODES 99999999999999999999 is too large \\(at most 65536\\)" -N 99999999999999999999 "$bin/simple-hello"
expect_usage_error "wrapping nodes" "NODES 18446744073709551617 is too large" -N 18446744073709551617 "$bin/simple-hello"
expect_usage_error "too many nodes" "NODES 100000 is too large" -N 100000 "$bin/simple-hello"
expect_usage_error "hex nodes" "NODES must be a positive integer, not '0x10'" -N 0x10 "$bin/simple-hello"
expect_usage_error "signed nodes" "NODES must be a positive integer, not '\\+2'" -N +2 "$bin/simple-hello"
expect_usage_error "spaced nodes" "NODES must be a positive integer, not ' 2'" -N ' 2' "$bin/simple-hello"
expect_usage_error "zeros" "NODES must be a positive integer, not '000'" -N 000 "$bin/simple-hello"
expect_usage_error "huge threads" "each thread count 4097 is too large \\(at most 4096\\)" -N 1 -t 4097 "$bin/simple-hello"
expect_usage_error "empty threads" "THREADS must be a positive integer or a list, not ''" -N 1 -t '' "$bin/simple-hello"
expect_usage_error "huge ppn" "procs-per-node 99999999999999999999999 is too large" --procs-per-node 99999999999999999999999 "$bin/simple-hello"
expect_usage_error "local processes beyond memory" "local processes need more memory|process limit" -N 65536 "$bin/simple-hello"
# Host lists: shorter than -N, unknown hosts, malformed entries.
expect_usage_error "short host list" "-N 3 asks for 3 nodes but the host list names 2 host\\(s\\) \\(h1,h2\\)" -N 3 -H h1,h2 "$bin/simple-hello"
expect_usage_error "unknown host" "host 'no-such-host.invalid' of the host list has no address here" -H localhost,no-such-host.invalid "$bin/simple-hello"
# A host that resolves but does not answer (TEST-NET-1, RFC 5737): named in
# one warning line before the launcher tries it; the job then fails
# without running on the hosts it could reach.
out=$("$bin/simplerun" -H localhost,192.0.2.1 -t 1 --mpi-args --mca plm_rsh_args "-o ConnectTimeout=3 -o BatchMode=yes" -- "$bin/simple-hello" 2>&1)
rc=$?
(( rc != 0 )) || fail "a job with an unreachable host exited 0: $out"
grep -q "^simplerun: warning: host '192.0.2.1' does not answer on port 22 (ssh)" <<< "$out" || fail "no warning for an unreachable host: $out"
grep -q "^node=" <<< "$out" && fail "the job ran without its unreachable host: $out"
expect_usage_error "two names of this host" "of the host list are all this machine" -H "localhost,$me" "$bin/simple-hello"
expect_usage_error "empty host" "has an empty host name" -H h1,,h2 "$bin/simple-hello"
expect_usage_error "bad host name" "is not a host name" -H 'h1,h;2' "$bin/simple-hello"
expect_usage_error "missing hostfile" "hostfile '/no/such/file' not found" --hostfile /no/such/file "$bin/simple-hello"
hf=$(mktemp)
printf '# only comments\n\n' > "$hf"
expect_usage_error "empty hostfile" "names no hosts" --hostfile "$hf" "$bin/simple-hello"
printf 'h1 slots=4\nh2:2 # MPICH style\nh1\n' > "$hf"
expect_usage_error "hostfile shorter than -N" "the host list names 2 host\\(s\\) \\(h1,h2\\)" -N 3 --hostfile "$hf" "$bin/simple-hello"
cmd=$("$bin/simplerun" --dry-run --hostfile "$hf" -t 2 "$bin/simple-hello")
case "${cmd//\\/}" in
  *" -H h1:1,h2:1 --map-by ppr:1:node "* | *" -ppn 1 -hosts h1,h2 "*) ;;
  *) fail "hostfile: not one process per host: $cmd" ;;
esac
cmd=$("$bin/simplerun" --dry-run -H h1,h2,h3 -N 2 --procs-per-node 2 -t 1 "$bin/simple-hello")
case "${cmd//\\/}" in
  *" -n 4 -H h1:2,h2:2 --map-by ppr:2:node "* | *" -n 4 -ppn 2 -hosts h1,h2 "*) ;;
  *) fail "-H with -N 2 --procs-per-node 2: $cmd" ;;
esac
rm -f "$hf"
expect_usage_error "hostfile and -H" "give --hostfile or -H, not both" --hostfile /etc/hostname -H h1 "$bin/simple-hello"
expect_usage_error "bad -x" "-x takes VAR or VAR=VALUE" -x '1BAD=2' "$bin/simple-hello"
expect_usage_error "unterminated --mpi-args" "--mpi-args must end with --" --mpi-args --tag-output "$bin/simple-hello"
# A Slurm allocation smaller than the request (the variables as salloc sets them).
if command -v srun >/dev/null 2>&1; then
  out=$(SLURM_JOB_ID=1 SLURM_JOB_NUM_NODES=2 SLURM_JOB_NODELIST='n[1-2]' "$bin/simplerun" -N 3 "$bin/simple-hello" 2>&1)
  [[ $? == 2 ]] && grep -q "asks for more nodes than the Slurm allocation 1 has (2: n\[1-2\])" <<< "$out" ||
    fail "allocation smaller than -N: $out"
fi

# The runtime itself refuses a bad SIMPLE_THREADS (set by hand, bypassing
# simplerun's checks): run the launch command simplerun prints, with the
# variable overridden.
cmd=$("$bin/simplerun" --dry-run -N 2 -t 1 "$bin/simple-hello")
[[ "$cmd" == *simple-hello* ]] || fail "--dry-run prints no command: $cmd"
out=$(bash -c "${cmd//SIMPLE_THREADS=1 /SIMPLE_THREADS=1,2,3 }" 2>&1)
rc=$?
[[ $rc != 0 ]] || fail "SIMPLE_THREADS with 3 counts for 2 nodes was accepted"
grep -q "gives 3 counts for 2 nodes" <<< "$out" || fail "no message for a bad SIMPLE_THREADS: $out"

# Bad waiting and segment settings end the job at start with a message.
for bad in "SIMPLE_YIELDS=many|SIMPLE_YIELDS must be" "SIMPLE_SPIN=-3|SIMPLE_SPIN must be" \
  "SIMPLE_SEGMENT_WHOLE=1M|SIMPLE_SEGMENT_WHOLE must be a non-negative number of bytes" \
  "SIMPLE_SEGMENT_PIECES=-4096|SIMPLE_SEGMENT_PIECES must be a non-negative number of bytes"; do
  out=$(env "${bad%%|*}" "$bin/simplerun" -N 2 -t 1 "$bin/simple-hello" 2>&1)
  rc=$?
  [[ $rc != 0 ]] || fail "${bad%%|*} was accepted"
  grep -q "${bad#*|}" <<< "$out" || fail "no message for ${bad%%|*}: $out"
done

# SIMPLE_SEGMENT_WHOLE or SIMPLE_SEGMENT_PIECES set differently on two
# nodes (by a wrapper that sets it from the process's rank, after the
# launcher): the two ends of a message would cut it differently, so the
# job refuses to start.
wrap=$(mktemp)
trap 'rm -f "$wrap"' EXIT
for var in SIMPLE_SEGMENT_WHOLE SIMPLE_SEGMENT_PIECES; do
  cat > "$wrap" <<EOF_WRAP
#!/bin/sh
$var=\$(( (\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}} + 1) * 65536 )) exec "\$@"
EOF_WRAP
  chmod +x "$wrap"
  out=$(bash -c "${cmd//$bin\/simple-hello/$wrap $bin/simple-hello}" 2>&1)
  rc=$?
  [[ $rc != 0 ]] || fail "$var differing between nodes was accepted"
  grep -q "$var must be the same on every node" <<< "$out" ||
    fail "no message for $var differing between nodes: $out"
done

if (( fails )); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "simplerun: all checks passed"
