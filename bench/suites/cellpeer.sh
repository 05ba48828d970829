# suites/cellpeer.sh: issue 25's 50% target against hand-written kernels
# (bench/cellpeer.c and .cl): the neighbours suite's Lennard-Jones inputs
# through a hand-written cell-list kernel (a work group an i-cell of one
# cutoff, neighbour cells through local-memory tiles, fast math), the same
# with a branch over far pairs, cells of a third walked from their starts,
# and an exact neighbour list (only needed
# pairs: the ceiling of any list), each kernel's own time by events.
about="hand-written LJ cell-list kernels and an exact list: needed pairs/s"
params="n reps device"
n=1048576
reps=5
device=gpu

suite_run() {
	${CC:-cc} -O2 -fopenmp -I/usr/local/cuda/include -o "$T/cellpeer" \
		bench/cellpeer.c -lOpenCL -lm 2>"$T/err" ||
		${CC:-cc} -O2 -fopenmp -I/usr/local/cuda/include -o "$T/cellpeer" \
			bench/cellpeer.c -l:libOpenCL.so.1 -lm 2>"$T/err" || {
		note "cellpeer did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	"$T/cellpeer" "$n" "$reps" "$device" </dev/null
}
