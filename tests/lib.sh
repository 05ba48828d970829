# tests/lib.sh: what the tests/sh scripts (and tests/cases.sh) share;
# sourced by them (tests/run.sh exports ROOT, BIN, NBCC and TESTBUILD).
#   scratch        T: a new directory, removed when the script exits
#   shared_cache   the NBRT_CACHE_DIR tests/run.sh chose (build/nbrun-cache
#                  unless given): reruns start warm, and the plain and the
#                  sanitized pass share it (kernels are built by cc or the
#                  OpenCL driver, never sanitized)
#   cached_ref CMD...  CMD's standard output, kept in the shared cache:
#                  for the deterministic references (no random input)
#                  that several scripts or both passes ask for
#   test_seed NAME SEED: the seed of the script's random inputs,
#                  NBCC_TEST_SEED when set (tests/run.sh sets it), else a
#                  fresh one; printed, so that a failure can be repeated
#   job FILE ARG...  appends to FILE a line of nbrun --jobs running
#                  nbrun ARG... (each word quoted: any byte but newline;
#                  >PATH and 2>PATH are the job's redirections, NAME=VALUE
#                  first, NAME in capitals, its environment):
#                  a test's kernels then build in one process, which
#                  pays the OpenCL compiler's start once
#   ok [WHAT]      one more check passed (WHAT is printed when given)
#   bad WHAT       one more check failed: prints FAIL: WHAT
#   die WHAT       bad WHAT, then exit 1: a check the rest depends on
#   finish [NAME]  prints "NAME: C checks, F failed" (NAME: the script's);
#                  exits 1 after a failure, returns otherwise

scratch() {
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
}

shared_cache() {
	export NBRT_CACHE_DIR="${NBRT_CACHE_DIR:-$ROOT/build/nbrun-cache}"
	mkdir -p "$NBRT_CACHE_DIR"
}

# The mpmath references at fixed points cost more CPU than the programs
# they check (oneloop_limit_ref.py over a minute), and oneloop_ieps.sh and
# oneloop_deform.sh ask for the same one; make check's sanitized pass
# asked for each again; oneloop_ref.sh's QD sums at N = 256 took 31 CPU s
# a run.  Each is still computed by its own code in every
# cold run, once: the key is the command line, the contents of its
# arguments that are files and of tests/sh/*.py (what the references
# import), and python3's and mpmath's versions, so an edit to any of
# them computes it again; a failed command is not kept.  Only for
# commands whose output depends on nothing else (no seed, no program
# under test).  NBRT_CACHE_DIR=$(mktemp -d) runs them cold.
cached_ref() {
	shared_cache
	ref_key=$({
		printf '%s\n' "$@"
		for a; do [ ! -f "$a" ] || cat "$a"; done
		cat "$ROOT"/tests/sh/*.py
		"${PYTHON3:-python3}" -c 'import sys, mpmath; print(sys.version, mpmath.__version__)'
	} 2>&1 | sha256sum | cut -c1-32)
	ref_file=$NBRT_CACHE_DIR/ref-$ref_key
	if [ -f "$ref_file" ]; then
		cat "$ref_file"
		return 0
	fi
	"$@" >"$ref_file.$$" || { rm -f "$ref_file.$$"; return 1; }
	mv "$ref_file.$$" "$ref_file"
	cat "$ref_file"
}

test_seed() {
	SEED=${NBCC_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	echo "$1: seed $SEED (NBCC_TEST_SEED=$SEED repeats it)"
}

job() {
	job_file=$1
	shift
	for a; do
		case $a in
		\>* | 2\>*) printf '%s' "${a%%>*}>"; a=${a#*>} ;;
		[A-Z]*=*) printf '%s' "${a%%=*}="; a=${a#*=} ;;
		esac
		printf "'%s' " "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
	done >>"$job_file"
	echo >>"$job_file"
}

checks=0
fails=0
ok() {
	checks=$((checks + 1))
	[ $# = 0 ] || echo "ok $*"
}
bad() {
	checks=$((checks + 1))
	fails=$((fails + 1))
	echo "FAIL: $*"
}
die() {
	bad "$@"
	exit 1
}
finish() {
	echo "${1:-$(basename "$0" .sh)}: $checks checks, $fails failed"
	[ "$fails" = 0 ] || exit 1
}
# need_mpmath NAME: the oneloop tests' independent references are mpmath's;
# without it the checks so far are reported and the test skipped (77).
# Sets PYTHON3, the python3 they run under: Debian's where it has mpmath,
# as the Makefile's pycheck prefers it, since scripts/deps.sh gives it
# gmpy2, mpmath's fast integers (oneloop_limit_ref.py 93 CPU s, 136 on
# the same mpmath code without them from a python3 earlier in PATH), else
# the first in PATH; the same digits either way
need_mpmath() {
	PYTHON3=python3
	/usr/bin/python3 -c 'import mpmath' 2>/dev/null && PYTHON3=/usr/bin/python3
	"$PYTHON3" -c 'import mpmath' 2>/dev/null && return 0
	echo "skipped: no mpmath for python3 (the independent reference)"
	finish "$1"
	exit 77
}
# ddcmp: builds $T/ddcmp (tests/sh/ddcmp.c over QD), which compares dd
# results printed to 32 or more digits
ddcmp() {
	cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$T/ddcmp" tests/sh/ddcmp.c \
		-lqd -lstdc++ -lm
}
# tolerance P: sets tol and cmp, the largest relative difference allowed
# between two runs of precision P and the program that measures it
# ($T/ddcmp for dd: call ddcmp first)
tolerance() {
	case $1 in
	float) tol=1e-5 cmp="awk -f bench/compare.awk" ;;
	double) tol=1e-12 cmp="awk -f bench/compare.awk" ;;
	dd) tol=1e-28 cmp="$T/ddcmp" ;;
	esac
}
