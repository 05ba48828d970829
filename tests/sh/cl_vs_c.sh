# Every example through the OpenCL back end (on PoCL, the CPU device of
# CI) against the C back end, on random inputs of odd sizes, norm-wise per
# result column: float within 1e-5 and double within 1e-12 (compared as
# doubles, bench/compare.awk), dd within 1e-28 compared as dd: both files
# hold 32 or more significant digits, and tests/sh/ddcmp.c reads them and
# sums the differences with QD, so a lost low word (1e-16 relative) fails.
# The two back ends paste the same ddlib.h, so their dd results agree to
# the last bits except where sums are taken in another order.
# The check suite (sh bench/run.sh check) does the same on a GPU with more
# transform settings.
# tags: slow
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
need_device cpu
scratch
shared_cache
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$T/ddcmp" tests/sh/ddcmp.c \
	-lqd -lstdc++ -lm
status=0
for f in dsl-examples/*.nbl; do
	ex=$(basename "$f" .nbl)
	precs="float double dd"
	case $ex in oneloop | oneloop_ieps | oneloop_deform) precs=dd ;; esac
	for p in $precs; do
		"$BIN/nbrun" "$f" --random 301,299 --seed 5 --precision=$p \
			--device cpu -o "$T/cl.csv" 2>"$T/err" || { cat "$T/err"; exit 1; }
		"$BIN/nbrun" "$f" --random 301,299 --seed 5 --precision=$p \
			--target c -o "$T/c.csv" 2>"$T/err" || { cat "$T/err"; exit 1; }
		case $p in
		float) tol=1e-5 cmp="awk -f bench/compare.awk" ;;
		double) tol=1e-12 cmp="awk -f bench/compare.awk" ;;
		dd) tol=1e-28 cmp="$T/ddcmp" ;;
		esac
		m=$($cmp "$T/c.csv" "$T/cl.csv" | sed -n 's/^max //p')
		if awk -v m="$m" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
			echo "ok   $ex $p $m"
		else
			echo "FAIL $ex $p $m (tolerance $tol)"
			status=1
		fi
	done
done
exit $status
