# suites/neighbours.sh: only the pairs that matter (issue 25), through
# bin/nbneighbours (bench/neighbours.c; make bin/nbneighbours), each row
# one set of inputs run by the runtime's cell lists (nbrt_run_cutoff,
# self = 1) and by the dense sweep (nbrt_run), both in float, timed by the
# wall clock in one run (the cell path's median of `reps` runs after a
# warm-up: sorting, binning, lists and launches; the dense sweep once
# after a warm-up), and compared (maxdiff: the first result, norm-wise);
# each row's phases of the cell path (nbrt_cutoff.stats) summed up too.
#   - Lennard-Jones (dsl-examples/lennard_jones_self.nbl), n points uniform
#     in a cube at about 50 neighbours within the cutoff: pairs computed
#     per needed pair (needed: the kernel's count RMEM), needed pairs/s,
#     the dense sweep's interactions/s, their ratio and the speedup.
#   - paper 004 (dsl-examples/nearfield2d.nbl) at P points a box of the
#     16384 boxes of a level-7 quadtree, cutoff = the box side: the cell
#     path's time beside the dense sweep's and beside the paper's Table III
#     (Tesla C1060, improved BPB), as ratios.
# n empty: 2^20 on a GPU, 2^18 elsewhere; a dense sweep over more than
# dense_max points is left out (empty: 2^22 on a GPU, 2^18 elsewhere).
about="cell lists against the dense sweep: Lennard-Jones at 50 neighbours, paper 004's near field"
params="device n ps reps dense_max"
device=gpu
n=""
ps="8 64 128"
reps=3
dense_max=""

suite_run() {
	[ -x "$BIN/nbneighbours" ] || {
		note "no $BIN/nbneighbours: make bin/nbneighbours"
		return 1
	}
	gpu=0
	[ "$device" != host ] && [ "$(info type)" = gpu ] && gpu=1
	[ -n "$n" ] || { [ $gpu = 1 ] && n=1048576 || n=262144; }
	[ -n "$dense_max" ] || { [ $gpu = 1 ] && dense_max=4194304 || dense_max=262144; }
	first=1
	one() { # CASE SIZE POINTS
		d=1
		[ "$3" -le "$dense_max" ] || d=0
		"$BIN/nbneighbours" "$1" "$2" --device "$device" --reps "$reps" \
			--dense $d </dev/null >"$T/o" 2>"$T/err" ||
			{ note "failed: $1 $2: $(tail -n 1 "$T/err")"; return; }
		[ $first = 1 ] && sed -n 1p "$T/o"
		first=0
		sed -n 2p "$T/o" | tee -a "$T/rows"
	}
	one lj "$n" "$n"
	for p in $ps; do
		one nearfield "$p" $((p * 16384))
	done
	# the paper's times, Table III, improved BPB on a Tesla C1060 (ms)
	note "summary (cell: the cell path; dense: the dense sweep; paper: paper 004's Table III, improved BPB, Tesla C1060):"
	awk -F, 'BEGIN { paper[8] = 79.227; paper[16] = 81.446; paper[32] = 88.130
		paper[64] = 109.707; paper[128] = 202.768; paper[256] = 499.495; paper[512] = 1774.183 }
	$1 == "lj" {
		printf "# Lennard-Jones N = %d: cell %.4g s; %.3g pairs computed a needed pair; %.4g needed pairs/s", $3, $4, $8, $9
		if ($10 != "") printf "; dense %.4g s, %.4g interactions/s; rate ratio %.3f; speedup %.1fx; maxdiff %.2g", $10, $11, $12, $13, $14
		printf "\n"
	}
	NR > 0 && $15 != "" {
		printf "#   %s phases (ms): keys %s, sort %s, cells %s, lists %s, plan %s, copies %s, run %s, scatter %s\n", $1, $15, $16, $17, $18, $19, $20, $21, $22
	}
	$1 == "nearfield" {
		printf "# paper 004 P = %d (N = %d): cell %.2f ms, %.3g pairs a needed pair", $2, $3, $4 * 1e3, $8
		if ($10 != "") printf "; dense %.2f ms (%.1fx the cell path)", $10 * 1e3, $13
		if ($2 in paper) printf "; paper %.3f ms: paper / cell = %.2f", paper[$2], paper[$2] / ($4 * 1e3)
		printf "\n"
	}' "$T/rows"
}
