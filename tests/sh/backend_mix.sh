# The OpenCL back end (PoCL) and the transformed C kernel against the
# untransformed C kernel, on a kernel the examples do not cover: LMEM,
# BMEM, RMEM and CONST of all three types in one kernel, so BMEM packs of
# float4 (4 used), float (1), double4 (3 used), double4 (2 dd) and double2
# (1 dd); conditionals and a bool temporary used twice.  Flags off the
# beaten path: odd unrolls, a j-split that is not a power of two, a tile
# smaller than the j-step and one larger than the work group, a work
# group that is not a multiple of 32, and split launches (later j-parts
# adding to the results).  Random inputs (seed printed); tolerance
# norm-wise per column: float 1e-5, double and dd (read as doubles) 1e-12.
# bench/backend_matrix.py samples the whole matrix of such flags.
# The OpenCL runs need an OpenCL CPU device whose work groups reach the
# sizes asked for (max_work_group_size, from nbrun --device-info); without
# one only the C runs are made and the script exits 77 (skipped).
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
test_seed backend_mix
seed=$SEED
cat >"$T/mix.nbl" <<'EOF'
LMEM float xf;
LMEM double xd;
LMEM dd xq;
BMEM float a1, a2;
BMEM double b1;
BMEM float a3, a4, a5;
BMEM dd d1;
BMEM double b2, b3;
BMEM dd d2, d3;
RMEM float f_s, f_c;
RMEM double d_t;
RMEM dd q_u;
CONST float cf;
CONST double cd;
CONST dd cq;
s = a1*xf + a2*a3 - a4/(a5 + 1);
t = b1*xd - b2*b3 + cd;
u = d1*xq + d2 - d3*cq;
near = a1 < a2;
f_s += s*cf;
f_c += near ? s : -s;
d_t += t*s + xd;
d_t -= near && b1 > 0.5 ? t*t : 0;
q_u += u*t + xq*xq;
q_u += b2 < xd ? u : d1;
EOF
ref="--target c --unroll-i=1 --unroll-j=1 --jsplit=1 --sched=none"
status=0
check() { # $1: sizes, $2: flags, then environment settings
	n=$1 flags=$2
	shift 2
	r=$ref
	case $flags in *--no-fma*) r="$ref --no-fma" ;; esac
	"$BIN/nbrun" "$T/mix.nbl" --random "$n" --seed "$seed" $r \
		-o "$T/ref.csv" 2>"$T/err" || { cat "$T/err"; exit 1; }
	env "$@" "$BIN/nbrun" "$T/mix.nbl" --random "$n" --seed "$seed" \
		$flags -o "$T/got.csv" 2>"$T/err" || { cat "$T/err"; exit 1; }
	if [ "$(wc -l <"$T/ref.csv")" != "$(wc -l <"$T/got.csv")" ]; then
		echo "FAIL $n $flags $*: row counts differ"
		status=1
		return
	fi
	awk -f bench/compare.awk "$T/ref.csv" "$T/got.csv" >"$T/cmp"
	if awk '/^  [fdq]_/ { sub(":", "", $1); t = $1 ~ /^f_/ ? 1e-5 : 1e-12
		if (!($2 <= t)) bad = 1 } END { exit bad }' "$T/cmp"; then
		echo "ok   $n $flags $* $(sed -n 's/^max //p' "$T/cmp")"
	else
		echo "FAIL $n $flags $*"
		cat "$T/cmp"
		status=1
	fi
}
cl="--device cpu"
maxwg=0
have_device cpu && maxwg=$(device_info cpu max_work_group_size)
skipped=0
# $1: the work-group size the flags ask for
fits() {
	[ "$maxwg" -ge "$1" ] && return 0
	skipped=1
	if [ "$maxwg" = 0 ]; then
		echo "skip $n --wg=$1: no OpenCL CPU device"
	else
		echo "skip $n --wg=$1: the OpenCL CPU device's work groups stop at $maxwg"
	fi
	return 1
}
for n in 31,257 1,7 5,0; do
	fits 48 && check $n "$cl --unroll-i=3 --unroll-j=3 --jsplit=5 --wg=48 --tile=7" \
		NBRT_MAX_INTERACTIONS=37
	fits 32 && check $n "$cl --unroll-i=2 --unroll-j=4 --jsplit=4 --wg=32 --tile=100 --sched=none --no-fma"
	check $n "--target c --unroll-i=5 --unroll-j=3 --jsplit=3"
done
[ $status = 0 ] && [ $skipped = 1 ] && exit 77
exit $status
