#!/bin/sh
# device_mpi.sh: strong and weak scaling of bin/nbody's force evaluation
# on 1 and 2 GPUs of one host (docs/performance.md, "Across MPI ranks"),
# from the repository root with bin/ and .carry/mpi carried: Open MPI
# unpacked from Debian's packages by scripts/carry-mpi.sh, for a machine
# that has none (it also carries the programs' other libraries).  Before,
# on the build machine (Open MPI installed: scripts/deps.sh):
#   make && sh scripts/carry-mpi.sh        (bin/ and .carry/mpi: ~40 MiB)
# Results go to $OUT: scaling.csv (one row a run) and scaling.txt.
#   strong: N = 2^18 .. 2^21 on 1 GPU, then on 2 (one rank each);
#           efficiency T1 / (2 T2)
#   weak:   the same work per GPU: N on 1 GPU (the strong runs'), N sqrt(2)
#           on 2 (the force costs N^2); efficiency T1 / T2
# The leap-frog of gravity.nbl in float, cube model, STEPS steps timed
# (the first evaluation, with the build, is not); a step is the force
# (this rank's i-part against all N, the kernel), its allgather, and the
# kick and drift of all N on every rank.
set -u
OUT=${OUT:-/tmp}
STEPS=${STEPS:-10}
DEV=${DEV:-gpu}
NS=${NS:-262144 524288 1048576 2097152} # strong
NW=${NW:-262144 524288 1048576}         # weak: N on 1 GPU
. .carry/mpi/env.sh
# one host: shared memory between ranks, local starts, no ptrace-based
# single copy (containers often forbid it)
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_plm=isolated
export OMPI_MCA_btl_vader_single_copy_mechanism=none
smi() { ! command -v nvidia-smi >/dev/null || nvidia-smi "$@"; }
smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv |
	tee "$OUT/smi.txt"
mpirun --version | head -1 | tee "$OUT/mpirun.txt"
bin/nbody --list-devices | tee "$OUT/devices.txt"

# both ranks' devices (which GPU each took), from their --device-info
mpirun -np 2 bin/nbrun --device $DEV --device-info | sort | tee "$OUT/ranks.txt"

echo "kind,gpus,n,time_step,time_kernel,time_exchange,interactions_per_s" \
	>"$OUT/scaling.csv"
one() { # KIND GPUS N
	log="$OUT/run_$1_$2_$3.txt"
	if [ "$2" = 1 ]; then
		timeout 280 bin/nbody --ic cube -n "$3" --steps "$STEPS" \
			--device "$DEV" --csv >"$log" 2>"$log.err" || return
		x=0
	else
		# GPU use while it runs: both must be busy
		smi --query-gpu=index,utilization.gpu --format=csv,noheader \
			-lms 500 >"$log.smi" 2>&1 &
		smi=$!
		timeout 280 mpirun -np "$2" bin/nbody --ic cube -n "$3" \
			--steps "$STEPS" --device "$DEV" --csv >"$log" 2>"$log.err"
		rc=$?
		kill $smi 2>/dev/null
		[ $rc = 0 ] || { cat "$log.err"; return; }
		x=$(sed -n 's/.*exchanges \([0-9.e+-]*\) s.*/\1/p' "$log.err")
	fi
	awk -F, -v k="$1" -v g="$2" -v x="$x" 'NR == 2 {
		printf "%s,%s,%s,%s,%s,%s,%s\n", k, g, $2, $14, $16, x, $17 }' \
		"$log" | tee -a "$OUT/scaling.csv"
}
for n in $NS; do
	one strong 1 $n
	one strong 2 $n
done
for n in $NW; do
	one weak 2 $(awk -v n=$n 'BEGIN { printf "%d", n * sqrt(2) + 0.5 }')
done
awk -F, 'NR > 1 && $1 == "strong" { if ($2 == 1) one[$3] = $4
		else { two[$3] = $4; xs[$3] = $6 } }
	NR > 1 && $1 == "weak" { w[++a] = $3; tw[$3] = $4; xw[$3] = $6 }
	END {
		print "strong scaling (s a step): N, 1 GPU, 2 GPUs, efficiency T1/(2 T2), exchange a step"
		for (n = 1; n <= 2^31; n *= 2) if (n in one && n in two)
			printf "%8d  %.4g  %.4g  %.1f%%  %.3g s\n", n, one[n], two[n],
				100 * one[n] / (2 * two[n]), xs[n]
		print "weak scaling (the same work per GPU): N1, T1, N2, T2, efficiency T1/T2, exchange a step"
		for (i = 1; i <= a; i++) { m = w[i]; n = int(m / sqrt(2) + 0.5)
			if (n in one) printf "%8d  %.4g  %8d  %.4g  %.1f%%  %.3g s\n",
				n, one[n], m, tw[m], 100 * one[n] / tw[m], xw[m] }
	}' "$OUT/scaling.csv" | tee "$OUT/scaling.txt"
