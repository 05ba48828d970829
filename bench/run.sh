#!/bin/sh
# make bench: the CPU series of this machine (N = 8192 float gravity, as
# the reference figures), as ratios in one run since absolute CPU times on
# a shared machine are noise: the C back end against PoCL, unrolled and
# not, and --fast-math.  A GPU, if present, gets bench/gpu_tune.sh.
set -u
BIN=${BIN:-bin}
K=dsl-examples/gravity.nbl
N=${N:-8192}
T=$(mktemp)
trap 'rm -f "$T"' EXIT
b() { "$BIN/nbbench" "$@" -r 5 >>"$T" || echo "failed: $*" >&2; }
"$BIN/nbbench" --header >"$T"
b $K $N --device host
b $K $N --device host --fast-math
b $K $N --device host --unroll-i=1
if "$BIN/nbbench" $K 64 --device cpu -r 1 >/dev/null 2>&1; then
	b $K $N --device cpu --unroll-i=1
	b $K $N --device cpu
	b $K $N --device cpu --unroll-i=4 --unroll-j=4
fi
b bench/naive.cl $N --device cpu 2>/dev/null
awk -F, 'NR == 1 { next }
	NR == 2 { base = $9 }
	{ printf "%-58s %-42s %.3e  x%.2f\n", $1, $3, $9, $9 / base }' "$T"
if "$BIN/nbbench" $K 64 --device gpu -r 1 >/dev/null 2>&1; then
	sh bench/gpu_tune.sh gpu
fi
