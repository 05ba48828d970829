#!/bin/sh
# device_run6.sh: the figures of 2026-11-23's last device session, on a
# 2-GPU H200 host, from the repository root with bin/ (make; make
# bin/nbbench) and .carry/mpi (scripts/carry-mpi.sh) carried:
#   1. float gravity, nbcc's defaults (the defaults table's H200 row with
#      its least j-split of 4) beside bench/naive.cl and bench/naive.cu,
#      one run, on GPU 0 (docs/performance.md, issue 13's targets);
#   2. bin/oneloop's default arithmetic at N = 1024 (docs/oneloop.md);
#   3. bench/device_mpi.sh: nbody's force across 1 and 2 GPUs (MPI=0
#      leaves it out, on a one-GPU machine).
# Results under $OUT.
set -u
OUT=${OUT:-/tmp}
. .carry/mpi/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=${NBRT_CACHE_DIR:-/tmp/nbc}
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
NS="4096 16384 131072 524288"
B=bin/nbbench
G=dsl-examples/gravity.nbl
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu &&
	CUDA_VISIBLE_DEVICES=0 /tmp/naive_cuda $NS >"$OUT/naive_cuda.csv"
grep best "$OUT/naive_cuda.csv"
$B --header >"$OUT/grav.csv"
for n in $NS; do
	$B bench/naive.cl $n -r 9 --device 0:0 >>"$OUT/grav.csv"
	$B $G $n -r 9 --device 0:0 >>"$OUT/grav.csv"
done
awk -F, '{ printf "%-8s %-62s %s\n", $4, $3, $9 }' "$OUT/grav.csv"
bin/oneloop --device 0:0 --n 64 >/dev/null
for m in qd accurate; do
	bin/oneloop --device 0:0 --n 1024 --dd $m | grep -i "kernel\|^I ="
done
[ "${MPI:-1}" = 0 ] || sh bench/device_mpi.sh
