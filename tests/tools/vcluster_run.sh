#!/usr/bin/env bash
# Runs one SPMD test program on the virtual cluster (tools/vcluster):
#   vcluster_run.sh BINDIR SIMPLERUN-ARGS... PROGRAM
#   vcluster_run.sh BINDIR --down       (take the cluster down after the tests)
#   vcluster_run.sh BINDIR --probe      (exit 0 where a cluster can be made, else 77)
# Exits 77, which CTest reports as skipped, with the reason, where a virtual
# cluster cannot be made here (not root, no network namespaces): those tests
# must never pass without having run.
set -u
bin="$1"
shift
reason=""
if (( EUID != 0 )); then
  reason="not root: network namespaces and cgroups need root"
elif ! command -v ip >/dev/null 2>&1; then
  reason="the ip command (iproute2) is missing"
elif ! ip netns add "simple-probe-$$" 2>/dev/null; then
  reason="this machine refuses to create network namespaces"
else
  ip netns delete "simple-probe-$$"
fi
if [[ -n "$reason" ]]; then
  echo "SKIP: vcluster test not run: $reason"
  exit 77
fi
if [[ "${1:-}" == --probe ]]; then
  exit 0
fi
if [[ "${1:-}" == --down ]]; then
  exec "$bin/vcluster" down
fi
# timeout sends TERM to vcluster run, which forwards it to the job, so a
# hung job ends with 124 instead of leaving processes in the namespaces.
exec timeout -k 15 240 "$bin/simplerun" --vcluster "$@"
