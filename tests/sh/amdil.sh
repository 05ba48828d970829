# Every example through the AMD IL back end, run by the IL interpreter
# (bin/nbrun --target amdil), against the C back end on the same random
# inputs: each (Ni, Nj) with Ni, Nj in {1, 4, 7, 1000} under the transform
# settings 1x1, 4x1, 4x4 and 4x4 with a j-split of 3, in every precision
# the example compiles in.  Tolerances, norm-wise per result column as in
# cl_vs_c.sh: float 1e-5 (the interpreter's rsq_vec and transcendentals
# round differently from C's libm), double 1e-12, dd 1e-28 compared with
# QD (tests/sh/ddcmp.c); the double and dd transcendentals are
# compiler/amdil/fn.c's sequences.  Operations the IL target refuses
# (docs/amdil.md) must be refused with the documented message, never
# compiled: those combinations are checked for that.
# Sizes: (1,1) (4,7) (7,4) (7,1000) (1000,7), so that each of 1, 4, 7
# and 1000 is met on both sides, under 1x1 and the j-split; 4x1 and 4x4
# at (7,4); the C reference runs once per size.  (1000,1000), a million
# interpreted pairs a run, only with NBCC_TEST_HEAVY=1: it met nothing the
# two long thin sizes do not, and took most of the script's minute.  Under
# the sanitizers (NBCC_SANITIZED=1) the interpreter is ten times slower:
# the two extreme settings and the small sizes only.
# tags: slow
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
scratch
shared_cache
# the C reference of small runs: cc -O0 builds it several times faster
# than the host path's -O3, the same arithmetic but float's estimates
# (within the float tolerance); shared with cl_vs_c.sh's builds
export NBRT_HOST_CFLAGS=-O0
ddcmp
status=0
runs=0
sizes="1,1 4,7 7,4 7,1000 1000,7"
[ "${NBCC_TEST_HEAVY:-0}" = 1 ] && sizes="$sizes 1000,1000"
settings="1x1 4x1 4x4 4x4s3"
examples=dsl-examples/*.nbl
if [ "${NBCC_SANITIZED:-0}" = 1 ]; then
	sizes="4,7 7,4"
	settings="1x1 4x4s3"
	examples="dsl-examples/gravity.nbl dsl-examples/oneloop.nbl"
fi
for f in $examples; do
	ex=$(basename "$f" .nbl)
	# the examples of the other reductions and the indices run in the
	# interpreter in tests/sh/examples_ref.sh, against their references
	case $ex in lennard_jones_self|nearest|gauss_logsumexp) continue ;; esac
	precs="float double dd"
	[ "$ex" = oneloop ] && precs=dd
	for p in $precs; do
		if ! "$BIN/nbcc" "$f" --precision=$p --target=amdil -o "$T/k.il" \
			2>"$T/err"; then
			if grep -q "has no AMD IL form" "$T/err"; then
				echo "ok   $ex $p refused: $(head -n 1 "$T/err" | sed 's/.*error: //')"
				continue
			fi
			echo "FAIL $ex $p: nbcc failed:"; cat "$T/err"; status=1
			continue
		fi
		tolerance "$p"
		worst=0
		for n in $sizes; do
			"$BIN/nbrun" "$f" --random $n --seed 7 --precision=$p \
				--target c -o "$T/c$n.csv" 2>"$T/err" ||
				{ cat "$T/err"; exit 1; }
		done
		for st in $settings; do
			case $st in
			1x1) s="--unroll-i=1 --unroll-j=1" ;;
			4x1) s="--unroll-i=4 --unroll-j=1" ;;
			4x4) s="--unroll-i=4 --unroll-j=4" ;;
			4x4s3) s="--unroll-i=4 --unroll-j=4 --jsplit=3" ;;
			esac
			these=$sizes
			case $st in 4x1|4x4) these="7,4" ;; esac
			for n in $these; do
				# shellcheck disable=SC2086
				"$BIN/nbrun" "$f" --random $n --seed 7 --precision=$p \
					--target amdil $s -o "$T/il.csv" 2>"$T/err" ||
					{ echo "FAIL $ex $p $s $n:"; cat "$T/err"; status=1; continue; }
				runs=$((runs + 1))
				m=$($cmp "$T/c$n.csv" "$T/il.csv" | sed -n 's/^max //p')
				if ! awk -v m="$m" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
					echo "FAIL $ex $p $s $n: $m (tolerance $tol)"
					status=1
				fi
				worst=$(awk -v a="$worst" -v b="$m" 'BEGIN { print (b > a ? b : a) }')
			done
		done
		echo "ok   $ex $p worst $worst (tolerance $tol)"
	done
done
echo "$runs runs"
exit $status
