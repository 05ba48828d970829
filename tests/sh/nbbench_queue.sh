# nbbench_queue.sh: nbbench --queue Q (queued runs on device arrays,
# issue 30) on PoCL: a row whose flags field says "--queue Q" and whose
# times are positive; bad values of Q (0, negative, junk, huge, empty)
# refused with the flag's message and status 2, no row; a queued launch
# that fails (NBRT_TEST_FAIL=queued_run) ends nbbench with status 1 and
# the failure naming the kernel and the device, no row; the host back
# end refused with the reason.  Then gpu-gravity queue=2: each float row
# beside its queued twin, labelled ", queue 2"; bin/nbody under
# NBRT_QUEUE=1 and 2 (the same energies as --no-queue; a kernel time
# under 1 alone; a failure reported).  Skipped (77)
# without an OpenCL CPU device.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
need_device cpu
scratch
shared_cache
G=dsl-examples/gravity.nbl

if "$BIN/nbbench" "$G" 200 -r 3 --queue 4 --device cpu >"$T/row" 2>"$T/err" &&
	awk -F, 'END { exit !(NR == 1 && $3 ~ /--queue 4"$/ && $7 > 0 && $8 > 0 && $9 > 0) }' "$T/row" &&
	grep -q '^nbbench: 4 queued runs a repetition: ' "$T/err"; then
	ok "a queued row"
else
	bad "--queue 4: $(cat "$T/row" "$T/err")"
fi
"$BIN/nbbench" bench/naive.cl 100 -r 1 --queue 2 --device cpu >"$T/row" 2>/dev/null &&
	grep -q '"hand-written --queue 2"' "$T/row" && ok "naive.cl queued" ||
	bad "naive.cl --queue 2: $(cat "$T/row")"

# refused MESSAGE ARG...: nbbench ARG... ends with status 2, MESSAGE on
# stderr and no row
refused() {
	_m=$1
	shift
	if "$BIN/nbbench" "$@" >"$T/row" 2>"$T/err"; then
		bad "$* accepted"
	elif [ $? = 2 ] && [ ! -s "$T/row" ] && grep -q "^nbbench: error: $_m" "$T/err"; then
		ok "refused: $*"
	else
		bad "$*: $(cat "$T/row" "$T/err")"
	fi
}
for q in 0 -1 x 3x 100001 99999999999999999999; do
	refused "bad value '$q' for --queue: expected an integer from 1 to 100000" \
		"$G" 64 -r 1 --queue "$q" --device cpu
done
refused "--queue needs a value" "$G" 64 --queue "" --device cpu

if NBRT_TEST_FAIL=queued_run "$BIN/nbbench" "$G" 64 -r 2 --queue 3 --device cpu \
	>"$T/row" 2>"$T/err"; then
	bad "a failed queued launch not reported"
elif [ $? = 1 ] && [ ! -s "$T/row" ] &&
	grep -q '^nbbench: error: a queued launch of kernel gravity: clWaitForEvents failed with CL_OUT_OF_RESOURCES .* on .*Portable Computing Language' "$T/err"; then
	ok "a failed queued launch reported"
else
	bad "NBRT_TEST_FAIL=queued_run: $(cat "$T/row" "$T/err")"
fi

if "$BIN/nbbench" "$G" 64 -r 1 --queue 2 --device host >"$T/row" 2>"$T/err"; then
	bad "--queue on the host accepted"
elif grep -q "^nbbench: error: queued runs need arrays kept in the device's memory" "$T/err" &&
	[ ! -s "$T/row" ]; then
	ok "--queue on the host refused"
else
	bad "--device host --queue 2: $(cat "$T/row" "$T/err")"
fi

# bin/nbody's leap-frog on device arrays under NBRT_QUEUE=1 and 2 (its
# first evaluation queued too; tests/sh/nbody_queue.sh tests its own
# default): the energies' bits of the steps that wait, a kernel time
# under 1 (nbody's, by nbrt_wait) and none under 2, and a queued launch's
# failure ends it with the message, at step 0 (the first evaluation's)
"$BIN/nbody" --ic cube -n 300 --steps 4 --device cpu --csv --no-queue \
	>"$T/wait.csv" 2>"$T/err" || bad "nbody: $(cat "$T/err")"
for q in 1 2; do
	if NBRT_QUEUE=$q "$BIN/nbody" --ic cube -n 300 --steps 4 --device cpu --csv >"$T/queued.csv" 2>"$T/err" &&
		[ "$(cut -d, -f1-11 "$T/wait.csv")" = "$(cut -d, -f1-11 "$T/queued.csv")" ] &&
		tail -n 1 "$T/queued.csv" | awk -F, -v q=$q '{ exit !(q == 1 ? $16 > 0 : $16 == 0) }'; then
		ok "nbody queued (NBRT_QUEUE=$q): the same energies"
	else
		bad "nbody NBRT_QUEUE=$q: $(cat "$T/wait.csv" "$T/queued.csv" "$T/err")"
	fi
done
if NBRT_QUEUE=1 NBRT_TEST_FAIL=queued_run "$BIN/nbody" --ic cube -n 300 --steps 4 \
	--device cpu --csv >/dev/null 2>"$T/err"; then
	bad "nbody: a failed queued launch not reported"
elif grep -q '^nbody: error: step 0: a queued launch of kernel gravity: clWaitForEvents failed with CL_OUT_OF_RESOURCES' "$T/err"; then
	ok "nbody: a failed queued launch reported"
else
	bad "nbody NBRT_TEST_FAIL=queued_run: $(cat "$T/err")"
fi

sh bench/run.sh gpu-gravity bin="$BIN" out="$T/out" cache="$NBRT_CACHE_DIR" \
	commit=test device=cpu ns=128 double_ns= dd_ns= rounds=1 reps=1 naive=cl \
	queue=2 >"$T/log" 2>&1 || bad "gpu-gravity queue=2: $(tail -n 3 "$T/log")"
got=$(grep -hv '^#' "$T"/out/*.txt | tail -n +2 |
	sed 's/^[0-9]*,\("[^"]*"\),"[^"]*",[a-z_]*,\("[^"]*"\),.*/\1|\2/' | tr '\n' ';')
want='"naive OpenCL"|"hand-written";"naive OpenCL, queue 2"|"hand-written --queue 2";"defaults"|"--precision=float";"defaults, queue 2"|"--precision=float --queue 2";'
# the device class and the shape its defaults row gives are the machine's:
# compared without them
strip() {
	printf '%s' "$1" |
		sed 's/ --device-class=[a-z0-9-]*//g; s/ --unroll-[ij]=[0-9]*//g'
}
[ "$(strip "$got")" = "$(strip "$want")" ] && ok "gpu-gravity queue=2 rows" ||
	bad "gpu-gravity queue=2 rows: $got"
finish nbbench_queue.sh
