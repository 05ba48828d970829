/* nbrt.c: the device-independent half of the runtime: opening a device,
 * loading (compiling a .nbl in process, or reading the interface of a
 * generated file), binding by name, type conversion, the launch plan that
 * splits long runs, the on-disk cache, and timing.  The back ends are
 * nbrt_host.c (C, cc + dlopen) and nbrt_cl.c (OpenCL). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nbrt_impl.h"

/* --- messages ------------------------------------------------------------ */

static char *vaprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *nbrt_aprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vaprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *nbrt_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Records the message of a failure; returns -1 for the caller to return.
 * Out of memory leaves a fixed message rather than none. */
int nbrt_fail(nbrt *rt, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vaprintf(fmt, ap);
	va_end(ap);
	free(rt->err);
	rt->err = s ? s : strdup("out of memory");
	return -1;
}

void nbrt_note(const nbrt *rt, const char *fmt, ...)
{
	if (!rt->verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("nbrt: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

const char *nbrt_error(const nbrt *rt)
{
	return rt && rt->err ? rt->err : "";
}

/* --- the cache ------------------------------------------------------------ */

int nbrt_key_add(nbrt_key *k, const char *s, size_t n)
{
	char len[32];
	int l = snprintf(len, sizeof len, "%zu:", n);
	if (k->len + (size_t)l + n + 1 > k->cap) {
		size_t cap = (k->len + (size_t)l + n + 1) * 2;
		char *p = realloc(k->s, cap);
		if (!p)
			return -1;
		k->s = p;
		k->cap = cap;
	}
	memcpy(k->s + k->len, len, (size_t)l);
	memcpy(k->s + k->len + l, s, n);
	k->len += (size_t)l + n;
	k->s[k->len] = 0;
	return 0;
}

/* 128 bits from two unrelated 64-bit hashes (FNV-1a and a multiply-xor
 * mix), plenty to name cache files; OpenCL entries also hold their whole
 * key, so even a collision only costs a rebuild. */
static void hash128(const char *s, size_t n, char out[33])
{
	uint64_t a = 0xcbf29ce484222325u, b = 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		a = (a ^ c) * 0x100000001b3u;
		b = (b ^ c) * 0xff51afd7ed558ccdu;
		b ^= b >> 29;
	}
	b ^= b >> 33;
	b *= 0xc4ceb9fe1a85ec53u;
	b ^= b >> 33;
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)a,
	         (unsigned long long)b);
}

void nbrt_key_hash(const nbrt_key *k, char out[33])
{
	hash128(k->s ? k->s : "", k->len, out);
}

void nbrt_digest(const void *data, size_t len, char out[33])
{
	hash128(len ? data : "", len, out);
}

char *nbrt_cache_path(const nbrt *rt, const nbrt_key *k, const char *ext)
{
	if (!rt->cache || !k->s)
		return NULL;
	char h[33];
	hash128(k->s, k->len, h);
	return nbrt_aprintf("%s/%s%s", rt->cache, h, ext);
}

/* Only files of our own that nobody else may write are loaded: a cached
 * shared object is code we run. */
int nbrt_cache_trusted(const char *path)
{
	struct stat st;
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

char *nbrt_cache_read(const char *path, size_t *len)
{
	if (!path || !nbrt_cache_trusted(path))
		return NULL;
	char err[256];
	return nb_read_file(path, len, err, sizeof err);
}

void nbrt_cache_write(const nbrt *rt, const char *path, const void *data,
                      size_t len)
{
	char err[512];
	if (!path)
		return;
	/* 0600 from its creation, whatever the umask: no one else ever
	 * holds a descriptor to write it, and nbrt_cache_trusted loads it */
	if (nb_write_file_mode(path, data, len, NB_OUT_PRIVATE, err,
	                       sizeof err)) {
		nbrt_note(rt, "not cached: %s", err);
		return;
	}
	nbrt_note(rt, "cached %s", nb_esc(path));
}

/* mkdir -p, private to the user. */
static int mkdirs(char *dir)
{
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		int r = mkdir(dir, 0700);
		*p = c;
		if (r && errno != EEXIST)
			return -1;
		if (!c)
			return 0;
	}
}

/* A usable cache directory is ours and writable by us alone, so no one
 * else can plant a program in it.  Returns NULL, or why not. */
static const char *unusable_dir(const char *dir)
{
	struct stat st;
	if (stat(dir, &st))
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "not a directory";
	if (st.st_uid != geteuid())
		return "owned by another user";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "others may write in it (chmod go-w to use it)";
	if (access(dir, W_OK | X_OK))
		return strerror(errno);
	return NULL;
}

static char *cache_dir(void)
{
	const char *off = getenv("NBRT_CACHE");
	if (off && strcmp(off, "0") == 0)
		return NULL;
	const char *e;
	char *dir = NULL;
	if ((e = getenv("NBRT_CACHE_DIR")) && *e)
		dir = strdup(e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e == '/')
		dir = nbrt_aprintf("%s/nbcc", e);
	else if ((e = getenv("HOME")) && *e == '/')
		dir = nbrt_aprintf("%s/.cache/nbcc", e);
	if (!dir)
		return NULL;
	const char *why = mkdirs(dir) ? strerror(errno) : unusable_dir(dir);
	if (why) {
		/* said once a process, verbose or not: a cache that is off
		 * costs every run a rebuild, with no other sign of it */
		static int told;
		if (!told++)
			fprintf(stderr, "nbrt: warning: cache directory '%s' not "
			        "used: %s; kernels are rebuilt each run (NBRT_CACHE=0 "
			        "turns the cache off quietly)\n", nb_esc(dir), why);
		free(dir);
		return NULL;
	}
	return dir;
}

const char *nbrt_cache_dir(const nbrt *rt)
{
	return rt ? rt->cache : NULL;
}

/* --- devices ---------------------------------------------------------- */

nbrt *nbrt_open(const char *spec, char **err)
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
	rt->cache = cache_dir();
	if (!spec || !*spec)
		spec = getenv("NBRT_DEVICE");
	if (spec && !*spec)
		spec = NULL;
	int r;
	if (spec && (strcasecmp(spec, "host") == 0 || strcasecmp(spec, "c") == 0)) {
		r = nbrt_host_open(rt);
	} else {
		r = nbrt_cl_open(rt, spec);
		if (r == 1) {
			nbrt_note(rt, "no OpenCL device: using the host");
			r = nbrt_host_open(rt);
		}
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
	nbrt_note(rt, "device %s; cache %s", rt->name,
	          rt->cache ? nb_esc(rt->cache) : "off");
	return rt;
}

void nbrt_close(nbrt *rt)
{
	if (!rt)
		return;
	nbrt_cl_close(rt);
	free(rt->name);
	free(rt->err);
	free(rt->cache);
	free(rt->cc);
	free(rt->hostkey);
	free(rt->devkey);
	free(rt);
}

const char *nbrt_device_name(const nbrt *rt)
{
	return rt && rt->name ? rt->name : "";
}

int nbrt_is_host(const nbrt *rt)
{
	return rt && rt->host;
}

/* --- loading --------------------------------------------------------- */

static const char *ext_of(const char *name)
{
	const char *b = strrchr(name, '/');
	const char *d = strrchr(b ? b : name, '.');
	return d ? d : "";
}

/* A file nbcc wrote (its interface in the header), or a .nbl to compile.
 * Names without a known extension go by their content. */
static int is_generated(const char *name, const char *src, size_t len)
{
	const char *e = ext_of(name);
	if (strcmp(e, ".cl") == 0 || strcmp(e, ".c") == 0)
		return 1;
	if (strcmp(e, ".nbl") == 0)
		return 0;
	size_t lim = len < 4096 ? len : 4096;
	return memmem(src, lim, "nbcc-interface 1", 16) != NULL;
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
	o.target = rt->host ? "c" : "opencl";
	/* the back end picks its unrolling for the kind of device */
	if (!rt->host && !rt->gpu)
		o.cpu = 1;
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

static int is_ident(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int check_target(nbrt_kernel *k)
{
	nbrt *rt = k->rt;
	const char *t = k->f->target;
	/* the name becomes a symbol and a file name: nothing else goes */
	if (!is_ident(k->f->kernel))
		return nbrt_fail(rt, "%s: kernel name '%s' is not an identifier",
		                 k->name, k->f->kernel);
	if (strcmp(t, "c") == 0 && !rt->host)
		return nbrt_fail(rt, "%s is a C kernel, but %s is an OpenCL device: "
		                 "load the .nbl, or compile it with "
		                 "--target=opencl (-o K.cl)", k->name, rt->name);
	if (strcmp(t, "opencl") == 0 && rt->host)
		return nbrt_fail(rt, "%s is an OpenCL kernel, but the host device "
		                 "runs C kernels: load the .nbl, or compile it "
		                 "with --target=c (-o K.c)", k->name);
	if (strcmp(t, "c") != 0 && strcmp(t, "opencl") != 0)
		return nbrt_fail(rt, "%s: nbrt cannot run target '%s' kernels",
		                 k->name, t);
	return 0;
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
	if (rt->host ? nbrt_host_load(k, code, clen) : nbrt_cl_load(k, code, clen))
		goto bad;
	nb_output_free(&out);
	/* left open, the j-split is chosen per run on a GPU (see
	 * choose_split); NBRT_AUTO_SPLIT=1 or 0 forces it on or off */
	const char *as = getenv("NBRT_AUTO_SPLIT");
	int autosplit = as && *as ? *as == '1' : rt->gpu;
	if (!rt->host && autosplit && !is_generated(name, src, len) &&
	    k->f->jsplit == 1 && !(opts && (opts->given & NB_GIVEN_JSPLIT))) {
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
	for (int i = 0; i < 5; i++)
		nbrt_free(k->alt[i]);
	free(k->src);
	if (k->rt->host)
		nbrt_host_free(k);
	else
		nbrt_cl_free(k);
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

/* --- conversion ----------------------------------------------------------- */

size_t nbrt_prec_size(nb_prec t)
{
	return t == NB_FLOAT ? 4 : t == NB_DOUBLE ? 8 : 16;
}

int nbrt_same_layout(nbrt_type t, nb_prec kt)
{
	return (t == NBRT_FLOAT && kt == NB_FLOAT) ||
	       (t == NBRT_DOUBLE && kt == NB_DOUBLE) ||
	       (t == NBRT_DD && kt == NB_DD);
}

static void host_get(nbrt_type t, const void *a, size_t i, double *hi,
                     double *lo)
{
	switch (t) {
	case NBRT_FLOAT:
		*hi = ((const float *)a)[i];
		*lo = 0;
		break;
	case NBRT_DOUBLE:
		*hi = ((const double *)a)[i];
		*lo = 0;
		break;
	default:
		*hi = ((const double *)a)[2 * i];
		*lo = ((const double *)a)[2 * i + 1];
		break;
	}
}

/* Narrowing a dd rounds hi + lo, which is hi itself for a normalized
 * pair; the sum keeps unnormalized input right as well. */
void nbrt_to_kernel(void *dst, nb_prec kt, size_t stride, size_t off,
                    const void *src, nbrt_type t, size_t n)
{
	float *f = dst;
	double *d = dst;
	for (size_t e = 0; e < n; e++) {
		double hi, lo;
		host_get(t, src, e, &hi, &lo);
		size_t s = e * stride + off;
		if (kt == NB_FLOAT) {
			f[s] = (float)(hi + lo);
		} else if (kt == NB_DOUBLE) {
			d[s] = hi + lo;
		} else {
			d[s] = hi;
			d[s + 1] = lo;
		}
	}
}

void nbrt_from_kernel(void *dst, nbrt_type t, const void *src, nb_prec kt,
                      size_t n)
{
	const float *f = src;
	const double *d = src;
	for (size_t e = 0; e < n; e++) {
		double hi = kt == NB_FLOAT ? f[e] : kt == NB_DOUBLE ? d[e] : d[2 * e];
		double lo = kt == NB_DD ? d[2 * e + 1] : 0;
		switch (t) {
		case NBRT_FLOAT:
			((float *)dst)[e] = (float)(hi + lo);
			break;
		case NBRT_DOUBLE:
			((double *)dst)[e] = hi + lo;
			break;
		default:
			((double *)dst)[2 * e] = hi;
			((double *)dst)[2 * e + 1] = lo;
			break;
		}
	}
}

/* --- running ------------------------------------------------------------ */

static int max_interactions(nbrt *rt, size_t *max)
{
	const char *e = getenv("NBRT_MAX_INTERACTIONS");
	/* a GPU does 2^36 in a fraction of a second; a CPU takes some
	 * seconds for 2^33, which is as often as progress can be shown */
	*max = (size_t)1 << (rt->gpu ? 36 : 33);
	if (!e || !*e)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(e, &end, 0);
	if (errno || *end || v == 0 || e[0] == '-')
		return nbrt_fail(rt, "NBRT_MAX_INTERACTIONS='%s' is not a positive "
		                 "integer", e);
	*max = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
	return 0;
}

int nbrt_each_launch(nbrt_kernel *k, size_t ni, size_t nj, size_t imax,
                     size_t fill, nbrt_launch_fn fn, void *ctx)
{
	size_t max = k->maxint, u = (size_t)k->f->unroll_i, ic, jc;
	if (nj == 0) {
		ic = ni;
		jc = 0;
	} else {
		/* i-chunks that take the whole j range... */
		ic = max / nj;
		ic -= ic % u;
		jc = nj;
		size_t wide = ni < fill ? ni : fill;
		if (ic < wide) {
			/* ...unless that leaves the device half idle (a GPU ran
			 * 2^20 x 2^20 gravity 3 times slower in 16 launches of
			 * 2^16 i than in one): then wide i-chunks, the j range
			 * split, still no launch over max */
			ic = wide < max ? wide : max;
			if (ic > imax)
				ic = imax; /* before jc, which depends on it */
			if (ic < ni) {
				ic -= ic % u;
				if (ic < u)
					ic = u;
			}
			jc = max / ic ? max / ic : 1;
			if (jc > nj)
				jc = nj;
		}
	}
	if (ic > imax)
		ic = imax - imax % u;
	if (ic > ni)
		ic = ni;
	if (ic == 0) /* never stall, whatever the limits */
		ic = u < ni ? u : ni;
	double total = (double)ni * (double)nj, done = 0;
	for (size_t ib = 0; ib < ni; ib += ic) {
		size_t n = ni - ib < ic ? ni - ib : ic;
		if (nj == 0) {
			if (fn(k, ib, n, 0, 0, 0, ctx))
				return -1;
			continue;
		}
		for (size_t jb = 0; jb < nj; jb += jc) {
			size_t m = nj - jb < jc ? nj - jb : jc;
			if (fn(k, ib, n, jb, m, jb > 0, ctx))
				return -1;
			done += (double)n * (double)m;
			nbrt_progress(k, done, total);
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
		if (!b->host && n)
			return nbrt_fail(k->rt, "kernel %s: %s '%s' is bound to NULL",
			                 f->kernel, nb_role_name(x->role), x->name);
	}
	return 0;
}

/* The j-split for a run of ni i-elements on a GPU: the smallest power of
 * two (at most 16) that gives the device 480 work items per compute unit.
 * Fewer leave latency unhidden; more only add the cost of combining.
 * Measured on an H200 (132 units; docs/performance.md), float gravity
 * with 2 i-elements a work item: N = 16384 wants 8, 32768 wants 4,
 * 131072 and up want 1, each within 2% of the best split.  Returns log2
 * of the split, the index into alt[]. */
static int choose_split(const nbrt_kernel *k, size_t ni)
{
	double groups = (double)((ni + (size_t)k->f->unroll_i - 1) /
	                         (size_t)k->f->unroll_i);
	double want = 480.0 * (k->rt->units ? k->rt->units : 1);
	int l = 0;
	while (l < 4 && groups * (1 << l) < want)
		l++;
	return l;
}

/* Runs the variant with split 2^l, loading it the first time; the
 * bindings are the caller's. */
static int run_split(nbrt_kernel *k, int l, size_t ni, size_t nj)
{
	nbrt_kernel *a = k->alt[l];
	if (!a) {
		nb_options o = k->opts;
		o.jsplit = 1 << l;
		o.given |= NB_GIVEN_JSPLIT;
		a = nbrt_load_source(k->rt, k->path, k->src, k->srclen, &o);
		if (!a)
			return -1;
		k->alt[l] = a;
		nbrt_note(k->rt, "%s: j-split %d for Ni = %zu", k->name, 1 << l, ni);
	}
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
	if (k->src && ni > 0) {
		int l = choose_split(k, ni);
		if (l > 0)
			return run_split(k, l, ni, nj);
	}
	double t0 = nbrt_now();
	k->tkern = k->ttotal = 0;
	k->launches = 0;
	k->pstart = k->plast = t0;
	k->pshown = 0;
	if (ready(k, ni, nj) || max_interactions(k->rt, &k->maxint))
		return -1;
	int r = 0;
	if (ni > 0)
		r = k->rt->host ? nbrt_host_run(k, ni, nj) : nbrt_cl_run(k, ni, nj);
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

int nbrt_options_ok(nbrt_kernel *k, const char *const *allowed)
{
	const char *o = k->f->options ? k->f->options : "";
	while (*o) {
		while (*o == ' ')
			o++;
		size_t n = strcspn(o, " ");
		if (!n)
			break;
		int ok = 0;
		for (int i = 0; allowed[i] && !ok; i++)
			ok = strlen(allowed[i]) == n && strncmp(allowed[i], o, n) == 0;
		if (!ok)
			return nbrt_fail(k->rt, "%s: the kernel asks for the build "
			                 "option '%.*s', which this runtime does not "
			                 "pass on", k->name, (int)n, o);
		o += n;
	}
	return 0;
}

/* Whether the code does dd arithmetic: the back ends paste ddlib.h into
 * exactly those kernels, and a dd variable says so even in a file some
 * tool has rewritten. */
static int has_dd(const nbrt_kernel *k, const char *code, size_t len)
{
	for (int v = 0; v < k->f->nvar; v++)
		if (k->f->var[v].type == NB_DD)
			return 1;
	return memmem(code, len, "NB_DDLIB_H", 10) != NULL;
}

int nbrt_dd_options_ok(nbrt_kernel *k, const char *code, size_t len,
                       const char *opts, const char *from,
                       const nbrt_badopt *bad)
{
	if (!opts || !has_dd(k, code, len))
		return 0;
	const char *o = opts;
	while (*o) {
		while (*o == ' ' || *o == '\t' || *o == '\n')
			o++;
		size_t n = strcspn(o, " \t\n");
		if (!n)
			break;
		/* the shell takes quotes away: '-ffast-math' is -ffast-math */
		char w[64];
		size_t m = 0;
		for (size_t i = 0; i < n && m + 1 < sizeof w; i++)
			if (o[i] != '\'' && o[i] != '"' && o[i] != '\\')
				w[m++] = o[i];
		w[m] = 0;
		for (int i = 0; bad[i].opt; i++)
			if (strcmp(w, bad[i].opt) == 0)
				return nbrt_fail(k->rt, "%s: refusing the build option "
				                 "'%s' from %s for a kernel with "
				                 "double-double arithmetic: %s",
				                 k->name, w, from, bad[i].why);
		o += n;
	}
	return 0;
}
