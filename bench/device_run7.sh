#!/bin/sh
# device_run7.sh: what issue 13 still needs from a GPU, in one call on an
# H200 (or H100), from the repository root with bin/ (make; make
# bin/nbbench) carried; results under $OUT:
#   1. the tuner on the GPU: nbbench --sweep of float gravity at N = 16384
#      and 524288 (every candidate timed and checked), then --tune at the
#      four sizes of issue 13, then the same command without it, which
#      starts from the cached winner, and with NBRT_TUNE=0, the defaults
#      (docs/performance.md, "The tuner");
#   2. float gravity with nbcc's defaults (NBRT_TUNE=0) beside bench/naive.cl and
#      bench/naive.cu, one run (issue 13's targets);
#   3. bench/gpu_check.sh: every example against the host's C, with the
#      selects that min=, max=, argmin= and argmax= became (2026-11-23).
#   4. (PART=3) candidates for the H200 row of the defaults table, which
#      the tuner's runs of part 1 pointed at (4 x 4, work groups of 64),
#      against the row, in 3 interleaved rounds with the naive kernels.
#   5. (PART=4) every float example at the row's unrolling and at 2 x 2.
# PART=1 runs 1 and 2, PART=2 runs 3, PART=3 runs 4, PART=4 runs 5 (each
# within one call's 10 minutes); unset, 1 to 3.
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
if [ "$PART" = 4 ]; then
	# every float example at the row's unrolling against the old 2 x 2
	$B --header >"$OUT/examples.csv"
	for f in dsl-examples/*.nbl; do
		case $f in *oneloop* | *hermite*) continue ;; esac
		for r in 1 2; do
			NBRT_TUNE=0 $B $f 131072 -r 5 --device gpu --precision=float >>"$OUT/examples.csv"
			NBRT_TUNE=0 $B $f 131072 -r 5 --device gpu --precision=float \
				--unroll-i=2 --unroll-j=2 >>"$OUT/examples.csv"
		done
	done
	awk -F, 'NR > 1 { printf "%-20s %-62s %s\n", $2, $3, $9 }' "$OUT/examples.csv"
	exit 0
fi
if [ "$PART" = 3 ]; then
	$B --header >"$OUT/rows.csv"
	for r in 1 2 3; do
		for n in $NS; do
			$B bench/naive.cl $n -r 9 --device gpu >>"$OUT/rows.csv"
			for v in "" "--unroll-i=4 --unroll-j=4 --wg=64" \
				"--unroll-i=4 --unroll-j=4" "--unroll-i=2 --unroll-j=4" \
				"--unroll-i=4 --unroll-j=2 --wg=64" \
				"--unroll-i=2 --unroll-j=4 --wg=64"; do
				$B $G $n -r 9 --device gpu $v >>"$OUT/rows.csv"
			done
		done
	done
	awk -F, 'NR > 1 { k = $4 " " $3; v[k] = v[k] " " $9; n[k]++ }
		END { for (k in v) print k, v[k] }' "$OUT/rows.csv" | sort -n
	exit 0
fi
if [ "$PART" != 2 ]; then
for n in 16384 524288; do
	timeout 150 $B --sweep $G $n --device gpu >"$OUT/sweep_$n.md" 2>&1
	cat "$OUT/sweep_$n.md"
done
$B --header >"$OUT/tune.csv"
for n in $NS; do
	timeout 120 $B $G $n -r 9 --device gpu --tune --tune-budget 20 >>"$OUT/tune.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/tune.csv"              # cached winner
	NBRT_TUNE=0 $B $G $n -r 9 --device gpu >>"$OUT/tune.csv" # defaults
done
awk -F, '{ printf "%-8s %-62s %s\n", $4, $3, $9 }' "$OUT/tune.csv"
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu &&
	/tmp/naive_cuda $NS >"$OUT/naive_cuda.csv"
grep best "$OUT/naive_cuda.csv"
$B --header >"$OUT/grav.csv"
for n in $NS; do
	$B bench/naive.cl $n -r 9 --device gpu >>"$OUT/grav.csv"
	NBRT_TUNE=0 $B $G $n -r 9 --device gpu >>"$OUT/grav.csv"
done
awk -F, '{ printf "%-8s %-62s %s\n", $4, $3, $9 }' "$OUT/grav.csv"
fi
[ "$PART" = 1 ] && exit 0
timeout 200 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
tail -n 5 "$OUT/gpu_check.txt"
grep -c '^ok' "$OUT/gpu_check.txt"
grep -v '^ok' "$OUT/gpu_check.txt" | head -20
