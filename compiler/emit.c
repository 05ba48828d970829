/* emit.c: what the C-family back ends share: the interface of the kernel
 * (argument order, BMEM packs), literals that read back exactly, and the
 * spelling of each operation in C and OpenCL C, float, double or dd. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

const char *ctype(Type t)
{
	switch (t) {
	case T_F32: return "float";
	case T_F64: return "double";
	case T_DD: return "nb_dd";
	default: return "int";
	}
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
	                            t->entry_suffix));
	fc->target = xstrdup(t->name);
	fc->source = xstrdup(source ? source : "-");
	fc->flags = xstrdup(flags);
	fc->precision = o->precision;
	fc->unroll_i = f->ni;
	fc->unroll_j = f->nj;
	fc->jsplit = f->jsplit;
	if (t->launch)
		t->launch(f, o, fc);
	/* dd arithmetic dies under fast-math: its error terms become 0.  So
	 * a dd kernel is built IEEE even under --fast-math (each target's
	 * build_options sees to it), and as the user asked for more, a
	 * warning at its first dd value says so. */
	Type wide = ir_widest(f, 0);
	for (int k = 0; o->fast_math && wide == T_DD && k < f->n; k++)
		if (f->ins[k].type == T_DD && f->ins[k].loc.line > 0) {
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
	int open[3] = {-1, -1, -1};
	for (int i = 0; i < f->nvar; i++) {
		nb_var *v = &fc->var[i];
		v->name = xstrdup(f->var[i].name);
		v->role = f->var[i].role;
		v->type = (nb_prec)f->var[i].type;
		v->pack = v->comp = -1;
		if (v->role != NB_BMEM)
			continue;
		int per = v->type == NB_DD ? 2 : 4;
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
		int scalars = k->width * (k->type == NB_DD ? 2 : 1);
		k->vwidth = scalars == 3 ? 4 : scalars;
	}
	return fc;
}

void emit_imm(Buf *out, const Ins *in)
{
	double v = in->imm[0];
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
	const char *cast = in->type == T_F32 ? "" : "(double)";
	if (isnan(v)) {
		buf_printf(out, "%sNAN", cast);
		return;
	}
	if (isinf(v)) {
		buf_printf(out, "%s%sINFINITY", v < 0 ? "-" : "", cast);
		return;
	}
	char s[64];
	snprintf(s, sizeof s, in->type == T_F32 ? "%.9g" : "%.17g", v);
	if (!strpbrk(s, ".e"))
		strcat(s, ".0");
	if (v < 0 || signbit(v))
		buf_printf(out, "(%s%s)", s, in->type == T_F32 ? "f" : "");
	else
		buf_printf(out, "%s%s", s, in->type == T_F32 ? "f" : "");
}

typedef struct Spell {
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

/* C's <math.h> names float functions with an f suffix; OpenCL overloads. */
static void fn(Buf *out, const char *name, Type t, int cl)
{
	buf_printf(out, "%s%s(", name, !cl && t == T_F32 ? "f" : "");
}

void emit_rhs(Buf *out, const Func *f, int k, int cl, int fast, Namer *name,
              void *arg)
{
	const Spell spell = {name, arg}, *sp = &spell;
	const Ins *in = &f->ins[k];
	const int *a = in->arg;
	Type t = in->type;
	Type at = ins_nargs(in) ? f->ins[a[0]].type : t;
	static const char *const infix[O_COUNT] = {
		[O_ADD] = "+", [O_SUB] = "-", [O_MUL] = "*", [O_DIV] = "/",
		[O_LT] = "<", [O_LE] = "<=", [O_GT] = ">", [O_GE] = ">=",
		[O_EQ] = "==", [O_NE] = "!=", [O_AND] = "&&", [O_OR] = "||",
	};
	static const char *const ddfn[O_COUNT] = {
		[O_ADD] = "add", [O_SUB] = "sub", [O_MUL] = "mul", [O_DIV] = "div",
		[O_SQRT] = "sqrt", [O_RSQRT] = "rsqrt", [O_EXP] = "exp",
		[O_LOG] = "log", [O_SIN] = "sin", [O_COS] = "cos",
		[O_POW] = "pow", [O_FABS] = "fabs", [O_FMIN] = "fmin",
		[O_FMAX] = "fmax", [O_NEG] = "neg", [O_LT] = "lt", [O_LE] = "le",
		[O_GT] = "gt", [O_GE] = "ge", [O_EQ] = "eq", [O_NE] = "ne",
	};
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
		return;
	}
	if (in->op == O_SEL) {
		opnd(sp, out, f, a[0]);
		buf_puts(out, " ? ");
		opnd(sp, out, f, a[1]);
		buf_puts(out, " : ");
		opnd(sp, out, f, a[2]);
		return;
	}
	if (in->op == O_AND || in->op == O_OR || in->op == O_NOT ||
	    (at != T_DD && infix[in->op])) {
		if (in->op == O_NOT) {
			buf_putc(out, '!');
			opnd(sp, out, f, a[0]);
			return;
		}
		opnd(sp, out, f, a[0]);
		buf_printf(out, " %s ", infix[in->op]);
		opnd(sp, out, f, a[1]);
		return;
	}
	if (at == T_DD) {
		if (in->op == O_FMA || in->op == O_FMS || in->op == O_FNMA) {
			/* never made for dd, spelled out if a pass ever does */
			buf_printf(out, "nb_dd_%s(", in->op == O_FNMA ? "sub" :
			           in->op == O_FMA ? "add" : "sub");
			if (in->op == O_FNMA) {
				opnd(sp, out, f, a[2]);
				buf_puts(out, ", ");
			}
			buf_puts(out, "nb_dd_mul(");
			opnd(sp, out, f, a[0]);
			buf_puts(out, ", ");
			opnd(sp, out, f, a[1]);
			buf_putc(out, ')');
			if (in->op != O_FNMA) {
				buf_puts(out, ", ");
				opnd(sp, out, f, a[2]);
			}
			buf_putc(out, ')');
			return;
		}
		if (!ddfn[in->op])
			ICE("no dd form of %s", opinfo[in->op].name);
		buf_printf(out, "nb_dd_%s(", ddfn[in->op]);
		for (int i = 0; i < ins_nargs(in); i++) {
			if (i)
				buf_puts(out, ", ");
			opnd(sp, out, f, a[i]);
		}
		buf_putc(out, ')');
		return;
	}
	switch (in->op) {
	case O_NEG:
		buf_putc(out, '-');
		opnd(sp, out, f, a[0]);
		return;
	case O_FMA:
	case O_FMS:
	case O_FNMA:
		fn(out, "fma", t, cl);
		if (in->op == O_FNMA)
			buf_putc(out, '-');
		opnd(sp, out, f, a[0]);
		buf_puts(out, ", ");
		opnd(sp, out, f, a[1]);
		buf_puts(out, in->op == O_FMS ? ", -" : ", ");
		opnd(sp, out, f, a[2]);
		buf_putc(out, ')');
		return;
	case O_RSQRT:
		if (cl) {
			buf_puts(out, fast && t == T_F32 ? "native_rsqrt(" :
			         "rsqrt(");
		} else {
			buf_puts(out, t == T_F32 ? "1.0f / " : "1.0 / ");
			fn(out, "sqrt", t, cl);
		}
		opnd(sp, out, f, a[0]);
		buf_putc(out, ')');
		return;
	default: {
		static const char *const names[O_COUNT] = {
			[O_SQRT] = "sqrt", [O_EXP] = "exp", [O_LOG] = "log",
			[O_SIN] = "sin", [O_COS] = "cos", [O_POW] = "pow",
			[O_FABS] = "fabs", [O_FMIN] = "fmin", [O_FMAX] = "fmax",
		};
		if (!names[in->op])
			ICE("cannot spell %s", opinfo[in->op].name);
		if (cl && fast && t == T_F32 &&
		    (in->op == O_EXP || in->op == O_LOG || in->op == O_SIN ||
		     in->op == O_COS || in->op == O_SQRT))
			buf_puts(out, "native_");
		fn(out, names[in->op], t, cl);
		for (int i = 0; i < ins_nargs(in); i++) {
			if (i)
				buf_puts(out, ", ");
			opnd(sp, out, f, a[i]);
		}
		buf_putc(out, ')');
	}
	}
}

void emit_sink(Buf *out, const Func *f, int k, const char *r, int cl,
               Namer *name, void *arg)
{
	const Ins *in = &f->ins[k];
	Buf a = {0}, b = {0};
	for (int i = 0; i < ins_nargs(in); i++) {
		Buf *x = i ? &b : &a;
		const Ins *o = &f->ins[in->arg[i]];
		if (o->op == O_IMM)
			emit_imm(x, o);
		else if (name)
			name(x, f, in->arg[i], arg);
		else
			buf_printf(x, "v%d", in->arg[i]);
	}
	if (in->type == T_DD) {
		switch (in->op) {
		case O_ACC: buf_printf(out, "%s = nb_dd_add(%s, %s);\n", r, r, a.s); break;
		case O_ACCSUB: buf_printf(out, "%s = nb_dd_sub(%s, %s);\n", r, r, a.s); break;
		case O_ACCFMA: buf_printf(out, "%s = nb_dd_add(%s, nb_dd_mul(%s, %s));\n", r, r, a.s, b.s); break;
		default: buf_printf(out, "%s = nb_dd_sub(%s, nb_dd_mul(%s, %s));\n", r, r, a.s, b.s); break;
		}
	} else {
		const char *fm = !cl && in->type == T_F32 ? "fmaf" : "fma";
		switch (in->op) {
		case O_ACC: buf_printf(out, "%s += %s;\n", r, a.s); break;
		case O_ACCSUB: buf_printf(out, "%s -= %s;\n", r, a.s); break;
		case O_ACCFMA: buf_printf(out, "%s = %s(%s, %s, %s);\n", r, fm, a.s, b.s, r); break;
		default: buf_printf(out, "%s = %s(-%s, %s, %s);\n", r, fm, a.s, b.s, r); break;
		}
	}
	buf_free(&a);
	buf_free(&b);
}
