#!/bin/sh
# device_run14.sh: the H200's rows on an H100 (same class, gpu-nvidia):
# float gravity with nbcc's defaults beside the naive kernels, 2 rounds;
# NBRT_SLICES=1 against the rows' slices; the tuner at N = 524288. One
# call with bin/ and .carry/mpi carried; results in $OUT.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=/tmp/nbc14
G=dsl-examples/gravity.nbl
B=bin/nbbench
NS="4096 16384 131072 524288"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bin/nbrun --device gpu --device-info 2>/dev/null | grep -i 'compute_units\|name' | head -3
date -u '+%Y-%m-%d %H:%M UTC'
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu
$B --header | sed 's/^/slices,/' >"$OUT/h100.csv"
for r in 1 2; do
	/tmp/naive_cuda $NS | grep best >>"$OUT/naive_cuda.txt"
	for n in $NS; do
		NBRT_TUNE=0 $B bench/naive.cl $n -r 9 --device gpu | sed 's/^/-,/' >>"$OUT/h100.csv"
		NBRT_TUNE=0 $B $G $n -r 9 --device gpu | sed 's/^/rule,/' >>"$OUT/h100.csv"
		NBRT_TUNE=0 NBRT_SLICES=1 $B $G $n -r 9 --device gpu | sed 's/^/1,/' >>"$OUT/h100.csv"
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %-4s %s", $5, $1, $4); v[k] = v[k] " " $10 }
	END { for (k in v) print k, v[k] }' "$OUT/h100.csv" | sort -n
cat "$OUT/naive_cuda.txt"
timeout 120 $B $G 524288 -r 9 --device gpu --tune --tune-budget 20 | cut -d, -f3,9
$B $G 524288 -r 9 --device gpu | cut -d, -f3,9
date -u '+%Y-%m-%d %H:%M UTC'
