/* launchfloor.c: what one kernel launch costs on an OpenCL GPU by the
 * same profiling events nbbench reads: an empty kernel and a kernel of K
 * dependent multiply-adds a work item, over launches of 1 to 2048 groups
 * of 128.  The floor it finds bounds every small launch's rate (issue 30:
 * float gravity at N = 4096); bench/launchfloor.cu measures CUDA's.
 * launchfloor Q adds the queued floor: rows KERNEL_q, each repetition Q
 * launches back to back and one wait, the span from the first one's start
 * to the last one's end over Q (nbbench --queue's measure); and the host's
 * cost of a call (host_* rows: the wall clock over Q calls of the empty
 * kernel, queued and not waited for), with and without an event, a flush,
 * an argument set, and on a queue without profiling, whose queued floor
 * is the wall clock of Q launches and their finish over Q
 * (wall_noprof_q); and of a kernel of the 20 arguments of the runtime's
 * conversions, set each time or not (host_wide_*).  LAUNCHFLOOR_CPU=1: the CPU device (a test). */
#define PEER_NAME "launchfloor"
#include <time.h>
#include "peer_cl.h"

static const char *src =
	"__kernel void empty(__global float *a) {}\n"
	"__kernel void work(__global float *a, int k) {\n"
	"  float s = 0; for (int i = 0; i < k; i++) s = s * 0.999f + 1.0f;\n"
	"  if (s == -1.0f) a[0] = s; }\n"
	/* the arguments of the runtime's conversions (kernels.cl) */
	"__kernel void wide(__global float *a0, __global float *a1,\n"
	"  __global float *a2, __global float *a3, __global float *a4,\n"
	"  __global float *a5, __global float *a6, __global float *a7,\n"
	"  __global float *d0, __global float *d1, __global float *d2,\n"
	"  __global float *d3, __global float *d4, __global float *d5,\n"
	"  __global float *d6, __global float *d7, ulong8 s, ulong8 o,\n"
	"  ulong8 n, int na) {}\n";

/* wide's 20 arguments: m for every buffer, zeros */
static void set_wide(cl_kernel kern, cl_mem m)
{
	cl_ulong8 z = {{0}};
	cl_int na = 0;
	for (cl_uint a = 0; a < 16; a++)
		CK(clSetKernelArg(kern, a, sizeof m, &m), "clSetKernelArg");
	for (cl_uint a = 16; a < 19; a++)
		CK(clSetKernelArg(kern, a, sizeof z, &z), "clSetKernelArg");
	CK(clSetKernelArg(kern, 19, sizeof na, &na), "clSetKernelArg");
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}


/* Q launches of kern over gs items queued, one wait: the span from the
 * first start to the last end over Q, microseconds. */
static double queued(cl_command_queue q, cl_kernel kern, size_t gs, size_t ls,
                     int nq)
{
	cl_event first = NULL, ev = NULL;
	cl_ulong a = 0, b = 0;
	for (int s = 0; s < nq; s++) {
		if (ev && ev != first)
			clReleaseEvent(ev);
		CK(clEnqueueNDRangeKernel(q, kern, 1, NULL, &gs, &ls, 0, NULL, &ev),
		   "clEnqueueNDRangeKernel");
		if (!s)
			first = ev;
	}
	CK(clWaitForEvents(1, &ev), "clWaitForEvents");
	CK(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof a,
	                           &a, NULL), "profiling");
	CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b,
	                           NULL), "profiling");
	if (ev != first)
		clReleaseEvent(ev);
	clReleaseEvent(first);
	return 1e-3 * (double)(b - a) / nq;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The host's microseconds a call of Q launches of kern (what: 0 with an
 * event, released, 1 without, 2 and a flush, 3 and an argument set first,
 * 5 and wide's 20 set first), the queue finished after the clock stops;
 * what 4: the wall clock of Q launches and the finish. */
static double host_cost(cl_command_queue q, cl_kernel kern, cl_mem m,
                        size_t gs, size_t ls, int nq, int what)
{
	double t0 = now(), t1;
	for (int s = 0; s < nq; s++) {
		cl_event ev;
		if (what == 3)
			CK(clSetKernelArg(kern, 0, sizeof m, &m), "clSetKernelArg");
		if (what == 5)
			set_wide(kern, m);
		CK(clEnqueueNDRangeKernel(q, kern, 1, NULL, &gs, &ls, 0, NULL,
		                          what ? NULL : &ev),
		   "clEnqueueNDRangeKernel");
		if (!what)
			clReleaseEvent(ev);
		if (what == 2)
			CK(clFlush(q), "clFlush");
	}
	if (what == 4)
		CK(clFinish(q), "clFinish");
	t1 = now();
	CK(clFinish(q), "clFinish");
	return 1e6 * (t1 - t0) / nq;
}

int main(int argc, char **argv)
{
	int nq = argc > 1 ? atoi(argv[1]) : 0;
	if (argc > 1 && (nq < 1 || nq > 100000)) {
		fprintf(stderr, "launchfloor: bad Q '%s': launches a queued "
		        "repetition, from 1 to 100000\n", argv[1]);
		return 2;
	}
	peer_cl pc;
	const char *cpu = getenv("LAUNCHFLOOR_CPU");
	peer_open(&pc, !(cpu && *cpu == '1'));
	cl_device_id d = pc.dev;
	cl_context c = pc.ctx;
	cl_command_queue q = pc.q;
	const char *name = pc.name;
	cl_int e;
	cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
	CK(e, "clCreateProgramWithSource");
	CK(clBuildProgram(pr, 1, &d, "", NULL, NULL), "clBuildProgram");
	cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &e);
	CK(e, "clCreateBuffer");
	cl_kernel kern[2];
	kern[0] = clCreateKernel(pr, "empty", &e);
	CK(e, "clCreateKernel empty");
	kern[1] = clCreateKernel(pr, "work", &e);
	CK(e, "clCreateKernel work");
	for (int w = 0; w < 2; w++)
		CK(clSetKernelArg(kern[w], 0, sizeof m, &m), "clSetKernelArg");
	printf("# %s, profiling events, 101 launches a row (the first left "
	       "out), microseconds\nkernel,groups,k,median_us,min_us\n", name);
	static const size_t groups[] = {1, 132, 1024, 1056, 2048};
	static const int ks[] = {0, 100, 1000};
	size_t ls = 128;
	for (int w = 0; w < 2; w++)
		for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
			for (int x = w ? 0 : 2; x < 3; x++) {
				cl_int k = ks[x];
				if (w)
					CK(clSetKernelArg(kern[1], 1, sizeof k, &k),
					   "clSetKernelArg");
				size_t gs = groups[g] * ls;
				double t[101];
				for (int r = 0; r < 101; r++) {
					cl_event ev;
					cl_ulong a = 0, b = 0;
					CK(clEnqueueNDRangeKernel(q, kern[w], 1, NULL,
					                          &gs, &ls, 0, NULL, &ev),
					   "clEnqueueNDRangeKernel");
					CK(clWaitForEvents(1, &ev), "clWaitForEvents");
					CK(clGetEventProfilingInfo(
						   ev, CL_PROFILING_COMMAND_START,
						   sizeof a, &a, NULL),
					   "profiling");
					CK(clGetEventProfilingInfo(
						   ev, CL_PROFILING_COMMAND_END,
						   sizeof b, &b, NULL),
					   "profiling");
					clReleaseEvent(ev);
					t[r] = 1e-3 * (double)(b - a);
				}
				qsort(t + 1, 100, sizeof *t, cmp);
				printf("%s,%zu,%d,%.2f,%.2f\n",
				       w ? "work" : "empty", groups[g], w ? k : 0,
				       t[50], t[1]);
				if (!nq)
					continue;
				for (int r = 0; r < 21; r++)
					t[r] = queued(q, kern[w], gs, ls, nq);
				qsort(t + 1, 20, sizeof *t, cmp);
				printf("%s_q%d,%zu,%d,%.2f,%.2f\n",
				       w ? "work" : "empty", nq, groups[g], w ? k : 0,
				       t[10], t[1]);
			}
	if (nq) {
		cl_command_queue np = clCreateCommandQueue(c, d, 0, &e);
		CK(e, "clCreateCommandQueue");
		cl_kernel wide = clCreateKernel(pr, "wide", &e);
		CK(e, "clCreateKernel wide");
		set_wide(wide, m);
		static const struct {
			const char *name;
			int what, prof;
		} hr[] = {{"host_enq_ev", 0, 1}, {"host_enq", 1, 1},
		          {"host_enq_flush", 2, 1}, {"host_arg_enq", 3, 1},
		          {"host_enq_noprof", 1, 0}, {"wall_noprof_q", 4, 0},
		          {"host_wide_enq", 1, 1}, {"host_wide_args_enq", 5, 1}};
		static const size_t hg[2] = {1, 1024};
		for (size_t h = 0; h < sizeof hr / sizeof *hr; h++)
			for (int g = 0; g < 2; g++) {
				size_t gs = hg[g] * ls;
				double t[21];
				for (int r = 0; r < 21; r++)
					t[r] = host_cost(hr[h].prof ? q : np,
					                 h >= 6 ? wide : kern[0], m, gs, ls,
					                 nq, hr[h].what);
				qsort(t + 1, 20, sizeof *t, cmp);
				printf("%s,%zu,0,%.2f,%.2f\n", hr[h].name, hg[g], t[10],
				       t[1]);
			}
		clReleaseKernel(wide);
		clReleaseCommandQueue(np);
	}
	clReleaseKernel(kern[0]);
	clReleaseKernel(kern[1]);
	clReleaseMemObject(m);
	clReleaseProgram(pr);
	clReleaseCommandQueue(q);
	clReleaseContext(c);
	return 0;
}
