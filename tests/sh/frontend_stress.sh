# frontend_stress.sh: hostile and huge sources, generated here (nothing big
# lives in git), and the command line's promises about files.  Every run
# must end by itself within a time limit, with status 0 or 1 (never a
# signal), and with a message when it fails; a failed compilation never
# touches an existing output file.
set -u
. "$ROOT/tests/lib.sh"
scratch
# sanitized binaries run several times slower
if [ "${NBCC_SANITIZED:-0}" = 1 ]; then LIMIT=60; else LIMIT=15; fi

# run NAME WANT PATTERN ARGS...: nbcc ARGS must exit with WANT (0 or 1)
# within LIMIT seconds; with WANT 1 its messages must match PATTERN (a
# grep -E pattern), and with WANT 0 its output (standard output, or the
# file OUTF) must not be empty.
OUTF=$T/k.cl
run() {
	name=$1 want=$2 pat=$3
	shift 3
	t0=$(date +%s)
	timeout "$LIMIT" "$NBCC" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	secs=$(($(date +%s) - t0))
	echo "$name: exit $rc in ${secs}s"
	if [ "$rc" -ge 124 ]; then
		bad "$name: killed or timed out (exit $rc)"
		head -c 600 "$T/err"
		return
	fi
	[ "$rc" = "$want" ] || { bad "$name: exit $rc, expected $want";
		head -c 600 "$T/err"; return; }
	if [ "$want" = 1 ]; then
		if grep -Eq -- "$pat" "$T/err"; then ok; else
			bad "$name: no message matching '$pat'"; head -c 600 "$T/err"; fi
	elif [ -s "$T/out" ] || [ -s "$OUTF" ]; then ok
	else bad "$name: no output"; fi
	rm -f "$T/k.cl"
}

# --- hostile bytes ------------------------------------------------------
: >"$T/empty.nbl"
run empty 1 'empty\.nbl:1:1: error: the file has no declarations' "$T/empty.nbl"
printf '// a comment\n/* and\n another */\n' >"$T/comments.nbl"
run only-comments 1 'comments\.nbl:3:12: error: ' "$T/comments.nbl"
printf 'LMEM x;\000RMEM r;\nr += x;\n' >"$T/nul.nbl"
run nul-byte 1 'nul\.nbl:1:8: error: unexpected NUL byte' "$T/nul.nbl"
printf 'LMEM x\377\376;\nRMEM r;\nr += x\303;\n' >"$T/utf.nbl"
run bad-utf8 1 'utf\.nbl:1:7: error: unexpected byte 0xFF \(not valid UTF-8\)' \
	"$T/utf.nbl"
printf 'LMEM x\303\251;\nRMEM r;\nr += x;\n' >"$T/utf2.nbl"
run utf8-name 1 'utf2\.nbl:1:7: error: unexpected character U\+00E9' "$T/utf2.nbl"
head -c 200000 /dev/urandom >"$T/random.nbl"
run random-bytes 1 'random\.nbl:[0-9]+:[0-9]+: error: ' "$T/random.nbl"
head -c 10000000 /dev/zero >"$T/zeros.nbl"
run ten-mb-of-nul 1 'too many errors' "$T/zeros.nbl"

# --- deep and long --------------------------------------------------------
# LMEM x; RMEM r; r += (((...(x)...)));  with N pairs
parens() {
	awk -v n="$1" 'BEGIN { printf "LMEM x;\nRMEM r;\nr += ";
		for (i = 0; i < n; i++) printf "(";
		printf "x";
		for (i = 0; i < n; i++) printf ")";
		print ";" }'
}
parens 100000 >"$T/parens.nbl"
run parens-100000 0 '' "$T/parens.nbl" -o "$T/k.cl"
parens 300000 >"$T/parens3.nbl"
run parens-300000 1 'error: input nested too deeply for the parser' \
	"$T/parens3.nbl"
awk 'BEGIN { printf "LMEM x;\nRMEM r;\nr += ";
	for (i = 0; i < 100000; i++) printf "-";
	print "x;" }' >"$T/minus.nbl"
run minus-100000 1 'minus\.nbl:3:[0-9]+: error: expression too deeply nested' \
	"$T/minus.nbl"
awk 'BEGIN { printf "LMEM x;\nRMEM r;\nr += x";
	for (i = 1; i < 1000000; i++) printf "+x";
	print ";" }' >"$T/sum.nbl"
run sum-1e6-terms 1 'error: expression too deeply nested .*split it' "$T/sum.nbl"
# one 10 MB expression that is not deep: a balanced tree of 2^19 leaves
awk 'BEGIN { s = "x_long_name_12345"; for (i = 0; i < 19; i++) s = "(" s "+" s ")";
	printf "LMEM x_long_name_12345;\nRMEM r;\nr += %s;\n", s }' >"$T/balanced.nbl"
[ "$(wc -c <"$T/balanced.nbl")" -gt 10000000 ] && ok || bad "balanced.nbl is too small"
run balanced-10mb 0 '' "$T/balanced.nbl" --emit=ast
# 10 MB of statements: the front end in full, and 1 MB to code
stmts() {
	awk -v n="$1" 'BEGIN { print "LMEM a;\nBMEM b;\nRMEM r;";
		for (i = 0; i < n; i++)
			printf "t%d = a*b + %d.5; // comment %d\nr += t%d;\n", i, i, i, i }'
}
stmts 200000 >"$T/stmts.nbl"
[ "$(wc -c <"$T/stmts.nbl")" -gt 10000000 ] && ok || bad "stmts.nbl is too small"
run stmts-10mb 0 '' "$T/stmts.nbl" --emit=ast
stmts 20000 >"$T/stmts1.nbl"
run stmts-1mb-code 0 '' "$T/stmts1.nbl" -o "$T/k.cl"
# an error at the very end is found, with the right line number
{ cat "$T/stmts1.nbl"; echo 'r += undeclared;'; } >"$T/stmts_err.nbl"
run stmts-1mb-error 1 "stmts_err\.nbl:40004:6: error: 'undeclared' is not declared" \
	"$T/stmts_err.nbl" --emit=ast
# option comments are read before parsing; 200 000 of them (a message for
# the first 20) must not take quadratic time
awk 'BEGIN { print "LMEM x;\nRMEM r;\nr += x;";
	for (i = 0; i < 200000; i++) print "// nbcc-options: --unroll-i=2 --bad" }' \
	>"$T/opts.nbl"
run option-comments 1 'opts\.nbl:4:[0-9]+: error: in nbcc-options: unknown flag' "$T/opts.nbl"
# warnings are limited like errors: 200 000 unused names on one line
awk 'BEGIN { printf "LMEM a0"; for (i = 1; i < 200000; i++) printf ", a%d", i;
	print ";\nRMEM r;\nr += 1;" }' >"$T/unused.nbl"
run unused-names 0 '' "$T/unused.nbl" --emit=ast
grep -q 'note: 199980 more names are never used' "$T/err" ||
	bad "unused-names: no summary of the unlisted warnings"
awk 'BEGIN { for (i = 0; i < 1000000; i++) print "r += $ 1;" }' >"$T/errs.nbl"
run many-errors 1 'too many errors, stopping' "$T/errs.nbl"
awk 'BEGIN { printf "LMEM x;\nRMEM r;\nr += x"; for (i = 0; i < 5000000; i++)
	printf " "; print ";" }' >"$T/spaces.nbl"
run long-line 0 '' "$T/spaces.nbl" --emit=ast

# --- files and the command line -------------------------------------------
printf 'LMEM x;\nRMEM r;\nr += x*;\n' >"$T/bad.nbl"
printf 'LMEM x;\nRMEM r;\nr += x*x;\n' >"$T/good.nbl"
echo "keep me" >"$T/old.cl"
touch -d '2001-02-03 04:05:06' "$T/old.cl"
before=$(stat -c %Y "$T/old.cl")
run bad-keeps-output 1 'bad\.nbl:3:8: error: expected an expression' \
	"$T/bad.nbl" -o "$T/old.cl"
[ "$(cat "$T/old.cl")" = "keep me" ] && ok || bad "failed compile changed old.cl"
[ "$(stat -c %Y "$T/old.cl")" = "$before" ] && ok || bad "failed compile touched old.cl"
run bad-makes-no-output 1 'error:' "$T/bad.nbl" -o "$T/new.cl"
[ ! -e "$T/new.cl" ] && ok || bad "failed compile created new.cl"
OUTF=$T/old.cl run good-replaces-output 0 '' "$T/good.nbl" -o "$T/old.cl"
grep -q '__kernel' "$T/old.cl" && ok || bad "good compile did not write old.cl"
leftover=$(find "$T" -name '*.tmp*' -o -name '.*.cl*' | head -1)
[ -z "$leftover" ] && ok || bad "temporary file left behind: $leftover"

run missing-input 1 'nbcc: error: .*nothere\.nbl' "$T/nothere.nbl"
run directory-input 1 'nbcc: error: .*' "$T"
if [ "$(id -u)" != 0 ]; then # root reads anything
	cp "$T/good.nbl" "$T/secret.nbl"
	chmod 000 "$T/secret.nbl"
	run unreadable-input 1 'nbcc: error: .*secret\.nbl' "$T/secret.nbl"
fi
run bad-output-dir 1 'nbcc: error: .*nodir' "$T/good.nbl" -o "$T/nodir/k.cl"

# usage errors exit with 2, with a message
"$NBCC" "$T/good.nbl" --no-such-flag >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 2 ] && ok || bad "unknown flag: exit $rc, expected 2"
grep -q "unknown option '--no-such-flag'" "$T/err" && ok || bad "unknown flag: no message"
"$NBCC" >"$T/out" 2>"$T/err"
[ $? = 2 ] && grep -q 'no input file' "$T/err" && ok || bad "no input: wrong status or message"

# standard input
"$NBCC" - --emit=ast <"$T/good.nbl" >"$T/out" 2>"$T/err" ||
	bad "stdin: failed: $(cat "$T/err")"
grep -qx 'r += (mul:float x x)' "$T/out" && ok || bad "stdin: wrong AST"
"$NBCC" - --emit=ast <"$T/bad.nbl" >"$T/out" 2>"$T/err"
[ $? = 1 ] && ok || bad "stdin with an error: wrong status"
grep -q '^<stdin>:3:8: error: expected an expression' "$T/err" ||
	bad "stdin: messages do not name <stdin>"

finish frontend_stress
