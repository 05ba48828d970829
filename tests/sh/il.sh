# il.sh: nbcc's AMD IL interpreter (il/il.h) and the runtime's amdil
# device, end to end (tests/cases/il holds the interpreter's cases as
# data: programs with their inputs beside what bin/ilrun prints):
#   - the hand-written ABI kernels tests/cases/il/gravity.il (NI = 2) and
#     gravity44.il (NI = NJ = 4, a tail) through bin/nbrun, bit for bit
#     against the C back end at the same unrolling, one launch and cut
#     into many (accum); 1000 x 1000 timed (printed, not judged);
#   - the device: --device amdil --device-info, errors with the file and
#     line, the help texts; nbrun and nbody on a .nbl with --target
#     amdil once nbcc writes AMD IL (skipped while the back end refuses).
set -u
. "$ROOT/tests/lib.sh"
ILRUN=$BIN/ilrun
NBRUN=$BIN/nbrun
D=$ROOT/tests/cases/il
scratch
shared_cache
unset NBRT_DEVICE NBRT_MAX_INTERACTIONS

# --- the ABI kernels through nbrun, against the C back end -----------------
cd "$T" || exit 1
G=$ROOT/dsl-examples/gravity.nbl
# Bit for bit against the C back end's exact mode (--no-approx): by
# default its float kernels take rsqrt from an estimate and a Newton step,
# the interpreter computes 1/sqrt correctly rounded, as --no-approx does.
same() { # label, then the nbrun arguments after the kernel: IL vs C
	label=$1
	il=$2
	flags=$3
	shift 3
	if ! "$NBRUN" "$D/$il" "$@" >il.csv 2>il.err; then
		bad "$label: nbrun $il failed:"
		cat il.err
	elif ! "$NBRUN" "$G" --target c --no-approx $flags "$@" >c.csv 2>c.err; then
		bad "$label: the C back end failed:"
		cat c.err
	elif ! cmp -s il.csv c.csv; then
		bad "$label: $il differs from the C back end ($flags)"
		diff il.csv c.csv | head -6
	else
		ok
	fi
}
for n in "1,1" "3,2" "64,5" "129,131" "1000,1003"; do
	same "gravity $n" gravity.il --unroll-i=2 --random "$n" --seed 11
	same "gravity44 $n" gravity44.il "--unroll-i=4 --unroll-j=4" \
		--random "$n" --seed 12
done
# launches of 300 interactions: j cut into pieces, results accumulated
# (Ni at most 16 NI, so that the host's launch plan is the same)
export NBRT_MAX_INTERACTIONS=300
same "gravity, many launches" gravity.il --unroll-i=2 --random 30,203 --seed 13
same "gravity44, many launches" gravity44.il "--unroll-i=4 --unroll-j=4" \
	--random 61,202 --seed 14
unset NBRT_MAX_INTERACTIONS
# Nj = 0 stores zeros
if "$NBRUN" "$D/gravity.il" --random 3,0 --seed 1 >z.csv 2>z.err &&
	[ "$(sed 1d z.csv | sort -u)" = "0,0,0,0" ]; then ok; else
	bad "gravity.il with Nj = 0:"; cat z.csv z.err; fi
# the speed of 1000 x 1000 on one core, and on all
for th in 1 ""; do
	if OMP_NUM_THREADS=$th "$NBRUN" "$D/gravity44.il" --random 1000,1000 \
		--seed 1 --time >/dev/null 2>t.err; then
		ok
		echo "il.sh: gravity44.il, 1000 x 1000, ${th:-all} core(s):" \
			"$(grep '^time:' t.err)"
	else
		bad "timing run:"; cat t.err
	fi
done

# --- the device ----------------------------------------------------------
if "$NBRUN" --device amdil --device-info >info 2>&1 &&
	[ "$(cat info)" = "device AMD IL interpreter (nbcc)
type interpreter" ]; then ok; else bad "--device-info:"; cat info; fi
# refused LABEL PATTERN ARGS: nbrun ARGS fails with PATTERN on stderr
refused() {
	label=$1
	pat=$2
	shift 2
	if "$NBRUN" "$@" >out 2>err; then
		bad "$label: exit 0"
	elif grep -q "$pat" err; then
		ok
	else
		bad "$label:"
		cat err
	fi
}
# kernels the reader or the ABI refuses: the file and line in the message
sed 's/^imin r1.xy, r0.xz, r0.y$/imin r1.xy, r0.xz, r99.y/' \
	"$D/gravity.il" >broken.il
refused "a kernel reading r99" "^nbrun: error: broken.il:5[0-9]: error: r99.y read before it is written (work item 0)$" \
	broken.il --random 3,3
sed 's/^dcl_cb cb1\[1\]$/dcl_cb cb1[2]/' "$D/gravity.il" >abi.il
refused "a kernel with cb1[2]" "the kernel has 1 CONST, so the AMD IL kernel ABI has dcl_cb cb1\[1\], not 2 entries" \
	abi.il --random 3,3
sed 's/^\( *\)sub r5.w, r5.w, r11.y$/\1sub_sat r5.w, r5.w, r11.y/' \
	"$D/gravity.il" >op.il
refused "a kernel with sub_sat" "^nbrun: error: op.il:[0-9]*: error: unknown opcode 'sub_sat'$" \
	op.il --random 3,3
# a C kernel offered to the interpreter, and the other way round
"$BIN/nbcc" "$G" -o g.c 2>/dev/null
refused "a C kernel on the interpreter" "g.c is a target c kernel, which runs on the host (device host), but AMD IL interpreter (nbcc) runs target amdil kernels" \
	g.c --device amdil --random 3,3
refused "an IL kernel on the host" "is a target amdil kernel, which runs on the AMD IL interpreter (device amdil), but host" \
	"$D/gravity.il" --device host --random 3,3
if "$NBRUN" --help | grep -qi "not implemented\|unimplemented"; then
	bad "nbrun --help calls something unimplemented"
elif "$NBRUN" --help | grep -q "amdil: in nbcc's" &&
	"$ILRUN" --help | grep -q "print uav(N) TYPE COUNT"; then ok; else
	bad "the help texts"; fi
# nbody through the interpreter on the hand-written kernel
if "$BIN/nbody" --kernel "$D/gravity.il" -n 100 --steps 2 --csv >nb.csv \
	2>nb.err && grep -q ',amdil,' nb.csv; then ok; else
	bad "nbody --kernel gravity.il:"; cat nb.csv nb.err; fi

# --- nbcc's own AMD IL, when it writes it ------------------------------
if "$BIN/nbcc" "$G" --target=amdil -o g.il 2>/dev/null; then
	# the emitter may use rsq_vec, 1 ulp from the C back end's 1/sqrt:
	# a tolerance of the column's largest value
	for p in float double; do
		"$NBRUN" "$G" --target amdil --precision=$p --random 300,301 \
			--seed 5 >a.csv 2>a.err &&
			"$NBRUN" "$G" --target c --precision=$p --random 300,301 \
			--seed 5 >c.csv 2>c.err
		if [ $? != 0 ]; then
			bad "--target amdil --precision=$p:"; cat a.err c.err
		elif awk -F, -v tol="$([ $p = float ] && echo 1e-4 || echo 1e-12)" '
			FNR == 1 { f++; next }
			f == 1 { for (k = 1; k <= NF; k++) a[FNR, k] = $k; next }
			{
				for (k = 1; k <= NF; k++) {
					b = $k < 0 ? -$k : $k
					if (b > s[k]) s[k] = b
					d[FNR, k] = a[FNR, k] - $k
				}
				n = FNR; nf = NF
			}
			END {
				for (i = 2; i <= n; i++)
					for (k = 1; k <= nf; k++) {
						e = d[i, k] < 0 ? -d[i, k] : d[i, k]
						if (e > tol * s[k]) exit 1
					}
			}' a.csv c.csv; then ok; else
			bad "--target amdil --precision=$p differs from c"; fi
	done
	if "$NBRUN" g.il --random 50,50 --seed 3 >/dev/null 2>g.err; then ok; else
		bad "nbrun g.il:"; cat g.err; fi
	if "$BIN/nbody" --target=amdil -n 64 --steps 1 >/dev/null 2>nb.err; then
		ok; else bad "nbody --target=amdil:"; cat nb.err; fi
else
	echo "il.sh: nbcc writes no AMD IL yet: nbrun --target amdil on a .nbl not tried"
fi

# UAVs grown past the memory the process may use: refused by size before
# realloc (many lines of a GiB of zeros each reached the OOM killer);
# under ulimit -v, which ASan's reservations rule out
if [ "${NBCC_SANITIZED:-0}" != 1 ]; then
	printf ';! uav(0) zero 1073741824\n;! uav(0) zero 1073741824\nil_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\nend\n' >big.il
	if (ulimit -v 1500000 && "$ILRUN" big.il) >/dev/null 2>big.err; then
		bad "ilrun: 2 GiB of UAV under ulimit -v 1.5 GB ran"
	elif grep -q "big.il:2: error: uav(0) would grow to 2 GiB, more than the .* this process may still use" big.err; then
		ok
	else
		bad "ilrun: 2 GiB of UAV: $(cat big.err)"
	fi
fi

finish il.sh
