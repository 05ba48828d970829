/* ops.h: the IR's opcodes, defined once.  Including this with OP defined
 * yields the enum, the names and the properties (QBE's ops.h idea).
 *
 *  OP(name, args, props, kind, flops, latency)
 *    args     operands taken from other instructions
 *    props    P_COMM commutative, P_LEAF reads an input, P_SINK updates an
 *             accumulator (RMEM) and yields no value
 *    kind     counted under this heading by --stats
 *    flops    counted flops (fma 2, others 1; loads, moves, logic 0)
 *    latency  rough cycles, for the scheduler's critical path */
#ifndef OP
#error "define OP before including ops.h"
#endif

/* leaves */
OP(IMM,     0, P_LEAF, K_NONE,  0, 0)  /* literal: imm[0] (+ imm[1] for dd) */
OP(CONST,   0, P_LEAF, K_NONE,  0, 0)  /* CONST var */
OP(LDI,     0, P_LEAF, K_LOAD,  0, 1)  /* LMEM var, i-lane */
OP(LDJ,     0, P_LEAF, K_LOAD,  0, 4)  /* BMEM var, j-lane */
/* arithmetic */
OP(NEG,     1, 0,      K_OTHER, 0, 1)
OP(ADD,     2, P_COMM, K_ADD,   1, 4)
OP(SUB,     2, 0,      K_ADD,   1, 4)
OP(MUL,     2, P_COMM, K_MUL,   1, 4)
OP(DIV,     2, 0,      K_DIV,   1, 16)
OP(FMA,     3, 0,      K_FMA,   2, 4)  /* a*b + c */
OP(FMS,     3, 0,      K_FMA,   2, 4)  /* a*b - c */
OP(FNMA,    3, 0,      K_FMA,   2, 4)  /* c - a*b */
OP(SQRT,    1, 0,      K_SQRT,  1, 16)
OP(RSQRT,   1, 0,      K_RSQRT, 1, 16)
OP(EXP,     1, 0,      K_TRANS, 1, 20)
OP(LOG,     1, 0,      K_TRANS, 1, 20)
OP(SIN,     1, 0,      K_TRANS, 1, 20)
OP(COS,     1, 0,      K_TRANS, 1, 20)
OP(POW,     2, 0,      K_TRANS, 1, 40)
OP(FABS,    1, 0,      K_OTHER, 0, 1)
OP(FMIN,    2, P_COMM, K_OTHER, 1, 4)
OP(FMAX,    2, P_COMM, K_OTHER, 1, 4)
/* comparisons and logic: results of type bool */
OP(LT,      2, 0,      K_CMP,   0, 4)
OP(LE,      2, 0,      K_CMP,   0, 4)
OP(GT,      2, 0,      K_CMP,   0, 4)
OP(GE,      2, 0,      K_CMP,   0, 4)
OP(EQ,      2, P_COMM, K_CMP,   0, 4)
OP(NE,      2, P_COMM, K_CMP,   0, 4)
OP(AND,     2, P_COMM, K_OTHER, 0, 1)
OP(OR,      2, P_COMM, K_OTHER, 0, 1)
OP(NOT,     1, 0,      K_OTHER, 0, 1)
OP(SEL,     3, 0,      K_OTHER, 0, 4)  /* a ? b : c */
OP(CVT,     1, 0,      K_OTHER, 0, 4)  /* a to the instruction's type */
/* accumulation into RMEM var, i-lane */
OP(ACC,     1, P_SINK, K_ADD,   1, 4)  /* r += a */
OP(ACCSUB,  1, P_SINK, K_ADD,   1, 4)  /* r -= a */
OP(ACCFMA,  2, P_SINK, K_FMA,   2, 4)  /* r += a*b, fused */
OP(ACCFNMA, 2, P_SINK, K_FMA,   2, 4)  /* r -= a*b, fused */

#undef OP
