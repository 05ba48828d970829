# suites/peers.sh: issue 30's CPU peer.  PIKG (the FDPS team's kernel
# generator) writes a float gravity kernel from
# bench/peers/pikg_gravity.pikg, in AVX-512 where the CPU has it, else
# AVX2 (isa= chooses); bench/peers/pikg.sh generates and builds it from
# the PIKG snapshot pikg=DIR at benchmark time (Ruby needed; never
# committed).  It runs beside nbcc's float gravity
# (dsl-examples/gravity.nbl, nbcc's defaults) at each N of ns: one core
# each (OMP_NUM_THREADS=1, POCL_MAX_PTHREAD_COUNT=1) on the host C path,
# on PoCL (with and without --no-approx: rsqrt as written, before the
# estimate) and on the default device, then nbcc on every core.  The
# rows run `rounds` times interleaved; the summary takes each row's
# median by the wall clock and per CPU-second (PIKG's own process clock;
# nbbench's perf task-clock of -r R less that of -r 0, as the cpu suite)
# and its ratio to PIKG on one core: per CPU-second for the one-core
# rows, by the wall clock for nbcc on every core.
about="CPU: nbcc's float gravity against PIKG's AVX-512 or AVX2 kernel (pikg=DIR, a PIKG snapshot), one core each, nbcc on every core"
params="pikg isa ns rounds reps"
pikg=
isa=
ns="8192 32768"
rounds=5
reps=5
G=dsl-examples/gravity.nbl

# peer_row ROUND N LABEL COMMAND...: one row
# "round,n,wall_per_s,cpu_per_s,variant" (the label last: it may hold
# commas); COMMAND is PIKG's driver or an nbbench command line, to which
# N and the runs are added
peer_row() {
	pr=$1 pn=$2 pl=$3
	shift 3
	case $1 in
	*/pikg_gravity)
		"$@" "$pn" "$reps" </dev/null >"$T/out" 2>"$T/err" ||
			{ note "failed: $pl, N = $pn: $(tail -n 1 "$T/err")"; return; }
		pw=$(cut -d' ' -f1 "$T/out") pc=$(cut -d' ' -f2 "$T/out") ;;
	*)
		# the first run builds the kernel and fills the caches
		"$@" "$pn" -r 1 </dev/null >/dev/null 2>"$T/err" ||
			{ note "failed: $pl, N = $pn: $(tail -n 1 "$T/err")"; return; }
		if [ "$perf" = 1 ]; then
			m0=$(task_ms "$@" "$pn" -r 0) && m1=$(task_ms "$@" "$pn" -r "$reps") ||
				{ note "failed: $pl, N = $pn"; return; }
		else
			"$@" "$pn" -r "$reps" </dev/null >"$T/out" 2>/dev/null ||
				{ note "failed: $pl, N = $pn"; return; }
			m0=0 m1=0
		fi
		pw=$(tail -n 1 "$T/out" | cut -d, -f9)
		pc=$(awk -v a="$m0" -v b="$m1" -v n="$pn" -v r="$reps" 'BEGIN {
			d = b - a; printf "%.4e", (d > 0 ? r * n * n / (d / 1000) : 0) }') ;;
	esac
	echo "$pr,$pn,$pw,$pc,\"$pl\"" | tee -a "$T/peerrows"
}

# peer_table: each variant's median at each N, and its ratio to PIKG's
peer_table() {
	awk -F, -v isa="$isa" "$MEDIAN"'
	{ l = $0; for (i = 0; i < 4; i++) l = substr(l, index(l, ",") + 1); gsub(/"/, "", l)
	  k = $2 SUBSEP l
	  if (!(k in cnt)) order[++nk] = k
	  cnt[k]++; w[k, cnt[k]] = $3; c[k, cnt[k]] = $4 }
	END {
		print "# summary: median interactions/s of each row; ratios to PIKG on one core at the same N"
		printf "# %6s %-38s %4s %11s %6s %11s %6s\n", "N", "variant", "runs", "wall /s", "ratio", "per CPU-s", "ratio"
		for (i = 1; i <= nk; i++) {
			split(order[i], p, SUBSEP)
			b = p[1] SUBSEP "PIKG " isa ", 1 core"
			bw = (b in cnt) ? med(w, b, cnt[b]) : 0; bc = (b in cnt) ? med(c, b, cnt[b]) : 0
			k = order[i]; mw = med(w, k, cnt[k]); mc = med(c, k, cnt[k])
			printf "# %6s %-38s %4d %11.3e %6.2f %11.3e %6.2f\n", p[1], p[2], cnt[order[i]],
			       mw, (bw > 0 ? mw / bw : 0), mc, (bc > 0 ? mc / bc : 0)
		}
	}' "$T/peerrows"
}

suite_run() {
	[ -n "$pikg" ] || {
		note "no PIKG snapshot: pikg=DIR names one (a clone of https://github.com/FDPS/PIKG)"
		return 1
	}
	# shellcheck disable=SC2086 # none or one word
	sh bench/peers/pikg.sh "$(abs "$pikg")" "$T/pikg" $isa >"$T/build" 2>&1 || {
		note "$(tail -n 1 "$T/build")"
		return 1
	}
	isa=$(cat "$T/pikg/isa")
	note "PIKG's kernel: $isa ($(grep -q '^flags.*\bavx512f\b' /proc/cpuinfo &&
		echo "this CPU has AVX-512" || echo "this CPU has no AVX-512"))"
	note "PIKG: $(abs "$pikg")$(cd "$(abs "$pikg")" && git rev-parse --short=12 HEAD 2>/dev/null | sed 's/^/ at /')," \
		"kernel built with ${CXX:-g++} -O3 -march=native -ffast-math ($(${CXX:-g++} --version | head -n 1))"
	cpu_probe $G
	one="env OMP_NUM_THREADS=1 POCL_MAX_PTHREAD_COUNT=1"
	: >"$T/peerrows"
	echo "round,n,wall_per_s,cpu_per_s,variant"
	for r in $(seq "$rounds"); do
		for n in $ns; do
			peer_row "$r" "$n" "PIKG $isa, 1 core" "$T/pikg/pikg_gravity"
			peer_row "$r" "$n" "nbcc default device, 1 core" $one "$BIN/nbbench" $G
			peer_row "$r" "$n" "nbcc host, 1 core" $one "$BIN/nbbench" $G --device host
			if [ $cl = 1 ]; then
				peer_row "$r" "$n" "nbcc PoCL, 1 core" $one "$BIN/nbbench" $G --device cpu
				peer_row "$r" "$n" "nbcc PoCL --no-approx, 1 core" $one "$BIN/nbbench" $G --device cpu --no-approx
			fi
			peer_row "$r" "$n" "nbcc default device, all cores" "$BIN/nbbench" $G
			peer_row "$r" "$n" "nbcc host, all cores" "$BIN/nbbench" $G --device host
			[ $cl = 0 ] ||
				peer_row "$r" "$n" "nbcc PoCL, all cores" "$BIN/nbbench" $G --device cpu
		done
	done
	peer_table
	note "targets (issue 30): nbcc's default device on one core 1.15 times PIKG per CPU-second;" \
		"on all cores 2.3 times PIKG on one core by the wall clock"
}
