#!/usr/bin/env bash
# The scaling run for a many-core machine: builds, makes a virtual cluster
# of NODES nodes with an even share of the cores each (tools/vcluster: one
# network namespace and one cpuset per node), and runs the collectives,
# sort, FFT, matmul (when NODES x THREADS is a square), the As suite and
# the traffic count at NODES x THREADS against their anchors. Results go to
# OUT (default BUILD/report/scaling): one CSV per suite, each suite's output,
# and meta.txt (machine, cores, date, layout), which scripts/report.py turns
# into its own labelled section.
#
#   scripts/scaling.sh [BUILD] [-N NODES] [-t THREADS] [--out DIR] [--quick]
#                      [--no-build]
#
# --no-build runs BUILD as it is, without CMake: a build copied to a
# machine that has no compiler or whose paths differ (its bin/ and lib/
# are all it reads; simplerun finds the launcher by name when the one it
# was built with is not there).
#
# Defaults: 4 x 4 (16 cores: a node of 4 cores per 4 threads); on a machine
# with fewer cores than NODES x THREADS the nodes share cores, which the
# output states. Needs root (network namespaces). Everything touching the
# virtual cluster holds /tmp/simple-vcluster.lock and takes the cluster
# down at the end.
set -euo pipefail
build=build
if [[ $# -gt 0 && $1 != -* ]]; then build=$1; shift; fi
nodes=4 threads=4 out="" quick=() build_it=1
while [[ $# -gt 0 ]]; do
  case $1 in
    -N) nodes=$2; shift 2 ;;
    -t) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --no-build) build_it=0; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "scaling.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[[ $nodes =~ ^[1-9][0-9]*$ && $threads =~ ^[1-9][0-9]*$ ]] \
  || { echo "scaling.sh: -N and -t need whole numbers >= 1" >&2; exit 2; }
(( EUID == 0 )) || { echo "scaling.sh: needs root (the virtual cluster)" >&2; exit 2; }
out=${out:-$build/report/scaling}
here=$(cd "$(dirname "$0")/.." && pwd)

if (( build_it )); then
  echo "== build ($build)"
  [[ -f $build/CMakeCache.txt ]] || cmake -S "$here" -B "$build" >/dev/null
  cmake --build "$build" -j "$(nproc)" >/dev/null
fi
bench=$build/bin/simple-bench vc=$build/bin/vcluster
mkdir -p "$out"
cores=$(nproc)
{
  echo "machine: $(hostname), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cores: $cores"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "layout: $nodes nodes x $threads threads ($((cores / nodes)) cores per virtual node)"
  (( nodes * threads > cores )) && echo "note: $((nodes * threads)) threads on $cores cores: oversubscribed, times are not those of a many-core machine"
  echo "mpi: $(ompi_info 2>/dev/null | awk -F: '/Open MPI:/ {gsub(/ /, "", $2); print "Open MPI " $2; exit}')"
} >"$out/meta.txt"
cat "$out/meta.txt"

run() { # name args...
  local name=$1; shift
  echo "== simple-bench $* (${name})"
  local t0=$SECONDS
  if "$bench" "$@" --csv "$out/$name.csv" >"$out/$name.txt" 2>"$out/$name.err"; then
    echo "   $((SECONDS - t0)) s"
  else
    echo "   FAILED (exit $?), see $out/$name.err"
  fi
}

(
  flock 9
  trap '"$vc" down >/dev/null 2>&1 || true' EXIT
  "$vc" up "$nodes" >/dev/null
  L=(-N "$nodes" -t "$threads" --vcluster)
  run coll coll "${L[@]}" "${quick[@]}" --rounds 1
  run sort sort "${L[@]}" "${quick[@]}" --rounds 1
  run fft fft "${L[@]}" "${quick[@]}" --rounds 1
  q=1; while (( q * q < nodes * threads )); do q=$((q + 1)); done
  if (( q * q == nodes * threads )); then run matmul matmul "${L[@]}" "${quick[@]}" --rounds 1; fi
  run as as "${L[@]}" "${quick[@]}" --rounds 1
  run traffic traffic "${L[@]}" "${quick[@]}"
) 9>/tmp/simple-vcluster.lock
echo "== results in $out"
