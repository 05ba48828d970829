# cache_entries.sh: the compiled-program cache (runtime/cache.c) against
# what can be found at an entry's name (issue 28, items 17 to 19):
#   - an entry is bound to its whole key: the double kernel's shared object
#     copied over the float one's name is ignored, rebuilt, and the float
#     results are those of a cold run (it was loaded and crashed or gave
#     -2e307); the same for a tuner entry copied over another's name;
#   - a symbolic link at an entry's name is replaced, its target untouched;
#   - a FIFO there neither hangs the run nor stays;
#   - a run killed while cc builds leaves no nbrt-XXXXXX directory behind;
#   - the same kernel at two paths is built once (the key leaves out the
#     interface's source line, cache.c), on the host and on PoCL, and the
#     hit names the path run, not the one that built it; the C file nbcc
#     writes from each path likewise.
set -u
. "$ROOT/tests/lib.sh"
scratch
export NBRT_CACHE_DIR="$T/c" NBRT_VERBOSE=1 TMPDIR="$T/tmp"
mkdir "$T/tmp"
unset NBRT_DEVICE NBRT_CC
NBRUN=$BIN/nbrun
G=$ROOT/dsl-examples/gravity.nbl
RUN="--random 5,7 --seed 1 --const eps2=0.01 --device host"
# the entry a run wrote, from its "cached PATH" note
entry() { sed -n 's/^nbrt: cached \(.*\.so\)$/\1/p' "$1" | head -1; }

"$NBRUN" "$G" $RUN --precision=float -o "$T/f.csv" 2>"$T/f.log" ||
	die "a float run on the host"
"$NBRUN" "$G" $RUN --precision=double -o "$T/d.csv" 2>"$T/d.log" ||
	die "a double run on the host"
F=$(entry "$T/f.log")
D=$(entry "$T/d.log")
[ -f "$F" ] && [ -f "$D" ] && [ "$F" != "$D" ] ||
	die "two cache entries (got '$F' and '$D')"

# --- the same text at two paths: one build ---------------------------------
mkdir "$T/p1" "$T/p2"
cp "$G" "$T/p1/g.nbl"
cp "$G" "$T/p2/g.nbl"
. "$ROOT/tests/device.sh"
devs=host
have_device cpu && devs="host cpu"
for d in $devs; do
	for p in p1 p2; do
		(cd "$T" && "$NBRUN" $p/g.nbl $RUN --device $d -o $p-$d.csv \
			2>$p-$d.log) || bad "nbrun $p/g.nbl --device $d"
	done
	if grep -q "^nbrt: cached " "$T/p1-$d.log" &&
		! grep -q "^nbrt: cached \|^nbrt: building" "$T/p2-$d.log" &&
		grep -q "^nbrt: cache hit .* (p2/g\.nbl)$" "$T/p2-$d.log" &&
		cmp -s "$T/p1-$d.csv" "$T/p2-$d.csv"; then
		ok "one kernel at two paths, $d: built once, the hit names p2/g.nbl"
	else
		bad "one kernel at two paths, $d: built twice or misnamed"
		cat "$T/p2-$d.log"
	fi
done
for p in p1 p2; do
	"$BIN/nbcc" "$T/$p/g.nbl" --target=c -o "$T/$p/g.c" ||
		bad "nbcc $p/g.nbl -o $p/g.c"
	(cd "$T" && "$NBRUN" $p/g.c $RUN -o $p-c.csv 2>$p-c.log) ||
		bad "nbrun $p/g.c"
done
grep -q "^ \* source .*p1/g\.nbl$" "$T/p1/g.c" &&
	grep -q "^nbrt: cache hit .* (p2/g\.c)$" "$T/p2-c.log" &&
	cmp -s "$T/p1-c.csv" "$T/p2-c.csv" &&
	ok "the C files nbcc wrote at two paths: built once" ||
	{ bad "the C files nbcc wrote at two paths"; cat "$T/p2-c.log"; }

# --- item 17: an entry copied over another's name -----------------------
cp "$D" "$F"
"$NBRUN" "$G" $RUN --precision=float -o "$T/f2.csv" 2>"$T/f2.log"
rc=$?
if [ "$rc" = 0 ] && ! grep -q "cache hit" "$T/f2.log" &&
	grep -q "another key's" "$T/f2.log" && cmp -s "$T/f.csv" "$T/f2.csv"
then
	ok "the double entry at the float one's name: ignored, rebuilt"
else
	bad "the double entry at the float one's name (exit $rc)"
	cat "$T/f2.log"
fi
"$NBRUN" "$G" $RUN --precision=float -o "$T/f3.csv" 2>"$T/f3.log" &&
	grep -q "cache hit" "$T/f3.log" && cmp -s "$T/f.csv" "$T/f3.csv" &&
	ok "the rebuilt entry is a hit" || bad "no hit after the rebuild"
cp "$F" "$D"
"$NBRUN" "$G" $RUN --precision=double -o "$T/d2.csv" 2>"$T/d2.log" &&
	! grep -q "cache hit" "$T/d2.log" && cmp -s "$T/d.csv" "$T/d2.csv" &&
	ok "the float entry at the double one's name: ignored" ||
	bad "the float entry at the double one's name"
# a tuner entry under another size class's name
"$NBRUN" "$G" --random 300,300 --seed 2 --const eps2=0.01 --device host \
	--tune --tune-budget 0.5 -o /dev/null 2>"$T/t1.log"
"$NBRUN" "$G" --random 3000,3000 --seed 2 --const eps2=0.01 \
	--device host --tune --tune-budget 0.5 -o /dev/null 2>"$T/t2.log"
set -- "$T"/c/*.tune
if [ $# = 2 ]; then
	cp "$1" "$2"
	"$NBRUN" "$G" --random 3000,3000 --seed 2 --const eps2=0.01 \
		--device host -o /dev/null 2>"$T/t3.log"
	"$NBRUN" "$G" --random 300,300 --seed 2 --const eps2=0.01 \
		--device host -o /dev/null 2>>"$T/t3.log"
	[ "$(grep -c "another key's" "$T/t3.log")" = 1 ] &&
		ok "a tuner entry at another's name: ignored" ||
		{ bad "a tuner entry at another's name"; cat "$T/t3.log"; }
else
	bad "two tuner entries expected, found $#"
fi

# --- item 18: a symbolic link at an entry's name --------------------------
rm -f "$F"
echo "the user's file" >"$T/p.txt"
ln -s "$T/p.txt" "$F"
"$NBRUN" "$G" $RUN --precision=float -o "$T/f4.csv" 2>"$T/f4.log"
rc=$?
if [ "$rc" = 0 ] && [ "$(cat "$T/p.txt")" = "the user's file" ] &&
	[ ! -L "$F" ] && [ -f "$F" ] && cmp -s "$T/f.csv" "$T/f4.csv"; then
	ok "a link at an entry's name: replaced, its target untouched"
else
	bad "a link at an entry's name (exit $rc)"
fi

# --- item 19: a FIFO at an entry's name, a kill while building -----------
rm -f "$F"
mkfifo "$F"
timeout 60 "$NBRUN" "$G" $RUN --precision=float -o "$T/f5.csv" \
	2>"$T/f5.log"
rc=$?
[ "$rc" = 0 ] && [ -f "$F" ] && [ ! -p "$F" ] &&
	cmp -s "$T/f.csv" "$T/f5.csv" &&
	ok "a FIFO at an entry's name: no hang, replaced" ||
	bad "a FIFO at an entry's name (exit $rc; 124: it hung)"
[ -z "$(ls -A "$T/tmp")" ] && ok "no temporaries after the runs" ||
	bad "temporaries left: $(ls -A "$T/tmp")"
# a cc that waits, so that the run is killed while it builds
cat >"$T/slowcc" <<EOF
#!/bin/sh
case "\$*" in *--version*) exec cc "\$@" ;; esac
echo \$\$ >"$T/cc.pid"
exec sleep 60
EOF
chmod +x "$T/slowcc"
# (not SIGINT: a shell's background job ignores it, and then so do we;
# nor SIGHUP where this shell was started ignoring it, as under nohup:
# an ignored signal is left as it is, tmpfiles.c)
sigs=TERM
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
if [ -n "$ign" ] && [ $((0x$ign & 1)) = 0 ]; then
	sigs="TERM HUP"
else
	echo "skip SIGHUP while cc builds: this shell ignores SIGHUP (nohup?)"
fi
for sig in $sigs; do
	rm -f "$T/cc.pid"
	# a kernel not in the cache (a killed build caches nothing)
	NBRT_CC="$T/slowcc" "$NBRUN" "$G" $RUN --precision=double \
		--unroll-i=3 -o /dev/null 2>/dev/null &
	pid=$!
	i=0
	while [ ! -s "$T/cc.pid" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	built=$(ls -A "$T/tmp")
	kill -$sig "$pid"
	wait "$pid"
	rc=$?
	[ -s "$T/cc.pid" ] && kill "$(cat "$T/cc.pid")" 2>/dev/null
	if [ -n "$built" ] && [ "$rc" -gt 128 ] && [ -z "$(ls -A "$T/tmp")" ]
	then
		ok "SIG$sig while cc builds: $built removed"
	else
		bad "SIG$sig while cc builds (exit $rc): '$built' made, left: " \
			"$(ls -A "$T/tmp")"
	fi
done
finish
