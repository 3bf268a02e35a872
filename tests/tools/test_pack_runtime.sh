#!/usr/bin/env bash
# scripts/pack-runtime.sh's archive runs a job on its own: unpacked, with
# this machine's Open MPI, PMIx, UCX, FFTW and the build's own lib/ hidden
# (a private mount namespace lays empty folders and /dev/null over them),
# simplerun -N 2 -t 2 simple-hello must start every processor, and the
# processes must have loaded MPI from the archive.
#   test_pack_runtime.sh BINDIR SRCDIR
set -u
bin=$1 src=$2
(( EUID == 0 )) && command -v unshare >/dev/null || { echo "skipped: needs root and unshare"; exit 77; }
unshare -m --propagation private mount -t tmpfs none /mnt 2>/dev/null ||
  { echo "skipped: no private mount namespace here"; exit 77; }
grep -q '^FLAVOR="openmpi"' "$bin/simplerun" && command -v ompi_info >/dev/null ||
  { echo "skipped: not an Open MPI build"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$src"/scripts/pack-runtime.sh "$bin/.." -o "$tmp/p.tar.gz" || { echo "FAIL: pack-runtime.sh exited $?"; exit 1; }
tar xzf "$tmp/p.tar.gz" -C "$tmp" || { echo "FAIL: the archive does not unpack"; exit 1; }
libdir=$(ompi_info --path libdir --parsable | sed -n 's/^path:libdir://p')
bindir=$(ompi_info --path bindir --parsable | sed -n 's/^path:bindir://p')
hide=("$libdir" "$(cd "$bin/../lib" && pwd)")
for d in "$(ompi_info --path pkgdatadir --parsable | sed -n 's/^path:pkgdatadir://p')" \
  /usr/lib/x86_64-linux-gnu/pmix2 /usr/lib/x86_64-linux-gnu/ucx /usr/lib/x86_64-linux-gnu/openblas-pthread; do
  [[ -d $d ]] && hide+=("$d")
done
# Every copy of these libraries on this machine, so that a library the
# archive lacks cannot be found elsewhere.
files=()
shopt -s nullglob
for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
  for f in "$d"/lib{mpi,open-,pmix,mca_common,ucp,ucs,uct,ucm,fftw3,scalapack,hwloc}*.so*; do
    [[ -f $f ]] && files+=("$f")
  done
done
shopt -u nullglob
files+=("$bindir/orterun" "$bindir/orted")
# In the namespace: the hidden files must read empty, then the job runs
# from the archive alone.
out=$(unshare -m --propagation private bash -c '
  tmp=$1 n=$2; shift 2
  dirs=("${@:1:n}"); shift "$n"
  # Files first: some are links into the folders hidden next.
  for f in "$@"; do mount --bind /dev/null "$f" && [[ ! -s $f ]] || exit 3; done
  for d in "${dirs[@]}"; do mount -t tmpfs none "$d" || exit 3; done
  . "$tmp/simple-run/env.sh"
  exec simplerun -N 2 -t 2 simple-hello
' _ "$tmp" "${#hide[@]}" "${hide[@]}" "${files[@]}" 2>&1)
rc=$?
(( rc != 3 )) || { echo "FAIL: could not hide this machine's libraries: $out"; exit 1; }
(( rc == 0 )) || { echo "FAIL: the job from the archive exited $rc: $out"; exit 1; }
fails=0
for node in 0 1; do
  for thread in 0 1; do
    c=$(grep -c "^node=$node nodes=2 thread=$thread threads=2 " <<<"$out")
    (( c == 1 )) || { echo "FAIL: node $node thread $thread printed $c times"; fails=1; }
  done
done
(( ${#files[@]} > 2 )) || { echo "FAIL: found none of the MPI libraries to hide"; fails=1; }
(( fails == 0 )) || { echo "$out"; exit 1; }
echo "pack-runtime: a 2 x 2 job ran from the archive with ${#hide[@]} folders and ${#files[@]} files of this machine hidden"
