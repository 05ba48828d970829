# suites/cpu.sh: issue 13's CPU series in one run, as ratios (a shared
# machine's absolute times are noise).  Float gravity at N: the plain loop
# of bench/cpu_anchor.c built with $cc -O3 -march=native -ffast-math (the
# anchor: one core), the same on every core (OpenMP), nbcc's default on
# the default device, the host C path and PoCL on every core; then each
# variant on one core (OMP_NUM_THREADS=1, POCL_MAX_PTHREAD_COUNT=1): the
# work per core that the defaults table wants; then (examples=1) every
# example, the host path against PoCL, at ne.  The series runs `rounds`
# times interleaved; the summary takes each row's median: interactions/s
# by the wall clock (each the median of 5 runs), and per CPU-second of all
# the process's threads (the anchor's own clock; for nbbench, perf's
# task-clock of -r 5 less that of -r 0, where perf works), which another
# job's load moves less: it counts a core's work.  make bench runs it.
about="CPU: nbcc (host C path, PoCL) against the plain -ffast-math loop, every example host against PoCL"
params="n ne rounds examples cc"
n=8192
ne=8192
rounds=5
examples=1
cc=gcc
G=dsl-examples/gravity.nbl

# row ROUND EXAMPLE LABEL N COMMAND...: one row
# "round,example,n,wall_per_s,cpu_per_s,variant" (the label last: it
# may hold commas); the anchor times
# itself, nbbench's CPU time is that of -r 5 less that of -r 0 (the same
# process, compile and warm-up included, without the 5 timed runs)
row() {
	rr=$1 re=$2 rl=$3 rn=$4
	shift 4
	"$@" </dev/null >"$T/out" 2>/dev/null || { note "failed: $rl"; return; } # warm: builds
	case $1 in
	*/a1 | */a2)
		"$@" </dev/null >"$T/out" || return
		echo "$rr,$re,$rn,$(cut -d' ' -f1 "$T/out"),$(cut -d' ' -f2 "$T/out"),\"$rl\"" |
			tee -a "$T/cpurows"
		return ;;
	esac
	if [ $perf = 1 ]; then
		m0=$(task_ms "$@" -r 0) && m5=$(task_ms "$@" -r 5) || { note "failed: $rl"; return; }
	else
		"$@" -r 5 </dev/null >"$T/out" 2>/dev/null || { note "failed: $rl"; return; }
		m0=0 m5=0
	fi
	awk -v r="$rr" -v e="$re" -v l="$rl" -v w="$(cut -d, -f9 "$T/out")" \
	    -v m0="$m0" -v m5="$m5" -v n="$rn" 'BEGIN {
		d = m5 - m0
		printf "%s,%s,%d,%s,%.4e,\"%s\"\n", r, e, n, w, (d > 0 ? 5 * n * n / (d / 1000) : 0), l }' |
		tee -a "$T/cpurows"
}
# nb ROUND EXAMPLE LABEL N KERNEL FLAGS: nbbench on every core
nb() { row "$1" "$2" "$3" "$4" "$BIN/nbbench" "$5" "$4" $6; }
# one ROUND EXAMPLE LABEL N KERNEL FLAGS: nbbench on one core
one() {
	row "$1" "$2" "$3" "$4" env OMP_NUM_THREADS=1 POCL_MAX_PTHREAD_COUNT=1 \
		"$BIN/nbbench" "$5" "$4" $6
}

# table EXAMPLE LABELS BASE: the median of each row of EXAMPLE ("series":
# float gravity's series of the first part) whose label
# matches LABELS (first-seen order), and its ratio to the row BASE
table() {
	awk -F, -v ex="$1" -v pick="$2" -v base="$3" "$MEDIAN"'
	{ l = $0; for (i = 0; i < 5; i++) l = substr(l, index(l, ",") + 1); gsub(/"/, "", l) }
	$2 != ex || l !~ pick { next }
	{ if (!(l in n)) order[++k] = l; n[l]++; w[l, n[l]] = $4; c[l, n[l]] = $5 }
	END {
		bw = med(w, base, n[base]); bc = med(c, base, n[base])
		printf "# %-44s %11s %6s %11s %6s\n", ex ": ratio to " base, "wall /s", "ratio", "per CPU-s", "ratio"
		for (i = 1; i <= k; i++) {
			l = order[i]; mw = med(w, l, n[l]); mc = med(c, l, n[l])
			printf "# %-44s %11.3e %6.2f %11.3e %6.2f\n", l, mw,
			       (bw > 0 ? mw / bw : 0), mc, (bc > 0 ? mc / bc : 0)
		}
	}' "$T/cpurows"
}

suite_run() {
	$cc -O3 -march=native -ffast-math bench/cpu_anchor.c -o "$T/a1" -lm &&
		$cc -O3 -march=native -ffast-math -fopenmp bench/cpu_anchor.c -o "$T/a2" -lm ||
		return 1
	cpu_probe $G
	: >"$T/cpurows"
	echo "round,example,n,wall_per_s,cpu_per_s,variant"
	for r in $(seq "$rounds"); do
		row "$r" series "plain loop, 1 core" "$n" "$T/a1" "$n" 5
		row "$r" series "plain loop, OpenMP, all cores" "$n" "$T/a2" "$n" 5
		nb "$r" series "nbcc default, default device" "$n" $G ""
		nb "$r" series "host default" "$n" $G "--device host"
		if [ $cl = 1 ]; then
			nb "$r" series "PoCL default" "$n" $G "--device cpu"
			nb "$r" series "PoCL 8x2" "$n" $G "--device cpu --unroll-i=8 --unroll-j=2"
			nb "$r" series "PoCL 16x1" "$n" $G "--device cpu --unroll-i=16"
		fi
		for v in "" "--unroll-j=2" "--unroll-j=4" "--unroll-i=16" "--unroll-i=16 --unroll-j=2" "--no-approx"; do
			one "$r" series "1 core: host ${v:-default}" "$n" $G "--device host $v"
		done
		[ $cl = 1 ] || continue
		for v in "" "--unroll-i=8" "--unroll-i=8 --unroll-j=2" "--unroll-i=4 --unroll-j=2" "--unroll-i=16" "--unroll-i=16 --unroll-j=2"; do
			one "$r" series "1 core: PoCL ${v:-default}" "$n" $G "--device cpu $v"
		done
	done
	table series . "plain loop, 1 core"
	[ $cl = 1 ] || { note "no OpenCL CPU device: no PoCL rows"; return 0; }
	[ "$examples" = 1 ] || return 0
	for k in dsl-examples/*.nbl; do
		e=$(basename "$k" .nbl)
		en=$ne
		[ "$e" = oneloop ] && en=$((ne / 8)) # dd: 100 times slower
		for r in $(seq "$rounds"); do
			nb "$r" "$e" "PoCL default" "$en" "$k" "--device cpu"
			nb "$r" "$e" "PoCL 8x2" "$en" "$k" "--device cpu --unroll-i=8 --unroll-j=2"
			nb "$r" "$e" "host default" "$en" "$k" "--device host"
			one "$r" "$e" "1 core: PoCL default" "$en" "$k" "--device cpu"
			one "$r" "$e" "1 core: PoCL 8x2" "$en" "$k" "--device cpu --unroll-i=8 --unroll-j=2"
			one "$r" "$e" "1 core: host default" "$en" "$k" "--device host"
		done
		table "$e" '^[Ph]' "PoCL default"
		table "$e" '^1 core' "1 core: PoCL default"
	done
}
