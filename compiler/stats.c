/* stats.c: what --stats reports: operations per interaction by kind, flops
 * (counted: fma 2, every other arithmetic operation 1; and by the 38-flop
 * convention of gravity codes, paper 001 section 4), and an estimate of the
 * registers the loop needs (values live at once, in 32-bit words). */
#include <stdlib.h>
#include <string.h>
#include "ir.h"

static int words(Type t) { return type_numeric(t) ? prec[t].words : 1; }

void ir_stats(const Func *f, Stats *s)
{
	memset(s, 0, sizeof *s);
	double per = (double)f->ni * f->nj;
	int nsqrt = 0, ntrans = 0, nrmem = 0, nother = 0;
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		if (in->blk != B_BODY)
			continue;
		const OpInfo *oi = &opinfo[in->op];
		s->per_kind[oi->kind] += 1 / per;
		if (oi->kind != K_NONE && oi->kind != K_LOAD)
			s->ops += 1 / per;
		s->flops += oi->flops / per;
		nsqrt += oi->kind == K_SQRT || oi->kind == K_RSQRT;
		ntrans += oi->kind == K_TRANS;
		nother += oi->kind == K_CMP || oi->kind == K_OTHER;
	}
	for (int v = 0; v < f->nvar; v++)
		nrmem += f->var[v].role == NB_RMEM;
	/* the convention counts gravity with potential: 4 results, one
	 * square root per interaction, nothing but arithmetic (a cutoff's
	 * compare and select make it another kernel) */
	if (nrmem == 4 && ntrans == 0 && nother == 0 && nsqrt == (int)per &&
	    s->ops > 0)
		s->flops_conv = 38;

	/* liveness over the body in list order */
	int n = f->n;
	int *last = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!last)
		ICE("out of memory");
	for (int k = 0; k < n; k++)
		last[k] = -1;
	int pre_words = 0;
	char *carried = calloc((size_t)(n ? n : 1), 1);
	if (!carried)
		ICE("out of memory");
	for (int k = 0; k < n; k++) {
		const Ins *in = &f->ins[k];
		if (in->blk != B_BODY)
			continue;
		for (int a = 0; a < ins_nargs(in); a++) {
			int x = in->arg[a];
			if (f->ins[x].blk == B_PRE) {
				if (!carried[x] && f->ins[x].op != O_IMM) {
					carried[x] = 1;
					s->live_pre++;
					pre_words += words(f->ins[x].type);
				}
			} else {
				last[x] = k;
			}
		}
	}
	int live = 0, livew = 0, maxw = 0;
	for (int k = 0; k < n; k++) {
		const Ins *in = &f->ins[k];
		if (in->blk != B_BODY)
			continue;
		for (int a = 0; a < ins_nargs(in); a++) {
			int x = in->arg[a];
			if (f->ins[x].blk == B_BODY && last[x] == k &&
			    (a == 0 || in->arg[a - 1] != x) &&
			    (a < 2 || in->arg[a - 2] != x)) {
				live--;
				livew -= words(f->ins[x].type);
			}
		}
		if (last[k] >= 0 && in->op != O_IMM) {
			live++;
			livew += words(in->type);
		}
		if (live > s->live_body)
			s->live_body = live;
		if (livew > maxw)
			maxw = livew;
	}
	int accw = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			accw += words(f->var[v].type) * f->ni;
	s->regs = maxw + pre_words + accw;
	free(last);
	free(carried);
}

void stats_print(const Func *f, const Stats *s, Buf *out)
{
	Type t = ir_widest(f, 1);
	buf_printf(out, "kernel %s: --unroll-i=%d --unroll-j=%d --jsplit=%d, %s\n",
	           f->name ? f->name : "?", f->ni, f->nj, f->jsplit,
	           type_name(t));
	buf_puts(out, "operations per interaction:\n");
	for (int k = K_ADD; k < K_COUNT; k++)
		if (s->per_kind[k] > 0)
			buf_printf(out, "  %-15s %g\n", kind_name[k],
			           s->per_kind[k]);
	buf_printf(out, "  %-15s %g\n", "total", s->ops);
	buf_printf(out, "  %-15s %g\n", "j loads", s->per_kind[K_LOAD]);
	buf_printf(out, "flops per interaction: %g counted", s->flops);
	if (s->flops_conv > 0)
		buf_printf(out, ", %g by the 38-flop convention", s->flops_conv);
	buf_putc(out, '\n');
	int pre = 0;
	for (int k = 0; k < f->n; k++)
		pre += f->ins[k].blk == B_PRE &&
		       opinfo[f->ins[k].op].kind != K_NONE &&
		       opinfo[f->ins[k].op].kind != K_LOAD;
	buf_printf(out, "hoisted out of the j loop: %d operations per work "
	           "item\n", pre);
	int nrmem = 0;
	for (int v = 0; v < f->nvar; v++)
		nrmem += f->var[v].role == NB_RMEM;
	buf_printf(out, "live values in the loop: %d, carried into it: %d, "
	           "accumulators: %d\n", s->live_body, s->live_pre,
	           f->ni * nrmem);
	buf_printf(out, "register estimate: %d 32-bit words\n", s->regs);
}
