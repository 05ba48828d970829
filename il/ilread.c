/* ilread.c: AMD IL text to an IlProg (il.h).  Every check of the subset's
 * list (docs/amdil.md) that the text alone decides is made here, so that
 * the interpreter is left only what depends on a work item: reads before
 * writes, addresses, the step limit. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "il.h"

const IlOpInfo il_ops[IL_NOP] = {
#define IL_OP(id, name, nsrc, cls, shape, gen, t, seq) \
	{name, nsrc, cls, shape, gen, t, seq},
#include "ilops.h"
};

enum { MAXTOK = 8, MAXDEPTH = 256 };

typedef struct Tok {
	const char *s;
	size_t n;
} Tok;

/* Rows are numbered per kind while reading (a temporary's first use, a
 * literal's declaration, ...) and laid out when the text is done; a
 * source's reg holds its kind in the top bits until then. */
enum { K_TEMP, K_LIT, K_CB, K_SYS };
#define PROV(kind, i) ((uint32_t)(kind) << 28 | (uint32_t)(i))

typedef struct Open {
	int ins;     /* the whileloop or if */
	int els;     /* its else, -1 */
	int breaks;  /* a loop's breaks, chained through their match */
} Open;

typedef struct Rd {
	IlProg *p;
	int line;
	char *err;
	size_t errlen;
	int capins, caplit;
	int tmap[IL_MAXREG], tnum[IL_MAXREG], ntemp; /* rN <-> temp */
	int lmap[IL_MAXREG];                         /* lN -> literal */
	int *cbmap[IL_NCB];                          /* cbK[n] -> cb row */
	IlReg *cbrow;
	int ncb, capcb;
	int sys[3];                                  /* system value rows */
	IlRegKind sysk[3];
	int nsys;
	int code;                                    /* an instruction seen */
	Open open[MAXDEPTH];
	int depth;
	char q[2][80];                               /* quoted tokens */
} Rd;

static int fail(Rd *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(Rd *r, const char *fmt, ...)
{
	int n = snprintf(r->err, r->errlen, "%s:%d: error: ", r->p->name,
	                 r->line);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A token for a message: bytes a terminal would act on as \xHH, long
 * ones cut short.  Two may appear in one message (slot 0 and 1). */
static const char *q(Rd *r, int slot, const char *s, size_t n)
{
	char *b = r->q[slot];
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (o + 8 >= sizeof r->q[0]) {
			memcpy(b + o, "...", 4);
			return b;
		}
		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)sprintf(b + o, "\\x%02x", c);
		else
			b[o++] = (char)c;
	}
	b[o] = 0;
	return b;
}
#define QT(slot, t) q(r, slot, (t).s, (t).n)

static int is(Tok t, const char *s)
{
	return t.n == strlen(s) && memcmp(t.s, s, t.n) == 0;
}

static int starts(Tok t, const char *s)
{
	return t.n >= strlen(s) && memcmp(t.s, s, strlen(s)) == 0;
}

/* Room for element n of an array of cap elements of size bytes: the array,
 * grown when n reaches cap, or NULL reported. */
static void *grow(Rd *r, void *a, int n, int *cap, size_t size)
{
	if (n < *cap)
		return a;
	int c = *cap ? 2 * *cap : 16;
	void *g = realloc(a, size * (size_t)c);
	if (!g)
		fail(r, "out of memory");
	else
		*cap = c;
	return g;
}

/* Decimal digits (1 to 9 of them) as a number up to max; -1 if not. */
static long number(const char *s, size_t n, long max)
{
	if (n == 0 || n > 9)
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= max ? v : -1;
}

/* Splits a line (its comment already cut) at blanks and commas; returns
 * the count, MAXTOK + 1 when there are more. */
static int tokens(const char *s, const char *e, Tok *t)
{
	int n = 0;
	while (s < e) {
		while (s < e && strchr(" \t\r\f\v,", *s) && *s)
			s++;
		if (s == e)
			break;
		const char *b = s;
		while (s < e && !(strchr(" \t\r\f\v,", *s) && *s))
			s++;
		if (n == MAXTOK)
			return MAXTOK + 1;
		t[n++] = (Tok){b, (size_t)(s - b)};
	}
	return n;
}

/* --- declarations --------------------------------------------------- */

/* A dcl_literal value: 0x and 1 to 8 hex digits, a decimal int32, or a
 * float with an f suffix (1.5f, -2e-3f). */
static int literal(Rd *r, Tok t, uint32_t *v)
{
	const char *s = t.s;
	size_t n = t.n;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (n > 10)
			return fail(r, "literal '%s' has more than 8 hex digits",
			            QT(0, t));
		uint32_t x = 0;
		for (size_t i = 2; i < n; i++) {
			int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
			        s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 :
			        s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : -1;
			if (d < 0)
				return fail(r, "bad hex literal '%s'", QT(0, t));
			x = x << 4 | (uint32_t)d;
		}
		*v = x;
		return 0;
	}
	size_t i = s[0] == '-' || s[0] == '+';
	size_t d0 = i, digits = 0, dot = 0, exp = 0;
	for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
		dot += s[i] == '.';
		digits += s[i] != '.';
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E') && digits) {
		size_t e = ++i;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			e = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		exp = 1;
		if (i == e)
			digits = 0;
	}
	int isfloat = i + 1 == n && s[i] == 'f';
	if (!digits || dot > 1 || (i != n && !isfloat) ||
	    (!isfloat && (dot || exp)))
		return fail(r, "bad literal '%s': write 0x and hex digits, a "
		            "decimal integer or a float with an f suffix (1.5f)",
		            QT(0, t));
	if (isfloat) {
		char buf[64];
		if (n >= sizeof buf)
			return fail(r, "literal '%s' is too long", QT(0, t));
		memcpy(buf, s, n - 1);
		buf[n - 1] = 0;
		float f = strtof(buf, NULL);
		if (f - f != 0)
			return fail(r, "literal '%s' is beyond the float range",
			            QT(0, t));
		memcpy(v, &f, 4);
		return 0;
	}
	/* an int32 */
	unsigned long long x = 0;
	for (size_t k = d0; k < n; k++) {
		x = x * 10 + (unsigned)(s[k] - '0');
		if (x > 2147483648ull)
			break;
	}
	if (x > 2147483647ull + (s[0] == '-'))
		return fail(r, "literal '%s' does not fit a 32-bit signed integer "
		            "(write its bits in hex)", QT(0, t));
	*v = s[0] == '-' ? (uint32_t)(0 - (uint32_t)x) : (uint32_t)x;
	return 0;
}

/* "cbK[n]": K and n, or -1 */
static int cbref(Tok t, long *k, long *e)
{
	if (!starts(t, "cb") || t.n < 6 || t.s[t.n - 1] != ']')
		return -1;
	const char *br = memchr(t.s, '[', t.n);
	if (!br)
		return -1;
	*k = number(t.s + 2, (size_t)(br - t.s - 2), IL_NCB - 1);
	*e = number(br + 1, (size_t)(t.s + t.n - 1 - br - 1), 999999999);
	return *k < 0 || *e < 0 ? -1 : 0;
}

/* "NAME(n)": n, or -1; -2 when the name matches but not the rest */
static long idarg(Tok t, const char *name, long max)
{
	size_t k = strlen(name);
	if (t.n < k + 1 || memcmp(t.s, name, k) != 0 || t.s[k] != '(')
		return -1;
	if (t.s[t.n - 1] != ')')
		return -2;
	long v = number(t.s + k + 1, t.n - k - 2, max);
	return v < 0 ? -2 : v;
}

static int decl(Rd *r, Tok *t, int n)
{
	IlProg *p = r->p;
	if (r->code)
		return fail(r, "%s after the first instruction: declarations "
		            "come first", QT(0, t[0]));
	if (is(t[0], "dcl_num_thread_per_group")) {
		long g = n >= 2 ? number(t[1].s, t[1].n, IL_MAXGROUP) : -1;
		if ((n != 2 && n != 4) || g < 1 ||
		    (n == 4 && (!is(t[2], "1") || !is(t[3], "1"))))
			return fail(r, "expected dcl_num_thread_per_group N[, 1, 1] "
			            "with N from 1 to %d", IL_MAXGROUP);
		if (p->group)
			return fail(r, "dcl_num_thread_per_group twice");
		p->group = (int)g;
		return 0;
	}
	if (is(t[0], "dcl_cb")) {
		long k, e;
		if (n != 2 || cbref(t[1], &k, &e) || e < 1 || e > IL_MAXCB)
			return fail(r, "expected dcl_cb cbK[n] with K from 0 to %d "
			            "and n from 1 to %d", IL_NCB - 1, IL_MAXCB);
		if (p->cbsize[k])
			return fail(r, "cb%ld is declared twice", k);
		p->cbsize[k] = (int)e;
		if (!(r->cbmap[k] = malloc(sizeof(int) * (size_t)e)))
			return fail(r, "out of memory");
		memset(r->cbmap[k], 0xff, sizeof(int) * (size_t)e);
		return 0;
	}
	if (is(t[0], "dcl_literal")) {
		long l = n == 6 && t[1].n > 1 && t[1].s[0] == 'l' ?
		         number(t[1].s + 1, t[1].n - 1, IL_MAXREG - 1) : -1;
		if (l < 0)
			return fail(r, "expected dcl_literal lN, a, b, c, d with N "
			            "below %d", IL_MAXREG);
		if (r->lmap[l] >= 0)
			return fail(r, "l%ld is declared twice", l);
		IlLit *nl = grow(r, p->lit, p->nlit, &r->caplit, sizeof *nl);
		if (!nl)
			return -1;
		p->lit = nl;
		IlLit *x = &p->lit[p->nlit];
		x->num = (int)l;
		for (int c = 0; c < 4; c++)
			if (literal(r, t[2 + c], &x->v[c]))
				return -1;
		r->lmap[l] = p->nlit++;
		return 0;
	}
	long u = idarg(t[0], "dcl_raw_uav_id", IL_NUAV - 1);
	if (u != -1) {
		if (u < 0 || n != 1)
			return fail(r, "expected dcl_raw_uav_id(n) with n from 0 to %d",
			            IL_NUAV - 1);
		if (p->uavs >> u & 1)
			return fail(r, "UAV %ld is declared twice", u);
		p->uavs |= 1u << u;
		return 0;
	}
	return fail(r, "unknown declaration '%s'", QT(0, t[0]));
}

/* --- operands ------------------------------------------------------- */

static const char comp[] = "xyzw";

/* ".MASK": four characters, each its component or '_', or the written
 * components in order ("x", "xy", "zw", "xyzw"). */
static int mask(Rd *r, Tok t, const char *m, size_t n, uint8_t *out)
{
	int v = 0;
	int longform = n == 4;
	for (size_t i = 0; i < n; i++)
		longform &= m[i] == '_' || (m[i] && memchr(comp, m[i], 4));
	if (longform) {
		for (int c = 0; c < 4; c++)
			if (m[c] == comp[c])
				v |= 1 << c;
			else if (m[c] != '_')
				goto bad;
	} else {
		int last = -1;
		for (size_t i = 0; i < n; i++) {
			const char *c = memchr(comp, m[i], 4);
			if (!c || !m[i] || c - comp <= last)
				goto bad;
			last = (int)(c - comp);
			v |= 1 << last;
		}
	}
	if (!v)
		return fail(r, "mask of '%s' writes nothing", QT(0, t));
	*out = (uint8_t)v;
	return 0;
bad:
	return fail(r, "bad mask in '%s': four characters each its component "
	            "or _ (.x_z_), or the components written in order (.xz)",
	            QT(0, t));
}

static int temp(Rd *r, long n)
{
	if (r->tmap[n] < 0) {
		r->tmap[n] = r->ntemp;
		r->tnum[r->ntemp++] = (int)n;
	}
	return r->tmap[n];
}

/* A destination "rN[.MASK]", or "mem[.MASK]" for a store. */
static int dest(Rd *r, Tok t, int store, IlIns *in)
{
	const char *dot = memchr(t.s, '.', t.n);
	size_t rn = dot ? (size_t)(dot - t.s) : t.n;
	in->mask = 0xf;
	if (store) {
		if (rn != 3 || memcmp(t.s, "mem", 3) != 0)
			return fail(r, "a store writes mem or mem.MASK, not '%s'",
			            QT(0, t));
	} else {
		long n = rn > 1 && t.s[0] == 'r' ?
		         number(t.s + 1, rn - 1, IL_MAXREG - 1) : -1;
		if (n < 0)
			return fail(r, "cannot write '%s': a destination is a "
			            "temporary rN, N below %d", QT(0, t), IL_MAXREG);
		in->dst = (uint32_t)temp(r, n);
	}
	if (dot)
		return mask(r, t, dot + 1, t.n - rn - 1, &in->mask);
	return 0;
}

static int sysreg(Rd *r, IlRegKind k)
{
	for (int i = 0; i < r->nsys; i++)
		if (r->sysk[i] == k)
			return i;
	r->sysk[r->nsys] = k;
	return r->nsys++;
}

/* The register part of a source; *end past it. */
static int srcreg(Rd *r, Tok t, size_t *end, uint32_t *reg)
{
	size_t n = 0;
	while (n < t.n && t.s[n] != '.' && t.s[n] != '_')
		n++;
	*end = n;
	Tok name = {t.s, n};
	static const struct {
		const char *name;
		IlRegKind k;
	} sys[] = {
		{"vAbsTidFlat", RK_ABSTID},
		{"vTidInGrpFlat", RK_TIDINGRP},
		{"vThreadGrpIdFlat", RK_GRPID},
	};
	for (int i = 0; i < 3; i++)
		if (is(name, sys[i].name)) {
			*reg = PROV(K_SYS, sysreg(r, sys[i].k));
			return 0;
		}
	long k, e;
	if (cbref(name, &k, &e) == 0) {
		if (!r->p->cbsize[k])
			return fail(r, "cb%ld is used without dcl_cb cb%ld[n]", k, k);
		if (e >= r->p->cbsize[k])
			return fail(r, "%s is out of range: cb%ld has %d entries",
			            QT(0, name), k, r->p->cbsize[k]);
		int *m = &r->cbmap[k][e];
		if (*m < 0) {
			IlReg *nr = grow(r, r->cbrow, r->ncb, &r->capcb, sizeof *nr);
			if (!nr)
				return -1;
			r->cbrow = nr;
			r->cbrow[r->ncb] = (IlReg){RK_CB, (int)k, (int)e};
			*m = r->ncb++;
		}
		*reg = PROV(K_CB, *m);
		return 0;
	}
	long v = n > 1 ? number(t.s + 1, n - 1, IL_MAXREG - 1) : -1;
	if (n > 1 && t.s[0] == 'r' && v >= 0) {
		*reg = PROV(K_TEMP, temp(r, v));
		return 0;
	}
	if (n > 1 && t.s[0] == 'l' && v >= 0) {
		if (r->lmap[v] < 0)
			return fail(r, "l%ld is used without dcl_literal l%ld", v, v);
		*reg = PROV(K_LIT, r->lmap[v]);
		return 0;
	}
	return fail(r, "bad source register '%s': rN, lN, cbK[n], vAbsTidFlat, "
	            "vTidInGrpFlat or vThreadGrpIdFlat", QT(0, name));
}

/* A source: register, swizzle, _neg(COMPS), _abs.  pos: the positions
 * the instruction reads; dbl: it reads a double from positions 0, 1. */
static int source(Rd *r, Tok t, int pos, int dbl, IlSrc *s)
{
	size_t i;
	if (srcreg(r, t, &i, &s->reg))
		return -1;
	for (int c = 0; c < 4; c++)
		s->swz[c] = (uint8_t)c;
	if (i < t.n && t.s[i] == '.') {
		size_t b = ++i;
		while (i < t.n && t.s[i] != '_' && i - b < 4) {
			const char *c = memchr("xyzw01", t.s[i], 6);
			if (!c || !t.s[i])
				break;
			s->swz[i - b] = (uint8_t)(c - "xyzw01");
			i++;
		}
		if (i == b || (i < t.n && t.s[i] != '_'))
			return fail(r, "bad swizzle in '%s': 1 to 4 of x, y, z, w, "
			            "0, 1", QT(0, t));
		s->nswz = (uint8_t)(i - b);
		for (int c = s->nswz; c < 4; c++)
			s->swz[c] = s->swz[s->nswz - 1];
	}
	while (i < t.n) {
		Tok m = {t.s + i, t.n - i};
		if (starts(m, "_neg(") && !s->neg && !s->abs) {
			i += 5;
			int last = -1;
			while (i < t.n && t.s[i] != ')') {
				const char *c = memchr(comp, t.s[i], 4);
				if (!c || !t.s[i] || c - comp <= last)
					return fail(r, "bad _neg in '%s': the components "
					            "negated in order, _neg(xz)", QT(0, t));
				last = (int)(c - comp);
				s->neg |= (uint8_t)(1 << last);
				i++;
			}
			if (i == t.n || !s->neg)
				return fail(r, "bad _neg in '%s': the components "
				            "negated in order, _neg(xz)", QT(0, t));
			i++;
		} else if (starts(m, "_abs") && !s->abs) {
			s->abs = 1;
			i += 4;
		} else {
			size_t k = 1;
			while (k < m.n && m.s[k] != '_')
				k++;
			Tok mod = {m.s, k};
			if (starts(m, "_neg(") || starts(m, "_abs"))
				return fail(r, "modifiers of '%s' repeated or out of "
				            "order: _neg(...) then _abs, each once",
				            QT(0, t));
			return fail(r, "unknown modifier '%s' in '%s'", QT(0, mod),
			            QT(1, t));
		}
	}
	if (dbl) {
		if (!((s->swz[0] == 0 && s->swz[1] == 1) ||
		      (s->swz[0] == 2 && s->swz[1] == 3)))
			return fail(r, "bad swizzle in '%s' for a double: its first "
			            "two components must be xy or zw", QT(0, t));
		if (s->neg && !(s->neg & 0xa))
			return fail(r, "_neg of a double in '%s' must name its high "
			            "component (y or w)", QT(0, t));
		s->rneg = s->neg ? 2 : 0;
		s->rabs = s->abs ? 2 : 0;
		pos = 3;
	} else {
		s->rneg = s->neg;
		s->rabs = s->abs ? 0xf : 0;
	}
	for (int c = 0; c < 4; c++)
		if (pos >> c & 1 && s->swz[c] < 4)
			s->need |= (uint8_t)(1 << s->swz[c]);
	return 0;
}

/* --- instructions --------------------------------------------------- */

static int opcode(Rd *r, Tok t, IlIns *in)
{
	for (int o = 0; o < IL_NOP; o++)
		if (is(t, il_ops[o].name) && o != IL_LOAD && o != IL_STORE) {
			in->op = (IlOp)o;
			return 0;
		}
	for (int o = IL_LOAD; o <= IL_STORE; o++) {
		long u = idarg(t, il_ops[o].name, IL_NUAV - 1);
		if (u == -1 && !is(t, il_ops[o].name))
			continue;
		if (u < 0)
			return fail(r, "expected %s(n) with n from 0 to %d",
			            il_ops[o].name, IL_NUAV - 1);
		if (!(r->p->uavs >> u & 1))
			return fail(r, "UAV %ld is used without dcl_raw_uav_id(%ld)",
			            u, u);
		in->op = (IlOp)o;
		in->uav = (uint8_t)u;
		return 0;
	}
	if (starts(t, "div_zeroop("))
		return fail(r, "'%s' is not in the subset: only "
		            "div_zeroop(infinity)", QT(0, t));
	if (is(t, "il_cs_2_0"))
		return fail(r, "il_cs_2_0 twice");
	return fail(r, "unknown opcode '%s'", QT(0, t));
}

static int flow(Rd *r, IlIns *in, int k)
{
	IlIns *ins = r->p->ins;
	Open *top = r->depth ? &r->open[r->depth - 1] : NULL;
	IlOp topop = top ? ins[top->ins].op : IL_END;
	switch (in->op) {
	case IL_WHILE:
	case IL_IFZ:
	case IL_IFNZ:
		if (r->depth == MAXDEPTH)
			return fail(r, "control flow nested deeper than %d",
			            MAXDEPTH);
		r->open[r->depth++] = (Open){k, -1, -1};
		return 0;
	case IL_BREAK:
	case IL_BREAKZ:
	case IL_BREAKNZ:
		for (int d = r->depth - 1; d >= 0; d--)
			if (ins[r->open[d].ins].op == IL_WHILE) {
				in->match = r->open[d].breaks;
				r->open[d].breaks = k;
				return 0;
			}
		return fail(r, "%s outside a loop", il_ops[in->op].name);
	case IL_ENDLOOP:
		if (topop != IL_WHILE)
			break;
		in->match = top->ins;
		ins[top->ins].match = k;
		for (int b = top->breaks, next; b >= 0; b = next) {
			next = ins[b].match;
			ins[b].match = k;
		}
		r->depth--;
		return 0;
	case IL_ELSE:
		if ((topop != IL_IFZ && topop != IL_IFNZ) || top->els >= 0)
			break;
		top->els = k;
		ins[top->ins].match = k;
		return 0;
	case IL_ENDIF:
		if (topop != IL_IFZ && topop != IL_IFNZ)
			break;
		in->match = top->ins;
		ins[top->els >= 0 ? top->els : top->ins].match = k;
		r->depth--;
		return 0;
	case IL_END:
		if (!top)
			return 0;
		break;
	default:
		return 0;
	}
	if (!top)
		return fail(r, "%s without %s", il_ops[in->op].name,
		            in->op == IL_ENDLOOP ? "whileloop" : "if_logicalz or "
		            "if_logicalnz");
	int line = ins[top->ins].line;
	const char *want = topop == IL_WHILE ? "endloop" : "endif";
	return fail(r, "%s before the %s of the %s at line %d",
	            il_ops[in->op].name, want, il_ops[topop].name, line);
}

static int instruction(Rd *r, Tok *t, int n)
{
	IlProg *p = r->p;
	if (!r->code && !p->group)
		return fail(r, "dcl_num_thread_per_group is missing before the "
		            "first instruction");
	r->code = 1;
	IlIns *ni = grow(r, p->ins, p->nins, &r->capins, sizeof *ni);
	if (!ni)
		return -1;
	p->ins = ni;
	int k = p->nins;
	IlIns *in = &p->ins[k];
	memset(in, 0, sizeof *in);
	in->line = r->line;
	in->match = -1;
	if (opcode(r, t[0], in))
		return -1;
	const IlOpInfo *o = &il_ops[in->op];
	IlShape sh = o->shape;
	int hasdst = sh != SH_COND && sh != SH_FLOW;
	int want = o->nsrc + hasdst;
	if (n - 1 != want)
		return fail(r, "%s takes %d operand%s, not %d", QT(0, t[0]), want,
		            want == 1 ? "" : "s", n - 1);
	if (hasdst && dest(r, t[1], sh == SH_STORE, in))
		return -1;
	if ((sh == SH_DBL || sh == SH_FTOD) && in->mask != 0x3 &&
	    in->mask != 0xc)
		return fail(r, "%s writes one double: its mask must be .xy__ or "
		            ".__zw, not '%s'", o->name, QT(0, t[1]));
	for (int s = 0; s < o->nsrc; s++) {
		int pos = sh == SH_VEC ? in->mask : 1;
		if (sh == SH_STORE && s == 1)
			pos = in->mask;
		int dbl = sh == SH_DBL || sh == SH_DCMP;
		if (source(r, t[1 + hasdst + s], pos, dbl, &in->src[s]))
			return -1;
	}
	p->nins++;
	return flow(r, in, k);
}

/* Lays out the register file (il.h) and points every operand at its row. */
static int layout(Rd *r)
{
	IlProg *p = r->p;
	p->ntemp = r->ntemp;
	p->nreg = r->ntemp + p->nlit + r->ncb + r->nsys;
	p->reg = malloc(sizeof *p->reg * (size_t)(p->nreg ? p->nreg : 1));
	if (!p->reg)
		return fail(r, "out of memory");
	uint32_t base[4] = {0, (uint32_t)r->ntemp,
	                    (uint32_t)(r->ntemp + p->nlit),
	                    (uint32_t)(r->ntemp + p->nlit + r->ncb)};
	for (int i = 0; i < r->ntemp; i++)
		p->reg[i] = (IlReg){RK_TEMP, r->tnum[i], 0};
	for (int i = 0; i < p->nlit; i++)
		p->reg[base[K_LIT] + (uint32_t)i] = (IlReg){RK_LIT, p->lit[i].num, 0};
	for (int i = 0; i < r->ncb; i++)
		p->reg[base[K_CB] + (uint32_t)i] = r->cbrow[i];
	for (int i = 0; i < r->nsys; i++)
		p->reg[base[K_SYS] + (uint32_t)i] = (IlReg){r->sysk[i], 0, 0};
	for (int k = 0; k < p->nins; k++)
		for (int s = 0; s < 3; s++) {
			uint32_t v = p->ins[k].src[s].reg;
			p->ins[k].src[s].reg = base[v >> 28] + (v & 0xfffffff);
		}
	return 0;
}

IlProg *nb_il_read(const char *text, size_t len, const char *name, char *err,
                size_t errlen)
{
	Rd *r = calloc(1, sizeof *r);
	IlProg *p = calloc(1, sizeof *p);
	if (!r || !p || !(p->name = strdup(name ? name : "-"))) {
		snprintf(err, errlen, "%s: error: out of memory",
		         name ? name : "-");
		free(r);
		free(p);
		return NULL;
	}
	r->p = p;
	r->err = err;
	r->errlen = errlen;
	memset(r->tmap, 0xff, sizeof r->tmap);
	memset(r->lmap, 0xff, sizeof r->lmap);
	enum { BEFORE, BODY, ENDED } state = BEFORE;
	const char *s = text, *e = text + len;
	int rc = 0;
	while (s < e && !rc) {
		r->line++;
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl : e;
		const char *sc = memchr(s, ';', (size_t)(le - s));
		Tok t[MAXTOK];
		int n = tokens(s, sc ? sc : le, t);
		s = nl ? nl + 1 : e;
		if (n == 0)
			continue;
		if (n > MAXTOK)
			rc = fail(r, "too many operands");
		else if (state == BEFORE) {
			if (!is(t[0], "il_cs_2_0"))
				rc = fail(r, "expected il_cs_2_0 first, not '%s'",
				          QT(0, t[0]));
			else if (n > 1)
				rc = fail(r, "il_cs_2_0 takes no operands");
			state = BODY;
		} else if (state == ENDED)
			rc = fail(r, "'%s' after end", QT(0, t[0]));
		else if (starts(t[0], "dcl_"))
			rc = decl(r, t, n);
		else {
			rc = instruction(r, t, n);
			if (!rc && p->ins[p->nins - 1].op == IL_END)
				state = ENDED;
		}
	}
	if (!rc && state != ENDED) {
		if (!r->line)
			r->line = 1;
		rc = fail(r, "missing %s", state == BEFORE ? "il_cs_2_0" : "end");
	}
	if (!rc)
		rc = layout(r);
	for (int k = 0; k < IL_NCB; k++)
		free(r->cbmap[k]);
	free(r->cbrow);
	free(r);
	if (rc) {
		nb_il_free(p);
		return NULL;
	}
	return p;
}

void nb_il_free(IlProg *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->lit);
	free(p->reg);
	free(p->ins);
	free(p);
}

void nb_il_reg_name(const IlProg *p, uint32_t row, char *buf, size_t len)
{
	const IlReg *g = &p->reg[row];
	switch (g->kind) {
	case RK_TEMP:
		snprintf(buf, len, "r%d", g->num);
		break;
	case RK_LIT:
		snprintf(buf, len, "l%d", g->num);
		break;
	case RK_CB:
		snprintf(buf, len, "cb%d[%d]", g->num, g->entry);
		break;
	case RK_ABSTID:
		snprintf(buf, len, "vAbsTidFlat");
		break;
	case RK_TIDINGRP:
		snprintf(buf, len, "vTidInGrpFlat");
		break;
	case RK_GRPID:
		snprintf(buf, len, "vThreadGrpIdFlat");
		break;
	}
}
