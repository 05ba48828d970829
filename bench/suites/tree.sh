# suites/tree.sh: the treecode (docs/treecode.md) against direct summation
# in one run: float gravity (dsl-examples/gravity.nbl, far field
# far/gravity_quad.nbl) on a Plummer sphere, theta 0.5, buckets of 16 and
# groups of 64, for each N: both runs' wall times (the second of two, so
# builds are out), the tree's phases (sort and build, moments, walk, far
# run, near run), its pairs and its force error against the direct run
# (median, 99th percentile).  bench/treebench.c, built by make
# bin/treebench; the tree is built and walked on the host (OpenMP).
about="treecode against direct summation: float gravity, theta 0.5, phases timed"
params="device ns theta bucket group"
device=host
ns="16384 65536"
theta=0.5
bucket=16
group=64

suite_run() {
	[ -x "$BIN/treebench" ] || {
		note "no $BIN/treebench (make bin/treebench)"
		return 1
	}
	first=1
	for n in $ns; do
		"$BIN/treebench" "$n" "$theta" "$device" "$bucket" "$group" \
			</dev/null >"$T/row" 2>"$T/err" ||
			{ note "failed at N = $n: $(tail -n 1 "$T/err")"; continue; }
		if [ $first = 1 ]; then head -n 1 "$T/row"; first=0; fi
		tail -n 1 "$T/row"
	done
	note "speedup = direct_s / tree_s; phases in seconds, the tree's total"
	note "tree_s also holds sorting the results back and the copies"
}
