/* analyse.c: what the AMD IL emission needs to know first: repeated
 * loads, the chunk groups loaded together and last uses; and the
 * operations without an IL form, refused at their source positions. */
#include <stdlib.h>
#include "amdil.h"

/* the components of its 16-byte chunk variable v takes */
int var_mask(E *e, int v)
{
	int c = (int)(e->off[v] % 16) / 4;
	return ((1 << width(e->f->var[v].type)) - 1) << c;
}

/* Repeated loads, chunk groups, last uses. */
void analyse(E *e)
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

int refuse(const Func *f)
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
