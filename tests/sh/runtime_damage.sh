# What a damaged cache or an edited kernel file must not do: crash, or
# write out of bounds.  A cached shared object cut in half (the loader
# maps it and dies of SIGBUS) and a cached OpenCL binary with bytes
# overwritten (PoCL crashes on some) are rebuilt and give the results of
# the first run, bit for bit; a .cl whose header puts a BMEM value outside
# its pack's vectors, and a kernel needing more local memory than the
# device has, are refused with a message.
set -eu
cd "$ROOT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export NBRT_CACHE_DIR="$T/cache"
mkdir -m 700 "$NBRT_CACHE_DIR"
K=dsl-examples/gravity.nbl
run() { "$BIN/nbrun" $K --random 31,7 --seed 3 "$@" 2>"$T/err"; }

# $1: file; overwrite 4 KiB at each tenth of it, past its first line
damage() {
	size=$(wc -c <"$1")
	i=1
	while [ $i -le 9 ]; do
		head -c 4096 /dev/urandom |
			dd of="$1" bs=1 seek=$((size * i / 10)) conv=notrunc 2>/dev/null
		i=$((i + 1))
	done
}

run --target c -o "$T/c1.csv" || { cat "$T/err"; exit 1; }
so=$(ls "$NBRT_CACHE_DIR"/*.so)
truncate -s $(($(wc -c <"$so") / 2)) "$so"
run --target c -o "$T/c2.csv" || { echo "truncated .so: exit $?"; cat "$T/err"; exit 1; }
cmp "$T/c1.csv" "$T/c2.csv"
echo "ok   truncated cached .so rebuilt"

run --device cpu -o "$T/o1.csv" || { cat "$T/err"; exit 1; }
bin=$(ls "$NBRT_CACHE_DIR"/*.clbin)
cp "$bin" "$T/orig.clbin"
damage "$bin"
run --device cpu -o "$T/o2.csv" || { echo "damaged .clbin: exit $?"; cat "$T/err"; exit 1; }
cmp "$T/o1.csv" "$T/o2.csv"
echo "ok   damaged cached OpenCL binary rebuilt"

# an edited header: pack 0 of float4 said to hold one float per element
"$NBCC" $K -o "$T/g.cl"
sed 's/^ \* pack 0 float 4 4$/ * pack 0 float 4 1/' "$T/g.cl" >"$T/bad.cl"
if cmp -s "$T/g.cl" "$T/bad.cl"; then echo "the header changed"; exit 1; fi
if "$BIN/nbrun" "$T/bad.cl" --random 100,100 --seed 1 --device cpu \
	-o "$T/x.csv" 2>"$T/err"; then
	echo "FAIL: a .cl with BMEM outside its pack ran"
	exit 1
fi
grep -q "BMEM 'yj' is value 1 of pack 0, whose vectors have 1 scalars" "$T/err" ||
	{ cat "$T/err"; exit 1; }
echo "ok   BMEM outside its pack refused"

# 18 dd BMEM in 9 double4 packs, tiles of 4096: 1179648 bytes of local
# memory, more than PoCL's 1 MiB
{
	echo "LMEM dd x;"
	echo "BMEM dd b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17;"
	echo "RMEM dd r;"
	echo "r += x*(b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9 + b10 + b11 + b12 + b13 + b14 + b15 + b16 + b17);"
} >"$T/big.nbl"
if "$BIN/nbrun" "$T/big.nbl" --random 10,10 --seed 1 --device cpu \
	--tile=4096 -o "$T/x.csv" 2>"$T/err"; then
	echo "FAIL: a kernel beyond the device's local memory ran"
	exit 1
fi
grep -q "needs 1179648 bytes of local memory" "$T/err" || { cat "$T/err"; exit 1; }
echo "ok   local memory beyond the device's refused"
