/* nblprint.c: a lowered Func written back as .nbl source (--emit=nbl), one
 * statement per operation, so a student can read the kernel ad.c derived
 * and compile it again: the source lowers to the same operations. */
#include <math.h>
#include <string.h>
#include "ir.h"

/* A literal in its type's digits: a dd as hi + lo, each an exact decimal
 * (a double's has at most 767 digits; most need far fewer). */
static void literal(const Ins *in, Buf *out)
{
	char s[1024];
	int neg = in->imm[0] < 0 || (in->imm[0] == 0 && signbit(in->imm[0]));
	for (int part = 0; part < 2; part++) {
		double v = in->imm[part], d[2];
		if (part && v == 0)
			break;
		int p = 17;
		snprintf(s, sizeof s, "%.*g", p, v);
		if (in->type == T_DD)
			while (read_dd(s, d) == 0 && d[0] != v && p < 800)
				snprintf(s, sizeof s, "%.*g", p += 40, v);
		buf_printf(out, "%s%s%s", part ? " + " : neg ? "(" : "",
		           part && v < 0 ? "(" : "", s);
		if (part && v < 0)
			buf_putc(out, ')');
	}
	if (neg)
		buf_putc(out, ')');
}

static const char *vname(const Func *f, const char **nm, int k)
{
	return nm[k] ? nm[k] : f->var[f->ins[k].var].name;
}

static void operand(const Func *f, const char **nm, int k, Buf *out)
{
	const Ins *in = &f->ins[k];
	switch (in->op) {
	case O_IMM:
		literal(in, out);
		return;
	case O_IDXI:
		buf_puts(out, "i");
		return;
	case O_IDXJ:
		buf_puts(out, "j");
		return;
	}
	buf_puts(out, vname(f, nm, k));
}

static int taken(const Func *f, const char **nm, int upto, const char *s)
{
	for (int v = 0; v < f->nvar; v++)
		if (strcmp(f->var[v].name, s) == 0)
			return 1;
	for (int k = 0; k < upto; k++)
		if (nm[k] && strcmp(nm[k], s) == 0)
			return 1;
	return strcmp(s, "i") == 0 || strcmp(s, "j") == 0;
}

void nbl_print(const Func *f, Buf *out)
{
	static const char *const role[] = {
		[NB_LMEM] = "LMEM", [NB_BMEM] = "BMEM", [NB_CONST] = "CONST",
		[NB_RMEM] = "RMEM"};
	const char **nm = cnew(f->ctx, sizeof(char *) * (size_t)(f->n ? f->n : 1));
	buf_printf(out, "// %s as nbcc lowered it (nbcc --emit=nbl)\n", f->name);
	for (int v = 0; v < f->nvar; v++) {
		const Var *x = &f->var[v];
		Type t = x->type;
		if (x->role == NB_RMEM && nb_red_integer(x->red))
			buf_printf(out, "%s %s;\n", role[x->role], x->name);
		else
			buf_printf(out, "%s %s %s;\n", role[x->role],
			           prec[t].name, x->name);
	}
	buf_putc(out, '\n');
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		const OpInfo *o = &opinfo[in->op];
		if (o->props & P_LEAF)
			continue;
		if (o->props & P_SINK) {
			buf_printf(out, "%s %s ", f->var[in->var].name, o->sym);
			operand(f, nm, in->arg[0], out);
			buf_puts(out, ";\n");
			continue;
		}
		const char *s = in->name;
		if (!s || taken(f, nm, k, s))
			s = cprintf(f->ctx, "t%d", k);
		for (int n = 1; taken(f, nm, k, s); n++)
			s = cprintf(f->ctx, "t%d_%d", k, n);
		nm[k] = s;
		buf_printf(out, "%s = ", s);
		if (in->op == O_SEL) {
			operand(f, nm, in->arg[0], out);
			buf_puts(out, " ? ");
			operand(f, nm, in->arg[1], out);
			buf_puts(out, " : ");
			operand(f, nm, in->arg[2], out);
		} else if (in->op == O_CVT) {
			buf_printf(out, "%s(", prec[in->type].name);
			operand(f, nm, in->arg[0], out);
			buf_putc(out, ')');
		} else if (in->op == O_POW && f->ins[in->arg[1]].op == O_IMM) {
			/* ** takes literal exponents only; pow() the others (a
			 * derived pow(a, b - 1)) */
			operand(f, nm, in->arg[0], out);
			buf_puts(out, "**");
			operand(f, nm, in->arg[1], out);
		} else if (o->sym && o->nargs == 2) {
			operand(f, nm, in->arg[0], out);
			buf_printf(out, " %s ", o->sym);
			operand(f, nm, in->arg[1], out);
		} else if (o->sym) {
			buf_puts(out, o->sym);
			operand(f, nm, in->arg[0], out);
		} else if (o->call) {
			buf_printf(out, "%s(", o->call);
			for (int a = 0; a < o->nargs; a++) {
				if (a)
					buf_puts(out, ", ");
				operand(f, nm, in->arg[a], out);
			}
			buf_putc(out, ')');
		} else {
			ICE("--emit=nbl: no source form for %s", o->name);
		}
		buf_puts(out, ";\n");
	}
}
