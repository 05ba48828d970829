# nbrun --self --newton=on|off|auto: Newton's third law through nbrun, on
# fresh random particles (seed printed; NBCC_TEST_SEED=S repeats it) at
# N = 1 and primes, on the host: Lennard-Jones
# (bench/newton/lennard_jones_self.nbl, every result declared) in the
# dense self run and in --cutoff's cell lists, open and --periodic 1.
# Each on-run's neighbour counts equal the off-run's exactly, its forces
# and energies within 1e-9 of the column's largest value (double: only
# the order of the sums differs); --time's pairs fall to about half
# (the dense run: past one block of 256).  A
# bad --newton value is refused by name, and so is a bad
# NBRT_NEWTON_BLOCK; a good one (40: blocks of several sizes at N = 300)
# changes no result.  On PoCL (where there is one) the periodic cell
# lists likewise, and the on-run's bytes under 1 and 2 PoCL threads.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
NBRUN=$BIN/nbrun
LJ=$ROOT/bench/newton/lennard_jones_self.nbl
scratch
shared_cache
unset NBRT_DEVICE
# the lists Newton's third law takes by default (cells of one cutoff,
# each a group) for the off-runs too, so that their pairs compare
export NBRT_CELL_SPLIT=1 NBRT_CELL_GROUP=1000000000
test_seed nbrun_newton.sh
cd "$T" || exit 1

MAP=xi=x,yi=y,zi=z,xj=x,yj=y,zj=z
CONSTS="--const sig2=0.0004 --const eps=1 --const rc2=0.01"

gen() {
	echo x,y,z
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%.9f,%.9f,%.9f\n", rand(), rand(), rand() }'
}

# same A B: counts equal, the rest within 1e-9 of the column's largest
same() {
	awk -F, 'NR == FNR { a[FNR] = $0; next }
		FNR == 1 { next }
		{ split(a[FNR], v, ",")
		  for (c = 1; c <= NF; c++) {
			d = v[c] - $c; if (d < 0) d = -d
			if (c == NF && d != 0) { print "row " FNR " count " v[c] " vs " $c; bad = 1 }
			if (d > diff[c]) diff[c] = d
			m = $c < 0 ? -$c : $c; if (m > big[c]) big[c] = m } }
		END { for (c in diff) if (diff[c] > 1e-9 * big[c]) {
			print "column " c ": " diff[c] " apart, largest " big[c]; bad = 1 }
		  exit bad }' "$1" "$2"
}

# pairs PREFIX: the pairs of --time's line in PREFIX.err
pairs() { sed -n 's/.*pairs: \([0-9]*\),.*/\1/p' "$1.err"; }

k=0
for n in 1 211 1201; do
	k=$((k + 1))
	gen $((SEED + k)) $n >p.csv
	for how in dense open periodic; do
		case $how in
		dense) extra= ;;
		open) extra="--cutoff 0.1 --pos xi,yi,zi:xj,yj,zj" ;;
		periodic) extra="--cutoff 0.1 --pos xi,yi,zi:xj,yj,zj --periodic 1" ;;
		esac
		for m in on off; do
			# shellcheck disable=SC2086
			"$NBRUN" "$LJ" --device host --precision=double --ij p.csv \
				--map "$MAP" $CONSTS $extra --self --newton=$m --time \
				-o "$m.csv" 2>"$m.err" ||
				{ bad "$how n $n --newton=$m: $(tail -n 1 "$m.err")"; continue 2; }
		done
		if same on.csv off.csv >diff.txt; then ok; else
			bad "$how n $n: on and off differ: $(head -n 3 diff.txt)"; fi
		pon=$(pairs on) poff=$(pairs off)
		# the dense run's blocks are 256 wide: one block, every pair
		small=2
		[ $how = dense ] && small=512
		if [ "$n" -gt $small ] && ! awk -v a="$pon" -v b="$poff" \
			'BEGIN { exit !(a > 0 && a < 0.75 * b) }'; then
			bad "$how n $n: $pon pairs on, $poff off"
		else
			ok
		fi
	done
done

"$NBRUN" "$LJ" --device host --ij p.csv --map "$MAP" $CONSTS --self \
	--newton=sometimes -o x.csv 2>err.txt
st=$?
if [ $st != 0 ] && grep -q "sometimes" err.txt; then ok; else
	bad "--newton=sometimes: status $st, $(cat err.txt)"; fi
# NBRT_NEWTON_BLOCK (runtime/newton.c, read through msg.c's nbrt_env_int):
# an integer from 1 to 2^24, anything else (was: silently the default)
# refused by name, -o's file untouched; a good value gives the same
# results
gen $((SEED + 9)) 300 >p.csv
for v in 0 -3 abc 64x 16777217; do
	echo keep >x.csv
	# shellcheck disable=SC2086
	if NBRT_NEWTON_BLOCK=$v "$NBRUN" "$LJ" --device host --ij p.csv \
		--map "$MAP" $CONSTS --self --newton=on -o x.csv 2>err.txt; then
		bad "NBRT_NEWTON_BLOCK='$v' accepted"
	elif grep -q "NBRT_NEWTON_BLOCK='$v': it must be an integer from 1 to 16777216" \
		err.txt && [ "$(cat x.csv)" = keep ]; then
		ok "NBRT_NEWTON_BLOCK='$v' refused"
	else
		bad "NBRT_NEWTON_BLOCK='$v': $(cat err.txt), -o: $(head -c 40 x.csv)"
	fi
done
# shellcheck disable=SC2086
if "$NBRUN" "$LJ" --device host --precision=double --ij p.csv --map "$MAP" \
	$CONSTS --self --newton=off -o off.csv 2>err.txt &&
	NBRT_NEWTON_BLOCK=40 "$NBRUN" "$LJ" --device host --precision=double \
		--ij p.csv --map "$MAP" $CONSTS --self --newton=on -o on.csv \
		2>>err.txt && same on.csv off.csv >diff.txt; then
	ok "NBRT_NEWTON_BLOCK=40: on equals off"
else
	bad "NBRT_NEWTON_BLOCK=40: $(tail -n 2 err.txt) $(head -n 3 diff.txt)"
fi
# PoCL (runtime/cl/newton.c): the periodic cell lists with it on equal
# those with it off, and its results' bytes do not depend on PoCL's
# threads (1 or 2)
if have_device cpu; then
	gen $((SEED + 11)) 701 >p.csv
	for m in on off; do
		for th in 1 2; do
			# shellcheck disable=SC2086
			POCL_MAX_PTHREAD_COUNT=$th "$NBRUN" "$LJ" --device cpu \
				--precision=double --ij p.csv --map "$MAP" $CONSTS \
				--cutoff 0.1 --pos xi,yi,zi:xj,yj,zj --periodic 1 --self \
				--newton=$m --time -o "$m$th.csv" 2>"$m$th.err" ||
				bad "PoCL --newton=$m: $(tail -n 1 "$m$th.err")"
		done
	done
	if same on1.csv off1.csv >diff.txt; then ok "PoCL: on equals off"; else
		bad "PoCL: on and off differ: $(head -n 3 diff.txt)"; fi
	if cmp -s on1.csv on2.csv; then ok "PoCL: 1 and 2 threads, same bytes"
	else bad "PoCL: 1 and 2 threads differ"; fi
	pon=$(pairs on1) poff=$(pairs off1)
	if awk -v a="$pon" -v b="$poff" 'BEGIN { exit !(a > 0 && a < 0.75 * b) }'
	then ok; else bad "PoCL: $pon pairs on, $poff off"; fi
	# NBRT_NEWTON_SLICE (cl/newton.c): a power of two from 8 to 64
	for v in 4 12 128 x; do
		echo keep >x.csv
		# shellcheck disable=SC2086
		if NBRT_NEWTON_SLICE=$v "$NBRUN" "$LJ" --device cpu --ij p.csv \
			--map "$MAP" $CONSTS --cutoff 0.1 --pos xi,yi,zi:xj,yj,zj \
			--self --newton=on -o x.csv 2>err.txt; then
			bad "NBRT_NEWTON_SLICE='$v' accepted"
		elif grep -q "NBRT_NEWTON_SLICE" err.txt && [ "$(cat x.csv)" = keep ]
		then ok "NBRT_NEWTON_SLICE='$v' refused"
		else bad "NBRT_NEWTON_SLICE='$v': $(cat err.txt)"; fi
	done
fi
finish nbrun_newton.sh
