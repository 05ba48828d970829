# tests/expect.sh: sourced by tests/run.sh (its cases) and tests/sh/il.sh
# (tests/il), the one statement of a test as data:
#   expect DIR NAME RC OUT ERR
# holds a run -- exit status RC, standard output in the file OUT, standard
# error in ERR -- to DIR/NAME.out (exit 0 expected) and DIR/NAME.err (exit
# 1 when there is no NAME.out).  NBCC_UPDATE=1 first rewrites them from the
# run.  Sets why to what differs, "" when nothing does, printing the diffs.
expect() {
	e_base=$1/$2
	e_want=0
	if [ -f "$e_base.err" ] && [ ! -f "$e_base.out" ]; then
		e_want=1
	fi
	if [ "${NBCC_UPDATE:-0}" = 1 ]; then
		[ -s "$4" ] && cp "$4" "$e_base.out"
		[ -s "$5" ] && cp "$5" "$e_base.err"
	fi
	why=""
	[ "$3" = "$e_want" ] || why="exit $3, expected $e_want"
	if [ -f "$e_base.out" ] && ! cmp -s "$4" "$e_base.out"; then
		why="$why; stdout differs"
		diff -u "$e_base.out" "$4" | head -20
	fi
	if [ -f "$e_base.err" ]; then
		if ! cmp -s "$5" "$e_base.err"; then
			why="$why; stderr differs"
			diff -u "$e_base.err" "$5" | head -20
		fi
	elif [ -s "$5" ] && [ "$e_want" = 0 ]; then
		why="$why; unexpected messages"
		head -5 "$5"
	fi
}
