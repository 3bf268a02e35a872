#!/usr/bin/env bash
# make demo: the main job of the project on this machine.
#   scripts/demo.sh BUILD_DIR
# Runs simple-hello on the default layout, the node-library benchmark, and a
# quick sweep of the hybrid collectives against flat MPI: on the virtual
# cluster (2 nodes x 2 threads against 4 ranks) where it can be made (root,
# network namespaces), on local processes (1 node x 2 threads against 2
# ranks) otherwise.
set -euo pipefail
bin="${1:-build}/bin"

echo "== simple-hello on the default layout (2 nodes x cores/2 threads)"
"$bin/simplerun" "$bin/simple-hello"

echo
echo "== node barrier and allreduce: simple threads against MPI ranks"
"$bin/simple-bench" node

echo
vc=0
if (( EUID == 0 )) && command -v ip >/dev/null 2>&1 && ip netns add "simple-probe-$$" 2>/dev/null; then
  ip netns delete "simple-probe-$$"
  vc=1
fi
if (( vc )); then
  echo "== hybrid collectives against flat MPI, virtual cluster: 2 nodes x 2 threads vs 4 ranks"
  "$bin/simple-bench" coll --vcluster -N 2 -t 2 --quick
  "$bin/vcluster" down >/dev/null
else
  echo "== hybrid collectives against flat MPI, this machine: 1 node x 2 threads vs 2 ranks"
  echo "   (no virtual cluster here: it needs root and network namespaces)"
  "$bin/simple-bench" coll -N 1 -t 2 --quick
fi
