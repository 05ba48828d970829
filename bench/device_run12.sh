#!/bin/sh
# device_run12.sh: the float GPU row's least j-split and unrolling once
# launches are sliced (issue 13); one call on an H200 with bin/ and
# .carry/mpi carried; results in $OUT:
#   1. float gravity, 2 x 2 and 2 x 4 with a split of 1, 2 and 4, at N =
#      65536, 131072, 524288, 2 rounds;
#   2. every float example at N = 131072 and 524288 with 2 x 2 and 2 x 4,
#      split 2 and 4.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export NBRT_CACHE_DIR=/tmp/nbc NBRT_TUNE=0
G=dsl-examples/gravity.nbl
B=bin/nbbench
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/split.csv"
for r in 1 2; do
	for n in 65536 131072 524288; do
		for u in "--unroll-i=2 --unroll-j=2" "--unroll-i=2 --unroll-j=4"; do
			for t in 1 2 4; do
				$B $G $n -r 7 --device gpu $u --jsplit=$t >>"$OUT/split.csv"
			done
		done
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %s", $4, $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/split.csv" | sort -n
$B --header >"$OUT/examples.csv"
for n in 131072 524288; do
	for f in dsl-examples/*.nbl; do
		case $f in *oneloop* | *hermite*) continue ;; esac
		for u in "--unroll-i=2 --unroll-j=2" "--unroll-i=2 --unroll-j=4"; do
			for t in 2 4; do
				$B $f $n -r 5 --device gpu --precision=float $u --jsplit=$t >>"$OUT/examples.csv"
			done
		done
	done
done
awk -F, 'NR > 1 { printf "%-20s %7d %-70s %s\n", $2, $4, $3, $9 }' "$OUT/examples.csv"
date -u '+%Y-%m-%d %H:%M UTC'
