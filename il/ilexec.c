/* ilexec.c: the interpreter of il.h's programs.  Each work item runs the
 * decoded program alone with fresh registers, lane by lane, in C's IEEE
 * float and double arithmetic (docs/amdil.md says what each instruction
 * computes); what the reader could not check -- a component read before
 * it is written, UAV addresses, the step limit -- is checked here.  One
 * switch over decoded instructions, no allocation once a run starts. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "il.h"

/* A register: x, y, z, w, then the swizzle constants 0.0f and 1.0f, so
 * that every selector is an index, then the components written (bit c),
 * beside the values they guard. */
typedef uint32_t Row[8];
enum { WR = 6 };

#define ONE 0x3f800000u
#define SIGN 0x80000000u

static inline float f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline uint32_t u32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline double f64(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static inline uint64_t u64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static inline __attribute__((always_inline))
void get(const Row *R, const IlSrc *s, uint32_t v[4])
{
	const uint32_t *r = R[s->reg];
	v[0] = r[s->swz[0]];
	v[1] = r[s->swz[1]];
	v[2] = r[s->swz[2]];
	v[3] = r[s->swz[3]];
	if (s->rabs | s->rneg)
		for (int c = 0; c < 4; c++) {
			if (s->rabs >> c & 1)
				v[c] &= ~SIGN;
			if (s->rneg >> c & 1)
				v[c] ^= SIGN;
		}
}

/* Position k of a source alone. */
static inline __attribute__((always_inline))
uint32_t get1(const Row *R, const IlSrc *s, int k)
{
	uint32_t v = R[s->reg][s->swz[k]];
	if ((s->rabs | s->rneg) >> k & 1) {
		if (s->rabs >> k & 1)
			v &= ~SIGN;
		if (s->rneg >> k & 1)
			v ^= SIGN;
	}
	return v;
}

/* The component a mask writes when it writes one, else 4. */
static const uint8_t lone[16] = {4, 0, 1, 4, 2, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4};

/* A double source: low word from position 0, high from position 1. */
static inline double getd(const Row *R, const IlSrc *s)
{
	const uint32_t *r = R[s->reg];
	uint32_t hi = r[s->swz[1]];
	if (s->rabs)
		hi &= ~SIGN;
	if (s->rneg)
		hi ^= SIGN;
	return f64((uint64_t)hi << 32 | r[s->swz[0]]);
}

/* The components of a mask as a select of whole words. */
#define L(c, m) ((m) >> (c) & 1 ? ~0u : 0)
#define M(m) {L(0, m), L(1, m), L(2, m), L(3, m)}
static const uint32_t sel[16][4] = {
	M(0), M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8), M(9), M(10),
	M(11), M(12), M(13), M(14), M(15),
};
#undef L
#undef M

static inline __attribute__((always_inline))
void put(Row *R, uint32_t d, unsigned m, const uint32_t v[4])
{
	uint32_t *r = R[d];
	const uint32_t *k = sel[m];
	for (int c = 0; c < 4; c++)
		r[c] = (v[c] & k[c]) | (r[c] & ~k[c]);
	r[WR] |= m;
}

static inline void putd(Row *R, uint32_t d, unsigned m, double x)
{
	uint64_t u = u64(x);
	int c = m == 0x3 ? 0 : 2;
	R[d][c] = (uint32_t)u;
	R[d][c + 1] = (uint32_t)(u >> 32);
	R[d][WR] |= m;
}

/* IEEE 754 minNum (op <) and maxNum (op >): a NaN operand yields the
 * other; of two zeros min gives -0 and max +0, so the result never depends
 * on the order. */
#define MINMAX(name, T, op, neg) \
	static inline T name(T a, T b) \
	{ \
		if (a != a) \
			return b; \
		if (b != b || a op b) \
			return a; \
		if (b op a) \
			return b; \
		return !signbit(a) == !(neg) ? a : b; \
	}
MINMAX(fmin32, float, <, 1)
MINMAX(fmax32, float, >, 0)
MINMAX(fmin64, double, <, 1)
MINMAX(fmax64, double, >, 0)
#undef MINMAX

/* Toward zero, saturated; NaN is 0 (as the hardware's FLT_TO_INT). */
static inline uint32_t ftoi(float f)
{
	if (f != f)
		return 0;
	if (f >= 2147483648.0f)
		return 0x7fffffff;
	if (f <= -2147483648.0f)
		return SIGN;
	return (uint32_t)(int32_t)f;
}

static inline uint32_t sar(uint32_t a, uint32_t n)
{
	n &= 31;
	return a >> n | (a & SIGN && n ? ~(0xffffffffu >> n) : 0);
}

typedef struct Run {
	const IlProg *p;
	char *err;
	size_t errlen;
} Run;

static int rfail(Run *r, const IlIns *in, uint64_t g, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rfail(Run *r, const IlIns *in, uint64_t g, const char *fmt, ...)
{
	int n = in ? snprintf(r->err, r->errlen, "%s:%d: error: ", r->p->name,
	                      in->line) :
	        snprintf(r->err, r->errlen, "%s: error: ", r->p->name);
	if (n < 0 || (size_t)n >= r->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	if (in && k >= 0 && (size_t)(n + k) < r->errlen)
		snprintf(r->err + n + k, r->errlen - (size_t)(n + k),
		         " (work item %llu)", (unsigned long long)g);
	return -1;
}

/* The source of in that reads a component not yet written. */
static int unwritten(Run *r, const IlIns *in, const Row *R, uint64_t g)
{
	for (int s = 0; s < il_ops[in->op].nsrc; s++) {
		const IlSrc *x = &in->src[s];
		unsigned miss = x->need & ~R[x->reg][WR];
		if (!miss)
			continue;
		char name[32];
		nb_il_reg_name(r->p, x->reg, name, sizeof name);
		int c = 0;
		while (!(miss >> c & 1))
			c++;
		return rfail(r, in, g, "%s.%c read before it is written", name,
		             "xyzw"[c]);
	}
	return rfail(r, in, g, "internal error: no unwritten source");
}

static int oob(Run *r, const IlIns *in, uint64_t g, const char *what,
               uint64_t a, size_t len)
{
	return rfail(r, in, g, "%s UAV %d at byte %llu, outside its %zu bytes",
	             what, in->uav, (unsigned long long)a, len);
}

/* One work item from the first instruction to end. */
static int item(Run *r, Row *R, const IlMem *m, uint64_t g, uint64_t *steps)
{
	const IlProg *p = r->p;
	const IlIns *ins = p->ins;
	uint64_t left = *steps;
	int pc = 0;
	for (;;) {
		const IlIns *in = &ins[pc++];
		if (!left--)
			return rfail(r, in, g, "the step limit is reached: a loop "
			             "that does not end?");
		/* every source's components written (non-temporaries always
		 * are) */
		const IlSrc *s = in->src;
		if ((s[0].need & ~R[s[0].reg][WR]) | (s[1].need & ~R[s[1].reg][WR]) |
		    (s[2].need & ~R[s[2].reg][WR]))
			return unwritten(r, in, R, g);
		uint32_t a[4], b[4], c[4], v[4];
		unsigned mk = in->mask;
		int one = lone[mk];
		switch (in->op) {
		/* float, per component; a single component written (most of
		 * what a compiler writes) alone */
#define VEC1(expr) if (one < 4) { int k = one; \
		a[k] = get1(R, &s[0], k); \
		R[in->dst][k] = (expr); R[in->dst][WR] |= mk; break; } \
	get(R, &s[0], a); \
	for (int k = 0; k < 4; k++) v[k] = (expr); \
	put(R, in->dst, mk, v); break
#define VEC2(expr) if (one < 4) { int k = one; \
		a[k] = get1(R, &s[0], k); b[k] = get1(R, &s[1], k); \
		R[in->dst][k] = (expr); R[in->dst][WR] |= mk; break; } \
	get(R, &s[0], a); get(R, &s[1], b); \
	for (int k = 0; k < 4; k++) v[k] = (expr); \
	put(R, in->dst, mk, v); break
#define VEC3(expr) if (one < 4) { int k = one; \
		a[k] = get1(R, &s[0], k); b[k] = get1(R, &s[1], k); \
		c[k] = get1(R, &s[2], k); \
		R[in->dst][k] = (expr); R[in->dst][WR] |= mk; break; } \
	get(R, &s[0], a); get(R, &s[1], b); get(R, &s[2], c); \
	for (int k = 0; k < 4; k++) v[k] = (expr); \
	put(R, in->dst, mk, v); break
/* expensive ones only on the components written, each stored alone (a
 * whole-row store after single-word writes would stall on forwarding) */
#define TRANS(expr) get(R, &s[0], a); \
	for (int k = 0; k < 4; k++) if (mk >> k & 1) R[in->dst][k] = (expr); \
	R[in->dst][WR] |= mk; break
		case IL_MOV: VEC1(a[k]);
		case IL_ADD: VEC2(u32(f32(a[k]) + f32(b[k])));
		case IL_SUB: VEC2(u32(f32(a[k]) - f32(b[k])));
		case IL_MUL: VEC2(u32(f32(a[k]) * f32(b[k])));
		case IL_MAD:
			/* two roundings: the product is a statement of its own,
			 * which no compiler contracts into an fma */
			if (one < 4) {
				float pr = f32(get1(R, &s[0], one)) * f32(get1(R, &s[1], one));
				R[in->dst][one] = u32(pr + f32(get1(R, &s[2], one)));
				R[in->dst][WR] |= mk;
				break;
			}
			get(R, &s[0], a);
			get(R, &s[1], b);
			get(R, &s[2], c);
			for (int k = 0; k < 4; k++) {
				float pr = f32(a[k]) * f32(b[k]);
				v[k] = u32(pr + f32(c[k]));
			}
			put(R, in->dst, mk, v);
			break;
		case IL_FMA:
			/* a call each: only the components written */
			if (one < 4) {
				R[in->dst][one] = u32(fmaf(f32(get1(R, &s[0], one)),
				                           f32(get1(R, &s[1], one)),
				                           f32(get1(R, &s[2], one))));
				R[in->dst][WR] |= mk;
				break;
			}
			get(R, &s[0], a);
			get(R, &s[1], b);
			get(R, &s[2], c);
			for (int k = 0; k < 4; k++)
				if (mk >> k & 1)
					R[in->dst][k] = u32(fmaf(f32(a[k]), f32(b[k]),
					                         f32(c[k])));
			R[in->dst][WR] |= mk;
			break;
		case IL_DIV: VEC2(u32(f32(a[k]) / f32(b[k])));
		case IL_MIN: VEC2(u32(fmin32(f32(a[k]), f32(b[k]))));
		case IL_MAX: VEC2(u32(fmax32(f32(a[k]), f32(b[k]))));
		case IL_LT: VEC2(f32(a[k]) < f32(b[k]) ? ~0u : 0);
		case IL_GE: VEC2(f32(a[k]) >= f32(b[k]) ? ~0u : 0);
		case IL_EQ: VEC2(f32(a[k]) == f32(b[k]) ? ~0u : 0);
		case IL_NE: VEC2(f32(a[k]) != f32(b[k]) ? ~0u : 0);
		case IL_CMOV: VEC3(a[k] ? b[k] : c[k]);
		case IL_FTOI: VEC1(ftoi(f32(a[k])));
		case IL_ITOF: VEC1(u32((float)(int32_t)a[k]));
		case IL_ABS: VEC1(a[k] & ~SIGN);
		case IL_FLOOR: VEC1(u32(floorf(f32(a[k]))));
		case IL_TRUNC: VEC1(u32(truncf(f32(a[k]))));
		/* in double, rounded once to float (docs: the error) */
		case IL_RSQ: TRANS(u32((float)(1 / sqrt((double)f32(a[k])))));
		case IL_SQRT: TRANS(u32((float)sqrt((double)f32(a[k]))));
		case IL_EXP: TRANS(u32((float)exp2((double)f32(a[k]))));
		case IL_LOG: TRANS(u32((float)log2((double)f32(a[k]))));
		case IL_SIN: TRANS(u32((float)sin((double)f32(a[k]))));
		case IL_COS: TRANS(u32((float)cos((double)f32(a[k]))));
		/* double: one pair written */
		case IL_DADD:
			putd(R, in->dst, mk, getd(R, &s[0]) + getd(R, &s[1]));
			break;
		case IL_DMUL:
			putd(R, in->dst, mk, getd(R, &s[0]) * getd(R, &s[1]));
			break;
		case IL_DMAD: {
			double pr = getd(R, &s[0]) * getd(R, &s[1]);
			putd(R, in->dst, mk, pr + getd(R, &s[2]));
			break;
		}
		case IL_DFMA:
			putd(R, in->dst, mk,
			     fma(getd(R, &s[0]), getd(R, &s[1]), getd(R, &s[2])));
			break;
		case IL_DDIV:
			putd(R, in->dst, mk, getd(R, &s[0]) / getd(R, &s[1]));
			break;
		case IL_DSQRT:
			putd(R, in->dst, mk, sqrt(getd(R, &s[0])));
			break;
		case IL_DMIN:
			putd(R, in->dst, mk, fmin64(getd(R, &s[0]), getd(R, &s[1])));
			break;
		case IL_DMAX:
			putd(R, in->dst, mk, fmax64(getd(R, &s[0]), getd(R, &s[1])));
			break;
#define DCMP(op) { \
	uint32_t t = getd(R, &s[0]) op getd(R, &s[1]) ? ~0u : 0; \
	v[0] = v[1] = v[2] = v[3] = t; \
	put(R, in->dst, mk, v); \
	break; }
		case IL_DLT: DCMP(<)
		case IL_DGE: DCMP(>=)
		case IL_DEQ: DCMP(==)
		case IL_DNE: DCMP(!=)
		case IL_FTOD:
			get(R, &s[0], a);
			putd(R, in->dst, mk, (double)f32(a[0]));
			break;
		case IL_DTOF:
			v[0] = v[1] = v[2] = v[3] = u32((float)getd(R, &s[0]));
			put(R, in->dst, mk, v);
			break;
		/* integer: 32-bit, wrapping */
		case IL_IADD: VEC2(a[k] + b[k]);
		case IL_IMUL: VEC2(a[k] * b[k]);
		case IL_IMAD: VEC3(a[k] * b[k] + c[k]);
		case IL_ISHL: VEC2(a[k] << (b[k] & 31));
		case IL_ISHR: VEC2(sar(a[k], b[k]));
		case IL_USHR: VEC2(a[k] >> (b[k] & 31));
		case IL_IAND: VEC2(a[k] & b[k]);
		case IL_IOR: VEC2(a[k] | b[k]);
		case IL_IXOR: VEC2(a[k] ^ b[k]);
		case IL_INOT: VEC1(~a[k]);
		case IL_INEG: VEC1(0u - a[k]);
		case IL_ILT: VEC2((int32_t)a[k] < (int32_t)b[k] ? ~0u : 0);
		case IL_IGE: VEC2((int32_t)a[k] >= (int32_t)b[k] ? ~0u : 0);
		case IL_IEQ: VEC2(a[k] == b[k] ? ~0u : 0);
		case IL_INE: VEC2(a[k] != b[k] ? ~0u : 0);
		case IL_ULT: VEC2(a[k] < b[k] ? ~0u : 0);
		case IL_UGE: VEC2(a[k] >= b[k] ? ~0u : 0);
		case IL_IMIN: VEC2((int32_t)a[k] < (int32_t)b[k] ? a[k] : b[k]);
		case IL_IMAX: VEC2((int32_t)a[k] > (int32_t)b[k] ? a[k] : b[k]);
#undef VEC1
#undef VEC2
#undef VEC3
#undef TRANS
#undef DCMP
		/* memory: dword c at ADDR.x + 4c */
		case IL_LOAD:
		case IL_STORE: {
			get(R, &s[0], a);
			const unsigned char *mem = m->uav[in->uav];
			size_t len = m->uavlen[in->uav];
			int st = in->op == IL_STORE;
			if (a[0] & 3)
				return rfail(r, in, g, "%s UAV %d at byte %u, not a "
				             "multiple of 4", st ? "store to" : "load from",
				             in->uav, a[0]);
			int hi = 3;
			while (!(mk >> hi & 1))
				hi--;
			uint64_t last = (uint64_t)a[0] + 4 * (uint64_t)hi;
			if (last + 4 > len) {
				uint64_t at = a[0];
				for (int k = 0; k < 4; k++)
					if (mk >> k & 1 && (at = a[0] + 4 * (uint64_t)k) + 4 > len)
						break;
				return oob(r, in, g, st ? "store to" : "load from", at,
				           len);
			}
			if (st) {
				get(R, &s[1], b);
				for (int k = 0; k < 4; k++)
					if (mk >> k & 1)
						memcpy(m->uav[in->uav] + a[0] + 4 * k, &b[k], 4);
			} else {
				for (int k = 0; k < 4; k++)
					if (mk >> k & 1)
						memcpy(&R[in->dst][k], mem + a[0] + 4 * k, 4);
				R[in->dst][WR] |= mk;
			}
			break;
		}
		/* control flow: on at match + 1 where it jumps */
		case IL_WHILE:
		case IL_ENDIF:
			break;
		case IL_ENDLOOP:
		case IL_BREAK:
		case IL_ELSE:
			pc = in->match + 1;
			break;
		case IL_BREAKZ:
		case IL_IFNZ:
			get(R, &s[0], a);
			if (!a[0])
				pc = in->match + 1;
			break;
		case IL_BREAKNZ:
		case IL_IFZ:
			get(R, &s[0], a);
			if (a[0])
				pc = in->match + 1;
			break;
		case IL_END:
			*steps = left;
			return 0;
		case IL_NOP:
			return rfail(r, in, g, "internal error: bad opcode");
		}
	}
}

int nb_il_run(const IlProg *p, const IlMem *m, uint64_t first, uint64_t n,
           uint64_t maxsteps, char *err, size_t errlen)
{
	Run r = {p, err, errlen};
	if (first > UINT32_MAX || n > (uint64_t)UINT32_MAX + 1 - first)
		return rfail(&r, NULL, 0, "work items %llu to %llu: vAbsTidFlat "
		             "holds 32 bits", (unsigned long long)first,
		             (unsigned long long)(first + n - 1));
	for (int k = 0; k < IL_NCB; k++)
		if (p->cbsize[k] && (!m->cb[k] || m->cblen[k] < (size_t)p->cbsize[k]))
			return rfail(&r, NULL, 0, "cb%d is declared with %d entries, "
			             "but %zu are given", k, p->cbsize[k],
			             m->cb[k] ? m->cblen[k] : 0);
	Row *R = calloc((size_t)p->nreg + 1, sizeof *R);
	if (!R)
		return rfail(&r, NULL, 0, "out of memory");
	uint32_t tid = (uint32_t)p->nreg, grp = tid, abst = tid;
	for (int i = 0; i < p->nreg; i++) {
		const IlReg *g = &p->reg[i];
		R[i][IL_SEL_1] = ONE;
		if (g->kind != RK_TEMP)
			R[i][WR] = 0xf;
		if (g->kind == RK_CB)
			memcpy(R[i], m->cb[g->num] + 4 * (size_t)g->entry, 16);
		else if (g->kind == RK_ABSTID)
			abst = (uint32_t)i;
		else if (g->kind == RK_TIDINGRP)
			tid = (uint32_t)i;
		else if (g->kind == RK_GRPID)
			grp = (uint32_t)i;
	}
	for (int i = 0; i < p->nlit; i++)
		memcpy(R[p->ntemp + i], p->lit[i].v, 16);
	uint64_t steps = maxsteps ? maxsteps : IL_MAX_STEPS;
	int rc = 0;
	for (uint64_t g = first; g < first + n && !rc; g++) {
		for (int i = 0; i < p->ntemp; i++)
			R[i][WR] = 0;
		/* an unused system value's row is the spare one past the end */
		R[abst][0] = (uint32_t)g;
		R[tid][0] = (uint32_t)(g % (uint64_t)p->group);
		R[grp][0] = (uint32_t)(g / (uint64_t)p->group);
		rc = item(&r, R, m, g, &steps);
	}
	free(R);
	return rc;
}
