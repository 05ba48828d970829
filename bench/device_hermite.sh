#!/bin/sh
# device_hermite.sh: issue 14's GPU measurements in one device session,
# from the repository root with bin/ and .carry/lib carried (the shared
# libraries the device image lacks: libhdf5 and its own, libpng); results
# go to $OUT.  Before, on the build machine:
#   make all bin/nbplot && mkdir -p .carry/lib && ldd bin/nbody |
#   awk '/=>/ { print $3 }' | grep -v -E 'libc\.|libm\.|libOpenCL|libgomp|libresolv' |
#   xargs -I{} cp -L {} .carry/lib/      (about 20 MB)
#   1. |dE/E| against wall time, leap-frog (float, double) and Hermite
#      (double), Plummer N = 1024 and 16384 to t = 1 (docs/nbody.md);
#   2. the leap-frog step against its kernel in float at N >= 65536 (the
#      step's parts: time_step, time_force, time_kernel; docs/performance.md).
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp}
DEV=${DEV:-gpu}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/smi.txt"
bin/nbody --list-devices | tee "$OUT/devices.txt"
if [ "${PART:-12}" != 2 ]; then
	timeout 250 sh bench/hermite_vs_leapfrog.sh $DEV 1024 "$OUT/hvl_gpu_1024.csv" \
		"$OUT/hvl_gpu_1024.png"
	timeout 280 \
		sh bench/hermite_vs_leapfrog.sh $DEV 16384 "$OUT/hvl_gpu_16384.csv" \
		"$OUT/hvl_gpu_16384.png"
fi
if [ "${PART:-12}" != 1 ]; then
	# NBODY_BEFORE (a bin/nbody built from an older tree) runs beside it
	for b in bin/nbody ${NBODY_BEFORE:-}; do
		first=1
		o="$OUT/step_$(basename "$b").csv"
		for n in 16384 65536 100000 131072 262144; do
			r=$($b --ic cube -n $n --steps 50 --device $DEV --csv) || continue
			[ $first = 1 ] && echo "$r" | head -1 >"$o" && first=0
			echo "$r" | tail -1 >>"$o"
		done
		echo "$b:"
		awk -F, 'NR > 1 { printf "N = %7d  step %.4g s  force %.4g s  kernel %.4g s  kernel/step %.1f%%\n",
			$2, $14, $15, $16, 100 * $16 / $14 }' "$o"
	done | tee "$OUT/step.txt"
fi
