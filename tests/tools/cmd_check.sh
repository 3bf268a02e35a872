# Shared by the applications' command tests (apps/*/tests/test_*_cmd.sh),
# sourced after setting bin (the build's bin directory) and cmd (the
# command's name in it):
#   cmd_bad WANT LAYOUT ARGS...   the command must fail, its stderr holding WANT
#   cmd_bad_other ARGS...         an argument error in a process other than the
#                                 job's first (as a launcher starts it): no
#                                 output and status 0, the first reporting it
#   cmd_json LAYOUT ARGS...       the command with --json must succeed and print
#                                 one JSON object that $checker (Python, given
#                                 the output file and ARGS) accepts
# LAYOUT is simplerun's "-N K -t T", or "direct": the command alone, for
# argument errors found before the job starts. Failures set fail=1; end a
# test with cmd_done NAME.
run="$bin/simplerun"
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

cmd_start() { # layout args...: runs the command, output in $out and $err
  layout="$1"
  shift
  if [ "$layout" = direct ]; then
    "$bin/$cmd" "$@" >"$out" 2>"$err"
  else
    "$run" $layout "$bin/$cmd" "$@" >"$out" 2>"$err"
  fi
}

cmd_bad() { # want layout args...
  want="$1"
  layout="$2"
  shift 2
  if cmd_start "$layout" "$@"; then
    echo "FAIL: $cmd ($layout) $* succeeded"
    fail=1
  elif ! grep -q -- "$want" "$err"; then
    echo "FAIL: $cmd ($layout) $*: no '$want' in:"
    cat "$err"
    fail=1
  fi
}

cmd_bad_other() { # args...
  if ! OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "$bin/$cmd" "$@" >"$out" 2>"$err"; then
    echo "FAIL: $cmd $* as process 1 of 2 exited non-zero (the first process gives the status)"
    fail=1
  elif [ -s "$out" ] || [ -s "$err" ]; then
    echo "FAIL: $cmd $* as process 1 of 2 printed (the first process reports):"
    cat "$out" "$err"
    fail=1
  fi
}

cmd_json() { # layout args...
  layout="$1"
  shift
  if ! cmd_start "$layout" "$@" --json; then
    echo "FAIL: $cmd ($layout) $* --json exited non-zero"
    cat "$out" "$err"
    fail=1
    return
  fi
  if ! printf '%s\n' "$checker" | python3 - "$out" "$@"; then
    echo "FAIL: $cmd ($layout) $* --json: the output does not hold:"
    cat "$out"
    fail=1
  fi
}

cmd_done() { # name
  [ $fail -eq 0 ] && echo "$1: all passed"
  exit $fail
}
