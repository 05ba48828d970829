#!/bin/sh
# device_run9.sh: j-slices (nb_iface.slices, runtime/launch.c) on an H200
# for issue 13, in one call, from the repository root with bin/ and
# .carry/mpi carried; results under $OUT:
#   1. float gravity, nbcc's defaults and the tuner's 4 x 4 (work groups of
#      64, split 2), with NBRT_SLICES = 1, 2, 4, 8, 16 and the row's rule
#      (unset), beside bench/naive.cl, in 2 interleaved rounds;
#   2. bench/gpu_check.sh with NBRT_SLICES=3 (every example, odd slices).
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=/tmp/nbc NBRT_TUNE=0
G=dsl-examples/gravity.nbl
B=bin/nbbench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
$B --header | sed 's/^/slices,/' >"$OUT/slices.csv"
for r in 1 2; do
	for n in 4096 16384 131072 524288; do
		$B bench/naive.cl $n -r 7 --device gpu | sed 's/^/-,/' >>"$OUT/slices.csv"
		for v in "" "--unroll-i=4 --unroll-j=4 --wg=64 --jsplit=2"; do
			for s in rule 1 2 4 8 16; do
				if [ $s = rule ]; then
					$B $G $n -r 7 --device gpu $v
				else
					NBRT_SLICES=$s $B $G $n -r 7 --device gpu $v
				fi | sed "s/^/$s,/" >>"$OUT/slices.csv"
			done
		done
	done
done
awk -F, 'NR > 1 { k = sprintf("%8d %-5s %s", $5, $1, $4); v[k] = v[k] " " $10 }
	END { for (k in v) print k, v[k] }' "$OUT/slices.csv" | sort -k1n -k3 -k2
date -u '+%Y-%m-%d %H:%M UTC'
NBRT_SLICES=3 timeout 240 sh bench/gpu_check.sh gpu >"$OUT/gpu_check.txt" 2>&1
echo "gpu_check rc $?"
grep -c '^ok' "$OUT/gpu_check.txt"
grep -v '^ok' "$OUT/gpu_check.txt" | head -20
