# nbrun --tree against nbrun's direct run on the same fresh random inputs
# (--random with the test's seed; NBCC_TEST_SEED=S repeats it), on the
# host and PoCL's CPU device where there is one, in double:
#   - gravity (far/gravity_quad.nbl, found beside gravity.nbl) and the
#     regularised Biot-Savart law (far/biot_savart_dipole.nbl): with
#     --theta 1e-9 every cell is opened and each result equals the direct
#     one within 1e-12 of its column's largest value;
#   - at --theta 0.5 the median relative error of the result vectors stays
#     under the bounds of tests/unit/test_tree.c and test_tree_far.c
#     (gravity 5e-4, Biot-Savart 1.2e-2), and --time reports the phases;
#   - bad input: a kernel with no far field, --theta 0 or NaN, --bucket 0,
#     --theta without --tree, --tree with --cutoff, a far kernel that does
#     not fit, a NaN position (the reader refuses it), a bad
#     NBRT_DEVICE_SORT: each a clear error, non-zero exit, -o's file
#     untouched.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
NBRUN=$BIN/nbrun
EX=$ROOT/dsl-examples
scratch
shared_cache
unset NBRT_DEVICE
test_seed nbrun_tree.sh
cd "$T" || exit 1
devices=host
have_device cpu && devices="host cpu"

# cmp A.csv B.csv: the largest difference over the column's largest value
# (1st field) and the median relative error of the first three columns as
# a vector (2nd field).
cmp_csv() {
	paste -d, "$1" "$2" | awk -F, 'NR > 1 {
		h = NF / 2; e2 = 0; r2 = 0
		for (c = 1; c <= h; c++) {
			d = $c - $(c + h); if (d < 0) d = -d
			if (d > dmax[c]) dmax[c] = d
			v = $(c + h) < 0 ? -$(c + h) : $(c + h)
			if (v > vmax[c]) vmax[c] = v
			if (c <= 3) { e2 += d * d; r2 += $(c + h) * $(c + h) }
		}
		rel[n++] = r2 > 0 ? sqrt(e2 / r2) : 0
	}
	END {
		worst = 0
		for (c in dmax) if (vmax[c] > 0 && dmax[c] / vmax[c] > worst)
			worst = dmax[c] / vmax[c]
		# insertion sort: n is small
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && rel[j - 1] > rel[j]; j--) {
				t = rel[j]; rel[j] = rel[j - 1]; rel[j - 1] = t
			}
		printf "%.3g %.3g\n", worst, n ? rel[int(n / 2)] : 0
	}'
}

N=1500,1500
for dev in $devices; do
	for case in "gravity.nbl eps2=1e-4 5e-4" "biot_savart.nbl isig3=8000 1.2e-2"; do
		set -- $case
		k=$EX/$1
		run="$NBRUN $k --random $N --seed $SEED --const $2 --device $dev \
		     --precision double"
		$run -o direct.csv 2>/dev/null || die "$1 $dev: the direct run"
		$run --tree --theta 1e-9 -o open.csv 2>err ||
			{ cat err; die "$1 $dev: --tree --theta 1e-9"; }
		set -- $1 $3 $(cmp_csv open.csv direct.csv)
		awk -v w="$3" 'BEGIN { exit !(w < 1e-12) }' &&
			ok "$1 $dev: every cell opened: $3 of the largest" ||
			bad "$1 $dev: every cell opened: differs by $3 of the largest"
		$run --tree --theta 0.5 --bucket 8 --group 32 --time -o half.csv \
			2>err || { cat err; die "$1 $dev: --tree --theta 0.5"; }
		grep -q '^tree: .* cells, .* far pairs; seconds: build' err &&
			ok "$1 $dev: --time reports the phases" ||
			bad "$1 $dev: --time has no tree line: $(cat err)"
		set -- $1 $2 $(cmp_csv half.csv direct.csv)
		awk -v m="$4" -v b="$2" 'BEGIN { exit !(m < b && m > 0) }' &&
			ok "$1 $dev: theta 0.5, median relative error $4 < $2" ||
			bad "$1 $dev: theta 0.5, median relative error $4, bound $2"
	done
done

# refused KERNEL WANT ARGS...: a non-zero exit, a message with WANT, and
# -o's file as it was
refused() {
	k=$1 want=$2
	shift 2
	echo keep >out.csv
	if $NBRUN "$EX/$k" "$@" -o out.csv 2>err; then
		bad "$k $*: ran"
	elif ! grep -qF -- "$want" err; then
		bad "$k $*: the message lacks '$want': $(cat err)"
	elif [ "$(cat out.csv)" != keep ]; then
		bad "$k $*: -o's file changed"
	else
		ok "$k $*: $(head -1 err)"
	fi
}
G="--random 20,20 --const eps2=1e-4 --device host"
refused lamb_oseen.nbl "has no far-field kernel" --tree --random 20,20 \
	--const isig2=1 --device host
refused gravity.nbl "expected a number above 0" --tree --theta 0 $G
refused gravity.nbl "expected a number above 0" --tree --theta nan $G
refused gravity.nbl "expected an integer from 1" --tree --bucket 0 $G
refused gravity.nbl "--theta is for --tree" --theta 0.3 $G
refused gravity.nbl "--tree and --cutoff" --tree --cutoff 1 \
	--pos xi,yi,zi:xj,yj,zj $G
refused gravity.nbl "which it must come from" --tree \
	--far "$ROOT/far/biot_savart_dipole.nbl" $G
# NBRT_DEVICE_SORT (runtime/sortkv.c, read through msg.c's nbrt_env_int):
# 0 or 1, anything else refused by name before a result is written
for v in yes 2 -1 1x; do
	export NBRT_DEVICE_SORT=$v
	refused gravity.nbl "NBRT_DEVICE_SORT='$v': it must be 0 or 1" --tree $G
done
unset NBRT_DEVICE_SORT
# NBRT_TREE_FAR: cells, stream or stream,N; anything else refused by name
for v in streams stream,0 stream,abc stream,5x inplace; do
	export NBRT_TREE_FAR=$v
	refused gravity.nbl "NBRT_TREE_FAR='$v': it must be" --tree $G
done
# its control bytes shown escaped
NBRT_TREE_FAR=$(printf 's\033[2Jt')
refused gravity.nbl "NBRT_TREE_FAR='s\x1b[2Jt': it must be" --tree $G
unset NBRT_TREE_FAR
printf 'x,y,z,m\n0,0,0,1\nnan,1,0,1\n1,1,1,1\n' >nan.csv
refused gravity.nbl "is not a finite number" --tree --ij nan.csv \
	--map xi=y,yi=x,zi=z,xj=x,yj=y,zj=z,mj=m --const eps2=1e-4 \
	--device host
finish
