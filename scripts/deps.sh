#!/bin/sh
# Installs the Debian packages nbcc needs to build and test, and nothing else.
# Called by `make demo` and `make check` before they build; safe to run again.
# Without root it prints the exact apt-get line and fails, so nothing half-works.
set -eu

# libqd-dev: QD's quad-double, the tests' reference and bin/oneloop's rule;
# QD is C++, so linking it takes libstdc++ (g++ brings its -dev package).
# libhdf5-dev: bin/nbody's HDF5 snapshots (the GADGET layout).
# openmpi-bin, libopenmpi-dev: the programs across MPI ranks (docs/mpi.md):
# the Makefile builds them with MPI where pkg-config finds ompi-c, and
# make check runs them under mpirun (tests/sh/mpi.sh).
# The Python package (python/) is built by pip in a venv that sees the
# system's numpy, setuptools and wheel, and tested with its pytest: no
# network (make pycheck), and its type hints checked by mypy --strict;
# groff-base formats the manual pages' check; mpmath is oneloop_ieps.sh's
# independent reference, and gmpy2 its fast integers (the oneloop_limit
# reference took 98 CPU s with it against 137 without, the same digits).
PKGS="gcc g++ make flex bison pkg-config ocl-icd-opencl-dev opencl-c-headers \
pocl-opencl-icd libqd-dev check libpng-dev clang libclang-rt-14-dev \
python3 python3-venv python3-pip python3-setuptools python3-wheel \
python3-numpy python3-pytest python3-mypy python3-mpmath python3-gmpy2 groff-base \
libhdf5-dev openmpi-bin libopenmpi-dev"

missing=""
for p in $PKGS; do
	# dpkg-query prints "install ok installed" only for fully installed packages.
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: this is not a Debian-like system; install their equivalents by hand" >&2
	exit 1
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root:  apt-get install -y$missing" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"
