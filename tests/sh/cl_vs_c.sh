# Every example through the OpenCL back end (on PoCL, the CPU device of
# CI) against the C back end, on random inputs of odd sizes, norm-wise per
# result column: float within 1e-5 and double within 1e-12 (compared as
# doubles, bench/compare.awk), dd within 1e-28 compared as dd: both files
# hold 32 or more significant digits, and tests/sh/ddcmp.c reads them and
# sums the differences with QD, so a lost low word (1e-16 relative) fails.
# The two back ends paste the same ddlib.h, so their dd results agree to
# the last bits except where sums are taken in another order.  Every run
# is a job of one nbrun --jobs: the OpenCL compiler starts once.
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
# the C side of small runs: cc -O0 builds it several times faster than the
# host path's -O3, the same arithmetic but float's estimates (within the
# float tolerance); shared with amdil.sh's builds
export NBRT_HOST_CFLAGS=-O0
ddcmp
precs() {
	case $1 in
	oneloop | oneloop_ieps | oneloop_deform) echo dd ;;
	*) echo float double dd ;;
	esac
}
for f in dsl-examples/*.nbl; do
	ex=$(basename "$f" .nbl)
	for p in $(precs "$ex"); do
		for t in "--device cpu" "--target c"; do
			# shellcheck disable=SC2086 # $t is two words
			job "$T/jobs" "$f" --random 301,299 --seed 5 --precision=$p \
				$t -o "$T/$ex.$p.${t#--}.csv" "2>$T/$ex.$p.${t#--}.err"
		done
	done
done
"$BIN/nbrun" --jobs "$T/jobs" || { cat "$T"/*.err; exit 1; }
status=0
for f in dsl-examples/*.nbl; do
	ex=$(basename "$f" .nbl)
	for p in $(precs "$ex"); do
		tolerance "$p"
		m=$($cmp "$T/$ex.$p.target c.csv" "$T/$ex.$p.device cpu.csv" |
			sed -n 's/^max //p')
		if awk -v m="$m" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
			echo "ok   $ex $p $m"
		else
			echo "FAIL $ex $p $m (tolerance $tol)"
			status=1
		fi
	done
done
exit $status
