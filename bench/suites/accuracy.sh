# suites/accuracy.sh: the accuracy of the float functions of the C back
# end (host path; device=cpu: PoCL's OpenCL CPU device) against double:
# each computed by a one-line kernel through nbrun --device $device on
# ni random float inputs (log-uniform over
# a wide range; exact floats, so the double reference sees what the
# kernel saw), compared in awk (double libm): the largest error in units
# in the last place of a float (ulp of the exact result) and the largest
# relative error, for nbcc's default (estimates with a Newton step,
# glibc's libmvec) and for --no-approx.
about="float functions of the host C path (or device=cpu) against double: worst ulp and relative error"
params="ni seed device"
ni=200000
seed=1
device=host

suite_run() {
	printf 'm\n1\n' >"$T/j.csv"
	echo "function,mode,worst_ulp,worst_rel"
	# name, expression, range of x (lo hi, log-uniform when lo > 0, else
	# uniform), range of y, awk reference
	while read -r name expr xlo xhi ylo yhi ref; do
		awk -v n="$ni" -v xlo="$xlo" -v xhi="$xhi" -v ylo="$ylo" -v yhi="$yhi" \
		    -v seed="$seed" '
		function pick(lo, hi,   v, e) {
			if (lo > 0) v = exp(log(lo) + rand() * (log(hi) - log(lo)))
			else v = lo + rand() * (hi - lo)
			if (v == 0) return 0
			e = int(log(v < 0 ? -v : v) / log(2)) - 23
			return int(v / 2 ^ e + (v < 0 ? -0.5 : 0.5)) * 2 ^ e
		}
		BEGIN {
			srand(seed)
			print "x,y"
			for (i = 0; i < n; i++)
				printf "%.17g,%.17g\n", pick(xlo, xhi), pick(ylo, yhi)
		}' >"$T/i.csv"
		printf 'LMEM x, y;\nBMEM m;\nRMEM r;\nr += (%s)*m;\n' "$expr" >"$T/k.nbl"
		for mode in default --no-approx; do
			fl=
			[ $mode = default ] || fl=$mode
			"$BIN/nbrun" "$T/k.nbl" --device "$device" --i "$T/i.csv" \
				--j "$T/j.csv" $fl -o "$T/r.csv" </dev/null 2>"$T/err" ||
				{ note "failed: $name $mode: $(tail -n 1 "$T/err")"; return 1; }
			paste -d, "$T/i.csv" "$T/r.csv" | awk -F, -v f="$name" -v mode="$mode" '
			NR == 1 { next }
			{ x = $1; y = $2; r = $3; ref = '"$ref"'
			  if (ref == 0) next
			  a = ref < 0 ? -ref : ref
			  e = int(log(a) / log(2)); if (2 ^ e > a) e--
			  d = r - ref; if (d < 0) d = -d
			  u = d / 2 ^ (e - 23); if (u > mu) mu = u
			  q = d / a; if (q > mq) mq = q }
			END { printf "%s,%s,%.2f,%.2e\n", f, mode, mu, mq }'
		done
	done <<'TAB'
rsqrt x**-0.5 1e-30 1e30 1 1 1/sqrt(x)
sqrt sqrt(x) 1e-30 1e30 1 1 sqrt(x)
divide x/y 1e-15 1e15 1e-15 1e15 x/y
exp exp(x) -87.33 88.7 1 1 exp(x)
log log(x) 1e-30 1e30 1 1 log(x)
sin sin(x) -100 100 1 1 sin(x)
cos cos(x) -100 100 1 1 cos(x)
pow pow(x,y) 1e-3 1e3 -12 12 x^y
TAB
}
