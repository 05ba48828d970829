# bin/nbrun end to end, on the host (--target c) and on PoCL's OpenCL CPU
# device (--device cpu):
#   - gravity (dsl-examples/gravity.nbl) on fresh random CSV files (seed
#     printed; NBCC_TEST_SEED=S repeats it) against a direct double sum done
#     here in awk.  Tolerance, per column, of the largest sum of the
#     terms' magnitudes (a cancelling sum keeps its rounding error):
#     float 1e-5, double 1e-13, dd 1e-13 (the awk reference is double);
#   - Ni or Nj of 0 and 1; every accepted CSV quirk; standard input; -o;
#   - output digits round-trip: results fed back through a copying kernel
#     come out as the same text, for float, double and dd;
#   - one particle file for both sides: --ij FILE gives what the same file
#     as --i and --j gives, and --map VAR=COL what renamed columns give;
#   - --random (values in (0,1), seeds reproducible, one seed the same
#     values in every precision), --time's lines (the
#     variant that ran, the time; with --repeat R the median, min, max);
#   - kernels nbcc compiled beforehand (.c, .cl).
# Its bad inputs, with their exact messages, are tests/cases/nbrun.
# Needs PoCL's OpenCL CPU device: skipped (exit 77) without one.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
need_device cpu
NBRUN=$BIN/nbrun
G=$ROOT/dsl-examples/gravity.nbl
scratch
shared_cache
unset NBRT_DEVICE
# PoCL as a user has it: its launch-shape specializations on (tests/run.sh
# turns them off for the other tests)
unset POCL_WORK_GROUP_SPECIALIZATION
test_seed nbrun.sh

# gen SEED N COLS: a CSV of N random rows; names starting with m (masses)
# get values in [0.1, 1), the others [0, 1).
gen() {
	awk -v seed="$1" -v n="$2" -v cols="$3" 'BEGIN {
		srand(seed)
		k = split(cols, c, ",")
		print cols
		for (i = 0; i < n; i++) {
			line = ""
			for (j = 1; j <= k; j++) {
				v = c[j] ~ /^m/ ? 0.1 + 0.9 * rand() : rand()
				line = line (j > 1 ? "," : "") sprintf("%.17g", v)
			}
			print line
		}
	}'
}

# ref EPS2 I J [ABS]: gravity by the definition, in double, columns by
# name; ABS gets the sums of the terms' magnitudes, the scale of each
# value's rounding error (a sum that cancels is small, its error is not).
ref() {
	awk -F, -v eps2="$1" -v abs="${4:-/dev/null}" '
	BEGIN { ni = nj = 0 } # numbers, not "", as subscripts
	FNR == 1 { for (k = 1; k <= NF; k++) col[FILENAME, $k] = k; next }
	FILENAME == ARGV[1] {
		xi[ni] = $col[FILENAME, "xi"]; yi[ni] = $col[FILENAME, "yi"]
		zi[ni] = $col[FILENAME, "zi"]; ni++; next
	}
	{
		xj[nj] = $col[FILENAME, "xj"]; yj[nj] = $col[FILENAME, "yj"]
		zj[nj] = $col[FILENAME, "zj"]; mj[nj] = $col[FILENAME, "mj"]; nj++
	}
	END {
		print "ax,ay,az,pot"
		for (i = 0; i < ni; i++) {
			ax = ay = az = pot = sx = sy = sz = 0
			for (j = 0; j < nj; j++) {
				dx = xj[j] - xi[i]; dy = yj[j] - yi[i]; dz = zj[j] - zi[i]
				rinv = 1 / sqrt(eps2 + dx * dx + dy * dy + dz * dz)
				ax += mj[j] * rinv^3 * dx; ay += mj[j] * rinv^3 * dy
				az += mj[j] * rinv^3 * dz; pot -= mj[j] * rinv
				sx += mj[j] * rinv^3 * (dx < 0 ? -dx : dx)
				sy += mj[j] * rinv^3 * (dy < 0 ? -dy : dy)
				sz += mj[j] * rinv^3 * (dz < 0 ? -dz : dz)
			}
			printf "%.17g,%.17g,%.17g,%.17g\n", ax, ay, az, pot
			if (i == 0) print "ax,ay,az,pot" > abs
			printf "%.17g,%.17g,%.17g,%.17g\n", sx, sy, sz, -pot > abs
		}
	}' "$2" "$3"
}

# near TOL GOT REF [ABS]: same header and rows; every value finite and
# within TOL times its column's scale: the largest |reference value|, or
# with ABS (from ref) the largest sum of the terms' magnitudes.  Prints the
# worst.
near() {
	awk -F, -v tol="$1" '
	FNR == 1 { hdr[++nfile] = $0; next }
	nfile == 1 { na++; for (k = 1; k <= NF; k++) a[na, k] = $k; next }
	nfile == 3 {
		if (!absrows++) for (k = 1; k <= NF; k++) scale[k] = 0
		for (k = 1; k <= NF; k++) if ($k > scale[k]) scale[k] = $k
		next
	}
	{
		nb++; nf = NF
		for (k = 1; k <= NF; k++) {
			b[nb, k] = $k; s = $k < 0 ? -$k : $k
			if (s > scale[k]) scale[k] = s
		}
	}
	END {
		if (hdr[1] != hdr[2]) { print "header " hdr[1] " != " hdr[2]; exit 1 }
		if (na != nb) { print na " rows, expected " nb; exit 1 }
		worst = 0
		for (i = 1; i <= na; i++)
			for (k = 1; k <= nf; k++) {
				x = a[i, k]
				if (x !~ /^-?[0-9.]+(e[-+][0-9]+)?$/) {
					print "row " i ": not a finite number: " x; exit 1
				}
				d = x - b[i, k]; d = d < 0 ? -d : d
				e = scale[k] > 0 ? d / scale[k] : d
				if (e > worst) worst = e
				if (d > tol * scale[k]) {
					print "row " i " col " k ": " x " vs " b[i, k]; bad = 1
				}
			}
		printf "worst error %.3g of the column scale (tolerance %g)\n", worst, tol
		exit bad
	}' "$2" "$3" ${4:+"$4"}
}

cd "$T" || exit 1
gen "$SEED" 7 xi,yi,zi >i.csv
gen "$((SEED + 1))" 13 xj,yj,zj,mj >j.csv
ref 0.01 i.csv j.csv ref.abs >ref.csv

# --- gravity against the reference ---------------------------------------
tol() { case $1 in float) echo 1e-5 ;; *) echo 1e-13 ;; esac; }
for dev in "--target c" "--device cpu"; do
	for p in float double dd; do
		what="gravity $p $dev"
		# shellcheck disable=SC2086
		if ! "$NBRUN" "$G" --i i.csv --j j.csv --const eps2=0.01 \
			--precision $p $dev >out.csv 2>err; then
			bad "$what: exit status"; cat err; continue
		fi
		[ -s err ] && { bad "$what: messages"; cat err; }
		if near "$(tol $p)" out.csv ref.csv ref.abs >cmp; then ok; else
			bad "$what"; fi
		echo "$what: $(tail -n 1 cmp)"
		cp out.csv "g-$p-${dev##* }.csv"
	done
done

# the compiler flags reach the compiler, split either way
if "$NBRUN" "$G" --i i.csv --j j.csv --const=eps2=0.01 --precision=double \
	--device=cpu --unroll-i 3 --unroll-j=2 --jsplit 2 >out.csv &&
	near 1e-13 out.csv ref.csv ref.abs >cmp; then ok; else
	bad "gravity with unrolling and a j-split"; cat cmp; fi

# --- sizes 0 and 1 -------------------------------------------------------
head -n 1 i.csv >i0.csv
head -n 1 j.csv >j0.csv
head -n 2 i.csv >i1.csv
head -n 2 j.csv >j1.csv
for dev in "--target c" "--device cpu"; do
	# shellcheck disable=SC2086
	"$NBRUN" "$G" --i i0.csv --j j.csv --const eps2=0.01 $dev >out.csv
	if [ $? = 0 ] && [ "$(cat out.csv)" = "ax,ay,az,pot" ]; then ok; else
		bad "Ni = 0 $dev: not the header alone"; fi
	# shellcheck disable=SC2086
	"$NBRUN" "$G" --i i.csv --j j0.csv --const eps2=0.01 $dev >out.csv
	if [ $? = 0 ] && [ "$(sed 1d out.csv | sort -u)" = "0,0,0,0" ] &&
		[ "$(wc -l <out.csv)" = 8 ]; then ok; else
		bad "Nj = 0 $dev: not 7 rows of zeros"; fi
	for pair in "i1 j1" "i1 j" "i j1"; do
		set -- $pair
		ref 0.01 "$1.csv" "$2.csv" r.abs >r.csv
		# shellcheck disable=SC2086
		if "$NBRUN" "$G" --i "$1.csv" --j "$2.csv" --const eps2=0.01 \
			--precision double $dev >out.csv && near 1e-13 out.csv r.csv \
			r.abs >cmp; then ok; else bad "$pair $dev"; cat cmp; fi
	done
done

# --- CSV quirks, standard input, -o --------------------------------------
# BOM, comments, CRLF, blanks, quotes, columns reordered, blank lines
awk -F, 'NR == 1 { printf "\357\273\277# made by nbrun.sh\r\n\r\n" }
	{ printf "%s , \"%s\",%s\r\n", $3, $1, $2 }
	NR == 3 { print "  # a comment" }
	END { print ""; print "" }' i.csv >quirky.csv
"$NBRUN" "$G" --i quirky.csv --j j.csv --const eps2=0.01 --target c >q.csv
if cmp -s q.csv g-float-c.csv; then ok; else
	bad "quirky CSV: results differ"; diff q.csv g-float-c.csv | head; fi
"$NBRUN" "$G" --i - --j j.csv --const eps2=0.01 --target c <i.csv >s.csv
if cmp -s s.csv g-float-c.csv; then ok; else bad "--i - (stdin)"; fi
"$NBRUN" "$G" --i i.csv --j j.csv --const eps2=0.01 --target c -o o.csv
if cmp -s o.csv g-float-c.csv; then ok; else bad "-o"; fi
echo keep >o.csv
"$NBRUN" "$G" --i not_there.csv --j j.csv --const eps2=0.01 --target c \
	-o o.csv 2>/dev/null
if [ $? = 1 ] && [ "$(cat o.csv)" = keep ] &&
	[ -z "$(ls | grep o.csv.tmp)" ]; then ok; else
	bad "a failed run touched -o's file"; fi

# --- one particle file for both sides: --ij, --map -------------------------
# p.csv: x,y,z,m, one row per particle.  The same rows as i- and
# j-elements, four ways: --ij with --map, --i and --j the same file with
# --map, the columns renamed into two files, and renamed into one file
# for --ij alone; the results must be the same bytes.
gen "$((SEED + 2))" 11 x,y,z,m >p.csv
M=xi=x,yi=y,zi=z,xj=x,yj=y,zj=z,mj=m
awk -F, -v OFS=, 'NR == 1 { print "xi,yi,zi"; next } { print $1, $2, $3 }' \
	p.csv >pi.csv
awk -F, -v OFS=, 'NR == 1 { print "xj,yj,zj,mj"; next } { print $1, $2, $3, $4 }' \
	p.csv >pj.csv
awk -F, -v OFS=, 'NR == 1 { print "mj,xi,yi,zi,xj,yj,zj"; next }
	{ print $4, $1, $2, $3, $1, $2, $3 }' p.csv >pij.csv
for dev in "--target c" "--device cpu"; do
	for p in float dd; do
		what="--ij, --map $p $dev"
		run() {
			# shellcheck disable=SC2086
			"$NBRUN" "$G" --const eps2=0.01 --precision $p $dev "$@"
		}
		if run --ij p.csv --map "$M" >a.csv && run --i p.csv --j p.csv \
			--map "$M" >b.csv && run --i pi.csv --j pj.csv >c.csv &&
			run --ij pij.csv >d.csv && [ "$(wc -l <a.csv)" = 12 ]; then
			if cmp -s a.csv b.csv; then ok; else
				bad "$what: --ij differs from --i F --j F"; fi
			if cmp -s a.csv c.csv; then ok; else
				bad "$what: --map differs from renamed columns"; fi
			if cmp -s c.csv d.csv; then ok; else
				bad "$what: --ij of named columns differs"; fi
		else
			bad "$what: a run failed"
		fi
	done
done
# one column into variables of two types: xi float, xj double
cat >mixed.nbl <<'EOF'
LMEM float xi;
BMEM double xj;
RMEM double r;
r += xj - xi;
EOF
printf 'x\n0.1\n' >x.csv
printf 'xi\n0.1\n' >xi.csv
printf 'xj\n0.1\n' >xj.csv
"$NBRUN" mixed.nbl --target c --ij x.csv --map xi=x,xj=x >a.csv
"$NBRUN" mixed.nbl --target c --i xi.csv --j xj.csv >b.csv
if cmp -s a.csv b.csv && [ "$(sed -n 2p a.csv)" != 0 ]; then ok; else
	bad "--map of one column to float and double"; cat a.csv b.csv; fi

# --- output digits round-trip ---------------------------------------------
# r = x * 1 over one j is x exactly, so text written by nbrun, read back
# and written again must be the same text.
cat >copy.nbl <<'EOF'
LMEM ax, ay, az, pot;
BMEM one;
RMEM cx, cy, cz, cpot;
cx += ax*one;
cy += ay*one;
cz += az*one;
cpot += pot*one;
EOF
printf 'one\n1\n' >one.csv
for p in float double dd; do
	for dev in c cpu; do
		[ $dev = c ] && flag="--target c" || flag="--device cpu"
		# shellcheck disable=SC2086
		"$NBRUN" copy.nbl --precision $p $flag --i "g-$p-$dev.csv" \
			--j one.csv >c.csv
		if [ "$(sed 1d c.csv)" = "$(sed 1d "g-$p-$dev.csv")" ]; then ok
		else bad "$p $dev: digits do not round-trip"
			diff c.csv "g-$p-$dev.csv" | head -5; fi
	done
done
# dd: 32 significant digits (fewer only where trailing zeros went: allow
# 25), more where 32 do not identify the dd
if awk -F, 'NR > 1 { for (k = 1; k <= NF; k++) {
		m = $k; sub(/e.*/, "", m); gsub(/[-.]/, "", m); sub(/^0+/, "", m)
		if (length(m) < 25) { print "short: " $k; bad = 1 }
		if (length(m) > most) most = length(m) } }
	END { if (most < 32) print "no value has 32 digits"
		exit bad || most < 32 }' g-dd-c.csv; then ok; else bad "dd digits"; fi

# --- --random and --time ----------------------------------------------------
cat >probe.nbl <<'EOF'
LMEM x;
BMEM y;
RMEM rx, ry;
rx += x;
ry += y;
EOF
for p in float double dd; do
	# Nj = 1: rx is x itself, ry is y; all in (0,1)
	"$NBRUN" probe.nbl --precision $p --target c --random 200,1 \
		--seed "$SEED" >r.csv 2>err
	if awk -F, 'NR > 1 { if (!($1 > 0 && $1 < 1 && $2 > 0 && $2 < 1)) bad = 1
		seen[$1]++ } END { exit bad || NR != 201 || length(seen) < 190 }' \
		r.csv; then ok; else bad "--random $p: values not in (0,1)"; fi
	cp r.csv r_$p.csv
done
# one seed, one set of values: double's exactly dd's high parts (a dd
# printed and read back as a double is its high part), float's them
# rounded to float (relative 2^-24) and printed to 9 digits (up to 5e-9
# more): 7e-8
if awk -F, 'FNR == 1 { f++; next }
	f == 1 { d[FNR] = $1; e[FNR] = $2; next }
	f == 2 { if ($1 + 0 != d[FNR] || $2 + 0 != e[FNR]) bad = 1; next }
	{ if ((d[FNR] - $1) / d[FNR] > 7e-8 || ($1 - d[FNR]) / d[FNR] > 7e-8 ||
	      (e[FNR] - $2) / e[FNR] > 7e-8 || ($2 - e[FNR]) / e[FNR] > 7e-8)
		bad = 1 }
	END { exit bad || f != 3 }' r_double.csv r_dd.csv r_float.csv &&
	! cmp -s r_double.csv r_dd.csv
then ok; else bad "--random: one seed gave precisions different values"; fi
"$NBRUN" "$G" --target c --random 5,7 --seed 42 >r1.csv 2>e1
"$NBRUN" "$G" --target c --random 5,7 --seed 42 >r2.csv 2>e2
if cmp -s r1.csv r2.csv && cmp -s e1 e2 && [ "$(wc -l <r1.csv)" = 6 ] &&
	grep -q '^nbrun: --random 5,7 --seed 42$' e1 &&
	grep -q '^nbrun: random --const eps2=0\.[0-9]*$' e1; then ok; else
	bad "--random with --seed: not reproducible or not reported"; cat e1; fi
"$NBRUN" "$G" --device cpu --random 9,4 --precision dd >r3.csv 2>e3
s=$(sed -n 's/^nbrun: --random 9,4 --seed \([0-9]*\)$/\1/p' e3)
c=$(sed -n 's/^nbrun: random --const \(.*\)$/\1/p' e3)
if [ -n "$s" ] && [ -n "$c" ] &&
	"$NBRUN" "$G" --device cpu --random 9,4 --precision dd --seed "$s" \
		--const "$c" >r4.csv 2>/dev/null && cmp -s r3.csv r4.csv; then ok
else bad "--random: the reported seed and CONST do not repeat the run"; fi
"$NBRUN" "$G" --target c --random 0,0 --time >r.csv 2>e
if [ "$(cat r.csv)" = "ax,ay,az,pot" ]; then ok; else bad "--random 0,0"; fi
# --time: the variant (kernel, source, target, device, unroll, j-split,
# the compiler's flags, build options), then the time; --repeat R adds the
# median's company, min <= median <= max
for dev in "--target c" "--device cpu"; do
	case $dev in
	# the unrolling is the defaults table's row for the device's class
	# (compiler/defaults.c), which the flags name
	*c) want='target c, device host C .*, unroll [0-9]+ x [0-9]+, jsplit 1, flags --precision=float --unroll-i=[0-9]+( --unroll-j=[0-9]+)? --device-class=host-[a-z0-9]+, build options -funsafe-math-optimizations -ffinite-math-only -fno-associative-math -fsigned-zeros, wg 0, tile 0, chosen by defaults' ;;
	*) want='target opencl, device .*, unroll [0-9]+ x [0-9]+, jsplit 1, flags --precision=float --unroll-i=[0-9]+( --unroll-j=[0-9]+)? --device-class=cpu-[a-z0-9]+, build options -cl-denorms-are-zero -cl-unsafe-math-optimizations, wg [0-9]+, tile [0-9]+, chosen by defaults' ;;
	esac
	# shellcheck disable=SC2086
	"$NBRUN" "$G" --i i.csv --j j.csv --const eps2=0.01 $dev --time \
		>/dev/null 2>e
	if grep -Eq "^variant: kernel gravity \\($G\\), $want\$" e &&
		grep -Eq '^time: [0-9][0-9.e+-]* s, interactions/s: [0-9]\.[0-9]{6}e[+-][0-9]{2,3}$' e &&
		[ "$(wc -l <e)" = 2 ]; then ok; else bad "--time $dev:"; cat e; fi
	# shellcheck disable=SC2086
	"$NBRUN" "$G" --i i.csv --j j.csv --const eps2=0.01 $dev --time \
		--repeat 5 --jsplit 2 >r.csv 2>e
	if near 1e-5 r.csv ref.csv ref.abs >cmp &&
		grep -q "^variant: .*, jsplit 2, flags .*--jsplit=2" e &&
		awk '/^time: / { t = $2; mn = $(NF - 6); mx = $(NF - 3) }
		END { exit !(t > 0 && mn <= t && t <= mx) }' e &&
		grep -Eq '^time: [0-9.e+-]+ s, interactions/s: [0-9.e+-]+ \(median of 5 runs; min [0-9.e+-]+ s, max [0-9.e+-]+ s, spread [0-9.e+-]+%\)$' e
	then ok; else bad "--time --repeat 5 $dev:"; cat e; fi
done

# --- kernels compiled by nbcc beforehand -------------------------------------
"$NBCC" "$G" --precision=double -o g.c && "$NBCC" "$G" --precision=double -o g.cl
"$NBRUN" g.c --i i.csv --j j.csv --const eps2=0.01 >out.csv
if cmp -s out.csv g-double-c.csv; then ok; else bad "g.c (host)"; fi
"$NBRUN" g.cl --i i.csv --j j.csv --const eps2=0.01 --device cpu >out.csv
if cmp -s out.csv g-double-cpu.csv; then ok; else bad "g.cl (cpu)"; fi
"$NBRUN" g.c --unroll-i 2 --i i.csv --j j.csv --const eps2=0.01 \
	>/dev/null 2>e
if [ "$(cat e)" = "nbrun: warning: --unroll-i is ignored: g.c is compiled already" ]
then ok; else bad "compiler flag with a .c kernel:"; cat e; fi

# --- the command line ------------------------------------------------------
if "$NBRUN" --help | grep -q -- '--unroll-i' && "$NBRUN" --version |
	grep -q '^nbrun'; then ok; else bad "--help, --version"; fi
if "$NBRUN" --list-devices | grep -q '^0:0 '; then ok; else
	bad "--list-devices lists no device"; fi
# --device-info: one "key value" line each, the sizes numbers
"$NBRUN" --device cpu --device-info >info 2>err
if [ ! -s err ] && grep -q '^type cpu$' info &&
	grep -Eq '^local_mem_size [1-9][0-9]*$' info &&
	grep -Eq '^max_work_group_size [1-9][0-9]*$' info &&
	grep -Eq '^compute_units [1-9][0-9]*$' info &&
	grep -Eq '^subgroup_shuffle (yes|no)$' info &&
	"$NBRUN" --device host --device-info >hinfo &&
	[ "$(sed -n 2p hinfo)" = "type host" ] && [ "$(wc -l <hinfo)" = 2 ]
then ok; else bad "--device-info:"; cat info err; fi
if "$NBRUN" --device no-such-device-anywhere --device-info >info 2>err; then
	bad "--device-info on a missing device: exit 0"
elif grep -q "no OpenCL device matches 'no-such-device-anywhere'" err &&
	[ ! -s info ]; then ok; else bad "--device-info on a missing device:"; cat err; fi
# the spec that matched nothing is shown escaped, from --device or
# $NBRT_DEVICE: its control bytes never reach the terminal
esc=$(printf 'a\033[31mb')
for how in flag env; do
	if [ $how = flag ]; then
		"$NBRUN" --device "$esc" --device-info >info 2>err
	else
		NBRT_DEVICE=$esc "$NBRUN" --device-info >info 2>err
	fi
	if grep -qF "no OpenCL device matches 'a\x1b[31mb'" err &&
		! grep -q "$(printf '\033')" err; then ok; else
		bad "a device spec with control bytes ($how):"; cat -v err; fi
done
# NBRT_CACHE and NBRT_TUNE are switches like the others, 0 or 1: 'off'
# left the cache on and took the tuner's winners, silently
for v in NBRT_CACHE NBRT_TUNE; do
	if env $v=off "$NBRUN" "$G" --random 3,4 --device host >out 2>err; then
		bad "$v=off ran"
	elif [ "$(grep '^nbrun: error' err)" = "nbrun: error: $v='off': it must be 0 or 1" ] &&
		[ ! -s out ]; then ok; else bad "$v=off:"; cat err; fi
done

finish nbrun.sh
