/* emit.h: the back-end interface.  A target turns the optimized Func into
 * text; adding a target is adding one emit_*.c file (or a folder, as
 * amdil/) with a Target and a line in the table of target.c.  Every
 * target starts its output with the interface header (nb_iface_print) so
 * the runtime can load it alone. */
#ifndef NB_EMIT_H
#define NB_EMIT_H

#include "ir.h"

/* What ops.h leaves to the C-family target: how it spells the math
 * functions.  The rest of an operation's spelling is its row. */
typedef struct Spelling {
	int fsuffix;        /* float functions end in f, as C's sqrtf; else
	                       they are overloaded, as in OpenCL C */
	int rsqrt;          /* has rsqrt(x); else it is 1 / sqrt(x) */
	const char *native; /* prefix of the fast float forms (P_NATIVE rows)
	                       that --fast-math uses, or NULL */
	int select_minmax;  /* min= and max= as a compare and select, which
	                       gcc's vectorizer takes and fminf stops; the
	                       running value is never a NaN, so the two agree */
} Spelling;

/* Everything a back end decides.  The rest of the compiler asks the
 * Target, never compares its name. */
typedef struct Target {
	const char *name;  /* --target= value and the interface's target line */
	const char *ext;   /* output file extension that selects it: ".cl" */
	const char *lang;  /* what it writes, for nbcc --help: "OpenCL C" */
	/* BMEM values of one type share vectors of 4 scalars (2 dd), so
	 * one load fetches several; 0: one array per value */
	int pack_bmem;
	/* appended to NB_KPFX and the kernel name for the entry symbol; for
	 * interface files from before the entry line, to the bare name
	 * (NULL: nothing) */
	const char *entry_suffix;
	/* appended likewise for the entry of Newton's third law (nb_iface
	 * pairs), given where every RMEM is SYMMETRIC or ANTISYMMETRIC; NULL:
	 * the target has none */
	const char *pairs_suffix;
	/* 1: only for a kernel of one i-element and one j-element a work
	 * item, unsplit (the runtime compiles that variant for it) */
	int pairs_plain;
	/* chooses the options left to the target (not in o->given), from
	 * the widest type the kernel declares; returns the row it used (or
	 * NULL) */
	const nb_defaults *(*defaults)(Type widest, nb_options *o);
	/* sets the launch shape, fc->wg and fc->tile (NULL: both stay 0) */
	void (*launch)(const Func *f, const nb_options *o, nb_iface *fc);
	/* the build options the kernel asks of its compiler, a constant from
	 * the fixed list the runtime checks, for the widest type it computes
	 * in (NULL: none) */
	const char *(*build_options)(Type widest, const nb_options *o);
	/* 1: it writes the entry of block-sparse runs when asked
	 * (nb_options.ranges) */
	int ranges;
	/* how it spells math functions (emit_rhs); NULL if it does not
	 * write C-family code */
	const Spelling *spell;
	void (*emit)(const Func *f, const nb_iface *iface, Buf *out);
	/* nbcc --vliw: a report on the code emit wrote, packed into the VLIW
	 * bundles of the target's machine (NULL: it has none) */
	void (*vliw)(const Func *f, const char *code, size_t len, Buf *out);
} Target;

extern const Target target_opencl, target_c, target_amdil;

/* target.c: the table of targets, in the order help texts list them */
const Target *target_named(const char *name); /* NULL if none */
const Target *target_default(void); /* where no target is named */
/* The target whose ext a path ends in (".cl", "k.c"), NULL if none. */
const Target *target_of_ext(const char *path);
/* The extension of a path's last component (".cl"), "" if it has none. */
const char *path_ext(const char *path);

/* defaults.c: sets the options o leaves open from the defaults table's
 * row for the target, o's device class and the widest type, and returns
 * the row (NULL: none).  A row with a register budget also sets the
 * group that keeps its i-elements a group (defaults_wg). */
const nb_defaults *defaults_apply(const char *target, Type widest,
                                  nb_options *o);
/* The row's work group for o->unroll_i and o->jsplit: under a register
 * budget, the row's doubled while it holds fewer i-elements or rows of
 * them than the row asks (at most 1024); else the row's wg. */
int defaults_wg(const nb_defaults *r, const nb_options *o);

/* Names in generated code.  A user's name goes into C or OpenCL C only
 * behind a prefix: nbk_ for the kernel, nbv_ for a variable.  Nothing else
 * the back ends write starts with either (their own names are short fixed
 * ones -- ni, arr, v12, r0_1 -- and the dd library's start with nb_ and
 * NB_), and no C, OpenCL or system library name does, so a kernel called
 * kill, main or M_PI, or a variable called float4, ni or NULL, can
 * neither take nor shadow anything.  The interface header keeps the bare
 * names, which the runtime binds by. */
#define NB_KPFX "nbk_"
#define NB_VPFX "nbv_"

/* emit.c: what the C-like back ends share */
nb_iface *iface_build(const Func *f, const Target *t, const char *source,
                      const nb_options *o);
/* The interface header, each line after prefix, which must be made of
 * the characters the reader skips: spaces, tabs, '*', ';' and '/'. */
void iface_put(Buf *out, const nb_iface *fc, const char *prefix);
/* Whether a kernel computing in `widest` may take float's estimates
 * (prec.c's approx): unless --no-approx, or under --fast-math. */
int emit_approx(Type widest, const nb_options *o);
/* The C-family spelling of a type: "float", "double", "nb_dd", "int". */
const char *ctype(Type t);
/* Writes a literal of type t so that it reads back exactly. */
void emit_imm(Buf *out, const Ins *in);
/* How an operand is spelled: v<index> unless a back end says otherwise. */
typedef void Namer(Buf *out, const Func *f, int operand, void *arg);
/* The expression computing instruction k from its operands, as sp
 * spells it (fast: under --fast-math); `name` may be NULL. */
void emit_rhs(Buf *out, const Func *f, int k, const Spelling *sp, int fast,
              Namer *name, void *arg);
/* The statement of sink k updating the accumulator spelled r. */
void emit_sink(Buf *out, const Func *f, int k, const char *r,
               const Spelling *sp, Namer *name, void *arg);
/* The same with the term's sign turned (a sum's sink: an antisymmetric
 * result's j-side, Newton's third law). */
void emit_sink_neg(Buf *out, const Func *f, int k, const char *r,
                   const Spelling *sp, Namer *name, void *arg);
/* The reductions beyond the sum in C-family code (emit.c says how).  An
 * accumulator spelled r<rest> has its second state rx<rest> where
 * red_aux(red) is 1 (an int: the j index) or 2 (of the RMEM's type). */
const char *red_identity(nb_red r, Type t);
int red_aux(nb_red r);
const char *red_aux_identity(nb_red r, Type t);
/* The helper functions the kernel's reductions call. */
void red_prelude(Buf *out, const Func *f, const Spelling *sp);
/* r (rx) takes in the state s (sx) of RMEM v: a partial result. */
void red_combine(Buf *out, const Func *f, int v, const Spelling *sp,
                 const char *r, const char *rx, const char *s,
                 const char *sx);
/* Makes r the value to store, given the stored one, old, when accum. */
void red_final(Buf *out, const char *ind, const Func *f, int v,
               const Spelling *sp, const char *r, const char *rx,
               const char *old);
/* The dd arithmetic library (ddlib.h), for the generated code. */
extern const char nb_ddlib_src[];

#endif
