#!/bin/sh
# cpu_accuracy.sh: the accuracy of the float functions of the C back end
# (host path) against double: each computed by a one-line kernel through
# bin/nbrun --device host on NI random float inputs (log-uniform over a
# wide range; exact floats, so the double reference sees what the kernel
# saw), compared in awk (double libm).  Prints the largest error in units
# in the last place of a float (ulp of the exact result) and the largest
# relative error, for nbcc's default (estimates with a Newton step,
# glibc's libmvec) and for --no-approx.
#   usage: bench/cpu_accuracy.sh [NI]
set -u
BIN=${BIN:-bin}
NI=${1:-200000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "# float against double, $NI inputs: worst ulp, worst relative error;" \
	"default, then --no-approx"
# name, expression, range of x (lo hi, log-uniform when lo > 0, else
# uniform), range of y, awk reference
while read -r name expr xlo xhi ylo yhi ref; do
	awk -v n="$NI" -v xlo="$xlo" -v xhi="$xhi" -v ylo="$ylo" -v yhi="$yhi" \
	    -v seed=$$ '
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
	printf 'm\n1\n' >"$T/j.csv"
	printf 'LMEM x, y;\nBMEM m;\nRMEM r;\nr += (%s)*m;\n' "$expr" >"$T/k.nbl"
	line="$name"
	for mode in "" --no-approx; do
		"$BIN/nbrun" "$T/k.nbl" --device host --i "$T/i.csv" --j "$T/j.csv" \
			$mode -o "$T/r.csv" 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
		line="$line $(paste -d, "$T/i.csv" "$T/r.csv" | awk -F, '
		NR == 1 { next }
		{ x = $1; y = $2; r = $3; ref = '"$ref"'
		  if (ref == 0) next
		  a = ref < 0 ? -ref : ref
		  e = int(log(a) / log(2)); if (2 ^ e > a) e--
		  d = r - ref; if (d < 0) d = -d
		  u = d / 2 ^ (e - 23); if (u > mu) mu = u
		  q = d / a; if (q > mq) mq = q }
		END { printf "%6.2f ulp %.2e", mu, mq }')"
	done
	echo "$line"
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
