/* core.c: the running layer (core.h).  Opens a device on the back end its
 * spec names (nbrt_host.c, cl/ or nbrt_il.c, chosen once), loads a
 * kernel (a .nbl compiled in process, or the interface of a generated
 * file read back) and runs it as loaded on its bindings; the tuner and the
 * API (api.c) above it choose which variant runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core.h"

/* --- devices ---------------------------------------------------------- */

/* The back ends; OpenCL, first, serves every spec the others do not name. */
static const struct nbrt_backend *const backends[] = {
	&nbrt_cl_backend, &nbrt_host_backend, &nbrt_il_backend,
};
#define NBACKEND (sizeof backends / sizeof backends[0])

const struct nbrt_backend *nbrt_backend_named(const char *spec)
{
	for (size_t i = 0; spec && i < NBACKEND; i++)
		if (backends[i]->spec &&
		    (strcasecmp(spec, backends[i]->spec) == 0 ||
		     strcasecmp(spec, backends[i]->target) == 0))
			return backends[i];
	return NULL;
}

const struct nbrt_backend *nbrt_backend_of(const char *target)
{
	for (size_t i = 0; target && i < NBACKEND; i++)
		if (strcmp(target, backends[i]->target) == 0)
			return backends[i];
	return NULL;
}

/* NBRT_DEVICE_CLASS=CLASS: the defaults table's row of CLASS in place
 * of the device's own, for the code compiled and for the runtime's
 * choices by row (Newton's newton_min above all), so that a test on
 * PoCL can take the gpu-nvidia row's; a class without a row for the
 * back end's target is refused, since the table would quietly fall
 * back to another. */
static int set_class(nbrt *rt)
{
	const char *c = getenv("NBRT_DEVICE_CLASS");
	if (!c || !*c)
		return 0;
	if (!nb_defaults_class_of(rt->be->target, c))
		return nbrt_fail(rt, "NBRT_DEVICE_CLASS='%s': the defaults table "
		                 "has no row of that class for %s (%s)", nb_esc(c),
		                 rt->be->target, rt->name ? rt->name : "the device");
	char *d = strdup(c);
	if (!d)
		return nbrt_fail(rt, "out of memory");
	nbrt_note(rt, "NBRT_DEVICE_CLASS: class %s for %s, not %s", d,
	          rt->name ? rt->name : "the device", rt->devclass);
	free(rt->devclass);
	rt->devclass = d;
	return 0;
}

nbrt *nbrt_core_open(const char *spec, int nth, char **err)
{
	if (err)
		*err = NULL;
	nbrt *rt = calloc(1, sizeof *rt);
	if (!rt) {
		if (err)
			*err = strdup("out of memory");
		return NULL;
	}
	const char *v = getenv("NBRT_VERBOSE");
	rt->verbose = v && *v && strcmp(v, "0") != 0;
	/* read as every switch is: NBRT_CACHE=off left the cache on */
	long cache = 1;
	if (nbrt_env_int(rt, "NBRT_CACHE", 0, 1, &cache) < 0) {
		if (err)
			*err = strdup(nbrt_error(rt));
		nbrt_core_close(rt);
		return NULL;
	}
	rt->cache = cache ? nbrt_cache_choose() : NULL;
	rt->nth = nth < 0 ? 0 : nth;
	if (!spec || !*spec)
		spec = getenv("NBRT_DEVICE");
	if (spec && !*spec)
		spec = NULL;
	rt->be = nbrt_backend_named(spec);
	if (!rt->be)
		rt->be = &nbrt_cl_backend;
	int r = rt->be->open(rt, spec);
	if (r == 1) {
		nbrt_note(rt, "no OpenCL device: using the host");
		rt->be->close(rt);
		rt->be = &nbrt_host_backend;
		r = rt->be->open(rt, NULL);
	}
	if (r) {
		if (err)
			*err = strdup(nbrt_error(rt));
		nbrt_core_close(rt);
		return NULL;
	}
	/* NBRT_QUEUE=1 or 2: queued runs from the start (nbrt_set_queue), for
	 * a program that does not ask, such as bin/nbody's leap-frog on
	 * device arrays; where the device has no arrays of its own, nothing
	 * to queue */
	long queue = 0;
	if (nbrt_env_int(rt, "NBRT_QUEUE", 0, 2, &queue) < 0) {
		if (err)
			*err = strdup(nbrt_error(rt));
		nbrt_core_close(rt);
		return NULL;
	}
	rt->queue = rt->devarrays && rt->be->wait ? (int)queue : 0;
	/* a device names itself: what it says reaches terminals escaped */
	char *shown = rt->name ? strdup(nb_esc(rt->name)) : NULL;
	if (shown) {
		free(rt->name);
		rt->name = shown;
	}
	/* back ends without classes of their own: the host by its vector
	 * unit, the interpreter one class */
	if (!rt->devclass)
		rt->devclass = rt->be->host ? nbrt_aprintf("host-%s", nbrt_isa()) :
		               strdup("");
	if (set_class(rt) < 0) {
		if (err)
			*err = strdup(nbrt_error(rt));
		nbrt_core_close(rt);
		return NULL;
	}
	if (!rt->ident && rt->devclass)
		rt->ident = nbrt_aprintf("%s\n%s", rt->name ? rt->name : "",
		                         rt->devclass);
	if (!rt->devclass || !rt->ident) {
		if (err)
			*err = strdup("out of memory");
		nbrt_core_close(rt);
		return NULL;
	}
	nbrt_note(rt, "device %s (class %s); cache %s", rt->name, rt->devclass,
	          rt->cache ? nb_esc(rt->cache) : "off");
	return rt;
}

void nbrt_core_close(nbrt *rt)
{
	if (!rt)
		return;
	if (rt->be)
		rt->be->close(rt);
	nbrt_core_close(rt->other);
	free(rt->devclass);
	free(rt->ident);
	free(rt->name);
	free(rt->err);
	free(rt->cache);
	free(rt);
}

/* --- loading --------------------------------------------------------- */

/* A file nbcc wrote (its interface in the header), or a .nbl to compile:
 * the compiler's rule, which the Python package asks too. */
static int is_generated(const char *name, const char *src, size_t len)
{
	return nb_is_generated(name, src, len);
}

/* Compiles a .nbl for the device; diagnostics go into the message. */
static int compile(nbrt_kernel *k, const char *src, size_t len,
                   const nb_options *opts, nb_output *out)
{
	nbrt *rt = k->rt;
	nb_options o;
	if (opts)
		o = *opts;
	else
		nb_options_init(&o);
	o.target = rt->be->target;
	/* the back end picks its unrolling for the kind of device: its row
	 * of the defaults table */
	if (!rt->be->host && !rt->gpu)
		o.cpu = 1;
	if (!o.devclass && *rt->devclass)
		o.devclass = rt->devclass;
	char *text = NULL;
	size_t tlen = 0;
	FILE *diag = open_memstream(&text, &tlen);
	if (!diag)
		return nbrt_fail(rt, "%s: open_memstream: %s", k->name,
		                 strerror(errno));
	int r = nb_compile(k->path, src, len, &o, "code", diag, out);
	fclose(diag);
	while (tlen && text[tlen - 1] == '\n')
		text[--tlen] = 0;
	if (r || !out->code || !out->iface) {
		nbrt_fail(rt, "cannot compile %s:\n%s", k->name,
		          tlen ? text : "(no message)");
		free(text);
		return -1;
	}
	if (tlen)
		fprintf(stderr, "%s\n", text); /* warnings */
	free(text);
	k->f = out->iface;
	out->iface = NULL;
	return 0;
}

static int check_target(nbrt_kernel *k)
{
	nbrt *rt = k->rt;
	const char *t = k->f->target;
	/* the name becomes a symbol and a file name: nothing else goes */
	if (!nb_is_ident(k->f->kernel))
		return nbrt_fail(rt, "%s: kernel name '%s' is not an identifier",
		                 k->name, k->f->kernel);
	if (strcmp(t, rt->be->target) == 0)
		return 0;
	const struct nbrt_backend *kb = nbrt_backend_of(t);
	if (!kb)
		return nbrt_fail(rt, "%s: nbrt cannot run target '%s' kernels",
		                 k->name, t);
	/* between two languages the message names both (the host is one
	 * device, where; an OpenCL device goes by its name) */
	const struct nbrt_backend *be = rt->be;
	if (kb->lang && be->lang) {
		const char *a = strchr("AEIOU", kb->lang[0]) ? "an" : "a";
		if (be->host)
			return nbrt_fail(rt, "%s is %s %s kernel, but %s device runs "
			                 "%s kernels: load the .nbl, or compile it "
			                 "with --target=%s (-o K%s)", k->name, a,
			                 kb->lang, be->where, be->lang, be->target,
			                 be->ext);
		return nbrt_fail(rt, "%s is %s %s kernel, but %s is %s: load the "
		                 ".nbl, or compile it with --target=%s (-o K%s)",
		                 k->name, a, kb->lang, rt->name, be->where,
		                 be->target, be->ext);
	}
	return nbrt_fail(rt, "%s is a target %s kernel, which runs on %s%s%s%s, "
	                 "but %s runs target %s kernels: load the .nbl, or "
	                 "compile it with --target=%s", k->name, t, kb->where,
	                 kb->spec ? " (device " : "", kb->spec ? kb->spec : "",
	                 kb->spec ? ")" : "", rt->name, rt->be->target,
	                 rt->be->target);
}

nbrt_kernel *nbrt_core_load(nbrt *rt, const char *name, const char *src,
                            size_t len, const nb_options *opts)
{
	if (!rt)
		return NULL;
	if (!src && len) {
		nbrt_fail(rt, "nbrt_load_source: no source (NULL) of %zu bytes",
		          len);
		return NULL;
	}
	if (!src)
		src = ""; /* an empty source, refused as one */
	if (!name)
		name = "-";
	nbrt_kernel *k = calloc(1, sizeof *k);
	if (!k || !(k->name = strdup(nb_esc(name))) ||
	    !(k->path = strdup(name))) {
		if (k)
			free(k->name);
		free(k);
		nbrt_fail(rt, "out of memory");
		return NULL;
	}
	k->rt = rt;
	nb_output out;
	memset(&out, 0, sizeof out);
	const char *code = src;
	size_t clen = len;
	int generated = is_generated(name, src, len);
	if (generated) {
		char e[256];
		k->f = nb_iface_parse(src, len, e, sizeof e);
		if (!k->f) {
			nbrt_fail(rt, "%s: %s", name, e);
			goto bad;
		}
	} else {
		if (compile(k, src, len, opts, &out))
			goto bad;
		code = out.code;
		clen = out.len;
	}
	if (check_target(k))
		goto bad;
	k->b = calloc((size_t)k->f->nvar + 1, sizeof *k->b);
	if (!k->b) {
		nbrt_fail(rt, "out of memory");
		goto bad;
	}
	if (rt->be->load(k, code, clen))
		goto bad;
	nb_output_free(&out);
	/* a .nbl keeps its source: the tuner and the j-split compile
	 * variants of it */
	if (!generated) {
		k->src = malloc(len + 1);
		if (!k->src) {
			nbrt_fail(rt, "out of memory");
			goto bad;
		}
		memcpy(k->src, src, len);
		k->src[len] = 0;
		k->srclen = len;
		if (opts)
			k->opts = *opts;
		else
			nb_options_init(&k->opts);
	}
	return k;
bad:
	nb_output_free(&out);
	nbrt_core_free(k);
	return NULL;
}

void nbrt_core_free(nbrt_kernel *k)
{
	if (!k)
		return;
	free(k->src);
	nbrt_work_free(&k->cellwork);
	nbrt_work_free(&k->copywork);
	nbrt_work_free(&k->planwork);
	nbrt_work_free(&k->treework);
	k->rt->be->free(k);
	nb_iface_free(k->f);
	free(k->b);
	free(k->name);
	free(k->path);
	free(k);
}

/* --- running ------------------------------------------------------------ */

/* The bytes [*lo, *hi) a host binding of n elements spans. */
static void span(const nbrt_slot *b, size_t n, uintptr_t *lo, uintptr_t *hi)
{
	size_t el = nbrt_prec_size((nb_prec)b->t);
	*lo = (uintptr_t)b->host;
	*hi = *lo + (n <= SIZE_MAX / el ? n * el : SIZE_MAX);
}

/* Results written over an input (nbrt_bind's contract forbids it) would
 * change what later i-elements read, silently, as threads and launches
 * happen to order the writes: refused, the same array or any bytes of
 * one in common. */
static int overlap(nbrt_kernel *k, size_t ni, size_t nj)
{
	const nb_iface *f = k->f;
	for (int r = 0; r < f->nvar && ni; r++) {
		const nbrt_slot *br = &k->b[r];
		if (f->var[r].role != NB_RMEM || (!br->host && !br->arr))
			continue;
		for (int v = 0; v < f->nvar; v++) {
			nb_role role = f->var[v].role;
			const nbrt_slot *bv = &k->b[v];
			size_t n = role == NB_BMEM ? nj : ni;
			if ((role != NB_LMEM && role != NB_BMEM) || !n)
				continue;
			int same = br->arr && br->arr == bv->arr;
			if (!same && br->host && bv->host) {
				uintptr_t a0, a1, b0, b1;
				span(br, ni, &a0, &a1);
				span(bv, n, &b0, &b1);
				same = a0 < b1 && b0 < a1;
			}
			if (same)
				return nbrt_fail(k->rt, "kernel %s: RMEM '%s' is bound "
				                 "over the array of %s '%s': results must "
				                 "not overlap inputs", f->kernel,
				                 f->var[r].name, nb_role_name(role),
				                 f->var[v].name);
		}
	}
	return 0;
}

/* Every array bound, every CONST set, before anything moves. */
static int ready(nbrt_kernel *k, size_t ni, size_t nj)
{
	const nb_iface *f = k->f;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role == NB_CONST) {
			if (!b->set)
				return nbrt_fail(k->rt, "kernel %s: CONST '%s' is not set "
				                 "(nbrt_set_const)", f->kernel, x->name);
			continue;
		}
		if (!b->set)
			return nbrt_fail(k->rt, "kernel %s: %s '%s' is not bound to "
			                 "an array (nbrt_bind)", f->kernel,
			                 nb_role_name(x->role), x->name);
		size_t n = x->role == NB_BMEM ? nj : ni;
		if (b->arr && b->arr->n < n)
			return nbrt_fail(k->rt, "kernel %s: %s '%s' is bound to an "
			                 "array of %zu values, and the run needs %zu",
			                 f->kernel, nb_role_name(x->role), x->name,
			                 b->arr->n, n);
		if (!b->host && !b->arr && n)
			return nbrt_fail(k->rt, "kernel %s: %s '%s' is bound to NULL",
			                 f->kernel, nb_role_name(x->role), x->name);
	}
	return overlap(k, ni, nj);
}

int nbrt_core_run(nbrt_kernel *k, size_t ni, size_t nj)
{
	double t0 = nbrt_now();
	k->tkern = k->ttotal = 0;
	k->launches = 0;
	k->pstart = k->plast = t0;
	k->pshown = 0;
	if (ready(k, ni, nj) || nbrt_max_interactions(k->rt, &k->maxint))
		return -1;
	int r = 0;
	if (ni > 0)
		r = k->rt->be->run(k, ni, nj);
	k->ttotal = nbrt_now() - t0;
	return r;
}

int nbrt_core_run_ranges(nbrt_kernel *k, nbrt_kernel *a, size_t ni,
                         size_t nj, const nbrt_rplan *p)
{
	if (ready(k, ni, nj))
		return -1;
	if (a != k) {
		memcpy(a->b, k->b, sizeof *k->b * (size_t)k->f->nvar);
		a->plabel = k->plabel;
		k->last = a;
	}
	double t0 = nbrt_now();
	a->tkern = a->ttotal = 0;
	a->launches = 0;
	a->pstart = a->plast = t0;
	a->pshown = 0;
	if (nbrt_max_interactions(a->rt, &a->maxint))
		return -1;
	int r = ni > 0 ? a->rt->be->run_ranges(a, ni, nj, p) : 0;
	a->ttotal = nbrt_now() - t0;
	k->tkern = a->tkern;
	k->ttotal = a->ttotal;
	k->launches = a->launches;
	return r;
}

int nbrt_core_run_pairs(nbrt_kernel *k, nbrt_kernel *a, size_t n,
                        const nbrt_nplan *p)
{
	if (ready(k, n, n))
		return -1;
	if (a != k) {
		memcpy(a->b, k->b, sizeof *k->b * (size_t)k->f->nvar);
		k->last = a;
	}
	double t0 = nbrt_now();
	a->tkern = a->ttotal = 0;
	a->launches = 0;
	int r = n > 0 ? a->rt->be->run_pairs(a, n, p) : 0;
	a->ttotal = nbrt_now() - t0;
	k->tkern = a->tkern;
	k->ttotal = a->ttotal;
	k->launches = a->launches;
	return r;
}

int nbrt_run_variant(nbrt_kernel *k, nbrt_kernel *a, size_t ni, size_t nj)
{
	if (ready(k, ni, nj))
		return -1;
	memcpy(a->b, k->b, sizeof *k->b * (size_t)k->f->nvar);
	a->plabel = k->plabel;
	k->last = a;
	int r = nbrt_core_run(a, ni, nj);
	k->tkern = a->tkern;
	k->ttotal = a->ttotal;
	k->launches = a->launches;
	return r;
}

/* For nbrt_run_cutoff (cutoff.c), which reads the bound positions and
 * inputs before any run checks them. */
int nbrt_core_ready(nbrt_kernel *k, size_t ni, size_t nj)
{
	return ready(k, ni, nj);
}

/* For nbrt_run_tree (tree.c), whose runs see its sorted copies in the
 * caller's place, never the caller's arrays: it checks the bindings
 * itself, but results over inputs only here. */
int nbrt_core_overlap(nbrt_kernel *k, size_t ni, size_t nj)
{
	return overlap(k, ni, nj);
}
