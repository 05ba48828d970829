# suites/mpi.sh: bin/nbody's force evaluation across MPI ranks
# (docs/performance.md, "Across MPI ranks"; docs/mpi.md): the leap-frog of
# gravity.nbl in float, cube model, `steps` steps timed (the first
# evaluation, with the build, is not), at each N on each number of ranks;
# one rank runs without mpirun.  Ranks share the host's cores (OpenMP
# threads = cores / ranks) unless threads= sets OMP_NUM_THREADS (1: one
# core a rank); on GPUs each rank takes its own.  weak="N1 ..." adds the
# same work per rank: N1 sqrt(P) on P ranks (the force costs N^2).
# scan=ROWS times bin/oneloop --scan over ROWS Euclidean (s, t) rows at
# N = 256, extrapolated in lambda, on each number of ranks; nbrun=N one gravity.nbl evaluation of
# N x N random bodies by bin/nbrun (its --time: the kernel, not the CSV).  A row
# is the fastest of `reps` runs (a shared machine's other work only adds
# time): seconds a step, the slowest rank's kernel and exchange.  Open MPI
# from .carry/mpi (scripts/carry-mpi.sh) where the machine has none.
about="nbody's force across MPI ranks: strong (and weak) scaling"
params="device ns ranks steps reps threads weak scan nbrun"
device=host
ns="16384 32768 65536"
ranks="1 2 3 4"
steps=3
reps=3
threads=""
weak=""
scan=""
nbrun=""

# one KIND P N: the fastest of $reps runs as a row
one() {
	A="--ic cube -n $3 --steps $steps --device $device --csv"
	i=0
	while [ $i -lt "$reps" ]; do
		i=$((i + 1))
		if [ "$2" = 1 ]; then
			"$BIN/nbody" $A </dev/null 2>"$T/err" >"$T/o.csv" || { note "failed: $*: $(tail -n 1 "$T/err")"; continue; }
			x=0
		else
			mpirun -np "$2" "$BIN/nbody" $A </dev/null 2>"$T/err" >"$T/o.csv" ||
				{ note "failed: $*: $(tail -n 1 "$T/err")"; continue; }
			x=$(sed -n 's/.*exchanges \([0-9.e+-]*\) s.*/\1/p' "$T/err")
		fi
		awk -F, -v k="$1" -v p="$2" -v n="$3" -v x="${x:-0}" 'NR == 2 {
			printf "%s,%d,%d,%s,%s,%s,%s\n", k, p, n, $14, $16, x, $15 }' "$T/o.csv"
	done | sort -t, -k4,4g | head -n 1 | tee -a "$T/mpirows"
}

suite_run() {
	. bench/mpi.sh
	mpi_env
	[ -z "$threads" ] || export OMP_NUM_THREADS="$threads"
	[ $mp = 1 ] || note "no mpirun: one rank only"
	if [ $mp = 1 ] && [ "$device" != host ]; then
		# first: every rank lists the platforms one process lists
		"$BIN/nbrun" --list-devices </dev/null >"$T/one" 2>&1 || true
		np=$(echo $ranks | tr ' ' '\n' | sort -n | tail -n 1)
		# (each rank lists as one process: rank 0 alone writes under MPI)
		mpirun -np "$np" sh -c 'r=$OMPI_COMM_WORLD_RANK; env -u OMPI_COMM_WORLD_SIZE \
			-u PMIX_RANK -u PMI_RANK -u PMI_SIZE "$0" --list-devices >"$1.$r" 2>&1' \
			"$BIN/nbrun" "$T/rank" </dev/null >/dev/null 2>&1 || true
		r=0
		while [ $r -lt "$np" ]; do
			cmp -s "$T/one" "$T/rank.$r" ||
				note "rank $r lists other devices than one process: $(tr '\n' ';' <"$T/rank.$r" 2>/dev/null)"
			r=$((r + 1))
		done
		note "devices of one process and of each of $np ranks compared: $(wc -l <"$T/one") devices"
		mpirun -np 2 "$BIN/nbrun" --device "$device" --device-info </dev/null 2>/dev/null |
			grep '^device ' | sed 's/^/# ranks: /'
	fi
	: >"$T/mpirows"
	# time_force: the whole nbrt_run call (conversion, copies, kernel)
	echo "kind,ranks,n,time_step,time_kernel,time_exchange,time_force"
	for n in $ns; do
		for p in $ranks; do
			[ "$p" = 1 ] || [ $mp = 1 ] || continue
			one strong "$p" "$n"
		done
	done
	for n in $weak; do
		for p in $ranks; do
			[ "$p" != 1 ] && [ $mp = 1 ] || continue
			one weak "$p" "$(awk -v n="$n" -v p="$p" 'BEGIN { printf "%d", n * sqrt(p) + 0.5 }')"
		done
	done
	# kind,ranks,n,time_step: the scan's wall seconds, nbrun's kernel time
	# (the final table gives each step's rest: neither kernel nor exchange)
	if [ -n "$scan" ]; then
		awk -v p="$scan" 'BEGIN { k = int(sqrt(p)); if (k * k < p) k++
			print "s,t,me,mf"
			for (i = 0; i < k && m < p; i++) for (j = 0; j < k && m < p; j++) {
				printf "%.6g,%.6g,1,1\n", -0.25 - 3.75 * i / (k - 1),
					-0.25 - 3.75 * j / (k - 1); m++ } }' >"$T/scan.csv"
		for p in $ranks; do
			[ "$p" = 1 ] || [ $mp = 1 ] || continue
			t0=$(date +%s.%N)
			if [ "$p" = 1 ]; then "$BIN/oneloop" --n 256 --scan "$T/scan.csv" --extrapolate --device "$device" >"$T/scan.out" 2>"$T/err"
			else mpirun -np "$p" "$BIN/oneloop" --n 256 --scan "$T/scan.csv" --extrapolate --device "$device" >"$T/scan.out" 2>"$T/err"; fi ||
				{ note "failed: scan on $p: $(tail -n 1 "$T/err")"; continue; }
			t1=$(date +%s.%N)
			echo "scan,$p,$scan,$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'),0,0,0" | tee -a "$T/mpirows"
		done
	fi
	if [ -n "$nbrun" ]; then
		for p in $ranks; do
			[ "$p" = 1 ] || [ $mp = 1 ] || continue
			set -- "$BIN/nbrun" dsl-examples/gravity.nbl --random "$nbrun,$nbrun" --seed 1 \
				--const eps2=1e-4 --device "$device" --time -o "$T/nbrun.csv"
			if [ "$p" = 1 ]; then "$@" 2>"$T/err" >/dev/null; else mpirun -np "$p" "$@" 2>"$T/err" >/dev/null; fi ||
				{ note "failed: nbrun on $p: $(tail -n 1 "$T/err")"; continue; }
			x=$(sed -n 's/^.*time: *\([0-9.e+-]*\) s.*$/\1/p' "$T/err" | sort -g | tail -n 1)
			echo "nbrun,$p,$nbrun,${x:-0},0,0,0" | tee -a "$T/mpirows"
			grep -i "time" "$T/err" | head -n 4 | sed 's/^/# nbrun: /'
		done
	fi
	awk -F, '{ row[NR] = $0 } ($1 == "strong" || $1 == "scan" || $1 == "nbrun") && $2 == 1 { one[$1 $3] = $4 }
		END {
			print "# strong scaling: efficiency T1 / (P TP); weak: T1(N1) / TP(N1 sqrt(P))"
			for (i = 1; i <= NR; i++) { split(row[i], f, ",")
				n1 = f[1] == "weak" ? int(f[3] / sqrt(f[2]) + 0.5) : f[3]
				k = (f[1] == "weak" ? "strong" : f[1]) n1
				if (f[2] > 1 && (k in one))
					printf "#   %s, N = %d, %d ranks: %.1f%%%s\n", f[1], f[3], f[2],
						100 * one[k] / ((f[1] == "weak" ? 1 : f[2]) * f[4]),
						(f[1] == "scan" || f[1] == "nbrun") ? "" : sprintf(" (a step %.4g s: kernel %.4g, exchange %.4g, rest %.4g)", f[4], f[5], f[6], f[4] - f[5] - f[6]) }
		}' "$T/mpirows"
}
