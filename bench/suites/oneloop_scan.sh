# suites/oneloop_scan.sh: issue 31's scale target: bin/oneloop --scan over
# an (s, t) grid of `points` rows (a square grid of ceil(sqrt(points))^2
# cut to points, s from smin to smax, t from tmin to tmax, me = mf = 1),
# each row extrapolated in lambda (--lambdas) and, where s > 0, at each
# lambda in eps (--eps), at N = n, on `device` (host: the C back end).
# Rows: one per scan row, bin/oneloop's own CSV with the row's digits
# (-log10 of the largest relative error estimate of A, B, A_im and B_im;
# blank where it did not converge).  Summary: wall time, seconds a point,
# converged rows, the least and median digits among them.  Defaults:
# the GPU run of issue 31 (1,000 physical-region points at N = 256).
about="bin/oneloop --scan --extrapolate over an (s, t) grid: time a point, digits"
params="device points n lambdas eps smin smax tmin tmax"
device=host
points=1000
n=256
lambdas="0.1,0.5,10"
eps="0.1,0.7,12"
smin=0.5
smax=4
tmin=-4
tmax=-0.25

suite_run() {
	# the grid: k = ceil(sqrt(points)) values of s and of t, row-major
	awk -v p="$points" -v a="$smin" -v b="$smax" -v c="$tmin" -v d="$tmax" 'BEGIN {
		k = int(sqrt(p)); if (k * k < p) k++
		print "s,t,me,mf"
		for (i = 0; i < k && m < p; i++)
			for (j = 0; j < k && m < p; j++) {
				s = k > 1 ? a + (b - a) * i / (k - 1) : a
				t = k > 1 ? c + (d - c) * j / (k - 1) : c
				printf "%.6g,%.6g,1,1\n", s, t; m++
			} }' >"$T/grid.csv"
	where="--device $device"
	[ "$device" = host ] && where="--target c"
	# fills the kernel cache: the time is the scan's, not a build's
	"$BIN/oneloop" $where --n 8 --s 1 --lambda 0.5 --eps 0.1,0.5,3 \
		</dev/null >/dev/null 2>&1
	"$BIN/oneloop" $where --n 8 </dev/null >/dev/null 2>&1
	s0=$(date +%s.%N)
	"$BIN/oneloop" $where --n "$n" --scan "$T/grid.csv" --extrapolate \
		--lambdas "$lambdas" --eps "$eps" </dev/null >"$T/scan.csv" \
		2>"$T/err" || { note "failed: $(tail -n 1 "$T/err")"; return 1; }
	s1=$(date +%s.%N)
	# line,n,s,t,me,mf,precision,A,A_error,B,B_error,A_im,A_im_error,
	# B_im,B_im_error,kernel_s,kernel_half_s,status
	awk -F, 'function abs(x) { return x < 0 ? -x : x }
	NR == 1 { print $0 ",digits"; next }
	{ d = ""
	  if ($18 == "ok") {
		w = 0
		for (c = 8; c <= 14; c += 2) {
			v = abs($c); if (v < abs($8)) v = abs($8)
			r = $(c + 1) / v; if (r > w) w = r
		}
		d = w > 0 ? sprintf("%.1f", -log(w) / log(10)) : "32"
	  }
	  print $0 "," d }' "$T/scan.csv"
	awk -F, -v t0="$s0" -v t1="$s1" -v p="$points" 'NR > 1 {
		n++; k += $16 + $17
		if ($19 != "") { ok++; d[ok] = $19 + 0 } }
	END {
		for (i = 1; i <= ok; i++) for (j = i + 1; j <= ok; j++)
			if (d[j] < d[i]) { x = d[i]; d[i] = d[j]; d[j] = x }
		printf "# %d points: wall %.3f s, %.4g s a point (kernels %.4g s a point); %d converged", n, t1 - t0, (t1 - t0) / n, k / n, ok
		if (ok) printf ", digits least %.1f, median %.1f", d[1], d[int((ok + 1) / 2)]
		printf "\n" }' "$T/scan.csv"
}
