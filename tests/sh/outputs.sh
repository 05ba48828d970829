# outputs.sh: output files are written by compiler/outfile.c's rules, and
# nothing else in the issue's list of clobbered files can happen again:
#   - -o onto a FIFO delivers the data and leaves the FIFO; onto a
#     character device (one made here with mknod: the real /dev/null is
#     only ever looked at) leaves the device; -o /dev/stdout writes to
#     standard output, a pipe or a redirected file;
#   - -o onto a symbolic link keeps the link and replaces its target; a
#     dangling link is refused; a failed run leaves an existing output
#     byte for byte and no temporary; new files follow the umask;
#   - cache entries are 0600 whatever the umask;
#   - nbcc -o, nbrun -o, nbody --out/--png all go through the writer;
#   - an energy plot nbody cannot write fails its run (exit 1, the --log
#     not committed), as a frame does;
#   - nbody --dt 1e300 fails with a message; an unsafe cache directory is
#     reported once; control bytes in a file name are escaped;
#   - a replaced file keeps its mode (0600 stays private), its owner and
#     group (as root: a file of another user stays theirs), and its hard
#     links (written in place); as a user other than root (root runs this
#     part as nobody) a 0444 file is refused and kept, and a writable file
#     in a read-only directory is written in place (issue 28, item 20);
#   - an input of the run is never an output: nbcc k.nbl -o k.nbl, the
#     same through a link or a hard link, nbrun's kernel and its --i file
#     (item 21);
#   - a writer killed by SIGXFSZ (ulimit -f) leaves no temporary and the
#     old file as it was (item 22);
#   - what a program prints on a full standard output (/dev/full) fails
#     with a message: results, --help, --version, device lists.
set -u
. "$ROOT/tests/lib.sh"
scratch
export NBRT_CACHE_DIR="$T/cache"
unset NBRT_DEVICE
NBRUN=$BIN/nbrun
NBODY=$BIN/nbody
G=$ROOT/dsl-examples/gravity.nbl
RUN="--random 5,7 --seed 1 --const eps2=0.01 --device host"
# no temporaries left in DIR (the writer's are .NAME.XXXXXX)
clean() { [ -z "$(find "$1" -maxdepth 1 -name '.*.??????' | head -1)" ]; }
mode() { stat -c %a "$1"; }

# the reference: the same output written to a plain new file
"$NBCC" "$G" -o "$T/ref.cl" || bad "nbcc -o a new file"
"$NBRUN" "$G" $RUN -o "$T/ref.csv" 2>/dev/null || bad "nbrun -o a new file"

# --- FIFO ------------------------------------------------------------------
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
timeout 20 "$NBCC" "$G" -o "$T/fifo" --target opencl
rc=$?
wait "$reader"
if [ "$rc" = 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.out" "$T/ref.cl"; then
	ok "nbcc -o FIFO: the reader gets the code, the FIFO stays"
else
	bad "nbcc -o FIFO (exit $rc)"
fi
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
timeout 60 "$NBRUN" "$G" $RUN -o "$T/fifo" 2>/dev/null
rc=$?
wait "$reader"
if [ "$rc" = 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.out" "$T/ref.csv"
then
	ok "nbrun -o FIFO"
else
	bad "nbrun -o FIFO (exit $rc)"
fi

# --- character device --------------------------------------------------------
if mknod "$T/null" c 1 3 2>/dev/null; then
	"$NBCC" "$G" -o "$T/null" --target opencl &&
	"$NBRUN" "$G" $RUN -o "$T/null" 2>/dev/null &&
	[ -c "$T/null" ] && clean "$T" &&
	ok "-o onto a character device leaves it a device" ||
	bad "-o onto a character device"
else
	echo "ok (skipped: mknod failed, no device check)"
fi
[ -c /dev/null ] && ok "/dev/null is still a device" ||
	bad "/dev/null is no longer a character device"

# --- /dev/stdout ------------------------------------------------------------------
"$NBCC" "$G" -o /dev/stdout --target opencl | cat >"$T/pipe.out"
cmp -s "$T/pipe.out" "$T/ref.cl" && [ -L /dev/stdout ] &&
	ok "nbcc -o /dev/stdout into a pipe" || bad "nbcc -o /dev/stdout, pipe"
"$NBCC" "$G" -o /dev/stdout --target opencl >"$T/redir.out"
cmp -s "$T/redir.out" "$T/ref.cl" &&
	ok "nbcc -o /dev/stdout redirected to a file" ||
	bad "nbcc -o /dev/stdout redirected to a file"
echo first >"$T/app.out"
"$NBRUN" "$G" $RUN -o /dev/stdout >>"$T/app.out" 2>/dev/null
{ echo first; cat "$T/ref.csv"; } | cmp -s - "$T/app.out" &&
	ok "nbrun -o /dev/stdout appended (>>) keeps what was there" ||
	bad "nbrun -o /dev/stdout >> FILE"

# --- a full standard output (/dev/full) --------------------------------------
# what a program prints and then exits on (--help, --version, a device
# list, a kernel, ilrun's values, nbbench's row) fails when it cannot be
# written, as its results do
full() { # WHAT COMMAND...: fails with "cannot write to standard output"
	what=$1
	shift
	"$@" >/dev/full 2>"$T/full.err"
	rc=$?
	if [ "$rc" != 0 ] && grep -q "error: cannot write to standard output" "$T/full.err"; then
		ok "$what >/dev/full: exit $rc"
	else
		bad "$what >/dev/full: exit $rc, $(cat "$T/full.err")"
	fi
}
if [ -w /dev/full ]; then
	for p in nbcc nbrun nbody oneloop ilrun nbbench; do
		full "$p --help" "$BIN/$p" --help
	done
	full "nbcc --version" "$NBCC" --version
	full "nbrun --version" "$NBRUN" --version
	full "nbrun --device-info" "$NBRUN" --device-info --device host
	full "nbody --print-kernel" "$NBODY" --print-kernel
	full "ilrun" "$BIN/ilrun" "$ROOT/tests/cases/il/doubles.il"
	full "nbbench --header" "$BIN/nbbench" --header
	full "nbbench" "$BIN/nbbench" "$G" 8,8 --const eps2=0.01 --device host
	full "nbrun" "$NBRUN" "$G" $RUN
else
	echo "outputs.sh: no writable /dev/full, its checks left out"
fi

# --- symbolic links ---------------------------------------------------------
mkdir "$T/d"
echo old >"$T/d/target.cl"
ln -s d/target.cl "$T/link.cl"
"$NBCC" "$G" -o "$T/link.cl"
[ -L "$T/link.cl" ] && cmp -s "$T/d/target.cl" "$T/ref.cl" && clean "$T" &&
	clean "$T/d" && ok "-o onto a symlink writes its target, keeps the link" ||
	bad "-o onto a symlink"
ln -s nowhere.cl "$T/dangling.cl"
"$NBCC" "$G" -o "$T/dangling.cl" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && [ -L "$T/dangling.cl" ] && [ ! -e "$T/nowhere.cl" ] &&
	grep -q "symbolic link to nothing" "$T/err" &&
	ok "-o onto a dangling symlink is refused" ||
	bad "-o onto a dangling symlink (exit $rc)"

# --- failures keep what was there -------------------------------------------------
printf 'LMEM a;\nRMEM r;\nr += a +;\n' >"$T/bad.nbl"
cp "$T/ref.cl" "$T/keep.cl"
"$NBCC" "$T/bad.nbl" -o "$T/keep.cl" 2>/dev/null
rc=$?
[ "$rc" != 0 ] && cmp -s "$T/keep.cl" "$T/ref.cl" && clean "$T" &&
	ok "a failed nbcc leaves the old output, no temporary" ||
	bad "failed nbcc and the old output (exit $rc)"
cp "$T/ref.csv" "$T/keep.csv"
"$NBRUN" "$G" --random 5,7 --const nosuch=1 --device host \
	-o "$T/keep.csv" 2>/dev/null
rc=$?
[ "$rc" != 0 ] && cmp -s "$T/keep.csv" "$T/ref.csv" && clean "$T" &&
	ok "a failed nbrun leaves the old output, no temporary" ||
	bad "failed nbrun and the old output (exit $rc)"
# a directory the writer cannot create in: the file written in place
# (out_replace.sh runs this as nobody when the tests run as root)
mkdir "$T/ro"
echo old >"$T/ro/x.cl"
chmod 555 "$T/ro"
if [ "$(id -u)" != 0 ]; then
	"$NBCC" "$G" -o "$T/ro/x.cl" 2>/dev/null
	[ $? = 0 ] && cmp -s "$T/ro/x.cl" "$T/ref.cl" && clean "$T/ro" &&
		ok "read-only directory: written in place" ||
		bad "read-only directory"
fi
chmod 755 "$T/ro"

# --- modes ----------------------------------------------------------------------
(umask 027 && "$NBCC" "$G" -o "$T/m027.cl" &&
	"$NBRUN" "$G" $RUN -o "$T/m027.csv" 2>/dev/null)
[ "$(mode "$T/m027.cl")" = 640 ] && [ "$(mode "$T/m027.csv")" = 640 ] &&
	ok "umask 027: outputs are 0640" ||
	bad "umask 027 gave $(mode "$T/m027.cl") and $(mode "$T/m027.csv")"
(umask 0 && "$NBCC" "$G" -o "$T/m000.cl")
[ "$(mode "$T/m000.cl")" = 666 ] && ok "umask 0: 0666" ||
	bad "umask 0 gave $(mode "$T/m000.cl")"
rm -rf "$T/cache"
(umask 0 && "$NBRUN" "$G" $RUN -o /dev/stdout >/dev/null 2>&1 &&
	"$NBODY" -n 64 --steps 1 --device host >/dev/null 2>&1)
n=$(find "$T/cache" -type f | wc -l)
other=$(find "$T/cache" -type f ! -perm 600 | wc -l)
[ "$n" -ge 1 ] && [ "$other" = 0 ] &&
	ok "umask 0: $n cache entries, all 0600" ||
	bad "cache entries: $n, $other not 0600"
. "$ROOT/tests/device.sh"
cl=0
if have_device cpu; then
	cl=1
	"$NBRUN" "$G" $RUN --device cpu -o /dev/stdout >/dev/null 2>&1 ||
		bad "a run on PoCL failed"
	n=$(find "$T/cache" -name '*.clbin' -perm 600 | wc -l)
	[ "$n" -ge 1 ] && ok "OpenCL cache entry 0600" ||
		bad "no 0600 .clbin entry"
else
	echo "skip: no OpenCL CPU device: OpenCL cache entries not checked"
fi

# --- nbody --out and --png ---------------------------------------------------------
mkdir "$T/snap"
echo old >"$T/d/snap.csv"
ln -s "$T/d/snap.csv" "$T/snap/snap_000001.csv"
mkfifo "$T/snap/frame_000001.png"
cat "$T/snap/frame_000001.png" >"$T/png.out" &
reader=$!
(umask 027 && timeout 60 "$NBODY" -n 64 --steps 1 --device host \
	--out "$T/snap" --png "$T/snap" --size 16 >/dev/null 2>"$T/err")
rc=$?
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
[ "$rc" = 0 ] && [ -L "$T/snap/snap_000001.csv" ] &&
	grep -q '^# nbody snapshot' "$T/d/snap.csv" &&
	[ -p "$T/snap/frame_000001.png" ] &&
	[ "$(head -c 4 "$T/png.out" | tail -c 3)" = PNG ] &&
	[ "$(mode "$T/snap/snap_000000.csv")" = 640 ] && clean "$T/snap" &&
	ok "nbody --out/--png: through the writer (link, FIFO, umask)" ||
	bad "nbody --out/--png (exit $rc): $(cat "$T/err")"
[ -z "$(find "$T/snap" -name '.nbody-probe*')" ] &&
	ok "nbody leaves no probe file" || bad "nbody probe file left"

# --- nbody's energy plot, which it cannot write -------------------------------
# a failure as a frame's is: exit 1, and the log not committed
mkdir -p "$T/eplot/energy.png"
timeout 60 "$NBODY" -n 16 --steps 1 --device host --png "$T/eplot" --size 16 \
	--log "$T/eplot.log" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && grep -q "^nbody: error: .*energy.png" "$T/err" &&
	[ ! -e "$T/eplot.log" ] &&
	ok "nbody --png: an energy plot not written fails the run" ||
	bad "nbody --png, energy.png a directory: exit $rc, $(cat "$T/err")"

# --- nbody with a step too long --------------------------------------------------
timeout 60 "$NBODY" --dt 1e300 --steps 2 -n 64 --device host >"$T/out" \
	2>"$T/err"
rc=$?
[ "$rc" = 1 ] && grep -q "not finite\|no longer finite" "$T/err" &&
	ok "nbody --dt 1e300: exit 1, $(head -c 100 "$T/err")" ||
	bad "nbody --dt 1e300: exit $rc, $(cat "$T/err")"

# --- an unsafe cache directory --------------------------------------------------
mkdir "$T/open"
chmod 777 "$T/open"
NBRT_CACHE_DIR="$T/open" "$NBODY" -n 64 --steps 1 --device host \
	>/dev/null 2>"$T/err"
n=$(grep -c "cache directory '$T/open' not used" "$T/err")
[ "$n" = 1 ] && grep -q "others may write" "$T/err" &&
	ok "unsafe cache directory reported once" ||
	bad "unsafe cache directory reported $n times: $(cat "$T/err")"
NBRT_CACHE=0 NBRT_CACHE_DIR="$T/open" "$NBRUN" "$G" $RUN >/dev/null \
	2>"$T/err"
grep -q "cache directory" "$T/err" &&
	bad "NBRT_CACHE=0 still warns" || ok "NBRT_CACHE=0: no warning"

# --- control bytes in names ------------------------------------------------------
esc=$(printf 'k\033[31m\nx.nbl')
printf 'LMEM a;\nRMEM r;\nr += a +;\n' >"$T/$esc"
for p in nbcc nbrun; do
	case $p in
	nbcc) "$NBCC" "$T/$esc" -o "$T/e.cl" 2>"$T/err" ;;
	nbrun) "$NBRUN" "$T/$esc" $RUN 2>"$T/err" ;;
	esac
	if ! grep -q "$(printf '\033')" "$T/err" &&
		grep -qF 'k\x1b[31m\nx.nbl' "$T/err"; then
		ok "$p: a control byte in a file name is escaped"
	else
		bad "$p: file name printed raw: $(od -c "$T/err" | head -3)"
	fi
done
"$NBRUN" "$T/no$esc" $RUN 2>"$T/err"
grep -qF "cannot open '$T/no"'k\x1b[31m\nx.nbl' "$T/err" &&
	ok "nbrun: a missing file's name escaped" ||
	bad "nbrun: missing file: $(cat "$T/err")"
"$NBCC" "$G" -o "$T/$esc/x.cl" 2>"$T/err"
! grep -q "$(printf '\033')" "$T/err" && ok "nbcc -o: the output name escaped" ||
	bad "nbcc -o: output name raw"
utf=$(printf '\316\273.nbl') # lambda: printable, left as it is
cp "$T/bad.nbl" "$T/$utf"
"$NBCC" "$T/$utf" -o "$T/e.cl" 2>"$T/err"
grep -qF "$utf:3:" "$T/err" && ok "printable UTF-8 in a name stays" ||
	bad "UTF-8 name: $(cat "$T/err")"

# --- replacing a file: mode, owner, links (issue 28, item 20) ---------------
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

# --- an input is never an output (issue 28, item 21) ------------------------
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

# --- a writer killed by SIGXFSZ (issue 28, item 22) ---------------------------
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
echo "outputs.sh: $((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ] || exit 1
[ $cl = 1 ] || exit 77 # the OpenCL check did not run
