# end_of_options.sh: "--" ends the flags of every program (apps/common/opt.c;
# issue 28, item 26): after it a kernel named "-k.nbl" is compiled and run,
# and "--steps" or "-x" is an argument, not a flag.
set -u
. "$ROOT/tests/lib.sh"
scratch
# the kernels cached with every test's: this script tests no cache
shared_cache
unset NBRT_DEVICE
cd "$T" || die "cd"
cp "$ROOT/dsl-examples/gravity.nbl" ./-k.nbl
"$NBCC" ./-k.nbl --target=c -o ref.c || die "nbcc ./-k.nbl"
# the same code, but for the source's name in its header
body() { grep -v '^ \* source' "$1"; }
"$NBCC" --target=c -o out.c -- -k.nbl && body out.c >out.body &&
	[ "$(wc -l <out.body)" -gt 100 ] && body ref.c | cmp -s - out.body &&
	ok "nbcc -- -k.nbl" || bad "nbcc -- -k.nbl"
"$NBCC" -- -k.nbl --target=c 2>err
[ $? != 0 ] &&
	grep -q "more than one input file ('-k.nbl' and '--target=c')" err &&
	ok "nbcc: a flag after -- is an operand" ||
	{ bad "nbcc -- -k.nbl --target=c"; cat err; }
RUN="--random 5,7 --seed 3 --const eps2=0.01 --device host"
"$BIN/nbrun" ./-k.nbl $RUN -o ref.csv 2>/dev/null || die "nbrun ./-k.nbl"
"$BIN/nbrun" $RUN -o out.csv -- -k.nbl 2>/dev/null &&
	cmp -s ref.csv out.csv &&
	ok "nbrun ... -- -k.nbl" || bad "nbrun -- -k.nbl"
# nbbench (not installed, but the bench suites' driver): the kernel and
# its size after --
"$BIN/nbbench" --device host -r 1 -- -k.nbl 16 >out.csv 2>err &&
	grep -q ',16,16,1,' out.csv && ok "nbbench ... -- -k.nbl 16" ||
	{ bad "nbbench -- -k.nbl 16"; cat err; }
# treebench (bench/suites/tree.sh's driver) has no flags: -- ends them,
# and alone it is answered, not a silent exit
"$BIN/treebench" -- 64 0.5 host 16 16 3 0 >out.csv 2>err &&
	grep -q '^64,0.5,16,16,' out.csv && ok "treebench -- 64 0.5 host" ||
	{ bad "treebench -- 64 0.5 host"; cat err; }
"$BIN/treebench" -- 2>err
[ $? = 2 ] && grep -q "too few arguments" err && ok "treebench --: answered" ||
	{ bad "treebench --"; cat err; }
for p in nbody oneloop; do
	"$BIN/$p" -- --steps 2>err
	[ $? != 0 ] && grep -q "unexpected argument '--steps'" err &&
		ok "$p -- --steps: an argument" || { bad "$p -- --steps"; cat err; }
done
"$BIN/ilrun" -- -x.il 2>err
[ $? != 0 ] && grep -q "cannot open '-x.il'" err && ok "ilrun -- -x.il" ||
	{ bad "ilrun -- -x.il"; cat err; }
finish
