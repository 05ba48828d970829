# Every example through the OpenCL back end (on PoCL, the CPU device of
# CI) against the C back end, on random inputs of odd sizes: float within
# 1e-5 and double within 1e-12, norm-wise per result column (dd within
# 1e-12, compared as doubles).  bench/gpu_check.sh does the same on a GPU
# with more transform settings.
set -eu
cd "$ROOT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export NBRT_CACHE_DIR="$TESTBUILD/nbrun-cache"
mkdir -p "$NBRT_CACHE_DIR"
status=0
for f in dsl-examples/*.nbl; do
	ex=$(basename "$f" .nbl)
	precs="float double"
	[ "$ex" = oneloop ] && precs=dd
	for p in $precs; do
		"$BIN/nbrun" "$f" --random 301,299 --seed 5 --precision=$p \
			--device cpu -o "$T/cl.csv" 2>"$T/err" || { cat "$T/err"; exit 1; }
		"$BIN/nbrun" "$f" --random 301,299 --seed 5 --precision=$p \
			--target c -o "$T/c.csv" 2>"$T/err" || { cat "$T/err"; exit 1; }
		m=$(awk -f bench/compare.awk "$T/c.csv" "$T/cl.csv" | sed -n 's/^max //p')
		tol=1e-12
		[ $p = float ] && tol=1e-5
		if awk -v m="$m" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
			echo "ok   $ex $p $m"
		else
			echo "FAIL $ex $p $m (tolerance $tol)"
			status=1
		fi
	done
done
exit $status
