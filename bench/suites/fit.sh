# suites/fit.sh: issue 29's fitting example, python/examples/fit_rbf.py: an
# RBF model (K centres) fitted to N samples by gradient descent, each step's
# gradient from nbcc's derived kernel (Kernel.grad) against numpy computing
# the same gradient in chunks; seconds a step of each (the first call, which
# compiles, left out), their ratio, and the two descents' largest relative
# parameter difference (the example fails where it exceeds the precision's
# bound); the summary is each precision's median ratio over the rounds (the
# lower middle one of an even count).  Needs Python 3 with numpy; the package comes from python/ and the
# libraries from libs= (make all builds them into build/).
about="RBF fit by gradient descent: nbcc's derived gradient against numpy's, seconds a step"
params="device ns ks precisions steps rounds jsplit chunk libs python"
device=gpu
ns=100000
ks=256
precisions="float double"
steps=10
rounds=3
jsplit=
chunk=4096
libs=build
python=

suite_run() {
	py=$python
	if [ -z "$py" ]; then
		for c in python3 /usr/bin/python3; do
			"$c" -c 'import numpy' 2>/dev/null && { py=$c; break; }
		done
	fi
	[ -n "$py" ] || { note "failed: no python3 with numpy (python=PATH)"; return 1; }
	case $libs in /*) L=$libs ;; *) L=$ROOT/$libs ;; esac
	[ -e "$L/libnbrt.so.0" ] || { note "failed: no $L/libnbrt.so.0 (make all; libs=DIR)"; return 1; }
	note "python: $("$py" -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)')"
	echo "round,precision,n,k,steps,jsplit,nbcc_s,numpy_s,numpy_over_nbcc,max_rel_diff,loss0,loss"
	for r in $(seq "$rounds"); do
		for n in $ns; do
			for k in $ks; do
				for p in $precisions; do
					row=$(NBCC_LIBDIR=$L PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH} \
						"$py" python/examples/fit_rbf.py --csv --device "$device" \
						--n "$n" --k "$k" --steps "$steps" --precision "$p" \
						--chunk "$chunk" ${jsplit:+--jsplit "$jsplit"} 2>"$T/err") ||
						note "failed: $p N=$n K=$k: $(tail -n 1 "$T/err")"
					[ -n "$row" ] && echo "$r,$row"
				done
			done
		done
	done | tee "$T/rows"
	awk -F, '$1 ~ /^[0-9]+$/ { key = $2 " N=" $3 " K=" $4; v[key] = v[key] " " $9; if (!(key in seen)) { seen[key] = 1; order[++m] = key } }
		END { for (i = 1; i <= m; i++) { nv = split(v[order[i]], a, " "); for (x = 1; x <= nv; x++) for (y = x + 1; y <= nv; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
			printf "# numpy / nbcc a step, %s: median %.2fx over %d rounds\n", order[i], a[int((nv + 1) / 2)], nv } }' "$T/rows"
	# the loop ran in a pipe's subshell: its failures are its notes
	! grep -q '^# failed' "$T/rows" 2>/dev/null
}
