# The reductions beyond the sum, counting and the indices i and j, run by
# nbrun on the host (C), on PoCL (OpenCL) and in the AMD IL interpreter
# (logsumexp in double and dd by compiler/amdil/fn.c's exp and log),
# against a brute-force double loop in awk written here.
# Inputs are small random integers, so that sums, counts and squared
# distances are exact in every precision and min/argmin meet many ties:
# ties must go to the smallest j on every back end, transform and split.
# Sizes 0, 1 and primes, NI != NJ; transforms: i-unroll 3, j-unroll 2,
# j-split 3 and 2, tiles of 4 with their tails (OpenCL), launches cut
# into pieces of NBRT_MAX_INTERACTIONS (the argmin kernel's j range is
# never cut: its launches take whole rows).  Tolerance: exact for every
# column but logsumexp, which is within 2e-4 in float (an ulp of 800 is
# 6e-5) and 1e-12 in double and dd; its argument is 800 - r2, whose exp
# overflows a double, so a sum without the running maximum would fail.
# Last, a float kernel's count past 2^24.
# tags: slow
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
status=0

cat >"$T/all.nbl" <<'NBL'
LMEM xi, yi;
BMEM xj, yj;
RMEM f, cnt, lo, hi, k, kx, lse;
CONST rc2, a0;
dx = xi - xj;
dy = yi - yj;
r2 = dx*dx + dy*dy;
other = j != i;
f += other ? dx*yj + j - 2*i : 0;
cnt += r2 < rc2 && other;
lo min= other ? r2 : 1000;
hi max= r2 - j;
k argmin= other ? r2 : 1000;
kx argmax= r2;
lse logsumexp= a0 - r2;
NBL
# the same without the indices' reductions: its launches may cut j too
grep -v 'argm' "$T/all.nbl" | sed 's/RMEM f, cnt, lo, hi, k, kx, lse/RMEM f, cnt, lo, hi, lse/' >"$T/cut.nbl"

# points N SEED: N rows of x, y in 0..4
points() {
	awk -v n="$1" -v s="$2" -v p="$3" 'BEGIN {
		srand(s); print p "x," p "y"
		for (r = 0; r < n; r++) printf "%d,%d\n", int(rand() * 5), int(rand() * 5)
	}'
}

# reference I.csv J.csv COLUMNS: the brute-force loop, in double
reference() {
	awk -F, -v cols="$3" -v rc2=2.5 -v a0=800 '
	BEGIN { ni = 0; nj = 0 }
	FNR == 1 { f++; next }
	f == 1 { xi[ni] = $1; yi[ni] = $2; ni++ }
	f == 2 { xj[nj] = $1; yj[nj] = $2; nj++ }
	END {
		print cols
		for (i = 0; i < ni; i++) {
			F = 0; C = 0; lo = "inf"; hi = "-inf"; k = -1; kx = -1
			m = "-inf"; s = 0
			for (j = 0; j < nj; j++) {
				dx = xi[i] - xj[j]; dy = yi[i] - yj[j]
				r2 = dx * dx + dy * dy
				o = j != i
				if (o) F += dx * yj[j] + j - 2 * i
				if (r2 < rc2 && o) C++
				v = o ? r2 : 1000
				if (lo == "inf" || v < lo) lo = v
				if (k < 0 || v < kv) { k = j; kv = v }
				if (hi == "-inf" || r2 - j > hi) hi = r2 - j
				if (kx < 0 || r2 > kxv) { kx = j; kxv = r2 }
				e = a0 - r2
				if (m == "-inf" || e > m) { s = (m == "-inf" ? 0 : s * exp(m - e)) + 1; m = e }
				else s += exp(e - m)
			}
			val["f"] = F; val["cnt"] = C; val["lo"] = lo; val["hi"] = hi
			val["k"] = k; val["kx"] = kx
			val["lse"] = nj ? sprintf("%.17g", m + log(s)) : "-inf"
			nc = split(cols, name, ",")
			for (c = 1; c <= nc; c++)
				printf "%s%s", val[name[c]], c < nc ? "," : "\n"
		}
	}' "$1" "$2"
}

# compare REF OUT TOL LABEL: exact but the last column (logsumexp)
compare() {
	if awk -F, -v tol="$3" '
	NR == FNR { ref[FNR] = $0; n = FNR; next }
	{
		if (!(FNR in ref)) { print "extra line " FNR; bad = 1; exit }
		split(ref[FNR], r, ",")
		for (c = 1; c <= NF; c++) {
			a = r[c]; b = $c
			if (FNR == 1 || c < NF || a ~ /inf/ || b ~ /inf/) {
				if (a != b && a + 0 != b + 0) {
					print "line " FNR " column " c ": " b ", expected " a
					bad = 1
				}
			} else if (a - b > tol || b - a > tol) {
				print "line " FNR " logsumexp " b ", expected " a
				bad = 1
			}
		}
		m = FNR
	}
	END { if (m != n) { print "lines: " m ", expected " n; bad = 1 }; exit bad }
	' "$1" "$2" >"$T/why"; then
		:
	else
		echo "FAIL $4"; head -5 "$T/why"; status=1
	fi
}

# run KERNEL LABEL NBRUN-ARGS...: KERNEL.nbl or the file KERNEL.EXT
run() {
	kern=${1%.*} label=$2
	file=$1
	[ "$file" = "$kern" ] && file=$kern.nbl
	shift 2
	# in $T, by a path relative to it: the generated code holds the
	# path, so each kernel's is the same in every run, and the shared
	# cache (both passes of make check, reruns) compiles it once
	if ! (cd "$T" && "$BIN/nbrun" "$file" --i i.csv --j j.csv \
		--const rc2=2.5 --const a0=800 -o out.csv "$@" 2>err); then
		echo "FAIL $label: nbrun failed"; cat "$T/err"; status=1
		return
	fi
	compare "$T/$kern.ref" "$T/out.csv" "$tol" "$label"
}

cl=0
have_device cpu && cl=1
[ $cl = 1 ] || echo "note: no OpenCL CPU device: the host only"
n=0
for sizes in 0,5 5,0 1,1 7,7 13,11 31,29; do
	ni=${sizes%,*} nj=${sizes#*,}
	points "$ni" $((ni * 7 + nj)) "" | sed '1s/.*/xi,yi/' >"$T/i.csv"
	points "$nj" $((nj * 3 + ni + 1)) "" | sed '1s/.*/xj,yj/' >"$T/j.csv"
	reference "$T/i.csv" "$T/j.csv" f,cnt,lo,hi,k,kx,lse >"$T/all.ref"
	reference "$T/i.csv" "$T/j.csv" f,cnt,lo,hi,lse >"$T/cut.ref"
	for p in float double dd; do
		tol=1e-12
		[ $p = float ] && tol=2e-4
		# every transform in float; one that has them all in double, dd
		fls="--unroll-i=3_--unroll-j=2_--jsplit=3"
		[ $p = float ] && fls="--unroll-i=1_--unroll-j=1 $fls --unroll-i=2_--jsplit=2"
		for fl in $fls; do
			fl=$(echo "$fl" | tr _ ' ')
			run all "c $ni,$nj $p $fl" --target c --precision=$p $fl
			n=$((n + 1))
			[ $cl = 1 ] || continue
			run all "opencl $ni,$nj $p $fl" --device cpu --precision=$p $fl
			n=$((n + 1))
		done
		# the AMD IL interpreter
		for fl in "--unroll-i=1 --unroll-j=1" \
			"--unroll-i=3 --unroll-j=2 --jsplit=3"; do
			run all "amdil $ni,$nj $p $fl" --target amdil --precision=$p $fl
			n=$((n + 1))
		done
		[ $cl = 1 ] && [ $p = float ] && { run all "opencl $ni,$nj $p tile 4" \
			--device cpu --precision=$p --unroll-i=2 --unroll-j=2 --tile=4
			n=$((n + 1)); }
		# launches cut into pieces: every reduction resumes from its result
		NBRT_MAX_INTERACTIONS=7 run cut "c $ni,$nj $p cut" --target c \
			--precision=$p --unroll-i=2
		NBRT_MAX_INTERACTIONS=7 run all "c $ni,$nj $p whole rows" \
			--target c --precision=$p --unroll-i=2
		n=$((n + 2))
		NBRT_MAX_INTERACTIONS=7 run cut "amdil $ni,$nj $p cut" \
			--target amdil --precision=$p --unroll-i=2
		n=$((n + 1))
		if [ $p = float ]; then
			[ $cl = 1 ] && { NBRT_MAX_INTERACTIONS=7 run cut \
				"opencl $ni,$nj $p cut" --device cpu --precision=$p \
				--unroll-i=2; n=$((n + 1)); }
		fi
	done
done
# from generated files (of the last sizes): the runtime reads each RMEM's reduction from the
# interface header, and keeps the argmin kernel's rows whole
tol=2e-4 # float
for ext in c cl; do
	[ $ext = cl ] && [ $cl = 0 ] && continue
	(cd "$T" && "$BIN/nbcc" all.nbl --unroll-i=2 -o all.$ext)
	NBRT_MAX_INTERACTIONS=7 run all.$ext "generated .$ext"
	n=$((n + 1))
done
# a float kernel's untyped count is a double (sema.c's count_types), so
# it counts past 2^24 (a float sum of ones stops at 16777216) on every
# back end; one declared float stays a float.  Nj = 2^24 + 5, Ni = 1 on
# the host (a second); the IL and OpenCL kernels' interfaces say double.
printf 'LMEM x;\nBMEM y;\nRMEM c;\nc += y < 1e30;\n' >"$T/big.nbl"
got=$(cd "$T" && "$BIN/nbrun" big.nbl --random 1,16777221 --device host 2>/dev/null |
	tail -n 1)
[ "$got" = 16777221 ] ||
	{ echo "FAIL count past 2^24: $got, not 16777221"; status=1; }
for tg in c opencl amdil; do
	"$BIN/nbcc" "$T/big.nbl" --target=$tg | grep -q '^.*var c RMEM double count$' ||
		{ echo "FAIL the $tg kernel's float count is not a double"; status=1; }
done
sed 's/^RMEM c;/RMEM float c;/' "$T/big.nbl" >"$T/bigf.nbl"
"$BIN/nbcc" "$T/bigf.nbl" --target=c | grep -q '^.*var c RMEM float count$' ||
	{ echo "FAIL a count declared float is not a float"; status=1; }
[ $status = 0 ] && echo "ok   a float kernel's count past 2^24: 16777221"
echo "reductions: $n runs"
exit $status
