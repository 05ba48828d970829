#!/bin/sh
# device_run15.sh: the float GPU row's register budget (issue 13), one
# call on an H200 with bin/, .carry/mpi and .carry/old (the nbbench of
# 7bb630b, before the budget and the select-form logsumexp) carried;
# results in $OUT:
#   1. every float example and bench/heldout/*.nbl (written after the
#      budget was set, to test it) at N = 131072 and 524288: 2 x 4 with
#      groups of 128 (A), 4 x 4 with groups of 64 (B), nbcc's defaults
#      (D), and gauss_logsumexp with the old nbbench (its branch);
#   2. float gravity with the defaults beside bench/naive.cl and
#      bench/naive.cu at the targets' four N, 2 interleaved rounds;
#   3. bench/gpu_check.sh: every example against the host's C.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=/tmp/nbc15 NBRT_TUNE=0
B=bin/nbbench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/rows.csv"
for n in 131072 524288; do
	for f in dsl-examples/*.nbl bench/heldout/*.nbl; do
		case $f in *oneloop* | *hermite*) continue ;; esac
		$B $f $n -r 3 --device gpu --precision=float --unroll-i=2 --unroll-j=4 --wg=128 >>"$OUT/rows.csv"
		$B $f $n -r 3 --device gpu --precision=float --unroll-i=4 --unroll-j=4 --wg=64 >>"$OUT/rows.csv"
		$B $f $n -r 3 --device gpu --precision=float >>"$OUT/rows.csv"
	done
	for u in "--unroll-i=2 --unroll-j=4" "--unroll-i=4 --unroll-j=4 --wg=64"; do
		NBRT_CACHE_DIR=/tmp/nbc15old .carry/old/nbbench dsl-examples/gauss_logsumexp.nbl $n -r 3 --device gpu --precision=float $u |
			sed 's/^"[^"]*"/"old nbbench"/' >>"$OUT/rows.csv"
	done
done
awk -F, 'NR > 1 { printf "%-20s %7d %-75s %s\n", $2, $4, $3, $9 }' "$OUT/rows.csv"
date -u '+%Y-%m-%d %H:%M UTC'
G=dsl-examples/gravity.nbl
NS="4096 16384 131072 524288"
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu
$B --header >"$OUT/grav.csv"
for r in 1 2; do
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
grep -v '^ok' "$OUT/gpu_check.txt" | head
date -u '+%Y-%m-%d %H:%M UTC'
