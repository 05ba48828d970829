/* warppeer.c: float gravity's small square launches written by hand
 * (bench/warppeer.cl), the shapes behind nbcc's split across warps
 * (issue 30, docs/performance.md): each shape UI UJ S X IL TL timed by
 * events (one launch, waited: median and least of 25) and queued (200
 * launches on a queue without profiling, the wall clock / 200, median of
 * 7), and checked against double on 64 i-elements (the largest error
 * over the column's sum of magnitudes).  WARPPEER_SHAPES="UI UJ S X IL
 * TL;..." replaces the default list; WARPPEER_CPU=1 takes the CPU;
 * WARPPEER_DIN=1 gives the kernel its inputs and results as nbcc's
 * one-launch entry on device arrays has them, a double array a column
 * (the same values), to measure what reading and writing doubles costs;
 * WARPPEER_DIN=2 reads float arrays a column (the doubles' rounding)
 * and stores doubles, as an entry reading float shadows of them would. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strdup */
#define PEER_NAME "warppeer"
#include <math.h>
#include <string.h>
#include <time.h>
#include "peer_cl.h"

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv)
{
	peer_cl p;
	peer_open(&p, !getenv("WARPPEER_CPU"));
	cl_int e;
	cl_command_queue q2 = clCreateCommandQueue(p.ctx, p.dev, 0, &e);
	CK(e, "queue");
	char *src = peer_slurp(argc > 1 ? argv[1] : "bench/warppeer.cl");
	int ns[] = {4096, 8192, 16384, 32768};
	int nn = 4;
	const char *shapes = getenv("WARPPEER_SHAPES");
	if (!shapes) shapes = "1 4 32 1 0 0;1 4 16 1 0 0;1 4 8 4 0 0;4 4 16 1 0 0;1 4 32 1 1 2048;1 4 16 1 1 2048;1 4 8 1 1 2048;1 4 8 2 1 2048;1 4 16 2 1 2048;2 4 16 1 1 2048;4 4 8 1 1 2048;1 4 32 1 0 2048;1 4 16 1 1 1024";
	int nmax = 32768;
	cl_float4 *hi = peer_alloc(sizeof(cl_float4) * nmax), *hj = peer_alloc(sizeof(cl_float4) * nmax), *ho = peer_alloc(sizeof(cl_float4) * nmax);
	srand(12345);
	for (int k = 0; k < nmax; k++) {
		for (int c = 0; c < 3; c++) hi[k].s[c] = hj[k].s[c] = (float)rand() / RAND_MAX - 0.5f;
		hi[k].s[3] = 0; hj[k].s[3] = 1.0f / nmax * (0.5f + (float)rand() / RAND_MAX);
	}
	float eps2 = 1e-4f;
	cl_mem bi = clCreateBuffer(p.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(cl_float4) * nmax, hi, &e); CK(e, "buf");
	cl_mem bj = clCreateBuffer(p.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(cl_float4) * nmax, hj, &e); CK(e, "buf");
	cl_mem bo = clCreateBuffer(p.ctx, CL_MEM_READ_WRITE, sizeof(cl_float4) * nmax, NULL, &e); CK(e, "buf");
	cl_mem bp = clCreateBuffer(p.ctx, CL_MEM_READ_WRITE, sizeof(cl_float4) * nmax * 16, NULL, &e); CK(e, "buf");
	int *zero = peer_alloc(sizeof(int) * nmax);
	cl_mem bc = clCreateBuffer(p.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(int) * nmax, zero, &e); CK(e, "buf");
	/* din: the columns xi yi zi xj yj zj mj, then the results' four */
	int din = getenv("WARPPEER_DIN") ? atoi(getenv("WARPPEER_DIN")) : 0;
	cl_mem dcol[11];
	double *dh = peer_alloc(sizeof(double) * nmax);
	float *fh = peer_alloc(sizeof(float) * nmax);
	for (int c = 0; din && c < 11; c++) {
		for (int k = 0; k < nmax; k++)
			fh[k] = (float)(dh[k] = c < 3 ? hi[k].s[c] : c < 7 ? hj[k].s[c - 3] : 0);
		int fl = din == 2 && c < 7;
		dcol[c] = clCreateBuffer(p.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (fl ? sizeof(float) : sizeof(double)) * nmax, fl ? (void *)fh : (void *)dh, &e); CK(e, "buf");
	}
	printf("# %s%s\nshape,n,events_med_us,events_min_us,queued_us,queued_min_us,rate_q_1e12,maxrel\n", p.name, din == 2 ? ", inputs float arrays, results double arrays (WARPPEER_DIN=2)" : din ? ", inputs and results double arrays (WARPPEER_DIN=1)" : "");
	char *sh = strdup(shapes);
	for (char *tok = strtok(sh, ";"); tok; tok = strtok(NULL, ";")) {
		int ui, uj, s, x, il, tl = 0;
		if (sscanf(tok, "%d %d %d %d %d %d", &ui, &uj, &s, &x, &il, &tl) < 5) continue;
		char opt[256];
		/* as nbcc builds a float kernel (rsqrt one instruction) */
		snprintf(opt, sizeof opt, "-cl-denorms-are-zero -DUI=%d -DUJ=%d -DS=%d -DX=%d -DIL=%d -DTL=%d -DDIN=%d", ui, uj, s, x, il, tl, din);
		cl_program pr = clCreateProgramWithSource(p.ctx, 1, (const char **)&src, NULL, &e); CK(e, "prog");
		if (clBuildProgram(pr, 1, &p.dev, opt, NULL, NULL) != CL_SUCCESS) {
			char log[8192]; clGetProgramBuildInfo(pr, p.dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
			printf("# build failed %s: %s\n", opt, log); clReleaseProgram(pr); continue;
		}
		cl_kernel k = clCreateKernel(pr, "grav", &e); CK(e, "kernel");
		for (int a = 0; a < nn; a++) {
			int n = ns[a];
			int grp = 32 * ui;
			if (n % grp || n % (s * x * uj) || (tl && (n / x) % tl)) continue;
			size_t ls = (size_t)s * 32, gs = (size_t)(n / grp) * x * ls;
			cl_uint an = 0;
			if (din) {
				for (int c = 0; c < 11; c++)
					CK(clSetKernelArg(k, an++, sizeof dcol[c], &dcol[c]), "arg");
			} else {
				CK(clSetKernelArg(k, an++, sizeof bi, &bi), "arg"); CK(clSetKernelArg(k, an++, sizeof bj, &bj), "arg");
				CK(clSetKernelArg(k, an++, sizeof bo, &bo), "arg");
			}
			CK(clSetKernelArg(k, an++, sizeof n, &n), "arg");
			CK(clSetKernelArg(k, an++, sizeof eps2, &eps2), "arg"); CK(clSetKernelArg(k, an++, sizeof bp, &bp), "arg");
			CK(clSetKernelArg(k, an++, sizeof bc, &bc), "arg");
			double ev[25];
			for (int r = 0; r < 25; r++) {
				cl_event E; CK(clEnqueueNDRangeKernel(p.q, k, 1, NULL, &gs, &ls, 0, NULL, &E), "enq");
				CK(clWaitForEvents(1, &E), "wait");
				cl_ulong t0, t1; clGetEventProfilingInfo(E, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
				clGetEventProfilingInfo(E, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL); clReleaseEvent(E);
				ev[r] = 1e-3 * (double)(t1 - t0);
			}
			qsort(ev, 25, sizeof *ev, cmpd);
			double qt[7]; int Q = 200;
			for (int r = 0; r < 7; r++) {
				CK(clFinish(q2), "finish");
				double t0 = now();
				for (int z = 0; z < Q; z++) CK(clEnqueueNDRangeKernel(q2, k, 1, NULL, &gs, &ls, 0, NULL, NULL), "enq");
				CK(clFinish(q2), "finish");
				qt[r] = (now() - t0) / Q * 1e6;
			}
			qsort(qt, 7, sizeof *qt, cmpd);
			if (din)
				for (int c = 0; c < 4; c++) {
					CK(clEnqueueReadBuffer(q2, dcol[7 + c], CL_TRUE, 0, sizeof(double) * n, dh, 0, NULL, NULL), "read");
					for (int t = 0; t < n; t++)
						ho[t].s[c] = (float)dh[t];
				}
			else
				CK(clEnqueueReadBuffer(q2, bo, CL_TRUE, 0, sizeof(cl_float4) * n, ho, 0, NULL, NULL), "read");
			double maxrel = 0;
			for (int t = 0; t < 64; t++) {
				int i = (int)((long)t * 7919 % n);
				double r[4] = {0, 0, 0, 0};
				for (int j = 0; j < n; j++) {
					double dx = hj[j].s[0] - hi[i].s[0], dy = hj[j].s[1] - hi[i].s[1], dz = hj[j].s[2] - hi[i].s[2];
					double r2 = eps2 + dx * dx + dy * dy + dz * dz, ri = 1 / sqrt(r2), mr = hj[j].s[3] * ri, m3 = mr * ri * ri;
					r[0] += m3 * dx; r[1] += m3 * dy; r[2] += m3 * dz; r[3] -= mr;
				}
				double sc = fabs(r[0]) + fabs(r[1]) + fabs(r[2]);
				for (int c = 0; c < 4; c++) {
					double d = fabs(ho[i].s[c] - r[c]) / (c < 3 ? sc : fabs(r[3]));
					if (d > maxrel || d != d) maxrel = d != d ? 1e30 : d;
				}
			}
			printf("\"%d %d %d %d %d %d\",%d,%.2f,%.2f,%.2f,%.2f,%.3f,%.1e\n", ui, uj, s, x, il, tl, n, ev[12], ev[0], qt[3], qt[0], (double)n * n / qt[3] * 1e-6, maxrel);
			fflush(stdout);
		}
		clReleaseKernel(k); clReleaseProgram(pr);
	}
	return 0;
}
