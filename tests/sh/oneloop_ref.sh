# bin/oneloop against an independent evaluation (issue 10): the N-point
# tanh-sinh sums I_N of the one-loop integral computed entirely in QD's
# quad-double by tests/sh/oneloop_ref.cc, which shares no code with
# bin/oneloop.  Checked:
#  - the reference itself: in the case s = t = 0, me = mf = lambda = 1,
#    D = 1 - p + p^2 with p = x + y, and I = int_0^1 p(1-p)/D^2 dp =
#    2/3 - 2 pi/(9 sqrt 3); its N = 256 sums match that within 1e-30
#    (1e-26 at N = 128 under sanitizers) and a 1-D quadrature within 1e-38;
#    its factored D matches Eq. 5.1 spelled out within 1e-50 (N = 24);
#    its I_N converge (|I_256 - I_128| < 1e-3 |I_128 - I_64|);
#  - bin/oneloop --target c and --device cpu (PoCL) at N = 64 and 256 for
#    s = t = -1, me = mf = 1 with lambda = 1e-2 and 1e-4 and for one more
#    set, in both dd arithmetics (--dd accurate and qd; qd through PoCL at
#    N = 64): its `I = ` line within 1e-28 of the reference, relatively.
# Parameters are decimals read exactly (1e-2 is 0.01 to dd precision, not
# the double nearest it, which moves I by 5e-18); on a failure the script
# tells whether reading them as doubles would explain it.
# Without $BIN/oneloop the reference's own checks run and the script is
# skipped (77); without an OpenCL CPU device the PoCL runs are.
# tags: slow
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
REF="$TESTBUILD/oneloop_ref"
# QD's error-free transformations need the products unfused: ISO C++
# and -ffp-contract=off keep the compiler from forming FMAs in them
if ! [ "$REF" -nt tests/sh/oneloop_ref.cc ]; then
	${CXX:-c++} -std=c++11 -O3 -ffp-contract=off -fopenmp -Wall -Wextra \
		-o "$REF.tmp" tests/sh/oneloop_ref.cc -lqd || exit 1
	mv "$REF.tmp" "$REF"
fi
# within A B TOL what: A and B agree within TOL relatively (compared in qd)
within() {
	if d=$("$REF" --cmp "$1" "$2" "$3"); then
		ok "$4 (${d#reldiff })"
	else
		bad "$4: ${d#reldiff } > $3 ($1 vs $2)"
	fi
}
# the reference's sums, kept by cached_ref (tests/lib.sh; its key holds
# $REF's bytes, which change with oneloop_ref.cc): N = 256's take 8 CPU s
# each, four of them 31 of this script's 44 CPU s, and they depend on
# nothing a run changes
ref() { cached_ref "$REF" "$@" | sed -n 's/^I = //p'; }
small=0
[ "${NBCC_SANITIZED:-0}" = 1 ] && small=1
DEF="-1 -1 1 1"

# the reference: the closed form
"$REF" --closed >"$T/closed"
cf=$(sed -n 's/^closed //p' "$T/closed")
q1=$(sed -n 's/^quad1d //p' "$T/closed")
within "$cf" "$q1" 1e-38 "reference: closed form = 1-D quadrature"
if [ $small = 1 ]; then
	echo "note: NBCC_SANITIZED=1: the N = 256 runs are left to the plain pass"
	within "$(ref 128 0 0 1 1 1)" "$cf" 1e-26 \
		"reference: I_128 (s = t = 0, me = mf = lambda = 1) = closed form"
else
	within "$(ref 256 0 0 1 1 1)" "$cf" 1e-30 \
		"reference: I_256 (s = t = 0, me = mf = lambda = 1) = closed form"
fi
# the factored D against Eq. 5.1 spelled out
for p in "$DEF 1e-2" "-2.5 -0.5 0.5 1.25 0.03125"; do
	within "$(ref 24 $p)" "$(ref --direct 24 $p)" 1e-50 \
		"reference: factored D = Eq. 5.1 (N = 24, s t me mf lambda = $p)"
done

# the reference's values; convergence in N
sets="1e-2 1e-4 other"
ns="64 256"
[ $small = 1 ] && ns=64
params() { # set
	case $1 in
	other) echo "-2.5 -0.5 0.5 1.25 0.03125" ;;
	*) echo "$DEF $1" ;;
	esac
}
for set in $sets; do
	for n in $ns; do
		ref $n $(params $set) >"$T/ref.$set.$n"
	done
done
if [ $small = 0 ]; then
	ref 128 $(params 1e-2) >"$T/ref.1e-2.128"
	i64=$(cat "$T/ref.1e-2.64") i128=$(cat "$T/ref.1e-2.128")
	i256=$(cat "$T/ref.1e-2.256")
	d1=$("$REF" --cmp "$i128" "$i64" 1 | sed 's/^reldiff //')
	d2=$("$REF" --cmp "$i256" "$i128" 1 | sed 's/^reldiff //')
	echo "reference, s = t = -1, me = mf = 1, lambda = 1e-2:"
	echo "  N = 64   $i64"
	echo "  N = 128  $i128  |I_128 - I_64|/I = $d1"
	echo "  N = 256  $i256  |I_256 - I_128|/I = $d2"
	if awk -v a="$d1" -v b="$d2" 'BEGIN { exit !(b < 1e-3 * a) }'; then
		ok "reference converges in N"
	else
		bad "reference converges in N: $d2 is not below 1e-3 * $d1"
	fi
fi

if ! [ -x "$BIN/oneloop" ]; then
	echo "skipped: no $BIN/oneloop: only the reference was checked"
	finish oneloop_ref
	exit 77
fi

have_cl=0
have_device cpu && have_cl=1
devs="c"
[ $have_cl = 1 ] && devs="c cpu"
for set in $sets; do
	p=$(params $set)
	set -- $p
	for n in $ns; do
		r=$(cat "$T/ref.$set.$n")
		for dev in $devs; do
		for ar in accurate qd; do
			# qd through PoCL at N = 64 only: the C back end runs the
			# same ddlib.h code, and the script must stay short
			[ $ar = qd ] && [ $dev != c ] && [ $n != 64 ] && continue
			case $dev in
			c) how="--target c" ;;
			*) how="--device $dev" ;;
			esac
			what="oneloop N = $n, s t me mf lambda = $p, $how --dd $ar"
			if ! "$BIN/oneloop" --n $n --s $1 --t $2 --me $3 --mf $4 \
				--lambda $5 $how --dd $ar --all-digits >"$T/out" 2>"$T/err"; then
				cat "$T/err"
				bad "$what: exit status"
				continue
			fi
			v=$(sed -n 's/^I = *//p' "$T/out" | tr -d ' ')
			if [ -z "$v" ]; then
				cat "$T/out"
				bad "$what: no 'I = ' line"
				continue
			fi
			if d=$("$REF" --cmp "$r" "$v" 1e-28); then
				ok "$what (${d#reldiff })"
				continue
			fi
			bad "$what: ${d#reldiff } > 1e-28 ($v vs $r)"
			if e=$("$REF" --params-double $n $p 1e-28 "$v"); then
				echo "     it agrees (${e##*reldiff }) with parameters rounded to double: bin/oneloop reads them as doubles, not as dd"
			fi
		done
		done
	done
done
finish oneloop_ref
if [ $have_cl = 0 ]; then
	echo "skipped: no OpenCL CPU device: the PoCL runs are not tried"
	exit 77
fi
exit 0
