# suites/tree.sh: the treecode (docs/treecode.md) against direct summation
# in one run: float gravity (dsl-examples/gravity.nbl, far field
# far/gravity_quad.nbl) on a Plummer sphere, theta 0.5, buckets of 16 and
# the runtime's groups for N, for each N: both runs' wall times (medians
# of reps, timed in turn), the tree's phases (columns, sort and build,
# moments, walk, far run, near run, the rest: the scatter), its rate in
# millions of bodies a second, its pairs and its force error against the
# direct run (median, 99th percentile); then the crossover, the least N
# from which the tree is faster.  group may list sizes (group="0 512 1024"):
# each N at each size, a crossover and phase lines a size.
# bench/treebench.c, built by make bin/treebench; the tree is built and
# walked on the host (OpenMP), its bodies sorted on a GPU.  far=stream or cells
# picks how the far field runs (NBRT_TREE_FAR; "" the default: the
# cells' expansions read in place).  direct=0 leaves the direct run out
# (the phases alone: direct takes 17 s at 2^22 on an H100, a minute at
# 2^18 here).  The issue's headline on a GPU:
# ns="8192 16384 32768 65536 131072 262144 4194304".  The phase line
# (#) is what to read for the host's share: build (columns, keys, sort,
# octree, groups), moments, walk (lists in the plan's form), far and near
# (each: sorted copies, plan, uploads, the kernel, results back).
about="treecode against direct summation: float gravity, theta 0.5, phases timed, crossover"
params="device ns theta bucket group far direct reps"
device=host
ns="8192 16384 32768 65536"
theta=0.5
bucket=16
# group 0: the runtime's for each N (nbrt_tree_group: 512, 1024 from 2^20)
group=0
far=
direct=1
# after an untimed run of each, direct and the tree timed in turn reps
# times, medians printed: direct at 65536 varied from 2.8 to 11 ms
# between calls of one H200 run, which decided the crossover alone
reps=3

suite_run() {
	[ -x "$BIN/treebench" ] || {
		note "no $BIN/treebench (make bin/treebench)"
		return 1
	}
	first=1
	: >"$T/treerows"
	: >"$T/crossrows"
	# reps=1: no REPS argument, so that an older treebench runs too
	r=$reps
	[ "$reps" = 1 ] && r=
	for g in $group; do
		for n in $ns; do
			NBRT_TREE_FAR=$far "$BIN/treebench" "$n" "$theta" "$device" \
				"$bucket" "$g" 3 "$direct" $r </dev/null >"$T/row" 2>"$T/err" ||
				{ note "failed at N = $n, group $g: $(tail -n 1 "$T/err")"; continue; }
			if [ $first = 1 ]; then head -n 1 "$T/row"; first=0; fi
			tail -n 1 "$T/row" | tee -a "$T/treerows"
			echo "$g,$(tail -n 1 "$T/row")" >>"$T/crossrows"
		done
	done
	note "speedup = direct_s / tree_s; phases in seconds; other_s: the"
	note "tree's time outside them (results scattered back, bindings"
	note "restored); far and near include their sorted copies and plans"
	for g in $group; do
		[ "$direct" = 0 ] || note "$(awk -F, -v g="$g" '$1 == g {
			if (!c && $8 > 1) c = $2; last = $2 }
			END { if (c) print "crossover (group " g "): the tree is faster from N = " c;
			      else print "crossover (group " g "): direct is faster up to N = " last }' \
			"$T/crossrows")"
	done
	awk -F, '{ printf "# N %8d  group %5d  direct %8.4g s  tree %8.4g s  (%5.3g Mbodies/s)  build %.3g  moments %.3g  walk %.3g  far %.3g (kernel %.3g)  near %.3g (kernel %.3g)  other %.3g\n", $1, $4, $5, $6, $14, $8, $9, $10, $11, $24, $12, $23, $13 }' "$T/treerows"
	awk -F, '{ printf "# N %8d  group %5d  parts: read %.3g  sort %.3g  octree %.3g  groups %.3g (build)  join %.3g (walk)  copies %.3g  far run %.3g (far)  scatter %.3g (other)\n", $1, $4, $25, $26, $27, $28, $29, $30, $31, $32 }' "$T/treerows"
}
