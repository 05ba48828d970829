/* fma.c: contraction of a multiply and an add into one fused operation
 * (rounding once instead of twice).  Only a multiply with no other use is
 * absorbed, so the count of operations never grows.  Float and double
 * only: dd has no fused form to gain from.  --no-fma turns it off. */
#include <stdlib.h>
#include "ir.h"

void pass_fma(Func *f)
{
	if (!f->ctx->opt->fma)
		return;
	int *uses = ir_uses(f);
	for (int k = 0; k < f->n; k++) {
		Ins *in = &f->ins[k];
		if (!type_numeric(in->type) || !prec[in->type].fuses)
			continue;
		int a0 = in->arg[0], a1 = in->arg[1];
#define MULT(v) (f->ins[v].op == O_MUL && uses[v] == 1 && \
                 f->ins[v].blk == in->blk)
		int m = -1, other = -1, op = -1;
		switch (in->op) {
		case O_ADD:
			if (MULT(a0))
				m = a0, other = a1, op = O_FMA;
			else if (MULT(a1))
				m = a1, other = a0, op = O_FMA;
			break;
		case O_SUB:
			if (MULT(a0))
				m = a0, other = a1, op = O_FMS;
			else if (MULT(a1))
				m = a1, other = a0, op = O_FNMA;
			break;
		case O_ACC:
		case O_ACCSUB:
			if (MULT(a0)) {
				in->op = in->op == O_ACC ? O_ACCFMA : O_ACCFNMA;
				in->arg[0] = f->ins[a0].arg[0];
				in->arg[1] = f->ins[a0].arg[1];
				uses[a0] = 0;
			}
			break;
		}
#undef MULT
		if (m < 0)
			continue;
		in->op = op;
		in->arg[0] = f->ins[m].arg[0];
		in->arg[1] = f->ins[m].arg[1];
		in->arg[2] = other;
		uses[m] = 0;
	}
	free(uses);
}
