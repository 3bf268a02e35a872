#!/usr/bin/env bash
# Packs a build with everything it needs at run time into one archive, for
# a machine that has none of the packages: a compute node without the MPI
# module, a lent machine without a package registry. The archive holds
#
#   simple-run/bin    the build's commands (simplerun, simple-bench, vcluster...)
#   simple-run/lib    libsimple and every shared library the commands, Open
#                     MPI and its plugins load, except the C library's own
#   simple-run/mpi    Open MPI's launcher, daemon, plugins and help texts, and
#                     PMIx's, relocated through OPAL_PREFIX and PMIX_PREFIX
#   simple-run/tools  ip, tc, taskset, nsenter, unshare, setpriv and flock
#                     (the virtual cluster's)
#   simple-run/env.sh sourced before use: PATH, LD_LIBRARY_PATH, the
#                     prefixes, the launcher (SIMPLE_MPIEXEC) and this
#                     machine's Open MPI defaults as OMPI_MCA_ variables
#
#   scripts/pack-runtime.sh [BUILD] [-o FILE]     (default BUILD/simple-run.tar.gz)
#
# Then, on the other machine (same architecture, a C library at least as
# new as this one's): tar xzf FILE; . simple-run/env.sh; simplerun ...;
# scripts/scaling.sh simple-run --no-build runs the scaling suites from it.
# Open MPI builds only: an MPICH build needs no relocation beyond PATH.
# About 90 MiB unpacked, 35 MiB packed on Debian 12 (OpenBLAS is a third).
set -euo pipefail
build=build out=""
if [[ $# -gt 0 && $1 != -* ]]; then build=$1; shift; fi
while [[ $# -gt 0 ]]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "pack-runtime.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[[ -x $build/bin/simplerun && -x $build/bin/simple-bench ]] \
  || { echo "pack-runtime.sh: $build is not a built tree (no bin/simplerun, bin/simple-bench)" >&2; exit 2; }
grep -q '^FLAVOR="openmpi"' "$build/bin/simplerun" \
  || { echo "pack-runtime.sh: $build is not an Open MPI build" >&2; exit 2; }
out=${out:-$build/simple-run.tar.gz}
command -v ompi_info >/dev/null || { echo "pack-runtime.sh: ompi_info not found" >&2; exit 2; }

ompi_path() { ompi_info --path "$1" --parsable | sed -n "s/^path:$1://p"; }
prefix=$(ompi_path prefix) libdir=$(ompi_path libdir) bindir=$(ompi_path bindir)
pkgdatadir=$(ompi_path pkgdatadir) sysconfdir=$(ompi_path sysconfdir)
[[ -n $prefix && -d $libdir ]] || { echo "pack-runtime.sh: ompi_info gave no install paths" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
R=$stage/simple-run
mkdir -p "$R"/bin "$R"/lib "$R"/tools "$R"/mpi
cp -a "$build"/bin/. "$R"/bin/
cp -a "$build"/lib/*.so* "$R"/lib/

# Open MPI under mpi/, at the same places relative to its prefix, so that
# OPAL_PREFIX=mpi relocates every path it derives from the prefix.
under() { echo "$R/mpi/${1#"$prefix"/}"; }
mkdir -p "$(under "$libdir")" "$(under "$bindir")" "$(dirname "$(under "$pkgdatadir")")"
cp -a "$libdir"/. "$(under "$libdir")"/
rm -rf "$(under "$libdir")"/include
cp -a "$pkgdatadir" "$(under "$pkgdatadir")"
for b in orterun orted ompi_info; do cp -L "$bindir/$b" "$(under "$bindir")/"; done
ln -sf orterun "$(under "$bindir")/mpirun.openmpi"
ln -sf orterun "$(under "$bindir")/mpirun"
ln -sf orterun "$(under "$bindir")/mpiexec"

# PMIx (external to Open MPI on Debian) under mpi/pmix, found through the
# plugin that loads it.
pmix_lib=$(find "$libdir" -name 'mca_pmix_*.so' -exec ldd {} + 2>/dev/null | awk '$1 ~ /^libpmix[.]so/ {p = $3} END {print p}')
pmix_prefix=""
if [[ -n $pmix_lib ]]; then
  pmix_prefix=$(dirname "$(dirname "$(readlink -f "$pmix_lib")")")
  cp -a "$pmix_prefix" "$R"/mpi/pmix
  rm -rf "$R"/mpi/pmix/include
fi
# UCX loads its transports from ucx/ beside libucs.
ucs=$(find "$libdir" -name 'mca_*ucx*.so' -exec ldd {} + 2>/dev/null | awk '$1 ~ /^libucs[.]so/ {p = $3} END {print p}')
if [[ -n $ucs && -d $(dirname "$ucs")/ucx ]]; then
  mkdir -p "$R"/lib/ucx
  cp -L "$(dirname "$ucs")"/ucx/*.so.[0-9] "$R"/lib/ucx/ 2>/dev/null || true
fi
for t in ip tc taskset nsenter unshare setpriv flock; do
  p=$(command -v "$t" || true)
  if [[ -n $p ]]; then cp -L "$p" "$R"/tools/; fi
done

# Every shared library any of these loads, but the C library's own (the
# other machine's must serve: it is tied to its kernel and loader).
glibc='^(libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|ld-linux[^.]*|linux-vdso)[.]so'
find "$R"/bin "$R"/lib "$R"/tools "$R"/mpi -type f \( -perm -u+x -o -name '*.so*' \) |
  while read -r f; do ldd "$f" 2>/dev/null | awk '$3 ~ /^\// {print $3}' || true; done | sort -u |
  while read -r so; do
    n=$(basename "$so")
    if [[ ! $n =~ $glibc && ! -e $R/lib/$n ]]; then cp -L "$so" "$R/lib/$n"; fi
  done

# Launcher, prefixes and this machine's Open MPI defaults (its system
# parameter file is not relocated, so its settings travel as variables).
{
  echo '# Sourced: . simple-run/env.sh'
  echo 'R=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)'
  echo "export OPAL_PREFIX=\$R/mpi"
  echo "export PATH=\$R/bin:\$R/mpi/${bindir#"$prefix"/}:\$R/tools:\$PATH"
  echo 'export LD_LIBRARY_PATH=$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}'
  echo "export SIMPLE_MPIEXEC=\$R/mpi/${bindir#"$prefix"/}/mpirun.openmpi"
  if [[ -n $pmix_prefix ]]; then
    echo 'export PMIX_PREFIX=$R/mpi/pmix'
    plugins=$(find "$R"/mpi/pmix -type d -name pmix -path '*/lib/*' | head -1)
    if [[ -n $plugins ]]; then echo "export PMIX_MCA_mca_base_component_path=\$R/${plugins#"$R"/}"; fi
  fi
  conf=$sysconfdir/openmpi-mca-params.conf
  if [[ -r $conf ]]; then
    sed -n 's/^[[:space:]]*\([a-z_0-9]*\)[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/export OMPI_MCA_\1='"'"'\2'"'"'/p' "$conf"
    echo
  fi
} >"$R"/env.sh

mkdir -p "$(dirname "$out")"
tar czf "$out" -C "$stage" simple-run
echo "pack-runtime.sh: $out ($(du -h "$out" | cut -f1)); unpack, then . simple-run/env.sh"
