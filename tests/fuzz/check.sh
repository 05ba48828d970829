#!/bin/sh
# check.sh B NAME...: make fuzz-check's runs, each target B/fuzz/fuzz_NAME
# over its seeds once (tests/fuzz/seeds.sh), as many at a time as there
# are cores: each runs on one, and one after another they left a core of
# make check idle.  Output in B/fuzz/seeds-NAME.log, shown on a failure;
# the results in NAME order.  hdf5's child reader may take 30 s of CPU
# and 5 more to its kill, which is a refusal, not a finding: its timeout
# is 45 s, the others' 10.
set -u
B=$1
shift
if [ "${1:-}" = --one ]; then # worker: --one NAME
	t=$2
	to=10
	[ "$t" != hdf5 ] || to=45
	if sh tests/fuzz/seeds.sh "$t" "$B/fuzz/seeds-$t" &&
		"$B/fuzz/fuzz_$t" -timeout=$to "$B/fuzz/seeds-$t"/* \
			>"$B/fuzz/seeds-$t.log" 2>&1; then
		echo 0 >"$B/fuzz/seeds-$t.rc"
	else
		echo 1 >"$B/fuzz/seeds-$t.rc"
	fi
	exit 0
fi
for t; do rm -f "$B/fuzz/seeds-$t.rc"; done
printf '%s\n' "$@" |
	xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh "$0" "$B" --one {}
status=0
for t; do
	if [ "$(cat "$B/fuzz/seeds-$t.rc" 2>/dev/null)" = 0 ]; then
		echo "fuzz: $t: $(ls "$B/fuzz/seeds-$t" | wc -l) seeds ok"
	else
		tail -40 "$B/fuzz/seeds-$t.log" 2>/dev/null
		echo "fuzz: $t: FAILED on its seeds"
		status=1
	fi
done
exit $status
