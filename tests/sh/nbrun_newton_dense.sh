# nbrun --self --newton=on on OpenCL's dense run (PoCL): the _dense entry
# (compiler/emit_opencl.c, runtime/cl/newton.c's dense_queue) on fresh
# random particles (seed printed; NBCC_TEST_SEED=S repeats it) at N = 0,
# 1, 127 and block counts odd and even (blocks of 4 rows of the work
# group, 512 here: the even counts' last round is half), against
# --newton=off's every pair and a reference in double written here
# (ref, tests/sh/newton_ref.c):
# Lennard-Jones in double (bench/newton/lennard_jones_self.nbl: counts
# equal, the rest within 1e-9 of the column's largest value), gravity_force
# in float (within 1e-4 of it: only the order of the sums differs) and
# in dd (1e-12 of it; its packs too wide for the local tile, so j comes
# from global memory: emit_opencl.c's dense_tiles); --time's pairs fewer (at four blocks under 0.7 of them); the bytes the same run to run and
# with one round a launch (NBRT_NEWTON_ROUNDS=1: the folds' seams), a bad
# NBRT_NEWTON_ROUNDS refused; --newton=auto computes every pair (PoCL's
# row has no newton_min), and under NBRT_DEVICE_CLASS=gpu-nvidia takes
# the dense entry from that row's newton_min on, not below (and its
# float row's term summed apart matches the reference); a class without
# a row for OpenCL refused.  Full blocks run unguarded, the last one
# guarded: n = 700, 1201 and 1600 have both.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
need_device cpu
NBRUN=$BIN/nbrun
LJ=$ROOT/bench/newton/lennard_jones_self.nbl
GF=$ROOT/bench/newton/gravity_force.nbl
scratch
shared_cache
unset NBRT_DEVICE NBRT_NEWTON_ROUNDS
test_seed nbrun_newton_dense.sh
cd "$T" || exit 1

gen() {
	echo x,y,z,m
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%.9f,%.9f,%.9f,%.6f\n", rand(), rand(), rand(), 0.5 + rand() }'
}

# same TOL A B: the last column (LJ's count) equal where COUNT, the rest
# within TOL of the column's largest magnitude
same() {
	awk -F, -v tol="$1" -v count="$4" 'NR == FNR { a[FNR] = $0; next }
		FNR == 1 { next }
		{ split(a[FNR], v, ",")
		  for (c = 1; c <= NF; c++) {
			d = v[c] - $c; if (d < 0) d = -d
			if (count && c == NF && d != 0) { print "row " FNR " count " v[c] " vs " $c; bad = 1 }
			if (d > diff[c]) diff[c] = d
			m = $c < 0 ? -$c : $c; if (m > big[c]) big[c] = m } }
		END { for (c in diff) if (diff[c] > tol * big[c]) {
			print "column " c ": " diff[c] " apart, largest " big[c]; bad = 1 }
		  exit bad }' "$2" "$3"
}
# ref KERNEL P.CSV: every pair in double, as the kernel's file has them
# (bench/newton/*.nbl, the constants the runs below give), by
# tests/sh/newton_ref.c (the same sums in awk took 10 of this script's
# 21 CPU s)
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$T/newton_ref" \
	"$ROOT/tests/sh/newton_ref.c" -lm || die "cannot build tests/sh/newton_ref.c"
ref() { "$T/newton_ref" "$1" "$2"; }
pairs() { sed -n 's/.*pairs: \([0-9]*\),.*/\1/p' "$1.err"; }

k=0
for kern in lj gf gd; do
	case $kern in
	lj) K=$LJ P=double TOL=1e-9 COUNT=1
		ARGS="--map xi=x,yi=y,zi=z,xj=x,yj=y,zj=z --const sig2=0.0004 --const eps=1 --const rc2=0.01" ;;
	gf|gd) K=$GF P=float TOL=1e-4 COUNT=0
		[ $kern = gd ] && P=dd TOL=1e-12
		ARGS="--map xi=x,yi=y,zi=z,mi=m,xj=x,yj=y,zj=z,mj=m --const eps2=0.0001" ;;
	esac
	for n in 0 1 127 211 700 1201 1600; do
		k=$((k + 1))
		gen $((SEED + k)) $n >p.csv
		for m in on off auto; do
			# shellcheck disable=SC2086
			"$NBRUN" "$K" --device cpu --precision=$P --ij p.csv $ARGS \
				--self --newton=$m --time -o "$m.csv" 2>"$m.err" ||
				{ bad "$kern n $n --newton=$m: $(tail -n 1 "$m.err")"; continue 2; }
		done
		if same $TOL on.csv off.csv $COUNT >diff.txt; then ok; else
			bad "$kern n $n: on and off differ: $(head -n 3 diff.txt)"; fi
		ref ${kern%[fd]} p.csv >ref.csv
		if [ "$(wc -l <on.csv)" -eq $((n + 1)) ] &&
			same $TOL ref.csv on.csv $COUNT >diff.txt; then ok; else
			bad "$kern n $n: on and the reference differ: $(head -n 3 diff.txt)"; fi
		pon=$(pairs on) poff=$(pairs off) pauto=$(pairs auto)
		# one block: every pair; four: 0.65 of them
		if [ "$pauto" = "$poff" ] && awk -v a="$pon" -v b="$poff" -v n="$n" \
			'BEGIN { exit !(n <= 512 ? a == b : a < (n > 1500 ? 0.7 : 1) * b) }'; then
			ok
		else
			bad "$kern n $n: pairs $pon on, $poff off, $pauto auto"
		fi
	done
	# n = 1600: four blocks, three rounds; again, and one round a launch
	# shellcheck disable=SC2086
	"$NBRUN" "$K" --device cpu --precision=$P --ij p.csv $ARGS --self \
		--newton=on -o again.csv 2>again.err &&
		NBRT_NEWTON_ROUNDS=1 "$NBRUN" "$K" --device cpu --precision=$P \
			--ij p.csv $ARGS --self --newton=on -o one.csv 2>one.err ||
		bad "$kern: $(tail -n 1 again.err one.err)"
	if cmp -s on.csv again.csv && cmp -s on.csv one.csv; then
		ok "$kern: the same bytes run to run and one round a launch"
	else
		bad "$kern: the bytes differ run to run or with one round a launch"
	fi
done
echo keep >x.csv
# shellcheck disable=SC2086
if NBRT_NEWTON_ROUNDS=0 "$NBRUN" "$K" --device cpu --ij p.csv $ARGS --self \
	--newton=on -o x.csv 2>err.txt; then
	bad "NBRT_NEWTON_ROUNDS=0 accepted"
elif grep -q "NBRT_NEWTON_ROUNDS" err.txt && [ "$(cat x.csv)" = keep ]; then
	ok "NBRT_NEWTON_ROUNDS=0 refused"
else
	bad "NBRT_NEWTON_ROUNDS=0: $(cat err.txt), -o: $(head -c 40 x.csv)"
fi

# --newton=auto by the row of NBRT_DEVICE_CLASS (runtime/core.c), not the
# device's own: gpu-nvidia's double newton_min, 16384, takes the dense
# entry (its note, pairs about half) at N = 16384 and every pair at 16383
min=$(awk '/devclass = "gpu-nvidia", .prec = NB_DOUBLE/ { f = 1 }
	f && /newton_min/ { sub(/.*newton_min = /, ""); sub(/[^0-9].*/, ""); print; exit }' \
	"$ROOT/compiler/defaults.c")
[ -n "$min" ] || bad "no newton_min in gpu-nvidia's double row"
for n in $((min - 1)) $min; do
	gen $((SEED + 100 + n)) $n >p.csv
	NBRT_DEVICE_CLASS=gpu-nvidia NBRT_VERBOSE=1 "$NBRUN" "$GF" --device cpu \
		--precision=double --ij p.csv \
		--map xi=x,yi=y,zi=z,mi=m,xj=x,yj=y,zj=z,mj=m --const eps2=0.0001 \
		--self --newton=auto --time -o a.csv 2>a.err ||
		{ bad "NBRT_DEVICE_CLASS=gpu-nvidia n $n: $(tail -n 1 a.err)"; continue; }
	p=$(pairs a)
	if [ $n -lt "$min" ]; then
		if [ "$p" = $((n * n)) ] && ! grep -q "Newton's third law, dense" a.err; then
			ok "gpu-nvidia's row: every pair at n $n"
		else bad "gpu-nvidia's row at n $n: pairs $p, $(grep -c dense a.err) dense notes"; fi
	elif [ "$p" -lt $((n * n * 6 / 10)) ] && grep -q "Newton's third law, dense" a.err; then
		ok "gpu-nvidia's row: the dense entry at n $n"
	else bad "gpu-nvidia's row at n $n: pairs $p, no dense note"; fi
done
# gpu-nvidia's float row sums the dense term apart (newton_apart,
# emit_opencl.c's dense_term), the other form: against the reference
for n in 127 700 1600; do
	gen $((SEED + 200 + n)) $n >p.csv
	NBRT_DEVICE_CLASS=gpu-nvidia "$NBRUN" "$GF" --device cpu --precision=float \
		--ij p.csv --map xi=x,yi=y,zi=z,mi=m,xj=x,yj=y,zj=z,mj=m \
		--const eps2=0.0001 --self --newton=on -o a.csv 2>a.err ||
		{ bad "gpu-nvidia float n $n: $(tail -n 1 a.err)"; continue; }
	ref g p.csv >ref.csv
	if same 1e-4 ref.csv a.csv 0 >diff.txt; then ok; else
		bad "gpu-nvidia float n $n: on and the reference differ: $(head -n 3 diff.txt)"; fi
done
for c in bogus host-avx2; do
	if NBRT_DEVICE_CLASS=$c "$NBRUN" "$GF" --device cpu --ij p.csv \
		--map xi=x,yi=y,zi=z,mi=m,xj=x,yj=y,zj=z,mj=m --const eps2=0.0001 \
		--self -o x.csv 2>err.txt; then
		bad "NBRT_DEVICE_CLASS=$c accepted"
	elif grep -q "NBRT_DEVICE_CLASS='$c': the defaults table has no row" err.txt; then
		ok "NBRT_DEVICE_CLASS=$c refused"
	else bad "NBRT_DEVICE_CLASS=$c: $(cat err.txt)"; fi
done
finish
