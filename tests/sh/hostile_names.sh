# hostile_names.sh: no name and no path taken from the user can change
# what generated code does (issue 7, items 1 and 2).
#   - every name of tests/sh/hostile_names.txt (C and OpenCL C keywords,
#     types, macros, built-ins, libc and libm functions, the generated
#     code's own identifiers) as a kernel name, through the file name (a
#     few through --name too), and names of 255 characters: nbrun on the
#     host gives bit for bit what the same kernel under a harmless name
#     gives; the names marked :cl likewise on PoCL.  A kernel called kill must not
#     call kill(): a process whose id it is given survives.
#   - every name as a variable (LMEM, BMEM, CONST, RMEM and temporaries,
#     32 to a kernel, in float, double and dd, with a j-split) on the host
#     and on PoCL, against the same kernel with harmless names;
#   - the shared object exports only nbk_ symbols, and the host loader
#     takes no library's function for the entry;
#   - sources in a directory named b*, in one whose path holds */, a
#     newline and C code that would create a marker file when loaded, and
#     in one whose name holds control and non-ASCII bytes: the code does
#     not run, nbrun works on the .nbl and on the .c and .cl nbcc wrote
#     there (their headers read back).
# Runs take small sizes and share one cache, so a name costs one compile.
# Should names ever collide again, the kernel called kill would call
# kill(Ni, Nj, ...): Nj = 67 is no signal number, so no process gets one
# (only the process this script starts for that check).
# tags: slow
set -u
. "$ROOT/tests/lib.sh"
NBRUN=$BIN/nbrun
scratch
# the kernels cached with every test's: this script tests no cache
shared_cache
# Names are the front end's matter: the compilers' optimizers see none of
# them (a kernel's is nbk_-prefixed, a variable's a local), and the one
# way the level changes how a name reads, the macros it predefines
# (__OPTIMIZE__, __NO_INLINE__), is no name of the list.  So the kernels
# build unoptimized, cc -O0 and PoCL's -cl-opt-disable, each name against
# the harmless name's kernel built alike: 194 CPU s of this script cold,
# 2.5 s a PoCL build of a kernel name, 9.7 s a dd batch of variables.
# The host's batches of variables alone keep cc's -O3 -march=native
# (11 s): every name also meets the optimizing compiler once.
export NBRT_HOST_CFLAGS=-O0 NBRT_CL_OPTIONS=-cl-opt-disable
unset NBRT_DEVICE
. "$ROOT/tests/device.sh"
cl=1
if ! have_device cpu; then
	echo "skip: no OpenCL CPU device: the PoCL half is not run"
	cl=0
fi
names=$(sed 's/#.*//' "$ROOT/tests/sh/hostile_names.txt")
long=$(awk 'BEGIN { s = "L"; while (length(s) < 255) s = s "x"; print s }')
long251=$(printf '%s' "$long" | cut -c1-251)

# run OUT KERNEL DEVICE FLAGS...: nbrun on 13 x 67 random inputs, results in
# $T/OUT.csv; a failure is reported with its messages.  Two i- and two
# j-elements: each name is still copied under the unrolling's suffixes,
# and a kernel compiles several times faster than with a CPU row's 16
# (32 copies of 32 variables in dd were most of this script's time).
# KERNEL is under $T, and nbrun runs in $T on its path relative to it:
# the generated code holds the path, so a kernel's is the same in every
# run, and the shared cache (both passes of make check, reruns) compiles
# each once (the paths' own checks, below, keep theirs).
run() {
	_o=$1 _k=$2 _d=$3
	shift 3
	if (cd "$T" && "$NBRUN" "${_k#"$T"/}" --random 13,67 --seed 11 \
		--device "$_d" --unroll-i=2 --unroll-j=2 "$@" -o "$_o.csv" \
		2>"$_o.err"); then
		return 0
	fi
	bad "$_o ($_d): nbrun failed: $(head -c 600 "$T/$_o.err")"
	return 1
}
# queue OUT KERNEL DEVICE FLAGS...: run's run as a line of $T/jobs.DEVICE,
# all of them then run by one nbrun --jobs a device (ran), whose process
# starts the OpenCL compiler once; ran OUT DEVICE: whether OUT's job
# succeeded (its results written), reported as run does.
queue() {
	_o=$1 _k=$2 _d=$3
	shift 3
	job "$T/jobs.$_d" "${_k#"$T"/}" --random 13,67 --seed 11 --device "$_d" \
		--unroll-i=2 --unroll-j=2 "$@" -o "$_o.csv" "2>$_o.err"
}
ran() {
	[ -s "$T/$1.csv" ] && return 0
	bad "$1 ($2): nbrun failed: $(head -c 600 "$T/$1.err")"
	return 1
}
# same OUT REF WHAT: the results of two runs agree bit for bit (without
# the header line, which names the RMEM variables).
same() {
	if tail -n +2 "$T/$1.csv" | cmp -s - "$T/$2.csv.body"; then
		ok
	else
		bad "$3: results differ from the harmless name's"
	fi
}
body() { tail -n +2 "$T/$1.csv" > "$T/$1.csv.body"; }

# --- kernel names ---------------------------------------------------------
mkdir "$T/k"
cat > "$T/k/harmless.nbl" <<'NBL'
LMEM a, b;
BMEM u, w;
CONST c;
RMEM r, s;
t = a - u;
r += t * w + c;
s += sqrt(t * t + c) * b;
NBL
devs=host
[ $cl = 1 ] && devs="host cpu"
for d in $devs; do
	run ref_$d "$T/k/harmless.nbl" $d && body ref_$d
done
# kernels NAME:DEVICE...: each name as a kernel name (through the file name
# or, NAME=--name, through --name), on the device named
kernels() {
	for e in "$@"; do
		n=${e%:*}
		d=${e##*:}
		case $n in
		--name=*)
			run k$w "$T/k/harmless.nbl" $d "$n" &&
				same k$w ref_$d "$(echo "$n" | cut -c1-40) ($d)"
			;;
		*)
			mkdir -p "$T/k/$d"
			cp "$T/k/harmless.nbl" "$T/k/$d/$n.nbl"
			run k$w "$T/k/$d/$n.nbl" $d &&
				same k$w ref_$d "kernel $n.nbl ($d)"
			;;
		esac
	done
}
jobs=""
for e in $names "$long251" "--name=$long" --name=kill --name=main \
	--name=arr --name=offsetof --name=M_PI; do
	n=${e%:cl}
	jobs="$jobs $n:host"
	[ $cl = 1 ] && [ "$n" != "$e" ] && jobs="$jobs $n:cpu"
done
# cc takes most of the time: two at a time, every other job each
set -- $jobs
nk=$#
part() { awk -v w=$1 '{ for (k = w; k <= NF; k += 2) print $k }'; }
for w in 1 2; do
	(
		checks=0 fails=0
		kernels $(echo "$@" | part $w)
		echo "$checks $fails" > "$T/count$w"
	) &
done
wait
for w in 1 2; do
	read c f < "$T/count$w" || { c=1 f=1; echo "FAIL: worker $w died"; }
	checks=$((checks + c))
	fails=$((fails + f))
done
echo "ok   $nk kernel names"

# kill.nbl calls no kill(): the process it names lives on
sleep 30 &
victim=$!
cp "$T/k/harmless.nbl" "$T/k/kill.nbl"
"$NBRUN" "$T/k/kill.nbl" --random "$victim,15" --seed 1 --device host \
	-o /dev/null 2>"$T/e.err" ||
	bad "kill.nbl --random $victim,15: $(cat "$T/e.err")"
if kill -0 "$victim" 2>/dev/null; then
	ok
	echo "ok   kill.nbl leaves process $victim alone"
	kill "$victim"
else
	bad "kill.nbl killed process $victim"
fi
wait "$victim" 2>/dev/null

# what the host's shared object defines: nbk_ names only
"$BIN/nbcc" "$T/k/harmless.nbl" -o "$T/k/h.c" 2>"$T/e.err" ||
	bad "nbcc: $(cat "$T/e.err")"
if cc -shared -fPIC -O1 -o "$T/k/h.so" "$T/k/h.c" -lm 2>"$T/e.err"; then
	other=$(nm -D --defined-only "$T/k/h.so" | awk '
		$2 ~ /^[TtDdBbRrWwVv]$/ &&
		$3 !~ /^(nbk_|_init$|_fini$|_edata$|_end$|__bss_start$)/ {
			print $3
		}')
	if [ -z "$other" ]; then
		ok
	else
		bad "the shared object defines $other"
	fi
else
	bad "cc on nbcc's C: $(cat "$T/e.err")"
fi
# an entry line naming a library's function finds none of the kernel's own
sed 's/^ \* entry nbk_harmless_entry$/ * entry kill/' "$T/k/h.c" > "$T/k/e.c"
if "$NBRUN" "$T/k/e.c" --random 13,67 --device host -o /dev/null \
	2>"$T/e.err"; then
	bad "a header with 'entry kill' runs"
elif grep -q "has no function 'kill' of its own" "$T/e.err"; then
	ok
else
	bad "entry kill: $(cat "$T/e.err")"
fi

# --- variable names -------------------------------------------------------
# kernel SLOT-NAMES...: 32 names as 8 LMEM, 8 BMEM, 4 CONST, 6 RMEM and 6
# temporaries, in that order.
kernel() {
	awk -v list="$*" '
	function names(from, to,   k, s) {
		s = n[from]
		for (k = from + 1; k <= to; k++)
			s = s ", " n[k]
		return s
	}
	BEGIN {
		split(list, v, " ")
		for (k = 1; k <= 32; k++)
			n[k - 1] = v[k]
		printf "LMEM %s;\nBMEM %s;\n", names(0, 7), names(8, 15)
		printf "CONST %s;\nRMEM %s;\n", names(16, 19), names(20, 25)
		for (k = 0; k < 8; k++) {
			L[k] = n[k]
			B[k] = n[k + 8]
		}
		for (k = 0; k < 6; k++)
			T[k] = n[k + 26]
		C0 = n[16]; C1 = n[17]; C2 = n[18]; C3 = n[19]
		printf "%s = %s - %s + %s;\n", T[0], L[0], B[0], C0
		printf "%s = %s * %s + %s * %s;\n", T[1], L[1], B[1], L[2], B[2]
		printf "%s = sqrt(%s * %s + %s * %s + %s);\n", T[2], T[0], T[0],
			T[1], T[1], C1
		printf "%s = %s / (%s + %s + 1);\n", T[3], L[3], B[3], C2
		printf "%s = %s * %s - %s * %s + %s;\n", T[4], L[4], B[4], L[5],
			B[5], T[3]
		printf "%s = (%s + %s) * (%s - %s) + %s;\n", T[5], L[6], B[6],
			L[7], B[7], C3
		printf "%s += %s * %s;\n", n[20], T[0], T[2]
		printf "%s += %s / %s;\n", n[21], T[1], T[2]
		printf "%s -= %s * %s;\n", n[22], T[3], T[4]
		printf "%s += %s;\n", n[23], T[5]
		printf "%s += %s * %s;\n", n[24], T[4], C0
		printf "%s += exp(-%s) * %s;\n", n[25], T[2], T[5]
	}'
}
mkdir "$T/v"
harmless=$(awk 'BEGIN { for (k = 0; k < 32; k++) printf "h%d ", k }')
kernel $harmless > "$T/v/ref.nbl"
vdevs=host
[ $cl = 1 ] && vdevs="host cpu"
precs="float double dd"
rm -f "$T"/jobs.*
for d in $vdevs; do
	for p in $precs; do
		queue vref_${d}_$p "$T/v/ref.nbl" $d --precision=$p --jsplit=2
	done
done
# the names, 32 to a kernel (the last padded with harmless ones); each
# batch in the next precision
set -- $(printf '%s\n' $names | sed 's/:cl$//') "$long"
nb=0
nv=0
while [ $# -gt 0 ]; do
	batch=""
	k=0
	while [ $k -lt 32 ]; do
		if [ $# -gt 0 ]; then
			batch="$batch $1"
			shift
			nv=$((nv + 1))
		else
			batch="$batch pad$k"
		fi
		k=$((k + 1))
	done
	p=$(echo $precs | cut -d' ' -f$((nb % 3 + 1)))
	kernel $batch > "$T/v/b$nb.nbl"
	echo "$nb $p$batch" >>"$T/batches"
	for d in $vdevs; do
		queue vb${nb}_$d "$T/v/b$nb.nbl" $d --precision=$p --jsplit=2
	done
	nb=$((nb + 1))
done
# the host's at cc's own flags (above); the two processes side by side
(cd "$T" && env -u NBRT_HOST_CFLAGS "$NBRUN" --jobs jobs.host 2>/dev/null) &
[ $cl = 0 ] || (cd "$T" && "$NBRUN" --jobs jobs.cpu 2>/dev/null)
wait
for d in $vdevs; do
	for p in $precs; do
		ran vref_${d}_$p $d && body vref_${d}_$p
	done
done
while read -r b p batch; do
	for d in $vdevs; do
		ran vb${b}_$d $d &&
			same vb${b}_$d vref_${d}_$p "variables $batch ($d, $p)"
	done
done <"$T/batches"
echo "ok   $nv variable names in $nb kernels ($vdevs)"

# --- paths ----------------------------------------------------------------
# A path is text in the header comment of what nbcc writes: */, a newline
# or a trigraph in it must not end the comment, whatever follows.  The
# kernel cache's key leaves a path out only where nbcc wrote it unescaped
# (runtime/cache.c): each of these, escaped ("*" "/" in b*/g.nbl too), is
# built by cc and PoCL with its own text.
nl='
'
code='int system(const char *);__attribute__((constructor)) static void'
code="$code"' nbpwn(void) { system("touch pwned"); }'
evil="$T/x*/$nl$code$nl/*"
ctl=$(printf '%s/c??/ \001\033[31m\177\303\251\377 end ' "$T")
for dir in "$T/b*" "$evil" "$ctl" "$T/a$nl#error x"; do
	mkdir -p "$dir" || { bad "mkdir $dir"; continue; }
	cp "$T/k/harmless.nbl" "$dir/g.nbl"
	before=$fails
	what=$(printf '%s' "${dir#"$T"/}" | tr -c '[:print:]' '?')
	(cd "$T" && "$NBRUN" "$dir/g.nbl" --random 13,67 --seed 11 \
		--device host -o "$T/p.csv" 2>"$T/e.err") &&
		cmp -s "$T/p.csv" "$T/ref_host.csv" && ok ||
		bad "nbrun on $what.../g.nbl (host): $(head -c 600 "$T/e.err")"
	for ext in c cl; do
		d=host
		[ $ext = cl ] && d=cpu
		[ $ext = cl ] && [ $cl = 0 ] && continue
		if ! "$BIN/nbcc" "$dir/g.nbl" -o "$dir/g.$ext" \
			2>"$T/e.err"; then
			bad "nbcc $what.../g.nbl -o g.$ext: $(cat "$T/e.err")"
			continue
		fi
		# the header stays one comment: no */ inside, nothing after it
		# but the code
		hdr=$(awk '/^ \*\// { exit } { print }' "$dir/g.$ext")
		case $hdr in
		*'*/'*) bad "g.$ext in $what: */ inside the header" ;;
		*) ok ;;
		esac
		(cd "$T" && "$NBRUN" "$dir/g.$ext" --random 13,67 --seed 11 \
			--device $d -o "$T/p.csv" 2>"$T/e.err") &&
			cmp -s "$T/p.csv" "$T/ref_$d.csv" && ok ||
			bad "nbrun on $what.../g.$ext ($d):" \
				"$(head -c 600 "$T/e.err")"
	done
	if [ -e "$T/pwned" ]; then
		bad "code in the path $what... ran"
		rm -f "$T/pwned"
	else
		ok
	fi
	[ $fails = $before ] &&
		echo "ok   source in $what"
done

finish hostile_names
[ $cl = 1 ] || exit 77 # only the host half ran
