/* ptxrun: runs the PTX that NVIDIA's OpenCL made of a float gravity kernel
 * (taken from the runtime's cache) under the CUDA driver API, because
 * Nsight Compute reads the counters of CUDA launches only.  Build on the
 * device: gcc -O2 -I/usr/local/cuda/include bench/ptxrun.c -lcuda.
 * usage: ptxrun FILE.ptx N UNROLL_I SPLIT WG [REPS [S]]; prints
 * interactions/s.  With S > 1 the j range is cut into S parts, each
 * launched on a stream of its own into outputs of its own, so that the
 * parts' work groups share the multiprocessors (one launch's tail filled
 * by the next one's). 
 * The argument list is gravity.nbl's (ni, nj, ibase, jbase, accum, xi, yi,
 * zi, the packed j-elements, eps2, ax, ay, az, pot). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "slurp.h"

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		const char *s = "?";
		cuGetErrorString(r, &s);
		fprintf(stderr, "ptxrun: %s: %s\n", what, s);
		exit(1);
	}
}

/* NVIDIA's OpenCL reads a launch's offsets and group counts from
 * environment registers (%envreg0-2: the group offsets, 3-5: the global
 * offsets, 6-8: the number of groups, by how its kernels use them: a
 * split kernel compares %envreg7 with 1 as it does get_num_groups(1)).
 * The CUDA driver sets none of them, so a kernel that asks the number of
 * slices read garbage and did a fraction of its work: they are written
 * here as the launch's values, offsets 0. */
static char *envregs(const char *s)
{
	char *o = malloc(2 * strlen(s) + 1), *d = o;
	if (!o) {
		fprintf(stderr, "ptxrun: out of memory\n");
		exit(1);
	}
	while (*s) {
		if (strncmp(s, "%envreg", 7)) {
			*d++ = *s++;
			continue;
		}
		char *end;
		long r = strtol(s + 7, &end, 10);
		if (end == s + 7 || r < 0 || r > 8) {
			fprintf(stderr, "ptxrun: %%envreg%ld: not known\n", r);
			exit(1);
		}
		d += sprintf(d, "%s", r >= 6 ? (r == 6 ? "%nctaid.x" : r == 7 ?
		             "%nctaid.y" : "%nctaid.z") : "0");
		s = end;
	}
	*d = 0;
	return o;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: ptxrun FILE.ptx N UNROLL_I SPLIT WG [REPS]\n");
		return 2;
	}
	int n = atoi(argv[2]), u = atoi(argv[3]), t = atoi(argv[4]);
	int wg = atoi(argv[5]), reps = argc > 6 ? atoi(argv[6]) : 5;
	int ns = argc > 7 ? atoi(argv[7]) : 1;
	if (ns < 1 || ns > 64 || n % ns) {
		fprintf(stderr, "ptxrun: S must divide N (at most 64)\n");
		return 2;
	}
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	check(cuInit(0), "cuInit");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check(cuCtxCreate(&ctx, NULL, 0, dev), "cuCtxCreate");
	check(cuModuleLoadData(&mod, envregs(slurp("ptxrun", argv[1], NULL))), "cuModuleLoadData");
	check(cuModuleGetFunction(&fn, mod, "nbk_gravity"), "nbk_gravity");
	float *h = malloc(sizeof(float) * 4 * (size_t)n);
	srand(1);
	for (long k = 0; k < 4L * n; k++)
		h[k] = (float)rand() / RAND_MAX;
	CUdeviceptr x, y, z, b, out[64][4];
	size_t sz = sizeof(float) * (size_t)n;
	check(cuMemAlloc(&x, sz), "alloc");
	check(cuMemAlloc(&y, sz), "alloc");
	check(cuMemAlloc(&z, sz), "alloc");
	check(cuMemAlloc(&b, 4 * sz), "alloc");
	for (int s = 0; s < ns; s++)
		for (int k = 0; k < 4; k++)
			/* doubles: an NB_DIRECT entry's results */
			check(cuMemAlloc(&out[s][k], 2 * sz), "alloc");
	check(cuMemcpyHtoD(b, h, 4 * sz), "copy");
	float *c = malloc(sz);
	for (int d = 0; d < 3; d++) {
		for (int k = 0; k < n; k++)
			c[k] = h[4 * k + d];
		check(cuMemcpyHtoD(d == 0 ? x : d == 1 ? y : z, c, sz), "copy");
	}
	int ni = n, nj = n / ns, ib = 0, jb[64], acc = 0;
	float eps2 = 1e-4f;
	/* nb_part and nb_cnt NULL: slices 2 kernels' own sums unused (the
	 * driver reads as many as the kernel takes: 14 for older ones) */
	CUdeviceptr none = 0;
	void *args[64][16];
	CUstream st[64];
	for (int s = 0; s < ns; s++) {
		jb[s] = s * nj;
		void *a[16] = {&ni, &nj, &ib, &jb[s], &acc, &x, &y, &z, &b, &eps2,
		               &out[s][0], &out[s][1], &out[s][2], &out[s][3],
		               &none, &none};
		for (int k = 0; k < 16; k++)
			args[s][k] = a[k];
		check(cuStreamCreate(&st[s], CU_STREAM_NON_BLOCKING), "stream");
	}
	size_t groups = ((size_t)n + u - 1) / u * t;
	unsigned nblk = (unsigned)((groups + wg - 1) / wg);
	CUevent e0, e1, done[64];
	check(cuEventCreate(&e0, 0), "event");
	check(cuEventCreate(&e1, 0), "event");
	for (int s = 0; s < ns; s++)
		check(cuEventCreate(&done[s], 0), "event");
	for (int r = 0; r < reps; r++) {
		check(cuCtxSynchronize(), "sync");
		check(cuEventRecord(e0, st[0]), "record");
		for (int s = 1; s < ns; s++)
			check(cuStreamWaitEvent(st[s], e0, 0), "wait");
		for (int s = 0; s < ns; s++) {
			check(cuLaunchKernel(fn, nblk, 1, 1, (unsigned)wg, 1, 1, 0, st[s],
			                     args[s], NULL), "cuLaunchKernel");
			check(cuEventRecord(done[s], st[s]), "record");
		}
		for (int s = 1; s < ns; s++)
			check(cuStreamWaitEvent(st[0], done[s], 0), "wait");
		check(cuEventRecord(e1, st[0]), "record");
		check(cuEventSynchronize(e1), "sync");
		float ms;
		check(cuEventElapsedTime(&ms, e0, e1), "elapsed");
		printf("%d %d %.4f ms %.4e interactions/s\n", n, ns, ms,
		       (double)n * n / (ms * 1e-3));
	}
	check(cuMemcpyDtoH(c, out[0][3], sz), "copy back");
	printf("pot[0] = %g\n", c[0]);
	return 0;
}
