# tests/lib.sh: what the tests/sh scripts share; sourced by them (tests/run.sh
# exports ROOT, BIN, NBCC and TESTBUILD).
#   scratch        T: a new directory, removed when the script exits
#   shared_cache   NBRT_CACHE_DIR under the build tree: reruns start warm,
#                  and the plain and the sanitized pass share it (kernels
#                  are built by cc or the OpenCL driver, never sanitized)
#   ok [WHAT]      one more check passed (WHAT is printed when given)
#   bad WHAT       one more check failed: prints FAIL: WHAT
#   finish NAME    prints "NAME: C checks, F failed"; exits 1 after a failure

scratch() {
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
}

shared_cache() {
	export NBRT_CACHE_DIR="$TESTBUILD/nbrun-cache"
	mkdir -p "$NBRT_CACHE_DIR"
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
finish() {
	echo "$1: $checks checks, $fails failed"
	[ "$fails" = 0 ] || exit 1
}
