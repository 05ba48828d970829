# out_replace.sh: what -o does to a file that is there already
# (compiler/outfile.c; issue 28, items 20 to 22), as coreutils would:
#   - a replaced file keeps its mode (0600 stays private), its owner and
#     group (as root: a file of another user stays theirs), and its hard
#     links (written in place);
#   - as a user other than root (root runs this part as nobody): a 0444
#     file is refused and kept; a writable file in a read-only directory
#     is written in place;
#   - an input of the run is never an output: nbcc k.nbl -o k.nbl, the
#     same through a link or a hard link, nbrun's kernel and its --i file;
#   - a writer killed by SIGXFSZ (ulimit -f) leaves no temporary and the
#     old file as it was.
set -u
. "$ROOT/tests/lib.sh"
scratch
export NBRT_CACHE_DIR="$T/cache"
unset NBRT_DEVICE
NBRUN=$BIN/nbrun
G=$ROOT/dsl-examples/gravity.nbl
RUN="--random 5,7 --seed 1 --const eps2=0.01 --device host"
clean() { [ -z "$(find "$1" -maxdepth 1 -name '.*.??????' | head -1)" ]; }
mode() { stat -c %a "$1"; }

"$NBCC" "$G" -o "$T/ref.cl" || die "nbcc -o a new file"

# --- item 20: mode, owner, links ---------------------------------------------
for m in 600 640 755; do
	echo old >"$T/m$m.cl"
	chmod "$m" "$T/m$m.cl"
	"$NBCC" "$G" -o "$T/m$m.cl" && [ "$(mode "$T/m$m.cl")" = "$m" ] &&
		cmp -s "$T/m$m.cl" "$T/ref.cl" && ok "a $m file stays $m" ||
		bad "a $m file became $(mode "$T/m$m.cl")"
done
echo old >"$T/h.cl"
ln "$T/h.cl" "$T/h2.cl"
"$NBCC" "$G" -o "$T/h.cl" && [ "$(stat -c %h "$T/h.cl")" = 2 ] &&
	cmp -s "$T/h2.cl" "$T/ref.cl" && clean "$T" &&
	ok "a hard link is kept: written in place" || bad "hard links"
"$NBRUN" "$G" $RUN -o "$T/ref.csv" 2>/dev/null
echo old >"$T/h.csv"
ln "$T/h.csv" "$T/h2.csv"
"$NBRUN" "$G" $RUN -o "$T/h.csv" 2>/dev/null &&
	cmp -s "$T/h2.csv" "$T/ref.csv" && ok "nbrun -o keeps a hard link" ||
	bad "nbrun -o and a hard link"
# a shorter output in place leaves nothing of the longer old file
head -c 100000 /dev/zero >"$T/h.cl"
"$NBCC" "$G" -o "$T/h.cl" && cmp -s "$T/h2.cl" "$T/ref.cl" &&
	ok "in place: the old file's tail cut off" || bad "in place, tail"
if [ "$(id -u)" = 0 ]; then
	echo old >"$T/theirs.cl"
	chown 65534:65534 "$T/theirs.cl"
	chmod 640 "$T/theirs.cl"
	"$NBCC" "$G" -o "$T/theirs.cl" &&
		[ "$(stat -c %u:%g:%a "$T/theirs.cl")" = 65534:65534:640 ] &&
		cmp -s "$T/theirs.cl" "$T/ref.cl" &&
		ok "another user's file keeps its owner, group and mode" ||
		bad "another user's file became $(stat -c %u:%g:%a "$T/theirs.cl")"
fi

# --- as a user without root's powers ----------------------------------------
as_user=
if [ "$(id -u)" != 0 ]; then
	as_user=" "
elif command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 711 "$T"
fi
if [ -n "$as_user" ]; then
	U=$T/u
	mkdir "$U"
	chmod 777 "$U"
	run_as() { $as_user env HOME="$U" NBRT_CACHE_DIR="$U/cache" "$@"; }
	run_as sh -c "echo old >'$U/ro.cl' && chmod 444 '$U/ro.cl'"
	run_as "$NBCC" "$G" -o "$U/ro.cl" 2>"$T/err"
	rc=$?
	[ "$rc" != 0 ] && [ "$(cat "$U/ro.cl")" = old ] &&
		grep -q "Permission denied" "$T/err" && clean "$U" &&
		ok "a 0444 file is refused and kept" ||
		bad "a 0444 file (exit $rc)"
	run_as sh -c "mkdir '$U/rd' && echo old >'$U/rd/w.cl' &&
		chmod 555 '$U/rd'"
	run_as "$NBCC" "$G" -o "$U/rd/w.cl" 2>"$T/err"
	rc=$?
	[ "$rc" = 0 ] && cmp -s "$U/rd/w.cl" "$T/ref.cl" && clean "$U/rd" &&
		ok "a writable file in a read-only directory: written in place" ||
		{ bad "a file in a read-only directory (exit $rc)"; cat "$T/err"; }
	chmod 755 "$U/rd"
else
	echo "ok (skipped: no user without root's powers to run as)"
fi

# --- item 21: an input is never an output -----------------------------------
cp "$G" "$T/k.nbl"
cp "$G" "$T/k.orig"
refused() { # WHAT FILE: the command before failed, FILE is as it was
	rc=$?
	if [ "$rc" != 0 ] && cmp -s "$2" "$3" && grep -q "input" "$T/err" &&
		clean "$T"; then
		ok "$1: refused"
	else
		bad "$1 (exit $rc)"
		cat "$T/err"
	fi
}
"$NBCC" "$T/k.nbl" --target=c -o "$T/k.nbl" 2>"$T/err"
refused "nbcc k.nbl -o k.nbl" "$T/k.nbl" "$T/k.orig"
ln -s k.nbl "$T/link.nbl"
"$NBCC" "$T/k.nbl" --target=c -o "$T/link.nbl" 2>"$T/err"
refused "nbcc k.nbl -o a link to it" "$T/k.nbl" "$T/k.orig"
ln "$T/k.nbl" "$T/hard.nbl"
"$NBCC" "$T/hard.nbl" --target=c -o "$T/k.nbl" 2>"$T/err"
refused "nbcc -o a hard link of its input" "$T/k.nbl" "$T/k.orig"
"$NBCC" - --target=c -o "$T/k.nbl" <"$T/k.nbl" 2>"$T/err"
refused "nbcc - <k.nbl -o k.nbl" "$T/k.nbl" "$T/k.orig"
"$NBRUN" "$T/k.nbl" $RUN -o "$T/k.nbl" 2>"$T/err"
refused "nbrun k.nbl -o k.nbl" "$T/k.nbl" "$T/k.orig"
printf 'xi,yi,zi\n1,2,3\n4,5,6\n' >"$T/i.csv"
printf 'xj,yj,zj,mj\n1,0,0,1\n0,1,0,2\n' >"$T/j.csv"
cp "$T/i.csv" "$T/i.orig"
"$NBRUN" "$G" --i "$T/i.csv" --j "$T/j.csv" --const eps2=0.01 \
	--device host -o "$T/i.csv" 2>"$T/err"
refused "nbrun --i i.csv -o i.csv" "$T/i.csv" "$T/i.orig"
"$NBRUN" "$G" --i "$T/i.csv" --j "$T/j.csv" --const eps2=0.01 \
	--device host -o "$T/o.csv" 2>"$T/err" &&
	ok "nbrun --i i.csv -o another file" || bad "nbrun -o another file"

# --- item 22: a writer killed by SIGXFSZ ----------------------------------------
echo old >"$T/fs.c"
(ulimit -f 1 && exec "$NBCC" "$G" --target=c -o "$T/fs.c") 2>/dev/null
rc=$?
[ "$rc" -gt 128 ] && [ "$(cat "$T/fs.c")" = old ] && clean "$T" &&
	ok "killed by SIGXFSZ: no temporary, the old file kept" ||
	bad "SIGXFSZ (exit $rc): $(find "$T" -maxdepth 1 -name '.fs.c*')"
(ulimit -f 1 && exec "$NBCC" "$G" --target=c -o "$T/new.c") 2>/dev/null
[ ! -e "$T/new.c" ] && clean "$T" &&
	ok "killed by SIGXFSZ writing a new file: nothing left" ||
	bad "SIGXFSZ, new file"
finish
