#!/bin/sh
# bench/cpu_rows.sh DEVICE [N]: the sweep behind a CPU row of the
# defaults table (compiler/defaults.c, docs/performance.md "The defaults
# table"): i-unroll x j-unroll for float gravity, Biot-Savart and the
# Gauss transform and double gravity, each the median of 5 runs, in
# ROUNDS (default 3) interleaved rounds so that a shared machine's load
# falls on every variant alike; prints each variant's median over the
# rounds as interactions/s and its ratio to the row's current default.
set -u
BIN=${BIN:-bin}
DEV=${1:-cpu}
N=${2:-8192}
ROUNDS=${ROUNDS:-3}
T=$(mktemp)
trap 'rm -f "$T"' EXIT
for r in $(seq "$ROUNDS"); do
	for k in gravity biot_savart gauss_transform gravity:double; do
		p=float
		case $k in *:double) p=double; k=${k%:*} ;; esac
		for ui in 4 8 16; do
			for uj in 1 2; do
				row=$("$BIN/nbbench" dsl-examples/$k.nbl "$N" \
					--device "$DEV" --precision=$p --unroll-i=$ui \
					--unroll-j=$uj -r 5 2>/dev/null) || continue
				echo "$k $p $ui $uj $(echo "$row" | awk -F, '{ print $9 }')"
			done
		done
		# the default as the runtime picks it
		row=$("$BIN/nbbench" dsl-examples/$k.nbl "$N" --device "$DEV" \
			--precision=$p -r 5 2>/dev/null) &&
			echo "$k $p default default $(echo "$row" | awk -F, '{ print $9 }')"
	done
done >"$T"
echo "device $DEV, N = $N, $ROUNDS rounds, $(date -u +%F)"
sort -k1,1 -k2,2 -k3,3n -k4,4n "$T" | awk '
	{ key = $1 " " $2 " " $3 " " $4; v[key] = v[key] " " $5; order[key] = NR }
	$3 == "default" { def[$1 " " $2] = def[$1 " " $2] " " $5 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (key in v) {
			split(key, f, " ")
			d = median(def[f[1] " " f[2]])
			printf "%-16s %-7s %-8s %-8s %.3e  x%.2f\n", f[1], f[2], f[3], f[4], median(v[key]), (d > 0 ? median(v[key]) / d : 0)
		}
	}' | sort -k1,1 -k2,2 -k3,3n -k4,4n
