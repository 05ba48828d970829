# What a kernel asks of its compiler, and what the runtime lets through.
#  - float-only OpenCL kernels flush subnormals (options -cl-denorms-are-zero)
#    unless --no-ftz; double and dd kernels never ask for it, nor for
#    fast-math (it would zero dd's error terms); C asks cc for -ffast-math
#    only under --fast-math without dd;
#  - --no-fma writes FP_CONTRACT OFF; --device-class=cpu changes the
#    default unrolling, and the runtime compiles for its device's class;
#  - the GPU float row's register budget (compiler/defaults.c): a kernel
#    whose --stats estimate at 4 x 4 is over it takes 2 x 4 in groups of
#    128, one within it 4 x 4 in groups of 64, or of 128 at a split of 16
#    (8 rows of i-elements a group); a given unrolling or group stays;
#  - the runtime refuses an options line outside its fixed list.
# The runtime's part needs an OpenCL CPU device; without one the rest is
# checked and the script exits 77 (skipped).
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
K=dsl-examples/gravity.nbl
fail=0
has() { # file pattern what
	if grep -q -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3"; fail=1; fi
}
hasnt() {
	if grep -q -- "$2" "$1"; then echo "FAIL $3"; fail=1; else echo "ok   $3"; fi
}
"$NBCC" $K -o "$T/f.cl"
has "$T/f.cl" '^ \* options -cl-denorms-are-zero$' "float kernel flushes subnormals"
"$NBCC" $K -o "$T/n.cl" --no-ftz
hasnt "$T/n.cl" '^ \* options' "--no-ftz asks for nothing"
"$NBCC" $K -o "$T/d.cl" --precision=double --fast-math
has "$T/d.cl" '^ \* options -cl-fast-relaxed-math$' "double --fast-math: fast-math, no flush"
"$NBCC" $K -o "$T/dd.cl" --precision=dd --fast-math
hasnt "$T/dd.cl" '^ \* options' "dd never gets fast-math"
"$NBCC" $K -o "$T/c.c" --fast-math
has "$T/c.c" '^ \* options -ffast-math$' "C --fast-math asks cc for -ffast-math"
"$NBCC" $K -o "$T/ddc.c" --precision=dd --fast-math
hasnt "$T/ddc.c" '^ \* options' "C dd never gets -ffast-math"
"$NBCC" $K -o "$T/nofma.cl" --no-fma
has "$T/nofma.cl" '^#pragma OPENCL FP_CONTRACT OFF$' "--no-fma turns contraction off"
hasnt "$T/f.cl" 'FP_CONTRACT' "contraction left alone by default"
has "$T/f.cl" '^ \* unroll 4 4 1$' "GPU defaults 4 x 4 (the H200 row)"
has "$T/f.cl" '^ \* launch 64 ' "GPU defaults: groups of 64"
B=dsl-examples/biot_savart.nbl
est=$("$NBCC" $B --unroll-i=4 --unroll-j=4 --emit=stats |
	sed -n 's/^register estimate: \([0-9]*\) .*/\1/p')
echo "biot_savart's estimate at 4 x 4: $est"
[ "$est" -gt 120 ] || { echo "FAIL biot_savart's estimate $est is not over 120"; fail=1; }
"$NBCC" $B -o "$T/b.cl"
has "$T/b.cl" '^ \* unroll 2 4 1$' "over the budget: 2 x 4"
has "$T/b.cl" '^ \* launch 128 ' "over the budget: groups of 128"
"$NBCC" $B --unroll-i=4 -o "$T/b4.cl"
has "$T/b4.cl" '^ \* unroll 4 4 1$' "a given i-unroll is never halved"
"$NBCC" $B --wg=256 -o "$T/bw.cl"
has "$T/bw.cl" '^ \* launch 256 ' "a given group stays when the i-unroll halves"
"$NBCC" $K --jsplit=16 -o "$T/s16.cl"
has "$T/s16.cl" '^ \* launch 128 ' "a split of 16: groups of 128"
"$NBCC" $K --jsplit=8 -o "$T/s8.cl"
has "$T/s8.cl" '^ \* launch 64 ' "a split of 8: groups of 64"
"$NBCC" $K --unroll-i=1 -o "$T/u1.cl"
has "$T/u1.cl" '^ \* launch 256 ' "1 i-element a work item: groups of 256"
# 30 results: over the budget at 2 x 4 too, so halved twice
awk 'BEGIN { printf "LMEM xi, yi, zi;\nBMEM xj, yj, zj, mj;\nRMEM a0"
	for (k = 1; k < 30; k++) printf ", a%d", k; print ";"
	print "dx = xj - xi;\ndy = yj - yi;\ndz = zj - zi;"
	print "ri = (dx*dx + dy*dy + dz*dz + 0.01)**-0.5;"
	for (k = 0; k < 30; k++) printf "a%d += mj*ri*(dx + %d*dy);\n", k, k }' \
	>"$T/wide.nbl"
est=$("$NBCC" "$T/wide.nbl" --unroll-i=2 --unroll-j=4 --emit=stats |
	sed -n 's/^register estimate: \([0-9]*\) .*/\1/p')
echo "30 results' estimate at 2 x 4: $est"
[ "$est" -gt 120 ] || { echo "FAIL the estimate $est at 2 x 4 is not over 120"; fail=1; }
"$NBCC" "$T/wide.nbl" -o "$T/w.cl"
has "$T/w.cl" '^ \* unroll 1 4 1$' "over the budget at 2 x 4 as well: 1 x 4"
has "$T/w.cl" '^ \* launch 256 ' "1 x 4 by the budget: groups of 256"
"$NBCC" $K -o "$T/cpu.cl" --device-class=cpu
has "$T/cpu.cl" '^ \* unroll 4 1 1$' "CPU device defaults 4 x 1"
"$NBCC" $K -o "$T/cpu2.cl" --device-class=cpu --unroll-j=3
has "$T/cpu2.cl" '^ \* unroll 4 3 1$' "a given factor wins over the device class"
# AVX2's float row; its double has no row and narrows to "cpu"'s
"$NBCC" $K -o "$T/avx2.cl" --device-class=cpu-avx2
has "$T/avx2.cl" '^ \* unroll 8 2 1$' "AVX2 PoCL float defaults 8 x 2"
"$NBCC" $K -o "$T/avx2d.cl" --device-class=cpu-avx2 --precision=double
has "$T/avx2d.cl" '^ \* unroll 4 1 1$' "AVX2 PoCL double narrows to the cpu row, 4 x 1"

skipped=0
if have_device cpu; then
	# the runtime tells the compiler when its OpenCL device is a CPU
	NBRT_CACHE_DIR="$ROOT/build/nbrun-cache" "$BIN/nbody" -n 64 --steps 1 \
		--device cpu >"$T/nb.txt" 2>&1
	# (its class, by the CPU's vector unit: the defaults table's row)
	cls=$(sed -n 's/^kernel: .*--device-class=\(cpu[-a-z0-9]*\).*/\1/p' \
		"$T/nb.txt")
	"$NBCC" $K -o "$T/cls.cl" --device-class="${cls:-none}" 2>/dev/null ||
		echo "no class in: $(grep '^kernel:' "$T/nb.txt")"
	flags=$(sed -n 's/^ \* flags //p' "$T/cls.cl" 2>/dev/null)
	has "$T/nb.txt" "^kernel: .*, target opencl, $flags (defaults)\$" \
		"runtime picks its CPU class's defaults on PoCL ($cls)"

	# a header asking for something outside the list is refused, not run
	sed 's|^ \* options -cl-denorms-are-zero$| * options -cl-denorms-are-zero -DEVIL|' \
		"$T/f.cl" >"$T/evil.cl"
	if "$BIN/nbrun" "$T/evil.cl" --random 3,3 --device cpu -o "$T/o.csv" \
		2>"$T/err"; then
		echo "FAIL evil options ran"; fail=1
	else
		has "$T/err" "asks for the build option '-DEVIL', which this runtime does not pass on" \
			"runtime refuses an unknown build option"
	fi
else
	echo "skip the OpenCL runtime checks: no OpenCL CPU device"
	skipped=1
fi
sed 's|^ \* options -ffast-math$| * options -ffast-math;touch|' "$T/c.c" >"$T/evil.c"
if "$BIN/nbrun" "$T/evil.c" --random 3,3 --target c -o "$T/o.csv" 2>"$T/err"; then
	echo "FAIL evil cc options ran"; fail=1
else
	has "$T/err" "does not pass on" "host path refuses an unknown cc option"
fi
[ $fail = 0 ] && [ $skipped = 1 ] && exit 77
exit $fail
