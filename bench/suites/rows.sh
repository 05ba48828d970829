# suites/rows.sh: the sweep behind a row of the defaults table
# (compiler/defaults.c, docs/performance.md "The defaults table"): every
# i-unroll x j-unroll of each kernel on one device, and the row's default
# as the runtime picks it, in interleaved rounds; with ref=DEVICE that
# device's default too (the host path's rows against PoCL: ref=cpu), with
# one=1 on one thread (OpenMP and PoCL): each variant's work per core;
# with percpu=1 every rate is per CPU-second (perf's task-clock: a shared
# machine's load moves it less than the wall clock).
# oneloop (dd) runs at n / 8.  kernels: NAME or NAME:PRECISION words,
# "examples" for every example.
about="the unrolling grid behind a row of the defaults table, against the row's default"
params="device kernels n ui uj rounds reps ref one percpu"
device=cpu
kernels="gravity biot_savart gauss_transform gravity:double"
n=8192
ui="4 8 16"
uj="1 2"
rounds=3
reps=5
ref=""
one=0
percpu=0

suite_run() {
	export NBRT_TUNE=0
	if [ "$one" = 1 ]; then
		export OMP_NUM_THREADS=1 POCL_MAX_PTHREAD_COUNT=1
	fi
	if [ "$percpu" = 1 ]; then
		perf stat -x, -e task-clock true >/dev/null 2>&1 ||
			{ note "percpu=1 needs perf stat"; return 1; }
		note "interactions/s per CPU-second (perf task-clock of -r $reps less -r 0)"
	fi
	rows_header
	for r in $(seq "$rounds"); do
		for k in $(kernel_list "$kernels"); do
			kn=$n
			case $k in oneloop | oneloop:*) kn=$((n / 8)) ;; esac # dd: 100 times slower
			for a in $ui; do
				for b in $uj; do
					bench_row "$r" "$a x $b" "$k" "$kn" "--unroll-i=$a --unroll-j=$b"
				done
			done
			bench_row "$r" defaults "$k" "$kn" ""
			[ -z "$ref" ] || bench_row "$r" "$ref default" "$k" "$kn" "--device $ref"
		done
	done
	summary '^defaults$'
	[ -z "$ref" ] || summary "^$ref default\$"
}
