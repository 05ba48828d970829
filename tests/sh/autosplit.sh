# The runtime's own choice of j-split (a .nbl on a GPU; forced here on
# PoCL with NBRT_AUTO_SPLIT=1): the split it picks is the documented one
# (docs/language.md; nbrt_choose_split in runtime/launch.c: the smallest
# power of two T <= 16 with Ni * T >= 960 * compute units and T >= 4, the
# GPU float row's rule, compiler/defaults.c; the device's compute_units
# read from nbrun --device-info; narrowed, T <= 32 and twice the items),
# the row's narrowing (nbrt_narrow: half the i-unroll where Ni * 16 < 2 *
# 960 * compute units, the row having a register budget), the one wave
# across warps (nbrt_wave: 1 x 8 split 16 across warps where
# ceil(Ni / 32) groups are at most the compute units and more than two
# thirds of them, Nj <= 4 Ni, a kernel not of a single sum), and that it
# gives the C back end's results (tolerance 1e-5, float), for sizes that
# choose different splits and both sides of the narrowing and of the
# wave.  Skipped (77) without an OpenCL CPU device.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
need_device cpu
scratch
shared_cache
K=dsl-examples/gravity.nbl
units=$(device_info cpu compute_units)
# nbrun compiles for the class of the device it runs on (its row of the
# defaults table): the unrolling it ran, as --time says
NBRT_AUTO_SPLIT=0 "$BIN/nbrun" $K --random 8,8 --device cpu --time \
	-o /dev/null 2>"$T/v"
ui=$(sed -n 's/^variant: .*, unroll \([0-9]*\) x [0-9]*, .*/\1/p' "$T/v")
echo "compute units $units, unroll-i $ui"
[ "$units" -ge 1 ] && [ "$ui" -ge 1 ]
status=0
seen=""
# 100003: enough i-elements for the 960 rule alone; the least split makes
# it 4.  32 x units: one group of 32 i-elements a compute unit, the
# widest run of one wave; one more i-element, or Nj over 4 Ni, leaves it.
w=$((32 * units))
for n in 7,5 300,77 1000,999 4099,31 100003,17 $w,$w \
	$((w * 5 / 6)),$((w * 5 / 6 * 4)) $((w + 1)),$((w + 1)) \
	$w,$((4 * w + 1)); do
	ni=${n%,*} nj=${n#*,}
	wave=$(awk -v ni="$ni" -v nj="$nj" -v cu="$units" 'BEGIN {
		g = int((ni + 31) / 32)
		print (g <= cu && 3 * g > 2 * cu && nj <= 4 * ni) ? "yes" : "no" }')
	half=$(awk -v ni="$ni" -v cu="$units" -v u="$ui" -v w="$wave" 'BEGIN {
		print (w == "no" && u >= 2 && ni * 16 < 2 * 960 * cu) ? "yes" : "no" }')
	want=$(awk -v ni="$ni" -v cu="$units" -v h="$half" 'BEGIN {
		t = 1; w = 960 * cu; top = 16
		if (h == "yes") { w *= 2; top = 32 }
		while (t < top && (ni * t < w || t < 4)) t *= 2
		print t }')
	[ "$wave" = no ] || want=16
	NBRT_AUTO_SPLIT=1 NBRT_VERBOSE=1 "$BIN/nbrun" $K \
		--random $n --seed 11 --device cpu -o "$T/a.csv" 2>"$T/err"
	"$BIN/nbrun" $K --random $n --seed 11 --target c \
		-o "$T/b.csv" 2>/dev/null
	m=$(awk -f bench/compare.awk "$T/b.csv" "$T/a.csv" | sed -n 's/^max //p')
	# a split of 1 is the kernel as loaded: no variant, no note
	split=$(sed -n 's/.*j-split \([0-9]*\) for Ni = .*/\1/p' "$T/err" | tail -1)
	split=${split:-1}
	seenwave=no
	if grep -q "across warps, 1 x 8 split 16, for Ni = $ni " "$T/err"; then
		seenwave=yes split=16
	fi
	narrow=no
	grep -q 'j-split [0-9]* for Ni = [0-9]*, at half the i-unroll' "$T/err" &&
		narrow=yes
	if [ "$split" = "$want" ] && [ "$narrow" = "$half" ] &&
	   [ "$seenwave" = "$wave" ] &&
	   awk -v m="$m" 'BEGIN { exit !(m <= 1e-5) }'; then
		echo "ok   Ni,Nj=$n split $split (expected $want), half the i-unroll: $narrow (expected $half), across warps: $seenwave (expected $wave), difference $m"
	else
		echo "FAIL Ni,Nj=$n split $split (expected $want), half the i-unroll: $narrow (expected $half), across warps: $seenwave (expected $wave), difference $m"
		status=1
	fi
	case " $seen " in *" $split "*) ;; *) seen="$seen $split" ;; esac
done
echo "splits seen:$seen"
# The wave is for kernels not of a single sum: the Gauss transform (one
# sum) stays narrowed at Ni = 32 x units, the nearest neighbour (a min
# and its argmin) and the Gauss log-sum-exp (one logsumexp) go across
# warps; each gives the C back end's results (nearest: the same j).
for k in gauss_transform:no nearest:yes gauss_logsumexp:yes; do
	f=dsl-examples/${k%:*}.nbl
	NBRT_AUTO_SPLIT=1 NBRT_VERBOSE=1 "$BIN/nbrun" $f --random $w,$w \
		--seed 11 --device cpu -o "$T/a.csv" 2>"$T/err"
	"$BIN/nbrun" $f --random $w,$w --seed 11 --target c -o "$T/b.csv" 2>/dev/null
	m=$(awk -f bench/compare.awk "$T/b.csv" "$T/a.csv" | sed -n 's/^max //p')
	seenwave=no
	if grep -q "across warps, 1 x 8 split 16, for Ni = $w " "$T/err"; then
		seenwave=yes
	fi
	if [ "$seenwave" = "${k#*:}" ] && awk -v m="$m" 'BEGIN { exit !(m <= 1e-5) }'; then
		echo "ok   ${k%:*} at Ni,Nj=$w,$w: across warps $seenwave, difference $m"
	else
		echo "FAIL ${k%:*} at Ni,Nj=$w,$w: across warps $seenwave (expected ${k#*:}), difference $m"
		status=1
	fi
done
# Compiled for the GPU row (--device-class=gpu-nvidia), the narrowing
# halves gravity's 4 x 4 at Ni = 7 but not Biot-Savart, which the
# register budget made 2 x 4 already; both still give the C back end's
# results.
for k in gravity:yes:32 biot_savart:no:16; do
	t=${k##*:} k=${k%:*}
	f=dsl-examples/${k%:*}.nbl
	NBRT_AUTO_SPLIT=1 NBRT_VERBOSE=1 "$BIN/nbrun" $f --device-class=gpu-nvidia \
		--random 7,5 --seed 11 --device cpu -o "$T/a.csv" 2>"$T/err"
	"$BIN/nbrun" $f --random 7,5 --seed 11 --target c -o "$T/b.csv" 2>/dev/null
	m=$(awk -f bench/compare.awk "$T/b.csv" "$T/a.csv" | sed -n 's/^max //p')
	narrow=no
	grep -q "j-split $t for Ni = 7, at half the i-unroll" "$T/err" && narrow=yes
	if [ "$narrow" = "${k#*:}" ] && grep -q "j-split $t for Ni = 7" "$T/err" &&
	   awk -v m="$m" 'BEGIN { exit !(m <= 1e-5) }'; then
		echo "ok   ${k%:*} on the GPU row at Ni = 7: split $t, half the i-unroll $narrow, difference $m"
	else
		echo "FAIL ${k%:*} on the GPU row at Ni = 7: half the i-unroll $narrow (expected ${k#*:}), difference $m"
		status=1
	fi
done
# Block-sparse runs follow the same rule (runtime/ranges.c): cells of
# about 12 elements take the small-group shape on PoCL (one i-element a
# work item, work groups of 32, the j-split that fills them, tasks of
# 32 / split i-elements), and NBRT_AUTO_SPLIT=0 keeps the kernel as
# loaded (j-split 1, tasks of a work group's wg x NI i-elements), with the
# same results (1e-5 of the largest |value|, float; the shape had
# ignored it); the host C path cuts tasks of one group of NI, the unit of
# its dense launches (it had cut 4 NI).
test_seed autosplit.sh
LJ="dsl-examples/lennard_jones_self.nbl --random 2048,2048 --seed $SEED
	--const sig2=0.0001 --const eps=1 --const rc2=0.0064 --cutoff 0.08
	--pos xi,yi,zi:xj,yj,zj --precision float --time"
# shellcheck disable=SC2086 # LJ is words
NBRT_VERBOSE=1 "$BIN/nbrun" $LJ --device cpu -o "$T/a.csv" 2>"$T/err"
# shellcheck disable=SC2086
NBRT_AUTO_SPLIT=0 NBRT_VERBOSE=1 "$BIN/nbrun" $LJ --device cpu \
	-o "$T/b.csv" 2>"$T/err0"
# shellcheck disable=SC2086
NBRT_VERBOSE=1 "$BIN/nbrun" $LJ --device host -o "$T/c.csv" 2>"$T/errh"
shape() {
	sed -n 's/.*block-sparse runs with \(j-split [0-9]*, tasks of [0-9]* i-elements\).*/\1/p' "$1"
}
m=$(awk -f bench/compare.awk "$T/a.csv" "$T/b.csv" | sed -n 's/^max //p')
if grep -q 'block-sparse runs with j-split 16, tasks of 2 i-elements, one i-element a work item, no tiles, work groups of 32 (small groups)' "$T/err"; then
	echo "ok   ranges on PoCL: $(shape "$T/err"), small groups"
else
	echo "FAIL ranges on PoCL: not the small shape of split 16: $(shape "$T/err")"
	status=1
fi
# the kernel as loaded: its work group and NI from the --time line
wgu=$(sed -n 's/^variant: .*, unroll \([0-9]*\) x [0-9]*, .*, wg \([0-9]*\), .*/\2 \1/p' "$T/err0")
want="j-split 1, tasks of $(echo "$wgu" | awk '{ print $1 * $2 }') i-elements"
if [ "$(shape "$T/err0")" = "$want" ] && ! grep -q 'small groups' "$T/err0" &&
   awk -v m="$m" 'BEGIN { exit !(m <= 1e-5) }'; then
	echo "ok   ranges on PoCL, NBRT_AUTO_SPLIT=0: $want, difference $m"
else
	echo "FAIL ranges on PoCL, NBRT_AUTO_SPLIT=0: $(shape "$T/err0") (expected $want), difference $m"
	status=1
fi
uh=$(sed -n 's/^variant: .*, unroll \([0-9]*\) x [0-9]*, .*/\1/p' "$T/errh")
if [ "$(shape "$T/errh")" = "j-split 1, tasks of $uh i-elements" ]; then
	echo "ok   ranges on the host: $(shape "$T/errh")"
else
	echo "FAIL ranges on the host: $(shape "$T/errh") (expected tasks of NI = $uh)"
	status=1
fi
# the switch takes 0 or 1, and says so by name for anything else
for v in 2 yes -1; do
	if NBRT_AUTO_SPLIT=$v "$BIN/nbrun" $K --random 8,8 --device cpu \
		-o "$T/bad.csv" 2>"$T/errb" ||
	   ! grep -q "NBRT_AUTO_SPLIT='$v': it must be 0 or 1" "$T/errb" ||
	   [ -e "$T/bad.csv" ]; then
		echo "FAIL NBRT_AUTO_SPLIT=$v: $(cat "$T/errb")"
		status=1
	else
		echo "ok   NBRT_AUTO_SPLIT=$v refused"
	fi
done
# Groups of thousands, fewer than four a compute unit (a treecode's groups
# of 2048 at N = 4096), on the GPU row take at
# least the dense runs' split for as many i-elements (its least, 4),
# where filling one work group asked for none: on an H100 a treecode's
# 207 groups at N = 65536 ran the near kernel 2.7 times faster so; the
# same results as the kernel as loaded (1e-5, float).
TREE="dsl-examples/gravity.nbl --random 4096,4096 --seed $SEED
	--const eps2=1e-4 --device cpu --precision float --tree --theta 0.5
	--group 2048"
# shellcheck disable=SC2086
NBRT_AUTO_SPLIT=1 NBRT_VERBOSE=1 "$BIN/nbrun" $TREE --device-class=gpu-nvidia \
	-o "$T/ta.csv" 2>"$T/ta.err"
# shellcheck disable=SC2086
NBRT_AUTO_SPLIT=0 "$BIN/nbrun" $TREE -o "$T/tb.csv" 2>/dev/null
m=$(awk -f bench/compare.awk "$T/tb.csv" "$T/ta.csv" | sed -n 's/^max //p')
if [ "$(grep -c 'block-sparse runs with j-split 4, tasks of 64 i-elements' "$T/ta.err")" = 2 ] &&
   awk -v m="$m" 'BEGIN { exit !(m <= 1e-5) }'; then
	echo "ok   the tree's runs on the GPU row: split 4 near and far, difference $m"
else
	echo "FAIL the tree's runs on the GPU row: $(shape "$T/ta.err" | tr '\n' ' ')(expected split 4 twice), difference $m"
	status=1
fi
# with groups enough (256 of 4096 bodies: 16 or more, four a unit of
# PoCL's here) the split stays the work group's (1): at 2^20 and 2^22 on
# the H100 the dense rule's 4 cost the far kernel 14-18%
# shellcheck disable=SC2086
NBRT_AUTO_SPLIT=1 NBRT_VERBOSE=1 "$BIN/nbrun" $TREE --group 256 \
	--device-class=gpu-nvidia -o "$T/tc.csv" 2>"$T/tc.err"
if [ "$(grep -c 'block-sparse runs with j-split 1, tasks of 256 i-elements' "$T/tc.err")" = 2 ]; then
	echo "ok   the tree's runs on the GPU row, many groups: split 1"
else
	echo "FAIL the tree's runs on the GPU row, many groups: $(shape "$T/tc.err" | tr '\n' ' ')(expected split 1 twice)"
	status=1
fi
exit $status
