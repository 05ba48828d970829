/* ilvliw.c: the VLIW model (ilvliw.h).  A decoded program's ALU work is
 * cut into slot-sized micro-operations by ilops.h's columns and packed
 * into the 5-slot bundles of an R700/Evergreen thread processor under the
 * model docs/amdil.md states; the counts beside it.  Only reads p. */
#include <stdlib.h>
#include <string.h>
#include "ilvliw.h"

typedef struct Uop {
	int cls;   /* IL_U_* */
	int ins;   /* its IL instruction */
	int chain; /* follows the previous uop (a sequence), else 0 */
} Uop;

/* The most uops one instruction makes: four components of a sequence. */
enum { MAXUOP = 64 };

int il_slot_bound(const IlPack *r)
{
	/* every double multiply fills x, y, z and w, two double adds share
	 * them, and t takes one op a bundle */
	int b = (r->slots + 4) / 5;
	int g = r->n[IL_U_GEN4] + (r->n[IL_U_GEN2] + 1) / 2;
	if (g > b)
		b = g;
	return r->n[IL_U_T] > b ? r->n[IL_U_T] : b;
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
	int cls = o->gen == 4 ? IL_U_GEN4 : o->gen == 2 ? IL_U_GEN2 :
	          o->gen == 1 ? IL_U_ANY : IL_U_T;
	for (int i = 0; i < copies; i++) {
		/* a sequence: its first step in t when the row says so */
		int len = o->seq ? o->seq : o->t && o->gen ? 2 : 1;
		for (int s = 0; s < len; s++) {
			int first = s == 0;
			u[n].cls = first && o->t ? IL_U_T : cls;
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

/* Each uop goes into the first bundle at or after the ones its operands
 * come from (plus one: a bundle cannot read what it writes), after every
 * earlier write of what it writes and not before a read of it (a bundle
 * reads before it writes), where a slot of its kind is free. */
int il_pack(const IlProg *p, int a, int b, IlOrder order, IlPack *res)
{
	IlPack r;
	memset(&r, 0, sizeof r);
	size_t nrow = (size_t)p->nreg * 4;
	int *ready = calloc(nrow + 1, sizeof(int)); /* first bundle it is ready */
	int *lastrd = calloc(nrow + 1, sizeof(int));
	int *lastwr = calloc(nrow + 1, sizeof(int));
	int cap = 64, nb = 0, rc = -1;
	Slots *bun = calloc((size_t)cap, sizeof *bun);
	if (!ready || !lastrd || !lastwr || !bun)
		goto out;
	for (size_t i = 0; i < nrow; i++)
		lastwr[i] = -1;
	int cur = 0, prev = -1;
	Uop u[MAXUOP];
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
			if (order == IL_INORDER && lo < cur)
				lo = cur;
			int q = lo;
			for (;; q++) {
				if (q >= cap) {
					Slots *more = realloc(bun, sizeof *bun * (size_t)cap * 2);
					if (!more)
						goto out;
					bun = more;
					memset(bun + cap, 0, sizeof *bun * (size_t)cap);
					cap *= 2;
				}
				Slots *s = &bun[q];
				int ok = order == IL_UNLIMITED ? 1 :
				         u[i].cls == IL_U_ANY ? s->gen < 4 || !s->t :
				         u[i].cls == IL_U_T ? !s->t :
				         u[i].cls == IL_U_GEN2 ? s->gen <= 2 : s->gen == 0;
				if (ok)
					break;
			}
			Slots *s = &bun[q];
			switch (u[i].cls) {
			case IL_U_ANY:
				if (s->gen < 4)
					s->gen++;
				else
					s->t = 1;
				r.slots++;
				break;
			case IL_U_T:
				s->t = 1;
				r.slots++;
				break;
			case IL_U_GEN2:
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
	*res = r;
	rc = 0;
out:
	free(ready);
	free(lastrd);
	free(lastwr);
	free(bun);
	return rc;
}

int il_region(const IlProg *p, const char *text, size_t len,
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

IlCount il_count(const IlProg *p, int a, int b)
{
	IlCount c;
	memset(&c, 0, sizeof c);
	Uop u[MAXUOP];
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

int il_pack_whole(const IlProg *p, IlOrder order, IlPack *t)
{
	memset(t, 0, sizeof *t);
	int a = 0;
	for (int k = 0; k <= p->nins; k++)
		if (k == p->nins || il_ops[p->ins[k].op].cls == IC_FLOW) {
			IlPack r;
			if (il_pack(p, a, k, order, &r))
				return -1;
			t->bundles += r.bundles;
			t->uops += r.uops;
			t->slots += r.slots;
			a = k + 1;
		}
	return 0;
}
