/* nbrt_impl.h: what the runtime's files share and nothing outside them
 * sees: the device and kernel records, the back ends' operations, and the
 * layers below them, one section per file, lowest last. */
#ifndef NBRT_IMPL_H
#define NBRT_IMPL_H

#include "nbrt.h"

/* j-splits the runtime chooses: 2^0 to 2^5 (launch.c) */
#define NBRT_SPLIT_LEVELS 6
/* the work items of a warp, which --split-warps keeps at one split
 * position: a group across warps holds this many i-elements (launch.c's
 * nbrt_wave) */
#define NBRT_WARP 32

/* A block-sparse run as the back ends take it (ranges.c makes it from an
 * nbrt_ranges): tasks of at most the back end's width of i-elements, each
 * a slice of one group, covering [0, ni) in order; group ngroups is the
 * i-elements of no group, with no ranges.  Groups' ranges are sorted and
 * disjoint; glen[g] is group g's j count. */
typedef struct nbrt_rplan {
	size_t ntask, ngroups;
	const size_t *task;   /* 3 a task: first i, count, group */
	const size_t *offset; /* ngroups + 2 */
	const size_t *range;  /* 2 a range */
	const size_t *glen;   /* ngroups + 1 */
	const size_t *imap, *jmap; /* the indices the source reads; NULL:
	                              the run's own */
	int accum;            /* 1: add into the results as they are */
	/* a treecode's chain (tree.c): keep (NBRT_KEEP_*), the results left
	 * on the device, not read back; from (with accum), the results start
	 * as that kernel's, which its last run left there (the same RMEMs by
	 * name and type), and the LMEMs it shares by name and type are its
	 * inputs there (its last run read the same arrays); NULL: all from
	 * the bindings */
	int keep;
	const struct nbrt_kernel *from;
	size_t per;           /* no host tasks: at most this many a launch
	                         (0: as many as an int reaches) */
} nbrt_rplan;
/* rplan.keep: the run waited for (DONE); or left running (the back
 * end's settle, the run from its results or tree_results waits), on the
 * device's queue (RUNNING), on a second one beside it (BESIDE: the near
 * run then runs at the same time, from zero, and tree_results adds the
 * two), or on the device's queue as the chain's last run (LAST: the near
 * run, tree_results queued after it) */
enum { NBRT_KEEP_DONE = 1, NBRT_KEEP_RUNNING, NBRT_KEEP_BESIDE,
       NBRT_KEEP_LAST };

/* A run of Newton's third law as the back ends take it (newton.c makes
 * it): tasks of i in [i0, i1) against j in [j0, j1), 8 longs each: i0 i1
 * j0 j1, the counter of its i-side block and of its j-side block in done
 * (-1: a task on one range, no j-side), and how many tasks before it
 * write each; done: the zeroed counters; jside: for each RMEM in order an
 * array of its kernel type over the n elements, zeroed. */
typedef struct nbrt_nplan {
	long ntask;
	const long *task;
	long *done;
	void *const *jside;
} nbrt_nplan;

/* A back end: how kernels reach one kind of device.  The running layer
 * (core.c) picks one when it opens a device; the back ends call only the
 * layers below (messages, cache, build options, conversion, launches).
 * Every operation that fails returns -1 with the message set. */
struct nbrt_backend {
	const char *target; /* the nbcc target whose code it runs */
	/* the device spec that picks it ("host"), as its target's name does;
	 * NULL: picked by its devices' own specs, and by specs no other back
	 * end claims (OpenCL) */
	const char *spec;
	const char *where;  /* where its kernels run, for messages */
	int host;           /* 1: it runs on this CPU, its memory the host's */
	/* What the layers above ask of it rather than its name.  The
	 * language of its kernels and their files' extension, for the
	 * message that refuses a kernel of another language ("C", ".c");
	 * NULL: its target's name alone says what they are. */
	const char *lang, *ext;
	/* 1: an interpreter, for code of hardware there is none of: the
	 * tuner leaves its kernels as they are (its times say nothing of a
	 * device), and programs may refuse it (nbrt_target_interpreted) */
	int interp;
	/* the device spec of the other path to this CPU, for the tuner, where
	 * the device is not a GPU; NULL: none */
	const char *other;
	/* the defaults table's target and class whose j-split rule its
	 * kernels take where their own row has none (NBRT_AUTO_SPLIT=1): the
	 * GPU's; NULL: none */
	const char *split_target, *split_class;
	/* Fills in rt (name, limits, priv); 1 when there is no device of
	 * this kind at all and spec is NULL, so that another may serve. */
	int (*open)(nbrt *rt, const char *spec);
	void (*close)(nbrt *rt);          /* frees rt->priv, opened or not */
	int (*list)(FILE *out);           /* nbrt_list; NULL: nothing to list */
	int (*describe)(const nbrt *rt, FILE *out); /* after the device line */
	int (*load)(nbrt_kernel *k, const char *code, size_t len);
	int (*run)(nbrt_kernel *k, size_t ni, size_t nj); /* ni > 0, ready */
	/* a block-sparse run (ni > 0, ready) through the kernel's ranges
	 * entry (nb_iface.ranges), or where `rentry` is 0 through launches
	 * of the dense entry, one a range */
	int (*run_ranges)(nbrt_kernel *k, size_t ni, size_t nj,
	                  const nbrt_rplan *p);
	int rentry;
	/* a run of Newton's third law over n elements (n > 0, ready) through
	 * the kernel's pairs entry (nb_iface.pairs), the results zeroed
	 * first; NULL: the back end has none */
	int (*run_pairs)(nbrt_kernel *k, size_t n, const nbrt_nplan *p);
	/* host memory the device reads and writes at full speed (pinned),
	 * k's buffer `slot` of at least bytes, kept until k is freed, its
	 * contents undefined; NULL: none (the back end has none, or it
	 * failed: the caller uses memory of its own) */
	void *(*hostbuf)(nbrt_kernel *k, int slot, size_t bytes);
	void (*free)(nbrt_kernel *k);     /* frees k->priv, loaded or not */
	/* Arrays in device memory, where its open set rt->devarrays
	 * (nbrt_array.c keeps them in the host's elsewhere): a->priv is the
	 * back end's.  Each finishes its work before it returns. */
	int (*array_new)(nbrt_array *a);
	void (*array_free)(nbrt_array *a);
	int (*array_write)(nbrt_array *a, const double *src);
	int (*array_read)(const nbrt_array *a, double *dst);
	/* z NULL: y += h x alone; else z += g y after it (axpy2) */
	int (*array_axpy)(nbrt_array *const *y, double h,
	                  nbrt_array *const *x, nbrt_array *const *z,
	                  double g, int na);
	int (*array_finite)(nbrt_array *const *a, int na, int *finite);
	/* its two halves (nbrt_array_finite_queue, _take) in slot 0 or 1:
	 * the check queued, the host not waiting; then its answer, with
	 * nbrt_wait's t for the queued launches before it; ny > 0: y += h x
	 * first, in the check's launch (nbrt_array_axpy_finite_queue; na at
	 * most 9 then) */
	int (*finite_queue)(nbrt_array *const *a, int na, int slot,
	                    nbrt_array *const *y, double h,
	                    nbrt_array *const *x, int ny);
	int (*finite_take)(nbrt *rt, int slot, int *finite, double t[2]);
	/* nbrt_predictor's device side (predict.c), where rt->devarrays:
	 * its own buffers in p->priv; predict sends the bodies put (p->pend),
	 * puts them into p->series, predicts every body to now and gathers
	 * act[0..m) */
	int (*predict_new)(nbrt_predictor *p);
	void (*predict_free)(nbrt_predictor *p);
	int (*predict)(nbrt_predictor *p, double now, size_t m,
	               const size_t *act);
	/* sorts kv[0..n) stably by key on the device, as nbrt_order_sort
	 * does on the host (the same order, bit for bit; differ as
	 * nbrt_order_sort_bits takes it, 0: found); tmp: n elements of room;
	 * returns the array that holds the result (kv or tmp), NULL on
	 * failure with the message set; NULL: the back end has none
	 * (nbrt_sort_kv, sortkv.c) */
	struct nbrt_kv *(*sort)(nbrt *rt, struct nbrt_kv *kv,
	                        struct nbrt_kv *tmp, size_t n, uint64_t differ);
	/* nbrt_run_cutoff's whole call on the device, in cells of cutoff /
	 * split (1 to 3; 0: the back end's choice), each a group (cutoff.c has checked c, chosen split
	 * from the caller's and the environment's knobs, and found the
	 * position columns, pv[side][axis]): 0 done, with
	 * its phases' seconds in time and the pairs it listed; 1 not this
	 * case (the host builder runs); -1 failure.  NULL: none */
	int (*run_cells)(nbrt_kernel *k, size_t ni, size_t nj,
	                 const nbrt_cutoff *c, int split, const int pv[2][3],
	                 double time[8], double *pairs);
	/* the treecode's sort (tree.c) on the device: the Morton keys of n
	 * bodies x[0..3) (host doubles) in the cube of corner lo and width
	 * side, as nbrt_order_keys makes them, sorted as nbrt_order_sort
	 * does; the sorted keys, the order (sorted e is the caller's
	 * order[e]) and the positions (and the masses m, unless NULL) gathered
	 * in it into key, order, sx and sm: the host's bits; the order kept
	 * on the device in slot (0 or 1) for tree_scatter.  0 done, 1 not
	 * this case (the host sorts), -1 failure.  NULL: none */
	int (*tree_sort)(nbrt *rt, const double *const x[3], const double *m,
	                 size_t n, const double lo[3], double side, int slot,
	                 unsigned long long *key, size_t *order,
	                 double *const sx[3], double *sm);
	/* results back in the caller's order: dst[v][order[s]] = src[v][s]
	 * for s < n and v < nv, es[v] bytes an element, order the one the
	 * last tree_sort of n bodies kept in slot (host arrays both; src
	 * pinned where hostbuf gave it).  0 done, 1 not this case (the host
	 * scatters), -1 failure.  NULL: none */
	int (*tree_scatter)(nbrt *rt, int slot, size_t n, int nv,
	                    void *const dst[], const void *const src[],
	                    const size_t es[]);
	/* the same from the device: the results var[0..nv) (k's RMEMs) of
	 * k's last run, left there (nbrt_rplan.keep), into the host arrays
	 * dst of their kernel type; with far, each the sum far + k of far's
	 * kept run (NBRT_KEEP_BESIDE) and k's, by name.  0 done, -1 failure
	 * (they are nowhere else).  NULL: none */
	int (*tree_results)(nbrt_kernel *k, nbrt_kernel *far, int slot,
	                    size_t n, int nv, const int var[],
	                    void *const dst[]);
	/* waits for k's kept run (nbrt_rplan.keep, which may return before
	 * its launches and uploads end): where the run that starts from it
	 * never came.  NULL: runs end before they return */
	int (*settle)(nbrt_kernel *k);
	/* nbrt_wait: waits for the queued runs (rt->queue: dense runs on
	 * device arrays that returned with their launches queued), t the
	 * span and busy seconds of their launches since the last wait.  NULL:
	 * no run is ever queued */
	int (*wait)(nbrt *rt, double t[2]);
};
extern const struct nbrt_backend nbrt_host_backend; /* nbrt_host.c */
extern const struct nbrt_backend nbrt_cl_backend;   /* cl/backend.c */
extern const struct nbrt_backend nbrt_il_backend;   /* nbrt_il.c */

struct nbrt {
	const struct nbrt_backend *be;
	void *priv;        /* the back end's own record of the device */
	char *name;        /* for messages and nbrt_device_name */
	char *err;         /* last failure, malloc'd */
	unsigned long fails; /* failures so far: a queued write may not have
	                        happened (cl/run.c's buffers held) */
	char *cache;       /* cache directory, NULL: no cache */
	int verbose;       /* NBRT_VERBOSE: notes on stderr */
	int nth;           /* nbrt_open_nth: which of the devices spec matches */
	/* its class in the defaults table ("gpu-nvidia", "cpu-avx512",
	 * "host-avx512"), set by the back end or else by nbrt_open */
	char *devclass;
	char *ident;       /* what identifies it to the tuner's cache */
	struct nbrt *other;/* the other path to this CPU (the host for an
	                      OpenCL CPU device, and back), for the tuner */
	int other_tried;

	/* what the back end found, for the launch plan and nbrt_run_memory
	 * (0 on the host: no device buffers) */
	int gpu;
	int devarrays;     /* nbrt_arrays live in its memory (be->array_*) */
	int queue;         /* nbrt_set_queue: runs on them need not wait */
	/* the finite checks queued and not yet taken (at most 2): the
	 * oldest's slot, and per slot the answer (host arrays) or 1 where
	 * the back end holds it */
	int nfin, fin0;
	int finval[2], findev[2];
	unsigned units;    /* compute units */
	unsigned long long maxalloc;  /* largest buffer */
	unsigned long long globalmem; /* all buffers */
};

/* n doubles for nbrt_array: in host memory (host) or the back end's
 * (priv). */
struct nbrt_array {
	nbrt *rt;
	size_t n;
	double *host;
	void *priv;
	/* its contents' stamp, unique to this array and write
	 * (nbrt_array_touch): a kernel's buffer converted from it is current
	 * while the stamp is the one it was converted at (cl/run.c) */
	unsigned long long ver;
	/* the OpenCL back end's float copy of it (cl/array.c's shadow
	 * room, cl/run.c's shadows), read by float kernels in place of the
	 * doubles: whether it has one, its first float there, and the stamp
	 * it was made at (current while that is ver) */
	int shadowed;
	size_t shadow_at;
	unsigned long long shadow_ver;
};
/* A fresh stamp for a's contents: called, as its write is queued, by
 * every operation that writes a (array writes and axpy, runs' results,
 * the predictor's arrays). */
void nbrt_array_touch(nbrt_array *a);

/* Block steps' j-bodies (predict.c): arr[0..6) every body predicted,
 * arr[6..12) the gathered ones; the series x y z, v, a, j (12) and the
 * time in ticks (the 13th) in series (series c of body i at c n + i) on
 * a device with memory of its own, else in host[c].  pend holds the rows
 * put since the last prediction (the 13 values, then the body's index),
 * mark the bodies among them. */
#define NBRT_PREDICT_SERIES 13
struct nbrt_predictor {
	nbrt *rt;
	size_t n;
	double unit;
	nbrt_array *arr[12];
	nbrt_array *series;
	double *host[NBRT_PREDICT_SERIES];
	double *pend;
	size_t npend, pendcap;
	unsigned char *mark;
	void *priv;
};

/* What nbrt_bind and nbrt_set_const recorded for one variable.  An
 * nbrt_array bound (arr, t NBRT_DOUBLE) in host memory has host set to it,
 * read as any host array is; one in device memory has host NULL, for the
 * back end to convert on the device. */
typedef struct nbrt_slot {
	int set;
	nbrt_type t;
	void *host;
	nbrt_array *arr;
	double hi, lo; /* CONST */
} nbrt_slot;

/* work.c: buffers kept from one call to the next, by slot (a kernel's:
 * the cell lists' arrays, not faulted in anew each call).  take: slot's
 * buffer of at least bytes, its contents undefined; keep: the same,
 * contents kept (old is the slot's, as realloc's); give: frees p where
 * w is NULL (then take and keep are malloc and realloc), else nothing.
 * reserve: slots 0..nslot-1 exist, so threads may take distinct slots at
 * once.  NULL out of memory. */
typedef struct nbrt_work {
	void **p;
	size_t *cap;
	int n;
} nbrt_work;
int nbrt_work_reserve(nbrt_work *w, int nslot);
void *nbrt_work_take(nbrt_work *w, int slot, size_t bytes);
void *nbrt_work_keep(nbrt_work *w, int slot, void *old, size_t bytes);
void nbrt_work_give(const nbrt_work *w, void *p);
void nbrt_work_free(nbrt_work *w);

struct nbrt_kernel {
	nbrt *rt;
	void *priv;        /* the back end's own record of the program */
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

	/* A .nbl on a GPU whose j-split was left open: the split is chosen
	 * for each run from Ni (enough work items to fill the device), and
	 * each split used is its own kernel, compiled when first needed. */
	char *src;         /* the .nbl text, NULL for a generated file */
	size_t srclen;
	nb_options opts;
	/* the split is the runtime's to choose: a .nbl whose split was left
	 * at 1 (no --jsplit, none in its source), not on the host, and not
	 * NBRT_AUTO_SPLIT=0; the dense runs and ranges.c's shapes ask it */
	int splitfree;
	int autosplit;     /* splitfree, and chosen per run (nbrt_choose_split) */
	/* alt[0][l]: j-split 2^l, 1 to 16, 32 at half the i-unroll
	 * (alt[0][0]: none, this kernel is the T = 1 one); alt[1][l]: the
	 * same at half the i-unroll (nbrt_narrow) */
	struct nbrt_kernel *alt[2][NBRT_SPLIT_LEVELS];
	struct nbrt_kernel *wave;   /* the shape across warps (nbrt_wave) */
	struct nbrt_kernel *last;   /* the variant of the last run, or NULL */
	/* the next ranges run's nbrt_rplan.keep and .from (tree.c), taken
	 * and cleared by it */
	int rkeep;
	struct nbrt_kernel *rfrom;
	/* block-sparse runs of a .nbl: the variants with the ranges entry,
	 * by shape (ranges.c: 1 for small groups on a GPU) and log2 of their
	 * j-split */
	struct nbrt_kernel *ranges[3][NBRT_SPLIT_LEVELS];
	double pairs;               /* pairs the last run computed */
	double tplan;               /* seconds of the last ranges run's plan */
	nbrt_newton newton;         /* nbrt_set_newton's mode */
	struct nbrt_kernel *newton_alt; /* a .nbl's variant for it (newton.c) */
	int newton_used;            /* the last run computed each pair once */
	/* buffers kept from run to run (work.c): nbrt_run_cutoff's cell
	 * lists, its positions and sorted copies, and the tasks of planned
	 * block-sparse runs (ranges.c) */
	nbrt_work cellwork, copywork, planwork;
	nbrt_work treework;         /* nbrt_run_tree's arrays (tree.c) */

	/* The tuner (tune.c): a budget in seconds for each new size class
	 * of Ni and Nj (0: none, the cache's winners only), and the
	 * variants chosen so far, by size class. */
	double tune_budget;
	struct nbrt_tuned *tuned;
	int ntuned;
	const char *origin;         /* how the last run's variant was chosen */
};

/* devclass.c: the device's class in the defaults table. */

/* "avx512", "avx2" or "generic": this CPU's vector unit, for classes. */
const char *nbrt_isa(void);
/* The defaults table's row for precision p on the device. */
const nb_defaults *nbrt_row(const nbrt *rt, nb_prec p);

/* tunefile.c: a tuner's cache entry, the variant it keeps. */
typedef struct nbrt_variant {
	int other;    /* 1: the other path to this CPU (nbrt->other) */
	int ui, uj;   /* unrolling */
	int split;    /* j-split */
	int wg, tile; /* 0: the back end's own; tile -1: no staging */
	int warps;    /* the j-split's layout: 1 side by side, 2 across
	                 warps (nbcc --split-warps; 0 ends a list of values) */
} nbrt_variant;
/* "ui=8 uj=2 split=1 wg=0 tile=0 warps=1 path=own": the variant in words */
void nbrt_variant_str(const nbrt_variant *v, char *buf, size_t len);
/* The text of an entry: its variant and rate, sealed by a digest. */
char *nbrt_tunefile_write(const nbrt_variant *v, double rate, double ratio);
/* Reads an entry of len bytes (not NUL-terminated); 0, or -1 for a
 * damaged, foreign or out-of-range one, with nothing read past len. */
int nbrt_tunefile_read(const char *s, size_t len, nbrt_variant *v,
                       double *rate);

/* launch.c: the launch plan. */

/* The most interactions one launch may do: $NBRT_MAX_INTERACTIONS, else
 * what suits the device.  Returns 0, or -1 with the message set. */
int nbrt_max_interactions(nbrt *rt, size_t *max);
/* log2 of the j-split that suits a run of ni i-elements on the device. */
int nbrt_choose_split(const nbrt_kernel *k, size_t ni);
/* Whether that run takes half the kernel's i-unroll (1) or not (0). */
int nbrt_narrow(const nbrt_kernel *k, size_t ni);
/* The row whose one wave across warps (wave_split) that run of ni x nj
 * takes, or NULL: none. */
const nb_defaults *nbrt_wave(const nbrt_kernel *k, size_t ni, size_t nj);
/* The j-slices (nb_iface.slices) for one launch of n i-elements over m
 * j-elements in `groups` work groups: $NBRT_SLICES, else what the
 * device's row of the defaults table asks; 1 for none.  -1, with the
 * message set, for a bad $NBRT_SLICES. */
#define NBRT_MAX_SLICES 64
int nbrt_choose_slices(nbrt_kernel *k, size_t n, size_t m, size_t groups);
/* The rule without $NBRT_SLICES, for a row asking `slices` on a device of
 * `units` compute units, a kernel staging tiles of `tile` j-elements. */
size_t nbrt_slices_rule(int slices, unsigned units, size_t n, size_t m,
                        size_t groups, size_t tile);
/* Whether a launch of `groups` work groups in ns slices adds them up in
 * the kernel itself (1) or in the runtime's kernels (0). */
int nbrt_own_rule(unsigned units, size_t groups, int ns);
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

/* The i-elements of one unit of a kernel's work, which launches are
 * sized in and ranges.c cuts its tasks to: a work group's (wg / jsplit
 * work items of unroll_i each) where the kernel has work groups, else
 * (the host's C) one group of unroll_i, an iteration of its OpenMP loop. */
static inline size_t nbrt_unit_items(const nb_iface *f)
{
	return f->wg ? (size_t)(f->wg / f->jsplit) * (size_t)f->unroll_i
	             : (size_t)f->unroll_i;
}

/* ranges.c: block-sparse runs (nbrt_run_ranges).  The mapped form is
 * the cell lists' (cutoff.c): its inputs are sorted copies, so the kernel
 * sees i as imap[i] and j as jmap[j] (NULL: as they are) wherever the
 * source reads `i` or `j`, argmin's index included; its ranges were built
 * by the runtime and are trusted (checked only in debug builds). */
int nbrt_run_ranges_mapped(nbrt_kernel *k, size_t ni, size_t nj,
                           const nbrt_ranges *r, const size_t *imap,
                           const size_t *jmap);
/* The same, adding into the results as they are where accum is set
 * (every reduction but argmin's and argmax's, refused then): a second
 * list over the same i, as a treecode's near field after its far field.
 * `checked`: NBRT_RANGES_CHECKED, the ranges come from a caller and are
 * checked as nbrt_run_ranges checks them; NBRT_RANGES_PLANNED, they are
 * in the plan's form already (groups ascending and disjoint, each
 * group's ranges sorted, non-empty and with neighbours joined, offset
 * of ngroups + 2 with the last two equal: a treecode's lists) and the
 * plan reads them where they are, no copy; 0, trusted, put in order. */
enum { NBRT_RANGES_CHECKED = 1, NBRT_RANGES_PLANNED = 2 };
/* The kernel that runs k's block-sparse plans (k, or k's .nbl compiled
 * with the ranges entry), of the shape for lists whose busy groups (those
 * with a non-empty range) cover `cover` i-elements; NULL after a failure.
 * For a plan made on the device (cl/cells.c). */
nbrt_kernel *nbrt_ranges_variant(nbrt_kernel *k, size_t cover, size_t busy,
                                 int pack);
int nbrt_run_ranges_ex(nbrt_kernel *k, size_t ni, size_t nj,
                       const nbrt_ranges *r, const size_t *imap,
                       const size_t *jmap, int accum, int checked);

/* newton.c: Newton's third law.  The hook of the cell lists (cutoff.c,
 * nbrt_cutoff.self) and of nbrt_run_self: runs the kernel's pairs entry
 * on its bindings (the n elements as both i and j; in cell lists the
 * sorted, imaged copies, so that `i` and `j` in the source are their
 * indices) over ntask tasks of 4 longs (i0 i1 j0 j1).  Ranges are
 * blocks: two of them (of any tasks, either side) are equal or
 * disjoint.  A task whose i-range is its j-range computes all of that
 * block's pairs, any other adds each pair's term to i and +- to j; each
 * unordered pair must come once.  Each block takes its terms in the
 * list's order, whatever the threads; the list should come in rounds
 * that touch each block once a side (nbrt_run_self's round robin; the
 * half stencil's offsets, one a round), so that threads rarely wait.
 * Allocates the j-side sums (memory checked first).  Returns 0 or -1. */
int nbrt_run_newton_tasks(nbrt_kernel *k, size_t n, const long *task,
                          long ntask);
/* The cell lists' (nbrt_run_cutoff with self, cl built from the same n
 * elements as i and j, the sorted copies bound to host arrays): each
 * pair of cells once, through the hook; the results in sorted i.  1
 * when it does not apply (noted: mode, device, size, orders), the
 * caller then runs the lists; 0 or -1. */
struct nbrt_cells;
/* Whether a self run of n in cell lists would take it (mode, device,
 * size): the device's own lists (cl/cells.c) then leave the call to the
 * host's. */
int nbrt_newton_cells_wanted(const nbrt_kernel *k, size_t n);
int nbrt_run_newton_cells(nbrt_kernel *k, size_t n,
                          const struct nbrt_cells *cl);

/* tree.c: the treecode's octree (nbrt_run_tree).  Cells in breadth-first
 * order, a cell's children after it and next to each other, so moments
 * are made in one pass from the last cell back. */
#define NBRT_TREE_DEPTH 21 /* levels: 3 x 21 bits of a Morton key */
/* the most results a tree call keeps on the device and puts back in the
 * caller's order there (tree.c's chained, the back end's tree_results) */
#define NBRT_TREE_MAXRES 4
typedef struct nbrt_cell {
	size_t a, b;     /* its bodies [a, b) in Morton order */
	size_t child;    /* its first child; nchild 0: a leaf */
	int nchild, level;
	double side;     /* of its cube */
	double m, c[3];  /* mass, centre of mass */
	double q[6];     /* xx, yy, zz, xy, xz, yz about c, traceless */
} nbrt_cell;
typedef struct nbrt_octree {
	size_t n, ncell, cap;
	nbrt_cell *cell;
	nbrt_work *work; /* where cell is kept between calls, or NULL */
	/* colslot > 0 (set before the build, with moments): the gravity
	 * expansions' ten columns (c, m, q; a value a cell) written by the
	 * build as it makes each cell's moments, kept in work from colslot
	 * on, and not freed with the tree (tree.c's far_columns takes them) */
	int colslot;
	double *col[10];
	/* wcslot > 0 (set before the build, with moments): the walk's
	 * cells (tree.c's, for any theta), written as each cell's moments
	 * are made, kept in work's slot wcslot and freed with the tree */
	int wcslot;
	void *wc;
} nbrt_octree;
/* Builds the cells over n bodies whose keys key[0..n) are sorted, in the
 * cube (lo, side): a cell of more than bucket bodies is split unless at
 * NBRT_TREE_DEPTH; with every cell's monopole and quadrupole, in double,
 * from the sorted bodies' x[3][n] and m[n] (x NULL: none); job(arg, q)
 * for q < njob, each run once by one of its threads (tree.c's i-groups
 * and its read of the memory left).  Returns 0, or -1 with the message
 * set (memory). */
int nbrt_octree_build(nbrt *rt, nbrt_octree *t, const unsigned long long *key,
                      size_t n, size_t bucket, double side,
                      double *const x[3], const double *m,
                      void (*job)(void *, int), void *arg, int njob);
void nbrt_octree_free(nbrt_octree *t);

/* nbrt_mem.c: reports the progress of the run (nbrt_show_progress). */
void nbrt_progress(nbrt_kernel *k, double done, double total);

/* convert.c: host values to and from the kernel's types. */
size_t nbrt_prec_size(nb_prec t);   /* bytes of one value: 4, 8, 16 */
/* Whether a host array of t has exactly the layout of an array of kt. */
int nbrt_same_layout(nbrt_type t, nb_prec kt);
/* Converts n host values into kernel scalars: value e goes to scalar
 * e * stride + off (and the next one for a dd's low part). */
void nbrt_to_kernel(void *dst, nb_prec kt, size_t stride, size_t off,
                    const void *src, nbrt_type t, size_t n);
/* The reverse: host value e from scalar e * stride + off. */
void nbrt_from_kernel(void *dst, nbrt_type t, const void *src, nb_prec kt,
                      size_t stride, size_t off, size_t n);

/* buildopts.c: the build options a kernel may bring. */

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

/* cache.c: the on-disk cache of compiled programs. */

/* The cache directory for a device being opened (see nbrt_cache_dir):
 * malloc'd, or NULL for no cache. */
char *nbrt_cache_choose(void);
/* A cache key: length-prefixed fields, so no two field lists collide. */
typedef struct nbrt_key {
	char *s;
	size_t len, cap;
} nbrt_key;
int nbrt_key_add(nbrt_key *k, const char *s, size_t n);
/* A kernel's code as a field (or two) of a key: without the line of its
 * interface naming the .nbl it came from, a comment that changes no
 * instruction, so the same kernel at two paths (a copy, another build
 * tree) is built once.  Messages take the name from the text itself. */
int nbrt_key_add_code(nbrt_key *k, const char *code, size_t len);
/* The cache file for a key: "DIR/HASH.ext", NULL when there is no cache. */
char *nbrt_cache_path(const nbrt *rt, const nbrt_key *k, const char *ext);
void nbrt_key_hash(const nbrt_key *k, char out[33]);
/* The same 128-bit hash of any bytes, as 32 hex digits: cache entries
 * carry the digest of their contents, so a damaged one is rebuilt rather
 * than handed to the loader or the OpenCL driver (which may crash on it). */
void nbrt_digest(const void *data, size_t len, char out[33]);
/* Cache entries (cache.c): the data, then the whole key it was made for,
 * then its length and the digest of both.  nbrt_cache_get returns the
 * data (len bytes, NUL after them) of the entry at path made for key k;
 * NULL when there is none, it is not a regular file of ours that only we
 * may write, or it is damaged or another key's (noted).  It never follows
 * a link nor blocks on a FIFO.  nbrt_cache_put writes one: a private
 * temporary of its own, renamed over whatever path held (a link is
 * replaced, never followed); a failure is noted, the run goes on. */
char *nbrt_cache_get(const nbrt *rt, const char *path, const nbrt_key *k,
                     size_t *len);
void nbrt_cache_put(const nbrt *rt, const char *path, const nbrt_key *k,
                    const void *data, size_t len);

/* sortkv.c: the runtime's sort of (key, value) pairs (order.h's
 * nbrt_kv): the device's (nbrt_backend.sort) where the device is a GPU
 * and n is large, or $NBRT_DEVICE_SORT=1 asks for it (0: never), else
 * nbrt_order_sort_bits; the same order bit for bit, either way.  differ:
 * the bits the keys differ in, 0: found here.  Returns kv or tmp, the
 * one that holds the result, or NULL with the message set (a bad
 * $NBRT_DEVICE_SORT, the device's failure where $NBRT_DEVICE_SORT=1;
 * otherwise the host sorts, and NBRT_VERBOSE notes why). */
struct nbrt_kv *nbrt_sort_kv(nbrt *rt, struct nbrt_kv *kv,
                             struct nbrt_kv *tmp, size_t n, uint64_t differ);
/* Whether n keys are the device's to sort by that rule: 1 yes, 0 no, -1
 * a bad $NBRT_DEVICE_SORT (the message set); *forced: $NBRT_DEVICE_SORT=1
 * (the device's failure is then the call's). */
int nbrt_sort_device(nbrt *rt, size_t n, int *forced);

/* msg.c: failures, notes and listings. */

/* Records the message of a failure; returns -1 for the caller to return. */
int nbrt_fail(nbrt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A line on stderr when NBRT_VERBOSE is set. */
void nbrt_note(const nbrt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *nbrt_aprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The integer switch $name, when set and not empty, into *v: 1; unset, *v
 * kept: 0; a value that is not a decimal integer in [lo, hi] (a 0/1
 * switch: lo 0, hi 1) fails with a message naming it: -1. */
int nbrt_env_int(nbrt *rt, const char *name, long lo, long hi, long *v);
/* "KEY VALUE\n", the value's control bytes and backslashes escaped (\xHH),
 * so a listing is one line per key whatever a driver reports. */
void nbrt_put_str(FILE *out, const char *key, const char *s);

/* machine.c */
double nbrt_now(void);

/* cells.c: the cell lists of nbrt_run_cutoff, pure (no kernel, no
 * device; docs/neighbours.md).  Positions are dim columns of doubles,
 * ipos[d][0..ni) and jpos[d][0..nj).  The i-elements are sorted by the
 * Morton key of their cell (cutoff / split wide), and so are the
 * j-elements with their periodic images: a j within the cutoff of a
 * face of a periodic axis is met again outside the box, its coordinate
 * shifted by +period (-period), edges and corners included.  Group g of
 * r is a range of sorted i: at most gmax elements within one block of
 * split^dim cells, or a part of one cell; its j-ranges (over sorted j
 * and images) are the occupied j-cells whose elements' bounding box
 * comes within the cutoff of the group's, in order, adjacent ones
 * merged.  Every pair within the cutoff (through the one image within
 * it, on periodic axes) is in exactly one (group, range), with whole
 * cells around it; a group's real elements are one run of the j-order
 * (no image between them). */
typedef struct nbrt_cells {
	size_t ni, njimg;    /* i-elements; j-elements with their images */
	size_t *iperm;       /* ni: sorted i -> the caller's i */
	size_t *jsrc;        /* njimg: sorted j or image -> the caller's j */
	/* 3 * njimg: element e's position along axis d is the caller's plus
	 * jshift[3e + d] (-1, 0 or 1) times period[d] */
	signed char *jshift;
	nbrt_ranges r;       /* over sorted i and sorted j, in the arrays: */
	size_t *group, *offset, *range;
	double pairs;        /* sum over groups of |group| * its j-elements */
	long long ncell[3];  /* cells of each axis (images not counted) */
	double width[3];     /* and their width, at least cutoff / split */
	int split;           /* cells a cutoff an axis (nbrt_cutoff.split) */
	size_t gmax;         /* most elements a group (nbrt_cutoff.group) */
	double time[4];      /* seconds: keys, sort, cells, lists */
	nbrt_work *work;     /* where the arrays above are kept, or NULL */
	int same;            /* j sorted as i (a self run, no images): jsrc
	                      * is the array iperm, jshift 0 */
} nbrt_cells;
/* The cutoff, dim and periods alone (nbrt_run_cutoff checks them before
 * it reads a position).  0, or -1 with a message naming the value and
 * what is allowed in err (len bytes). */
int nbrt_cells_check(const nbrt_cutoff *c, char *err, size_t len);
/* Builds cl from positions and c (its ipos and jpos name the columns in
 * messages): nbrt_cells_check, every position finite and on periodic
 * axes in [0, period), then at most `memory` bytes allocated, the need
 * checked before each allocation.  0, or -1 with the message in err and
 * nothing left allocated.  nbrt_cells_free frees a built cl (or a zeroed
 * one). */
int nbrt_cells_build(nbrt_cells *cl, const nbrt_cutoff *c,
                     const double *const ipos[3], size_t ni,
                     const double *const jpos[3], size_t nj, double memory,
                     char *err, size_t len);
/* Position columns of one side, each of doubles or (isfloat) of floats,
 * read where they are: a float kernel's caller holds floats, which a
 * copy as doubles would only cost a pass and its memory. */
typedef struct nbrt_pos {
	const void *p[3];
	unsigned char isfloat[3];
} nbrt_pos;
/* The same with every array in w's slots (w NULL: allocated, as
 * above), kept there after nbrt_cells_free, from columns of either
 * type. */
int nbrt_cells_build_in(nbrt_cells *cl, nbrt_work *w, const nbrt_cutoff *c,
                        const nbrt_pos *ipos, size_t ni,
                        const nbrt_pos *jpos, size_t nj, double memory,
                        char *err, size_t len);
void nbrt_cells_free(nbrt_cells *cl);
/* The cells of cutoff / split over the bounding box [lo, hi] of open
 * axes, as the host builder would make them: cell c of axis d covers
 * [org[d] + c w[d], org[d] + (c + 1) w[d]), n[d] of them, the last
 * taking what lies beyond; a pair within the cutoff is at most split
 * cells apart along each axis.  -1 where a span overflows (the host
 * builder measures it at half scale). */
int nbrt_cells_grid(const nbrt_cutoff *c, int split, const double lo[3],
                    const double hi[3], double org[3], double w[3],
                    long long n[3]);

#endif
