# suites/tuner.sh: the tuner on a device (docs/performance.md, "The tuner
# on an H200"): nbbench --sweep's table of every candidate at sweep_ns
# (timed and checked against the defaults), then at each of tune_ns a
# --tune run with the run's fresh cache, `cached` runs that start from its
# pick, and the defaults (NBRT_TUNE=0).
about="the tuner: nbbench --sweep tables, --tune's pick, its cached pick and the defaults"
params="device kernels precision sweep_ns tune_ns budget reps cached"
device=gpu
kernels=gravity
precision=float
sweep_ns="16384 524288"
tune_ns="4096 16384 131072 524288"
budget=20
reps=9
cached=2

suite_run() {
	rows_header
	for k in $(kernel_list "$kernels"); do
		for n in $tune_ns; do
			bench_row 1 "--tune (budget $budget s)" "$k:$precision" "$n" \
				"--tune --tune-budget $budget"
			for c in $(seq "$cached"); do
				bench_row "$c" "cached pick" "$k:$precision" "$n" ""
			done
			bench_row 1 defaults "$k:$precision" "$n" NBRT_TUNE=0
		done
	done
	summary '^defaults$'
	for k in $(kernel_list "$kernels"); do
		for n in $sweep_ns; do
			note
			"$BIN/nbbench" --sweep "$(kernel_file "$k")" "$n" \
				--device "$device" --precision="$precision" </dev/null \
				2>&1 | sed 's/^/# /'
		done
	done
}
