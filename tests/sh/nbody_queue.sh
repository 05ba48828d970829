# nbody_queue.sh: bin/nbody's queued force runs, its default on an OpenCL
# device with doubles (issue 30; docs/nbody.md, "Queued steps"), on PoCL:
#   - the default gives the bits of the waited runs (--no-queue,
#     NBRT_QUEUE=0) and of the untimed queue (NBRT_QUEUE=2): the summary's
#     numbers, every snapshot (CSV and HDF5) and the log's rows but for
#     their wall time, for the leap-frog (float and double) and the
#     Hermite scheme (fixed and block steps), on a Plummer sphere of a
#     random N and seed;
#   - its timing columns are positive and finite, the kernel's time no
#     more than the force's, the force's no more than the step's where
#     every step is timed (0 for the kernel under NBRT_QUEUE=2, which
#     times nothing);
#   - one step in 8 is timed by its launches' events, the others queued
#     untimed (17 steps: 14 untimed), every one under NBRT_QUEUE=1, none
#     under NBRT_QUEUE=2;
#   - its steps are queued (a timed queued launch made to fail,
#     NBRT_TEST_FAIL=queued_run, ends the run with status 1, the kernel,
#     the OpenCL error and the device named, the step-0 snapshot alone
#     written and no log), and --no-queue, NBRT_QUEUE=0 and --no-queue
#     over NBRT_QUEUE=1 are not; the Hermite scheme's runs, which read
#     their results back each block step, never are; an untimed step's
#     launch made to fail (NBRT_TEST_FAIL=untimed_run) is reported at the
#     next full wait, the read of step 2's bodies for its snapshot, by
#     that step, status 1, snapshots 0 and 1 alone written and no log;
#   - a step that is no longer finite (dt = 3e8 blows the model up some
#     tens of steps in), whose check the step after takes, is reported by
#     its own number, the same with a snapshot every step (each step's
#     check taken before its snapshot) as with none, queued or not, and
#     its snapshot is not written, the one before it is;
#   - nor are those whose first kernel took the limit or more (1 s; put at
#     0 by the test hook NBODY_TEST_QUEUE_MAX=0, so that any kernel is over
#     it), with the bits of the queued runs, while under a limit of 1e9 s
#     they are; a bad limit is an error, exit status 1.
# Skipped (77) without an OpenCL CPU device.  Fresh seed each run;
# NBCC_TEST_SEED=S repeats one.
set -eu
. "$ROOT/tests/lib.sh"
NBODY=$BIN/nbody
scratch
test_seed nbody_queue.sh
. "$ROOT/tests/device.sh"
need_device cpu
shared_cache
N=$((SEED % 300 + 40))
echo "nbody_queue.sh: N = $N"

# run NAME 'ENV' FLAGS...: nbody --csv under ENV (VAR=V words, or none)
# into $T/NAME.csv, snapshots in $T/NAME/, the log in $T/NAME.log
run() {
	_n=$1 _e=$2
	shift 2
	# shellcheck disable=SC2086
	env $_e "$NBODY" --device cpu --seed "$SEED" -n "$N" --out "$T/$_n" \
		--log "$T/$_n.log" --csv "$@" >"$T/$_n.csv" 2>"$T/$_n.err" ||
		die "nbody $_e $*: $(cat "$T/$_n.err")"
}

# same A B WHAT: runs A and B agree but for the times
same() {
	if [ "$(cut -d, -f1-13 "$T/$1.csv")" = "$(cut -d, -f1-13 "$T/$2.csv")" ] &&
		[ "$(cut -d, -f21- "$T/$1.csv")" = "$(cut -d, -f21- "$T/$2.csv")" ] &&
		[ "$(sed 's/,[^,]*$//' "$T/$1.log")" = "$(sed 's/,[^,]*$//' "$T/$2.log")" ] &&
		[ "$(wc -l <"$T/$1.log")" -gt 2 ] &&
		diff -r "$T/$1" "$T/$2" >/dev/null; then
		ok "$3: $1 and $2 the same bits"
	else
		bad "$3: $1 and $2 differ: $(cat "$T/$1.csv" "$T/$2.csv")"
	fi
}

# timing NAME WHAT [0|sampled]: time_step, time_force positive and
# finite, and time_kernel too (0 with 0), kernel <= force <= step; but
# sampled (the default's queued steps, one in 8 timed) force <= step
# is not asked: force is then the timed steps' mean span on the device,
# which the mean step of all of them, the untimed ones spared the timed
# ones' events, need not bound
timing() {
	if awk -F, -v mode="${3:-}" 'function num(v) { return v ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ }
		NR == 2 { ok = num($14) && num($15) && num($16) && $14 > 0 && $15 > 0 &&
			(mode == "sampled" || $15 <= $14) &&
			(mode == "0" ? $16 == 0 : $16 > 0 && $16 <= $15) }
		END { exit !ok }' "$T/$1.csv"; then
		ok "$2: $1's times"
	else
		bad "$2: $1's times: $(cat "$T/$1.csv")"
	fi
}

for fmt in csv hdf5; do
	for p in float double; do
		w="leap-frog, $p, $fmt"
		set -- --steps 9 --every 3 --dt 1/128 --format $fmt --precision=$p
		run q "" "$@"
		run noq "" "$@" --no-queue
		run q0 NBRT_QUEUE=0 "$@"
		run q2 NBRT_QUEUE=2 "$@"
		run lim NBODY_TEST_QUEUE_MAX=0 "$@"
		same q noq "$w"
		same q q0 "$w"
		same q q2 "$w"
		same q lim "$w, over the limit"
		timing q "$w" sampled
		timing noq "$w"
		timing q2 "$w" 0
		timing lim "$w, over the limit"
		rm -rf "$T/q" "$T/noq" "$T/q0" "$T/q2" "$T/lim"
	done
	for ts in fixed block; do
		w="hermite, $ts steps, $fmt"
		set -- --integrator hermite --timestep $ts --steps 6 --every 2 \
			--dt 1/256 --format $fmt
		[ $ts = fixed ] || set -- "$@" --eta 0.02
		run q "" "$@"
		run noq "" "$@" --no-queue
		same q noq "$w"
		timing q "$w"
		rm -rf "$T/q" "$T/noq"
	done
done

# one queued step in 8 timed by its events (force_queue's QUEUE_SAMPLE),
# the others untimed; NBRT_QUEUE=1 times every one (the runtime's note at
# the kernel's free counts them, with the first evaluation's run, which
# only NBRT_QUEUE queues)
sampled() { # RUNS UNTIMED 'ENV'
	# shellcheck disable=SC2086
	env NBRT_VERBOSE=1 $3 "$NBODY" --device cpu --seed "$SEED" -n "$N" \
		--steps 17 --csv >"$T/s.csv" 2>"$T/s.err" ||
		die "nbody --steps 17 $3: $(cat "$T/s.err")"
	if grep -q "^nbrt: gravity.nbl: $1 queued runs ($2 untimed)" "$T/s.err"; then
		ok "17 steps${3:+ under $3}: $1 queued runs, $2 untimed"
	else
		bad "17 steps${3:+ under $3}: not $1 queued runs, $2 untimed: $(grep 'queued runs' "$T/s.err")"
	fi
}
sampled 17 14 ""
timing s "17 steps, 3 timed" sampled
sampled 18 0 NBRT_QUEUE=1
sampled 18 18 NBRT_QUEUE=2

# queued_run NAME WANT 'ENV' FLAGS...: NBRT_TEST_FAIL=queued_run makes
# every timed queued launch fail; WANT fail: the run ends at step 1 with the
# message; WANT pass: nothing was queued
queued_run() {
	_n=$1 _w=$2 _e=$3
	shift 3
	rm -rf "$T/f" "$T/f.log" "$T/f.csv"
	# shellcheck disable=SC2086
	if env NBRT_TEST_FAIL=queued_run $_e "$NBODY" --device cpu --seed "$SEED" \
		-n "$N" --steps 3 --every 1 --out "$T/f" --log "$T/f.log" --csv "$@" \
		>"$T/f.csv" 2>"$T/f.err"; then
		[ "$_w" = pass ] && [ -s "$T/f.csv" ] && [ -f "$T/f/snap_000003.csv" ] &&
			ok "$_n: not queued" || bad "$_n: a queued launch not reported"
	elif [ $? = 1 ] && [ "$_w" = fail ] && [ ! -s "$T/f.csv" ] &&
		[ ! -e "$T/f.log" ] && [ "$(ls "$T/f")" = snap_000000.csv ] &&
		grep -q '^nbody: error: step 1: a queued launch of kernel gravity: clWaitForEvents failed with CL_OUT_OF_RESOURCES .* on .*Portable Computing Language' "$T/f.err"; then
		ok "$_n: the queued launch's failure reported"
	else
		bad "$_n ($_w): $(cat "$T/f.err"; ls "$T/f" "$T")"
	fi
}
queued_run "the default" fail ""
queued_run "--no-queue" pass "" --no-queue
queued_run "NBRT_QUEUE=0" pass NBRT_QUEUE=0
queued_run "--no-queue over NBRT_QUEUE=1" pass NBRT_QUEUE=1 --no-queue
queued_run "hermite" pass "" --integrator hermite --timestep fixed --dt 1/256
queued_run "the first kernel over the limit" pass NBODY_TEST_QUEUE_MAX=0
queued_run "the first kernel under the limit" fail NBODY_TEST_QUEUE_MAX=1e9

# an untimed step's launch made to fail (NBRT_TEST_FAIL=untimed_run; step
# 1 is timed, 2 and 3 untimed): reported by the next full wait, step 2's
# bodies read back for its snapshot, with that step and the finish's
# error; status 1, snapshots 0 and 1 alone written, no log
rm -rf "$T/f" "$T/f.log" "$T/f.csv"
if NBRT_TEST_FAIL=untimed_run "$NBODY" --device cpu --seed "$SEED" -n "$N" \
	--steps 3 --every 1 --out "$T/f" --log "$T/f.log" --csv >"$T/f.csv" \
	2>"$T/f.err"; then
	bad "untimed_run: a failed untimed step not reported"
elif [ $? = 1 ] && [ ! -s "$T/f.csv" ] && [ ! -e "$T/f.log" ] &&
	[ "$(ls "$T/f" | tr '\n' ' ')" = "snap_000000.csv snap_000001.csv " ] &&
	grep -q '^nbody: error: step 2: 1 untimed queued runs, the last of kernel gravity: clFinish failed with CL_OUT_OF_RESOURCES .* on .*Portable Computing Language' "$T/f.err"; then
	ok "untimed_run: the untimed step's failure reported at step 2"
else
	bad "untimed_run: $(cat "$T/f.err"; ls "$T/f" "$T")"
fi

# blown_up NAME FLAGS...: the step a run stops at, no longer finite
# (exit status 1 and its message), into $T/NAME.step
blown_up() {
	_n=$1
	shift
	rm -rf "$T/$_n"
	if "$NBODY" --device cpu --seed "$SEED" -n "$N" --dt 3e8 --steps 1000 \
		"$@" >"$T/$_n.out" 2>"$T/$_n.err"; then
		bad "$_n: dt = 3e8 ran 1000 steps"
	elif [ $? = 1 ] && sed -n 's/^nbody: error: step \([0-9]*\): the positions or velocities are no longer finite.*/\1/p' \
		"$T/$_n.err" >"$T/$_n.step" && [ -s "$T/$_n.step" ]; then
		ok "$_n: no longer finite at step $(cat "$T/$_n.step")"
	else
		bad "$_n: $(cat "$T/$_n.err")"
	fi
}
blown_up every --every 1 --out "$T/every"
blown_up none
blown_up noq --no-queue
k=$(cat "$T/every.step")
[ "$k" = "$(cat "$T/none.step")" ] && [ "$k" = "$(cat "$T/noq.step")" ] &&
	ok "the step no longer finite: $k, checked late or at once" ||
	bad "the step no longer finite: $k, $(cat "$T/none.step"), $(cat "$T/noq.step")"
last=$(printf 'snap_%06d.csv' $((k - 1)))
[ -f "$T/every/$last" ] && [ ! -e "$T/every/$(printf 'snap_%06d.csv' "$k")" ] &&
	[ "$(ls "$T/every" | tail -n 1)" = "$last" ] &&
	ok "its snapshot not written, the one before it is" ||
	bad "snapshots around step $k: $(ls "$T/every" | tail -n 3)"

# a bad limit: refused, exit status 1, the value named
for v in x -1 inf nan 1s; do
	if NBODY_TEST_QUEUE_MAX=$v "$NBODY" --device cpu -n 40 --steps 1 \
		>"$T/b.out" 2>"$T/b.err"; then
		bad "NBODY_TEST_QUEUE_MAX=$v accepted"
	elif [ $? = 1 ] && grep -q "^nbody: error: NBODY_TEST_QUEUE_MAX='$v': the queue's limit" "$T/b.err"; then
		ok "NBODY_TEST_QUEUE_MAX=$v refused"
	else
		bad "NBODY_TEST_QUEUE_MAX=$v: $(cat "$T/b.err")"
	fi
done

# the host back end keeps its arrays in the host's memory: nothing to
# queue, and --no-queue changes nothing
"$NBODY" --device host -n 40 --steps 2 --seed "$SEED" --csv >"$T/h.csv" &&
	"$NBODY" --device host -n 40 --steps 2 --seed "$SEED" --csv --no-queue >"$T/hn.csv" &&
	[ "$(cut -d, -f1-13 "$T/h.csv")" = "$(cut -d, -f1-13 "$T/hn.csv")" ] &&
	ok "the host back end" || bad "the host back end: $(cat "$T/h.csv" "$T/hn.csv")"
finish nbody_queue.sh
