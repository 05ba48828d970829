# nbrun --jobs FILE (apps/nbrun/jobs.c): the jobs' outputs byte for byte
# those of one nbrun process each (on the host, fresh random inputs,
# seed printed), its redirections and assignments, every job run past a
# failure, which is named by its line, the worst exit status; a >PATH
# written once its job ended well, never over an input nor over the
# job's own -o PATH; a file
# refused whole (FILE:LINE:COL, no job run) and --jobs with other
# arguments refused.
set -u
. "$ROOT/tests/lib.sh"
scratch
shared_cache
test_seed nbrun_jobs.sh
cd "$T" || exit 1
G=$ROOT/dsl-examples/gravity.nbl
L=$ROOT/dsl-examples/lennard_jones.nbl
NBRUN=$BIN/nbrun

job jobs "$G" --random 57,31 --seed "$SEED" --target c -o a.csv "2>a.err"
job jobs "$L" --random 40,23 --seed "$SEED" --target c --precision=float \
	">b out.csv"
job jobs "$G" --random 5,5 --bogus "2>c.err"
# an assignment is the job's own: NBRT_DEVICE=nonesuch fails this one
# job (no --device given)
job jobs NBRT_DEVICE=nonesuch "$G" --random 5,5 -o e.csv "2>e.err"
job jobs "$G" --random 33,17 --seed "$SEED" --target c --precision=dd \
	-o "it's.csv"
"$NBRUN" --jobs jobs >out 2>err
st=$?
[ $st = 2 ] && ok "exit status 2, the worst" || bad "exit status $st, not 2"
"$NBRUN" "$G" --random 57,31 --seed "$SEED" --target c -o a1.csv 2>/dev/null
"$NBRUN" "$L" --random 40,23 --seed "$SEED" --target c --precision=float \
	>b1.csv 2>/dev/null
"$NBRUN" "$G" --random 33,17 --seed "$SEED" --target c --precision=dd \
	-o d1.csv 2>/dev/null
same() {
	if [ -s "$2" ] && cmp -s "$1" "$2"; then
		ok "$1 as one process's"
	else
		bad "$1 differs from one process's $2"
	fi
}
same a.csv a1.csv
same "b out.csv" b1.csv
same "it's.csv" d1.csv
grep -q -- "--seed $SEED" a.err && ok "2>a.err has job 1's messages" ||
	bad "a.err lacks the seed line"
[ -s out ] && bad "stdout not empty: $(head -c 200 out)" ||
	ok "nothing on stdout"
grep -q "^nbrun: jobs:3: error: unknown option '--bogus'" c.err &&
	ok "job 3's error named by its line" || bad "c.err: $(cat c.err)"
grep -q "^nbrun: jobs:3: error: the job failed (exit status 2), its messages in c.err" err &&
	ok "job 3's failure reported" || bad "err: $(cat err)"
grep -q "nonesuch" e.err && [ ! -e e.csv ] &&
	grep -q "^nbrun: jobs:4: error: the job failed (exit status 1)" err &&
	ok "NBRT_DEVICE=nonesuch for job 4 alone" ||
	bad "job 4: $(cat e.err), e.csv $(ls e.csv 2>&1)"

# >PATH replaces PATH only once its job has ended well: a failed job
# leaves the old file (and makes none), a job's own input is not
# truncated before it is read, nor is the file of jobs; 2>PATH keeps a
# failed job's messages
printf 'x,y,z,m\n0,0,0,1\n1,0,0,1\n' >in.csv
cp in.csv in.kept
echo old >old.csv
M="--map xi=x,yi=y,zi=z,xj=x,yj=y,zj=z,mj=m --const eps2=0.01 --target c"
rm -f redir
job redir "$G" --ij nonesuch.csv $M ">old.csv" "2>f.err"
job redir "$G" --ij nonesuch.csv $M ">new.csv"
job redir "$G" --ij in.csv $M ">in.csv"
job redir "$G" --ij in.csv $M ">redir"
"$NBRUN" --jobs redir >out 2>err
st=$?
[ $st = 1 ] && [ "$(cat old.csv)" = old ] && [ ! -e new.csv ] &&
	grep -q "nonesuch" f.err && cmp -s in.csv in.kept &&
	[ "$(wc -l <redir)" = 4 ] &&
	grep -q "^nbrun: redir:1: error: the job failed (exit status 1), its messages in f.err; its output not written to old.csv" err &&
	grep -q "^nbrun: redir:3: error: 'in.csv' is an input of this run: not overwritten" err &&
	grep -q "^nbrun: redir:4: error: 'redir' is an input of this run" err &&
	ok "a failed job's >PATH left as it was, inputs not overwritten" ||
	bad "status $st, old.csv $(cat old.csv), in.csv $(head -c 80 in.csv), err: $(cat err)"
# -o PATH >PATH: the job's -o file stays, as sh leaves it
rm -f same
job same "$G" --random 5,5 --seed "$SEED" --target c --const eps2=0.1 \
	-o same.csv ">same.csv"
"$NBRUN" --jobs same >out 2>err
st=$?
"$NBRUN" "$G" --random 5,5 --seed "$SEED" --target c --const eps2=0.1 \
	-o same1.csv 2>/dev/null
[ $st = 0 ] && same same.csv same1.csv || bad "-o same.csv >same.csv: $st, $(cat err)"

rm -f *.csv
printf '%s --random 3,3 --target c -o x.csv\n%s "--random 3,3\n' "$G" "$G" \
	>broken
"$NBRUN" --jobs broken >out 2>err
st=$?
[ $st = 2 ] && grep -q '^broken:2:[0-9]*: error: unterminated "..."' err &&
	[ ! -e x.csv ] && ok "a broken file refused whole" ||
	bad "broken file: status $st, $(cat err), x.csv $(ls x.csv 2>&1)"
"$NBRUN" --jobs broken extra >out 2>err
st=$?
[ $st = 2 ] && grep -q 'takes nothing else' err &&
	ok "--jobs with more arguments refused" || bad "status $st: $(cat err)"
# --jobs -: a job reading - too is refused by name (it found it empty:
# "<stdin>: no header row"); the other jobs run
printf '%s --random 3,3 --target c --const eps2=0.1 -o ok.csv\n%s --ij - --target c --const eps2=0.1\n' \
	"$G" "$G" | "$NBRUN" --jobs - >out 2>err
st=$?
[ $st = 2 ] && [ -s ok.csv ] &&
	grep -q '^nbrun: <stdin>:2: error: standard input (-) holds the file of jobs (--jobs -): a job cannot read it too' err &&
	ok "--jobs -: a job reading - refused by name" ||
	bad "--jobs - with a job on -: status $st, $(cat err)"
finish
