#!/bin/sh
# bench/peers/pikg.sh PIKG OUT: builds OUT/pikg_gravity, PIKG's AVX-512
# float gravity kernel (pikg_gravity.pikg, generated here by the PIKG
# snapshot in the directory PIKG, e.g. a clone of
# https://github.com/FDPS/PIKG) with the driver pikg_main.c.  PIKG is
# Ruby (Debian: apt-get install ruby); its code is generated into OUT at
# benchmark time and never committed.  The kernel is built with
# $CXX -O3 -march=native -ffast-math, PIKG's own flags for it
# (-mavx512f -mavx512dq -ffast-math) and the host's tuning.
set -u
die() {
	echo "bench/peers/pikg.sh: $*" >&2
	exit 1
}
[ $# = 2 ] || die "usage: sh bench/peers/pikg.sh PIKG_DIR OUT_DIR"
here=$(cd "$(dirname "$0")" && pwd)
pikg=$(cd "$1" 2>/dev/null && pwd) || die "no directory $1"
out=$2
[ -f "$pikg/bin/pikg" ] && [ -f "$pikg/inc/pikg_avx512.hpp" ] ||
	die "$pikg is not a PIKG snapshot (no bin/pikg, inc/pikg_avx512.hpp)"
command -v ruby >/dev/null 2>&1 ||
	die "PIKG needs Ruby, which is not installed (Debian: apt-get install ruby)"
grep -q '\bavx512f\b' /proc/cpuinfo 2>/dev/null ||
	die "this CPU has no AVX-512 (/proc/cpuinfo): PIKG's AVX-512 kernel cannot run"
mkdir -p "$out" || exit 1
cp "$here/pikg_gravity.pikg" "$here/pikg_classes.h" "$out/" || exit 1
cd "$out" || exit 1
ruby "$pikg/bin/pikg" --conversion-type AVX-512 --class-file pikg_classes.h \
	--c-interface kernel.h --kernel-name pikg_gravity \
	-i pikg_gravity.pikg -o kernel.cpp >pikg.log 2>&1 ||
	die "PIKG failed: $(tail -n 3 pikg.log)"
${CXX:-g++} -O3 -march=native -ffast-math -I"$pikg/inc" -c kernel.cpp \
	-o kernel.o || die "cannot compile PIKG's kernel.cpp"
${CC:-gcc} -std=c11 -O2 -Wall -Wextra -I. -I"$pikg/inc" \
	"$here/pikg_main.c" kernel.o -o pikg_gravity -lstdc++ -lm ||
	die "cannot build the driver"
echo "$out/pikg_gravity"
