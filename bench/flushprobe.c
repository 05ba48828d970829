/* flushprobe.c: whether an OpenCL driver starts a queued launch without
 * clFlush, and what the flush costs the host (issue 30: the runtime
 * flushes after every queued run, 1.4 to 2.5 us of a run's 12 to 16 us
 * on NVIDIA at N = 4096).  Prints, for a kernel of K dependent
 * multiply-adds a work item: (1) a launch left unflushed, the host
 * asleep 20 ms, then its event's status (0: complete, 1: running, 2:
 * submitted, 3: queued: the driver waits for a flush); (2) how long a
 * short launch takes from its enqueue to its event's completion, the
 * host polling the status, flushed or not (a driver that holds an
 * unflushed launch back shows it here); (3) Q launches on
 * a queue without profiling, flushed after each or not, the host's time
 * a launch and the wall clock of all Q and the finish over Q; (4) the
 * host's time a launch of kernels of twelve buffer arguments after five
 * ints, after one int8, and alone (what an argument costs a launch);
 * (5) the host's time a launch of that kernel of five ints and twelve
 * distinct buffers with all 17 arguments set again before each launch
 * (as nbrt_run did), the five ints only, or none (what clSetKernelArg
 * costs beside the enqueue); (6) the host's time a launch of the NB_DIN
 * entry's arguments as they are (five ints, twelve buffers) and with
 * seven of the buffers as ulong offsets into one more buffer.
 * Build: cc -O2 bench/flushprobe.c -lOpenCL; FLUSHPROBE_CPU=1 takes the
 * CPU device (a check of the program itself). */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#define PEER_NAME "flushprobe"
#include <time.h>
#include "peer_cl.h"

static const char *src =
	"__kernel void work(__global float *a, int k) {\n"
	"  float s = 0; for (int i = 0; i < k; i++) s = s * 0.999f + 1.0f;\n"
	"  if (s == -1.0f) a[0] = s; }\n"
	/* an nbcc dense entry's arguments: five ints, then twelve buffers
	 * (gravity's NB_DIN entry), or the five ints as one int8 */
	"#define B12 __global float *b0, __global float *b1, __global float *b2, \\\n"
	"  __global float *b3, __global float *b4, __global float *b5, \\\n"
	"  __global float *b6, __global float *b7, __global float *b8, \\\n"
	"  __global float *b9, __global float *b10, __global float *b11\n"
	"__kernel void ints5(int n0, int n1, int n2, int n3, int n4, B12)\n"
	"{ if (n0 == -7) b0[0] = n1 + n2 + n3 + n4; }\n"
	"__kernel void int8v(int8 n, B12) { if (n.s0 == -7) b0[0] = n.s1; }\n"
	"__kernel void mem12(B12) { if (get_global_id(0) == 1u << 30) b0[0] = 1; }\n"
	/* gravity's NB_DIN entry as it is (five ints, seven input buffers,
	 * a float, four result buffers) and with its inputs as offsets into
	 * one buffer after the results */
	"__kernel void din11(int n0, int n1, int n2, int n3, int n4, B12)\n"
	"{ if (n0 == -7) b0[0] = n1; }\n"
	"__kernel void din1(int n0, int n1, int n2, int n3, int n4,\n"
	"  ulong o0, ulong o1, ulong o2, ulong o3, ulong o4, ulong o5, ulong o6,\n"
	"  float e, __global float *r0, __global float *r1, __global float *r2,\n"
	"  __global float *r3, __global const float *sh)\n"
	"{ if (n0 == -7) r0[0] = sh[o0 + n1] + e; }\n";

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void)
{
	peer_cl p;
	cl_int e;
	int cpu = getenv("FLUSHPROBE_CPU") != NULL;
	(void)peer_slurp; /* peer_cl.h's, for the peers that read a file */
	peer_open(&p, !cpu);
	cl_command_queue q = clCreateCommandQueue(p.ctx, p.dev, 0, &e);
	CK(e, "clCreateCommandQueue");
	cl_program pr = clCreateProgramWithSource(p.ctx, 1, &src, NULL, &e);
	CK(e, "clCreateProgramWithSource");
	CK(clBuildProgram(pr, 1, &p.dev, "", NULL, NULL), "clBuildProgram");
	cl_kernel kern = clCreateKernel(pr, "work", &e);
	CK(e, "clCreateKernel");
	cl_mem m = clCreateBuffer(p.ctx, CL_MEM_READ_WRITE, 64, NULL, &e);
	CK(e, "clCreateBuffer");
	CK(clSetKernelArg(kern, 0, sizeof m, &m), "clSetKernelArg");
	size_t gs = cpu ? 256 : 132 * 256, ls = 256; /* a wave of an H100 */
	printf("# %s\n", p.name);
	/* (1) unflushed: started by itself? */
	for (int k = 0; k < 3; k++) {
		cl_int kk = 1000, st = -1;
		cl_event ev;
		CK(clSetKernelArg(kern, 1, sizeof kk, &kk), "clSetKernelArg");
		CK(clEnqueueNDRangeKernel(p.q, kern, 1, NULL, &gs, &ls, 0, NULL, &ev),
		   "clEnqueueNDRangeKernel");
		struct timespec z = {0, 20000000};
		nanosleep(&z, NULL);
		CK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
		                  &st, NULL), "clGetEventInfo");
		printf("unflushed_status_after_20ms,%d,%d\n", k, st);
		CK(clFinish(p.q), "clFinish");
		clReleaseEvent(ev);
	}
	/* (2) enqueue to completion, polled */
	printf("what,flush,median_us,min_us\n");
	for (int fl = 0; fl < 2; fl++) {
		double t[21];
		cl_int kk = 0;
		CK(clSetKernelArg(kern, 1, sizeof kk, &kk), "clSetKernelArg");
		for (int r = 0; r < 21; r++) {
			cl_event ev;
			cl_int st = -1;
			CK(clFinish(p.q), "clFinish");
			double t0 = now();
			CK(clEnqueueNDRangeKernel(p.q, kern, 1, NULL, &gs, &ls, 0, NULL,
			                          &ev), "clEnqueueNDRangeKernel");
			if (fl)
				CK(clFlush(p.q), "clFlush");
			do
				CK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
				                  sizeof st, &st, NULL), "clGetEventInfo");
			while (st > 0 && now() - t0 < 1);
			t[r] = 1e6 * (now() - t0);
			clReleaseEvent(ev);
		}
		double m = t[0];
		for (int r = 1; r < 21; r++)
			m = t[r] < m ? t[r] : m;
		/* the median by a count: 21 values */
		double med = t[0];
		for (int r = 0; r < 21; r++) {
			int below = 0;
			for (int x = 0; x < 21; x++)
				below += t[x] < t[r];
			if (below == 10)
				med = t[r];
		}
		printf("enqueue_to_complete,%d,%.1f,%.1f\n", fl, med, m);
	}
	/* (3) Q launches flushed after each, or not */
	printf("what,k,flush,host_us_a_launch,wall_us_a_launch\n");
	int ks[] = {0, 2000, 8000};
	for (int r = 0; r < 3; r++)
		for (int a = 0; a < 3; a++)
			for (int fl = 0; fl < 2; fl++) {
				cl_int kk = ks[a];
				int nq = 400;
				CK(clSetKernelArg(kern, 1, sizeof kk, &kk), "clSetKernelArg");
				CK(clFinish(q), "clFinish");
				double t0 = now();
				for (int s = 0; s < nq; s++) {
					CK(clEnqueueNDRangeKernel(q, kern, 1, NULL, &gs, &ls, 0,
					                          NULL, NULL),
					   "clEnqueueNDRangeKernel");
					if (fl)
						CK(clFlush(q), "clFlush");
				}
				double t1 = now();
				CK(clFinish(q), "clFinish");
				double t2 = now();
				printf("queued,%d,%d,%.2f,%.2f\n", kk, fl,
				       1e6 * (t1 - t0) / nq, 1e6 * (t2 - t0) / nq);
			}
	/* (4) what the arguments cost: Q launches each, unflushed */
	printf("what,kernel,host_us_a_launch\n");
	const char *kn[] = {"ints5", "int8v", "mem12"};
	for (int r = 0; r < 3; r++)
		for (int w = 0; w < 3; w++) {
			cl_kernel kk = clCreateKernel(pr, kn[w], &e);
			CK(e, "clCreateKernel");
			cl_uint an = 0;
			cl_int zero = 0;
			cl_int8 z8 = {{0}};
			if (w == 0)
				for (; an < 5; an++)
					CK(clSetKernelArg(kk, an, sizeof zero, &zero), "arg");
			if (w == 1)
				CK(clSetKernelArg(kk, an++, sizeof z8, &z8), "arg");
			for (int b = 0; b < 12; b++, an++)
				CK(clSetKernelArg(kk, an, sizeof m, &m), "arg");
			int nq = 400;
			CK(clFinish(q), "clFinish");
			double t0 = now();
			for (int s = 0; s < nq; s++)
				CK(clEnqueueNDRangeKernel(q, kk, 1, NULL, &gs, &ls, 0, NULL,
				                          NULL), "clEnqueueNDRangeKernel");
			double t1 = now();
			CK(clFinish(q), "clFinish");
			printf("args,%s,%.2f\n", kn[w], 1e6 * (t1 - t0) / nq);
			clReleaseKernel(kk);
		}
	/* (5) setting the arguments again, launch by launch */
	printf("what,set,host_us_a_launch\n");
	cl_mem bm[12];
	for (int b = 0; b < 12; b++) {
		bm[b] = clCreateBuffer(p.ctx, CL_MEM_READ_WRITE, 4096, NULL, &e);
		CK(e, "clCreateBuffer");
	}
	const char *sn[] = {"all17", "ints5", "none"};
	for (int r = 0; r < 3; r++)
		for (int w = 0; w < 3; w++) {
			cl_kernel kk = clCreateKernel(pr, "ints5", &e);
			CK(e, "clCreateKernel");
			cl_int zero = 0;
			for (cl_uint a = 0; a < 5; a++)
				CK(clSetKernelArg(kk, a, sizeof zero, &zero), "arg");
			for (int b = 0; b < 12; b++)
				CK(clSetKernelArg(kk, 5 + (cl_uint)b, sizeof bm[b], &bm[b]), "arg");
			int nq = 400;
			CK(clFinish(q), "clFinish");
			double t0 = now();
			for (int s = 0; s < nq; s++) {
				for (cl_uint a = 0; w < 2 && a < 5; a++) {
					cl_int v = s + (int)a;
					CK(clSetKernelArg(kk, a, sizeof v, &v), "arg");
				}
				for (int b = 0; w == 0 && b < 12; b++)
					CK(clSetKernelArg(kk, 5 + (cl_uint)b, sizeof bm[b], &bm[b]), "arg");
				CK(clEnqueueNDRangeKernel(q, kk, 1, NULL, &gs, &ls, 0, NULL,
				                          NULL), "clEnqueueNDRangeKernel");
			}
			double t1 = now();
			CK(clFinish(q), "clFinish");
			printf("set,%s,%.2f\n", sn[w], 1e6 * (t1 - t0) / nq);
			clReleaseKernel(kk);
		}
	/* (6) the NB_DIN entry's 12 buffers (the 12th in place of its
	 * float) against five: its seven inputs as offsets into one */
	printf("what,entry,host_us_a_launch\n");
	const char *dn[] = {"din11", "din1"};
	for (int r = 0; r < 3; r++)
		for (int w = 0; w < 2; w++) {
			cl_kernel kk = clCreateKernel(pr, dn[w], &e);
			CK(e, "clCreateKernel");
			cl_int zero = 0;
			cl_ulong off = 0;
			cl_float fz = 0;
			cl_uint a = 0;
			for (; a < 5; a++)
				CK(clSetKernelArg(kk, a, sizeof zero, &zero), "arg");
			if (w == 0)
				for (int b = 0; b < 12; b++, a++)
					CK(clSetKernelArg(kk, a, sizeof bm[b], &bm[b]), "arg");
			else {
				for (int b = 0; b < 7; b++, a++)
					CK(clSetKernelArg(kk, a, sizeof off, &off), "arg");
				CK(clSetKernelArg(kk, a++, sizeof fz, &fz), "arg");
				for (int b = 0; b < 5; b++, a++)
					CK(clSetKernelArg(kk, a, sizeof bm[b], &bm[b]), "arg");
			}
			int nq = 400;
			CK(clFinish(q), "clFinish");
			double t0 = now();
			for (int s = 0; s < nq; s++)
				CK(clEnqueueNDRangeKernel(q, kk, 1, NULL, &gs, &ls, 0, NULL,
				                          NULL), "clEnqueueNDRangeKernel");
			double t1 = now();
			CK(clFinish(q), "clFinish");
			printf("entry,%s,%.2f\n", dn[w], 1e6 * (t1 - t0) / nq);
			clReleaseKernel(kk);
		}
	for (int b = 0; b < 12; b++)
		clReleaseMemObject(bm[b]);
	return 0;
}
