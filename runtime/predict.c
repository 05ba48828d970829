/* predict.c: block time steps with the j-bodies where the kernel reads
 * them (nbrt_predictor, nbrt.h): each body's Taylor series and time kept
 * in the device's memory, every body predicted there each block step.
 * A device with memory of its own (rt->devarrays) takes the bodies put
 * since the last prediction with it, in one write, through its back end's
 * predict; elsewhere the series are host memory and the loops below, whose
 * bits the device's kernels reproduce, run here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"

#define NS NBRT_PREDICT_SERIES

/* The predicted values of one body, dt its time to now: the sums in the
 * order bin/nbody's Hermite scheme writes them (apps/nbody/hermite.c),
 * each product and sum rounded, as kernels.cl's nbrt_predict. */
static void taylor(double *const *s, size_t i, double dt, double *p)
{
	double dt2 = dt * dt * 0.5, dt3 = dt2 * dt * (1.0 / 3);
	for (int k = 0; k < 3; k++) {
		p[k] = s[k][i] + s[3 + k][i] * dt + s[6 + k][i] * dt2 +
		       s[9 + k][i] * dt3;
		p[3 + k] = s[3 + k][i] + s[6 + k][i] * dt + s[9 + k][i] * dt2;
	}
}

nbrt_predictor *nbrt_predictor_new(nbrt *rt, size_t n, double unit)
{
	if (!rt)
		return NULL;
	/* dt = (now - t) unit: a unit that is no duration makes every
	 * prediction NaN or backwards in time */
	if (!(unit > 0) || !isfinite(unit)) {
		nbrt_fail(rt, "nbrt_predictor_new: unit %g: must be finite and > 0",
		          unit);
		return NULL;
	}
	/* memory checked before it is allocated: the marks, and on the host
	 * the 12 arrays and the series */
	double need = (double)n * (1 + (rt->devarrays ? 0 :
	                                (12.0 + NS) * sizeof(double)));
	if (need > nbrt_host_memory()) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, need);
		nbrt_fail(rt, "nbrt_predictor_new: %zu bodies need %s, more than "
		          "this process may use", n, b);
		return NULL;
	}
	nbrt_predictor *p = calloc(1, sizeof *p);
	if (!p) {
		nbrt_fail(rt, "nbrt_predictor_new: out of memory");
		return NULL;
	}
	p->rt = rt;
	p->n = n;
	p->unit = unit;
	int ok = (p->mark = calloc(n ? n : 1, 1)) != NULL;
	if (!ok)
		nbrt_fail(rt, "nbrt_predictor_new: out of memory for %zu bodies",
		          n);
	for (int c = 0; c < 12 && ok; c++)
		ok = (p->arr[c] = nbrt_array_new(rt, n)) != NULL;
	if (ok && rt->devarrays) {
		/* the series and times in one array, series c of body i at
		 * c n + i, so that one launch puts a body's every value */
		ok = (p->series = nbrt_array_new(rt, NS * (n ? n : 1))) != NULL &&
		     rt->be->predict_new(p) == 0;
	} else if (ok) {
		for (int c = 0; c < NS && ok; c++)
			ok = (p->host[c] = calloc(n ? n : 1, sizeof(double))) != NULL;
		if (!ok)
			nbrt_fail(rt, "nbrt_predictor_new: out of memory for %zu "
			          "bodies", n);
	}
	if (!ok) {
		nbrt_predictor_free(p);
		return NULL;
	}
	return p;
}

void nbrt_predictor_free(nbrt_predictor *p)
{
	if (!p)
		return;
	if (p->priv)
		p->rt->be->predict_free(p);
	for (int c = 0; c < 12; c++)
		nbrt_array_free(p->arr[c]);
	nbrt_array_free(p->series);
	for (int c = 0; c < NS; c++)
		free(p->host[c]);
	free(p->mark);
	free(p->pend);
	free(p);
}

nbrt_array *nbrt_predictor_array(const nbrt_predictor *p, int c)
{
	return p && c >= 0 && c < 12 ? p->arr[c] : NULL;
}

int nbrt_predictor_put(nbrt_predictor *p, size_t m, const size_t *idx,
                       const double *const *src, const uint64_t *t)
{
	if (!p)
		return -1;
	nbrt *rt = p->rt;
	if ((!src || !t) && m)
		return nbrt_fail(rt, "nbrt_predictor_put: %zu bodies but no %s "
		                 "(NULL)", m, src ? "times" : "values");
	/* every column is read for each body put: one missing was a crash */
	for (int c = 0; c < 12 && m; c++)
		if (!src[c])
			return nbrt_fail(rt, "nbrt_predictor_put: %zu bodies but "
			                 "src[%d] is NULL (12 columns: x y z vx vy vz "
			                 "ax ay az jx jy jz)", m, c);
	for (size_t r = 0; r < m; r++) {
		size_t i = idx ? idx[r] : r;
		if (i >= p->n)
			return nbrt_fail(rt, "nbrt_predictor_put: body %zu of %zu",
			                 i, p->n);
		if (t[i] >= (1ull << 53))
			return nbrt_fail(rt, "nbrt_predictor_put: body %zu's time "
			                 "%llu ticks is beyond a double's integers", i,
			                 (unsigned long long)t[i]);
	}
	/* on a device: rows of the series and the time, then the body's
	 * index, which the next nbrt_predict sends */
	size_t need = (p->npend + m) * (NS + 1);
	if (!p->host[0] && need > p->pendcap) {
		/* each body at most once: no more than n rows are needed */
		size_t most = p->n * (NS + 1), cap = need * 2;
		if (cap > most)
			cap = need > most ? need : most;
		double *q = realloc(p->pend, cap * sizeof *q);
		if (!q)
			return nbrt_fail(rt, "nbrt_predictor_put: out of memory for "
			                 "%zu bodies", p->npend + m);
		p->pend = q;
		p->pendcap = cap;
	}
	for (size_t r = 0; r < m; r++) {
		size_t i = idx ? idx[r] : r;
		if (p->mark[i]) {
			while (r-- > 0)
				p->mark[idx ? idx[r] : r] = 0;
			return nbrt_fail(rt, "nbrt_predictor_put: body %zu put twice "
			                 "before nbrt_predict", i);
		}
		p->mark[i] = 1;
	}
	/* each body its own row: threads change no bit (shared and fixed
	 * steps put all N every step) */
#pragma omp parallel for if (m >= 4096) schedule(static)
	for (size_t r = 0; r < m; r++) {
		size_t i = idx ? idx[r] : r;
		if (p->host[0]) {
			for (int c = 0; c < 12; c++)
				p->host[c][i] = src[c][i];
			p->host[12][i] = (double)t[i];
			continue;
		}
		double *row = p->pend + (p->npend + r) * (NS + 1);
		for (int c = 0; c < 12; c++)
			row[c] = src[c][i];
		row[12] = (double)t[i];
		row[13] = (double)i;
	}
	if (!p->host[0])
		p->npend += m;
	return 0;
}

int nbrt_predict(nbrt_predictor *p, uint64_t now, size_t m,
                 const size_t *act)
{
	if (!p)
		return -1;
	nbrt *rt = p->rt;
	if (!act && m)
		return nbrt_fail(rt, "nbrt_predict: %zu bodies to gather but no "
		                 "list of them (NULL)", m);
	for (size_t r = 0; r < m; r++)
		if (act[r] >= p->n)
			return nbrt_fail(rt, "nbrt_predict: body %zu of %zu", act[r],
			                 p->n);
	if (m > p->n)
		return nbrt_fail(rt, "nbrt_predict: %zu bodies gathered of %zu", m,
		                 p->n);
	if (now >= (1ull << 53))
		return nbrt_fail(rt, "nbrt_predict: the time %llu ticks is beyond "
		                 "a double's integers", (unsigned long long)now);
	/* what was put is taken now: any body may be put again */
	memset(p->mark, 0, p->n);
	if (!p->host[0]) {
		int rc = rt->be->predict(p, (double)now, m, act);
		p->npend = 0;
		return rc;
	}
	double tn = (double)now, u = p->unit;
	size_t n = p->n;
	double *out[6];
	for (int c = 0; c < 6; c++)
		out[c] = p->arr[c]->host;
	/* body by body: threads change no bit */
#pragma omp parallel for if (n >= 4096) schedule(static)
	for (size_t i = 0; i < n; i++) {
		double v[6];
		taylor(p->host, i, (tn - p->host[12][i]) * u, v);
		for (int c = 0; c < 6; c++)
			out[c][i] = v[c];
	}
	for (int c = 0; c < 6; c++) {
		double *g = p->arr[6 + c]->host;
		for (size_t r = 0; r < m; r++)
			g[r] = out[c][act[r]];
	}
	return 0;
}
