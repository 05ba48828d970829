/* emit.h: the back-end interface.  A target turns the optimized Func into
 * text; adding a target is adding one emit_*.c file with a Target and a
 * line in the table of driver.c.  Every target starts its output with the
 * interface header (nb_iface_print) so the runtime can load it alone. */
#ifndef NB_EMIT_H
#define NB_EMIT_H

#include "ir.h"

typedef struct Target {
	const char *name;  /* --target= value */
	const char *ext;   /* output file extension that selects it */
	/* chooses the options left to the target (not in o->given), from
	 * the widest type the kernel declares */
	void (*defaults)(Type widest, nb_options *o);
	void (*emit)(const Func *f, const nb_iface *iface, Buf *out);
} Target;

extern const Target target_opencl, target_c, target_amdil;

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
nb_iface *iface_build(const Func *f, const char *target, const char *source,
                      const nb_options *o);
/* The C-family spelling of a type: "float", "double", "nb_dd", "int". */
const char *ctype(Type t);
/* Writes a literal of type t so that it reads back exactly. */
void emit_imm(Buf *out, const Ins *in);
/* What ops.h leaves to the C-family target: how it spells the math
 * functions.  The rest of an operation's spelling is its row. */
typedef struct Spelling {
	int fsuffix;        /* float functions end in f, as C's sqrtf; else
	                       they are overloaded, as in OpenCL C */
	int rsqrt;          /* has rsqrt(x); else it is 1 / sqrt(x) */
	const char *native; /* prefix of the fast float forms (P_NATIVE rows)
	                       that --fast-math uses, or NULL */
} Spelling;
/* How an operand is spelled: v<index> unless a back end says otherwise. */
typedef void Namer(Buf *out, const Func *f, int operand, void *arg);
/* The expression computing instruction k from its operands, as sp
 * spells it (fast: under --fast-math); `name` may be NULL. */
void emit_rhs(Buf *out, const Func *f, int k, const Spelling *sp, int fast,
              Namer *name, void *arg);
/* The statement of sink k updating the accumulator spelled r. */
void emit_sink(Buf *out, const Func *f, int k, const char *r,
               const Spelling *sp, Namer *name, void *arg);
/* The dd arithmetic library (ddlib.h), for the generated code. */
extern const char nb_ddlib_src[];

#endif
