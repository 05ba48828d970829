# A j-split across warps (nbcc --split-warps, compiler/emit_opencl.c):
# the T work items of an i-element sit a row of NB_WG / T i-elements
# apart, so a warp's lanes read one or two j-elements of a tile a step,
# and the partial sums meet in local memory.  On PoCL,
# against the C back end on fresh random inputs (seed printed;
# NBCC_TEST_SEED=S repeats it): float within 1e-5 and double within
# 1e-12 norm-wise (bench/compare.awk), dd within 1e-28 as dd
# (tests/sh/ddcmp.c, QD); and the same bits as the split without it
# where both add the partial sums in the order of the split (T = 16:
# PoCL's sub-group shuffles take T <= 8 only).  Sums, argmin and
# logsumexp; sizes below a row, below a tile and over several; T not a
# power of two; the cache's j (--tile=0); j-chunked launches that add to
# earlier ones.  The ranges entry (--ranges, --cutoff's cell lists) keeps
# its layout and its shuffles: its text has them where the dense entry's
# has none, and a --cutoff run gives the bytes of the run without it.
# Skipped (77) without an OpenCL CPU device.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
need_device cpu
scratch
shared_cache
ddcmp
test_seed split_warps
seed=$SEED
run() { # OUT [nbrun arguments...]
	out=$1
	shift
	"$BIN/nbrun" "$@" --seed "$seed" -o "$T/$out.csv" 2>"$T/$out.err"
}
# against C: NAME PRECISION NI,NJ [nbrun flags...]
nc=0
check() {
	ex=$1 p=$2 n=$3
	shift 3
	nc=$((nc + 1))
	what="$ex $p $n $* (seed $seed)"
	if ! run cl$nc "dsl-examples/$ex.nbl" --random "$n" --precision="$p" \
		--device cpu --split-warps "$@"; then
		bad "$what: $(tail -n 2 "$T/cl$nc.err")"
		return
	fi
	run c$nc "dsl-examples/$ex.nbl" --random "$n" --precision="$p" --target c
	tolerance "$p"
	m=$($cmp "$T/c$nc.csv" "$T/cl$nc.csv" | sed -n 's/^max //p')
	if awk -v m="$m" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
		ok "$what: $m"
	else
		bad "$what: difference $m over $tol"
	fi
}
for n in 1,1 13,7 97,389 300,4099; do
	check gravity float $n --jsplit=16
	check gravity dd $n --jsplit=16
	check nearest float $n --jsplit=16
done
check gravity double 300,4099 --jsplit=5 --wg=80
check gauss_logsumexp float 211,1009 --jsplit=4
check sph_density float 211,1009 --jsplit=3 --wg=48
check gravity float 301,5003 --jsplit=8 --tile=0
check gravity float 301,5003 --unroll-i=2 --jsplit=4 --wg=128
NBRT_MAX_INTERACTIONS=65500 check gravity float 301,1009 --jsplit=16
NBRT_MAX_INTERACTIONS=65500 check gravity dd 131,1009 --jsplit=16
# the ranges entry keeps its own layout and its shuffles
what="the ranges entry under --split-warps"
if "$NBCC" dsl-examples/gravity.nbl --ranges --split-warps --jsplit=4 \
	--target=opencl -o "$T/r.cl" 2>"$T/r.err" &&
	[ "$(grep -c '__kernel' "$T/r.cl")" = 2 ] &&
	awk '/__kernel/ { k++ } k == 1 && /nb_shfl_f\(r/ { d++ }
		k == 2 && /nb_shfl_f\(r/ { r++ } END { exit !(d == 0 && r > 0) }' \
		"$T/r.cl"; then
	ok "$what: shuffles in its combine, none in the dense entry's"
else
	bad "$what: $(cat "$T/r.err"; grep -n '__kernel\|nb_shfl_f(r' "$T/r.cl" | head)"
fi
for o in --split-warps ""; do
	run "r$o" dsl-examples/gravity.nbl --random 300,4099 --device cpu \
		--jsplit=4 --cutoff 0.3 --pos xi,yi,zi:xj,yj,zj $o ||
		bad "$what: $(tail -n 2 "$T/r$o.err")"
done
cmp -s "$T/r--split-warps.csv" "$T/r.csv" &&
	ok "$what: a --cutoff run, the bytes of the run without it" ||
	bad "$what: a --cutoff run differs from the run without it"
# the same bits as the split without it
for c in "gravity float --jsplit=16" "gravity dd --jsplit=16" \
	"nearest double --jsplit=16" "gauss_logsumexp float --jsplit=2"; do
	set -- $c
	ex=$1 p=$2 s=$3
	what="$ex $p 300,4099 $s, with and without --split-warps (seed $seed)"
	run w "dsl-examples/$ex.nbl" --random 300,4099 --precision="$p" \
		--device cpu "$s" --split-warps &&
		run nw "dsl-examples/$ex.nbl" --random 300,4099 --precision="$p" \
			--device cpu "$s" || {
		bad "$what: $(tail -n 2 "$T/w.err" "$T/nw.err")"
		continue
	}
	if cmp -s "$T/w.csv" "$T/nw.csv"; then
		ok "$what: the same bytes"
	else
		bad "$what: the results differ"
	fi
done
# under the gpu-nvidia row (its register budget), from a split of 16 the
# group holds 512 i-slots (rows of 512 / (T x u) i-elements a split
# position): 512 work items at one i-element and a split of 16
what="nbcc --split-warps under gpu-nvidia: the group"
if "$NBCC" --device-class=gpu-nvidia --unroll-i=1 --jsplit=16 --split-warps \
	dsl-examples/gravity.nbl -o "$T/w.cl" 2>"$T/w.err" &&
	grep -q '^#define NB_WG 512$' "$T/w.cl" &&
	grep -q ' \* flags .* --split-warps' "$T/w.cl"; then
	ok "$what: 512, and the flag in the interface header"
else
	bad "$what: $(grep -E 'NB_WG|flags' "$T/w.cl" "$T/w.err" | head -n 3)"
fi
# 1024 i-slots would not leave the 32 KB tile within 48 KB: u x T x rows
# stays 512, rows of 8 at the least
for c in "1 32 512" "2 16 256" "2 32 256" "4 16 128"; do
	set -- $c
	"$NBCC" --device-class=gpu-nvidia --unroll-i=$1 --jsplit=$2 --split-warps \
		dsl-examples/gravity.nbl -o "$T/w32.cl" 2>"$T/w.err" &&
		grep -q "^#define NB_WG $3\$" "$T/w32.cl" &&
		ok "$what, $1 x 1, split $2: $3" ||
		bad "$what, $1 x 1, split $2: $(grep -E 'NB_WG' "$T/w32.cl" "$T/w.err" | head -n 3)"
done
# the layout itself: split positions a row apart, not side by side (the
# checks above pass for either, as both are right)
what="nbcc --split-warps: the work items' layout"
if grep -q 'const int p = lid / (NB_WG / NB_T)' "$T/w.cl" &&
	! grep -q 'p = gid % NB_T' "$T/w.cl"; then
	ok "$what: a row of NB_WG / NB_T i-elements a split position"
else
	bad "$what: $(grep 'const int p =' "$T/w.cl")"
fi
finish
