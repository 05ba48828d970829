/* ptxcubin: the cubin the CUDA driver's own JIT makes of a PTX file (the
 * PTX NVIDIA's OpenCL stored in the runtime's cache), for cuobjdump -sass
 * where the toolkit's ptxas is older than the driver's PTX.  Build on the
 * device: gcc -O2 -I/usr/local/cuda/include bench/ptxcubin.c -lcuda.
 * usage: ptxcubin IN.ptx OUT.cubin */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "slurp.h"

static void check(CUresult r, const char *what, const char *log)
{
	if (r != CUDA_SUCCESS) {
		const char *s = "?";
		cuGetErrorString(r, &s);
		fprintf(stderr, "ptxcubin: %s: %s\n%s\n", what, s, log ? log : "");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ptxcubin IN.ptx OUT.cubin\n");
		return 2;
	}
	size_t n;
	char *ptx = slurp("ptxcubin", argv[1], &n);
	CUdevice dev;
	CUcontext ctx;
	check(cuInit(0), "cuInit", NULL);
	check(cuDeviceGet(&dev, 0), "cuDeviceGet", NULL);
	check(cuCtxCreate(&ctx, NULL, 0, dev), "cuCtxCreate", NULL);
	static char log[16384];
	CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *v[] = {log, (void *)(size_t)sizeof log};
	CUlinkState ls;
	check(cuLinkCreate(2, o, v, &ls), "cuLinkCreate", NULL);
	check(cuLinkAddData(ls, CU_JIT_INPUT_PTX, ptx, n + 1, "kernel.ptx",
	                    0, NULL, NULL), "cuLinkAddData", log);
	void *cubin;
	size_t size;
	check(cuLinkComplete(ls, &cubin, &size), "cuLinkComplete", log);
	FILE *g = fopen(argv[2], "wb");
	if (!g || fwrite(cubin, 1, size, g) != size || fclose(g)) {
		fprintf(stderr, "ptxcubin: cannot write %s\n", argv[2]);
		return 1;
	}
	cuLinkDestroy(ls);
	cuCtxDestroy(ctx);
	free(ptx);
	return 0;
}
