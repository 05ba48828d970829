#!/bin/sh
# tests/run.sh BIN: the one test driver.  Runs, against the programs in BIN
# (bin or build-san/bin):
#   1. every unit-test binary built from tests/unit/*.c (Check);
#   2. every case under tests/cases: NAME.nbl beside NAME.out (expected
#      standard output, exit 0) and/or NAME.err (expected standard error,
#      exit 1 when there is no .out).  The first line of NAME.nbl may hold
#      "// nbcc: FLAGS" (default --emit=ast); nbcc runs in the case's
#      directory on the bare file name, so messages carry no paths.
#      Adding a case is adding files.  NBCC_UPDATE=1 rewrites expectations.
#   3. every script tests/sh/*.sh, with BIN, NBCC and TESTBUILD set.
# Exit status 77 (of a unit-test binary or a script) means skipped: what
# it tests needs a device this machine lacks (no OpenCL CPU device, no
# GPU), and whatever else it checked passed.  It prints why; it is
# counted apart from passes and failures.  A script reads a device's
# limits from `nbrun --device-info` (tests/device.sh) rather than
# assuming one driver's.  The closing line is
#   tests: N passed, N failed, N skipped (BIN)
# Unit binaries and scripts run NBCC_TEST_JOBS at a time (default: the
# number of cores) beside the cases, each into its own output file;
# results are reported in order with each one's time, so slow ones show.
set -u
if [ "${1:-}" = --one ]; then # worker: --one unit|script PATH, into $RES
	one_res=$RES/$(basename "$3")
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	one_t0=$(date +%s)
	. "$(dirname "$0")/try.sh"
	if [ "$2" = unit ]; then
		try "unit $(basename "$3")" env CK_VERBOSITY=minimal "$3"
	else
		try "script $(basename "$3")" sh "$3"
	fi
	echo $(($(date +%s) - one_t0)) >"$one_res.secs"
	cp "$TMP/out" "$one_res.out"
	echo "$rc" >"$one_res.rc"
	exit 0
fi
BIN=$(cd "${1:-bin}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BIN" in
*/build-san/bin) TESTBUILD=$ROOT/build-san ;;
*) TESTBUILD=$ROOT/build ;;
esac
NBCC=$BIN/nbcc
export BIN NBCC TESTBUILD ROOT
. "$ROOT/tests/expect.sh"
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
pass=0
fail=0
skip=0
failed=""
skipped=""
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { pass=$((pass + 1)); }
skip_one() {
	skip=$((skip + 1))
	reason=$(grep -i "skip" "$TMP/out" | tail -n 1)
	skipped="$skipped
  $1${reason:+: $reason}"
	echo "skipped: $1${reason:+: $reason}"
}
bad() {
	fail=$((fail + 1))
	failed="$failed
  $1"
	echo "FAIL: $1"
}

. "$ROOT/tests/try.sh"

# 1. unit tests and 3. scripts start first, NBCC_TEST_JOBS at a time in
# the background, each into its own files; their results are read in
# order after the cases.
RES=$TMP/jobs
export RES
mkdir -p "$RES"
{
	for t in "$TESTBUILD"/tests/*; do
		[ -x "$t" ] && echo "unit $t"
	done
	for t in "$ROOT"/tests/sh/*.sh; do
		[ -f "$t" ] && echo "script $t"
	done
} >"$RES/list"
xargs -P "${NBCC_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}" -L 1 \
	sh "$ROOT/tests/run.sh" --one <"$RES/list" &
jobs_pid=$!

# 2. data cases
for src in $(find "$ROOT/tests/cases" -name '*.nbl' | sort); do
	dir=$(dirname "$src")
	name=$(basename "$src" .nbl)
	flags=$(head -n 1 "$src" | sed -n 's|^// nbcc: *||p')
	[ -n "$flags" ] || flags="--emit=ast"
	rel=${src#"$ROOT"/tests/cases/}
	(cd "$dir" && eval "\"$NBCC\" $name.nbl $flags" >"$TMP/out" 2>"$TMP/err")
	rc=$?
	expect "$dir" "$name" "$rc" "$TMP/out" "$TMP/err"
	if [ -z "$why" ]; then ok; else bad "case $rel: $why"; fi
done

wait $jobs_pid
while read -r kind t; do
	n=$(basename "$t")
	if [ ! -f "$RES/$n.rc" ]; then
		bad "$kind $n (did not finish)"
		continue
	fi
	rc=$(cat "$RES/$n.rc")
	cp "$RES/$n.out" "$TMP/out"
	echo "$kind $n: exit $rc, $(cat "$RES/$n.secs") s"
	case $rc in
	0) ok ;;
	77) skip_one "$kind $n" ;;
	*)
		if [ "$kind" = unit ]; then cat "$TMP/out"; else tail -30 "$TMP/out"; fi
		bad "$kind $n"
		;;
	esac
done <"$RES/list"

echo "tests: $pass passed, $fail failed, $skip skipped ($BIN)"
[ "$skip" = 0 ] || echo "skipped:$skipped"
[ "$fail" = 0 ] || { echo "failed:$failed"; exit 1; }
