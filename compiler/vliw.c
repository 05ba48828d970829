/* vliw.c: the amdil target's VLIW report (nbcc --vliw).  The IL the back
 * end wrote is read back by ilread.c and its ALU work packed into the
 * 5-slot bundles of an R700/Evergreen thread processor, under the model
 * docs/amdil.md states; ilops.h says what each instruction costs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "il.h"

/* What one slot-sized piece of work (a micro-operation) may use. */
enum {
	U_ANY,  /* a simple op: one of x, y, z, w, or t when those are full */
	U_T,    /* the transcendental slot only */
	U_GEN2, /* two of x, y, z, w (a double add) */
	U_GEN4  /* all of x, y, z, w (a double multiply or fma) */
};

typedef struct Uop {
	int cls;
	int ins;   /* its IL instruction */
	int chain; /* follows the previous uop (a sequence), else 0 */
} Uop;

typedef struct Pack {
	int bundles, uops, slots;
	int n[U_GEN4 + 1]; /* uops of each kind */
} Pack;

/* The bundles the slots alone need: every double multiply fills x, y, z
 * and w, two double adds share them, and t takes one op a bundle. */
static int slot_bound(const Pack *r)
{
	int b = (r->slots + 4) / 5;
	int g = r->n[U_GEN4] + (r->n[U_GEN2] + 1) / 2;
	if (g > b)
		b = g;
	return r->n[U_T] > b ? r->n[U_T] : b;
}

/* The micro-operations of instruction k (none for memory and flow). */
static int uops(const IlProg *p, int k, Uop *u)
{
	const IlIns *in = &p->ins[k];
	const IlOpInfo *o = &il_ops[in->op];
	int n = 0;
	if (o->cls == IC_MEM || o->cls == IC_FLOW)
		return 0;
	int copies = 1;
	if (o->shape == SH_VEC) {
		copies = 0;
		for (int c = 0; c < 4; c++)
			copies += in->mask >> c & 1;
	}
	int cls = o->gen == 4 ? U_GEN4 : o->gen == 2 ? U_GEN2 :
	          o->gen == 1 ? U_ANY : U_T;
	for (int i = 0; i < copies; i++) {
		/* a sequence: its first step in t when the row says so */
		int len = o->seq ? o->seq : o->t && o->gen ? 2 : 1;
		for (int s = 0; s < len; s++) {
			int first = s == 0;
			u[n].cls = first && o->t ? U_T : cls;
			u[n].ins = k;
			u[n].chain = !first;
			n++;
		}
	}
	return n;
}

typedef struct Slots {
	unsigned char gen, t;
} Slots;

/* Packs the ALU work of instructions [a, b) into bundles.  Each uop goes
 * into the first bundle at or after the ones its operands come from
 * (plus one: a bundle cannot read what it writes), after every earlier
 * write of what it writes and not before a read of it (a bundle reads
 * before it writes), where a slot of its kind is free.  inorder: never
 * before the bundle of the previous uop, as a packer that does not
 * reorder; reorder: the block is reordered as a list scheduler would;
 * unlimited: as many slots as wanted, which leaves the dependences. */
enum { REORDER, INORDER, UNLIMITED };

static Pack pack(const IlProg *p, int a, int b, int mode)
{
	Pack r;
	memset(&r, 0, sizeof r);
	size_t nrow = (size_t)p->nreg * 4;
	int *ready = calloc(nrow + 1, sizeof(int)); /* first bundle it is ready */
	int *lastrd = calloc(nrow + 1, sizeof(int));
	int *lastwr = calloc(nrow + 1, sizeof(int));
		int cap = 64, nb = 0;
	Slots *bun = calloc((size_t)cap, sizeof *bun);
	if (!ready || !lastrd || !lastwr || !bun)
		ICE("out of memory");
	for (size_t i = 0; i < nrow; i++)
		lastwr[i] = -1;
	int cur = 0, prev = -1;
	Uop u[64];
	for (int k = a; k < b; k++) {
		const IlIns *in = &p->ins[k];
		const IlOpInfo *o = &il_ops[in->op];
		int nu = uops(p, k, u);
		int from = 0;
		for (int s = 0; s < o->nsrc && s < 3; s++)
			for (int c = 0; c < 4; c++)
				if (in->src[s].need >> c & 1) {
					size_t x = (size_t)in->src[s].reg * 4 + (size_t)c;
					if (ready[x] > from)
						from = ready[x];
				}
		int writes = o->shape != SH_STORE && o->shape != SH_COND &&
		             o->shape != SH_FLOW;
		if (writes)
			for (int c = 0; c < 4; c++)
				if (in->mask >> c & 1) {
					size_t x = (size_t)in->dst * 4 + (size_t)c;
					if (lastrd[x] > from)
						from = lastrd[x];
					if (lastwr[x] + 1 > from)
						from = lastwr[x] + 1;
				}
		int at = from, last = from - 1;
		for (int i = 0; i < nu; i++) {
			int lo = u[i].chain ? prev + 1 : at;
			if (mode == INORDER && lo < cur)
				lo = cur;
			int q = lo;
			for (;; q++) {
				if (q >= cap) {
					bun = realloc(bun, sizeof *bun * (size_t)cap * 2);
					if (!bun)
						ICE("out of memory");
					memset(bun + cap, 0, sizeof *bun * (size_t)cap);
					cap *= 2;
				}
				Slots *s = &bun[q];
				int ok = mode == UNLIMITED ? 1 :
				         u[i].cls == U_ANY ? s->gen < 4 || !s->t :
				         u[i].cls == U_T ? !s->t :
				         u[i].cls == U_GEN2 ? s->gen <= 2 : s->gen == 0;
				if (ok)
					break;
			}
			Slots *s = &bun[q];
			switch (u[i].cls) {
			case U_ANY:
				if (s->gen < 4)
					s->gen++;
				else
					s->t = 1;
				r.slots++;
				break;
			case U_T:
				s->t = 1;
				r.slots++;
				break;
			case U_GEN2:
				s->gen += 2;
				r.slots += 2;
				break;
			default:
				s->gen = 4;
				r.slots += 4;
			}
			if (q + 1 > nb)
				nb = q + 1;
			if (q > cur)
				cur = q;
			prev = q;
			if (q > last)
				last = q;
			r.uops++;
			r.n[u[i].cls]++;
		}
		/* memory and flow: no slot; a load's value is there for the
		 * block (fetched in a clause of its own before the ALU clause) */
		if (nu == 0)
			last = from - 1;
		for (int s = 0; s < o->nsrc && s < 3; s++)
			for (int c = 0; c < 4; c++)
				if (in->src[s].need >> c & 1) {
					size_t x = (size_t)in->src[s].reg * 4 + (size_t)c;
					int rd = nu ? prev : from;
					if (rd > lastrd[x])
						lastrd[x] = rd;
				}
		if (writes)
			for (int c = 0; c < 4; c++)
				if (in->mask >> c & 1) {
					size_t x = (size_t)in->dst * 4 + (size_t)c;
					ready[x] = last + 1;
					lastwr[x] = last;
				}
	}
	r.bundles = nb;
	free(ready);
	free(lastrd);
	free(lastwr);
	free(bun);
	return r;
}

/* Instructions of the lines between the marker comments the back end
 * writes around a region ("; j-loop body" ... "; j-loop body end"). */
static int region(const IlProg *p, const char *text, size_t len,
                  const char *name, int *a, int *b)
{
	int lo = 0, hi = 0, line = 1;
	size_t nl = strlen(name);
	for (const char *s = text, *e = text + len; s < e; line++) {
		const char *eol = memchr(s, '\n', (size_t)(e - s));
		if (!eol)
			eol = e;
		const char *t = s;
		while (t < eol && (*t == ' ' || *t == '\t'))
			t++;
		if (t + 2 + nl <= eol && t[0] == ';' && t[1] == ' ' &&
		    memcmp(t + 2, name, nl) == 0) {
			const char *rest = t + 2 + nl;
			if (rest == eol || *rest == '\r')
				lo = line;
			else if ((size_t)(eol - rest) >= 4 &&
			         memcmp(rest, " end", 4) == 0)
				hi = line;
		}
		s = eol + 1;
	}
	if (!lo || !hi)
		return 0;
	*a = *b = -1;
	for (int k = 0; k < p->nins; k++) {
		if (p->ins[k].line > lo && *a < 0)
			*a = k;
		if (p->ins[k].line < hi)
			*b = k + 1;
	}
	return *a >= 0 && *b > *a;
}

typedef struct Count {
	int alu, cls[IC_FLOW + 1], loads, stores;
} Count;

static Count count(const IlProg *p, int a, int b)
{
	Count c;
	memset(&c, 0, sizeof c);
	Uop u[64];
	for (int k = a; k < b; k++) {
		const IlOpInfo *o = &il_ops[p->ins[k].op];
		int n = uops(p, k, u);
		c.alu += n;
		c.cls[o->cls] += n;
		c.loads += p->ins[k].op == IL_LOAD;
		c.stores += p->ins[k].op == IL_STORE;
	}
	return c;
}

/* Bundles of the whole program: each stretch between flow instructions
 * packed alone (a branch ends an ALU clause). */
static Pack whole(const IlProg *p, int mode)
{
	Pack t;
	memset(&t, 0, sizeof t);
	int a = 0;
	for (int k = 0; k <= p->nins; k++)
		if (k == p->nins || il_ops[p->ins[k].op].cls == IC_FLOW) {
			Pack r = pack(p, a, k, mode);
			t.bundles += r.bundles;
			t.uops += r.uops;
			t.slots += r.slots;
			a = k + 1;
		}
	return t;
}

static void report_region(Buf *out, const IlProg *p, const char *text,
                          size_t len, const char *name, int per)
{
	int a, b;
	if (!region(p, text, len, name, &a, &b)) {
		buf_printf(out, "%s: none\n", name);
		return;
	}
	Count c = count(p, a, b);
	Pack lst = pack(p, a, b, REORDER), ord = pack(p, a, b, INORDER);
	Pack dep = pack(p, a, b, UNLIMITED);
	buf_printf(out, "%s (%d interaction%s a step):\n", name, per,
	           per == 1 ? "" : "s");
	buf_printf(out, "  ALU operations   %d (float %d, transcendental %d, "
	           "double %d, integer %d); fetches %d\n", c.alu,
	           c.cls[IC_FLOAT], c.cls[IC_TRANS], c.cls[IC_DOUBLE],
	           c.cls[IC_INT], c.loads);
	buf_printf(out, "  bundles          %d reordered, %d in order "
	           "(dependence bound %d, slot bound %d)\n", lst.bundles,
	           ord.bundles, dep.bundles, slot_bound(&lst));
	buf_printf(out, "  per interaction  %.2f reordered, %.2f in order\n",
	           (double)lst.bundles / per, (double)ord.bundles / per);
	buf_printf(out, "  slots used       %d of %d (%.0f%%) reordered, "
	           "%d of %d (%.0f%%) in order\n", lst.slots, 5 * lst.bundles,
	           lst.bundles ? 100.0 * lst.slots / (5 * lst.bundles) : 0.0,
	           ord.slots, 5 * ord.bundles,
	           ord.bundles ? 100.0 * ord.slots / (5 * ord.bundles) : 0.0);
}

void il_vliw_report(const Func *f, const char *text, size_t len, Buf *out)
{
	char err[512];
	IlProg *p = il_read(text, len, f->name, err, sizeof err);
	if (!p) {
		ICE("the amdil back end wrote IL its reader refuses: %s", err);
		return;
	}
	Pack lst = whole(p, REORDER), ord = whole(p, INORDER);
	buf_printf(out, "vliw: %s, --unroll-i=%d --unroll-j=%d --jsplit=%d%s\n",
	           f->name, f->ni, f->nj, f->jsplit,
	           f->sched ? ", scheduled (--sched=interleave)" :
	           " (--sched=none)");
	buf_puts(out, "model: R700/Evergreen thread processor, bundles of 5 "
	         "slots (x y z w general, t transcendental), docs/amdil.md\n");
	report_region(out, p, text, len, "j-loop body", f->ni * f->nj);
	report_region(out, p, text, len, "j-loop tail", f->ni);
	buf_printf(out, "whole kernel: %d ALU bundles reordered, %d in order; "
	           "GPRs %d\n", lst.bundles, ord.bundles, p->ntemp);
	il_free(p);
}
