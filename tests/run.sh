#!/bin/sh
# tests/run.sh [--fast] BIN [TEST...]: the one test driver.  Runs, against
# the programs in BIN (bin, or DIR/bin of make B=DIR: build-san/bin):
#   - every unit-test binary built from tests/unit/*.c (Check);
#   - every suite of tests as data, tests/cases/SUITE: inputs beside what
#     running them must print (NAME.nbl beside NAME.out and NAME.err, the
#     command in SUITE/cmd; tests/cases.sh says how), generated/ among them;
#   - every script tests/sh/*.sh, with BIN, NBCC and TESTBUILD set.
# TEST names some of them: a unit (test_front), a script (il.sh), a suite
# (cases/il), or the script and the suite of one name (il); all of them by
# default.
# Switches:
#   --fast            leaves out the tests tagged slow: a line "tags: slow"
#                     in the first lines of the script or unit's source
#                     (a minute or more on a 2-core machine); the rest
#                     take under two minutes there (make check-fast)
#   NBCC_UPDATE=1     rewrites every expectation from what the programs
#                     print now: the cases' NAME.out and NAME.err,
#                     generated/, the commands shown in docs/ (docs.sh) and
#                     the man pages' generated part (man.sh); read the diff
#   NBCC_TEST_SEED=S  the seed of every test's random inputs; by default a
#                     fresh one, printed first and after a failure
#   NBCC_TEST_JOBS=N  tests run N at a time (default: the number of cores),
#                     each into its own output file; results are reported
#                     in order with each one's time and CPU seconds, so
#                     slow ones show; they start longest first by the
#                     times of the last run (BUILD/test-times)
# Exit status 77 (of a unit-test binary or a script) means skipped: what
# it tests needs a device this machine lacks (no OpenCL CPU device, no
# GPU), and whatever else it checked passed.  It prints why; it is
# counted apart from passes and failures.  A script reads a device's
# limits from `nbrun --device-info` (tests/device.sh) rather than
# assuming one driver's.  Each case of a suite counts as one test.  The
# closing line is
#   tests: N passed, N failed, N skipped (BIN)
set -u
cpu_of() { # the output of times: the children's user+sys, in seconds
	awk 'NR == 2 {
		for (i = 1; i <= 2; i++) {
			m = $i; sub(/m.*/, "", m); s = $i; sub(/.*m/, "", s)
			sub(/s/, "", s); n += m * 60 + s
		}
		printf "%.1f\n", n }' "$1"
}
if [ "${1:-}" = --one ]; then # worker: --one unit|suite|script PATH, into $RES
	one_res=$RES/$(basename "$3")
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	one_t0=$(date +%s)
	. "$(dirname "$0")/try.sh"
	case $2 in
	unit) try "unit $(basename "$3")" env CK_VERBOSITY=minimal "$3" ;;
	suite) try "suite $(basename "$3")" sh "$ROOT/tests/cases.sh" "$3" ;;
	*) try "script $(basename "$3")" sh "$3" ;;
	esac
	echo $(($(date +%s) - one_t0)) >"$one_res.secs"
	# CPU seconds (user+sys) of the test's processes, threads included:
	# on a shared machine wall time says more of the load than the test
	times >"$TMP/times"
	cpu_of "$TMP/times" >"$one_res.cpu"
	cp "$TMP/out" "$one_res.out"
	echo "$rc" >"$one_res.rc"
	exit 0
fi
fast=0
if [ "${1:-}" = --fast ]; then
	fast=1
	shift
fi
BIN=$(cd "${1:-bin}" && pwd) || exit 2
[ $# = 0 ] || shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# make B=DIR (build-san, or make B=build-nompi MPI=0) puts its programs
# in DIR/bin and its unit tests in DIR/tests; the plain build's are bin
# and build/tests
case "$BIN" in
"$ROOT"/bin) TESTBUILD=$ROOT/build ;;
"$ROOT"/*/bin) TESTBUILD=${BIN%/bin} ;;
*) TESTBUILD=$ROOT/build ;;
esac
NBCC=$BIN/nbcc
NBCC_TEST_SEED=${NBCC_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export BIN NBCC TESTBUILD ROOT NBCC_TEST_SEED
# One kernel cache for every test, units included (not the user's
# ~/.cache), and for both passes of make check: kernels are built by cc
# or the OpenCL driver, never sanitized, and the key leaves out the
# kernel's path (runtime/cache.c), so a kernel is built once whatever
# copy or pass runs it.  NBRT_CACHE_DIR=$(mktemp -d) runs from a cold one.
NBRT_CACHE_DIR=${NBRT_CACHE_DIR:-$ROOT/build/nbrun-cache}
export NBRT_CACHE_DIR
mkdir -p "$NBRT_CACHE_DIR"
echo "tests: random inputs from NBCC_TEST_SEED=$NBCC_TEST_SEED"
# PoCL, the ICD loader and LLVM leak when PoCL compiles; only those
# libraries are suppressed (tests/lsan.supp), never our code.
export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# The sanitizer runtime tracks the thread-local storage of dlopened
# libraries through __tls_get_addr; PoCL's kernel libraries leave it a
# bogus range ("DTLS 7 at 0x75e-0x800001860") and LeakSanitizer's tracer
# then dies of SIGSEGV at exit (lamb_oseen on PoCL with a cold cache).
# Not tracking it only drops those TLS blocks as roots of the leak scan,
# so it can add reports, never hide one.
export ASAN_OPTIONS="intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# PoCL compiles each program twice by default, the second time
# specialized to the launch's shape.  The tests check nbcc's code, not
# PoCL's specializations, and with the caches of a fresh machine cold the
# second compile costs minutes of make check; nbrun.sh keeps PoCL's way.
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
# The host path's kernels (and test_equiv's) are OpenMP loops, launched
# thousands of times a run.  libgomp's threads spin between them by
# default, and with two tests on two cores (more on a shared machine) a
# spinning thread holds the core the other thread needs: test_equiv took
# 18 s of CPU for 1.4 s of work on a loaded machine.  Waiting passively
# changes no result, and no test depends on how threads wait.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
pass=0
fail=0
skip=0
left=0
failed=""
skipped=""
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

skip_one() {
	skip=$((skip + 1))
	reason=$(grep -i "skip" "$TMP/out" | tail -n 1)
	skipped="$skipped
  $1${reason:+: $reason}"
	echo "skipped: $1${reason:+: $reason}"
}
record() { # a failure, listed at the end
	fail=$((fail + 1))
	failed="$failed
  $1"
}
bad() {
	record "$1"
	echo "FAIL: $1"
}

# the tests: KIND PATH NAME SOURCE (the file that may carry the tags),
# those tagged slow first so that the long ones start early
{
	for t in "$TESTBUILD"/tests/*; do
		[ -x "$t" ] && n=$(basename "$t") &&
			echo "unit $t $n $ROOT/tests/unit/$n.c"
	done
	for t in "$ROOT"/tests/sh/*.sh; do
		[ -f "$t" ] && echo "script $t $(basename "$t" .sh) $t"
	done
	for t in "$ROOT"/tests/cases/*/cmd; do
		[ -f "$t" ] && t=$(dirname "$t") &&
			echo "suite $t $(basename "$t") $t/cmd"
	done
} >"$TMP/all"
: >"$TMP/slow"
: >"$TMP/quick"
while read -r kind t n src; do
	if [ $# -gt 0 ]; then
		want=0
		case $kind in
		script) alias=$n.sh ;;
		suite) alias=cases/$n ;;
		*) alias=$n ;;
		esac
		for a in "$@"; do
			[ "$a" = "$n" ] || [ "$a" = "$alias" ] && want=1
		done
		[ $want = 1 ] || continue
	fi
	if head -n 40 "$src" 2>/dev/null | grep -q '^[#/ *]*tags:.*\<slow\>'
	then
		if [ $fast = 1 ]; then
			left=$((left + 1))
			continue
		fi
		echo "$kind $t" >>"$TMP/slow"
	else
		echo "$kind $t" >>"$TMP/quick"
	fi
done <"$TMP/all"
RES=$TMP/jobs
export RES
mkdir -p "$RES"
cat "$TMP/slow" "$TMP/quick" >"$RES/list"
[ -s "$RES/list" ] || { echo "tests: nothing matches $*"; exit 2; }
# Started longest first, by the seconds each took last time (this build's
# record), else by a cold run's (tests/test-times, the column of this
# pass), so that no long test starts late and leaves a core idle at the
# end; those in neither start first if tagged slow, last if not.
record=$TESTBUILD/test-times
[ -f "$record" ] || record=/dev/null
col=2
[ "$TESTBUILD" = "$ROOT/build-san" ] && col=3
nslow=$(wc -l <"$TMP/slow")
awk -v nslow="$nslow" -v col="$col" '
	FILENAME == ARGV[1] { if (!/^#/) secs[$1] = $col; next }
	FILENAME == ARGV[2] { secs[$1] = $2; next }
	{ n = $2; sub(/.*\//, "", n)
	  print (n in secs ? secs[n] : FNR <= nslow ? 1e9 : -1), FNR, $0 }' \
	"$ROOT/tests/test-times" "$record" "$RES/list" |
	sort -k1,1gr -k2,2n | cut -d' ' -f3- >"$TMP/start"
xargs -P "${NBCC_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}" -L 1 \
	sh "$ROOT/tests/run.sh" --one <"$TMP/start"

. "$ROOT/tests/try.sh"
total=0
cpu_total=0
while read -r kind t; do
	n=$(basename "$t")
	if [ ! -f "$RES/$n.rc" ]; then
		bad "$kind $n (did not finish)"
		continue
	fi
	rc=$(cat "$RES/$n.rc")
	secs=$(cat "$RES/$n.secs")
	echo "$n $secs" >>"$TMP/took"
	cpu=$(cat "$RES/$n.cpu")
	total=$((total + secs))
	cpu_total=$(echo "$cpu_total $cpu" | awk '{ printf "%.1f", $1 + $2 }')
	cp "$RES/$n.out" "$TMP/out"
	if [ "$kind" = suite ]; then
		# a case a test: the counts from cases.sh's last line
		set -- $(sed -n 's/^cases [^ ]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' \
			"$TMP/out")
		echo "suite $n: ${1:-?} cases passed, ${2:-?} failed, $secs s, $cpu s CPU"
		pass=$((pass + ${1:-0}))
		if [ "$rc" != 0 ] || [ "${2:-1}" != 0 ]; then
			sed '$d' "$TMP/out" | head -150
			sed -n 's/^FAIL: /case /p' "$TMP/out" >"$TMP/why"
			[ -s "$TMP/why" ] || echo "suite $n (exit $rc)" >"$TMP/why"
			while read -r line; do record "$line"; done <"$TMP/why"
		fi
		continue
	fi
	echo "$kind $n: exit $rc, $secs s, $cpu s CPU"
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip_one "$kind $n" ;;
	*)
		if [ "$kind" = unit ]; then cat "$TMP/out"; else tail -30 "$TMP/out"; fi
		bad "$kind $n"
		;;
	esac
done <"$RES/list"

# this run's times replace those of the same tests in the record
if [ -f "$TMP/took" ]; then
	awk 'FILENAME == ARGV[1] { secs[$1] = $2; next } !($1 in secs)' \
		"$TMP/took" "$record" >"$TMP/record"
	cat "$TMP/took" >>"$TMP/record"
	cp "$TMP/record" "$TESTBUILD/test-times"
fi
echo "tests: $total s of tests in all, $cpu_total s CPU"
[ $left = 0 ] || echo "tests: $left tagged slow left out (--fast)"
echo "tests: $pass passed, $fail failed, $skip skipped ($BIN)"
[ "$skip" = 0 ] || echo "skipped:$skipped"
[ "$fail" = 0 ] || {
	echo "failed:$failed"
	echo "(NBCC_TEST_SEED=$NBCC_TEST_SEED repeats the random inputs)"
	exit 1
}
