#!/bin/sh
# Writes the part of each manual page docs/man/PROG.1 that the program's
# --help already says: SYNOPSIS (the usage lines), DESCRIPTION (the lead
# paragraph) and OPTIONS (an entry per flag, the headings and the notes),
# between the page's two "generated" comment lines, and the version in its
# .TH line.  Everything else on the page is written by hand.  So a flag
# added to --help reaches the page with `make man`, and tests/sh/man.sh
# (this script with --check) fails until it has.
# usage: [BIN=DIR] sh scripts/man.sh [--check] [PROG ...]
#   --check    change nothing; show what is stale and exit 1 if anything is
#   BIN        the directory of the programs to ask (default bin)
# PROGs: default every page under docs/man.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bindir=${BIN:-bin}
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
if [ $# = 0 ]; then
	for p in docs/man/*.1; do set -- "$@" "$(basename "$p" .1)"; done
fi
VERSION=$(sed -n 's/^#define NBCC_VERSION "\(.*\)"/\1/p' compiler/nbcc.h)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# --help text on stdin to roff on stdout.  Paragraphs are separated by
# blank lines; a paragraph of lines indented by two spaces is a list of
# entries (a term, two or more spaces, its text; deeper lines continue it),
# and a line ending in ':' just before such lines is their heading.
torof() {
	awk '
	function esc(s) {
		gsub(/\\/, "\\e", s)
		return dash(s)
	}
	# every "-" of an option ("-o", "--list-devices") is "\-", the
	# hyphen-minus a reader can paste (mawk has no gensub: by hand)
	function dash(s,    i, c, out, prev, opt) {
		out = ""
		prev = " "
		opt = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "-" && index(" ([|,", prev) && \
			    substr(s, i + 1, 1) ~ /[-A-Za-z0-9]/)
				opt = 1
			else if (c !~ /[-A-Za-z0-9]/)
				opt = 0
			out = out (opt && c == "-" ? "\\-" : c)
			prev = c
		}
		return out
	}
	function line(s) { # a text line: roff must not read it as a request
		if (s ~ /^[.\047]/)
			s = "\\&" s
		print s
	}
	# "--precision=P" -> bold flag, italic value; operands in italics
	function term(s,    n, i, w, out, tail, eq) {
		n = split(s, ws, / /)
		out = ""
		for (i = 1; i <= n; i++) {
			w = ws[i]
			tail = ""
			if (w ~ /,$/) { tail = ","; w = substr(w, 1, length(w) - 1) }
			if (w ~ /^-/) {
				eq = index(w, "=")
				if (eq)
					w = "\\fB" esc(substr(w, 1, eq - 1)) "\\fR=\\fI" \
					    esc(substr(w, eq + 1)) "\\fR"
				else
					w = "\\fB" esc(w) "\\fR"
			} else if (w != "") {
				w = "\\fI" esc(w) "\\fR"
			}
			out = out (i > 1 ? " " : "") w tail
		}
		return out
	}
	function flush_entry() {
		if (!inentry)
			return
		print ".TP"
		print term(eterm)
		if (etext == "" && eterm ~ /--help/)
			etext = eterm ~ /--version/ ? \
			    "print this text, or the version, and exit" : \
			    "print this text and exit"
		line(esc(etext))
		inentry = 0
	}
	function flush_par(    i, pre, any) {
		flush_entry()
		if (np == 0)
			return
		any = 0
		for (i = 1; i <= np; i++)
			if (par[i] ~ /^ /)
				any = 1
		if (!started) {
			print ".SH DESCRIPTION"
			started = 1
		} else if (!inopts) {
			print ".SH OPTIONS"
			inopts = 1
		}
		print any ? ".PP\n.nf" : ".PP"
		for (i = 1; i <= np; i++)
			line(esc(par[i]))
		if (any)
			print ".fi"
		np = 0
	}
	function entry_line(s,    m) {
		if (s ~ /^  [^ ]/) {
			flush_entry()
			s = substr(s, 3)
			m = match(s, /  +/)
			if (m) {
				eterm = substr(s, 1, m - 1)
				etext = substr(s, m + RLENGTH)
			} else {
				eterm = s
				etext = ""
			}
			inentry = 1
		} else {
			sub(/^ +/, "", s)
			etext = etext (etext == "" ? "" : " ") s
		}
	}
	function usage(s,    p) { # the program in bold
		p = index(s, " ")
		if (!p)
			return "\\fB" s "\\fR"
		return "\\fB" substr(s, 1, p - 1) "\\fR" esc(substr(s, p))
	}
	NR == 1 {
		sub(/^usage: /, "")
		print ".SH SYNOPSIS"
		print usage($0)
		syn = 1
		next
	}
	syn && /^       [^ ]/ {
		sub(/^ +/, "")
		print ".br"
		print usage($0)
		next
	}
	{ syn = 0 }
	/^$/ { flush_par(); inlist = 0; next }
	inlist { entry_line($0); next }
	/^  [^ ]/ && np == 0 && started {
		if (!inopts) { print ".SH OPTIONS"; inopts = 1 }
		inlist = 1
		entry_line($0)
		next
	}
	/^  [^ ]/ && np == 1 && par[1] ~ /:$/ && started {
		if (!inopts) { print ".SH OPTIONS"; inopts = 1 }
		h = par[1]
		sub(/:$/, "", h)
		print ".SS " esc(h)
		np = 0
		inlist = 1
		entry_line($0)
		next
	}
	{ par[++np] = $0 }
	END { flush_par() }
	'
}

# The page PROG.1 with its generated part and .TH version made anew.
page() {
	prog=$1
	src=docs/man/$prog.1
	"$bindir/$prog" --help >"$T/help" 2>&1 || {
		echo "man: $bindir/$prog --help failed" >&2
		return 1
	}
	# --help cites the tree's docs/X.md; a page is read where it is
	# installed, beside the documents in PREFIX/share/doc/nbcc
	torof <"$T/help" |
		sed 's|docs/\([A-Za-z0-9_-]*\.md\)|PREFIX/share/doc/nbcc/\1|g' >"$T/gen"
	awk -v gen="$T/gen" -v ver="$VERSION" -v prog="$prog" '
	/^\.TH / {
		n = split($0, f, "\"")
		$0 = f[1] "\"" f[2] "\" \"nbcc " ver "\" \"" f[6] "\""
	}
	/^\.\\" begin generated/ {
		print
		while ((getline l < gen) > 0)
			print l
		skip = 1
		next
	}
	/^\.\\" end generated/ { skip = 0 }
	!skip { print }
	' "$src"
}

stale=0
for prog in "$@"; do
	src=docs/man/$prog.1
	[ -f "$src" ] || { echo "man: no page $src" >&2; exit 2; }
	grep -q '^\.\\" begin generated' "$src" && grep -q '^\.\\" end generated' "$src" || {
		echo "man: $src has no begin/end generated marks" >&2
		exit 2
	}
	page "$prog" >"$T/new"
	if cmp -s "$T/new" "$src"; then
		continue
	fi
	if [ $check = 1 ]; then
		echo "man: $src is stale (sh scripts/man.sh, or make man):"
		diff -u "$src" "$T/new" | head -30
		stale=1
	else
		cp "$T/new" "$src"
		echo "man: wrote $src"
	fi
done
exit $stale
