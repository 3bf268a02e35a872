#!/usr/bin/env bash
# The installed package, relocated: installs the build into a temporary
# prefix, MOVES the prefix elsewhere, then runs from the moved tree the
# installed simplerun with simple-hello, an installed application, and
# consumers built with CMake (find_package(simple), the nqueens component)
# and with pkg-config, as the README says. Nothing may point back into the
# build tree or the first prefix.
#   run.sh BUILDDIR MPICC
set -euo pipefail
build="$1" mpicc="$2"
src="$(cd "$(dirname "$0")" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"
p="$tmp/moved"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The programs find libsimple in the moved prefix ($ORIGIN/../lib).
lib=$(realpath "$(ldd "$p/bin/simple-hello" | awk '/libsimple[.]so/ {print $3}')")
[[ "$lib" == "$(realpath "$p")/lib/"* ]] || fail "installed simple-hello loads libsimple from '$lib', not $p/lib"
"$p/bin/simplerun" --version
"$p/bin/simple-hello" --version
out=$("$p/bin/simplerun" -N 2 -t 2 "$p/bin/simple-hello")
[[ $(grep -c '^node=.* nodes=2 .*threads=2 ' <<<"$out") == 4 ]] || fail "installed simple-hello: $out"
if [[ -x "$build/bin/simple-nqueens" ]]; then
  out=$("$p/bin/simplerun" -N 2 -t 1 "$p/bin/simple-nqueens" 6)
  grep -q "4 solutions" <<<"$out" || fail "installed simple-nqueens 6: $out"
  [[ -f "$p/include/simple_nqueens.h" && -f "$p/include/simple_sort.h" ]] || fail "application headers not installed"
fi

# CMake: find_package(simple) from the moved prefix.
cmake -S "$src" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$p/bin/simplerun" -N 2 -t 2 "$tmp/consumer/consumer"
"$p/bin/simplerun" -N 1 -t 3 "$tmp/consumer/consumer_static"
if [[ -x "$build/bin/simple-nqueens" ]]; then
  [[ -x "$tmp/consumer/consumer_nqueens" ]] || fail "find_package(simple COMPONENTS nqueens) found no simple::nqueens"
  "$p/bin/simplerun" -N 2 -t 2 "$tmp/consumer/consumer_nqueens"
fi

# pkg-config, with the MPI compiler wrapper, as the README's recipe: the
# program starts without LD_LIBRARY_PATH.
flags=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs simple)
# shellcheck disable=SC2086
"$mpicc" -o "$tmp/consumer_pc" "$src/main.c" $flags
env -u LD_LIBRARY_PATH "$p/bin/simplerun" -N 1 -t 2 "$tmp/consumer_pc"
echo "install: relocated prefix works"
