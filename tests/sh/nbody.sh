# nbody.sh: bin/nbody end to end.  The built-in kernel is gravity.nbl;
# a Plummer sphere (N = 1024, 1000 steps of 1/256, eps = 1/64) keeps
# |dE/E| < 1e-4 (it measures ~1e-5 at most over seeds); one seed gives
# byte-identical snapshots, pictures and summary numbers (timings aside);
# user errors exit 1 with a message.  Runs on PoCL where there is one,
# else (an OpenCL CPU device missing, a GPU alone) on the host back end.
# Fresh seed each run; NBCC_TEST_SEED=S repeats one.
set -eu
. "$ROOT/tests/lib.sh"
NBODY=$BIN/nbody
scratch
test_seed nbody.sh
. "$ROOT/tests/device.sh"
DEV=host
if have_device cpu; then
	DEV=cpu
fi
echo "nbody.sh: device $DEV"

# the built-in kernel is dsl-examples/gravity.nbl (embedded at build
# time): the same code
code() { sed -e 's|//.*||' -e '/^[[:space:]]*$/d' "$1"; }
"$NBODY" --print-kernel >"$T/k.nbl"
code "$T/k.nbl" >"$T/k.code"
code "$ROOT/dsl-examples/gravity.nbl" >"$T/g.code"
[ -s "$T/k.code" ] && cmp -s "$T/k.code" "$T/g.code" ||
	die "the kernel built into bin/nbody differs from gravity.nbl"

# energy over 1000 steps; CSV columns: see docs/nbody.md
"$NBODY" --ic plummer -n 1024 --steps 1000 --dt 1/256 --eps 1/64 \
	--seed "$SEED" --device "$DEV" --csv >"$T/e.csv" 2>"$T/e.err"
[ ! -s "$T/e.err" ] || { cat "$T/e.err"; die "messages on a quiet run"; }
[ "$(sed -n 1p "$T/e.csv" | cut -d, -f10)" = de_rel ] || die "CSV header"
sed -n 2p "$T/e.csv" | awk -F, '{
	printf "nbody.sh: |dE/E| = %s, |dP| = %s, %s interactions/s\n", $10, $11, $17
	if (!($10 < 1e-4) || !($10 > 0) || !($11 < 1e-6) || !($17 > 0) || $7 != 3.90625)
		exit 1
}' || die "energy not conserved to 1e-4, or a bad summary"

# one seed, the same bytes; another seed, other bytes
run() {
	"$NBODY" --ic collision -n 300 --steps 20 --every 10 --seed "$1" \
		--device "$DEV" --out "$T/$2/snap" --png "$T/$2/png" --size 64 \
		--csv >"$T/$2.csv"
}
run "$SEED" a
run "$SEED" b
run $((SEED + 1)) c
for f in snap/snap_000000.csv snap/snap_000010.csv snap/snap_000020.csv \
	png/frame_000000.png png/frame_000010.png png/frame_000020.png; do
	[ -s "$T/a/$f" ] || die "missing $f"
	cmp -s "$T/a/$f" "$T/b/$f" || die "$f differs between two runs"
done
[ "$(ls "$T/a/snap" | wc -l)" = 3 ] || die "snapshots other than 0, 10, 20"
cut -d, -f1-13 "$T/a.csv" >"$T/a.num"
cut -d, -f1-13 "$T/b.csv" >"$T/b.num"
cmp -s "$T/a.num" "$T/b.num" || die "summary numbers differ between runs"
! cmp -s "$T/a/snap/snap_000020.csv" "$T/c/snap/snap_000020.csv" ||
	die "another seed gave the same snapshot"
head -c 2 "$T/a/snap/snap_000010.csv" | grep -q '^#' || die "snapshot header"
[ "$(sed -n 2p "$T/a/snap/snap_000010.csv")" = "id,m,x,y,z,vx,vy,vz,ax,ay,az,pot" ] ||
	die "snapshot columns"
[ "$(wc -l <"$T/a/snap/snap_000010.csv")" = 302 ] || die "snapshot rows"

# the text summary
"$NBODY" -n 64 --steps 2 --device "$DEV" >"$T/sum.txt"
for w in "energy:" "momentum:" "time/step:" "GFLOPS:" "device:"; do
	grep -q "^$w" "$T/sum.txt" || die "summary lacks '$w'"
done
# where the bodies came from: an --ic file is named and claims no seed; a
# restart names its snapshot and the IC the run began from, the IC file
# of a run of a file's bodies too (its snapshots keep the name, any bytes
# of it, through restarts and in CSV and HDF5), "from a file" where a
# snapshot does not name it
S0=$T/a/snap/snap_000000.csv S10=$T/a/snap/snap_000010.csv
first() { "$NBODY" "$@" --steps 1 --device "$DEV" | sed -n 1p; }
[ "$(first --ic "$S0")" = "nbody: $S0, N = 300, dt = 0.0078125, eps = 0.015625, 1 steps (t = 0.0078125)" ] ||
	die "an --ic file's summary: $(first --ic "$S0")"
"$NBODY" --ic "$S0" --steps 1 --device "$DEV" --csv |
	awk -F, 'NR == 2 { exit !($1 == "file" && $3 == "") }' ||
	die "an --ic file's CSV line has a seed"
case $(first --restart "$S10") in
"nbody: $S10 (a restart; IC collision), N = 300, seed $SEED, dt = "*) ok ;;
*) die "a restart's summary: $(first --restart "$S10")" ;;
esac
"$NBODY" --ic "$S0" --steps 1 --device "$DEV" --out "$T/fromfile" >/dev/null
case $(first --restart "$T/fromfile/snap_000001.csv") in
"nbody: $T/fromfile/snap_000001.csv (a restart; IC $S0), N = 300, dt = "*) ok ;;
*) die "a restart of a file's run: $(first --restart "$T/fromfile/snap_000001.csv")" ;;
esac
odd="$T/my ic=100%.csv"
cp "$S0" "$odd"
for fmt in csv hdf5; do
	"$NBODY" --ic "$odd" --steps 1 --device "$DEV" --out "$T/odd" \
		--format $fmt >/dev/null
	"$NBODY" --restart "$T/odd/snap_000001.$fmt" --steps 1 --device "$DEV" \
		--out "$T/odd" --format $fmt >/dev/null
	case $(first --restart "$T/odd/snap_000002.$fmt") in
	"nbody: $T/odd/snap_000002.$fmt (a restart; IC $odd), N = 300, dt = "*) ok ;;
	*) die "a restart of a restart of '$odd' ($fmt): $(first --restart "$T/odd/snap_000002.$fmt")" ;;
	esac
done
# a restart with --every from a snapshot on a multiple of it (the usual
# case) writes from its next snapshot on: its own file is neither
# rewritten (a CSV one refused as the run's input) nor written again in
# the other format, nor its picture drawn again
for fmt in csv hdf5; do
	"$NBODY" --ic "$S0" --steps 2 --every 2 --device "$DEV" \
		--out "$T/every_$fmt" --format $fmt >/dev/null
	cp "$T/every_$fmt/snap_000002.$fmt" "$T/every_$fmt.kept"
	for other in csv hdf5; do
		"$NBODY" --restart "$T/every_$fmt/snap_000002.$fmt" --steps 2 \
			--every 2 --device "$DEV" --out "$T/every_$fmt" \
			--format $other --png "$T/every_png_$fmt" >/dev/null ||
			die "a restart from step 2 with --every 2 ($fmt to $other) failed"
		[ -e "$T/every_$fmt/snap_000004.$other" ] ||
			die "a restart with --every 2 ($fmt to $other) wrote no step 4"
		[ "$other" = "$fmt" ] || [ ! -e "$T/every_$fmt/snap_000002.$other" ] ||
			die "a restart ($fmt to $other) wrote its own step again"
		[ ! -e "$T/every_png_$fmt/frame_000002.png" ] ||
			die "a restart ($fmt to $other) drew its own step again"
		rm -f "$T/every_$fmt/snap_000004.$other"
	done
	cmp -s "$T/every_$fmt/snap_000002.$fmt" "$T/every_$fmt.kept" ||
		die "a restart ($fmt) changed the snapshot it started from"
done
# a restart snapshot cut short at a line's end is refused, not run with
# the bodies left (its comment line says n=300)
head -n 100 "$T/fromfile/snap_000001.csv" >"$T/cut.csv"
"$NBODY" --restart "$T/cut.csv" --steps 1 --device "$DEV" >/dev/null 2>"$T/err" &&
	die "a snapshot cut short at a line's end was taken"
grep -q "cut.csv: 98 bodies, and its comment line says n=300" "$T/err" ||
	die "a snapshot cut short: $(cat "$T/err")"
ok
# a file's bodies have no seed: the snapshot says none (and names the file)
sed -n 1p "$T/fromfile/snap_000001.csv" | grep -q " seed=" &&
	die "a snapshot of an --ic file's run names a seed"
sed -n 1p "$T/fromfile/snap_000001.csv" | grep -q " icfile=" ||
	die "a snapshot of an --ic file's run does not name the file"
sed '1s/ icfile=[^ ]*//' "$T/fromfile/snap_000001.csv" >"$T/noname.csv"
case $(first --restart "$T/noname.csv") in
"nbody: $T/noname.csv (a restart; IC from a file), N = 300, dt = "*) ok ;;
*) die "a restart of a snapshot that does not name its IC: $(first --restart "$T/noname.csv")" ;;
esac
sed '1s/ icfile=[^ ]*/ icfile=a%00b/' "$T/fromfile/snap_000001.csv" >"$T/badname.csv"
"$NBODY" --restart "$T/badname.csv" --steps 1 --device "$DEV" >/dev/null 2>"$T/err" &&
	die "a snapshot's icfile with %00 was taken"
grep -q "badname.csv:1: bad icfile" "$T/err" || die "bad icfile: $(cat "$T/err")"

# user errors: exit 1, one clear message, no crash
: >"$T/plain"
printf 'LMEM xi;\nBMEM xj;\nRMEM r;\nr += xj - xi;\n' >"$T/other.nbl"
refused() { # MESSAGE ARGS: nbody ARGS fails with MESSAGE
	want=$1
	shift
	set +e
	"$NBODY" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	[ "$rc" = 1 ] || die "nbody $* exited $rc, not 1"
	grep -q "^nbody: error: .*$want" "$T/err" ||
		{ cat "$T/err"; die "nbody $*: no message about '$want'"; }
	[ ! -s "$T/out" ] || die "nbody $* printed a summary"
	ok
}
# --log where the run writes a snapshot or a picture: the log, written
# last, would replace it
mkdir -p "$T/clash"
refused "names its snapshots" -n 8 --steps 1 --device host --out "$T/clash" \
	--log "$T/clash/snap_000000.csv"
refused "names its pictures" -n 8 --steps 1 --device host --png "$T/clash" \
	--log "$T/clash/./energy.png"
# an --ic or --restart file that is a snapshot the run writes later: it
# failed there, having written over the snapshots of the steps before
"$NBODY" -n 8 --steps 2 --every 1 --device host --out "$T/self" >/dev/null
cksum "$T/self/"* >"$T/self.sum"
refused "snap_000002.csv is the snapshot of step 2 that --out" \
	--ic "$T/self/snap_000002.csv" --steps 2 --device host --out "$T/self"
cp "$T/self/snap_000001.csv" "$T/self/snap_000003.csv"
refused "snap_000003.csv is the snapshot of step 3 that --out" \
	--restart "$T/self/snap_000003.csv" --steps 2 --device host --out "$T/self"
rm "$T/self/snap_000003.csv"
cksum "$T/self/"* | cmp -s - "$T/self.sum" ||
	die "a refused --ic or --restart wrote over its run's snapshots"
# where the run writes no snapshot of that name, it runs
"$NBODY" --restart "$T/self/snap_000002.csv" --steps 2 --every 2 \
	--device host --out "$T/self" >/dev/null && [ -f "$T/self/snap_000004.csv" ] ||
	die "a restart into its own --out"
ok
refused "from 1 to" -n 0
refused "from 1 to" -n -5
refused "integer" -n 12x
refused "needs a value" -n
refused "above 0" --dt 0
refused "above 0" --dt=-0.5
refused "number" --dt nan
refused "positive" --eps 0
# eps^2 beyond float's range (float gravity.nbl) or double's (hermite.nbl)
refused "eps2 = 4e+38 is out of range for float" --eps 2e19 --device "$DEV"
refused "eps2 = inf is out of range for double" --eps 1e200 \
	--integrator hermite --device "$DEV"
# eps^2 below the normal range (0 in double, subnormal in float): the run
# failed a step later blaming dt, or Hermite's ran with E = 7.8e200 (the
# m_i/eps it takes out of j = i's potential, which eps2 = 0 had left out)
refused "--eps 1e-200: eps2 = 0 is below double's smallest normal" \
	--eps 1e-200 --precision=double --device "$DEV"
refused "--eps 1e-20: eps2 = 1e-40 is below float's smallest normal" \
	--eps 1e-20 --device "$DEV"
refused "eps2 = 0 is below double's smallest normal" --eps 1e-200 \
	--integrator hermite --device "$DEV"
# eps2 in range but m/eps^3 beyond it in j = i's 0 * m/eps^3 (float:
# eps < 1e-13; Hermite's double: 1e-120): the first forces NaN, which the
# first step's message blamed on dt or eta
refused "the first forces are not finite .*--eps 1e-14 is too small" \
	--eps 1e-14 --device "$DEV"
refused "the first forces are not finite .*--eps 1e-120 is too small" \
	--eps 1e-120 --integrator hermite --device "$DEV"
# and without softening two bodies 1e-160 apart (r^-3 overflows double)
printf 'x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,0.5\n1e-160,0,0,0,0,0,0.5\n1,0,0,0,0,0,0.1\n' \
	>"$T/close.csv"
refused "the first forces are not finite .*two bodies are too close" \
	--ic "$T/close.csv" --eps 0 --integrator hermite --device "$DEV"
refused "unknown --ic" --ic galaxy
refused "from 0 to" --steps -1
refused "unknown option" --bogus
refused "precision" --precision=quad
refused "not a directory" --out "$T/plain"
refused "cannot create" --out "$T/plain/sub"
refused "lacks LMEM yi" --kernel "$T/other.nbl" --device "$DEV" --out "$T/ro"
refused "cannot run" --target=amdil --device host
refused "" --kernel "$T/none.nbl" --device "$DEV"
refused "" --device no-such-device-anywhere
if [ "$DEV" = cpu ]; then
	refused "cannot run" --target=c --device cpu
fi
# the failed run above made --out but left nothing in it (no probe file)
[ -z "$(ls -A "$T/ro")" ] || die "files left behind in --out"
finish nbody.sh
