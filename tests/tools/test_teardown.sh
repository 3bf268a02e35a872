#!/usr/bin/env bash
# Teardown without leftovers: after every way a job can end, no process of
# the job is left and no shared-memory file of it (Open MPI's
# vader_segment.* files, which simplerun keeps in /dev/shm/simplerun.PID).
#   test_teardown.sh BINDIR JOBPROGRAM [CASE...]
# JOBPROGRAM is tests/tools/teardown_job.c. Cases (default: all): ok abort
# crash kill-rank kill-launcher kill-simplerun group-int group-term timeout.
# Nothing here waits for a time: each wait polls for an event (a line, a
# process gone) a bounded number of times.
set -u
bin="$1" job="$2"
shift 2
cases=("$@")
(( ${#cases[@]} )) || cases=(ok abort crash kill-rank kill-launcher kill-simplerun group-int group-term timeout)
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Processes whose environment holds SIMPLERUN_JOB of simplerun $1.
job_pids() {
  grep -laz "^SIMPLERUN_JOB=$1\." /proc/[0-9]*/environ 2>/dev/null |
    sed 's|/proc/\([0-9]*\)/environ|\1|' | tr '\n' ' '
}
# Polls until command "$@" succeeds, at most $1 tenths of a second.
poll() {
  local n=$1
  shift
  while ! "$@"; do
    (( n-- > 0 )) || return 1
    sleep 0.1
  done
}
ready() { grep -q '^ready' "$tmp/out"; }
segments() { compgen -G "/dev/shm/simplerun.$1/vader_segment.*" >/dev/null; }
gone() { ! kill -0 "$1" 2>/dev/null; }
clean() { [[ -z "$(job_pids "$1")" && ! -e /dev/shm/simplerun.$1 ]]; }
# The launcher: the child of simplerun $1 that is not its watcher (a bash).
launcher_of() {
  local p
  for p in $(pgrep -P "$1"); do
    [[ "$(cat /proc/"$p"/comm 2>/dev/null)" != bash ]] && { echo "$p"; return; }
  done
}
# A rank: a process of the job running the job program.
rank_of() {
  local p
  for p in $(job_pids "$1"); do
    [[ "$(cat /proc/"$p"/comm 2>/dev/null)" == teardown_job ]] && { echo "$p"; return; }
  done
}

# Open MPI's segments live in the job's directory; MPICH's are unlinked by
# MPICH itself once mapped, so only the processes are checked there.
openmpi=0
"$bin/simplerun" --version | grep -q "openmpi launcher" && openmpi=1

for c in "${cases[@]}"; do
  : >"$tmp/out"
  mode=wait
  case "$c" in ok | abort | crash) mode=$c ;; esac
  # Its own session and process group, so that a group signal reaches
  # exactly this job, as Ctrl-C reaches a terminal's foreground job. Like
  # that job, it starts with SIGINT and SIGQUIT at their defaults: bash
  # starts a background command with both ignored, and a shell script
  # (simplerun) cannot trap a signal that was ignored when it started.
  fg=(setsid env --default-signal=INT,QUIT)
  if [[ "$c" == timeout ]]; then
    "${fg[@]}" timeout 3 "$bin/simplerun" -N 2 -t 2 "$job" "$mode" >"$tmp/out" 2>"$tmp/err" &
  else
    "${fg[@]}" "$bin/simplerun" -N 2 -t 2 "$job" "$mode" >"$tmp/out" 2>"$tmp/err" &
  fi
  pid=$!
  sr=$pid
  if [[ "$c" == timeout ]]; then
    poll 300 bash -c "pgrep -P $pid >/dev/null" || fail "$c: timeout started no simplerun"
    sr=$(pgrep -P "$pid" | head -1)
  fi
  if [[ "$c" != timeout ]]; then
    poll 600 ready || fail "$c: the job never printed ready: $(cat "$tmp/err")"
    # (a job that ends on its own may be gone already)
    if [[ "$mode" == wait && -z "$(job_pids "$sr")" ]]; then
      fail "$c: no process of the job carries SIMPLERUN_JOB"
    fi
    if [[ "$mode" == wait ]] && (( openmpi )); then
      poll 100 segments "$sr" || fail "$c: no vader segment in /dev/shm/simplerun.$sr"
    fi
  fi
  t0=$EPOCHREALTIME
  case "$c" in
    kill-rank) kill -KILL "$(rank_of "$sr")" ;;
    kill-launcher) kill -KILL "$(launcher_of "$sr")" ;;
    kill-simplerun) kill -KILL "$sr" ;;
    group-int) kill -INT -- "-$pid" ;;
    group-term) kill -TERM -- "-$pid" ;;
  esac
  rc=0
  { wait "$pid"; } 2>/dev/null || rc=$?
  if [[ "$c" == ok ]]; then
    (( rc == 0 )) || fail "$c: exit $rc: $(cat "$tmp/err")"
  else
    (( rc != 0 )) || fail "$c: the job exited 0"
  fi
  if ! poll 300 clean "$sr"; then
    fail "$c: left behind: processes [$(job_pids "$sr")] $(ls -d /dev/shm/simplerun."$sr" 2>/dev/null)"
    kill -KILL $(job_pids "$sr") 2>/dev/null
    rm -rf "/dev/shm/simplerun.$sr"
  fi
  # Reported, never asserted: from the ending's cause (or, for the
  # job's own endings, its "ready") to nothing left.
  echo "$c: exit $rc, nothing left after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}') s"
done

if (( fails )); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "teardown: all endings clean"
