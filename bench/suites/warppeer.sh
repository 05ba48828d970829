# suites/warppeer.sh: float gravity's small square launches written by hand
# (bench/warppeer.c and .cl), lanes on i-elements and warps on j-slices, by
# events and queued: the shapes that nbcc's split across warps
# (--split-warps, the narrowed runs of the gpu-nvidia float row) follows
# (issue 30; docs/performance.md, "Split across warps").  shapes="UI UJ S
# X IL TL;..." replaces warppeer's list.
about="hand-written small-N float gravity, lanes on i and warps on j-slices"
params="device shapes"
device=gpu
shapes=""

suite_run() {
	${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/warppeer" \
		bench/warppeer.c -lOpenCL -lm 2>"$T/err" ||
		${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/warppeer" \
			bench/warppeer.c -l:libOpenCL.so.1 -lm 2>"$T/err" || {
		note "warppeer did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	if [ -n "$shapes" ]; then
		WARPPEER_SHAPES=$shapes "$T/warppeer" </dev/null
	else
		"$T/warppeer" </dev/null
	fi
}
