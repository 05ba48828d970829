/* api.c: the runtime's API (nbrt.h), the top of its layers: devices and
 * kernels through the running layer (core.c), binding by name, and each
 * run's variant: the tuner's (tune.c) for its size class, else, for a .nbl
 * on a GPU whose j-split was left open, the split that suits its Ni, else
 * the kernel as loaded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "tune.h"

/* --- devices ---------------------------------------------------------- */

int nbrt_target_device(const char *target, const char **spec,
                       const char **where)
{
	const struct nbrt_backend *be = nbrt_backend_of(target);
	if (!be)
		return -1;
	if (spec)
		*spec = be->spec;
	if (where)
		*where = be->where;
	return 0;
}

const char *nbrt_spec_target(const char *spec)
{
	const struct nbrt_backend *be = nbrt_backend_named(spec);
	return be ? be->target : nbrt_cl_backend.target;
}

int nbrt_target_interpreted(const char *target)
{
	const struct nbrt_backend *be = nbrt_backend_of(target);
	return be ? be->interp : -1;
}

nbrt *nbrt_open(const char *spec, char **err)
{
	return nbrt_core_open(spec, 0, err);
}

nbrt *nbrt_open_nth(const char *spec, int nth, char **err)
{
	/* a negative nth matched no device's place in the count and fell
	 * back to the first, silently */
	if (nth < 0) {
		if (err) {
			char m[96];
			snprintf(m, sizeof m, "nbrt_open_nth: nth %d: it must be 0 or "
			         "more", nth);
			*err = strdup(m);
		}
		return NULL;
	}
	return nbrt_core_open(spec, nth, err);
}

void nbrt_close(nbrt *rt)
{
	nbrt_core_close(rt);
}

const char *nbrt_device_name(const nbrt *rt)
{
	return rt && rt->name ? rt->name : "";
}

int nbrt_is_host(const nbrt *rt)
{
	return rt && rt->be->host;
}

const char *nbrt_target(const nbrt *rt)
{
	return rt ? rt->be->target : "";
}

const char *nbrt_cache_dir(const nbrt *rt)
{
	return rt ? rt->cache : NULL;
}

/* Only OpenCL has devices to list: the host is always there. */
int nbrt_list(FILE *out)
{
	/* as nbrt_describe: the listing went to fprintf(NULL, ...) */
	if (!out)
		return -1;
	return nbrt_cl_backend.list(out);
}

/* The limits that decide what runs where, for tests and users alike: a
 * test that needs a kernel too big for the device reads local_mem_size
 * here rather than assuming one driver's value. */
int nbrt_describe(const nbrt *rt, FILE *out)
{
	if (!rt || !out)
		return -1;
	nbrt_put_str(out, "device", rt->name);
	return rt->be->describe(rt, out);
}

/* --- loading --------------------------------------------------------- */

nbrt_kernel *nbrt_load_source(nbrt *rt, const char *name, const char *src,
                              size_t len, const nb_options *opts)
{
	nbrt_kernel *k = nbrt_core_load(rt, name, src, len, opts);
	if (!k)
		return NULL;
	/* left open, the j-split is chosen per run where the defaults table
	 * says (see nbrt_choose_split); NBRT_AUTO_SPLIT=1 or 0 forces it on
	 * or off, for dense and block-sparse runs (ranges.c) alike */
	long as = -1;
	if (nbrt_env_int(rt, "NBRT_AUTO_SPLIT", 0, 1, &as) < 0) {
		nbrt_free(k);
		return NULL;
	}
	const nb_defaults *row = nbrt_row(rt, k->f->precision);
	int forced = as >= 0;
	k->splitfree = !rt->be->host && k->src && k->f->jsplit == 1 &&
	               !(opts && (opts->given & NB_GIVEN_JSPLIT)) && as != 0;
	k->autosplit = k->splitfree &&
	               (forced || (row && row->split_items > 0));
	return k;
}

nbrt_kernel *nbrt_load(nbrt *rt, const char *path, const nb_options *opts)
{
	if (!rt)
		return NULL;
	if (!path) {
		nbrt_fail(rt, "nbrt_load: no path (NULL)");
		return NULL;
	}
	char err[512];
	size_t len;
	char *src = nb_read_file(path, &len, err, sizeof err);
	if (!src) {
		nbrt_fail(rt, "%s", err);
		return NULL;
	}
	nbrt_kernel *k = nbrt_load_source(rt, path, src, len, opts);
	free(src);
	return k;
}

void nbrt_free(nbrt_kernel *k)
{
	if (!k)
		return;
	for (int n = 0; n < 3; n++)
		for (int l = 0; l < NBRT_SPLIT_LEVELS; l++) {
			nbrt_core_free(n < 2 ? k->alt[n][l] : NULL);
			nbrt_core_free(k->ranges[n][l]);
		}
	nbrt_core_free(k->wave);
	nbrt_core_free(k->newton_alt);
	nbrt_tune_free(k);
	nbrt_core_free(k);
}

const nb_iface *nbrt_iface(const nbrt_kernel *k)
{
	if (!k)
		return NULL;
	return k->last ? k->last->f : k->f;
}

int nbrt_cache_hit(const nbrt_kernel *k)
{
	return k ? k->cache_hit : 0;
}

/* --- binding ----------------------------------------------------------- */

/* "xi, yi, ..." for messages. */
static char *names(const nb_iface *f)
{
	size_t n = 1;
	for (int v = 0; v < f->nvar; v++)
		n += strlen(f->var[v].name) + 16;
	char *s = malloc(n), *p = s;
	if (!s)
		return NULL;
	*p = 0;
	for (int v = 0; v < f->nvar; v++)
		p += sprintf(p, "%s%s %s", v ? ", " : "",
		             nb_role_name(f->var[v].role), f->var[v].name);
	return s;
}

static int find(nbrt_kernel *k, const char *name)
{
	int v = name ? nb_iface_find(k->f, name) : -1;
	if (v < 0) {
		char *all = names(k->f);
		nbrt_fail(k->rt, "kernel %s has no variable '%s' (it has %s)",
		          k->f->kernel, nb_esc(name), all ? all : "?");
		free(all);
	}
	return v;
}

int nbrt_bind(nbrt_kernel *k, const char *name, nbrt_type t, void *host)
{
	if (!k)
		return -1;
	int v = find(k, name);
	if (v < 0)
		return -1;
	if (k->f->var[v].role == NB_CONST)
		return nbrt_fail(k->rt, "kernel %s: '%s' is a CONST, a scalar: "
		                 "set it with nbrt_set_const", k->f->kernel, name);
	if (t != NBRT_FLOAT && t != NBRT_DOUBLE && t != NBRT_DD)
		return nbrt_fail(k->rt, "kernel %s: bad host type %d for '%s'",
		                 k->f->kernel, (int)t, name);
	k->b[v].set = 1;
	k->b[v].t = t;
	k->b[v].host = host;
	k->b[v].arr = NULL;
	return 0;
}

int nbrt_bind_array(nbrt_kernel *k, const char *name, nbrt_array *a)
{
	if (!k)
		return -1;
	/* the name is not yet known to be the kernel's: escaped, as find()
	 * escapes it (control bytes reached the terminal as they were) */
	if (!a)
		return nbrt_fail(k->rt, "kernel %s: '%s' bound to no array",
		                 k->f->kernel, nb_esc(name));
	if (a->rt != k->rt)
		return nbrt_fail(k->rt, "kernel %s: the array for '%s' belongs to "
		                 "another device", k->f->kernel, nb_esc(name));
	if (nbrt_bind(k, name, NBRT_DOUBLE, a->host))
		return -1;
	k->b[nb_iface_find(k->f, name)].arr = a;
	return 0;
}

int nbrt_set_const(nbrt_kernel *k, const char *name, double hi, double lo)
{
	if (!k)
		return -1;
	int v = find(k, name);
	if (v < 0)
		return -1;
	const nb_var *x = &k->f->var[v];
	if (x->role != NB_CONST)
		return nbrt_fail(k->rt, "kernel %s: '%s' is %s, an array: bind "
		                 "it with nbrt_bind", k->f->kernel, name,
		                 nb_role_name(x->role));
	/* a NaN makes every result NaN, silently: never what was meant */
	if (isnan(hi) || isnan(lo))
		return nbrt_fail(k->rt, "kernel %s: CONST %s set to NaN", k->f->kernel,
		                 name);
	/* so do infinities of both signs, whose sum (the value of a CONST
	 * not of dd, and what a dd kernel reads as hi + lo) is NaN */
	if (isnan(hi + lo))
		return nbrt_fail(k->rt, "kernel %s: CONST %s set to %g + %g, which "
		                 "is NaN", k->f->kernel, name, hi, lo);
	/* and a dd's infinite low part under a finite high part: its sum
	 * is infinite, but the dd arithmetic's error terms turn it into NaN
	 * (an infinite high part is dd's infinity, whatever the low part) */
	if (x->type == NB_DD && isfinite(hi) && !isfinite(lo))
		return nbrt_fail(k->rt, "kernel %s: CONST %s set to %g + %g: a dd's "
		                 "low part must be finite where its high part is "
		                 "(the kernel would compute NaN)", k->f->kernel, name,
		                 hi, lo);
	k->b[v].set = 1;
	if (x->type == NB_DD) {
		k->b[v].hi = hi;
		k->b[v].lo = lo;
	} else {
		k->b[v].hi = hi + lo;
		k->b[v].lo = 0;
	}
	return 0;
}

/* --- running ------------------------------------------------------------ */

/* Runs the variant with split 2^l, at half the i-unroll if narrow,
 * loading it the first time; the bindings are the caller's. */
static int run_split(nbrt_kernel *k, int l, int narrow, size_t ni, size_t nj)
{
	nbrt_kernel *a = k->alt[narrow][l];
	if (!a) {
		nb_options o = k->opts;
		o.jsplit = 1 << l;
		o.given |= NB_GIVEN_JSPLIT;
		if (narrow) {
			o.unroll_i = k->f->unroll_i / 2;
			o.given |= NB_GIVEN_UNROLL_I;
		}
		a = nbrt_core_load(k->rt, k->path, k->src, k->srclen, &o);
		if (!a)
			return -1;
		k->alt[narrow][l] = a;
		nbrt_note(k->rt, "%s: j-split %d for Ni = %zu%s", k->name, 1 << l,
		          ni, narrow ? ", at half the i-unroll" : "");
	}
	return nbrt_run_variant(k, a, ni, nj);
}

/* Runs the shape across warps of the row nbrt_wave gave, loading it the
 * first time: 1 x wave_uj, split wave_split ways, a warp a split
 * position. */
static int run_wave(nbrt_kernel *k, const nb_defaults *row, size_t ni,
                    size_t nj)
{
	if (!k->wave) {
		nb_options o = k->opts;
		o.unroll_i = 1;
		o.unroll_j = row->wave_uj;
		o.jsplit = row->wave_split;
		o.split_warps = 1;
		o.wg = NBRT_WARP * row->wave_split;
		o.given |= NB_GIVEN_UNROLL_I | NB_GIVEN_UNROLL_J | NB_GIVEN_JSPLIT |
		           NB_GIVEN_SPLIT_WARPS | NB_GIVEN_WG;
		k->wave = nbrt_core_load(k->rt, k->path, k->src, k->srclen, &o);
		if (!k->wave)
			return -1;
		nbrt_note(k->rt, "%s: across warps, 1 x %d split %d, for Ni = %zu "
		          "(one wave of groups)", k->name, row->wave_uj,
		          row->wave_split, ni);
	}
	return nbrt_run_variant(k, k->wave, ni, nj);
}

static int run_dense(nbrt_kernel *k, size_t ni, size_t nj);

int nbrt_run(nbrt_kernel *k, size_t ni, size_t nj)
{
	if (!k)
		return -1;
	k->pairs = 0;
	int r = run_dense(k, ni, nj);
	if (!r)
		k->pairs = (double)ni * (double)nj;
	return r;
}

static int run_dense(nbrt_kernel *k, size_t ni, size_t nj)
{
	k->last = NULL;
	k->origin = "defaults";
	if (k->src && ni > 0) {
		int e;
		nbrt_kernel *v = nbrt_tuned_variant(k, ni, nj, &e);
		if (e)
			return -1;
		if (v)
			return nbrt_run_variant(k, v, ni, nj);
	}
	const nb_defaults *wave = k->autosplit ? nbrt_wave(k, ni, nj) : NULL;
	if (wave)
		return run_wave(k, wave, ni, nj);
	if (k->autosplit && ni > 0) {
		int l = nbrt_choose_split(k, ni), n = nbrt_narrow(k, ni);
		if (l > 0 || n)
			return run_split(k, l, n, ni, nj);
	}
	return nbrt_core_run(k, ni, nj);
}

double nbrt_kernel_time(const nbrt_kernel *k)
{
	return k ? k->tkern : 0;
}

double nbrt_total_time(const nbrt_kernel *k)
{
	return k ? k->ttotal : 0;
}

int nbrt_set_queue(nbrt *rt, int on)
{
	if (!rt)
		return -1;
	if (on < 0 || on > 2)
		return nbrt_fail(rt, "nbrt_set_queue: %d: 0 (off), 1 (queued, "
		                 "timed) or 2 (queued, untimed)", on);
	if (on && (!rt->devarrays || !rt->be->wait))
		return nbrt_fail(rt, "queued runs need arrays kept in the device's "
		                 "memory; %s keeps them in the host's, and its "
		                 "runs end before they return", rt->name);
	rt->queue = on;
	return 0;
}

int nbrt_wait(nbrt *rt, double t[2])
{
	if (t)
		t[0] = t[1] = 0;
	return !rt ? -1 : rt->be->wait ? rt->be->wait(rt, t) : 0;
}

long nbrt_launches(const nbrt_kernel *k)
{
	return k ? k->launches : 0;
}
