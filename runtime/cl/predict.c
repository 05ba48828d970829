/* predict.c: nbrt_predictor's device side (runtime/predict.c): the rows
 * of the bodies put and the indices to gather cross in one write, through
 * pinned memory of the predictor's own, into one buffer; then the
 * runtime's own kernels (kernels.cl) put the rows into the series, predict
 * every body and gather the active ones, queued in order. */
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"

typedef struct Pred {
	cl_mem pin;     /* pinned, mapped at pinp */
	void *pinp;
	size_t pincap;
	cl_mem buf;     /* the rows, then the indices, on the device */
	size_t bufcap;
} Pred;

int nbrt_cl_predict_new(nbrt_predictor *p)
{
	if (!(p->priv = calloc(1, sizeof(Pred))))
		return nbrt_fail(p->rt, "nbrt_predictor_new: out of memory");
	return 0;
}

void nbrt_cl_predict_free(nbrt_predictor *p)
{
	const Cl *c = p->rt->priv;
	Pred *d = p->priv;
	clFinish(c->q); /* nothing queued may still use them */
	if (d->pinp)
		clEnqueueUnmapMemObject(c->q, d->pin, d->pinp, 0, NULL, NULL);
	clFinish(c->q);
	if (d->pin)
		clReleaseMemObject(d->pin);
	if (d->buf)
		clReleaseMemObject(d->buf);
	free(d);
	p->priv = NULL;
}

/* The device buffer of at least bytes (only grown). */
static int grow(nbrt_predictor *p, size_t bytes)
{
	const Cl *c = p->rt->priv;
	Pred *d = p->priv;
	cl_int e;
	if (d->bufcap >= bytes)
		return 0;
	if (d->buf)
		clReleaseMemObject(d->buf);
	d->buf = NULL;
	d->bufcap = 0;
	if (bytes > p->rt->maxalloc)
		return nbrt_fail(p->rt, "nbrt_predict: %zu bytes are more than %s "
		                 "allows in one buffer", bytes, p->rt->name);
	if (!(d->buf = clCreateBuffer(c->ctx, CL_MEM_READ_ONLY, bytes, NULL, &e)))
		return nbrt_cl_fail(p->rt, "nbrt_predict", "clCreateBuffer", e);
	d->bufcap = bytes;
	return 0;
}

int nbrt_cl_predict(nbrt_predictor *p, double now, size_t m,
                    const size_t *act)
{
	nbrt *rt = p->rt;
	const Cl *c = rt->priv;
	Pred *d = p->priv;
	size_t nrow = p->npend * (NBRT_PREDICT_SERIES + 1), bytes = (nrow + m) * sizeof(double);
	if (bytes) {
		/* a blocking write: the pinned copy is free again on return */
		if (nbrt_cl_pinned(rt, "nbrt_predict", &d->pin, &d->pinp,
		                   &d->pincap, bytes) ||
		    grow(p, bytes))
			return -1;
		double *w = d->pinp;
		memcpy(w, p->pend, nrow * sizeof(double));
		for (size_t r = 0; r < m; r++)
			w[nrow + r] = (double)act[r];
		cl_int e = clEnqueueWriteBuffer(c->q, d->buf, CL_TRUE, 0, bytes, w,
		                                0, NULL, NULL);
		if (e != CL_SUCCESS)
			return nbrt_cl_fail(rt, "nbrt_predict", "clEnqueueWriteBuffer",
			                    e);
	}
	cl_mem s = p->series->priv, a[12];
	nbrt_array_touch(p->series);
	for (int k = 0; k < 12; k++) {
		a[k] = p->arr[k]->priv;
		nbrt_array_touch(p->arr[k]);
	}
	cl_ulong n = p->n, np = p->npend, off = nrow, mm = m;
	cl_double tn = now, u = p->unit;
	/* an empty buffer is never read: any valid one stands for it */
	cl_mem b = d->buf ? d->buf : s;
	if (nbrt_cl_aux_run(rt, AK_PUT, p->npend, ARG(b), ARG(s), ARG(np),
	                    ARG(n), (size_t)0) ||
	    nbrt_cl_aux_run(rt, AK_PREDICT, p->n, ARG(s), ARG(a[0]), ARG(a[1]),
	                    ARG(a[2]), ARG(a[3]), ARG(a[4]), ARG(a[5]), ARG(n),
	                    ARG(tn), ARG(u), (size_t)0))
		return -1;
	return nbrt_cl_aux_run(rt, AK_GATHER, m, ARG(a[0]), ARG(a[1]), ARG(a[2]),
	                       ARG(a[3]), ARG(a[4]), ARG(a[5]), ARG(a[6]),
	                       ARG(a[7]), ARG(a[8]), ARG(a[9]), ARG(a[10]),
	                       ARG(a[11]), ARG(b), ARG(off), ARG(mm), (size_t)0);
}
