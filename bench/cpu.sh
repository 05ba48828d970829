#!/bin/sh
# cpu.sh: issue 13's CPU series in one run, as ratios (a shared machine's
# absolute times are noise).  Float gravity at N: the plain loop of
# bench/cpu_anchor.c built with gcc -O3 -march=native -ffast-math (the
# anchor: one core), the same on every core, nbcc's default on the default
# device, the host C path and PoCL on every core; then each variant on one
# core (OMP_NUM_THREADS=1, POCL_MAX_PTHREAD_COUNT=1): the work per core
# that the defaults table wants; then every example, host against PoCL,
# at NE.  The series runs R times interleaved; each row is the median of
# its R figures: interactions/s by the wall clock (each the median of 5
# runs), and per CPU-second of all the process's threads (the anchor's own
# clock; for nbbench, perf's task-clock of -r 5 less that of -r 0, where
# perf works), which another job's load moves less: it counts a core's
# work, so rows on two cores show about one core's figure there (less
# where threads spin in a barrier waiting for a preempted partner).
#   usage: bench/cpu.sh            (N=8192 NE=8192 R=5 BIN=bin; EX=0: no
#                                   examples)
set -u
BIN=${BIN:-bin}
N=${N:-8192}
NE=${NE:-8192}
R=${R:-5}
CC=${ANCHOR_CC:-gcc}
G=dsl-examples/gravity.nbl
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$CC -O3 -march=native -ffast-math bench/cpu_anchor.c -o "$T/a1" -lm &&
	$CC -O3 -march=native -ffast-math -fopenmp bench/cpu_anchor.c -o "$T/a2" -lm ||
	exit 1
perf=0
perf stat -x, -e task-clock true >/dev/null 2>&1 && perf=1
cl=0
"$BIN/nbbench" $G 64 --device cpu -r 1 >/dev/null 2>&1 && cl=1
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores;" \
	"$(date -u +%Y-%m-%d); N=$N NE=$NE R=$R; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# default device: $("$BIN/nbbench" $G 64 -r 1 | cut -d, -f1)"

# task-clock milliseconds of a command (all its threads)
ms() {
	perf stat -x, -e task-clock -o "$T/perf" "$@" >"$T/out" 2>/dev/null &&
		grep task-clock "$T/perf" | cut -d, -f1
}
# one row: LABEL N command...; appends "LABEL\twall\tcpu" to $T/$rows.
# The anchor times itself; nbbench's CPU time is that of -r 5 less that
# of -r 0 (the same process, compile and warm-up included, without the 5
# timed runs).
row() {
	label=$1 n=$2
	shift 2
	"$@" >"$T/out" 2>/dev/null || { echo "failed: $label" >&2; return; } # warm: builds
	case $1 in
	*/a1 | */a2)
		"$@" >"$T/out" || return
		set -- $(cat "$T/out")
		printf '%s\t%s\t%s\n' "$label" "$1" "$2" >>"$T/$rows"
		return ;;
	esac
	if [ $perf = 1 ]; then
		m0=$(ms "$@" -r 0) && m5=$(ms "$@" -r 5) ||
			{ echo "failed: $label" >&2; return; }
	else
		"$@" -r 5 >"$T/out" 2>/dev/null || { echo "failed: $label" >&2; return; }
		m0=0 m5=0
	fi
	awk -v l="$label" -v w="$(cut -d, -f9 "$T/out")" \
	    -v m0="$m0" -v m5="$m5" -v n="$n" 'BEGIN {
		d = m5 - m0
		printf "%s\t%s\t%.4e\n", l, w, (d > 0 ? 5 * n * n / (d / 1000) : 0) }' >>"$T/$rows"
}
nb() { row "$1" "$2" "$BIN/nbbench" "$3" "$2" $4; }

# median per label, in first-seen order; ratios to the row named $1
table() {
	awk -F'\t' -v base="$1" '
	{ if (!($1 in n)) order[++k] = $1; n[$1]++; w[$1, n[$1]] = $2; c[$1, n[$1]] = $3 }
	function med(a, l,   i, j, t, m, v) {
		m = n[l]
		for (i = 1; i <= m; i++) v[i] = a[l, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	END {
		bw = med(w, base); bc = med(c, base)
		printf "%-44s %11s %6s %11s %6s\n", "", "wall /s", "ratio", "per CPU-s", "ratio"
		for (i = 1; i <= k; i++) {
			l = order[i]; mw = med(w, l); mc = med(c, l)
			printf "%-44s %11.3e %6.2f %11.3e %6.2f\n", l, mw, mw / bw, mc,
			       (bc > 0 ? mc / bc : 0)
		}
	}' "$T/$rows"
}
rows=rows

echo
echo "float gravity, N = $N (ratios to the plain loop on one core)"
: >"$T/rows"
one() { row "$1" "$N" env OMP_NUM_THREADS=1 POCL_MAX_PTHREAD_COUNT=1 "$BIN/nbbench" $G "$N" $2; }
for rep in $(seq "$R"); do
	row "plain loop, 1 core" "$N" "$T/a1" "$N" 5
	row "plain loop, OpenMP, all cores" "$N" "$T/a2" "$N" 5
	nb "nbcc default, default device" "$N" $G ""
	nb "host default" "$N" $G "--device host"
	[ $cl = 1 ] && nb "PoCL default" "$N" $G "--device cpu"
	[ $cl = 1 ] && nb "PoCL 8x2" "$N" $G "--device cpu --unroll-i=8 --unroll-j=2"
	[ $cl = 1 ] && nb "PoCL 16x1" "$N" $G "--device cpu --unroll-i=16"
	# one thread: each variant's work per core, the least disturbed
	for v in "" "--unroll-j=2" "--unroll-j=4" "--unroll-i=16" "--unroll-i=16 --unroll-j=2" "--no-approx"; do
		one "1 core: host ${v:-default}" "--device host $v"
	done
	if [ $cl = 1 ]; then
		for v in "" "--unroll-i=8" "--unroll-i=8 --unroll-j=2" "--unroll-i=4 --unroll-j=2" "--unroll-i=16" "--unroll-i=16 --unroll-j=2"; do
			one "1 core: PoCL ${v:-default}" "--device cpu $v"
		done
	fi
done
table "plain loop, 1 core"
[ $cl = 1 ] || { echo "no OpenCL CPU device: no PoCL rows"; exit 0; }
[ "${EX:-1}" = 1 ] || exit 0

echo
echo "every example, NE = $NE: the host path against PoCL (ratio: host / PoCL)"
one1() { # LABEL N KERNEL FLAGS: on one core
	row "$1" "$2" env OMP_NUM_THREADS=1 POCL_MAX_PTHREAD_COUNT=1 "$BIN/nbbench" "$3" "$2" $4
}
for k in dsl-examples/*.nbl; do
	e=$(basename "$k" .nbl)
	n=$NE
	[ "$e" = oneloop ] && n=$((NE / 8)) # dd: 100 times slower
	: >"$T/rows"
	: >"$T/rows1"
	for rep in $(seq "$R"); do
		rows=rows
		nb "$e PoCL default" "$n" "$k" "--device cpu"
		nb "$e PoCL 8x2" "$n" "$k" "--device cpu --unroll-i=8 --unroll-j=2"
		nb "$e host default" "$n" "$k" "--device host"
		rows=rows1
		one1 "$e 1 core: PoCL default" "$n" "$k" "--device cpu"
		one1 "$e 1 core: PoCL 8x2" "$n" "$k" "--device cpu --unroll-i=8 --unroll-j=2"
		one1 "$e 1 core: host default" "$n" "$k" "--device host"
	done
	rows=rows
	table "$e PoCL default" | tail -n +2
	rows=rows1
	table "$e 1 core: PoCL default" | tail -n +2
done
