# Derived kernels (nbcc --jvp, --grad in reverse and forward mode, BMEM
# gradients from the kernel turned around; docs/autodiff.md) against
# independent references, on the host (C) and PoCL: the jerk derived from
# gravity.nbl against hand-written hermite.nbl (double, 1e-13 of the
# column's largest value), minus the gradient of a Plummer potential
# against gravity.nbl's accelerations, per i and (BMEM) per j (float 1e-5,
# double 1e-14, dd 1e-28; also on the AMD IL interpreter), and every
# derivative rule of ops.h (a kernel calling each function), reverse and
# forward, per i and per j, against central differences of the primal run
# in dd with h = 1e-12, differenced exactly in Python's decimal (float
# 1e-5, double 1e-12, dd 1e-18: the difference's own error is about 1e-20;
# on the host only, as PoCL takes minutes to build that kernel), and a
# CONST's gradient reduced over both i and j, nbrun's printed total of the
# per-i column (runtime/sum.c), against central differences of sum_i r[i].
# Sizes 0, 1 and primes.
# Then the derived source (--emit=nbl) compiled again gives the direct
# route's operations and results, nbody's Hermite integrator runs on the
# derived jerk, and bad requests get their messages.
# tags: slow
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
# the derived kernels are large (every rule of ops.h in one): cc -O3 took
# 57 of this script's CPU seconds, -O0 7, for runs of a few elements;
# the arithmetic is the same (dd_options.sh compares -O0 with -O3)
export NBRT_HOST_CFLAGS=-O0
test_seed autodiff
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

devs=host
have_device cpu && devs="$devs cpu"
# shellcheck disable=SC2086
python3 tests/sh/autodiff_ref.py "$BIN" "$T" "$SEED" $devs || bad "autodiff_ref.py"

# the printed source compiles to what the direct route compiles: the same
# operations (--stats) and, in double, results within 1e-15 (the code may
# differ in the order of commutative operands and the values' numbering:
# lowering creates a literal at each use, the derivation once)
printf 'xi,yi,zi,vxi,vyi,vzi\n0.1,0.2,0.3,1,0.5,-0.5\n-0.4,0.25,0.5,0.3,0.2,0.1\n' >"$T/i.csv"
printf 'xj,yj,zj,vxj,vyj,vzj,mj\n0.5,-0.2,0.1,0.1,0.2,0.3,0.5\n1,0.75,-0.5,-1,0.5,0.2,0.25\n' >"$T/j.csv"
cut -d, -f1-3 "$T/i.csv" >"$T/i3.csv"
cut -d, -f1-3,7 "$T/j.csv" >"$T/j3.csv"
for req in "--jvp=xi:vxi,yi:vyi,zi:vzi,xj:vxj,yj:vyj,zj:vzj,ax:jx,ay:jy,az:jz" \
	"--grad=xi,yi,zi,eps2"; do
	i=i.csv j=j.csv
	case $req in --grad*) i=i3.csv j=j3.csv ;; esac
	for p in float double dd; do
		"$BIN/nbcc" $req --precision=$p --emit=nbl dsl-examples/gravity.nbl \
			>"$T/derived.nbl" || die "nbcc $req --emit=nbl"
		"$BIN/nbcc" $req --precision=$p --stats dsl-examples/gravity.nbl |
			sed -n '2,/^flops/p' >"$T/a"
		"$BIN/nbcc" --precision=$p --stats "$T/derived.nbl" |
			sed -n '2,/^flops/p' >"$T/b"
		if cmp -s "$T/a" "$T/b"; then
			ok
		else
			diff "$T/a" "$T/b" | head -20
			bad "$req $p: the derived source compiles to other operations"
		fi
	done
	"$BIN/nbrun" dsl-examples/gravity.nbl $req --precision=double --device host \
		--i "$T/$i" --j "$T/$j" --const eps2=0.01 >"$T/a.csv"
	"$BIN/nbcc" $req --precision=double --emit=nbl dsl-examples/gravity.nbl \
		>"$T/derived.nbl"
	# run in $T by a relative path, which the generated code holds: the
	# same in every run, so the shared cache compiles it once
	(cd "$T" && "$BIN/nbrun" derived.nbl --device host --i "$i" \
		--j "$j" --const eps2=0.01) >"$T/b.csv"
	if [ "$(head -1 "$T/a.csv")" = "$(head -1 "$T/b.csv")" ] &&
		awk -F, 'NR == FNR { for (k = 1; k <= NF; k++) a[FNR, k] = $k; next }
		FNR > 1 { for (k = 1; k <= NF; k++) { d = a[FNR, k] - $k
			if (d < 0) d = -d; m = $k < 0 ? -$k : $k
			if (d > 1e-15 * m) exit 1 } }' "$T/a.csv" "$T/b.csv"; then
		ok
	else
		bad "$req: the derived source's results differ from the direct route's"
	fi
done

# the derived jerk's cost (docs/autodiff.md, "Speed"): 31 operations an
# interaction in float and double, hermite.nbl 30; more than 32 is a
# regression of the grouped product rule or of the split sums
J=xi:vxi,yi:vyi,zi:vzi,xj:vxj,yj:vyj,zj:vzj,ax:jx,ay:jy,az:jz,pot:-
for p in float double; do
	n=$("$BIN/nbcc" --jvp=$J --precision=$p --stats dsl-examples/gravity.nbl |
		sed -n 's/^  total *//p')
	[ -n "$n" ] && awk -v n="$n" 'BEGIN { exit !(n <= 32) }' && ok ||
		bad "the derived jerk costs $n operations in $p (at most 32)"
done

# --stats of a derived kernel gives the primal's cost beside it
"$BIN/nbcc" --jvp=$J --stats dsl-examples/gravity.nbl | grep -q \
	'^the primal (without --jvp and --grad): 14 operations, 20 flops per interaction$' &&
	ok || bad "--stats of the derived jerk does not give the primal's cost"

# nbody's Hermite integrator runs on the derived kernel (pot:- drops
# d_pot, so its interface is hermite.nbl's): the same energy
"$BIN/nbody" --integrator hermite -n 64 --steps 8 --device host \
	--kernel dsl-examples/gravity.nbl --jvp=$J >"$T/derived.txt" 2>&1 ||
	bad "nbody --integrator hermite on the derived kernel"
"$BIN/nbody" --integrator hermite -n 64 --steps 8 --device host \
	>"$T/hand.txt" 2>&1 || bad "nbody --integrator hermite"
e1=$(sed -n 's/^energy: .* E = \([^ ]*\) .*/\1/p' "$T/derived.txt")
e2=$(sed -n 's/^energy: .* E = \([^ ]*\) .*/\1/p' "$T/hand.txt")
if [ -n "$e1" ] && awk -v a="$e1" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9) }'
then ok; else bad "nbody's Hermite energy: derived $e1, hermite.nbl $e2"; fi

# --grad's mode, unforced, is the one of fewer sweeps: reverse for one
# sum and three inputs, forward for gravity.nbl's four sums and three
# inputs (the derived IR is the forced mode's, and not the other's)
printf 'LMEM xi, yi, zi;\nBMEM xj, yj, zj, mj;\nRMEM pot;\nCONST eps2;\n' >"$T/plum.nbl"
printf 'dx = xj - xi;\ndy = yj - yi;\ndz = zj - zi;\n' >>"$T/plum.nbl"
printf 'pot -= mj*(eps2 + dx*dx + dy*dy + dz*dz)**-0.5;\n' >>"$T/plum.nbl"
for km in "$T/plum.nbl reverse forward" "dsl-examples/gravity.nbl forward reverse"; do
	set -- $km
	"$BIN/nbcc" --grad=xi,yi,zi --emit=ir:ad "$1" >"$T/auto.ir"
	NBCC_AD_MODE=$2 "$BIN/nbcc" --grad=xi,yi,zi --emit=ir:ad "$1" >"$T/want.ir"
	NBCC_AD_MODE=$3 "$BIN/nbcc" --grad=xi,yi,zi --emit=ir:ad "$1" >"$T/other.ir"
	if cmp -s "$T/auto.ir" "$T/want.ir" && ! cmp -s "$T/auto.ir" "$T/other.ir"
	then ok; else bad "$1: --grad's mode is not $2"; fi
done

# --grad-of differentiates the results named only
"$BIN/nbrun" dsl-examples/gravity.nbl --grad=xi,yi --grad-of=pot,ax --device host \
	--i "$T/i3.csv" --j "$T/j3.csv" --const eps2=0.01 >"$T/of.csv"
h=$(head -1 "$T/of.csv")
[ "$h" = "ax,ay,az,pot,dax_dxi,dpot_dxi,dax_dyi,dpot_dyi" ] ||
	[ "$h" = "ax,ay,az,pot,dpot_dxi,dax_dxi,dpot_dyi,dax_dyi" ] &&
	ok || bad "--grad-of=pot,ax: the results are $h"

# bad requests: each a clear message and a failure
expect_error() { # WANT ARGS...: nbcc ARGS fails saying WANT
	want=$1
	shift
	if "$BIN/nbcc" --target=c -o "$T/x.c" "$@" 2>"$T/err"; then
		bad "nbcc $*: no error"
	elif grep -q -- "$want" "$T/err"; then
		ok
	else
		cat "$T/err"
		bad "nbcc $*: the message lacks '$want'"
	fi
}
printf 'LMEM x;\nBMEM y;\nRMEM r, k, s;\nr min= (x - y)*(x - y);\nk argmin= x*y;\ns += x*y;\n' >"$T/m.nbl"
expect_error "'foo' is not an input of the kernel (an LMEM, BMEM or CONST name; it has xi, yi, zi, xj, yj, zj, mj, eps2)" \
	--grad=foo dsl-examples/gravity.nbl
export NBCC_AD_MODE=rev
expect_error "NBCC_AD_MODE=rev: it must be reverse or forward" --grad=xi \
	dsl-examples/gravity.nbl
unset NBCC_AD_MODE
expect_error "gravity.nbl:13:6: error: --grad: 'ax' is an RMEM" --grad=ax \
	dsl-examples/gravity.nbl
expect_error "'i' is the integer index" --grad=i dsl-examples/gravity.nbl
expect_error "m.nbl:3:9: error: --grad: 'k' is the result of argmin=" \
	--grad=k "$T/m.nbl"
expect_error "m.nbl:4:1: error: this min= reduction depends on what is differentiated; its derivative is the tangent at its argmin" --grad=x "$T/m.nbl"
expect_error "ask for the BMEM inputs apart" --grad=xi,xj dsl-examples/gravity.nbl
expect_error "ask for --jvp apart" --grad=xj --jvp=xi:vxi dsl-examples/gravity.nbl
printf 'LMEM x;\nBMEM y;\nRMEM r;\nr min= (x - y)*(x - y);\n' >"$T/n.nbl"
printf 'LMEM x;\nBMEM y;\nRMEM r, k;\nr += x < y;\nk argmin= x*y;\n' >"$T/n2.nbl"
expect_error "no sum result (+=, -=), logsumexp=, min= or max= to differentiate" \
	--grad=y "$T/n2.nbl"
expect_error "no sum result" --grad=x "$T/n2.nbl"
expect_error "'foo' is not a result of the kernel" --grad=xi --grad-of=foo \
	dsl-examples/gravity.nbl
expect_error "'xi' is not a result, but an input, of the kernel" --grad=xi \
	--grad-of=xi dsl-examples/gravity.nbl
expect_error "'k' is not a differentiable result" --grad=x --grad-of=k "$T/m.nbl"
expect_error "give --grad too" --grad-of=pot dsl-examples/gravity.nbl
# a min= without its argmin= is refused only where it is differentiated
for req in "--grad=x --grad-of=s" "--jvp=x:v,r:-"; do
	# shellcheck disable=SC2086
	"$BIN/nbcc" $req --target=c -o "$T/x.c" "$T/m.nbl" 2>"$T/err" && ok ||
		bad "nbcc $req m.nbl: $(cat "$T/err")"
done
expect_error "n.nbl:4:1: error: this min= reduction" --grad=y "$T/n.nbl"
expect_error "expected NAME:TANGENT" --jvp=xi dsl-examples/gravity.nbl
expect_error "is declared already" --jvp=xi:yi,ax:ay dsl-examples/gravity.nbl
finish
