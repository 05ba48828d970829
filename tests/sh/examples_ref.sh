# The examples of the reductions and the indices (lennard_jones_self,
# nearest, gauss_logsumexp) against a brute-force double loop in awk
# written here, on fresh random inputs (the seed is shown), through the
# host, PoCL and the AMD IL interpreter.  Tolerances, norm-wise per
# column (max |out - ref| / max |ref|): float 1e-5, double and dd 1e-12
# (the reference is a double; the dd kernels are checked to double
# accuracy here, their dd arithmetic by tests/unit/test_ddlib.c).  Counts
# are exact; an argmin equals the reference's, or (a near tie that
# rounding decided otherwise) its distance is within the tolerance of
# the minimum.  gauss_logsumexp has ih2 = 5000 (h = 0.01): a plain sum of
# its exps underflows to 0, so -inf would fail it.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
shared_cache
test_seed examples_ref
seed=$SEED
status=0
n=0

# rows N SEED COLUMNS: N rows of uniform (0,1) values, multiples of
# 2^-20, so that a float holds them and their differences exactly (a
# float kernel then sees the reference's inputs, and a close pair's
# force, which goes as r^-14, is not off by the inputs' rounding)
rows() {
	awk -v n="$1" -v s="$2" -v cols="$3" 'BEGIN {
		srand(s); print cols; nc = split(cols, c, ",")
		for (r = 0; r < n; r++)
			for (k = 1; k <= nc; k++)
				printf "%.17g%s", int(rand() * 1048576) / 1048576,
				       k < nc ? "," : "\n"
	}'
}
rows 67 "$seed" x,y,z >"$T/p.csv"
rows 53 $((seed + 1)) xi,yi,zi >"$T/i.csv"
rows 41 $((seed + 2)) yx,yy,yz,lw | awk -F, 'NR > 1 { $4 = -$4 } 1' OFS=, >"$T/j.csv"

# the references: each example's formula over every pair, in double
awk -F, -v sig2=0.015625 -v eps=1 -v rc2=0.25 '
NR > 1 { x[m] = $1; y[m] = $2; z[m] = $3; m++ }
END {
	print "fx,fy,fz,u,n"
	for (i = 0; i < m; i++) {
		fx = fy = fz = u = c = 0
		for (j = 0; j < m; j++) {
			if (j == i) continue
			dx = x[i] - x[j]; dy = y[i] - y[j]; dz = z[i] - z[j]
			r2 = dx * dx + dy * dy + dz * dz
			if (r2 >= rc2) continue
			s6 = (sig2 / r2) ^ 3
			f = 24 * eps * (2 * s6 * s6 - s6) / r2
			fx += f * dx; fy += f * dy; fz += f * dz
			u += 4 * eps * (s6 * s6 - s6); c++
		}
		printf "%.17g,%.17g,%.17g,%.17g,%d\n", fx, fy, fz, u, c
	}
}' m=0 "$T/p.csv" >"$T/lennard_jones_self.ref"
awk -F, '
NR > 1 { x[m] = $1; y[m] = $2; z[m] = $3; m++ }
END {
	print "d2,k"
	for (i = 0; i < m; i++) {
		best = 1e30; k = i
		for (j = 0; j < m; j++) {
			if (j == i) continue
			dx = x[i] - x[j]; dy = y[i] - y[j]; dz = z[i] - z[j]
			r2 = dx * dx + dy * dy + dz * dz
			if (r2 < best) { best = r2; k = j }
		}
		printf "%.17g,%d\n", best, k
	}
}' m=0 "$T/p.csv" >"$T/nearest.ref"
awk -F, -v ih2=5000 '
FNR == 1 { f++; next }
f == 1 { x[ni] = $1; y[ni] = $2; z[ni] = $3; ni++ }
f == 2 { yx[nj] = $1; yy[nj] = $2; yz[nj] = $3; lw[nj] = $4; nj++ }
END {
	print "l"
	for (i = 0; i < ni; i++) {
		m = -1e300; s = 0
		for (j = 0; j < nj; j++) {
			dx = x[i] - yx[j]; dy = y[i] - yy[j]; dz = z[i] - yz[j]
			e = lw[j] - ih2 * (dx * dx + dy * dy + dz * dz)
			if (e > m) { s = s * exp(m - e) + 1; m = e } else s += exp(e - m)
		}
		printf "%.17g\n", m + log(s)
	}
}' ni=0 nj=0 "$T/i.csv" "$T/j.csv" >"$T/gauss_logsumexp.ref"

# check EXAMPLE OUT TOL LABEL
check() {
	if ! awk -F, -v tol="$3" -v ex="$1" -v P="$T/p.csv" '
	NR == FNR { ref[FNR] = $0; nr = FNR; next }
	FNR == 1 { if ($0 != ref[1]) { print "header " $0; bad = 1; exit }
	           nc = NF; next }
	{
		split(ref[FNR], r, ",")
		for (c = 1; c <= nc; c++) {
			o[FNR, c] = $c; e[FNR, c] = r[c]
			d = $c - r[c]; d = d < 0 ? -d : d
			a = r[c] < 0 ? -r[c] : r[c]
			if (d > dmax[c]) dmax[c] = d
			if (a > rmax[c]) rmax[c] = a
		}
		rows = FNR
	}
	END {
		if (bad) exit 1
		if (rows != nr) { print "rows: " rows ", expected " nr; exit 1 }
		if (ex == "nearest") { # k: the same index, or a near tie
			while ((getline line < P) > 0)
				if (np++) { split(line, v, ","); px[np - 2] = v[1]
				            py[np - 2] = v[2]; pz[np - 2] = v[3] }
			for (q = 2; q <= rows; q++) {
				k = o[q, 2]; i = q - 2
				if (k == e[q, 2]) continue
				dx = px[i] - px[k]; dy = py[i] - py[k]; dz = pz[i] - pz[k]
				if (k == i || dx * dx + dy * dy + dz * dz > e[q, 1] * (1 + tol)) {
					print "row " i ": k " k ", expected " e[q, 2]; bad = 1
				}
			}
			nc = 1
		}
		for (c = 1; c <= nc; c++) {
			exact = ex == "lennard_jones_self" && c == 5
			if (exact ? dmax[c] != 0 : dmax[c] > tol * rmax[c]) {
				print "column " c ": " dmax[c] " off (of " rmax[c] ")"
				bad = 1
			}
		}
		exit bad
	}' "$T/$1.ref" "$2" >"$T/why"; then
		echo "FAIL $4"; head -5 "$T/why"; status=1
	fi
	n=$((n + 1))
}

# run EXAMPLE LABEL NBRUN-ARGS...
run() {
	ex=$1 label="$1 $2"
	shift 2
	case $ex in
	gauss_logsumexp) io="--i $T/i.csv --j $T/j.csv --const ih2=5000" ;;
	lennard_jones_self) io="--ij $T/p.csv --map xi=x,yi=y,zi=z,xj=x,yj=y,zj=z --const sig2=0.015625 --const eps=1 --const rc2=0.25" ;;
	*) io="--ij $T/p.csv --map xi=x,yi=y,zi=z,xj=x,yj=y,zj=z" ;;
	esac
	# shellcheck disable=SC2086
	if ! "$BIN/nbrun" "dsl-examples/$ex.nbl" $io -o "$T/out.csv" "$@" \
		2>"$T/err"; then
		echo "FAIL $label: nbrun failed"; cat "$T/err"; status=1
		return
	fi
	tol=1e-12
	case "$*" in *float*) tol=1e-5 ;; esac
	check "$ex" "$T/out.csv" "$tol" "$label"
}

cl=0
have_device cpu && cl=1
tf="--unroll-i=3 --unroll-j=2 --jsplit=2"
for ex in lennard_jones_self nearest gauss_logsumexp; do
	# (cl_vs_c.sh compares OpenCL with C for every example and
	# precision: here the transforms on each back end)
	for p in double dd; do
		run $ex "c $p" --target c --precision=$p
	done
	run $ex "c float $tf" --target c --precision=float $tf
	[ $cl = 1 ] &&
		run $ex "opencl float $tf" --device cpu --precision=float $tf
	run $ex "amdil float" --target amdil --precision=float
	run $ex "amdil double" --target amdil --precision=double
	run $ex "amdil dd" --target amdil --precision=dd
done
echo "examples_ref: $n checked"
exit $status
