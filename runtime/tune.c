/* tune.c: the tuner (docs/performance.md, "The tuner").  For a .nbl, each
 * size class of Ni and Nj (powers of 4) gets a variant: the winner the
 * cache keeps for this kernel on this device, else, with a budget, the
 * fastest of the candidates timed now on the bound inputs whose results
 * agree with the default's, else the defaults table's.  nbrt_sweep times
 * every candidate and prints the table.  Above the running layer (core.h):
 * it loads and runs its variants there, and the API asks it for each run's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune.h"

struct nbrt_tuned {
	int ci, cj;
	nbrt_kernel *v;     /* NULL: the kernel as loaded */
	char *origin;       /* for nbrt_variant_origin */
};

static int size_class(size_t n)
{
	int c = 0;
	for (; n >= 4; n /= 4)
		c++;
	return c;
}

int nbrt_set_tune(nbrt_kernel *k, double budget)
{
	if (!k)
		return -1;
	if (!(budget >= 0) || budget > 1e6)
		return nbrt_fail(k->rt, "tuning budget %g s: expected 0 to 1e6 "
		                 "seconds", budget);
	k->tune_budget = budget;
	return 0;
}

const char *nbrt_variant_origin(const nbrt_kernel *k)
{
	return k && k->origin ? k->origin : "defaults";
}

void nbrt_tune_free(nbrt_kernel *k)
{
	for (int i = 0; i < k->ntuned; i++) {
		nbrt_core_free(k->tuned[i].v);
		free(k->tuned[i].origin);
	}
	free(k->tuned);
	k->tuned = NULL;
	k->ntuned = 0;
}

/* The other path to this CPU: the host for an OpenCL CPU device, the
 * OpenCL CPU device for the host; none for GPUs and the interpreter. */
static nbrt *other_rt(nbrt_kernel *k)
{
	nbrt *rt = k->rt;
	if (rt->other || rt->other_tried)
		return rt->other;
	rt->other_tried = 1;
	const char *spec = rt->gpu ? NULL : rt->be->other;
	if (!spec)
		return NULL;
	char *err = NULL;
	rt->other = nbrt_core_open(spec, 0, &err);
	/* an OpenCL CPU device may be missing: then there is one path */
	if (rt->other && (rt->other->gpu || rt->other->be == rt->be)) {
		nbrt_core_close(rt->other);
		rt->other = NULL;
	}
	if (!rt->other)
		nbrt_note(rt, "tuner: no other path to this CPU (%s)",
		          err ? err : spec);
	free(err);
	return rt->other;
}

/* Whether an input or result is bound to an nbrt_array: the other path
 * cannot read the device's arrays (the host back end read their host
 * pointer, NULL: bin/nbody --tune on PoCL crashed), so it is no variant */
static int on_arrays(const nbrt_kernel *k)
{
	for (int v = 0; v < k->f->nvar; v++)
		if (k->b[v].arr)
			return 1;
	return 0;
}

static nbrt_kernel *load_variant(nbrt_kernel *k, const nbrt_variant *v)
{
	nbrt *rt = v->other ? on_arrays(k) ? NULL : other_rt(k) : k->rt;
	if (!rt)
		return NULL;
	nb_options o = k->opts;
	o.unroll_i = v->ui;
	o.unroll_j = v->uj;
	o.jsplit = v->split;
	o.given |= NB_GIVEN_UNROLL_I | NB_GIVEN_UNROLL_J | NB_GIVEN_JSPLIT;
	/* 0: the back end's own, as the defaults table means it */
	o.wg = v->wg;
	o.tile = v->tile;
	if (v->wg)
		o.given |= NB_GIVEN_WG;
	if (v->tile)
		o.given |= NB_GIVEN_TILE;
	o.split_warps = v->warps == 2;
	o.given |= NB_GIVEN_SPLIT_WARPS;
	nbrt_kernel *a = nbrt_core_load(rt, k->path, k->src, k->srclen, &o);
	if (!a) {
		char s[128];
		nbrt_variant_str(v, s, sizeof s);
		nbrt_note(k->rt, "tuner: %s: %s", s, nbrt_error(rt));
		return NULL;
	}
	/* the same variables in the same order, or it cannot stand in */
	if (a->f->nvar != k->f->nvar) {
		nbrt_core_free(a);
		return NULL;
	}
	return a;
}

/* What the kernel as loaded runs for ni x nj: the reference variant. */
static nbrt_variant default_variant(const nbrt_kernel *k, size_t ni,
                                    size_t nj)
{
	nbrt_variant v = {0};
	const nb_defaults *w = k->autosplit ? nbrt_wave(k, ni, nj) : NULL;
	if (w) { /* api.c's run_wave */
		v.ui = 1;
		v.uj = w->wave_uj;
		v.split = w->wave_split;
		v.wg = NBRT_WARP * w->wave_split;
		v.warps = 2;
		return v;
	}
	v.ui = k->f->unroll_i / (k->autosplit && nbrt_narrow(k, ni) ? 2 : 1);
	v.uj = k->f->unroll_j;
	v.split = k->autosplit ? 1 << nbrt_choose_split(k, ni) : k->f->jsplit;
	v.wg = k->opts.given & NB_GIVEN_WG ? k->opts.wg : 0;
	v.tile = k->opts.given & NB_GIVEN_TILE ? k->opts.tile : 0;
	v.warps = k->opts.split_warps ? 2 : 1;
	return v;
}

/* --- measuring ---------------------------------------------------------- */

typedef struct Tune {
	nbrt_kernel *k;
	size_t ni, nj;      /* the tuning run: Ni, and Nj cut to the budget */
	double start, budget;
	nbrt_slot *saved;   /* the caller's bindings */
	double **ref, **out;/* per RMEM variable: results, as doubles */
	double ref_rate;
	const char *wrong;  /* NBRT_TUNE_WRONG: a test's deliberately wrong
	                       variant (its text contains this) */
	int tried, rejected;
} Tune;

enum { M_OK, M_WRONG, M_FAILED };

static size_t values(const Tune *t, int v)
{
	return t->ni * (t->k->f->var[v].type == NB_DD ? 2 : 1);
}

/* The results of a run against the reference's: the largest difference
 * no more than 64 u sqrt(Nj) times the largest reference value (u the
 * unit roundoff of the result's precision): what summing Nj terms in
 * another order, or a function a few ulps off, may change. */
static int agrees(const Tune *t, double *err)
{
	const nb_iface *f = t->k->f;
	*err = 0;
	for (int v = 0; v < f->nvar; v++) {
		if (!t->out[v])
			continue;
		size_t n = values(t, v), step = f->var[v].type == NB_DD ? 2 : 1;
		double scale = 0, diff = 0;
		for (size_t e = 0; e < n; e += step) {
			double r = t->ref[v][e], c = t->out[v][e];
			double d = step == 2 ? (c - r) + (t->out[v][e + 1] -
			                                  t->ref[v][e + 1]) : c - r;
			if (!isfinite(r) != !isfinite(c) || !isnan(r) != !isnan(c))
				return 0;
			if (!isfinite(r))
				continue;
			if (fabs(r) > scale)
				scale = fabs(r);
			if (fabs(d) > diff)
				diff = fabs(d);
		}
		double tol = 64 * nb_prec_unit(f->var[v].type) *
		             sqrt((double)(t->nj > 1 ? t->nj : 1));
		double rel = scale > 0 ? diff / scale : diff;
		if (rel > *err)
			*err = rel;
		if (!(diff <= tol * scale))
			return 0;
	}
	return 1;
}

/* Runs variant a on the tuning data into t->out (or t->ref). */
static int run_into(Tune *t, nbrt_kernel *a, double **dst)
{
	nbrt_kernel *k = t->k;
	for (int v = 0; v < k->f->nvar; v++)
		if (dst[v])
			k->b[v].host = dst[v];
	return nbrt_run_variant(k, a, t->ni, t->nj);
}

/* Loads, checks and times variant v: M_OK with its rate, M_WRONG when
 * its results differ from the reference's, M_FAILED when it does not
 * build or run.  *keep receives the loaded kernel (else it is freed). */
static int measure(Tune *t, const nbrt_variant *v, int reference,
                   double *rate, double *err, nbrt_kernel **keep)
{
	nbrt_kernel *k = t->k;
	char s[128];
	nbrt_variant_str(v, s, sizeof s);
	*rate = 0;
	*err = 0;
	if (keep)
		*keep = NULL;
	nbrt_kernel *a = load_variant(k, v);
	if (!a)
		return M_FAILED;
	if (!reference)
		t->tried++;
	int status = M_FAILED;
	double **dst = reference ? t->ref : t->out;
	if (run_into(t, a, dst)) {
		nbrt_note(k->rt, "tuner: %s: %s", s, nbrt_error(a->rt));
		goto out;
	}
	int hooked = t->wrong && *t->wrong && strstr(s, t->wrong);
	if (hooked && !reference) /* the test's wrong candidate */
		for (int x = 0; x < k->f->nvar; x++)
			if (dst[x] && t->ni)
				dst[x][0] = dst[x][0] * 1.01 + 1;
	if (!reference && !agrees(t, err)) {
		t->rejected++;
		nbrt_note(k->rt, "tuner: %s: results differ from the default's "
		          "(%.3g of the largest): not a candidate", s, *err);
		status = M_WRONG;
		goto out;
	}
	/* the best of up to 3 runs after that first one, within the budget */
	double best = 0;
	for (int r = 0; r < 3; r++) {
		if (r > 0 && nbrt_now() - t->start > t->budget)
			break;
		if (run_into(t, a, t->out))
			goto out;
		double tk = k->tkern;
		if (tk > 0 && (best == 0 || tk < best))
			best = tk;
	}
	if (best <= 0)
		best = 1e-9;
	*rate = (double)t->ni * (double)t->nj / best;
	if (hooked)
		*rate *= 100; /* it would win, were it not checked */
	nbrt_note(k->rt, "tuner: %s: %.4g interactions/s", s, *rate);
	status = M_OK;
out:
	if (keep && status == M_OK)
		*keep = a;
	else
		nbrt_core_free(a);
	return status;
}

static int tune_begin(Tune *t, nbrt_kernel *k, size_t ni, size_t nj,
                      double budget)
{
	memset(t, 0, sizeof *t);
	t->k = k;
	/* the first 2^20 i-elements: as many work items as any device
	 * fills, and bounded copies of the results */
	t->ni = ni < ((size_t)1 << 20) ? ni : (size_t)1 << 20;
	t->nj = nj;
	t->budget = budget;
	t->start = nbrt_now();
	t->wrong = getenv("NBRT_TUNE_WRONG");
	int nv = k->f->nvar;
	t->saved = malloc(sizeof *t->saved * (size_t)(nv ? nv : 1));
	t->ref = calloc((size_t)nv + 1, sizeof *t->ref);
	t->out = calloc((size_t)nv + 1, sizeof *t->out);
	if (!t->saved || !t->ref || !t->out)
		return nbrt_fail(k->rt, "out of memory");
	memcpy(t->saved, k->b, sizeof *k->b * (size_t)nv);
	for (int v = 0; v < nv; v++) {
		if (k->f->var[v].role != NB_RMEM)
			continue;
		size_t n = values(t, v);
		t->ref[v] = malloc(sizeof(double) * (n ? n : 1));
		t->out[v] = malloc(sizeof(double) * (n ? n : 1));
		if (!t->ref[v] || !t->out[v])
			return nbrt_fail(k->rt, "out of memory: tuning needs %zu "
			                 "values a result", n);
		/* results as doubles, dd as pairs: the comparison's types */
		k->b[v].t = k->f->var[v].type == NB_DD ? NBRT_DD : NBRT_DOUBLE;
	}
	return 0;
}

static void tune_end(Tune *t)
{
	nbrt_kernel *k = t->k;
	if (t->saved)
		memcpy(k->b, t->saved, sizeof *k->b * (size_t)k->f->nvar);
	for (int v = 0; t->ref && t->out && v < k->f->nvar; v++) {
		free(t->ref[v]);
		free(t->out[v]);
	}
	free(t->saved);
	free(t->ref);
	free(t->out);
	k->last = NULL;
}

/* The reference at a tuning size that suits the budget: a first run of
 * about 2^22 interactions says how fast the device is; the tuning Nj
 * then makes one run about 1/40 of the budget (never more than Nj). */
static int reference(Tune *t, const nbrt_variant *def, size_t nj)
{
	size_t want = ((size_t)1 << 22) / t->ni;
	t->nj = want < 16 ? 16 : want;
	if (t->nj > nj)
		t->nj = nj;
	double rate, err;
	if (measure(t, def, 1, &rate, &err, NULL) != M_OK)
		return nbrt_fail(t->k->rt, "tuner: the default variant of %s "
		                 "does not run: %s", t->k->name,
		                 nbrt_error(t->k->rt));
	double per = t->budget / 40 * rate / (double)t->ni;
	size_t nj2 = per >= (double)nj ? nj : (size_t)per;
	if (nj2 > t->nj) {
		t->nj = nj2;
		if (measure(t, def, 1, &rate, &err, NULL) != M_OK)
			return -1;
	}
	t->ref_rate = rate;
	/* the budget is the candidates': the reference runs whatever it is */
	t->start = nbrt_now();
	return 0;
}

/* --- the candidates ------------------------------------------------------ */

enum { D_UI, D_UJ, D_SPLIT, D_WG, D_TILE, D_WARPS, ND };

/* The values each dimension takes on the kind of device the variant
 * runs on, 0-terminated; a dimension the user fixed is not varied. */
static const int *dim_values(const nbrt_kernel *k, const nbrt_variant *v,
                             int d)
{
	/* the split across warps on GPUs alone: it pays for a warp's one
	 * j read a step (NVIDIA's broadcast); a CPU's work items are not
	 * lanes of one read (docs/performance.md, "Split across warps") */
	static const int gpu[ND][6] = {
		{1, 2, 4, 8}, {1, 2, 4}, {1, 2, 4, 8, 16}, {64, 256},
		{-1, 256}, {1, 2},
	};
	static const int cpu[ND][6] = {
		{4, 8, 16, 32}, {1, 2, 4}, {0}, {64, 256}, {-1}, {0},
	};
	static const int host[ND][6] = {
		{4, 8, 16}, {1, 2, 4}, {0}, {0}, {0}, {0},
	};
	static const int dd[ND][6] = {{1, 2}, {1, 2}, {0}, {0}, {0}, {0}};
	static const unsigned bit[ND] = {
		NB_GIVEN_UNROLL_I, NB_GIVEN_UNROLL_J, NB_GIVEN_JSPLIT,
		NB_GIVEN_WG, NB_GIVEN_TILE, NB_GIVEN_SPLIT_WARPS,
	};
	static const int none[1] = {0};
	if (k->opts.given & bit[d])
		return none;
	const nbrt *rt = v->other ? k->rt->other : k->rt;
	if (!rt || rt->be->interp)
		return none;
	int host_path = rt->be->host;
	if (k->f->precision == NB_DD && (d == D_UI || d == D_UJ))
		return dd[d];
	if (host_path)
		return host[d];
	return rt->gpu ? gpu[d] : cpu[d];
}

static int *dim_of(nbrt_variant *v, int d)
{
	switch (d) {
	case D_UI: return &v->ui;
	case D_UJ: return &v->uj;
	case D_SPLIT: return &v->split;
	case D_WG: return &v->wg;
	case D_WARPS: return &v->warps;
	default: return &v->tile;
	}
}

/* The other path's own defaults, from its row of the table. */
static int other_default(nbrt_kernel *k, nbrt_variant *v)
{
	nbrt *o = on_arrays(k) ? NULL : other_rt(k);
	if (!o || (k->opts.given & (NB_GIVEN_UNROLL_I | NB_GIVEN_UNROLL_J)))
		return -1;
	const nb_defaults *r = nbrt_row(o, k->f->precision);
	if (!r)
		return -1;
	memset(v, 0, sizeof *v);
	v->other = 1;
	v->ui = r->unroll_i;
	v->uj = r->unroll_j;
	v->split = 1;
	v->warps = k->opts.split_warps ? 2 : 1; /* the user's, if given */
	return 0;
}

/* A candidate that changes dimension d to nothing the kernel does: a
 * layout of the split where there is no split (the same kernel). */
static int idle_dim(const nbrt_variant *v, int d)
{
	return d == D_WARPS && v->split < 2;
}

static int same(const nbrt_variant *a, const nbrt_variant *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* Coordinate search from the default: the other path first, then each
 * dimension in turn, keeping the best so far, while the budget lasts
 * (the other path is tried whatever the budget: it is one candidate). */
static int search(Tune *t, nbrt_variant *best, double *best_rate,
                  nbrt_kernel **best_k)
{
	nbrt_variant seen[64];
	int nseen = 0;
	seen[nseen++] = *best;
	nbrt_variant cand;
	double rate, err;
	nbrt_kernel *a;
	if (other_default(t->k, &cand) == 0 && nseen < 64) {
		seen[nseen++] = cand;
		if (measure(t, &cand, 0, &rate, &err, &a) == M_OK) {
			if (rate > *best_rate) {
				nbrt_core_free(*best_k);
				*best_k = a;
				*best = cand;
				*best_rate = rate;
			} else {
				nbrt_core_free(a);
			}
		}
	}
	/* the j-split first: on a GPU it decides the most (the H200's
	 * sweep), elsewhere it has no values; its layout once the unrolling
	 * is chosen (across warps won at one i-element a work item, lost
	 * at two: docs/performance.md, "Split across warps") */
	static const int order[ND] = {D_SPLIT, D_UI, D_UJ, D_WARPS, D_WG,
	                              D_TILE};
	for (int o = 0; o < ND; o++) {
		int d = order[o];
		nbrt_variant base = *best;
		for (const int *x = dim_values(t->k, &base, d); *x; x++) {
			if (nbrt_now() - t->start > t->budget)
				return 0;
			cand = base;
			*dim_of(&cand, d) = *x;
			if (idle_dim(&cand, d))
				continue;
			int dup = 0;
			for (int s = 0; s < nseen && !dup; s++)
				dup = same(&seen[s], &cand);
			if (dup || nseen == 64)
				continue;
			seen[nseen++] = cand;
			if (measure(t, &cand, 0, &rate, &err, &a) != M_OK)
				continue;
			if (rate > *best_rate) {
				nbrt_core_free(*best_k);
				*best_k = a;
				*best = cand;
				*best_rate = rate;
			} else {
				nbrt_core_free(a);
			}
		}
	}
	return 0;
}

/* --- the cache and the variant of a run ------------------------------- */

/* The key of size class (ci, cj)'s entry into *key (the caller frees
 * key->s), and the entry's path. */
static char *entry_path(nbrt_kernel *k, int ci, int cj, nbrt_key *key)
{
	char opts[512], cls[32];
	nb_options_str(&k->opts, opts, sizeof opts);
	snprintf(cls, sizeof cls, "%d %d", ci, cj);
	const char *prec = nb_prec_name(k->f->precision);
	if (nbrt_key_add(key, "nbcc-tune", 9) ||
	    nbrt_key_add(key, NBCC_VERSION, strlen(NBCC_VERSION)) ||
	    nbrt_key_add(key, k->rt->ident, strlen(k->rt->ident)) ||
	    nbrt_key_add(key, k->src, k->srclen) ||
	    nbrt_key_add(key, opts, strlen(opts)) ||
	    nbrt_key_add(key, prec, strlen(prec)) ||
	    nbrt_key_add(key, cls, strlen(cls)))
		return NULL;
	return nbrt_cache_path(k->rt, key, ".tune");
}

static int remember(nbrt_kernel *k, int ci, int cj, nbrt_kernel *v,
                    const char *origin)
{
	struct nbrt_tuned *n = realloc(k->tuned, sizeof *n *
	                               (size_t)(k->ntuned + 1));
	if (!n) {
		nbrt_core_free(v);
		return nbrt_fail(k->rt, "out of memory");
	}
	k->tuned = n;
	/* where it runs, when that is the other path to this CPU */
	char *o = v && v->rt != k->rt ?
	          nbrt_aprintf("%s, on %s", origin, v->rt->name) : strdup(origin);
	if (!o) {
		nbrt_core_free(v);
		return nbrt_fail(k->rt, "out of memory");
	}
	n[k->ntuned++] = (struct nbrt_tuned){ci, cj, v, o};
	k->origin = o;
	return 0;
}

static nbrt_kernel *tune_now(nbrt_kernel *k, size_t ni, size_t nj,
                             const char *path, const nbrt_key *key, int *err)
{
	Tune t;
	nbrt_kernel *best_k = NULL;
	nbrt_variant best = default_variant(k, ni, nj);
	*err = -1;
	if (tune_begin(&t, k, ni, nj, k->tune_budget) ||
	    reference(&t, &best, nj))
		goto out;
	double rate = t.ref_rate;
	best_k = load_variant(k, &best);
	if (!best_k || search(&t, &best, &rate, &best_k))
		goto out;
	char s[128];
	nbrt_variant_str(&best, s, sizeof s);
	fprintf(stderr, "nbrt: tuned %s for Ni ~ %zu, Nj ~ %zu on %s: %s%s%s, "
	        "%.3g interactions/s, %.2fx the default (%d candidate%s in "
	        "%.1f s, %d rejected: results differ from the default's)\n",
	        k->name, ni, nj, k->rt->name, s, best.other ? " on " : "",
	        best.other ? k->rt->other->name : "", rate, rate / t.ref_rate,
	        t.tried, t.tried == 1 ? "" : "s", nbrt_now() - t.start,
	        t.rejected);
	char *text = nbrt_tunefile_write(&best, rate, rate / t.ref_rate);
	if (text)
		nbrt_cache_put(k->rt, path, key, text, strlen(text));
	free(text);
	*err = 0;
out:
	tune_end(&t);
	if (*err) {
		nbrt_core_free(best_k);
		return NULL;
	}
	return best_k;
}

nbrt_kernel *nbrt_tuned_variant(nbrt_kernel *k, size_t ni, size_t nj,
                                int *err)
{
	*err = 0;
	int ci = size_class(ni), cj = size_class(nj);
	for (int i = 0; i < k->ntuned; i++)
		if (k->tuned[i].ci == ci && k->tuned[i].cj == cj) {
			nbrt_kernel *v = k->tuned[i].v;
			if (v && v->rt != k->rt && on_arrays(k))
				return NULL; /* chosen before arrays were bound */
			k->origin = k->tuned[i].origin;
			return v;
		}
	/* read as every switch is: NBRT_TUNE=off took the winners */
	long on = 1;
	if (nbrt_env_int(k->rt, "NBRT_TUNE", 0, 1, &on) < 0) {
		*err = 1;
		return NULL;
	}
	if (nj == 0 || !on || k->rt->be->interp)
		return NULL;
	nbrt_key key = {0};
	char *path = entry_path(k, ci, cj, &key);
	nbrt_kernel *v = NULL;
	const char *origin = "defaults";
	if (k->tune_budget > 0) {
		v = tune_now(k, ni, nj, path, &key, err);
		origin = "tuned now";
	} else {
		size_t len;
		char *data = nbrt_cache_get(k->rt, path, &key, &len);
		nbrt_variant var;
		double rate;
		if (data && nbrt_tunefile_read(data, len, &var, &rate) == 0) {
			v = load_variant(k, &var);
			origin = "tuned (cache)";
		} else if (data) {
			nbrt_note(k->rt, "tuner: %s: damaged or foreign entry "
			          "ignored", nb_esc(path));
		}
		free(data);
		if (!v)
			origin = "defaults";
	}
	free(path);
	free(key.s);
	if (*err)
		return NULL;
	if (remember(k, ci, cj, v, origin)) {
		*err = -1;
		return NULL;
	}
	return v;
}

/* --- the sweep ------------------------------------------------------------ */

/* A dimension's values, or the one it has when it is not varied. */
static int grid(const int *x, int dflt, int out[8])
{
	int n = 0;
	for (; *x && n < 8; x++)
		out[n++] = *x;
	if (!n)
		out[n++] = dflt;
	return n;
}

static void sweep_row(Tune *t, const nbrt_variant *v, FILE *out)
{
	char s[128];
	double rate, err;
	nbrt_variant_str(v, s, sizeof s);
	if (v->other && t->k->rt->other)
		snprintf(s + strlen(s), sizeof s - strlen(s), " (%s)",
		         t->k->rt->other->be->target);
	int m = measure(t, v, 0, &rate, &err, NULL);
	if (m == M_OK)
		fprintf(out, "| %s | %.3g | %.2f | ok (%.1g) |\n", s, rate,
		        rate / t->ref_rate, err);
	else if (m == M_WRONG)
		fprintf(out, "| %s | | | WRONG (%.1g) |\n", s, err);
	else
		fprintf(out, "| %s | | | does not build or run |\n", s);
	fflush(out);
}

int nbrt_sweep(nbrt_kernel *k, size_t ni, size_t nj, FILE *out)
{
	if (!k)
		return -1;
	/* before the variants' runs, whose table would go to NULL */
	if (!out)
		return nbrt_fail(k->rt, "nbrt_sweep: nowhere (NULL) to print the "
		                 "table");
	if (!k->src)
		return nbrt_fail(k->rt, "%s: --sweep needs a .nbl (variants are "
		                 "compiled from it)", k->name);
	if (ni == 0 || nj == 0)
		return nbrt_fail(k->rt, "--sweep needs Ni and Nj above 0");
	Tune t;
	nbrt_variant def = default_variant(k, ni, nj);
	int r = -1;
	/* each variant's runs take about 1/40 of 20 s */
	if (tune_begin(&t, k, ni, nj, 20) || reference(&t, &def, nj))
		goto out;
	t.budget = 1e9; /* every variant, however long */
	char s[128];
	nbrt_variant_str(&def, s, sizeof s);
	fprintf(out, "%s on %s, Ni = %zu, Nj = %zu (default: %s, %.3g "
	        "interactions/s)\n\n| variant | interactions/s | vs default "
	        "| check (difference) |\n| --- | --- | --- | --- |\n",
	        k->name, k->rt->name, ni, t.nj, s, t.ref_rate);
	/* own path: the unrolling grid, then each launch dimension alone;
	 * then the other path to this CPU, its own grid */
	nbrt_variant od;
	int paths = other_default(k, &od) == 0 ? 2 : 1;
	for (int p = 0; p < paths; p++) {
		nbrt_variant base = p ? od : def, v;
		int ui[8], uj[8];
		int nui = grid(dim_values(k, &base, D_UI), base.ui, ui);
		int nuj = grid(dim_values(k, &base, D_UJ), base.uj, uj);
		for (int a = 0; a < nui; a++)
			for (int b = 0; b < nuj; b++) {
				v = base;
				v.ui = ui[a];
				v.uj = uj[b];
				sweep_row(&t, &v, out);
			}
		for (int d = D_SPLIT; d < ND && !p; d++)
			for (const int *x = dim_values(k, &def, d); *x; x++) {
				v = def;
				*dim_of(&v, d) = *x;
				if (!same(&v, &def) && !idle_dim(&v, d))
					sweep_row(&t, &v, out);
			}
	}
	r = 0;
out:
	tune_end(&t);
	return r;
}
