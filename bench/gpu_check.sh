#!/bin/sh
# gpu_check.sh: nbcc's OpenCL kernels on a device against the C back end
# on the host, for every example and several transform settings, on random
# inputs of odd sizes.  Prints one line per case with the norm-wise
# relative difference of the worst result column; exits 1 if any case is
# over its tolerance (float 1e-5, double 1e-12, dd 1e-12 as doubles).
# usage: bench/gpu_check.sh [DEVICE]   (default gpu)
set -u
DEV=${1:-gpu}
BIN=${BIN:-bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0
run() { # name precision flags...
	ex=$1; prec=$2; shift 2
	"$BIN/nbrun" "dsl-examples/$ex.nbl" --random 3001,2999 --seed 7 \
		--precision=$prec --device "$DEV" "$@" -o "$T/d.csv" 2>"$T/err" ||
		{ echo "FAIL $ex $prec $*: $(tail -3 "$T/err")"; bad=1; return; }
	"$BIN/nbrun" "dsl-examples/$ex.nbl" --random 3001,2999 --seed 7 \
		--precision=$prec --target c -o "$T/h.csv" 2>"$T/err" ||
		{ echo "FAIL host $ex $prec: $(tail -3 "$T/err")"; bad=1; return; }
	m=$(awk -f bench/compare.awk "$T/h.csv" "$T/d.csv" | sed -n 's/^max //p')
	tol=1e-5
	[ "$prec" = float ] || tol=1e-12
	ok=$(awk -v m="$m" -v t="$tol" 'BEGIN { print (m <= t) ? "ok" : "OVER" }')
	[ "$ok" = ok ] || bad=1
	printf '%-4s %-16s %-6s %-40s %s\n' "$ok" "$ex" "$prec" "$*" "$m"
}
for f in dsl-examples/*.nbl; do
	ex=$(basename "$f" .nbl)
	if [ "$ex" = oneloop ]; then
		run $ex dd
		run $ex dd --unroll-i=2 --jsplit=4
		continue
	fi
	run $ex float
	run $ex float --unroll-i=4 --unroll-j=2
	run $ex float --unroll-i=2 --jsplit=4 --tile=0
	run $ex float --unroll-i=1 --jsplit=8 --unroll-j=4
	run $ex double --unroll-i=2
done
exit $bad
