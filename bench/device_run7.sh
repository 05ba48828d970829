#!/bin/sh
# device_run7.sh: what issue 13 still needs from a GPU, in one call on an
# H200 (or H100), from the repository root with bin/ (make; make
# bin/nbbench) carried; results under $OUT:
#   1. the tuner on the GPU: nbbench --sweep of float gravity at N = 16384
#      and 524288 (every candidate timed and checked), then --tune at the
#      four sizes of issue 13, then the same command again without it,
#      which must start from the cached winner (docs/performance.md, "The
#      tuner");
#   2. float gravity with nbcc's defaults beside bench/naive.cl and
#      bench/naive.cu, one run (issue 13's targets);
#   3. bench/gpu_check.sh: every example against the host's C, with the
#      selects that min=, max=, argmin= and argmax= became (2026-11-23).
# PART=1 runs 1 and 2, PART=2 runs 3 (each within one call's 10 minutes);
# unset, all three.
set -u
PART=${PART:-all}
OUT=${OUT:-/tmp}
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=${NBRT_CACHE_DIR:-/tmp/nbc}
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
B=bin/nbbench
G=dsl-examples/gravity.nbl
NS="4096 16384 131072 524288"
if [ "$PART" != 2 ]; then
for n in 16384 524288; do
	timeout 150 $B --sweep $G $n --device gpu >"$OUT/sweep_$n.md" 2>&1
	cat "$OUT/sweep_$n.md"
done
$B --header >"$OUT/tune.csv"
for n in $NS; do
	timeout 120 $B $G $n -r 9 --device gpu --tune --tune-budget 20 >>"$OUT/tune.csv"
	$B $G $n -r 9 --device gpu --tune >>"$OUT/tune.csv" # cached winner
	$B $G $n -r 9 --device gpu >>"$OUT/tune.csv"        # defaults
done
awk -F, '{ printf "%-8s %-62s %s\n", $4, $3, $9 }' "$OUT/tune.csv"
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu &&
	/tmp/naive_cuda $NS >"$OUT/naive_cuda.csv"
grep best "$OUT/naive_cuda.csv"
$B --header >"$OUT/grav.csv"
for n in $NS; do
	$B bench/naive.cl $n -r 9 --device gpu >>"$OUT/grav.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/grav.csv"
done
awk -F, '{ printf "%-8s %-62s %s\n", $4, $3, $9 }' "$OUT/grav.csv"
fi
[ "$PART" = 1 ] && exit 0
timeout 200 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
tail -n 5 "$OUT/gpu_check.txt"
grep -c '^ok' "$OUT/gpu_check.txt"
grep -v '^ok' "$OUT/gpu_check.txt" | head -20
