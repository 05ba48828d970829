# The functions, pi and the conversions end to end through nbrun, against
# independent references (tests/sh/fnref.c: long double libm for float and
# double kernels, QD's quad-double for dd), on fresh random inputs (seed
# printed; NBCC_TEST_SEED=S repeats it): x in [-0.9, 4) and y in [-2, 2) as
# multiples of 2^-20, exact in every precision (and written out exactly),
# every 7th x a half integer (the ties of round).  Tolerances: float and
# double 16 ulp (OpenCL's bound for erf and erfc; the others are
# tighter), dd 8 * 2^-104 (compiler/ddlib.h), but erf and erfc in dd
# 2^-58 of long double's erfl and erfcl (QD has none;
# tests/unit/test_ddlib.c holds them to 8 * 2^-104); floor, round, trunc,
# min, max, pi and the conversions exactly.  Each kernel runs on the host
# (--target c), on PoCL's CPU device (--device cpu, unrolled 2 x 1) and,
# for the float functions that have IL instructions and for the
# conversions, in the AMD IL interpreter (--target amdil).  Needs PoCL:
# without it the host runs are checked and the script is skipped.
# tags: slow
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$T/fnref" tests/sh/fnref.c \
	-lqd -lstdc++ -lm || exit 1
test_seed functions.sh
awk -v seed="$SEED" 'BEGIN {
	srand(seed)
	print "x,y"
	u = 1048576
	for (i = 0; i < 200; i++) {
		x = int(rand() * 4.9 * u - 0.9 * u) / u
		if (i % 7 == 0)
			x = int(rand() * 9 - 1) / 2
		printf "%.25g,%.25g\n", x, int(rand() * 4 * u - 2 * u) / u
	}
}' >"$T/i.csv"
awk -v seed="$SEED" 'BEGIN {
	srand(seed + 1)
	print "x,y"
	for (i = 0; i < 200; i++)
		printf "%.60g,%.60g\n", 100 * rand(), 100 * rand() - 50
}' >"$T/mixed.csv"
printf 'w\n1\n' >"$T/j.csv"

# kernel PREC FUNCTIONS: r_F += w * F(x) for each F (atan2(x, y), min and
# max of x and y), and r_pi += w * pi; Nj = 1 and w = 1, so r_F = F(x)
kernel() {
	{
		p=$1
		shift
		echo "LMEM $p x, y;"
		echo "BMEM $p w;"
		for f in "$@" pi; do
			echo "RMEM $p r_$f;"
		done
		for f in "$@"; do
			case $f in
			atan2|min|max|pow) echo "r_$f += w * $f(x, y);" ;;
			*) echo "r_$f += w * $f(x);" ;;
			esac
		done
		echo "r_pi += w * pi;"
	}
}
ALL="floor round trunc cbrt expm1 log1p tanh atan2 erf erfc min max"
kernel float $ALL >"$T/float.nbl"
kernel double $ALL >"$T/double.nbl"
kernel dd $ALL >"$T/dd.nbl"
kernel float floor trunc min max >"$T/il.nbl"
# the transcendentals, on every target: float by IL's own instructions,
# double and dd by the sequences of compiler/amdil/fn.c
FN="exp log pow sin cos sqrt floor trunc round expm1 log1p tanh cbrt atan2 erf erfc"
for p in float double dd; do
	kernel $p $FN >"$T/fn_$p.nbl"
done
cat >"$T/mixed.nbl" <<'K'
LMEM double x, y;
BMEM float w;
RMEM float a;
RMEM dd b;
RMEM double c;
a += w * float(x - y);
b += w * dd(x) * dd(y);
c += w * double(dd(x) / dd(y));
K

status=0
check() { # MODE KERNEL DEVICE-FLAGS...
	mode=$1 k=$2
	shift 2
	in=$T/i.csv
	[ "$mode" = mixed ] && in=$T/mixed.csv
	# in $T, by a path relative to it: the generated code holds the
	# path, so each kernel's is the same in every run, and the shared
	# cache (both passes of make check, reruns) compiles it once
	if ! (cd "$T" && "$BIN/nbrun" "$k.nbl" --i "$in" --j j.csv "$@" \
		-o out.csv 2>err); then
		cat "$T/err"
		echo "FAIL $k $*: nbrun failed"
		status=1
		return
	fi
	if "$T/fnref" "$mode" "$in" "$T/out.csv" >"$T/rep"; then
		echo "ok   $k $* ($(tr '\n' ' ' <"$T/rep" | sed 's/  */ /g'))"
	else
		cat "$T/rep"
		echo "FAIL $k $*"
		status=1
	fi
}
for p in float double dd mixed; do
	check $p $p --target c
done
# the unrolled copies and their tails (Ni = 200 is not a multiple of 3)
check dd dd --target c --unroll-i=3 --unroll-j=2
check mixed mixed --target c --unroll-i=3 --unroll-j=2
check float il --target amdil
for p in float double dd; do
	check $p fn_$p --target c
	check $p fn_$p --target amdil
done
check mixed mixed --target amdil

if have_device cpu; then
	# unrolled 2 x 1, not at PoCL's rows (float 16 x 2, double 16 x 1):
	# the functions are PoCL's built-ins whatever the copies, and 32
	# copies of twelve of them took PoCL 20 CPU seconds to build (cold),
	# 2 copies 2 s; the rows' unrolling of every example on PoCL is
	# cl_vs_c.sh's
	for p in float double dd mixed; do
		check $p $p --device cpu --unroll-i=2 --unroll-j=1
	done
elif [ $status = 0 ]; then
	echo "skipped: no OpenCL CPU device for the OpenCL runs (functions.sh)"
	exit 77
fi
exit $status
