#!/bin/sh
# demo.sh (make demo): the N-body run of paper 000 end to end.  nbcc
# compiles dsl-examples/gravity.nbl into an OpenCL kernel (C where there
# is no OpenCL device), bin/nbody loads it and integrates two colliding
# disk galaxies (8192 bodies, 100 leap-frog steps) on the default device,
# draws pictures, and prints the energy error and the speed.
# DEMO_OUT=DIR puts the output elsewhere (default build/demo).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${DEMO_OUT:-build/demo}
for p in bin/nbcc bin/nbody; do
	[ -x "$p" ] || { echo "demo: $p is missing; run make first" >&2; exit 1; }
done
mkdir -p "$OUT/png"
OUT=$(cd "$OUT" && pwd)

# the host back end runs C, every other device OpenCL
case ${NBRT_DEVICE:-} in
host | c | HOST | C) ext=c ;;
"") if bin/nbody --list-devices 2>/dev/null | grep -q .; then ext=cl; else ext=c; fi ;;
*) ext=cl ;;
esac

# the default unrolling suits GPUs; a CPU OpenCL device (PoCL) gets its own
class=
if [ $ext = cl ]; then
	first=$(bin/nbody --list-devices 2>/dev/null | head -n 1)
	case "$first" in
	*"  gpu  "*) ;;
	*) case ${NBRT_DEVICE:-} in gpu | GPU) ;; *) class=--device-class=cpu ;; esac ;;
	esac
	# a GPU anywhere is what the default device is
	bin/nbody --list-devices 2>/dev/null | grep -q "  gpu  " &&
		[ -z "${NBRT_DEVICE:-}" ] && class=
fi
echo "== nbcc: dsl-examples/gravity.nbl -> $OUT/gravity.$ext $class"
bin/nbcc dsl-examples/gravity.nbl -o "$OUT/gravity.$ext" $class
sed -n 's/^ \* \(flags\|unroll\|flops\) /  \1 /p' "$OUT/gravity.$ext"

echo "== nbody: two disk galaxies colliding, 8192 bodies, 100 steps"
rm -f "$OUT"/png/frame_*.png
start=$(date +%s)
bin/nbody --ic collision -n 8192 --steps 100 --every 10 \
	--kernel "$OUT/gravity.$ext" --png "$OUT/png"
echo "== done in $(($(date +%s) - start)) s"
echo "pictures (x-y projection left, x-z right), one every 10 steps:"
echo "  $OUT/png/frame_000000.png ... frame_000100.png"
