/* cse.c: common-subexpression elimination by hash-consing.  Two pure
 * instructions with the same operation, type, block and operands compute
 * the same bits, so the later one is replaced by the earlier.  Operands of
 * commutative operations are matched in either order.  In float and double
 * they are also put in a fixed order, which is exact; a dd product is not
 * symmetric in its bits (ddlib.h's nb_dd_mul rounds a.lo*b.hi last), so dd
 * operands keep the order they have, the same in every unrolled i-lane, and
 * the back ends that write lanes as one loop (emit_c.c) agree with those
 * that write them one by one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t hash_ins(const Ins *in)
{
	uint64_t h = (uint64_t)in->op * 31 + (uint64_t)in->type;
	h = mix(h, (uint64_t)in->blk);
	h = mix(h, (uint64_t)(in->var + 1));
	h = mix(h, (uint64_t)in->lane);
	for (int a = 0; a < ins_nargs(in); a++)
		h = mix(h, (uint64_t)in->arg[a]);
	if (in->op == O_IMM) {
		uint64_t b[2];
		memcpy(b, in->imm, sizeof b);
		h = mix(mix(h, b[0]), b[1]);
	}
	/* mix() leaves differences in high bits there (literals differ in
	 * their top bits); the table indexes by low bits, so fold them down
	 * or every literal lands in one probe chain (quadratic CSE). */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

void pass_cse(Func *f)
{
	int n = f->n;
	size_t nb = 16;
	while (nb < (size_t)n * 2)
		nb *= 2;
	int *table = malloc(sizeof(int) * nb);
	int *repl = malloc(sizeof(int) * (size_t)(n ? n : 1));
	int *keep = malloc(sizeof(int) * (size_t)(n ? n : 1));
	Ins *key = malloc(sizeof(Ins) * (size_t)(n ? n : 1));
	if (!table || !repl || !keep || !key)
		ICE("out of memory");
	for (size_t i = 0; i < nb; i++)
		table[i] = -1;
	int changed = 0;
	for (int k = 0; k < n; k++) {
		Ins *in = &f->ins[k];
		repl[k] = k;
		keep[k] = 1;
		for (int a = 0; a < ins_nargs(in); a++)
			in->arg[a] = repl[in->arg[a]];
		if (opinfo[in->op].props & P_SINK)
			continue;
		/* fma(a, b, c) is commutative in a and b as well */
		key[k] = *in;
		if ((opinfo[in->op].props & P_COMM || in->op == O_FMA ||
		     in->op == O_FMS || in->op == O_FNMA) &&
		    in->arg[0] > in->arg[1]) {
			int t = in->arg[0];
			key[k].arg[0] = in->arg[1];
			key[k].arg[1] = t;
			if (in->type != T_DD)
				*in = key[k];
		}
		size_t h = (size_t)hash_ins(&key[k]) & (nb - 1);
		for (;;) {
			int e = table[h];
			if (e < 0) {
				table[h] = k;
				break;
			}
			if (ins_equal(&key[e], &key[k])) {
				repl[k] = e;
				keep[k] = 0;
				if (!f->ins[e].name)
					f->ins[e].name = in->name;
				changed = 1;
				break;
			}
			h = (h + 1) & (nb - 1);
		}
	}
	if (changed)
		func_rewrite(f, keep, repl, NULL);
	free(table);
	free(repl);
	free(keep);
	free(key);
}
