/* dce.c: dead-code elimination.  Accumulations are the only effects; a
 * value no accumulation reaches is dropped. */
#include <stdlib.h>
#include "ir.h"

void pass_dce(Func *f)
{
	int n = f->n;
	int *live = calloc((size_t)(n ? n : 1), sizeof(int));
	if (!live)
		ICE("out of memory");
	for (int k = n - 1; k >= 0; k--) {
		const Ins *in = &f->ins[k];
		if (opinfo[in->op].props & P_SINK)
			live[k] = 1;
		if (!live[k])
			continue;
		for (int a = 0; a < ins_nargs(in); a++)
			live[in->arg[a]] = 1;
	}
	int dead = 0;
	for (int k = 0; k < n; k++)
		dead += !live[k];
	if (dead)
		func_rewrite(f, live, NULL, NULL);
	free(live);
}
