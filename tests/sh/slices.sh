# j-slices (nb_iface.slices; runtime/launch.c, nbrt_cl.c): a launch whose
# second dimension cuts the j range, each slice's sums added up by the
# runtime's own kernels or by the kernel itself, built a second time
# beside the plain one (runtime/launch.c's nbrt_own_rule chooses;
# NBRT_OWN_SLICES=0 or 1 forces either).
# Forced on PoCL with NBRT_SLICES (the GPU rows'
# rule is measured in docs/performance.md), against the C back end on
# fresh random inputs (seed printed; NBCC_TEST_SEED=S repeats it): float
# within 1e-5 and double within 1e-12 norm-wise (bench/compare.awk), dd
# within 1e-28 as dd (tests/sh/ddcmp.c, QD).  Sizes below a tile, with
# fewer j than slices, and over several tiles; a j-split, no staging,
# j-chunked launches that add to earlier ones; and kernels whose
# reductions are not sums, which must not be sliced; and the prefetch of
# the next tile (NB_PF) that issue 30's small launches try.
# Skipped (77) without an OpenCL CPU device.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
need_device cpu
scratch
shared_cache
ddcmp
test_seed slices
seed=$SEED
# the runtime's sums first: the rule gives these small launches the own
export NBRT_OWN_SLICES=0
# check NAME PRECISION SIZE SLICES [nbrun flags...]: sliced OpenCL against
# C, two jobs of one nbrun --jobs (the OpenCL compiler starts once) with
# the variables below as they are now; judged after all are queued
nc=0
check() {
	ex=$1 p=$2 n=$3 s=$4
	shift 4
	nc=$((nc + 1))
	set -- "dsl-examples/$ex.nbl" --random "$n" --seed "$seed" \
		--precision="$p" "$@"
	env=""
	for v in NBRT_OWN_SLICES NBRT_MAX_INTERACTIONS NBRT_CL_OPTIONS; do
		eval "x=\${$v-}"
		[ -z "$x" ] || env="$env $v=$x"
	done
	# shellcheck disable=SC2086 # $env: words NAME=VALUE
	job "$T/jobs" $env NBRT_SLICES="$s" NBRT_VERBOSE=1 "$@" --device cpu \
		-o "$T/cl$nc.csv" "2>$T/err$nc"
	# shellcheck disable=SC2086
	job "$T/jobs" $env "$1" --random "$n" --seed "$seed" --precision="$p" \
		--target c -o "$T/c$nc.csv" "2>/dev/null"
	shift 6
	echo "$nc $ex $p $n $s $*" >>"$T/checks"
}
judge() {
	env -u NBRT_OWN_SLICES -u NBRT_MAX_INTERACTIONS -u NBRT_CL_OPTIONS \
		"$BIN/nbrun" --jobs "$T/jobs" 2>/dev/null || true
	while read -r i ex p n s args; do
		what="$ex $p $n slices $s $args (seed $seed)"
		if [ ! -s "$T/cl$i.csv" ] || [ ! -s "$T/c$i.csv" ]; then
			bad "$what: $(tail -n 2 "$T/err$i")"
			continue
		fi
		tolerance "$p"
		m=$($cmp "$T/c$i.csv" "$T/cl$i.csv" | sed -n 's/^max //p')
		# sliced when there are j to slice (the note), never when not a
		# sum
		got=$(sed -n 's/.*: \([0-9]*\) j-slices for a launch.*/\1/p' \
			"$T/err$i" | head -n 1)
		nj=${n#*,}
		want=$s
		[ "$nj" -lt "$s" ] && want=$nj
		case $ex in nearest | gauss_logsumexp) want="" ;; esac
		[ "$want" = 1 ] || [ "$want" = 0 ] && want=""
		if [ "${got:-}" != "$want" ]; then
			bad "$what: ${got:-no} slices noted, expected ${want:-none}"
		elif awk -v m="$m" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
			ok "$what: $m"
		else
			bad "$what: difference $m over $tol"
		fi
	done <"$T/checks"
}
for n in 1,1 7,5 97,389 300,4099; do
	for s in 3 64; do
		check gravity float $n $s
		check lennard_jones_self float $n $s
	done
	check gravity double $n 7
	check gravity dd $n 5
	check biot_savart float $n 2
done
# the j-split's own combine, then the slices'; the cache's j; chunks
check gravity float 301,5003 3 --unroll-i=2 --jsplit=4
check gravity float 301,5003 4 --tile=0
export NBRT_MAX_INTERACTIONS=65500 # chunks of a few tiles of j
check gravity float 301,1009 3
check gravity dd 131,1009 2
check lennard_jones_self double 131,1009 4
unset NBRT_MAX_INTERACTIONS
# the next tile's prefetch (NB_PF, compiler/emit_opencl.c): loads into
# registers while a tile is swept, tiles of several work groups' loads,
# j-splits, slices, remainders shorter than a tile and than a group, a
# tile that is no multiple of the group (no prefetch), chunked launches
export NBRT_CL_OPTIONS=-DNB_PF=1
check gravity float 301,5003 1 --jsplit=4 --tile=512
check gravity float 300,4099 3 --unroll-i=4 --jsplit=8 --wg=64 --tile=2048
check lennard_jones_self float 97,389 1 --tile=96 --wg=32
check biot_savart float 97,1 1 --tile=256
check gravity double 131,1009 2 --jsplit=2 --tile=256
check gravity dd 131,1009 1 --tile=256
check gravity float 97,389 1 --tile=100 --wg=64
export NBRT_MAX_INTERACTIONS=65500
check gravity float 301,1009 1 --tile=256
unset NBRT_CL_OPTIONS NBRT_MAX_INTERACTIONS
# the kernel's own sums of its slices (slices 2, NBRT_OWN_SLICES=1): the
# last work item of an index to count itself adds them up; chunks add to
# earlier ones
export NBRT_OWN_SLICES=1
for n in 97,389 300,4099; do
	check gravity float $n 3
	check gravity dd $n 5
	check lennard_jones_self double $n 64
done
check gravity float 301,5003 3 --unroll-i=2 --jsplit=4
export NBRT_CL_OPTIONS=-DNB_PF=1
check gravity double 301,5003 2 --jsplit=8 --tile=512
unset NBRT_CL_OPTIONS
export NBRT_MAX_INTERACTIONS=65500
check gravity float 301,1009 3
check gravity dd 131,1009 2
unset NBRT_OWN_SLICES NBRT_MAX_INTERACTIONS
# the rule's choice (nbrt_own_rule): a launch of fewer than 2 work groups
# a unit (300 i-elements: 1 or 2) takes the kernel's own sums, and they
# are the same bits as the runtime's sums (NBRT_OWN_SLICES=0) in float,
# double and dd
for p in float double dd; do
	what="own sums by the rule, gravity $p 300,4099 (seed $seed)"
	for o in 0 ""; do
		NBRT_OWN_SLICES=$o NBRT_SLICES=5 NBRT_VERBOSE=1 "$BIN/nbrun" \
			dsl-examples/gravity.nbl --random 300,4099 --seed "$seed" \
			--precision=$p --device cpu -o "$T/own$o.csv" 2>"$T/err$o" ||
			bad "$what: NBRT_OWN_SLICES='$o' failed: $(tail -n 2 "$T/err$o")"
	done
	if ! grep -q "5 j-slices for a launch.*the kernel's own sums" "$T/err"; then
		bad "$what: not chosen: $(grep j-slices "$T/err")"
	elif ! grep -q "5 j-slices for a launch.*the runtime's sums" "$T/err0"; then
		bad "$what: NBRT_OWN_SLICES=0 not the runtime's sums"
	elif cmp -s "$T/own.csv" "$T/own0.csv"; then
		ok "$what: the same bits as the runtime's sums"
	else
		bad "$what: differs from the runtime's sums"
	fi
done
# the lazy NB_OWN build failing (NBRT_TEST_FAIL=own_build, forced in
# runtime/cl/program.c): the run goes on with the runtime's sums, the
# same bits as NBRT_OWN_SLICES=0 (the last loop's dd), and says so
what="own build failing, gravity dd 300,4099 (seed $seed)"
if ! NBRT_TEST_FAIL=own_build NBRT_OWN_SLICES=1 NBRT_SLICES=5 NBRT_VERBOSE=1 \
	"$BIN/nbrun" dsl-examples/gravity.nbl --random 300,4099 --seed "$seed" \
	--precision=dd --device cpu -o "$T/nown.csv" 2>"$T/err"; then
	bad "$what: $(tail -n 2 "$T/err")"
elif ! grep -q "the build adding its own slices up failed (NBRT_TEST_FAIL=own_build); the runtime adds them" "$T/err" ||
	! grep -q "5 j-slices for a launch.*the runtime's sums" "$T/err"; then
	bad "$what: not noted: $(grep -e j-slices -e 'own slices' "$T/err")"
elif cmp -s "$T/nown.csv" "$T/own0.csv"; then
	ok "$what: the runtime's sums, the same bits"
else
	bad "$what: differs from the runtime's sums"
fi
# min=, argmin= and logsumexp= are not sliced, whatever is asked
check nearest float 97,389 4
check gauss_logsumexp float 97,389 4
judge
"$NBCC" dsl-examples/nearest.nbl -o "$T/n.cl"
"$NBCC" dsl-examples/gravity.nbl -o "$T/g.cl"
if ! grep -q '^ \* slices' "$T/n.cl" && grep -q '^ \* slices 2$' "$T/g.cl"; then
	ok "slices line: gravity has it, nearest not"
else
	bad "slices line in the interface headers"
fi
# and the rule's other side: a launch of 2 work groups a unit or more
# (Ni = 2048 a unit) takes the runtime's sums; the note's groups decide
units=$("$BIN/nbrun" --device cpu --device-info | sed -n 's/^compute_units //p')
ni=$((2048 * ${units:-1}))
NBRT_SLICES=2 NBRT_VERBOSE=1 "$BIN/nbrun" dsl-examples/gravity.nbl \
	--random "$ni,600" --seed "$seed" --device cpu -o "$T/big.csv" 2>"$T/err" ||
	bad "own rule at Ni = $ni: $(tail -n 2 "$T/err")"
note=$(grep 'j-slices for a launch' "$T/err" | head -n 1)
g=$(echo "$note" | sed -n 's/.*(\([0-9]*\) work groups).*/\1/p')
want="the runtime's sums"
[ "${g:-0}" -lt $((2 * ${units:-1})) ] && want="the kernel's own sums"
case $note in
*"$want") ok "own rule at Ni = $ni, $g groups on $units units: $want" ;;
*) bad "own rule at Ni = $ni on $units units: expected $want: $note" ;;
esac
# refused VAR MESSAGE VALUE...: nbrun with VAR=VALUE is an error saying
# "VAR='VALUE': MESSAGE" and leaves the output unwritten; an empty VALUE
# is the variable unset, its default, and must run
refused() {
	var=$1 msg=$2
	shift 2
	for v in "$@"; do
		rm -f "$T/out.csv"
		if env "$var=$v" "$BIN/nbrun" dsl-examples/gravity.nbl --random 50,50 \
			--device cpu -o "$T/out.csv" 2>"$T/err"; then
			[ -z "$v" ] && ok "$var='' is the default" ||
				bad "$var='$v' accepted"
		elif [ -z "$v" ]; then
			bad "$var='': $(cat "$T/err")"
		elif grep -q "$var='$v': $msg" "$T/err" && [ ! -e "$T/out.csv" ]; then
			ok "$var='$v' refused"
		else
			bad "$var='$v': $(cat "$T/err")"
		fi
	done
}
# a bad NBRT_OWN_SLICES is an error (was taken as off); so is a test's
# forced failure of no known name
refused NBRT_TEST_FAIL "a test's forced failure must be one of" own-build x
refused NBRT_OWN_SLICES "it must be 0 or 1" 2 yes -1
refused NBRT_SLICES "it must be an integer from 1 to 64" 0 65 -1 abc 3x ""
# msg.c's checked reader
refused NBRT_MAX_INTERACTIONS "it must be an integer from 1 to" \
	0 -5 1e6 0x100 12abc 99999999999999999999
# a refused value is shown escaped, by msg.c's reader and the forced
# failures' check: no control byte of it reaches the terminal
esc=$(printf 'a\033[31mb\nc')
for var in NBRT_SLICES NBRT_TEST_FAIL; do
	if env "$var=$esc" "$BIN/nbrun" dsl-examples/gravity.nbl --random 50,50 \
		--device cpu -o "$T/out.csv" 2>"$T/err"; then
		bad "$var='a<ESC>[31mb<LF>c' accepted"
	elif grep -qF "$var='a\x1b[31mb\nc'" "$T/err" &&
		! grep -q "$(printf '\033')" "$T/err" && [ "$(grep -c "$var" "$T/err")" = 1 ]; then
		ok "$var's control bytes escaped"
	else
		bad "$var='a<ESC>[31mb<LF>c': $(cat -v "$T/err")"
	fi
done
finish slices
