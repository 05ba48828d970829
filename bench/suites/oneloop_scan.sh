# suites/oneloop_scan.sh: bin/oneloop --scan over an (s, t) grid of
# `points` rows (a square grid of ceil(sqrt(points))^2 cut to points, t
# from tmin to tmax, me = mf = 1) at N = n, on `device` (host: the C back
# end).  Two regions, one command each (docs/oneloop.md, "A scan"):
#   region=physical   (the default) s from smin to smax > 0: each row one
#                     integral at lambda = `lambda` on the deformed contour
#                     (no eps), Re and Im; with extrapolate=1 each row is
#                     extrapolated over --lambdas `lambdas` instead
#                     (0.4,0.7,12 unless given);
#   region=euclidean  s from -4 to -0.25 (D > 0): each row extrapolated
#                     lambda -> 0 over --lambdas `lambdas` (0.1,0.5,16
#                     unless given; issue 27's 4,096 rows: points=4096).
# eps=E0,RATIO,COUNT runs the physical rows by the eps extrapolation
# instead of the contour; kappa=K evaluates the contour at K alone (by
# default 1 and 1/2, the better); precision=double runs the kernel, the
# rule and the sums in double (the deformed contour's values within 1e-13
# of dd's: docs/oneloop.md, "The scale target").  Rows: bin/oneloop's own CSV with the row's
# digits (-log10 of the largest relative error estimate among its values;
# blank where it did not converge).  Summary: wall time, rows/s, kernel
# seconds a row, converged rows, the least and median digits among them.
# Issue 31's target, 1,000 physical rows each extrapolated in lambda with 8
# digits or more by its own estimate (docs/oneloop.md, "The scale target",
# session 11: 66.6 s on one H100, least 8.18 digits):
#   sh bench/run.sh oneloop_scan device=gpu extrapolate=1 kappa=1 n=256 lambdas=0.4,0.7,14 precision=double
#   sh bench/run.sh oneloop_scan device=gpu                  # 1,000 physical
#   sh bench/run.sh oneloop_scan device=gpu region=euclidean points=4096
about="bin/oneloop --scan over an (s, t) grid: rows/s, wall time, digits"
params="device region points n lambda lambdas extrapolate eps kappa smin smax tmin tmax precision"
device=host
region=physical
points=1000
n=256
lambda=0.5
lambdas=""
extrapolate=0
eps=""
kappa=""
smin=2
smax=8
tmin=-4
tmax=-0.25
precision=dd

suite_run() {
	# the lambdas by region where not given: bin/oneloop's default for
	# s < 0; above threshold the physical model's sequence, from below
	# the threshold of s = 2 (docs/oneloop.md, "The physical region's
	# model")
	case $region in
	physical) s0=$smin s1=$smax; : "${lambdas:=0.4,0.7,12}" ;;
	euclidean) s0=-4 s1=-0.25 extrapolate=1 eps=""; : "${lambdas:=0.1,0.5,16}" ;;
	*) note "region must be physical or euclidean, not $region"; return 1 ;;
	esac
	lam=""
	[ "$extrapolate" = 1 ] || lam=",$lambda"
	# the grid: k = ceil(sqrt(points)) values of s and of t, row-major
	awk -v p="$points" -v a="$s0" -v b="$s1" -v c="$tmin" -v d="$tmax" \
		-v l="$lam" 'BEGIN {
		k = int(sqrt(p)); if (k * k < p) k++
		print "s,t,me,mf" (l != "" ? ",lambda" : "")
		for (i = 0; i < k && m < p; i++)
			for (j = 0; j < k && m < p; j++) {
				s = k > 1 ? a + (b - a) * i / (k - 1) : a
				t = k > 1 ? c + (d - c) * j / (k - 1) : c
				printf "%.6g,%.6g,1,1%s\n", s, t, l; m++
			} }' >"$T/grid.csv"
	where="--device $device"
	[ "$device" = host ] && where="--target c"
	how=""
	[ "$extrapolate" = 1 ] && how="--extrapolate --lambdas $lambdas"
	[ -n "$eps" ] && how="$how --eps $eps"
[ -n "$kappa" ] && how="$how --kappa $kappa"
	how="$how --precision $precision"
	# fills the kernel cache (whose variants depend on N): the time is
	# the scan's, not a build's
	warm="--s 2 --lambda 0.5 --kappa 1"
	[ -n "$eps" ] && warm="--s 2 --lambda 0.5 --eps 0.1,0.5,3"
	[ "$region" = euclidean ] && warm=""
	"$BIN/oneloop" $where --n "$n" --precision "$precision" $warm </dev/null >/dev/null 2>&1
	t0=$(date +%s.%N)
	"$BIN/oneloop" $where --n "$n" --scan "$T/grid.csv" $how </dev/null \
		>"$T/scan.csv" 2>"$T/err" || { note "failed: $(tail -n 1 "$T/err")"; return 1; }
	t1=$(date +%s.%N)
	# the value columns and their errors, the kernel times and the status,
	# by name from the header
	awk -F, 'function abs(x) { return x < 0 ? -x : x }
	NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; print $0 ",digits"; next }
	{ d = ""
	  st = ("status" in col) ? $(col["status"]) : "ok"
	  if (st == "ok") {
		w = 0; big = 0
		split("A B A_im B_im I I_im", names, " ")
		for (q = 1; q <= 6; q++) if ((names[q] in col) && abs($(col[names[q]])) > big) big = abs($(col[names[q]]))
		split("A_error B_error A_im_error B_im_error error I_im_error", errs, " ")
		for (q = 1; q <= 6; q++) if (errs[q] in col) { r = $(col[errs[q]]) / big; if (r > w) w = r }
		d = w > 0 ? sprintf("%.1f", -log(w) / log(10)) : "32"
	  }
	  print $0 "," d }' "$T/scan.csv" >"$T/rows.csv"
	cat "$T/rows.csv"
	awk -F, -v t0="$t0" -v t1="$t1" -v reg="$region" 'NR == 1 {
		for (c = 1; c <= NF; c++) col[$c] = c; next }
	{ n++; k += $(col["kernel_s"]) + $(col["kernel_half_s"])
	  if ($NF != "") { ok++; d[ok] = $NF + 0 } }
	END {
		for (i = 1; i <= ok; i++) for (j = i + 1; j <= ok; j++)
			if (d[j] < d[i]) { x = d[i]; d[i] = d[j]; d[j] = x }
		w = t1 - t0
		printf "# %s, %d rows: wall %.3f s, %.4g rows/s, %.4g s a row (kernels %.4g s a row); %d converged", reg, n, w, n / w, w / n, k / n, ok
		if (ok) printf ", digits least %.1f, median %.1f", d[1], d[int((ok + 1) / 2)]
		printf "\n" }' "$T/rows.csv"
}
