#!/bin/sh
# Re-runs the commands shown in the documentation and puts their real
# output back in place.  A block that opens with ```console and whose next
# line starts with "$ " is one command (continued through a line "EOF" when
# it holds a <<'EOF' here-document); the rest of the block is its standard
# output and error, as run from the repository root after `make`.
# usage: sh docs/regen.sh [--check] [FILE.md ...]
#   --check   change nothing; show what is stale and exit 1 if anything is
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
[ $# -gt 0 ] || set -- docs/language.md docs/tutorial.md
[ -x bin/nbcc ] || { echo "regen: bin/nbcc is missing; run make" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
stale=0
for md in "$@"; do
	awk -v tmp="$T" '
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
	' "$md" >"$T/new"
	if cmp -s "$md" "$T/new"; then
		continue
	fi
	if [ $check = 1 ]; then
		echo "regen: $md is stale"
		diff -u "$md" "$T/new" | head -40 || true
		stale=1
	else
		cp "$T/new" "$md"
		echo "regen: updated $md"
	fi
done
exit $stale
