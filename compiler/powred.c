/* powred.c: strength reduction of x ** e for a constant e.  Integer powers
 * become multiplications by repeated squaring (x**-n: 1 / x**n); halves use
 * sqrt and rsqrt: x**0.5 = sqrt(x), x**-0.5 = rsqrt(x), x**-1.5 = rsqrt(x)
 * cubed, x**(n+0.5) = x**n * sqrt(x).  Other exponents stay pow(). */
#include <math.h>
#include <stdlib.h>
#include "ir.h"

/* Largest |e| worth expanding; beyond it pow() is both shorter and as good. */
#define MAXEXP 1024

typedef struct R {
	Func *f;
	Ins *out;
	int n, cap;
	int *map; /* old index -> new index */
} R;

static int put(R *r, Ins in)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		Ins *v = cnew(r->f->ctx, sizeof(Ins) * (size_t)r->cap);
		for (int i = 0; i < r->n; i++)
			v[i] = r->out[i];
		r->out = v;
	}
	r->out[r->n] = in;
	return r->n++;
}

static int mk(R *r, const Ins *like, int op, int a, int b)
{
	Ins in = ins_make(op, like->type, like->blk, a, b, -1);
	in.loc = like->loc;
	in.copy = like->copy;
	return put(r, in);
}

static int one(R *r, const Ins *like)
{
	Ins in = ins_make(O_IMM, like->type, like->blk, -1, -1, -1);
	in.imm[0] = 1;
	in.loc = like->loc;
	return put(r, in);
}

/* x**n for n >= 1, by squaring: at most 2*log2(n) multiplies. */
static int ipow(R *r, const Ins *like, int x, long n)
{
	int acc = -1, sq = x;
	for (;;) {
		if (n & 1)
			acc = acc < 0 ? sq : mk(r, like, O_MUL, acc, sq);
		n >>= 1;
		if (!n)
			break;
		sq = mk(r, like, O_MUL, sq, sq);
	}
	return acc;
}

static int reduce(R *r, const Ins *in, int x, double e)
{
	if (e == 0)
		return one(r, in);
	double twice = 2 * e;
	if (twice != floor(twice) || fabs(e) > MAXEXP)
		return -1;
	long n = (long)floor(fabs(e));
	int half = twice != 2 * floor(e);
	if (!half) {
		int p = ipow(r, in, x, n);
		return e > 0 ? p : mk(r, in, O_DIV, one(r, in), p);
	}
	if (e > 0) { /* x**(n+1/2) = x**n * sqrt(x) */
		int s = mk(r, in, O_SQRT, x, -1);
		return n ? mk(r, in, O_MUL, ipow(r, in, x, n), s) : s;
	}
	/* x**-(n+1/2) = rsqrt(x)**(2n+1) */
	int q = mk(r, in, O_RSQRT, x, -1);
	return ipow(r, in, q, 2 * n + 1);
}

void pass_powred(Func *f)
{
	R r = {0};
	r.f = f;
	r.map = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	if (!r.map)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++) {
		Ins in = f->ins[k];
		for (int a = 0; a < ins_nargs(&in); a++)
			in.arg[a] = r.map[in.arg[a]];
		int v = -1;
		if (in.op == O_POW && r.out[in.arg[1]].op == O_IMM &&
		    r.out[in.arg[1]].imm[1] == 0)
			v = reduce(&r, &in, in.arg[0], r.out[in.arg[1]].imm[0]);
		if (v < 0)
			v = put(&r, in);
		else if (in.name && !r.out[v].name &&
		         !(opinfo[r.out[v].op].props & P_LEAF))
			r.out[v].name = in.name;
		r.map[k] = v;
	}
	f->ins = r.out;
	f->n = r.n;
	f->cap = r.cap;
	free(r.map);
}
