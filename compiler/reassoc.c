/* reassoc.c: reorders sums so that fma contraction finds them, as paper 003
 * advises: eps2 + dx*dx + dy*dy + dz*dz is three fmas, while
 * dx*dx + dy*dy + dz*dz + eps2 is a multiply, two fmas and an add.  A sum
 * of single-use adds is flattened into terms and rebuilt with the plain
 * terms first and the products last.  This changes rounding, so it runs
 * only for float, or for any type under --fast-math. */
#include <stdlib.h>
#include "ir.h"

typedef struct Term {
	int v;
	int neg;
} Term;

typedef struct Sum {
	Term *t;
	int n, cap;
} Sum;

static int is_sum(const Ins *in) { return in->op == O_ADD || in->op == O_SUB; }

static void add_term(Sum *s, int v, int neg)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->t = realloc(s->t, sizeof(Term) * (size_t)s->cap);
		if (!s->t)
			ICE("out of memory");
	}
	s->t[s->n].v = v;
	s->t[s->n].neg = neg;
	s->n++;
}

/* Collects the terms of value v; inner adds used only here are opened. */
static void flatten(const Func *f, const int *uses, int v, int neg, int root,
                    Sum *s)
{
	const Ins *in = &f->ins[v];
	if (is_sum(in) && (v == root || uses[v] == 1) &&
	    in->type == f->ins[root].type && s->n < 64) {
		flatten(f, uses, in->arg[0], neg, root, s);
		flatten(f, uses, in->arg[1], in->op == O_SUB ? !neg : neg, root,
		        s);
		return;
	}
	add_term(s, v, neg);
}

static int allowed(const Func *f, Type t)
{
	return prec[t].reorder || f->ctx->opt->fast_math;
}

void pass_reassoc(Func *f)
{
	int *uses = ir_uses(f);
	int n0 = f->n;
	int *user = malloc(sizeof(int) * (size_t)(n0 ? n0 : 1));
	Sum s = {0};
	/* New instructions go at the end, so the list is rebuilt in order. */
	Func out = *f;
	out.ins = NULL;
	out.n = out.cap = 0;
	int *map = malloc(sizeof(int) * (size_t)(n0 ? n0 : 1));
	if (!user || !map)
		ICE("out of memory");
	for (int k = 0; k < n0; k++)
		user[k] = -1;
	for (int k = 0; k < n0; k++)
		for (int a = 0; a < ins_nargs(&f->ins[k]); a++)
			user[f->ins[k].arg[a]] = k;
	int changed = 0;
	for (int k = 0; k < n0; k++) {
		Ins in = f->ins[k];
		/* only the top of a sum tree is rebuilt: a sum whose single
		 * user is another sum of its type is opened by that user */
		int root = is_sum(&in) && allowed(f, in.type);
		if (root && uses[k] == 1 && user[k] >= 0 &&
		    is_sum(&f->ins[user[k]]) && f->ins[user[k]].type == in.type)
			root = 0;
		if (root) {
			s.n = 0;
			flatten(f, uses, k, 0, k, &s);
			/* stable partition: plain terms, then products */
			int moved = 0, seenprod = 0;
			for (int i = 0; i < s.n; i++) {
				int prod = f->ins[s.t[i].v].op == O_MUL;
				if (!prod && seenprod)
					moved = 1;
				seenprod |= prod;
			}
			if (moved && s.n >= 3) {
				Term *t = malloc(sizeof(Term) * (size_t)s.n);
				int m = 0;
				for (int pass = 0; pass < 2; pass++)
					for (int i = 0; i < s.n; i++)
						if ((f->ins[s.t[i].v].op == O_MUL) == pass)
							t[m++] = s.t[i];
				/* start from a positive term where there is one */
				int first = 0;
				while (first < m && t[first].neg)
					first++;
				if (first == m)
					first = 0;
				int acc = map[t[first].v];
				if (t[first].neg) {
					Ins ng = ins_make(O_NEG, in.type, in.blk, acc,
					                  -1, -1);
					ng.loc = in.loc;
					ng.copy = in.copy;
					acc = ins_add(&out, ng);
				}
				for (int i = 0; i < m; i++) {
					if (i == first)
						continue;
					Ins a = ins_make(t[i].neg ? O_SUB : O_ADD,
					                 in.type, in.blk, acc,
					                 map[t[i].v], -1);
					a.loc = in.loc;
					a.copy = in.copy;
					acc = ins_add(&out, a);
				}
				out.ins[acc].name = in.name;
				map[k] = acc;
				free(t);
				changed = 1;
				continue;
			}
		}
		for (int a = 0; a < ins_nargs(&in); a++)
			in.arg[a] = map[in.arg[a]];
		map[k] = ins_add(&out, in);
	}
	if (changed) {
		f->ins = out.ins;
		f->n = out.n;
		f->cap = out.cap;
	}
	free(s.t);
	free(uses);
	free(user);
	free(map);
}
