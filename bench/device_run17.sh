#!/bin/sh
# device_run17.sh: the float GPU row with its register budget against the
# release before it (issue 13), one call on an H200 with bin/,
# .carry/mpi and .carry/old (the nbbench of 7bb630b: 2 x 4 in groups of
# 128, the 480-work-item split, the branching logsumexp) carried; results
# in $OUT:
#   1. every float example and bench/heldout/*.nbl at N = 4096 to 524288,
#      the defaults of both, one after the other;
#   2. float gravity with the defaults beside bench/naive.cl and
#      bench/naive.cu at the targets' four N, 3 interleaved rounds;
#   3. double and dd gravity with the defaults of both;
#   4. bench/gpu_check.sh: every example against the host's C.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_TUNE=0
B="env NBRT_CACHE_DIR=/tmp/nbc17 bin/nbbench"
O="env NBRT_CACHE_DIR=/tmp/nbc17old .carry/old/nbbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
$B --header >"$OUT/all.csv"
for n in 4096 16384 32768 65536 131072 524288; do
	r=5; [ $n -ge 131072 ] && r=3
	for f in dsl-examples/*.nbl bench/heldout/*.nbl; do
		case $f in *oneloop* | *hermite*) continue ;; esac
		$O $f $n -r $r --device gpu --precision=float | sed 's/^"[^"]*"/"old"/' >>"$OUT/all.csv"
		$B $f $n -r $r --device gpu --precision=float | sed 's/^"[^"]*"/"new"/' >>"$OUT/all.csv"
	done
done
awk -F, 'NR > 1 { k = sprintf("%-20s %7d", $2, $4); v[k] = v[k] " " $1 " " $9 }
	END { for (k in v) print k, v[k] }' "$OUT/all.csv" | sort
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
$B --header >"$OUT/prec.csv"
for p in "double 16384" "double 131072" "double 524288" "dd 8192" "dd 32768"; do
	set -- $p
	$O $G $2 -r 5 --device gpu --precision=$1 | sed 's/^"[^"]*"/"old"/' >>"$OUT/prec.csv"
	$B $G $2 -r 5 --device gpu --precision=$1 | sed 's/^"[^"]*"/"new"/' >>"$OUT/prec.csv"
done
awk -F, 'NR > 1 { printf "%-4s %8d %-70s %s\n", $1, $4, $3, $9 }' "$OUT/prec.csv"
date -u '+%Y-%m-%d %H:%M UTC'
timeout 150 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
echo "gpu_check rc $? ok $(grep -c '^ok' "$OUT/gpu_check.txt")"
grep -v '^ok' "$OUT/gpu_check.txt" | head
date -u '+%Y-%m-%d %H:%M UTC'
