# What a damaged cache or an edited kernel file must not do: crash, or
# write out of bounds.  A cached shared object cut in half (the loader
# maps it and dies of SIGBUS) and a cached OpenCL binary with bytes
# overwritten (PoCL crashes on some) are rebuilt and give the results of
# the first run, bit for bit; a .cl whose header puts a BMEM value outside
# its pack's vectors, and a kernel needing more local memory than the
# device has (sized from the device's own local_mem_size), are refused
# with a message.  The OpenCL parts need PoCL's CPU device: without one
# the script exits 77 (skipped) after the host part.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
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

need_device cpu

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

# A kernel whose j-tiles need more local memory than the device has:
# dd BMEMs travel two to a double4 pack, so each pack is 32 bytes per
# j-element and a tile of 4096 takes 131072 bytes per pack.  Enough packs
# to pass the device's local_mem_size; what the kernel needs is worked
# out here from the interface header nbcc writes (bytes per vector times
# the tile, summed over the packs) and must be what the message says.
lmem=$(device_info cpu local_mem_size)
case $lmem in '' | *[!0-9]*) echo "no local_mem_size for the cpu device"; exit 1 ;; esac
tile=4096
npack=$((lmem / (32 * tile) + 1))
nb=$((2 * npack))
{
	echo "LMEM dd x;"
	k=0 list="" sum=""
	while [ $k -lt $nb ]; do
		list="$list${list:+, }b$k"
		sum="$sum${sum:+ + }b$k"
		k=$((k + 1))
	done
	echo "BMEM dd $list;"
	echo "RMEM dd r;"
	echo "r += x*($sum);"
} >"$T/big.nbl"
"$NBCC" "$T/big.nbl" --device-class=cpu --tile=$tile -o "$T/big.cl"
need=$(awk -v tile=$tile '
	$1 == "*" && $2 == "launch" && $4 != tile { print "tile " $4; exit 1 }
	$1 == "*" && $2 == "pack" { n++; b += $6 * ($4 == "float" ? 4 : 8) }
	$1 == "*" && $2 == "end" { print b * tile; exit n == 0 }' "$T/big.cl")
[ "$need" -gt "$lmem" ] || { echo "big.cl needs $need, not more than $lmem"; exit 1; }
if "$BIN/nbrun" "$T/big.cl" --random 10,10 --seed 1 --device cpu \
	-o "$T/x.csv" 2>"$T/err"; then
	echo "FAIL: a kernel beyond the device's local memory ($need > $lmem bytes) ran"
	exit 1
fi
grep -q "needs $need bytes of local memory.* has $lmem " "$T/err" || { cat "$T/err"; exit 1; }
echo "ok   $need bytes of local memory, beyond the device's $lmem, refused"
