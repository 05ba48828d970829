#!/bin/sh
# device_run5.sh: the 2026-11-23 GPU figures of docs/oneloop.md ("QD's
# arithmetic on the GPU") and docs/performance.md ("32 KB tiles for split
# kernels"), in one device session, from a directory holding bin/
# (oneloop, nbbench), lib/ (libqd.so.0, which the device image lacks),
# bench/ (naive.cl, naive.cu) and dsl-examples/; results under $OUT.
#   1. bin/oneloop --dd accurate and qd: N = 256..2048, the 16-lambda
#      extrapolation's wall time, and the I values the reference checks;
#   2. float gravity: nbcc's defaults beside bench/naive.cl and the naive
#      CUDA kernel (bench/naive.cu, best of 1, 2, 4 i a thread), same run;
#   3. the j-split per N with the new tiles (the H200 row of the defaults).
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
export NBRT_CACHE_DIR=${NBRT_CACHE_DIR:-/tmp/nbc}
OUT=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for m in accurate qd; do
	bin/oneloop --device gpu --n 64 --dd $m >/dev/null # fills the cache
	for n in 256 512 1024 2048; do
		bin/oneloop --device gpu --n $n --dd $m --csv >/tmp/o.csv &&
			echo "$m,$(tail -1 /tmp/o.csv)" >>"$OUT/oneloop.csv"
	done
	s=$(date +%s.%N)
	bin/oneloop --device gpu --n 1024 --dd $m --extrapolate >"$OUT/extra_$m.txt"
	e=$(date +%s.%N)
	echo "extrapolate $m: wall $(awk -v s=$s -v e=$e 'BEGIN { print e - s }') s"
	grep "^A = \|^B = \|kernel time" "$OUT/extra_$m.txt"
	for p in "64 0.0001" "256 0.0001" "256 0.01"; do
		set -- $p
		echo "$m N = $1 lambda = $2: $(bin/oneloop --device gpu --n $1 --lambda $2 --dd $m | grep '^I =')"
	done
done | tee "$OUT/oneloop.txt"
cut -d, -f1,2,9,12,15 "$OUT/oneloop.csv"
B=bin/nbbench
G=dsl-examples/gravity.nbl
NS="4096 16384 32768 65536 131072 524288"
nvcc -O3 -arch=sm_90 -o /tmp/naive_cuda bench/naive.cu &&
	/tmp/naive_cuda $NS >"$OUT/naive_cuda.csv"
grep best "$OUT/naive_cuda.csv"
$B --header >"$OUT/grav.csv"
for n in $NS; do
	$B bench/naive.cl $n -r 9 --device gpu >>"$OUT/grav.csv"
	$B $G $n -r 9 --device gpu >>"$OUT/grav.csv"
done
for n in $NS 262144 1048576; do
	for t in 1 2 4 8 16; do
		$B $G $n -r 7 --device gpu --jsplit=$t >>"$OUT/grav.csv"
	done
done
awk -F, '{ printf "%-8s %-62s %s\n", $4, $3, $9 }' "$OUT/grav.csv"
