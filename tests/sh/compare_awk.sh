# bench/compare.awk, which the tests comparing two programs' results
# read (lib.sh's tolerance, autosplit.sh, slices.sh, ...): the norm-wise
# relative difference of every column of two CSVs, not of the first alone
# (with awk's blank-separated fields a row was one field, its first number
# the only one compared), a different row count or a NaN as 1e300, and
# the same infinity in both as agreeing.
set -u
. "$ROOT/tests/lib.sh"
scratch
cd "$ROOT" || exit 1
# cmp NAME A B WANT: compare.awk's max line for A against B is WANT
cmp() {
	got=$(printf '%b' "$3" >"$T/b.csv"; printf '%b' "$2" >"$T/a.csv"
		awk -f bench/compare.awk "$T/a.csv" "$T/b.csv" | sed -n 's/^max //p')
	if [ "$got" = "$4" ]; then ok "$1: max $got"
	else bad "$1: max $got, expected $4"; fi
}
H='ax,ay,az,pot\n'
cmp "the same" "${H}1,2,3,4\n5,6,7,8\n" "${H}1,2,3,4\n5,6,7,8\n" 0
# the last column alone differs: |8.8 - 8| / |(4, 8)| = 0.8 / sqrt(80)
cmp "the last column" "${H}1,2,3,4\n5,6,7,8\n" "${H}1,2,3,4\n5,6,7,8.8\n" 0.0894
cmp "the second column" "${H}1,2,3,4\n5,6,7,8\n" "${H}1,-2,3,4\n5,6,7,8\n" 0.632
cmp "a row fewer" "${H}1,2,3,4\n5,6,7,8\n" "${H}1,2,3,4\n" 1e+300
cmp "a NaN" "${H}1,2,3,4\n" "${H}1,2,nan,4\n" 1e+300
cmp "the same infinity" "${H}1,2,inf,4\n" "${H}1,2,inf,4\n" 0
finish
