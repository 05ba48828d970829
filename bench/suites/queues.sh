# suites/queues.sh: whether an OpenCL GPU runs two in-order queues'
# kernels side by side, and an out-of-order queue's (bench/queues.c):
# what a treecode's far and near kernels could overlap by (issue 26;
# docs/treecode.md).
about="two launches of a short kernel: one queue, two queues, out of order"
params=""

suite_run() {
	${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/queues" bench/queues.c \
		-lOpenCL 2>"$T/err" ||
		${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/queues" \
			bench/queues.c -l:libOpenCL.so.1 2>"$T/err" || {
		note "queues did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	"$T/queues" </dev/null
}
