# suites/probe.sh: what an OpenCL device offers that nbcc's back end can
# use (bench/clprobe.c, built here with cc -lOpenCL): its version and
# extensions, and whether sub-group shuffles or NVIDIA's inline PTX
# shuffles build and give the right sums; then nbrun --device-info.  Once
# per new kind of device; the findings go into docs/performance.md.
about="the device's OpenCL offer: clprobe's shuffle probes and --device-info"
params="device"
device=gpu

suite_run() {
	# CUDA's headers where the system has none, the driver's library by
	# its soname where there is no development link
	${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/clprobe" bench/clprobe.c \
		-lOpenCL 2>"$T/err" ||
		${CC:-cc} -O2 -I/usr/local/cuda/include -o "$T/clprobe" bench/clprobe.c \
			-l:libOpenCL.so.1 2>"$T/err" || {
		note "clprobe did not build: $(tail -n 1 "$T/err")"
		return 1
	}
	"$T/clprobe" </dev/null | sed 's/^/# /'
	"$BIN/nbrun" --device "$device" --device-info | sed 's/^/# /'
}
