# suites/small-n.sh: float gravity's small square launches (issue 30: N =
# 4096 to 16384, where a launch has a few warps a unit): variants of
# shape, split, tile and the prefetch of the next tile (-DNB_PF=1), with
# old=NBBENCH an older build's defaults once a round and N (not beside
# every variant, as suite variants does), in interleaved rounds.
about="float gravity at small N: shape, split, tile and prefetch variants, an old build's defaults beside"
params="device ns variants rounds reps old"
device=gpu
ns="4096 8192 16384"
variants=";NBRT_CL_OPTIONS=-DNB_PF=1;NBRT_CL_OPTIONS=-DNB_PF=1 --tile=1024"
rounds=3
reps=21
old=""

suite_run() {
	export NBRT_TUNE=0
	rows_header
	each_variant "$variants"
	for round in $(seq "$rounds"); do
		for n in $ns; do
			[ -z "$old" ] ||
				bench_row "$round" "old: defaults" gravity:float "$n" "" "$old"
			while IFS= read -r v; do
				bench_row "$round" "$(variant_label "$v")" gravity:float "$n" "$v"
			done <"$T/variants"
		done
	done
	summary '^defaults$'
}
