# suites/launch-floor.sh: one launch's cost on an OpenCL GPU and in CUDA by
# profiling events (bench/launchfloor.c and .cu): the floor under every
# small launch's rate, which decides what float gravity at N = 4096 can
# reach (issue 30; docs/performance.md).
about="an empty launch's and a short kernel's time by events, OpenCL and CUDA"
params="arch"
arch=native

suite_run() {
	${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/launchfloor" \
		bench/launchfloor.c -lOpenCL 2>"$T/err" ||
		${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/launchfloor" \
			bench/launchfloor.c -l:libOpenCL.so.1 2>"$T/err" || {
		note "launchfloor did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	"$T/launchfloor" </dev/null || return 1
	_nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null) || {
		note "no nvcc: no CUDA rows"
		return 0
	}
	"$_nvcc" -O2 -arch="$arch" -o "$T/launchfloor_cu" bench/launchfloor.cu \
		>"$T/err" 2>&1 || {
		note "nvcc failed: $(tail -n 1 "$T/err")"
		return 0
	}
	"$T/launchfloor_cu" </dev/null
}
