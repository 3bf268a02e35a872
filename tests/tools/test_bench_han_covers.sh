#!/usr/bin/env bash
# simple-bench coll's HAN job names the collectives HAN has algorithms of
# its own for (the others get an anchor pooled over both MPI jobs): its
# worker's list must be exactly the collectives for which ompi_info shows
# HAN's control variable coll_han_OP_dynamic_global_communicator_module.
# Skipped (77) where the MPI library is not Open MPI. Usage:
# test_bench_han_covers.sh BIN_DIR
set -u
bin="$1"
command -v ompi_info >/dev/null 2>&1 || { echo "no ompi_info: not Open MPI, skipped"; exit 77; }
colls="barrier bcast reduce allreduce scan exscan gather scatter allgather alltoall gatherv scatterv allgatherv alltoallv"
vars=$(ompi_info --param coll han --level 9 --parsable 2>/dev/null)
want=""
for c in $colls; do
  if grep -q "coll_han_${c}_dynamic_global_communicator_module" <<<"$vars"; then want="$want $c"; fi
done
out=$(OMPI_MCA_coll_han_priority=100 "$bin/simplerun" -N 2 -t 1 "$bin/simple-bench" --worker coll-mpi \
  --quick --only barrier --han 2>&1)
got=$(sed -n 's/^I han_covers//p' <<<"$out")
if ! grep -q '^I han_covers' <<<"$out"; then
  echo "FAIL: the HAN worker printed no 'I han_covers' line:"
  echo "$out"
  exit 1
fi
if [ "$(echo $got)" != "$(echo $want)" ]; then
  echo "FAIL: the worker says HAN covers '$(echo $got)', ompi_info shows '$(echo $want)'"
  exit 1
fi
echo "bench_han_covers: ok (HAN covers:$want)"
