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
#     the dense sweep's interactions/s, their ratio and the speedup; then
#     the same clustered (ljc: 3/4 of them in 32 Gaussian blobs).
#   - paper 004 (dsl-examples/nearfield2d.nbl) at P points a box of the
#     16384 boxes of a level-7 quadtree, cutoff = the box side: the cell
#     path's time beside the dense sweep's and beside the paper's Table III
#     (Tesla C1060, improved BPB), as ratios.
# n empty: 2^20 on a GPU, 2^18 elsewhere; a dense sweep over more than
# dense_max points is left out (empty: 2^22 on a GPU, 2^18 elsewhere).
# split and group (empty: the runtime's defaults: a GPU 2 and 8, a CPU
# cells of one cutoff) set the cells (NBRT_CELL_SPLIT: cells of cutoff /
# split; NBRT_CELL_GROUP: i-groups of at most that many elements;
# docs/neighbours.md): split=1 group=1000000000 gives cells of one
# cutoff, each a group, the lists before 2026-11-27.  Paper 004's near
# field (no radius mask: its 3x3 boxes) always takes split 1.
about="cell lists against the dense sweep: Lennard-Jones at 50 neighbours, paper 004's near field"
params="device n ps reps dense_max split group cells"
device=gpu
n=""
ps="8 64 128"
reps=3
dense_max=""
split=""
group=""
cells=""

suite_run() {
	[ -x "$BIN/nbneighbours" ] || {
		note "no $BIN/nbneighbours: make bin/nbneighbours"
		return 1
	}
	gpu=0
	[ "$device" != host ] && [ "$(info type)" = gpu ] && gpu=1
	[ -n "$n" ] || { [ $gpu = 1 ] && n=1048576 || n=262144; }
	[ -n "$dense_max" ] || { [ $gpu = 1 ] && dense_max=4194304 || dense_max=262144; }
	[ -z "$split" ] || export NBRT_CELL_SPLIT="$split"
	[ -z "$group" ] || export NBRT_CELL_GROUP="$group"
	note "cells: split ${split:-default}, group ${group:-default}"
	first=1
	case "$cells" in
	"") paths=default ;;
	host | device) paths=$cells ;;
	both) paths="host device" ;;
	*) note "cells=$cells: host, device, both or empty"; return 1 ;;
	esac
	one() { # CASE SIZE POINTS
		d=1
		[ "$3" -le "$dense_max" ] || d=0
		for path in $paths; do
			case $path in
			host) export NBRT_DEVICE_CELLS=0 ;;
			device) export NBRT_DEVICE_CELLS=1 ;;
			*) unset NBRT_DEVICE_CELLS ;;
			esac
			"$BIN/nbneighbours" "$1" "$2" --device "$device" \
				--reps "$reps" --dense $d </dev/null >"$T/o" 2>"$T/err" ||
				{ note "failed: $1 $2 ($path): $(tail -n 1 "$T/err")"; continue; }
			[ $first = 1 ] && sed -n 1p "$T/o"
			first=0
			sed -n 2p "$T/o" | tee -a "$T/rows"
		done
		unset NBRT_DEVICE_CELLS
	}
	one lj "$n" "$n"
	one ljc "$n" "$n"
	for p in $ps; do
		one nearfield "$p" $((p * 16384))
	done
	# the paper's times, Table III, improved BPB on a Tesla C1060 (ms)
	note "summary (cell: the whole nbrt_run_cutoff call, lists and copies included; kernel: its kernel's own time; dense: the dense sweep; paper: paper 004's Table III, improved BPB, Tesla C1060):"
	awk -F, 'BEGIN { paper[8] = 79.227; paper[16] = 81.446; paper[32] = 88.130
		paper[64] = 109.707; paper[128] = 202.768; paper[256] = 499.495; paper[512] = 1774.183
		printf "# %-19s %9s %10s %10s %8s %9s %11s %11s %7s %11s %11s %7s %10s\n", "case", "N", "cell_ms", "dense_ms", "speedup", "computed/", "needed/s", "dense", "rate", "kernel", "dense kern", "kernel", "paper/cell"
		printf "# %-19s %9s %10s %10s %8s %9s %11s %11s %7s %11s %11s %7s %10s\n", "", "", "(call)", "", "", "needed", "(call)", "inter./s", "ratio", "needed/s", "inter./s", "ratio", ""
	}
	{
		name = ($1 == "lj" ? "LJ" : $1 == "ljc" ? "LJ clustered" : "p004 P=" $2) " " $26
		pp = $1 == "nearfield" && ($2 in paper) ? sprintf("%.2f", paper[$2] / ($4 * 1e3)) : "-"
		printf "# %-19s %9d %10.3f %10s %8s %9.3g %11.4g %11s %7s %11.4g %11s %7s %10s\n", name, $3, $4 * 1e3,
			$10 != "" ? sprintf("%.3f", $10 * 1e3) : "-", $13 != "" ? sprintf("%.1fx", $13) : "-",
			$8, $9, $11 != "" ? sprintf("%.4g", $11) : "-", $12 != "" ? sprintf("%.3g", $12) : "-",
			$15, $16 != "" ? sprintf("%.4g", $16) : "-", $17 != "" ? sprintf("%.3g", $17) : "-", pp
	}
	{
		ph[NR] = sprintf("#   %-14s %s lists: keys %s, sort %s, cells %s, lists %s, plan %s, copies %s, run %s, scatter %s (kernel %.4g; maxdiff against dense %s)",
			$1 == "lj" ? "Lennard-Jones" : $1 == "ljc" ? "LJ clustered" : "paper004 P=" $2, $26, $18, $19, $20, $21, $22, $23, $24, $25, $5 * 1e3, $14 != "" ? $14 : "-")
	}
	END {
		printf "# phases of the cell call (ms):\n"
		for (r = 1; r <= NR; r++)
			print ph[r]
	}' "$T/rows"
}
