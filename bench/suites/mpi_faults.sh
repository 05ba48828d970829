# suites/mpi_faults.sh: the faults of issue 27 on `ranks` ranks of one
# host (docs/mpi.md, "Failures"), each of which must end every rank within
# seconds, with one clear message and a non-zero exit: the kernel build
# failing on rank 1 (its OpenCL compiler given -Werror -Drsqrt=...), rank 1
# killed (kill -9) `kill_after` seconds into a long run, arguments that
# differ on rank 1, an --ic file that differs on rank 1, no GPU for
# --device gpu (every rank's OpenCL vendors hidden but PoCL's), and
# on a GPU device two ranks on one GPU (CUDA_VISIBLE_DEVICES=0).  A row:
# fault, mpirun's status, seconds (from the kill, for the killed rank),
# the programs' error lines counted, the message (the one error line, or
# mpirun's report of the killed rank), and ok or FAIL.  mpirun runs under
# `limit` seconds (timeout); a row over `slow` seconds is FAIL.
about="faults across MPI ranks: each ends every rank within seconds, one message"
params="device ranks n kill_after slow limit"
device=gpu
ranks=2
n=65536
kill_after=5
slow=20
limit=120

# fault NAME SECONDS-OFFSET MPIRUN-ARGS...: one row
fault() {
	name=$1 off=$2
	shift 2
	t0=$(date +%s.%N)
	rc=0
	timeout "$limit" mpirun "$@" </dev/null >"$T/out" 2>"$T/err" || rc=$?
	t1=$(date +%s.%N)
	s=$(awk -v a="$t0" -v b="$t1" -v o="$off" 'BEGIN { printf "%.1f", b - a - o }')
	# the programs' own lines (PoCL's "N errors generated." and mpirun's
	# report are not): PROG: error: ...
	grep -E '^(nbody|nbrun|oneloop): error: ' "$T/err" >"$T/lines" || true
	k=$(wc -l <"$T/lines" | tr -d ' ')
	m=$(head -n 1 "$T/lines")
	[ -n "$m" ] || m=$(grep -m 1 -E 'noticed that process rank|exited on signal' "$T/err" || true)
	[ -n "$m" ] || m=$(grep -v '^ *$' "$T/err" | head -n 1)
	v=ok
	if [ "$rc" = 0 ] || [ "$rc" = 124 ] ||
		awk -v s="$s" -v l="$slow" 'BEGIN { exit !(s > l) }' ||
		{ [ "$name" != killed ] && [ "$k" != 1 ]; } ||
		{ [ "$name" = killed ] && [ "$k" -gt 1 ]; }; then
		v=FAIL
		{ echo "# $name: mpirun $*"; sed 's/^/#   /' "$T/err" | head -n 20; } >>"$T/detail"
	fi
	echo "$name,$rc,$s,$k,\"$(printf '%s' "$m" | cut -c1-200 | tr '"' "'")\",$v" |
		tee -a "$T/frows"
}

suite_run() {
	. bench/mpi.sh
	mpi_env
	[ $mp = 1 ] || { note "no mpirun: nothing to run"; return 1; }
	[ "$ranks" -ge 2 ] || { note "ranks=$ranks: the faults need 2 ranks or more"; return 1; }
	: >"$T/detail"
	: >"$T/frows"
	r1=$((ranks - 1))
	G=dsl-examples/gravity.nbl
	B="-n $n --device $device"
	echo "fault,rc,seconds,error_lines,message,verdict"
	# the OpenCL build fails on rank 1 alone (no cache: it must compile);
	# every OpenCL C compiler refuses a macro redefined under -Werror
	# (PoCL: rsqrt is its macro) or the undeclared function it calls
	# (the host C path reads no OpenCL options: no such fault there)
	[ "$device" = host ] ||
		fault build 0 -np 1 "$BIN/nbody" $B --steps 2 : \
			-np "$r1" -x NBRT_CACHE=0 -x "NBRT_CL_OPTIONS=-Werror -Drsqrt=nbcc_fault" \
			"$BIN/nbody" $B --steps 2
	# rank 1 killed mid-run: Open MPI's mpirun ends the others
	fault killed "$kill_after" -np "$ranks" sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] &&
		(sleep "$1"; kill -9 $$) & shift; exec "$0" "$@"' "$BIN/nbody" "$kill_after" \
		$B --steps 100000000
	# the ranks' inputs differ: an argument, and an --ic file of one path
	fault arguments 0 -np 1 "$BIN/nbrun" $G --random 4096,4096 --const eps2=1e-4 \
		--device "$device" -o "$T/x.csv" : -np "$r1" "$BIN/nbrun" $G --random 4096,4096 \
		--const eps2=1e-4 --device "$device" -o "$T/x.csv" --repeat 2
	mkdir -p "$T/a" "$T/b"
	"$BIN/nbody" -n 1000 --steps 0 --device host --out "$T/a" >/dev/null 2>&1
	"$BIN/nbody" -n 1000 --steps 0 --seed 2 --device host --out "$T/b" >/dev/null 2>&1
	fault bodies 0 -np 1 -wdir "$T/a" "$BIN/nbody" --ic snap_000000.csv --steps 1 --device "$device" : \
		-np "$r1" -wdir "$T/b" "$BIN/nbody" --ic snap_000000.csv --steps 1 --device "$device"
	# a node without a GPU: the vendors directory holds PoCL's file alone
	# (where there is one), and no OCL_ICD_FILENAMES adds another
	mkdir -p "$T/vendors"
	cp /etc/OpenCL/vendors/*pocl*.icd "$T/vendors/" 2>/dev/null || true
	fault no_gpu 0 -np "$ranks" env -u OCL_ICD_FILENAMES OCL_ICD_VENDORS="$T/vendors" \
		"$BIN/nbody" -n 4096 --steps 1 --device gpu
	# fewer GPUs than ranks: every rank is shown the first GPU alone
	if [ "$(info type)" = gpu ]; then
		fault one_gpu 0 -np "$ranks" -x CUDA_VISIBLE_DEVICES=0 -x NBRT_SHARE_DEVICES= \
			"$BIN/nbody" $B --steps 1
	fi
	[ -s "$T/detail" ] && cat "$T/detail"
	note "a fault ends well (ok) with a non-zero status, within $slow s, and one error line of the programs (none for the killed rank: mpirun's report)"
	! grep -q ',FAIL$' "$T/frows"
}
