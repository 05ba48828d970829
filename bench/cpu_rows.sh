#!/bin/sh
# bench/cpu_rows.sh DEVICE [N]: the sweep behind a CPU row of the
# defaults table (compiler/defaults.c, docs/performance.md "The defaults
# table"): every i-unroll x j-unroll of each kernel, the median of 5 runs,
# in ROUNDS (default 3) interleaved rounds so that a shared machine's load
# falls on every variant alike.  Prints each variant's median over the
# rounds as interactions/s, its ratio to the row's current default and,
# with REF=DEVICE, to that device's default (the host path's rows against
# PoCL: REF=cpu).
#   KERNELS  "gravity biot_savart gauss_transform gravity:double" (NAME or
#            NAME:PRECISION); "all": every example at its own precision,
#            oneloop (dd) at N / 8
#   UI, UJ   the unrollings, "4 8 16" and "1 2"
#   ONE=1    one thread (OpenMP and PoCL): each variant's work per core
set -u
BIN=${BIN:-bin}
DEV=${1:-cpu}
N=${2:-8192}
ROUNDS=${ROUNDS:-3}
KERNELS=${KERNELS:-gravity biot_savart gauss_transform gravity:double}
UI=${UI:-4 8 16}
UJ=${UJ:-1 2}
REF=${REF:-}
if [ "$KERNELS" = all ]; then
	KERNELS=$(for f in dsl-examples/*.nbl; do basename "$f" .nbl; done)
fi
if [ "${ONE:-0}" = 1 ]; then
	export OMP_NUM_THREADS=1 POCL_MAX_PTHREAD_COUNT=1
fi
T=$(mktemp)
trap 'rm -f "$T"' EXIT
# bench KERNEL PRECISION DEVICE FLAGS...: prints the interactions/s
bench() {
	_k=$1 _p=$2 _d=$3
	shift 3
	_n=$N
	[ "$_k" = oneloop ] && _n=$((N / 8)) # dd: 100 times slower
	"$BIN/nbbench" "dsl-examples/$_k.nbl" "$_n" --device "$_d" \
		${_p:+--precision=$_p} -r 5 "$@" 2>/dev/null |
		awk -F, '{ print $9 }'
}
for r in $(seq "$ROUNDS"); do
	for k in $KERNELS; do
		p=
		case $k in *:*) p=${k#*:}; k=${k%:*} ;; esac
		name=$k${p:+:$p}
		for ui in $UI; do
			for uj in $UJ; do
				v=$(bench "$k" "$p" "$DEV" --unroll-i="$ui" \
					--unroll-j="$uj") && [ -n "$v" ] &&
					echo "$name $ui $uj $v"
			done
		done
		# the default as the runtime picks it, and the reference's
		v=$(bench "$k" "$p" "$DEV") && [ -n "$v" ] &&
			echo "$name default default $v"
		if [ -n "$REF" ]; then
			v=$(bench "$k" "$p" "$REF") && [ -n "$v" ] &&
				echo "$name ref ref $v"
		fi
	done
done >"$T"
echo "device $DEV, N = $N, $ROUNDS rounds${REF:+, against $REF's default}${ONE:+, one thread}, $(date -u +%F)"
awk -v ref="$REF" '
	{ key = $1 " " $2 " " $3; v[key] = v[key] " " $4 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (key in v) {
			split(key, f, " ")
			if (f[2] == "ref")
				continue
			d = median(v[f[1] " default default"])
			m = median(v[key])
			printf "%-20s %-8s %-8s %.3e  x%.2f", f[1], f[2], f[3], m, (d > 0 ? m / d : 0)
			if (ref != "") {
				q = median(v[f[1] " ref ref"])
				printf "  %s x%.2f", ref, (q > 0 ? m / q : 0)
			}
			printf "\n"
		}
	}' "$T" | sort -k1,1 -k2,2n -k3,3n
