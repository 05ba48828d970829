#!/bin/sh
# device_run16.sh: the group and split of the 4 x 4 float row below N =
# 131072 (issue 13), one call on an H200 with bin/ carried; results in
# $OUT:
#   1. float gravity at N = 4096 to 65536: 4 x 4 with groups of 64, 128
#      and 256 and splits of 2 to 16, and 2 x 4 with groups of 128 at the
#      runtime's split, 2 rounds;
#   2. the examples the budget gives 4 x 4 at N = 16384 and 65536: 2 x 4
#      in groups of 128 against 4 x 4 in groups of 64, 128 and 256 at the
#      runtime's split.
set -u
OUT=${OUT:-/tmp}
export NBRT_CACHE_DIR=/tmp/nbc16 NBRT_TUNE=0
B=bin/nbbench
G=dsl-examples/gravity.nbl
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/small.csv"
for r in 1 2; do
	for n in 4096 16384 32768 65536; do
		$B $G $n -r 9 --device gpu --unroll-i=2 --unroll-j=4 --wg=128 >>"$OUT/small.csv"
		for s in 2 4 8 16; do
			for w in 64 128 256; do
				$B $G $n -r 9 --device gpu --unroll-i=4 --unroll-j=4 --wg=$w --jsplit=$s >>"$OUT/small.csv"
			done
		done
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %s", $4, $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/small.csv" | sort -n
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/others.csv"
for n in 16384 65536; do
	for k in nearest gauss_transform gauss_logsumexp lamb_oseen sph_density; do
		f=dsl-examples/$k.nbl
		$B $f $n -r 5 --device gpu --precision=float --unroll-i=2 --unroll-j=4 --wg=128 >>"$OUT/others.csv"
		for w in 64 128 256; do
			$B $f $n -r 5 --device gpu --precision=float --unroll-i=4 --unroll-j=4 --wg=$w >>"$OUT/others.csv"
		done
	done
done
awk -F, 'NR > 1 { printf "%-16s %6d %-80s %s\n", $2, $4, $3, $9 }' "$OUT/others.csv"
date -u '+%Y-%m-%d %H:%M UTC'
