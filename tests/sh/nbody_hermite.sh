# nbody_hermite.sh: what bin/nbody does for N-body users beyond paper 000.
#   - the Hermite scheme holds the energy of a small Plummer sphere over
#     one time unit (|dE/E| < 1e-6; ~1e-8 measured) on the host;
#   - 100 steps equal 50 steps, a restart and 50 more, bit for bit, for
#     both integrators and both snapshot formats;
#   - --ic reads a CSV or HDF5 file of bodies (a snapshot of nbody's own
#     included) and starts from the same state the model gave;
#   - --log writes a row a record step, --png an energy plot; a
#     snapshot's Potential is the corrected positions' with or without
#     --log (the same bytes);
#   - --timestep shared and fixed put every body on one step, and keep
#     it through restarts, bit for bit;
#   - the j-bodies predicted on the device (--predict device, the
#     default) give the bits of those predicted on the host (--predict
#     host), N = 1, 2, 97, eps 0 and not;
#   - bad files and flags: exit 1, a message naming the file and the row,
#     and nothing written (no --out directory made).
# The Hermite run on PoCL's CPU device too where there is one.  Fresh seed
# each run; NBCC_TEST_SEED=S repeats one.
set -eu
. "$ROOT/tests/lib.sh"
NBODY=$BIN/nbody
scratch
test_seed nbody_hermite.sh
. "$ROOT/tests/device.sh"
shared_cache

# snapshots, Potential included, do not depend on --log: every one comes
# from corrected positions, not the block step's predicted ones
for w in nolog log; do
	set -- --integrator hermite -n 64 --steps 4 --every 2 --seed "$SEED" \
		--device host --out "$T/pot_$w"
	[ $w = log ] && set -- "$@" --log "$T/pot.log"
	"$NBODY" "$@" >/dev/null || die "nbody $*"
done
for s in 000002 000004; do
	cmp -s "$T/pot_nolog/snap_$s.csv" "$T/pot_log/snap_$s.csv" ||
		die "a Hermite snapshot (step $s) depends on --log"
done
ok

# ... and a restart without --log goes on as a straight run with it did
"$NBODY" --restart "$T/pot_nolog/snap_000002.csv" --steps 2 --device host \
	--out "$T/pot_re" >/dev/null || die "nbody --restart"
cmp -s "$T/pot_log/snap_000004.csv" "$T/pot_re/snap_000004.csv" ||
	die "a restart without --log differs from a straight run with it"
ok

# the snapshot's Potential and the energy nbody reports at the end
# against an independent sum over pairs in awk (double): both from the
# corrected positions (the predicted ones' are ~1e-8 off here, 3e-7 at
# N = 1024 in the issue), so they agree to 1e-12
"$NBODY" --integrator hermite -n 64 --steps 4 --every 4 --seed "$SEED" \
	--device host --out "$T/pe" --csv >"$T/pe.csv" || die "nbody -n 64"
awk -F, -v eps=0.015625 -v e="$(sed -n 2p "$T/pe.csv" | cut -d, -f9)" '
function abs(v) { return v < 0 ? -v : v }
NR == 2 { for (c = 1; c <= NF; c++) col[$c] = c; next }
NR > 2 { n++; m[n] = $col["m"]; x[n] = $col["x"]; y[n] = $col["y"]
	z[n] = $col["z"]; pot[n] = $col["pot"]
	vx = $col["vx"]; vy = $col["vy"]; vz = $col["vz"]
	ek += 0.5 * m[n] * (vx * vx + vy * vy + vz * vz) }
END {
	for (i = 1; i <= n; i++) {
		p = 0
		for (j = 1; j <= n; j++)
			if (j != i) {
				dx = x[j] - x[i]; dy = y[j] - y[i]; dz = z[j] - z[i]
				p -= m[j] / sqrt(dx * dx + dy * dy + dz * dz + eps * eps)
			}
		if (abs(p - pot[i]) > 1e-12 * abs(p)) {
			printf "body %d: Potential %.17g, pairs give %.17g\n", i, pot[i], p
			bad = 1
		}
		ep += 0.5 * m[i] * p
	}
	printf "nbody_hermite.sh: E = %.17g reported, %.17g from pairs\n", e, ek + ep
	exit bad || n != 64 || abs(e - (ek + ep)) > 1e-12 * abs(e)
}' "$T/pe/snap_000004.csv" ||
	die "a Hermite snapshot's Potential or the final energy is not the corrected positions'"
ok

# the built-in Hermite kernel is dsl-examples/hermite.nbl
"$NBODY" --print-kernel --integrator hermite >"$T/k.nbl"
cmp -s "$T/k.nbl" "$ROOT/dsl-examples/hermite.nbl" ||
	die "the Hermite kernel built into bin/nbody differs from hermite.nbl"

# energy over one time unit, with a log and the energy plot
"$NBODY" --integrator hermite -n 256 --t-end 1 --seed "$SEED" \
	--device host --log "$T/log.csv" --png "$T/png" --size 32 --csv \
	>"$T/e.csv" 2>"$T/e.err"
[ ! -s "$T/e.err" ] || { cat "$T/e.err"; die "messages on a quiet run"; }
sed -n 2p "$T/e.csv" | awk -F, '{
	printf "nbody_hermite.sh: hermite N = 256, t = 1: |dE/E| = %s\n", $10
	if (!($10 < 1e-6) || !($10 > 0) || $7 != 1 || $4 != 16 || $6 != 0.015625)
		exit 1
}' || die "Hermite energy not conserved to 1e-6, or a bad summary"
[ "$(head -1 "$T/log.csv" | cut -d, -f1-7)" = "step,t,e,de_rel,ekin,epot,virial" ] ||
	die "log header"
[ "$(wc -l <"$T/log.csv")" = 18 ] || die "log rows: not 17 (--every 0: every step)"
awk -F, 'NR > 1 && !($7 > 0.3 && $7 < 0.7) { exit 1 }' "$T/log.csv" ||
	die "virial ratio far from 1/2"
[ -s "$T/png/energy.png" ] || die "no energy plot"

# restarts: bit for bit, both integrators, both formats on the host; on
# PoCL (the leap-frog's bodies in device memory there) the CSV ones
devs=host
have_device cpu && devs="host cpu"
for dev in $devs; do
	fmts="csv hdf5"
	[ $dev = host ] || fmts=csv
	for integ in leapfrog hermite; do
		dt=1/128
		[ $integ = hermite ] && dt=1/64
		for fmt in $fmts; do
			o="--integrator $integ -n 96 --dt $dt --seed $SEED --device $dev --format $fmt"
			# shellcheck disable=SC2086
			"$NBODY" $o --steps 100 --every 50 --out "$T/a" >/dev/null
			# shellcheck disable=SC2086
			"$NBODY" $o --steps 50 --out "$T/b" >/dev/null
			"$NBODY" --restart "$T/b/snap_000050.$fmt" --steps 50 \
				--device $dev --format $fmt --out "$T/b" --csv >"$T/r.csv"
			cmp -s "$T/a/snap_000100.$fmt" "$T/b/snap_000100.$fmt" ||
				die "$dev, $integ, $fmt: 100 steps differ from 50, a restart, 50 more"
			cmp -s "$T/a/snap_000050.$fmt" "$T/b/snap_000050.$fmt" ||
				die "$dev, $integ, $fmt: the restart rewrote its snapshot"
			rm -rf "$T/a" "$T/b"
		done
	done
done
echo "nbody_hermite.sh: restarts bit for bit ($devs)"

# --timestep shared and fixed: every body on one step, kept through a
# restart (the snapshot's integrator says which), bit for bit
for ts in shared fixed; do
	o="--integrator hermite --timestep $ts -n 96 --dt 1/64 --seed $SEED --device host"
	# shellcheck disable=SC2086
	"$NBODY" $o --steps 8 --every 4 --out "$T/a" >/dev/null
	# shellcheck disable=SC2086
	"$NBODY" $o --steps 4 --out "$T/b" >/dev/null
	"$NBODY" --restart "$T/b/snap_000004.csv" --steps 4 --device host \
		--out "$T/b" >/dev/null
	cmp -s "$T/a/snap_000008.csv" "$T/b/snap_000008.csv" ||
		die "--timestep $ts: 8 steps differ from 4, a restart, 4 more"
	grep -q "integrator=hermite_$ts " "$T/b/snap_000004.csv" ||
		die "--timestep $ts: the snapshot does not name it"
	awk -F, 'NR == 2 { for (c = 1; c <= NF; c++) if ($c == "dt") k = c }
		NR > 2 { if (dt == "") dt = $k; else if ($k != dt) exit 1 }' \
		"$T/a/snap_000008.csv" || die "--timestep $ts: bodies on different steps"
	cp "$T/b/snap_000004.csv" "$T/$ts.csv"
	rm -rf "$T/a" "$T/b"
done
ok

# --t-end after a restart counts from the snapshot's time
"$NBODY" -n 32 --steps 4 --device host --out "$T/c" >/dev/null
"$NBODY" --restart "$T/c/snap_000004.csv" --t-end 0.0625 --device host \
	--csv >"$T/t.csv"
[ "$(sed -n 2p "$T/t.csv" | cut -d, -f4,7)" = "4,0.0625" ] ||
	die "--t-end after a restart"

# --ic FILE: nbody's own snapshots (CSV and HDF5), and a plain CSV
"$NBODY" -n 64 --steps 0 --seed "$SEED" --device host --out "$T/s" --csv \
	>"$T/m.csv"
"$NBODY" -n 64 --steps 0 --seed "$SEED" --device host --out "$T/s" \
	--format hdf5 >/dev/null
for f in snap_000000.csv snap_000000.hdf5; do
	"$NBODY" --ic "$T/s/$f" --steps 0 --seed "$SEED" --device host --csv \
		>"$T/f.csv"
	[ "$(sed -n 2p "$T/f.csv" | cut -d, -f2,8)" = \
		"$(sed -n 2p "$T/m.csv" | cut -d, -f2,8)" ] ||
		die "--ic $f: not the state the model gave"
done
printf 'm,x,y,z,vx,vy,vz,id\n0.5,-0.5,0,0,0,-0.5,0,0\n0.5,0.5,0,0,0,0.5,0,1\n' \
	>"$T/two.csv"
"$NBODY" --ic "$T/two.csv" --integrator hermite --eps 0 --t-end 1 \
	--device host --csv >"$T/two.out"
sed -n 2p "$T/two.out" | awk -F, '{
	if ($1 != "file" || $2 != 2 || $8 != -0.125 || !($10 < 1e-6)) exit 1
}' || die "a circular binary from a plain CSV, eps = 0"

# the Hermite kernel on PoCL (double) agrees with the host's
if have_device cpu; then
	for d in host cpu; do
		"$NBODY" --integrator hermite -n 128 --t-end 0.25 --seed "$SEED" \
			--device $d --csv | sed -n 2p | cut -d, -f10 >"$T/de.$d"
	done
	awk -v a="$(cat "$T/de.host")" -v b="$(cat "$T/de.cpu")" 'BEGIN {
		printf "nbody_hermite.sh: |dE/E| host %s, PoCL %s\n", a, b
		exit !(a < 1e-6 && b < 1e-6)
	}' || die "Hermite on PoCL"
fi

# the j-bodies predicted where the kernel runs (the default; device
# memory on PoCL) give the bits of every body predicted on the host and
# sent (--predict host): N = 1, 2 and a prime, softened and not, every
# snapshot the same bytes
# same_bits WHAT ARGS: the Hermite run of ARGS, two steps, the same
# snapshots with --predict device and host
same_bits() {
	what=$1
	shift
	for p in device host; do
		rm -rf "$T/p$p"
		"$NBODY" --integrator hermite --steps 2 --every 1 --seed "$SEED" \
			--predict $p --out "$T/p$p" "$@" >/dev/null ||
			die "nbody $* --predict $p"
	done
	diff -r "$T/pdevice" "$T/phost" >/dev/null ||
		die "$what: --predict device differs from host"
}
for dev in $devs; do
	for n in 1 2 97; do
		for eps in 0 0.015625; do
			same_bits "$dev, N = $n, eps = $eps" -n $n --eps $eps --device $dev
		done
	done
	for ts in shared fixed; do
		same_bits "$dev, --timestep $ts" --timestep $ts -n 97 --dt 1/32 \
			--device $dev
	done
done
echo "nbody_hermite.sh: --predict device and host the same bits ($devs)"

# bad input: exit 1, the file and row named, nothing written
refused() { # MESSAGE ARGS: nbody ARGS fails with MESSAGE
	want=$1
	shift
	set +e
	"$NBODY" --device host --out "$T/never" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	[ "$rc" = 1 ] || die "nbody $* exited $rc, not 1"
	grep -q "^nbody: error: .*$want" "$T/err" ||
		{ cat "$T/err"; die "nbody $*: no message about '$want'"; }
	[ ! -s "$T/out" ] || die "nbody $* printed a summary"
	[ ! -e "$T/never" ] || die "nbody $* made --out"
	ok
}
H='x,y,z,vx,vy,vz,m'
printf '%s\n0,0,0,0,0,0,1\n1,0,nan,0,0,0,1\n' "$H" >"$T/nan.csv"
printf '%s\n0,0,0,0,0,0,1\n1,0,0,0,0,0,0\n' "$H" >"$T/zero.csv"
printf '%s\n0,0,0,0,0,0,-2\n' "$H" >"$T/neg.csv"
printf '%s\n0,0,0,0,0,0,1\n1,0,x1,0,0,0,1\n' "$H" >"$T/word.csv"
printf '%s\n0,0,0,0,0,0,1\n1,0,0,0,0\n' "$H" >"$T/short.csv"
printf 'x,y,z,vx,vy,m\n0,0,0,0,0,1\n' >"$T/nocol.csv"
printf '%s\n' "$H" >"$T/empty.csv"
printf 'x;y;z;vx;vy;vz;m\n0;0;0;0;0;0;1\n' >"$T/semi.csv"
printf '# a comment\n%s\n1,2,3,0,0,0,1\n0,0,0,0,0,0,1\n1,2,3,0,1,0,1\n' "$H" \
	>"$T/dup.csv"
printf 'not hdf5' >"$T/junk.hdf5"
head -c 300 "$T/s/snap_000000.hdf5" >"$T/cut.hdf5"
refused "nan.csv:3: column 'z': 'nan' is not a finite" --ic "$T/nan.csv"
refused "zero.csv:3: m = 0, and a body's mass must be positive" --ic "$T/zero.csv"
refused "neg.csv:2: m = -2" --ic "$T/neg.csv"
refused "word.csv:3: column 'z': 'x1' is not a number" --ic "$T/word.csv"
refused "short.csv:3: 5 fields" --ic "$T/short.csv"
refused "nocol.csv:1: the header lacks column 'vz'" --ic "$T/nocol.csv"
refused "empty.csv: no bodies" --ic "$T/empty.csv"
refused "semi.csv:1: the header lacks column 'x' (.*; columns are separated by commas, and this header has ';' between its names" \
	--ic "$T/semi.csv"
refused "none.csv" --ic "$T/none.csv"
refused "dup.csv:5: the body at (1, 2, 3) is also at .*dup.csv:3" \
	--ic "$T/dup.csv" --integrator hermite --eps 0
refused "junk.hdf5: not an HDF5 file" --ic "$T/junk.hdf5"
refused "cut.hdf5: HDF5 cannot open it" --ic "$T/cut.hdf5"
refused "unknown --ic 'galaxy'" --ic galaxy
# a file's name reaches the terminal escaped, from the readers and the
# checks after them alike
E=$(printf '\033')
for w in "nan.csv:3: column 'z'" "neg.csv:2: m = -2" \
	"junk.hdf5: not an HDF5 file"; do
	f=${w%%:*}
	cp "$T/$f" "$T/e$E$f"
	refused "e.x1b$w" --ic "$T/e$E$f"
	! grep -q "$E" "$T/err" || die "nbody --ic: its name's escape byte raw"
done
refused "two.csv has no step" --restart "$T/two.csv"
sed '1s/integrator=leapfrog/integrator=hermite eta=0.01/' \
	"$T/c/snap_000004.csv" >"$T/nojerk.csv"
refused "nojerk.csv has no 'jx'" --restart "$T/nojerk.csv"
refused "--dt 0.5 differs from the snapshot's" --restart "$T/c/snap_000004.csv" \
	--dt 0.5
# a difference past %g's six digits is shown (both read 0.015625 before)
refused "--eps 0.015625000000001 differs from the snapshot's 0.015625 " \
	--restart "$T/c/snap_000004.csv" --eps 0.015625000000001
refused "takes no --ic" --restart "$T/c/snap_000004.csv" --ic "$T/two.csv"
# nor a model's name, which the run ignored (the snapshot's IC stood)
refused "takes no --ic" --restart "$T/c/snap_000004.csv" --ic cube
refused "takes no --ic" --restart "$T/c/snap_000004.csv" --ic lattice
refused "not t + K dt" --t-end 0.3 --dt 1/8
refused "give one" --t-end 1 --steps 3
refused "positive" --eps 0
refused "for --integrator" --integrator verlet
refused "for --format" --format fits
refused "(0, 1]" --integrator hermite --eta 0
refused "--predict is for --integrator hermite" --predict host
refused "--predict is for --integrator hermite, and .*snap_000004.csv is a leap-frog's" \
	--restart "$T/c/snap_000004.csv" --predict device
refused "for --predict" --integrator hermite --predict gpu
refused "--timestep is for --integrator hermite" --timestep shared
# --eta with the leap-frog was ignored, where --predict and --timestep
# were refused
refused "--eta is for --integrator hermite" --eta 0.02
refused "--eta is for --integrator hermite, and .*snap_000004.csv is a leap-frog's" \
	--restart "$T/c/snap_000004.csv" --eta 0.02
refused "for --timestep" --integrator hermite --timestep none
refused "--timestep fixed steps every body by --dt" --integrator hermite \
	--timestep fixed --eta 0.01
refused "--dt" --integrator hermite --timestep fixed --dt 0
refused "--dt" --integrator hermite --timestep fixed --dt -1/64
refused "--timestep hermite_shared differs from the snapshot's hermite_fixed" \
	--restart "$T/fixed.csv" --timestep shared
refused "--timestep is for --integrator hermite, and .*snap_000004.csv is a leap-frog's" \
	--restart "$T/c/snap_000004.csv" --timestep fixed
# a step so short that the fit's 1/dt^3 overflows: dt is named, not eta,
# which --timestep fixed does not even take
for ts in fixed block; do
	set +e
	"$NBODY" --device host -n 16 --steps 1 --integrator hermite \
		--timestep $ts --dt 1e-300 >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	[ "$rc" = 1 ] && grep -q "^nbody: error: step 1: .*dt = 1e-300 is too short" \
		"$T/err" || { cat "$T/err"; die "--timestep $ts --dt 1e-300: exit $rc"; }
	ok
done
# a shared run's snapshot whose first body's step was halved
awk -F, -v OFS=, -v CONVFMT=%.17g 'NR == 2 { for (c = 1; c <= NF; c++) if ($c == "dt") k = c }
	NR == 3 { $k = $k / 2 } { print }' "$T/shared.csv" >"$T/uneven.csv"
refused "uneven.csv.*dt = .*the run's steps are shared by every body" \
	--restart "$T/uneven.csv"
finish nbody_hermite.sh
