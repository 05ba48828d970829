#!/bin/sh
# bench/peers/pikg.sh PIKG OUT [ISA]: builds OUT/pikg_gravity, PIKG's
# float gravity kernel (pikg_gravity.pikg, generated here by the PIKG
# snapshot in the directory PIKG, e.g. a clone of
# https://github.com/FDPS/PIKG) with the driver pikg_main.c.  PIKG is
# Ruby (Debian: apt-get install ruby); its code is generated into OUT at
# benchmark time and never committed.  ISA is PIKG's conversion type,
# AVX-512 or AVX2; by default AVX-512 where /proc/cpuinfo has it, else
# AVX2 (OUT/isa says which; so does the last line but one).  The kernel is
# built with $CXX -O3 -march=native -ffast-math, PIKG's own flags for it
# (-mavx512f -mavx512dq or -mavx2 -mfma, -ffast-math) and the host's tuning.
set -u
die() {
	echo "bench/peers/pikg.sh: $*" >&2
	exit 1
}
[ $# = 2 ] || [ $# = 3 ] ||
	die "usage: sh bench/peers/pikg.sh PIKG_DIR OUT_DIR [AVX-512|AVX2]"
here=$(cd "$(dirname "$0")" && pwd)
pikg=$(cd "$1" 2>/dev/null && pwd) || die "no directory $1"
out=$2
# has FLAG...: every one of the CPU flags is in /proc/cpuinfo
has() {
	for f; do
		grep -q "^flags.*\b$f\b" /proc/cpuinfo 2>/dev/null || return 1
	done
}
isa=${3:-}
if [ -z "$isa" ]; then
	if has avx512f avx512dq; then isa=AVX-512
	elif has avx2 fma; then isa=AVX2
	else die "this CPU has neither AVX-512 nor AVX2 with FMA (/proc/cpuinfo)"
	fi
fi
case $isa in
AVX-512) hpp=pikg_avx512.hpp flags="avx512f avx512dq" ;;
AVX2) hpp=pikg_avx2.hpp flags="avx2 fma" ;;
*) die "no ISA '$isa' (AVX-512 or AVX2)" ;;
esac
[ -f "$pikg/bin/pikg" ] && [ -f "$pikg/inc/$hpp" ] ||
	die "$pikg is not a PIKG snapshot (no bin/pikg, inc/$hpp)"
command -v ruby >/dev/null 2>&1 ||
	die "PIKG needs Ruby, which is not installed (Debian: apt-get install ruby)"
# shellcheck disable=SC2086 # the flags are words
has $flags || die "this CPU has no $isa ($flags, /proc/cpuinfo): PIKG's $isa kernel cannot run"
mkdir -p "$out" || exit 1
cp "$here/pikg_gravity.pikg" "$here/pikg_classes.h" "$out/" || exit 1
cd "$out" || exit 1
ruby "$pikg/bin/pikg" --conversion-type "$isa" --class-file pikg_classes.h \
	--c-interface kernel.h --kernel-name pikg_gravity \
	-i pikg_gravity.pikg -o kernel.cpp >pikg.log 2>&1 ||
	die "PIKG failed: $(tail -n 3 pikg.log)"
${CXX:-g++} -O3 -march=native -ffast-math -I"$pikg/inc" -c kernel.cpp \
	-o kernel.o || die "cannot compile PIKG's kernel.cpp"
${CC:-gcc} -std=c11 -O2 -Wall -Wextra -I. -I"$pikg/inc" \
	"$here/pikg_main.c" kernel.o -o pikg_gravity -lstdc++ -lm ||
	die "cannot build the driver"
echo "$isa" >isa || exit 1
echo "PIKG's $isa kernel"
echo "$out/pikg_gravity"
