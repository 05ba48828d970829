#!/bin/sh
# device_run11.sh: j-slices by the rows' rule (runtime/launch.c) on an
# H200, issue 13; one call with bin/ and .carry/mpi carried; results in
# $OUT:
#   1. float gravity with the row (2 x 2) and with 2 x 4 at the five N of
#      the targets and tables, beside bench/naive.cl, 2 rounds;
#   2. the tuner (budget 20 s) at N = 131072 and 524288, then its cached
#      pick;
#   3. double and dd gravity with NBRT_SLICES=1 against the rule.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export NBRT_CACHE_DIR=/tmp/nbc
G=dsl-examples/gravity.nbl
B=bin/nbbench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/rows.csv"
for r in 1 2; do
	for n in 4096 16384 32768 131072 524288; do
		NBRT_TUNE=0 $B bench/naive.cl $n -r 9 --device gpu >>"$OUT/rows.csv"
		NBRT_TUNE=0 $B $G $n -r 9 --device gpu >>"$OUT/rows.csv"
		NBRT_TUNE=0 $B $G $n -r 9 --device gpu --unroll-i=2 --unroll-j=4 >>"$OUT/rows.csv"
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %s", $4, $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/rows.csv" | sort -n
$B --header >"$OUT/tune.csv"
for n in 131072 524288; do
	timeout 120 $B $G $n -r 9 --device gpu --tune --tune-budget 20 >>"$OUT/tune.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/tune.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/tune.csv"
done
awk -F, '{ printf "%-8s %-70s %s\n", $4, $3, $9 }' "$OUT/tune.csv"
$B --header | sed 's/^/slices,/' >"$OUT/prec.csv"
for p in "double 131072" "double 524288" "dd 32768" "dd 131072"; do
	set -- $p
	for s in 1 rule; do
		if [ $s = 1 ]; then
			NBRT_TUNE=0 NBRT_SLICES=1 $B $G $2 -r 5 --device gpu --precision=$1
		else
			NBRT_TUNE=0 $B $G $2 -r 5 --device gpu --precision=$1
		fi | sed "s/^/$s,/" >>"$OUT/prec.csv"
	done
done
awk -F, 'NR > 1 { printf "%-5s %8d %-70s %s\n", $1, $5, $4, $10 }' "$OUT/prec.csv"
date -u '+%Y-%m-%d %H:%M UTC'
