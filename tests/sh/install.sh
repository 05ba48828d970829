# install.sh: `make install` as a distribution runs it (PREFIX=/usr into a
# DESTDIR), then what a user does with the result: the shared libraries
# carry their sonames and links and export the public API and nothing else
# (every function nbcc.h and nbrt.h declare, no other symbol, but for
# il/il.h's functions in libnbcc.so, which libnbrt.so calls); a C program
# built by `cc prog.c $(pkg-config --cflags --libs nbrt)` alone loads the
# installed example .nbl and runs it on the host, and so does one linked
# with the static libraries through pkg-config --static; the programs,
# pages (one a program, citing the documents where they are installed) and
# examples are there.  Then `make uninstall` removes exactly what install
# put there, and nothing of another package.  And make B=DIR links its
# programs into DIR/bin, not bin.  Once, in the plain pass (the sanitized
# pass builds other libraries and installs nothing).
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
if [ "${NBCC_SANITIZED:-0}" = 1 ]; then
	echo "note: NBCC_SANITIZED=1: make install is checked by the plain pass"
	exit 0
fi
scratch
D=$T/root
# a make of its own, whatever make runs this test, and with the system's
# pkg-config: the Makefile's flags depend on what it finds (Open MPI, HDF5),
# and flags that differ rewrite build/cflags.stamp, after which the next
# make rebuilds every object
mk() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u PKG_CONFIG_LIBDIR \
		-u PKG_CONFIG_SYSROOT_DIR make -s -C "$ROOT" "$@"
}

# a build tree of its own (make B=DIR) keeps its programs in DIR/bin:
# B=build-nompi MPI=0 linked them over bin/'s, which the next plain make
# then took as up to date
mk -n B="$T/b" MPI=0 all >"$T/n" 2>&1
if grep -q -- "-o $T/b/bin/nbody " "$T/n" && ! grep -q -- "-o bin/" "$T/n"
then ok "make B=DIR links into DIR/bin"
else bad "make B=$T/b does not link into $T/b/bin: $(grep -m1 -- '-o [^ ]*bin/' "$T/n")"; fi

mk install PREFIX=/usr DESTDIR="$D" >"$T/log" 2>&1 || {
	cat "$T/log"
	die "make install failed"
}
L=$D/usr/lib
V=$(sed -n 's/^#define NBCC_VERSION "\(.*\)"/\1/p' compiler/nbcc.h)
for f in bin/nbcc bin/nbrun bin/nbody bin/oneloop include/nbcc.h include/nbrt.h \
	lib/libnbcc.a lib/libnbrt.a lib/pkgconfig/nbcc.pc lib/pkgconfig/nbrt.pc \
	share/man/man1/nbcc.1 share/man/man1/nbrun.1 share/man/man1/nbody.1 \
	share/doc/nbcc/README.md share/doc/nbcc/python.md \
	share/doc/nbcc/examples/gravity.nbl; do
	[ -f "$D/usr/$f" ] && ok || bad "no /usr/$f"
done
# a page cites the installed documents by their installed paths
for p in "$D"/usr/share/man/man1/*.1; do
	for doc in $(grep -o '/usr/share/doc/nbcc/[A-Za-z0-9_-]*\.md' "$p"); do
		[ -f "$D$doc" ] && ok || bad "$(basename "$p") cites $doc, not installed"
	done
	grep -q 'PREFIX/share\|docs/[A-Za-z0-9_-]*\.md' "$p" &&
		bad "$(basename "$p") cites documents by other than their installed path"
done
[ "$(ls "$D"/usr/share/man/man1 | sed 's/\.1$//' | sort)" = \
	"$(ls "$D"/usr/bin | sort)" ] && ok || bad "a page for each program installed"
for l in nbcc nbrt; do
	[ -f "$L/lib$l.so.$V" ] && [ ! -h "$L/lib$l.so.$V" ] && ok || bad "no file lib$l.so.$V"
	[ "$(readlink "$L/lib$l.so.0")" = "lib$l.so.$V" ] && ok || bad "lib$l.so.0 is not a link to lib$l.so.$V"
	[ "$(readlink "$L/lib$l.so")" = "lib$l.so.0" ] && ok || bad "lib$l.so is not a link to lib$l.so.0"
	readelf -d "$L/lib$l.so.$V" | grep -q "SONAME.*\[lib$l.so.0\]" && ok || bad "lib$l.so: soname is not lib$l.so.0"
	# the functions the header declares (comments and all preprocessed away)
	printf '#include <%s.h>\n' "$l" | cc -E -I"$D/usr/include" - |
		grep -o "\b${l%cc}[a-z0-9_]*[[:space:]]*(" | tr -d ' (' | sort -u >"$T/decl"
	[ $l = nbcc ] && grep -v '^nbrt_' "$T/decl" >"$T/d" && mv "$T/d" "$T/decl"
	[ $l = nbrt ] && grep '^nbrt_' "$T/decl" >"$T/d" && mv "$T/d" "$T/decl"
	# libnbcc.so also exports il/il.h's functions for libnbrt.so's amdil
	# device, so that il/ is linked once (il.h says why); not installed
	[ $l = nbcc ] && cc -E "$ROOT/il/il.h" | grep -o '\bnb_il_[a-z0-9_]*[[:space:]]*(' |
		tr -d ' (' | sort -u - "$T/decl" -o "$T/decl"
	nm -D --defined-only "$L/lib$l.so.$V" | awk '{ print $3 }' | sort -u >"$T/exp"
	if ! cmp -s "$T/decl" "$T/exp"; then
		bad "lib$l.so exports other than $l.h declares (<: declared only, >: exported only):"
		diff "$T/decl" "$T/exp" | grep '^[<>]' | head -10
	fi
done

# a user's program, built from pkg-config's flags alone: the staged tree
# is the sysroot, and no other .pc file may answer
export PKG_CONFIG_LIBDIR="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
flags=$(pkg-config --cflags --libs nbrt) && ok || bad "pkg-config --cflags --libs nbrt failed"
for lib in -lnbrt -lnbcc; do
	case " $flags " in *" $lib "*) ;; *) bad "pkg-config nbrt: '$flags' lacks $lib" ;; esac
done
[ "$(pkg-config --modversion nbrt)" = "$V" ] && ok || bad "pkg-config nbrt: not version $V"
if cc -std=c11 -o "$T/prog" tests/sh/install_prog.c $flags -lm 2>"$T/cc"; then
	LD_LIBRARY_PATH=$L ldd "$T/prog" | grep -q "libnbrt.so.0 => $L/libnbrt.so.0" ||
		bad "the program is not linked to the installed libnbrt.so.0"
	out=$(LD_LIBRARY_PATH=$L NBRT_DEVICE=host NBRT_CACHE_DIR=$T/cache \
		"$T/prog" "$D/usr/share/doc/nbcc/examples/gauss_transform.nbl" 2>&1) ||
		bad "the program failed: $out"
	echo "install: C program from pkg-config: $out"
else
	cat "$T/cc"
	bad "cc \$(pkg-config --cflags --libs nbrt) failed"
fi
# the same, static: libnbrt.a and libnbcc.a with pkg-config --static's
# private flags (OpenMP's among them: the host back end's conversions)
sflags=$(pkg-config --cflags --libs --static nbrt |
	sed 's/\(-lnb\(rt\|cc\)\) /-Wl,-Bstatic \1 -Wl,-Bdynamic /g')
if cc -std=c11 -o "$T/sprog" tests/sh/install_prog.c $sflags 2>"$T/cc"; then
	LD_LIBRARY_PATH=$L ldd "$T/sprog" | grep -q "libnbrt\|libnbcc" &&
		bad "the static program still loads libnbrt.so or libnbcc.so"
	out=$(NBRT_DEVICE=host NBRT_CACHE_DIR=$T/cache "$T/sprog" \
		"$D/usr/share/doc/nbcc/examples/gauss_transform.nbl" 2>&1) &&
		ok "static: $out" || bad "the static program failed: $out"
else
	cat "$T/cc"
	bad "cc \$(pkg-config --cflags --libs --static nbrt), libraries static, failed"
fi
"$D/usr/bin/nbcc" --version >/dev/null && ok || bad "the installed nbcc does not run"

# uninstall: the staged files gone, a file of another package kept
mkdir -p "$D/usr/share/doc/other"
echo keep >"$D/usr/share/doc/other/README"
echo keep >"$L/libother.so"
mk uninstall PREFIX=/usr DESTDIR="$D" >"$T/log" 2>&1 || {
	cat "$T/log"
	bad "make uninstall failed"
}
left=$(cd "$D" && find . ! -type d | sort | tr '\n' ' ')
[ "$left" = "./usr/lib/libother.so ./usr/share/doc/other/README " ] ||
	bad "after uninstall: $left"
[ -d "$D/usr/share/doc/nbcc" ] && bad "uninstall left share/doc/nbcc"
[ "$fails" = 0 ] && echo "install: install, pkg-config, uninstall ok"
finish install
