#!/usr/bin/env bash
# Open MPI with a hostfile naming the virtual cluster's hosts: simplerun,
# started on node0 as a user's shell would be on a login node, reads the
# hostfile and places one process on each host, which mpirun starts
# through the virtual cluster's remote agent (given as ssh's stand-in
# with --mpi-args). simple-hello's lines must show one node per host.
#   test_vcluster_hostfile.sh BINDIR
# Exits 77 (skipped) with the reason where namespaces cannot be made.
set -u
bin="$1"
"$(dirname "$0")/vcluster_run.sh" "$bin" --probe || exit $?
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
k=3
"$bin/vcluster" up $k >/dev/null || { echo "FAIL: vcluster up $k"; exit 1; }
hf=$(mktemp)
trap '"$bin/vcluster" down >/dev/null; rm -f "$hf"' EXIT
printf 'node0 slots=4\nnode1 slots=4  # Open MPI style\nnode2:4\n' >"$hf"
mca=(--mca plm_rsh_agent "$bin/vcluster-agent" --mca plm_rsh_no_tree_spawn 1
     --mca btl self,vader,tcp --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24)
run() { timeout -k 10 120 "$bin/vcluster-agent" --exec node0 "$bin/simplerun" "$@"; }

# One process per host, each host's thread count measured there (the
# node's share of the cores).
out=$(run --hostfile "$hf" --mpi-args "${mca[@]}" -- "$bin/simple-hello" 2>&1) || fail "hostfile job failed: $out"
for i in 0 1 2; do
  n=$(grep -c "^node=$i nodes=3 .* host=node$i\$" <<<"$out")
  t=$(grep "^node=$i " <<<"$out" | head -1 | sed 's/.* threads=\([0-9]*\) .*/\1/')
  [[ -n "$t" && "$n" == "$t" ]] || fail "node $i: $n lines on host node$i, threads=$t: $out"
  c=$("$bin/vcluster-agent" --exec node$i nproc)
  [[ "$t" == "$c" ]] || fail "node $i: $t threads, but node$i has $c cores"
done
hosts=$(grep '^node=' <<<"$out" | sed 's/.*host=//' | sort -u | wc -l)
[[ "$hosts" == 3 ]] || fail "3 nodes on $hosts hosts: $out"

# -N 2 of the list, -t 2 (above a node's one core: a warning), -H form.
out=$(run -H node2,node1,node0 -N 2 -t 2 --mpi-args "${mca[@]}" -- "$bin/simple-hello" 2>&1) || fail "-H job failed: $out"
[[ $(grep -c "^node=0 nodes=2 .*threads=2 .*host=node2\$" <<<"$out") == 2 &&
   $(grep -c "^node=1 nodes=2 .*threads=2 .*host=node1\$" <<<"$out") == 2 ]] || fail "-H node2,node1,node0 -N 2: $out"

# Bad host lists: one line each, nothing started.
out=$(run -N 4 --hostfile "$hf" "$bin/simple-hello" 2>&1)
[[ $? == 2 && "$out" == "simplerun: -N 4 asks for 4 nodes but the host list names 3 host(s) (node0,node1,node2)"* ]] ||
  fail "hostfile shorter than -N: $out"
out=$(run -H node0,node7 "$bin/simple-hello" 2>&1)
[[ $? == 2 && "$out" == "simplerun: host 'node7' of the host list has no address here"* ]] || fail "unknown host: $out"
# A host that resolves but cannot be reached: the launcher fails, and the
# job ends (non-zero) instead of running on the hosts it could reach.
out=$(run -H node0,10.77.0.99 --mpi-args "${mca[@]}" -- "$bin/simple-hello" 2>&1)
rc=$?
(( rc != 0 )) || fail "an unreachable host was accepted: $out"
grep -q "^node=" <<<"$out" && fail "the job ran without its unreachable host: $out"

if (( fails )); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "vcluster hostfile: one process per host"
