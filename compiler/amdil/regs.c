/* regs.c: the AMD IL back end's operands: how a line, a source and a
 * destination are written; the temporaries, whose components are taken
 * first fit and given back; the literals, deduplicated. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "amdil.h"

static const char comps[] = "xyzw";

/* One line of code at the current depth. */
void emitf(E *e, const char *fmt, ...)
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

/* Operand o as a source read in form (S1, SD, SP, SW: amdil.h). */
const char *src(E *e, Opd o, int form)
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
const char *masked(E *e, const char *name, int mask)
{
	char *s = scratch(e);
	int n = snprintf(s, sizeof e->pool[0], "%s.", name);
	for (int c = 0; c < 4; c++)
		s[n++] = mask & 1 << c ? comps[c] : '_';
	s[n] = 0;
	return s;
}

/* "r3.x_z_" */
const char *rmask(E *e, int r, int mask)
{
	char name[16];
	snprintf(name, sizeof name, "r%d", r);
	return masked(e, name, mask);
}

/* A destination: the w components from o.comp (4: the whole register). */
const char *dst(E *e, Opd o, int w)
{
	if (w < 4)
		return rmask(e, o.n, ((1 << w) - 1) << o.comp);
	char *s = scratch(e);
	snprintf(s, sizeof e->pool[0], "r%d", o.n);
	return s;
}

/* "r3.wwww": reads, at each component of mask, the one delta further */
const char *shifted(E *e, Opd o, int mask, int delta)
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

/* ---- temporaries: components in use, first fit ----------------------- */

void mark(E *e, int r, int mask)
{
	e->busy[r] |= (unsigned char)mask;
	if (r >= e->nreg)
		e->nreg = r + 1;
}

int ran_out(E *e)
{
	if (!e->full)
		error_file(e->f->ctx, "the kernel needs more than %d AMD IL "
		           "temporaries; unroll less", NREG);
	e->full = 1;
	return 0;
}

/* A temporary whose components in mask are free, taking them. */
int take_mask(E *e, int mask)
{
	for (int r = 0; r < NREG; r++)
		if (!(e->busy[r] & mask)) {
			mark(e, r, mask);
			return r;
		}
	return ran_out(e);
}

/* w free components (1, 2 or 4), aligned to w: the first there are. */
Opd take(E *e, int w)
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

void give(E *e, Opd o)
{
	if (o.file == 'r')
		e->busy[o.n] &= (unsigned char)~(((1 << o.w) - 1) << o.comp);
}

/* Frees the temporaries of an expansion. */
void give_all(E *e, const Opd *t, int n)
{
	for (int i = 0; i < n; i++)
		give(e, t[i]);
}

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

Opd lit_f(E *e, float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return lit(e, (uint32_t[4]){u, u, u, u}, 'f', x, 0);
}

Opd lit_i(E *e, int32_t x)
{
	uint32_t u = (uint32_t)x;
	return lit(e, (uint32_t[4]){u, u, u, u}, 'i', x, 0);
}

/* a double in both pairs, low dword first */
Opd lit_d(E *e, double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	uint32_t l = (uint32_t)u, h = (uint32_t)(u >> 32);
	return lit(e, (uint32_t[4]){l, h, l, h}, 'd', x, 0);
}

Opd lit_dd(E *e, double x, double y)
{
	uint64_t u, v;
	memcpy(&u, &x, 8);
	memcpy(&v, &y, 8);
	return lit(e, (uint32_t[4]){(uint32_t)u, (uint32_t)(u >> 32),
	                            (uint32_t)v, (uint32_t)(v >> 32)}, 'D', x, y);
}

Opd lit_t(E *e, Type t, double x)
{
	return t == T_DD ? lit_dd(e, x, 0) : t == T_F64 ? lit_d(e, x) :
	       lit_f(e, (float)x);
}

/* the operand of value k */
Opd operand_of(E *e, int k)
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

/* The accumulator of (var v, lane), r or s: a component or pair of the
 * temporary of its RMEM chunk, at its place in the record shifted by
 * the chunk's comp. */
Opd acc_at(E *e, const Opd *set, int v, int lane)
{
	Opd o = set[lane * e->nchunk + e->off[v] / 16];
	o.comp += (int)(e->off[v] % 16) / 4;
	return o;
}
