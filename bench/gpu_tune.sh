#!/bin/sh
# gpu_tune.sh: float gravity on one device for the transform settings that
# matter on a GPU, at the sizes of the reference figures; one CSV row per
# run (apps/nbbench/nbbench.c), then a table of interactions/s.
# usage: bench/gpu_tune.sh [DEVICE] [OUT.csv]
set -u
DEV=${1:-gpu}
OUT=${2:-/dev/stdout}
BIN=${BIN:-bin}
K=dsl-examples/gravity.nbl
b() { "$BIN/nbbench" "$@" --device "$DEV" -r 5 >>"$OUT" || echo "failed: $*" >&2; }
"$BIN/nbbench" --header >"$OUT"
for n in 16384 131072 524288; do
	b bench/naive.cl $n
	for ni in 1 2 4 8; do
		for nj in 1 2; do
			b $K $n --unroll-i=$ni --unroll-j=$nj
			b $K $n --unroll-i=$ni --unroll-j=$nj --tile=0
		done
	done
	for t in 2 4 8 16; do
		for ni in 1 2 4; do
			b $K $n --unroll-i=$ni --jsplit=$t
		done
	done
	b $K $n --unroll-i=4 --fast-math
	b $K $n --unroll-i=1 --fast-math
	b $K $n --unroll-i=2 --wg=256
	b $K $n --unroll-i=4 --wg=256
	b $K $n --unroll-i=4 --wg=64
	b $K $n --unroll-i=4 --tile=256 --wg=256
done
