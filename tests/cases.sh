# tests/cases.sh DIR: every case of one suite of tests as data, the folder
# DIR under tests/cases; run by tests/run.sh (BIN, ROOT and TESTBUILD set).
# A case is an input beside what running it must print.  The suite's file
# DIR/cmd says how to run its cases, a line each ('#' starts a comment):
#   input EXT        the inputs are DIR/NAME.EXT (without this line: nbl)
#   input PATH       or PATH from the root, $name standing for NAME
#                    (dsl-examples/$name.nbl); what they print stays in DIR
#   flags FLAGS      the flags of a case that names none
#   run COMMAND      the command, run by sh in a scratch copy of the inputs'
#                    folder, BIN's programs first in PATH, $name the case's
#                    NAME and $flags its flags (words: no quoting)
#   run >PATH COMMAND   the same, its standard output held to PATH (from
#                    the root, $name in it) instead of DIR/NAME.out; a
#                    suite may have several such lines (generated/)
# A case's flags: the lines of a .args input ('#' lines aside), the rest
# of a first line "// nbcc: FLAGS", else the flags line.
# What a run must print: standard output DIR/NAME.out (or PATH), nothing
# when that file is missing; standard error DIR/NAME.err, nothing when it
# is missing; and exit with the status N of a comment line "exit N" in
# the input (# exit 2, // exit 2), else 0 when the output is expected
# and 1 when not.  A case has at least one of its files, and every
# NAME.out and NAME.err (and every file in the folder of a PATH outside
# tests/) belongs to an input.
# NBCC_UPDATE=1 first rewrites the expectations from the run: a file for
# each non-empty stream, none for an empty one (an empty NAME.out when
# the run printed nothing at all), and those of no input removed.
# Prints each failure (FAIL: SUITE/NAME: why) with the diff, then
#   cases SUITE: N passed, N failed
set -u
. "$ROOT/tests/lib.sh"
D=$(cd "$1" && pwd) || exit 1
suite=$(basename "$D")
update=${NBCC_UPDATE:-0}
scratch
shared_cache
unset NBRT_DEVICE NBRT_MAX_INTERACTIONS

# the suite's cmd file: input, flags, and its run lines in $T/runs
# (">PATH COMMAND" or "COMMAND")
input=nbl
defflags=
: >"$T/runs"
[ -f "$D/cmd" ] || { bad "$suite: no file $D/cmd"; finish "cases $suite"; }
while read -r key rest; do
	case $key in
	'#'* | '') ;;
	input) input=$rest ;;
	flags) defflags=$rest ;;
	run) printf '%s\n' "$rest" >>"$T/runs" ;;
	*) bad "$suite/cmd: unknown line '$key $rest'" ;;
	esac
done <"$D/cmd"
[ -s "$T/runs" ] || bad "$suite/cmd: no run line"
case $input in
*/*) pattern=$ROOT/$input ;;
*) pattern=$D/\$name.$input ;;
esac
indir=$(dirname "$pattern")
ext=${pattern##*.}
# the scratch copy (links followed): runs never write into the tree
mkdir "$T/w" && cp -RL "$indir" "$T/w/" || exit 1
cwd=$T/w/$(basename "$indir")

# rewrite FILE GOT: under NBCC_UPDATE=1, FILE becomes what the run printed
# (removed when it printed nothing)
rewrite() {
	if [ -s "$2" ]; then
		cmp -s "$2" "$1" || cp "$2" "$1"
	else
		rm -f "$1"
	fi
}
# compare FILE GOT WHAT: GOT against FILE, against nothing when FILE is
# missing; adds to $why
compare() {
	if [ -f "$1" ]; then
		cmp -s "$1" "$2" && return
		why="$why; $3 differs from ${1#"$ROOT"/}"
		diff -u "$1" "$2" | head -20
	elif [ -s "$2" ]; then
		why="$why; $3 not empty (there is no ${1#"$ROOT"/})"
		head -5 "$2"
	fi
}

: >"$T/mine"
names=$(cd "$indir" && for f in *."$ext"; do
	[ -f "$f" ] && printf '%s\n' "${f%."$ext"}"; done)
for name in $names; do
	src=$indir/$name.$ext
	if [ "$ext" = args ]; then
		flags=$(grep -v '^#' "$src")
	else
		flags=$(head -n 1 "$src" | sed -n 's|^// nbcc: *||p')
		[ -n "$flags" ] || flags=$defflags
	fi
	status=$(sed -n 's,^\(#\|//\|;\) *exit \([0-9][0-9]*\)$,\2,p' "$src" |
		head -n 1)
	err=$D/$name.err
	echo "$err" >>"$T/mine"
	while read -r run; do
		case $run in
		'>'*)
			out=${run%% *}
			out=$ROOT/$(printf '%s' "${out#>}" | sed "s|\$name|$name|g")
			run=${run#* }
			;;
		*) out=$D/$name.out ;;
		esac
		echo "$out" >>"$T/mine"
		(cd "$cwd" && set -f && PATH=$BIN:$PATH && eval "$run") \
			>"$T/out" 2>"$T/err" </dev/null
		rc=$?
		if [ "$update" = 1 ]; then
			rewrite "$out" "$T/out"
			rewrite "$err" "$T/err"
			# a run that prints nothing expects an empty output
			[ -s "$T/out" ] || [ -s "$T/err" ] || : >"$out"
		fi
		why=""
		if [ -n "$status" ]; then want=$status
		elif [ -f "$out" ]; then want=0
		else want=1; fi
		[ "$rc" = "$want" ] || why="; exit $rc, expected $want"
		[ -f "$out" ] || [ -f "$err" ] ||
			why="$why; no ${out#"$ROOT"/} or ${err#"$ROOT"/} (NBCC_UPDATE=1 writes them)"
		compare "$out" "$T/out" "standard output"
		compare "$err" "$T/err" "standard error"
		if [ -z "$why" ]; then ok; else bad "$suite/$name: ${why#; }"; fi
	done <"$T/runs"
done

# expectations that belong to no input: NAME.out and NAME.err here, and
# anything in a folder outside tests/ that a run line writes to (generated/)
{
	for f in "$D"/*.out "$D"/*.err; do [ -f "$f" ] && echo "$f"; done
	sed -n 's|^>\([^ ]*\) .*|\1|p' "$T/runs" | while read -r p; do
		dir=$(dirname "$ROOT/$p")
		case $dir in "$ROOT"/tests/*) continue ;; esac
		for f in "$dir"/*; do [ -f "$f" ] && echo "$f"; done
	done
} | sort -u >"$T/all"
while read -r f; do
	grep -qxF "$f" "$T/mine" && continue
	if [ "$update" = 1 ]; then
		rm -f "$f"
		echo "removed ${f#"$ROOT"/}: no input"
	else
		bad "$suite: ${f#"$ROOT"/} belongs to no input"
	fi
done <"$T/all"
echo "cases $suite: $((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
