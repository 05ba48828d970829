#!/bin/sh
# bench/oneloop.sh [N...]: issue 10's rate target on this CPU: the one-loop
# sums written with QD's dd_real on one core (bench/oneloop_qd.cc, -O3 as
# the C back end's kernels are built) against bin/oneloop's generated dd
# code through the C back end on one core and on all, and through PoCL.
# Rates are dd operations/s by the paper's convention (28 N^3 per sum);
# the ratio is against the faster dd_real variant.  Default N: 128 256 512.
# Not part of make check: it takes minutes (dd_real needs ~11 s at 512).
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
B=${B:-build}
NS=${*:-128 256 512}
mkdir -p "$B"
QD="$B/oneloop_qd"
if ! [ "$QD" -nt bench/oneloop_qd.cc ]; then
	${CXX:-c++} -std=c++11 -O3 -march=native -ffp-contract=off -Wall -Wextra \
		-o "$QD" bench/oneloop_qd.cc -lqd || exit 1
fi
T=$(mktemp)
trap 'rm -f "$T"' EXIT
have_ol=0
[ -x "$BIN/oneloop" ] && have_ol=1
[ $have_ol = 1 ] || echo "note: no $BIN/oneloop: dd_real only"
have_cl=0
if [ $have_ol = 1 ] &&
	"$BIN/oneloop" --n 8 --device cpu >/dev/null 2>&1; then
	have_cl=1
fi
printf '%-36s %5s %10s %11s %7s\n' "code" N "seconds" "dd-op/s" "ratio"
row() { # what n seconds rate base
	awk -v w="$1" -v n="$2" -v s="$3" -v r="$4" -v b="$5" 'BEGIN {
		printf "%-36s %5d %10.3f %11.3e %7.2f\n", w, n, s, r, r / b }'
}
# bin/oneloop's own rate (the first number after "rate" on a line, in
# dd operations/s); the whole run's wall time when it prints none, which
# also counts building the kernel and is marked (wall)
oneloop() { # what n args...
	what=$1 n=$2
	shift 2
	t0=$(date +%s.%N)
	"$@" --n "$n" >"$T" 2>&1 || { echo "$what: failed"; cat "$T"; return; }
	t1=$(date +%s.%N)
	r=$(sed -n 's/.*\<[Rr]ate\>[^0-9]*\([0-9][0-9.]*\([eE][-+]*[0-9][0-9]*\)*\).*/\1/p' "$T" |
		head -n 1)
	s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	if [ -n "$r" ]; then
		s=$(awk -v n="$n" -v r="$r" 'BEGIN { print 28 * n * n * n / r }')
	else
		what="$what (wall)"
		r=$(awk -v n="$n" -v s="$s" 'BEGIN { print 28 * n * n * n / s }')
	fi
	row "$what" "$n" "$s" "$r" "$base"
}
for n in $NS; do
	"$QD" "$n" >"$T" || exit 1
	base=$(awk '{ r = $(NF - 1); if (r > m) m = r } END { print m }' "$T")
	while read -r v nn _ _ _ s _ r _; do
		row "dd_real $v, 1 core" "$nn" "$s" "$r" "$base"
	done <"$T"
	[ $have_ol = 1 ] || continue
	oneloop "oneloop --target c, 1 core" "$n" env OMP_NUM_THREADS=1 \
		"$BIN/oneloop" --target c
	oneloop "oneloop --target c, $(nproc) cores" "$n" "$BIN/oneloop" --target c
	[ $have_cl = 0 ] || oneloop "oneloop --device cpu (PoCL)" "$n" \
		"$BIN/oneloop" --device cpu
done
