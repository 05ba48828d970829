# suites/hermite-vs-leapfrog.sh: the energy error against wall time of
# bin/nbody's two integrators on one Plummer sphere over one N-body time
# unit (docs/nbody.md): the leap-frog in float and in double over a range
# of dt, the Hermite scheme (double) over a range of eta.  Wall time is
# nbody's own: steps x time_step, the integration without start-up,
# builds or output.  The error is the largest |dE/E| of the log's rows
# (every step: dt for the leap-frog, 1/16 for the Hermite scheme), not the
# value at t = 1 alone, which a leap-frog's oscillating error can make
# small by chance.  Rows: method,param,wall_s,de_max, then nbody's --csv
# row.  With bin/nbplot (make bin/nbplot) the figures go beside the
# result: RESULT.png (against wall time), RESULT-evals.png (against force
# evaluations a body, which no other load on the machine changes).
about="energy error against cost: leap-frog (float, double) and Hermite, Plummer to t = 1"
params="device n seed dts etas"
device=host
n=1024
seed=1
dts="1/64 1/128 1/256 1/512 1/1024 1/2048 1/4096"
etas="0.08 0.04 0.02 0.01 0.005 0.0025"

# hvl METHOD PARAM FLAGS...
hvl() {
	m=$1 p=$2
	shift 2
	r=$("$BIN/nbody" --csv --ic plummer -n "$n" --seed "$seed" --t-end 1 \
		--device "$device" --log "$T/log" --every 0 "$@" </dev/null 2>"$T/err") ||
		{ note "failed: $m $p: $(tail -n 1 "$T/err")"; return; }
	if [ ! -s "$T/hvl.csv" ]; then
		echo "method,param,wall_s,de_max,$(echo "$r" | head -n 1)" | tee "$T/hvl.csv"
	fi
	max=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { printf "%.6g", m }' "$T/log")
	echo "$r" | tail -n 1 | awk -F, -v m="$m" -v p="$p" -v e="$max" \
		'{ printf "%s,%s,%.6g,%s,%s\n", m, p, $4 * $14, e, $0 }' | tee -a "$T/hvl.csv"
}

suite_run() {
	: >"$T/hvl.csv"
	for dt in $dts; do
		hvl "leap-frog float" "$dt" --dt "$dt"
		hvl "leap-frog double" "$dt" --dt "$dt" --precision=double
	done
	for eta in $etas; do
		hvl "Hermite double" "$eta" --integrator hermite --eta "$eta"
	done
	[ -x "$BIN/nbplot" ] || { note "no $BIN/nbplot (make bin/nbplot): no figures"; return 0; }
	png=${R%.txt}.png
	cut -d, -f1,3,4 "$T/hvl.csv" >"$T/xy"
	dev=$(tail -n 1 "$T/hvl.csv" | sed 's/.*,"\(.*\)","[^"]*"$/\1/; s/""/"/g')
	"$BIN/nbplot" "$T/xy" "$png" "Plummer N = $n, t = 1, $dev" &&
		note "figure: ${png#"$ROOT"/}"
	awk -F, -v n="$n" 'NR == 1 { print "method,evals,de_max" }
		NR > 1 { printf "%s,%.6g,%s\n", $1, $21 * $20 * $8 / n / n, $4 }' \
		"$T/hvl.csv" >"$T/xy"
	"$BIN/nbplot" "$T/xy" "${R%.txt}-evals.png" \
		"Plummer N = $n, t = 1: cost in force evaluations" \
		"force evaluations a body to t = 1 (interactions / N^2)" &&
		note "figure: ${R#"$ROOT"/}" | sed 's/\.txt$/-evals.png/'
}
