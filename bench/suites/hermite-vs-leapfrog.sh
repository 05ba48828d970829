# suites/hermite-vs-leapfrog.sh: the energy error against wall time of
# bin/nbody's two integrators on one Plummer sphere over t_end N-body time
# units (docs/nbody.md): the leap-frog in the precisions `lf` over a range
# of dt, the Hermite scheme (double) over a range of eta, its j-bodies
# predicted where `predicts` says (device: nbrt_predictor, the default;
# host: the old way, every body sent each block step), and with one
# step shared by every body, fixed (--timestep fixed) at each of `hdts`
# (every step then evaluates all N on all N).  Wall time is
# nbody's own: steps x time_step, the integration without start-up,
# builds or output.  The error is the largest |dE/E| of the log's rows
# (every step: dt for the leap-frog and fixed Hermite steps, 1/16 for
# block steps), not the
# value at t_end alone, which a leap-frog's oscillating error can make
# small by chance.  Rows: method,param,n,wall_s,de_max, then nbody's
# --csv row.  The closing table answers issue 30's target (Hermite
# reaching a better energy error than the leap-frog in double in less
# wall time): for each N and Hermite run, the wall time the leap-frog in
# double needs for the same error, interpolated in log-log between its
# runs on either side (a bound where no pair of its runs brackets the
# error), the ratio, and whether the target is met: by a leap-frog run
# measured no more accurate and no slower (met) or no less accurate and
# no faster (not met), else by the interpolation.  With bin/nbplot (make bin/nbplot) and one N, the
# figures go beside the result: RESULT.png (against wall time),
# RESULT-evals.png (against force evaluations a body, which no other
# load on the machine changes).
# On a GPU at the issue's size (some minutes on an H100):
#   sh bench/run.sh hermite-vs-leapfrog device=gpu ns=65536 lf=double \
#       dts="1/256 1/512 1/1024 1/2048" etas="0.04 0.02 0.01 0.005" \
#       predicts="device host" hdts="1/128 1/256 1/512"
about="energy error against cost: leap-frog (float, double) and Hermite, Plummer to t = t_end"
params="device ns seed t_end lf dts etas predicts hdts"
device=host
ns=1024
seed=1
t_end=1
lf="float double"
dts="1/64 1/128 1/256 1/512 1/1024 1/2048 1/4096"
etas="0.08 0.04 0.02 0.01 0.005 0.0025"
predicts=device
hdts="1/32 1/64 1/128"

# hvl N METHOD PARAM FLAGS...
hvl() {
	hn=$1 m=$2 p=$3
	shift 3
	r=$("$BIN/nbody" --csv --ic plummer -n "$hn" --seed "$seed" --t-end "$t_end" \
		--device "$device" --log "$T/log" --every 0 "$@" </dev/null 2>"$T/err") ||
		{ note "failed: N = $hn $m $p: $(tail -n 1 "$T/err")"; return; }
	if [ ! -s "$T/hvl.csv" ]; then
		echo "method,param,n,wall_s,de_max,$(echo "$r" | head -n 1)" | tee "$T/hvl.csv"
	fi
	max=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { printf "%.6g", m }' "$T/log")
	echo "$r" | tail -n 1 | awk -F, -v m="$m" -v p="$p" -v e="$max" -v n="$hn" \
		'{ printf "%s,%s,%s,%.6g,%s,%s\n", m, p, n, $4 * $14, e, $0 }' | tee -a "$T/hvl.csv"
}

# For each N and Hermite row: the leap-frog in double's wall time at the
# same error (log-log between the two runs that bracket it).
verdict() {
	note "target (issue 30): Hermite's error in less wall time than the leap-frog in double's"
	note "n,method,param,wall_s,de_max,leapfrog_double_wall_s_same_error,speedup,target"
	awk -F, 'NR > 1 && $1 == "leap-frog double" { k = $3 SUBSEP (++nl[$3]); lw[k] = $4; le[k] = $5; lp[k] = $2 }
		NR > 1 && $1 ~ /^Hermite/ { h[++nh] = $0 }
		END {
			for (q = 1; q <= nh; q++) {
				split(h[q], f, ",")
				n = f[3]; w = f[4]; e = f[5]; best = ""
				for (a = 1; a <= nl[n]; a++) for (b = 1; b <= nl[n]; b++) {
					ka = n SUBSEP a; kb = n SUBSEP b
					# a bracketing pair: le[a] >= e >= le[b]
					if (le[ka] < e || le[kb] > e || le[ka] <= 0 || le[kb] <= 0) continue
					if (le[ka] == le[kb]) t = lw[ka] < lw[kb] ? lw[ka] : lw[kb]
					else {
						s = (log(lw[kb]) - log(lw[ka])) / (log(le[kb]) - log(le[ka]))
						t = exp(log(lw[ka]) + (log(e) - log(le[ka])) * s)
					}
					if (best == "" || t < best) best = t
				}
				lo = 0; hi = 0; won = ""; lost = ""
				for (a = 1; a <= nl[n]; a++) {
					k = n SUBSEP a
					if (!lo || le[k] < le[n SUBSEP lo]) lo = a
					if (!hi || le[k] > le[n SUBSEP hi]) hi = a
					# measured, not interpolated: a leap-frog run no better
					# and no faster, or one no worse and no slower
					r = "dt " lp[k] ": " le[k] " in " lw[k] " s"
					if (le[k] >= e && lw[k] >= w) won = won (won == "" ? " " : "; ") r
					if (le[k] <= e && lw[k] <= w) lost = lost (lost == "" ? " " : "; ") r
				}
				if (won != "") tg = "met (leap-frog" won ")"
				else if (lost != "") tg = "not met (leap-frog" lost ")"
				else if (best != "") tg = best > w ? "met (interpolated)" : "not met (interpolated)"
				else tg = "open"
				# an error above that of every leap-frog run: the run of the largest
				# error (the cheapest, as a rule) already does better, so its time
				# and the ratio are upper bounds; below every run, those of its best
				# run are lower bounds
				if (best == "" && hi && e >= le[n SUBSEP hi]) printf "# %s,%s,%s,%s,%s,<= %.4g (its largest error: %s),<= %.3g,%s\n", n, f[1], f[2], w, e, lw[n SUBSEP hi], le[n SUBSEP hi], lw[n SUBSEP hi] / w, tg
				else if (best == "" && lo) printf "# %s,%s,%s,%s,%s,>= %.4g (its best: %s),>= %.3g,%s\n", n, f[1], f[2], w, e, lw[n SUBSEP lo], le[n SUBSEP lo], lw[n SUBSEP lo] / w, tg
				else if (best == "") printf "# %s,%s,%s,%s,%s,no leap-frog double run,,open\n", n, f[1], f[2], w, e
				else printf "# %s,%s,%s,%s,%s,%.4g,%.3g,%s\n", n, f[1], f[2], w, e, best, best / w, tg
			}
		}' "$T/hvl.csv"
	note "speedup > 1: the Hermite run reached its error faster than the leap-frog in double would (log-log between its runs); \"<=\": every leap-frog run did better; \">=\": none reached the error, so the leap-frog needs more than its best run; target: met where a leap-frog run was no more accurate and no faster, not met where one was no less accurate and no slower, else from the interpolation"
}

suite_run() {
	: >"$T/hvl.csv"
	for n in $ns; do
		for dt in $dts; do
			for p in $lf; do
				hvl "$n" "leap-frog $p" "$dt" --dt "$dt" --precision="$p"
			done
		done
		for eta in $etas; do
			for pr in $predicts; do
				m="Hermite double"
				[ "$pr" = device ] || m="Hermite double (predict $pr)"
				hvl "$n" "$m" "$eta" --integrator hermite --eta "$eta" --predict "$pr"
			done
		done
		for dt in $hdts; do
			hvl "$n" "Hermite fixed" "$dt" --integrator hermite --timestep fixed \
				--dt "$dt"
		done
	done
	verdict
	set -- $ns
	[ $# = 1 ] || { note "several N: no figures"; return 0; }
	[ -x "$BIN/nbplot" ] || { note "no $BIN/nbplot (make bin/nbplot): no figures"; return 0; }
	png=${R%.txt}.png
	cut -d, -f1,4,5 "$T/hvl.csv" >"$T/xy"
	dev=$(tail -n 1 "$T/hvl.csv" | sed 's/.*,"\(.*\)","[^"]*"$/\1/; s/""/"/g')
	"$BIN/nbplot" "$T/xy" "$png" "Plummer N = $ns, t = $t_end, $dev" &&
		note "figure: ${png#"$ROOT"/}"
	awk -F, -v n="$ns" 'NR == 1 { print "method,evals,de_max" }
		NR > 1 { printf "%s,%.6g,%s\n", $1, $22 * $21 * $9 / n / n, $5 }' \
		"$T/hvl.csv" >"$T/xy"
	"$BIN/nbplot" "$T/xy" "${R%.txt}-evals.png" \
		"Plummer N = $ns, t = $t_end: cost in force evaluations" \
		"force evaluations a body to t = $t_end (interactions / N^2)" &&
		note "figure: ${R#"$ROOT"/}" | sed 's/\.txt$/-evals.png/'
}
