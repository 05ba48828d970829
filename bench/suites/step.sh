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
# variants="ENV...;..." runs bin/nbody under each (one empty: as it is),
# rounds=R interleaves R rounds of all of them.
about="nbody's leap-frog step against its force kernel, per N"
params="device ns steps before flags variants rounds"
device=gpu
flags=
ns="16384 65536 100000 131072 262144"
steps=50
before=""
variants=""
rounds=1

suite_run() {
	echo "round,nbody,n,time_step_s,time_force_s,time_kernel_s,kernel_share"
	each_variant "$variants"
	for round in $(seq "$rounds"); do
		for b in "$BIN/nbody" $before; do
			while IFS= read -r v; do
				[ "$b" = "$BIN/nbody" ] || [ -z "$v" ] || continue
				lab="bin/nbody${v:+ $v}"
				[ "$b" = "$BIN/nbody" ] || lab="before: $b"
				for n in $ns; do
					# shellcheck disable=SC2086 # the variant's words, flags as words
					timeout 300 env $v "$b" --ic cube -n "$n" --steps "$steps" \
						--device "$device" $flags --csv </dev/null >"$T/o.csv" \
						2>"$T/err" ||
						{ note "failed: $lab N = $n: $(tail -n 1 "$T/err")"; continue; }
					awk -F, -v r="$round" -v l="$lab" 'NR == 2 {
						printf "%d,\"%s\",%d,%.4g,%.4g,%.4g,%.3f\n",
						r, l, $2, $14, $15, $16, $16 / $14 }' "$T/o.csv"
				done
			done <"$T/variants"
		done
	done
}
