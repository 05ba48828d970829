# nbody --tree against nbody's direct run of the same Plummer sphere
# (-n 1000, the built-in gravity.nbl in double, on the host): with
# --theta 1e-9 every cell is opened and the energies of the first and last
# states equal the direct run's to 1e-12; at --theta 0.5 the energy drifts
# no more than 1e-4 over 50 steps (the direct run: about 1e-6); --tree's
# refusals (Hermite, --cutoff, --theta without --tree, --kernel without
# --far) are clear errors.
set -u
. "$ROOT/tests/lib.sh"
NBODY=$BIN/nbody
scratch
shared_cache
unset NBRT_DEVICE
cd "$T" || exit 1

run="$NBODY -n 1000 --steps 50 --device host --precision double"
# energy LOG: E0 and E of the summary's line
energy() { sed -n 's/^energy: *E0 = *\([^ ]*\) *E = *\([^ ]*\) .*/\1 \2/p' "$1"; }
$run >direct.txt 2>&1 || die "the direct run: $(cat direct.txt)"
$run --tree --theta 1e-9 >open.txt 2>&1 || die "--tree: $(cat open.txt)"
$run --tree >half.txt 2>&1 || die "--tree --theta 0.5: $(cat half.txt)"
set -- $(energy direct.txt) $(energy open.txt) $(energy half.txt)
[ $# = 6 ] || die "no energy line: $(cat direct.txt open.txt)"
awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN {
	x = (a - c) / a; y = (b - d) / b; if (x < 0) x = -x; if (y < 0) y = -y
	exit !(x < 1e-12 && y < 1e-12) }' &&
	ok "every cell opened: E0 $3, E $4, as the direct run's $1, $2" ||
	bad "every cell opened: E0 $3, E $4; direct $1, $2"
awk -v a="$5" -v b="$6" 'BEGIN { x = (b - a) / a; if (x < 0) x = -x
	exit !(x < 1e-4) }' &&
	ok "theta 0.5: E0 $5, E $6" || bad "theta 0.5: E0 $5, E $6 drift over 1e-4"

refused() {
	want=$1
	shift
	if $NBODY -n 10 --steps 1 --device host "$@" >out 2>err; then
		bad "$*: ran"
	elif grep -qF -- "$want" err; then
		ok "$*: $(cat err)"
	else
		bad "$*: the message lacks '$want': $(cat err)"
	fi
}
refused "the Hermite scheme needs the jerk" --tree --integrator hermite
refused "--tree and --cutoff" --tree --cutoff 0.5
refused "--theta is for --tree" --theta 0.3
refused "give its far field with --far FILE" --tree \
	--kernel "$ROOT/dsl-examples/gravity.nbl"
refused "expected a number above 0" --tree --theta 0
finish
