# The bench drivers' CSV rows (bin/treebench, bin/nbneighbours,
# bin/nbbench) on the host C path, whose device name holds a comma
# ("host C (cc -O3 -march=native, OpenMP)"): each row splits on every
# comma, as the bench suites' awk splits it, into its header's number of
# fields, and the device column is the name quoted, its commas as ';'
# (csv_print_text in apps/common/csv.c; treebench had printed it bare and
# nbneighbours quoted, both shifting the columns after it).
set -u
. "$ROOT/tests/lib.sh"
scratch
shared_cache
cd "$ROOT" || exit 1
name=$("$BIN/nbrun" --device host --device-info 2>/dev/null |
	sed -n 's/^device //p')
case $name in *,*) ok "the host's name has a comma: $name" ;;
	*) die "the host's name has no comma to test with: '$name'" ;; esac
want="\"$(echo "$name" | tr , ';')\""
# check WHAT FILE: the header (line 1) and the last row agree
check() {
	if awk -F, -v want="$want" '
		NR == 1 { n = NF; for (k = 1; k <= NF; k++) if ($k == "device") d = k }
		END { exit !(NF == n && d && $d == want) }' "$2"; then
		ok "$1: $(awk -F, 'END { print NF }' "$2") fields, device $want"
	else
		bad "$1: header and row differ, or no device $want: $(cat "$2")"
	fi
}
"$BIN/treebench" 1024 0.5 host >"$T/tree" 2>"$T/err" &&
	check treebench "$T/tree" || bad "treebench: $(cat "$T/err")"
# TREEBENCH_REF: direct's results written by one run and read by the
# next, which runs no direct (direct_s nan) and gives the same errors
# (err_median, err_99) as the run against its own direct results
TREEBENCH_REF="$T/ref" "$BIN/treebench" 1024 0.5 host >"$T/r1" 2>"$T/err" &&
	TREEBENCH_REF="$T/ref" "$BIN/treebench" 1024 0.5 host >"$T/r2" \
		2>"$T/err" || bad "treebench with TREEBENCH_REF: $(cat "$T/err")"
e0=$(tail -n 1 "$T/tree" | cut -d, -f19,20)
e2=$(tail -n 1 "$T/r2" | cut -d, -f5,19,20)
if [ -s "$T/ref" ] && [ "$e2" = "nan,$e0" ]; then
	ok "treebench: the errors against TREEBENCH_REF are direct's ($e0)"
else
	bad "treebench: TREEBENCH_REF gave '$e2', direct 'nan,$e0'"
fi
TREEBENCH_JSPLIT=4 "$BIN/treebench" 1024 0.5 host >"$T/js" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && grep -q "TREEBENCH_JSPLIT '4': two j-splits" "$T/err"; then
	ok "treebench: TREEBENCH_JSPLIT of one value refused"
else
	bad "treebench: TREEBENCH_JSPLIT=4: exit $rc, $(cat "$T/err")"
fi
"$BIN/nbneighbours" lj 1024 --device host --reps 1 >"$T/nb" 2>"$T/err" &&
	check nbneighbours "$T/nb" || bad "nbneighbours: $(cat "$T/err")"
"$BIN/nbbench" dsl-examples/gravity.nbl 64 -r 1 --device host --header \
	>"$T/bench" 2>"$T/err" && check nbbench "$T/bench" ||
	bad "nbbench: $(cat "$T/err")"
finish
