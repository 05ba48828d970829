/* emit_opencl.c: the OpenCL C 1.2 back end.  A work item takes NI
 * i-elements (T work items share them under a j-split); the work group
 * stages BMEM through local memory one tile at a time, packed in vectors
 * so one load fetches several values; full tiles run a loop of fixed trip
 * count, the last tile and the j remainder are guarded, so any Ni and Nj
 * work without padding.  Partial sums of a j-split are combined by
 * sub-group shuffles where the device has them, else through local
 * memory with one barrier (see docs/language.md, "j-split"). */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

typedef struct E {
	const Func *f;
	const nb_iface *fc;
	Buf *out;
	int fast;
	int rmode; /* writing the entry of block-sparse runs */
	int pmode; /* writing the entry of Newton's third law (cl_pairs) */
	const Spelling *sp; /* cl_spelling, or cl_cpu_spelling */
	int dterm; /* the dense entry's term: j's packs by value, nb_q<p>;
	            * 2: its j-sides too, the sinks again into t<v> */
	int dtile; /* the dense entry stages its j-block in local memory */
	int apart; /* its term summed apart, then added (nb_defaults) */
} E;

/* Whether the dense entry is being written: the one whose NB_DIN build
 * reads the runtime's arrays of doubles (din_macros). */
static int din(const E *e)
{
	return !e->rmode && !e->pmode && !e->dterm;
}

/* OpenCL C overloads sqrt for float, has rsqrt and native_ forms. */
static const Spelling cl_spelling = {0, 1, "native_", 0};
/* A float kernel for a CPU under float's estimates (cpu_approx) writes
 * rsqrt(x) as 1 / sqrt(x): PoCL's rsqrt is a library function, which
 * LLVM computes with vsqrtps and vdivps whatever the options, while its
 * own 1 / sqrt under -cl-unsafe-math-optimizations becomes vrsqrt14ps
 * (vrsqrtps without AVX-512) and one Newton step. */
static const Spelling cl_cpu_spelling = {0, 0, "native_", 0};

/* Whether a kernel for a CPU computes rsqrt from an estimate (prec.c's
 * approx): the C back end's rule, taken by OpenCL on a CPU.  On a GPU
 * rsqrt is already one instruction. */
static int cpu_approx(Type widest, const nb_options *o)
{
	return o->cpu && emit_approx(widest, o);
}

/* The vector type (float2, double4, ...) of a BMEM pack of vwidth scalars. */
static const char *vtype(const Func *f, nb_prec t, int vwidth)
{
	if (vwidth == 1)
		return prec[t].scalar;
	return cprintf(f->ctx, "%s%d", prec[t].scalar, vwidth);
}

/* The scalar-or-vector type of one element of a variable's array. */
static const char *etype(Type t) { return prec[t].clelem; }

static const char *comp(int c)
{
	static const char *const s[] = {"x", "y", "z", "w"};
	return s[c];
}

/* Writes one instruction of block blk; `loaded` marks which (pack, lane)
 * vectors this block has fetched from local memory so far. */
static void emit_ins(E *e, int k, const char *ind, char *loaded, int npack)
{
	const Func *f = e->f;
	Buf *out = e->out;
	const Ins *in = &f->ins[k];
	const Var *v = in->var >= 0 ? &f->var[in->var] : NULL;
	if (in->op == O_IMM)
		return;
	if (opinfo[in->op].props & P_SINK) {
		char r[64];
		if (e->pmode) /* a pair's term alone, for both sides */
			snprintf(r, sizeof r, "s%d", in->var);
		else
			snprintf(r, sizeof r, "r%d_%d", in->var, in->lane);
		buf_puts(out, ind);
		emit_sink(out, f, k, r, target_opencl.spell, NULL, NULL);
		if (e->dterm == 2) {
			r[0] = 't';
			buf_puts(out, ind);
			(v->sym < 0 ? emit_sink_neg : emit_sink)(out, f, k, r,
			        target_opencl.spell, NULL, NULL);
		}
		return;
	}
	if (in->op == O_LDJ) {
		const nb_var *iv = &e->fc->var[in->var];
		int p = iv->pack, lane = in->lane;
		char *seen = &loaded[lane * npack + p];
		if (!*seen) {
			*seen = 1;
			const nb_pack *pk = &e->fc->pack[p];
			if (e->dterm)
				buf_printf(out, "%sconst %s q%d_%d = nb_q%d;\n", ind,
				           vtype(f, pk->type, pk->vwidth), p, lane, p);
			else if (e->pmode)
				buf_printf(out, "%sconst %s q%d_%d = b%d[nb_jx];\n", ind,
				           vtype(f, pk->type, pk->vwidth), p, lane, p);
			else if (e->fc->tile)
				buf_printf(out, "%sconst %s q%d_%d = t%d[jj + %d];\n", ind,
				           vtype(f, pk->type, pk->vwidth), p, lane, p,
				           lane * f->jsplit);
			else
				buf_printf(out, "%sconst %s q%d_%d = %s%d%sjbase + jj + "
				           "%d%s;\n", ind, vtype(f, pk->type, pk->vwidth), p,
				           lane, din(e) ? "NB_LB" : "b", p, din(e) ? "(" : "[",
				           lane * f->jsplit, din(e) ? ")" : "]");
		}
		buf_printf(out, "%sconst %s v%d = ", ind, ctype(in->type), k);
		const nb_pack *pk = &e->fc->pack[p];
		if (in->type == T_DD)
			buf_printf(out, "nb_dd_make(q%d_%d.%s, q%d_%d.%s);\n", p, lane,
			           comp(2 * iv->comp), p, lane, comp(2 * iv->comp + 1));
		else if (pk->vwidth == 1)
			buf_printf(out, "q%d_%d;\n", p, lane);
		else
			buf_printf(out, "q%d_%d.%s;\n", p, lane, comp(iv->comp));
		return;
	}
	buf_printf(out, "%sconst %s v%d = ", ind, ctype(in->type), k);
	switch (in->op) {
	case O_LDI:
		if (din(e))
			buf_printf(out, "NB_LI_" NB_VPFX "%s(i%d)", v->name, in->lane);
		else if (in->type == T_DD)
			buf_printf(out, "nb_dd_make(" NB_VPFX "%s[i%d].x, "
			           NB_VPFX "%s[i%d].y)", v->name,
			           in->lane, v->name, in->lane);
		else
			buf_printf(out, NB_VPFX "%s[i%d]", v->name, in->lane);
		break;
	case O_CONST:
		if (in->type == T_DD)
			buf_printf(out, "nb_dd_make(" NB_VPFX "%s.x, " NB_VPFX
			           "%s.y)", v->name, v->name);
		else
			buf_printf(out, NB_VPFX "%s", v->name);
		break;
	case O_IDXI: /* a ranges run on sorted copies maps it back */
		if (e->pmode)
			buf_puts(out, "i");
		else if (e->rmode)
			buf_printf(out, "nb_mapped ? nb_imap[i%d] : i%d", in->lane,
			           in->lane);
		else
			buf_printf(out, "i + %d", in->lane);
		break;
	case O_IDXJ: /* global: jbase, the tile, the step, the lane */
		if (e->pmode) {
			buf_puts(out, "nb_jx");
			break;
		}
		if (e->rmode && e->fc->tile) { /* packed tiles keep each slot's j */
			buf_printf(out, "nb_mapped ? nb_jmap[nb_tj[jj + %d]] : "
			           "nb_tj[jj + %d]", in->lane * f->jsplit,
			           in->lane * f->jsplit);
			break;
		}
		if (e->rmode)
			buf_printf(out, "nb_mapped ? nb_jmap[jbase + %sjj + %d] : ",
			           e->fc->tile ? "jt + " : "", in->lane * f->jsplit);
		buf_printf(out, "jbase + %sjj + %d", e->fc->tile ? "jt + " : "",
		           in->lane * f->jsplit);
		break;
	default:
		emit_rhs(out, f, k, e->sp, e->fast, NULL, NULL);
	}
	buf_puts(out, ";\n");
}

static void emit_block(E *e, int blk, const char *ind)
{
	const Func *f = e->f;
	int npack = e->fc->npack ? e->fc->npack : 1;
	char *loaded = calloc((size_t)(npack * f->nj), 1);
	if (!loaded)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].blk == blk)
			emit_ins(e, k, ind, loaded, npack);
	free(loaded);
}

/* Whether this entry lays its j-split across warps (--split-warps): the
 * dense entry only; the ranges entry's tasks keep their own layout. */
static int split_warps(const E *e)
{
	return e->f->ctx->opt->split_warps && e->f->jsplit > 1 && !e->rmode;
}

/* Whether the entry's j-split combines by sub-group shuffles: T a power
 * of two within a sub-group, and sums only (the other reductions'
 * states, some two values, take the local-memory path). */
static int shuffles(const E *e)
{
	const Func *f = e->f;
	int t = f->jsplit;
	/* split across warps: a warp's lanes hold other i-elements, so
	 * its partial sums meet in local memory (that entry only) */
	if (split_warps(e))
		return 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && f->var[v].red > NB_COUNT)
			return 0;
	return (t & (t - 1)) == 0 && t <= 32;
}

/* Sums the T partial sums of each accumulator into the work item with
 * p == 0.  Shuffles need T a power of two within a sub-group; the
 * fallback adds in the order of p, like the C back end. */
static void emit_combine(E *e)
{
	const Func *f = e->f;
	Buf *out = e->out;
	int t = f->jsplit;
	int pow2 = shuffles(e);
	/* the T items of an i-group: consecutive, or a row apart */
	const char *q = split_warps(e) ? "q * (NB_WG / NB_T)" : "q";
	if (pow2) {
		buf_puts(out, "#if NB_SHUFFLE\n");
		for (int v = 0; v < f->nvar; v++) {
			if (f->var[v].role != NB_RMEM)
				continue;
			for (int l = 0; l < f->ni; l++) {
				const char *add = f->var[v].type == T_DD ?
				                  "nb_dd_add" : "NB_ADD";
				buf_printf(out, "\tfor (int o = %d; o > 0; o >>= 1)\n", t / 2);
				buf_printf(out, "\t\tr%d_%d = %s(r%d_%d, nb_shfl_%s(r%d_%d, "
				           "o));\n", v, l, add, v, l,
				           prec[f->var[v].type].tag, v, l);
			}
		}
		buf_puts(out, "#else\n");
	}
	/* through local memory: every work item writes its sums, then the
	 * first of each group of T adds them up */
	int idx[NPREC + 1] = {0};
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		int aux = red_aux(f->var[v].red);
		for (int l = 0; l < f->ni; l++) {
			buf_printf(out, "\tc%s[%d * NB_WG + lid] = r%d_%d;\n",
			           prec[f->var[v].type].tag,
			           idx[f->var[v].type]++, v, l);
			if (aux) /* the second state: an index or a sum */
				buf_printf(out, "\tc%s[%d * NB_WG + lid] = rx%d_%d;\n",
				           aux == 1 ? "i" : prec[f->var[v].type].tag,
				           idx[aux == 1 ? NPREC : f->var[v].type]++, v,
				           l);
		}
	}
	buf_puts(out, "\tbarrier(CLK_LOCAL_MEM_FENCE);\n");
	buf_puts(out, "\tif (p == 0) {\n");
	memset(idx, 0, sizeof idx);
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		int aux = red_aux(f->var[v].red);
		for (int l = 0; l < f->ni; l++) {
			int ix = idx[f->var[v].type]++;
			const char *c = prec[f->var[v].type].tag;
			buf_printf(out, "\t\tfor (int q = 1; q < NB_T; q++)\n");
			if (aux || f->var[v].red == NB_MIN || f->var[v].red == NB_MAX) {
				int ax = aux ? idx[aux == 1 ? NPREC :
				                   f->var[v].type]++ : 0;
				char r[32], rx[40], s[64], sx[64];
				snprintf(r, sizeof r, "r%d_%d", v, l);
				snprintf(rx, sizeof rx, "rx%d_%d", v, l);
				snprintf(s, sizeof s, "c%s[%d * NB_WG + lid + %s]", c, ix, q);
				snprintf(sx, sizeof sx, "c%s[%d * NB_WG + lid + %s]",
				         aux == 1 ? "i" : c, ax, q);
				buf_puts(out, "\t\t\t");
				red_combine(out, f, v, target_opencl.spell, r, rx, s, sx);
			} else if (f->var[v].type == T_DD)
				buf_printf(out, "\t\t\tr%d_%d = nb_dd_add(r%d_%d, "
				           "c%s[%d * NB_WG + lid + %s]);\n", v, l, v, l, c,
				           ix, q);
			else
				buf_printf(out, "\t\t\tr%d_%d += c%s[%d * NB_WG + lid + "
				           "%s];\n", v, l, c, ix, q);
		}
	}
	buf_puts(out, "\t}\n");
	if (pow2)
		buf_puts(out, "#endif\n");
}

/* The row of compiler/defaults.c for the device class and precision. */
static const nb_defaults *cl_defaults(Type widest, nb_options *o)
{
	return defaults_apply("opencl", widest, o);
}

static void shuffle_prelude(Buf *out, int dbl, int dd)
{
	buf_puts(out,
	         "/* Sub-group shuffles for the j-split (paper 003: partial sums\n"
	         " * combined among the threads of one warp, without barriers):\n"
	         " * sub-groups of 8 or more consecutive work items (every device\n"
	         " * that has them), or NVIDIA's warps of 32 (whole warps only). */\n"
	         "#if defined(cl_khr_subgroup_shuffle) && NB_T <= 8\n"
	         "#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable\n"
	         "#define NB_SHUFFLE 1\n"
	         "static inline float nb_shfl_f(float x, int o) "
	         "{ return sub_group_shuffle_xor(x, (uint)o); }\n");
	if (dbl)
		buf_puts(out,
		         "static inline double nb_shfl_d(double x, int o) "
		         "{ return sub_group_shuffle_xor(x, (uint)o); }\n");
	buf_puts(out,
	         "#elif defined(NB_NVIDIA_SHFL) && NB_WG % 32 == 0\n"
	         "#define NB_SHUFFLE 1\n"
	         "static inline float nb_shfl_f(float x, int o)\n{\n"
	         "\tfloat r;\n"
	         "\tasm volatile(\"shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\"\n"
	         "\t             : \"=f\"(r) : \"f\"(x), \"r\"(o));\n"
	         "\treturn r;\n}\n");
	if (dbl)
		buf_puts(out,
		         "static inline double nb_shfl_d(double x, int o)\n{\n"
		         "\tuint2 u = as_uint2(x), r;\n"
		         "\tasm volatile(\"shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\"\n"
		         "\t             : \"=r\"(r.x) : \"r\"(u.x), \"r\"(o));\n"
		         "\tasm volatile(\"shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\"\n"
		         "\t             : \"=r\"(r.y) : \"r\"(u.y), \"r\"(o));\n"
		         "\treturn as_double(r);\n}\n");
	buf_puts(out, "#else\n#define NB_SHUFFLE 0\n#endif\n");
	if (dd)
		buf_puts(out,
		         "#if NB_SHUFFLE\n"
		         "static inline nb_dd nb_shfl_dd(nb_dd x, int o)\n"
		         "{ return nb_dd_make(nb_shfl_d(x.hi, o), nb_shfl_d(x.lo, o)); }\n"
		         "#endif\n");
	buf_puts(out, "#define NB_ADD(a, b) ((a) + (b))\n");
}

/* The least j-split whose ranges entry without tiles gives each work
 * item whole ranges (cl_rest) rather than a T-th of each. */
enum { RLANE = 8 };

/* A staged tile of cnt j-elements, its loads done: the sweep over it. */
static void emit_tile_sweep(E *e)
{
	const Func *f = e->f;
	Buf *out = e->out;
	int nj = f->nj, t = f->jsplit, step = nj * t;
	buf_puts(out, "\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n");
	buf_puts(out, "\t\tint jj = p;\n");
	/* a full tile has a trip count the compiler knows */
	buf_puts(out, "\t\tif (cnt == NB_TILE) {\n");
	/* NVIDIA unrolls a known trip count by 4 when asked (the
	 * measured tables); others warn when they cannot.  Split across
	 * warps, not at all: one i-element a work item has ILP enough in
	 * its j-unroll, and four copies doubled its registers (32 to 64 for
	 * float gravity, ptxas) */
	buf_printf(out, "#ifdef cl_nv_pragma_unroll\n\t\t\t#pragma unroll %d\n"
	           "#endif\n", split_warps(e) ? 1 : 4);
	buf_printf(out, "\t\t\tfor (; jj + %d < NB_TILE; jj += %d) {\n",
	           (nj - 1) * t, step);
	emit_block(e, B_BODY, "\t\t\t\t");
	buf_puts(out, "\t\t\t}\n\t\t} else {\n");
	buf_printf(out, "\t\t\tfor (; jj + %d < cnt; jj += %d) {\n",
	           (nj - 1) * t, step);
	emit_block(e, B_BODY, "\t\t\t\t");
	buf_puts(out, "\t\t\t}\n\t\t}\n");
	if (nj > 1) {
		buf_printf(out, "\t\tfor (; jj < cnt; jj += %d) {\n", t);
		emit_block(e, B_TAIL, "\t\t\t");
		buf_puts(out, "\t\t}\n");
	}
}

/* NB_PF (-DNB_PF=1 through NBRT_CL_OPTIONS, for now an experiment of
 * issue 30): the dense entry keeps the next tile's j-elements in
 * registers, NB_TILE / NB_WG of each pack a work item, loaded while the
 * current tile is swept, so that a launch with few warps a unit (small
 * N) does not wait for each tile's loads after its barrier.  Before the
 * tile loop (next 0): the registers and the first tile's loads; in each
 * tile after its first barrier (next 1): the registers into the tile,
 * then the next tile's loads, which the sweep does not wait for. */
static void emit_prefetch(E *e, int next)
{
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	const char *in = next ? "\t\t" : "\t", *at = next ? "jt + NB_TILE + " : "";
	if (!next)
		for (int p = 0; p < fc->npack; p++)
			buf_printf(out, "\t%s f%d[NB_TILE / NB_WG];\n",
			           vtype(e->f, fc->pack[p].type, fc->pack[p].vwidth), p);
	buf_printf(out, "#ifdef cl_nv_pragma_unroll\n%s#pragma unroll\n#endif\n"
	           "%sfor (int q = 0; q < NB_TILE / NB_WG; q++) {\n"
	           "%s\tconst int l = lid + q * NB_WG;\n", in, in, in);
	if (next) {
		buf_printf(out, "%s\tif (l < cnt) {\n", in);
		for (int p = 0; p < fc->npack; p++)
			buf_printf(out, "%s\t\tt%d[l] = f%d[q];\n", in, p, p);
		buf_printf(out, "%s\t}\n", in);
	}
	buf_printf(out, "%s\tif (%sl < nj) {\n", in, at);
	for (int p = 0; p < fc->npack; p++)
		buf_printf(out, "%s\t\tf%d[q] = NB_LB%d(jbase + %sl);\n", in, p, p,
		           at);
	buf_printf(out, "%s\t}\n%s}\n", in, in);
}

/* Each result's store of slice sl of a launch of ns slices: at sl * ni
 * + (i - ibase) of ARRAY (the RMEM array's name, or nb_pV). */
static void slice_stores(E *e, const char *in, int own)
{
	const Func *f = e->f;
	Buf *out = e->out;
	for (int v = 0; v < f->nvar; v++)
		for (int l = 0; l < f->ni && f->var[v].role == NB_RMEM; l++) {
			buf_printf(out, "%sif (i + %d <= ilast)\n%s\t", in, l, in);
			if (own)
				buf_printf(out, "nb_p%d", v);
			else
				buf_printf(out, NB_VPFX "%s", f->var[v].name);
			if (f->var[v].type == T_DD)
				buf_printf(out, "[o + %d] = (double2)(r%d_%d.hi, "
				           "r%d_%d.lo);\n", l, v, l, v, l);
			else
				buf_printf(out, "[o + %d] = r%d_%d;\n", l, v, l);
		}
}

/* A launch of ns slices: slice sl stores its sums at sl * ni + (i -
 * ibase) of each RMEM array, for the runtime's kernels to add up.  Built
 * with NB_OWN=1 (the runtime's NBRT_OWN_SLICES=1, an experiment of issue
 * 30), the kernel takes nb_part and nb_cnt and stores them in nb_part
 * instead, each result's ns rows 16-byte aligned, where the last of the
 * ns work items of an index g to count itself in nb_cnt[g] adds them up
 * in the order of the slices, as the runtime's kernels do, and stores as
 * an unsliced launch does: the same bits, without a launch a result
 * (some microseconds each).  A work item's count, not a work group's: no
 * barrier (PoCL's work-item loops corrupted memory around barriers under
 * a condition).  Apart, since the code for it cost 1.3% at N = 131072
 * on an H100 even unused (docs/performance.md, issue 30). */
static void emit_slices(E *e)
{
	const Func *f = e->f;
	Buf *out = e->out;
	int ni = f->ni;
	/* a direct launch is never sliced (run.c) */
	buf_puts(out, "#if NB_DIRECT\n");
	if (f->jsplit > 1)
		buf_puts(out, "\tif (p != 0)\n\t\treturn;\n");
	buf_puts(out, "#elif NB_OWN\n\tint nb_fin = 1;\n\tif (ns > 1) {\n"
	         "\t\tconst size_t o = (size_t)sl * ni + (size_t)(i - ibase);\n"
	         "\t\tsize_t nb_at = 0;\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			const char *ty = etype(f->var[v].type);
			buf_printf(out, "\t\tvolatile __global %s *nb_p%d = "
			           "(volatile __global %s *)(nb_part + nb_at);\n"
			           "\t\tnb_at += ((size_t)ns * ni * sizeof(%s) + "
			           "15) / 16 * 16;\n", ty, v, ty, ty);
		}
	buf_puts(out, "\t\tnb_fin = 0;\n\t\tif (p == 0) {\n");
	slice_stores(e, "\t\t\t", 1);
	/* every store before the count, every load after it: fences on
	 * both sides, and the loads volatile, past any cache of a unit */
	buf_puts(out, "\t\t\tmem_fence(CLK_GLOBAL_MEM_FENCE);\n"
	         "\t\t\tnb_fin = atomic_inc(&nb_cnt[g]) == ns - 1;\n"
	         "\t\t\tif (nb_fin) /* ready for the next launch */\n"
	         "\t\t\t\tnb_cnt[g] = 0;\n"
	         "\t\t\tmem_fence(CLK_GLOBAL_MEM_FENCE);\n\t\t}\n"
	         "\t\tconst size_t q = (size_t)(i - ibase);\n");
	for (int v = 0; v < f->nvar; v++)
		for (int l = 0; l < ni && f->var[v].role == NB_RMEM; l++) {
			buf_printf(out, "\t\tif (nb_fin && i + %d <= ilast) {\n", l);
			if (f->var[v].type == T_DD)
				buf_printf(out, "\t\t\tr%d_%d = nb_dd_make(nb_p%d[q + %d].x, "
				           "nb_p%d[q + %d].y);\n"
				           "\t\t\tfor (int k = 1; k < ns; k++)\n"
				           "\t\t\t\tr%d_%d = nb_dd_add(r%d_%d, nb_dd_make("
				           "nb_p%d[k * (size_t)ni + q + %d].x, "
				           "nb_p%d[k * (size_t)ni + q + %d].y));\n",
				           v, l, v, l, v, l, v, l, v, l, v, l, v, l);
			else
				buf_printf(out, "\t\t\tr%d_%d = nb_p%d[q + %d];\n"
				           "\t\t\tfor (int k = 1; k < ns; k++)\n"
				           "\t\t\t\tr%d_%d += nb_p%d[k * (size_t)ni + q + "
				           "%d];\n", v, l, v, l, v, l, v, l);
			buf_puts(out, "\t\t}\n");
		}
	buf_puts(out, "\t}\n\tif (p != 0 || !nb_fin)\n\t\treturn;\n#else\n");
	if (f->jsplit > 1)
		buf_puts(out, "\tif (p != 0)\n\t\treturn;\n");
	buf_puts(out, "\tif (ns > 1) {\n\t\tconst size_t o = (size_t)sl * "
	         "ni + (size_t)(i - ibase);\n");
	slice_stores(e, "\t\t", 0);
	buf_puts(out, "\t\treturn;\n\t}\n#endif\n");
}

/* NB_DIN (-DNB_DIN=1, with NB_DIRECT=1: runtime/cl/run.c's one launch
 * a run where every input and result is a device array): the dense entry
 * reads its inputs from the runtime's arrays of doubles, each value
 * rounded as kernels.cl's nbrt_to_* rounds it into the buffers a launch
 * before the kernel fills otherwise (a float by a cast, a dd as hi and a
 * zero lo, unused lanes 0).  NB_LI_nbv_<v>(i): LMEM v's i-element i;
 * NB_LB<p>(j): pack p's vector of j-element j.  Built with NB_DIN_SH=1
 * a float input is no array of its own but an offset into nb_sh, where
 * the runtime keeps every array's float copy (the same cast, made once
 * where the array changes, runtime/cl/run.c): half the bytes a tile
 * reads, and one buffer argument for them all where NVIDIA's enqueue
 * costs about 0.4 us a buffer (NB_DF). */
static void din_macros(const E *e)
{
	const Func *f = e->f;
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	buf_puts(out, "#ifndef NB_DIN\n#define NB_DIN 0\n#endif\n"
	         "#ifndef NB_DIN_SH\n#define NB_DIN_SH 0\n#endif\n"
	         "#if NB_DIN_SH\n#define NB_DIN_FP const ulong\n"
	         "#define NB_DF(v, i) nb_sh[(v) + (i)]\n#else\n"
	         "#define NB_DIN_FP __global const double *restrict\n"
	         "#define NB_DF(v, i) ((float)(v)[i])\n#endif\n");
	for (int d = 1; d >= 0; d--) {
		buf_puts(out, d ? "#if NB_DIN\n" : "#else\n");
		for (int v = 0; v < f->nvar; v++) {
			const Var *x = &f->var[v];
			const char *nm = x->name;
			if (x->role != NB_LMEM)
				continue;
			if (x->type == T_DD && d)
				buf_printf(out, "#define NB_LI_" NB_VPFX "%s(i) nb_dd_make(" NB_VPFX
				           "%s[i], 0.0)\n", nm, nm);
			else if (x->type == T_DD)
				buf_printf(out, "#define NB_LI_" NB_VPFX "%s(i) nb_dd_make(" NB_VPFX
				           "%s[i].x, " NB_VPFX "%s[i].y)\n", nm, nm, nm);
			else if (d && x->type == T_F32)
				buf_printf(out, "#define NB_LI_" NB_VPFX "%s(i) NB_DF(" NB_VPFX
				           "%s, i)\n", nm, nm);
			else if (d)
				buf_printf(out, "#define NB_LI_" NB_VPFX "%s(i) ((%s)" NB_VPFX
				           "%s[i])\n", nm, ctype(x->type), nm);
			else
				buf_printf(out, "#define NB_LI_" NB_VPFX "%s(i) " NB_VPFX "%s[i]\n",
				           nm, nm);
		}
		for (int p = 0; p < fc->npack; p++) {
			const nb_pack *pk = &fc->pack[p];
			if (!d) {
				buf_printf(out, "#define NB_LB%d(j) b%d[j]\n", p, p);
				continue;
			}
			int sc = nb_prec_scalars(pk->type);
			const char *st = prec[pk->type].scalar;
			buf_printf(out, "#define NB_LB%d(j) (", p);
			if (pk->vwidth > 1)
				buf_printf(out, "(%s)(", vtype(f, pk->type, pk->vwidth));
			for (int l = 0; l < pk->vwidth; l++) {
				int w = -1;
				for (int v = 0; v < f->nvar; v++)
					if (f->var[v].role == NB_BMEM && fc->var[v].pack == p &&
					    fc->var[v].comp == l / sc)
						w = v;
				if (l)
					buf_puts(out, ", ");
				if (w < 0 || l % sc)
					buf_printf(out, "(%s)0", st);
				else if (pk->type == NB_FLOAT)
					buf_printf(out, "NB_DF(" NB_VPFX "%s, j)", f->var[w].name);
				else
					buf_printf(out, "(%s)" NB_VPFX "%s[j]", st,
					           f->var[w].name);
			}
			buf_puts(out, pk->vwidth > 1 ? "))\n" : ")\n");
		}
	}
	buf_puts(out, "#endif\n");
}

/* An input's parameter in the NB_DIN build (din_macros). */
static const char *din_type(int t)
{
	return t == NB_FLOAT ? "NB_DIN_FP" : "__global const double *restrict";
}

/* The kernel's parameters after the leading ones: LMEM, BMEM packs,
 * CONST, RMEM. */
static void cl_params(E *e)
{
	const Func *f = e->f;
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	/* the dense entry built with NB_DIN=1 takes the runtime's arrays of
	 * doubles as its inputs too: each LMEM, then each BMEM by pack */
	int d = din(e);
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		if (x->role == NB_LMEM && d)
			buf_printf(out, ",\n#if NB_DIN\n\t%s " NB_VPFX "%s\n#else\n"
			           "\t__global const %s *restrict " NB_VPFX "%s\n#endif\n\t",
			           din_type(x->type), x->name, etype(x->type), x->name);
		else if (x->role == NB_LMEM)
			buf_printf(out, ",\n\t__global const %s *restrict "
			           NB_VPFX "%s", etype(x->type), x->name);
	}
	for (int p = 0; p < fc->npack; p++) {
		if (d) {
			buf_puts(out, ",\n#if NB_DIN\n");
			int first = 1;
			for (int v = 0; v < f->nvar; v++)
				if (f->var[v].role == NB_BMEM && fc->var[v].pack == p) {
					buf_printf(out, "%s\t%s " NB_VPFX "%s", first ? "" : ",\n",
					           din_type(fc->pack[p].type), f->var[v].name);
					first = 0;
				}
			buf_puts(out, "\n#else\n");
		} else
			buf_puts(out, ",\n");
		buf_printf(out, "\t__global const %s *restrict b%d",
		           vtype(f, fc->pack[p].type, fc->pack[p].vwidth), p);
		if (d)
			buf_puts(out, "\n#endif\n\t");
	}
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		if (x->role == NB_CONST)
			buf_printf(out, ",\n\tconst %s " NB_VPFX "%s",
			           etype(x->type), x->name);
	}
	/* the dense entry built with NB_DIRECT=1 takes the runtime's arrays
	 * of doubles as its results (emit_store) */
	int direct = !e->rmode && !e->pmode;
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		if (x->role == NB_RMEM && direct)
			buf_printf(out, ",\n#if NB_DIRECT\n\t__global double *restrict "
			           NB_VPFX "%s\n#else\n\t__global %s *restrict "
			           NB_VPFX "%s\n#endif\n\t", x->name, etype(x->type),
			           x->name);
		else if (x->role == NB_RMEM)
			buf_printf(out, ",\n\t__global %s *restrict "
			           NB_VPFX "%s", etype(x->type), x->name);
	}
}

/* Result v's store of i-element i + l, into the kernel's own buffer, or
 * (direct: the dense entry built with NB_DIRECT=1, runtime/cl/run.c's
 * one launch a run) into the nbrt_array of doubles bound to it, as
 * kernels.cl's nbrt_from_* converts: a float widened (exact), dd's hi +
 * lo.  A direct launch is a run's only one (accum = 0); its reads of the
 * old value are right for float and double, whose stored values widen
 * back exactly. */
static void emit_store(E *e, int v, int l, int direct)
{
	const Func *f = e->f;
	Buf *out = e->out;
	const char *nm = f->var[v].name;
	Type ty = f->var[v].type;
	char old[160];
	if (ty == T_DD && direct)
		snprintf(old, sizeof old, "nb_dd_make(" NB_VPFX "%s[i + %d], 0.0)",
		         nm, l);
	else if (ty == T_DD)
		snprintf(old, sizeof old, "nb_dd_make(" NB_VPFX "%s[i + %d].x, "
		         NB_VPFX "%s[i + %d].y)", nm, l, nm, l);
	else
		snprintf(old, sizeof old, "%s%s%s" NB_VPFX "%s[i + %d]",
		         direct ? "(" : "", direct ? ctype(ty) : "",
		         direct ? ")" : "", nm, l);
	buf_printf(out, "\tif (i + %d <= ilast)\n", l);
	if (f->var[v].red > NB_COUNT) {
		char r[32], rx[40];
		snprintf(r, sizeof r, "r%d_%d", v, l);
		snprintf(rx, sizeof rx, "rx%d_%d", v, l);
		buf_puts(out, "\t{\n");
		red_final(out, "\t\t", f, v, target_opencl.spell, r, rx, old);
		if (ty == T_DD && direct)
			buf_printf(out, "\t\t" NB_VPFX "%s[i + %d] = %s.hi + %s.lo;\n",
			           nm, l, r, r);
		else if (ty == T_DD)
			buf_printf(out, "\t\t" NB_VPFX "%s[i + %d] = (double2)"
			           "(%s.hi, %s.lo);\n", nm, l, r, r);
		else
			buf_printf(out, "\t\t" NB_VPFX "%s[i + %d] = %s%s;\n", nm, l,
			           direct ? "(double)" : "", r);
		buf_puts(out, "\t}\n");
	} else if (ty == T_DD)
		buf_printf(out, "\t{\n\t\tnb_dd x = r%d_%d;\n\t\tif (accum)\n"
		           "\t\t\tx = nb_dd_add(%s, x);\n\t\t" NB_VPFX "%s[i + %d] = "
		           "%s;\n\t}\n", v, l, old, nm, l,
		           direct ? "x.hi + x.lo" : "(double2)(x.hi, x.lo)");
	else
		buf_printf(out, "\t\t" NB_VPFX "%s[i + %d] = %saccum ? %s + "
		           "r%d_%d : r%d_%d%s;\n", nm, l, direct ? "(double)(" : "",
		           old, v, l, v, l, direct ? ")" : "");
}

/* The kernel's parameters after the leading ones, and its body. */
static void cl_rest(E *e)
{
	const Func *f = e->f;
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	int ni = f->ni, nj = f->nj, t = f->jsplit, rm = e->rmode;
	cl_params(e);
	/* the float copies' buffer, last (din_macros) */
	if (din(e))
		buf_puts(out, "\n#if NB_DIN && NB_DIN_SH\n\t, __global const float "
		         "*restrict nb_sh\n#endif\n\t");
	if (fc->slices == 2 && !rm)
		buf_puts(out, "\n#if NB_OWN\n\t, __global char *restrict nb_part, "
		         "__global int *nb_cnt\n#endif\n\t");
	buf_puts(out, ")\n{\n");
	for (int p = 0; p < fc->npack && fc->tile; p++)
		buf_printf(out, "\t__local %s t%d[NB_TILE];\n",
		           vtype(f, fc->pack[p].type, fc->pack[p].vwidth), p);
	int tj = rm && fc->tile && (fc->indices & 2);
	if (tj)
		buf_puts(out, "\t__local int nb_tj[NB_TILE];\n");
	if (t > 1) {
		int nacc[NPREC + 1] = {0}; /* and the indices' */
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_RMEM) {
				int aux = red_aux(f->var[v].red);
				nacc[f->var[v].type] += ni * (1 + (aux == 2));
				nacc[NPREC] += ni * (aux == 1);
			}
		if (shuffles(e))
			buf_puts(out, "#if !NB_SHUFFLE\n");
		for (int k = 0; k < NPREC; k++)
			if (nacc[k])
				buf_printf(out, "\t__local %s c%s[%d * NB_WG];\n",
				           prec[k].ctype, prec[k].tag, nacc[k]);
		if (nacc[NPREC])
			buf_printf(out, "\t__local int ci[%d * NB_WG];\n",
			           nacc[NPREC]);
		if (shuffles(e))
			buf_puts(out, "#endif\n");
	}
	buf_puts(out, "\tconst int lid = get_local_id(0);\n");
	/* a task's work items count from its first i */
	int rt = f->ctx->opt->rtasks;
	if (rm && rt > 1) /* rt tasks of one i-element, fc->wg / rt items each */
		buf_printf(out, "\tconst int4 nb_tk = nb_task[nb_tbase + "
		           "get_group_id(0) * %d + lid / %d];\n\tconst int gid = "
		           "lid %% %d, ibase = nb_tk.x, ni = nb_tk.y;\n", rt,
		           fc->wg / rt, fc->wg / rt);
	else if (rm)
		buf_puts(out, "\tconst int4 nb_tk = nb_task[nb_tbase + "
		         "get_group_id(0)];\n\tconst int gid = lid, "
		         "ibase = nb_tk.x, ni = nb_tk.y;\n");
	else
		buf_puts(out, "\tconst int gid = get_global_id(0);\n");
	if (split_warps(e))
		/* the group's items in rows of NB_WG / NB_T i-elements, one
		 * row a split position: a warp's lanes then read one or two
		 * j-elements of a tile a step (a broadcast), where lanes a
		 * split position apart read 32; float gravity at one i-element
		 * a work item, a split of 16 in rows of 16, ran 1.07 to 1.14
		 * times the halved i-unroll's speed at N = 4096 to 15360 on an
		 * H200 (docs/performance.md, "Split across warps") */
		buf_puts(out, "\tconst int p = lid / (NB_WG / NB_T), g = "
		         "get_group_id(0) * (NB_WG / NB_T) + lid % (NB_WG / NB_T);\n");
	else if (t > 1)
		buf_puts(out, "\tconst int p = gid % NB_T, g = gid / NB_T;\n");
	else
		buf_puts(out, "\tconst int p = 0, g = gid;\n\t(void)p;\n");
	if (fc->slices && !rm)
		/* slice sl of ns takes whole tiles of the j range: each work
		 * group's share of it is ns times shorter, so the last ones to
		 * finish leave the device idle ns times shorter (a launch's
		 * tail: 2 to 4% of an H200's float gravity, docs/performance.md) */
		buf_puts(out, "\tconst int ns = get_num_groups(1), "
		         "sl = get_group_id(1);\n"
		         "\tconst int jq = NB_TILE > 0 ? NB_TILE : 1;\n"
		         "\tconst int jlen = ns == 1 ? nj_all : "
		         "((nj_all + ns - 1) / ns + jq - 1) / jq * jq;\n"
		         "\tconst int jbase = jbase_all + sl * jlen;\n"
		         "\tconst int nj = clamp(nj_all - sl * jlen, 0, jlen);\n");
	buf_printf(out, "\tconst int i = ibase + g * %d, ilast = ibase + ni - 1;\n",
	           ni);
	for (int l = 0; l < ni; l++)
		buf_printf(out, "\tconst int i%d = min(i + %d, ilast);\n\t(void)i%d;\n",
		           l, l, l);
	/* the separate accumulators of the partial sums must not be shared
	 * with the combined ones: indices differ by kind */
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		Type ty = f->var[v].type;
		nb_red red = f->var[v].red;
		for (int l = 0; l < ni; l++) {
			buf_printf(out, "\t%s r%d_%d = %s;\n", ctype(ty), v, l,
			           red_identity(red, ty));
			if (red_aux(red))
				buf_printf(out, "\t%s rx%d_%d = %s;\n",
				           red_aux(red) == 1 ? "int" : ctype(ty), v, l,
				           red_aux_identity(red, ty));
		}
	}
	emit_block(e, B_PRE, "\t");
	int step = nj * t;
	if (rm && !fc->tile && t >= RLANE) {
		/* Many short ranges for an i-element or two (cells of a half or
		 * a third of the cutoff: 25 of 7 or 49 of 3 j-elements), the
		 * split's T >= RLANE work items at each: each work item takes
		 * whole ranges, every T-th, one j at a time, so that it reads
		 * only its own ranges (walking them all as the loop below does
		 * cost a range read a work item a range, 49 for 9 pairs) */
		buf_printf(out, "\tconst int nb_r1 = nb_roff[nb_tk.z + 1];\n"
		           "\tfor (int nb_r = nb_roff[nb_tk.z] + p; nb_r < nb_r1; "
		           "nb_r += %d) {\n"
		           "\tconst int jbase = nb_rng[nb_r].x, nj = nb_rng[nb_r].y "
		           "- jbase;\n"
		           "\tfor (int jj = 0; jj < nj; jj++) {\n", t);
		emit_block(e, nj > 1 ? B_TAIL : B_BODY, "\t\t");
		buf_puts(out, "\t}\n");
	} else if (rm && !fc->tile) {
		/* The T work items of an i-element stride the group's ranges
		 * as one list: each goes on to the range that holds its next
		 * offset (jj past the last range's end carries over).  Walked a
		 * range at a time, a range of 3 (cells of a third of the
		 * cutoff) kept 3 of 16 work items busy, each range's loop run
		 * by all; now each pass of the loop below computes T pairs. */
		buf_puts(out, "\tconst int nb_r1 = nb_roff[nb_tk.z + 1];\n"
		         "\tint nb_r = nb_roff[nb_tk.z], jbase = 0, nj = 0, "
		         "jj = p;\n"
		         "\tfor (;;) {\n"
		         "\twhile (jj >= nj && nb_r < nb_r1) {\n"
		         "\t\tjj -= nj;\n"
		         "\t\tjbase = nb_rng[nb_r].x;\n"
		         "\t\tnj = nb_rng[nb_r].y - jbase;\n"
		         "\t\tnb_r++;\n"
		         "\t}\n"
		         "\tif (jj >= nj)\n\t\tbreak;\n");
	}
	if (rm && !fc->tile && t >= RLANE) {
		/* the ranges a work item, above */
	} else if (rm && fc->tile) {
		/* Tiles are packed from consecutive ranges, so that short ones
		 * (a cell's dozen, a tree bucket's 16) still fill whole tiles and
		 * take the unrolled loop: one range a tile left a treecode's near
		 * field at 3e10 pairs/s on an H100 (docs/performance.md).  The
		 * cursor (range, offset) is the same in every work item. */
		buf_puts(out, "\tconst int nb_r1 = nb_roff[nb_tk.z + 1];\n"
		         "\tint nb_r = nb_roff[nb_tk.z], nb_o = 0;\n"
		         "\twhile (nb_r < nb_r1) {\n"
		         "\t\tint cnt = 0;\n"
		         "\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
		         "\t\twhile (cnt < NB_TILE && nb_r < nb_r1) {\n"
		         "\t\t\tconst int2 nb_g = nb_rng[nb_r];\n"
		         "\t\t\tconst int nb_s = nb_g.x + nb_o;\n"
		         "\t\t\tconst int nb_n = min(nb_g.y - nb_s, NB_TILE - cnt);\n"
		         "\t\t\tfor (int l = lid; l < nb_n; l += NB_WG) {\n");
		for (int p = 0; p < fc->npack; p++)
			buf_printf(out, "\t\t\t\tt%d[cnt + l] = b%d[nb_s + l];\n", p, p);
		if (tj)
			buf_puts(out, "\t\t\t\tnb_tj[cnt + l] = nb_s + l;\n");
		buf_puts(out, "\t\t\t}\n"
		         "\t\t\tcnt += nb_n;\n"
		         "\t\t\tif (nb_s + nb_n >= nb_g.y) {\n"
		         "\t\t\t\tnb_r++;\n\t\t\t\tnb_o = 0;\n"
		         "\t\t\t} else {\n\t\t\t\tnb_o += nb_n;\n\t\t\t}\n"
		         "\t\t}\n");
		emit_tile_sweep(e);
		buf_puts(out, "\t}\n");
	} else if (!fc->tile) {
		/* no staging: every work item reads the j-elements itself and
		 * the cache serves the repeats (paper 000 on RV770) */
		if (!rm)
			buf_puts(out, "\tint jj = p;\n");
		buf_printf(out, "\tfor (; jj + %d < nj; jj += %d) {\n",
		           (nj - 1) * t, step);
		emit_block(e, B_BODY, "\t\t");
		buf_puts(out, "\t}\n");
		if (nj > 1) {
			buf_printf(out, "\tfor (; jj < nj; jj += %d) {\n", t);
			emit_block(e, B_TAIL, "\t\t");
			buf_puts(out, "\t}\n");
		}
	} else {
		if (fc->npack) {
			buf_puts(out, "#if NB_PF\n");
			emit_prefetch(e, 0);
			buf_puts(out, "#endif\n");
		}
		buf_puts(out, "\tfor (int jt = 0; jt < nj; jt += NB_TILE) {\n");
		buf_puts(out, "\t\tconst int cnt = min(NB_TILE, nj - jt);\n");
		buf_puts(out, "\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n");
		if (fc->npack) {
			buf_puts(out, "#if NB_PF\n");
			emit_prefetch(e, 1);
			buf_puts(out, "#else\n");
		}
		buf_puts(out, "\t\tfor (int l = lid; l < cnt; l += NB_WG) {\n");
		for (int p = 0; p < fc->npack; p++)
			buf_printf(out, "\t\t\tt%d[l] = NB_LB%d(jbase + jt + l);\n", p,
			           p);
		buf_puts(out, "\t\t}\n");
		if (fc->npack)
			buf_puts(out, "#endif\n");
		emit_tile_sweep(e);
		buf_puts(out, "\t}\n");
	}
	if (rm && !fc->tile)
		buf_puts(out, "\t}\n");
	if (t > 1)
		emit_combine(e);
	if (fc->slices && !rm)
		emit_slices(e);
	else if (t > 1)
		buf_puts(out, "\tif (p != 0)\n\t\treturn;\n");
	for (int d = rm ? 1 : 0; d < 2; d++) {
		if (!rm)
			buf_puts(out, d ? "#else\n" : "#if NB_DIRECT\n");
		for (int v = 0; v < f->nvar; v++)
			for (int l = 0; l < ni && f->var[v].role == NB_RMEM; l++)
				emit_store(e, v, l, !d);
	}
	if (!rm)
		buf_puts(out, "#endif\n");
	buf_puts(out, "}\n");
}

/* The kernel function: the dense entry, or (e->rmode) the entry of
 * block-sparse runs.  There each work group takes one task, a slice of
 * one i-group's i-elements (nb_task: first i, count, group), and streams
 * the group's j-ranges (nb_roff, nb_rng) through the same tiles; the
 * accumulators live across the ranges, so every reduction, argmin's
 * included, sees the group's whole j list as one. */
static void cl_kernel(E *e)
{
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	const char *all = fc->slices && !e->rmode ? "_all" : "";
	buf_puts(out, "__kernel __attribute__((reqd_work_group_size(NB_WG, 1, "
	         "1)))\n");
	if (e->rmode)
		buf_printf(out, "void %s_ranges(const int nb_tbase,\n"
		           "\t__global const int4 *restrict nb_task,\n"
		           "\t__global const int *restrict nb_roff,\n"
		           "\t__global const int2 *restrict nb_rng,\n"
		           "\t__global const int *restrict nb_imap,\n"
		           "\t__global const int *restrict nb_jmap, "
		           "const int nb_mapped, const int accum", fc->entry);
	else
		buf_printf(out, "void %s(const int ni, const int nj%s, "
		           "const int ibase, const int jbase%s, const int accum",
		           fc->entry, all, all);
	cl_rest(e);
}

/* --- Newton's third law ------------------------------------------------
 * The pairs entry (nb_iface pairs; only for a kernel of one i-element
 * and one j-element a work item, unsplit: the runtime compiles that
 * variant) runs tasks of at most nb_s i-elements against at most nb_s
 * j-elements (runtime/cl/newton.c cuts the blocks so), NB_WG / nb_s
 * tasks a work group, one work item an i-element.  With m the larger
 * side, in step k < m work item t meets j-element (t + k) mod m (the
 * group steps as long as its longest task), adds the term to its i-side in a
 * register and +-term (the RMEM's symmetry) to the local j-side slot of
 * that j: in each step each slot is written by one work item, and a
 * barrier separates the steps, so there are no atomics and each slot
 * takes its terms in the order of k.  A task on one block (i0 = j0)
 * meets each unordered pair once: steps k < m / 2, and k = m / 2 for
 * t < m / 2 only; step 0, the pair (i, i), goes to the i-side
 * alone.  Each task stores its i-sides and j-sides at its own places
 * of the RMEM's partial array (nb_ppart: i-side, j-side); the fold
 * entry then adds each element's partials in the order of the tasks,
 * the same order whatever the threads. */

/* dst = dst + src (sign '+') or dst - src in RMEM v's type. */
static void pairs_add(E *e, int v, const char *ind, const char *dst,
                      char sign, const char *src)
{
	if (e->f->var[v].type == T_DD)
		buf_printf(e->out, "%s%s = nb_dd_%s(%s, %s);\n", ind, dst,
		           sign == '+' ? "add" : "sub", dst, src);
	else
		buf_printf(e->out, "%s%s = %s %c %s;\n", ind, dst, dst, sign, src);
}

/* Stores value x (an expression of RMEM v's kernel type) at dst. */
static void pairs_store(E *e, int v, const char *ind, const char *dst,
                        const char *x)
{
	if (e->f->var[v].type == T_DD)
		buf_printf(e->out, "%s{\n%s\tconst nb_dd nb_x = %s;\n%s\t%s = "
		           "(double2)(nb_x.hi, nb_x.lo);\n%s}\n", ind, ind, x, ind,
		           dst, ind);
	else
		buf_printf(e->out, "%s%s = %s;\n", ind, dst, x);
}

static void cl_pairs(E *e)
{
	const Func *f = e->f;
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	buf_printf(out, "\n__kernel __attribute__((reqd_work_group_size(NB_WG, "
	           "1, 1)))\nvoid %s(const int nb_tbase, const int nb_ntask, "
	           "const int nb_s,\n\t__global const int4 *restrict nb_ptask,\n"
	           "\t__global const int2 *restrict nb_ppart", fc->pairs);
	cl_params(e);
	buf_puts(out, ")\n{\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t__local %s nb_j%d[NB_WG];\n",
			           ctype(f->var[v].type), v);
	buf_puts(out, "\t__local int nb_steps[NB_WG];\n");
	buf_puts(out,
	         "\tconst int lid = get_local_id(0), nb_per = NB_WG / nb_s;\n"
	         "\tconst int nb_sl = lid / nb_s, nb_t = lid % nb_s;\n"
	         "\tconst int nb_tk = nb_tbase + (int)get_group_id(0) * nb_per + "
	         "nb_sl;\n"
	         "\tint4 nb_q = (int4)(0, 0, 0, 0);\n"
	         "\tint2 nb_pp = (int2)(0, 0);\n"
	         "\tif (nb_sl < nb_per && nb_tk < nb_ntask) {\n"
	         "\t\tnb_q = nb_ptask[nb_tk];\n"
	         "\t\tnb_pp = nb_ppart[nb_tk];\n\t}\n"
	         "\tconst int nb_self = nb_q.x == nb_q.z, nb_live = nb_t < nb_q.y;\n"
	         "\tconst int nb_m = nb_self ? nb_q.y : max(nb_q.y, nb_q.w);\n"
	         "\tconst int nb_n = nb_self ? nb_m / 2 + 1 : nb_m;\n"
	         "\tif (nb_t == 0)\n\t\tnb_steps[nb_sl] = nb_n;\n"
	         "\tconst int i = nb_q.x + (nb_live ? nb_t : 0), i0 = i;\n"
	         "\t(void)i0;\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			const char *id = red_identity(f->var[v].red, f->var[v].type);
			buf_printf(out, "\t%s r%d_0 = %s;\n\tnb_j%d[lid] = %s;\n",
			           ctype(f->var[v].type), v, id, v, id);
		}
	emit_block(e, B_PRE, "\t");
	buf_puts(out,
	         "\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
	         "\tint nb_all = 0;\n"
	         "\tfor (int x = 0; x < nb_per; x++)\n"
	         "\t\tnb_all = max(nb_all, nb_steps[x]);\n"
	         "\tfor (int nb_k = 0; nb_k < nb_all; nb_k++) {\n"
	         "\t\tconst int nb_jj = nb_t + nb_k - (nb_t + nb_k >= nb_m ? "
	         "nb_m : 0);\n"
	         "\t\tif (nb_live && nb_k < nb_n && nb_jj < nb_q.w && (!nb_self "
	         "||\n\t\t    2 * nb_k < nb_m || (2 * nb_k == nb_m && 2 * nb_t "
	         "< nb_m))) {\n"
	         "\t\t\tconst int nb_jx = nb_q.z + nb_jj;\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t\t\t%s s%d = %s;\n", ctype(f->var[v].type), v,
			           red_identity(f->var[v].red, f->var[v].type));
	emit_block(e, B_BODY, "\t\t\t");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char r[32], s[32], j[64];
			snprintf(r, sizeof r, "r%d_0", v);
			snprintf(s, sizeof s, "s%d", v);
			snprintf(j, sizeof j, "nb_j%d[nb_sl * nb_s + nb_jj]", v);
			pairs_add(e, v, "\t\t\t", r, '+', s);
			buf_puts(out, "\t\t\tif (!nb_self || nb_k > 0)\n");
			pairs_add(e, v, "\t\t\t\t", j, f->var[v].sym > 0 ? '+' : '-',
			          s);
		}
	buf_puts(out, "\t\t}\n\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t}\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char r[32], j[32], dst[96];
			const char *nm = f->var[v].name;
			snprintf(r, sizeof r, "r%d_0", v);
			snprintf(j, sizeof j, "nb_j%d[lid]", v);
			buf_puts(out, "\tif (nb_live && nb_self)\n");
			pairs_add(e, v, "\t\t", r, '+', j);
			snprintf(dst, sizeof dst, NB_VPFX "%s[nb_pp.x + nb_t]", nm);
			buf_puts(out, "\tif (nb_live)\n");
			pairs_store(e, v, "\t\t", dst, r);
			snprintf(dst, sizeof dst, NB_VPFX "%s[nb_pp.y + nb_t]", nm);
			buf_puts(out, "\tif (!nb_self && nb_t < nb_q.w)\n");
			pairs_store(e, v, "\t\t", dst, j);
		}
	buf_puts(out, "}\n");
}

/* A fold entry's RMEM parameters (partials nb_p<v>, results), then its
 * element e, ending the entry where e >= nb_n. */
static void fold_params(E *e)
{
	const Func *f = e->f;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			const char *t = etype(f->var[v].type), *nm = f->var[v].name;
			buf_printf(e->out, ",\n\t__global const %s *restrict nb_p%d, "
			           "__global %s *restrict " NB_VPFX "%s", t, v, t, nm);
		}
	buf_puts(e->out, ")\n{\n\tconst int e = get_global_id(0);\n"
	         "\tif (e >= nb_n)\n\t\treturn;\n");
}

/* r<v> += the partial at `at`, each RMEM */
static void fold_add(E *e, const char *ind)
{
	const Func *f = e->f;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char r[16], x[64];
			snprintf(r, sizeof r, "r%d", v);
			if (f->var[v].type == T_DD)
				snprintf(x, sizeof x, "nb_dd_make(nb_p%d[at].x, "
				         "nb_p%d[at].y)", v, v);
			else
				snprintf(x, sizeof x, "nb_p%d[at]", v);
			pairs_add(e, v, ind, r, '+', x);
		}
}

/* the results[e] = r<v>, and the entry's end */
static void fold_store(E *e)
{
	const Func *f = e->f;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char r[16], dst[96];
			snprintf(r, sizeof r, "r%d", v);
			snprintf(dst, sizeof dst, NB_VPFX "%s[e]", f->var[v].name);
			pairs_store(e, v, "\t", dst, r);
		}
	buf_puts(e->out, "}\n");
}

/* The fold entry: element e of block nb_blk[e] (-1: none, its results
 * the identity) at offset o in its block adds the partial o of each of
 * the block's tasks, nb_blist[nb_binfo[b].y .. nb_binfo[b + 1].y), in
 * that order; nb_binfo[b].x is the block's first element. */
static void cl_fold(E *e)
{
	const Func *f = e->f;
	Buf *out = e->out;
	buf_printf(out, "\n__kernel void %s_fold(const int nb_n, "
	           "__global const int *restrict nb_blk,\n"
	           "\t__global const int2 *restrict nb_binfo, "
	           "__global const int *restrict nb_blist", e->fc->pairs);
	fold_params(e);
	buf_puts(out, "\tconst int b = nb_blk[e];\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t%s r%d = %s;\n", ctype(f->var[v].type), v,
			           red_identity(f->var[v].red, f->var[v].type));
	buf_puts(out, "\tif (b >= 0) {\n"
	         "\t\tconst int o = e - nb_binfo[b].x, q1 = nb_binfo[b + 1].y;\n"
	         "\t\tfor (int q = nb_binfo[b].y; q < q1; q++) {\n"
	         "\t\t\tconst int at = nb_blist[q] + o;\n");
	fold_add(e, "\t\t\t");
	buf_puts(out, "\t\t}\n\t}\n");
	fold_store(e);
}

/* --- Newton's third law, dense ------------------------------------------
 * The dense entry (a self run on OpenCL asked for it: runtime/cl/
 * newton.c; bench/newtonpeer.cl is its hand-written model, measured in
 * docs/performance.md): blocks of NB_WG x NB_DU elements (a work item
 * NB_DU i-elements, NB_DENSE_U), a work group the task (A, A + s mod nb)
 * of round s = nb_s0 + group 1 (runtime/newton.c's plan_make: each
 * block an i-side and a j-side once a round).  In a
 * sub-tile of 32 j-elements lane l meets j = (l + k) mod 32 in step k
 * and hands its j-sums to lane l - 1 (NVIDIA: shfl.sync.idx; elsewhere
 * local memory, a barrier each way), so a j's sum gathers in lane order
 * and after 32 steps lane l holds j = l's; the warps' sums add in warp
 * order.  Round r's i-sides go to slot 2 r of the RMEM's partials, its
 * j-sides to slot 2 r + 1 (nb_np elements a slot), and the dense fold
 * adds each element's slots in order: no atomics, the same bits for the
 * same work group.  Round 0 (A, A) meets every pair of the block and
 * keeps the i-side alone. */

/* x handed on from lane nb_src (the NVIDIA form), in RMEM v's type */
static void dense_rot(E *e, int v, const char *x)
{
	switch (e->f->var[v].type) {
	case T_F32:
		buf_printf(e->out, "\t\t\t\t%s = as_float(nb_rot(as_uint(%s)));\n",
		           x, x);
		break;
	case T_DD:
		buf_printf(e->out, "\t\t\t\t%s.hi = nb_rot_d(%s.hi);\n"
		           "\t\t\t\t%s.lo = nb_rot_d(%s.lo);\n", x, x, x, x);
		break;
	default:
		buf_printf(e->out, "\t\t\t\t%s = nb_rot_d(%s);\n", x, x);
	}
}

/* Stores the identity of each RMEM at its partials [at + lid + u NB_WG],
 * u < NB_DU. */
static void dense_zero(E *e, const char *ind, const char *at)
{
	const Func *f = e->f;
	buf_printf(e->out, "%sfor (int nb_u = 0; nb_u < NB_DU; nb_u++) {\n", ind);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char dst[96], in2[16];
			snprintf(dst, sizeof dst, NB_VPFX "%s[%s + nb_u * NB_WG + lid]",
			         f->var[v].name, at);
			snprintf(in2, sizeof in2, "%s\t", ind);
			pairs_store(e, v, in2, dst,
			            red_identity(f->var[v].red, f->var[v].type));
		}
	buf_printf(e->out, "%s}\n", ind);
}

/* The kernel's parameters' names, as cl_params declares them */
static void dense_args(E *e)
{
	const Func *f = e->f;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_LMEM)
			buf_printf(e->out, ", " NB_VPFX "%s", f->var[v].name);
	for (int p = 0; p < e->fc->npack; p++)
		buf_printf(e->out, ", b%d", p);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_CONST)
			buf_printf(e->out, ", " NB_VPFX "%s", f->var[v].name);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(e->out, ", " NB_VPFX "%s", f->var[v].name);
}

/* The pair (i, nb_jx) of the NB_DU copies: its terms added to the
 * i-side r<v>[nb_u] and (js) with the symmetry's sign to the j-side
 * nb_a<v>; guard: for live i and j only (the last block), else for
 * all (a full block: no branch a pair, and the copies' loads of j and
 * of the i-sides are the compiler's to share and hoist). */
static void dense_body(E *e, const char *ind, int js, int guard)
{
	const Func *f = e->f;
	const nb_iface *fc = e->fc;
	Buf *out = e->out;
	/* j's packs once for the NB_DU copies, into private variables: a
	 * term reading them through a __local pointer lost the tile's
	 * stores on PoCL (Lennard-Jones read garbage).  Without the tile
	 * the last block reads a live j in place of one past nb_n, whose
	 * pairs the guard drops. */
	for (int p = 0; p < fc->npack; p++) {
		const char *ty = vtype(f, fc->pack[p].type, fc->pack[p].vwidth);
		if (e->dtile)
			buf_printf(out, "%sconst %s nb_q%d = nb_tj%d[nb_jt];\n", ind,
			           ty, p, p);
		else
			buf_printf(out, "%sconst %s nb_q%d = b%d[%s];\n", ind, ty, p,
			           p, guard ? "min(nb_jx, nb_n - 1)" : "nb_jx");
	}
	buf_printf(out, "%sfor (int nb_u = 0; nb_u < NB_DU; nb_u++)\n%s\t%s{\n",
	           ind, ind, guard ? "if (nb_li[nb_u] && nb_jx < nb_n) " : "");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			buf_printf(out, "%s\t\t%s s%d", ind, ctype(f->var[v].type), v);
			if (!e->apart)
				buf_printf(out, " = r%d[nb_u]", v);
			buf_puts(out, ";\n");
		}
	buf_printf(out, "%s\t\t%s_term%s(%s, nb_jx", ind, e->fc->pairs,
	           e->apart ? "a" : js ? "ij" : "",
	           guard ? "nb_ii[nb_u]" : "nb_ib + nb_u * NB_WG + lid");
	for (int p = 0; p < fc->npack; p++)
		buf_printf(out, ", nb_q%d", p);
	dense_args(e);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, ", &s%d", v);
	for (int v = 0; v < f->nvar && js && !e->apart; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, ", &nb_a%d", v);
	buf_puts(out, ");\n");
	char in3[16];
	snprintf(in3, sizeof in3, "%s\t\t", ind);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && !e->apart)
			buf_printf(out, "%sr%d[nb_u] = s%d;\n", in3, v, v);
		else if (f->var[v].role == NB_RMEM) {
			char r[32], sv[32], av[32];
			snprintf(r, sizeof r, "r%d[nb_u]", v);
			snprintf(sv, sizeof sv, "s%d", v);
			snprintf(av, sizeof av, "nb_a%d", v);
			pairs_add(e, v, in3, r, '+', sv);
			if (js)
				pairs_add(e, v, in3, av, f->var[v].sym > 0 ? '+' : '-',
				          sv);
		}
	buf_printf(out, "%s\t}\n", ind);
}

/* The term of the pair (i, nb_jx) (mode 'i') added to each RMEM's i-side
 * *nb_s<v>, and ('j': _termij) with the symmetry's sign to its j-side
 * *nb_t<v>, each of the kernel's sinks once a side; or ('a': _terma)
 * summed from the identity into *nb_s<v> alone, which the entry adds to
 * both sides (e->apart).  The kernel's i-side block and body, inlined
 * into the dense entry, whose compiler hoists the i-side loads out of
 * its j loop.  For gravity's forces apart costs a sink's fma(a, b, 0)
 * and two adds a component where the sinks a side take two fma (as
 * bench/newtonpeer.cl has it): on an H200 the sinks a side ran 8-10%
 * faster in double and apart 4-7% faster in float (docs/performance.md,
 * session 17), so the defaults table's rows choose (newton_apart). */
static void dense_term(E *e, int mode)
{
	const Func *f = e->f;
	Buf *out = e->out;
	int js = mode == 'j';
	buf_printf(out, "\nstatic inline void %s_term%s(const int i, const int "
	           "nb_jx", e->fc->pairs, js ? "ij" : mode == 'a' ? "a" : "");
	for (int p = 0; p < e->fc->npack; p++)
		buf_printf(out, ", const %s nb_q%d", vtype(f, e->fc->pack[p].type,
		           e->fc->pack[p].vwidth), p);
	cl_params(e);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, ",\n\t%s *nb_s%d", ctype(f->var[v].type), v);
	for (int v = 0; v < f->nvar && js; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, ",\n\t%s *nb_t%d", ctype(f->var[v].type), v);
	buf_puts(out, ")\n{\n\tconst int i0 = i;\n\t(void)i0;\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			const char *ty = ctype(f->var[v].type);
			if (mode == 'a')
				buf_printf(out, "\t%s s%d = %s;\n", ty, v,
				           red_identity(f->var[v].red, f->var[v].type));
			else
				buf_printf(out, "\t%s s%d = *nb_s%d;\n", ty, v, v);
			if (js)
				buf_printf(out, "\t%s t%d = *nb_t%d;\n", ty, v, v);
		}
	emit_block(e, B_PRE, "\t");
	e->dterm = 1 + js;
	emit_block(e, B_BODY, "\t");
	e->dterm = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			buf_printf(out, "\t*nb_s%d = s%d;\n", v, v);
			if (js)
				buf_printf(out, "\t*nb_t%d = t%d;\n", v, v);
		}
	buf_puts(out, "}\n");
}

/* Round 0's and round s's pairs of the task, each RMEM's i-sides in
 * r<v>[], the j-sides stored (guard: see dense_body) */
static void dense_loops(E *e, int guard)
{
	const Func *f = e->f;
	Buf *out = e->out;
	buf_puts(out, "\tif (nb_s == 0) {\n");
	dense_zero(e, "\t\t", "nb_pj + nb_ib");
	buf_puts(out, "\t\tfor (int nb_k = 0; nb_k < NB_WG * NB_DU; nb_k++) {\n"
	         "\t\t\tconst int nb_jt = nb_k, nb_jx = nb_jb + nb_jt;\n"
	         "\t\t\t(void)nb_jt;\n");
	dense_body(e, "\t\t\t", 0, guard);
	buf_puts(out, "\t\t}\n\t} else {\n"
	         "\t\tfor (int nb_c = 0; nb_c < NB_WG * NB_DU / 32; nb_c++) {\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t\t\t%s nb_a%d = %s;\n", ctype(f->var[v].type),
			           v, red_identity(f->var[v].red, f->var[v].type));
	buf_puts(out, "\t\t\tfor (int nb_k = 0; nb_k < 32; nb_k++) {\n"
	         "\t\t\t\tconst int nb_jt = nb_c * 32 + ((nb_lane + nb_k) & 31);"
	         "\n\t\t\t\tconst int nb_jx = nb_jb + nb_jt;\n"
	         "\t\t\t\t(void)nb_jt;\n");
	dense_body(e, "\t\t\t\t", 1, guard);
	buf_puts(out, "#ifdef NB_NVIDIA_SHFL\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char a[32];
			snprintf(a, sizeof a, "nb_a%d", v);
			dense_rot(e, v, a);
		}
	buf_puts(out, "#else\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t\t\t\tnb_rt%d[lid] = nb_a%d;\n", v, v);
	buf_puts(out, "\t\t\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t\t\t\tnb_a%d = nb_rt%d[(nb_w << 5) | "
			           "nb_src];\n", v, v);
	buf_puts(out, "\t\t\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n#endif\n"
	         "\t\t\t}\n"
	         "\t\t\t/* two buffers: sub-tile c + 2 writes after c's reader "
	         "has\n\t\t\t * passed c + 1's barrier */\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t\t\tnb_pt%d[nb_c & 1][lid] = nb_a%d;\n", v, v);
	buf_puts(out, "\t\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
	         "\t\t\tif (nb_w == nb_c % (NB_WG / 32)) {\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char a[32], x[64], dst[96];
			snprintf(a, sizeof a, "nb_a%d", v);
			buf_printf(out, "\t\t\t\tnb_a%d = nb_pt%d[nb_c & 1][nb_lane];\n"
			           "\t\t\t\tfor (int nb_v = 1; nb_v < NB_WG / 32; "
			           "nb_v++)\n", v, v);
			snprintf(x, sizeof x, "nb_pt%d[nb_c & 1][nb_v * 32 + nb_lane]",
			         v);
			pairs_add(e, v, "\t\t\t\t\t", a, '+', x);
			snprintf(dst, sizeof dst, NB_VPFX "%s[nb_pj + nb_jb + nb_c * "
			         "32 + nb_lane]", f->var[v].name);
			pairs_store(e, v, "\t\t\t\t", dst, a);
		}
	buf_puts(out, "\t\t\t}\n\t\t}\n\t}\n");
}

/* dense_loops one level deeper (inside the block-full branch) */
static void dense_indented(E *e, int guard)
{
	Buf tmp = {0}, *out = e->out;
	e->out = &tmp;
	dense_loops(e, guard);
	e->out = out;
	for (const char *l = tmp.s ? tmp.s : ""; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l + 1) : strlen(l);
		if (*l != '#')
			buf_putc(out, '\t');
		buf_printf(out, "%.*s", (int)len, l);
		l += len;
	}
	buf_free(&tmp);
}

/* Whether the dense entry's local memory, its j-block's tile (NB_WG x
 * NB_DU elements of each pack) with it, stays within the 32 KB every
 * OpenCL 1.2 device has, so that the program builds wherever the
 * rest of it does; where not (dd's wide packs, a large work group), j
 * is read from global memory, once a j for the NB_DU copies. */
static int dense_tiles(const Func *f, const nb_iface *fc)
{
	size_t bytes = 0, wg = (size_t)fc->wg;
	for (int p = 0; p < fc->npack; p++)
		bytes += wg * NB_DENSE_U * (size_t)fc->pack[p].vwidth *
		         nb_prec_scalar_bytes(fc->pack[p].type);
	for (int v = 0; v < f->nvar; v++) /* nb_pt<v>, nb_rt<v> */
		if (f->var[v].role == NB_RMEM)
			bytes += 3 * wg * 4 * (size_t)prec[f->var[v].type].words;
	return fc->npack && bytes <= 32768;
}

static void cl_dense(E *e)
{
	const Func *f = e->f;
	Buf *out = e->out;
	int dbl = 0;
	e->dtile = dense_tiles(f, e->fc);
	e->apart = f->ctx->row && f->ctx->row->newton_apart;
	for (int v = 0; v < f->nvar; v++)
		dbl |= f->var[v].role == NB_RMEM && f->var[v].type != T_F32;
	buf_printf(out, "\n#define NB_DU %d\n", NB_DENSE_U);
	buf_puts(out, "#ifdef NB_NVIDIA_SHFL\n"
	         "static inline uint nb_rot1(uint x, int src)\n{\n\tuint r;\n"
	         "\tasm volatile(\"shfl.sync.idx.b32 %0, %1, %2, 0x1f, "
	         "0xffffffff;\"\n\t             : \"=r\"(r) : \"r\"(x), "
	         "\"r\"(src));\n\treturn r;\n}\n"
	         "#define nb_rot(x) nb_rot1(x, nb_src)\n");
	if (dbl)
		buf_puts(out, "#define nb_rot_d(x) as_double((uint2)(nb_rot(as_uint2"
		         "(x).x), nb_rot(as_uint2(x).y)))\n");
	buf_puts(out, "#endif\n");
	if (e->apart)
		dense_term(e, 'a');
	else {
		dense_term(e, 'i');
		dense_term(e, 'j');
	}
	buf_printf(out, "\n__kernel __attribute__((reqd_work_group_size(NB_WG, "
	           "1, 1)))\nvoid %s_dense(const int nb_n, const int nb_nb, "
	           "const int nb_s0, const int nb_nr, const int nb_np",
	           e->fc->pairs);
	cl_params(e);
	buf_puts(out, ")\n{\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t__local %s nb_pt%d[2][NB_WG];\n"
			           "#ifndef NB_NVIDIA_SHFL\n\t__local %s nb_rt%d[NB_WG];\n"
			           "#endif\n", ctype(f->var[v].type), v,
			           ctype(f->var[v].type), v);
	for (int p = 0; p < e->fc->npack && e->dtile; p++)
		buf_printf(out, "\t__local %s nb_tj%d[NB_WG * NB_DU];\n",
		           vtype(f, e->fc->pack[p].type, e->fc->pack[p].vwidth), p);
	buf_puts(out,
	         "\tconst int lid = get_local_id(0), nb_lane = lid & 31;\n"
	         "\tconst int nb_w = lid >> 5, nb_src = (nb_lane + 1) & 31;\n"
	         "\tconst int nb_r = get_group_id(1), nb_s = nb_s0 + nb_r;\n"
	         "\tconst int nb_ib = (int)get_group_id(0) * NB_WG * NB_DU;\n"
	         "\tconst int nb_jb = ((int)get_group_id(0) + nb_s) % nb_nb * "
	         "NB_WG * NB_DU;\n"
	         "\tconst size_t nb_pi = (size_t)(2 * nb_r) * nb_np, "
	         "nb_pj = nb_pi + nb_np;\n"
	         "\tint nb_ii[NB_DU], nb_li[NB_DU];\n"
	         "\tfor (int nb_u = 0; nb_u < NB_DU; nb_u++) {\n"
	         "\t\tnb_li[nb_u] = nb_ib + nb_u * NB_WG + lid < nb_n;\n"
	         "\t\tnb_ii[nb_u] = nb_li[nb_u] ? nb_ib + nb_u * NB_WG + lid : "
	         "nb_n - 1;\n\t}\n"
	         "\tconst int nb_full = nb_ib + NB_WG * NB_DU <= nb_n && "
	         "nb_jb + NB_WG * NB_DU <= nb_n;\n"
	         "\t(void)nb_src;\n"
	         "\tif (nb_s > 0 && 2 * nb_s == nb_nb && 2 * (int)get_group_id(0)"
	         " >= nb_nb) {\n"
	         "\t\t/* the other half of round nb / 2's pairs */\n");
	dense_zero(e, "\t\t", "nb_pi + nb_ib");
	dense_zero(e, "\t\t", "nb_pj + nb_jb");
	buf_puts(out, "\t\treturn;\n\t}\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, "\t%s r%d[NB_DU];\n\tfor (int nb_u = 0; nb_u < "
			           "NB_DU; nb_u++)\n\t\tr%d[nb_u] = %s;\n",
			           ctype(f->var[v].type), v, v,
			           red_identity(f->var[v].red, f->var[v].type));
	if (e->dtile) {
		/* the j-block's tile, one barrier: a work group has one task.
		 * Past nb_n it repeats the last j, whose pairs the guards drop */
		buf_puts(out, "\tfor (int nb_u = 0; nb_u < NB_DU; nb_u++) {\n"
		         "\t\tconst int nb_l = nb_u * NB_WG + lid;\n");
		for (int p = 0; p < e->fc->npack; p++)
			buf_printf(out, "\t\tnb_tj%d[nb_l] = b%d[min(nb_jb + nb_l, "
			           "nb_n - 1)];\n", p, p);
		buf_puts(out, "\t}\n\tbarrier(CLK_LOCAL_MEM_FENCE);\n");
	}
	buf_puts(out, "\tif (nb_full) {\n");
	dense_indented(e, 0);
	buf_puts(out, "\t} else {\n");
	dense_indented(e, 1);
	buf_puts(out, "\t}\n"
	         "\tfor (int nb_u = 0; nb_u < NB_DU; nb_u++) {\n");
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			char r[32], dst[96];
			snprintf(r, sizeof r, "r%d[nb_u]", v);
			snprintf(dst, sizeof dst, NB_VPFX "%s[nb_pi + nb_ib + nb_u * "
			         "NB_WG + lid]", f->var[v].name);
			pairs_store(e, v, "\t\t", dst, r);
		}
	buf_puts(out, "\t}\n}\n");
}

/* The dense fold: element e's results = (nb_first ? the identity : its
 * results) + its nb_nr rounds' i-side and j-side partials, in order. */
static void cl_dfold(E *e)
{
	const Func *f = e->f;
	Buf *out = e->out;
	buf_printf(out, "\n__kernel void %s_dfold(const int nb_n, const int "
	           "nb_np, const int nb_nr, const int nb_first", e->fc->pairs);
	fold_params(e);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			const char *id = red_identity(f->var[v].red, f->var[v].type);
			if (f->var[v].type == T_DD)
				buf_printf(out, "\tnb_dd r%d = nb_first ? %s : nb_dd_make("
				           NB_VPFX "%s[e].x, " NB_VPFX "%s[e].y);\n", v, id,
				           f->var[v].name, f->var[v].name);
			else
				buf_printf(out, "\t%s r%d = nb_first ? %s : " NB_VPFX
				           "%s[e];\n", ctype(f->var[v].type), v, id,
				           f->var[v].name);
		}
	buf_puts(out, "\tfor (int q = 0; q < 2 * nb_nr; q++) {\n"
	         "\t\tconst size_t at = (size_t)q * nb_np + e;\n");
	fold_add(e, "\t\t");
	buf_puts(out, "\t}\n");
	fold_store(e);
}

static void cl_emit(const Func *f, const nb_iface *fc, Buf *out)
{
	E e = {f, fc, out, f->ctx->opt->fast_math, 0, 0, &cl_spelling, 0, 0, 0};
	int t = f->jsplit;
	Type wide = ir_widest(f, 0);
	if (cpu_approx(ir_widest_arith(f), f->ctx->opt))
		e.sp = &cl_cpu_spelling;
	int dbl = wide != T_F32, dd = wide == T_DD;
	buf_printf(out, "/* Generated by nbcc %s; do not edit.\n", NBCC_VERSION);
	iface_put(out, fc, " * ");
	buf_puts(out, " */\n");
	if (dbl)
		buf_puts(out, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
	/* --no-fma means no fusing anywhere: OpenCL compilers may contract
	 * a*b+c across statements unless told not to */
	if (!f->ctx->opt->fma)
		buf_puts(out, "#pragma OPENCL FP_CONTRACT OFF\n");
	if (dd) {
		if (f->ctx->opt->dd_qd)
			buf_puts(out, "#define NB_DD_QD 1\n");
		buf_puts(out, nb_ddlib_src);
		buf_putc(out, '\n');
	}
	red_prelude(out, f, target_opencl.spell);
	buf_printf(out, "#define NB_WG %d\n#define NB_TILE %d\n#define NB_T %d\n",
	           fc->wg, fc->tile, t);
	if (fc->slices == 2)
		buf_puts(out, "#ifndef NB_OWN\n#define NB_OWN 0\n#endif\n");
	/* the dense entry that stores into the runtime's arrays of doubles
	 * (emit_store), built only where the device has them */
	buf_puts(out, "#ifndef NB_DIRECT\n#define NB_DIRECT 0\n#endif\n");
	din_macros(&e);
	if (!dbl)
		buf_puts(out, "#if NB_DIRECT || NB_DIN\n#pragma OPENCL EXTENSION "
		         "cl_khr_fp64 : enable\n#endif\n");
	/* the prefetch holds whole work groups of each pack a tile */
	if (fc->tile && fc->npack)
		buf_puts(out, "#if !defined(NB_PF) || NB_TILE % NB_WG\n"
		         "#undef NB_PF\n#define NB_PF 0\n#endif\n");
	if (t > 1)
		shuffle_prelude(out, dbl, dd);
	buf_putc(out, '\n');


	cl_kernel(&e);
	if (fc->ranges) {
		e.rmode = 1;
		buf_putc(out, '\n');
		cl_kernel(&e);
	}
	if (fc->pairs) {
		e.rmode = 0;
		e.pmode = 1;
		cl_pairs(&e);
		cl_fold(&e);
		cl_dense(&e);
		cl_dfold(&e);
	}
}

static void cl_launch(const Func *f, const nb_options *o, nb_iface *fc)
{
	fc->wg = o->wg ? o->wg : 128;
	/* the work group must hold whole j-split groups */
	if (fc->wg % f->jsplit)
		fc->wg = (fc->wg / f->jsplit + 1) * f->jsplit;
	fc->tile = o->tile < 0 ? 0 : o->tile ? o->tile : fc->wg;
	/* the ranges entry's tasks split the group evenly, each into whole
	 * split groups (runtime/ranges.c: 32 >> l tasks of 2^l items);
	 * others would divide by zero or leave items out (a struct filled
	 * in by hand) */
	int rt = o->rtasks;
	if (o->ranges && rt > 1 && (fc->wg % rt || (fc->wg / rt) % f->jsplit))
		error_file(f->ctx, "rtasks = %d: it must divide the work group "
		           "of %d into tasks of whole j-split groups of %d", rt,
		           fc->wg, f->jsplit);
	/* slices' sums are added up by the runtime or by the kernel's last
	 * work group, both of which know sums only */
	fc->slices = 2;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && f->var[v].red != NB_SUM &&
		    f->var[v].red != NB_COUNT)
			fc->slices = 0;
	/* A split work item meets only tile/T j-elements between two
	 * barriers, so on a GPU a split kernel stages 32 KB of j-elements
	 * (whole work groups of them): float gravity on an H200 ran 1.2 to
	 * 1.8 times faster at N = 4096 to 65536 with 2048 float4s than with
	 * 128 (docs/performance.md).  Unsplit kernels keep one a work item,
	 * which leaves more work groups room on a multiprocessor. */
	if (!o->tile && !o->cpu && f->jsplit > 1) {
		size_t bytes = 0;
		for (int p = 0; p < fc->npack; p++)
			bytes += (size_t)fc->pack[p].vwidth *
			         nb_prec_scalar_bytes(fc->pack[p].type);
		/* the ranges entry keeps each slot's j beside a kernel's tiles
		 * where the kernel reads j (emit_tile_sweep's nb_tj) */
		if (fc->ranges && (fc->indices & 2))
			bytes += sizeof(int);
		int big = bytes ? (int)(32768 / bytes) / fc->wg * fc->wg : 0;
		if (big > fc->tile)
			fc->tile = big;
	}
}

/* A float-only kernel flushes subnormals (on NVIDIA, rsqrt is then one
 * MUFU instruction instead of a guarded sequence: 1.54e12 -> 1.84e12
 * gravity interactions/s on an H200); never with double or dd, whose
 * error-free transformations need gradual underflow.  --fast-math relaxes
 * the rest, but never dd's arithmetic (iface_build warns of it).  A float
 * kernel for a CPU takes float's estimates (cpu_approx) through
 * -cl-unsafe-math-optimizations, the one OpenCL option that lets LLVM
 * use them; it also lets it reorder sums, which float's rows allow
 * (prec.c's reorder). */
static const char *cl_build_options(Type widest, const nb_options *o)
{
	int ftz = prec[widest].ftz && o->ftz;
	int fast = o->fast_math && !prec[widest].eft;
	int est = !fast && cpu_approx(widest, o);
	return ftz && fast ? "-cl-denorms-are-zero -cl-fast-relaxed-math" :
	       ftz && est ? "-cl-denorms-are-zero -cl-unsafe-math-optimizations" :
	       ftz ? "-cl-denorms-are-zero" :
	       fast ? "-cl-fast-relaxed-math" :
	       est ? "-cl-unsafe-math-optimizations" : "";
}

/* BMEM values are packed so that one vector load fetches several; the
 * entry is the kernel function itself. */
const Target target_opencl = {
	.name = "opencl", .ext = ".cl", .lang = "OpenCL C",
	.pack_bmem = 1, .entry_suffix = "", .pairs_suffix = "_pairs",
	.pairs_plain = 1, .ranges = 1,
	.defaults = cl_defaults, .launch = cl_launch,
	.build_options = cl_build_options, .spell = &cl_spelling,
	.emit = cl_emit,
};
