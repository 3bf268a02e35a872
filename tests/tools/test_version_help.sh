#!/usr/bin/env bash
# Every command answers --version (one line naming simple's version) and
# --help (usage on stdout, exit 0), as does every simple-bench suite.
#   test_version_help.sh BINDIR
set -u
bin="$1"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
version=""
for cmd in simplerun simple-hello simple-bench vcluster simple-cc simple-sort simple-fft \
  simple-matmul simple-nqueens simple-water simple-barnes simple-cholesky simple-groebner; do
  [[ -x "$bin/$cmd" ]] || continue
  out=$("$bin/$cmd" --version 2>&1) || fail "$cmd --version exited $?: $out"
  v=$(grep -Eo '[0-9]+[.][0-9]+[.][0-9]+' <<<"$out" | head -1)
  [[ -n "$v" ]] || fail "$cmd --version names no version: $out"
  [[ -z "$version" || "$v" == "$version" ]] || fail "$cmd --version says $v, others $version"
  version=${version:-$v}
  out=$("$bin/$cmd" --help 2>/dev/null) || fail "$cmd --help exited $?"
  grep -qi "usage" <<<"$out" || fail "$cmd --help prints no usage: $out"
done
suites=$("$bin/simple-bench" --help | awk '/^suites/ {on = 1; next} on && /^  [a-z]+ / {print $1} on && /^$/ {on = 0}')
[[ -n "$suites" ]] || fail "simple-bench --help lists no suites"
for s in $suites; do
  out=$("$bin/simple-bench" "$s" --help 2>&1)
  rc=$?
  # A suite whose application is not in this build says so (exit 2).
  if (( rc == 2 )) && grep -q "is not in this build" <<<"$out"; then continue; fi
  (( rc == 0 )) || fail "simple-bench $s --help exited $rc: $out"
  grep -qi "usage\|options" <<<"$out" || fail "simple-bench $s --help prints no usage: $out"
done
if (( fails )); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "version/help: all commands and suites answer"
