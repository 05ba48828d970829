#!/bin/sh
# Re-runs the commands shown in the documentation and puts their real
# output back in place.  A block that opens with ```console and whose next
# line starts with "$ " is one command (continued through a line "EOF" when
# it holds a <<'EOF' here-document); the rest of the block is its standard
# output and error, as run from the repository root after `make`.
# usage: sh docs/regen.sh [--check] [--bin DIR] [FILE.md ...]
#   --check    change nothing; show what is stale and exit 1 if anything is
#   --bin DIR  run DIR's programs as bin/ (build-san/bin, for one): the
#              commands then run in a scratch tree of links to this one,
#              so their output names the same paths
# FILEs are relative to the repository root (default: language.md and
# tutorial.md, whose blocks run only bin/nbcc: no device, no timing).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
check=0
bindir=
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1; shift ;;
	--bin)
		[ $# -ge 2 ] || { echo "regen: --bin needs a directory" >&2; exit 2; }
		bindir=$2
		shift 2
		;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- docs/language.md docs/tutorial.md
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W=$ROOT
if [ -n "$bindir" ]; then
	bindir=$(cd "$bindir" && pwd) || exit 2
	if [ "$bindir" != "$ROOT/bin" ]; then
		W=$T/tree
		mkdir "$W"
		for e in "$ROOT"/*; do
			[ "$e" = "$ROOT/bin" ] || ln -s "$e" "$W/"
		done
		ln -s "$bindir" "$W/bin"
	fi
fi
[ -x "$W/bin/nbcc" ] || { echo "regen: $W/bin/nbcc is missing; run make" >&2; exit 2; }
stale=0
for md in "$@"; do
	case $md in
	/*) ;;
	*) md=$ROOT/$md ;;
	esac
	[ -f "$md" ] || { echo "regen: no file $md" >&2; exit 2; }
	(cd "$W" && awk -v tmp="$T" '
	function run(   line) {
		close(tmp "/cmd")
		system("sh " tmp "/cmd >" tmp "/out 2>&1")
		while ((getline line < (tmp "/out")) > 0)
			print line
		close(tmp "/out")
	}
	# state 0: text; 1: command here-document; 2: old output, skipped
	state == 0 && prev == "```console" && /^\$ / {
		print
		printf "%s\n", substr($0, 3) > (tmp "/cmd")
		if (index($0, "<<'\''EOF'\''")) {
			state = 1
		} else {
			run()
			state = 2
		}
		prev = $0
		next
	}
	state == 1 {
		print
		print > (tmp "/cmd")
		if ($0 == "EOF") {
			run()
			state = 2
		}
		next
	}
	state == 2 && $0 != "```" { next }
	state == 2 { state = 0 }
	{ print; prev = $0 }
	' "$md") >"$T/new"
	if cmp -s "$md" "$T/new"; then
		continue
	fi
	if [ $check = 1 ]; then
		echo "regen: ${md#"$ROOT"/} is stale (run: sh docs/regen.sh)"
		diff -u "$md" "$T/new" | head -40 || true
		stale=1
	else
		# a temporary beside it and a rename: never a half-written page
		cp "$T/new" "$md.tmp.$$" && mv -f "$md.tmp.$$" "$md"
		echo "regen: updated ${md#"$ROOT"/}"
	fi
done
exit $stale
