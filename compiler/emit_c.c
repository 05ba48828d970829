/* emit_c.c: the C11 back end.  One function per kernel, parallel over
 * i-groups with OpenMP; plus an entry taking its arrays as a table, through
 * which the runtime calls it after compiling it into a shared object.  It
 * is the reference path of the tests and the CPU fallback.
 *
 * gcc does not vectorize the unrolled copies of the body as straight-line
 * code, but it does vectorize a loop over them.  So after an i-unroll the
 * copies are written as one loop over the i-lanes: the work shared by all
 * lanes first, then `for (k = 0; k < NI; k++)` over the lane-0 instance of
 * each lane-specific instruction, which stands for its NI isomorphic
 * copies (Ins.tmpl ties them together).  Each lane still sums its j in
 * order, so the results are those of the straight-line form, bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

typedef struct C {
	const Func *f;
	Buf *out;
	int lanes; /* writing lane loops */
	int *il;   /* i-lane each value depends on: -1 none, -2 several */
	int *jl;   /* j-lane, likewise */
	int inloop; /* inside the lane loop: lane-specific PRE values are v[k] */
	int simd;   /* lane loops marked `omp simd`: they call libmvec */
	int rmode;  /* writing the entry of block-sparse runs */
	/* in it, the j-loops of a run with a j-map: its index is read
	 * unconditionally there (a `nb_jmap ? ... : j` in the loop kept GCC
	 * from vectorizing the lanes: the host's ranges entry of
	 * lennard_jones_self ran 4.7 times slower a pair than its dense one
	 * on one range of 4096 j) */
	int jmapped;
	/* Newton's third law (pairs_emit): each sink updates the i-side,
	 * "" for the result array itself, else a lane array of that prefix,
	 * and the j-side lane array jside; NULL: one accumulator */
	const char *iside, *jside;
	int whole;  /* every lane of the group is an element: no clamping */
} C;

/* C's <math.h> has sqrtf for float and no rsqrt. */
static const Spelling c_spelling = {1, 0, NULL, 1};

/* The scalar type of a variable's array: dd arrays are double pairs. */
static const char *stype(Type t) { return prec[t].scalar; }

/* Finds which values belong to one i-lane, and checks that the lanes are
 * the isomorphic copies the loop form needs: every lane-specific value of
 * lane 0 has one instance in each lane, of the same template, j-lane and
 * block.  If anything is off, the straight-line form is used instead. */
static int lane_analysis(C *c)
{
	const Func *f = c->f;
	int n = f->n, ni = f->ni;
	c->il = malloc(sizeof(int) * (size_t)(n ? n : 1));
	c->jl = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!c->il || !c->jl)
		ICE("out of memory");
	ir_lanes(f, c->il, c->jl);
	int maxt = 0;
	for (int k = 0; k < n; k++)
		if (f->ins[k].tmpl + 1 > maxt)
			maxt = f->ins[k].tmpl + 1;
	if (ni <= 1)
		return 0;
	/* count instances per (template, j-lane, block, lane) */
	int nj1 = f->nj + 1;
	size_t slots = (size_t)maxt * (size_t)nj1 * 3;
	int *cnt = calloc(slots * (size_t)ni + 1, sizeof(int));
	if (!cnt)
		ICE("out of memory");
	int ok = 1;
	for (int k = 0; k < n && ok; k++) {
		const Ins *in = &f->ins[k];
		if (c->il[k] == -1)
			continue;
		if (c->il[k] < 0 || in->tmpl < 0 || c->jl[k] == -2) {
			ok = 0;
			break;
		}
		int j = c->jl[k] < 0 ? f->nj : c->jl[k];
		size_t s = (((size_t)in->tmpl * nj1 + j) * 3 + in->blk) * ni +
		           c->il[k];
		ok = ++cnt[s] == 1;
	}
	for (int k = 0; k < n && ok; k++) {
		const Ins *in = &f->ins[k];
		if (c->il[k] != 0)
			continue;
		int j = c->jl[k] < 0 ? f->nj : c->jl[k];
		size_t s = (((size_t)in->tmpl * nj1 + j) * 3 + in->blk) * ni;
		for (int l = 0; l < ni; l++)
			ok &= cnt[s + l] == 1;
	}
	free(cnt);
	return ok;
}

/* Operands inside the lane loop: lane-specific values hoisted before the
 * j loop live in arrays over the lanes. */
static void name(Buf *out, const Func *f, int k, void *arg)
{
	const C *c = arg;
	if (c->lanes && c->inloop && f->ins[k].blk == B_PRE && c->il[k] >= 0)
		buf_printf(out, "v%d[k]", k);
	else
		buf_printf(out, "v%d", k);
}

static void load(Buf *out, Type t, const char *arr, const char *ix)
{
	if (t == T_DD)
		buf_printf(out, "nb_dd_make(%s[2 * (%s)], %s[2 * (%s) + 1])", arr,
		           ix, arr, ix);
	else
		buf_printf(out, "%s[%s]", arr, ix);
}

/* The accumulator of a sink: r<var>_<lane>, or r<var>[k] in a lane loop. */
static void accname(C *c, const Ins *in, const char *acc, char *r, size_t n)
{
	if (c->lanes)
		snprintf(r, n, "%s%d[k]", acc, in->var);
	else
		snprintf(r, n, "%s%d_%d", acc, in->var, in->lane);
}

/* A sink's accumulator in a task of Newton's third law: the lane's
 * element of the array prefix<var> (a j-side's, prefix<var>_<j-lane>),
 * or with prefix "" of the result array (a dd element through an nb_dd
 * lvalue, which may alias its doubles). */
static void pairs_acc(C *c, int k, const char *prefix, int jside, char *r,
                      size_t n)
{
	const Ins *in = &c->f->ins[k];
	char lane[16];
	if (c->lanes)
		snprintf(lane, sizeof lane, "k");
	else
		snprintf(lane, sizeof lane, "%d", in->lane);
	const Var *v = &c->f->var[in->var];
	if (jside)
		snprintf(r, n, "%s%d_%d[%s]", prefix, in->var,
		         c->jl[k] > 0 ? c->jl[k] : 0, lane);
	else if (*prefix)
		snprintf(r, n, "%s%d[%s]", prefix, in->var, lane);
	else if (v->type == T_DD)
		snprintf(r, n, "*(nb_dd *)&" NB_VPFX "%s[2 * (i + %s)]", v->name,
		         lane);
	else
		snprintf(r, n, NB_VPFX "%s[i + %s]", v->name, lane);
}

static void emit_ins(C *c, int k, const char *ind, const char *acc)
{
	const Func *f = c->f;
	Buf *out = c->out;
	const Ins *in = &f->ins[k];
	const Var *v = in->var >= 0 ? &f->var[in->var] : NULL;
	if (in->op == O_IMM)
		return; /* literals are written where they are used */
	if ((opinfo[in->op].props & P_SINK) && c->jside) {
		char r[320];
		pairs_acc(c, k, c->iside, 0, r, sizeof r);
		buf_puts(out, ind);
		emit_sink(out, f, k, r, target_c.spell, name, c);
		pairs_acc(c, k, c->jside, 1, r, sizeof r);
		buf_puts(out, ind);
		emit_sink(out, f, k, r, target_c.spell, name, c);
		return;
	}
	if (opinfo[in->op].props & P_SINK) {
		char r[64];
		accname(c, in, acc, r, sizeof r);
		buf_puts(out, ind);
		emit_sink(out, f, k, r, target_c.spell, name, c);
		return;
	}
	/* a lane-specific value before the j loop is an array over lanes */
	int arr = c->lanes && in->blk == B_PRE && c->il[k] >= 0;
	if (arr)
		buf_printf(out, "%sv%d[k] = ", ind, k);
	else
		buf_printf(out, "%sconst %s v%d = ", ind, ctype(in->type), k);
	char ix[64];
	switch (in->op) {
	case O_LDI:
		if (c->lanes && c->whole)
			snprintf(ix, sizeof ix, "i + k");
		else if (c->lanes)
			snprintf(ix, sizeof ix, "i + k <= ilast ? i + k : ilast");
		else
			snprintf(ix, sizeof ix, "i%d", in->lane);
		load(out, in->type, cprintf(f->ctx, NB_VPFX "%s", v->name), ix);
		break;
	case O_LDJ:
		snprintf(ix, sizeof ix, "j + %d", in->lane * f->jsplit);
		load(out, in->type, cprintf(f->ctx, NB_VPFX "%s", v->name), ix);
		break;
	case O_CONST:
		buf_printf(out, NB_VPFX "%s", v->name);
		break;
	case O_IDXI: /* the global index: the kernel's i counts from ibase */
		if (c->rmode && c->lanes) /* the sorted copies' map, if any */
			buf_puts(out, "(int)(nb_imap ? nb_imap[i + k <= ilast ? i + k "
			         ": ilast] : i + k)");
		else if (c->rmode)
			buf_printf(out, "(int)(nb_imap ? nb_imap[i%d] : i + %d)",
			           in->lane, in->lane);
		else if (c->lanes)
			buf_puts(out, "(int)(i + k)");
		else
			buf_printf(out, "(int)(i + %d)", in->lane);
		break;
	case O_IDXJ:
		if (c->jmapped)
			buf_printf(out, "(int)nb_jmap[j + %d]", in->lane * f->jsplit);
		else
			buf_printf(out, "(int)(j + %d)", in->lane * f->jsplit);
		break;
	case O_EXP:
		if (c->simd) { /* nb_expf: see mvec_decls */
			const Ins *a = &f->ins[in->arg[0]];
			buf_puts(out, "nb_expf(");
			if (a->op == O_IMM)
				emit_imm(out, a);
			else
				name(out, f, in->arg[0], c);
			buf_putc(out, ')');
			break;
		}
		/* fall through */
	default:
		emit_rhs(out, f, k, target_c.spell, 0, name, c);
	}
	buf_puts(out, ";\n");
}

/* One block: straight-line, or shared work then a loop over the lanes. */
static void emit_block(C *c, int blk, const char *ind, const char *acc)
{
	const Func *f = c->f;
	if (!c->lanes) {
		for (int k = 0; k < f->n; k++)
			if (f->ins[k].blk == blk)
				emit_ins(c, k, ind, acc);
		return;
	}
	int any = 0;
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		if (in->blk != blk)
			continue;
		if (c->il[k] == -1)
			emit_ins(c, k, ind, acc);
		else if (c->il[k] == 0)
			any = 1;
	}
	if (!any)
		return;
	if (blk == B_PRE) /* arrays for the lane-specific values */
		for (int k = 0; k < f->n; k++)
			if (f->ins[k].blk == B_PRE && c->il[k] == 0 &&
			    f->ins[k].op != O_IMM)
				buf_printf(c->out, "%s%s v%d[%d];\n", ind,
				           ctype(f->ins[k].type), k, f->ni);
	/* gcc unrolls a short lane loop before it vectorizes loops, and its
	 * straight-line vectorizer calls no vector functions: `omp simd`
	 * keeps the loop for the loop vectorizer */
	if (c->simd)
		buf_printf(c->out, "%s#pragma omp simd\n", ind);
	buf_printf(c->out, "%sfor (int k = 0; k < %d; k++) {\n", ind, f->ni);
	char *ind2 = cprintf(f->ctx, "%s\t", ind);
	c->inloop = 1;
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].blk == blk && c->il[k] == 0)
			emit_ins(c, k, ind2, acc);
	c->inloop = 0;
	buf_printf(c->out, "%s}\n", ind);
}

/* The arrays and CONSTs, after the launch's range where lead is set. */
static void params(const Func *f, Buf *out, int lead)
{
	if (lead)
		buf_puts(out, "long ni, long nj, long ibase, long jbase, int accum");
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		switch (x->role) {
		case NB_LMEM:
		case NB_BMEM:
			buf_printf(out, ",\n\tconst %s *restrict " NB_VPFX "%s",
			           stype(x->type), x->name);
			break;
		case NB_CONST:
			buf_printf(out, ",\n\t%s " NB_VPFX "%s", ctype(x->type),
			           x->name);
			break;
		case NB_RMEM:
			buf_printf(out, ",\n\t%s *restrict " NB_VPFX "%s",
			           stype(x->type), x->name);
			break;
		}
	}
}

/* The row of compiler/defaults.c for the host and precision. */
static const nb_defaults *c_defaults(Type widest, nb_options *o)
{
	return defaults_apply("c", widest, o);
}

/* Declares the accumulators (prefix r, or s for j-split partial sums). */
static void accumulators(C *c, const char *pre, const char *ind)
{
	const Func *f = c->f;
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		Type t = f->var[v].type;
		nb_red red = f->var[v].red;
		/* the value and, where the reduction has one, its second
		 * state (emit.c: an rx beside each r) */
		for (int x = 0; x <= (red_aux(red) > 0); x++) {
			const char *zero = x ? red_aux_identity(red, t) :
			                   red_identity(red, t);
			const char *ty = x && red_aux(red) == 1 ? "int" : ctype(t);
			const char *px = x ? "x" : "";
			if (c->lanes) {
				buf_printf(c->out, "%s%s %s%s%d[%d];\n", ind, ty, pre, px,
				           v, f->ni);
				buf_printf(c->out, "%sfor (int k = 0; k < %d; k++)\n%s\t"
				           "%s%s%d[k] = %s;\n", ind, f->ni, ind, pre, px, v,
				           zero);
			} else {
				for (int l = 0; l < f->ni; l++)
					buf_printf(c->out, "%s%s %s%s%d_%d = %s;\n", ind, ty,
					           pre, px, v, l, zero);
			}
		}
	}
}

/* glibc's libmvec (behind -lm on x86-64) has a vector form of each P_MVEC
 * function; declared `omp declare simd`, the calls in lane loops go to
 * it (_ZGVdN8v_expf and so on).  Within 4 ulp, as glibc states and
 * docs/performance.md measures. */
static int mvec_decls(const Func *f, Buf *out)
{
	int used[O_COUNT] = {0}, any = 0;
	for (int k = 0; k < f->n; k++)
		if (opinfo[f->ins[k].op].props & P_MVEC)
			any = used[f->ins[k].op] = 1;
	if (!any)
		return 0;
	buf_puts(out, "#if defined __x86_64__ && defined __GLIBC__ && "
	         "defined _OPENMP\n");
	for (int op = 0; op < O_COUNT; op++)
		if (used[op]) {
			buf_puts(out, "#pragma omp declare simd notinbranch\n");
			buf_printf(out, "float %sf(float", opinfo[op].fn);
			for (int a = 1; a < opinfo[op].nargs; a++)
				buf_puts(out, ", float");
			buf_puts(out, ");\n");
		}
	buf_puts(out, "#endif\n");
	/* libmvec's expf leaves its vector code for a scalar loop where
	 * |x| > 87.33 (ten times slower for a Gaussian that underflows);
	 * below -87.33 the result is under FLT_MIN, and 0 as float kernels
	 * flush subnormals (prec.c's ftz) */
	if (used[O_EXP])
		buf_puts(out, "static inline float nb_expf(float x)\n{\n"
		         "\treturn x < -87.33f ? 0.0f : expf(fmaxf(x, -87.33f));\n"
		         "}\n");
	buf_putc(out, '\n');
	return 1;
}

/* The j-loops of a group over [jbase, jend), the j-unroll's body then
 * its tail (c_group). */
static void j_loops(C *c, const char *ind, const char *acc)
{
	const Func *f = c->f;
	Buf *out = c->out;
	int nj = f->nj, t = f->jsplit;
	buf_printf(out, "%slong j = jbase%s;\n", ind, t > 1 ? " + p" : "");
	char *ind1 = cprintf(f->ctx, "%s\t", ind);
	if (nj > 1) {
		buf_printf(out, "%sfor (; j + %d < jend; j += %d) {\n", ind,
		           (nj - 1) * t, nj * t);
		emit_block(c, B_BODY, ind1, acc);
		buf_printf(out, "%s}\n", ind);
		buf_printf(out, "%sfor (; j < jend; j += %d) {\n", ind, t);
		emit_block(c, B_TAIL, ind1, acc);
		buf_printf(out, "%s}\n", ind);
	} else {
		buf_printf(out, "%sfor (; j < jend; j += %d) {\n", ind, t);
		emit_block(c, B_BODY, ind1, acc);
		buf_printf(out, "%s}\n", ind);
	}
}

/* The work of one group of NI i-elements (g of the launch's or the
 * task's), from its first i to its stores; in the entry of block-sparse
 * runs the j loops run once per range of the task's group. */
static void c_group(C *c)
{
	const Func *f = c->f;
	Buf *out = c->out;
	int ni = f->ni, t = f->jsplit;
	buf_printf(out, "\t\tconst long i = ibase + g * %d, ilast = ibase + ni - 1;\n",
	           ni);
	/* lanes past the last element read a valid one and store nothing */
	if (!c->lanes)
		for (int l = 0; l < ni; l++)
			buf_printf(out, "\t\tconst long i%d = i + %d <= ilast ? i + %d : "
			           "ilast;\n\t\t(void)i%d;\n", l, l, l, l);
	accumulators(c, "r", "\t\t");
	emit_block(c, B_PRE, "\t\t", "r");
	const char *ind = "\t\t";
	const char *acc = "r";
	if (t > 1) {
		buf_printf(out, "\t\tfor (long p = 0; p < %d; p++) {\n", t);
		accumulators(c, "s", "\t\t\t");
		ind = "\t\t\t";
		acc = "s";
	}
	if (c->rmode) /* the group's ranges, each as a launch's j range */
		buf_printf(out, "%sfor (long nb_r = nb_roff[nb_g]; nb_r < "
		           "nb_roff[nb_g + 1]; nb_r++) {\n%sconst long jbase = "
		           "nb_rng[2 * nb_r], jend = nb_rng[2 * nb_r + 1];\n", ind,
		           ind);
	/* a j-map read inside the loops only where the source reads j */
	int readsj = 0;
	for (int k = 0; c->rmode && k < f->n; k++)
		readsj |= f->ins[k].op == O_IDXJ;
	if (readsj) {
		char *ind1 = cprintf(f->ctx, "%s\t", ind);
		buf_printf(out, "%sif (nb_jmap) {\n", ind);
		c->jmapped = 1;
		j_loops(c, ind1, acc);
		c->jmapped = 0;
		buf_printf(out, "%s} else {\n", ind);
		j_loops(c, ind1, acc);
		buf_printf(out, "%s}\n", ind);
	} else {
		j_loops(c, ind, acc);
	}
	if (c->rmode)
		buf_printf(out, "%s}\n", ind);
	if (t > 1) {
		/* partial sums combined in the order of p, as documented */
		for (int v = 0; v < f->nvar; v++) {
			if (f->var[v].role != NB_RMEM)
				continue;
			int dd = f->var[v].type == T_DD;
			for (int l = 0; l < (c->lanes ? 1 : ni); l++) {
				char r[32], s[32], rx[40], sx[40];
				if (c->lanes) {
					snprintf(r, sizeof r, "r%d[k]", v);
					snprintf(s, sizeof s, "s%d[k]", v);
					buf_printf(out, "\t\t\tfor (int k = 0; k < %d; k++)\n\t",
					           ni);
				} else {
					snprintf(r, sizeof r, "r%d_%d", v, l);
					snprintf(s, sizeof s, "s%d_%d", v, l);
				}
				snprintf(rx, sizeof rx, "rx%s", r + 1);
				snprintf(sx, sizeof sx, "sx%s", s + 1);
				if (f->var[v].red > NB_COUNT) {
					/* the partial state: the order of p does not
					 * matter to these */
					buf_puts(out, "\t\t\t");
					red_combine(out, f, v, target_c.spell, r, rx, s, sx);
				} else if (dd)
					buf_printf(out, "\t\t\t%s = p ? nb_dd_add(%s, %s) : %s;\n",
					           r, r, s, s);
				else
					buf_printf(out, "\t\t\t%s = p ? %s + %s : %s;\n", r, r,
					           s, s);
			}
		}
		buf_puts(out, "\t\t}\n");
	}
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		const char *nm = f->var[v].name;
		for (int l = 0; l < (c->lanes ? 1 : ni); l++) {
			char r[32], ix[32];
			const char *ind2 = "\t\t";
			if (c->lanes) {
				snprintf(r, sizeof r, "r%d[k]", v);
				snprintf(ix, sizeof ix, "i + k");
				buf_printf(out, "\t\tfor (int k = 0; k < %d; k++) {\n", ni);
				ind2 = "\t\t\t";
			} else {
				snprintf(r, sizeof r, "r%d_%d", v, l);
				snprintf(ix, sizeof ix, "i + %d", l);
			}
			buf_printf(out, "%sif (%s <= ilast) {\n", ind2, ix);
			if (f->var[v].red > NB_COUNT) {
				char rx[40], old[128];
				snprintf(rx, sizeof rx, "rx%s", r + 1);
				Buf in = {0};
				load(&in, f->var[v].type, cprintf(f->ctx, NB_VPFX "%s",
				     nm), ix);
				snprintf(old, sizeof old, "%s", in.s);
				buf_free(&in);
				red_final(out, cprintf(f->ctx, "%s\t", ind2), f, v,
				          target_c.spell, r, rx, old);
				if (f->var[v].type == T_DD)
					buf_printf(out, "%s\t" NB_VPFX "%s[2 * (%s)] = %s.hi;\n"
					           "%s\t" NB_VPFX "%s[2 * (%s) + 1] = %s.lo;\n",
					           ind2, nm, ix, r, ind2, nm, ix, r);
				else
					buf_printf(out, "%s\t" NB_VPFX "%s[%s] = %s;\n", ind2,
					           nm, ix, r);
			} else if (f->var[v].type == T_DD) {
				buf_printf(out, "%s\tnb_dd x = %s;\n", ind2, r);
				buf_printf(out, "%s\tif (accum)\n%s\t\tx = nb_dd_add("
				           "nb_dd_make(" NB_VPFX "%s[2 * (%s)], "
				           NB_VPFX "%s[2 * (%s) + 1]), x);\n", ind2, ind2, nm,
				           ix, nm, ix);
				buf_printf(out, "%s\t" NB_VPFX "%s[2 * (%s)] = x.hi;\n",
				           ind2, nm, ix);
				buf_printf(out, "%s\t" NB_VPFX "%s[2 * (%s) + 1] = x.lo;\n",
				           ind2, nm, ix);
			} else {
				buf_printf(out, "%s\t" NB_VPFX "%s[%s] = accum ? "
				           NB_VPFX "%s[%s] + %s : %s;\n", ind2, nm, ix, nm,
				           ix, r, r);
			}
			buf_printf(out, "%s}\n", ind2);
			if (c->lanes)
				buf_puts(out, "\t\t}\n");
		}
	}
}

/* The entry of block-sparse runs: a task (nb_task: first i, count,
 * group) to each iteration, its groups of NI i-elements as a launch's,
 * over the group's j-ranges (nb_roff, nb_rng); nb_imap and nb_jmap, when
 * not NULL, give the indices the source reads (sorted copies' own). */
static void c_ranges(C *c)
{
	const Func *f = c->f;
	Buf *out = c->out;
	buf_printf(out, "void " NB_KPFX "%s_ranges(long ntask, const long "
	           "*nb_task,\n\tconst long *nb_roff, const long *nb_rng, "
	           "const long *nb_imap,\n\tconst long *nb_jmap, int accum",
	           f->name);
	params(f, out, 0);
	buf_puts(out, ")\n{\n\t(void)nb_imap;\n\t(void)nb_jmap;\n");
	buf_puts(out, "#ifdef _OPENMP\n\t#pragma omp parallel for "
	         "schedule(dynamic)\n#endif\n");
	buf_puts(out, "\tfor (long nb_t = 0; nb_t < ntask; nb_t++) {\n"
	         "\tconst long ibase = nb_task[3 * nb_t], ni = nb_task[3 * nb_t "
	         "+ 1], nb_g = nb_task[3 * nb_t + 2];\n");
	buf_printf(out, "\tfor (long g = 0; g < (ni + %d) / %d; g++) {\n",
	           f->ni - 1, f->ni);
	c->rmode = 1;
	c_group(c);
	c->rmode = 0;
	buf_puts(out, "\t}\n\t}\n}\n\n");
}

/* The kernel function (NB_KPFX name suffix), its i-groups spread over
 * the threads or (parallel 0: Newton's tasks, already on a thread each)
 * on the calling thread alone. */
static void kernel_fn(C *c, const char *linkage, const char *suffix,
                      int parallel)
{
	const Func *f = c->f;
	Buf *out = c->out;
	int ni = f->ni;
	buf_printf(out, "%s" NB_KPFX "%s%s(", linkage, f->name, suffix);
	params(f, out, 1);
	buf_puts(out, ")\n{\n");
	buf_printf(out, "\tconst long ngroup = (ni + %d) / %d;\n", ni - 1, ni);
	buf_puts(out, "\tconst long jend = jbase + nj;\n");
	/* dynamic: on a shared machine a thread that loses its core leaves
	 * its groups to the others instead of holding up the launch; a group
	 * is NI x Nj interactions, so taking one costs nothing measurable */
	if (parallel)
		buf_puts(out, "#ifdef _OPENMP\n\t#pragma omp parallel for "
		         "schedule(dynamic)\n#endif\n");
	buf_puts(out, "\tfor (long g = 0; g < ngroup; g++) {\n");
	c_group(c);
	buf_puts(out, "\t}\n}\n\n");
}

/* The kernel function's arguments from an entry's table: arrays in
 * interface order (LMEM, BMEM, RMEM), every CONST as a (hi, lo) pair. */
static void call_args(const Func *f, Buf *out, const char *ind)
{
	int ia = 0, ic = 0;
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		if (x->role == NB_CONST) {
			if (x->type == T_DD)
				buf_printf(out, ",\n%snb_dd_make(cst[%d], cst[%d])", ind,
				           2 * ic, 2 * ic + 1);
			else
				buf_printf(out, ",\n%s(%s)cst[%d]", ind, ctype(x->type),
				           2 * ic);
			ic++;
		} else {
			buf_printf(out, ",\n%s(%s%s *)arr[%d]", ind,
			           x->role == NB_RMEM ? "" : "const ", stype(x->type),
			           ia++);
		}
	}
}

/* --- Newton's third law ------------------------------------------------
 * The pairs entry (nb_iface pairs) runs a list of tasks, each i in
 * [i0, i1) against each j in [j0, j1), on the threads as they come free,
 * a task starting once the tasks before it in the list that write its
 * blocks are done (counters of integers: no floating-point atomics), so
 * that each block takes its terms in the list's order.  A task on one
 * range (i0 = j0, i1 = j1) is the kernel function itself, every pair of
 * the range in both orders; any other adds the term t of each pair to
 * the result at i and +-t (the RMEM's symmetry) to the j-side array
 * J<var> at j.  Its loop runs over j outside and i-groups inside: the
 * i-side is a vector update of the results in memory, the j-side a lane
 * array summed once per j in a fixed order, so a result's bits do not
 * depend on the threads.  The entry ends by adding the j-sides to the
 * results.  The runtime (runtime/newton.c) makes the tasks and zeroes
 * the results, J<var> and the counters first. */

/* Declares prefix<v>[NI] at the sum's identity for each RMEM, or with
 * nq > 0 prefix<v>_<q>[NI] for each q < nq. */
static void pairs_lanes(C *c, const char *prefix, int nq, const char *ind)
{
	const Func *f = c->f;
	for (int v = 0; v < f->nvar; v++)
		for (int q = 0; q < (nq ? nq : 1) && f->var[v].role == NB_RMEM;
		     q++) {
			Type t = f->var[v].type;
			const char *nm = nq ? cprintf(f->ctx, "%s%d_%d", prefix, v, q) :
			                 cprintf(f->ctx, "%s%d", prefix, v);
			buf_printf(c->out, "%s%s %s[%d];\n%sfor (int k = 0; k < %d; "
			           "k++)\n%s\t%s[k] = %s;\n", ind, ctype(t), nm, f->ni,
			           ind, f->ni, ind, nm, red_identity(f->var[v].red, t));
		}
}

/* One i-group at i of a task for the j-step's j-elements (block blk):
 * the hoisted block and the body, each sink into iside and jside. */
static void pairs_group(C *c, int blk, const char *iside, const char *jside,
                        const char *ind)
{
	const Func *f = c->f;
	/* a whole group reads its lanes straight (a clamped index would be
	 * a gather, here once a pair) */
	int whole = !*iside;
	for (int l = 0; !c->lanes && l < f->ni; l++) {
		if (whole)
			buf_printf(c->out, "%sconst long i%d = i + %d;\n", ind, l, l);
		else
			buf_printf(c->out, "%sconst long i%d = i + %d <= ilast ? "
			           "i + %d : ilast;\n", ind, l, l, l);
		buf_printf(c->out, "%s(void)i%d;\n", ind, l);
	}
	c->iside = iside;
	c->jside = jside;
	c->whole = whole;
	emit_block(c, B_PRE, ind, "r");
	emit_block(c, blk, ind, "r");
	c->iside = c->jside = NULL;
	c->whole = 0;
}

/* dst += src in the RMEM's type. */
static void pairs_add(Buf *out, Type t, const char *ind, const char *dst,
                      const char *src)
{
	if (t == T_DD)
		buf_printf(out, "%s%s = nb_dd_add(%s, %s);\n", ind, dst, dst, src);
	else
		buf_printf(out, "%s%s = %s + %s;\n", ind, dst, dst, src);
}

/* One step of a task's j loop: the nq j-elements from j (block blk)
 * against every i-group of the task; each j's lanes summed in a fixed
 * order (halving, or in turn) into its j-side. */
static void pairs_jstep(C *c, int blk, int nq)
{
	const Func *f = c->f;
	Buf *out = c->out;
	int ni = f->ni;
	pairs_lanes(c, "a", nq, "\t\t");
	buf_printf(out, "\t\tfor (long g = 0; g < nfull; g++) {\n"
	           "\t\t\tconst long i = ibeg + g * %d;\n", ni);
	pairs_group(c, blk, "", "a", "\t\t\t");
	buf_puts(out, "\t\t}\n\t\tif (irest < iend) {\n"
	         "\t\t\tconst long i = irest;\n");
	/* the last, partial i-group: its i-side in T, added at the end; its
	 * lanes past ilast repeat the last element, their terms go nowhere */
	pairs_lanes(c, "b", nq, "\t\t\t");
	pairs_group(c, blk, "T", "b", "\t\t\t");
	buf_printf(out, "\t\t\tfor (int k = 0; k < %d; k++)\n"
	           "\t\t\t\tif (i + k <= ilast) {\n", ni);
	for (int v = 0; v < f->nvar; v++)
		for (int q = 0; q < nq && f->var[v].role == NB_RMEM; q++)
			pairs_add(out, f->var[v].type, "\t\t\t\t\t",
			          cprintf(f->ctx, "a%d_%d[k]", v, q),
			          cprintf(f->ctx, "b%d_%d[k]", v, q));
	buf_puts(out, "\t\t\t\t}\n\t\t}\n");
	for (int v = 0; v < f->nvar; v++)
		for (int q = 0; q < nq && f->var[v].role == NB_RMEM; q++) {
			Type t = f->var[v].type;
			const char *a0 = cprintf(f->ctx, "a%d_%d[0]", v, q);
			if ((ni & (ni - 1)) == 0) {
				for (int w = ni / 2; w >= 1; w /= 2) {
					buf_printf(out, "\t\tfor (int k = 0; k < %d; k++)\n", w);
					pairs_add(out, t, "\t\t\t",
					          cprintf(f->ctx, "a%d_%d[k]", v, q),
					          cprintf(f->ctx, "a%d_%d[k + %d]", v, q, w));
				}
			} else {
				buf_printf(out, "\t\tfor (int k = 1; k < %d; k++)\n", ni);
				pairs_add(out, t, "\t\t\t", a0,
				          cprintf(f->ctx, "a%d_%d[k]", v, q));
			}
			const char *jv = cprintf(f->ctx, "J%d[j + %d]", v, q);
			if (t == T_DD)
				buf_printf(out, "\t\t%s = nb_dd_%s(%s, %s);\n", jv,
				           f->var[v].sym > 0 ? "add" : "sub", jv, a0);
			else
				buf_printf(out, "\t\t%s = %s %c %s;\n", jv, jv,
				           f->var[v].sym > 0 ? '+' : '-', a0);
		}
}

/* Whether the j-unrolled body serves a task's steps: its j-lanes one
 * apart (no j-split), every sink in one of them.  Then each i-group
 * updates its i-side in memory once a step of nj j-elements. */
static int pairs_unrolled(const C *c)
{
	const Func *f = c->f;
	if (f->nj < 2 || f->jsplit != 1)
		return 0;
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].blk == B_BODY && (opinfo[f->ins[k].op].props & P_SINK)
		    && c->jl[k] < 0)
			return 0;
	return 1;
}

static void pairs_task(C *c)
{
	const Func *f = c->f;
	Buf *out = c->out;
	int ni = f->ni, nj = f->nj;
	buf_printf(out, "static void " NB_KPFX "%s_task(long ibeg, long iend, "
	           "long jbeg, long jend", f->name);
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		if (x->role == NB_CONST)
			buf_printf(out, ",\n\t%s " NB_VPFX "%s", ctype(x->type),
			           x->name);
		else
			buf_printf(out, ",\n\t%s%s *restrict " NB_VPFX "%s",
			           x->role == NB_RMEM ? "" : "const ", stype(x->type),
			           x->name);
	}
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, ",\n\t%s *restrict J%d", ctype(f->var[v].type),
			           v);
	buf_printf(out, ")\n{\n\tconst long nfull = (iend - ibeg) / %d, "
	           "ilast = iend - 1;\n\tconst long irest = ibeg + nfull * %d;\n",
	           ni, ni);
	pairs_lanes(c, "T", 0, "\t");
	buf_puts(out, "\tlong j = jbeg;\n");
	if (pairs_unrolled(c)) {
		buf_printf(out, "\tfor (; j + %d < jend; j += %d) {\n", nj - 1, nj);
		pairs_jstep(c, B_BODY, nj);
		buf_puts(out, "\t}\n");
	}
	/* one j: the body, or after a j-unroll the remainder's */
	buf_puts(out, "\tfor (; j < jend; j++) {\n");
	pairs_jstep(c, nj > 1 ? B_TAIL : B_BODY, 1);
	buf_puts(out, "\t}\n");
	buf_printf(out, "\tfor (int k = 0; k < %d && irest + k < iend; k++) {\n",
	           ni);
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		const char *nm = f->var[v].name;
		const char *r = f->var[v].type == T_DD ?
		                cprintf(f->ctx, "*(nb_dd *)&" NB_VPFX "%s[2 * "
		                        "(irest + k)]", nm) :
		                cprintf(f->ctx, NB_VPFX "%s[irest + k]", nm);
		pairs_add(out, f->var[v].type, "\t\t", r,
		          cprintf(f->ctx, "T%d[k]", v));
	}
	buf_puts(out, "\t}\n}\n\n");
}

/* The entry: n elements; ntask tasks of 8 longs: i0 i1 j0 j1, the
 * counter of the i-side's block and of the j-side's (-1: a task on one
 * range, which writes no j-side), and how many tasks before it in the
 * list write each (done: the counters, zeroed); arr and cst as the
 * entry's, jarr the j-side arrays in the RMEMs' kernel types, one per
 * RMEM. */
static void pairs_emit(C *c, const nb_iface *fc)
{
	const Func *f = c->f;
	Buf *out = c->out;
	/* a waiting thread yields its core: on a busy machine the task it
	 * waits for may be one whose thread lost its own */
	buf_puts(out, "\n#ifdef __unix__\nint sched_yield(void);\n#endif\n");
	/* a task on one block: the kernel on this thread alone (a nested
	 * parallel region would leave the team's other threads spinning) */
	kernel_fn(c, "static void ", "_block", 0);
	pairs_task(c);
	buf_printf(out, "void %s(long n, long ntask, const long *task, "
	           "long *done,\n\tvoid *const *arr, void *const *jarr, "
	           "const double *cst)\n{\n\t(void)arr;\n\t(void)cst;\n",
	           fc->pairs);
	/* tasks in the list's order to whichever thread asks; one waits
	 * (rarely: the list is in round-robin phases) until the earlier
	 * tasks on its blocks are done, so each block takes its terms in
	 * the list's order whatever the threads */
	buf_puts(out, "\tlong next = 0;\n"
	         "#ifdef _OPENMP\n\t#pragma omp parallel\n#endif\n"
	         "\t{\n\tfor (;;) {\n\t\tlong t;\n"
	         "#ifdef _OPENMP\n\t\t#pragma omp atomic capture seq_cst\n#endif\n"
	         "\t\tt = next++;\n\t\tif (t >= ntask)\n\t\t\tbreak;\n"
	         "\t\tconst long *q = task + 8 * t;\n"
	         "\t\tfor (int ready = 0; !ready;) {\n\t\t\tlong a, b = q[7];\n"
	         "#ifdef _OPENMP\n\t\t\t#pragma omp atomic read seq_cst\n#endif\n"
	         "\t\t\ta = done[q[4]];\n\t\t\tif (q[5] >= 0) {\n"
	         "#ifdef _OPENMP\n\t\t\t\t#pragma omp atomic read seq_cst\n#endif\n"
	         "\t\t\t\tb = done[q[5]];\n\t\t\t}\n"
	         "\t\t\tready = a >= q[6] && b >= q[7];\n"
	         "#ifdef __unix__\n\t\t\tif (!ready)\n\t\t\t\tsched_yield();\n"
	         "#endif\n\t\t}\n"
	         "\t\tif (q[5] < 0)\n");
	buf_printf(out, "\t\t\t" NB_KPFX "%s_block(q[1] - q[0], q[3] - q[2], "
	           "q[0], q[2], 1", f->name);
	call_args(f, out, "\t\t\t\t");
	buf_printf(out, ");\n\t\telse\n\t\t\t" NB_KPFX "%s_task(q[0], q[1], "
	           "q[2], q[3]", f->name);
	call_args(f, out, "\t\t\t\t");
	int r = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			buf_printf(out, ",\n\t\t\t\t(%s *)jarr[%d]",
			           ctype(f->var[v].type), r++);
	buf_puts(out, ");\n"
	         "#ifdef _OPENMP\n\t\t#pragma omp atomic update seq_cst\n#endif\n"
	         "\t\tdone[q[4]]++;\n\t\tif (q[5] >= 0) {\n"
	         "#ifdef _OPENMP\n\t\t\t#pragma omp atomic update seq_cst\n#endif\n"
	         "\t\t\tdone[q[5]]++;\n\t\t}\n\t}\n"
	         "#ifdef _OPENMP\n\t#pragma omp barrier\n#endif\n");
	/* the results: i-side + j-side, element by element */
	int ia = 0;
	r = 0;
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		if (x->role == NB_CONST)
			continue;
		if (x->role == NB_RMEM) {
			Type t = x->type;
			buf_printf(out, "\t{\n\t\t%s *restrict R = arr[%d];\n"
			           "\t\tconst %s *restrict J = jarr[%d];\n"
			           "#ifdef _OPENMP\n\t\t#pragma omp for\n"
			           "#endif\n\t\tfor (long i = 0; i < n; i++)\n",
			           ctype(t), ia, ctype(t), r++);
			pairs_add(out, t, "\t\t\t", "R[i]", "J[i]");
			buf_puts(out, "\t}\n");
		}
		ia++;
	}
	/* one parallel region in all: each ending one leaves threads
	 * spinning, which on a busy machine take cores from the rest */
	buf_puts(out, "\t}\n}\n");
}

/* The entry for the runtime (or, rm, of block-sparse runs): arrays in
 * interface order (LMEM, BMEM, RMEM), every CONST as a (hi, lo) pair. */
static void table_entry(const Func *f, const nb_iface *fc, Buf *out, int rm)
{
	if (rm) {
		buf_printf(out, "\nvoid %s_ranges(long ntask, const long *task, "
		           "const long *roff,\n\tconst long *rng, const long "
		           "*imap, const long *jmap, int accum,\n\tvoid *const "
		           "*arr, const double *cst)\n{\n", fc->entry);
		buf_puts(out, "\t(void)arr;\n\t(void)cst;\n");
		buf_printf(out, "\t" NB_KPFX "%s_ranges(ntask, task, roff, rng, "
		           "imap, jmap, accum", f->name);
	} else {
		buf_printf(out, "void %s(long ni, long nj, long ibase, long jbase, "
		           "int accum,\n\tvoid *const *arr, const double *cst)\n"
		           "{\n", fc->entry);
		buf_puts(out, "\t(void)arr;\n\t(void)cst;\n");
		buf_printf(out, "\t" NB_KPFX "%s(ni, nj, ibase, jbase, accum",
		           f->name);
	}
	call_args(f, out, "\t\t");
	buf_puts(out, ");\n}\n");
}

static void c_emit(const Func *f, const nb_iface *fc, Buf *out)
{
	C c = {.f = f, .out = out};
	c.lanes = lane_analysis(&c);
	buf_printf(out, "/* Generated by nbcc %s; do not edit.\n", NBCC_VERSION);
	iface_put(out, fc, " * ");
	buf_puts(out, " */\n#include <math.h>\n#include <stddef.h>\n\n");
	if (emit_approx(ir_widest_arith(f), f->ctx->opt))
		c.simd = mvec_decls(f, out) && c.lanes;
	if (ir_widest(f, 0) == T_DD) {
		if (f->ctx->opt->dd_qd)
			buf_puts(out, "#define NB_DD_QD 1\n");
		buf_puts(out, nb_ddlib_src);
		buf_putc(out, '\n');
	}
	red_prelude(out, f, target_c.spell);

	kernel_fn(&c, "void ", "", 1);
	if (fc->ranges)
		c_ranges(&c);

	table_entry(f, fc, out, 0);
	if (fc->ranges)
		table_entry(f, fc, out, 1);
	if (fc->pairs)
		pairs_emit(&c, fc);
	free(c.il);
	free(c.jl);
}

/* cc is asked for fast math only where no dd arithmetic would lose its
 * error terms to it (iface_build).  Where the precision allows estimates
 * (prec.c's approx), gcc computes 1/sqrtf, sqrtf and float division in
 * vectors from vrsqrtps / vrcpps and a Newton step only under
 * -funsafe-math-optimizations and -ffinite-math-only; the rest of fast
 * math stays off: sums keep the order written and zeros their sign. */
static const char *c_build_options(Type widest, const nb_options *o)
{
	if (prec[widest].eft)
		return "";
	if (o->fast_math)
		return "-ffast-math";
	return emit_approx(widest, o) ? "-funsafe-math-optimizations "
	       "-ffinite-math-only -fno-associative-math -fsigned-zeros" : "";
}

/* One array per BMEM value, which gcc vectorizes best; the entry takes
 * the arrays as a table (nbk_K_entry); no launch shape. */
const Target target_c = {
	.name = "c", .ext = ".c", .lang = "C11",
	.pack_bmem = 0, .entry_suffix = "_entry", .pairs_suffix = "_pairs",
	.defaults = c_defaults, .build_options = c_build_options,
	.spell = &c_spelling, .emit = c_emit, .ranges = 1,
};
