# suites/check.sh: nbcc's OpenCL kernels on a device against the C back
# end on the host, for every example and several transform settings, on
# random inputs of odd sizes (3001 x 2999): a row per case with the
# norm-wise relative difference of its worst result column (bench/
# compare.awk); over the tolerance (float 1e-5, double and dd 1e-12) the
# suite fails.  slices= reruns it with NBRT_SLICES set ("rule": unset).
about="every example on a device against the host's C, several transforms (correctness)"
params="device slices"
device=gpu
slices=rule

# check_case SLICES EXAMPLE PRECISION FLAGS...
check_case() {
	cs=$1 ex=$2 prec=$3
	shift 3
	env=
	[ "$cs" = rule ] || env="NBRT_SLICES=$cs"
	if ! env $env "$BIN/nbrun" "dsl-examples/$ex.nbl" --random 3001,2999 \
		--seed 7 --precision="$prec" --device "$device" "$@" \
		-o "$T/d.csv" </dev/null 2>"$T/err"; then
		echo "$cs,FAIL,$ex,$prec,\"$*\",device: $(tail -n 1 "$T/err" | tr -d ',')"
		return
	fi
	if ! "$BIN/nbrun" "dsl-examples/$ex.nbl" --random 3001,2999 --seed 7 \
		--precision="$prec" --target c -o "$T/h.csv" </dev/null 2>"$T/err"; then
		echo "$cs,FAIL,$ex,$prec,\"$*\",host: $(tail -n 1 "$T/err" | tr -d ',')"
		return
	fi
	m=$(awk -f bench/compare.awk "$T/h.csv" "$T/d.csv" | sed -n 's/^max //p')
	tol=1e-5
	[ "$prec" = float ] || tol=1e-12
	ok=$(awk -v m="$m" -v t="$tol" 'BEGIN { print (m <= t) ? "ok" : "OVER" }')
	echo "$cs,$ok,$ex,$prec,\"$*\",$m"
}

suite_run() {
	echo "slices,status,example,precision,flags,max_rel_diff"
	bad=0
	for s in $slices; do
		for f in dsl-examples/*.nbl; do
			ex=$(basename "$f" .nbl)
			if [ "$ex" = oneloop ]; then
				check_case "$s" "$ex" dd
				check_case "$s" "$ex" dd --unroll-i=2 --jsplit=4
				continue
			fi
			check_case "$s" "$ex" float
			check_case "$s" "$ex" float --unroll-i=4 --unroll-j=2
			check_case "$s" "$ex" float --unroll-i=2 --jsplit=4 --tile=0
			check_case "$s" "$ex" float --unroll-i=1 --jsplit=8 --unroll-j=4
			check_case "$s" "$ex" double --unroll-i=2
		done >"$T/check"
		cat "$T/check"
		grep -q ',ok,' "$T/check" && ! grep -qv ',ok,' "$T/check" || bad=1
		note "slices $s: $(grep -c ',ok,' "$T/check") of $(wc -l <"$T/check") within tolerance"
	done
	return $bad
}
