#!/usr/bin/env bash
# simplerun under a real Slurm (Debian's slurmctld, slurmd, munge) started
# on the virtual cluster by vcluster-slurm: one slurmd per virtual node
# (its own network namespace and host name), the controller beside node0's.
# Each way of running checks with simple-hello that there is one process
# per virtual host and that each node runs the threads Slurm granted:
#   salloc -N 2 -c 3 simplerun simple-hello      (srun with --cpus-per-task)
#   sbatch -N 2 -c 2 of a script calling simplerun
#   srun -N 2 -c 3 --mpi=pmix simplerun simple-hello   (inside a step)
#   salloc -N 2 simplerun -N 3 ...               (more than the allocation)
# Starts and stops everything it starts; exits 77 (skipped) with the reason
# only where namespaces cannot be made, Slurm is not installed, or the build
# lies under /tmp, which each virtual Slurm node has of its own (as a real
# node has), so that its steps could not find the programs.
#   test_slurm.sh BINDIR
set -u
bin="$1"
here=$(cd "$(dirname "$0")" && pwd)
"$here/vcluster_run.sh" "$bin" --probe || exit $?
case "$(cd "$bin" && pwd -L)/ $(cd "$bin" && pwd -P)/" in
  /tmp/* | *" /tmp/"*)
    echo "SKIP: Slurm test not run: the build ($bin) is under /tmp, which every virtual Slurm node has of its own; build elsewhere"
    exit 77
    ;;
esac
for b in slurmctld slurmd munged salloc; do
  if ! command -v "$b" >/dev/null 2>&1; then
    echo "SKIP: Slurm test not run: $b is not installed (scripts/setup-deps.sh installs it)"
    exit 77
  fi
done
slurm="$bin/vcluster-slurm"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
work=$(mktemp -d "$PWD/slurm-test.XXXXXX")
trap '"$slurm" down >/dev/null; rm -rf "$work"' EXIT
"$slurm" up 2 || { echo "FAIL: vcluster-slurm up 2"; exit 1; }
# MPI between the virtual nodes over their network, as vcluster run sets it.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=10.77.0.0/24
export OMPI_MCA_oob_tcp_if_include=10.77.0.0/24 OMPI_MCA_osc=sm,pt2pt
run() { timeout -k 10 120 "$slurm" exec "$@"; }

# One node per host, each with T threads: "$1" is the output, T is $2.
check_hello() {
  local what="$1" out="$2" t="$3" i n
  for i in 0 1; do
    n=$(grep -c "^node=$i nodes=2 .*threads=$t .*host=node$i\$" <<<"$out")
    [[ "$n" == "$t" ]] || fail "$what: node $i: $n lines with threads=$t on host node$i: $out"
  done
  [[ $(grep -c '^node=' <<<"$out") == $((2 * t)) ]] || fail "$what: not $((2 * t)) lines: $out"
}

out=$(run salloc -N 2 -c 3 "$bin/simplerun" "$bin/simple-hello" 2>&1) || fail "salloc job failed: $out"
check_hello "salloc -N 2 -c 3" "$out" 3

cat >"$work/job.sh" <<JOB
#!/bin/bash
"$bin/simplerun" "$bin/simple-hello"
JOB
chmod +x "$work/job.sh"
out=$(run sbatch --wait -N 2 -c 2 -o "$work/job.out" "$work/job.sh" 2>&1) || fail "sbatch job failed: $out"
check_hello "sbatch -N 2 -c 2" "$(cat "$work/job.out" 2>/dev/null)" 2

out=$(run srun -N 2 -c 3 --mpi=pmix "$bin/simplerun" "$bin/simple-hello" 2>&1) || fail "srun step failed: $out"
check_hello "srun -N 2 -c 3 simplerun" "$out" 3

out=$(run salloc -N 2 "$bin/simplerun" -N 3 "$bin/simple-hello" 2>&1)
[[ $? != 0 ]] || fail "-N 3 in an allocation of 2 nodes was accepted"
grep -q "^simplerun: -N 3 asks for more nodes than the Slurm allocation [0-9]* has (2: node\[0-1\])" <<<"$out" ||
  fail "no one-line error for -N 3 in an allocation of 2: $out"
grep -q "^node=" <<<"$out" && fail "-N 3 in an allocation of 2 ran anyway: $out"

"$slurm" down >/dev/null
trap 'rm -rf "$work"' EXIT
# (zombies, already ended and waiting for init to reap them, do not count)
left=$(ps -eo stat=,pid=,args= | awk '$1 !~ /^Z/' | grep -E '[/]run/simple-slurm/|slurmstep[d]' || true)
[[ -z "$left" ]] || fail "left running after down: $left"
[[ ! -e /run/simple-slurm ]] || fail "/run/simple-slurm left after down"

if (( fails )); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "slurm: salloc, sbatch and srun steps place one node per host with the CPUs granted"
