/* nbrt.h: the nbcc runtime.  Opens a device (an OpenCL device, or the host
 * through the C back end), loads a kernel nbcc wrote or compiles a .nbl in
 * process, binds host arrays by name, runs it for any Ni and Nj, and times it.
 * Every call that can fail returns NULL or -1 and leaves a message that
 * names the call, the error and the device in nbrt_error(). */
#ifndef NBRT_H
#define NBRT_H

#include <stddef.h>
#include <stdint.h>
#include "nbcc.h"

/* Exported by libnbrt.so, built with -fvisibility=hidden: this header's
 * declarations are all it exports. */
#pragma GCC visibility push(default)

typedef struct nbrt nbrt;               /* an open device */
typedef struct nbrt_kernel nbrt_kernel; /* a loaded kernel on it */

/* Host element types of bound arrays; the runtime converts to and from the
 * kernel's own types.  NBRT_DD arrays hold (hi, lo) pairs of doubles. */
typedef enum { NBRT_FLOAT, NBRT_DOUBLE, NBRT_DD } nbrt_type;
/* For bindings, which read no C header (query.c): the precision whose
 * layout an array of t has, by name (nb_prec_name: NBRT_DD holds "dd"
 * pairs); NULL past the last type, the types running up from 0. */
const char *nbrt_type_name(nbrt_type t);

/* Opens a device.  spec:
 *   "host" or "c"    the C back end, compiled by the system's cc, run on
 *                    this CPU with OpenMP (no OpenCL needed)
 *   "amdil"          the AMD IL back end: nbcc's IL interpreter on this
 *                    CPU (docs/amdil.md)
 *   "gpu", "cpu"     the first OpenCL device of that type
 *   "P:D"            platform P, device D (numbers, from 0)
 *   anything else    the first OpenCL device whose platform or device name
 *                    contains it (case-insensitive)
 *   NULL or ""       $NBRT_DEVICE if set, else the first GPU, else the
 *                    first CPU, else (no OpenCL device at all) the host
 * On failure returns NULL and, if err is not NULL, a malloc'd message. */
nbrt *nbrt_open(const char *spec, char **err);
/* The same, opening the nth (from 0, modulo their count; a negative nth
 * is refused) of the OpenCL devices spec matches rather than the first:
 * "gpu" matches every GPU, a name every device that contains it, NULL
 * every GPU (else every CPU).
 * An MPI rank passes its node-local rank, so ranks share a node's GPUs. */
nbrt *nbrt_open_nth(const char *spec, int nth, char **err);
void nbrt_close(nbrt *rt);
/* "NVIDIA H100 (NVIDIA CUDA)", control bytes escaped (nb_esc) */
const char *nbrt_device_name(const nbrt *rt);
int nbrt_is_host(const nbrt *rt);             /* 1 for the C back end */
/* The nbcc target whose kernels the device runs: "c" on the host,
 * "amdil" in the IL interpreter, "opencl" elsewhere. */
const char *nbrt_target(const nbrt *rt);
/* For command lines, the runtime's back ends by the target they run:
 * the device spec that picks target's back end ("host" for c, "amdil"
 * for amdil; NULL for opencl, whose devices have their own specs) and
 * where its kernels run, for messages ("the host").  Either pointer may
 * be NULL.  Returns 0, or -1 when no back end runs target's kernels. */
int nbrt_target_device(const char *target, const char **spec,
                       const char **where);
/* The target whose kernels the device spec's back end runs ("c" for
 * "host", "opencl" for "gpu" or any spec no other back end claims). */
const char *nbrt_spec_target(const char *spec);
/* 1 when target's back end runs its kernels in an interpreter (amdil: for
 * code of hardware there is none of, not for speed; the tuner leaves its
 * kernels as they are), 0 when they run compiled for the device (c,
 * opencl), -1 when no back end runs target's kernels. */
int nbrt_target_interpreted(const char *target);
const char *nbrt_error(const nbrt *rt);       /* last failure's message */

/* Lists OpenCL platforms and devices, one per line, as
 * "P:D  gpu|cpu|other  name".
 * Returns how many (0 when no OpenCL platform is installed), -1 on an
 * OpenCL failure (its message written to out) or for a NULL out. */
int nbrt_list(FILE *out);
/* Prints the open device's limits, one "key value" per line: device,
 * type (gpu, cpu, other, host or interpreter; host and interpreter
 * devices print nothing more),
 * version, driver_version, compute_units, global_mem_size,
 * max_mem_alloc_size, local_mem_size (bytes), local_mem_type,
 * max_work_group_size, max_work_item_sizes (three), fp64, subgroups,
 * subgroup_shuffle (yes or no), extensions.  Tests read their devices'
 * limits from here.  Returns 0 (-1 for a NULL rt or out). */
int nbrt_describe(const nbrt *rt, FILE *out);

/* Loads a kernel: a .cl, .c or .il written by nbcc (its interface read
 * from the header), or a .nbl compiled in process with `opts` (NULL:
 * defaults; a field past what nb_options_check allows is an error; the
 * target is the device's: c for the host, amdil for the IL interpreter,
 * opencl otherwise;
 * compiler warnings go to stderr, errors into nbrt_error).  A name with
 * neither extension is taken as generated if it has the interface header.
 * The host compiles C with ${NBRT_CC:-${CC:-cc}}.  Compiled programs are
 * cached on disk (see nbrt_cache_dir). */
nbrt_kernel *nbrt_load(nbrt *rt, const char *path, const nb_options *opts);
/* The same from source text in memory; `name` is used in messages. */
nbrt_kernel *nbrt_load_source(nbrt *rt, const char *name, const char *src,
                              size_t len, const nb_options *opts);
void nbrt_free(nbrt_kernel *k);
/* The interface of the kernel; after a run, of the variant that ran (a
 * .nbl on a GPU whose j-split was not given gets the split that suits
 * each run's Ni: iface->jsplit says which; a tuned .nbl its size
 * class's winner, see nbrt_set_tune). */
const nb_iface *nbrt_iface(const nbrt_kernel *k);

/* Binds a host array to a LMEM, BMEM (read by nbrt_run) or RMEM (written
 * by nbrt_run) name.  The array must hold Ni (LMEM, RMEM) or Nj (BMEM)
 * elements of type t at the time of nbrt_run (NULL only where that count
 * is 0); result arrays must not overlap input arrays (a run refuses
 * them).  Returns 0 or -1. */
int nbrt_bind(nbrt_kernel *k, const char *name, nbrt_type t, void *host);
/* Arrays that stay on the device between runs: an integrator's state,
 * kept where the kernel reads it so that a step moves nothing to or from
 * the host.  An nbrt_array holds n doubles in the device's memory on an
 * OpenCL device with doubles (cl_khr_fp64), else in the host's (the host
 * and amdil back ends run there; an OpenCL device without doubles gets
 * host arrays, bound as nbrt_bind binds them).  nbrt_array_write and
 * nbrt_array_read copy all n values through the runtime's pinned memory;
 * nbrt_array_finite waits for its answer.  The other operations, and
 * nbrt_run's conversions, are queued in order on the device: whatever ends
 * in a read, nbrt_array_finite or nbrt_run (which waits for its launches,
 * unless queued: nbrt_set_queue) has finished all of them, so a host
 * clock around it times their whole work.  An array a float kernel
 * reads on such a device gets a float copy there too (n floats more, in
 * one buffer of the runtime's for all of them), kept by nbrt_array_axpy
 * and made again where it changed otherwise.  Arrays are freed before
 * their device is closed.  All return 0 or -1 with the message in
 * nbrt_error(rt). */
typedef struct nbrt_array nbrt_array;
nbrt_array *nbrt_array_new(nbrt *rt, size_t n);
void nbrt_array_free(nbrt_array *a);
int nbrt_array_write(nbrt_array *a, const double *src);
int nbrt_array_read(const nbrt_array *a, double *dst);
/* 1 when the array lives in device memory, 0 in the host's. */
int nbrt_array_on_device(const nbrt_array *a);
/* 1 when the device keeps every nbrt_array in its own memory (an OpenCL
 * device with doubles), 0 when they live in the host's. */
int nbrt_device_arrays(const nbrt *rt);
/* Binds an array (of the kernel's device) to a LMEM, BMEM or RMEM name,
 * as nbrt_bind binds a host array of NBRT_DOUBLE: nbrt_run converts its
 * values into the kernel's type (inputs) or the results into doubles, on
 * the device.  It must hold at least Ni (LMEM, RMEM) or Nj (BMEM) values. */
int nbrt_bind_array(nbrt_kernel *k, const char *name, nbrt_array *a);
/* y[c][i] += h * x[c][i] for c < na (at most 3) and i < n, the arrays all
 * of one device and n values: each term a multiply and an add, each
 * rounded to double (no fused multiply-add), element by element, so the
 * bits are those of the same loop in C on the host. */
int nbrt_array_axpy(nbrt_array *const *y, double h, nbrt_array *const *x,
                    int na);
/* y[c][i] += h * x[c][i], then z[c][i] += g * y[c][i] (y as updated): the
 * bits of nbrt_array_axpy(y, h, x, na) and then nbrt_array_axpy(z, g, y,
 * na), in one launch (a leap-frog's kick and drift: on a GPU each launch
 * is some microseconds of the host's time). */
int nbrt_array_axpy2(nbrt_array *const *y, double h, nbrt_array *const *x,
                     nbrt_array *const *z, double g, int na);
/* *finite = 1 when every value of a[0..na) (na at most 64) is finite
 * (not NaN or infinite), else 0. */
int nbrt_array_finite(nbrt_array *const *a, int na, int *finite);
/* The same check in two halves, for an integrator that queues its next
 * step before it learns how this one ended: nbrt_array_finite_queue
 * queues the check of a[0..na) behind what is queued and returns at once
 * (at most two checks queued a device); nbrt_array_finite_take waits for
 * the oldest check queued and gives its *finite, and t (or NULL) as
 * nbrt_wait's for the queued launches before that check, which it has
 * waited for (their failure reported here); launches queued after it
 * run on.  Untimed queued runs (nbrt_set_queue 2) report a failure at
 * nbrt_wait or the next read.  Host arrays get their answer at the
 * queue. */
int nbrt_array_finite_queue(nbrt_array *const *a, int na);
int nbrt_array_finite_take(nbrt *rt, int *finite, double t[2]);
/* nbrt_array_axpy(y, h, x, ny) and then nbrt_array_finite_queue(a, na):
 * their bits and their check (y may be among a, checked as updated), in
 * one launch on a device where na is at most 9 (a leap-frog's closing
 * kick and its step's check). */
int nbrt_array_axpy_finite_queue(nbrt_array *const *y, double h,
                                 nbrt_array *const *x, int ny,
                                 nbrt_array *const *a, int na);

/* Block time steps (a Hermite scheme's) with the j-bodies kept where the
 * kernel reads them (runtime/predict.c): each body's Taylor series (x, v,
 * a = dv/dt, j = da/dt, three components each) and its time, an integer
 * count of ticks of `unit` (finite, > 0), live in nbrt arrays; each block step puts the
 * bodies its corrector changed and predicts every body to the block's
 * time there, so that only those bodies cross to the device:
 *   dt = (now - t) unit,  x + v dt + a dt^2/2 + j dt^3/6,  v + a dt + j dt^2/2
 * with dt2 = dt dt 0.5, dt3 = dt2 dt (1/3), the sums from the left, each
 * product and sum rounded (no fused multiply-add): the bits of that loop
 * in C on the host.  nbrt_predictor_array(p, c) is for nbrt_bind_array:
 * c = 0..5 x y z vx vy vz of every body predicted (BMEM), 6..11 the same
 * of the bodies the last nbrt_predict gathered, in its order (LMEM).
 * nbrt_predictor_put: bodies idx[r] (r < m; idx NULL: r itself) take the
 * values src[c][idx[r]] (c < 12: x y z vx vy vz ax ay az jx jy jz; arrays
 * of n) and times t[idx[r]] (below 2^53), each body at most once between
 * two predictions.  nbrt_predict: every body to time `now` (ticks; one
 * before a body's own time gives its series at that negative dt), then
 * bodies act[0..m) gathered.  Queued in
 * order as nbrt_array's operations are; 0 or -1 with the message. */
typedef struct nbrt_predictor nbrt_predictor;
nbrt_predictor *nbrt_predictor_new(nbrt *rt, size_t n, double unit);
void nbrt_predictor_free(nbrt_predictor *p);
nbrt_array *nbrt_predictor_array(const nbrt_predictor *p, int c);
int nbrt_predictor_put(nbrt_predictor *p, size_t m, const size_t *idx,
                       const double *const *src, const uint64_t *t);
int nbrt_predict(nbrt_predictor *p, uint64_t now, size_t m,
                 const size_t *act);

/* Sets a CONST; lo is the low part for dd (0 otherwise).  A NaN in
 * either, or in their sum (infinities of both signs), or for a dd CONST
 * an infinite lo under a finite hi, is refused (it would make every
 * result NaN). */
int nbrt_set_const(nbrt_kernel *k, const char *name, double hi, double lo);

/* Runs for i in [0, ni) and j in [0, nj): uploads the bound inputs,
 * launches, and stores every RMEM into its bound array.  No launch covers
 * more than $NBRT_MAX_INTERACTIONS (default 2^36 on a GPU, 2^33 elsewhere,
 * some seconds of a CPU) interactions: the i range
 * is split first, into parts still wide enough to keep the device busy,
 * then the j range (later j-parts add to the results).
 * ni = 0 writes nothing; nj = 0 stores zeros.  On OpenCL devices ni and nj
 * must fit the kernel's int indices (a little under 2^31).  Returns 0 or
 * -1.  A kernel is not to be run from two threads at once. */
int nbrt_run(nbrt_kernel *k, size_t ni, size_t nj);
/* Block-sparse runs (docs/neighbours.md): i-groups against lists of
 * j-ranges, in the CSR form of KeOps' ranges and FDPS's interaction
 * lists.  Group g covers i in [group[2g], group[2g+1]); its j-ranges are
 * entries offset[g] .. offset[g+1]-1 of range, entry e covering j in
 * [range[2e], range[2e+1]).  offset[0] is 0 and offset never decreases.
 * Groups must not overlap each other, nor the ranges of one group each
 * other (a pair would count twice); empty groups and ranges are allowed,
 * in any order.  An i in no group, or in a group without ranges, gets
 * the reduction's identity, as nbrt_run gives every i when nj = 0. */
typedef struct nbrt_ranges {
	size_t ngroups;
	const size_t *group;  /* 2 * ngroups */
	const size_t *offset; /* ngroups + 1 */
	const size_t *range;  /* 2 * offset[ngroups] */
} nbrt_ranges;
/* Runs for the pairs the ranges name, every reduction as nbrt_run runs
 * it (the kernel's source is the same), results into the bound arrays
 * for all of [0, ni).  The ranges are checked before anything runs:
 * out-of-bounds or overlapping ones are refused, naming the first.
 * Returns 0 or -1. */
int nbrt_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_ranges *r);
/* The total of a result column: sum[0] + sum[1] = sum_i w[i] a[i] (w
 * NULL: all 1) over the n values of t at a, each product and sum in
 * double-double, so a float or double column sums with no error beyond
 * dd's (about 1e-32 of its terms) and a dd column keeps its dd.  For the
 * gradient of a CONST c (docs/autodiff.md): a kernel derived with
 * nb_options.grad naming c gives the per-i column dr_dc[i] = d r[i]/dc;
 * its total is the gradient of sum_i r[i], and with w the incoming
 * gradient of each r[i] (a VJP's cotangent) that of sum_i w[i] r[i].  An
 * infinite or NaN term gives the plain sum's inf or NaN, lo 0.  Returns
 * 0, or -1 when t is not an nbrt_type, sum is NULL, or a is NULL with
 * n > 0. */
int nbrt_sum(nbrt_type t, const void *a, const double *w, size_t n,
             double sum[2]);
/* Pairs (interactions) the last run computed: ni * nj for nbrt_run, the
 * ranges' pairs for nbrt_run_ranges and nbrt_run_cutoff. */
double nbrt_pairs(const nbrt_kernel *k);

/* Cell lists built by the runtime (docs/neighbours.md): the kernel runs
 * for the pairs of i and j within `cutoff` of each other (and some more:
 * whole cells), for a kernel that is zero beyond the cutoff the same
 * results as nbrt_run's, within rounding.  ipos and jpos name the LMEM
 * and BMEM position columns, dim (1 to 3) of each.  period[d] > 0 makes
 * axis d periodic with that length: positions must lie in [0, period),
 * and j-elements near the faces are met again as images shifted by the
 * period, so the kernel sees plain coordinates (the nearest image, for a
 * cutoff below half the period).  0 leaves the axis open. */
typedef struct nbrt_cutoff {
	double cutoff;
	int dim;
	const char *ipos[3], *jpos[3];
	double period[3];
	/* 1: i and j are the same elements (ni == nj, each ipos column
	 * holding what its jpos column holds, in the same order), so that a
	 * kernel declaring its results SYMMETRIC or ANTISYMMETRIC may compute
	 * each pair once (Newton's third law, docs/language.md) */
	int self;
	/* NULL, or filled by the run: seconds of each phase, in the order
	 * of nbrt_cutoff_phase's names (reading the positions and keying
	 * them, sorting, finding the cells, listing their neighbours, the
	 * back end's plan, the sorted copies, the run with its transfers,
	 * the results back in the caller's order), the whole call, the
	 * pairs the lists hold, and 1 where the device built them (an OpenCL
	 * device's own path, docs/neighbours.md), 0 where the host did */
	struct nbrt_cutoff_stats {
		double time[8], total;
		double pairs;
		int device;
	} *stats;
	/* 0 (then NBRT_CELL_SPLIT and NBRT_CELL_GROUP, else 1 and no limit;
	 * a bad value in either fails the call; so does a negative one
	 * here), or: cells
	 * of cutoff / split an axis (1, 2, 4 or 8; others round down), and
	 * i-groups of at most `group` sorted elements within one block of
	 * split^dim cells; a group's j-ranges are the cells whose elements
	 * come within the cutoff of the group's bounding box (split 1: all
	 * 3^dim neighbour cells) (docs/neighbours.md: what each computes,
	 * and how fast) */
	int split, group;
} nbrt_cutoff;
/* The name of phase p of nbrt_cutoff_stats.time ("keys", ...); NULL
 * past the last. */
const char *nbrt_cutoff_phase(int p);
/* Sorts i and j along a Morton curve, bins them into cells no smaller
 * than the cutoff, lists each i-cell's neighbour j-ranges, runs the
 * kernel on them and stores the results in the caller's order (indices
 * the kernel sees, `i`, `j` and argmin's, are the caller's too).  The
 * position columns must be bound to host arrays or nbrt_arrays.  Bad
 * cutoffs, periods, positions (NaN, outside a periodic box) and names
 * are refused before anything runs, and memory is checked before it is
 * allocated.  Returns 0 or -1. */
int nbrt_run_cutoff(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_cutoff *c);
/* The two for bindings, which read no C header (query.c): the structs'
 * fields as arguments; ipos, jpos and period hold dim (1 to 3) each
 * (period NULL: every axis open). */
int nbrt_run_ranges_csr(nbrt_kernel *k, size_t ni, size_t nj,
                        size_t ngroups, const size_t *group,
                        const size_t *offset, const size_t *range);
int nbrt_run_cutoff_args(nbrt_kernel *k, size_t ni, size_t nj, double cutoff,
                         int dim, const char *const *ipos,
                         const char *const *jpos, const double *period,
                         int self);

/* Newton's third law (docs/language.md, "Newton's third law"): a self
 * run, i and j the same n elements (each LMEM holding what a BMEM holds,
 * in the same order, as nbrun --ij maps them), of a kernel whose RMEMs
 * are all SYMMETRIC or ANTISYMMETRIC computes the pair (i, j), i != j,
 * once and adds its term to i and +- to j.  The results are nbrt_run(k,
 * n, n)'s within rounding where the declarations hold, and their bits
 * depend on the inputs and n alone, not on the threads: the elements
 * are cut into blocks, a phase's tasks write disjoint blocks, and the
 * j-side sums are added in a fixed order, with no atomics.  The host C
 * back end and OpenCL devices have the entry (OpenCL's: runtime/cl/
 * newton.c, docs/language.md); in the AMD IL interpreter, and where the
 * mode says off, it is nbrt_run(k, n, n).  NBRT_NEWTON_AUTO (the
 * default) uses it from the
 * size the defaults table's row gives (measured: bench/suites/
 * newton.sh).  Returns 0 or -1. */
typedef enum { NBRT_NEWTON_AUTO, NBRT_NEWTON_ON, NBRT_NEWTON_OFF } nbrt_newton;
int nbrt_set_newton(nbrt_kernel *k, nbrt_newton mode);
int nbrt_run_self(nbrt_kernel *k, size_t n);
/* 1 when the last run computed each pair once, else 0. */
int nbrt_newton_used(const nbrt_kernel *k);

/* The treecode (docs/treecode.md): an octree over the j-bodies sorted
 * along a Morton curve, cells of at most `bucket` bodies (more only where
 * the tree reaches its depth limit: coincident bodies), their monopole and
 * quadrupole in double; i-groups of at most `group` bodies nearby in
 * Morton order, each sharing one walk.  A cell whose side over the
 * distance from the group's box to its centre of mass is below theta is
 * taken whole, as one expansion, by the far kernel; the bodies of the
 * other leaves by the kernel itself.  The far kernel (a .nbl of far/) reads
 * the expansions as BMEM cx, cy, cz (centre of mass), cm (mass) and qxx,
 * qyy, qzz, qxy, qxz, qyz (the traceless quadrupole sum m (3 d d - d^2 I)
 * about the centre); each of its LMEMs and CONSTs is one of the kernel's
 * (bound or set there, read from there), and its RMEMs are the kernel's,
 * every one, as sums. */
/* The programs' and Python's defaults.  Groups of 512 beat 256 at every N
 * from 2^16 to 2^22 on an H200 and tie on the host C path at 2^18 (fewer
 * walks for longer lists: docs/treecode.md). */
#define NBRT_TREE_BUCKET 16
#define NBRT_TREE_GROUP 512
typedef struct nbrt_tree {
	double theta;   /* the opening angle, > 0 (0.5 is usual) */
	size_t bucket;  /* most bodies in a leaf, > 0 (NBRT_TREE_BUCKET) */
	size_t group;   /* most bodies in an i-group, > 0 (NBRT_TREE_GROUP) */
	const char *ipos[3], *jpos[3]; /* the kernel's LMEM and BMEM x, y, z */
	const char *jmass;             /* its BMEM mass (gravity kinds) */
	/* NULL, or filled by the run: seconds of each phase (sorting and
	 * building with the moments, the expansions' columns, walk, far
	 * run, near run) and the counts */
	struct nbrt_tree_stats {
		double time[5];
		size_t cells, groups;
		double near_pairs, far_pairs;
		double max_group_pairs; /* the most near pairs of one group */
		/* seconds within the phases: reading the columns, keys and sort,
		 * octree, groups (in time[0]); the lists joined (in time[2]); the
		 * sorted copies, the far run (in time[3]); the scatter (after) */
		double part[8];
	} *stats;
	/* a vector kind's BMEM source x, y, z (vortex strengths: biot_savart's
	 * gx, gy, gz); NULL for a gravity kind, which reads jmass */
	const char *jsrc[3];
} nbrt_tree;
/* Runs k for i in [0, ni) and j in [0, nj) through the tree: far, loaded
 * on k's device, for the far list (its results first), then k for the
 * near lists adding into them; results into k's bound arrays in the
 * caller's order (the kernel's i and j are the caller's too), k's and
 * far's bindings left as they were.  i and j may be the same bodies or
 * not.  Refused before anything runs, with the reason: theta <= 0 or NaN,
 * a bucket or group of 0, positions or masses NaN or infinite, names k
 * lacks or far needs and k does not have, a position column named for
 * two axes.  Memory is checked before it
 * is allocated.  Returns 0 or -1. */
int nbrt_run_tree(nbrt_kernel *k, nbrt_kernel *far, size_t ni, size_t nj,
                  const nbrt_tree *t);
/* The same for bindings (query.c): nbrt_tree's fields as arguments,
 * ipos and jpos three names each, jsrc three or NULL; no stats. */
int nbrt_run_tree_args(nbrt_kernel *k, nbrt_kernel *far, size_t ni,
                       size_t nj, double theta, size_t bucket, size_t group,
                       const char *const *ipos, const char *const *jpos,
                       const char *jmass, const char *const *jsrc);
/* The same defaults for bindings (query.c): NBRT_TREE_BUCKET for
 * "bucket", NBRT_TREE_GROUP for "group", 0 for any other name. */
size_t nbrt_tree_default(const char *field);
/* The group the programs and Python take for ni i-bodies where the
 * caller gives none: $NBRT_TREE_GROUP where it is set (0 where it is no
 * whole number of at least 1, which nbrt_run_tree refuses naming it),
 * else NBRT_TREE_GROUP_LARGE from NBRT_TREE_LARGE bodies, NBRT_TREE_GROUP
 * below.  Fewer, longer walks pay where the walk is the larger share:
 * on an H200 (2026-11-27), groups of 1024 took 0.0517 s against 0.0569
 * at 2^20 and 0.2111 against 0.2275 at 2^22. */
#define NBRT_TREE_GROUP_LARGE 1024
#define NBRT_TREE_LARGE ((size_t)1 << 20)
size_t nbrt_tree_group(size_t ni);

/* Memory, checked before a run allocates anything.  nbrt_host_memory:
 * bytes this process may still use (the least of the machine's available
 * memory, its cgroup's limit and what ulimit -v leaves).  nbrt_run_memory:
 * what a run of ni x nj needs besides the caller's own arrays, in *host
 * bytes of this machine's memory: staging copies (none for arrays bound
 * in the kernel's own types when `native` is set) and, on a CPU device,
 * its buffers.  Returns -1 with the message set, naming the sizes, when
 * the device cannot hold the buffers (its global memory, or its largest
 * buffer).  nbrt_format_bytes writes "1.5 GiB". */
double nbrt_host_memory(void);
int nbrt_run_memory(nbrt_kernel *k, size_t ni, size_t nj, int native,
                    double *host);
void nbrt_format_bytes(char *buf, size_t len, double bytes);

/* Progress of long runs: with a label ("nbrun"), a run that lasts more
 * than 5 s reports on stderr every 5 s, after each launch, the share of
 * the interactions done ("nbrun: 40% of 1e+12 interactions in 20 s, about
 * 30 s to go").  Launches then wait for each other.  NULL: quiet. */
void nbrt_show_progress(nbrt_kernel *k, const char *label);

/* Launches the last nbrt_run made. */
long nbrt_launches(const nbrt_kernel *k);

/* Seconds spent in the kernel (launches only, from OpenCL events or a host
 * clock) and in the whole last nbrt_run (transfers and conversions too);
 * a queued run's launches (below) are timed by nbrt_wait instead, 0 here. */
double nbrt_kernel_time(const nbrt_kernel *k);
double nbrt_total_time(const nbrt_kernel *k);

/* Queued runs: with on = 1, an nbrt_run whose every LMEM, BMEM and RMEM
 * is bound to an nbrt_array in device memory returns once its launches
 * and conversions are queued, without waiting for them: consecutive runs
 * and array operations follow each other on the device with no round
 * trip to the host between them (a device-resident integrator's steps);
 * they show no progress (nbrt_show_progress).  Other runs wait as before.  The queued launches are waited for, and
 * the first that failed reported (the OpenCL error, the kernel, the
 * device), by nbrt_wait, by the next run that waits, and by
 * nbrt_array_read and nbrt_array_finite; call nbrt_wait before freeing
 * the kernel or closing the device, which cannot report.  0 on success,
 * -1 where the device keeps no arrays of its own (nbrt_device_arrays 0:
 * every run there ends before it returns).  on = 2 queues them untimed:
 * no profiling events (on NVIDIA's OpenCL some 8 us of host time a
 * launch), so nbrt_wait's t counts none of them, and a failure is the
 * finish's, naming the last such run's kernel.  NBRT_QUEUE=1 or 2 in the
 * environment sets it at nbrt_open where the device has such arrays. */
int nbrt_set_queue(nbrt *rt, int on);
/* Waits for every queued launch; t (or NULL) gets, over the queued
 * launches waited for since the last nbrt_wait (by it or the calls above),
 * t[0] the seconds from the first one's start to the last one's end by
 * their events (the runtime's conversions and slice sums between them
 * included), t[1] the seconds they ran.  0, or -1 with the failure. */
int nbrt_wait(nbrt *rt, double t[2]);

/* Where compiled programs are cached: $NBRT_CACHE_DIR, else
 * $XDG_CACHE_HOME/nbcc, else ~/.cache/nbcc; NULL when NBRT_CACHE=0
 * disables the cache or no usable directory (made if missing, owned by the
 * user and writable by nobody else) is there; a directory refused is
 * reported on stderr, once a process.  Entries (mode 0600, written through
 * nb_out_open) are keyed by the
 * generated source, build options, device, driver and NBCC_VERSION.
 * NBRT_VERBOSE=1 reports hits, misses and builds on stderr. */
const char *nbrt_cache_dir(const nbrt *rt);
/* 1 if the kernel's program came from the cache, without a compile. */
int nbrt_cache_hit(const nbrt_kernel *k);

/* The tuner (docs/performance.md, "The tuner").  Variants of a .nbl --
 * its unrolling, j-split, work-group size, tile, and on a CPU the C path
 * against OpenCL -- are chosen for each size class of a run (Ni and Nj
 * by powers of 4).  With budget > 0 seconds, the first nbrt_run of each
 * class times the candidates on the bound inputs (Nj cut to fit the
 * budget), refuses any whose results differ from the default variant's
 * by more than the precision's tolerance, runs the fastest of the rest
 * and keeps it in the cache (keyed by the kernel's source and options,
 * the device and the class); dimensions opts fix (NB_GIVEN_*) are not
 * varied, while a source's nbcc-options line does not stop them.
 * Without a budget, a run takes the cache's winner for its class if
 * there is one (NBRT_TUNE=0: never), else the defaults table's
 * variant.  Returns 0 or -1 (a budget outside 0..1e6). */
int nbrt_set_tune(nbrt_kernel *k, double budget);
#define NBRT_TUNE_BUDGET 3.0 /* seconds: the programs' --tune */
/* How the last run's variant was chosen: "defaults", "tuned now" or
 * "tuned (cache)", and ", on DEVICE" when it ran on the other path to
 * this CPU (the host C path for an OpenCL CPU device, or back). */
const char *nbrt_variant_origin(const nbrt_kernel *k);
/* Times every candidate variant of a .nbl at ni x nj on the bound inputs
 * (the default first) and prints a Markdown table of them: variant,
 * interactions/s, ratio to the default, and the check against it (the
 * largest difference, relative).  Returns 0 or -1. */
int nbrt_sweep(nbrt_kernel *k, size_t ni, size_t nj, FILE *out);

#pragma GCC visibility pop

#endif
