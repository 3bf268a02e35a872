#!/usr/bin/env bash
# Installs what simple needs from the system's packages, when missing.
# Debian/Ubuntu: apt-get (as root). Idempotent and quick when all is there.
#   scripts/setup-deps.sh            build and test dependencies
set -euo pipefail

# Open MPI is the default MPI, MPICH the second one the library is tested
# against; hwloc pins threads; iproute2 builds the virtual cluster; FFTW
# (with its MPI transforms), OpenBLAS and ScaLAPACK serve the applications
# and are the anchors of their benchmarks; gnuplot draws the plots; clang
# and its runtime libraries (libclang-rt-dev: libFuzzer and the
# sanitizers' runtimes, which a machine with clang alone lacks) serve
# make fuzz. Slurm (slurmctld, slurmd, the client commands, munge) serves
# the tests that start a real Slurm on the virtual cluster; util-linux
# gives simplerun setpriv (the launcher's parent-death signal).
packages=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev
  mpich libmpich-dev
  hwloc libhwloc-dev
  iproute2 procps util-linux
  slurmctld slurmd slurm-client munge
  libfftw3-dev libfftw3-mpi-dev
  libopenblas-dev libscalapack-openmpi-dev
  libmetis-dev libmumps-dev
  gnuplot-nox python3
  clang libclang-rt-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
(( ${#missing[@]} == 0 )) && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-deps: missing packages: ${missing[*]}; install them with your package manager" >&2
  exit 1
fi
if (( EUID != 0 )); then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup-deps: missing packages: ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
else
  sudo=()
fi
echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-deps: done"
