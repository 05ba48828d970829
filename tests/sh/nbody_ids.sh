# nbody_ids.sh: bin/nbody keeps the bodies' IDs of its initial conditions
# (issue 28 item 8), and a damaged HDF5 file cannot crash it (item 23).
#   - an --ic CSV with random 64-bit IDs in no order (2^64 - 1 and 0
#     among them) -> an HDF5 snapshot -> a restart -> a CSV snapshot, and
#     the same through CSV only: every snapshot has the IDs of the file,
#     row for row;
#   - the issue's damaged snapshot (byte 2303 of nbody's 16-body snapshot
#     set to 0x80, which made libhdf5 1.10.8 read out of bounds) and a few
#     more such bytes: nbody reads it or refuses it with its message, and
#     the sanitized build reports no fault of nbody's own process.
# Fresh IDs each run; NBCC_TEST_SEED=S repeats one.
set -eu
. "$ROOT/tests/lib.sh"
NBODY=$BIN/nbody
scratch
test_seed nbody_ids.sh
shared_cache

# eight bodies, IDs of 19 random digits (below 2^64), and the extremes
awk -v seed="$SEED" 'BEGIN {
	srand(seed)
	print "id,x,y,z,vx,vy,vz,m"
	for (i = 0; i < 8; i++) {
		if (i == 2) id = "18446744073709551615"
		else if (i == 5) id = "0"
		else { id = int(1 + 9 * rand()); for (k = 0; k < 18; k++) id = id int(10 * rand()) }
		printf "%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,0.125\n", id, rand() - 0.5,
			rand() - 0.5, rand() - 0.5, 0.1 * rand(), 0.1 * rand(),
			0.1 * rand()
	}
}' >"$T/ic.csv"
cut -d, -f1 "$T/ic.csv" | sed 1d >"$T/want"

ids_of() { # FILE: a CSV snapshot's IDs, one a line
	sed '1,2d' "$1" | cut -d, -f1
}
for hops in "hdf5 csv" "csv csv"; do
	set -- $hops
	"$NBODY" --ic "$T/ic.csv" --steps 2 --device host --out "$T/a$1" \
		--format "$1" >/dev/null || die "nbody --ic ic.csv --format $1"
	"$NBODY" --restart "$T/a$1/snap_000002.$1" --steps 2 --device host \
		--out "$T/b$1" --format "$2" >/dev/null ||
		die "nbody --restart snap_000002.$1"
	ids_of "$T/b$1/snap_000004.csv" >"$T/got"
	cmp -s "$T/want" "$T/got" ||
		{ paste "$T/want" "$T/got"; die "IDs after --ic, $1, restart, $2"; }
	ok
done
# an HDF5 snapshot read as initial conditions keeps them too
"$NBODY" --ic "$T/ahdf5/snap_000000.hdf5" --steps 0 --device host \
	--out "$T/c" >/dev/null
ids_of "$T/c/snap_000000.csv" >"$T/got"
cmp -s "$T/want" "$T/got" || die "IDs of an HDF5 snapshot as --ic"
ok
echo "nbody_ids.sh: IDs kept through snapshots and restarts"

# damaged HDF5 files: read, or refused with nbody's message, never a crash
"$NBODY" --ic plummer -n 16 --steps 2 --device host --out "$T/s" \
	--format hdf5 >/dev/null
for cut in 2303:128 4173:255 4239:255 3197:255; do
	at=${cut%:*}
	cp "$T/s/snap_000000.hdf5" "$T/bad.hdf5"
	printf "\\$(printf %03o "${cut#*:}")" |
		dd of="$T/bad.hdf5" bs=1 seek="$at" conv=notrunc 2>/dev/null
	set +e
	"$NBODY" --ic "$T/bad.hdf5" --steps 0 --device host >/dev/null \
		2>"$T/err"
	rc=$?
	set -e
	# a refusal is nbody's last word; whatever the reader's child process
	# printed before it (a sanitizer's report of libhdf5) is contained
	if [ $rc = 0 ] || { [ $rc = 1 ] &&
		tail -n 1 "$T/err" | grep -q '^nbody: error: .*bad.hdf5: '; }; then
		ok
	else
		tail -n 20 "$T/err"
		bad "byte $at set to ${cut#*:}: nbody exited $rc"
	fi
done
finish
