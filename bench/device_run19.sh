#!/bin/sh
# device_run19.sh: the register budget's float row on an H100 (issue 13),
# one call with bin/, .carry/mpi and .carry/old (the nbbench of 7bb630b) carried;
# results in $OUT: float gravity with the defaults of both beside
# bench/naive.cl and bench/naive.cu at the targets' four N, 2 interleaved
# rounds; bench/gpu_check.sh.
set -u
. .carry/mpi/env.sh
OUT=${OUT:-/tmp}
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_TUNE=0
B="env NBRT_CACHE_DIR=/tmp/nbc19 bin/nbbench"
O="env NBRT_CACHE_DIR=/tmp/nbc19old .carry/old/nbbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
G=dsl-examples/gravity.nbl
NS="4096 16384 131072 524288"
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu
$B --header >"$OUT/grav.csv"
for r in 1 2; do
	/tmp/naive_cuda $NS | grep best >>"$OUT/naive_cuda.txt"
	for n in $NS; do
		$B bench/naive.cl $n -r 9 --device gpu >>"$OUT/grav.csv"
		$O $G $n -r 9 --device gpu | sed 's/^"[^"]*"/"old"/' >>"$OUT/grav.csv"
		$B $G $n -r 9 --device gpu >>"$OUT/grav.csv"
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %s %s", $4, $1 == "\"old\"" ? "old" : "", $3); v[k] = v[k] " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/grav.csv" | sort -n
cat "$OUT/naive_cuda.txt"
date -u '+%Y-%m-%d %H:%M UTC'
timeout 150 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
echo "gpu_check rc $? ok $(grep -c '^ok' "$OUT/gpu_check.txt")"
grep -v '^ok' "$OUT/gpu_check.txt" | head
date -u '+%Y-%m-%d %H:%M UTC'
