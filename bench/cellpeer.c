/* cellpeer.c: issue 25's 50% target against hand-written kernels: the
 * Lennard-Jones case of bench/neighbours.c (the same inputs: N points
 * uniform at 50 neighbours within rc = 1, float) through
 * bench/cellpeer.cl's kernels: cells (a work group an i-cell of one
 * cutoff, its 27 neighbour cells through local-memory tiles), the same
 * with a branch over far pairs, cells3 (cells of a third, 8 work items
 * an i-element walking its rows from the cell starts, pruned as the
 * runtime prunes them, or by the element's own distance: _point) and an
 * exact neighbour list (only needed pairs: the ceiling of any list),
 * each timed by profiling events (median of reps), checked against a
 * double reference on a sample (forces norm-wise, the counts).
 *   cellpeer [N] [reps] [device: gpu|cpu]
 * Row: kernel,n,ms,pairs,needed,pairs_per_needed,needed_per_s,maxerr_f,
 * count_diff.  The sorting and lists are the host's and not timed: a
 * kernel's own rate, as the suite's kernel_needed_per_s is nbcc's. */
#include <math.h>
#include <string.h>
#define PEER_NAME "cellpeer"
#include "peer_cl.h"

static const float SIG2 = 0.01f, EPS = 1.0f, RC2 = 1.0f;

/* bench/neighbours.c's generator, draw for draw */
static double uniform(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median kernel time (s) over reps launches after one warm-up. */
static double timed(cl_command_queue q, cl_kernel k, size_t gs, size_t ls,
                    int reps)
{
	double t[64];
	for (int r = 0; r <= reps; r++) {
		cl_event ev;
		cl_ulong a = 0, b = 0;
		CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gs, &ls, 0, NULL, &ev),
		   "clEnqueueNDRangeKernel");
		CK(clWaitForEvents(1, &ev), "clWaitForEvents");
		CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
		                           sizeof a, &a, NULL), "profiling");
		CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
		                           sizeof b, &b, NULL), "profiling");
		clReleaseEvent(ev);
		if (r)
			t[r - 1] = 1e-9 * (double)(b - a);
	}
	qsort(t, (size_t)reps, sizeof *t, cmp);
	return t[reps / 2];
}

/* Points sorted by cell (row-major, x fastest; nc a side of width w):
 * their float4s, the cells' starts, each sorted point's cell and its
 * index in the caller's order (a stable counting sort). */
typedef struct Sorted {
	cl_float4 *p;
	int *start, *cellof, *orig;
} Sorted;

static Sorted sort_cells(const float *x, size_t n, int nc, double w)
{
	size_t ncell = (size_t)nc * nc * nc;
	Sorted s = {peer_alloc(n * sizeof *s.p), calloc(ncell + 1, sizeof(int)),
	            peer_alloc(n * sizeof(int)), peer_alloc(n * sizeof(int))};
	int *key = peer_alloc(n * sizeof *key), *at = peer_alloc(ncell * sizeof *at);
	if (!s.start) {
		fprintf(stderr, "cellpeer: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		int g[3];
		for (int c = 0; c < 3; c++) {
			g[c] = (int)(x[c * n + i] / w);
			g[c] = g[c] < 0 ? 0 : g[c] >= nc ? nc - 1 : g[c];
		}
		key[i] = (g[2] * nc + g[1]) * nc + g[0];
		s.start[key[i] + 1]++;
	}
	for (size_t g = 0; g < ncell; g++)
		s.start[g + 1] += s.start[g];
	memcpy(at, s.start, ncell * sizeof *at);
	for (size_t i = 0; i < n; i++) {
		cl_float4 v = {{x[i], x[n + i], x[2 * n + i], 0}};
		int d = at[key[i]]++;
		s.p[d] = v;
		s.cellof[d] = key[i];
		s.orig[d] = (int)i;
	}
	free(key);
	free(at);
	return s;
}

/* A read-only device buffer holding bytes of host memory. */
static cl_mem input(cl_context ctx, const void *host, size_t bytes)
{
	cl_int e;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
	                          bytes ? bytes : 4, (void *)host, &e);
	CK(e, "clCreateBuffer");
	return m;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1 << 20;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	int gpu = !(argc > 3 && !strcmp(argv[3], "cpu"));
	if (n < 1000 || n > (1u << 26) || reps < 1 || reps > 63) {
		fprintf(stderr, "usage: cellpeer [N >= 1000] [reps 1..63] "
		        "[gpu|cpu]\n");
		return 2;
	}
	/* the inputs, as nbneighbours lj N makes them */
	unsigned long long seed = 0x9e3779b97f4a7c15ULL;
	double rho = 50 / (4.0 / 3.0 * M_PI), side = cbrt((double)n / rho);
	double blob[32][3];
	for (int b = 0; b < 32; b++)
		for (int c = 0; c < 3; c++)
			blob[b][c] = side * uniform(&seed);
	(void)blob;
	float *x = peer_alloc(3 * n * sizeof *x);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			x[c * n + i] = (float)(side * uniform(&seed));
	/* cells of at least rc, row-major, x fastest */
	int nc = (int)floor(side / 1.0);
	nc = nc < 1 ? 1 : nc;
	double w = side / nc;
	size_t ncell = (size_t)nc * nc * nc;
	Sorted sc = sort_cells(x, n, nc, w);
	cl_float4 *p = sc.p;
	int *start = sc.start, *cellof = sc.cellof;
	/* and of at least a third of it (the runtime's margin 2^-10) */
	int nf = (int)floor(3 * side / (1 + 0x1p-10));
	nf = nf < 1 ? 1 : nf;
	double wf = side / nf;
	Sorted sf = sort_cells(x, n, nf, wf);
	/* the exact lists (j != i, r2 < rc2 in float as the kernels) */
	int *len = calloc(n, sizeof *len), maxlen = 0;
	int *nbr = NULL;
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			nbr = peer_alloc((size_t)maxlen * n * sizeof *nbr);
			memset(len, 0, n * sizeof *len);
		}
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : maxlen)
		for (size_t i = 0; i < n; i++) {
			int g = cellof[i], cx = g % nc, cy = g / nc % nc,
			    cz = g / (nc * nc), m = 0;
			for (int z = cz - 1; z <= cz + 1; z++)
				for (int y = cy - 1; y <= cy + 1; y++) {
					if (y < 0 || y >= nc || z < 0 || z >= nc)
						continue;
					int base = (z * nc + y) * nc;
					int b = start[base + (cx > 0 ? cx - 1 : 0)];
					int e = start[base + (cx < nc - 1 ? cx + 1 : nc - 1) + 1];
					for (int j = b; j < e; j++) {
						float dx = p[i].s[0] - p[j].s[0];
						float dy = p[i].s[1] - p[j].s[1];
						float dz = p[i].s[2] - p[j].s[2];
						float r2 = dx * dx + dy * dy + dz * dz;
						if ((size_t)j != i && r2 < RC2) {
							if (pass)
								nbr[(size_t)m * n + i] = j;
							m++;
						}
					}
				}
			len[i] = m;
			maxlen = m > maxlen ? m : maxlen;
		}
	}
	double needed = 0, cand = 0;
	for (size_t i = 0; i < n; i++)
		needed += len[i];
	for (size_t g = 0; g < ncell; g++) {
		int cx = (int)(g % nc), cy = (int)(g / nc % nc),
		    cz = (int)(g / ((size_t)nc * nc)), t = 0;
		for (int z = cz - 1; z <= cz + 1; z++)
			for (int y = cy - 1; y <= cy + 1; y++)
				if (y >= 0 && y < nc && z >= 0 && z < nc) {
					int base = (z * nc + y) * nc;
					t += start[base + (cx < nc - 1 ? cx + 1 : nc - 1) + 1] -
					     start[base + (cx > 0 ? cx - 1 : 0)];
				}
		cand += (double)(start[g + 1] - start[g]) * t;
	}

	/* OpenCL */
	peer_cl pc;
	peer_open(&pc, gpu);
	cl_device_id d = pc.dev;
	cl_context ctx = pc.ctx;
	cl_command_queue q = pc.q;
	const char *name = pc.name;
	cl_int e;
	const char *src = peer_slurp("bench/cellpeer.cl");
	static const char *const opt[3] = {
		"-cl-fast-relaxed-math -cl-mad-enable",
		"-cl-fast-relaxed-math -cl-mad-enable -DBRANCH",
		"-cl-fast-relaxed-math -cl-mad-enable -DPOINT"};
	cl_program pr[3];
	for (int v = 0; v < 3; v++) {
		pr[v] = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
		CK(e, "clCreateProgramWithSource");
		if (clBuildProgram(pr[v], 1, &d, opt[v], NULL, NULL) != CL_SUCCESS) {
			char log[8192] = "";
			clGetProgramBuildInfo(pr[v], d, CL_PROGRAM_BUILD_LOG,
			                      sizeof log, log, NULL);
			fprintf(stderr, "cellpeer: build failed:\n%s\n", log);
			return 1;
		}
	}
	size_t nfc = (size_t)nf * nf * nf;
	cl_mem bp = input(ctx, p, n * sizeof *p);
	cl_mem bs = input(ctx, start, (ncell + 1) * sizeof *start);
	cl_mem bn = input(ctx, nbr, (size_t)maxlen * n * sizeof *nbr);
	cl_mem bl = input(ctx, len, n * sizeof *len);
	cl_mem bp3 = input(ctx, sf.p, n * sizeof *sf.p);
	cl_mem bs3 = input(ctx, sf.start, (nfc + 1) * sizeof *sf.start);
	cl_mem bc3 = input(ctx, sf.cellof, n * sizeof *sf.cellof);
	cl_mem bo = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 5 * n * sizeof(float),
	                           NULL, &e);
	CK(e, "clCreateBuffer out");
	cl_mem bq = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), NULL,
	                           &e);
	CK(e, "clCreateBuffer pairs");
	float *out = peer_alloc(5 * n * sizeof *out);
	int *cpairs = peer_alloc(n * sizeof *cpairs), *inv3 = peer_alloc(n * sizeof *inv3);
	for (size_t i = 0; i < n; i++)
		inv3[sf.orig[i]] = (int)i;
	float rc2 = RC2, sig2 = SIG2, eps = EPS, cwf = (float)wf;
	cl_int cnc = nc, cn = (cl_int)n, cnf = nf;

	/* a double reference on a sample of i (every 997th) */
	size_t ns = 0, stride = 997;
	double (*ref)[5] = peer_alloc((n / stride + 1) * sizeof *ref);
	double fmax = 0;
	for (size_t i = 0; i < n; i += stride, ns++) {
		double s[5] = {0, 0, 0, 0, 0};
		for (int k = 0; k < len[i]; k++) {
			int j = nbr[(size_t)k * n + i];
			double dx = (double)p[i].s[0] - p[j].s[0];
			double dy = (double)p[i].s[1] - p[j].s[1];
			double dz = (double)p[i].s[2] - p[j].s[2];
			double ir2 = 1 / (dx * dx + dy * dy + dz * dz);
			double s6 = pow(SIG2 * ir2, 3), f = 24 * (2 * s6 * s6 - s6) * ir2;
			s[0] += f * dx;
			s[1] += f * dy;
			s[2] += f * dz;
			s[3] += 4 * (s6 * s6 - s6);
			s[4] += 1;
		}
		for (int v = 0; v < 5; v++)
			ref[ns][v] = s[v];
		for (int v = 0; v < 3; v++)
			fmax = fabs(s[v]) > fmax ? fabs(s[v]) : fmax;
	}

	printf("# cellpeer: %s, N = %zu, %d cells of %.4f a side (rc = 1; "
	       "a third: %d of %.4f), needed pairs %.6g, %.3g candidates a "
	       "needed pair; kernel times: profiling events, median of %d\n",
	       name, n, nc, w, nf, wf, needed, cand / needed, reps);
	printf("kernel,n,ms,pairs,needed,pairs_per_needed,needed_per_s,"
	       "maxerr_f,count_diff\n");
	/* the kernels: name, program, entry, work group, whether its
	 * arguments are the cells', the list's or the third's */
	static const struct {
		const char *name, *entry;
		int prog, ls, form;
	} kv[5] = {{"cells", "cells", 0, 64, 0},
	           {"cells_branch", "cells", 1, 64, 0},
	           {"cells3", "cells3", 0, 32, 2},
	           {"cells3_point", "cells3", 2, 32, 2},
	           {"exact_list", "verlet", 0, 128, 1}};
	const void *arg[3][11] = {
		{&bp, &bs, &cnc, &rc2, &sig2, &eps, &bo},
		{&bp, &bn, &bl, &cn, &rc2, &sig2, &eps, &bo},
		{&bp3, &bs3, &bc3, &cnf, &cwf, &cn, &rc2, &sig2, &eps, &bo, &bq}};
	static const size_t M = sizeof(cl_mem), I = sizeof(cl_int);
	static const size_t asz[3][11] = {
		{M, M, I, 4, 4, 4, M},
		{M, M, M, I, 4, 4, 4, M},
		{M, M, M, I, 4, I, 4, 4, 4, M, M}};
	static const int nargs[3] = {7, 8, 11};
	int bad = 0;
	for (int v = 0; v < 5; v++) {
		int l = kv[v].form;
		cl_kernel k = clCreateKernel(pr[kv[v].prog], kv[v].entry, &e);
		CK(e, "clCreateKernel");
		for (int q = 0; q < nargs[l]; q++)
			CK(clSetKernelArg(k, (cl_uint)q, asz[l][q], arg[l][q]),
			   "clSetKernelArg");
		size_t ls = (size_t)kv[v].ls;
		size_t gs = l == 0 ? ncell * ls : l == 1 ? (n + ls - 1) / ls * ls
		                                        : (n + 3) / 4 * ls;
		static const float zero = 0;
		CK(clEnqueueFillBuffer(q, bo, &zero, sizeof zero, 0,
		                       5 * n * sizeof(float), 0, NULL, NULL),
		   "fill");
		double t = timed(q, k, gs, ls, reps);
		CK(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, 5 * n * sizeof(float),
		                       out, 0, NULL, NULL), "read");
		double pairs = l == 0 ? cand : needed;
		if (l == 2) {
			CK(clEnqueueReadBuffer(q, bq, CL_TRUE, 0, n * sizeof(int),
			                       cpairs, 0, NULL, NULL), "read");
			pairs = 0;
			for (size_t i = 0; i < n; i++)
				pairs += cpairs[i];
		}
		double err = 0, cnt = 0;
		for (size_t i = 0; i < n; i++)
			cnt += out[4 * n + i];
		size_t si = 0;
		for (size_t i = 0; i < n; i += stride, si++) {
			size_t o = l == 2 ? (size_t)inv3[sc.orig[i]] : i;
			for (int c = 0; c < 3; c++) {
				double d2 = fabs(out[c * n + o] - ref[si][c]) / fmax;
				err = d2 > err ? d2 : err;
			}
		}
		double cdiff = cnt - needed;
		printf("%s,%zu,%.4f,%.6g,%.6g,%.3f,%.4g,%.2g,%.0f\n", kv[v].name, n,
		       1e3 * t, pairs, needed, pairs / needed, needed / t, err,
		       cdiff);
		bad |= !(err < 1e-4) || fabs(cdiff) > 1e-6 * needed + 2;
		clReleaseKernel(k);
	}
	if (bad)
		fprintf(stderr, "cellpeer: results differ from the double "
		        "reference (maxerr_f over 1e-4 or counts)\n");
	return bad;
}
