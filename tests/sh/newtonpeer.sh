# bench/newtonpeer on PoCL: the hand-written dense Newton kernels of
# issue 25 (bench/newtonpeer.cl, its portable rotation through local
# memory) at N not a multiple of the blocks, on fresh random bodies
# (NBCC_TEST_SEED), float and double, blocks of one and several work
# items' worth (odd and even block counts: plan_make's half round),
# one and several rounds a group, rounds in several launches:
# every row within the program's tolerance of its double reference (8
# sqrt(N) units of rounding of the terms' summed sizes, at least 1e-5
# float, 1e-13 double) and the pairs kernel's bytes the same run to run
# (the program's exit status); a bad W:U refused.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
need_device cpu
scratch
test_seed newtonpeer.sh
export NBCC_TEST_SEED=$SEED
cd "$ROOT" || exit 1
cc -std=c11 -O2 -Wall -Wextra -Werror -fopenmp -o "$T/np" \
	bench/newtonpeer.c -lOpenCL -lm 2>"$T/err" ||
	die "newtonpeer does not build: $(cat "$T/err")"
run() {
	if "$T/np" "$@" >"$T/out" 2>"$T/err"; then
		r=$(grep -c '^pairs,' "$T/out")
		[ "$r" -ge 1 ] && ok "newtonpeer $*: $r pairs rows, errors $(awk -F, \
			'/^(every|pairs),/ { printf "%s ", $9 }' "$T/out")" ||
			bad "newtonpeer $*: no rows: $(cat "$T/out")"
	else
		bad "newtonpeer $*: $(cat "$T/err" "$T/out")"
	fi
}
run 1000 1 cpu float 32:1 64:2:3
export NEWTONPEER_ROUNDS=2 # rounds a launch: several launches
run 777 1 cpu double 32:4:3 64:1
grep -q ' rounds, 2 a launch' "$T/out" && ok "launches of 2 rounds" ||
	bad "NEWTONPEER_ROUNDS=2 not taken: $(grep '^# pairs' "$T/out")"
unset NEWTONPEER_ROUNDS
"$T/np" 1000 1 cpu float 48:2 >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "bad W:U" "$T/err" && ok "W = 48 refused" ||
	bad "W = 48 not refused: $(cat "$T/err")"
finish
