#!/bin/sh
# paper000.sh: the experiments of paper 000 (Tables II and III) with
# bin/nbody: one step and 100 steps of the three galaxy runs and the random
# 100000-body run, with the paper's dt and eps, for its variants
#   no-unrolling       --unroll-i=1 --unroll-j=1 --jsplit=1
#   simple-unrolling   --unroll-i=4 --unroll-j=1 --jsplit=1   (Fig. 3)
#   double-unrolling   --unroll-i=4 --unroll-j=4 --jsplit=1   (Fig. 4)
#   nbcc default       nbcc's and the runtime's own choice
# on DEVICE, and the C back end on the host (the cpu-only row) unless
# HOST=0.  The galaxy runs use --ic collision, the random run --ic cube.
# Writes CSV rows (nbody --csv, with the variant and steps in front).
# usage: bench/paper000.sh DEVICE [OUT.csv] [SIZES]
set -u
DEV=${1:-gpu}
OUT=${2:-/dev/stdout}
SIZES=${3:-"7500 10000 18000 100000"}
BIN=${BIN:-bin}
HOST=${HOST:-1}
first=1
row() { # variant steps n ic dt eps flags...
	v=$1; s=$2; n=$3; ic=$4; dt=$5; eps=$6; shift 6
	r=$("$BIN/nbody" --csv --ic $ic -n $n --dt $dt --eps $eps --steps $s "$@") ||
		{ echo "failed: $v $s $n $*" >&2; return; }
	if [ $first = 1 ]; then
		echo "variant,steps_run,$(echo "$r" | head -1)" >"$OUT"
		first=0
	fi
	echo "$v,$s,$(echo "$r" | tail -1)" >>"$OUT"
}
for n in $SIZES; do
	case $n in
	7500 | 10000) ic=collision dt=0.015625 eps=0.1 ;;
	18000) ic=collision dt=0.0078125 eps=0.01 ;;
	*) ic=cube dt=0.01 eps=0.01 ;;
	esac
	for s in 1 100; do
		row no-unrolling $s $n $ic $dt $eps --device "$DEV" --unroll-i=1 --unroll-j=1 --jsplit=1
		row simple-unrolling $s $n $ic $dt $eps --device "$DEV" --unroll-i=4 --unroll-j=1 --jsplit=1
		row double-unrolling $s $n $ic $dt $eps --device "$DEV" --unroll-i=4 --unroll-j=4 --jsplit=1
		row nbcc-default $s $n $ic $dt $eps --device "$DEV"
		[ "$HOST" = 1 ] && row cpu-only $s $n $ic $dt $eps --device host --target=c
	done
done
