/* array.c: nbrt_array's device side: the runtime's own kernels
 * (kernels.cl, with the dd library) built once a device and run for an
 * array's conversions into a kernel's buffers and back, axpy, the finite
 * check and the sums of a launch's j-slices (run.c); and the pinned host
 * memory that arrays and a run's staging copies cross through. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"
#include "order.h"

/* The own kernels' names, in CL_OWN_KERNELS's order. */
static const char *const ak_name[AK_N] = {
#define X(id, name) #name,
	CL_OWN_KERNELS(X)
#undef X
};

int nbrt_cl_aux_load(nbrt *rt)
{
	Cl *c = rt->priv;
	cl_int e;
	if (c->aux)
		return 0;
	const char *name = "the runtime's array kernels";
	int room = nbrt_cl_test_fail(rt, TF_BLOCK_ROOM);
	if (room < 0)
		return -1;
	char opt[128];
	const char *std[] = {opt};
	c->maxr = room ? 25 : NBRT_CELLS_MAXR;
	snprintf(opt, sizeof opt, CL_STD " -DNBRT_CELLS_BLOCK="
	         NBRT_STR(NBRT_CELLS_BLOCK) " -DNBRT_CELLS_MAXR=%d", c->maxr);
	cl_program p = nbrt_cl_program(rt, name, nbrt_cl_kernels_src,
	                               strlen(nbrt_cl_kernels_src), std, 1, NULL);
	if (!p)
		return -1;
	int r = -1;
	cl_kernel ak[AK_N] = {0};
	size_t wg = c->maxwg < 128 ? c->maxwg : 128;
	for (int i = 0; i < AK_N; i++) {
		size_t kwg = 0;
		if (!(ak[i] = clCreateKernel(p, ak_name[i], &e))) {
			nbrt_cl_fail(rt, name, "clCreateKernel", e);
			goto out;
		}
		if ((e = clGetKernelWorkGroupInfo(ak[i], c->dev,
		                                  CL_KERNEL_WORK_GROUP_SIZE,
		                                  sizeof kwg, &kwg, NULL))) {
			nbrt_cl_fail(rt, name, "clGetKernelWorkGroupInfo", e);
			goto out;
		}
		if (kwg < wg)
			wg = kwg;
	}
	c->aux = p;
	p = NULL;
	memcpy(c->ak, ak, sizeof ak);
	memset(ak, 0, sizeof ak);
	c->akwg = wg ? wg : 1;
	r = 0;
out:
	for (int i = 0; i < AK_N; i++)
		if (ak[i])
			clReleaseKernel(ak[i]);
	if (p)
		clReleaseProgram(p);
	return r;
}

int nbrt_cl_aux_queue(nbrt *rt, int i, size_t n, cl_event *ev)
{
	Cl *c = rt->priv;
	size_t local = c->akwg, global = (n + local - 1) / local * local;
	cl_int e = clEnqueueNDRangeKernel(c->q, c->ak[i], 1, NULL, &global,
	                                  &local, 0, NULL, ev);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, ak_name[i], "clEnqueueNDRangeKernel", e);
	return 0;
}

int nbrt_cl_aux_run(nbrt *rt, int i, size_t n, ...)
{
	Cl *c = rt->priv;
	cl_int e = CL_SUCCESS;
	va_list ap;
	va_start(ap, n);
	for (cl_uint a = 0; e == CL_SUCCESS; a++) {
		size_t sz = va_arg(ap, size_t);
		if (!sz)
			break;
		const void *v = va_arg(ap, const void *);
		e = clSetKernelArg(c->ak[i], a, sz, v);
	}
	va_end(ap);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, ak_name[i], "clSetKernelArg", e);
	return n ? nbrt_cl_aux_queue(rt, i, n, NULL) : 0;
}

int nbrt_cl_aux_conv(nbrt *rt, int to, nb_prec kt, int na,
                     const cl_mem src[8], const cl_mem dst[8],
                     const size_t stride[8], const size_t off[8],
                     const size_t n[8])
{
	cl_ulong8 s, o, nn;
	cl_mem a[8], d[8];
	cl_int m = na;
	size_t most = 0;
	for (int c = 0; c < 8; c++) { /* unused: the first again, not read */
		int u = c < na ? c : 0;
		a[c] = src[u];
		d[c] = dst[u];
		s.s[c] = stride[u];
		o.s[c] = off[u];
		nn.s[c] = n[u];
		most = n[u] > most ? n[u] : most;
	}
	if (na <= 4) { /* the entry of 4 columns: fewer argument bytes */
		cl_ulong4 s4, o4, n4;
		memcpy(s4.s, s.s, sizeof s4.s);
		memcpy(o4.s, o.s, sizeof o4.s);
		memcpy(n4.s, nn.s, sizeof n4.s);
		return nbrt_cl_aux_run(rt, nbrt_cl_own(to ? AK_TO_F4 : AK_FROM_F4, kt),
		                       most, ARG(a[0]), ARG(a[1]), ARG(a[2]),
		                       ARG(a[3]), ARG(d[0]), ARG(d[1]), ARG(d[2]),
		                       ARG(d[3]), ARG(s4), ARG(o4), ARG(n4), ARG(m),
		                       (size_t)0);
	}
	return nbrt_cl_aux_run(rt, nbrt_cl_own(to ? AK_TO_F : AK_FROM_F, kt), most,
	                       ARG(a[0]), ARG(a[1]), ARG(a[2]), ARG(a[3]),
	                       ARG(a[4]), ARG(a[5]), ARG(a[6]), ARG(a[7]),
	                       ARG(d[0]), ARG(d[1]), ARG(d[2]), ARG(d[3]),
	                       ARG(d[4]), ARG(d[5]), ARG(d[6]), ARG(d[7]), ARG(s),
	                       ARG(o), ARG(nn), ARG(m), (size_t)0);
}

/* Pinned host memory of at least `bytes` in *mem, mapped at *ptr: a
 * buffer made with CL_MEM_ALLOC_HOST_PTR (page-locked on NVIDIA's OpenCL),
 * kept mapped and only grown, so that reusing it costs no page faults or
 * page locking.  Nothing queued may still use the old one. */
int nbrt_cl_pinned(nbrt *rt, const char *what, cl_mem *mem, void **ptr,
                   size_t *cap, size_t bytes)
{
	Cl *c = rt->priv;
	cl_int e;
	if (*cap >= bytes)
		return 0;
	if (*ptr && (e = clEnqueueUnmapMemObject(c->q, *mem, *ptr, 0, NULL,
	                                         NULL)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clEnqueueUnmapMemObject", e);
	*ptr = NULL;
	if (*mem && (e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clFinish", e);
	if (*mem)
		clReleaseMemObject(*mem);
	*mem = NULL;
	*cap = 0;
	if (bytes > rt->maxalloc)
		return nbrt_fail(rt, "%s: %zu bytes of pinned memory are more than "
		                 "%s allows in one buffer", what, bytes, rt->name);
	*mem = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
	                      bytes, NULL, &e);
	if (!*mem)
		return nbrt_cl_fail(rt, what, "clCreateBuffer", e);
	*ptr = clEnqueueMapBuffer(c->q, *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
	                          0, bytes, 0, NULL, NULL, &e);
	if (!*ptr)
		return nbrt_cl_fail(rt, what, "clEnqueueMapBuffer", e);
	*cap = bytes;
	return 0;
}

static int copy_piece(void *ctx, size_t at, size_t len)
{
	void *const *ds = ctx;
	memcpy((char *)ds[0] + at, (const char *)ds[1] + at, len);
	return 0;
}

/* n bytes copied over every thread (order.c's pieces): the copies into
 * and out of pinned staging (cells.c's inputs and results, morton.c's
 * scattered results). */
void nbrt_cl_copy(void *dst, const void *src, size_t n)
{
	void *ds[2] = {dst, (void *)src};
	nbrt_order_pieces(n, copy_piece, ds);
}

/* The device's pinned copy for nbrt_array's transfers. */
static int pin(nbrt *rt, size_t bytes)
{
	Cl *c = rt->priv;
	return nbrt_cl_pinned(rt, "pinned memory", &c->pin, &c->pinp,
	                      &c->pincap, bytes);
}

int nbrt_cl_array_new(nbrt_array *a)
{
	nbrt *rt = a->rt;
	Cl *c = rt->priv;
	cl_int e;
	size_t bytes = (a->n ? a->n : 1) * sizeof(double);
	if (bytes / sizeof(double) != (a->n ? a->n : 1) || bytes > rt->maxalloc)
		return nbrt_fail(rt, "an array of %zu doubles is more than %s "
		                 "allows in one buffer (%llu bytes)", a->n, rt->name,
		                 (unsigned long long)rt->maxalloc);
	if (nbrt_cl_aux_load(rt))
		return -1;
	cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
	if (!m)
		return nbrt_cl_fail(rt, "an array", "clCreateBuffer", e);
	a->priv = m;
	static const cl_double zero = 0;
	if ((e = clEnqueueFillBuffer(c->q, m, &zero, sizeof zero, 0, bytes, 0,
	                             NULL, NULL)) != CL_SUCCESS ||
	    (e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, "an array", "clEnqueueFillBuffer", e);
	return 0;
}

/* The shadow room: every array's float copy in one buffer, so that a
 * float kernel's NB_DIN entry takes one buffer argument for all its
 * inputs (NVIDIA's enqueue costs about 0.4 us a buffer: bench/
 * flushprobe.c's part 6, 10.5 us a launch with the entry's twelve, 8.1
 * with five).  Copies go one after another, each from a multiple of 32
 * floats; a freed array's place stays empty until the room is made
 * again, larger, when a copy does not fit: then every copy is placed
 * anew, packed, and left stale, to be converted again where used. */
static size_t shadow_len(const nbrt_array *a)
{
	return ((a->n ? a->n : 1) + 31) / 32 * 32;
}

int nbrt_cl_shadow_new(nbrt_array *a)
{
	nbrt *rt = a->rt;
	Cl *c = rt->priv;
	if (c->nsh == c->capsh) {
		int cap = c->capsh ? 2 * c->capsh : 16;
		nbrt_array **l = realloc(c->shl, (size_t)cap * sizeof *l);
		if (!l)
			return nbrt_fail(rt, "out of memory");
		c->shl = l;
		c->capsh = cap;
	}
	size_t n = shadow_len(a);
	if (!c->sh || c->shcap - c->shtop < n) {
		double live = (double)n;
		for (int i = 0; i < c->nsh; i++)
			live += (double)shadow_len(c->shl[i]);
		double cap = 2 * live > 65536 ? 2 * live : 65536;
		double most = (double)rt->maxalloc / sizeof(cl_float);
		cap = cap < most ? cap : most;
		if (live > cap)
			return nbrt_fail(rt, "the arrays' float copies need %.0f floats, "
			                 "more than one buffer of %s holds (%llu bytes)",
			                 live, rt->name,
			                 (unsigned long long)rt->maxalloc);
		cl_int e;
		cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE,
		                          (size_t)cap * sizeof(cl_float), NULL, &e);
		if (!m)
			return nbrt_cl_fail(rt, "the arrays' float copies",
			                    "clCreateBuffer", e);
		/* launches queued on the old room keep it until they end */
		if (c->sh)
			clReleaseMemObject(c->sh);
		c->sh = m;
		c->shcap = (size_t)cap;
		c->shtop = 0;
		for (int i = 0; i < c->nsh; i++) {
			c->shl[i]->shadow_at = c->shtop;
			c->shl[i]->shadow_ver = 0; /* no stamp is 0 */
			c->shtop += shadow_len(c->shl[i]);
		}
	}
	a->shadowed = 1;
	a->shadow_at = c->shtop;
	a->shadow_ver = 0;
	c->shtop += n;
	c->shl[c->nsh++] = a;
	return 0;
}

/* An array freed: out of the list (its place empty until the room is
 * made again). */
static void shadow_drop(nbrt_array *a)
{
	Cl *c = a->rt->priv;
	for (int i = 0; i < c->nsh; i++)
		if (c->shl[i] == a) {
			c->shl[i] = c->shl[--c->nsh];
			break;
		}
	a->shadowed = 0;
}

void nbrt_cl_array_free(nbrt_array *a)
{
	const Cl *c = a->rt->priv;
	clFinish(c->q); /* nothing queued may still use it */
	clReleaseMemObject((cl_mem)a->priv);
	a->priv = NULL;
	if (a->shadowed)
		shadow_drop(a);
}

/* Whether every one of a[0..na) has a float copy (run.c's shadow). */
static int shadowed(nbrt_array *const *a, int na)
{
	for (int i = 0; i < na; i++)
		if (!a[i]->shadowed)
			return 0;
	return 1;
}

/* All of an array to (write) or from the host, through the pinned copy. */
static int cross(const nbrt_array *a, double *host, int write)
{
	nbrt *rt = a->rt;
	Cl *c = rt->priv;
	size_t bytes = a->n * sizeof(double);
	const char *what = write ? "writing an array" : "reading an array";
	if (!bytes)
		return 0;
	/* queued runs end first, their failures reported here; the pinned
	 * copy may still feed an earlier command */
	if (nbrt_cl_queue_settle(rt))
		return -1;
	cl_int e = clFinish(c->q);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clFinish", e);
	if (pin(rt, bytes))
		return -1;
	if (write)
		memcpy(c->pinp, host, bytes);
	e = write ? clEnqueueWriteBuffer(c->q, (cl_mem)a->priv, CL_TRUE, 0,
	                                 bytes, c->pinp, 0, NULL, NULL)
	          : clEnqueueReadBuffer(c->q, (cl_mem)a->priv, CL_TRUE, 0,
	                                bytes, c->pinp, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, write ? "clEnqueueWriteBuffer" :
		                    "clEnqueueReadBuffer", e);
	if (!write)
		memcpy(host, c->pinp, bytes);
	return 0;
}

int nbrt_cl_array_write(nbrt_array *a, const double *src)
{
	return cross(a, (double *)src, 1);
}

int nbrt_cl_array_read(const nbrt_array *a, double *dst)
{
	return cross(a, dst, 0);
}

int nbrt_cl_array_axpy(nbrt_array *const *y, double h,
                       nbrt_array *const *x, nbrt_array *const *z, double g,
                       int na)
{
	cl_mem m[9];
	for (int i = 0; i < 3; i++) {
		m[i] = y[i < na ? i : 0]->priv;
		m[3 + i] = x[i < na ? i : 0]->priv;
		m[6 + i] = z ? z[i < na ? i : 0]->priv : NULL;
	}
	cl_double hh = h, gg = g;
	cl_int nn = na;
	cl_ulong n = y[0]->n;
	/* the arrays it writes last (z, else y) keep their float copies
	 * current, where they all have one; the others' are stale by their
	 * stamps, which the caller (nbrt_array.c) has renewed */
	nbrt_array *const *w = z ? z : y;
	cl_ulong f[3] = {0, 0, 0};
	int sh = shadowed(w, na);
	for (int i = 0; sh && i < 3; i++)
		f[i] = w[i < na ? i : 0]->shadow_at;
	cl_mem room = ((Cl *)y[0]->rt->priv)->sh;
	int r;
	if (!z && !sh)
		r = nbrt_cl_aux_run(y[0]->rt, AK_AXPY, y[0]->n, ARG(m[0]),
		                    ARG(m[1]), ARG(m[2]), ARG(m[3]), ARG(m[4]),
		                    ARG(m[5]), ARG(hh), ARG(nn), ARG(n), (size_t)0);
	else if (!z)
		r = nbrt_cl_aux_run(y[0]->rt, AK_AXPYF, y[0]->n, ARG(m[0]),
		                    ARG(m[1]), ARG(m[2]), ARG(m[3]), ARG(m[4]),
		                    ARG(m[5]), ARG(room), ARG(f[0]), ARG(f[1]),
		                    ARG(f[2]), ARG(hh), ARG(nn), ARG(n), (size_t)0);
	else if (!sh)
		r = nbrt_cl_aux_run(y[0]->rt, AK_AXPY2, y[0]->n, ARG(m[0]),
		                    ARG(m[1]), ARG(m[2]), ARG(m[3]), ARG(m[4]),
		                    ARG(m[5]), ARG(m[6]), ARG(m[7]), ARG(m[8]),
		                    ARG(hh), ARG(gg), ARG(nn), ARG(n), (size_t)0);
	else
		r = nbrt_cl_aux_run(y[0]->rt, AK_AXPY2F, y[0]->n, ARG(m[0]),
		                    ARG(m[1]), ARG(m[2]), ARG(m[3]), ARG(m[4]),
		                    ARG(m[5]), ARG(m[6]), ARG(m[7]), ARG(m[8]),
		                    ARG(room), ARG(f[0]), ARG(f[1]), ARG(f[2]),
		                    ARG(hh), ARG(gg), ARG(nn), ARG(n), (size_t)0);
	for (int i = 0; !r && sh && i < na; i++)
		w[i]->shadow_ver = w[i]->ver;
	return r;
}

/* A flag of the finite check: one cl_uint, zero (no epoch) to begin. */
static cl_mem finite_flag(nbrt *rt)
{
	Cl *c = rt->priv;
	cl_int e;
	static const cl_uint zero = 0;
	cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, sizeof(cl_uint),
	                          NULL, &e);
	if (!m) {
		nbrt_cl_fail(rt, "the finite check", "clCreateBuffer", e);
		return NULL;
	}
	if ((e = clEnqueueFillBuffer(c->q, m, &zero, sizeof zero, 0, sizeof zero,
	                             0, NULL, NULL)) != CL_SUCCESS) {
		clReleaseMemObject(m);
		nbrt_cl_fail(rt, "the finite check", "clEnqueueFillBuffer", e);
		return NULL;
	}
	return m;
}

/* Queues the check of a[0..na) (nine arrays a launch): flag becomes a
 * fresh epoch, *epoch, where a value is not finite, and keeps an older
 * one otherwise, so nothing clears it first.  ny > 0: y += h x (ny
 * arrays, at most 3) in the first launch, before its check. */
static int finite_launch(nbrt *rt, nbrt_array *const *a, int na,
                         cl_mem flag, cl_uint *epoch, nbrt_array *const *y,
                         double h, nbrt_array *const *x, int ny)
{
	Cl *c = rt->priv;
	cl_ulong n = a[0]->n;
	if (++c->fepoch == 0)
		c->fepoch = 1;
	cl_uint ep = *epoch = c->fepoch;
	for (int g = 0; g < na; g += 9) {
		cl_mem m[9];
		cl_int nn = na - g < 9 ? na - g : 9;
		for (int i = 0; i < 9; i++)
			m[i] = a[g + (i < nn ? i : 0)]->priv;
		if (g == 0 && ny > 0) {
			cl_mem my[3], mx[3];
			for (int i = 0; i < 3; i++) {
				my[i] = y[i < ny ? i : 0]->priv;
				mx[i] = x[i < ny ? i : 0]->priv;
			}
			cl_double hh = h;
			cl_int k = ny;
			if (nbrt_cl_aux_run(rt, AK_AXPY_FINITE, a[0]->n, ARG(my[0]),
			                    ARG(my[1]), ARG(my[2]), ARG(mx[0]),
			                    ARG(mx[1]), ARG(mx[2]), ARG(hh), ARG(k),
			                    ARG(m[0]), ARG(m[1]), ARG(m[2]), ARG(m[3]),
			                    ARG(m[4]), ARG(m[5]), ARG(m[6]), ARG(m[7]),
			                    ARG(m[8]), ARG(nn), ARG(n), ARG(ep),
			                    ARG(flag), (size_t)0))
				return -1;
			continue;
		}
		if (nbrt_cl_aux_run(rt, AK_FINITE, a[0]->n, ARG(m[0]), ARG(m[1]),
		                    ARG(m[2]), ARG(m[3]), ARG(m[4]), ARG(m[5]),
		                    ARG(m[6]), ARG(m[7]), ARG(m[8]), ARG(nn), ARG(n),
		                    ARG(ep), ARG(flag), (size_t)0))
			return -1;
	}
	return 0;
}

int nbrt_cl_array_finite(nbrt_array *const *a, int na, int *finite)
{
	nbrt *rt = a[0]->rt;
	Cl *c = rt->priv;
	cl_int e;
	cl_uint ep = 0;
	/* queued behind the queued runs (the queue is in order), whose
	 * events are settled once the answer is back: the host waits once,
	 * not for their end and then for the check; a failure of theirs is
	 * the one reported */
	int r = 0;
	if (!c->flag && !(c->flag = finite_flag(rt)))
		r = -1;
	if (!r)
		r = finite_launch(rt, a, na, c->flag, &ep, NULL, 0, NULL, 0);
	if (!r)
		r = pin(rt, 64);
	if (!r && (e = clEnqueueReadBuffer(c->q, c->flag, CL_TRUE, 0,
	                                   sizeof(cl_uint), c->pinp, 0, NULL,
	                                   NULL)) != CL_SUCCESS)
		r = nbrt_cl_fail(rt, "nbrt_finite", "clEnqueueReadBuffer", e);
	if (nbrt_cl_queue_settle(rt) || r)
		return -1;
	*finite = *(cl_uint *)c->pinp != ep;
	return 0;
}

/* The check in two halves (bin/nbody's step queues the next step before
 * it takes this one's answer): the flag of slot read into its pinned
 * cell behind the check, the host not waiting; the launches queued before
 * it are its mark, for the take to settle them and no later ones. */
int nbrt_cl_finite_queue(nbrt_array *const *a, int na, int slot,
                         nbrt_array *const *y, double h,
                         nbrt_array *const *x, int ny)
{
	nbrt *rt = a[0]->rt;
	Cl *c = rt->priv;
	cl_int e;
	if (nbrt_cl_pinned(rt, "nbrt_array_finite_queue", &c->fpin,
	                   &c->fpinp, &c->fpincap, 2 * sizeof(cl_uint)))
		return -1;
	if (!c->fflag[slot] && !(c->fflag[slot] = finite_flag(rt)))
		return -1;
	c->fmark[slot] = c->qadded;
	if (finite_launch(rt, a, na, c->fflag[slot], &c->fwant[slot], y, h, x,
	                  ny))
		return -1;
	if ((e = clEnqueueReadBuffer(c->q, c->fflag[slot], CL_FALSE, 0,
	                             sizeof(cl_uint), (cl_uint *)c->fpinp + slot,
	                             0, NULL,
	                             &c->fev[slot])) != CL_SUCCESS) {
		c->fev[slot] = NULL;
		return nbrt_cl_fail(rt, "nbrt_array_finite_queue",
		                    "clEnqueueReadBuffer", e);
	}
	if ((e = clFlush(c->q)) != CL_SUCCESS) {
		/* not queued after all: nothing will take it */
		clReleaseEvent(c->fev[slot]);
		c->fev[slot] = NULL;
		return nbrt_cl_fail(rt, "nbrt_array_finite_queue", "clFlush", e);
	}
	return 0;
}

int nbrt_cl_finite_take(nbrt *rt, int slot, int *finite, double t[2])
{
	Cl *c = rt->priv;
	cl_event ev = c->fev[slot];
	c->fev[slot] = NULL;
	cl_int e = clWaitForEvents(1, &ev), st = CL_COMPLETE;
	if (e == CL_SUCCESS &&
	    (e = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
	                        &st, NULL)) == CL_SUCCESS && st < 0)
		e = st;
	clReleaseEvent(ev);
	/* the launches before it have ended: their failure (first) and
	 * times are theirs */
	int r = nbrt_cl_wait_upto(rt, c->fmark[slot], t);
	if (r)
		return -1;
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "nbrt_array_finite_take", "clWaitForEvents",
		                    e);
	*finite = ((const cl_uint *)c->fpinp)[slot] != c->fwant[slot];
	return 0;
}
