# suites/dd-variants.sh: variants of ddlib.h's core operations pasted into
# the generated dd kernel of the one-loop integral (bench/dd_variants.py:
# the finiteness test, no special values, a square, division by one
# reciprocal, a folded product, QD's sloppy add, all the accurate ones
# together), each timed by nbbench on the device, and nbcc's own
# --dd=qd kernel (docs/oneloop.md, "QD's arithmetic on the GPU").  Timing
# only: tests/unit/test_ddqd.c and tests/sh/oneloop_ref.sh check what
# became --dd=qd.  n is bin/oneloop's shape at N = 1024: N^2 x N.
about="ddlib.h variants and --dd=qd in the one-loop kernel, timed"
params="device n reps rounds consts"
device=gpu
n=1048576,1024
reps=5
rounds=1
consts="one=1 s=0.3 tt=0.2"

suite_run() {
	"$BIN/nbcc" dsl-examples/oneloop.nbl -o "$T/ol.cl" 2>"$T/err" &&
		python3 bench/dd_variants.py "$T/ol.cl" "$T/v" 2>>"$T/err" ||
		{ note "failed: $(tail -n 1 "$T/err")"; return 1; }
	rows_header
	for r in $(seq "$rounds"); do
		for f in "$T"/v/ol_*.cl; do
			v=$(basename "$f" .cl)
			bench_row "$r" "ddlib ${v#ol_}" "$f" "$n" ""
		done
		bench_row "$r" "--dd=qd" oneloop "$n" "--dd=qd"
	done
	summary '^ddlib base$' n
}
