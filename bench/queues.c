/* queues.c: whether an OpenCL GPU runs the kernels of two in-order
 * command queues side by side, and an out-of-order queue's: two launches
 * of a short kernel on one queue, on two, and on one out-of-order queue,
 * by the wall clock to both ends.  It decides how a treecode's far and
 * near kernels could overlap (issue 26; docs/treecode.md, s13-pipe). */
#define PEER_NAME "queues"
#include "peer_cl.h"
#include "timing.h"

static const char *src =
	"__kernel void spin(__global float *o, int n) {\n"
	"  float a = get_global_id(0) * 1e-7f, b = 1.0001f;\n"
	"  for (int k = 0; k < n; k++) { a = a * b + 1e-7f; b = b * a - 1e-7f; }\n"
	"  o[get_global_id(0)] = a + b; }\n";

enum { REPS = 9 };

int main(void)
{
	peer_cl pc;
	peer_open(&pc, 1);
	cl_int e;
	cl_command_queue q2 = clCreateCommandQueue(pc.ctx, pc.dev, 0, &e);
	CK(e, "clCreateCommandQueue");
	/* accepted or refused: a refusal is a row of its own */
	cl_command_queue qo = clCreateCommandQueue(
		pc.ctx, pc.dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e);
	if (e != CL_SUCCESS)
		qo = NULL;
	cl_program pr = clCreateProgramWithSource(pc.ctx, 1, &src, NULL, &e);
	CK(e, "clCreateProgramWithSource");
	CK(clBuildProgram(pr, 1, &pc.dev, "", NULL, NULL), "clBuildProgram");
	printf("device,groups,spin,one_kernel_ms,one_queue_ms,two_queues_ms,"
	       "out_of_order_ms\n");
	static const int shape[][2] = {{33, 4000}, {66, 4000}, {132, 4000},
	                               {264, 4000}, {66, 20000}};
	for (size_t s = 0; s < sizeof shape / sizeof *shape; s++) {
		size_t l = 256, g = (size_t)shape[s][0] * l;
		int n = shape[s][1];
		cl_kernel k[2];
		cl_mem o[2];
		for (int i = 0; i < 2; i++) {
			k[i] = clCreateKernel(pr, "spin", &e);
			CK(e, "clCreateKernel");
			o[i] = clCreateBuffer(pc.ctx, CL_MEM_READ_WRITE, g * 4, NULL, &e);
			CK(e, "clCreateBuffer");
			CK(clSetKernelArg(k[i], 0, sizeof o[i], &o[i]), "clSetKernelArg");
			CK(clSetKernelArg(k[i], 1, sizeof n, &n), "clSetKernelArg");
		}
		double med[4];
		/* mode 0: one kernel; 1: both on one queue; 2: one each on two
		 * queues; 3: both on the out-of-order queue */
		for (int mode = 0; mode < 4; mode++) {
			cl_command_queue a = mode == 3 ? qo : pc.q;
			cl_command_queue b = mode == 2 ? q2 : a;
			double t[REPS + 1];
			med[mode] = -1;
			if (!a)
				continue;
			for (int r = 0; r <= REPS; r++) {
				double t0 = clk(CLOCK_MONOTONIC);
				CK(clEnqueueNDRangeKernel(a, k[0], 1, NULL, &g, &l, 0, NULL,
				                          NULL), "clEnqueueNDRangeKernel");
				CK(clFlush(a), "clFlush");
				if (mode)
					CK(clEnqueueNDRangeKernel(b, k[1], 1, NULL, &g, &l, 0,
					                          NULL, NULL),
					   "clEnqueueNDRangeKernel");
				CK(clFlush(b), "clFlush");
				CK(clFinish(a), "clFinish");
				CK(clFinish(b), "clFinish");
				t[r] = clk(CLOCK_MONOTONIC) - t0; /* t[0], the first, is left out */
			}
			qsort(t + 1, REPS, sizeof *t, cmp);
			med[mode] = 1e3 * t[1 + REPS / 2];
		}
		printf("\"%s\",%d,%d,%.4f,%.4f,%.4f,", pc.name, shape[s][0], n,
		       med[0], med[1], med[2]);
		if (med[3] < 0)
			printf("refused\n");
		else
			printf("%.4f\n", med[3]);
		for (int i = 0; i < 2; i++) {
			clReleaseKernel(k[i]);
			clReleaseMemObject(o[i]);
		}
	}
	clReleaseProgram(pr);
	if (qo)
		clReleaseCommandQueue(qo);
	clReleaseCommandQueue(q2);
	clReleaseCommandQueue(pc.q);
	clReleaseContext(pc.ctx);
	return 0;
}
