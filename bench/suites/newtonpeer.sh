# suites/newtonpeer.sh: issue 25's dense Newton on OpenCL by hand
# (bench/newtonpeer.c and .cl): gravity_force self-interaction, the
# every-pair kernel against the block-pair kernel (each pair once, the
# j-sides rotated through a warp, fixed-order folds) per work group W:U:G (G rounds a group),
# and nbcc's own dense run of bench/newton/gravity_force.nbl (nbbench,
# N by N: every pair) as row "nbcc" (tune="0 1": also nbcc_tuned, the
# tuner's pick), and at self_ns nbcc's own self run with Newton's third
# law on (its dense entry) and off (nbcc_self_on, nbcc_self_off); the
# summary: each N's best pairs over its best every and over nbcc's best.
about="hand-written dense Newton (block pairs, warp-rotated j-sides) against every pair and nbcc"
params="ns precisions configs reps device tune self_ns"
ns="16384 65536 262144"
precisions="float double"
configs="128:2 128:4 256:2 128:4:8"
reps=5
device=gpu
tune=0
self_ns="16384 65536 262144"

# self_rows P N: nbcc's own self run of gravity_force (bin/nbrun --self
# --time: the kernels' device time) with Newton's third law on (the
# dense entry) and off (every pair), reps times each; maxerr: on's
# largest difference from off's relative to the column's largest,
# same_bits: on's output the same bytes every rep
self_rows() {
	awk -v n="$2" 'BEGIN { srand(12345); print "x,y,z,m"
		for (i = 0; i < n; i++)
			printf "%.9f,%.9f,%.9f,%.9f\n", rand(), rand(), rand(), (0.5 + rand()) / n }' >"$T/p.csv"
	for m in off on; do
		r=0
		while [ $r -lt "$reps" ]; do
			r=$((r + 1))
			"$BIN/nbrun" bench/newton/gravity_force.nbl --device "$device" \
				--precision="$1" --ij "$T/p.csv" \
				--map xi=x,yi=y,zi=z,mi=m,xj=x,yj=y,zj=z,mj=m \
				--const eps2=0.0001 --self --newton=$m --time \
				-o "$T/$m$r.csv" 2>"$T/err" </dev/null ||
				{ note "nbrun --newton=$m $2 $1 failed: $(tail -n 1 "$T/err")"; return; }
			sed -n 's/^time: \([^ ]*\) s.*/\1/p' "$T/err"
		done | sort -g | awk -v m="$m" -v p="$1" -v n="$2" -v r="$reps" \
			'{ t[NR] = $1 } END { printf "%s,%s,%s,%s\n", m, p, n, t[int((r + 1) / 2)] }' \
			>>"$T/self"
	done
	same=1
	r=1
	while [ $r -lt "$reps" ]; do
		r=$((r + 1))
		cmp -s "$T/on1.csv" "$T/on$r.csv" || same=0
	done
	err=$(awk -F, 'NR == FNR { a[FNR] = $0; next } FNR == 1 { next }
		{ split(a[FNR], v, ","); for (c = 1; c <= NF; c++) {
			d = v[c] - $c; if (d < 0) d = -d; if (d > diff[c]) diff[c] = d
			x = $c < 0 ? -$c : $c; if (x > big[c]) big[c] = x } }
		END { for (c in diff) if (big[c] > 0 && diff[c] / big[c] > e) e = diff[c] / big[c]
			printf "%.2g", e }' "$T/off1.csv" "$T/on1.csv")
	awk -F, -v p="$1" -v n="$2" -v err="$err" -v same="$same" '
		$2 == p && $3 == n { printf "nbcc_self_%s,%s,%s,,,,%.4f,%.4g,%s,%s\n", $1, p, n,
			1e3 * $4, n * n / $4, $1 == "on" ? err : "", $1 == "on" ? same : "" }' "$T/self"
	rm -f "$T"/on*.csv "$T"/off*.csv
}

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
			case " $self_ns " in *" $n "*) self_rows "$p" "$n" ;; esac
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
		$1 ~ /^nbcc/ && $1 != "nbcc_self_on" && (!(k in nb) || $7 < nb[k]) { nb[k] = $7 }
		$1 == "nbcc_self_on" { so[k] = $7 }
		$1 == "nbcc_self_off" { sf[k] = $7 }
		END { for (k in pa) { split(k, a, FS)
			printf "# %-6s N=%-8s best pairs %.4g ms (%s), best every %.4g ms: %.2fx, nbcc %.4g ms: %.2fx\n",
				a[1], a[2], pa[k], pc[k], ev[k], ev[k] / pa[k], nb[k], nb[k] ? nb[k] / pa[k] : 0 }
			for (k in so) { split(k, a, FS)
				printf "# %-6s N=%-8s nbcc self run: Newton on %.4g ms, off %.4g ms: %.2fx\n",
					a[1], a[2], so[k], sf[k], sf[k] / so[k] } }' "$T/rows" | sort
}
