# mpi.sh: nbrun, nbody and oneloop across MPI ranks (docs/mpi.md) against
# the same programs in one process: mpirun -np 2 and -np 3 (more ranks
# than this 2-core machine has cores) on the host back end, bit for bit,
# and on PoCL within float's rounding; a split with more ranks than
# i-elements; and failures on one rank (a device it cannot open, a
# kernel build that fails, other arguments, other bodies, a rank killed
# mid-run; no GPU for --device gpu) that end every rank with one
# message, never a hang; nbrun --tree and nbody --tree against the
# direct sum; a CONST's gradient's total over i from the gathered
# column.  Skipped where the programs were
# built without MPI or mpirun is missing.  Fresh seed each run;
# NBCC_TEST_SEED=S repeats one.
# tags: slow
set -eu
. "$ROOT/tests/lib.sh"
scratch
if ! command -v mpirun >/dev/null 2>&1 ||
	! ldd "$BIN/nbrun" 2>/dev/null | grep -q libmpi; then
	echo "skipped: bin/nbrun built without MPI, or no mpirun (mpi.sh;" \
		"Debian: openmpi-bin libopenmpi-dev, then make)"
	exit 77
fi
test_seed mpi.sh
. "$ROOT/tests/device.sh"

. "$ROOT/tests/ranks.sh"
rank_env
# PMIx (Open MPI 4's launcher) tries munge's socket for its security
# first, and where munge is installed without its daemon running (a
# machine with Slurm's packages, as this one) it retries for 2.25 s
# before it falls back: 2.5 s of every mpirun, 90 s of this script.
# Ranks of one host need no munge; a setting of the caller's is kept.
export PMIX_MCA_psec="${PMIX_MCA_psec:-^munge}"
shared_cache
# The sanitized pass keeps to 2 ranks and the host (make check's time).
NPS="2 3"
[ -z "${NBCC_SANITIZED:-}" ] || NPS=2
mpi() { # NP PROGRAM ARGS...: a run that must end within 60 s
	np=$1
	shift
	timeout 60 mpirun -np "$np" "$@"
}

# nbrun: gravity on random bodies (float), and in double on a file of
# bodies (rank 0 reads it), bit for bit on the host
G="$ROOT/dsl-examples/gravity.nbl"
"$BIN/nbrun" --target c "$G" --random 1001,777 --seed "$SEED" \
	--const eps2=0.01 -o "$T/g1.csv" 2>"$T/err"
for np in $NPS; do
	mpi $np "$BIN/nbrun" --target c "$G" --random 1001,777 --seed "$SEED" \
		--const eps2=0.01 -o "$T/g$np.csv" 2>"$T/err" ||
		{ cat "$T/err"; die "nbrun -np $np"; }
	cmp -s "$T/g1.csv" "$T/g$np.csv" || die "nbrun -np $np differs (host)"
	[ "$(grep -c -- --seed "$T/err")" = 1 ] || die "nbrun -np $np: one note"
done
# more ranks than i-elements: one rank runs none
"$BIN/nbrun" --target c "$G" --random 2,9 --seed "$SEED" --const eps2=0.01 \
	-o "$T/s1.csv" 2>/dev/null
mpi 3 "$BIN/nbrun" --target c "$G" --random 2,9 --seed "$SEED" \
	--const eps2=0.01 -o "$T/s3.csv" 2>/dev/null || die "nbrun 3 ranks, Ni = 2"
cmp -s "$T/s1.csv" "$T/s3.csv" || die "nbrun 3 ranks, Ni = 2 differs"
# a file of bodies (the results above, as positions and masses)
M="--map xi=ax,yi=ay,zi=az,xj=ax,yj=ay,zj=az,mj=pot"
"$BIN/nbrun" --target c "$G" --precision=double --ij "$T/g1.csv" $M \
	--const eps2=0.5 -o "$T/f1.csv"
mpi 3 "$BIN/nbrun" --target c "$G" --precision=double --ij "$T/g1.csv" $M \
	--const eps2=0.5 -o "$T/f3.csv" || die "nbrun --ij -np 3"
cmp -s "$T/f1.csv" "$T/f3.csv" || die "nbrun --ij -np 3 differs"
# a CONST's gradient (--grad=eps2): rank 0 prints each per-i column's
# total over i (docs/autodiff.md) from the gathered column, once, the
# same as one process's
D="--target c $G --precision=double --grad=eps2 --random 101,77 --const eps2=0.01"
"$BIN/nbrun" $D --seed "$SEED" -o "$T/d1.csv" 2>"$T/d1.err"
mpi 3 "$BIN/nbrun" $D --seed "$SEED" -o "$T/d3.csv" 2>"$T/d3.err" ||
	{ cat "$T/d3.err"; die "nbrun --grad=eps2 -np 3"; }
cmp -s "$T/d1.csv" "$T/d3.csv" || die "nbrun --grad=eps2 -np 3 differs"
[ "$(grep -c '^total: d[a-z]*_deps2 = ' "$T/d1.err")" = 4 ] &&
	[ "$(grep '^total: ' "$T/d1.err")" = "$(grep '^total: ' "$T/d3.err")" ] ||
	die "nbrun --grad=eps2 -np 3: totals '$(grep '^total: ' "$T/d3.err")', one process's '$(grep '^total: ' "$T/d1.err")'"

POCL=
[ -n "${NBCC_SANITIZED:-}" ] || ! have_device cpu || POCL=cpu
if [ -n "$POCL" ]; then
	"$BIN/nbrun" --device cpu "$G" --random 999,500 --seed "$SEED" \
		--const eps2=0.01 -o "$T/p1.csv" 2>/dev/null
	mpi 2 "$BIN/nbrun" --device cpu "$G" --random 999,500 --seed "$SEED" \
		--const eps2=0.01 -o "$T/p2.csv" 2>/dev/null || die "nbrun PoCL -np 2"
	close "$T/p1.csv" "$T/p2.csv" 1e-5 || die "nbrun PoCL -np 2 differs"
fi

# nbody: the leap-frog and the Hermite scheme; summaries and snapshots
# bit for bit on the host
for integ in leapfrog hermite; do
	A="-n 200 --steps 3 --seed $SEED --integrator $integ --csv"
	"$BIN/nbody" $A --device host --out "$T/o1" >"$T/b1.csv"
	for np in $NPS; do
		rm -rf "$T/o$np"
		mpi $np "$BIN/nbody" $A --device host --out "$T/o$np" \
			>"$T/b$np.csv" 2>"$T/err" || { cat "$T/err"; die "nbody -np $np"; }
		[ "$(cut -d, -f1-11 "$T/b1.csv")" = "$(cut -d, -f1-11 "$T/b$np.csv")" ] ||
			die "nbody $integ -np $np: the summary differs"
		diff -r "$T/o1" "$T/o$np" >/dev/null ||
			die "nbody $integ -np $np: the snapshots differ"
		grep -q "^nbody: $np ranks; a step: " "$T/err" ||
			die "nbody -np $np: no line of the ranks' costs"
	done
done
if [ -n "$POCL" ]; then
	A="-n 300 --steps 3 --seed $SEED --csv --device cpu --out"
	"$BIN/nbody" $A "$T/q1" >/dev/null
	# (the bodies stay on the device, each rank's part in arrays of
	# its own; with fewer bodies than ranks, on the host)
	for np in $NPS; do
		mpi $np "$BIN/nbody" $A "$T/q$np" >/dev/null 2>&1 || die "nbody PoCL -np $np"
		close "$T/q1/snap_000003.csv" "$T/q$np/snap_000003.csv" 1e-5 ||
			die "nbody PoCL -np $np: the last snapshot differs"
	done
	"$BIN/nbody" -n 2 --steps 2 --csv --device cpu >"$T/n1.csv"
	mpi 3 "$BIN/nbody" -n 2 --steps 2 --csv --device cpu >"$T/n3.csv" 2>/dev/null ||
		die "nbody PoCL, 2 bodies on 3 ranks"
	[ "$(cut -d, -f1-11 "$T/n1.csv")" = "$(cut -d, -f1-11 "$T/n3.csv")" ] ||
		die "nbody PoCL, 2 bodies on 3 ranks: the summary differs"
fi

# oneloop: the points shared, and a scan's rows shared (columns in
# another order, a comment, a blank line)
"$BIN/oneloop" --n 24 --device host --csv >"$T/l1.csv"
mpi 3 "$BIN/oneloop" --n 24 --device host --csv >"$T/l3.csv" ||
	die "oneloop -np 3"
[ "$(cut -d, -f1-10 "$T/l1.csv")" = "$(cut -d, -f1-10 "$T/l3.csv")" ] ||
	die "oneloop -np 3 differs"
printf '# s, t and the masses, and the photon mass\nlambda,s,t,me,mf\n0.01,-1,-1,1,1\n\n0.1,-2,-0.5,1,1\n0.05,-1,-1,1,2\n' >"$T/scan.csv"
"$BIN/oneloop" --n 24 --device host --scan "$T/scan.csv" >"$T/c1.csv"
mpi 2 "$BIN/oneloop" --n 24 --device host --scan "$T/scan.csv" \
	>"$T/c2.csv" || die "oneloop --scan -np 2"
[ "$(cut -d, -f1-11 "$T/c1.csv")" = "$(cut -d, -f1-11 "$T/c2.csv")" ] ||
	die "oneloop --scan -np 2 differs"
[ "$(wc -l <"$T/c2.csv")" = 4 ] || die "oneloop --scan: 3 rows"
# the deformed contour's largest Im D over the ranks' points (each rank
# reduces its own, then the largest of them): a contour that crosses
# D = 0 is refused with one rank's Im D
"$BIN/oneloop" --n 24 --device host --s 2 --lambda 0.5 --kappa 1000 \
	2>"$T/d1" && die "oneloop: a crossing contour accepted"
mpi 3 "$BIN/oneloop" --n 24 --device host --s 2 --lambda 0.5 --kappa 1000 \
	2>"$T/d3" && die "oneloop -np 3: a crossing contour accepted"
grep -q 'crosses a zero of D' "$T/d1" &&
	[ "$(sed -n 's/^oneloop: error: rank [0-9]*: /oneloop: error: /p' "$T/d3" | sort -u)" = "$(cat "$T/d1")" ] ||
	die "oneloop -np 3, crossing contour: '$(cat "$T/d3")', one rank '$(cat "$T/d1")'"
# each row is the single integral at its parameters
"$BIN/oneloop" --n 24 --device host --csv --s -2 --t -0.5 --lambda 0.1 |
	sed -n 2p | cut -d, -f8 >"$T/one"
[ "$(sed -n 3p "$T/c2.csv" | cut -d, -f9)" = "$(cat "$T/one")" ] ||
	die "oneloop --scan: line 5 is not the integral at its parameters"
# s > 0: both RMEMs of the iε kernel (re and im) gathered from the ranks
E="--n 32 --device host --s 0.5 --lambda 1 --eps 0.05,0.5,8 --csv"
"$BIN/oneloop" $E >"$T/e1.csv"
mpi 2 "$BIN/oneloop" $E >"$T/e2.csv" || die "oneloop --eps -np 2"
[ "$(cut -d, -f8-10,17- "$T/e1.csv")" = "$(cut -d, -f8-10,17- "$T/e2.csv")" ] ||
	die "oneloop --eps -np 2 differs"

# the treecode across ranks: each rank walks the tree of every body for
# its part of the i-range, so its i-groups differ from one process's and
# the bits do too.  Against the direct sum (double, the host): every cell
# opened, within 1e-12; at theta 0.5, nbrun_tree.sh's bound on the median
# relative error, and nbody_tree.sh's on the energy's drift.
"$BIN/nbrun" --target c "$G" --precision=double --random 1500,1500 \
	--seed "$SEED" --const eps2=1e-4 -o "$T/td.csv" 2>/dev/null
"$BIN/nbody" -n 1000 --steps 20 --seed "$SEED" --device host \
	--precision double --csv >"$T/nd.csv"
for np in $NPS; do
	for th in 1e-9 0.5; do
		mpi $np "$BIN/nbrun" --target c "$G" --precision=double --random \
			1500,1500 --seed "$SEED" --const eps2=1e-4 --tree --theta $th \
			-o "$T/t$th.csv" 2>"$T/err" || { cat "$T/err"; die "nbrun --tree -np $np"; }
		mpi $np "$BIN/nbody" -n 1000 --steps 20 --seed "$SEED" --device host \
			--precision double --csv --tree --theta $th >"$T/n$th.csv" \
			2>"$T/err" || { cat "$T/err"; die "nbody --tree -np $np"; }
	done
	close "$T/t1e-9.csv" "$T/td.csv" 1e-12 ||
		die "nbrun --tree -np $np: every cell opened differs from the direct sum"
	paste -d, "$T/t0.5.csv" "$T/td.csv" | awk -F, 'NR > 1 { e = r = 0
		for (c = 1; c <= 3; c++) { d = $c - $(c + 4); e += d * d
			r += $(c + 4) * $(c + 4) } rel[n++] = sqrt(e / r) }
		END { for (i = 1; i < n; i++) for (j = i; j > 0 && rel[j - 1] > rel[j]; j--) {
			t = rel[j]; rel[j] = rel[j - 1]; rel[j - 1] = t }
		m = rel[int(n / 2)]; if (!(m > 0 && m < 5e-4)) {
			print "median relative error " m; exit 1 } }' ||
		die "nbrun --tree -np $np: theta 0.5 beyond the tree's error"
	# the summary's e0 and e (fields 8, 9): every cell opened, the direct
	# run's to 1e-12; at theta 0.5 a drift under 1e-4
	set -- $(sed -n 2p "$T/nd.csv" | cut -d, -f8,9 | tr , ' ') \
		$(sed -n 2p "$T/n1e-9.csv" | cut -d, -f8,9 | tr , ' ') \
		$(sed -n 2p "$T/n0.5.csv" | cut -d, -f8,9 | tr , ' ')
	awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" -v e="$5" -v f="$6" 'BEGIN {
		x = (a - c) / a; y = (b - d) / b; z = (f - e) / e
		exit !(x * x < 1e-24 && y * y < 1e-24 && z * z < 1e-8) }' ||
		die "nbody --tree -np $np: energies $3 $4 and $5 $6; direct $1 $2"
done

# failures on one rank end all of them, with one message (fails)
R="--target c $G --random 50,50 --seed 1 --const eps2=0.01 -o $T/x.csv"
fails "nbrun: error: rank 1: no OpenCL device matches 'nosuchdevice' (devices: " \
	mpirun -np 1 "$BIN/nbrun" --random 5,5 "$G" : \
	-np 1 -x NBRT_DEVICE=nosuchdevice "$BIN/nbrun" --random 5,5 "$G"
[ ! -e "$T/x.csv" ] || die "an output written by a failed run"
fails "nbrun: error: rank 2: its arguments differ from rank 0's (every rank must run the same command)" \
	mpirun -np 2 "$BIN/nbrun" $R : -np 1 "$BIN/nbrun" $R --repeat 2
# the kernel build fails on rank 2 alone (its compiler is false)
NBRT_CACHE=0 fails "$(NBRT_CACHE=0 NBRT_CC=false "$BIN/nbrun" $R 2>&1 |
	sed -n 's/^nbrun: error: /&rank 2: /p')" \
	mpirun -np 2 -x NBRT_CACHE "$BIN/nbrun" $R : -np 1 -x NBRT_CACHE -x NBRT_CC=false "$BIN/nbrun" $R
# every rank failing alike: the message once, without a rank
fails "nbody: error: bad value 'x' for --steps: expected an integer from 0 to 1000000000" mpirun -np 3 "$BIN/nbody" --steps x
# the same --ic path, another file on rank 1 (a node of its own)
mkdir "$T/a" "$T/b"
"$BIN/nbody" -n 20 --steps 0 --device host --out "$T/a" >/dev/null
"$BIN/nbody" -n 20 --steps 0 --seed 2 --device host --out "$T/b" >/dev/null
fails "nbody: error: rank 1: its bodies differ from rank 0's (--ic or --restart: is the file the same on every node?)" \
	mpirun -np 1 -wdir "$T/a" "$BIN/nbody" --ic snap_000000.csv --steps 1 --device host : \
	-np 1 -wdir "$T/b" "$BIN/nbody" --ic snap_000000.csv --steps 1 --device host
# no GPU here: --device gpu ends every rank alike, the message once
if ! have_device gpu; then
	fails "nbody: error: no OpenCL device matches 'gpu'" \
		mpirun -np 2 "$BIN/nbody" -n 100 --steps 1 --device gpu
fi
# a rank killed mid-run (kill -9 of rank 1 after 2 s of a long run):
# mpirun ends the others within seconds and names the rank and signal
t0=$(date +%s)
rc=0
timeout 60 mpirun -np 2 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] &&
	(sleep 2; kill -9 $$) & exec "$0" "$@"' "$BIN/nbody" -n 3000 \
	--steps 1000000 --device host >/dev/null 2>"$T/err" || rc=$?
[ $rc != 124 ] || die "a hang after a rank was killed"
[ $rc != 0 ] || die "exit 0 after a rank was killed"
# (the sanitized pass on a loaded machine is too slow to time)
[ -n "${NBCC_SANITIZED:-}" ] || [ $(($(date +%s) - t0)) -lt 30 ] ||
	die "a killed rank: the others ran on"
grep -q "rank 1 .*signal 9" "$T/err" || { cat "$T/err"; die "a killed rank: no report"; }
echo "mpi.sh: ok"
