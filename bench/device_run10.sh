#!/bin/sh
# device_run10.sh: where j-slices start to pay, and the float GPU row's
# candidates on every example now that launches are sliced (issue 13);
# one call on an H200 with bin/ and .carry/mpi carried; results in $OUT.
#   1. float gravity at N = 32768 and 65536: NBRT_SLICES = 1, 2, 4, 8, 16
#      for the row (2 x 2) and for 4 x 4 with work groups of 64;
#   2. every float example at N = 131072 and 524288: the row, 4 x 4 (work
#      groups of 64, and of 128), 4 x 2 (64) and 2 x 4, slices by the
#      row's rule, 2 interleaved rounds.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export NBRT_CACHE_DIR=/tmp/nbc NBRT_TUNE=0
G=dsl-examples/gravity.nbl
B=bin/nbbench
date -u '+%Y-%m-%d %H:%M UTC'
$B --header | sed 's/^/slices,/' >"$OUT/small.csv"
for n in 32768 65536; do
	for v in "" "--unroll-i=4 --unroll-j=4 --wg=64"; do
		for s in 1 2 4 8 16; do
			NBRT_SLICES=$s $B $G $n -r 9 --device gpu $v | sed "s/^/$s,/" >>"$OUT/small.csv"
		done
	done
done
awk -F, 'NR > 1 { printf "%8d %-4s %-80s %s\n", $5, $1, $4, $10 }' "$OUT/small.csv"
$B --header >"$OUT/examples.csv"
for r in 1 2; do
	for n in 131072 524288; do
		for f in dsl-examples/*.nbl; do
			case $f in *oneloop* | *hermite*) continue ;; esac
			[ $n = 524288 ] && [ $r = 2 ] && continue
			for v in "" "--unroll-i=4 --unroll-j=4 --wg=64" "--unroll-i=4 --unroll-j=4" \
				"--unroll-i=4 --unroll-j=2 --wg=64" "--unroll-i=2 --unroll-j=4"; do
				$B $f $n -r 5 --device gpu --precision=float $v >>"$OUT/examples.csv"
			done
		done
	done
done
awk -F, 'NR > 1 { k = sprintf("%-20s %7d %s", $2, $4, $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/examples.csv" | sort
date -u '+%Y-%m-%d %H:%M UTC'
