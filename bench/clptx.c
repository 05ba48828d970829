/* clptx: builds an OpenCL C source for the first GPU and writes the
 * program's binary, which NVIDIA's OpenCL makes PTX, so that variants of
 * a generated kernel written by hand can go through ptxas and
 * bench/ptxrun.c (docs/performance.md, "The one-launch entries and N =
 * 16384 under Nsight Compute").  It also prints each kernel's largest
 * work group as the driver reports it, with the group the source
 * requires and the private memory, which the driver's limit follows.
 * Build on the device: gcc -O2 bench/clptx.c -lOpenCL.
 * usage: clptx FILE.cl OUT OPTIONS */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include "slurp.h"

static void check(cl_int e, const char *what)
{
	if (e != CL_SUCCESS) {
		fprintf(stderr, "clptx: %s failed (%d)\n", what, e);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: clptx FILE.cl OUT OPTIONS\n");
		return 2;
	}
	char *s = slurp("clptx", argv[1], NULL);
	cl_platform_id pl[8];
	cl_uint np = 0;
	check(clGetPlatformIDs(8, pl, &np), "clGetPlatformIDs");
	cl_device_id d = NULL;
	for (cl_uint i = 0; i < np && i < 8 && !d; i++)
		if (clGetDeviceIDs(pl[i], CL_DEVICE_TYPE_GPU, 1, &d, NULL) !=
		    CL_SUCCESS)
			d = NULL;
	if (!d) {
		fprintf(stderr, "clptx: no GPU\n");
		return 1;
	}
	cl_int e;
	cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	check(e, "clCreateContext");
	const char *src = s;
	cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
	check(e, "clCreateProgramWithSource");
	e = clBuildProgram(p, 1, &d, argv[3], NULL, NULL);
	if (e != CL_SUCCESS) {
		static char log[1 << 16];
		clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof log - 1,
		                      log, NULL);
		fprintf(stderr, "clptx: the build failed (%d):\n%s\n", e, log);
		return 1;
	}
	size_t bs = 0;
	check(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, NULL),
	      "clGetProgramInfo");
	unsigned char *b = malloc(bs ? bs : 1);
	if (!b) {
		fprintf(stderr, "clptx: out of memory\n");
		return 1;
	}
	check(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof b, &b, NULL),
	      "clGetProgramInfo");
	FILE *o = fopen(argv[2], "wb");
	if (!o || fwrite(b, 1, bs, o) != bs || fclose(o)) {
		perror(argv[2]);
		return 1;
	}
	cl_kernel ks[32];
	cl_uint nk = 0;
	check(clCreateKernelsInProgram(p, 32, ks, &nk),
	      "clCreateKernelsInProgram");
	for (cl_uint i = 0; i < nk; i++) {
		char name[256] = "";
		size_t wg = 0, req[3] = {0, 0, 0};
		cl_ulong priv = 0, lm = 0;
		check(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME,
		                      sizeof name - 1, name, NULL),
		      "clGetKernelInfo");
		check(clGetKernelWorkGroupInfo(ks[i], d, CL_KERNEL_WORK_GROUP_SIZE,
		                               sizeof wg, &wg, NULL),
		      "clGetKernelWorkGroupInfo");
		check(clGetKernelWorkGroupInfo(ks[i], d,
		                               CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
		                               sizeof req, req, NULL),
		      "clGetKernelWorkGroupInfo");
		check(clGetKernelWorkGroupInfo(ks[i], d,
		                               CL_KERNEL_PRIVATE_MEM_SIZE,
		                               sizeof priv, &priv, NULL),
		      "clGetKernelWorkGroupInfo");
		check(clGetKernelWorkGroupInfo(ks[i], d, CL_KERNEL_LOCAL_MEM_SIZE,
		                               sizeof lm, &lm, NULL),
		      "clGetKernelWorkGroupInfo");
		printf("%s: work group at most %zu, required %zu x %zu x %zu, "
		       "private %llu bytes, local %llu bytes\n", name, wg,
		       req[0], req[1], req[2], (unsigned long long)priv,
		       (unsigned long long)lm);
		clReleaseKernel(ks[i]);
	}
	clReleaseProgram(p);
	clReleaseContext(c);
	free(b);
	free(s);
	return 0;
}
