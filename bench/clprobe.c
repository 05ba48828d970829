/* clprobe.c: what an OpenCL device offers that nbcc's back end can use:
 * its version and extensions, and whether kernels using sub-group
 * shuffles or NVIDIA inline PTX shuffles build and give the right sums.
 * Used once per new device kind (the probe suite, sh bench/run.sh probe,
 * builds and runs it); the findings go into docs/performance.md. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *probes[][2] = {
	{"subgroup_shuffle",
	 "#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable\n"
	 "__kernel void k(__global float *x) {\n"
	 "  float v = x[get_global_id(0)];\n"
	 "  for (int o = 2; o > 0; o >>= 1) v += sub_group_shuffle_xor(v, (uint)o);\n"
	 "  x[get_global_id(0)] = v; }\n"},
	{"nvidia_asm_shfl",
	 "__kernel void k(__global float *x) {\n"
	 "  float v = x[get_global_id(0)];\n"
	 "  for (int o = 2; o > 0; o >>= 1) { float r;\n"
	 "    asm volatile(\"shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\""
	 " : \"=f\"(r) : \"f\"(v), \"r\"(o)); v += r; }\n"
	 "  x[get_global_id(0)] = v; }\n"},
	{"plain", "__kernel void k(__global float *x) { x[get_global_id(0)] *= 4.0f; }\n"},
};

static void probe(cl_platform_id p, cl_device_id d)
{
	char name[256], ver[256], cver[256];
	size_t extlen = 0;
	clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
	clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof ver, ver, NULL);
	clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_VERSION, sizeof cver, cver, NULL);
	clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &extlen);
	char *ext = malloc(extlen + 1);
	clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, extlen, ext, NULL);
	cl_uint cu = 0, clk = 0;
	cl_ulong lmem = 0;
	size_t wg = 0;
	clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
	clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clk, &clk, NULL);
	clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
	clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
	printf("device: %s\n  version: %s; %s\n  compute units %u, clock %u MHz, "
	       "local memory %lu bytes, max work group %zu\n  extensions: %s\n",
	       name, ver, cver, cu, clk, (unsigned long)lmem, wg, ext);
	free(ext);
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
	cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &err);
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		const char *src = probes[i][1];
		cl_program pg = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
		err = clBuildProgram(pg, 1, &d, "-cl-std=CL1.2", NULL, NULL);
		if (err != CL_SUCCESS) {
			char log[4096] = "";
			clGetProgramBuildInfo(pg, d, CL_PROGRAM_BUILD_LOG, sizeof log,
			                      log, NULL);
			printf("  probe %s: build failed (%d): %.300s\n", probes[i][0],
			       err, log);
			clReleaseProgram(pg);
			continue;
		}
		cl_kernel k = clCreateKernel(pg, "k", &err);
		float x[64];
		for (int e = 0; e < 64; e++)
			x[e] = (float)e;
		cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
		                          sizeof x, x, &err);
		clSetKernelArg(k, 0, sizeof b, &b);
		size_t g = 64, l = 32;
		err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
		clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL);
		/* groups of 4 lanes: every lane holds the group's sum */
		int ok = err == CL_SUCCESS;
		for (int e = 0; e < 64 && ok && i < 2; e++) {
			int base = e & ~3;
			ok = x[e] == (float)(4 * base + 6);
		}
		printf("  probe %s: builds, %s\n", probes[i][0],
		       err != CL_SUCCESS ? "launch failed" : ok ? "correct" : "WRONG");
		clReleaseMemObject(b);
		clReleaseKernel(k);
		clReleaseProgram(pg);
	}
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	(void)p;
}

int main(void)
{
	cl_platform_id ps[8];
	cl_uint np = 0;
	if (clGetPlatformIDs(8, ps, &np) != CL_SUCCESS || np == 0) {
		puts("no OpenCL platform");
		return 1;
	}
	for (cl_uint i = 0; i < np; i++) {
		char pn[256];
		clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
		printf("platform %u: %s\n", i, pn);
		cl_device_id ds[8];
		cl_uint nd = 0;
		clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 8, ds, &nd);
		for (cl_uint j = 0; j < nd; j++)
			probe(ps[i], ds[j]);
	}
	return 0;
}
