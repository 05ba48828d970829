# Float's reciprocal square root from an estimate and one Newton step
# (compiler/prec.c's approx), against double on fresh random inputs (seed
# printed; NBCC_TEST_SEED=S repeats it): 20000 floats log-uniform over
# 1e-30 .. 1e30 through the one-line kernel r += x**-0.5 * m (m = 1, so
# r is the rsqrt itself), on PoCL's CPU device (vrsqrt14ps or vrsqrtps
# and LLVM's Newton step, under -cl-unsafe-math-optimizations) and on the
# host C path (gcc's vrcp14ps or vrsqrtps and a Newton step).  The
# reference is awk's double 1 / sqrt(x), within 2^-52 of the truth.
# Bounds: the largest relative error at most 3e-7, the estimate's 2^-14
# squared by the Newton step (6e-9) plus five roundings of 2^-24 (the
# accuracy table of docs/performance.md measured 1.4e-7 on PoCL, 1.9e-7
# on the host over 200000 inputs); AVX2's vrsqrtps is 2^-11.9 on a Zen 3,
# and every float through it and LLVM's or gcc's step is within 2.05e-7
# (docs/performance.md, "The CPU against PIKG on a Zen 3"), the rms at most 6e-8 (measured 3.8e-8
# and 4.1e-8); with --no-approx the rounded quotient of a rounded sqrt,
# two roundings: 2^-23 (1.2e-7; measured 9.1e-8).  Also checks that a float kernel for a CPU asks for the
# estimates and a GPU kernel does not.  Without PoCL only the host runs.
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
test_seed rsqrt_estimate.sh

awk -v seed="$SEED" 'BEGIN {
	srand(seed)
	print "x"
	for (i = 0; i < 20000; i++) {
		v = exp(log(1e-30) + rand() * (log(1e30) - log(1e-30)))
		e = int(log(v) / log(2)) - 23
		printf "%.17g\n", int(v / 2 ^ e + 0.5) * 2 ^ e  # an exact float
	}
}' >"$T/i.csv"
printf 'm\n1\n' >"$T/j.csv"
printf 'LMEM x;\nBMEM m;\nRMEM r;\nr += x**-0.5 * m;\n' >"$T/k.nbl"

# errors DEVICE FLAGS...: "max rms" relative error of the kernel's rsqrt
errors() {
	dv=$1
	shift
	"$BIN/nbrun" "$T/k.nbl" --device "$dv" --i "$T/i.csv" --j "$T/j.csv" \
		"$@" -o "$T/r.csv" </dev/null >/dev/null 2>"$T/err" || {
		echo "nbrun failed: $(tail -n 1 "$T/err")"
		return
	}
	paste -d, "$T/i.csv" "$T/r.csv" | awk -F, 'NR > 1 {
		ref = 1 / sqrt($1); q = ($2 - ref) / ref; if (q < 0) q = -q
		if (q > m) m = q; s += q * q; n++ }
		END { printf "%.3e %.3e\n", m, n ? sqrt(s / n) : 1 }'
}

# check WHAT "MAX RMS" MAXBOUND RMSBOUND
check() {
	if echo "$2" | awk -v a="$3" -v b="$4" '{ exit !($1 <= a && $2 <= b) }'; then
		ok "$1: max, rms relative error $2"
	else
		bad "$1: max, rms relative error $2, above $3, $4"
	fi
}

devs=host
if have_device cpu; then
	devs="cpu host"
else
	echo "no OpenCL CPU device: the host path only"
fi
for d in $devs; do
	check "$d default" "$(errors $d)" 3e-7 6e-8
	check "$d --no-approx" "$(errors $d --no-approx)" 1.2e-7 6e-8
done

# the rule as the OpenCL back end writes it: for a CPU, 1 / sqrt under
# -cl-unsafe-math-optimizations; for a GPU, rsqrt as it was
"$NBCC" "$T/k.nbl" --device-class=cpu -o "$T/cpu.cl" || die "nbcc cpu.cl"
"$NBCC" "$T/k.nbl" -o "$T/gpu.cl" || die "nbcc gpu.cl"
"$NBCC" "$T/k.nbl" --device-class=cpu --no-approx -o "$T/exact.cl" ||
	die "nbcc exact.cl"
if grep -q '^ \* options .*-cl-unsafe-math-optimizations' "$T/cpu.cl" &&
	grep -q '= 1.0f / sqrt(v' "$T/cpu.cl"; then
	ok "a CPU kernel asks for the estimate"
else
	bad "a CPU kernel asks for the estimate: $(grep -E 'options|sqrt' "$T/cpu.cl")"
fi
if grep -q 'unsafe' "$T/gpu.cl" "$T/exact.cl" || ! grep -q '= rsqrt(v' "$T/gpu.cl" ||
	! grep -q '= rsqrt(v' "$T/exact.cl"; then
	bad "a GPU or --no-approx kernel keeps rsqrt: $(grep -hE 'options|sqrt' "$T/gpu.cl" "$T/exact.cl")"
else
	ok "a GPU or --no-approx kernel keeps rsqrt and its options"
fi
finish
