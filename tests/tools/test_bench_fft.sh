#!/usr/bin/env bash
# simple-bench fft: the simple side's job times FFTW-MPI beside simple's
# transform (columns same_ms, same/simple), and FFTW-MPI on the node's
# threads (same_thr/simple) where nodes have several and FFTW has threads.
# Its first transform is checked in the job against direct sums and
# Parseval (a wrong result aborts the worker, failing the suite); here
# every row must carry both values, on 2 x 2 (one FFTW thread or two) and
# on 3 x 1 (n not a multiple of the ranks, one FFTW thread), and the
# threaded pair exactly where the threaded anchor ran (thr_ms). Skipped
# (77) where the build has no FFTW-MPI.
#   test_bench_fft.sh BINDIR
set -u
bin="$1"
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
fails=0
for layout in "-N 2 -t 2" "-N 3 -t 1"; do
  # shellcheck disable=SC2086 # the layout's words
  out=$("$bin/simple-bench" fft $layout --quick --rounds 1 --max-n 256 --csv "$csv" 2>&1)
  rc=$?
  if grep -q "FFTW-MPI is not in this build" <<< "$out"; then
    echo "SKIP: no FFTW-MPI in this build"; exit 77
  fi
  if (( rc != 0 )); then
    echo "FAIL: simple-bench fft $layout exited $rc:"; echo "$out"; fails=$((fails + 1))
    continue
  fi
  head -1 "$csv" | grep -q ',fftw_same_us,same_ratio,fftw_same_threads_us,same_threads_ratio$' ||
    { echo "FAIL: $layout: CSV header: $(head -1 "$csv")"; fails=$((fails + 1)); }
  for mode in natural transposed; do
    # Fields 14 and 15: FFTW-MPI's median in the job (us) and the median
    # ratio of its samples to simple's, both positive numbers; 16 and 17
    # the same on the node's threads, present where field 8 (the threaded
    # anchor) is, else empty.
    row=$(grep "^fft,$mode,256," "$csv")
    if ! awk -F, 'function pos(x) { return x ~ /^[0-9.]+$/ && x > 0 }
                  { thr = $8 != ""
                    ok = NF == 17 && pos($14) && pos($15) &&
                         (thr ? pos($16) && pos($17) : $16 == "" && $17 == "")
                    exit !ok }' <<< "$row"; then
      echo "FAIL: $layout: $mode: same-job values: '$row'"; echo "$out"; fails=$((fails + 1))
    fi
    grep -Eq "^$mode +256 .* [0-9.]+ +[0-9.]+ +([0-9.]+|-)$" <<< "$out" ||
      { echo "FAIL: $layout: $mode: no same_ms and same/simple in the table:"; echo "$out"; fails=$((fails + 1)); }
  done
done
(( fails == 0 )) && echo "bench fft: FFTW-MPI in the simple job: all checks passed"
exit $(( fails != 0 ))
