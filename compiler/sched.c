/* sched.c: list scheduling of the loop body for wide machines.  After
 * unrolling, the copies are independent chains; a VLIW or in-order core
 * wants them interleaved so that each bundle holds work of several copies.
 * Each instruction's priority is its height (longest latency path to the
 * end of the block); ties go to the lower copy, then to the original order,
 * which interleaves isomorphic copies step by step.  Dependences: operands,
 * and the order of accumulations into one accumulator. */
#include <stdlib.h>
#include "ir.h"

typedef struct SNode {
	int k;       /* instruction */
	int height;
	int npred;   /* unscheduled predecessors */
	int *succ;
	int nsucc, capsucc;
} SNode;

static void edge(SNode *from, int to)
{
	if (from->nsucc == from->capsucc) {
		from->capsucc = from->capsucc ? from->capsucc * 2 : 4;
		from->succ = realloc(from->succ, sizeof(int) * (size_t)from->capsucc);
		if (!from->succ)
			ICE("out of memory");
	}
	from->succ[from->nsucc++] = to;
}

/* binary heap of node positions, best first */
typedef struct Heap {
	int *v;
	int n;
	const SNode *nodes;
	const Ins *ins;
} Heap;

static int better(const Heap *h, int a, int b)
{
	const SNode *x = &h->nodes[a], *y = &h->nodes[b];
	if (x->height != y->height)
		return x->height > y->height;
	int cx = h->ins[x->k].copy, cy = h->ins[y->k].copy;
	if (cx != cy)
		return cx < cy;
	return x->k < y->k;
}

static void push(Heap *h, int x)
{
	int i = h->n++;
	h->v[i] = x;
	while (i > 0 && better(h, h->v[i], h->v[(i - 1) / 2])) {
		int p = (i - 1) / 2, t = h->v[p];
		h->v[p] = h->v[i];
		h->v[i] = t;
		i = p;
	}
}

static int pop(Heap *h)
{
	int top = h->v[0];
	h->v[0] = h->v[--h->n];
	int i = 0;
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && better(h, h->v[l], h->v[m]))
			m = l;
		if (r < h->n && better(h, h->v[r], h->v[m]))
			m = r;
		if (m == i)
			break;
		int t = h->v[m];
		h->v[m] = h->v[i];
		h->v[i] = t;
		i = m;
	}
	return top;
}

/* Schedules the instructions of block b, appending them to order[]. */
static void sched_block(const Func *f, int b, int *order, int *m)
{
	int n = 0;
	int *pos = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	if (!pos)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++)
		pos[k] = f->ins[k].blk == b ? n++ : -1;
	if (!n) {
		free(pos);
		return;
	}
	SNode *nodes = calloc((size_t)n, sizeof(SNode));
	/* last sink per accumulator keeps their order; a small open table
	 * keyed by var*64+lane */
	int nacc = f->nvar * (f->ni > 0 ? f->ni : 1);
	int *lastacc = malloc(sizeof(int) * (size_t)(nacc ? nacc : 1));
	if (!nodes || !lastacc)
		ICE("out of memory");
	for (int i = 0; i < nacc; i++)
		lastacc[i] = -1;
	for (int k = 0; k < f->n; k++) {
		if (pos[k] < 0)
			continue;
		SNode *nd = &nodes[pos[k]];
		nd->k = k;
		const Ins *in = &f->ins[k];
		for (int a = 0; a < ins_nargs(in); a++) {
			int p = pos[in->arg[a]];
			if (p >= 0) {
				edge(&nodes[p], pos[k]);
				nd->npred++;
			}
		}
		if (opinfo[in->op].props & P_SINK) {
			int key = in->var * f->ni + in->lane;
			if (lastacc[key] >= 0) {
				edge(&nodes[lastacc[key]], pos[k]);
				nd->npred++;
			}
			lastacc[key] = pos[k];
		}
	}
	/* heights, from the end: successors come later in the list */
	for (int i = n - 1; i >= 0; i--) {
		SNode *nd = &nodes[i];
		int h = 0;
		for (int s = 0; s < nd->nsucc; s++)
			if (nodes[nd->succ[s]].height > h)
				h = nodes[nd->succ[s]].height;
		nd->height = h + opinfo[f->ins[nd->k].op].latency;
	}
	Heap hp = {0};
	hp.v = malloc(sizeof(int) * (size_t)n);
	hp.nodes = nodes;
	hp.ins = f->ins;
	if (!hp.v)
		ICE("out of memory");
	for (int i = 0; i < n; i++)
		if (nodes[i].npred == 0)
			push(&hp, i);
	while (hp.n) {
		int i = pop(&hp);
		order[(*m)++] = nodes[i].k;
		for (int s = 0; s < nodes[i].nsucc; s++)
			if (--nodes[nodes[i].succ[s]].npred == 0)
				push(&hp, nodes[i].succ[s]);
	}
	for (int i = 0; i < n; i++)
		free(nodes[i].succ);
	free(nodes);
	free(lastacc);
	free(hp.v);
	free(pos);
}

void pass_sched(Func *f)
{
	int *order = malloc(sizeof(int) * (size_t)(f->n + 1));
	if (!order)
		ICE("out of memory");
	int m = 0;
	for (int b = B_PRE; b <= B_TAIL; b++)
		sched_block(f, b, order, &m);
	if (m != f->n)
		ICE("scheduler lost instructions (%d of %d)", m, f->n);
	order[m] = -1;
	func_rewrite(f, NULL, NULL, order);
	f->sched = 1;
	free(order);
}
