#!/usr/bin/env bash
# Builds tests/consumer against an installed simple (PREFIX) with CMake and
# with pkg-config, and runs both through the installed simplerun.
#   run.sh PREFIX BUILDDIR MPICC
set -euo pipefail
prefix="$1" build="$2" mpicc="$3"
src="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$build"
cmake -S "$src" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$build" >/dev/null
"$prefix/bin/simplerun" -N 2 -t 2 "$build/consumer"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/simplerun" -N 1 -t 3 "$build/consumer_static"
# pkg-config, with the MPI compiler wrapper as the docs say.
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs simple)
# shellcheck disable=SC2086
"$mpicc" -o "$build/consumer_pc" "$src/main.c" $flags -Wl,-rpath,"$prefix/lib"
"$prefix/bin/simplerun" -N 1 -t 2 "$build/consumer_pc"
