# Shared by the applications' command tests (apps/*/tests/test_*_cmd.sh),
# sourced after setting bin (the build's bin directory) and cmd (the
# command's name in it):
#   cmd_bad WANT LAYOUT ARGS...   the command must fail, its stderr holding WANT
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
