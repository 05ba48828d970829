# compare.awk A.csv B.csv: the norm-wise relative difference of each
# column of two result files with the same header, and the worst of them.
# Prints "column: rel" lines and a last line "max REL".
# The fields are the CSV's commas (awk's default, blanks, made each row
# one field: only the first column was compared).
BEGIN { FS = "," }
FNR == 1 { if (NR == 1) { n = split($0, name, ","); } next }
NR == FNR { for (c = 1; c <= n; c++) a[FNR, c] = $c + 0; rows = FNR; next }
# the same infinity in both agrees, and has no size to scale the rest by
{ rows2 = FNR; for (c = 1; c <= n; c++) { v = $c + 0; w = a[FNR, c]
	if (v == w && v != 0 && v == v * 2) continue
	d = v - w; dd[c] += d * d; rr[c] += w * w } }
END {
	m = 0
	# a different row count, or a NaN anywhere, is a difference of 1e300
	if (rows2 + 0 != rows + 0) { print "  rows differ"; m = 1e300 }
	for (c = 1; c <= n; c++) {
		r = rr[c] > 0 ? sqrt(dd[c] / rr[c]) : sqrt(dd[c])
		printf "  %s: %.3g\n", name[c], r
		if (sprintf("%g", r) ~ /nan/) r = 1e300
		if (r > m) m = r
	}
	printf "max %.3g\n", m
}
