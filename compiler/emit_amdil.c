/* emit_amdil.c: the AMD IL back end (paper 001 programmed Cypress in IL).
 * Writes a compute shader (il_cs_2_0) in the subset and kernel ABI of
 * docs/amdil.md: a work item per i-group, records in raw UAVs read in
 * 16-byte chunks, values packed into the components of the temporaries by
 * a linear scan, and dd arithmetic expanded into the double instructions
 * of ddlib.h's algorithms, rounding for rounding. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

enum { NREG = 4096 }; /* the IL's temporaries r0..r4095 */

/* An operand: a temporary, a literal or an entry of cb1, and the first
 * of the components its value takes (a float one, a double the pair
 * from comp, a dd all four: hi in xy, lo in zw).  neg and abs are source
 * modifiers. */
typedef struct Opd {
	char file; /* 'r', 'l' or 'c' */
	int n, comp;
	int neg, abs;
	int w;     /* a temporary's components, as taken */
} Opd;

typedef struct Lit {
	uint32_t w[4];
	char kind;   /* what it was made for, for its comment: 'f', 'i', 'd', 'D' */
	double v[2];
} Lit;

typedef struct E {
	const Func *f;
	const nb_iface *fc;
	Buf code;
	int depth;               /* of whileloop and if, for indentation */
	unsigned char busy[NREG]; /* components in use, a bit each */
	int nreg, full;          /* temporaries used; ran out */
	Lit *lit;
	int nlit, caplit;
	Opd *val;                /* where each value lives */
	int *rep;                /* a load repeating an earlier one of its
	                            block (same variable and lane): that one */
	int *last;               /* last use in its own block, -1 if none */
	int *loopuse;            /* PRE values: used in BODY (1), TAIL (2) */
	int *gmask;              /* the load leading a chunk group: its mask */
	int *lead;               /* each load: the leader of its group */
	long *off;               /* each variable's offset in its record */
	size_t rec[3];           /* record bytes of LMEM, BMEM, RMEM */
	int *cbix;               /* each CONST: its entry of cb1 */
	int nchunk;              /* 16-byte chunks of the RMEM record */
	Opd *acc, *part;         /* per (lane, RMEM chunk): r and, under a
	                            j-split, the partial sums s */
	Opd *aux, *paux;         /* per (lane, variable): the second state
	                            of argmin and logsumexp, of r and of s */
	Opd gi, gl, gj;          /* i and ilast in PRE; j in the loops */
	char pool[16][80];
	int npool;
} E;

static const char comps[] = "xyzw";

/* components a value of type t takes: float and bool 1, double 2, dd 4 */
static int width(Type t) { return t == T_DD ? 4 : t == T_F64 ? 2 : 1; }

static Opd neg(Opd o)
{
	o.neg = !o.neg;
	return o;
}

static Opd absv(Opd o)
{
	o.abs = 1;
	return o;
}

/* the high and low double of a dd operand, which keep its negation */
static Opd hi(Opd o) { return o; }

static Opd lo(Opd o)
{
	o.comp = 2;
	return o;
}

static void line(E *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One line of code at the current depth. */
static void line(E *e, const char *fmt, ...)
{
	for (int i = 0; i < e->depth; i++)
		buf_puts(&e->code, "    ");
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&e->code, fmt, ap);
	va_end(ap);
	buf_putc(&e->code, '\n');
}

static char *scratch(E *e)
{
	char *s = e->pool[e->npool];
	e->npool = (e->npool + 1) % (int)NELEM(e->pool);
	return s;
}

/* How a source is read:
 *   S1  one component, replicated (a float, a bool, an integer)
 *   SD  a double of a double instruction: its pair
 *   SP  a double through a float instruction (mov, cmov_logical), into
 *       either pair of the destination: .xyxy or .zwzw
 *   SW  all four components as they are (a dd)
 * A negated float flips bit 31 of every component; a negated double or
 * dd, read as SP or SW, those of the high dwords (y and w), which is the
 * same whether the interpreter counts _neg's components before or after
 * the swizzle. */
enum { S1, SD, SP, SW };

static const char *src(E *e, Opd o, int form)
{
	char *s = scratch(e);
	size_t sz = sizeof e->pool[0];
	int n = o.file == 'r' ? snprintf(s, sz, "r%d", o.n) :
	        o.file == 'l' ? snprintf(s, sz, "l%d", o.n) :
	        snprintf(s, sz, "cb1[%d]", o.n);
	const char *sw = "", *ng = "";
	switch (form) {
	case S1:
		sw = &".x\0.y\0.z\0.w"[3 * o.comp];
		ng = "_neg(xyzw)";
		break;
	case SD:
		sw = o.comp ? ".zw" : ".xy";
		ng = "_neg(xyzw)";
		break;
	case SP:
		sw = o.comp ? ".zwzw" : ".xyxy";
		ng = "_neg(yw)";
		break;
	default:
		ng = "_neg(yw)";
	}
	if (o.abs && (form == SP || form == SW))
		ICE("no _abs of a double through a float instruction");
	snprintf(s + n, sz - (size_t)n, "%s%s%s", sw, o.neg ? ng : "",
	         o.abs ? "_abs" : "");
	return s;
}

/* "mem.xyz_": the components in mask of name */
static const char *masked(E *e, const char *name, int mask)
{
	char *s = scratch(e);
	int n = snprintf(s, sizeof e->pool[0], "%s.", name);
	for (int c = 0; c < 4; c++)
		s[n++] = mask & 1 << c ? comps[c] : '_';
	s[n] = 0;
	return s;
}

/* "r3.x_z_" */
static const char *rmask(E *e, int r, int mask)
{
	char name[16];
	snprintf(name, sizeof name, "r%d", r);
	return masked(e, name, mask);
}

/* A destination: the w components from o.comp (4: the whole register). */
static const char *dst(E *e, Opd o, int w)
{
	if (w < 4)
		return rmask(e, o.n, ((1 << w) - 1) << o.comp);
	char *s = scratch(e);
	snprintf(s, sizeof e->pool[0], "r%d", o.n);
	return s;
}

/* ---- temporaries: components in use, first fit ----------------------- */

static void mark(E *e, int r, int mask)
{
	e->busy[r] |= (unsigned char)mask;
	if (r >= e->nreg)
		e->nreg = r + 1;
}

static int ran_out(E *e)
{
	if (!e->full)
		error_file(e->f->ctx, "the kernel needs more than %d AMD IL "
		           "temporaries; unroll less", NREG);
	e->full = 1;
	return 0;
}

/* A temporary whose components in mask are free, taking them. */
static int take_mask(E *e, int mask)
{
	for (int r = 0; r < NREG; r++)
		if (!(e->busy[r] & mask)) {
			mark(e, r, mask);
			return r;
		}
	return ran_out(e);
}

/* w free components (1, 2 or 4), aligned to w: the first there are. */
static Opd take(E *e, int w)
{
	Opd o = {'r', 0, 0, 0, 0, w};
	for (int r = 0; r < NREG; r++)
		for (int c = 0; c < 4; c += w) {
			int m = ((1 << w) - 1) << c;
			if (!(e->busy[r] & m)) {
				mark(e, r, m);
				o.n = r;
				o.comp = c;
				return o;
			}
		}
	ran_out(e);
	return o;
}

static void give(E *e, Opd o)
{
	if (o.file == 'r')
		e->busy[o.n] &= (unsigned char)~(((1 << o.w) - 1) << o.comp);
}

/* Frees the temporaries of an expansion. */
static void give_all(E *e, const Opd *t, int n)
{
	for (int i = 0; i < n; i++)
		give(e, t[i]);
}
#define GIVE(e, ...) give_all(e, (Opd[]){__VA_ARGS__}, \
                              (int)(sizeof (Opd[]){__VA_ARGS__} / sizeof(Opd)))

/* ---- literals, deduplicated ------------------------------------------ */

static Opd lit(E *e, const uint32_t w[4], char kind, double v0, double v1)
{
	Opd o = {'l', 0, 0, 0, 0, 0};
	for (int i = 0; i < e->nlit; i++)
		if (memcmp(e->lit[i].w, w, sizeof e->lit[i].w) == 0) {
			o.n = i;
			return o;
		}
	if (e->nlit == e->caplit) {
		e->caplit = e->caplit ? 2 * e->caplit : 16;
		e->lit = realloc(e->lit, sizeof *e->lit * (size_t)e->caplit);
		if (!e->lit)
			ICE("out of memory");
	}
	Lit *l = &e->lit[e->nlit];
	memcpy(l->w, w, sizeof l->w);
	l->kind = kind;
	l->v[0] = v0;
	l->v[1] = v1;
	o.n = e->nlit++;
	return o;
}

static Opd lit_f(E *e, float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return lit(e, (uint32_t[4]){u, u, u, u}, 'f', x, 0);
}

static Opd lit_i(E *e, int32_t x)
{
	uint32_t u = (uint32_t)x;
	return lit(e, (uint32_t[4]){u, u, u, u}, 'i', x, 0);
}

/* a double in both pairs, low dword first */
static Opd lit_d(E *e, double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	uint32_t l = (uint32_t)u, h = (uint32_t)(u >> 32);
	return lit(e, (uint32_t[4]){l, h, l, h}, 'd', x, 0);
}

static Opd lit_dd(E *e, double x, double y)
{
	uint64_t u, v;
	memcpy(&u, &x, 8);
	memcpy(&v, &y, 8);
	return lit(e, (uint32_t[4]){(uint32_t)u, (uint32_t)(u >> 32),
	                            (uint32_t)v, (uint32_t)(v >> 32)}, 'D', x, y);
}

/* the operand of value k */
static Opd opnd(E *e, int k)
{
	const Ins *in = &e->f->ins[k];
	Opd o = {'c', 0, 0, 0, 0, 0};
	if (in->op == O_IMM) {
		switch (in->type) {
		case T_F32: return lit_f(e, (float)in->imm[0]);
		case T_F64: return lit_d(e, in->imm[0]);
		case T_DD: return lit_dd(e, in->imm[0], in->imm[1]);
		case T_INT: return lit_i(e, (int32_t)in->imm[0]);
		default: ICE("a literal of type %s", type_short(in->type));
		}
	}
	if (in->op == O_CONST) {
		o.n = e->cbix[in->var];
		return o;
	}
	return e->val[e->rep[k]];
}

/* ---- double instructions and ddlib.h's algorithms ----------------------- */

static void d2(E *e, const char *op, Opd d, Opd a)
{
	line(e, "%s %s, %s", op, dst(e, d, 2), src(e, a, SD));
}

static void d3(E *e, const char *op, Opd d, Opd a, Opd b)
{
	line(e, "%s %s, %s, %s", op, dst(e, d, 2), src(e, a, SD), src(e, b, SD));
}

static void d4(E *e, const char *op, Opd d, Opd a, Opd b, Opd c)
{
	line(e, "%s %s, %s, %s, %s", op, dst(e, d, 2), src(e, a, SD),
	     src(e, b, SD), src(e, c, SD));
}

/* a double comparison into the one component of d */
static void dcmp(E *e, const char *op, Opd d, Opd a, Opd b)
{
	line(e, "%s %s, %s, %s", op, dst(e, d, 1), src(e, a, SD), src(e, b, SD));
}

static void iop(E *e, const char *op, Opd d, Opd a, Opd b)
{
	line(e, "%s %s, %s, %s", op, dst(e, d, 1), src(e, a, S1), src(e, b, S1));
}

/* nb__finite(x): |x| < infinity, into d */
static void is_finite(E *e, Opd d, Opd x)
{
	dcmp(e, "dlt", d, absv(x), lit_d(e, INFINITY));
}

/* nb__two_sum: s + err = a + b exactly (6 operations).  s is written
 * first, so it must not be a or b. */
static void two_sum(E *e, Opd s, Opd err, Opd a, Opd b)
{
	Opd bb = take(e, 2), x = take(e, 2);
	d3(e, "dadd", s, a, b);
	d3(e, "dadd", bb, s, neg(a));
	d3(e, "dadd", x, s, neg(bb));
	d3(e, "dadd", x, a, neg(x));
	d3(e, "dadd", bb, b, neg(bb));
	d3(e, "dadd", err, x, bb);
	GIVE(e, bb, x);
}

/* nb__fast_sum: the same for |a| >= |b| (3 operations); s must not be a
 * or b, err may be either */
static void fast_sum(E *e, Opd s, Opd err, Opd a, Opd b)
{
	Opd t = take(e, 2);
	d3(e, "dadd", s, a, b);
	d3(e, "dadd", t, s, neg(a));
	d3(e, "dadd", err, b, neg(t));
	give(e, t);
}

/* nb__two_prod: p + err = a * b; p is NB__MUL_RN, fma(a, b, 0.0), the
 * form ddlib.h takes wherever the hardware fuses (OpenCL, and C built
 * with -march=native on an FMA machine) */
static void two_prod(E *e, Opd p, Opd err, Opd a, Opd b)
{
	d4(e, "dfma", p, a, b, lit_d(e, 0.0));
	d4(e, "dfma", err, a, b, neg(p));
}

/* nb__mul_d: dd a times double b into (s, err), 6 operations; a and b
 * are read before s and err are written */
static void mul_d(E *e, Opd s, Opd err, Opd a, Opd b)
{
	Opd p = take(e, 2), f = take(e, 2);
	two_prod(e, p, f, hi(a), b);
	d4(e, "dfma", f, lo(a), b, f);
	fast_sum(e, s, err, p, f);
	GIVE(e, p, f);
}

/* The special-value select that ends most dd operations:
 * R = ok ? R : (h, 0). */
static void keep_or(E *e, Opd R, Opd ok, Opd h)
{
	line(e, "cmov_logical %s, %s, %s, %s", dst(e, R, 2), src(e, ok, S1),
	     src(e, R, SP), src(e, h, SP));
	Opd z = lit_d(e, 0.0);
	line(e, "cmov_logical %s, %s, %s, %s", dst(e, lo(R), 2),
	     src(e, ok, S1), src(e, R, SW), src(e, z, SW));
}

/* The end of most dd operations: R = fast_sum(h, x), or (keep, 0) where
 * ok is false. */
static void finish(E *e, Opd R, Opd ok, Opd keep, Opd h, Opd x)
{
	fast_sum(e, R, lo(R), h, x);
	keep_or(e, R, ok, keep);
}

/* Each dd operation writes its result R (a whole temporary) only after
 * reading its operands, so R may be one of them (r = r + a). */

/* nb_dd_add, 20 operations */
static void dd_add(E *e, Opd R, Opd a, Opd b)
{
	Opd sh = take(e, 2), sl = take(e, 2), th = take(e, 2), tl = take(e, 2);
	Opd ok = take(e, 1);
	two_sum(e, sh, sl, hi(a), hi(b));
	two_sum(e, th, tl, lo(a), lo(b));
	is_finite(e, ok, sh);
	d3(e, "dadd", sl, sl, th);       /* s.lo + t.hi */
	fast_sum(e, th, sl, sh, sl);     /* v = (th, sl) */
	d3(e, "dadd", tl, tl, sl);       /* t.lo + v.lo */
	finish(e, R, ok, sh, th, tl);
	GIVE(e, sh, sl, th, tl, ok);
}

/* nb_dd_mul, 9 operations */
static void dd_mul(E *e, Opd R, Opd a, Opd b)
{
	Opd ph = take(e, 2), pl = take(e, 2), t = take(e, 2), ok = take(e, 1);
	two_prod(e, ph, pl, hi(a), hi(b));
	d3(e, "dmul", t, lo(a), lo(b));
	d4(e, "dfma", t, hi(a), lo(b), t);
	d4(e, "dfma", t, lo(a), hi(b), t);
	is_finite(e, ok, ph);
	d3(e, "dadd", t, pl, t);
	finish(e, R, ok, ph, ph, t);
	GIVE(e, ph, pl, t, ok);
}

/* nb_dd_div, 14 operations */
static void dd_div(E *e, Opd R, Opd a, Opd b)
{
	Opd q = take(e, 2), rh = take(e, 2), rl = take(e, 2);
	Opd ok = take(e, 1), ok2 = take(e, 1);
	d3(e, "ddiv", q, hi(a), hi(b));
	mul_d(e, rh, rl, b, q);
	d3(e, "dadd", rh, hi(a), neg(rh)); /* a.hi - r.hi */
	d3(e, "dadd", rl, lo(a), neg(rl)); /* a.lo - r.lo */
	d3(e, "dadd", rh, rh, rl);         /* d */
	d3(e, "ddiv", rh, rh, hi(b));      /* d / b.hi */
	is_finite(e, ok, q);
	is_finite(e, ok2, hi(b));
	iop(e, "iand", ok, ok, ok2);
	finish(e, R, ok, q, q, rh);
	GIVE(e, q, rh, rl, ok, ok2);
}

/* a.hi > 0 && a.hi < INFINITY, into ok (ok2 a scratch component) */
static void positive(E *e, Opd ok, Opd ok2, Opd h)
{
	dcmp(e, "dlt", ok, lit_d(e, 0.0), h);
	dcmp(e, "dlt", ok2, h, lit_d(e, INFINITY));
	iop(e, "iand", ok, ok, ok2);
}

/* nb_dd_sqrt, 8 operations */
static void dd_sqrt(E *e, Opd R, Opd a)
{
	Opd s = take(e, 2), rem = take(e, 2), ok = take(e, 1), ok2 = take(e, 1);
	d2(e, "dsqrt", s, hi(a));
	d4(e, "dfma", rem, neg(s), s, hi(a)); /* fma(-s, s, a.hi) */
	d3(e, "dadd", rem, rem, lo(a));
	d3(e, "dmul", rem, rem, lit_d(e, 0.5));
	d3(e, "ddiv", rem, rem, s);
	positive(e, ok, ok2, hi(a));
	finish(e, R, ok, s, s, rem);
	GIVE(e, s, rem, ok, ok2);
}

/* nb_dd_rsqrt, 21 operations */
static void dd_rsqrt(E *e, Opd R, Opd a)
{
	Opd y = take(e, 2), t = take(e, 4), x = take(e, 2);
	Opd ok = take(e, 1), ok2 = take(e, 1);
	d2(e, "dsqrt", y, hi(a));
	d3(e, "ddiv", y, lit_d(e, 1.0), y);
	mul_d(e, t, lo(t), a, y);
	mul_d(e, t, lo(t), t, y);
	d3(e, "dadd", x, lit_d(e, 1.0), neg(t));  /* 1.0 - t.hi */
	d3(e, "dadd", x, x, neg(lo(t)));          /* - t.lo */
	d3(e, "dmul", x, lit_d(e, 0.5), x);
	d3(e, "dmul", x, y, x);
	positive(e, ok, ok2, hi(a));
	finish(e, R, ok, y, y, x);
	GIVE(e, y, t, x, ok, ok2);
}

/* nb_dd_lt and friends into the one component d: hi decides, lo breaks
 * a tie.  d is written first, so it must not be a or b. */
static void dd_cmp(E *e, int op, Opd d, Opd a, Opd b)
{
	if (op == O_GT || op == O_GE) {
		Opd t = a;
		a = b;
		b = t;
		op = op == O_GT ? O_LT : O_LE;
	}
	Opd t = take(e, 1), u = take(e, 1);
	switch (op) {
	case O_LT:
	case O_LE:
		dcmp(e, "dlt", d, hi(a), hi(b));
		dcmp(e, "deq", t, hi(a), hi(b));
		if (op == O_LT)
			dcmp(e, "dlt", u, lo(a), lo(b));
		else
			dcmp(e, "dge", u, lo(b), lo(a));
		iop(e, "iand", t, t, u);
		iop(e, "ior", d, d, t);
		break;
	case O_EQ:
		dcmp(e, "deq", d, hi(a), hi(b));
		dcmp(e, "deq", t, lo(a), lo(b));
		iop(e, "iand", d, d, t);
		break;
	case O_NE: /* !nb_dd_eq: either word differs (or is NaN) */
		dcmp(e, "dne", d, hi(a), hi(b));
		dcmp(e, "dne", t, lo(a), lo(b));
		iop(e, "ior", d, d, t);
		break;
	default:
		ICE("no dd comparison %s", opinfo[op].name);
	}
	GIVE(e, t, u);
}

/* nb_dd_fmin (fmax: gt): b.hi != b.hi || a < b ? a : b */
static void dd_minmax(E *e, int op, Opd R, Opd a, Opd b)
{
	Opd c = take(e, 1), t = take(e, 1);
	dcmp(e, "dne", c, hi(b), hi(b));
	dd_cmp(e, op == O_FMIN ? O_LT : O_GT, t, a, b);
	iop(e, "ior", c, c, t);
	line(e, "cmov_logical %s, %s, %s, %s", dst(e, R, 4), src(e, c, S1),
	     src(e, a, SW), src(e, b, SW));
	GIVE(e, c, t);
}

/* ---- one instruction of the IR ----------------------------------------- */

/* Whether the IL of instruction k is one instruction, which reads its
 * sources before it writes: its result may then take the place of an
 * operand that dies there. */
static int single(const Func *f, const Ins *in)
{
	Type at = ins_nargs(in) ? f->ins[in->arg[0]].type : in->type;
	if (in->op == O_CVT)
		return in->type != T_DD && !(at == T_DD && in->type == T_F32);
	if (at == T_DD)
		return in->op == O_NEG || in->op == O_SEL;
	if (in->type == T_DD)
		return in->op == O_SEL;
	if (at == T_F64 && (in->op == O_RSQRT || in->op == O_FABS))
		return 0;
	return in->op != O_EXP && in->op != O_LOG && in->op != O_POW;
}

static void cvt(E *e, Opd d, Type t, Opd a, Type at)
{
	if (t == T_DD) {
		if (at == T_F32)
			line(e, "ftod %s, %s", dst(e, d, 2), src(e, a, S1));
		else
			line(e, "mov %s, %s", dst(e, d, 2), src(e, a, SP));
		line(e, "mov %s, %s", dst(e, lo(d), 2), src(e, lit_d(e, 0.0), SW));
	} else if (at == T_DD && t == T_F64) {
		d3(e, "dadd", d, hi(a), lo(a)); /* nb_dd_to */
	} else if (at == T_DD) {
		Opd x = take(e, 2);
		d3(e, "dadd", x, hi(a), lo(a));
		line(e, "dtof %s, %s", dst(e, d, 1), src(e, x, SD));
		give(e, x);
	} else if (t == T_F64) {
		line(e, "ftod %s, %s", dst(e, d, 2), src(e, a, S1));
	} else {
		line(e, "dtof %s, %s", dst(e, d, 1), src(e, a, SD));
	}
}

/* Float instructions: one component each, and bools (0 or ~0). */
static void op_f32(E *e, const Ins *in, Opd d, Opd a, Opd b, Opd c)
{
	const char *op = opinfo[in->op].il; /* its row in ops.h */
	const char *D = dst(e, d, 1);
	switch (in->op) {
	case O_NEG:
		line(e, "mov %s, %s", D, src(e, neg(a), S1));
		break;
	case O_FABS:
		line(e, "mov %s, %s", D, src(e, absv(a), S1));
		break;
	case O_LE:
	case O_GT:
		line(e, "%s %s, %s, %s", op, D, src(e, b, S1), src(e, a, S1));
		break;
	case O_FMA:
	case O_FMS:
	case O_FNMA:
		line(e, "fma %s, %s, %s, %s", D,
		     src(e, in->op == O_FNMA ? neg(a) : a, S1), src(e, b, S1),
		     src(e, in->op == O_FMS ? neg(c) : c, S1));
		break;
	case O_SEL:
		line(e, "cmov_logical %s, %s, %s, %s", D, src(e, a, S1),
		     src(e, b, S1), src(e, c, S1));
		break;
	/* exp_vec and log_vec work in base 2: e^x = 2^(x log2 e), ln x =
	 * log2(x) ln 2, the constants rounded to float (an approximation,
	 * as the transcendentals are; docs/amdil.md) */
	case O_EXP:
		line(e, "mul %s, %s, %s", D, src(e, a, S1),
		     src(e, lit_f(e, (float)1.4426950408889634), S1));
		line(e, "exp_vec %s, %s", D, src(e, d, S1));
		break;
	case O_LOG:
		line(e, "log_vec %s, %s", D, src(e, a, S1));
		line(e, "mul %s, %s, %s", D, src(e, d, S1),
		     src(e, lit_f(e, (float)0.6931471805599453), S1));
		break;
	case O_POW: /* 2^(b log2 a): for a > 0 only (docs/amdil.md) */
		line(e, "log_vec %s, %s", D, src(e, a, S1));
		line(e, "mul %s, %s, %s", D, src(e, b, S1), src(e, d, S1));
		line(e, "exp_vec %s, %s", D, src(e, d, S1));
		break;
	default:
		if (!op)
			ICE("no float form of %s", opinfo[in->op].name);
		if (ins_nargs(in) == 1)
			line(e, "%s %s, %s", op, D, src(e, a, S1));
		else
			line(e, "%s %s, %s, %s", op, D, src(e, a, S1),
			     src(e, b, S1));
	}
}

static void op_f64(E *e, const Ins *in, Opd d, Opd a, Opd b, Opd c)
{
	switch (in->op) {
	case O_NEG:
		line(e, "mov %s, %s", dst(e, d, 2), src(e, neg(a), SP));
		break;
	case O_FABS: /* the low dword as it is, bit 63 cleared */
		line(e, "mov %s, %s", dst(e, d, 1), src(e, a, S1));
		d.comp++;
		a.comp++;
		iop(e, "iand", d, a, lit_i(e, 0x7fffffff));
		break;
	case O_ADD: d3(e, "dadd", d, a, b); break;
	case O_SUB: d3(e, "dadd", d, a, neg(b)); break;
	case O_MUL: d3(e, "dmul", d, a, b); break;
	case O_DIV: d3(e, "ddiv", d, a, b); break;
	case O_FMA: d4(e, "dfma", d, a, b, c); break;
	case O_FMS: d4(e, "dfma", d, a, b, neg(c)); break;
	case O_FNMA: d4(e, "dfma", d, neg(a), b, c); break;
	case O_SQRT: d2(e, "dsqrt", d, a); break;
	case O_RSQRT: /* 1 / sqrt(a), as C spells it */
		d2(e, "dsqrt", d, a);
		d3(e, "ddiv", d, lit_d(e, 1.0), d);
		break;
	case O_FMIN: d3(e, "dmin", d, a, b); break;
	case O_FMAX: d3(e, "dmax", d, a, b); break;
	case O_SEL:
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, d, 2), src(e, a, S1),
		     src(e, b, SP), src(e, c, SP));
		break;
	default:
		ICE("no double form of %s", opinfo[in->op].name);
	}
}

static void op_dd(E *e, const Ins *in, Opd d, Opd a, Opd b, Opd c)
{
	switch (in->op) {
	case O_NEG:
		line(e, "mov %s, %s", dst(e, d, 4), src(e, neg(a), SW));
		break;
	case O_ADD: dd_add(e, d, a, b); break;
	case O_SUB: dd_add(e, d, a, neg(b)); break; /* nb_dd_add(a, -b) */
	case O_MUL: dd_mul(e, d, a, b); break;
	case O_DIV: dd_div(e, d, a, b); break;
	case O_SQRT: dd_sqrt(e, d, a); break;
	case O_RSQRT: dd_rsqrt(e, d, a); break;
	case O_FMIN:
	case O_FMAX: dd_minmax(e, in->op, d, a, b); break;
	case O_FABS: { /* signbit(a.hi) ? -a : a */
		Opd s = take(e, 1), h = a;
		h.comp = 1;
		iop(e, "ilt", s, h, lit_i(e, 0));
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, d, 4),
		     src(e, s, S1), src(e, neg(a), SW), src(e, a, SW));
		give(e, s);
		break;
	}
	case O_SEL:
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, d, 4), src(e, a, S1),
		     src(e, b, SW), src(e, c, SW));
		break;
	default:
		ICE("no dd form of %s", opinfo[in->op].name);
	}
}

/* One sink: the accumulator A (r, or s under a j-split) updated in list
 * order, as emit_sink's statements. */
static void sink(E *e, const Ins *in, Opd A, Opd a, Opd b)
{
	int sub = in->op == O_ACCSUB || in->op == O_ACCFNMA;
	if (in->type == T_DD) {
		if (in->op != O_ACC && in->op != O_ACCSUB)
			ICE("no dd form of %s", opinfo[in->op].name);
		dd_add(e, A, A, sub ? neg(a) : a);
	} else if (in->type == T_F64) {
		if (in->op == O_ACC || in->op == O_ACCSUB)
			d3(e, "dadd", A, A, sub ? neg(a) : a);
		else
			d4(e, "dfma", A, sub ? neg(a) : a, b, A);
	} else if (in->op == O_ACC || in->op == O_ACCSUB) {
		line(e, "%s %s, %s, %s", sub ? "sub" : "add", dst(e, A, 1),
		     src(e, A, S1), src(e, a, S1));
	} else { /* r += a*b as fma(a, b, r), r -= a*b as fma(-a, b, r) */
		line(e, "fma %s, %s, %s, %s", dst(e, A, 1),
		     src(e, sub ? neg(a) : a, S1), src(e, b, S1), src(e, A, S1));
	}
}

/* The accumulator of (var v, lane), r or s: a component or pair of the
 * temporary of its RMEM chunk, at its place in the record shifted by
 * the chunk's comp. */
static Opd accum(E *e, const Opd *set, int v, int lane)
{
	Opd o = set[lane * e->nchunk + e->off[v] / 16];
	o.comp += (int)(e->off[v] % 16) / 4;
	return o;
}

/* ---- the reductions beyond the sum (emit.c says how) ------------------- */

/* mov of a value of type t */
static void movv(E *e, Opd d, Opd a, Type t)
{
	line(e, "mov %s, %s", dst(e, d, width(t)),
	     src(e, a, t == T_DD ? SW : t == T_F64 ? SP : S1));
}

static void cmovv(E *e, Opd d, Opd c, Opd a, Opd b, Type t)
{
	int f = t == T_DD ? SW : t == T_F64 ? SP : S1;
	line(e, "cmov_logical %s, %s, %s, %s", dst(e, d, width(t)),
	     src(e, c, S1), src(e, a, f), src(e, b, f));
}

static Opd lit_t(E *e, Type t, double x)
{
	return t == T_DD ? lit_dd(e, x, 0) : t == T_F64 ? lit_d(e, x) :
	       lit_f(e, (float)x);
}

/* d = (a op b) for op O_LT, O_GT or O_EQ in type t */
static void cmpv(E *e, int op, Opd d, Opd a, Opd b, Type t)
{
	if (t == T_DD)
		dd_cmp(e, op, d, a, b);
	else if (t == T_F64)
		dcmp(e, op == O_EQ ? "deq" : "dlt", d, op == O_GT ? b : a,
		     op == O_GT ? a : b);
	else
		line(e, "%s %s, %s, %s", op == O_EQ ? "eq" : "lt", dst(e, d, 1),
		     src(e, op == O_GT ? b : a, S1), src(e, op == O_GT ? a : b, S1));
}

/* An i32 to a double, exactly: its high and low 16 bits are floats. */
static void itod(E *e, Opd d, Opd i)
{
	Opd h = take(e, 1), l = take(e, 1), dh = take(e, 2), dl = take(e, 2);
	iop(e, "ishr", h, i, lit_i(e, 16));
	iop(e, "iand", l, i, lit_i(e, 0xffff));
	line(e, "itof %s, %s", dst(e, h, 1), src(e, h, S1));
	line(e, "itof %s, %s", dst(e, l, 1), src(e, l, S1));
	line(e, "ftod %s, %s", dst(e, dh, 2), src(e, h, S1));
	line(e, "ftod %s, %s", dst(e, dl, 2), src(e, l, S1));
	d4(e, "dfma", d, dh, lit_d(e, 65536.0), dl);
	GIVE(e, h, l, dh, dl);
}

/* An i32 to type t: a float rounds as C's (float) does. */
static void itot(E *e, Opd d, Opd i, Type t)
{
	if (t == T_F32) {
		line(e, "itof %s, %s", dst(e, d, 1), src(e, i, S1));
		return;
	}
	itod(e, d, i);
	if (t == T_DD)
		line(e, "mov %s, %s", dst(e, lo(d), 2), src(e, lit_d(e, 0.0), SW));
}

/* The state (A, X) of RMEM v takes in (a, b): a value, or a partial
 * state, as emit.c's red_combine (X: the j index, or the sum of exp). */
static void red_update(E *e, int v, Opd A, Opd X, Opd a, Opd b)
{
	Type t = e->f->var[v].type;
	nb_red red = e->f->var[v].red;
	switch (red) {
	case NB_MIN:
	case NB_MAX:
		if (t == T_DD)
			dd_minmax(e, red == NB_MIN ? O_FMIN : O_FMAX, A, A, a);
		else if (t == T_F64)
			d3(e, red == NB_MIN ? "dmin" : "dmax", A, A, a);
		else
			line(e, "%s %s, %s, %s", red == NB_MIN ? "min" : "max",
			     dst(e, A, 1), src(e, A, S1), src(e, a, S1));
		break;
	case NB_ARGMIN:
	case NB_ARGMAX: { /* a before A, or equal with the smaller j */
		Opd c = take(e, 1), q = take(e, 1), u = take(e, 1);
		cmpv(e, red == NB_ARGMIN ? O_LT : O_GT, c, a, A, t);
		cmpv(e, O_EQ, q, a, A, t);
		iop(e, "ult", u, b, X);
		iop(e, "iand", q, q, u);
		iop(e, "ior", c, c, q);
		cmovv(e, A, c, a, A, t);
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, X, 1), src(e, c, S1),
		     src(e, b, S1), src(e, X, S1));
		GIVE(e, c, q, u);
		break;
	}
	case NB_LOGSUMEXP: { /* float only (refuse): exp as O_EXP spells it */
		Opd c = take(e, 1), s1 = take(e, 1), s2 = take(e, 1),
		    ok = take(e, 1), w = take(e, 1);
		Opd l2e = lit_f(e, (float)1.4426950408889634);
		line(e, "lt %s, %s, %s", dst(e, c, 1), src(e, A, S1), src(e, a, S1));
		line(e, "sub %s, %s, %s", dst(e, w, 1), src(e, A, S1), src(e, a, S1));
		line(e, "mul %s, %s, %s", dst(e, w, 1), src(e, w, S1), src(e, l2e, S1));
		line(e, "exp_vec %s, %s", dst(e, w, 1), src(e, w, S1));
		line(e, "mad %s, %s, %s, %s", dst(e, s1, 1), src(e, X, S1),
		     src(e, w, S1), src(e, b, S1));
		line(e, "sub %s, %s, %s", dst(e, w, 1), src(e, a, S1), src(e, A, S1));
		line(e, "mul %s, %s, %s", dst(e, w, 1), src(e, w, S1), src(e, l2e, S1));
		line(e, "exp_vec %s, %s", dst(e, w, 1), src(e, w, S1));
		line(e, "mad %s, %s, %s, %s", dst(e, s2, 1), src(e, b, S1),
		     src(e, w, S1), src(e, X, S1));
		line(e, "ne %s, %s, %s", dst(e, ok, 1), src(e, a, S1),
		     src(e, lit_f(e, -INFINITY), S1));
		line(e, "ne %s, %s, %s", dst(e, w, 1), src(e, A, S1),
		     src(e, lit_f(e, INFINITY), S1));
		iop(e, "iand", ok, ok, w);
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, s2, 1), src(e, ok, S1),
		     src(e, s2, S1), src(e, X, S1));
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, X, 1), src(e, c, S1),
		     src(e, s1, S1), src(e, s2, S1));
		line(e, "cmov_logical %s, %s, %s, %s", dst(e, A, 1), src(e, c, S1),
		     src(e, a, S1), src(e, A, S1));
		GIVE(e, c, s1, s2, ok, w);
		break;
	}
	default:
		ICE("red_update of a sum");
	}
}

/* The second states beside set (aux or paux): one per (lane, RMEM). */
static Opd *take_aux(E *e)
{
	const Func *f = e->f;
	Opd *x = calloc((size_t)(f->ni * f->nvar) + 1, sizeof *x);
	if (!x)
		ICE("out of memory");
	for (int l = 0; l < f->ni; l++)
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_RMEM && red_aux(f->var[v].red))
				x[l * f->nvar + v] = take(e, red_aux(f->var[v].red) == 1 ?
				                          1 : width(f->var[v].type));
	return x;
}

static void give_aux(E *e, Opd *x)
{
	for (int i = 0; x && i < e->f->ni * e->f->nvar; i++)
		if (x[i].w)
			give(e, x[i]);
	free(x);
}

/* The identities of the reductions beyond the sum, after set_acc's 0. */
static void red_init(E *e, const Opd *set, const Opd *aux)
{
	const Func *f = e->f;
	for (int l = 0; l < f->ni; l++)
		for (int v = 0; v < f->nvar; v++) {
			nb_red red = f->var[v].red;
			Type t = f->var[v].type;
			if (f->var[v].role != NB_RMEM || red <= NB_COUNT)
				continue;
			int up = red == NB_MIN || red == NB_ARGMIN;
			movv(e, accum(e, set, v, l), lit_t(e, t, up ? INFINITY :
			                                   -INFINITY), t);
			if (red_aux(red) == 1)
				line(e, "mov %s, %s", dst(e, aux[l * f->nvar + v], 1),
				     src(e, lit_i(e, -1), S1));
			else if (red_aux(red))
				movv(e, aux[l * f->nvar + v], lit_t(e, t, 0), t);
		}
}

static int is_load(int op) { return op == O_LDI || op == O_LDJ; }

/* the components of its 16-byte chunk variable v takes */
static int var_mask(E *e, int v)
{
	int c = (int)(e->off[v] % 16) / 4;
	return ((1 << width(e->f->var[v].type)) - 1) << c;
}

/* Loads the chunk of load k's group (its variable's 16 bytes, for its
 * lane) into the components its group uses: one uav_raw_load_id. */
static void load(E *e, int k)
{
	const Func *f = e->f;
	const Ins *in = &f->ins[k];
	int mask = e->gmask[k];
	long chunk = e->off[in->var] / 16;
	int r = take_mask(e, mask);
	Opd t = take(e, 1);
	if (in->op == O_LDI) {
		/* lanes past ilast read element ilast */
		Opd i = e->gi;
		if (in->lane) {
			iop(e, "iadd", t, i, lit_i(e, in->lane));
			i = t;
		}
		iop(e, "imin", t, i, e->gl);
		i = t;
		if (chunk)
			line(e, "imad %s, %s, %s, %s", dst(e, t, 1), src(e, i, S1),
			     src(e, lit_i(e, (int32_t)e->rec[NB_LMEM]), S1),
			     src(e, lit_i(e, (int32_t)(16 * chunk)), S1));
		else
			iop(e, "imul", t, i, lit_i(e, (int32_t)e->rec[NB_LMEM]));
	} else {
		/* j-lane L of a step reads element j + L*T */
		long at = (long)in->lane * f->jsplit * (long)e->rec[NB_BMEM] +
		          16 * chunk;
		if (at)
			line(e, "imad %s, %s, %s, %s", dst(e, t, 1), src(e, e->gj, S1),
			     src(e, lit_i(e, (int32_t)e->rec[NB_BMEM]), S1),
			     src(e, lit_i(e, (int32_t)at), S1));
		else
			iop(e, "imul", t, e->gj, lit_i(e, (int32_t)e->rec[NB_BMEM]));
	}
	line(e, "uav_raw_load_id(%d) %s, %s", in->op == O_LDI ? 0 : 1,
	     rmask(e, r, mask), src(e, t, S1));
	give(e, t);
	e->val[k] = (Opd){'r', r, 0, 0, 0, 4};
}

/* A comparison of doubles (dlt, deq, dne, dge) or of indices (ilt, ...):
 * <= and > are >= and < with the operands swapped. */
static void cmp_id(E *e, int ints, int op, Opd d, Opd a, Opd b)
{
	int sw = op == O_LE || op == O_GT;
	const char *nm = op == O_LT || op == O_GT ? "lt" : op == O_EQ ? "eq" :
	                 op == O_NE ? "ne" : "ge";
	char ins[8];
	snprintf(ins, sizeof ins, "%c%s", ints ? 'i' : 'd', nm);
	if (ints)
		iop(e, ins, d, sw ? b : a, sw ? a : b);
	else
		dcmp(e, ins, d, sw ? b : a, sw ? a : b);
}

static void emit_ins(E *e, int k)
{
	const Func *f = e->f;
	const Ins *in = &f->ins[k];
	if (in->op == O_IMM || in->op == O_CONST || e->rep[k] != k)
		return; /* spelled where used */
	if (is_load(in->op)) {
		/* each value of the group where the record has it */
		if (e->lead[k] == k)
			load(e, k);
		e->val[k] = e->val[e->lead[k]];
		e->val[k].comp = (int)(e->off[in->var] % 16) / 4;
		e->val[k].w = width(in->type);
		goto done;
	}
	Opd a[3] = {{0}, {0}, {0}};
	int dying[3], nd = 0;
	for (int i = 0; i < ins_nargs(in); i++) {
		int r = e->rep[in->arg[i]];
		a[i] = opnd(e, in->arg[i]);
		const Ins *o = &f->ins[r];
		int dies = o->op != O_IMM && o->op != O_CONST &&
		           o->blk == in->blk && e->last[r] == k && !e->loopuse[r];
		for (int j = 0; j < nd; j++)
			dies &= dying[j] != r;
		if (dies)
			dying[nd++] = r;
	}
	if (opinfo[in->op].props & P_SINK) {
		const Opd *set = f->jsplit > 1 ? e->part : e->acc;
		const Opd *aux = f->jsplit > 1 ? e->paux : e->aux;
		if (sink_red(in->op) != NB_SUM)
			red_update(e, in->var, accum(e, set, in->var, in->lane),
			           aux[in->lane * f->nvar + in->var], a[0],
			           in->op == O_ACCLSE ? lit_f(e, 1) : a[1]);
		else
			sink(e, in, accum(e, set, in->var, in->lane), a[0], a[1]);
		for (int j = 0; j < nd; j++)
			give(e, e->val[dying[j]]);
		return;
	}
	int one = single(f, in);
	for (int j = 0; one && j < nd; j++)
		give(e, e->val[dying[j]]);
	Opd d = take(e, width(in->type));
	e->val[k] = d;
	Type at = ins_nargs(in) ? f->ins[in->arg[0]].type : in->type;
	size_t before = e->code.len;
	if (in->op == O_IDXI) { /* ibase + g*NI + lane, as the loads' i */
		line(e, "imad %s, vAbsTidFlat.x, %s, cb0[0].z", dst(e, d, 1),
		     src(e, lit_i(e, f->ni), S1));
		if (in->lane)
			iop(e, "iadd", d, d, lit_i(e, in->lane));
	} else if (in->op == O_IDXJ) { /* j-lane L of a step: j + L*T */
		if (in->lane)
			iop(e, "iadd", d, e->gj, lit_i(e, in->lane * f->jsplit));
		else
			line(e, "mov %s, %s", dst(e, d, 1), src(e, e->gj, S1));
	} else if (in->op == O_CVT && at == T_INT)
		itot(e, d, a[0], in->type);
	else if (in->op == O_CVT)
		cvt(e, d, in->type, a[0], at);
	else if (opinfo[in->op].kind == K_CMP && at == T_DD)
		dd_cmp(e, in->op, d, a[0], a[1]);
	else if (opinfo[in->op].kind == K_CMP && (at == T_F64 || at == T_INT))
		cmp_id(e, at == T_INT, in->op, d, a[0], a[1]);
	else if (in->type == T_DD)
		op_dd(e, in, d, a[0], a[1], a[2]);
	else if (in->type == T_F64)
		op_f64(e, in, d, a[0], a[1], a[2]);
	else
		op_f32(e, in, d, a[0], a[1], a[2]);
	/* the user's name for the value, on its last line */
	if (in->name && e->code.len > before) {
		e->code.len--;
		buf_printf(&e->code, " ; %s\n", in->name);
	}
	for (int j = 0; !one && j < nd; j++)
		give(e, e->val[dying[j]]);
done:
	if (e->last[k] < 0 && !e->loopuse[k])
		give(e, e->val[k]); /* never read */
}

static void block(E *e, int blk)
{
	for (int k = 0; k < e->f->n; k++)
		if (e->f->ins[k].blk == blk)
			emit_ins(e, k);
}

/* ---- what the emission needs to know first ----------------------------- */

/* Repeated loads, chunk groups, last uses. */
static void analyse(E *e)
{
	const Func *f = e->f;
	int n = f->n, lanes = 1;
	for (int k = 0; k < n; k++)
		if (is_load(f->ins[k].op) && f->ins[k].lane + 1 > lanes)
			lanes = f->ins[k].lane + 1;
	/* first load of (block, variable, lane), and of (block, role, lane,
	 * chunk); a variable's chunk is off / 16 < nvar */
	size_t nkey = (size_t)3 * (size_t)(f->nvar + 1) * (size_t)lanes;
	int *firstv = malloc(sizeof(int) * nkey);
	int *firstc = malloc(sizeof(int) * nkey);
	if (!firstv || !firstc)
		ICE("out of memory");
	for (size_t i = 0; i < nkey; i++)
		firstv[i] = firstc[i] = -1;
	for (int k = 0; k < n; k++) {
		const Ins *in = &f->ins[k];
		e->rep[k] = k;
		e->lead[k] = -1;
		e->last[k] = -1;
		e->loopuse[k] = 0;
		if (!is_load(in->op))
			continue;
		size_t kv = ((size_t)in->blk * (size_t)(f->nvar + 1) +
		             (size_t)in->var) * (size_t)lanes + (size_t)in->lane;
		if (firstv[kv] >= 0) {
			e->rep[k] = firstv[kv];
			continue;
		}
		firstv[kv] = k;
		/* LMEM and BMEM chunks apart: a block loads one role */
		size_t kc = ((size_t)in->blk * (size_t)(f->nvar + 1) +
		             (size_t)(e->off[in->var] / 16)) * (size_t)lanes +
		            (size_t)in->lane;
		if (firstc[kc] < 0) {
			firstc[kc] = k;
			e->gmask[k] = 0;
		}
		e->lead[k] = firstc[kc];
		e->gmask[firstc[kc]] |= var_mask(e, in->var);
	}
	free(firstv);
	free(firstc);
	for (int k = 0; k < n; k++) {
		const Ins *in = &f->ins[k];
		for (int i = 0; i < ins_nargs(in); i++) {
			int r = e->rep[in->arg[i]];
			if (f->ins[r].blk == in->blk)
				e->last[r] = k;
			else
				e->loopuse[r] |= in->blk == B_BODY ? 1 : 2;
		}
	}
}

/* The precision an instruction computes in, as a bit of ops.h's ilp. */
static int form_of(const Func *f, const Ins *in)
{
	Type t = ins_nargs(in) && in->op != O_SEL ? f->ins[in->arg[0]].type :
	         in->type;
	return t == T_DD ? IL_DD : t == T_F64 ? IL_D : IL_F;
}

/* The operations without an IL form, each reported once at its source
 * position however often unrolling copied it. */
typedef struct Refusal {
	Loc loc;
	int op;
	int form;
} Refusal;

static int by_place(const void *x, const void *y)
{
	const Refusal *a = x, *b = y;
	if (a->loc.off != b->loc.off)
		return a->loc.off < b->loc.off ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	return a->form < b->form ? -1 : a->form > b->form;
}

static int refuse(const Func *f)
{
	Refusal *r = malloc(sizeof *r * (size_t)(f->n ? f->n : 1));
	if (!r)
		ICE("out of memory");
	int n = 0;
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		int form = form_of(f, in);
		int ilp = opinfo[in->op].ilp;
		if (!(ilp & form)) /* none at all: said as such */
			r[n++] = (Refusal){in->loc, in->op, ilp ? form : IL_F};
	}
	qsort(r, (size_t)n, sizeof *r, by_place);
	for (int i = 0; i < n; i++) {
		if (i && by_place(&r[i], &r[i - 1]) == 0)
			continue;
		const OpInfo *oi = &opinfo[r[i].op];
		const char *fn = oi->call ? oi->call : r[i].op == O_IDXI ?
		                 "the index i" : r[i].op == O_IDXJ ?
		                 "the index j" : oi->props & P_SINK ? oi->sym :
		                 oi->name;
		const char *msg =
			r[i].form == IL_DD ?
			cprintf(f->ctx, "%s in dd has no AMD IL form (its ddlib.h "
			        "algorithm is not expanded into IL); use the c or "
			        "opencl target", fn) :
			r[i].form == IL_D ?
			cprintf(f->ctx, "%s in double has no AMD IL form; use "
			        "float, or the c or opencl target", fn) :
			cprintf(f->ctx, "%s has no AMD IL form; use the c or opencl "
			        "target", fn);
		if (r[i].loc.line > 0)
			error(f->ctx, r[i].loc, "%s", msg);
		else
			error_file(f->ctx, "%s", msg);
	}
	free(r);
	return n > 0;
}

/* ---- the kernel ---------------------------------------------------------- */

/* "xi +0, yi +4" */
static void record_text(E *e, Buf *out, nb_role role)
{
	int first = 1;
	for (int v = 0; v < e->f->nvar; v++)
		if (e->f->var[v].role == role) {
			buf_printf(out, "%s%s +%ld", first ? "" : ", ",
			           e->f->var[v].name, e->off[v]);
			first = 0;
		}
}

static int chunk_mask(E *e, int c)
{
	int mask = 0;
	for (int v = 0; v < e->f->nvar; v++)
		if (e->f->var[v].role == NB_RMEM && e->off[v] / 16 == c)
			mask |= var_mask(e, v);
	return mask;
}

/* Each accumulator set: per (lane, chunk) the chunk's RMEM values in one
 * temporary, in the record's order from component comp (a shift that
 * keeps doubles in pairs), so a store is one swizzle away.  Results of
 * one float pack four lanes into one temporary. */
static Opd *take_accs(E *e)
{
	int n = e->f->ni * e->nchunk;
	Opd *set = calloc((size_t)n + 1, sizeof *set);
	if (!set)
		ICE("out of memory");
	for (int i = 0; i < n; i++) {
		int m = chunk_mask(e, i % e->nchunk), step = 1;
		for (int v = 0; v < e->f->nvar; v++)
			if (e->f->var[v].role == NB_RMEM &&
			    e->off[v] / 16 == i % e->nchunk &&
			    width(e->f->var[v].type) > step)
				step = width(e->f->var[v].type);
		set[i].file = 'r';
		for (int r = 0, done = 0; !done; r++) {
			if (r == NREG) {
				ran_out(e);
				break;
			}
			for (int c = 0; c < 4 && !done; c += step)
				if (m << c < 16 && !(e->busy[r] & m << c)) {
					mark(e, r, m << c);
					set[i].n = r;
					set[i].comp = c;
					done = 1;
				}
		}
	}
	return set;
}

/* "r3.wwww": reads, at each component of mask, the one delta further */
static const char *shifted(E *e, Opd o, int mask, int delta)
{
	char *s = scratch(e);
	int n = snprintf(s, sizeof e->pool[0], "r%d.", o.n), any = 0;
	while (!(mask >> any & 1))
		any++;
	for (int c = 0; c < 4; c++)
		s[n++] = comps[(mask >> c & 1 ? c : any) + delta];
	s[n] = 0;
	return s;
}

/* mov set to zero, or to another set */
static void set_acc(E *e, const Opd *to, const Opd *from)
{
	for (int i = 0; i < e->f->ni * e->nchunk; i++) {
		int m = chunk_mask(e, i % e->nchunk) << to[i].comp;
		line(e, "mov %s, %s", rmask(e, to[i].n, m),
		     from ? shifted(e, from[i], m, from[i].comp - to[i].comp) :
		     src(e, lit_i(e, 0), SW));
	}
}

/* r = s at p = 0, else r + s (dd: nb_dd_add): C's p ? r + s : s */
static void combine(E *e, Opd p)
{
	const Func *f = e->f;
	line(e, "if_logicalnz %s", src(e, p, S1));
	e->depth++;
	for (int l = 0; l < f->ni; l++)
		for (int v = 0; v < f->nvar; v++) {
			if (f->var[v].role != NB_RMEM)
				continue;
			Opd r = accum(e, e->acc, v, l), s = accum(e, e->part, v, l);
			int x = l * f->nvar + v;
			if (f->var[v].red > NB_COUNT)
				red_update(e, v, r, e->aux[x], s, e->paux[x]);
			else if (f->var[v].type == T_DD)
				dd_add(e, r, r, s);
			else if (f->var[v].type == T_F64)
				d3(e, "dadd", r, r, s);
			else
				line(e, "add %s, %s, %s", dst(e, r, 1), src(e, r, S1),
				     src(e, s, S1));
		}
	e->depth--;
	line(e, "else");
	e->depth++;
	set_acc(e, e->acc, e->part);
	for (int x = 0; x < f->ni * f->nvar; x++)
		if (e->aux[x].w)
			line(e, "mov %s, %s", dst(e, e->aux[x], e->aux[x].w),
			     src(e, e->paux[x], e->aux[x].w == 1 ? S1 :
			         e->aux[x].w == 2 ? SP : SW));
	e->depth--;
	line(e, "endif");
}

/* One loop over block blk ("body" or "tail"): while j + ahead < jend,
 * the block, then j += step. */
static void jloop(E *e, Opd jend, int blk, int ahead, int step)
{
	const char *name = blk == B_BODY ? "body" : "tail";
	line(e, "whileloop");
	e->depth++;
	Opd c = take(e, 1);
	if (ahead) {
		iop(e, "iadd", c, e->gj, lit_i(e, ahead));
		iop(e, "ilt", c, c, jend);
	} else {
		iop(e, "ilt", c, e->gj, jend);
	}
	line(e, "break_logicalz %s", src(e, c, S1));
	give(e, c);
	buf_printf(&e->code, "; j-loop %s\n", name);
	block(e, blk);
	buf_printf(&e->code, "; j-loop %s end\n", name);
	iop(e, "iadd", e->gj, e->gj, lit_i(e, step));
	e->depth--;
	line(e, "endloop");
}

/* The j loop: steps of NJ j-elements while a whole step fits, then the
 * tail one at a time (without a j-unroll, BODY is that loop).  Frees the
 * PRE values the tail does not need when the body loop ends. */
static void jloops(E *e, Opd jend)
{
	const Func *f = e->f;
	int nj = f->nj, t = f->jsplit;
	jloop(e, jend, B_BODY, (nj - 1) * t, nj * t);
	if (nj == 1)
		return;
	if (t == 1) /* a PRE value only the body reads is dead now */
		for (int k = 0; k < f->n; k++)
			if (e->loopuse[k] == 1 && e->rep[k] == k)
				give(e, e->val[k]);
	jloop(e, jend, B_TAIL, 0, t);
}

/* Stores each lane's results where i + lane <= ilast: r, or old + r when
 * cb0[1].x (accum) is set. */
static void stores(E *e)
{
	const Func *f = e->f;
	Opd i = take(e, 1), end = take(e, 1), a = take(e, 1), c = take(e, 1);
	line(e, "; results: r = accum ? old + r : r, for the lanes up to ilast");
	line(e, "imad %s, vAbsTidFlat.x, %s, cb0[0].z", dst(e, i, 1),
	     src(e, lit_i(e, f->ni), S1));
	line(e, "iadd %s, cb0[0].x, cb0[0].z", dst(e, end, 1));
	for (int l = 0; l < f->ni; l++) {
		Opd x = i;
		if (l) {
			iop(e, "iadd", a, i, lit_i(e, l));
			x = a;
		}
		iop(e, "ilt", c, x, end);
		line(e, "if_logicalnz %s", src(e, c, S1));
		e->depth++;
		iop(e, "imul", a, x, lit_i(e, (int32_t)e->rec[NB_RMEM]));
		for (int ch = 0; ch < e->nchunk; ch++) {
			Opd ad = a;
			if (ch) {
				ad = c; /* the lane's test is done with */
				iop(e, "iadd", ad, a, lit_i(e, 16 * ch));
			}
			Opd R = e->acc[l * e->nchunk + ch];
			int mask = chunk_mask(e, ch);
			line(e, "if_logicalnz cb0[1].x");
			e->depth++;
			int on = take_mask(e, mask);
			line(e, "uav_raw_load_id(2) %s, %s", rmask(e, on, mask),
			     src(e, ad, S1));
			for (int v = 0; v < f->nvar; v++) {
				if (f->var[v].role != NB_RMEM || e->off[v] / 16 != ch)
					continue;
				Opd r = accum(e, e->acc, v, l), old = r;
				old.n = on;
				old.comp -= R.comp;
				Type ty = f->var[v].type;
				nb_red red = f->var[v].red;
				/* an index is never resumed (nb_red_resumes) */
				if (red == NB_ARGMIN || red == NB_ARGMAX)
					continue;
				if (red > NB_COUNT)
					red_update(e, v, r, e->aux[l * f->nvar + v], old,
					           lit_t(e, ty, 1));
				else if (f->var[v].type == T_DD)
					dd_add(e, r, old, r);
				else if (f->var[v].type == T_F64)
					d3(e, "dadd", r, old, r);
				else
					line(e, "add %s, %s, %s", dst(e, r, 1),
					     src(e, old, S1), src(e, r, S1));
			}
			e->busy[on] &= (unsigned char)~mask;
			e->depth--;
			line(e, "endif");
			for (int v = 0; v < f->nvar; v++) {
				if (f->var[v].role != NB_RMEM || e->off[v] / 16 != ch)
					continue;
				Opd r = accum(e, e->acc, v, l);
				Opd X = e->aux[l * f->nvar + v];
				if (f->var[v].red == NB_ARGMIN ||
				    f->var[v].red == NB_ARGMAX) {
					itot(e, r, X, f->var[v].type);
				} else if (f->var[v].red == NB_LOGSUMEXP) {
					/* m + log(s), -inf where s = 0 */
					Opd w = take(e, 1), z = take(e, 1);
					line(e, "log_vec %s, %s", dst(e, w, 1), src(e, X, S1));
					line(e, "mad %s, %s, %s, %s", dst(e, w, 1),
					     src(e, w, S1), src(e, lit_f(e, (float)
					     0.6931471805599453), S1), src(e, r, S1));
					line(e, "eq %s, %s, %s", dst(e, z, 1), src(e, X, S1),
					     src(e, lit_f(e, 0), S1));
					line(e, "cmov_logical %s, %s, %s, %s", dst(e, r, 1),
					     src(e, z, S1), src(e, lit_f(e, -INFINITY), S1),
					     src(e, w, S1));
					GIVE(e, w, z);
				}
			}
			line(e, "uav_raw_store_id(2) %s, %s, %s", masked(e, "mem", mask),
			     src(e, ad, S1), shifted(e, R, mask, R.comp));
		}
		e->depth--;
		line(e, "endif");
	}
	GIVE(e, i, end, a, c);
}

static void il_emit(const Func *f, const nb_iface *fc, Buf *out)
{
	/* the IL expands the accurate algorithms only */
	if (f->ctx->opt->dd_qd && ir_widest(f, 0) == T_DD) {
		error_file(f->ctx, "--dd=qd has no AMD IL form (only ddlib.h's "
		           "accurate dd arithmetic is expanded into IL); use the "
		           "c or opencl target");
		return;
	}
	if (refuse(f))
		return;
	E e = {0};
	e.f = f;
	e.fc = fc;
	size_t n = (size_t)(f->n ? f->n : 1), nv = (size_t)(f->nvar + 1);
	e.val = calloc(n, sizeof *e.val);
	e.rep = malloc(n * sizeof(int));
	e.last = malloc(n * sizeof(int));
	e.loopuse = malloc(n * sizeof(int));
	e.gmask = calloc(n, sizeof(int));
	e.lead = malloc(n * sizeof(int));
	e.off = malloc(nv * sizeof(long));
	e.cbix = calloc(nv, sizeof(int));
	long *off = malloc(nv * sizeof(long));
	if (!e.val || !e.rep || !e.last || !e.loopuse || !e.gmask || !e.lead ||
	    !e.off || !e.cbix || !off)
		ICE("out of memory");
	static const nb_role roles[3] = {NB_LMEM, NB_BMEM, NB_RMEM};
	for (int r = 0; r < 3; r++) {
		e.rec[roles[r]] = nb_il_record(fc, roles[r], off);
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == roles[r])
				e.off[v] = off[v];
	}
	free(off);
	int ncb = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_CONST)
			e.cbix[v] = ncb++;
	e.nchunk = (int)(e.rec[NB_RMEM] / 16);
	analyse(&e);

	/* once per work item: its i-elements and the i-side work */
	int ldi = 0;
	for (int k = 0; k < f->n; k++) {
		if (f->ins[k].op == O_LDI && f->ins[k].blk != B_PRE)
			ICE("an LMEM load outside PRE");
		ldi |= f->ins[k].op == O_LDI;
	}
	line(&e, "; once per work item: thread g = vAbsTidFlat.x takes the %d "
	     "i-element%s from i = ibase + g*%d", f->ni, f->ni > 1 ? "s" : "",
	     f->ni);
	if (ldi) {
		e.gi = take(&e, 1);
		e.gl = take(&e, 1);
		line(&e, "imad %s, vAbsTidFlat.x, %s, cb0[0].z ; i", dst(&e, e.gi, 1),
		     src(&e, lit_i(&e, f->ni), S1));
		line(&e, "iadd %s, cb0[0].x, cb0[0].z", dst(&e, e.gl, 1));
		iop(&e, "iadd", e.gl, e.gl, lit_i(&e, -1));
		e.code.len--;
		buf_puts(&e.code, " ; ilast\n");
	}
	block(&e, B_PRE);
	GIVE(&e, e.gi, e.gl);

	int t = f->jsplit;
	e.acc = take_accs(&e);
	e.aux = take_aux(&e);
	if (t == 1) {
		set_acc(&e, e.acc, NULL);
		red_init(&e, e.acc, e.aux);
	}
	Opd jend = take(&e, 1), p = {0};
	e.gj = take(&e, 1);
	line(&e, "iadd %s, cb0[0].w, cb0[0].y ; jend = jbase + nj",
	     dst(&e, jend, 1));
	if (t > 1) {
		e.part = take_accs(&e);
		e.paux = take_aux(&e);
		p = take(&e, 1);
		line(&e, "; j-split: partial sums p = 0..%d over j = jbase + p, "
		     "+%d, ..., combined in order", t - 1, t);
		line(&e, "mov %s, %s", dst(&e, p, 1), src(&e, lit_i(&e, 0), S1));
		line(&e, "whileloop");
		e.depth++;
		Opd c = take(&e, 1);
		iop(&e, "ige", c, p, lit_i(&e, t));
		line(&e, "break_logicalnz %s", src(&e, c, S1));
		give(&e, c);
		set_acc(&e, e.part, NULL);
		red_init(&e, e.part, e.paux);
		line(&e, "iadd %s, cb0[0].w, %s", dst(&e, e.gj, 1), src(&e, p, S1));
	} else {
		line(&e, "mov %s, cb0[0].w", dst(&e, e.gj, 1));
	}
	jloops(&e, jend);
	if (t > 1) {
		combine(&e, p);
		iop(&e, "iadd", p, p, lit_i(&e, 1));
		e.depth--;
		line(&e, "endloop");
	}
	/* what the loops needed, PRE values included, is dead */
	for (int k = 0; k < f->n; k++)
		if (e.loopuse[k] && e.rep[k] == k &&
		    !(e.loopuse[k] == 1 && t == 1 && f->nj > 1))
			give(&e, e.val[k]);
	GIVE(&e, jend, e.gj, p);
	for (int i = 0; t > 1 && i < f->ni * e.nchunk; i++)
		e.busy[e.part[i].n] &=
			(unsigned char)~(chunk_mask(&e, i % e.nchunk) << e.part[i].comp);
	if (t > 1)
		give_aux(&e, e.paux);
	e.paux = NULL;
	stores(&e);
	give_aux(&e, e.aux);
	e.aux = NULL;

	/* the text: version, interface, declarations, literals, code */
	buf_puts(out, "il_cs_2_0\n");
	iface_put(out, fc, "; ");
	buf_printf(out, "; Generated by nbcc %s; do not edit.\n", NBCC_VERSION);
	buf_printf(out, "; %d temporaries (r0-r%d), %d literals\n", e.nreg,
	           e.nreg - 1, e.nlit);
	buf_printf(out, "dcl_num_thread_per_group %d, 1, 1\n", fc->wg);
	buf_puts(out, "dcl_cb cb0[2] ; (ni, nj, ibase, jbase), (accum, 0, 0, 0)\n");
	if (ncb) {
		buf_printf(out, "dcl_cb cb1[%d] ;", ncb);
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_CONST)
				buf_printf(out, " %s", f->var[v].name);
		buf_putc(out, '\n');
	}
	static const char *const what[3] = {"i", "j", "result"};
	for (int r = 0; r < 3; r++) {
		buf_printf(out, "dcl_raw_uav_id(%d) ; %s-records", r, what[r]);
		if (e.rec[roles[r]])
			buf_printf(out, " of %zu bytes: ", e.rec[roles[r]]);
		else
			buf_puts(out, ": none");
		record_text(&e, out, roles[r]);
		buf_putc(out, '\n');
	}
	for (int i = 0; i < e.nlit; i++) {
		const Lit *l = &e.lit[i];
		buf_printf(out, "dcl_literal l%d, 0x%08X, 0x%08X, 0x%08X, 0x%08X", i,
		           l->w[0], l->w[1], l->w[2], l->w[3]);
		switch (l->kind) {
		case 'f': buf_printf(out, " ; %.9g\n", l->v[0]); break;
		case 'i': buf_printf(out, " ; %.0f\n", l->v[0]); break;
		case 'd': buf_printf(out, " ; double %.17g\n", l->v[0]); break;
		default:
			buf_printf(out, " ; dd (%.17g, %.17g)\n", l->v[0], l->v[1]);
		}
	}
	buf_puts(out, e.code.s);
	buf_puts(out, "end\n");

	buf_free(&e.code);
	free(e.lit);
	free(e.val);
	free(e.rep);
	free(e.last);
	free(e.loopuse);
	free(e.gmask);
	free(e.lead);
	free(e.off);
	free(e.cbix);
	free(e.acc);
	free(e.part);
}

/* The row of compiler/defaults.c (papers 000 and 001's unrolling). */
static const nb_defaults *il_defaults(Type widest, nb_options *o)
{
	return defaults_apply("amdil", widest, o);
}

/* The kernel ABI fixes 64 threads a group; no local-memory staging:
 * BMEM is read through the cache, as paper 001 does. */
static void il_launch(const Func *f, const nb_options *o, nb_iface *fc)
{
	(void)f;
	(void)o;
	fc->wg = 64;
	fc->tile = 0;
}

/* Records in UAVs, not packs: no BMEM packing.  Interface files naming
 * amdil have always meant the bare kernel name as their entry. */
const Target target_amdil = {
	.name = "amdil", .ext = ".il", .lang = "AMD IL",
	.pack_bmem = 0, .entry_suffix = "",
	.defaults = il_defaults, .launch = il_launch,
	.build_options = NULL, .spell = NULL, .emit = il_emit,
	.vliw = il_vliw_report,
};
