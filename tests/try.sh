# tests/try.sh: sourced by tests/run.sh; runs one test command into
# $TMP/out and sets rc, repeating it once for a known sanitizer flake.
# LeakSanitizer's own stop-the-world tracer sometimes crashes at exit
# while PoCL's threads wind down ("Tracer caught signal 11 ... LeakSanitizer
# has encountered a fatal error", a known sanitizer flake, not a leak nor a
# test failure).  Such a run is repeated once, and said so; a second crash,
# or any other failure, counts.
try() { # label command...; output in $TMP/out, exit status in $rc
	label=$1
	shift
	"$@" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc != 0 ] && [ $rc != 77 ] &&
		grep -q "LeakSanitizer has encountered a fatal error" "$TMP/out" &&
		! grep -q "ERROR: LeakSanitizer: detected memory leaks" "$TMP/out"; then
		echo "note: LeakSanitizer's tracer crashed in $label; run again"
		"$@" >"$TMP/out" 2>&1
		rc=$?
	fi
}

