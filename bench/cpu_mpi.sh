#!/bin/sh
# cpu_mpi.sh: bin/nbody's force evaluation across 1 to 4 MPI ranks on the
# host back end of this machine (docs/performance.md, "Across MPI
# ranks"): N = 2^14 .. 2^16, gravity.nbl in float, cube model, STEPS
# steps timed.  One rank runs without mpirun; P ranks share the cores
# (apps/common/par.c: OpenMP threads = cores / P, at least 1), unless
# OMP_NUM_THREADS is set (1: one core a rank, at every P).  Prints CSV:
# ranks,n,time_step,time_kernel,time_exchange (seconds a step; the
# kernel and the exchanges are the slowest rank's), of the fastest of
# REPS runs (a shared machine's other work only ever adds time).
set -eu
STEPS=${STEPS:-3}
REPS=${REPS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
T=$(mktemp)
trap 'rm -f "$T"' EXIT
echo "ranks,n,time_step,time_kernel,time_exchange"
for n in ${NS:-16384 32768 65536}; do
	for p in 1 2 3 4; do
		A="--ic cube -n $n --steps $STEPS --device host --csv"
		r=0
		while [ $r -lt "$REPS" ]; do
			r=$((r + 1))
			if [ $p = 1 ]; then
				bin/nbody $A 2>"$T" | awk -F, -v n=$n 'NR == 2 {
					printf "1,%d,%s,%s,0\n", n, $14, $16 }'
			else
				mpirun -np $p bin/nbody $A 2>"$T" >"$T.csv"
				x=$(sed -n 's/.*exchanges \([0-9.e+-]*\) s.*/\1/p' "$T")
				awk -F, -v n=$n -v p=$p -v x="$x" 'NR == 2 {
					printf "%d,%d,%s,%s,%s\n", p, n, $14, $16, x }' "$T.csv"
				rm -f "$T.csv"
			fi
		done | sort -t, -k3,3g | head -1
	done
done
