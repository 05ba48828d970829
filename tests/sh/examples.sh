# Every kernel under dsl-examples/ must compile without a single message
# for the C and OpenCL targets in each precision it is meant for, and the
# C it yields must get through the C compiler.  (Its checked AST is the
# suite tests/cases/examples, what nbcc writes with default flags the
# suite tests/cases/generated.)
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
scratch
CC=${CC:-cc}

# The precisions each example is written for (default: float double).
# oneloop carries "nbcc-options: --precision=dd": float would mean dd.
precisions() {
	case $1 in
	gravity) echo "float double dd" ;;
	oneloop | oneloop_ieps | oneloop_deform) echo "dd double" ;;
	*) echo "float double" ;;
	esac
}

# nbcc ARGS...: runs nbcc, fails on a non-zero exit or any message.
quiet() {
	what=$1
	shift
	if ! "$NBCC" "$@" >"$T/out" 2>"$T/err"; then
		bad "$what: nbcc failed"
		cat "$T/err"
		return 1
	fi
	if [ -s "$T/err" ]; then
		bad "$what: nbcc said something"
		cat "$T/err"
		return 1
	fi
	return 0
}

n=0
for src in dsl-examples/*.nbl; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .nbl)
	n=$((n + 1))
	for p in $(precisions "$name"); do
		for ext in c cl; do
			out=$T/$name.$p.$ext
			quiet "$name --precision=$p -o .$ext" "$src" --precision="$p" \
				-o "$out" || continue
			if grep -q "^ \* precision $p\$" "$out"; then ok; else
				bad "$name --precision=$p -o .$ext: no 'precision $p' in the interface"
			fi
		done
		[ -f "$T/$name.$p.c" ] || continue
		if $CC -std=c11 -fsyntax-only -fopenmp "$T/$name.$p.c" 2>"$T/cc"
		then ok; else
			bad "$name --precision=$p: the generated C does not compile"
			head -20 "$T/cc"
		fi
	done
done
[ $n -gt 0 ] || bad "no examples found"
echo "examples: $n examples"
finish examples
