# host_cc.sh: the host device's C compiler command (runtime/nbrt_host.c)
# runs with no shell: $NBRT_CC (else $CC) and $NBRT_HOST_CFLAGS are split
# into words as sh splits them, quotes and all, but a $(...), a `...` or a
# ; in them is a byte of a word for cc, never a command (through popen's
# sh, NBRT_CC='cc; touch F' and NBRT_HOST_CFLAGS='$(touch F)' made F).
# An open quote, a command of no words, a compiler that is not there and a
# $TMPDIR that cannot hold the build are refused by name, escaped.  Build
# options shown in a refusal (an edited header's, $NBRT_CL_OPTIONS on an
# OpenCL CPU device where there is one) are escaped too, and so is the
# compiler's output or build log shown with a failure, line by line:
# their bytes went to the terminal raw.
set -u
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/device.sh"
scratch
checks=0 fails=0
export NBRT_CACHE=0 TMPDIR="$T/tmp"
mkdir "$T/tmp"
unset NBRT_DEVICE NBRT_CC NBRT_HOST_CFLAGS CC NBRT_VERBOSE || true
G="$ROOT/dsl-examples/gravity.nbl --random 5,7 --seed 1 --device host"
M=$T/made

# refused MESSAGE VAR=VALUE...: the run fails with exactly that error line
# first, and makes no $M
refused() {
	want=$1
	shift
	rc=0
	env "$@" "$BIN/nbrun" $G >/dev/null 2>"$T/err" || rc=$?
	got=$(grep -m1 '^nbrun: error: ' "$T/err")
	if [ $rc = 1 ] && [ "$got" = "nbrun: error: $want" ] && [ ! -e "$M" ]
	then ok "$want"
	else bad "got exit $rc, '$got'$( [ ! -e "$M" ] || echo ', made the file'), want '$want'"
	fi
	rm -f "$M"
}
K="$ROOT/dsl-examples/gravity.nbl"
refused "cannot compile $K: cannot run 'cc;': No such file or directory" \
	"NBRT_CC=cc; touch $M;"
refused "cannot compile $K: cannot run 'cc|touch': No such file or directory" \
	"CC=cc|touch $M"
refused "cannot compile $K with 'cc' (exit status 1):" \
	"NBRT_HOST_CFLAGS=-O0 \$(touch $M)"
refused "cannot compile $K with 'cc' (exit status 1):" \
	"NBRT_HOST_CFLAGS=-O0 \`touch $M\`"
refused "NBRT_HOST_CFLAGS='-O0 '-DX': a quote is left open" \
	"NBRT_HOST_CFLAGS=-O0 '-DX"
refused "NBRT_CC='cc \"-O1': a quote is left open" \
	"NBRT_CC=cc \"-O1"
refused "NBRT_CC='  ' names no C compiler" \
	"NBRT_CC=  "
refused "cannot compile $K: cannot run 'cc\\x1b[2J': No such file or directory" \
	"CC=$(printf 'cc\033[2J')"
refused "$K: cannot make a temporary directory in '$T/none' (\$TMPDIR): No such file or directory" \
	"TMPDIR=$T/none"
refused "$K: cannot make a temporary directory in '$T/\\x1b[2J' (\$TMPDIR): No such file or directory" \
	"TMPDIR=$(printf '%s/\033[2J' "$T")"

# the compiler's own output, shown in the refusal, is escaped too, line by
# line: its control bytes went to the terminal raw
printf '#!/bin/sh\nprintf "bad: \\033[2J\\n\\tnext\\177\\n"\nexit 1\n' \
	>"$T/badcc"
chmod +x "$T/badcc"
NBRT_CC="$T/badcc" "$BIN/nbrun" $G >/dev/null 2>"$T/err"
tab=$(printf '\t')
if grep -qxF 'bad: \x1b[2J' "$T/err" && grep -qxF "${tab}next\\x7f" "$T/err" &&
   ! grep -q "$(printf '[\033\177]')" "$T/err"; then
	ok "the compiler's output escaped, line by line"
else bad "the compiler's output shown raw: $(od -c "$T/err" | head -5)"; fi

# an edited header's option, and $NBRT_CL_OPTIONS, shown escaped
"$NBCC" "$K" -o "$T/g.c"
sed 's/^\( \* options \).*/\1-ffast-math\\x1b[2J/' "$T/g.c" >"$T/evil.c"
"$BIN/nbrun" "$T/evil.c" --random 5,7 --device host >/dev/null 2>"$T/err"
want="nbrun: error: $T/evil.c: the kernel asks for the build option '-ffast-math\x1b[2J', which this runtime does not pass on"
if [ "$(cat "$T/err")" = "$want" ]; then ok "a header's option escaped"
else bad "got '$(cat "$T/err")', want '$want'"; fi
if have_device cpu; then
	NBRT_CL_OPTIONS=$(printf -- '-w\n\033[2J') "$BIN/nbrun" "$K" --random 5,7 \
		--device cpu >/dev/null 2>"$T/err"
	if grep -qF "options '-cl-std=CL1.2" "$T/err" &&
	   grep -qF -- "-w\n\x1b[2J'; build log:" "$T/err"; then
		ok "\$NBRT_CL_OPTIONS escaped in clBuildProgram's failure"
	else bad "NBRT_CL_OPTIONS shown raw: $(head -1 "$T/err")"; fi
	# and in PoCL's build log after it, which names the bad option
	if ! grep -q "$(printf '\033')" "$T/err"; then
		ok "the build log escaped"
	else bad "the build log shown raw: $(sed 1d "$T/err" | od -c | head -3)"; fi
fi

# sh's quoting still holds, and cc gets exactly these words: a wrapper
# writes its arguments a line each
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\nexec cc "$@"\n' "$T/args" \
	>"$T/argcc"
chmod +x "$T/argcc"
if NBRT_CC="$T/argcc" NBRT_HOST_CFLAGS="-O0 '-DX=a b' \"-DY=\$HOME\\\"\" -DZ=\\; -DW=\$(id)" \
	"$BIN/nbrun" $G >/dev/null 2>"$T/err"; then
	ok "a run through the wrapper"
else
	bad "a run through the wrapper: $(cat "$T/err")"
fi
for w in '-DX=a b' '-DY=$HOME"' '-DZ=;' '-DW=$(id)' -O0 -shared; do
	if grep -qxF -- "$w" "$T/args"; then ok "cc's word $w"
	else bad "no word '$w' among cc's: $(cat "$T/args")"; fi
done
case $(uname -m) in
x86_64)
	if grep -qxF -- '-mrecip=!vec-sqrt' "$T/args"; then
		ok "the built-in flags' quotes are taken away"
	else bad "-mrecip=!vec-sqrt is not a word of cc's"; fi
esac
finish
