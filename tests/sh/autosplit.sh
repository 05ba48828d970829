# The runtime's own choice of j-split (a .nbl on a GPU; forced here on
# PoCL with NBRT_AUTO_SPLIT=1) gives the C back end's results, for sizes
# that choose different splits.
set -eu
cd "$ROOT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export NBRT_CACHE_DIR="$TESTBUILD/nbrun-cache"
for n in 7,5 1000,999 4099,31; do
	NBRT_AUTO_SPLIT=1 NBRT_VERBOSE=1 "$BIN/nbrun" dsl-examples/gravity.nbl \
		--random $n --seed 11 --device cpu -o "$T/a.csv" 2>"$T/err"
	"$BIN/nbrun" dsl-examples/gravity.nbl --random $n --seed 11 --target c \
		-o "$T/b.csv" 2>/dev/null
	m=$(awk -f bench/compare.awk "$T/b.csv" "$T/a.csv" | sed -n 's/^max //p')
	split=$(sed -n 's/.*j-split \([0-9]*\) for.*/\1/p' "$T/err" | tail -1)
	echo "Ni,Nj=$n split=${split:-1} difference $m"
	awk -v m="$m" 'BEGIN { exit !(m <= 1e-5) }'
done
