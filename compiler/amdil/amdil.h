/* amdil.h: the AMD IL back end's files (paper 001 programmed Cypress in
 * IL; docs/amdil.md) share this: the emission's state E, operands and each
 * file's functions.  Calls go one way, down: kernel, analyse, insn, reduce,
 * fn, dd, regs (vliw.c, the --vliw report, apart). */
#ifndef NB_AMDIL_H
#define NB_AMDIL_H

#include <stdint.h>
#include "emit.h"

enum { NREG = 4096 }; /* the IL's temporaries r0..r4095 */

/* An operand: a temporary, a literal or an entry of cb1, and the first
 * of the components its value takes (a float one, a double the pair
 * from comp, a dd all four: hi in xy, lo in zw).  neg and abs are source
 * modifiers. */
typedef struct Opd {
	char file; /* 'r', 'l' or 'c' */
	int n, comp;
	int neg, abs;
	int w;     /* a temporary's components, as taken */
} Opd;

typedef struct Lit {
	uint32_t w[4];
	char kind;   /* what it was made for, for its comment: 'f', 'i', 'd', 'D' */
	double v[2];
} Lit;

/* One kernel's emission (kernel.c's il_emit owns it). */
typedef struct E {
	const Func *f;
	const nb_iface *fc;
	Buf code;
	int depth;               /* of whileloop and if, for indentation */
	unsigned char busy[NREG]; /* components in use, a bit each */
	int nreg, full;          /* temporaries used; ran out */
	Lit *lit;
	int nlit, caplit;
	Opd *val;                /* where each value lives */
	int *rep;                /* a load repeating an earlier one of its
	                            block (same variable and lane): that one */
	int *last;               /* last use in its own block, -1 if none */
	int *loopuse;            /* PRE values: used in BODY (1), TAIL (2) */
	int *gmask;              /* the load leading a chunk group: its mask */
	int *lead;               /* each load: the leader of its group */
	long *off;               /* each variable's offset in its record */
	size_t rec[3];           /* record bytes of LMEM, BMEM, RMEM */
	int *cbix;               /* each CONST: its entry of cb1 */
	int nchunk;              /* 16-byte chunks of the RMEM record */
	Opd *acc, *part;         /* per (lane, RMEM chunk): r and, under a
	                            j-split, the partial sums s */
	Opd *aux, *paux;         /* per (lane, variable): the second state
	                            of argmin and logsumexp, of r and of s */
	Opd gi, gl, gj;          /* i and ilast in PRE; j in the loops */
	char pool[16][80];
	int npool;
} E;

/* components a value of type t takes: float and bool 1, double 2, dd 4 */
static inline int width(Type t) { return t == T_DD ? 4 : t == T_F64 ? 2 : 1; }

static inline Opd neg(Opd o)
{
	o.neg = !o.neg;
	return o;
}

static inline Opd absv(Opd o)
{
	o.abs = 1;
	return o;
}

/* the high and low double of a dd operand, which keep its negation */
static inline Opd hi(Opd o) { return o; }

static inline Opd lo(Opd o)
{
	o.comp = 2;
	return o;
}

static inline int is_load(int op) { return op == O_LDI || op == O_LDJ; }

/* How a source is read:
 *   S1  one component, replicated (a float, a bool, an integer)
 *   SD  a double of a double instruction: its pair
 *   SP  a double through a float instruction (mov, cmov_logical), into
 *       either pair of the destination: .xyxy or .zwzw
 *   SW  all four components as they are (a dd)
 * A negated float flips bit 31 of every component; a negated double or
 * dd, read as SP or SW, those of the high dwords (y and w), which is the
 * same whether the interpreter counts _neg's components before or after
 * the swizzle. */
enum { S1, SD, SP, SW };

/* regs.c: the text of operands and lines, temporaries, literals.  The
 * strings returned live in E's pool until 16 more are made. */
void emitf(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *src(E *e, Opd o, int form);
const char *masked(E *e, const char *name, int mask);
const char *rmask(E *e, int r, int mask);
const char *dst(E *e, Opd o, int w);
const char *shifted(E *e, Opd o, int mask, int delta);
void mark(E *e, int r, int mask);
int ran_out(E *e);
int take_mask(E *e, int mask);
Opd take(E *e, int w);
void give(E *e, Opd o);
void give_all(E *e, const Opd *t, int n);
/* Frees the temporaries of an expansion. */
#define GIVE(e, ...) give_all(e, (Opd[]){__VA_ARGS__}, \
                              (int)(sizeof (Opd[]){__VA_ARGS__} / sizeof(Opd)))
Opd lit_f(E *e, float x);
Opd lit_i(E *e, int32_t x);
Opd lit_d(E *e, double x);
Opd lit_dd(E *e, double x, double y);
Opd lit_t(E *e, Type t, double x);
Opd operand_of(E *e, int k);
Opd acc_at(E *e, const Opd *set, int v, int lane);

/* dd.c: double and integer instruction lines, and ddlib.h's algorithms
 * expanded into double instructions */
void d2(E *e, const char *op, Opd d, Opd a);
void d3(E *e, const char *op, Opd d, Opd a, Opd b);
void d4(E *e, const char *op, Opd d, Opd a, Opd b, Opd c);
void dcmp(E *e, const char *op, Opd d, Opd a, Opd b);
void iop(E *e, const char *op, Opd d, Opd a, Opd b);
void is_finite(E *e, Opd d, Opd x);
void positive(E *e, Opd ok, Opd ok2, Opd h);
void two_sum(E *e, Opd s, Opd err, Opd a, Opd b);
void fast_sum(E *e, Opd s, Opd err, Opd a, Opd b);
void two_prod(E *e, Opd p, Opd err, Opd a, Opd b);
void mul_d(E *e, Opd s, Opd err, Opd a, Opd b);
void keep_or(E *e, Opd R, Opd ok, Opd h);
void dd_add(E *e, Opd R, Opd a, Opd b);
void dd_mul(E *e, Opd R, Opd a, Opd b);
void dd_div(E *e, Opd R, Opd a, Opd b);
void dd_sqrt(E *e, Opd R, Opd a);
void dd_rsqrt(E *e, Opd R, Opd a);
void dd_cmp(E *e, int op, Opd d, Opd a, Opd b);
void dd_minmax(E *e, int op, Opd R, Opd a, Opd b);

/* fn.c: ddlib.h's functions (exp, log, pow, sin, cos, floor, trunc,
 * round, expm1, log1p, tanh, cbrt, atan2, erf, erfc) expanded into double
 * and integer instructions, in dd and double */
int fn_has(int op);
void fn_dd(E *e, int op, Opd R, Opd a, Opd b);
void fn_double(E *e, int op, Opd d, Opd a, Opd b);

/* reduce.c: the reductions beyond the sum (emit.c says how) */
void red_update(E *e, int v, Opd A, Opd X, Opd a, Opd b);
Opd *take_aux(E *e);
void give_aux(E *e, Opd *x);
void red_init(E *e, const Opd *set, const Opd *aux);
void lse_end(E *e, Opd r, Opd X, Type t);

/* insn.c: the IL of the IR's instructions */
void itot(E *e, Opd d, Opd i, Type t);
void block_il(E *e, int blk);

/* analyse.c: what the emission needs to know first */
int var_mask(E *e, int v);
void analyse(E *e);
int refuse(const Func *f);

/* vliw.c: nbcc --vliw, the Target's vliw */
void amdil_vliw_report(const Func *f, const char *code, size_t len,
                       Buf *out);

#endif
