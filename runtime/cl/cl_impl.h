/* cl_impl.h: what the files of the OpenCL back end (nbrt_cl_backend,
 * backend.c) share: OpenCL's headers, which no other file of the runtime
 * sees, the device's and a kernel's records, the runtime's own kernels,
 * and each file's part, lowest last.  Only OpenCL 1.2 calls, so the same
 * code runs on PoCL and on NVIDIA's OpenCL 3.0. */
#ifndef NBRT_CL_IMPL_H
#define NBRT_CL_IMPL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include "nbrt_impl.h"

#define CL_STD "-cl-std=CL1.2"
/* kernels.cl's block ranges kernel: cells a work group, and the most
 * ranges a cell (reach 3: 7 x 7 rows) its local memory holds; given to
 * its build as defines (array.c) */
#define NBRT_CELLS_BLOCK 32
#define NBRT_CELLS_MAXR 49
/* The failures a test may force, each at one place of the back end
 * (NBRT_TEST_FAIL=NAME, read by nbrt_cl_test_fail; docs/hacking.md):
 * the lazy NB_OWN build (program.c), the scatter of a tree's results
 * kept on the device (morton.c), a run from a kept run's results
 * (run.c: the treecode's near run, after its far run was left running),
 * the block ranges kernel's room, 25 ranges a cell, not
 * NBRT_CELLS_MAXR (array.c: cells of a third then take the per-cell
 * kernel), a timed queued run's launch found failed when waited for
 * and untimed queued runs found failed by the finish after them
 * (queue.c), and the lazy NB_DIRECT and NB_DIN builds (program.c). */
#define CL_TEST_FAILS(X)                                                   \
	X(TF_OWN_BUILD, own_build) X(TF_TREE_RESULTS, tree_results)           \
	X(TF_NEAR_RUN, near_run) X(TF_BLOCK_ROOM, block_room)                 \
	X(TF_QUEUED_RUN, queued_run) X(TF_UNTIMED_RUN, untimed_run)           \
	X(TF_DIRECT_BUILD, direct_build) X(TF_DIN_BUILD, din_build)
enum {
#define X(id, name) id,
	CL_TEST_FAILS(X)
#undef X
	TF_N
};
#define NBRT_STR_(x) #x
#define NBRT_STR(x) NBRT_STR_(x)

/* The runtime's own kernels (kernels.cl): each one's index and name.
 * The three of a kind are in nb_prec's order (float, double, dd), so
 * the first plus a precision names the one for it. */
#define CL_OWN_KERNELS(X)                                                  \
	X(AK_TO_F, nbrt_to_f) X(AK_TO_D, nbrt_to_d) X(AK_TO_DD, nbrt_to_dd)    \
	X(AK_FROM_F, nbrt_from_f) X(AK_FROM_D, nbrt_from_d)                    \
	X(AK_FROM_DD, nbrt_from_dd)                                            \
	X(AK_TO_F4, nbrt_to_f4) X(AK_TO_D4, nbrt_to_d4)                        \
	X(AK_TO_DD4, nbrt_to_dd4) X(AK_FROM_F4, nbrt_from_f4)                  \
	X(AK_FROM_D4, nbrt_from_d4) X(AK_FROM_DD4, nbrt_from_dd4)              \
	X(AK_AXPY, nbrt_axpy) X(AK_AXPY2, nbrt_axpy2)                          \
	X(AK_AXPYF, nbrt_axpyf) X(AK_AXPY2F, nbrt_axpy2f)                      \
	X(AK_FINITE, nbrt_finite) X(AK_AXPY_FINITE, nbrt_axpy_finite)          \
	X(AK_SUM_F, nbrt_sum_f) X(AK_SUM_D, nbrt_sum_d) X(AK_SUM_DD, nbrt_sum_dd) \
	X(AK_PUT, nbrt_put) X(AK_PREDICT, nbrt_predict)                        \
	X(AK_GATHER, nbrt_gather)                                              \
	X(AK_SORT_DIFFER, nbrt_sort_differ) X(AK_SORT_COUNT, nbrt_sort_count)  \
	X(AK_SORT_SCAN, nbrt_sort_scan) X(AK_SORT_SCATTER, nbrt_sort_scatter) \
	X(AK_SORT8_HIST, nbrt_sort8_hist) X(AK_SORT8_PASS, nbrt_sort8_pass)    \
	X(AK_CELLS_BBOX, nbrt_cells_bbox) X(AK_CELLS_KEYS, nbrt_cells_keys)    \
	X(AK_CELLS_STARTS, nbrt_cells_starts)                                  \
	X(AK_CELLS_RANGES, nbrt_cells_ranges)                                  \
	X(AK_CELLS_RANGES_BLOCK, nbrt_cells_ranges_block)                      \
	X(AK_CELLS_SUMS, nbrt_cells_sums) X(AK_CELLS_TASKS1, nbrt_cells_tasks1) \
	X(AK_CELLS_GATHER, nbrt_cells_gather)                                  \
	X(AK_CELLS_SCATTER, nbrt_cells_scatter)                                \
	X(AK_MORTON_KEYS, nbrt_morton_keys) X(AK_TREE_ADD, nbrt_tree_add)     \
	X(AK_MORTON_KEYS8, nbrt_morton_keys8)                                  \
	X(AK_MORTON_GATHER, nbrt_morton_gather)
enum {
#define X(id, name) id,
	CL_OWN_KERNELS(X)
#undef X
	AK_N
};
/* The own kernel of a kind (AK_TO_F, AK_FROM_F, AK_SUM_F) for precision t. */
_Static_assert(AK_TO_DD - AK_TO_F == NB_DD - NB_FLOAT &&
               AK_FROM_DD - AK_FROM_F == NB_DD - NB_FLOAT &&
               AK_TO_DD4 - AK_TO_F4 == NB_DD - NB_FLOAT &&
               AK_FROM_DD4 - AK_FROM_F4 == NB_DD - NB_FLOAT &&
               AK_SUM_DD - AK_SUM_F == NB_DD - NB_FLOAT,
               "CL_OWN_KERNELS: float, double, dd in nb_prec's order");
static inline int nbrt_cl_own(int kind, nb_prec t)
{
	return kind + (int)(t - NB_FLOAT);
}

/* The most queued launches kept (queue.c) before the older half are
 * waited for. */
#define NBRT_CL_QUEUED 256

/* The device (rt->priv); its limits that others read are in rt. */
typedef struct Cl {
	cl_platform_id plat;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	cl_command_queue q2; /* beside q (run.c), made at its first use */
	char *devkey;      /* device, platform and driver versions */
	int nvidia;
	int fp64;
	size_t maxwg;
	cl_ulong localmem; /* local memory per work group */
	/* nbrt_array's device side, made with the first array: the
	 * runtime's own program (kernels.cl), a flag for nbrt_array_finite
	 * (made with its first check),
	 * and pinned memory for what crosses to and from the host */
	cl_program aux;
	cl_kernel ak[AK_N];
	size_t akwg;       /* work-group size of the aux kernels */
	int maxr;          /* the block ranges kernel's room: NBRT_CELLS_MAXR */
	cl_mem flag;
	cl_mem pin;        /* CL_MEM_ALLOC_HOST_PTR, kept mapped at pinp */
	void *pinp;
	size_t pincap;
	/* the arrays' float copies, all in one buffer (array.c's shadow
	 * room): sh of shcap floats, used up to shtop, and the arrays that
	 * have one (nsh of them, room for capsh) */
	cl_mem sh;
	size_t shcap, shtop;
	nbrt_array **shl;
	int nsh, capsh;
	/* the finite check's two halves (nbrt_array_finite_queue): per
	 * slot, its flag, the read of it into fpinp[slot] (pinned, made
	 * with the first), how many queued launches came before it, and the
	 * epoch that says "not finite"; fepoch: the last check's (array.c) */
	cl_mem fflag[2];
	cl_event fev[2];
	unsigned long long fmark[2];
	cl_uint fwant[2], fepoch;
	cl_mem fpin;
	void *fpinp;       /* two cl_uint */
	size_t fpincap;
	/* the radix sort's (sort.c): its work-group size (0: not yet
	 * found), the groups' counts or partial keys, the host pairs'
	 * device copies (keys, values, and their ping-pong twins; all
	 * released by nbrt_cl_close) and the last host sort's times */
	size_t sortwg;
	cl_mem sorthist;
	size_t sorthistcap;
	cl_mem sortbuf[4];
	size_t sortcap[4];
	double sorttime[3];
	/* the treecode's bodies on the device (morton.c): positions and
	 * masses, then their sorted copies (released by nbrt_cl_close) */
	cl_mem mortbuf[8];
	size_t mortcap[8];
	/* the order of the last sort of each slot (tree_sort's), kept for
	 * tree_scatter, and its length (0: none) */
	cl_mem mortperm[2];
	size_t mortpermcap[2], mortkept[2];
	/* queued runs' launches not yet waited for (queue.c), each with its
	 * kernel's name for the message, and what the waited ones took since
	 * the last nbrt_wait: the first start, the last end (ns), the time
	 * they ran (s), how many */
	cl_event qev[NBRT_CL_QUEUED];
	char qwho[NBRT_CL_QUEUED][64];
	int nq;
	/* launches ever queued and ever waited for: a finite check's mark */
	unsigned long long qadded, qdone;
	cl_ulong qstart, qend;
	double qbusy;
	long qn;
	/* untimed queued runs since the last settle, the last one's kernel */
	long nplain;
	char plainwho[64];
} Cl;

/* The arguments of an OpenCL entry before the kernel's own (emit_opencl.c's
 * cl_kernel writes them): the dense entry's ni, nj, ibase, jbase and accum
 * (run.c's launch); the ranges entry's task base, its plan's task, offset,
 * range, i-map and j-map buffers, nb_mapped and accum (run.c's put_plan);
 * the own sums' entry has nb_part and nb_cnt after the kernel's own. */
enum { CL_DENSE_LEAD = 5, CL_RANGES_LEAD = 8, CL_OWN_TAIL = 2 };
/* The kernel's own arguments: its LMEM arrays, BMEM packs, CONSTs and
 * RMEM arrays. */
int nbrt_cl_own_args(const nb_iface *f);

/* A loaded kernel (k->priv). */
typedef struct Prog {
	cl_program prog;
	cl_kernel kern;
	/* the entry of block-sparse runs (nb_iface.ranges) and its plan's
	 * buffers: tasks, offsets, ranges, i-map, j-map (run.c) */
	cl_kernel rkern;
	cl_mem rmem[5];
	size_t rcap[5];
	/* their ints staged in pinned memory, kept from run to run (a
	 * treecode's far ranges are tens of millions a step) */
	cl_mem rpin[5];
	void *rpinp[5];
	size_t rpincap[5];
	int nmem;          /* LMEM vars, BMEM packs, RMEM vars */
	cl_mem *mem;
	size_t *cap;       /* bytes allocated for each mem */
	/* per input mem: the device arrays whose conversion it holds, by
	 * their stamps (nbrt_array_touch) and length, queued while
	 * rt->fails was `fails`; na 0: unknown (run.c's held) */
	struct Held {
		unsigned long fails;
		size_t n;
		int na;
		unsigned long long ver[16];
	} *held;
	/* each mem's staging copy for conversions on the host: pinned
	 * (CL_MEM_ALLOC_HOST_PTR), mapped at pinp, kept from run to run */
	cl_mem *pin;
	void **pinp;
	size_t *pincap;
	/* the back end's hostbuf (run.c): a cell list's sorted copies, nhost
	 * pinned buffers mapped at hostp, kept from run to run */
	int nhost;
	cl_mem *host;
	void **hostp;
	size_t *hostcap;
	/* per RMEM mem: the j-slices' sums, slice s at s * ni (run.c) */
	cl_mem *part;
	size_t *partcap;
	/* the options of the kernel's build (program.c), NVIDIA's first */
	char opt[2][512];
	/* the kernel built again to add its slices up itself (NB_OWN), where
	 * a kernel of slices 2 may be sliced: ocode its code kept for that
	 * build, made at the first launch launch.c's nbrt_own_rule gives it
	 * (nbrt_cl_own_entry); ownmode the NBRT_OWN_SLICES override (-1 the
	 * rule, 0 never, 1 every sliced launch); its slices' sums, and a
	 * count a work item over the j-split, zero between launches (run.c) */
	char *ocode;
	size_t olen;
	cl_program oprog;
	cl_kernel okern;
	int ownmode;
	/* the dense entry built again to store its results straight into
	 * the nbrt_arrays of doubles bound to them (NB_DIRECT), so that a
	 * run of one launch on device arrays is that launch alone, without
	 * the results' conversion after it: xcode its code kept for that
	 * build, made at the first run that takes it, one launch unsliced
	 * (run.c's launch, nbrt_cl_direct_entry), where the device has
	 * doubles and NBRT_DIRECT is not 0; direct: the last
	 * run's results are in the arrays, not in mem (nbrt_cl_var_mem);
	 * xnote the path NBRT_VERBOSE last named (run.c's path_note) */
	char *xcode;
	size_t xlen;
	cl_program xprog;
	cl_kernel xkern;
	/* the same entry reading its inputs from the arrays too (NB_DIN):
	 * a run of one launch whose inputs are all device arrays needs no
	 * conversion before it either (nbrt_cl_din_entry; NBRT_DIRECT=1
	 * keeps the conversion) */
	char *icode;
	size_t ilen;
	cl_program iprog;
	cl_kernel ikern;
	long din_max; /* NBRT_DIN_MAX, or -1: the row's din_max */
	/* that entry reads its float inputs from the arrays' float copies
	 * in the shadow room (NB_DIN_SH=1; run.c's shadows), unless
	 * NBRT_DIN_SHADOW=0 */
	int dinf;
	int direct;
	int din; /* the last run's inputs are in their arrays, not in mem */
	enum Xnote {
		XNOTE_NONE,     /* no run on device arrays named yet */
		XNOTE_STORED,   /* the last named stored by the kernel */
		XNOTE_READ,     /* and its inputs read from the arrays too */
		XNOTE_CONVERTED /* the last named converted after it */
	} xnote;
	/* runs, and their launches of the kernel and of conversions
	 * (NBRT_VERBOSE's note at nbrt_cl_free) */
	long nrun, nkern, nconv;
	cl_mem spart, scnt;
	size_t spartcap, scntcap;
	/* the device cell lists' own buffers (cells.c), kept from call to
	 * call: nown of them, owncap bytes each */
	int nown;
	cl_mem *own;
	size_t *owncap;
	/* the entries of Newton's third law (nb_iface pairs, and its fold:
	 * newton.c), of a variant unrolled 1 x 1; their plan goes in rmem */
	cl_kernel pkern, fkern;
	/* the dense self run's entries (its _dense and _dfold), made at its
	 * first run (nbrt_cl_dense_entries) */
	cl_kernel dkern, dfkern;
	/* a kept run's launches not yet waited for (run.c's nbrt_cl_settle) */
	cl_event pend[8];
	int npend;
	/* queued runs' host seconds (NBRT_VERBOSE's note at the kernel's
	 * free): inputs, launches, results' conversion, the queue's part;
	 * how many of them were untimed */
	long nqrun, nqplain;
	double qhost[4];
} Prog;

/* error.c: what failed, in OpenCL's words. */

/* "CL_INVALID_VALUE" for -30 */
const char *nbrt_cl_errname(cl_int e);
/* The message "WHAT: CALL failed with NAME (CODE) on DEVICE"; returns -1.
 * _on names the device, which nbrt_cl_fail takes from rt. */
int nbrt_cl_fail_on(nbrt *rt, const char *what, const char *call, cl_int e,
                    const char *dev);
int nbrt_cl_fail(nbrt *rt, const char *what, const char *call, cl_int e);

/* queue.c: queued runs' launches (nbrt_set_queue), waited for later.
 * queue_add: n launches of kernel's run, the events now the queue's
 * (flushed, so they start), untimed: a run without events (n 0);
 * queue_settle: all of them waited for, the first failure reported (its
 * kernel and the device); wait: the same, and (t not NULL) the span from
 * the first start to the last end and the seconds they ran of the timed
 * launches waited for since the last wait. */
int nbrt_cl_queue_add(nbrt *rt, const char *kernel, cl_event *ev, int n,
                      int untimed);
int nbrt_cl_queue_settle(nbrt *rt);
int nbrt_cl_wait(nbrt *rt, double t[2]);
/* Waits for the queued launches before mark (c->qadded then) and gives
 * nbrt_wait's t for those waited for since the last wait; the later ones
 * run on. */
int nbrt_cl_wait_upto(nbrt *rt, unsigned long long mark, double t[2]);

/* device.c: the platforms' devices, one picked, opened and described. */
int nbrt_cl_open(nbrt *rt, const char *spec);
void nbrt_cl_close(nbrt *rt);
int nbrt_cl_list(FILE *out);
int nbrt_cl_describe(const nbrt *rt, FILE *out);
/* s without its leading blanks and trailing blanks and newlines, in
 * place: what drivers report */
char *nbrt_cl_trim(char *s);

/* program.c: programs built, or their binaries taken from the cache. */

/* The program of code built for the device with the first of opts[0..n)
 * that builds (each failure but the last noted), or from the cache,
 * keyed by the first; NULL with the message of the last failure.  *hit,
 * if not NULL, says it came from the cache. */
cl_program nbrt_cl_program(nbrt *rt, const char *name, const char *code,
                           size_t len, const char *const *opts, int n,
                           int *hit);
int nbrt_cl_load(nbrt_kernel *k, const char *code, size_t len);
void nbrt_cl_free(nbrt_kernel *k);
cl_kernel nbrt_cl_own_entry(nbrt_kernel *k);
cl_kernel nbrt_cl_direct_entry(nbrt_kernel *k);
cl_kernel nbrt_cl_din_entry(nbrt_kernel *k);
/* Whether $NBRT_TEST_FAIL asks failure `what` (a TF_ value): 1 yes, 0
 * no (unset, or another); a name not in CL_TEST_FAILS fails: -1, the
 * message set (every kernel's load checks it, what -1). */
int nbrt_cl_test_fail(nbrt *rt, int what);

/* array.c: the runtime's own kernels, nbrt_array's device side and the
 * pinned memory that crosses to and from the host. */

/* Builds kernels.cl once a device (or takes it from the cache). */
int nbrt_cl_aux_load(nbrt *rt);
/* Queues own kernel i over n work items; ev, if not NULL, its event. */
int nbrt_cl_aux_queue(nbrt *rt, int i, size_t n, cl_event *ev);
/* Sets the arguments of own kernel i, given as ARG(v) pairs ending in a
 * size 0, and queues it over n work items (none: n = 0). */
int nbrt_cl_aux_run(nbrt *rt, int i, size_t n, ...);
#define ARG(v) sizeof(v), (const void *)&(v)
/* Conversions of na (1 to 8) columns in one launch: to, arrays src[c]
 * (nbrt_array's doubles, n[c] values) into scalar i * stride[c] + off[c]
 * of kernel buffers dst[c], converted to kt; else a kernel's n[c] results
 * src[c] of type kt into arrays dst[c] (stride and off unused). */
int nbrt_cl_aux_conv(nbrt *rt, int to, nb_prec kt, int na,
                     const cl_mem src[8], const cl_mem dst[8],
                     const size_t stride[8], const size_t off[8],
                     const size_t n[8]);
/* Pinned host memory of at least bytes in *mem, mapped at *ptr (see
 * array.c); nothing queued may still use the old one. */
int nbrt_cl_pinned(nbrt *rt, const char *what, cl_mem *mem, void **ptr,
                   size_t *cap, size_t bytes);
/* n bytes copied over every thread from a megabyte on (nbrt_order_pieces). */
void nbrt_cl_copy(void *dst, const void *src, size_t n);
int nbrt_cl_array_new(nbrt_array *a);
void nbrt_cl_array_free(nbrt_array *a);
/* a place for a's float copy (nbrt_array.shadowed) in the shadow room,
 * its contents not yet; making room may move every copy, each left
 * stale (shadow_ver 0).  The room goes with the device (nbrt_cl_close). */
int nbrt_cl_shadow_new(nbrt_array *a);
int nbrt_cl_array_write(nbrt_array *a, const double *src);
int nbrt_cl_array_read(const nbrt_array *a, double *dst);
int nbrt_cl_array_axpy(nbrt_array *const *y, double h,
                       nbrt_array *const *x, nbrt_array *const *z, double g,
                       int na);
int nbrt_cl_array_finite(nbrt_array *const *a, int na, int *finite);
int nbrt_cl_finite_queue(nbrt_array *const *a, int na, int slot,
                         nbrt_array *const *y, double h,
                         nbrt_array *const *x, int ny);
int nbrt_cl_finite_take(nbrt *rt, int slot, int *finite, double t[2]);

/* predict.c: nbrt_predictor's device side (the back end's predict_*). */
int nbrt_cl_predict_new(nbrt_predictor *p);
void nbrt_cl_predict_free(nbrt_predictor *p);
int nbrt_cl_predict(nbrt_predictor *p, double now, size_t m,
                    const size_t *act);

/* run.c: a run: uploads, launches, slices, results; and a block-sparse
 * run through the ranges entry. */
int nbrt_cl_run(nbrt_kernel *k, size_t ni, size_t nj);
void *nbrt_cl_hostbuf(nbrt_kernel *k, int slot, size_t bytes);
/* The device buffer of k's RMEM or LMEM v, as its last run left it,
 * where it holds at least `bytes`; else NULL. */
cl_mem nbrt_cl_var_mem(const nbrt_kernel *k, int v, size_t bytes);
int nbrt_cl_settle(nbrt_kernel *k);
/* The device's queue waits for k's kept launches (none: nothing). */
int nbrt_cl_after(nbrt_kernel *k);
int nbrt_cl_settle_late(nbrt_kernel *k);
int nbrt_cl_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                       const nbrt_rplan *p);
/* Queues Newton's launches of k from argument rarg on (newton.c). */
typedef int nbrt_cl_pairs_fn(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                             cl_uint rarg);
/* A run of the pairs entry: the inputs uploaded and its arguments bound
 * as the dense entry's, then queue's launches, then the results read
 * back (newton.c's nbrt_cl_run_pairs, the back end's run_pairs). */
int nbrt_cl_run_queued(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                       nbrt_cl_pairs_fn *queue);

/* sort.c: the device's stable radix sort (kernels.cl's nbrt_sort_*). */

/* Sorts n (key, value) pairs held on the device (keys ulong, values
 * uint; n < 2^32) stably by the key bits in `differ` (0: find them),
 * ping-ponging with tmpk and tmpv (n elements each); *keys and *vals
 * end holding the sorted pairs (the buffers may be swapped with the tmp
 * ones).
 * Queued on the device's queue; returns 0 or -1 with the message set. */
int nbrt_cl_sort(nbrt *rt, cl_mem *keys, cl_mem *vals, cl_mem *tmpk,
                 cl_mem *tmpv, size_t n, uint64_t differ);
/* The sort a byte a pass of n keys (fewer than NBRT_CL_SORT8_MAX), one
 * launch a pass: nbrt_cl_sort8_room makes its work space (sorthist),
 * zeroes its counts and says how many statuses (*ns) and groups a kernel
 * that makes the keys and counts their bytes (nbrt_morton_keys8) is to
 * zero and run with, queued by nbrt_cl_sort_queue; nbrt_cl_sort8 then
 * (counted) or with its own counts (nbrt_sort8_hist) queues the 8 passes
 * over all 64 bits, swapping the buffers as nbrt_cl_sort does. */
#define NBRT_CL_SORT8_MAX ((size_t)1 << 30)
int nbrt_cl_sort8_room(nbrt *rt, size_t n, cl_ulong *ns, size_t *groups);
int nbrt_cl_sort8(nbrt *rt, cl_mem *keys, cl_mem *vals, cl_mem *tmpk,
                  cl_mem *tmpv, size_t n, int counted);
/* Queues own kernel i, its arguments set, over G groups of the sort's
 * work-group size. */
int nbrt_cl_sort_queue(nbrt *rt, int i, size_t G);
/* The back end's sort (nbrt_backend.sort): host pairs through pinned
 * staging and the buffers above. */
struct nbrt_kv *nbrt_cl_sort_kv(nbrt *rt, struct nbrt_kv *kv,
                                struct nbrt_kv *tmp, size_t n,
                                uint64_t differ);
/* A device buffer *m of at least bytes (*cap), its contents dropped;
 * what is queued is finished first where it must be replaced. */
int nbrt_cl_grow(nbrt *rt, cl_mem *m, size_t *cap, size_t bytes);
/* The sort's own device buffers (Cl's sortbuf: keys, values and their
 * twins) made room for n pairs. */
int nbrt_cl_sort_room(nbrt *rt, size_t n);
/* The last nbrt_cl_sort_kv's seconds: staging and upload, the sort,
 * download and unstaging (sortbench). */
void nbrt_cl_sort_times(const nbrt *rt, double t[3]);
/* The kernel's buffers (Prog.mem), in the order its entries take them:
 * its LMEM variables, its BMEM packs, its RMEM variables, each in the
 * interface's order; the index of the first of a role's (LMEM, BMEM,
 * RMEM). */
int nbrt_cl_first_mem(const nbrt_kernel *k, nb_role role);
/* Makes the kernel's buffer m (nbrt_cl_first_mem's order) at least
 * `bytes` long; NULL after a failure. */
cl_mem nbrt_cl_kbuf(nbrt_kernel *k, int m, size_t bytes, const char *what);
/* A block-sparse run whose inputs are already in the kernel's buffers and
 * whose plan is on the device (dplan: tasks as int4, offsets, ranges,
 * i-map, j-map); its results are left in the buffers.  p->task and
 * p->glen may be NULL where its pairs are within k->maxint. */
int nbrt_cl_run_resident(nbrt_kernel *k, size_t ni, size_t nj,
                         const nbrt_rplan *p, const cl_mem dplan[5]);

/* cells.c: nbrt_run_cutoff's cell lists built and run on the device
 * (the back end's run_cells). */
int nbrt_cl_run_cells(nbrt_kernel *k, size_t ni, size_t nj,
                      const nbrt_cutoff *c, int split, const int pv[2][3],
                      double time[8], double *pairs);

/* newton.c: the back end's run_pairs, Newton's third law (nbrt_nplan)
 * on the device: its blocks cut into tasks of a work group's slice, the
 * pairs entry's launches, then the fold's into the results (Prog.mem),
 * through run.c's nbrt_cl_run_queued. */
int nbrt_cl_run_pairs(nbrt_kernel *k, size_t n, const nbrt_nplan *np);
/* program.c: makes Prog.dkern and dfkern where not yet made; -1 with the
 * message set (a program without them: made by an older nbcc). */
int nbrt_cl_dense_entries(nbrt_kernel *k);

/* morton.c: the treecode's bodies sorted on the device (the back end's
 * tree_sort). */
int nbrt_cl_tree_sort(nbrt *rt, const double *const x[3], const double *m,
                      size_t n, const double lo[3], double side, int slot,
                      unsigned long long *key, size_t *order,
                      double *const sx[3], double *sm);
/* The back end's tree_scatter and tree_results. */
int nbrt_cl_tree_results(nbrt_kernel *k, nbrt_kernel *far, int slot,
                         size_t n, int nv, const int var[],
                         void *const dst[]);
int nbrt_cl_tree_scatter(nbrt *rt, int slot, size_t n, int nv,
                         void *const dst[], const void *const src[],
                         const size_t es[]);
/* kernels.cl with compiler/ddlib.h in it, embedded by the build
 * ($(B)/cl_kernels_src.c) */
extern const char nbrt_cl_kernels_src[];

#endif
