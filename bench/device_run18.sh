#!/bin/sh
# device_run18.sh: issue 13's H200 figures with the final float row (the
# register budget, the i-element split rule, half the i-unroll below N =
# 7920), one call with bin/, .carry/mpi and .carry/old (the nbbench of
# 7bb630b) carried; results in $OUT:
#   1. every float example and bench/heldout/*.nbl at N = 4096 and 8192,
#      the defaults of both, one after the other, 2 rounds;
#   2. float gravity with the defaults beside bench/naive.cl and
#      bench/naive.cu at the targets' four N, 3 interleaved rounds;
#   3. bench/gpu_check.sh: every example against the host's C, and again
#      with NBRT_SLICES=3.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_TUNE=0
B="env NBRT_CACHE_DIR=/tmp/nbc18 bin/nbbench"
O="env NBRT_CACHE_DIR=/tmp/nbc18old .carry/old/nbbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/small.csv"
for r in 1 2; do
	for n in 4096 8192; do
		for f in dsl-examples/*.nbl bench/heldout/*.nbl; do
			case $f in *oneloop* | *hermite*) continue ;; esac
			$O $f $n -r 9 --device gpu --precision=float | sed 's/^"[^"]*"/"old"/' >>"$OUT/small.csv"
			$B $f $n -r 9 --device gpu --precision=float | sed 's/^"[^"]*"/"new"/' >>"$OUT/small.csv"
		done
	done
done
awk -F, 'NR > 1 { k = sprintf("%-20s %7d", $2, $4); v[k] = v[k] " " $1 " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/small.csv" | sort
awk -F, 'NR > 1 && $2 == "gravity" { print $1, $4, $3 }' "$OUT/small.csv" | sort -u
date -u '+%Y-%m-%d %H:%M UTC'
G=dsl-examples/gravity.nbl
NS="4096 16384 131072 524288"
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu
$B --header >"$OUT/grav.csv"
for r in 1 2 3; do
	/tmp/naive_cuda $NS | grep best >>"$OUT/naive_cuda.txt"
	for n in $NS; do
		$B bench/naive.cl $n -r 9 --device gpu >>"$OUT/grav.csv"
		$B $G $n -r 9 --device gpu >>"$OUT/grav.csv"
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %s", $4, $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/grav.csv" | sort -n
cat "$OUT/naive_cuda.txt"
date -u '+%Y-%m-%d %H:%M UTC'
timeout 150 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
echo "gpu_check rc $? ok $(grep -c '^ok' "$OUT/gpu_check.txt")"
NBRT_SLICES=3 timeout 150 sh bench/gpu_check.sh gpu >"$OUT/gpu_check3.txt" 2>&1
echo "gpu_check NBRT_SLICES=3 rc $? ok $(grep -c '^ok' "$OUT/gpu_check3.txt")"
grep -hv '^ok' "$OUT/gpu_check.txt" "$OUT/gpu_check3.txt" | head
date -u '+%Y-%m-%d %H:%M UTC'
