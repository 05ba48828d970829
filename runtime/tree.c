/* tree.c: the treecode (nbrt_run_tree, docs/treecode.md): an octree over
 * Morton-sorted j-bodies with monopole and quadrupole moments in double,
 * i-groups cut from Morton-sorted i-bodies, a Barnes-Hut walk a group
 * giving a far list of cell expansions and a near list of body j-ranges,
 * then the far kernel and the user's kernel, adding in, on sorted copies. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "core.h"
#include "order.h"
#ifdef _OPENMP
#include <omp.h>
#endif

typedef unsigned long long u64;

/* Loops over fewer elements run on one thread: a parallel region costs
 * more than they do (and on a loaded machine, a time slice). */
enum { PAR = 65536 };
/* Passes over the cells (a line each) go parallel from this many. */
enum { CELLS_PAR = 4096 };
/* The least cells of a tree level split in parallel (the octree's, the
 * parents' moments), for a tree of nbodies bodies. */
static size_t level_par(size_t nbodies);

enum { MAXCOL = 20 }; /* the most columns of a kind (below) */

/* The kernel's kept arrays (k->treework, work.c): at N = 2^22 a call's
 * arrays are about 2 GB, and fresh ones were faulted in page by page and
 * unmapped again on every call.  A side's ten arrays from W_SIDE (j, then
 * i), a column of the expansions or the sources from W_EXP and W_SRC, two
 * a kernel variable (its sorted copy, its values read from an nbrt_array)
 * from W_COPY, then four a thread (walk_group's buffers). */
enum {
	W_KV, W_CELL, W_OCTP, W_GRP, W_PIECE, W_WC, W_AT, W_NOFF, W_FOFF,
	W_NEAR, W_FAR, W_CUT, W_CUTGRP, W_SIDE, W_EXP = W_SIDE + 20, W_SRC = W_EXP + MAXCOL,
	W_COPY = W_SRC + 6
};

/* The expansion kinds.  A far kernel's BMEMs name columns of one kind
 * (the first kind holding them all is taken); the kind says which source
 * columns of the bodies it needs (nsrc 1: nbrt_tree's jmass; 3: jsrc, a
 * vector) and fills its columns, one value a cell, bottom-up in double.
 * The walk's centre is the centre of mass, or of |source| for a vector. */
typedef struct Kind {
	const char *what;
	int nsrc, ncol;
	const char *col[MAXCOL];
	void (*fill)(const nbrt_octree *t, double *const x[3],
	             double *const s[3], double *const col[]);
} Kind;

static void fill_gravity(const nbrt_octree *, double *const[3],
                         double *const[3], double *const[]);
static void fill_vortex(const nbrt_octree *, double *const[3],
                        double *const[3], double *const[]);
static void fill_octupole(const nbrt_octree *, double *const[3],
                          double *const[3], double *const[]);

static const Kind kinds[] = {
	{"gravity monopole and quadrupole (far/gravity_quad.nbl)", 1, 10,
	 {"cx", "cy", "cz", "cm", "qxx", "qyy", "qzz", "qxy", "qxz", "qyz"},
	 fill_gravity},
	{"vortex strength and first moments (far/biot_savart_dipole.nbl)", 3,
	 15, {"cx", "cy", "cz", "cgx", "cgy", "cgz", "dxx", "dxy", "dxz", "dyx",
	      "dyy", "dyz", "dzx", "dzy", "dzz"}, fill_vortex},
	{"gravity to the octupole (far/opt/gravity_oct.nbl)", 1, 20,
	 {"cx", "cy", "cz", "cm", "qxx", "qyy", "qzz", "qxy", "qxz", "qyz",
	  "oxxx", "oyyy", "ozzz", "oxxy", "oxxz", "oxyy", "oyyz", "oxzz",
	  "oyzz", "oxyz"}, fill_octupole},
};
enum { NKIND = sizeof kinds / sizeof kinds[0] };

/* The column of kind named name, or -1. */
static int kind_col(const Kind *kd, const char *name)
{
	for (int c = 0; c < kd->ncol; c++)
		if (!strcmp(kd->col[c], name))
			return c;
	return -1;
}

/* The levels of the tree: level l is cells [lev[l], lev[l + 1]) (the
 * build is breadth first, so levels ascend along the cells); returns
 * their count.  Each start by binary search: a pass over the cells read
 * a line a cell, about 60 MB at N = 2^22, on one thread. */
static size_t levels(const nbrt_octree *t, size_t lev[NBRT_TREE_DEPTH + 2])
{
	size_t nl = 0;
	for (int l = 0; l <= NBRT_TREE_DEPTH + 1; l++) {
		size_t lo = nl ? lev[nl - 1] : 0, hi = t->ncell;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->cell[mid].level < l)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == t->ncell)
			break;
		if (t->cell[lo].level == l)
			lev[nl++] = lo;
	}
	lev[nl] = t->ncell;
	return nl;
}

/* Calls fill(c, arg) for every cell c of t, children before their parent:
 * the leaves first, all of them in one parallel pass (they need only
 * their bodies, and they are most cells and most of the work), then the
 * other cells level by level from the deepest (the build appends cells
 * breadth first, so a level is a run of cells, each one's children in
 * the levels below).  By levels alone, the leaves of the many levels of
 * fewer than PAR / 16 cells ran on one thread: 1.7 ms of an 11.5 ms tree
 * at N = 65536 on the H200's host, at about 190 ns a cell. */
static void bottom_up(const nbrt_octree *t, void (*fill)(size_t, void *),
                      void *arg)
{
	size_t lev[NBRT_TREE_DEPTH + 2];
	long long c;
#pragma omp parallel for schedule(dynamic, 256) if (t->ncell >= PAR / 16)
	for (c = 0; c < (long long)t->ncell; c++)
		if (!t->cell[c].nchild)
			fill((size_t)c, arg);
	/* a parent costs about 300 ns (eight children shifted), and most of
	 * them sit in a few levels of one to three thousand cells: from
	 * 4096 cells a level, N = 65536's levels 11 and 12 (1435 and 2930
	 * cells of a Plummer sphere) were summed by one thread.  The octree's
	 * bar (level_par); from 256 cells at any N, PoCL's N = 4096 on 2
	 * loaded cores took 21-34 ms (a time slice a region) against 0.3 */
	size_t par = level_par(t->n);
	for (size_t l = levels(t, lev); l-- > 0;) {
#pragma omp parallel for schedule(dynamic, 32) \
	if (lev[l + 1] - lev[l] >= par)
		for (c = (long long)lev[l]; c < (long long)lev[l + 1]; c++)
			if (t->cell[c].nchild)
				fill((size_t)c, arg);
	}
}

/* Gravity: the cells' own moments (nbrt_octree_build).  s[0]: the
 * sorted masses (far_columns). */
static void fill_gravity(const nbrt_octree *t, double *const x[3],
                         double *const s[3], double *const col[])
{
	(void)x;
	(void)s;
	long long e;
	/* from CELLS_PAR cells: 16k cells at N = 65536 were copied by one
	 * thread (ten columns) */
#pragma omp parallel for schedule(static) if (t->ncell >= CELLS_PAR)
	for (e = 0; e < (long long)t->ncell; e++) {
		const nbrt_cell *p = &t->cell[e];
		for (int d = 0; d < 3; d++)
			col[d][e] = p->c[d];
		col[3][e] = p->m;
		for (int w = 0; w < 6; w++)
			col[4 + w][e] = p->q[w];
	}
}

/* One cell's vortex moments (fill_vortex). */
static void vortex_cell(const nbrt_octree *t, size_t e, double *const x[3],
                        double *const s[3], double *const col[])
{
	const nbrt_cell *p = &t->cell[e];
	double a[3] = {0, 0, 0}, dm[9] = {0};
	size_t n = p->nchild ? (size_t)p->nchild : p->b - p->a;
	for (size_t h = 0; h < n; h++) {
		size_t ch = p->child + h, b = p->a + h;
		for (int kk = 0; kk < 3; kk++) {
			double g = p->nchild ? col[3 + kk][ch] : s[kk][b];
			a[kk] += g;
			for (int l = 0; l < 3; l++)
				dm[3 * kk + l] += p->nchild ?
				    col[6 + 3 * kk + l][ch] +
				    g * (col[l][ch] - p->c[l]) :
				    g * (x[l][b] - p->c[l]);
		}
	}
	for (int d = 0; d < 3; d++) {
		col[d][e] = p->c[d];
		col[3 + d][e] = a[d];
	}
	for (int w = 0; w < 9; w++)
		col[6 + w][e] = dm[w];
}

/* A kind's fill arguments, for its cells through bottom_up. */
typedef struct Fill {
	const nbrt_octree *t;
	double *const *x, *const *s, *const *col;
} Fill;

/* Vortices (docs/treecode.md): about the cell's centre c, the strength
 * A = sum g and the first moments D_kl = sum g_k (x - c)_l; a parent from
 * its children, D_kl = sum (D'_kl + A'_k (c' - c)_l), children first
 * (bottom_up). */

static void vortex_fill(size_t c, void *arg)
{
	const Fill *v = arg;
	vortex_cell(v->t, c, v->x, v->s, v->col);
}

static void fill_vortex(const nbrt_octree *t, double *const x[3],
                        double *const s[3], double *const col[])
{
	Fill v = {t, x, s, col};
	bottom_up(t, vortex_fill, &v);
}

/* The octupole's ten entries (far/opt/gravity_oct.nbl's columns oxxx ..
 * oxyz) by their indices, and the index pair of the quadrupole's six
 * (nbrt_cell's q). */
static const unsigned char oct_ix[10][3] = {
	{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {0, 0, 1}, {0, 0, 2},
	{0, 1, 1}, {1, 1, 2}, {0, 2, 2}, {1, 2, 2}, {0, 1, 2}};
static const unsigned char quad_at[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};

/* Adds to o the traceless O = 15 T - 3 (d_a tr_bc + ..) (T's trace tr_a =
 * T_abb) of T = m d d d + (d_a Q_bc + d_b Q_ac + d_c Q_ab) / 3: a point
 * m at offset d, and (q not NULL) the shift by d of a child's traceless
 * quadrupole q about its own centre (its trace part shifts into trace
 * alone, which O drops, so the traceless q is all the shift needs). */
static void add_oct(double o[10], double m, const double d[3],
                    const double *q)
{
	double tr[3], d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	for (int a = 0; a < 3; a++) {
		tr[a] = m * d2 * d[a];
		for (int b = 0; q && b < 3; b++) /* Q traceless: 2/3 Q d */
			tr[a] += 2.0 / 3 * q[quad_at[a][b]] * d[b];
	}
	for (int w = 0; w < 10; w++) {
		int a = oct_ix[w][0], b = oct_ix[w][1], c = oct_ix[w][2];
		double t = m * d[a] * d[b] * d[c];
		if (q)
			t += (d[a] * q[quad_at[b][c]] + d[b] * q[quad_at[a][c]] +
			      d[c] * q[quad_at[a][b]]) / 3;
		o[w] += 15 * t - 3 * ((b == c) * tr[a] + (a == c) * tr[b] +
		                      (a == b) * tr[c]);
	}
}

/* One cell's octupole about its centre of mass (fill_octupole): a leaf's
 * from its bodies (masses s[0]), another's from its children's by the
 * shift, their columns already written (bottom_up). */

static void oct_fill(size_t e, void *arg)
{
	const Fill *v = arg;
	const nbrt_cell *p = &v->t->cell[e];
	double o[10] = {0};
	size_t n = p->nchild ? (size_t)p->nchild : p->b - p->a;
	for (size_t h = 0; h < n; h++) {
		const nbrt_cell *ch = p->nchild ? &v->t->cell[p->child + h] : NULL;
		double d[3];
		for (int a = 0; a < 3; a++)
			d[a] = (ch ? ch->c[a] : v->x[a][p->a + h]) - p->c[a];
		add_oct(o, ch ? ch->m : v->s[0][p->a + h], d, ch ? ch->q : NULL);
		for (int w = 0; ch && w < 10; w++)
			o[w] += v->col[10 + w][p->child + h];
	}
	for (int w = 0; w < 10; w++)
		v->col[10 + w][e] = o[w];
}

/* Gravity to the octupole: the monopole and quadrupole columns as
 * fill_gravity's, then the octupole bottom-up in its own pass (in the
 * cells it would widen every kind's walk by 80 bytes a cell). */
static void fill_octupole(const nbrt_octree *t, double *const x[3],
                          double *const s[3], double *const col[])
{
	fill_gravity(t, x, s, col);
	Fill v = {t, x, s, col};
	bottom_up(t, oct_fill, &v);
}

/* What a walk reads of a cell, packed (56 bytes, against nbrt_cell's
 * 136): its centre of mass, its children or bodies, and its level, which
 * gives its side (and so the squared distance within which it is
 * opened, side^2 / theta^2: the walk's table, open_table) and orders the
 * far list (far_order).  Nothing in it depends on theta, so the build
 * writes it without knowing theta. */
typedef struct Wcell {
	double c[3];
	size_t a, b, child;
	short nchild, level;
} Wcell;

/* Cell p as the walk reads it. */
static void walk_cell(const nbrt_cell *p, Wcell *out)
{
	*out = (Wcell){{p->c[0], p->c[1], p->c[2]}, p->a, p->b, p->child,
	               (short)p->nchild, (short)p->level};
}

void nbrt_octree_free(nbrt_octree *t)
{
	nbrt_work_give(t->work, t->cell);
	nbrt_work_give(t->work, t->wc);
	memset(t, 0, sizeof *t);
}

/* Room for n cells (and their columns, colslot).  The memory left
 * (nbrt_host_memory reads /proc/meminfo and the cgroup's files, 100 us a
 * call here) is read only where the kept arrays are too small. */
enum { NCOL = sizeof ((nbrt_octree *)0)->col / sizeof(double *) };
static int cells_room(nbrt *rt, nbrt_octree *t, size_t n)
{
	nbrt_work *w = t->work;
	int nc = t->colslot > 0 ? NCOL : 0;
	size_t wcb = t->wcslot > 0 ? (n + 1) * sizeof(Wcell) : 0; /* a spare */
	double need = (double)n * (sizeof(nbrt_cell) + nc * sizeof(double)) +
	              (double)wcb;
	int kept = w && W_CELL < w->n &&
	           w->cap[W_CELL] >= n * sizeof(nbrt_cell);
	for (int c = 0; c < nc && kept; c++)
		kept = t->colslot + c < w->n &&
		       w->cap[t->colslot + c] >= n * sizeof(double);
	if (wcb && kept)
		kept = t->wcslot < w->n && w->cap[t->wcslot] >= wcb;
	t->cell = kept || need <= nbrt_host_memory() ?
	          nbrt_work_take(w, W_CELL, n * sizeof(nbrt_cell)) : NULL;
	for (int c = 0; c < nc && t->cell; c++)
		if (!(t->col[c] = nbrt_work_take(w, t->colslot + c,
		                                 n * sizeof(double))))
			t->cell = NULL;
	if (wcb && t->cell && !(t->wc = nbrt_work_take(w, t->wcslot, wcb)))
		t->cell = NULL;
	if (t->wc)
		memset((Wcell *)t->wc + n, 0, sizeof(Wcell));
	if (!t->cell) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, need);
		return nbrt_fail(rt, "nbrt_run_tree: no memory for %zu tree cells "
		                 "(%s)", n, b);
	}
	t->cap = n;
	return 0;
}

/* The octants of a cell's sorted keys [a, b) at level (whose digits
 * above it are all key[a]'s) that hold bodies, into cut: octant h is
 * [cut[h], cut[h + 1]); their count.  The seven digits' ends are
 * searched in step, without a jump: searched one after another, each a
 * chain of dependent loads and mispredicted jumps, they took a quarter
 * more of the octree's count (one thread, N = 65536) and its serial top. */
static int octant_cuts(const u64 *key, size_t a, size_t b, int level,
                       size_t cut[9])
{
	int shift = 3 * (NBRT_TREE_DEPTH - 1 - level), m = 0;
	u64 pre = key[a] >> shift >> 3 << 3, t[7];
	size_t at[7], len = b - a;
	for (int d = 0; d < 7; d++) {
		t[d] = (pre | (u64)(d + 1)) << shift;
		at[d] = a;
	}
	/* at[d]: the last key below t[d] lies in [at[d], at[d] + len) */
	while (len > 1) {
		size_t half = len / 2;
		for (int d = 0; d < 7; d++)
			at[d] = key[at[d] + half] < t[d] ? at[d] + half : at[d];
		len -= half;
	}
	cut[0] = a;
	for (int d = 0; d < 7; d++) {
		size_t e = at[d] + (key[at[d]] < t[d]);
		if (e > cut[m])
			cut[++m] = e;
	}
	if (b > cut[m])
		cut[++m] = b;
	return m;
}

/* The octants of cell p that hold bodies, written from `out`; their
 * count. */
static int octants(const nbrt_cell *p, const u64 *key, nbrt_cell *out)
{
	size_t cut[9];
	int m = octant_cuts(key, p->a, p->b, p->level, cut);
	for (int h = 0; h < m; h++)
		out[h] = (nbrt_cell){.a = cut[h], .b = cut[h + 1],
		                     .level = p->level + 1, .side = 0.5 * p->side};
	return m;
}

/* The parents' moments of a kind's fill (bottom_up) go parallel a level
 * from this many cells: a parent costs about 300 ns, and a level of a
 * thousand is a few times a parallel region's cost on 16 cores; from
 * N = 16384 bodies a level of 256 cells goes too, below (the tests'
 * thousands of bodies on 2 loaded cores) one thread sums. */
enum { LEVEL_PAR = 1024, LEVEL_PAR_BIG = 256, BIG_TREE = 16384 };

static size_t level_par(size_t nbodies)
{
	return nbodies >= BIG_TREE ? LEVEL_PAR_BIG : LEVEL_PAR;
}

/* Adds mass m at offset d from the centre to a traceless quadrupole. */
static inline void add_quad(double q[6], double m, const double d[3])
{
	double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	q[0] += m * (3 * d[0] * d[0] - r2);
	q[1] += m * (3 * d[1] * d[1] - r2);
	q[2] += m * (3 * d[2] * d[2] - r2);
	q[3] += m * 3 * d[0] * d[1];
	q[4] += m * 3 * d[0] * d[2];
	q[5] += m * 3 * d[1] * d[2];
}

/* One cell's moments: a leaf's from its bodies, another's from its
 * children (the parallel-axis shift of each child's quadrupole).  A cell
 * of no mass takes the plain mean of its points as its centre.  The sums
 * in locals and a loop for each case: with one loop over both, reading
 * through the cell (which may alias x), it was half of a one-thread
 * build with moments at N = 65536, 23 ns a body. */
static void cell_moments(nbrt_octree *t, size_t c, double *const x[3],
                         const double *m)
{
	nbrt_cell *p = &t->cell[c];
	double sm = 0, s[3] = {0, 0, 0}, cc[3], q[6] = {0, 0, 0, 0, 0, 0};
	if (p->nchild) {
		const nbrt_cell *ch = &t->cell[p->child];
		size_t n = (size_t)p->nchild;
		for (size_t e = 0; e < n; e++) {
			sm += ch[e].m;
			for (int d = 0; d < 3; d++)
				s[d] += ch[e].m * ch[e].c[d];
		}
		for (int d = 0; d < 3; d++) {
			double u = 0;
			for (size_t e = 0; sm == 0 && e < n; e++)
				u += ch[e].c[d];
			cc[d] = sm != 0 ? s[d] / sm : u / (double)n;
		}
		for (size_t e = 0; e < n; e++) {
			double dd[3];
			for (int d = 0; d < 3; d++)
				dd[d] = ch[e].c[d] - cc[d];
			add_quad(q, ch[e].m, dd);
			for (int w = 0; w < 6; w++)
				q[w] += ch[e].q[w];
		}
	} else {
		const double *x0 = x[0] + p->a, *x1 = x[1] + p->a,
		             *x2 = x[2] + p->a, *m0 = m + p->a;
		size_t n = p->b - p->a;
		for (size_t e = 0; e < n; e++) {
			sm += m0[e];
			s[0] += m0[e] * x0[e];
			s[1] += m0[e] * x1[e];
			s[2] += m0[e] * x2[e];
		}
		for (int d = 0; d < 3; d++) {
			double u = 0;
			for (size_t e = 0; sm == 0 && e < n; e++)
				u += x[d][p->a + e];
			cc[d] = sm != 0 ? s[d] / sm : u / (double)n;
		}
		for (size_t e = 0; e < n; e++) {
			double dd[3] = {x0[e] - cc[0], x1[e] - cc[1], x2[e] - cc[2]};
			add_quad(q, m0[e], dd);
		}
	}
	p->m = sm;
	memcpy(p->c, cc, sizeof cc);
	memcpy(p->q, q, sizeof q);
	if (t->col[0]) { /* written by the thread that made them: in cache */
		for (int d = 0; d < 3; d++)
			t->col[d][c] = cc[d];
		t->col[3][c] = sm;
		for (int w = 0; w < 6; w++)
			t->col[4 + w][c] = q[w];
	}
	if (t->wc) /* so too, and the walk needs no pass of its own */
		walk_cell(p, (Wcell *)t->wc + c);
}

/* A piece of the octree's build (nbrt_octree_build): a cell of more than
 * a piece's bodies, split by one thread ("top"), or a cell whose whole
 * subtree one thread builds; in the cells' pre-order.  at[l]: its cells
 * at level l (a top cell's: itself), then where the first of them goes. */
typedef struct Piece {
	size_t a, b, root;    /* its bodies; where its cell goes */
	int level, top, nchild;
	double side;
	size_t at[NBRT_TREE_DEPTH + 1];
} Piece;

/* Whether cell [a, b) at level is split. */
static int splits(size_t a, size_t b, int level, size_t bucket)
{
	return b - a > bucket && level < NBRT_TREE_DEPTH;
}

/* The pieces of cell [a, b) into p from *np: the cell as a top one, then
 * its octants' pieces, where it holds more than most bodies and splits;
 * else the cell as one piece. */
static void plan(const u64 *key, size_t a, size_t b, int level, double side,
                 size_t bucket, size_t most, Piece *p, size_t *np)
{
	Piece *q = &p[(*np)++];
	*q = (Piece){.a = a, .b = b, .level = level, .side = side};
	q->at[level] = 1;
	if (b - a <= most || !splits(a, b, level, bucket))
		return;
	q->top = 1;
	size_t cut[9];
	q->nchild = octant_cuts(key, a, b, level, cut);
	for (int h = 0; h < q->nchild; h++)
		plan(key, cut[h], cut[h + 1], level + 1, 0.5 * side, bucket, most, p,
		     np);
}

/* Counts into cnt[l] the cells of the subtree of cell [a, b) at level
 * (the cell itself counted by its caller) at each level l. */
static void count_cells(const u64 *key, size_t a, size_t b, int level,
                        size_t bucket, size_t *cnt)
{
	if (!splits(a, b, level, bucket))
		return;
	size_t cut[9];
	int m = octant_cuts(key, a, b, level, cut);
	cnt[level + 1] += (size_t)m;
	for (int h = 0; h < m; h++)
		count_cells(key, cut[h], cut[h + 1], level + 1, bucket, cnt);
}

/* The subtree below cell c, already written: its octants go at the
 * cursors at[] of their level (each cell's children side by side, and a
 * level's cells in the order of their parents: those of a breadth-first
 * build), then c's moments from them, children first (x NULL: none). */
static void build_below(nbrt_octree *t, const u64 *key, size_t bucket,
                        size_t c, size_t *at, double *const x[3],
                        const double *m)
{
	nbrt_cell *p = &t->cell[c];
	if (splits(p->a, p->b, p->level, bucket)) {
		p->child = at[p->level + 1];
		p->nchild = octants(p, key, t->cell + p->child);
		at[p->level + 1] += (size_t)p->nchild;
		for (int h = 0; h < p->nchild; h++)
			build_below(t, key, bucket, p->child + (size_t)h, at, x, m);
	}
	if (x)
		cell_moments(t, c, x, m);
}

/* Pieces a thread: the largest holds at most 1/(4 threads) of the bodies,
 * so the threads' shares stay even on a Plummer sphere's dense core. */
enum { PIECES_A_THREAD = 4 };

/* The cells are those of a breadth-first build, a level at a time (a
 * level a run of cells, each one's children side by side after their
 * parent, in the bodies' order), built in one pass a piece: the top
 * cells are split serially, then the pieces' subtrees are counted a
 * level each (in parallel), which places every piece's cells of a level
 * among the level's, then built depth first (in parallel), each cell's
 * moments right after its children's, and the top cells' moments last.
 * Level by level, with a parallel region a level for the build and
 * another for the moments, N = 65536 took 0.54 + 0.39 ms on 16 cores of
 * an H100's host, mostly regions and waits. */
int nbrt_octree_build(nbrt *rt, nbrt_octree *t, const u64 *key, size_t n,
                      size_t bucket, double side, double *const x[3],
                      const double *m, void (*job)(void *, int), void *arg,
                      int njob)
{
	nbrt_work *w = t->work;
	int colslot = x ? t->colslot : 0, wcslot = x ? t->wcslot : 0;
	memset(t, 0, sizeof *t);
	t->work = w;
	t->colslot = colslot;
	t->wcslot = wcslot;
	t->n = n;
	if (!n) {
		for (int q = 0; q < njob; q++)
			job(arg, q);
		return 0;
	}
	int nt = 1;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	long per = PIECES_A_THREAD; /* $NBRT_TREE_PIECES: another, to tune */
	if (nbrt_env_int(rt, "NBRT_TREE_PIECES", 1, 1024, &per) < 0)
		return -1;
	size_t most = n < BIG_TREE || nt < 2 ? n :
	              n / ((size_t)per * (size_t)nt);
	most = most > bucket ? most : bucket;
	/* the top cells hold more than most bodies each, so at most n / (most
	 * + 1) a level, and each has at most 8 octants; none where most >= n
	 * (most + 1 wraps to 0 for a bucket of SIZE_MAX: SIGFPE) */
	size_t cap = 1 + 9 * (NBRT_TREE_DEPTH + 1) *
	                 (most < n ? n / (most + 1) : 0);
	Piece *p = nbrt_work_take(w, W_OCTP, cap * sizeof *p);
	if (!p)
		return nbrt_fail(rt, "out of memory for the octree's pieces of %zu "
		                 "bodies", n);
	size_t np = 0;
	double t0 = nbrt_now();
	plan(key, 0, n, 0, side, bucket, most, p, &np);
	double t1 = nbrt_now();
	long long q;
#pragma omp parallel for schedule(dynamic, 1) if (np > 1)
	for (q = 0; q < (long long)np; q++)
		if (!p[q].top)
			count_cells(key, p[q].a, p[q].b, p[q].level, bucket, p[q].at);
	double t2 = nbrt_now();
	/* a level's cells in the pieces' order, which is the bodies' */
	size_t lev[NBRT_TREE_DEPTH + 1] = {0}, total = 0;
	for (size_t i = 0; i < np; i++)
		for (int l = p[i].level; l <= NBRT_TREE_DEPTH && p[i].at[l]; l++)
			lev[l] += p[i].at[l];
	for (int l = 0; l <= NBRT_TREE_DEPTH; l++) {
		size_t k = lev[l];
		lev[l] = total;
		total += k;
	}
	for (size_t i = 0; i < np; i++) {
		p[i].root = lev[p[i].level];
		for (int l = p[i].level; l <= NBRT_TREE_DEPTH && p[i].at[l]; l++) {
			size_t k = p[i].at[l];
			p[i].at[l] = lev[l];
			lev[l] += k;
		}
	}
	int res = cells_room(rt, t, total);
	if (res)
		goto out;
	t->ncell = total;
	/* a top cell's first octant is the next piece */
	for (size_t i = 0; i < np; i++)
		t->cell[p[i].root] = (nbrt_cell){
			.a = p[i].a, .b = p[i].b, .level = p[i].level, .side = p[i].side,
			.child = p[i].top ? p[i + 1].root : 0, .nchild = p[i].nchild};
	double t3 = nbrt_now();
	/* the jobs beside the build, the longer loop: beside the count (at
	 * N = 65536 on an H100's host the groups' 0.09 ms against its share
	 * of 0.03) they held that loop to 0.15-0.30 ms */
#pragma omp parallel for schedule(dynamic, 1) if (np > 1)
	for (q = -(long long)njob; q < (long long)np; q++)
		if (q < 0)
			job(arg, (int)(q + njob));
		else if (!p[q].top) {
			p[q].at[p[q].level]++;
			build_below(t, key, bucket, p[q].root, p[q].at, x, m);
		}
	double t4 = nbrt_now();
	for (size_t i = np; x && i-- > 0;)
		if (p[i].top)
			cell_moments(t, p[i].root, x, m);
	/* where a small tree's build goes (the parallel loops' share of it
	 * against the serial parts'), for the tree's timed parts */
	nbrt_note(rt, "octree of %zu bodies: %.3g ms: %zu pieces (top %.3g), "
	          "count %.3g, place %.3g, build %.3g%s, top moments %.3g", n,
	          1e3 * (nbrt_now() - t0), np, 1e3 * (t1 - t0), 1e3 * (t2 - t1),
	          1e3 * (t3 - t2), 1e3 * (t4 - t3), njob ? " (with the jobs)" : "",
	          1e3 * (nbrt_now() - t4));
out:
	nbrt_work_give(w, p);
	return res;
}

/* One side of the run (i or j): positions (and masses) in the caller's
 * order as doubles, then the Morton order and the sorted copies. */
typedef struct Side {
	size_t n;
	double *x[3], *m;     /* caller's order (m: j's masses, else NULL) */
	double *sx[3], *sm;   /* sorted */
	size_t *order;        /* sorted s is the caller's order[s] */
	u64 *key;             /* sorted keys */
	int alias;            /* the other side's arrays (side_alias) */
	nbrt_work *w;         /* where the arrays are kept, or NULL */
	int pinned;           /* bit a: array a is the back end's (side_array) */
	int devslot;          /* the back end's tree_sort kept the order in
	                       * this slot, or -1 */
	double lo[3], hi[3];  /* the positions' extent */
} Side;

/* A side's arrays by index from its slot: x (3), sx (3), m, sm, order,
 * key. */
enum { A_X, A_SX = 3, A_M = 6, A_SM, A_ORDER, A_KEY, A_N };

/* The kept array of index a: where the back end sorts on the device, its
 * pinned memory for what crosses (the positions and masses up, the
 * sorted ones and the keys down; pageable memory crosses through the
 * driver's staging at a fraction of the speed), from its buffer slot
 * PIN_SIDE after the kernel's variables (cutoff.c's device cell lists
 * take the first few); else kept in w. */
enum { PIN_SIDE = 8 };
static void *side_array(nbrt_kernel *k, Side *s, int slot, int a,
                        size_t bytes)
{
	const struct nbrt_backend *be = k->rt->be;
	void *p = NULL;
	if (be->tree_sort && be->hostbuf && a != A_ORDER)
		p = be->hostbuf(k, k->f->nvar + PIN_SIDE + slot - W_SIDE + a, bytes);
	s->pinned |= (p != NULL) << a;
	return p ? p : nbrt_work_take(s->w, slot + a, bytes);
}

static void side_free(Side *s)
{
	if (s->alias)
		return;
	void *a[A_N] = {s->x[0], s->x[1], s->x[2], s->sx[0], s->sx[1],
	                s->sx[2], s->m, s->sm, s->order, s->key};
	for (int q = 0; q < A_N; q++)
		if (!(s->pinned >> q & 1))
			nbrt_work_give(s->w, a[q]);
}

/* Column v of k as n doubles (a host array of any type, or an
 * nbrt_array), finite or refused naming the value; its least and
 * greatest into *lo and *hi (unless lo is NULL) in the same pass. */
static int column(nbrt_kernel *k, const char *what, int v, size_t n,
                  double *out, double *lo, double *hi)
{
	const nbrt_slot *s = &k->b[v];
	const char *name = k->f->var[v].name;
	if (!s->set || (!s->host && !s->arr && n))
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_tree: the %s column "
		                 "'%s' is not bound", k->f->kernel, what, name);
	if (!s->host && s->arr && s->arr->n < n)
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_tree: the array bound "
		                 "to '%s' holds %zu values, fewer than the %zu "
		                 "bodies", k->f->kernel, name, s->arr->n, n);
	int bad = 0, dev = !s->host && s->arr;
	double a = INFINITY, b = -INFINITY;
	long long e;
	if (dev) {
		double *tmp = malloc((s->arr->n ? s->arr->n : 1) * sizeof *tmp);
		if (!tmp || nbrt_array_read(s->arr, tmp)) {
			free(tmp);
			return tmp ? -1 : nbrt_fail(k->rt, "out of memory");
		}
		memcpy(out, tmp, n * sizeof *out);
		free(tmp);
	}
	/* checked (and the extent taken) as they are written: one pass over
	 * the column */
#pragma omp parallel for schedule(static) reduction(| : bad) \
	reduction(min : a) reduction(max : b) if (n >= PAR)
	for (e = 0; e < (long long)n; e++) {
		double x = dev ? out[e] :
		           s->t == NBRT_FLOAT ? ((const float *)s->host)[e] :
		           s->t == NBRT_DOUBLE ? ((const double *)s->host)[e] :
		           ((const double *)s->host)[2 * e] +
		           ((const double *)s->host)[2 * e + 1];
		out[e] = x;
		bad |= !isfinite(x);
		a = x < a ? x : a;
		b = x > b ? x : b;
	}
	if (lo) {
		*lo = a;
		*hi = b;
	}
	for (size_t e = 0; bad && e < n; e++) /* the first, for the message */
		if (!isfinite(out[e]))
			return nbrt_fail(k->rt, "kernel %s: nbrt_run_tree: %s '%s' at "
			                 "%zu is %g; it must be finite", k->f->kernel,
			                 what, name, e, out[e]);
	return 0;
}

/* The read's loops go parallel from this many bodies (every column in
 * one region: four regions and a serial comparison of i's columns with
 * j's were the read's 0.17 ms at N = 65536 on an H100's host). */
enum { READ_PAR = 16384 };

static size_t type_size(nbrt_type t);

/* Values [a, b) of host column h of type t into out as doubles, their
 * least and greatest folded into *lo and *hi; whether any is not finite.
 * A loop a type, so that each is a plain conversion (one loop testing
 * the type a value made the read of 2^22 bodies twice as slow). */
static int read_slice(const void *h, nbrt_type t, double *out, size_t a,
                      size_t b, double *lo, double *hi)
{
	double l = *lo, u = *hi;
	int bad = 0;
#define SCAN(expr) \
	for (size_t e = a; e < b; e++) { \
		double x = (expr); \
		out[e] = x; \
		bad |= !isfinite(x); \
		l = x < l ? x : l; \
		u = x > u ? x : u; \
	}
	if (t == NBRT_FLOAT)
		SCAN(((const float *)h)[e])
	else if (t == NBRT_DOUBLE)
		SCAN(((const double *)h)[e])
	else
		SCAN(((const double *)h)[2 * e] + ((const double *)h)[2 * e + 1])
#undef SCAN
	*lo = l;
	*hi = u;
	return bad;
}

/* A side's nc columns v[] (positions, then a mass), all host arrays of
 * k, as n doubles into out[] in one parallel region, each thread its
 * slice of every column: each checked finite, the positions' extent into
 * lo and hi, and where like is not NULL (the other side's position
 * columns, of the same types) whether every position has like's bits,
 * into *same.  1: not host arrays all, for column(). */
static int columns_host(nbrt_kernel *k, const char *const what[], int nc,
                        const int v[], size_t n, double *const out[],
                        double lo[3], double hi[3], const void *const *like,
                        int *same)
{
	const nbrt_slot *s[4];
	for (int c = 0; c < nc; c++) {
		s[c] = &k->b[v[c]];
		if (!s[c]->set || !s[c]->host)
			return 1;
	}
	double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY;
	double h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
	int bad = 0, differ = 0;
#pragma omp parallel if (n >= READ_PAR) reduction(| : bad, differ) \
	reduction(min : l0, l1, l2) reduction(max : h0, h1, h2)
	{
		size_t t = 0, T = 1;
#ifdef _OPENMP
		t = (size_t)omp_get_thread_num();
		T = (size_t)omp_get_num_threads();
#endif
		size_t a = n * t / T, b = n * (t + 1) / T;
		double *lp[3] = {&l0, &l1, &l2}, *hp[3] = {&h0, &h1, &h2};
		double ml = INFINITY, mh = -INFINITY;
		for (int c = 0; c < nc; c++) {
			int pos = c < 3;
			bad |= read_slice(s[c]->host, s[c]->t, out[c], a, b,
			                  pos ? lp[c] : &ml, pos ? hp[c] : &mh) << c;
			size_t z = type_size(s[c]->t);
			if (like && pos && like[c] != s[c]->host)
				differ |= memcmp((const char *)like[c] + z * a,
				                 (const char *)s[c]->host + z * a,
				                 z * (b - a)) != 0;
		}
	}
	lo[0] = l0, lo[1] = l1, lo[2] = l2;
	hi[0] = h0, hi[1] = h1, hi[2] = h2;
	if (same)
		*same = like && !differ;
	for (int c = 0; bad && c < nc; c++) /* the first, for the message */
		for (size_t f = 0; bad >> c & 1 && f < n; f++)
			if (!isfinite(out[c][f]))
				return nbrt_fail(k->rt, "kernel %s: nbrt_run_tree: %s '%s' "
				                 "at %zu is %g; it must be finite",
				                 k->f->kernel, what[c],
				                 k->f->var[v[c]].name, f, out[c][f]);
	return 0;
}

/* The variable of k named name, of the role given; -1 refused. */
static int named(nbrt_kernel *k, const char *name, nb_role role,
                 const char *what)
{
	int v = name ? nb_iface_find(k->f, name) : -1;
	if (v < 0 || k->f->var[v].role != role)
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_tree: the %s '%s' is "
		                 "no %s of the kernel", k->f->kernel, what,
		                 nb_esc(name), nb_role_name(role));
	return v;
}

/* Reads a side's columns into its arrays (kept in w from slot `slot`):
 * positions, and j's masses (the mass column where mv >= 0; a vector
 * kind's weights, sources_read, where not).  like (or NULL): the other
 * side's position arrays, compared with these as they are read, the
 * answer in *same (same_bodies). */
static int side_read(nbrt_kernel *k, Side *s, size_t n, const int pv[3],
                     int mv, int j, nbrt_work *w, int slot,
                     const void *const *like, int *same)
{
	s->n = n;
	s->w = w;
	size_t bytes = n * sizeof(double);
	for (int d = 0; d < 3; d++) {
		s->x[d] = side_array(k, s, slot, A_X + d, bytes);
		s->sx[d] = side_array(k, s, slot, A_SX + d, bytes);
	}
	if (j) {
		s->m = side_array(k, s, slot, A_M, bytes);
		s->sm = side_array(k, s, slot, A_SM, bytes);
	}
	s->order = side_array(k, s, slot, A_ORDER, n * sizeof *s->order);
	s->key = side_array(k, s, slot, A_KEY, n * sizeof *s->key);
	for (int d = 0; d < 3; d++)
		if (!s->x[d] || !s->sx[d])
			return nbrt_fail(k->rt, "out of memory for %zu bodies", n);
	if ((j && (!s->m || !s->sm)) || !s->order || !s->key)
		return nbrt_fail(k->rt, "out of memory for %zu bodies", n);
	static const char *const what[4] = {"position", "position", "position",
	                                    "mass"};
	int v[4] = {pv[0], pv[1], pv[2], mv};
	double *out[4] = {s->x[0], s->x[1], s->x[2], s->m};
	int r = columns_host(k, what, 3 + (mv >= 0), v, n, out, s->lo, s->hi,
	                     like, same);
	if (r <= 0)
		return r;
	for (int d = 0; d < 3; d++)
		if (column(k, "position", pv[d], n, s->x[d], &s->lo[d], &s->hi[d]))
			return -1;
	if (mv >= 0 && column(k, "mass", mv, n, s->m, NULL, NULL))
		return -1;
	if (same) /* not host arrays: not like's */
		*same = 0;
	return 0;
}

/* Sorts a side along the Morton curve of the cube (lo, side): on the
 * device where the runtime's sort would be the device's (nbrt_sort_kv's
 * rule; the back end's tree_sort: keys, sort and gathers there), else
 * keys, radix sort and gathers of order.c, in parallel; the same bits. */
static int side_sort(nbrt *rt, Side *s, const double lo[3], double side,
                     int slot)
{
	size_t n = s->n;
	s->devslot = -1;
	int forced, dev = rt->be->tree_sort ? nbrt_sort_device(rt, n, &forced)
	                                    : 0;
	if (dev < 0)
		return -1;
	if (dev) {
		int r = rt->be->tree_sort(rt, (const double *const *)s->x, s->m, n,
		                          lo, side, slot, s->key, s->order, s->sx,
		                          s->sm);
		s->devslot = r ? -1 : slot;
		if (!r || (r < 0 && forced))
			return r;
		if (r < 0)
			nbrt_note(rt, "the device's sort of %zu bodies failed (%s); "
			          "sorted on the host", n, nbrt_error(rt));
	}
	nbrt_kv *kv = nbrt_work_take(s->w, W_KV, 2 * n * sizeof *kv);
	if (!kv)
		return nbrt_fail(rt, "out of memory for the keys of %zu bodies", n);
	nbrt_order_keys(kv, (const double *const *)s->x, n, 3, lo, side);
	nbrt_kv *r = nbrt_sort_kv(rt, kv, kv + n, n, 0);
	if (!r) {
		nbrt_work_give(s->w, kv);
		return -1;
	}
	long long e;
#pragma omp parallel for schedule(static) if (n >= PAR)
	for (e = 0; e < (long long)n; e++) {
		s->order[e] = (size_t)r[e].val;
		s->key[e] = r[e].key;
	}
	nbrt_work_give(s->w, kv);
	for (int d = 0; d < 3; d++)
		nbrt_order_gather(s->sx[d], s->x[d], s->order, n, sizeof(double));
	if (s->m)
		nbrt_order_gather(s->sm, s->m, s->order, n, sizeof(double));
	return 0;
}

static size_t type_size(nbrt_type t)
{
	return t == NBRT_FLOAT ? 4 : t == NBRT_DD ? 16 : 8;
}

/* Whether the i-positions may be the j-positions (the usual self-run),
 * so that i needs no sort of its own: 2 where the same host arrays are
 * bound to both, 1 where arrays of one type are (a caller's copies, as
 * treebench's: i was read and sorted a second time, 0.6 of 6.6 ms at
 * N = 65536 on an H100), whose bits side_read compares as it reads j (a
 * sort of the same values gives the same order, so the results are the
 * same bits either way), 0 where not. */
static int same_bodies(const nbrt_kernel *k, size_t ni, size_t nj,
                       const int pi[3], const int pj[3])
{
	int alike = 2;
	for (int d = 0; d < 3; d++) {
		const nbrt_slot *a = &k->b[pi[d]], *b = &k->b[pj[d]];
		if (ni != nj || !a->host || !b->host || a->t != b->t)
			return 0;
		if (a->host != b->host)
			alike = 1;
	}
	return alike;
}

/* i as j (the same bodies): j's arrays, neither read nor copied. */
static void side_alias(Side *si, const Side *sj)
{
	*si = *sj;
	si->alias = 1;
}

/* Group [a, b) appended where grp is not NULL; counted always. */
static void emit(size_t *grp, size_t *ng, size_t a, size_t b)
{
	if (grp) {
		grp[2 * *ng] = a;
		grp[2 * *ng + 1] = b;
	}
	++*ng;
}

/* A piece of cut_groups left to a thread (cut_all): its keys [a, b) at
 * level, and where its groups go among the serial pass's. */
typedef struct Cut {
	size_t at, a, b, ng;
	int level;
} Cut;

/* i-groups: octants of the sorted i-keys, split until at most gmax bodies
 * (or the depth limit), in Morton order, as FDPS's n_group_limit.  An
 * octant of at most `defer` bodies (and over gmax) is not cut here but
 * left in cut[*ncut] for cut_all's threads (defer 0: none). */
static void cut_groups(const u64 *key, size_t a, size_t b, int level,
                       size_t gmax, size_t *grp, size_t *ng, size_t defer,
                       Cut *cut, size_t *ncut)
{
	if (b - a <= gmax || level == NBRT_TREE_DEPTH) {
		emit(grp, ng, a, b);
		return;
	}
	/* Octants under the limit hold a quarter of it on average: siblings
	 * are joined while they fit, so a walk serves more bodies (fewer,
	 * longer lists), as Bonsai's groups of consecutive keys.  Only
	 * siblings: joining neighbours in key order across a parent's face
	 * made groups that reached from the halo into the core, and one such
	 * group's near list held every body of a Plummer sphere (2.7e8 pairs
	 * for one work group at N = 2^20: 0.1 s of a 0.11 s near field). */
	size_t open = 0, from = a, oc[9];
	int m = octant_cuts(key, a, b, level, oc);
	for (int h = 0; h < m; h++) {
		size_t s = oc[h], e = oc[h + 1];
		if (e - s > gmax) {
			if (open)
				emit(grp, ng, from, s);
			open = 0;
			if (e - s <= defer)
				cut[(*ncut)++] = (Cut){*ng, s, e, 0, level + 1};
			else
				cut_groups(key, s, e, level + 1, gmax, grp, ng, defer, cut,
				           ncut);
			continue;
		}
		if (open && e - from > gmax) {
			emit(grp, ng, from, s);
			open = 0;
		}
		if (!open) {
			from = s;
			open = 1;
		}
	}
	if (open)
		emit(grp, ng, from, b);
}

/* Whether the i-groups of n bodies are cut on one thread: below PAR, or
 * where no octant could be left to the threads (cut_all's pieces of at
 * most n / 256 bodies are over gmax). */
static int cut_serial(size_t n, size_t gmax)
{
	return n < PAR || n / 256 <= gmax;
}

/* The jobs of the octree's build (nbrt_octree_build), beside its
 * threads: the i-groups cut serially (cut_serial; at N = 65536 they took
 * 0.09 ms after its 0.5 on an H100's host), where grp is not NULL, and
 * the memory left read for the expansions and the lists (nbrt_host_memory:
 * /proc/meminfo and the cgroup's files, 0.05-0.1 ms there). */
typedef struct Jobs {
	const u64 *key;
	size_t n, gmax, *grp, ng;
	double mem;
	double took[2]; /* each job's seconds (NBRT_VERBOSE's note) */
} Jobs;

static void tree_job(void *arg, int q)
{
	Jobs *g = arg;
	double t0 = nbrt_now();
	if (q == 1 || !g->grp) {
		g->mem = nbrt_host_memory();
		g->took[1] = nbrt_now() - t0;
		return;
	}
	g->ng = 0;
	if (g->n)
		cut_groups(g->key, 0, g->n, 0, g->gmax, g->grp, &g->ng, 0, NULL,
		           NULL);
	g->took[0] = nbrt_now() - t0;
}

/* The i-groups of keys [0, n) into grp (room for n), as one serial
 * cut_groups makes them: the top levels serially, into tmp, leaving
 * octants of at most n / 256 bodies to the threads, which count their
 * groups, then write them in place (the serial pass was 10 ms at
 * N = 2^22).  Returns their count, or (size_t)-1 out of memory. */
static size_t cut_all(nbrt_work *w, const u64 *key, size_t n, size_t gmax,
                      size_t *grp)
{
	size_t ng = 0, nc = 0, defer = cut_serial(n, gmax) ? 0 : n / 256;
	if (!n)
		return 0;
	if (!defer) {
		cut_groups(key, 0, n, 0, gmax, grp, &ng, 0, NULL, NULL);
		return ng;
	}
	/* pieces are disjoint and over gmax; their groups come after the
	 * serial pass's, so tmp has room for both */
	Cut *cut = nbrt_work_take(w, W_CUT, (n / (gmax + 1) + 1) * sizeof *cut);
	size_t *tmp = nbrt_work_take(w, W_CUTGRP, 2 * n * sizeof *tmp);
	if (!cut || !tmp)
		return (size_t)-1;
	cut_groups(key, 0, n, 0, gmax, tmp, &ng, defer, cut, &nc);
	long long q;
#pragma omp parallel for schedule(dynamic, 1)
	for (q = 0; q < (long long)nc; q++) {
		Cut *c = &cut[q];
		cut_groups(key, c->a, c->b, c->level, gmax, NULL, &c->ng, 0, NULL,
		           NULL);
	}
	/* the serial groups before piece q are tmp[.. cut[q].at), each
	 * piece's after them; the offsets in order */
	size_t out = 0, from = 0;
	for (size_t c = 0; c < nc; c++) {
		size_t at = out + (cut[c].at - from);
		memcpy(grp + 2 * out, tmp + 2 * from,
		       2 * (cut[c].at - from) * sizeof *grp);
		from = cut[c].at;
		out = at + cut[c].ng;
		cut[c].at = at;
	}
	memcpy(grp + 2 * out, tmp + 2 * from, 2 * (ng - from) * sizeof *grp);
	out += ng - from;
#pragma omp parallel for schedule(dynamic, 1)
	for (q = 0; q < (long long)nc; q++) {
		size_t m = 0;
		cut_groups(key, cut[q].a, cut[q].b, cut[q].level, gmax,
		           grp + 2 * cut[q].at, &m, 0, NULL, NULL);
	}
	nbrt_work_give(w, cut);
	nbrt_work_give(w, tmp);
	return out;
}

/* The walk's rule: a cell is taken whole where open2 < d2, open2 its
 * level's side^2 / theta^2 (open_table), d2 the squared distance from
 * the group's box to its centre (each axis: the centre less itself
 * clamped to the box, a max then a min, no jump).  taken() tests n
 * cells of one level side by side into a mask; with SSE2 two at a time
 * (one thread's walks 12-20% faster at N = 65536), reading cell n where
 * n is odd (the walk's cells have one spare), with the same operations
 * in the same order, so the same d2 to the bit. */
#ifdef __SSE2__
typedef __m128d Lane;
#define SPLAT(v) _mm_set1_pd(v)
#else
typedef double Lane;
#define SPLAT(v) (v)
#endif
typedef struct Box {
	Lane lo[3], hi[3];
} Box;

static Box box_of(const double b[6])
{
	Box x;
	for (int d = 0; d < 3; d++) {
		x.lo[d] = SPLAT(b[d]);
		x.hi[d] = SPLAT(b[3 + d]);
	}
	return x;
}
#undef SPLAT

#ifdef __SSE2__
static inline __m128d pair(const double *u, const double *v)
{
	return _mm_loadh_pd(_mm_load_sd(u), v);
}

static inline unsigned taken(const Wcell *ch, int n, const Box *x,
                             double open2)
{
	unsigned take = 0;
	__m128d o2 = _mm_set1_pd(open2);
	for (int k = 0; k < n; k += 2) {
		const Wcell *p = &ch[k], *q = &ch[k + 1];
		__m128d d2 = _mm_setzero_pd();
		for (int d = 0; d < 3; d++) {
			__m128d c = pair(&p->c[d], &q->c[d]);
			__m128d e = _mm_sub_pd(c, _mm_min_pd(x->hi[d],
			                                     _mm_max_pd(x->lo[d], c)));
			d2 = d ? _mm_add_pd(d2, _mm_mul_pd(e, e)) : _mm_mul_pd(e, e);
		}
		__m128d lt = _mm_cmplt_pd(o2, d2);
		take |= (unsigned)_mm_movemask_pd(lt) << k;
	}
	return take & ((1u << n) - 1);
}
#else
static inline unsigned taken(const Wcell *ch, int n, const Box *x,
                             double open2)
{
	unsigned take = 0;
	for (int k = 0; k < n; k++) {
		double d2 = 0;
		for (int d = 0; d < 3; d++) {
			double c = ch[k].c[d], q = c < x->lo[d] ? x->lo[d] : c;
			q = q > x->hi[d] ? x->hi[d] : q;
			d2 = d ? d2 + (c - q) * (c - q) : (c - q) * (c - q);
		}
		take |= (unsigned)(open2 < d2) << k;
	}
	return take;
}
#endif

/* One group's walk over the tree: the cells taken whole into far, the
 * leaves' body ranges into near, both as ranges (of cells, of bodies),
 * neighbours joined.  A cell is taken when side < theta * the distance
 * from the group's box to its centre of mass.  A walk whose near list
 * would pass jmax bodies stops and returns -1 (the group is split).
 *
 * An opened cell's children (side by side in the cell array) are tested
 * together, into a mask, without a jump a child: the taken ones go to
 * far as runs, the others on the stack, last first.  The stack holds
 * cells already opened, so leaves come off in Morton order and the near
 * list is the bodies' order; the far list goes in a level's order by
 * far_order, which makes any order the walk meets its cells in the one
 * canonical list (each level's cells ascend as their parents do, and a
 * run that joins a level's last cell to the next level's first stays in
 * order).  A test a child compiled to a jump an axis and one a child,
 * mispredicted about half the time: a min and a max an axis here (the
 * centre clamped to the box), the same d2 to the bit. */
static int walk(const Wcell *cell, const double *open2, size_t ncell,
                const double box[6], size_t jmax, size_t *near, size_t *nn,
                size_t *far, size_t *nf)
{
	size_t stack[8 * (NBRT_TREE_DEPTH + 2)], top = 0, nj = 0;
	size_t end = (size_t)-1, fend = (size_t)-1; /* the last ranges' ends */
	size_t n_near = 0, n_far = 0;
	Box bx = box_of(box);
#define FAR(a, b) do { \
		if ((a) == fend) { \
			if (far) \
				far[2 * n_far - 1] = (b); \
		} else { \
			if (far) { \
				far[2 * n_far] = (a); \
				far[2 * n_far + 1] = (b); \
			} \
			n_far++; \
		} \
		fend = (b); \
	} while (0)
	*nn = *nf = 0;
	if (!ncell)
		return 0;
	if (taken(cell, 1, &bx, open2[0])) {
		FAR((size_t)0, (size_t)1);
		*nf = n_far;
		return 0;
	}
	stack[top++] = 0;
	while (top) {
		const Wcell *p = &cell[stack[--top]];
		if (!p->nchild) {
			if ((nj += p->b - p->a) > jmax)
				return -1;
			if (p->a == end) {
				if (near)
					near[2 * n_near - 1] = p->b;
			} else {
				if (near) {
					near[2 * n_near] = p->a;
					near[2 * n_near + 1] = p->b;
				}
				n_near++;
			}
			end = p->b;
			continue;
		}
		const Wcell *ch = &cell[p->child];
		unsigned take = taken(ch, p->nchild, &bx, open2[p->level + 1]),
		         all = (1u << p->nchild) - 1;
		for (unsigned m = take; m;) {
			unsigned s = (unsigned)__builtin_ctz(m);
			unsigned e = s + (unsigned)__builtin_ctz(~(m >> s));
			FAR(p->child + s, p->child + e);
			m &= ~((1u << e) - 1);
		}
		for (unsigned m = all & ~take; m;) {
			unsigned k = 31u - (unsigned)__builtin_clz(m);
			stack[top++] = p->child + k;
			m &= ~(1u << k);
		}
	}
#undef FAR
	*nn = n_near;
	*nf = n_far;
	return 0;
}

/* The lists of every group, counted first (in parallel), then the memory
 * checked and taken, then filled. */
typedef struct Lists {
	size_t ng, *grp;
	size_t *noff, *near, *foff, *far;
	double *exp[MAXCOL]; /* the far kernel's columns, a value a cell */
	nbrt_work *w;        /* where they are kept, or NULL */
} Lists;

static void lists_free(Lists *L)
{
	nbrt_work_give(L->w, L->grp);
	nbrt_work_give(L->w, L->noff);
	nbrt_work_give(L->w, L->near);
	nbrt_work_give(L->w, L->foff);
	nbrt_work_give(L->w, L->far);
	for (int c = 0; c < MAXCOL; c++)
		nbrt_work_give(L->w, L->exp[c]);
}

/* The bounds in locals: through box (which may alias sx, for the
 * compiler) each body stored them, a tenth of a walk's time. */
static void group_box(const Side *s, size_t a, size_t b, double box[6])
{
	for (int d = 0; d < 3; d++) {
		const double *x = s->sx[d];
		double lo = INFINITY, hi = -INFINITY;
		for (size_t e = a; e < b; e++) {
			lo = x[e] < lo ? x[e] : lo;
			hi = x[e] > hi ? x[e] : hi;
		}
		box[d] = lo;
		box[3 + d] = hi;
	}
}

/* A thread's lists, grown before each walk to room for one more list
 * of each kind (at most a range a cell). */
typedef struct Buf {
	size_t *near, *far, *tmp, nn, nf, cap; /* tmp: a far list as walked */
	size_t *sub, ns, scap; /* pieces walked: first, end, near and far
	                       * counts and where their lists start */
	int bad;
	nbrt_work *w;          /* near, far, tmp and sub kept from slot on */
	int slot;
	double mem;            /* the memory left (make_lists reads it once) */
	double busy;           /* seconds in walk_group (NBRT_VERBOSE's note) */
} Buf;

static void buf_room(Buf *u, size_t ncell)
{
	if (u->bad || (u->near && u->nn + ncell <= u->cap &&
	                u->nf + ncell <= u->cap))
		return;
	size_t cap = 2 * u->cap + ncell + 1;
	size_t *n = (double)cap * 4 * sizeof(size_t) <= u->mem ?
	            nbrt_work_keep(u->w, u->slot, u->near, 2 * cap * sizeof *n) :
	            NULL;
	if (n)
		u->near = n;
	size_t *f = n ? nbrt_work_keep(u->w, u->slot + 1, u->far,
	                               2 * cap * sizeof *f) : NULL;
	if (f)
		u->far = f;
	size_t *w = f ? nbrt_work_keep(u->w, u->slot + 2, u->tmp,
	                               2 * (ncell + 1) * sizeof *w) : NULL;
	if (w)
		u->tmp = w;
	u->bad = !n || !f || !w;
	if (!u->bad)
		u->cap = cap;
}

/* A walk's far list (n ranges of cells) into out in the order of its
 * cells, neighbours joined, as a run's plan wants it (ranges.c reads it
 * in place); returns the ranges left.  Cells are numbered breadth first,
 * so a level's numbers ascend in Morton order, the order in which the
 * walk meets them: a counting sort by level is the whole sort (a qsort
 * of each list took a thread 1 s at N = 2^22).  A range of joined
 * siblings lies within a level. */
static size_t far_order(const Wcell *wc, const size_t *in, size_t n,
                        size_t *out)
{
	size_t at[NBRT_TREE_DEPTH + 2] = {0}, m = 0;
	for (size_t e = 0; e < n; e++)
		at[wc[in[2 * e]].level + 1]++;
	for (int l = 0; l <= NBRT_TREE_DEPTH; l++)
		at[l + 1] += at[l];
	for (size_t e = 0; e < n; e++) {
		size_t *o = out + 2 * at[wc[in[2 * e]].level]++;
		o[0] = in[2 * e];
		o[1] = in[2 * e + 1];
	}
	for (size_t e = 0; e < n; e++) {
		if (m && out[2 * m - 1] == out[2 * e])
			out[2 * m - 1] = out[2 * e + 1];
		else {
			out[2 * m] = out[2 * e];
			out[2 * m + 1] = out[2 * e + 1];
			m++;
		}
	}
	return m;
}

/* The level below which keys a..b-1 differ: where a group splits. */
static int split_level(const u64 *key, size_t a, size_t b)
{
	u64 x = key[a] ^ key[b - 1];
	int level = 0;
	while (level < NBRT_TREE_DEPTH &&
	       !(x >> (3 * (NBRT_TREE_DEPTH - 1 - level)) & 7))
		level++;
	return level;
}

/* One group of the caller's walked, its lists into the thread's buffer,
 * split into its octants while its near list passes jmax bodies, for at
 * most `walks` walks (theta -> 0 makes every list hold every body, and
 * splitting then only multiplies walks): a sparse group beside a dense
 * core (a Plummer sphere's halo) otherwise meets most bodies, and its one
 * work group then outlasts the rest of the near field (2.7e8 pairs of
 * 5.5e9 at N = 2^20 took 0.1 s of the 0.11 s on an H100,
 * docs/treecode.md).  The bound is on the j-bodies of every piece, not
 * on its pairs: a work group's time is its list's length whatever its
 * few i (idle lanes), and a bound on pairs let a piece of 16 halo bodies
 * take all 4M bodies of N = 2^22 with groups of 1024 (6.7e7 pairs on one
 * work group: the near kernel 0.41 s against 8 ms with groups of 256 on
 * an H200).  Each piece's lists are whole (no work is lost); splitting
 * only trades near pairs for far cells. */
static void walk_group(const Wcell *wc, const double *open2,
                       const nbrt_octree *t, const Side *si, size_t a,
                       size_t b, size_t walks, size_t jmax, Buf *u)
{
	size_t stack[2 * 8 * (NBRT_TREE_DEPTH + 2)], top = 0;
	stack[top++] = a;
	stack[top++] = b;
	while (top && !u->bad) {
		b = stack[--top];
		a = stack[--top];
		buf_room(u, t->ncell);
		if (u->ns + 1 > u->scap) {
			size_t cap = 2 * u->scap + 16;
			size_t *n = nbrt_work_keep(u->w, u->slot + 3, u->sub,
			                           6 * cap * sizeof *n);
			if (!n) {
				u->bad = 1;
				break;
			}
			u->sub = n;
			u->scap = cap;
		}
		if (u->bad)
			break;
		double box[6];
		group_box(si, a, b, box);
		int level = split_level(si->key, a, b);
		size_t nn, nf, lim = (size_t)-1;
		if (walks && walks-- && b - a > 1 && level < NBRT_TREE_DEPTH &&
		    top + 16 <= sizeof stack / sizeof *stack)
			lim = jmax;
		if (walk(wc, open2, t->ncell, box, lim, u->near + 2 * u->nn, &nn,
		         u->tmp, &nf)) {
			/* its octants, pushed last first so they come off in order */
			size_t cut[9];
			int m = octant_cuts(si->key, a, b, level, cut);
			for (int q = m; q-- > 0;) {
				stack[top++] = cut[q];
				stack[top++] = cut[q + 1];
			}
			continue;
		}
		nf = far_order(wc, u->tmp, nf, u->far + 2 * u->nf);
		size_t *r = u->sub + 6 * u->ns++;
		r[0] = a;
		r[1] = b;
		r[2] = nn;
		r[3] = nf;
		r[4] = u->nn;
		r[5] = u->nf;
		u->nn += nn;
		u->nf += nf;
	}
}

/* Each level's side^2 / theta^2, within which a cell is opened, into
 * open2[l]: a level's cells all have the side of the root halved l
 * times (plan, octants), so these are the bits that side * side / theta^2
 * gives for each cell, and the build, which writes the walk's cells,
 * need not know theta. */
static void open_table(const nbrt_octree *t, double theta,
                       double open2[NBRT_TREE_DEPTH + 1])
{
	double side = t->ncell ? t->cell[0].side : 0, th2 = theta * theta;
	for (int l = 0; l <= NBRT_TREE_DEPTH; l++) {
		open2[l] = side * side / th2;
		side = 0.5 * side;
	}
}

/* Every group walked (in parallel), its lists and pieces into its
 * thread's buffer (thread q's kept from slot tslot + 4 q); then the
 * memory checked, the pieces (the new groups) and their lists joined in
 * the order of the groups. */
static int make_lists(nbrt *rt, const nbrt_octree *t, const Side *si,
                      double theta, size_t walks, size_t jmax, Lists *L,
                      int tslot, double mem, double *tjoin)
{
	size_t ng = L->ng;
	nbrt_work *kw = L->w;
	/* a group's thread, its first piece there, its pieces, its first
	 * piece of all */
	size_t *at = nbrt_work_take(kw, W_AT, 4 * ng * sizeof *at);
	int nt = 1;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	Buf *buf = calloc((size_t)nt, sizeof *buf);
	size_t *grp = NULL;
	int res = -1, bad = 0;
	if (!at || !buf || nbrt_work_reserve(kw, tslot + 4 * nt)) {
		nbrt_fail(rt, "out of memory for %zu i-groups", ng);
		goto out;
	}
	for (int q = 0; q < nt; q++) {
		buf[q].w = kw;
		buf[q].slot = tslot + 4 * q;
		buf[q].mem = mem;
	}
	/* the build's cells (a pass of them here and its barrier took
	 * 0.03-0.14 ms at N = 65536 on 16 threads); none for no bodies */
	const Wcell *wc = t->wc;
	if (t->ncell && !wc) {
		nbrt_fail(rt, "nbrt_run_tree: the octree was built without the "
		          "walk's cells");
		goto out;
	}
	double open2[NBRT_TREE_DEPTH + 1];
	open_table(t, theta, open2);
	/* a walk is tens of microseconds, so a few dozen groups are worth
	 * the threads: with 256 as the bar, the H200 run's 217 groups at
	 * N = 32768 walked on one thread (7.9 ms, against 2.0 ms for 402
	 * groups at 65536).  A group a grab: the walks take 5-80 us each
	 * (N = 65536, one thread), and at 13 groups a thread a pair of long
	 * ones grabbed last was the region's tail. */
	long long g;
	double t0 = nbrt_now();
#pragma omp parallel for schedule(dynamic, 1) if (ng >= 32)
	for (g = 0; g < (long long)ng; g++) {
		int me = 0;
#ifdef _OPENMP
		me = omp_get_thread_num();
#endif
		Buf *u = &buf[me];
		double tg = nbrt_now();
		at[4 * g] = (size_t)me;
		at[4 * g + 1] = u->ns;
		walk_group(wc, open2, t, si, L->grp[2 * g], L->grp[2 * g + 1], walks,
		           jmax, u);
		at[4 * g + 2] = u->ns - at[4 * g + 1];
		u->busy += nbrt_now() - tg;
	}
	double tj = nbrt_now(), most = 0, busy = 0;
	size_t ns = 0, nn = 0, nf = 0;
	for (int q = 0; q < nt; q++) {
		bad |= buf[q].bad;
		nn += buf[q].nn;
		nf += buf[q].nf;
		busy += buf[q].busy;
		most = fmax(most, buf[q].busy);
	}
	/* the walk's tail and its threads' waits, for its timed part */
	nbrt_note(rt, "walk of %zu groups on %d threads: %.3g ms (a thread's "
	          "most %.3g, mean %.3g)", ng, nt, 1e3 * (tj - t0), 1e3 * most,
	          1e3 * busy / nt);
	for (size_t q = 0; q < ng && !bad; q++) {
		at[4 * q + 3] = ns;
		ns += at[4 * q + 2];
	}
	double need = 2.0 * (double)(nn + nf + 2 * ns) * sizeof(size_t);
	if (bad || need > mem) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, need);
		nbrt_fail(rt, "nbrt_run_tree: the lists of %zu groups (%s%zu near "
		          "ranges, %zu far ranges) need %s, more than this process "
		          "may use", ng, bad ? "more than " : "", nn, nf, b);
		goto out;
	}
	grp = nbrt_work_take(kw, W_PIECE, 2 * ns * sizeof *grp);
	/* ns + 2 offsets, the plan's (ranges.c, NBRT_RANGES_PLANNED) */
	L->noff = nbrt_work_take(kw, W_NOFF, (ns + 2) * sizeof *L->noff);
	L->foff = nbrt_work_take(kw, W_FOFF, (ns + 2) * sizeof *L->foff);
	L->near = nbrt_work_take(kw, W_NEAR, 2 * nn * sizeof *L->near);
	L->far = nbrt_work_take(kw, W_FAR, 2 * nf * sizeof *L->far);
	if (!grp || !L->noff || !L->foff || !L->near || !L->far) {
		nbrt_fail(rt, "out of memory for the lists of %zu groups", ns);
		goto out;
	}
	L->noff[0] = L->foff[0] = 0;
	for (size_t q = 0, o = 0; q < ng; q++)
		for (size_t k = 0; k < at[4 * q + 2]; k++, o++) {
			const size_t *r = buf[at[4 * q]].sub + 6 * (at[4 * q + 1] + k);
			grp[2 * o] = r[0];
			grp[2 * o + 1] = r[1];
			L->noff[o + 1] = L->noff[o] + r[2];
			L->foff[o + 1] = L->foff[o] + r[3];
		}
	L->noff[ns + 1] = L->noff[ns];
	L->foff[ns + 1] = L->foff[ns];
	/* a few dozen groups are worth the threads: at N = 65536, 207
	 * groups' lists are 76k ranges, 1.2 MB */
#pragma omp parallel for schedule(static) if (ng >= 32)
	for (g = 0; g < (long long)ng; g++) {
		const Buf *u = &buf[at[4 * g]];
		for (size_t k = 0; k < at[4 * g + 2]; k++) {
			const size_t *r = u->sub + 6 * (at[4 * g + 1] + k);
			size_t o = at[4 * g + 3] + k;
			if (r[2])
				memcpy(L->near + 2 * L->noff[o], u->near + 2 * r[4],
				       2 * r[2] * sizeof *L->near);
			if (r[3])
				memcpy(L->far + 2 * L->foff[o], u->far + 2 * r[5],
				       2 * r[3] * sizeof *L->far);
		}
	}
	nbrt_work_give(kw, L->grp);
	L->grp = grp;
	L->ng = ns;
	grp = NULL;
	*tjoin = nbrt_now() - tj;
	res = 0;
out:
	for (int q = 0; buf && q < nt; q++) {
		nbrt_work_give(kw, buf[q].near);
		nbrt_work_give(kw, buf[q].far);
		nbrt_work_give(kw, buf[q].tmp);
		nbrt_work_give(kw, buf[q].sub);
	}
	free(buf);
	nbrt_work_give(kw, at);
	nbrt_work_give(kw, grp);
	return res;
}

static const Kind *far_kind(nbrt_kernel *far)
{
	const nb_iface *f = far->f;
	for (int q = 0; q < NKIND; q++) {
		int v = 0;
		while (v < f->nvar && (f->var[v].role != NB_BMEM ||
		                       kind_col(&kinds[q], f->var[v].name) >= 0))
			v++;
		if (v == f->nvar)
			return &kinds[q];
	}
	char list[512];
	size_t at = 0;
	for (int q = 0; q < NKIND; q++)
		for (int c = -1; c < kinds[q].ncol && at < sizeof list; c++)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
			                       c < 0 ? (q ? "; " : "") : " ",
			                       c < 0 ? kinds[q].what : kinds[q].col[c]);
	nbrt_fail(far->rt, "far kernel %s: its BMEMs are not the columns of "
	          "one kind of cell expansion (%s)", f->kernel, list);
	return NULL;
}

/* nbrt_fail, returning no kind. */
#define far_fail(...) (nbrt_fail(__VA_ARGS__), (const Kind *)NULL)

/* The far kernel's variables against the kernel's: its LMEMs and CONSTs
 * the kernel's, its BMEMs expansions, its RMEMs the kernel's, all of
 * them, as sums. */
static const Kind *far_check(nbrt_kernel *k, nbrt_kernel *far)
{
	const nb_iface *f = far->f, *kf = k->f;
	nbrt *rt = k->rt;
	const Kind *kd = far_kind(far);
	if (!kd)
		return NULL;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		int kv = nb_iface_find(kf, x->name);
		if (x->role == NB_BMEM)
			continue;
		if (kv < 0 || kf->var[kv].role != x->role)
			return far_fail(rt, "far kernel %s: %s '%s' is no %s of kernel "
			                 "%s, which it must come from", f->kernel,
			                 nb_role_name(x->role), x->name,
			                 nb_role_name(x->role), kf->kernel);
		if (x->role == NB_RMEM &&
		    (x->red != NB_SUM || kf->var[kv].red != NB_SUM))
			return far_fail(rt, "far kernel %s: RMEM '%s' must be a sum "
			                 "in both kernels, near and far add together",
			                 f->kernel, x->name);
		if (x->role == NB_CONST && !k->b[kv].set)
			return far_fail(rt, "kernel %s: CONST '%s', which far kernel %s "
			                 "reads, is not set", kf->kernel, x->name,
			                 f->kernel);
	}
	for (int v = 0; v < kf->nvar; v++) {
		int fv = nb_iface_find(f, kf->var[v].name);
		if (kf->var[v].role == NB_RMEM &&
		    (fv < 0 || f->var[fv].role != NB_RMEM))
			return far_fail(rt, "kernel %s: RMEM '%s' has no far field: "
			                 "far kernel %s computes no '%s'", kf->kernel,
			                 kf->var[v].name, f->kernel, kf->var[v].name);
	}
	return kd;
}

/* The kernel's arrays, sorted: inputs gathered in Morton order, results
 * made in it and scattered back at the end.  A host array keeps its own
 * type (dd keeps its low words); an nbrt_array goes through doubles. */
typedef struct Copies {
	int nvar;
	nbrt_type *t;
	void **host;  /* the caller's array, or its doubles read */
	void **sorted;
	char *shared; /* sorted[v] is an earlier variable's */
	char *pinned; /* sorted[v] is the back end's (copy_buffer) */
	nbrt_work *w; /* where sorted[v] and host[v] are kept (W_COPY), or
	               * NULL */
} Copies;

static void copies_free(Copies *c)
{
	for (int v = 0; v < c->nvar; v++) {
		if (c->sorted && !(c->shared && c->shared[v]) &&
		    !(c->pinned && c->pinned[v]))
			nbrt_work_give(c->w, c->sorted[v]);
		if (c->host && c->host[v] && c->t && c->t[v] == (nbrt_type)-1)
			nbrt_work_give(c->w, c->host[v]);
	}
	free(c->t);
	free(c->host);
	free(c->sorted);
	free(c->shared);
	free(c->pinned);
}

/* Variable v's sorted copy: the back end's pinned memory where it has
 * it, as the cell lists' (cutoff.c): both runs upload the inputs from it
 * and the far run's results come back into it, go up again for the near
 * run to add into and come back, and pageable memory crosses at a
 * fraction of the speed (through the driver's own staging).  Else kept
 * on the kernel. */
static void *copy_buffer(nbrt_kernel *k, Copies *c, int v, size_t bytes)
{
	void *p = k->rt->be->hostbuf ? k->rt->be->hostbuf(k, v, bytes) : NULL;
	c->pinned[v] = p != NULL;
	return p ? p : nbrt_work_take(c->w, W_COPY + 2 * v, bytes);
}

/* Copies of known columns (copies_make), each n[q] values of type t[q]
 * (float or double) into dst[q] from the doubles of src[q], which were
 * read from values of that type: the same values.  All in one parallel
 * loop over pieces of every column: a loop a column was a parallel
 * region each, four at N = 65536 (copies 0.07-0.10 ms on an H200's host,
 * session 13's final run), before the far kernel can start. */
enum { KNOWN = 8 }; /* the most columns copied in one loop */
typedef struct Known {
	int n;
	void *dst[KNOWN];
	nbrt_type t[KNOWN];
	const double *src[KNOWN];
	size_t len[KNOWN];
} Known;

static void from_doubles(const Known *kn)
{
	enum { PIECE = 8192 };
	size_t first[KNOWN + 1] = {0}, most = 0;
	for (int q = 0; q < kn->n; q++) {
		first[q + 1] = first[q] + (kn->len[q] + PIECE - 1) / PIECE;
		most = kn->len[q] > most ? kn->len[q] : most;
	}
	long long p;
#pragma omp parallel for schedule(static) if (most >= PAR)
	for (p = 0; p < (long long)first[kn->n]; p++) {
		int q = 0;
		while ((size_t)p >= first[q + 1])
			q++;
		size_t a = ((size_t)p - first[q]) * PIECE;
		size_t len = kn->len[q] - a < PIECE ? kn->len[q] - a : PIECE;
		const double *s = kn->src[q] + a;
		if (kn->t[q] == NBRT_DOUBLE)
			memcpy((double *)kn->dst[q] + a, s, len * sizeof *s);
		else
			for (size_t e = 0; e < len; e++)
				((float *)kn->dst[q])[a + e] = (float)s[e];
	}
}

/* Makes the sorted copies and binds them to k in place of the caller's
 * arrays (saved in `saved`).  A column the tree read and sorted as
 * doubles (known[v]: positions, masses) is copied from those in order,
 * where its host array holds floats or doubles (exact both ways): a
 * gather reads the caller's array at random, a page and a cache line a
 * value. */
static int copies_make(nbrt_kernel *k, Copies *c, const Side *si,
                       const Side *sj, double *const *known)
{
	const nb_iface *f = k->f;
	c->nvar = f->nvar;
	c->t = calloc((size_t)f->nvar, sizeof *c->t);
	c->host = calloc((size_t)f->nvar, sizeof *c->host);
	c->sorted = calloc((size_t)f->nvar, sizeof *c->sorted);
	c->shared = calloc((size_t)f->nvar, 1);
	c->pinned = calloc((size_t)f->nvar, 1);
	if (!c->t || !c->host || !c->sorted || !c->shared || !c->pinned)
		return nbrt_fail(k->rt, "out of memory");
	Known kn;
	kn.n = 0;
	for (int v = 0; v < f->nvar; v++) {
		nbrt_slot *s = &k->b[v];
		nb_role role = f->var[v].role;
		if (role == NB_CONST || !s->set)
			continue;
		const Side *sd = role == NB_BMEM ? sj : si;
		size_t n = sd->n, es;
		c->t[v] = s->t;
		c->host[v] = s->host;
		if (!s->host && s->arr && s->arr->n < n)
			return nbrt_fail(k->rt, "kernel %s: nbrt_run_tree: the array "
			                 "bound to '%s' holds %zu values, fewer than "
			                 "%zu", f->kernel,
			                 f->var[v].name, s->arr->n, n);
		if (!s->host && s->arr) {
			/* an array in device memory: its values through doubles */
			double *h = nbrt_work_take(c->w, W_COPY + 2 * v + 1,
			                           s->arr->n * sizeof *h);
			if (!h)
				return nbrt_fail(k->rt, "out of memory");
			c->host[v] = h;
			c->t[v] = (nbrt_type)-1; /* ours to free */
			if (nbrt_array_read(s->arr, h))
				return -1;
		}
		nbrt_type t = c->t[v] == (nbrt_type)-1 ? NBRT_DOUBLE : c->t[v];
		es = type_size(t);
		/* an input bound to an earlier input of the same order (an
		 * N-body run's xi and xj) shares its sorted copy */
		int w = 0;
		while (w < v && (role == NB_RMEM || !s->host || !c->sorted[w] ||
		                 f->var[w].role == NB_RMEM || c->t[w] != c->t[v] ||
		                 c->t[v] == (nbrt_type)-1 || c->host[w] != s->host ||
		                 (f->var[w].role == NB_BMEM ? sj : si)->order !=
		                 sd->order))
			w++;
		if (w < v) {
			c->sorted[v] = c->sorted[w];
			c->shared[v] = 1;
			s->t = t;
			s->host = c->sorted[v];
			s->arr = NULL;
			continue;
		}
		c->sorted[v] = copy_buffer(k, c, v, n * es);
		if (!c->sorted[v])
			return nbrt_fail(k->rt, "out of memory for a sorted copy of "
			                 "'%s'", f->var[v].name);
		if (role != NB_RMEM && known[v] && s->host &&
		    (t == NBRT_FLOAT || t == NBRT_DOUBLE)) {
			if (kn.n == KNOWN) {
				from_doubles(&kn);
				kn.n = 0;
			}
			kn.dst[kn.n] = c->sorted[v];
			kn.t[kn.n] = t;
			kn.src[kn.n] = known[v];
			kn.len[kn.n++] = n;
		} else if (role != NB_RMEM)
			nbrt_order_gather(c->sorted[v], c->host[v], sd->order, n, es);
		s->t = t;
		s->host = c->sorted[v];
		s->arr = NULL;
	}
	from_doubles(&kn);
	return 0;
}

/* Whether the far and near runs' results may stay on the device, the
 * near run adding into the far run's there and the device putting them
 * back into the caller's order (the back end's tree_results): where it
 * sorted i (the order is there), the far field runs in place, and each
 * result is a host array of the kernel's own type (float or double), at
 * most four, of the far kernel's type too.  The results then cross the
 * bus once instead of five times (docs/treecode.md). */
static int chained(const nbrt_kernel *k, const nbrt_kernel *far,
                   const Side *si, const nbrt_slot *saved, int streamed)
{
	const nb_iface *f = k->f;
	int nr = 0;
	if (streamed || si->devslot < 0 || !k->rt->be->tree_results)
		return 0;
	for (int v = 0; v < f->nvar; v++) {
		const nbrt_slot *s = &saved[v]; /* the caller's binding */
		nb_prec t = f->var[v].type;
		if (f->var[v].role != NB_RMEM)
			continue;
		int fv = nb_iface_find(far->f, f->var[v].name);
		if (++nr > NBRT_TREE_MAXRES || !s->set || !s->host || fv < 0 ||
		    far->f->var[fv].type != t ||
		    !((s->t == NBRT_FLOAT && t == NB_FLOAT) ||
		      (s->t == NBRT_DOUBLE && t == NB_DOUBLE)))
			return 0;
	}
	return nr > 0;
}

/* Results back in the caller's order, into its arrays: the host arrays
 * of float and double on the device where it sorted i (tree_scatter: 4M
 * floats written at random took about 5 ms a column on the H200's
 * host), the rest here.  far: the far run kept beside the near run
 * (NBRT_KEEP_BESIDE), its results added to k's on the device; else NULL. */
static int copies_scatter(nbrt_kernel *k, nbrt_kernel *far, const Copies *c,
                          const Side *si, const nbrt_slot *saved, int chain)
{
	const nb_iface *f = k->f;
	nbrt *rt = k->rt;
	enum { MOST = NBRT_TREE_MAXRES };
	void *dst[MOST];
	const void *src[MOST];
	size_t es[MOST];
	int nd = 0, dev = 0, var[MOST];
	if (chain) { /* the results are on the device only (chained) */
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_RMEM) {
				if (nd == MOST) /* chained() lets no more chain */
					return nbrt_fail(rt, "kernel %s: more than %d results "
					                 "kept on the device", f->kernel, MOST);
				var[nd] = v;
				dst[nd++] = c->host[v];
			}
		if (!rt->be->tree_results(k->last ? k->last : k, far, si->devslot,
		                          si->n, nd, var, dst))
			return 0;
		/* no fallback: the results are on the device only, and reading
		 * them back to scatter here would meet the same device */
		char why[512];
		snprintf(why, sizeof why, "%s", nbrt_error(rt));
		return nbrt_fail(rt, "kernel %s: nbrt_run_tree: the results, kept "
		                 "on %s, could not be put back into the caller's "
		                 "order: %s", f->kernel, nbrt_device_name(rt), why);
	}
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && c->sorted[v] && nd < MOST &&
		    (c->t[v] == NBRT_FLOAT || c->t[v] == NBRT_DOUBLE)) {
			dst[nd] = c->host[v];
			src[nd] = c->sorted[v];
			es[nd++] = type_size(c->t[v]);
		}
	if (nd && si->devslot >= 0 && rt->be->tree_scatter) {
		int r = rt->be->tree_scatter(rt, si->devslot, si->n, nd, dst, src,
		                             es);
		if (r < 0)
			nbrt_note(rt, "the device's scatter of the results failed "
			          "(%s); scattered on the host", nbrt_error(rt));
		dev = !r;
	}
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM || !c->sorted[v])
			continue;
		nbrt_type t = c->t[v] == (nbrt_type)-1 ? NBRT_DOUBLE : c->t[v];
		int done = 0;
		for (int q = 0; dev && q < nd; q++)
			done |= dst[q] == c->host[v];
		if (!done)
			nbrt_order_scatter(c->host[v], c->sorted[v], si->order, si->n,
			                   type_size(t));
		if (c->t[v] == (nbrt_type)-1 &&
		    nbrt_array_write(saved[v].arr, c->host[v]))
			return -1;
	}
	return 0;
}

/* The far kernel bound to the sorted copies (LMEMs, RMEMs), the
 * expansions (BMEMs) and the kernel's CONSTs. */
static void far_bind(nbrt_kernel *k, nbrt_kernel *far, const Kind *kd,
                     Lists *L)
{
	const nb_iface *f = far->f;
	for (int v = 0; v < f->nvar; v++) {
		nbrt_slot *s = &far->b[v];
		if (f->var[v].role == NB_BMEM) {
			int c = kind_col(kd, f->var[v].name);
			*s = (nbrt_slot){.set = 1, .t = NBRT_DOUBLE, .host = L->exp[c]};
		} else
			*s = k->b[nb_iface_find(k->f, f->var[v].name)];
	}
}

/* A vector kind's sources: the columns named by t->jsrc, read in the
 * caller's order into src, and |source| as the walk's weights (sj->m). */
static int sources_read(nbrt_kernel *k, const int gv[3], Side *sj,
                        double *src[6])
{
	size_t n = sj->n;
	for (int d = 0; d < 6; d++)
		if (!(src[d] = nbrt_work_take(sj->w, W_SRC + d, n * sizeof(double))))
			return nbrt_fail(k->rt, "out of memory for %zu bodies", n);
	for (int d = 0; d < 3; d++)
		if (column(k, "source", gv[d], n, src[d], NULL, NULL))
			return -1;
	long long e;
#pragma omp parallel for schedule(static) if (n >= PAR)
	for (e = 0; e < (long long)n; e++)
		sj->m[e] = sqrt(src[0][e] * src[0][e] + src[1][e] * src[1][e] +
		                src[2][e] * src[2][e]);
	return 0;
}

/* The far kernel's columns, a value a cell, filled by its kind from the
 * sorted bodies (and the sorted sources, src[3..5], of a vector kind). */
static int far_columns(nbrt *rt, const Kind *kd, const nbrt_octree *tree,
                       const Side *sj, double *src[6], double mem, Lists *L)
{
	size_t nc = tree->ncell ? tree->ncell : 1;
	double need = (double)nc * kd->ncol * sizeof(double);
	if (need > mem)
		return nbrt_fail(rt, "nbrt_run_tree: the expansions of %zu cells "
		                 "need more memory than this process may use",
		                 tree->ncell);
	if (tree->col[0] && kd->fill == fill_gravity) {
		/* written by the build (nbrt_octree_build): at N = 65536 this
		 * pass read cells other threads had written, 0.1 ms on an H100's
		 * host */
		memcpy(L->exp, tree->col, sizeof tree->col);
		return 0;
	}
	for (int c = 0; c < kd->ncol; c++)
		if (!(L->exp[c] = nbrt_work_take(L->w, W_EXP + c,
		                                 nc * sizeof(double))))
			return nbrt_fail(rt, "out of memory for the expansions of %zu "
			                 "cells", tree->ncell);
	for (int d = 0; d < 3 && kd->nsrc == 3; d++)
		nbrt_order_gather(src[3 + d], src[d], sj->order, sj->n,
		                  sizeof(double));
	double *mass[3] = {sj->sm, NULL, NULL}; /* nsrc 1: the sorted masses */
	kd->fill(tree, sj->sx, kd->nsrc == 3 ? src + 3 : mass, L->exp);
	return 0;
}

/* The far field as a dense stream.  A far list of cells is mostly ranges
 * of one cell (siblings join only when all are taken), and a range costs
 * a loop's setup on the host and a tile and two barriers on a GPU: at
 * N = 2^22 on an H100 the far run did 2e9 pairs/s against the near run's
 * 1e10.  So each group's far cells are gathered, in list order, into one
 * contiguous run of expansions, and its far list becomes one range of
 * it.  Groups go in batches whose stream fits the memory budget, the
 * first batch writing every result, the later ones adding in. */
static int far_stream(nbrt_kernel *k, nbrt_kernel *far, const Kind *kd,
                      size_t ni, const Side *si, const Lists *L,
                      size_t batch, double *pairs)
{
	nbrt *rt = k->rt;
	size_t ng = L->ng, *len = malloc((ng + 1) * sizeof *len);
	size_t *off = malloc((ng + 1) * sizeof *off);
	size_t *rg = malloc(2 * (ng ? ng : 1) * sizeof *rg);
	Lists S;
	memset(&S, 0, sizeof S);
	int res = -1;
	if (!len || !off || !rg) {
		nbrt_fail(rt, "out of memory for the far lists of %zu groups", ng);
		goto out;
	}
	size_t most = 1, total = 0;
	long long g;
#pragma omp parallel for schedule(static) if (ng >= PAR / 64)
	for (g = 0; g < (long long)ng; g++) {
		size_t c = 0;
		for (size_t e = L->foff[g]; e < L->foff[g + 1]; e++)
			c += L->far[2 * e + 1] - L->far[2 * e];
		len[g] = c;
	}
	for (size_t q = 0; q < ng; q++) {
		most = len[q] > most ? len[q] : most;
		total += len[q];
	}
	/* a stream of at most 2^24 expansions or an eighth of the memory
	 * left, and at least the longest list */
	double room = nbrt_host_memory() / 8 / ((double)kd->ncol * sizeof(double));
	size_t cap = total < ((size_t)1 << 24) ? total : (size_t)1 << 24;
	if ((double)cap > room)
		cap = (size_t)room;
	if (batch && cap > batch)
		cap = batch;
	if (cap < most)
		cap = most;
	if ((double)cap * kd->ncol * sizeof(double) > nbrt_host_memory()) {
		char b[32];
		nbrt_format_bytes(b, sizeof b,
		                  (double)cap * kd->ncol * sizeof(double));
		nbrt_fail(rt, "nbrt_run_tree: a far list of %zu cells needs %s, "
		          "more than this process may use", most, b);
		goto out;
	}
	/* the stream in the far kernel's precision where that is float, so
	 * the run reads it as it is (no converted copy) */
	int f32 = 1;
	for (int v = 0; v < far->f->nvar; v++)
		f32 &= far->f->var[v].role != NB_BMEM ||
		       far->f->var[v].type == NB_FLOAT;
	for (int c = 0; c < kd->ncol; c++)
		if (!(S.exp[c] = malloc(cap * (f32 ? sizeof(float) :
		                               sizeof(double))))) {
			nbrt_fail(rt, "out of memory for %zu far expansions", cap);
			goto out;
		}
	far_bind(k, far, kd, &S);
	for (int v = 0; f32 && v < far->f->nvar; v++)
		if (far->f->var[v].role == NB_BMEM)
			far->b[v].t = NBRT_FLOAT;
	*pairs = 0;
	for (size_t g0 = 0, g1; g0 < ng || (!ng && !g0); g0 = g1) {
		size_t at = 0;
		for (g1 = g0; g1 < ng && at + len[g1] <= cap; g1++) {
			off[g1 - g0] = g1 - g0;
			rg[2 * (g1 - g0)] = at;
			rg[2 * (g1 - g0) + 1] = at += len[g1];
		}
		off[g1 - g0] = g1 - g0;
#pragma omp parallel for schedule(dynamic, 16) if (at >= PAR)
		for (g = (long long)g0; g < (long long)g1; g++) {
			size_t to = rg[2 * ((size_t)g - g0)];
			for (size_t e = L->foff[g]; e < L->foff[g + 1]; e++)
				for (size_t c = L->far[2 * e]; c < L->far[2 * e + 1]; c++,
				     to++)
					for (int w = 0; w < kd->ncol; w++) {
						if (f32)
							((float *)(void *)S.exp[w])[to] =
							    (float)L->exp[w][c];
						else
							S.exp[w][to] = L->exp[w][c];
					}
		}
		nbrt_ranges r = {g1 - g0, L->grp + 2 * g0, off, rg};
		/* its message is the device's */
		if (nbrt_run_ranges_ex(far, ni, at, &r, si->order, NULL, g0 > 0, 0))
			goto out;
		*pairs += far->pairs;
		if (!ng)
			break;
	}
	res = 0;
out:
	free(len);
	free(off);
	free(rg);
	lists_free(&S);
	return res;
}

/* Whether a chain's far run (chained) goes on a second queue, beside the
 * near run, which then starts from zero, the two added at the scatter
 * (NBRT_TREE_QUEUES=2, the default), or before it on one queue, the near
 * run adding into its results (1); -1 for anything else, the message
 * set.  Both deterministic; their bits differ only where a result is
 * added in more than one near task (docs/treecode.md, s14-pipe). */
static int env_queues(nbrt *rt)
{
	long v = 2;
	return nbrt_env_int(rt, "NBRT_TREE_QUEUES", 1, 2, &v) < 0 ? -1 : (int)v;
}

/* Whether the far run reads a gathered stream (far_stream) or the cells'
 * ranges in place: NBRT_TREE_FAR=stream or cells, by default in place.
 * Once the ranges entry packed short ranges into whole tiles, in place
 * won everywhere: on an H100 at N = 2^22, theta 0.5, groups of 256, the
 * far field took 0.38 s in place against 1.16 s streamed (the gather and
 * its upload on the host), and PoCL at 2^14 1.2 s against 1.4 s
 * (docs/treecode.md).  "stream,N" makes batches of at most N expansions
 * (tests: many batches); 0 where not given.  -1 for anything else. */
static int far_streamed(nbrt *rt, size_t *batch)
{
	const char *e = getenv("NBRT_TREE_FAR");
	*batch = 0;
	if (!e || !*e || !strcmp(e, "cells"))
		return 0;
	if (!strcmp(e, "stream"))
		return 1;
	if (!strncmp(e, "stream,", 7) && e[7] >= '0' && e[7] <= '9') {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(e + 7, &end, 10);
		if (!errno && !*end && v >= 1 && v <= SIZE_MAX / 64) {
			*batch = (size_t)v;
			return 1;
		}
	}
	return nbrt_fail(rt, "NBRT_TREE_FAR='%s': it must be cells, stream or "
	                 "stream,N with N a whole number of expansions from 1",
	                 nb_esc(e));
}

/* The most near pairs (bodies times near j-bodies) of one group: what a
 * split of groups bounds (walk_group), and so the longest work group. */
static double max_group_pairs(const Lists *L)
{
	double most = 0;
	long long g;
#pragma omp parallel for schedule(static) reduction(max : most) \
	if (L->ng >= PAR / 64)
	for (g = 0; g < (long long)L->ng; g++) {
		size_t nj = 0;
		for (size_t r = L->noff[g]; r < L->noff[g + 1]; r++)
			nj += L->near[2 * r + 1] - L->near[2 * r];
		double p = (double)nj * (double)(L->grp[2 * g + 1] - L->grp[2 * g]);
		most = p > most ? p : most;
	}
	return most;
}

/* $NBRT_TREE_GROUP through msg.c's checked reader (nbrt_env_int): the
 * group; 0 where the value is refused (the message into rt where rt is
 * given; nbrt_tree_group has none), SIZE_MAX where it is not set. */
static size_t env_group(nbrt *rt)
{
	nbrt quiet;
	memset(&quiet, 0, sizeof quiet);
	long v;
	int r = nbrt_env_int(rt ? rt : &quiet, "NBRT_TREE_GROUP", 1, LONG_MAX,
	                     &v);
	free(quiet.err);
	return r < 0 ? 0 : r ? (size_t)v : SIZE_MAX;
}

size_t nbrt_tree_group(size_t ni)
{
	size_t g = env_group(NULL);
	return g != SIZE_MAX ? g : ni >= NBRT_TREE_LARGE ? NBRT_TREE_GROUP_LARGE
	                                                 : NBRT_TREE_GROUP;
}

int nbrt_run_tree(nbrt_kernel *k, nbrt_kernel *far, size_t ni, size_t nj,
                  const nbrt_tree *t)
{
	if (!k)
		return -1;
	nbrt *rt = k->rt;
	const char *kn = k->f->kernel;
	if (!far || !t)
		return nbrt_fail(rt, "kernel %s: nbrt_run_tree: no %s (NULL)", kn,
		                 far ? "tree parameters" : "far kernel");
	if (far->rt != rt)
		return nbrt_fail(rt, "kernel %s: nbrt_run_tree: far kernel %s is "
		                 "loaded on another device", kn, far->f->kernel);
	if (!(t->theta > 0) || !isfinite(t->theta))
		return nbrt_fail(rt, "kernel %s: nbrt_run_tree: theta = %g; it must "
		                 "be a finite number > 0 (0.5 is usual)", kn,
		                 t->theta);
	if (!t->group && !env_group(rt))
		return -1;
	if (!t->bucket || !t->group)
		return nbrt_fail(rt, "kernel %s: nbrt_run_tree: a %s size of 0; "
		                 "it must be at least 1 (%d is usual)", kn,
		                 t->bucket ? "group" : "bucket",
		                 t->bucket ? NBRT_TREE_GROUP : NBRT_TREE_BUCKET);
	const Kind *kd = far_check(k, far);
	if (!kd)
		return -1;
	int pi[3], pj[3], gv[3], mj = -1;
	if (kd->nsrc == 1 && (mj = named(k, t->jmass, NB_BMEM, "mass")) < 0)
		return -1;
	for (int d = 0; d < 3; d++)
		if ((pi[d] = named(k, t->ipos[d], NB_LMEM, "i-position")) < 0 ||
		    (pj[d] = named(k, t->jpos[d], NB_BMEM, "j-position")) < 0 ||
		    (kd->nsrc == 3 &&
		     (gv[d] = named(k, t->jsrc[d], NB_BMEM, "source")) < 0))
			return -1;
	/* one column on two axes built the tree, the groups' boxes and the
	 * expansions' centres from the wrong coordinates while the kernel
	 * read its own, silently (nbrt_run_cutoff refuses it too) */
	for (int side = 0; side < 2; side++)
		for (int d = 1; d < 3; d++)
			for (int e = 0; e < d; e++) {
				const int *pv = side ? pj : pi;
				const char *key = side ? "jpos" : "ipos";
				if (pv[e] == pv[d])
					return nbrt_fail(rt, "kernel %s: nbrt_run_tree: %s[%d] "
					                 "and %s[%d] both name '%s': each axis "
					                 "needs its own column", kn, key, e, key,
					                 d, k->f->var[pv[d]].name);
			}
	/* results over inputs (nbrt_bind's contract): the runs below see
	 * sorted copies and could not tell, and the scatter wrote the
	 * results over the caller's masses or positions */
	if (nbrt_core_overlap(k, ni, nj))
		return -1;

	double t0 = nbrt_now(), tm[5] = {0, 0, 0, 0, 0}, part[8] = {0}, tp;
	int res = -1, nv = k->f->nvar, fnv = far->f->nvar, chain = 0;
	Side si, sj;
	memset(&si, 0, sizeof si);
	memset(&sj, 0, sizeof sj);
	nbrt_octree tree;
	memset(&tree, 0, sizeof tree);
	Lists L;
	memset(&L, 0, sizeof L);
	Copies cp;
	memset(&cp, 0, sizeof cp);
	nbrt_work *w = &k->treework;
	tree.work = L.w = cp.w = w;
	double *src[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
	nbrt_slot *saved = malloc((size_t)(nv + fnv) * sizeof *saved);
	double **known = calloc((size_t)nv, sizeof *known);
	if (!saved || !known) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	memcpy(saved, k->b, (size_t)nv * sizeof *saved);
	memcpy(saved + nv, far->b, (size_t)fnv * sizeof *saved);
	/* j first, i's positions compared with it as it is read */
	int same = same_bodies(k, ni, nj, pi, pj), like;
	const void *ih[3] = {k->b[pi[0]].host, k->b[pi[1]].host,
	                     k->b[pi[2]].host};
	if (side_read(k, &sj, nj, pj, mj, 1, w, W_SIDE, same == 1 ? ih : NULL,
	              &like))
		goto out;
	same = same == 2 || (same == 1 && like);
	if ((!same && side_read(k, &si, ni, pi, -1, 0, w, W_SIDE + 10, NULL,
	                        NULL)) ||
	    (kd->nsrc == 3 && sources_read(k, gv, &sj, src)))
		goto out;
	part[0] = (tp = nbrt_now()) - t0;
	/* the cube around both sides, a little wider so its top face is
	 * inside the last key */
	double lo[3], hi[3], side = 0;
	for (int d = 0; d < 3; d++) {
		lo[d] = same ? sj.lo[d] : fmin(si.lo[d], sj.lo[d]);
		hi[d] = same ? sj.hi[d] : fmax(si.hi[d], sj.hi[d]);
		side = fmax(side, hi[d] - lo[d]);
	}
	side = side > 0 && isfinite(side) ? side * (1 + 0x1p-20) :
	       side > 0 ? HUGE_VAL : 1;
	if (side_sort(rt, &sj, lo, side, 0) ||
	    (!same && side_sort(rt, &si, lo, side, 1)))
		goto out;
	if (same)
		side_alias(&si, &sj);
	part[1] = nbrt_now() - tp;
	tp = nbrt_now();
	L.grp = nbrt_work_take(w, W_GRP, 2 * ni * sizeof *L.grp);
	if (!L.grp) {
		nbrt_fail(rt, "out of memory for %zu i-groups", ni);
		goto out;
	}
	/* serial groups are cut, and the memory left read, by the build's
	 * threads (its part's time then holds theirs) */
	int gser = cut_serial(ni, t->group);
	Jobs gj = {si.key, ni, t->group, gser ? L.grp : NULL, 0, 0, {0, 0}};
	tree.colslot = kd->fill == fill_gravity ? W_EXP : 0;
	tree.wcslot = W_WC;
	if (nbrt_octree_build(rt, &tree, sj.key, nj, t->bucket, side, sj.sx,
	                      sj.sm, tree_job, &gj, 1 + gser))
		goto out;
	nbrt_note(rt, "octree's jobs: groups %.3g ms, memory read %.3g ms",
	          1e3 * gj.took[0], 1e3 * gj.took[1]);
	part[2] = nbrt_now() - tp;
	tp = nbrt_now();
	if (gser)
		L.ng = gj.ng;
	else if ((L.ng = cut_all(w, si.key, ni, t->group, L.grp)) ==
	         (size_t)-1) {
		L.ng = 0;
		nbrt_fail(rt, "out of memory for %zu i-groups", ni);
		goto out;
	}
	double t1 = nbrt_now();
	tm[0] = t1 - t0;
	part[3] = t1 - tp;
	double tcol = nbrt_now();
	/* the memory left for the expansions and the lists, read once (100
	 * us a read here; the walk's threads read it for their first
	 * buffers, sixteen at once on an H100's host), by the build's job */
	double mem = gj.mem;
	if (far_columns(rt, kd, &tree, &sj, src, mem, &L))
		goto out;
	double t2 = nbrt_now();
	tcol = t2 - tcol;
	tm[1] = t2 - t1;
	/* a piece's near j-bodies: at most 16 groups' worth, or 1/64 of all
	 * j (the common case stays whole; an outlier is split), so a group's
	 * near pairs stay within group * that.  Groups count as at least 256
	 * bodies here: a small group's list (about 1600 bodies for groups of
	 * 64 at N = 10^4, theta 0.5) passed 16 * 64, so nearly every group was
	 * split to pieces of a few bodies, whose walks take cells a whole
	 * group would open: at that N the median force error rose from 9.6e-5
	 * to 2.8e-4 (treeacc; the lead's bisect, session 12) */
	double gmin = fmax((double)t->group, 256);
	size_t jmax = (size_t)fmax((double)nj / 64, 16.0 * gmin);
	long jenv; /* $NBRT_TREE_SPLIT over it: tests reach the split with it */
	int je = nbrt_env_int(rt, "NBRT_TREE_SPLIT", 1, LONG_MAX, &jenv);
	if (je < 0)
		goto out;
	if (je)
		jmax = (size_t)jenv;
	if (make_lists(rt, &tree, &si, t->theta, t->group / 4 + 8, jmax, &L,
	               W_COPY + 2 * nv, mem, &part[4]))
		goto out;
	double t3 = nbrt_now();
	tm[2] = t3 - t2;
	for (int d = 0; d < 3; d++) {
		known[pi[d]] = si.sx[d];
		known[pj[d]] = sj.sx[d];
	}
	if (mj >= 0)
		known[mj] = sj.sm;
	if (copies_make(k, &cp, &si, &sj, known))
		goto restore;
	part[5] = (tp = nbrt_now()) - t3;
	nbrt_ranges nr = {L.ng, L.grp, L.noff, L.near};
	double fpairs;
	size_t batch;
	int streamed = far_streamed(k->rt, &batch), queues = env_queues(rt);
	if (streamed < 0 || queues < 0)
		goto restore;
	chain = chained(k, far, &si, saved, streamed);
	int beside = chain && queues == 2;
	if (streamed) {
		if (far_stream(k, far, kd, ni, &si, &L, batch, &fpairs))
			goto restore;
	} else {
		nbrt_ranges fr = {L.ng, L.grp, L.foff, L.far};
		far_bind(k, far, kd, &L);
		far->rkeep = !chain ? 0 : beside ? NBRT_KEEP_BESIDE :
		             NBRT_KEEP_RUNNING;
		/* its message is the device's */
		if (nbrt_run_ranges_ex(far, ni, tree.ncell, &fr, si.order, NULL, 0,
		                       NBRT_RANGES_PLANNED))
			goto restore;
		fpairs = far->pairs;
	}
	double t4 = nbrt_now();
	tm[3] = t4 - t3;
	part[6] = t4 - tp;
	k->rkeep = !chain ? 0 : beside ? NBRT_KEEP_LAST : NBRT_KEEP_DONE;
	k->rfrom = chain && !beside ? (far->last ? far->last : far) : NULL;
	/* its message is the device's; beside the far run, from zero */
	if (nbrt_run_ranges_ex(k, ni, nj, &nr, si.order, sj.order, !beside,
	                       NBRT_RANGES_PLANNED))
		goto restore;
	tm[4] = nbrt_now() - t4;
	double t5 = nbrt_now();
	memcpy(k->b, saved, (size_t)nv * sizeof *saved);
	res = copies_scatter(k, beside ? (far->last ? far->last : far) : NULL,
	                     &cp, &si, saved, chain);
	/* a kept run's launches are waited for at the near run's end or at
	 * the scatter (the OpenCL back end's settle): their time is its
	 * variant's */
	if (chain && far->last)
		far->tkern = far->last->tkern;
	if (beside && k->last)
		k->tkern = k->last->tkern;
	part[7] = nbrt_now() - t5;
	if (t->stats) {
		memcpy(t->stats->time, tm, sizeof tm);
		memcpy(t->stats->part, part, sizeof part);
		t->stats->cells = tree.ncell;
		t->stats->groups = L.ng;
		t->stats->near_pairs = k->pairs;
		t->stats->max_group_pairs = max_group_pairs(&L);
		t->stats->far_pairs = fpairs;
	}
	k->pairs += fpairs;
	/* where a small call's time goes, finer than the stats: the runs'
	 * plans, their time in the back end (uploads, launches, results
	 * back) and their kernels */
	nbrt_note(rt, "tree of %zu and %zu bodies: %.3g ms: read %.3g, sort "
	          "%.3g, octree %.3g, groups %.3g; moments %.3g (columns %.3g); "
	          "walk %.3g (join %.3g); copies %.3g; far %.3g (plan %.3g, run "
	          "%.3g, kernel %.3g); near %.3g (plan %.3g, run %.3g, kernel "
	          "%.3g); scatter %.3g; %zu groups, %zu near and %zu far "
	          "ranges%s", ni, nj, 1e3 * (nbrt_now() - t0),
	          1e3 * part[0], 1e3 * part[1], 1e3 * part[2], 1e3 * part[3],
	          1e3 * tm[1], 1e3 * tcol, 1e3 * tm[2], 1e3 * part[4],
	          1e3 * part[5], 1e3 * tm[3], 1e3 * far->tplan,
	          1e3 * far->ttotal, 1e3 * far->tkern, 1e3 * tm[4],
	          1e3 * k->tplan, 1e3 * k->ttotal, 1e3 * k->tkern, 1e3 * part[7],
	          L.ng, L.noff[L.ng], L.foff[L.ng],
	          beside ? " (results kept on the device, far beside near)" :
	          chain ? " (results kept on the device)" : "");
restore:
	/* the near run or the scatter failed before they waited for the
	 * kept runs' launches and uploads (from the sorted copies): waited
	 * for here, the first message kept */
	if (res && chain && rt->be->settle) {
		char *why = strdup(nbrt_error(rt));
		rt->be->settle(far->last ? far->last : far);
		rt->be->settle(k->last ? k->last : k);
		if (why)
			nbrt_fail(rt, "%s", why);
		free(why);
	}
	k->rkeep = far->rkeep = 0;
	k->rfrom = NULL;
	memcpy(k->b, saved, (size_t)nv * sizeof *saved);
	memcpy(far->b, saved + nv, (size_t)fnv * sizeof *saved);
out:
	free(saved);
	free(known);
	copies_free(&cp);
	lists_free(&L);
	nbrt_octree_free(&tree);
	side_free(&si);
	side_free(&sj);
	for (int d = 0; d < 6; d++)
		nbrt_work_give(w, src[d]);
	return res;
}
