/* newtonpeer.c: issue 25's question "does Newton's third law pay in the
 * dense OpenCL path?" answered by hand first: bench/newtonpeer.cl's
 * every-pair kernel (the control, j-split to fill the device, its parts
 * folded as the pairs' are) against its block-pair kernel (each
 * unordered pair once, j-sides through a warp, fixed-order folds), the
 * term of bench/newton/gravity_force.nbl, self-interaction of N random
 * bodies, each kernel's own time by profiling events (median of reps),
 * checked against a double reference on a sample of i and, for the
 * pairs, the same bytes run to run.
 *   newtonpeer N [reps [gpu|cpu [float|double [W:U[:G] ...]]]]
 * (W work items a group, U i-elements an item, G rounds a pairs group)
 * Row: kernel,precision,n,w,u,g,ms,pairs_per_s,maxerr,same_bits.
 * pairs_per_s is N^2 over the time (the full sweep's rate, as
 * bench/selfrun.c's), so the pairs kernel's gain is the rows' ratio. */
#include <math.h>
#include <string.h>
#define PEER_NAME "newtonpeer"
#include "peer_cl.h"

static const double EPS2 = 1e-4;

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

/* one launch, waited for: its device time in seconds */
static double launch(cl_command_queue q, cl_kernel k, int dims,
                     const size_t *gs, const size_t *ls)
{
	cl_event ev;
	cl_ulong a = 0, b = 0;
	CK(clEnqueueNDRangeKernel(q, k, (cl_uint)dims, NULL, gs, ls, 0, NULL,
	                          &ev), "clEnqueueNDRangeKernel");
	CK(clWaitForEvents(1, &ev), "clWaitForEvents");
	CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a,
	                           NULL), "profiling");
	CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b,
	                           NULL), "profiling");
	clReleaseEvent(ev);
	return 1e-9 * (double)(b - a);
}

static void arg(cl_kernel k, cl_uint i, size_t sz, const void *v)
{
	CK(clSetKernelArg(k, i, sz, v), "clSetKernelArg");
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 65536;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	int gpu = !(argc > 3 && !strcmp(argv[3], "cpu"));
	int dbl = argc > 4 && !strcmp(argv[4], "double");
	if (n < 64 || n > (1u << 24) || reps < 1 || reps > 63) {
		fprintf(stderr, "usage: newtonpeer N [reps 1..63 [gpu|cpu "
		        "[float|double [W:U[:G] ...]]]]\n");
		return 2;
	}
	static char *defcfg[] = {"128:2", "128:4", "256:2"};
	char **cfg = argc > 5 ? argv + 5 : defcfg;
	int ncfg = argc > 5 ? argc - 5 : 3;
	size_t tsz = dbl ? 4 * sizeof(double) : 4 * sizeof(float);

	/* bodies in the unit cube, masses in [0.5, 1.5) / N */
	unsigned long long seed = 0x9e3779b97f4a7c15ULL;
	const char *env = getenv("NBCC_TEST_SEED");
	if (env && *env)
		seed ^= strtoull(env, NULL, 0) * 0x100000001b3ULL + 1;
	double *x = peer_alloc(4 * n * sizeof *x);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++)
			x[4 * i + c] = uniform(&seed);
		x[4 * i + 3] = (0.5 + uniform(&seed)) / (double)n;
		if (!dbl) /* the reference sees the float inputs */
			for (int c = 0; c < 4; c++)
				x[4 * i + c] = (float)x[4 * i + c];
	}
	/* the reference on a sample of i: the sums and the sums of the
	 * terms' sizes (the error is relative to those: the condition) */
	size_t stride = n / 64 > 0 ? n / 64 : 1, ns = (n + stride - 1) / stride;
	double (*ref)[8] = peer_alloc(ns * sizeof *ref);
#pragma omp parallel for schedule(dynamic, 1)
	for (size_t q = 0; q < ns; q++) {
		size_t i = q * stride;
		double s[8] = {0};
		for (size_t j = 0; j < n; j++) {
			double dx = x[4 * j] - x[4 * i], dy = x[4 * j + 1] - x[4 * i + 1],
			       dz = x[4 * j + 2] - x[4 * i + 2];
			double ri = 1 / sqrt(EPS2 + dx * dx + dy * dy + dz * dz);
			double mm = x[4 * i + 3] * x[4 * j + 3] * ri, f = mm * ri * ri;
			double v[4] = {f * dx, f * dy, f * dz, -mm};
			for (int c = 0; c < 4; c++) {
				s[c] += v[c];
				s[4 + c] += fabs(v[c]);
			}
		}
		memcpy(ref[q], s, sizeof s);
	}

	peer_cl pc;
	peer_open(&pc, gpu);
	cl_int e;
	char vendor[256] = "";
	CK(clGetDeviceInfo(pc.dev, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL),
	   "clGetDeviceInfo");
	int nv = strstr(vendor, "NVIDIA") != NULL;
	const char *src = peer_slurp("bench/newtonpeer.cl");
	/* of the terms' summed sizes: rsqrt's few ulp, and sums of up to N
	 * terms in a row, whose error grows as sqrt(N) (float at 2^20 on
	 * the host: 6.4e-5 of 4.9e-4) */
	double tol = 8 * sqrt((double)n) * (dbl ? 0x1p-53 : 0x1p-24);
	tol = tol > (dbl ? 1e-13 : 1e-5) ? tol : dbl ? 1e-13 : 1e-5;
	printf("# newtonpeer: %s (%s), N = %zu, %s, gravity_force eps2 = %g, "
	       "kernel times: profiling events, median of %d; rotation: %s; "
	       "maxerr: of the terms' summed sizes, on %zu i, tolerance %.2g\n",
	       pc.name, vendor, n, dbl ? "double" : "float", EPS2, reps,
	       nv ? "inline PTX shfl.sync.idx" : "local memory, barriers", ns,
	       tol);
	printf("kernel,precision,n,w,u,g,ms,pairs_per_s,maxerr,same_bits\n");
	int bad = 0;
	for (int ci = 0; ci < ncfg; ci++) {
		int wg = 0, u = 0, gr = 1;
		if (sscanf(cfg[ci], "%d:%d:%d", &wg, &u, &gr) < 2 || wg < 32 ||
		    wg % 32 || wg > 1024 || u < 1 || u > 8 || gr < 1 ||
		    gr > 1024) {
			fprintf(stderr, "newtonpeer: bad W:U[:G] '%s' (W a "
			        "multiple of 32 up to 1024, U 1..8, G 1..1024)\n",
			        cfg[ci]);
			return 2;
		}
		size_t bs = (size_t)wg * u, nb = (n + bs - 1) / bs, npad = nb * bs;
		size_t nr = 1 + nb / 2;
		/* rounds a launch: their partial sums within 1 GiB */
		size_t rl = ((size_t)1 << 30) / (2 * npad * tsz);
		/* NEWTONPEER_ROUNDS: fewer, to test the launches' seams */
		const char *cap = getenv("NEWTONPEER_ROUNDS");
		if (cap && atoi(cap) > 0 && (size_t)atoi(cap) < rl)
			rl = (size_t)atoi(cap);
		rl = rl < 1 ? 1 : rl > nr ? nr : rl;
		char opt[256];
		snprintf(opt, sizeof opt, "-DW=%d -DU=%d -DG=%d%s%s -cl-mad-enable",
		         wg, u, gr,
		         dbl ? " -DDBL" : "", nv ? " -DNB_NVIDIA_SHFL" : "");
		cl_program pr = clCreateProgramWithSource(pc.ctx, 1, &src, NULL, &e);
		CK(e, "clCreateProgramWithSource");
		if (clBuildProgram(pr, 1, &pc.dev, opt, NULL, NULL) != CL_SUCCESS) {
			char log[16384] = "";
			clGetProgramBuildInfo(pr, pc.dev, CL_PROGRAM_BUILD_LOG,
			                      sizeof log, log, NULL);
			fprintf(stderr, "newtonpeer: build failed (%s):\n%s\n", opt,
			        log);
			return 1;
		}
		/* the inputs padded with massless bodies (eps2 > 0: no 0/0) */
		unsigned char *hp = peer_alloc(npad * tsz), *out = peer_alloc(npad * tsz),
		              *first = peer_alloc(npad * tsz);
		for (size_t i = 0; i < n; i++)
			for (int c = 0; c < 4; c++) {
				if (dbl)
					((double *)hp)[4 * i + c] = x[4 * i + c];
				else
					((float *)hp)[4 * i + c] = (float)x[4 * i + c];
			}
		cl_mem bp = clCreateBuffer(pc.ctx, CL_MEM_READ_ONLY |
		                           CL_MEM_COPY_HOST_PTR, npad * tsz, hp, &e);
		CK(e, "clCreateBuffer");
		cl_mem bo = clCreateBuffer(pc.ctx, CL_MEM_READ_WRITE, npad * tsz,
		                           NULL, &e);
		CK(e, "clCreateBuffer");
		cl_mem bi = clCreateBuffer(pc.ctx, CL_MEM_READ_WRITE,
		                           rl * npad * tsz, NULL, &e);
		CK(e, "clCreateBuffer");
		cl_mem bj = clCreateBuffer(pc.ctx, CL_MEM_READ_WRITE,
		                           rl * npad * tsz, NULL, &e);
		CK(e, "clCreateBuffer");
		cl_kernel ke = clCreateKernel(pr, "every", &e);
		CK(e, "clCreateKernel");
		cl_kernel kp = clCreateKernel(pr, "pairs", &e);
		CK(e, "clCreateKernel");
		cl_kernel kf = clCreateKernel(pr, "fold", &e);
		CK(e, "clCreateKernel");
		cl_int cnpad = (cl_int)npad, cnb = (cl_int)nb;
		float ef = (float)EPS2;
		double ed = EPS2;
		const void *eps = dbl ? (const void *)&ed : (const void *)&ef;
		size_t esz = dbl ? sizeof ed : sizeof ef;
		/* the control's j-split: some 1024 groups (8 of 128 work
		 * items an H200's SM), its parts within the partials' room */
		size_t nsp = (1024 + nb - 1) / nb;
		nsp = nsp > nb ? nb : nsp;
		nsp = nsp > rl ? rl : nsp;
		cl_int cper = (cl_int)((nb + nsp - 1) / nsp);
		nsp = (nb + (size_t)cper - 1) / (size_t)cper;
		arg(ke, 0, sizeof bp, &bp);
		arg(ke, 1, sizeof cnb, &cnb);
		arg(ke, 2, sizeof cper, &cper);
		arg(ke, 3, sizeof cnpad, &cnpad);
		arg(ke, 4, esz, eps);
		arg(ke, 5, sizeof bi, &bi);
		arg(kp, 0, sizeof bp, &bp);
		arg(kp, 1, sizeof cnb, &cnb);
		arg(kp, 4, sizeof cnpad, &cnpad);
		arg(kp, 5, esz, eps);
		arg(kp, 6, sizeof bi, &bi);
		arg(kp, 7, sizeof bj, &bj);
		arg(kf, 0, sizeof bi, &bi);
		arg(kf, 1, sizeof bj, &bj);
		arg(kf, 4, sizeof cnpad, &cnpad);
		arg(kf, 6, sizeof bo, &bo);
		for (int v = 0; v < 2; v++) {
			double t[64], tk = 0, tf = 0;
			int same = 1;
			for (int rep = 0; rep <= reps; rep++) {
				double tt = 0;
				if (v == 0) {
					size_t gs[2] = {nb * wg, nsp}, ls[2] = {(size_t)wg, 1};
					cl_int zero = 0, one = 1, cn = (cl_int)nsp;
					tt = launch(pc.q, ke, 2, gs, ls);
					arg(kf, 2, sizeof zero, &zero);
					arg(kf, 3, sizeof cn, &cn);
					arg(kf, 5, sizeof one, &one);
					size_t fg = npad, fl = 64;
					tt += launch(pc.q, kf, 1, &fg, &fl);
				} else {
					for (size_t s0 = 0; s0 < nr; s0 += rl) {
						cl_int cs0 = (cl_int)s0, cr = (cl_int)(nr - s0 < rl ?
						                              nr - s0 : rl),
						       cf = s0 == 0, ci = (cr + gr - 1) / gr;
						size_t gs[2] = {nb * wg, (size_t)ci},
						       ls[2] = {(size_t)wg, 1};
						arg(kp, 2, sizeof cs0, &cs0);
						arg(kp, 3, sizeof cr, &cr);
						double a = launch(pc.q, kp, 2, gs, ls);
						arg(kf, 2, sizeof cr, &cr);
						arg(kf, 3, sizeof ci, &ci);
						arg(kf, 5, sizeof cf, &cf);
						size_t fg = npad, fl = 64;
						double b = launch(pc.q, kf, 1, &fg, &fl);
						tt += a + b;
						if (rep)
							tk += a, tf += b;
					}
				}
				if (rep)
					t[rep - 1] = tt;
				CK(clEnqueueReadBuffer(pc.q, bo, CL_TRUE, 0, npad * tsz,
				                       rep ? out : first, 0, NULL, NULL),
				   "clEnqueueReadBuffer");
				if (rep && memcmp(out, first, npad * tsz))
					same = 0;
			}
			qsort(t, (size_t)reps, sizeof *t, cmp);
			double err = 0;
			for (size_t q = 0; q < ns; q++)
				for (int c = 0; c < 4; c++) {
					size_t o = 4 * q * stride + (size_t)c;
					double g = dbl ? ((double *)out)[o] : ((float *)out)[o];
					double d = fabs(g - ref[q][c]) / ref[q][4 + c];
					err = d > err || d != d ? d : err;
				}
			double med = t[reps / 2];
			printf("%s,%s,%zu,%d,%d,%d,%.4f,%.4g,%.2g,%d\n",
			       v ? "pairs" : "every", dbl ? "double" : "float", n, wg,
			       u, v ? gr : 0, 1e3 * med, (double)n * n / med, err, same);
			if (!v)
				printf("# every W=%d U=%d: %zu j-parts of %d blocks "
				       "of %zu\n", wg, u, nsp, cper, bs);
			if (v)
				printf("# pairs W=%d U=%d G=%d: block %zu, %zu blocks, %zu "
				       "rounds, %zu a launch; mean pairs kernels %.4f ms, "
				       "folds %.4f ms a run\n", wg, u, gr, bs, nb, nr, rl,
				       1e3 * tk / reps, 1e3 * tf / reps);
			if (!(err < tol) || (v && !same)) {
				fprintf(stderr, "newtonpeer: %s W=%d U=%d: maxerr %.3g "
				        "(tolerance %.3g) or bits differ run to run\n",
				        v ? "pairs" : "every", wg, u, err, tol);
				bad = 1;
			}
		}
		clReleaseKernel(ke);
		clReleaseKernel(kp);
		clReleaseKernel(kf);
		clReleaseMemObject(bp);
		clReleaseMemObject(bo);
		clReleaseMemObject(bi);
		clReleaseMemObject(bj);
		clReleaseProgram(pr);
		free(hp);
		free(out);
		free(first);
	}
	free(x);
	free(ref);
	return bad;
}
