# bench.sh: the benchmark driver (bench/run.sh) runs a suite at a tiny
# size on PoCL and writes one dated result file whose header names the
# suite, the command with every parameter, the date, the device, the
# commit and the host, then the suite's rows; it refuses an unknown suite
# or parameter.  The step suite (bin/nbody) always; gpu-gravity (nbbench,
# beside the naive OpenCL kernel, two interleaved rounds) where
# bin/nbbench is built (make bench).  Skipped (77) without an OpenCL CPU
# device.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
need_device cpu
scratch
shared_cache
run() { sh bench/run.sh "$@" bin="$BIN" out="$T/out" cache="$NBRT_CACHE_DIR" commit=test; }

# refusals: status 2, a message, no file
for bad in "no-such-suite" "step nosuchkey=1" "step ns"; do
	# shellcheck disable=SC2086 # the words are the arguments
	if run $bad >/dev/null 2>"$T/err"; then
		bad "bench/run.sh $bad: accepted"
	elif grep -q '^bench/run.sh: ' "$T/err" && ! ls "$T/out" 2>/dev/null | grep -q .; then
		ok "refused: $bad"
	else
		bad "bench/run.sh $bad: $(cat "$T/err")"
	fi
done
sh bench/run.sh step help | grep -q '^  steps="50"$' && ok "help names the defaults" ||
	bad "step help: $(sh bench/run.sh step help)"

# header KEY PATTERN FILE: the header has the line "# KEY: ..." matching
header() {
	if grep -q "^# $1: $2" "$3"; then ok "$1"; else bad "$3: no '# $1: $2'"; fi
}
# the one new result file of suite $1 on PoCL
result() {
	f=$(ls "$T/out"/????-??-??-"$1"-pocl-*.txt 2>/dev/null)
	if [ "$(echo "$f" | wc -w)" = 1 ]; then ok "one file: $(basename "$f")"; else
		bad "$1: files: $(ls "$T/out")"; fi
}

run step device=cpu ns="256 512" steps=2 >"$T/log" 2>&1 || bad "step: $(tail -n 3 "$T/log")"
result step
header suite 'step: ' "$f"
header command 'sh bench/run.sh step device="cpu" ns="256 512" steps="2" before="" flags="" variants="" rounds="1"$' "$f"
header date '20[0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9] UTC$' "$f"
header device '.*(cpu, driver .*, [0-9]* compute units; --device cpu)$' "$f"
header commit 'test (given)$' "$f"
header host '.' "$f"
grep -v '^#' "$f" >"$T/rows"
if [ "$(head -n 1 "$T/rows")" = "round,nbody,n,time_step_s,time_force_s,time_kernel_s,kernel_share" ] &&
	[ "$(cut -d, -f1-3 "$T/rows" | tail -n +2 | tr '\n' ' ')" = '1,"bin/nbody",256 1,"bin/nbody",512 ' ] &&
	awk -F, 'NR > 1 && !($4 > 0 && $6 > 0 && $7 > 0 && $7 <= 1) { exit 1 }' "$T/rows"; then
	ok "step rows"
else
	bad "step rows: $(cat "$T/rows")"
fi

if [ -x "$BIN/nbbench" ]; then
	rm -f "$T/out"/*
	run gpu-gravity device=cpu ns=256 double_ns= dd_ns=128 rounds=2 reps=1 \
		naive=cl >"$T/log" 2>&1 || bad "gpu-gravity: $(tail -n 3 "$T/log")"
	result gpu-gravity
	header command 'sh bench/run.sh gpu-gravity device="cpu" ns="256" double_ns="" dd_ns="128"' "$f"
	grep -v '^#' "$f" >"$T/rows"
	# per round: naive.cl and float gravity at 256, dd gravity at 128
	got=$(tail -n +2 "$T/rows" | awk -F, '{ printf "%s %s %s %s;", $1, $2, $4, $6 }')
	want='1 "naive OpenCL" naive 256;1 "defaults" gravity 256;1 "defaults" gravity 128;2 "naive OpenCL" naive 256;2 "defaults" gravity 256;2 "defaults" gravity 128;'
	if [ "$(head -n 1 "$T/rows")" = "round,variant,$("$BIN/nbbench" --header)" ] &&
		[ "$got" = "$want" ]; then
		ok "gpu-gravity rows"
	else
		bad "gpu-gravity rows: $got"
	fi
	# the summary: each variant's median over the 2 rounds, float
	# gravity's ratio to the naive kernel
	if grep -q '^# gravity  *256 float  defaults  *2 .* [0-9.]*$' "$f" &&
		grep -q '^# naive  *256 float  naive OpenCL  *2 .* 1\.000$' "$f"; then
		ok "gpu-gravity summary"
	else
		bad "gpu-gravity summary: $(grep '^# [a-z]' "$f")"
	fi
else
	echo "no $BIN/nbbench (make bench): gpu-gravity not run"
fi
finish bench.sh
