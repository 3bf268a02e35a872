#!/usr/bin/env bash
# make demo: the main job of the project on this machine.
#   scripts/demo.sh BUILD_DIR [--quick]
# simple-hello on the default layout, then the tour of the papers'
# experiments (scripts/report.py): every simple-bench suite against its
# anchor, on the virtual cluster where it can be made, with plots and a
# summary table in BUILD_DIR/report/index.md.
set -euo pipefail
build="${1:-build}"
shift || true

echo "== simple-hello on the default layout (2 nodes x cores/2 threads)"
"$build/bin/simplerun" "$build/bin/simple-hello"
echo
echo "== the papers' experiments, simple against its anchors"
python3 "$(dirname "$0")/report.py" "$build" "$@"
if [[ -x "$build/bin/vcluster" ]] && (( EUID == 0 )); then
  flock /tmp/simple-vcluster.lock "$build/bin/vcluster" down >/dev/null 2>&1 || true
fi
