/* nbrt_impl.h: what the runtime's files share and nothing outside them
 * sees: the device and kernel records, and the helpers nbrt.c provides to
 * the two back ends (nbrt_host.c: the C path; nbrt_cl.c: OpenCL). */
#ifndef NBRT_IMPL_H
#define NBRT_IMPL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdarg.h>
#include "nbrt.h"

/* The C back end's entry, as emit_c.c writes it. */
typedef void (*nbrt_entry)(long ni, long nj, long ibase, long jbase,
                           int accum, void *const *arr, const double *cst);

struct nbrt {
	int host;          /* 1: the C back end */
	char *name;        /* for messages and nbrt_device_name */
	char *err;         /* last failure, malloc'd */
	char *cache;       /* cache directory, NULL: no cache */
	int verbose;       /* NBRT_VERBOSE: notes on stderr */

	/* host */
	char *cc;          /* the C compiler command */
	char *hostkey;     /* compiler version and CPU; NULL until needed */

	/* OpenCL */
	cl_platform_id plat;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	char *devkey;      /* device, platform and driver versions */
	int nvidia;
	int gpu;           /* CL_DEVICE_TYPE_GPU */
	int fp64;
	cl_ulong maxalloc; /* largest buffer */
	cl_ulong globalmem;/* all buffers */
	size_t maxwg;
	cl_ulong localmem; /* local memory per work group */
	cl_uint units;     /* compute units */
};

/* What nbrt_bind and nbrt_set_const recorded for one variable. */
typedef struct nbrt_slot {
	int set;
	nbrt_type t;
	void *host;
	double hi, lo; /* CONST */
} nbrt_slot;

struct nbrt_kernel {
	nbrt *rt;
	nb_iface *f;
	char *name;        /* the file or name it was loaded from, escaped
	                      (nb_esc) for messages */
	char *path;        /* the same as given, for the compiler */
	nbrt_slot *b;      /* one per f->var */
	int cache_hit;
	double tkern, ttotal;
	long launches;
	size_t maxint;     /* most interactions in one launch, this run */
	const char *plabel;/* progress on stderr (nbrt_show_progress) */
	double pstart, plast; /* the run's start, the last report */
	int pshown;        /* reported during this run */

	/* host */
	void *dl;
	nbrt_entry entry;

	/* A .nbl on a GPU whose j-split was left open: the split is chosen
	 * for each run from Ni (enough work items to fill the device), and
	 * each split used is its own kernel, compiled when first needed. */
	char *src;         /* the .nbl text, NULL when the split is fixed */
	size_t srclen;
	nb_options opts;
	struct nbrt_kernel *alt[5]; /* j-split 1, 2, 4, 8, 16 (alt[0]: none,
	                               this kernel is the T = 1 one) */
	struct nbrt_kernel *last;   /* the variant of the last run, or NULL */

	/* OpenCL */
	cl_program prog;
	cl_kernel kern;
	int nmem;          /* LMEM vars, BMEM packs, RMEM vars */
	cl_mem *mem;
	size_t *cap;       /* bytes allocated for each mem */
};

/* nbrt.c */
int nbrt_fail(nbrt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void nbrt_note(const nbrt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *nbrt_strdup(const char *s);
char *nbrt_aprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double nbrt_now(void);

/* Checks the build options a kernel's interface asks for against the
 * list a back end passes on (a file could otherwise smuggle anything into
 * a compiler command line).  Returns 0, or -1 with the message set. */
int nbrt_options_ok(nbrt_kernel *k, const char *const *allowed);

/* Refuses, for a kernel with dd arithmetic, each word of opts (build
 * options from `from`, named in the message) that is in bad: options
 * that silently destroy the low words.  Returns 0, or -1 with the
 * message set.  A word over 63 bytes is compared by its start. */
typedef struct nbrt_badopt {
	const char *opt, *why;
} nbrt_badopt;
int nbrt_dd_options_ok(nbrt_kernel *k, const char *code, size_t len,
                       const char *opts, const char *from,
                       const nbrt_badopt *bad);

/* A cache key: length-prefixed fields, so no two field lists collide. */
typedef struct nbrt_key {
	char *s;
	size_t len, cap;
} nbrt_key;
int nbrt_key_add(nbrt_key *k, const char *s, size_t n);
/* The cache file for a key: "DIR/HASH.ext", NULL when there is no cache. */
char *nbrt_cache_path(const nbrt *rt, const nbrt_key *k, const char *ext);
void nbrt_key_hash(const nbrt_key *k, char out[33]);
/* The same 128-bit hash of any bytes, as 32 hex digits: cache entries
 * carry the digest of their contents, so a damaged one is rebuilt rather
 * than handed to the loader or the OpenCL driver (which may crash on it). */
void nbrt_digest(const void *data, size_t len, char out[33]);
/* Reads a cache entry written by this user; NULL when absent or not
 * trusted. */
char *nbrt_cache_read(const char *path, size_t *len);
void nbrt_cache_write(const nbrt *rt, const char *path, const void *data,
                      size_t len);
int nbrt_cache_trusted(const char *path);

size_t nbrt_prec_size(nb_prec t);   /* bytes of one value: 4, 8, 16 */
/* Whether a host array of t has exactly the layout of an array of kt. */
int nbrt_same_layout(nbrt_type t, nb_prec kt);
/* Converts n host values into kernel scalars: value e goes to scalar
 * e * stride + off (and the next one for a dd's low part). */
void nbrt_to_kernel(void *dst, nb_prec kt, size_t stride, size_t off,
                    const void *src, nbrt_type t, size_t n);
void nbrt_from_kernel(void *dst, nbrt_type t, const void *src, nb_prec kt,
                      size_t n);

/* Calls fn for every launch of a run over [0, ni) x [0, nj), none of more
 * than k->maxint interactions (unless a single group of unroll_i i times
 * one j is more): i-chunks a multiple of unroll_i and at most imax, each
 * over the whole j range where that keeps them at least `fill` i-elements
 * wide (what keeps the device busy), else chunks of that width with the
 * j range split, later j-chunks adding to the results (accum = 1). */
typedef int (*nbrt_launch_fn)(nbrt_kernel *k, size_t ibase, size_t ni,
                              size_t jbase, size_t nj, int accum, void *ctx);
int nbrt_each_launch(nbrt_kernel *k, size_t ni, size_t nj, size_t imax,
                     size_t fill, nbrt_launch_fn fn, void *ctx);

/* nbrt_mem.c: reports the progress of the run (nbrt_show_progress). */
void nbrt_progress(nbrt_kernel *k, double done, double total);

/* nbrt_host.c */
int nbrt_host_open(nbrt *rt);
int nbrt_host_load(nbrt_kernel *k, const char *code, size_t len);
int nbrt_host_run(nbrt_kernel *k, size_t ni, size_t nj);
void nbrt_host_free(nbrt_kernel *k);

/* nbrt_cl.c: nbrt_cl_open returns 1 when there is no OpenCL device at
 * all and spec is NULL, so the caller can fall back to the host. */
int nbrt_cl_open(nbrt *rt, const char *spec);
void nbrt_cl_close(nbrt *rt);
int nbrt_cl_load(nbrt_kernel *k, const char *code, size_t len);
int nbrt_cl_run(nbrt_kernel *k, size_t ni, size_t nj);
void nbrt_cl_free(nbrt_kernel *k);

#endif
