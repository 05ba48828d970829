/* hoist.c: loop-invariant code motion out of the j loop.  Work that depends
 * only on i-side values (LMEM) and constants is done once per work item
 * before the loop ("x[i] is reused repeatedly", paper 001), and the list is
 * reordered so that PRE comes first. */
#include <stdlib.h>
#include "ir.h"

void pass_hoist(Func *f)
{
	int n = f->n;
	for (int k = 0; k < n; k++) {
		Ins *in = &f->ins[k];
		const OpInfo *oi = &opinfo[in->op];
		if (oi->props & (P_SINK | P_J) || in->blk == B_TAIL)
			continue;
		int pre = 1;
		for (int a = 0; a < oi->nargs; a++)
			pre &= f->ins[in->arg[a]].blk == B_PRE;
		if (pre)
			in->blk = B_PRE;
	}
	int *order = malloc(sizeof(int) * (size_t)(n + 1));
	if (!order)
		ICE("out of memory");
	int m = 0;
	for (int b = B_PRE; b <= B_TAIL; b++)
		for (int k = 0; k < n; k++)
			if (f->ins[k].blk == b)
				order[m++] = k;
	order[m] = -1;
	func_rewrite(f, NULL, NULL, order);
	free(order);
}
