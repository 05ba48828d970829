/* nbrt.c: the runtime's API: opening a device (choosing its back end,
 * nbrt_host.c, nbrt_cl.c or nbrt_il.c, once), loading (compiling a .nbl in
 * process, or reading the interface of a generated file), binding by name,
 * running with the j-split chosen per run, and timing.  It calls the back
 * end through its operations; the layers under them are msg.c, cache.c,
 * buildopts.c, convert.c, launch.c, nbrt_mem.c and machine.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "nbrt_impl.h"

/* --- devices ---------------------------------------------------------- */

/* The back ends; OpenCL, first, serves every spec the others do not name. */
static const struct nbrt_backend *const backends[] = {
	&nbrt_cl_backend, &nbrt_host_backend, &nbrt_il_backend,
};
#define NBACKEND (sizeof backends / sizeof backends[0])

/* The back end a device spec names by its spec or target ("host" or "c",
 * "amdil"); NULL: the spec is for OpenCL. */
static const struct nbrt_backend *named(const char *spec)
{
	for (size_t i = 0; spec && i < NBACKEND; i++)
		if (backends[i]->spec &&
		    (strcasecmp(spec, backends[i]->spec) == 0 ||
		     strcasecmp(spec, backends[i]->target) == 0))
			return backends[i];
	return NULL;
}

int nbrt_target_device(const char *target, const char **spec,
                       const char **where)
{
	for (size_t i = 0; target && i < NBACKEND; i++)
		if (strcmp(target, backends[i]->target) == 0) {
			if (spec)
				*spec = backends[i]->spec;
			if (where)
				*where = backends[i]->where;
			return 0;
		}
	return -1;
}

const char *nbrt_spec_target(const char *spec)
{
	const struct nbrt_backend *be = named(spec);
	return be ? be->target : nbrt_cl_backend.target;
}

nbrt *nbrt_open(const char *spec, char **err)
{
	return nbrt_open_nth(spec, 0, err);
}

nbrt *nbrt_open_nth(const char *spec, int nth, char **err)
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
	rt->cache = nbrt_cache_choose();
	rt->nth = nth < 0 ? 0 : nth;
	if (!spec || !*spec)
		spec = getenv("NBRT_DEVICE");
	if (spec && !*spec)
		spec = NULL;
	rt->be = named(spec);
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
		nbrt_close(rt);
		return NULL;
	}
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
	if (!rt->ident && rt->devclass)
		rt->ident = nbrt_aprintf("%s\n%s", rt->name ? rt->name : "",
		                         rt->devclass);
	if (!rt->devclass || !rt->ident) {
		if (err)
			*err = strdup("out of memory");
		nbrt_close(rt);
		return NULL;
	}
	nbrt_note(rt, "device %s (class %s); cache %s", rt->name, rt->devclass,
	          rt->cache ? nb_esc(rt->cache) : "off");
	return rt;
}

void nbrt_close(nbrt *rt)
{
	if (!rt)
		return;
	if (rt->be)
		rt->be->close(rt);
	nbrt_close(rt->other);
	free(rt->devclass);
	free(rt->ident);
	free(rt->name);
	free(rt->err);
	free(rt->cache);
	free(rt);
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
	return nbrt_cl_backend.list(out);
}

/* The limits that decide what runs where, for tests and users alike: a
 * test that needs a kernel too big for the device reads local_mem_size
 * here rather than assuming one driver's value. */
int nbrt_describe(const nbrt *rt, FILE *out)
{
	nbrt_put_str(out, "device", rt->name);
	return rt->be->describe(rt, out);
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
	const char *spec, *where;
	if (nbrt_target_device(t, &spec, &where))
		return nbrt_fail(rt, "%s: nbrt cannot run target '%s' kernels",
		                 k->name, t);
	if (strcmp(t, "c") == 0 && rt->be == &nbrt_cl_backend)
		return nbrt_fail(rt, "%s is a C kernel, but %s is an OpenCL device: "
		                 "load the .nbl, or compile it with "
		                 "--target=opencl (-o K.cl)", k->name, rt->name);
	if (strcmp(t, "opencl") == 0 && rt->be == &nbrt_host_backend)
		return nbrt_fail(rt, "%s is an OpenCL kernel, but the host device "
		                 "runs C kernels: load the .nbl, or compile it "
		                 "with --target=c (-o K.c)", k->name);
	return nbrt_fail(rt, "%s is a target %s kernel, which runs on %s%s%s%s, "
	                 "but %s runs target %s kernels: load the .nbl, or "
	                 "compile it with --target=%s", k->name, t, where,
	                 spec ? " (device " : "", spec ? spec : "",
	                 spec ? ")" : "", rt->name, rt->be->target,
	                 rt->be->target);
}

nbrt_kernel *nbrt_load_source(nbrt *rt, const char *name, const char *src,
                              size_t len, const nb_options *opts)
{
	if (!rt)
		return NULL;
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
	if (is_generated(name, src, len)) {
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
	if (!is_generated(name, src, len)) {
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
	/* left open, the j-split is chosen per run where the defaults table
	 * says (see nbrt_choose_split); NBRT_AUTO_SPLIT=1 or 0 forces it on
	 * or off */
	const char *as = getenv("NBRT_AUTO_SPLIT");
	const nb_defaults *row = nbrt_row(k);
	int autosplit = as && *as ? *as == '1' : row && row->split_items > 0;
	k->autosplit = !rt->be->host && autosplit && k->src &&
	               k->f->jsplit == 1 &&
	               !(opts && (opts->given & NB_GIVEN_JSPLIT));
	return k;
bad:
	nb_output_free(&out);
	nbrt_free(k);
	return NULL;
}

nbrt_kernel *nbrt_load(nbrt *rt, const char *path, const nb_options *opts)
{
	if (!rt)
		return NULL;
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
	for (int n = 0; n < 2; n++)
		for (int l = 0; l < 5; l++)
			nbrt_free(k->alt[n][l]);
	nbrt_tune_free(k);
	free(k->src);
	k->rt->be->free(k);
	nb_iface_free(k->f);
	free(k->b);
	free(k->name);
	free(k->path);
	free(k);
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
		          k->f->kernel, name ? name : "(null)", all ? all : "?");
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
	if (!a)
		return nbrt_fail(k->rt, "kernel %s: '%s' bound to no array",
		                 k->f->kernel, name ? name : "(null)");
	if (a->rt != k->rt)
		return nbrt_fail(k->rt, "kernel %s: the array for '%s' belongs to "
		                 "another device", k->f->kernel,
		                 name ? name : "(null)");
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
	return 0;
}

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
		a = nbrt_load_source(k->rt, k->path, k->src, k->srclen, &o);
		if (!a)
			return -1;
		k->alt[narrow][l] = a;
		a->tuning = 1; /* a variant runs as loaded */
		nbrt_note(k->rt, "%s: j-split %d for Ni = %zu%s", k->name, 1 << l,
		          ni, narrow ? ", at half the i-unroll" : "");
	}
	return nbrt_run_variant(k, a, ni, nj);
}

int nbrt_run_variant(nbrt_kernel *k, nbrt_kernel *a, size_t ni, size_t nj)
{
	if (ready(k, ni, nj))
		return -1;
	memcpy(a->b, k->b, sizeof *k->b * (size_t)k->f->nvar);
	a->plabel = k->plabel;
	k->last = a;
	int r = nbrt_run(a, ni, nj);
	k->tkern = a->tkern;
	k->ttotal = a->ttotal;
	k->launches = a->launches;
	return r;
}

int nbrt_run(nbrt_kernel *k, size_t ni, size_t nj)
{
	if (!k)
		return -1;
	k->last = NULL;
	k->origin = "defaults";
	if (k->src && ni > 0 && !k->tuning) {
		int e;
		nbrt_kernel *v = nbrt_tuned_variant(k, ni, nj, &e);
		if (e)
			return -1;
		if (v)
			return nbrt_run_variant(k, v, ni, nj);
	}
	if (k->autosplit && ni > 0) {
		int l = nbrt_choose_split(k, ni), n = nbrt_narrow(k, ni);
		if (l > 0 || n)
			return run_split(k, l, n, ni, nj);
	}
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

double nbrt_kernel_time(const nbrt_kernel *k)
{
	return k ? k->tkern : 0;
}

double nbrt_total_time(const nbrt_kernel *k)
{
	return k ? k->ttotal : 0;
}

long nbrt_launches(const nbrt_kernel *k)
{
	return k ? k->launches : 0;
}
