#!/bin/sh
# device_run13.sh: issue 13's H200 figures with the released defaults
# (2 x 4, j-slices by the row), one call with bin/ and .carry/mpi carried;
# results in $OUT:
#   1. float gravity with nbcc's defaults beside bench/naive.cl and
#      bench/naive.cu, 3 interleaved rounds, at the targets' four N;
#   2. the tuner (budget 20 s) at N = 131072 and 524288, fresh cache, then
#      its cached pick twice;
#   3. double and dd gravity with the defaults;
#   4. bench/gpu_check.sh: every example against the host's C, with the
#      rule's slices and with NBRT_SLICES=3.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=/tmp/nbc13
G=dsl-examples/gravity.nbl
B=bin/nbbench
NS="4096 16384 131072 524288"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu
$B --header >"$OUT/grav.csv"
for r in 1 2 3; do
	/tmp/naive_cuda $NS | grep best >>"$OUT/naive_cuda.txt"
	for n in $NS; do
		NBRT_TUNE=0 $B bench/naive.cl $n -r 9 --device gpu >>"$OUT/grav.csv"
		NBRT_TUNE=0 $B $G $n -r 9 --device gpu >>"$OUT/grav.csv"
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %s", $4, $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/grav.csv" | sort -n
cat "$OUT/naive_cuda.txt"
$B --header >"$OUT/tune.csv"
for n in 131072 524288; do
	timeout 120 $B $G $n -r 9 --device gpu --tune --tune-budget 20 >>"$OUT/tune.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/tune.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/tune.csv"
done
awk -F, '{ printf "%-8s %-75s %s\n", $4, $3, $9 }' "$OUT/tune.csv"
$B --header >"$OUT/prec.csv"
for p in "double 16384" "double 131072" "double 524288" "dd 8192" "dd 32768" "dd 131072"; do
	set -- $p
	NBRT_TUNE=0 $B $G $2 -r 5 --device gpu --precision=$1 >>"$OUT/prec.csv"
done
awk -F, 'NR > 1 { printf "%8d %-70s %s\n", $4, $3, $9 }' "$OUT/prec.csv"
date -u '+%Y-%m-%d %H:%M UTC'
NBRT_TUNE=0 timeout 150 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
echo "gpu_check rc $? ok $(grep -c '^ok' "$OUT/gpu_check.txt")"
NBRT_TUNE=0 NBRT_SLICES=3 timeout 150 sh bench/gpu_check.sh gpu >"$OUT/gpu_check3.txt" 2>&1
echo "gpu_check NBRT_SLICES=3 rc $? ok $(grep -c '^ok' "$OUT/gpu_check3.txt")"
grep -hv '^ok' "$OUT/gpu_check.txt" "$OUT/gpu_check3.txt" | head
date -u '+%Y-%m-%d %H:%M UTC'
