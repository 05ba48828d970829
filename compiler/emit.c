/* emit.c: what the C-family back ends share: the interface of the kernel
 * (argument order, BMEM packs), literals that read back exactly, and the
 * spelling of each operation in C and OpenCL C, float, double or dd. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

int emit_approx(Type widest, const nb_options *o)
{
	return prec[widest].approx && (o->approx || o->fast_math);
}

const char *ctype(Type t)
{
	return type_numeric(t) ? prec[t].ctype : "int";
}

static char *xstrdup(const char *s)
{
	char *p = malloc(strlen(s) + 1);
	if (!p)
		ICE("out of memory");
	strcpy(p, s);
	return p;
}

/* Target-neutral: what differs between back ends comes from the Target. */
nb_iface *iface_build(const Func *f, const Target *t, const char *source,
                      const nb_options *o)
{
	nb_iface *fc = calloc(1, sizeof *fc);
	if (!fc)
		ICE("out of memory");
	char flags[512];
	nb_options_str(o, flags, sizeof flags);
	fc->kernel = xstrdup(f->name);
	fc->entry = xstrdup(cprintf(f->ctx, NB_KPFX "%s%s", f->name,
	                            t->entry_suffix ? t->entry_suffix : ""));
	/* Newton's third law needs every result's j-side term */
	int nres = 0, nsym = 0;
	for (int i = 0; i < f->nvar; i++)
		if (f->var[i].role == NB_RMEM) {
			nres++;
			nsym += f->var[i].sym != 0;
		}
	int plain = f->ni == 1 && f->nj == 1 && f->jsplit == 1;
	if (t->pairs_suffix && nres && nsym == nres && (plain || !t->pairs_plain))
		fc->pairs = xstrdup(cprintf(f->ctx, NB_KPFX "%s%s", f->name,
		                            t->pairs_suffix));
	fc->target = xstrdup(t->name);
	fc->source = xstrdup(source ? source : "-");
	fc->flags = xstrdup(flags);
	fc->precision = o->precision;
	fc->unroll_i = f->ni;
	fc->unroll_j = f->nj;
	fc->jsplit = f->jsplit;
	/* dd arithmetic dies under fast-math: its error terms become 0.  So
	 * a dd kernel is built IEEE even under --fast-math (each target's
	 * build_options sees to it), and as the user asked for more, a
	 * warning at its first dd value says so. */
	Type wide = ir_widest_arith(f);
	for (int k = 0; o->fast_math && prec[wide].eft && k < f->n; k++)
		if (type_numeric(f->ins[k].type) && prec[f->ins[k].type].eft &&
		    f->ins[k].loc.line > 0) {
			warn(f->ctx, f->ins[k].loc, "--fast-math does not reach dd "
			     "arithmetic: sums are reordered, but the kernel's "
			     "compiler is not asked for fast math, which would "
			     "turn dd's error terms into zero");
			break;
		}
	fc->options = xstrdup(t->build_options ? t->build_options(wide, o) :
	                      "");
	Stats s;
	ir_stats(f, &s);
	fc->flops = s.flops;
	fc->flops_conv = s.flops_conv;
	fc->var = calloc((size_t)(f->nvar ? f->nvar : 1), sizeof(nb_var));
	fc->pack = calloc((size_t)(f->nvar ? f->nvar : 1), sizeof(nb_pack));
	if (!fc->var || !fc->pack)
		ICE("out of memory");
	fc->nvar = f->nvar;
	/* Packed, BMEM values of one type, in declaration order, fill
	 * vectors of 4 scalars (2 dd); unpacked, each is a pack of one. */
	int open[NPREC];
	for (int p = 0; p < NPREC; p++)
		open[p] = -1;
	for (int i = 0; i < f->nvar; i++) {
		nb_var *v = &fc->var[i];
		v->name = xstrdup(f->var[i].name);
		v->role = f->var[i].role;
		v->type = (nb_prec)f->var[i].type;
		v->red = f->var[i].red;
		v->sym = f->var[i].sym;
		v->pack = v->comp = -1;
		if (v->role != NB_BMEM)
			continue;
		int per = 4 / prec[v->type].scalars;
		int p = t->pack_bmem ? open[v->type] : -1;
		if (p < 0 || fc->pack[p].width == per) {
			p = fc->npack++;
			fc->pack[p].type = v->type;
			open[v->type] = p;
		}
		v->pack = p;
		v->comp = fc->pack[p].width++;
	}
	for (int p = 0; p < fc->npack; p++) {
		nb_pack *k = &fc->pack[p];
		int scalars = k->width * prec[k->type].scalars;
		k->vwidth = scalars == 3 ? 4 : scalars;
	}
	fc->ranges = o->ranges && t->ranges;
	for (int k = 0; k < f->n; k++)
		fc->indices |= f->ins[k].op == O_IDXI ? 1 :
		               f->ins[k].op == O_IDXJ ? 2 : 0;
	/* last: the launch shape may depend on the packs (tile bytes) */
	if (t->launch)
		t->launch(f, o, fc);
	return fc;
}

void iface_put(Buf *out, const nb_iface *fc, const char *prefix)
{
	char *hdr = NULL;
	size_t hlen = 0;
	FILE *m = open_memstream(&hdr, &hlen);
	if (!m)
		ICE("open_memstream failed");
	nb_iface_print(fc, m, prefix);
	fclose(m);
	buf_puts(out, hdr);
	free(hdr);
}

void emit_imm(Buf *out, const Ins *in)
{
	double v = in->imm[0];
	if (in->type == T_INT) { /* an index's literal: an i32 */
		buf_printf(out, v < 0 ? "(%d)" : "%d", (int)v);
		return;
	}
	if (in->type == T_DD) {
		buf_puts(out, "nb_dd_make(");
		Ins h = *in;
		h.type = T_F64;
		h.imm[1] = 0;
		emit_imm(out, &h);
		buf_puts(out, ", ");
		h.imm[0] = in->imm[1];
		emit_imm(out, &h);
		buf_putc(out, ')');
		return;
	}
	const Prec *p = &prec[in->type];
	if (isnan(v)) {
		buf_printf(out, "%sNAN", p->litcast);
		return;
	}
	if (isinf(v)) {
		buf_printf(out, "%s%sINFINITY", v < 0 ? "-" : "", p->litcast);
		return;
	}
	char s[64];
	snprintf(s, sizeof s, p->litfmt, v);
	if (!strpbrk(s, ".e"))
		strcat(s, ".0");
	if (v < 0 || signbit(v))
		buf_printf(out, "(%s%s)", s, p->litsfx);
	else
		buf_printf(out, "%s%s", s, p->litsfx);
}

typedef struct Spell {
	const Spelling *sp;
	Namer *name;
	void *arg;
} Spell;

static void opnd(const Spell *sp, Buf *out, const Func *f, int k)
{
	const Ins *in = &f->ins[k];
	if (in->op == O_IMM)
		emit_imm(out, in);
	else if (sp->name)
		sp->name(out, f, k, sp->arg);
	else
		buf_printf(out, "v%d", k);
}

/* A call of pre fn sfx (nb_dd_add, native_exp, sqrtf) on the operands. */
static void call(const Spell *sp, Buf *out, const Func *f, const Ins *in,
                 const char *pre, const char *fn, const char *sfx)
{
	buf_printf(out, "%s%s%s(", pre, fn, sfx);
	for (int i = 0; i < ins_nargs(in); i++) {
		if (i)
			buf_puts(out, ", ");
		opnd(sp, out, f, in->arg[i]);
	}
	buf_putc(out, ')');
}

void emit_rhs(Buf *out, const Func *f, int k, const Spelling *spl, int fast,
              Namer *name, void *arg)
{
	const Spell spell = {spl, name, arg}, *sp = &spell;
	const Ins *in = &f->ins[k];
	const OpInfo *oi = &opinfo[in->op];
	const int *a = in->arg;
	Type t = in->type;
	Type at = ins_nargs(in) ? f->ins[a[0]].type : t;
	/* C's <math.h> names float functions with an f suffix; OpenCL
	 * overloads */
	const char *sfx = spl->fsuffix && type_numeric(t) ? prec[t].mathsfx : "";
	if (in->op == O_CVT) {
		if (t == T_DD) {
			buf_puts(out, "nb_dd_from((double)");
			opnd(sp, out, f, a[0]);
			buf_putc(out, ')');
		} else if (at == T_DD) {
			buf_printf(out, "(%s)nb_dd_to(", ctype(t));
			opnd(sp, out, f, a[0]);
			buf_putc(out, ')');
		} else {
			buf_printf(out, "(%s)", ctype(t));
			opnd(sp, out, f, a[0]);
		}
	} else if (in->op == O_SEL) {
		opnd(sp, out, f, a[0]);
		buf_puts(out, " ? ");
		opnd(sp, out, f, a[1]);
		buf_puts(out, " : ");
		opnd(sp, out, f, a[2]);
	} else if (at == T_DD && oi->dd) {
		/* dd values are structs: every operation is a library call */
		call(sp, out, f, in, "nb_dd_", oi->dd, "");
	} else if (oi->sym && oi->nargs == 1) {
		buf_puts(out, oi->sym);
		opnd(sp, out, f, a[0]);
	} else if (oi->sym) {
		opnd(sp, out, f, a[0]);
		buf_printf(out, " %s ", oi->sym);
		opnd(sp, out, f, a[1]);
	} else if (at == T_DD || !oi->fn) {
		ICE("cannot spell %s in %s", oi->name, type_short(at));
	} else if (oi->kind == K_FMA) {
		/* one fused form: a*b - c is fma(a, b, -c), c - a*b fma(-a, b, c) */
		buf_printf(out, "%s%s(", oi->fn, sfx);
		if (in->op == O_FNMA)
			buf_putc(out, '-');
		opnd(sp, out, f, a[0]);
		buf_puts(out, ", ");
		opnd(sp, out, f, a[1]);
		buf_puts(out, in->op == O_FMS ? ", -" : ", ");
		opnd(sp, out, f, a[2]);
		buf_putc(out, ')');
	} else if (in->op == O_RSQRT && !spl->rsqrt) {
		Ins one = ins_make(O_IMM, t, in->blk, -1, -1, -1);
		one.imm[0] = 1;
		emit_imm(out, &one);
		buf_puts(out, " / ");
		call(sp, out, f, in, "", "sqrt", sfx);
	} else if (spl->native && fast && t == T_F32 &&
	           (oi->props & P_NATIVE)) {
		call(sp, out, f, in, spl->native, oi->fn, "");
	} else {
		call(sp, out, f, in, "", oi->fn, sfx);
	}
}

/* ---- the reductions beyond the sum --------------------------------------
 * Each RMEM's accumulator is r, and rx beside it where its state is two
 * values: the j index of argmin/argmax (an int; -1 until a value is
 * seen), the sum s of exp(e - m) of logsumexp, whose r is the running
 * maximum m.  One update serves each step, the j-split's combine of
 * partial states and the previous launch's result: argmin takes (value,
 * j) pairs in their order (smaller value, then smaller j), so the result
 * is the same in any order of the steps, the copies or the partials;
 * logsumexp adds b exp(a) to (m, s), rescaling s when a passes m, so no
 * exp overflows.  min= and max= are fmin and fmax, which never choose a
 * NaN.  The helper functions are written out per type (red_prelude). */

static const char *red_one(Type t)
{
	return t == T_DD ? "nb_dd_make(1.0, 0.0)" : t == T_F32 ? "1.0f" : "1.0";
}

static const char *red_inf(Type t, int neg)
{
	if (t == T_DD)
		return neg ? "nb_dd_make(-INFINITY, 0.0)" :
		       "nb_dd_make(INFINITY, 0.0)";
	return neg ? "-INFINITY" : "INFINITY";
}

const char *red_identity(nb_red r, Type t)
{
	switch (r) {
	case NB_MIN: case NB_ARGMIN: return red_inf(t, 0);
	case NB_MAX: case NB_ARGMAX: case NB_LOGSUMEXP: return red_inf(t, 1);
	default: return prec[t].zero;
	}
}

int red_aux(nb_red r)
{
	return r == NB_ARGMIN || r == NB_ARGMAX ? 1 : r == NB_LOGSUMEXP ? 2 : 0;
}

const char *red_aux_identity(nb_red r, Type t)
{
	return red_aux(r) == 1 ? "-1" : prec[t].zero;
}

static const char *red_fsfx(const Spelling *sp, Type t)
{
	return sp->fsuffix && t != T_DD ? prec[t].mathsfx : "";
}

void red_prelude(Buf *out, const Func *f, const Spelling *sp)
{
	int need[NPREC][NB_NRED] = {{0}};
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			need[f->var[v].type][f->var[v].red] = 1;
	for (int t = 0; t < NPREC; t++) {
		const char *T = prec[t].ctype, *g = prec[t].tag;
		const char *x = red_fsfx(sp, (Type)t);
		int dd = t == T_DD;
		for (int a = 0; a < 2; a++) {
			nb_red r = a ? NB_ARGMAX : NB_ARGMIN;
			if (!need[t][r])
				continue;
			const char *cmp = dd ? (a ? "nb_dd_gt(a, *m)" :
			                        "nb_dd_lt(a, *m)") :
			                  a ? "a > *m" : "a < *m";
			/* selects, not a branch: the C back end's lane loop
			 * vectorizes only a body without one */
			buf_printf(out,
			           "/* %s=: the pair (value, j) with the %s value, "
			           "then the smaller j */\n"
			           "static inline void nb_%s_%s(%s *m, int *x, %s a, "
			           "int j)\n{\n"
			           "\tint t = (%s) | ((%s) & ((unsigned)j < "
			           "(unsigned)*x));\n"
			           "\t*m = t ? a : *m;\n\t*x = t ? j : *x;\n}\n",
			           nb_red_name(r), a ? "larger" : "smaller",
			           nb_red_name(r), g, T, T, cmp,
			           dd ? "nb_dd_eq(a, *m)" : "a == *m");
		}
		if (!need[t][NB_LOGSUMEXP])
			continue;
		/* one exp and selects, not two exps behind a branch: a GPU's
		 * warp then runs one straight body whichever way its lanes
		 * go (the branch cost gauss_logsumexp a third of its speed
		 * at 4 i-elements a work item on the H200), and the host's
		 * lane loop vectorizes only a body without a branch.  exp's
		 * argument is m - a or a - m exactly as the branch had it;
		 * where the branch took neither (a = -inf, or m = inf), e
		 * may be a NaN that no select keeps. */
		buf_puts(out, "/* logsumexp=: (m, s) stands for m + log(s); adds "
		         "b exp(a), rescaling s\n * when a passes m */\n");
		if (dd)
			buf_puts(out,
			         "static inline void nb_lse_dd(nb_dd *m, nb_dd *s, "
			         "nb_dd a, nb_dd b)\n{\n"
			         "\tint up = nb_dd_gt(a, *m);\n"
			         "\tint add = a.hi != -INFINITY && m->hi != INFINITY;\n"
			         "\tnb_dd e = nb_dd_exp(up ? nb_dd_sub(*m, a) : "
			         "nb_dd_sub(a, *m));\n"
			         "\tnb_dd su = m->hi == -INFINITY ? b : "
			         "nb_dd_add(nb_dd_mul(*s, e), b);\n"
			         "\tnb_dd sa = add ? nb_dd_add(*s, nb_dd_mul(b, e)) : *s;\n"
			         "\t*s = up ? su : sa;\n"
			         "\t*m = up ? a : *m;\n}\n"
			         "static inline nb_dd nb_lse_end_dd(nb_dd m, nb_dd s)\n"
			         "{\n\treturn s.hi == 0 ? nb_dd_make(-INFINITY, 0.0) : "
			         "nb_dd_add(m, nb_dd_log(s));\n}\n");
		else
			buf_printf(out,
			           "static inline void nb_lse_%s(%s *m, %s *s, %s a, "
			           "%s b)\n{\n"
			           "\tint up = a > *m;\n"
			           "\tint add = a != -INFINITY && *m != INFINITY;\n"
			           "\t%s e = exp%s(up ? *m - a : a - *m);\n"
			           "\t%s su = *m == -INFINITY ? b : *s * e + b;\n"
			           "\t%s sa = add ? *s + b * e : *s;\n"
			           "\t*s = up ? su : sa;\n"
			           "\t*m = up ? a : *m;\n}\n"
			           "static inline %s nb_lse_end_%s(%s m, %s s)\n{\n"
			           "\treturn s == 0 ? -INFINITY : m + log%s(s);\n}\n",
			           g, T, T, T, T, T, x, T, T, T, g, T, T, x);
	}
}

void red_combine(Buf *out, const Func *f, int v, const Spelling *sp,
                 const char *r, const char *rx, const char *s,
                 const char *sx)
{
	Type t = f->var[v].type;
	const char *g = prec[t].tag;
	nb_red red = f->var[v].red;
	switch (red) {
	case NB_MIN:
	case NB_MAX:
		if (sp->select_minmax && t != T_DD) {
			buf_printf(out, "%s = %s %s %s ? %s : %s;\n", r, s,
			           red == NB_MIN ? "<" : ">", r, s, r);
			break;
		}
		buf_printf(out, "%s = %s%s%s(%s, %s);\n", r,
		           t == T_DD ? "nb_dd_" : "", red == NB_MIN ? "fmin" : "fmax",
		           red_fsfx(sp, t), r, s);
		break;
	case NB_ARGMIN:
	case NB_ARGMAX:
		buf_printf(out, "nb_%s_%s(&%s, &%s, %s, %s);\n", nb_red_name(red),
		           g, r, rx, s, sx);
		break;
	case NB_LOGSUMEXP:
		buf_printf(out, "nb_lse_%s(&%s, &%s, %s, %s);\n", g, r, rx, s, sx);
		break;
	case NB_SUM:
	case NB_COUNT:
		if (t == T_DD)
			buf_printf(out, "%s = nb_dd_add(%s, %s);\n", r, r, s);
		else
			buf_printf(out, "%s = %s + %s;\n", r, r, s);
		break;
	}
}

void red_final(Buf *out, const char *ind, const Func *f, int v,
               const Spelling *sp, const char *r, const char *rx,
               const char *old)
{
	Type t = f->var[v].type;
	switch (f->var[v].red) {
	case NB_ARGMIN:
	case NB_ARGMAX:
		/* the runtime never cuts the j range of an index (there is
		 * nothing to resume from: nb_red_resumes), so accum is 0 */
		if (t == T_DD)
			buf_printf(out, "%s%s = nb_dd_make((double)%s, 0.0);\n", ind,
			           r, rx);
		else
			buf_printf(out, "%s%s = (%s)%s;\n", ind, r, ctype(t), rx);
		break;
	case NB_LOGSUMEXP:
		buf_printf(out, "%sif (accum)\n%s\t", ind, ind);
		red_combine(out, f, v, sp, r, rx, old, red_one(t));
		buf_printf(out, "%s%s = nb_lse_end_%s(%s, %s);\n", ind, r,
		           prec[t].tag, r, rx);
		break;
	default:
		buf_printf(out, "%sif (accum)\n%s\t", ind, ind);
		red_combine(out, f, v, sp, r, rx, old, NULL);
	}
}

static void sink(Buf *out, const Func *f, int k, const char *r,
                 const Spelling *sp, Namer *name, void *arg, int neg);

void emit_sink(Buf *out, const Func *f, int k, const char *r,
               const Spelling *sp, Namer *name, void *arg)
{
	sink(out, f, k, r, sp, name, arg, 0);
}

void emit_sink_neg(Buf *out, const Func *f, int k, const char *r,
                   const Spelling *sp, Namer *name, void *arg)
{
	sink(out, f, k, r, sp, name, arg, 1);
}

static void sink(Buf *out, const Func *f, int k, const char *r,
                 const Spelling *sp, Namer *name, void *arg, int neg)
{
	const Ins *in = &f->ins[k];
	/* a sum's sinks in pairs of opposite sign */
	int op = !neg ? in->op : in->op == O_ACC ? O_ACCSUB :
	         in->op == O_ACCSUB ? O_ACC : in->op == O_ACCFMA ? O_ACCFNMA :
	         in->op == O_ACCFNMA ? O_ACCFMA : -1;
	if (op < 0)
		ICE("%s has no sink of the opposite sign", opinfo[in->op].name);
	const OpInfo *oi = &opinfo[op];
	Buf a[2] = {{0}, {0}};
	for (int i = 0; i < ins_nargs(in); i++) {
		const Ins *o = &f->ins[in->arg[i]];
		if (o->op == O_IMM)
			emit_imm(&a[i], o);
		else if (name)
			name(&a[i], f, in->arg[i], arg);
		else
			buf_printf(&a[i], "v%d", in->arg[i]);
	}
	nb_red red = sink_red(in->op);
	if (red != NB_SUM) {
		/* r<rest> and its second state rx<rest> */
		char rx[80];
		snprintf(rx, sizeof rx, "%cx%s", r[0], r + 1);
		red_combine(out, f, in->var, sp, r, rx, a[0].s,
		            red == NB_LOGSUMEXP ? red_one(in->type) : a[1].s);
	} else if (in->type == T_DD && oi->dd)
		buf_printf(out, "%s = nb_dd_%s(%s, %s);\n", r, oi->dd, r, a[0].s);
	else if (in->type == T_DD)
		ICE("cannot spell %s in %s", oi->name, type_short(in->type));
	else if (oi->fn) /* r += a*b as fma(a, b, r), r -= a*b as fma(-a, b, r) */
		buf_printf(out, "%s = %s%s(%s%s, %s, %s);\n", r, oi->fn,
		           sp->fsuffix ? prec[in->type].mathsfx : "",
		           strcmp(oi->sym, "-=") == 0 ? "-" : "", a[0].s, a[1].s, r);
	else
		buf_printf(out, "%s %s %s;\n", r, oi->sym, a[0].s);
	buf_free(&a[0]);
	buf_free(&a[1]);
}
