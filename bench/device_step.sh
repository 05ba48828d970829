#!/bin/sh
# device_step.sh: the leap-frog step of bin/nbody against its force kernel
# on a GPU (issue 14: at N >= 65536 the kernel must be >= 90% of the step).
# Run from the repository root with bin/ and .carry/lib carried (the shared
# libraries the device image lacks: libhdf5 and its own, libpng; see
# bench/device_hermite.sh for how to fill it).  Each N: a uniform cube,
# float gravity with nbcc's defaults, one untimed force evaluation (builds,
# buffers), then STEPS timed steps (default 50).  The columns are bin/nbody
# --csv's: time_step is the wall clock around each step (kick, drift, the
# force, kick, the finite check, which waits for the device), time_force
# the wall clock of nbrt_run, time_kernel the force kernel's own launches
# from OpenCL profiling events; all per step.  Usage:
#   sh bench/device_step.sh            # DEV=gpu, STEPS=50, NS="16384 ..."
# NBODY_BEFORE=path/to/old/nbody runs an older build beside bin/nbody.
# Results also go to $OUT (step_*.csv, step.txt) when it is set.
set -u
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DEV=${DEV:-gpu}
STEPS=${STEPS:-50}
NS=${NS:-16384 65536 100000 131072 262144}
OUT=${OUT:-$(mktemp -d)}
command -v nvidia-smi >/dev/null &&
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u '+%Y-%m-%d %H:%M UTC'
for b in bin/nbody ${NBODY_BEFORE:-}; do
	o="$OUT/step_$(basename "$b").csv"
	: >"$o"
	for n in $NS; do
		r=$(timeout 120 "$b" --ic cube -n "$n" --steps "$STEPS" \
			--device "$DEV" --csv) || {
			echo "$b: N = $n failed" >&2
			continue
		}
		[ -s "$o" ] || echo "$r" | head -1 >"$o"
		echo "$r" | tail -1 >>"$o"
	done
	echo "$b on $(tail -1 "$o" | awk -F, '{ print $(NF - 1) }'), $STEPS steps:"
	echo "| N | step (ms) | force (ms) | kernel (ms) | kernel / step |"
	echo "| --- | --- | --- | --- | --- |"
	awk -F, 'NR > 1 { printf "| %d | %.3g | %.3g | %.3g | %.0f%% |\n",
		$2, 1e3 * $14, 1e3 * $15, 1e3 * $16, 100 * $16 / $14 }' "$o"
done | tee "$OUT/step.txt"
