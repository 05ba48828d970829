# suites/newtonpeer.sh: issue 25's dense Newton on OpenCL by hand
# (bench/newtonpeer.c and .cl): gravity_force self-interaction, the
# every-pair kernel against the block-pair kernel (each pair once, the
# j-sides rotated through a warp, fixed-order folds) per work group W:U:G (G rounds a group),
# and nbcc's own dense run of bench/newton/gravity_force.nbl (nbbench,
# N by N: every pair) as row "nbcc" (tune="0 1": also nbcc_tuned, the
# tuner's pick); the summary: each N's best pairs over its best every
# and over nbcc's best.
about="hand-written dense Newton (block pairs, warp-rotated j-sides) against every pair and nbcc"
params="ns precisions configs reps device tune"
ns="16384 65536 262144"
precisions="float double"
configs="128:2 128:4 256:2 128:4:8"
reps=5
device=gpu
tune=0

suite_run() {
	${CC:-cc} -std=c11 -O2 -fopenmp -I/usr/local/cuda/include \
		-o "$T/newtonpeer" bench/newtonpeer.c -lOpenCL -lm 2>"$T/err" ||
		${CC:-cc} -std=c11 -O2 -fopenmp -I/usr/local/cuda/include \
			-o "$T/newtonpeer" bench/newtonpeer.c -l:libOpenCL.so.1 -lm \
			2>"$T/err" || {
		note "newtonpeer did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	echo "kernel,precision,n,w,u,g,ms,pairs_per_s,maxerr,same_bits"
	for p in $precisions; do
		for n in $ns; do
			"$T/newtonpeer" "$n" "$reps" "$device" "$p" $configs \
				</dev/null 2>"$T/err" | grep -v '^kernel,' ||
				note "newtonpeer $n $p failed: $(tail -n 1 "$T/err")"
			for t in $tune; do
				case $t in 1) f=--tune r=nbcc_tuned ;; *) f= r=nbcc ;; esac
				"$BIN/nbbench" bench/newton/gravity_force.nbl "$n" -r "$reps" \
					--device "$device" --const eps2=0.0001 --precision="$p" \
					$f 2>"$T/err" | awk -F, -v p="$p" -v n="$n" -v r="$r" '
					NF > 8 && $(NF - 4) + 0 > 0 { printf "%s,%s,%s,,,,%.4f,%.4g,,\n",
						r, p, n, 1e3 * $(NF - 4), n * n / $(NF - 4) }' ||
					note "nbbench $n $p $f failed: $(tail -n 1 "$T/err")"
			done
		done
	done | tee "$T/rows"
	awk -F, '/^#/ { next }
		{ k = $2 FS $3 }
		$1 == "every" && (!(k in ev) || $7 < ev[k]) { ev[k] = $7 }
		$1 == "pairs" && (!(k in pa) || $7 < pa[k]) { pa[k] = $7; pc[k] = $4 ":" $5 ":" $6 }
		$1 ~ /^nbcc/ && (!(k in nb) || $7 < nb[k]) { nb[k] = $7 }
		END { for (k in pa) { split(k, a, FS)
			printf "# %-6s N=%-8s best pairs %.4g ms (%s), best every %.4g ms: %.2fx, nbcc %.4g ms: %.2fx\n",
				a[1], a[2], pa[k], pc[k], ev[k], ev[k] / pa[k], nb[k], nb[k] ? nb[k] / pa[k] : 0 } }' "$T/rows" | sort
}
