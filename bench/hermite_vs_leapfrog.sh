#!/bin/sh
# hermite_vs_leapfrog.sh: the energy error against wall time of bin/nbody's
# two integrators on one Plummer sphere over one N-body time unit (the
# figure of docs/nbody.md): the leap-frog in float and in double over a
# range of dt, the Hermite scheme (double) over a range of eta.  Wall time
# is nbody's own: steps x time_step, the integration without start-up,
# program builds or output.  The error is the largest |dE/E| of the log's
# rows (every step: dt for the leap-frog, 1/16 for the Hermite scheme),
# not the value at t = 1 alone, which a leap-frog's oscillating error can
# make small by chance.
# usage: bench/hermite_vs_leapfrog.sh DEVICE N OUT.csv [OUT.png]
# Writes OUT.csv (method,param,wall_s,de_max,then nbody's --csv row) and,
# with bin/nbplot built (make bin/nbplot), the figures OUT.png (against
# wall time) and OUT_evals.png (against force evaluations a body).
set -u
DEV=${1:-host}
N=${2:-1024}
OUT=${3:-hvl.csv}
PNG=${4:-}
BIN=${BIN:-bin}
SEED=${SEED:-1}
LF_DTS=${LF_DTS:-"1/64 1/128 1/256 1/512 1/1024 1/2048 1/4096"}
ETAS=${ETAS:-"0.08 0.04 0.02 0.01 0.005 0.0025"}
first=1
row() { # method param flags...
	m=$1
	p=$2
	shift 2
	r=$("$BIN/nbody" --csv --ic plummer -n "$N" --seed "$SEED" --t-end 1 \
		--device "$DEV" --log "$OUT.log" --every 0 "$@") ||
		{ echo "failed: $m $p" >&2; return; }
	if [ $first = 1 ]; then
		echo "method,param,wall_s,de_max,$(echo "$r" | head -1)" >"$OUT"
		first=0
	fi
	max=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { printf "%.6g", m }' \
		"$OUT.log")
	echo "$r" | tail -1 | awk -F, -v m="$m" -v p="$p" -v e="$max" \
		'{ printf "%s,%s,%.6g,%s,%s\n", m, p, $4 * $14, e, $0 }' >>"$OUT"
	echo "$m $p: $(tail -1 "$OUT" | cut -d, -f3,4)" >&2
}
for dt in $LF_DTS; do
	row "leap-frog float" "$dt" --dt "$dt"
	row "leap-frog double" "$dt" --dt "$dt" --precision=double
done
for eta in $ETAS; do
	row "Hermite double" "$eta" --integrator hermite --eta "$eta"
done
rm -f "$OUT.log"
# the figures: against wall time, and against force evaluations a body
# (interactions / N^2, which no other load on the machine changes)
if [ -n "$PNG" ] && [ -x "$BIN/nbplot" ]; then
	cut -d, -f1,3,4 "$OUT" >"$OUT.xy"
	dev=$(tail -1 "$OUT" | sed 's/.*,"\(.*\)","[^"]*"$/\1/; s/""/"/g')
	"$BIN/nbplot" "$OUT.xy" "$PNG" "Plummer N = $N, t = 1, $dev"
	awk -F, -v n="$N" 'NR == 1 { print "method,evals,de_max" }
		NR > 1 { printf "%s,%.6g,%s\n", $1, $21 * $20 * $8 / n / n, $4 }' \
		"$OUT" >"$OUT.xy"
	"$BIN/nbplot" "$OUT.xy" "${PNG%.png}_evals.png" \
		"Plummer N = $N, t = 1: cost in force evaluations" \
		"force evaluations a body to t = 1 (interactions / N^2)"
	rm -f "$OUT.xy"
fi
