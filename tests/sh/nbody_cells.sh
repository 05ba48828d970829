# nbody_cells.sh: bin/nbody with any kernel, --cutoff and --periodic
# (issue 25).  dsl-examples/lj_fluid.nbl's accelerations and potentials
# in a periodic box, through the cell lists, against an independent
# minimum-image sum in awk (double, relative to the largest, 1e-9) on
# fresh random bodies; a 2-D kernel through the cell lists against its
# dense sweep (same bodies, 1e-9); a Lennard-Jones liquid (--ic lattice,
# rho 0.8, T 1, rc 2.5) keeps |dE/E| < 1e-3 over 1000 steps (measured
# 2e-4 over 4000) and its momentum; wrapped positions stay in the box;
# bad flags and kernels are refused with a message naming them.  Host
# back end (the C path), in double.  NBCC_TEST_SEED=S repeats a seed.
set -eu
. "$ROOT/tests/lib.sh"
NBODY=$BIN/nbody
scratch
test_seed nbody_cells.sh
LJ=$ROOT/dsl-examples/lj_fluid.nbl
RUN="--device host --precision=double"

# random bodies in a box of side L: a jittered lattice, so no pair is
# closer than about 0.6 (the force stays moderate)
bodies() { # N L SEED DIM
	awk -v n="$1" -v L="$2" -v seed="$3" -v dim="$4" 'BEGIN {
		srand(seed)
		m = 1
		while ((dim == 3 ? m * m * m : m * m) < n)
			m++
		a = L / m
		print "m,x,y,z,vx,vy,vz"
		for (i = 0; i < n; i++) {
			s = i
			for (d = 0; d < 3; d++) {
				c[d] = 0
				if (d < dim) {
					c[d] = ((s % m) + 0.5 + 0.2 * (rand() - 0.5)) * a
					s = int(s / m)
				}
			}
			printf "1,%.17g,%.17g,%.17g,0,0,0\n", c[0], c[1], c[2]
		}
	}'
}

# 1. lj_fluid.nbl with --cutoff and --periodic against a minimum-image sum
L=7.5
bodies 300 $L "$SEED" 3 >"$T/b.csv"
"$NBODY" --kernel "$LJ" --const rc2=6.25 --cutoff 2.5 --periodic $L \
	--ic "$T/b.csv" --steps 0 --out "$T/s" $RUN >/dev/null ||
	die "the periodic Lennard-Jones run"
awk -F, -v L=$L -v rc=2.5 'function near(d, l) { # the nearest image
		while (d > l / 2) d -= l
		while (d < -l / 2) d += l
		return d
	}
	BEGIN { n = 0 }
	NR == FNR { if (FNR > 1) { x[n] = $2; y[n] = $3; z[n] = $4; n++ }; next }
	/^#/ || /^id/ { next }
	{
		i = $1; ax = ay = az = p = 0
		c6 = rc^-6; shift = 4 * (c6 * c6 - c6)
		for (j = 0; j < n; j++) {
			if (j == i) continue
			dx = x[i] - x[j]; dy = y[i] - y[j]; dz = z[i] - z[j]
			dx = near(dx, L); dy = near(dy, L); dz = near(dz, L)
			r2 = dx * dx + dy * dy + dz * dz
			if (r2 >= rc * rc) continue
			s6 = r2^-3; f = 24 * (2 * s6 * s6 - s6) / r2
			ax += f * dx; ay += f * dy; az += f * dz
			p += 4 * (s6 * s6 - s6) - shift
		}
		e = ($9 - ax)^2 + ($10 - ay)^2 + ($11 - az)^2
		if (e > err) err = e
		if (ax * ax + ay * ay + az * az > big) big = ax * ax + ay * ay + az * az
		if (($12 - p)^2 > perr) perr = ($12 - p)^2
		if (p * p > pbig) pbig = p * p
		rows++
	}
	END {
		printf "nbody_cells.sh: periodic LJ, %d bodies: |da|/|a|max = %.3g, |dpot|/|pot|max = %.3g\n", rows, sqrt(err / big), sqrt(perr / pbig)
		exit !(rows == n && sqrt(err / big) < 1e-9 && sqrt(perr / pbig) < 1e-9)
	}' "$T/b.csv" "$T/s/snap_000000.csv" && ok "periodic LJ against the minimum-image sum" ||
	bad "periodic LJ accelerations differ from the minimum-image sum"

# 2. a 2-D kernel (zero beyond its cutoff): cell lists against the dense
# sweep on the same bodies
cat >"$T/k2.nbl" <<'EOF'
LMEM xi, yi;
BMEM xj, yj, mj;
RMEM ax, ay, pot;
CONST rc2;
dx = xj - xi;
dy = yj - yi;
r2 = dx*dx + dy*dy;
near = j != i && r2 < rc2;
w = near ? mj*(rc2 - r2) : 0;
ax += w*dx;
ay += w*dy;
pot -= w;
EOF
bodies 400 20 "$((SEED + 1))" 2 >"$T/b2.csv"
for c in "" "--cutoff 1.5"; do
	"$NBODY" --kernel "$T/k2.nbl" --const rc2=2.25 --ic "$T/b2.csv" \
		--steps 3 --dt 0.01 --out "$T/d${c:+c}" $c $RUN >/dev/null ||
		die "the 2-D kernel ${c:-dense}"
done
awk -F, '/^#/ || /^id/ { next }
	NR == FNR { for (k = 3; k <= 12; k++) v[FNR, k] = $k; next }
	{
		for (k = 3; k <= 12; k++) {
			d = $k - v[FNR, k]; if (d < 0) d = -d
			s = $k < 0 ? -$k : $k
			if (s > big) big = s
			if (d > err) err = d
		}
		rows++
	}
	END {
		printf "nbody_cells.sh: 2-D kernel, cells against dense after 3 steps: %.3g\n", err / big
		exit !(rows == 400 && err <= 1e-9 * big)
	}' "$T/d/snap_000003.csv" "$T/dc/snap_000003.csv" && ok "2-D cells = dense" ||
	bad "the 2-D kernel's cell lists differ from its dense sweep"

# a kernel without eps2 runs with eps = 0, and restarts from its snapshot
# to the same end
"$NBODY" --kernel "$T/k2.nbl" --const rc2=2.25 --ic "$T/b2.csv" --steps 4 \
	--dt 0.01 --every 2 --out "$T/r" --csv $RUN | cut -d, -f6-9 >"$T/r1" &&
	"$NBODY" --kernel "$T/k2.nbl" --const rc2=2.25 --restart \
		"$T/r/snap_000002.csv" --steps 2 --csv $RUN | cut -d, -f6-9 >"$T/r2" &&
	cmp -s "$T/r1" "$T/r2" && ok "restart of a kernel without eps2" ||
	bad "a restart of a kernel without eps2 differs: $(cat "$T/r1" "$T/r2")"

# 3. a Lennard-Jones liquid conserves energy and momentum; wrapped
# positions stay in [0, L)
"$NBODY" --kernel "$LJ" --const rc2=6.25 --cutoff 2.5 --ic lattice \
	-n 512 --density 0.8 --temp 1 --seed "$SEED" --steps 1000 --csv \
	--out "$T/lj" $RUN >"$T/lj.csv" || die "the Lennard-Jones liquid"
sed -n 2p "$T/lj.csv" | awk -F, '{
	printf "nbody_cells.sh: LJ liquid, 512 bodies, 1000 steps: |dE/E| = %s, |dP| = %s\n", $10, $11
	exit !($10 < 1e-3 && $10 > 0 && $11 < 1e-9 && $1 == "lattice")
}' && ok "LJ liquid energy" || bad "LJ liquid: energy or momentum not conserved"
awk -F, -v L="$(awk 'BEGIN { print (512 / 0.8)^(1 / 3) }')" '/^#/ || /^id/ { next }
	{ for (k = 3; k <= 5; k++) if (!($k >= 0 && $k < L)) bad++ }
	END { exit bad > 0 }' "$T/lj/snap_001000.csv" && ok "positions wrapped" ||
	bad "positions outside the periodic box after 1000 steps"

# 4. bad input: exit 1, a message, no summary
printf 'm,x,y,z,vx,vy,vz\n1,1,1,1,0,0,0\n1,9,1,1,0,0,0\n' >"$T/out.csv"
printf 'm,x,y,z,vx,vy,vz\n1,1,1,1,0,0,0\n2,3,1,1,0,0,0\n' >"$T/mass.csv"
printf 'LMEM xi, yi, zi;\nBMEM xj, yj;\nRMEM ax, ay, az;\nax += xj - xi;\nay += yj - yi;\naz += zi;\n' >"$T/noz.nbl"
printf 'LMEM xi, yi, qi;\nBMEM xj, yj;\nRMEM ax, ay;\nax += xj - xi + qi;\nay += yj - yi;\n' >"$T/extra.nbl"
refused() { # MESSAGE ARGS
	want=$1
	shift
	set +e
	"$NBODY" "$@" >"$T/o" 2>"$T/e"
	rc=$?
	set -e
	[ "$rc" = 1 ] && grep -q "^nbody: error: .*$want" "$T/e" && [ ! -s "$T/o" ] &&
		ok || { cat "$T/e"; bad "nbody $*: exit $rc, no message about '$want'"; }
}
K="--kernel $LJ --const rc2=6.25"
refused "above 0" $K --cutoff 0
refused "above 0" $K --cutoff -1
refused "number" $K --cutoff nan
refused "needs --cutoff" $K --periodic 10
refused "more than half" $K --cutoff 2.5 --periodic 4
refused "more than half the box" $K --cutoff 2.5 --ic lattice -n 64
refused "lengths above 0" $K --cutoff 1 --periodic 0
refused "2 lengths to a 3-D kernel" $K --cutoff 1 --periodic 5,5 $RUN
refused "lengths above 0" $K --cutoff 1 --periodic 5,5,5,5
refused "outside the periodic box" $K --cutoff 2.5 --periodic 8 --ic "$T/out.csv" $RUN
refused "outside the periodic box" $K --cutoff 2.5 --periodic 8 -n 100 $RUN
refused "of one mass" $K --ic "$T/mass.csv" $RUN
refused "takes no --periodic" $K --cutoff 1 --ic lattice --periodic 10
refused "is for --ic lattice" $K --density 0.5
refused "Hermite" --integrator hermite --cutoff 1
refused "has CONST rc2" --kernel "$LJ" $RUN
refused "no CONST 'sig'" $K --const sig=1 $RUN
refused "given twice" $K --const rc2=4 $RUN
refused "which --eps gives" --const eps2=1 $RUN
refused "no CONST eps2" $K --eps 0.1 $RUN
refused "lacks BMEM zj" --kernel "$T/noz.nbl" $RUN
refused "LMEM qi, which nbody does not bind" --kernel "$T/extra.nbl" $RUN
finish nbody_cells.sh
