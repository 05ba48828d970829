# slurm.sh: nbrun, nbody and oneloop started by Slurm's `srun --mpi=pmix`
# (one task a rank, as on a cluster; docs/mpi.md) against one process and
# mpirun -np 2: on the host back end the same bits (nbody's summary and
# snapshots, --tree's too), on PoCL within float's rounding; every task a
# rank of one run (rank 1's device lines, nbody's line of the ranks'
# costs); a device missing on rank 1 and a task killed mid-run end the
# step within seconds, not 0, with one message.  Skipped where there is
# no srun or no Slurm controller answers (scripts/slurm-local.sh sets up
# one node as root), or the programs were built without MPI.  Fresh seed
# each run; NBCC_TEST_SEED=S repeats one.
# tags: slow
set -eu
. "$ROOT/tests/lib.sh"
scratch
if ! command -v srun >/dev/null 2>&1; then
	echo "skipped: no srun (Slurm); scripts/slurm-local.sh installs and" \
		"starts a one-node Slurm as root"
	exit 77
fi
if ! scontrol ping 2>/dev/null | grep -q UP; then
	echo "skipped: srun is here but no Slurm controller answers" \
		"(scripts/slurm-local.sh starts one)"
	exit 77
fi
if ! ldd "$BIN/nbrun" 2>/dev/null | grep -q libmpi; then
	echo "skipped: bin/nbrun built without MPI (Debian: libopenmpi-dev, then make)"
	exit 77
fi
test_seed slurm.sh
. "$ROOT/tests/device.sh"
. "$ROOT/tests/ranks.sh"
rank_env
shared_cache
# a step of 2 tasks (more than the node's cores allowed), quiet about
# waiting for the last step's cores; PMIx, which Debian's Open MPI
# speaks (its PMI-2 is not built)
srun2() {
	timeout 90 srun -n 2 --overcommit --mpi=pmix --quiet "$@"
}

# nbrun: one process, mpirun and srun, the same bits on the host
G="$ROOT/dsl-examples/gravity.nbl"
A="--target c $G --random 1001,777 --seed $SEED --const eps2=0.01"
"$BIN/nbrun" $A -o "$T/g1.csv" 2>/dev/null
timeout 60 mpirun -np 2 "$BIN/nbrun" $A -o "$T/gm.csv" 2>/dev/null ||
	die "nbrun under mpirun"
srun2 "$BIN/nbrun" $A -o "$T/gs.csv" 2>"$T/err" || { cat "$T/err"; die "nbrun under srun"; }
cmp -s "$T/g1.csv" "$T/gs.csv" || die "nbrun under srun differs from one process"
cmp -s "$T/gm.csv" "$T/gs.csv" || die "nbrun under srun differs from mpirun"
ok "nbrun: srun -n 2 gives one process's and mpirun's bits"
# both tasks are ranks of one run, each with its device
srun2 "$BIN/nbrun" --device host --device-info >"$T/info" 2>"$T/err" ||
	{ cat "$T/err"; die "nbrun --device-info under srun"; }
grep -q '^rank 1: ' "$T/info" || die "srun: no rank 1 in --device-info: $(head -n 3 "$T/info")"
ok "nbrun --device-info: rank 0 and rank 1"

# nbody: the leap-frog and the treecode, summary and snapshots
for how in "" "--tree"; do
	B="-n 300 --steps 3 --seed $SEED --device host --csv $how"
	"$BIN/nbody" $B --out "$T/o1" >"$T/b1.csv" 2>/dev/null
	timeout 60 mpirun -np 2 "$BIN/nbody" $B --out "$T/om" >"$T/bm.csv" 2>/dev/null ||
		die "nbody $how under mpirun"
	srun2 "$BIN/nbody" $B --out "$T/os" >"$T/bs.csv" 2>"$T/err" ||
		{ cat "$T/err"; die "nbody $how under srun"; }
	grep -q "^nbody: 2 ranks; a step: " "$T/err" || die "nbody $how under srun: not 2 ranks"
	same() { # the summary's first 11 fields (not the timings) and snapshots
		[ "$(cut -d, -f1-11 "$T/b$1.csv")" = "$(cut -d, -f1-11 "$T/bs.csv")" ] &&
			diff -r "$T/o$1" "$T/os" >/dev/null
	}
	same m || die "nbody $how: srun and mpirun differ"
	# (the treecode's i-groups are a rank's own: its bits are those of 2 ranks)
	[ -n "$how" ] || same 1 || die "nbody: srun differs from one process"
	ok "nbody $how: srun -n 2 as mpirun -np 2"
	rm -rf "$T/o1" "$T/om" "$T/os"
done

# oneloop --scan: the rows shared among the tasks
printf 'lambda,s,t,me,mf\n0.1,-1,-1,1,1\n0.1,-2,-0.5,1,1\n0.05,-0.5,-3,1,2\n' >"$T/scan.csv"
"$BIN/oneloop" --n 16 --device host --scan "$T/scan.csv" >"$T/c1.csv"
srun2 "$BIN/oneloop" --n 16 --device host --scan "$T/scan.csv" >"$T/cs.csv" ||
	die "oneloop --scan under srun"
[ "$(cut -d, -f1-11 "$T/c1.csv")" = "$(cut -d, -f1-11 "$T/cs.csv")" ] ||
	die "oneloop --scan under srun differs"
ok "oneloop --scan: srun -n 2 as one process"

# PoCL: within float's rounding of one process
if [ -z "${NBCC_SANITIZED:-}" ] && have_device cpu; then
	P="--device cpu $G --random 999,500 --seed $SEED --const eps2=0.01"
	"$BIN/nbrun" $P -o "$T/p1.csv" 2>/dev/null
	srun2 "$BIN/nbrun" $P -o "$T/ps.csv" 2>/dev/null || die "nbrun PoCL under srun"
	close "$T/p1.csv" "$T/ps.csv" 1e-5 || die "nbrun PoCL under srun differs"
	ok "nbrun PoCL: srun -n 2 within 1e-5"
fi

# faults: task 1 finds no such device; task 1 killed after 2 s of a long
# run (Slurm's PMIx plugin ends the step: "Job step aborted")
fails "nbrun: error: rank 1: no OpenCL device matches 'nosuchdevice' (devices: " \
	srun -n 2 --overcommit --mpi=pmix --quiet sh -c \
	'[ "$SLURM_PROCID" = 1 ] && export NBRT_DEVICE=nosuchdevice; exec "$0" "$@"' \
	"$BIN/nbrun" --random 5,5 "$G"
ok "a device missing on task 1: $(grep '^nbrun: error: ' "$T/err")"
t0=$(date +%s)
rc=0
srun2 sh -c '[ "$SLURM_PROCID" = 1 ] && (sleep 2; kill -9 $$) & exec "$0" "$@"' \
	"$BIN/nbody" -n 3000 --steps 1000000 --device host >/dev/null 2>"$T/err" || rc=$?
[ $rc != 124 ] || die "a hang after a task was killed"
[ $rc != 0 ] || die "exit 0 after a task was killed"
[ -n "${NBCC_SANITIZED:-}" ] || [ $(($(date +%s) - t0)) -lt 30 ] ||
	die "a killed task: the other ran on"
grep -q "task 1: Killed" "$T/err" || { cat "$T/err"; die "a killed task: no report"; }
ok "task 1 killed: srun ended with status $rc in $(($(date +%s) - t0)) s"
finish slurm.sh
