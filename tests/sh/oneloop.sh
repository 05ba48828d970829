# oneloop.sh: bin/oneloop end to end (docs/oneloop.md).  Every parameter
# it must refuse gets its exact message and exit 1, never a number; dd
# converges in N; --precision double agrees with dd at a moderate lambda
# and loses digits at a small one; the extrapolated A and B are stable in
# N and the fitted model's residuals shrink with lambda.  All through the
# C back end; the same sums on PoCL where there is an OpenCL CPU device
# (else exit 77 once the rest has passed).  About 10 s.
set -eu
. "$ROOT/tests/lib.sh"
OL=$BIN/oneloop
scratch
shared_cache
. "$ROOT/tests/device.sh"

# --- refusals: exit 1, nothing on stdout, exactly this on stderr ---------
refuse() { # message, then the arguments
	want="oneloop: error: $1"
	shift
	rc=0
	"$OL" "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 1 ] || die "oneloop $* exited $rc, not 1"
	[ ! -s "$T/out" ] || die "oneloop $* printed on stdout: $(cat "$T/out")"
	[ "$(cat "$T/err")" = "$want" ] ||
		die "oneloop $*: got '$(cat "$T/err")', want '$want'"
}
D="D must stay positive on the whole simplex, which is proven only for s <= 0, t <= 0, me > 0, mf > 0 and lambda > 0 (docs/oneloop.md)"
L="lambda must be > 0 (at lambda = 0, D vanishes at x = 1, y = z = 0 and the integral diverges)"
refuse "--n must be at least 2 (points of the rule on each axis), not 1" --n 1
refuse "--n must be at least 2 (points of the rule on each axis), not -4" --n -4
refuse "bad value '12x' for --n: expected an integer" --n 12x
refuse "--n 46341 is too large: the kernel numbers the N^2 (x, y) points with int, so N is at most 46340" --n 46341
refuse "s = 0.5 is positive: $D" --s 0.5
refuse "t = 1e-3 is positive: $D" --t 1e-3
refuse "me = 0 is not positive: $D" --me 0
refuse "mf = -1 is not positive: $D" --mf -1
refuse "lambda = 0 is not positive: $L" --lambda 0
refuse "lambda = -0.01 is not positive: $L" --lambda -0.01
refuse "--lambdas: L0 = 0 is not positive: $L" --extrapolate --lambdas 0,0.5,8
refuse "--lambda needs a finite decimal number, not 'abc'" --lambda abc
refuse "--s needs a finite decimal number, not '1e999'" --s 1e999
refuse "--me needs a finite decimal number, not 'nan'" --me nan
refuse "--t needs a finite decimal number, not '-1,5'" --t -1,5
refuse "--lambdas: RATIO = 1 is not in (0, 1): the sequence L0 * RATIO^k must decrease toward 0" --extrapolate --lambdas 0.1,1,8
refuse "--lambdas: RATIO = 2 is not in (0, 1): the sequence L0 * RATIO^k must decrease toward 0" --extrapolate --lambdas 0.1,2,8
refuse "--lambdas: RATIO = -0.5 is not in (0, 1): the sequence L0 * RATIO^k must decrease toward 0" --extrapolate --lambdas 0.1,-0.5,8
refuse "--lambdas: COUNT = 2 is less than 3: the extrapolation needs two estimates of A and B, each from two lambdas, and one more to extrapolate" --extrapolate --lambdas 0.1,0.5,2
refuse "--lambdas: COUNT = 65 is more than 64" --extrapolate --lambdas 0.1,0.5,65
refuse "--lambdas needs L0,RATIO,COUNT (such as 0.1,0.5,16), not '0.1,0.5'" --extrapolate --lambdas 0.1,0.5
refuse "--lambdas needs L0,RATIO,COUNT (such as 0.1,0.5,16), not '0.1,0.5,8x'" --extrapolate --lambdas 0.1,0.5,8x
refuse "--lambdas: RATIO needs a finite decimal number, not 'half'" --extrapolate --lambdas 0.1,half,8
refuse "--lambdas needs --extrapolate" --lambdas 0.1,0.5,8
refuse "--lambda and --extrapolate exclude each other (--lambdas sets the extrapolation's sequence)" --lambda 0.1 --extrapolate
refuse "the parameters are outside the rule's range: at lambda = 1e-09 its truncation error may reach 8.9e-24 of I, above dd precision (1e-32); the bound grows as min(lambda, me, mf) falls and as |s|, |t|, me, mf grow (docs/oneloop.md)" --lambda 1e-9
refuse "the parameters are outside the rule's range: at lambda = 1e-18 its truncation error may reach 8.9e+12 of I, above dd precision (1e-32); the bound grows as min(lambda, me, mf) falls and as |s|, |t|, me, mf grow (docs/oneloop.md)" --extrapolate --lambdas 1e-3,0.1,16
refuse "the parameters are outside the rule's range: at lambda = 0.01 the bound on its truncation error overflows; the bound grows as min(lambda, me, mf) falls and as |s|, |t|, me, mf grow (docs/oneloop.md)" --me 1e200
refuse "bad value 'quad' for --precision: expected dd or double" --precision quad
refuse "--target must be c or opencl, not 'amdil'" --target amdil
refuse "unknown option '--x' (see oneloop --help)" --x
refuse "--lambda needs a value" --lambda
# --scan FILE (docs/oneloop.md): the header, then every row checked as
# the command line is, before the device is opened
printf 's,t,me,mf\n' >"$T/s1"
refuse "--scan $T/s1, line 1: the header must name the columns s, t, me, mf and lambda, each once, and no other" --scan "$T/s1"
printf '# c\n\nlambda,mf,me,t,s\n0.01,1,1,-1,-1\n0.01,1,1,-1,0.5\n' >"$T/s2"
refuse "--scan $T/s2, line 5: s = 0.5 is positive: $D" --scan "$T/s2"
printf 's,t,me,mf,lambda\n-1,-1,1,1\n' >"$T/s3"
refuse "--scan $T/s3, line 2: 4 fields, and the header has 5" --scan "$T/s3"
printf 's,t,me,mf,lambda\n-1,-1,1,1,x\n' >"$T/s4"
refuse "--scan $T/s4, line 2: lambda needs a finite decimal number, not 'x'" --scan "$T/s4"
refuse "--scan $T/s4 gives s, t, me, mf and lambda for each row: it excludes --s, --t, --me, --mf and --lambda" --scan "$T/s4" --s -2
# memory: refused before anything is allocated (ulimit -v bounds what the
# process may use; ASan reserves far more address space than that)
if [ -z "${NBCC_SANITIZED:-}" ]; then
	rc=0
	(ulimit -v 4000000 && exec "$OL" --n 20000 --target c) >"$T/out" \
		2>"$T/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "^oneloop: error: --n 20000 needs .* of memory (the points .*, the runtime .*), and .* is available$" "$T/err" ||
		die "--n 20000 under 4 GB: rc $rc, $(cat "$T/err")"
fi
"$OL" --help >"$T/help"
grep -q "(default 0.1,0.5,16)" "$T/help" || die "--help lacks the defaults"

# --- convergence in N (dd, C back end, lambda = 0.1) ------------------------
# CSV: n,lambda,s,t,me,mf,precision,I,I_half,error,...  The error column
# is |I_N - I_N/2| taken in dd by the program; I_half is checked against
# the run at N/2 itself, so the column is honest.
col() { sed -n 2p "$1" | cut -d, -f"$2"; }
prev=
for n in 32 64 128 256; do
	"$OL" --n $n --lambda 0.1 --target c --csv >"$T/c$n.csv"
	echo "oneloop.sh: N = $n  I = $(col "$T/c$n.csv" 8)  |I_N - I_N/2| = $(col "$T/c$n.csv" 10)"
	if [ -n "$prev" ]; then
		[ "$(col "$T/c$n.csv" 9)" = "$(col "$T/c$prev.csv" 8)" ] ||
			die "I_half at N = $n is not the I of N = $prev"
		awk -v a="$(col "$T/c$prev.csv" 10)" -v b="$(col "$T/c$n.csv" 10)" \
			'BEGIN { exit !(b < a / 10) }' ||
			die "no convergence from N = $prev to $n"
	fi
	prev=$n
done
# the DE rule's error falls like exp(-c N / ln N): measured 1.1e-15 at 256
awk -v e="$(col "$T/c256.csv" 10)" 'BEGIN { exit !(e < 1e-13) }' ||
	die "N = 256 is not within 1e-13"

# --- double against dd (N = 64) -------------------------------------------
# Expectation: at lambda = 0.1 they agree to 1e-12 relative (measured
# 4e-16); at lambda = 1e-6 double has lost digits: it differs from dd by
# more than 1e-13 relative (measured 3.5e-12), because the nodes next to
# x + y = 1, where D ~ lambda^2, round to double.
I() { "$OL" --n 64 --target c "$@" | sed -n 's/^I = //p'; }
for l in 0.1 1e-6; do
	a=$(I --lambda $l)
	b=$(I --lambda $l --precision double)
	rel=$(awk -v a="$a" -v b="$b" 'BEGIN { d = (b - a) / a; if (d < 0) d = -d; printf "%.2e", d }')
	echo "oneloop.sh: lambda = $l  dd $a  double $b  relative $rel"
	case $l in
	0.1) awk -v r="$rel" 'BEGIN { exit !(r < 1e-12) }' ||
		die "double and dd differ by $rel at lambda = 0.1" ;;
	*) awk -v r="$rel" 'BEGIN { exit !(r > 1e-13) }' ||
		die "double lost no digits at lambda = $l ($rel)" ;;
	esac
done

# --- the extrapolation: stable in N, residuals shrinking ------------------
# lambda_k = 0.1 / 2^k, k < 10.  A reference: N = 512 with the default 16
# lambdas gives A = -1.72163576385601624 (its error estimate 6e-16) and B
# within 1e-11 of 0.  Expectation: A at N = 256 within 1e-5 of it, A at
# N = 128 and 256 within 2e-5 of each other, B within 1e-3 of 0 and of each
# other; at N = 256 each |residual| below the one before and the last below
# 1/100 of the first (they fall like lambda: the model's o(1) is O(lambda)).
for n in 128 256; do
	"$OL" --n $n --target c --extrapolate --lambdas 0.1,0.5,10 --csv \
		>"$T/x$n.csv"
	sed -n '/^n,/{n;p}' "$T/x$n.csv" | cut -d, -f10-13 >"$T/ab$n"
	echo "oneloop.sh: N = $n  A, error, B, error: $(cat "$T/ab$n")"
done
awk -F, -v ref=-1.72163576385601624 '
	NR == FNR { a1 = $1; b1 = $3; next }
	{ a2 = $1; b2 = $3 }
	function abs(x) { return x < 0 ? -x : x }
	END { exit !(abs(a2 - ref) < 1e-5 && abs(a1 - a2) < 2e-5 &&
	             abs(b2) < 1e-3 && abs(b1 - b2) < 1e-3) }' \
	"$T/ab128" "$T/ab256" || die "A and B are not stable in N"
sed -n '2,11p' "$T/x256.csv" | cut -d, -f10 | awk '
	function abs(x) { return x < 0 ? -x : x }
	NR == 1 { first = abs($1) }
	NR > 1 && !(abs($1) < last) { bad = 1 }
	{ last = abs($1) }
	END { exit !(NR == 10 && !bad && last < first / 100) }' ||
	die "the residuals do not shrink with lambda"
"$OL" --n 16 --target c --extrapolate --lambdas 0.1,0.5,4 >"$T/x.txt"
for w in "^A = " "^B = " "^error estimate of A: " "^kernel time: " "^rate: "; do
	grep -q "$w" "$T/x.txt" || die "the extrapolation's text lacks '$w'"
done

# --- PoCL: the same digits -------------------------------------------------
# the default dd arithmetic is QD's (--dd qd), and the heading says which
"$OL" --n 32 --target c >"$T/def.txt"
"$OL" --n 32 --target c --dd qd >"$T/qd.txt"
"$OL" --n 32 --target c --dd accurate >"$T/acc.txt"
grep -q "; dd (QD's arithmetic), target" "$T/def.txt" ||
	die "the default's heading does not name QD's arithmetic"
grep -q "; dd (accurate arithmetic), target" "$T/acc.txt" ||
	die "--dd accurate's heading does not name it"
[ "$(grep '^I = ' "$T/def.txt")" = "$(grep '^I = ' "$T/qd.txt")" ] ||
	die "the default's I is not --dd qd's"

have_device cpu || {
	echo "skipped: no OpenCL CPU device for the PoCL half (oneloop.sh)"
	exit 77
}
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$T/ddcmp" \
	"$ROOT/tests/sh/ddcmp.c" -lqd -lstdc++ -lm
for l in 0.01 1e-5; do
	"$OL" --n 64 --lambda $l --target c --csv | cut -d, -f8,9 >"$T/c.csv"
	"$OL" --n 64 --lambda $l --target opencl --device cpu --csv |
		cut -d, -f8,9 >"$T/cl.csv"
	m=$("$T/ddcmp" "$T/c.csv" "$T/cl.csv" | sed -n 's/^max //p')
	echo "oneloop.sh: PoCL against C at lambda = $l: relative $m"
	awk -v m="$m" 'BEGIN { exit !(m <= 1e-28) }' ||
		die "PoCL and C differ by $m at lambda = $l"
done
