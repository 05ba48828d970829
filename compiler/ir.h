/* ir.h: the IR of the inner-loop body and the contract of every pass.
 *
 * A Func is one list of instructions in SSA form: an instruction's operands
 * are earlier instructions (by index), each value is defined once.  Every
 * instruction sits in a block:
 *   B_PRE   once per work item, before the j loop (i-side work, hoisted)
 *   B_BODY  once per step of the j loop: NJ j-elements for NI i-elements
 *   B_TAIL  the j remainder: one j-element for NI i-elements
 * BODY and TAIL may use PRE values, never each other's.  Accumulators are
 * (RMEM var, i-lane) pairs; sink instructions update them in list order.
 * Before unroll_j there is no TAIL and BODY handles one j-element.
 * ir_verify() checks all of this; tests run it after every pass. */
#ifndef NB_IR_H
#define NB_IR_H

#include "ast.h"

enum {
#define OP(name, ...) O_##name,
#include "ops.h"
	O_COUNT
};

enum { P_COMM = 1, P_LEAF = 2, P_SINK = 4, P_NATIVE = 8, P_I = 16, P_J = 32,
       P_MVEC = 64 };
typedef enum {
	K_NONE, K_LOAD, K_ADD, K_MUL, K_FMA, K_DIV, K_SQRT, K_RSQRT, K_TRANS,
	K_CMP, K_OTHER, K_COUNT
} OpKind;

/* One row of ops.h, which says what each field means. */
typedef struct OpInfo {
	const char *name;
	int nargs, props;
	OpKind kind;
	int flops, latency;
	const char *sym, *fn, *call, *dd;
	const char *il; /* ops.h's il and ilp */
	int ilp;
	const char *deriv; /* ops.h's deriv: the derivative rule */
} OpInfo;
/* The precisions of an AMD IL form (ops.h's ilp). */
enum { IL_F = 1, IL_D = 2, IL_DD = 4, IL_FD = 3, IL_ALL = 7 };
extern const OpInfo opinfo[O_COUNT];
extern const char *const kind_name[K_COUNT];
/* The opcode computing each kind of expression (E_CALL: Node.fn). */
extern const int node_op[];
/* The opcode of the built-in function called name, or -1. */
int builtin_find(const char *name);
/* The other names builtin_find knows, ended by a null name. */
typedef struct Alias {
	const char *name;
	int op;
} Alias;
extern const Alias builtin_alias[];
/* The value of op in precision t on constants ((hi, lo) pairs, as
 * Ins.imm): prec[t].eval.  Returns 0 when op does not fold. */
int op_eval(int op, Type t, const double *a, const double *b,
            const double *c, double *r);

enum { B_PRE, B_BODY, B_TAIL };

typedef struct Ins {
	int op;
	Type type;     /* T_F32, T_F64, T_DD, T_BOOL or T_INT (indices) */
	int blk;
	int arg[3];
	int var;       /* LDI, LDJ, CONST, sinks: index into Func.var, else -1 */
	int lane;      /* LDI, IDXI and sinks: i-lane; LDJ, IDXJ: j-lane */
	int copy;      /* unrolled copy it belongs to (scheduler); 0 before */
	double imm[2]; /* IMM: value, and its low part for dd */
	Loc loc;       /* source position it came from */
	const char *name; /* the temporary it computes, if any */
	int tmpl;      /* after unroll_i: the instruction it is a copy of in
	                  the body before unrolling (-1 before); instances of
	                  one template in different i-lanes are isomorphic, so
	                  back ends may emit them as one loop over lanes */
} Ins;

typedef struct Var {
	const char *name;
	nb_role role;
	Type type;
	nb_red red;    /* RMEM: its reduction */
	int sym;       /* RMEM: 1 SYMMETRIC, -1 ANTISYMMETRIC, 0 neither */
	Loc loc;       /* where the source declares it (a derived one: 0) */
} Var;

typedef struct Func {
	Ctx *ctx;
	const char *name;   /* kernel name */
	Var *var;           /* LMEM, BMEM, CONST, RMEM, in declaration order */
	int nvar;
	Ins *ins;
	int n, cap;
	int ni, nj, jsplit; /* unroll factors applied so far */
	int sched;          /* scheduled for interleaving */
} Func;

/* ir.c: building, editing, printing, checking */
Func *func_new(Ctx *c, const char *name);
int ins_add(Func *f, Ins in);          /* appends, returns its index */
Ins ins_make(int op, Type t, int blk, int a, int b, int cc);
int ins_nargs(const Ins *in);
/* Renumbers after a pass: keeps instruction k iff keep[k], and replaces
 * each use of k by repl[k] (repl[k] == k for no change; repl may be NULL).
 * Instructions are reordered by `order` when not NULL (a permutation of
 * the kept ones, which must respect dependences). */
void func_rewrite(Func *f, const int *keep, const int *repl, const int *order);
void ir_print(const Func *f, Buf *out);
/* Returns 0, or reports the first broken rule through ICE when fatal is
 * set and returns -1 otherwise. */
int ir_verify(const Func *f, int fatal);
/* The reduction a sink belongs to (NB_SUM for the sums' four). */
nb_red sink_red(int op);
int *ir_uses(const Func *f);           /* use count per instruction (malloc) */
int ins_equal(const Ins *a, const Ins *b); /* same op, type, args, var... */
const char *type_short(Type t);        /* "f32", "f64", "dd", "bool" */
/* The i-lane and the j-lane each value depends on: a lane, -1 for none
 * (shared by all lanes), -2 for several.  il and jl hold f->n entries. */
void ir_lanes(const Func *f, int *il, int *jl);
/* The widest floating type of the declared variables (vars_only), or of
 * everything the kernel computes: T_F32 < T_F64 < T_DD. */
Type ir_widest(const Func *f, int vars_only);
/* The same for the kernel's rounding arithmetic, which the build options
 * (subnormals flushed, fast math, estimates) are chosen for: a count's
 * double (sema.c) in a float kernel leaves them float's. */
Type ir_widest_arith(const Func *f);

/* The most instructions a Func may have, before and after unrolling.  A
 * compilation costs up to about 900 bytes per final instruction (the
 * passes' copies and the generated text), so this keeps it under half a
 * gigabyte; real kernels are thousands (docs/language.md, "Limits"). */
#define MAX_INS 500000

/* lower.c: the checked AST to IR (one BODY block, NI = NJ = T = 1).  On a
 * body of more than MAX_INS instructions it reports an error and stops. */
Func *lower(Ctx *c, Prog *p);

/* ad.c: derives the lowered Func (docs/autodiff.md): jvp "x:v,..." seeds
 * input x with tangent input v in forward mode ("r:d" names result r's
 * derivative d), grad "x,..." gives each sum and logsumexp= (or those
 * grad_of "r,..." names) its gradient with respect to the inputs (reverse
 * or forward mode; BMEM inputs: the Func turned around, i and j
 * exchanged).  Adds the new variables and results (a logsumexp=
 * differentiated becomes an input: the primal's value); -1 after an
 * error. */
int ad_derive(Func *f, const char *jvp, const char *grad,
              const char *grad_of);
/* nblprint.c: the lowered Func as .nbl source (--emit=nbl) */
void nbl_print(const Func *f, Buf *out);

/* The passes, in the order driver.c runs them.  Each keeps the program's
 * meaning; only those that say so may change rounding. */
void pass_fold(Func *f);    /* constants, identities exact in IEEE */
void pass_powred(Func *f);  /* ** to multiplies, sqrt, rsqrt */
void pass_cse(Func *f);     /* common subexpressions */
void pass_dce(Func *f);     /* unused values */
void pass_reassoc(Func *f); /* sums reordered for fma: float or fast-math */
void pass_fma(Func *f);     /* a*b+c to fma (float, double); rounds once */
void pass_hoist(Func *f);   /* j-independent work to PRE */
void pass_unroll_i(Func *f, int ni);
void pass_jsplit(Func *f, int t);
void pass_unroll_j(Func *f, int nj);
void pass_sched(Func *f);   /* interleave independent copies */

/* stats.c */
typedef struct Stats {
	double per_kind[K_COUNT]; /* operations per interaction */
	double ops;               /* all arithmetic per interaction */
	double flops;             /* counted flops per interaction */
	double flops_conv;        /* 38-flop convention, 0 if not gravity */
	int live_body;            /* most values live at once in the loop */
	int live_pre;             /* values carried from PRE into the loop */
	int regs;                 /* 32-bit register estimate */
} Stats;
void ir_stats(const Func *f, Stats *s);
void stats_print(const Func *f, const Stats *s, Buf *out);
void explain_print(const Func *f, Buf *out);

#endif
