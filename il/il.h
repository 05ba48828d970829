/* il.h: nbcc's subset of AMD IL (docs/amdil.md) as a program: the reader
 * (ilread.c) turns text into decoded instructions, every check it can make
 * made there; the interpreter (ilexec.c) runs them work item by work item.
 * The runtime's amdil device, bin/ilrun and a VLIW report share this. */
#ifndef NB_IL_H
#define NB_IL_H

#include <stddef.h>
#include <stdint.h>

enum {
	IL_NUAV = 12,       /* raw UAVs 0..11 */
	IL_NCB = 16,        /* constant buffers cb0..cb15 */
	IL_MAXCB = 4096,    /* entries of one constant buffer */
	IL_MAXREG = 4096,   /* rN and lN: N below this */
	IL_MAXGROUP = 1024, /* dcl_num_thread_per_group */
};

/* The step limit of one nb_il_run call unless the caller gives another. */
#define IL_MAX_STEPS ((uint64_t)1 << 40)

typedef enum { IC_FLOAT, IC_TRANS, IC_DOUBLE, IC_INT, IC_MEM, IC_FLOW } IlClass;
/* How an instruction reads and writes its operands (ilops.h says each). */
typedef enum {
	SH_VEC, SH_DBL, SH_DCMP, SH_FTOD, SH_LOAD, SH_STORE, SH_COND, SH_FLOW
} IlShape;

typedef enum {
#define IL_OP(id, name, nsrc, cls, shape, gen, t, seq) id,
#include "ilops.h"
	IL_NOP
} IlOp;

typedef struct IlOpInfo {
	const char *name;
	int nsrc;
	IlClass cls;
	IlShape shape;
	int gen, t, seq; /* VLIW slots and sequence length (ilops.h) */
} IlOpInfo;
extern const IlOpInfo il_ops[IL_NOP];

/* Registers as written.  Every register the program names gets one row of
 * the interpreter's register file: temporaries first (0 .. ntemp-1), then
 * the literals, the constant-buffer entries used, the system values. */
typedef enum {
	RK_TEMP,     /* rN */
	RK_LIT,      /* lN */
	RK_CB,       /* cbN[entry] */
	RK_ABSTID,   /* vAbsTidFlat: x the flat global thread id */
	RK_TIDINGRP, /* vTidInGrpFlat: x the id within the group */
	RK_GRPID,    /* vThreadGrpIdFlat: x the group id */
} IlRegKind;

typedef struct IlReg {
	IlRegKind kind;
	int num;   /* N of rN, lN, cbN */
	int entry; /* RK_CB: the entry */
} IlReg;

/* Swizzle selectors: components 0..3, or the float constants. */
enum { IL_SEL_0 = 4, IL_SEL_1 = 5 };

typedef struct IlSrc {
	uint32_t reg;    /* row of the register file (IlProg.reg) */
	uint8_t swz[4];  /* selector of each position, the written swizzle
	                    extended by its last character */
	uint8_t nswz;    /* characters written after '.' (0: none) */
	uint8_t neg;     /* _neg(...): the components named (bit c: x, y, z, w) */
	uint8_t abs;     /* _abs given */
	/* what the interpreter does, derived from the above and the shape:
	 * positions whose sign bit is cleared (rabs) then flipped (rneg) --
	 * for a double source bit 1, its high word -- and the components of
	 * the register the instruction reads (checked as written) */
	uint8_t rabs, rneg, need;
} IlSrc;

typedef struct IlIns {
	IlOp op;
	uint8_t mask;    /* components written: of dst, or of mem for a store */
	uint8_t uav;     /* uav_raw_*_id(n) */
	uint32_t dst;    /* row written (SH_VEC, SH_DBL, SH_DCMP, SH_FTOD,
	                    SH_LOAD) */
	/* flow: the matching instruction -- whileloop its endloop, endloop
	 * its whileloop, a break its loop's endloop, an if its else (or
	 * endif), else its endif, endif its if; execution goes on at
	 * match + 1 where it jumps */
	int match;
	int line;
	IlSrc src[3];
} IlIns;

typedef struct IlLit {
	int num;
	uint32_t v[4];
} IlLit;

typedef struct IlProg {
	char *name;                /* for messages */
	int group;                 /* dcl_num_thread_per_group */
	int cbsize[IL_NCB];        /* entries declared, 0: none */
	unsigned uavs;             /* bit n: dcl_raw_uav_id(n) */
	IlLit *lit;                /* in declaration order */
	int nlit;
	IlReg *reg;                /* the register file's rows */
	int nreg, ntemp;
	IlIns *ins;
	int nins;                  /* the last is end */
} IlProg;

/* The functions below are il/'s interface to the runtime: libnbcc.so,
 * built -fvisibility=hidden, exports them (and nothing else of il/) so
 * that libnbrt.so's amdil device calls them there and il/ is linked once.
 * They are not installed API (il.h is not installed); tests/sh/install.sh
 * expects them beside nbcc.h's functions.  They carry the
 * library's prefix (nb_): a program with a function il_read of its own
 * would otherwise take libnbrt.so's calls to it. */
#pragma GCC visibility push(default)

/* Reads IL text; name is used in messages.  NULL with "NAME:LINE: error:
 * MSG" in err (without a newline) when the text is not in the subset. */
IlProg *nb_il_read(const char *text, size_t len, const char *name, char *err,
                size_t errlen);
void nb_il_free(IlProg *p);

/* What a run reads and writes: the bytes of each raw UAV, and each
 * constant buffer's entries (four dwords each). */
typedef struct IlMem {
	unsigned char *uav[IL_NUAV];
	size_t uavlen[IL_NUAV];
	const uint32_t *cb[IL_NCB];
	size_t cblen[IL_NCB];      /* entries given, at least those declared */
} IlMem;

/* Runs work items first .. first+n-1 (vAbsTidFlat), each alone with fresh
 * registers, at most maxsteps instructions in all (0: IL_MAX_STEPS).  The
 * program is only read, so calls on disjoint work items may run at once
 * where their stores do not meet.  Returns 0, or -1 with "NAME:LINE:
 * error: MSG (work item G)" in err. */
int nb_il_run(const IlProg *p, const IlMem *m, uint64_t first, uint64_t n,
           uint64_t maxsteps, char *err, size_t errlen);

/* A register as written ("r5", "l0", "cb1[2]", "vAbsTidFlat") into buf. */
void nb_il_reg_name(const IlProg *p, uint32_t row, char *buf, size_t len);

#pragma GCC visibility pop

#endif
