# man.sh: each manual page under docs/man says what its program's --help
# says.  scripts/man.sh --check regenerates the pages' generated part and
# compares (NBCC_UPDATE=1: rewrites it, as make man does); then,
# independently of that script, every flag --help lists must head an
# entry of the page's OPTIONS and every entry must be a flag --help lists;
# and groff, where it is installed, must format each page without a
# warning.  Fix a failure with `make man`.
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
if [ "${NBCC_UPDATE:-0}" = 1 ]; then
	BIN=$BIN sh scripts/man.sh
else
	BIN=$BIN sh scripts/man.sh --check
fi
if [ $? = 0 ]; then ok; else bad "scripts/man.sh: the pages are stale"; fi
# the documents a page cites are where make install puts them
cited=$(grep -n 'docs/[A-Za-z0-9_-]*\.md' docs/man/*.1)
[ -z "$cited" ] && ok || bad "pages cite the tree's docs/, not PREFIX/share/doc/nbcc: $cited"
scratch
n=0
for page in docs/man/*.1; do
	prog=$(basename "$page" .1)
	[ -x "$BIN/$prog" ] || { bad "$page: no program $BIN/$prog"; continue; }
	n=$((n + 1))
	# "  --unroll-i=N  text" and "  --help, --version": the flag names
	"$BIN/$prog" --help | sed -n 's/^  \(-[^ ].*\)$/\1/p' |
		sed 's/   *.*//; s/, /\n/g' | sed 's/[ =].*//' | sort -u >"$T/help"
	# the page's entries: the bold words of each line after .TP
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$page" |
		grep -o '\\fB[^\\]*\(\\-[^\\]*\)*\\fR' | sed 's/\\fB//; s/\\fR//; s/\\-/-/g' |
		grep '^-' | sort -u >"$T/page"
	[ -s "$T/help" ] || bad "$prog --help lists no flag"
	missing=$(comm -23 "$T/help" "$T/page" | tr '\n' ' ')
	extra=$(comm -13 "$T/help" "$T/page" | tr '\n' ' ')
	if [ -z "$missing$extra" ]; then ok; else
		[ -z "$missing" ] || bad "$page has no entry for $missing(see make man)"
		[ -z "$extra" ] || bad "$page has entries for $extra, which $prog --help does not list"
	fi
	if command -v groff >/dev/null 2>&1; then
		groff -man -Tutf8 -ww -z "$page" >"$T/groff" 2>&1
		if [ -s "$T/groff" ]; then
			bad "$page: groff warns:"
			head -5 "$T/groff"
		else
			ok
		fi
	fi
done
[ $n -gt 0 ] || bad "no pages under docs/man"
echo "man: $n pages"
finish man
