#!/bin/sh
# device_run20.sh: the narrowing left to kernels at the row's widest
# i-unroll (issue 13): the six float kernels the register budget makes 2
# x 4, and gravity, at N = 4096 and 8192, nbcc's defaults against
# 7bb630b's (.carry/old/nbbench), 3 rounds; one call on an H200 with
# bin/ and .carry/old carried; results in $OUT/small.csv.
set -u
OUT=${OUT:-/tmp}
export NBRT_TUNE=0
B="env NBRT_CACHE_DIR=/tmp/nbc20 bin/nbbench"
O="env NBRT_CACHE_DIR=/tmp/nbc20old .carry/old/nbbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/small.csv"
for r in 1 2 3; do
	for n in 4096 8192; do
		for k in biot_savart coulomb_cutoff lennard_jones lennard_jones_self heldout/stokeslet heldout/yukawa gravity; do
			f=dsl-examples/$k.nbl
			case $k in heldout/*) f=bench/$k.nbl ;; esac
			$O $f $n -r 9 --device gpu --precision=float | sed 's/^"[^"]*"/"old"/' >>"$OUT/small.csv"
			$B $f $n -r 9 --device gpu --precision=float | sed 's/^"[^"]*"/"new"/' >>"$OUT/small.csv"
		done
	done
done
awk -F, 'NR > 1 { k = sprintf("%-20s %7d", $2, $4); v[k] = v[k] " " $1 " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/small.csv" | sort
awk -F, 'NR > 1 { print $1, $2, $4, $3 }' "$OUT/small.csv" | sort -u
date -u '+%Y-%m-%d %H:%M UTC'
