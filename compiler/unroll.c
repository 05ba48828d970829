/* unroll.c: the loop transforms of paper 001, done on the body.
 *   i-unroll by NI (Fig. 3): NI copies of the body, copy k reading LMEM of
 *     element i+k and accumulating into lane k; CSE then shares what the
 *     copies have in common (each j-element is loaded once for all NI).
 *   j-split by T (paper 003): T work items share an i-group, item p taking
 *     the j-elements p, p+T, ...; the body is unchanged, the Func records T
 *     and the back ends stride the loop and combine the T partial sums.
 *   j-unroll by NJ (Fig. 4): NJ copies of the body for consecutive
 *     j-elements of the work item, all into the same accumulators in order,
 *     and a TAIL block of one j-element for the remainder. */
#include <stdlib.h>
#include "ir.h"

static void copy_block(Func *f, int n, int blk_from, int blk_to, int *map,
                       int copy, int ilane, int jlane, int ncopy_base)
{
	for (int k = 0; k < n; k++) {
		Ins in = f->ins[k];
		if (in.blk != blk_from) {
			map[k] = k; /* PRE values are shared */
			continue;
		}
		for (int a = 0; a < ins_nargs(&in); a++)
			in.arg[a] = map[in.arg[a]];
		in.blk = blk_to;
		if (opinfo[in.op].props & (P_I | P_SINK))
			in.lane = ilane >= 0 ? ilane : in.lane;
		if (opinfo[in.op].props & P_J)
			in.lane = jlane >= 0 ? jlane : in.lane;
		in.copy = ncopy_base + in.copy;
		if (ilane >= 0)
			in.tmpl = k; /* i-unroll: remember the template */
		(void)copy;
		map[k] = ins_add(f, in);
	}
}

void pass_unroll_i(Func *f, int ni)
{
	if (ni <= 1 || f->ni != 1)
		return;
	int n = f->n;
	int *map = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!map)
		ICE("out of memory");
	/* the copies are appended after the original, which is then dropped */
	for (int c = 0; c < ni; c++)
		copy_block(f, n, B_BODY, B_BODY, map, c, c, -1, c);
	int *keep = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	if (!keep)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++)
		keep[k] = k >= n || f->ins[k].blk != B_BODY;
	f->ni = ni;
	func_rewrite(f, keep, NULL, NULL);
	free(keep);
	free(map);
}

void pass_jsplit(Func *f, int t)
{
	f->jsplit = t < 1 ? 1 : t;
}

void pass_unroll_j(Func *f, int nj)
{
	if (nj <= 1 || f->nj != 1)
		return;
	int n = f->n;
	int ncopy = 0;
	for (int k = 0; k < n; k++)
		if (f->ins[k].copy + 1 > ncopy)
			ncopy = f->ins[k].copy + 1;
	int *map = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!map)
		ICE("out of memory");
	for (int u = 0; u < nj; u++)
		copy_block(f, n, B_BODY, B_BODY, map, u, -1, u, u * ncopy);
	copy_block(f, n, B_BODY, B_TAIL, map, 0, -1, -1, 0);
	int *keep = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	if (!keep)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++)
		keep[k] = k >= n || f->ins[k].blk != B_BODY;
	f->nj = nj;
	func_rewrite(f, keep, NULL, NULL);
	free(keep);
	free(map);
}
