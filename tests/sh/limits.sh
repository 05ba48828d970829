# limits.sh: work without limits is refused, quickly and with the sizes.
#   - nbcc's documented limits (docs/language.md, "Limits"): the source
#     size, the token count and the operation count before and after
#     unrolling, each at the limit (accepted) and just past it (a clear
#     error); sources generated here, each compilation inside `ulimit -v`
#     (1.5 GB) and `ulimit -t` (CPU seconds, so that a loaded machine
#     cannot fail it; a wall-clock `timeout` six times longer catches a
#     hang), so the bound of the issue is what is tested;
#   - nbrun --random 2147483647,1 and nbody -n 67108864 refused before
#     they allocate (inside the same limits), with the sizes in the message;
#   - nbrun at sizes 0, 1 and primes (against a reference done in awk,
#     tolerance 1e-12 relative, double precision kernel).
# Under the sanitizers ulimit -v cannot be used (ASan reserves terabytes
# of address space): the time limit stays, longer; the issue's million
# statements are the plain pass's (below).
# tags: slow
set -u
. "$ROOT/tests/lib.sh"
scratch
# the kernels cached with every test's: this script tests no cache
shared_cache
unset NBRT_DEVICE
if [ "${NBCC_SANITIZED:-0}" = 1 ]; then
	LIMIT=90 VMEM=unlimited
else
	LIMIT=20 VMEM=1572864 # KiB: 1.5 GiB
fi

# bounded WANT PATTERN CMD...: CMD, inside the memory and time limits,
# must exit with WANT (never a signal or the timeout), and with WANT 1
# say something matching PATTERN (grep -E) on stderr.
bounded() {
	want=$1 pat=$2
	shift 2
	(ulimit -v "$VMEM" && ulimit -t "$LIMIT" &&
		exec timeout $((LIMIT * 6)) "$@") \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	what="$(basename "$1") $(echo "$*" | sed "s|$T/||g; s|$BIN/||g" |
		cut -c1-90)"
	if [ "$rc" != "$want" ]; then
		bad "$what: exit $rc, expected $want"
		head -c 600 "$T/err"
		return 1
	fi
	if [ "$want" != 0 ] && ! grep -Eq -- "$pat" "$T/err"; then
		bad "$what: no message matching '$pat'"
		head -c 600 "$T/err"
		return 1
	fi
	ok "$what"
}

# --- nbcc: the source size ------------------------------------------------
MIB16=16777216
# a valid kernel padded with a comment to exactly N bytes
padded() {
	printf 'LMEM x;\nRMEM r;\nr += x;\n//' >"$T/pad.nbl"
	head -c $(($1 - 26 - 1)) /dev/zero | tr '\0' 'c' >>"$T/pad.nbl"
	echo >>"$T/pad.nbl"
	[ "$(wc -c <"$T/pad.nbl")" = "$1" ] || bad "padded: wrong size"
}
padded $MIB16
bounded 0 '' "$NBCC" "$T/pad.nbl" --emit=ast
padded $((MIB16 + 1))
bounded 1 "nbcc: error: '.*pad\.nbl' is larger than 16 MiB" \
	"$NBCC" "$T/pad.nbl" --emit=ast
# standard input is read no further than the limit
bounded 1 "nbcc: error: '-' is larger than 16 MiB" \
	sh -c "head -c 100000000 /dev/zero | \"$NBCC\" - --emit=ast"

# --- nbcc: tokens -----------------------------------------------------------
# LMEM x, y; RMEM r; r += x; then K statements t_k = x; of 4 tokens each:
# 12 + 4K tokens, exactly the limit of 4 000 000 for K = 999 997
tokens() {
	awk -v k=999997 -v decl="$1" 'BEGIN { print "LMEM " decl ";\nRMEM r;\nr += x;";
		for (i = 0; i < k; i++) printf "t%d=x;\n", i }' >"$T/tok.nbl"
}
tokens "x, y"
bounded 0 '' "$NBCC" "$T/tok.nbl" --emit=ast
tokens "x, y, z"
bounded 1 'tok\.nbl:1000000:9: error: the source has more than 4000000 tokens' \
	"$NBCC" "$T/tok.nbl" --emit=ast
# the issue's case: 10^6 statements, to code (under the sanitizers the
# plain pass's: a flat list of statements refused at the token limit, as
# tok.nbl's just above, which both passes run; 13 CPU s under ASan)
if [ "${NBCC_SANITIZED:-0}" != 1 ]; then
	awk 'BEGIN { print "LMEM c;\nBMEM b;\nRMEM r;";
		for (i = 0; i < 1000000; i++) print "r+=c*b+" i ";" }' \
		>"$T/million.nbl"
	bounded 1 'error: the source has more than 4000000 tokens' \
		"$NBCC" "$T/million.nbl" -o "$T/k.cl"
fi
# 16 MiB of one long sum split over statements: 2 tokens a node
awk 'BEGIN { print "LMEM x;\nRMEM r;"; for (i = 0; i < 8000; i++) {
	printf "t%d=x", i; for (k = 0; k < 1000; k++) printf "+x"; print ";" }
	print "r+=t7999;" }' >"$T/sums.nbl"
bounded 1 'error: the source has more than 4000000 tokens' \
	"$NBCC" "$T/sums.nbl" -o "$T/k.cl"

# --- nbcc: operations ---------------------------------------------------------
# K statements r += y; lower to 2 operations each (a load, an
# accumulation): 250 000 of them are the limit of 500 000
accs() {
	awk -v k="$1" 'BEGIN { print "BMEM y;\nRMEM r;";
		for (i = 0; i < k; i++) print "r += y;" }' >"$T/acc.nbl"
}
accs 250000
bounded 0 '' "$NBCC" "$T/acc.nbl" --unroll-i=1 --unroll-j=1 -o "$T/k.cl"
accs 250001
bounded 1 'acc\.nbl: error: the kernel is too large: 500002 operations, more than the limit of 500000' \
	"$NBCC" "$T/acc.nbl" --unroll-i=1 --unroll-j=1 -o "$T/k.cl"
accs 260000
bounded 1 'acc\.nbl:250004:1: error: the kernel is too large: more than 500000 operations before this statement' \
	"$NBCC" "$T/acc.nbl" --unroll-i=1 --unroll-j=1 -o "$T/k.cl"
# after unrolling: 4000 statements of 2 operations, 8002 in the body
awk 'BEGIN { print "LMEM x;\nBMEM y;\nRMEM r;";
	for (i = 0; i < 4000; i++) printf "t%d = x*y + %d;\nr += t%d;\n", i, i, i }' \
	>"$T/unroll.nbl"
bounded 1 'unroll\.nbl: error: the kernel is too large for --unroll-i=64 --unroll-j=64: [0-9]+ operations' \
	"$NBCC" "$T/unroll.nbl" --unroll-i=64 --unroll-j=64 -o "$T/k.cl"
bounded 1 'too large for --unroll-i=1 --unroll-j=64' \
	"$NBCC" "$T/unroll.nbl" --unroll-i=1 --unroll-j=64 -o "$T/k.cl"
bounded 0 '' "$NBCC" "$T/unroll.nbl" --unroll-i=8 --unroll-j=4 -o "$T/k.cl"
# the largest accepted kernel, with every output form
awk 'BEGIN { print "LMEM xi;\nBMEM xj;\nRMEM r;\nt0 = xi*xj;";
	for (i = 1; i < 83000; i++) printf "t%d = t%d*xj + xi;\n", i, i - 1;
	print "r += t82999;" }' >"$T/big.nbl"
# (under the sanitizers code and stats only: --emit=explain and ir:all
# print every pass of it, 13 s there; the plain pass runs them)
emits="code explain stats ir:all"
[ "${NBCC_SANITIZED:-0}" = 1 ] && emits="code stats"
for e in $emits; do
	bounded 0 '' "$NBCC" "$T/big.nbl" --unroll-i=2 --unroll-j=2 --emit=$e
done
bounded 0 '' "$NBCC" "$T/big.nbl" --precision=dd -o "$T/k.cl"
# the rows' unrollings (OpenCL 4 x 4, C 8 x 1) would copy it too often:
# halved until it fits; a given one is refused, saying which
bounded 0 '' "$NBCC" "$T/big.nbl" -o "$T/k.cl"
if grep -q '^ \* unroll 4 1 1$' "$T/k.cl"; then ok "OpenCL row 4 x 4 halved to 4 x 1"
else bad "OpenCL row: $(grep '^ \* unroll' "$T/k.cl")"; fi
bounded 0 '' "$NBCC" "$T/big.nbl" -o "$T/k.c"
if grep -q '^ \* unroll 4 1 1$' "$T/k.c"; then ok "C row 8 x 1 halved to 4 x 1"
else bad "C row: $(grep '^ \* unroll' "$T/k.c")"; fi
bounded 1 'too large for --unroll-i=4 --unroll-j=4' "$NBCC" "$T/big.nbl" \
	--unroll-j=4 -o "$T/k.cl"
bounded 1 'too large for --unroll-i=8 --unroll-j=1' "$NBCC" "$T/big.nbl" \
	--unroll-i=8 -o "$T/k.c"

# --- nbrun and nbody: memory -------------------------------------------------
G=$ROOT/dsl-examples/gravity.nbl
. "$ROOT/tests/device.sh"
devs="host"
if have_device cpu; then
	devs="host cpu"
else
	echo "skip: no OpenCL CPU device: only the host path is tried"
fi
# the host's memory, a device's largest buffer or its whole memory: which
# refuses first follows what the device reports (PoCL's limits follow the
# machine's free memory; a fresh root once gave the last)
for d in $devs; do
	bounded 1 '(--random 2147483647,1 needs [0-9.]+ [KMGT]iB of memory .* is available|needs a device buffer of|needs [0-9.]+ [KMGT]iB of device memory; .* has [0-9.]+ [KMGT]iB)' \
		"$BIN/nbrun" "$G" --random 2147483647,1 --device $d
done
if [ "$VMEM" != unlimited ]; then
	# 6 GiB of bodies: refused whatever the machine, inside 1.5 GiB
	bounded 1 '^nbody: error: -n 67108864 needs 6 GiB of memory for the bodies alone, and [0-9.]+ [KMG]iB is available' \
		"$BIN/nbody" -n 67108864 --steps 0 --device host
else
	echo "skip nbody -n 67108864 (ulimit -v does not work under ASan)"
fi

# --- nbrun: sizes 0, 1 and primes --------------------------------------------
printf 'LMEM double xi;\nBMEM double xj;\nRMEM double r;\nr += (xi - xj)*(xi - xj) + xj;\n' \
	>"$T/sq.nbl"
col() { # col NAME N SEED: a CSV column of N values
	awk -v n="$2" -v s="$3" -v name="$1" 'BEGIN { srand(s); print name;
		for (i = 0; i < n; i++) printf "%.17g\n", rand() - 0.5 }'
}
for d in $devs; do
	for size in 0,0 0,5 5,0 1,1 1,7 7,1 13,17 31,29 127,1; do
		ni=${size%,*} nj=${size#*,}
		col xi "$ni" 1 >"$T/i.csv"
		col xj "$nj" 2 >"$T/j.csv"
		# in $T on a relative path, which the generated code holds: the
		# same in every run, so the shared cache compiles it once
		if ! (cd "$T" && timeout $((LIMIT * 6)) "$BIN/nbrun" sq.nbl \
			--i i.csv --j j.csv --device $d -o r.csv 2>err); then
			bad "nbrun $ni x $nj on $d failed"
			cat "$T/err"
			continue
		fi
		# the sum by its definition; relative 1e-12 of the largest term
		if awk -F, 'FNR == 1 { next }
			FILENAME == ARGV[1] { xi[ni++] = $1; next }
			FILENAME == ARGV[2] { xj[nj++] = $1; next }
			{ i = FNR - 2; s = 0; big = 1e-300
			  for (j = 0; j < nj; j++) {
				t = (xi[i] - xj[j])^2 + xj[j]; s += t
				big += (t < 0 ? -t : t) }
			  e = $1 - s; if (e < 0) e = -e
			  if (e > 1e-12 * big) { print "row " i ": " $1 " vs " s; bad = 1 } }
			END { if (FNR - 1 != ni) { print "rows: " FNR - 1 " of " ni; bad = 1 }
			      exit bad }' "$T/i.csv" "$T/j.csv" "$T/r.csv" &&
			[ "$(head -n 1 "$T/r.csv")" = r ]; then
			ok "nbrun $ni x $nj on $d"
		else
			bad "nbrun $ni x $nj on $d: wrong results"
		fi
	done
done

finish limits.sh
[ "$devs" != host ] || exit 77 # PoCL was not tried
