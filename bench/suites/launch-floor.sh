# suites/launch-floor.sh: one launch's cost on an OpenCL GPU and in CUDA by
# profiling events (bench/launchfloor.c and .cu): the floor under every
# small launch's rate, which decides what float gravity at N = 4096 can
# reach (issue 30; docs/performance.md).  queue=Q adds each row's queued
# floor: Q launches back to back, one wait, the span by events over Q
# (nbbench --queue's measure).  Then bench/flushprobe.c: whether the driver
# starts a launch without clFlush, and the flush's host cost (session 23).
about="an empty launch's and a short kernel's time by events, OpenCL and CUDA"
params="arch queue"
arch=native
queue=""


suite_run() {
	${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/launchfloor" \
		bench/launchfloor.c -lOpenCL 2>"$T/err" ||
		${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/launchfloor" \
			bench/launchfloor.c -l:libOpenCL.so.1 2>"$T/err" || {
		note "launchfloor did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	"$T/launchfloor" $queue </dev/null || return 1
	if ${CC:-cc} -O2 -o "$T/flushprobe" bench/flushprobe.c -lOpenCL \
		2>"$T/err" || ${CC:-cc} -O2 -o "$T/flushprobe" bench/flushprobe.c \
		-l:libOpenCL.so.1 2>"$T/err"; then
		"$T/flushprobe" </dev/null || return 1
	else
		note "flushprobe did not build: $(tail -n 1 "$T/err")"
	fi
	_nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null) || {
		note "no nvcc: no CUDA rows"
		return 0
	}
	"$_nvcc" -O2 -arch="$arch" -o "$T/launchfloor_cu" bench/launchfloor.cu \
		>"$T/err" 2>&1 || {
		note "nvcc failed: $(tail -n 1 "$T/err")"
		return 0
	}
	"$T/launchfloor_cu" $queue </dev/null
}
