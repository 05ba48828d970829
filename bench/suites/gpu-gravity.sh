# suites/gpu-gravity.sh: issue 13's figures: float gravity with nbcc's
# defaults beside the hand-written kernels (bench/naive.cl through
# nbbench, bench/naive.cu's best of 1, 2 and 4 i-elements a thread), and
# double and dd gravity with the defaults, in interleaved rounds.
# old=NBBENCH runs an older build's nbbench beside each variant (a past
# commit's defaults in the same call).  queue=Q adds, beside each float
# row, the same timed as Q runs queued back to back (nbbench --queue Q on
# device arrays; naive.cu -q Q: Q launches between two events), labelled
# ", queue Q" (issue 30); untimed=1 adds them also queued untimed
# (NBRT_QUEUE=2: no events, the wall clock / Q), labelled ", queue Q
# untimed" (session 16).  NBRT_TUNE=0: the defaults, never a tuned pick
# from the cache.
about="float, double and dd gravity with nbcc's defaults beside the naive OpenCL and CUDA kernels"
params="device ns double_ns dd_ns rounds reps naive arch variants old queue untimed"
device=gpu
ns="4096 16384 131072 524288"
double_ns="16384 131072 524288"
dd_ns="8192 32768 131072"
rounds=3
reps=9
naive="cl cu"
arch=native
variants=""
old=""
queue=""
untimed=0

# gravity_rows ROUND PRECISION N...: the variants (and the old build's)
gravity_rows() {
	gr=$1 gp=$2
	shift 2
	for gn; do
		case "$gp: $naive " in "float:"*" cl "*)
			bench_row "$gr" "naive OpenCL" naive "$gn" ""
			[ -z "$queue" ] || bench_row "$gr" "naive OpenCL, queue $queue" \
				naive "$gn" "--queue=$queue" ;;
		esac
		while IFS= read -r gv; do
			gl=$(variant_label "$gv")
			[ -z "$old" ] ||
				bench_row "$gr" "old: $gl" "gravity:$gp" "$gn" "$gv" "$old"
			bench_row "$gr" "$gl" "gravity:$gp" "$gn" "$gv"
			[ -z "$queue" ] || [ "$gp" != float ] || bench_row "$gr" \
				"$gl, queue $queue" "gravity:$gp" "$gn" "$gv --queue=$queue"
			[ -z "$queue" ] || [ "$gp" != float ] || [ "$untimed" != 1 ] ||
				bench_row "$gr" "$gl, queue $queue untimed" "gravity:$gp" \
				"$gn" "$gv NBRT_QUEUE=2 --queue=$queue"
		done <"$T/variants"
	done
}

suite_run() {
	export NBRT_TUNE=0
	cu=0
	case " $naive " in *" cu "*) naive_cuda_build && cu=1 ;; esac
	rows_header
	each_variant "$variants"
	for round in $(seq "$rounds"); do
		[ $cu = 0 ] || naive_cuda_rows "$round" $ns
		[ $cu = 0 ] || [ -z "$queue" ] || naive_cuda_rows "$round" -q "$queue" $ns
		gravity_rows "$round" float $ns
		gravity_rows "$round" double $double_ns
		gravity_rows "$round" dd $dd_ns
	done
	summary '^naive' n
}
