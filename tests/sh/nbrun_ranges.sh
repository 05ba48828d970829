# nbrun --ranges and --cutoff against references, on the host, PoCL's
# OpenCL CPU device (where there is one) and the AMD IL interpreter, at
# N = 0, 1 and primes, on fresh random particles (seed printed;
# NBCC_TEST_SEED=S repeats it) sorted by x, so that slabs of consecutive
# rows are groups whose neighbours within RC are one j-range:
#   - SPH density (dsl-examples/sph_density.nbl, zero beyond 2h <= RC)
#     with --ranges of lists with holes (groups left out, j-ranges split
#     and listed backwards) against a double sum over the listed pairs
#     done here in awk; with complete lists, and with --cutoff RC (open,
#     --self, and --periodic 1 against a minimum-image sum), against the
#     dense sum.  Tolerance of the column's largest value (the terms are
#     all positive): double 1e-12, float 1e-5;
#   - Lennard-Jones neighbour counts (lennard_jones_self.nbl's n, j != i
#     within rc) of --ranges and --cutoff equal the dense run's exactly;
#   - --time's line gives the pairs computed, the lists' own count.
# Where the runtime has no cell lists yet (nbrt_run_cutoff), the --cutoff
# checks say so and are left out.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
NBRUN=$BIN/nbrun
SPH=$ROOT/dsl-examples/sph_density.nbl
LJ=$ROOT/dsl-examples/lennard_jones_self.nbl
scratch
shared_cache
unset NBRT_DEVICE
test_seed nbrun_ranges.sh
cd "$T" || exit 1

RC=0.2 # 2 h at most
MAP=xi=x,yi=y,zi=z,hi=h,xj=x,yj=y,zj=z,mj=m
POS=xi,yi,zi:xj,yj,zj
devices="host amdil"
have_device cpu && devices="host cpu amdil"

# gen SEED N: x, y, z in [0, 1), h in [0.05, 0.1), m in [0.1, 1), rows
# sorted by x
gen() {
	echo x,y,z,h,m
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%.17g,%.17g,%.17g,%.17g,%.17g\n", rand(), rand(),
			       rand(), 0.05 + 0.05 * rand(), 0.1 + 0.9 * rand()
	}' | sort -t, -g -k1,1
}

# lists P.csv G HOLES: groups of G rows, each with the j-range of the rows
# within RC in x; HOLES=1 leaves every third group out, splits each range
# in two without its middle row and lists groups and ranges backwards.
lists() {
	awk -F, -v g="$2" -v holes="$3" -v rc="$RC" '
	NR > 1 { x[n++] = $1 }
	END {
		print "# slabs of " g " rows, neighbours within " rc " in x"
		for (k = 0; k * g < n; k++) {
			b = k * g; e = b + g < n ? b + g : n
			lo = 0; while (x[lo] < x[b] - rc) lo++
			hi = n; while (hi > 0 && x[hi - 1] > x[e - 1] + rc) hi--
			if (!holes) { line[k] = b " " e ": " lo " " hi; continue }
			if (k % 3 == 2) continue
			m = int((lo + hi) / 2)
			line[k] = b " " e ":" (m + 1 < hi ? " " m + 1 " " hi "," : "") \
			          " " lo " " m
		}
		for (k = holes ? int((n - 1) / g) : 0; k >= 0 && k * g < n;
		     k += holes ? -1 : 1)
			if (k in line) print line[k]
	}' "$1"
}

# sph P.csv [RANGES] [PERIOD]: the density by the definition in double,
# over the pairs RANGES lists (default: all), distances through the
# nearest image in a box of side PERIOD (default: open).
sph() {
	awk -F, -v period="${3:-0}" '
	BEGIN { n = 0 } # a number, not "", as a subscript
	FILENAME == ARGV[1] && FNR > 1 {
		x[n] = $1; y[n] = $2; z[n] = $3; h[n] = $4; m[n] = $5; n++; next
	}
	FILENAME == ARGV[1] { next }
	{ sub(/#.*/, "") }
	/:/ {
		split($0, side, ":"); split(side[1], ig, " ")
		k = split(side[2], r, ",")
		for (i = ig[1]; i < ig[2]; i++) {
			listed[i] = 1
			for (q = 1; q <= k; q++) {
				split(r[q], jr, " ")
				for (j = jr[1]; j < jr[2]; j++) pair[i, j] = 1
			}
		}
	}
	function img(d) {
		if (period > 0) d -= period * int(d / period + (d < 0 ? -0.5 : 0.5))
		return d
	}
	END {
		all = ARGC < 3 || ARGV[2] == "/dev/null"
		print "rho"
		for (i = 0; i < n; i++) {
			s = 0
			for (j = 0; j < n; j++) {
				if (!all && !((i, j) in pair)) continue
				dx = img(x[i] - x[j]); dy = img(y[i] - y[j])
				dz = img(z[i] - z[j])
				q = sqrt(dx * dx + dy * dy + dz * dz) / h[i]
				w = q < 1 ? 1 + q * q * (0.75 * q - 1.5) : q < 2 ? \
				    0.25 * (2 - q)^3 : 0
				s += m[j] * w / (3.14159265358979323846 * h[i]^3)
			}
			printf "%.17g\n", s
		}
	}' "$1" "${2:-/dev/null}"
}

# close TOL GOT REF: one column, every value finite and within TOL times
# the column's largest |REF| value.
close() {
	paste -d, "$2" "$3" | awk -F, -v tol="$1" '
	NR == 1 { if ($1 != $2) { print "header " $1 " vs " $2; bad = 1 }; next }
	{
		if ($1 !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) {
			print "row " NR - 1 ": not a finite number: " $1; bad = 1
		}
		a[NR] = $1; b[NR] = $2; s = $2 < 0 ? -$2 : $2
		if (s > scale) scale = s
	}
	END {
		for (r in a) {
			d = a[r] - b[r]; d = d < 0 ? -d : d
			if (d > tol * scale && d > 0) {
				print "row " r - 1 ": " a[r] " vs " b[r]; bad = 1
			}
		}
		exit bad
	}'
}

# check WHAT TOL REF NBRUN-ARGS...: nbrun's result against REF
check() {
	what=$1 tol=$2 ref=$3
	shift 3
	if ! "$NBRUN" "$@" >got.csv 2>err; then
		bad "$what: exit status"
		cat err
	elif close "$tol" got.csv "$ref" >diff.txt; then
		ok
	else
		bad "$what"
		head -5 diff.txt
	fi
}

# Cell lists there?  (nbrun names nbrt_run_cutoff where they are not.)
gen "$SEED" 3 >p.csv
cells=1
if ! "$NBRUN" "$SPH" --device host --ij p.csv --map $MAP --cutoff $RC \
	--pos $POS >/dev/null 2>err; then
	if grep -q "no cell lists yet" err; then
		cells=0
		echo "--cutoff: no cell lists in this runtime: its checks left out"
	else
		bad "--cutoff on 3 particles: exit status"
		cat err
	fi
fi

k=0
for n in 0 1 13 97 211; do
	k=$((k + 1))
	gen $((SEED + k)) $n >p.csv
	lists p.csv 5 0 >full.txt
	lists p.csv 7 1 >holes.txt
	sph p.csv >dense.ref
	sph p.csv holes.txt >holes.ref
	sph p.csv /dev/null 1 >periodic.ref
	for dev in $devices; do
		for p in double float; do
			# float on the host alone, where it is the C path's
			[ $p = float ] && [ "$dev" != host ] && continue
			tol=1e-12
			[ $p = float ] && tol=1e-5
			a="--device $dev --precision $p --ij p.csv --map $MAP"
			w="N=$n $dev $p"
			# shellcheck disable=SC2086
			check "$w: dense" $tol dense.ref "$SPH" $a
			# shellcheck disable=SC2086
			check "$w: --ranges with holes" $tol holes.ref "$SPH" $a \
				--ranges holes.txt
			# shellcheck disable=SC2086
			check "$w: --ranges of all neighbours" $tol dense.ref "$SPH" \
				$a --ranges full.txt
			[ $cells = 1 ] || continue
			# shellcheck disable=SC2086
			check "$w: --cutoff" $tol dense.ref "$SPH" $a --cutoff $RC \
				--pos $POS
			# shellcheck disable=SC2086
			check "$w: --cutoff --self" $tol dense.ref "$SPH" $a \
				--cutoff $RC --pos $POS --self
			# shellcheck disable=SC2086
			check "$w: --cutoff --periodic 1" $tol periodic.ref "$SPH" \
				$a --cutoff $RC --pos $POS --periodic 1
		done
		# neighbour counts, exactly
		a="--device $dev --precision double --ij p.csv"
		a="$a --map xi=x,yi=y,zi=z,xj=x,yj=y,zj=z"
		a="$a --const sig2=0.0001 --const eps=1 --const rc2=0.04"
		# shellcheck disable=SC2086
		"$NBRUN" "$LJ" $a | cut -d, -f5 >n.dense
		# shellcheck disable=SC2086
		"$NBRUN" "$LJ" $a --ranges full.txt | cut -d, -f5 >n.ranges
		if [ -s n.dense ] && cmp -s n.dense n.ranges; then ok; else
			bad "N=$n $dev: Lennard-Jones counts of --ranges differ"
		fi
		[ $cells = 1 ] || continue
		# the interpreter cannot map j != i back from sorted copies: it
		# refuses, which is checked instead
		if [ "$dev" = amdil ]; then
			# shellcheck disable=SC2086
			if "$NBRUN" "$LJ" $a --cutoff $RC --pos xi,yi,zi:xj,yj,zj \
				>/dev/null 2>err && false || grep -q "cannot map back" err
			then ok; else
				bad "N=$n amdil: --cutoff of a kernel reading i, j not refused"
			fi
			continue
		fi
		# shellcheck disable=SC2086
		"$NBRUN" "$LJ" $a --cutoff $RC --pos xi,yi,zi:xj,yj,zj |
			cut -d, -f5 >n.cells
		if [ -s n.dense ] && cmp -s n.dense n.cells; then ok; else
			bad "N=$n $dev: Lennard-Jones counts of --cutoff differ"
		fi
	done
done

# --time: the pairs the lists name (the last N's complete lists)
want=$(awk -F'[:,]' '/^[0-9]/ {
	split($1, g, " ")
	for (q = 2; q <= NF; q++) { split($q, r, " "); s += (g[2] - g[1]) * (r[2] - r[1]) }
} END { print s + 0 }' full.txt)
# shellcheck disable=SC2086
"$NBRUN" "$SPH" --device host --ij p.csv --map $MAP --ranges full.txt \
	--time >/dev/null 2>err
if grep -q "^time: .*, pairs: $want, pairs/s: " err; then ok; else
	bad "--time: no 'pairs: $want'"
	cat err
fi
finish
