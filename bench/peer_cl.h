/* peer_cl.h: the OpenCL opening shared by the standalone peer programs
 * (bench/cellpeer.c, newtonpeer.c, launchfloor.c), which stay apart from libnbrt
 * so that they measure the device, not the runtime: the first device of
 * a type, its context and a profiling queue, every call checked. */
#ifndef PEER_CL_H
#define PEER_CL_H
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

/* a failed call ends the program, naming it and the OpenCL error */
#define CK(call, what)                                                  \
	do {                                                            \
		cl_int e_ = (call);                                     \
		if (e_ != CL_SUCCESS) {                                 \
			fprintf(stderr, "%s: %s: error %d\n", PEER_NAME, \
			        what, (int)e_);                         \
			exit(1);                                        \
		}                                                       \
	} while (0)

typedef struct peer_cl {
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	char name[256];
} peer_cl;

/* The first GPU (gpu) or CPU device of any platform; exits if none. */
static void peer_open(peer_cl *p, int gpu)
{
	cl_platform_id pl[8];
	cl_uint np = 0;
	cl_int e;
	p->dev = NULL;
	CK(clGetPlatformIDs(8, pl, &np), "clGetPlatformIDs");
	for (cl_uint i = 0; i < np && !p->dev; i++)
		if (clGetDeviceIDs(pl[i], gpu ? CL_DEVICE_TYPE_GPU
		                              : CL_DEVICE_TYPE_CPU, 1, &p->dev,
		                   NULL) != CL_SUCCESS)
			p->dev = NULL;
	if (!p->dev) {
		fprintf(stderr, "%s: no OpenCL %s\n", PEER_NAME, gpu ? "GPU" : "CPU");
		exit(1);
	}
	p->name[0] = 0;
	CK(clGetDeviceInfo(p->dev, CL_DEVICE_NAME, sizeof p->name, p->name, NULL),
	   "clGetDeviceInfo");
	p->ctx = clCreateContext(NULL, 1, &p->dev, NULL, NULL, &e);
	CK(e, "clCreateContext");
	p->q = clCreateCommandQueue(p->ctx, p->dev, CL_QUEUE_PROFILING_ENABLE, &e);
	CK(e, "clCreateCommandQueue");
}
/* Zeroed memory (the peers pad their buffers with zeros) or the end. */
static void *peer_alloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", PEER_NAME, n);
		exit(1);
	}
	return p;
}

/* A kernel source file, whole and terminated, or the end. */
static char *peer_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open %s\n", PEER_NAME, path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n < 0 ? NULL : peer_alloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read %s\n", PEER_NAME, path);
		exit(1);
	}
	fclose(f);
	return s;
}
#endif
