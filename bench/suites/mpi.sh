# suites/mpi.sh: bin/nbody's force evaluation across MPI ranks
# (docs/performance.md, "Across MPI ranks"; docs/mpi.md): the leap-frog of
# gravity.nbl in float, cube model, `steps` steps timed (the first
# evaluation, with the build, is not), at each N on each number of ranks;
# one rank runs without mpirun.  Ranks share the host's cores (OpenMP
# threads = cores / ranks) unless threads= sets OMP_NUM_THREADS (1: one
# core a rank); on GPUs each rank takes its own.  weak="N1 ..." adds the
# same work per rank: N1 sqrt(P) on P ranks (the force costs N^2).  A row
# is the fastest of `reps` runs (a shared machine's other work only adds
# time): seconds a step, the slowest rank's kernel and exchange.  Open MPI
# from .carry/mpi (scripts/carry-mpi.sh) where the machine has none.
about="nbody's force across MPI ranks: strong (and weak) scaling"
params="device ns ranks steps reps threads weak"
device=host
ns="16384 32768 65536"
ranks="1 2 3 4"
steps=3
reps=3
threads=""
weak=""

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
			printf "%s,%d,%d,%s,%s,%s\n", k, p, n, $14, $16, x }' "$T/o.csv"
	done | sort -t, -k4,4g | head -n 1 | tee -a "$T/mpirows"
}

suite_run() {
	[ -f .carry/mpi/env.sh ] && . .carry/mpi/env.sh
	# one host: shared memory between ranks, local starts, no ptrace-based
	# single copy (containers often forbid it)
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_plm=isolated
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	export OMPI_MCA_rmaps_base_oversubscribe=1
	[ -z "$threads" ] || export OMP_NUM_THREADS="$threads"
	mp=1
	command -v mpirun >/dev/null 2>&1 || { mp=0; note "no mpirun: one rank only"; }
	[ $mp = 0 ] || note "$(mpirun --version 2>/dev/null | head -n 1)"
	if [ $mp = 1 ] && [ "$device" != host ]; then
		mpirun -np 2 "$BIN/nbrun" --device "$device" --device-info </dev/null 2>/dev/null |
			grep '^device ' | sed 's/^/# ranks: /'
	fi
	: >"$T/mpirows"
	echo "kind,ranks,n,time_step,time_kernel,time_exchange"
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
	awk -F, '{ row[NR] = $0 } $1 == "strong" && $2 == 1 { one[$3] = $4 }
		END {
			print "# strong scaling: efficiency T1 / (P TP); weak: T1(N1) / TP(N1 sqrt(P))"
			for (i = 1; i <= NR; i++) { split(row[i], f, ",")
				n1 = f[1] == "weak" ? int(f[3] / sqrt(f[2]) + 0.5) : f[3]
				if (f[2] > 1 && (n1 in one))
					printf "#   %s, N = %d, %d ranks: %.1f%%\n", f[1], f[3], f[2],
						100 * one[n1] / ((f[1] == "weak" ? 1 : f[2]) * f[4]) }
		}' "$T/mpirows"
}
