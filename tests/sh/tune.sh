# The tuner (runtime/tune.c), by its behaviour, never by its timings: on
# the host and on an OpenCL CPU device, nbrun --tune with a tiny budget
# tunes, writes a private cache entry, and gives the default's results
# (float, 1e-5 of the largest against the C back end run as loaded); the
# next run without --tune takes the cached winner and says so; damaged,
# cut, foreign, group-writable and older-format (nbcc-tune 2, without the
# split's layout) entries are ignored (the run falls back
# to the defaults, results unchanged); a candidate made wrong on purpose
# (NBRT_TUNE_WRONG: its results perturbed, its speed reported 100 times
# higher) is rejected and never wins.  The split's layout (warps=, varied
# on GPUs only) is the user's where given: with --jsplit=4 --split-warps
# the entry keeps split=4 warps=2, and its cached run gives the results.
# bin/nbody --tune on the OpenCL CPU device (device arrays) runs, its
# candidates on its own path only.
# The OpenCL part is skipped without an OpenCL CPU device.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
export NBRT_CACHE_DIR="$T/cache"
unset NBRT_TUNE NBRT_TUNE_WRONG
G=dsl-examples/gravity.nbl
# the reference: the C back end as loaded, its cache apart
NBRT_CACHE_DIR="$T/refcache" "$BIN/nbrun" $G --random 200,150 --seed 5 \
	--target c -o "$T/ref.csv" 2>/dev/null
same() {
	m=$(awk -f bench/compare.awk "$T/ref.csv" "$1" | sed -n 's/^max //p')
	awk -v m="$m" 'BEGIN { exit !(m != "" && m <= 1e-5) }'
}
origin() { sed -n 's/^variant: .*, chosen by \(.*\)$/\1/p' "$1"; }
run() { # DEVICE OUT ERR [flags]: nbrun at 200 x 150
	d=$1 o=$2 e=$3
	shift 3
	"$BIN/nbrun" $G --random 200,150 --seed 5 --device "$d" --time \
		-o "$o" "$@" 2>"$e"
}

devs=host
if have_device cpu; then devs="host cpu"; else
	echo "skipped: the OpenCL part (no OpenCL CPU device)"; fi
for d in $devs; do
	rm -rf "$T/cache"
	run $d "$T/a.csv" "$T/e1" --tune-budget 0.2 || :
	case $(origin "$T/e1") in
	"tuned now" | "tuned now, on "*) o=1 ;;
	*) o=0 ;;
	esac
	if [ $o = 1 ] && same "$T/a.csv" &&
		grep -q "^nbrt: tuned $G for Ni ~ 200, Nj ~ 150 on " "$T/e1"
	then ok "$d: --tune tunes, results as loaded"
	else bad "$d: --tune"; cat "$T/e1"; fi
	n=$(find "$T/cache" -name '*.tune' | wc -l)
	f=$(find "$T/cache" -name '*.tune' | head -1)
	if [ "$n" = 1 ] && [ "$(stat -c %a "$f")" = 600 ] &&
		head -1 "$f" | grep -qx 'nbcc-tune 3'; then
		ok "$d: one private entry ($(sed -n 2p "$f"))"
	else bad "$d: cache entries: $n"; ls -l "$T/cache"; fi
	# the next run, without --tune, starts tuned
	want=$(sed -n 's/^variant \(.*\)$/\1/p' "$f")
	if run $d "$T/b.csv" "$T/e2" && ! grep -q "^nbrt: tuned" "$T/e2" &&
		origin "$T/e2" | grep -q "^tuned (cache)" && same "$T/b.csv"
	then ok "$d: the next run takes the cached $want"
	else bad "$d: cached winner"; cat "$T/e2"; fi
	# another size class is not that entry's
	if "$BIN/nbrun" $G --random 3000,150 --seed 5 --device $d --time \
		-o "$T/c.csv" 2>"$T/e3" && [ "$(origin "$T/e3")" = defaults ]
	then ok "$d: another size class runs the defaults"
	else bad "$d: size class"; cat "$T/e3"; fi
	# damaged entries: a digit changed, cut short, another file's text,
	# writable by the group: each ignored, the defaults run
	cp "$f" "$T/good"
	for how in digit cut foreign perm old; do
		cp "$T/good" "$f"
		case $how in
		digit) sed -i 's/^rate \(.\)/rate 9\1/' "$f" ;;
		cut) head -c 40 "$T/good" >"$f" ;;
		foreign) printf 'variant ui=64 uj=64\n' >"$f" ;;
		perm) chmod g+w "$f" ;;
		old) sed '1s/ 3$/ 2/; s/ warps=[0-9]//' "$T/good" >"$f" ;;
		esac
		chmod u+w "$f"
		if run $d "$T/b.csv" "$T/e4" && [ "$(origin "$T/e4")" = defaults ] &&
			same "$T/b.csv"; then ok "$d: $how entry ignored"
		else bad "$d: $how entry"; cat "$T/e4"; fi
	done
done

# the split's layout as the user gave it: kept by every candidate of
# this path, and by the entry
if [ "$devs" = "host cpu" ]; then
	rm -rf "$T/cache"
	# (the host's C path, which has no split, left out: made wrong)
	if NBRT_TUNE_WRONG="path=other" run cpu "$T/s.csv" "$T/e6" \
		--tune-budget 0.2 --jsplit=4 --split-warps &&
		same "$T/s.csv" && f=$(find "$T/cache" -name '*.tune' | head -1) &&
		grep -q '^variant .* split=4 .*warps=2 path=own$' "$f" &&
		run cpu "$T/s2.csv" "$T/e7" --jsplit=4 --split-warps &&
		origin "$T/e7" | grep -q "^tuned (cache)" && same "$T/s2.csv"; then
		ok "cpu: --split-warps kept by the tuner ($(sed -n 2p "$f"))"
	else bad "cpu: --split-warps tuned"; cat "$T/e6" "$T/e7"; fi
	# bin/nbody binds device arrays, which the other path (the host's C)
	# cannot read: it is no candidate (nbody --tune crashed on it)
	rm -rf "$T/cache"
	if "$BIN/nbody" -n 97 --steps 2 --device cpu --tune --tune-budget 0.2 \
		>"$T/o8" 2>"$T/e8" && grep -q 'path=own' "$T/e8" &&
		! grep -q 'path=other' "$T/e8"; then
		ok "cpu: nbody --tune on device arrays, its own path"
	else bad "cpu: nbody --tune (exit $?)"; cat "$T/e8"; fi
fi

# a wrong candidate never wins: on the OpenCL CPU device the first
# candidate is the host's C path, on the host the OpenCL one
for d in $devs; do
	rm -rf "$T/cache"
	if NBRT_TUNE_WRONG="path=other" run $d "$T/w.csv" "$T/e5" \
		--tune-budget 0.2 &&
		grep -q "^nbrt: tuned .*, 1 rejected: results differ" "$T/e5" &&
		[ "$(origin "$T/e5")" = "tuned now" ] && same "$T/w.csv" &&
		! grep -q "path=other" "$T/cache"/*.tune; then
		ok "$d: the wrong candidate is rejected"
	else bad "$d: wrong candidate"; cat "$T/e5"; fi
done
# without an OpenCL CPU device the host has one path: the hook names the
# first unrolling the host's tuner tries instead
if [ "$devs" = host ]; then
	rm -rf "$T/cache"
	if NBRT_TUNE_WRONG="ui=4 uj=1" run host "$T/w.csv" "$T/e5" \
		--tune-budget 0.2 &&
		grep -q ", 1 rejected: results differ" "$T/e5" &&
		! grep -q "ui=4 uj=1" "$T/cache"/*.tune; then
		ok "host: the wrong candidate is rejected"
	else bad "host: wrong candidate"; cat "$T/e5"; fi
fi
finish tune
