# Build options that would silently destroy the low words of dd results
# (issue 7: -cl-fast-relaxed-math lost 53-99% of them) are refused for dd
# kernels, with a message naming the option, its source and the kernel:
#  - from $NBRT_CL_OPTIONS and from an edited .cl header on OpenCL (PoCL),
#    while float and double kernels still take them;
#  - from $NBRT_CC / $CC, $NBRT_HOST_CFLAGS and an edited .c header on
#    the host path;
#  - ddlib.h itself stops a build under the macros such options define;
#  - nbcc --fast-math --precision=dd warns, asks for no such option and
#    gives the same dd results (compared as dd, tests/sh/ddcmp.c).
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
. tests/device.sh
scratch
export NBRT_CACHE_DIR="$T/cache"
mkdir -p "$NBRT_CACHE_DIR"
unset NBRT_CL_OPTIONS NBRT_CC NBRT_HOST_CFLAGS || true
fail=0
has() { # file pattern what
	if grep -q -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3"; fail=1; fi
}
# refused ENVVAR VALUE SOURCE-IN-MESSAGE OPTION what -- nbrun args
refused() {
	var=$1 val=$2 from=$3 opt=$4 what=$5
	shift 6
	if env "$var=$val" "$BIN/nbrun" "$@" -o "$T/o.csv" 2>"$T/err"; then
		echo "FAIL $what: ran"; fail=1
	else
		has "$T/err" "refusing the build option '$opt' from $from for a kernel with double-double arithmetic" "$what"
	fi
}
accepted() { # ENVVAR VALUE what -- nbrun args
	var=$1 val=$2 what=$3
	shift 4
	if env "$var=$val" "$BIN/nbrun" "$@" -o "$T/o.csv" 2>"$T/err"; then
		echo "ok   $what"
	else
		cat "$T/err"; echo "FAIL $what"; fail=1
	fi
}
DD="dsl-examples/oneloop.nbl --random 5,7 --seed 1"
G=dsl-examples/gravity.nbl

have_cl=0
have_device cpu && have_cl=1
if [ $have_cl = 1 ]; then
	# OpenCL: every option on the list, alone and among harmless ones
	for o in -cl-fast-relaxed-math -cl-unsafe-math-optimizations \
		-cl-finite-math-only -cl-no-signed-zeros -cl-mad-enable \
		-cl-denorms-are-zero -cl-single-precision-constant; do
		refused NBRT_CL_OPTIONS "-w $o" '\$NBRT_CL_OPTIONS' "$o" \
			"dd refuses $o on OpenCL" -- $DD --device cpu
	done
	has "$T/err" "^nbrun: error: dsl-examples/oneloop.nbl: refusing" "the message names the kernel"
	refused NBRT_CL_OPTIONS -cl-fast-relaxed-math '\$NBRT_CL_OPTIONS' \
		-cl-fast-relaxed-math "gravity in dd too" -- $G --precision=dd \
		--random 5,7 --device cpu
	accepted NBRT_CL_OPTIONS -cl-fast-relaxed-math "a float kernel takes -cl-fast-relaxed-math" \
		-- $G --random 5,7 --device cpu
	accepted NBRT_CL_OPTIONS -cl-unsafe-math-optimizations \
		"a double kernel takes -cl-unsafe-math-optimizations" \
		-- $G --precision=double --random 5,7 --device cpu
	accepted NBRT_CL_OPTIONS -cl-kernel-arg-info "dd takes a harmless option" \
		-- $DD --device cpu
else
	echo "skip: no OpenCL CPU device: the OpenCL refusals are not tried"
fi

# an edited header asking for fast math
"$NBCC" dsl-examples/oneloop.nbl -o "$T/dd.cl"
"$NBCC" dsl-examples/oneloop.nbl -o "$T/dd.c"
sed '/^ \* flags /a\
 * options -cl-fast-relaxed-math' "$T/dd.cl" >"$T/evil.cl"
sed '/^ \* flags /a\
 * options -ffast-math' "$T/dd.c" >"$T/evil.c"
[ $have_cl = 0 ] || refused X 1 "its interface header" -cl-fast-relaxed-math \
	"dd refuses a .cl header's fast math" -- "$T/evil.cl" --random 5,7 --device cpu
refused X 1 "its interface header" -ffast-math \
	"dd refuses a .c header's fast math" -- "$T/evil.c" --random 5,7 --target c

# the host path: flags carried in the compiler command
refused NBRT_CC "cc -ffast-math" '\$NBRT_CC' -ffast-math \
	"host dd refuses \$NBRT_CC=cc -ffast-math" -- $DD --target c
refused NBRT_CC "cc -O2 '-funsafe-math-optimizations'" '\$NBRT_CC' \
	-funsafe-math-optimizations "host dd refuses a quoted flag" -- $DD --target c
refused CC "cc -Ofast" '\$CC' -Ofast "host dd refuses \$CC=cc -Ofast" \
	-- $DD --target c
for o in -fassociative-math -freciprocal-math -ffinite-math-only \
	-fno-signed-zeros -mdaz-ftz -mfpmath=387; do
	refused NBRT_CC "cc $o" '\$NBRT_CC' "$o" "host dd refuses $o" \
		-- $DD --target c
done
accepted NBRT_CC "cc -ffast-math" "a float kernel takes \$NBRT_CC=cc -ffast-math" \
	-- $G --random 5,7 --target c
accepted NBRT_CC "cc -ffp-contract=fast" "host dd takes -ffp-contract=fast" \
	-- $DD --target c
# $NBRT_HOST_CFLAGS (make check's -O0 for compile-bound tests) comes after
# the built-in flags, so it is checked as $NBRT_CC is, and reaches cc
refused NBRT_HOST_CFLAGS "-O0 -ffast-math" '\$NBRT_HOST_CFLAGS' -ffast-math \
	"host dd refuses \$NBRT_HOST_CFLAGS=-O0 -ffast-math" -- $DD --target c
accepted NBRT_HOST_CFLAGS -O0 "host dd takes \$NBRT_HOST_CFLAGS=-O0" \
	-- $DD --target c
cp "$T/o.csv" "$T/o0.csv"
"$BIN/nbrun" $DD --target c -o "$T/o3.csv" 2>"$T/err" ||
	{ cat "$T/err"; echo "FAIL the host path's dd"; fail=1; }
NBRT_VERBOSE=1 NBRT_HOST_CFLAGS="-O1 -g0" "$BIN/nbrun" $DD --target c \
	-o "$T/o.csv" 2>"$T/err" || { echo "FAIL NBRT_HOST_CFLAGS=-O1"; fail=1; }
has "$T/err" "^nbrt: compiling .* -fPIC -shared -O1 -g0 .*-o " \
	"\$NBRT_HOST_CFLAGS follows the built-in flags on cc's command line"
# the same arithmetic at any -O (-std=c11: no contraction)
if cmp -s "$T/o.csv" "$T/o0.csv" && cmp -s "$T/o.csv" "$T/o3.csv"; then
	echo "ok   -O0, -O1 and the built-in -O3 give the same dd results"
else
	echo "FAIL -O0, -O1 and -O3 give other dd results"; fail=1
fi

# ddlib.h refuses to compile under the macros fast math defines
printf '#include <math.h>\n#include "ddlib.h"\n' >"$T/lib.c"
if cc -std=c11 -fsyntax-only -Icompiler "$T/lib.c" 2>"$T/err"; then
	echo "ok   ddlib.h compiles as C"
else
	cat "$T/err"; echo "FAIL ddlib.h compiles as C"; fail=1
fi
for o in -ffast-math -funsafe-math-optimizations -ffinite-math-only \
	-fno-signed-zeros; do
	if cc -std=c11 $o -fsyntax-only -Icompiler "$T/lib.c" 2>"$T/err"; then
		echo "FAIL ddlib.h compiles under cc $o"; fail=1
	else
		has "$T/err" "cannot be built with fast-math options" "ddlib.h: #error under cc $o"
	fi
done
if command -v clang >/dev/null 2>&1; then
	printf '#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#include "ddlib.h"\n' \
		>"$T/lib.cl"
	cl="clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Icompiler"
	if $cl "$T/lib.cl" 2>"$T/err"; then
		echo "ok   ddlib.h compiles as OpenCL C"
	else
		cat "$T/err"; echo "FAIL ddlib.h compiles as OpenCL C"; fail=1
	fi
	if $cl -cl-fast-relaxed-math "$T/lib.cl" 2>"$T/err"; then
		echo "FAIL ddlib.h compiles under -cl-fast-relaxed-math"; fail=1
	else
		has "$T/err" "cannot be built with fast-math options" \
			"ddlib.h: #error under -cl-fast-relaxed-math (__FAST_RELAXED_MATH__)"
	fi
else
	echo "skip ddlib.h under clang -x cl: no clang"
fi

# nbcc --fast-math leaves dd arithmetic exact: a warning, no build option,
# and the same results as dd
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$T/ddcmp" tests/sh/ddcmp.c \
	-lqd -lstdc++ -lm
"$NBCC" dsl-examples/oneloop.nbl --fast-math -o "$T/fm.cl" 2>"$T/err"
has "$T/err" "warning: --fast-math does not reach dd arithmetic" "nbcc --fast-math warns for dd"
if grep -q '^ \* options' "$T/fm.cl"; then
	echo "FAIL --fast-math dd asks for a build option"; fail=1
else
	echo "ok   --fast-math dd asks for no build option"
fi
devs=host
[ $have_cl = 0 ] || devs="cpu host"
for d in $devs; do
	dev="--device $d"
	[ $d = host ] && dev="--target c"
	"$BIN/nbrun" dsl-examples/oneloop.nbl --random 301,299 --seed 5 $dev \
		-o "$T/a.csv" 2>/dev/null
	"$BIN/nbrun" dsl-examples/oneloop.nbl --random 301,299 --seed 5 $dev \
		--fast-math -o "$T/b.csv" 2>/dev/null
	m=$("$T/ddcmp" "$T/a.csv" "$T/b.csv" | sed -n 's/^max //p')
	if awk -v m="$m" 'BEGIN { exit !(m <= 1e-28) }'; then
		echo "ok   --fast-math dd results $dev within 1e-28 ($m)"
	else
		echo "FAIL --fast-math dd results $dev differ by $m"; fail=1
	fi
done
[ $fail = 0 ] && [ $have_cl = 0 ] && exit 77
exit $fail
