# suites/step.sh: the leap-frog step of bin/nbody against its force kernel
# (issue 14: on a GPU, at N >= 65536 the kernel must be >= 90% of the
# step).  Each N: a uniform cube, float gravity with nbcc's defaults, one
# untimed force evaluation (builds, buffers), then `steps` timed steps.
# time_step is the wall clock around each step (kick, drift, the force,
# kick, the finite check, which waits for the device), time_force the
# wall clock of nbrt_run, time_kernel the force kernel's own launches from
# OpenCL profiling events; all per step.  before=NBODY runs an older
# build's nbody beside bin/nbody.  flags=... are more of nbody's flags
# (--precision=double; --integrator hermite --timestep fixed: its step).
about="nbody's leap-frog step against its force kernel, per N"
params="device ns steps before flags"
device=gpu
flags=
ns="16384 65536 100000 131072 262144"
steps=50
before=""

suite_run() {
	echo "nbody,n,time_step_s,time_force_s,time_kernel_s,kernel_share"
	for b in "$BIN/nbody" $before; do
		lab=bin/nbody
		[ "$b" = "$BIN/nbody" ] || lab="before: $b"
		for n in $ns; do
			# shellcheck disable=SC2086 # flags as words
			timeout 300 "$b" --ic cube -n "$n" --steps "$steps" --device "$device" \
				$flags --csv </dev/null >"$T/o.csv" 2>"$T/err" ||
				{ note "failed: $lab N = $n: $(tail -n 1 "$T/err")"; continue; }
			awk -F, -v l="$lab" 'NR == 2 { printf "\"%s\",%d,%.4g,%.4g,%.4g,%.3f\n",
				l, $2, $14, $15, $16, $16 / $14 }' "$T/o.csv"
		done
	done
}
