# generated/ holds nbcc's output for every example with default flags (.cl,
# .c and .il); this fails when the compiler or an example changed without
# `make generated`.
set -eu
. "$ROOT/tests/lib.sh"
cd "$ROOT"
scratch
sh scripts/regen-generated.sh "$NBCC" "$T"
status=0
for f in "$T"/*; do
	g=generated/$(basename "$f")
	if ! cmp -s "$f" "$g"; then
		echo "generated: $g is stale (run: make generated)"
		diff -u "$g" "$f" 2>/dev/null | head -20 || true
		status=1
	fi
done
for g in generated/*; do
	[ -e "$g" ] || continue
	[ -e "$T/$(basename "$g")" ] || { echo "generated: $g has no example"; status=1; }
done
exit $status
