# Every kernel under dsl-examples/ must compile without a single message
# for the C and OpenCL targets in each precision it is meant for, the C it
# yields must get through the C compiler, and its checked AST (--emit=ast,
# the file's own flags) must equal tests/examples/NAME.ast.  NBCC_UPDATE=1
# rewrites the goldens.  tests/run.sh sets ROOT and NBCC (default: bin/nbcc).
set -u
. "$ROOT/tests/lib.sh"
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
NBCC=${NBCC:-$ROOT/bin/nbcc}
cd "$ROOT"
scratch
CC=${CC:-cc}
fail=0
bad() {
	echo "examples: $*"
	fail=1
}

# The precisions each example is written for (default: float double).
# oneloop carries "nbcc-options: --precision=dd": float would mean dd.
precisions() {
	case $1 in
	gravity) echo "float double dd" ;;
	oneloop) echo "dd double" ;;
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
			if ! grep -q "^ \* precision $p\$" "$out"; then
				bad "$name --precision=$p -o .$ext: no 'precision $p' in the interface"
			fi
		done
		if [ -f "$T/$name.$p.c" ] &&
			! $CC -std=c11 -fsyntax-only -fopenmp "$T/$name.$p.c" \
			2>"$T/cc"; then
			bad "$name --precision=$p: the generated C does not compile"
			head -20 "$T/cc"
		fi
	done
	# the AST is printed from the file name alone, so it holds no path
	(cd dsl-examples && "$NBCC" "$name.nbl" --emit=ast >"$T/ast" 2>"$T/err")
	rc=$?
	if [ $rc != 0 ] || [ -s "$T/err" ]; then
		bad "$name --emit=ast: exit $rc, or messages"
		cat "$T/err"
		continue
	fi
	gold=tests/examples/$name.ast
	if [ "${NBCC_UPDATE:-0}" = 1 ]; then
		cp "$T/ast" "$gold"
	elif [ ! -f "$gold" ]; then
		bad "$gold is missing (NBCC_UPDATE=1 sh tests/run.sh bin writes it)"
	elif ! cmp -s "$T/ast" "$gold"; then
		bad "$name --emit=ast differs from $gold"
		diff -u "$gold" "$T/ast" | head -20
	fi
done
for gold in tests/examples/*.ast; do
	[ -f "$gold" ] || continue
	[ -f "dsl-examples/$(basename "$gold" .ast).nbl" ] ||
		bad "$gold has no example"
done
[ $n -gt 0 ] || bad "no examples found"
echo "examples: $n checked"
exit $fail
