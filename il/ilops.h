/* ilops.h: the AMD IL instructions nbcc's subset has (docs/amdil.md), every
 * fact about each stated once.  Including this with IL_OP defined yields
 * the opcode enum and table of il.h, the reader's checks (ilread.c) and, for
 * a VLIW report, what each instruction costs in an R700/Evergreen bundle.
 *
 *  IL_OP(id, name, nsrc, class, shape, gen, t, seq)
 *    name   the opcode as written (uav_raw_*_id take "(n)" after it)
 *    nsrc   source operands (a store's mem destination not counted)
 *    class  IC_FLOAT, IC_TRANS (transcendental float), IC_DOUBLE, IC_INT,
 *           IC_MEM, IC_FLOW
 *    shape  how operands are read and written (il.h, IlShape): SH_VEC per
 *           written component from the same component of each source;
 *           SH_DBL double sources, one double pair written; SH_DCMP double
 *           sources, any mask, one value to every written component;
 *           SH_FTOD a float (source component x) to one double pair;
 *           SH_LOAD, SH_STORE raw UAV access; SH_COND a flow instruction
 *           reading source component x; SH_FLOW no operands
 *    gen    slots of x, y, z, w one instance takes (a written component of
 *           SH_VEC, a double of the double shapes); a double's add takes two
 *           and its multiply all four (Evergreen runs DP ops across the
 *           xyzw slots)
 *    t      the t (transcendental) slot: Evergreen's transcendental unit
 *           alone has RECIPSQRT, SQRT, EXP, LOG, SIN, COS, MULLO_INT,
 *           INT_TO_FLT and FLT_TO_INT
 *    seq    0 for one ALU instruction, else the ALU instructions of the
 *           sequence it expands into, an estimate: ddiv 8 (a reciprocal
 *           approximation in t, then 7 DP FMAs of Newton refinement and
 *           the rounding correction), dsqrt 9 (an rsq approximation, 8
 *           DP FMA/MUL); gen and t then describe one of them
 *  Memory and flow take no ALU slot (their own clauses). */
#ifndef IL_OP
#error "define IL_OP before including ilops.h"
#endif

/*     id              name                    nsrc class      shape     gen t seq */
/* float */
IL_OP(IL_MOV,          "mov",                  1, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_ADD,          "add",                  2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_SUB,          "sub",                  2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_MUL,          "mul",                  2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_MAD,          "mad",                  3, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_FMA,          "fma",                  3, IC_FLOAT,  SH_VEC,   1, 0, 0)
/* RECIP_IEEE in t, then a multiply */
IL_OP(IL_DIV,          "div_zeroop(infinity)", 2, IC_FLOAT,  SH_VEC,   1, 1, 0)
IL_OP(IL_MIN,          "min",                  2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_MAX,          "max",                  2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_LT,           "lt",                   2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_GE,           "ge",                   2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_EQ,           "eq",                   2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_NE,           "ne",                   2, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_CMOV,         "cmov_logical",         3, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_FTOI,         "ftoi",                 1, IC_FLOAT,  SH_VEC,   0, 1, 0)
IL_OP(IL_ITOF,         "itof",                 1, IC_FLOAT,  SH_VEC,   0, 1, 0)
IL_OP(IL_ABS,          "abs",                  1, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_FLOOR,        "round_neginf",         1, IC_FLOAT,  SH_VEC,   1, 0, 0)
IL_OP(IL_TRUNC,        "round_zero",           1, IC_FLOAT,  SH_VEC,   1, 0, 0)
/* transcendental float: the t slot only */
IL_OP(IL_RSQ,          "rsq_vec",              1, IC_TRANS,  SH_VEC,   0, 1, 0)
IL_OP(IL_SQRT,         "sqrt_vec",             1, IC_TRANS,  SH_VEC,   0, 1, 0)
IL_OP(IL_EXP,          "exp_vec",              1, IC_TRANS,  SH_VEC,   0, 1, 0)
IL_OP(IL_LOG,          "log_vec",              1, IC_TRANS,  SH_VEC,   0, 1, 0)
IL_OP(IL_SIN,          "sin_vec",              1, IC_TRANS,  SH_VEC,   0, 1, 0)
IL_OP(IL_COS,          "cos_vec",              1, IC_TRANS,  SH_VEC,   0, 1, 0)
/* double */
IL_OP(IL_DADD,         "dadd",                 2, IC_DOUBLE, SH_DBL,   2, 0, 0)
IL_OP(IL_DMUL,         "dmul",                 2, IC_DOUBLE, SH_DBL,   4, 0, 0)
IL_OP(IL_DMAD,         "dmad",                 3, IC_DOUBLE, SH_DBL,   4, 0, 0)
IL_OP(IL_DFMA,         "dfma",                 3, IC_DOUBLE, SH_DBL,   4, 0, 0)
IL_OP(IL_DDIV,         "ddiv",                 2, IC_DOUBLE, SH_DBL,   4, 0, 8)
IL_OP(IL_DSQRT,        "dsqrt",                1, IC_DOUBLE, SH_DBL,   4, 0, 9)
IL_OP(IL_DMIN,         "dmin",                 2, IC_DOUBLE, SH_DBL,   2, 0, 0)
IL_OP(IL_DMAX,         "dmax",                 2, IC_DOUBLE, SH_DBL,   2, 0, 0)
IL_OP(IL_DLT,          "dlt",                  2, IC_DOUBLE, SH_DCMP,  2, 0, 0)
IL_OP(IL_DGE,          "dge",                  2, IC_DOUBLE, SH_DCMP,  2, 0, 0)
IL_OP(IL_DEQ,          "deq",                  2, IC_DOUBLE, SH_DCMP,  2, 0, 0)
IL_OP(IL_DNE,          "dne",                  2, IC_DOUBLE, SH_DCMP,  2, 0, 0)
IL_OP(IL_FTOD,         "ftod",                 1, IC_DOUBLE, SH_FTOD,  2, 0, 0)
IL_OP(IL_DTOF,         "dtof",                 1, IC_DOUBLE, SH_DCMP,  2, 0, 0)
/* integer */
IL_OP(IL_IADD,         "iadd",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IMUL,         "imul",                 2, IC_INT,    SH_VEC,   0, 1, 0)
/* MULLO_INT in t, then an add */
IL_OP(IL_IMAD,         "imad",                 3, IC_INT,    SH_VEC,   1, 1, 0)
IL_OP(IL_ISHL,         "ishl",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_ISHR,         "ishr",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_USHR,         "ushr",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IAND,         "iand",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IOR,          "ior",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IXOR,         "ixor",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_INOT,         "inot",                 1, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_INEG,         "inegate",              1, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_ILT,          "ilt",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IGE,          "ige",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IEQ,          "ieq",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_INE,          "ine",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_ULT,          "ult",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_UGE,          "uge",                  2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IMIN,         "imin",                 2, IC_INT,    SH_VEC,   1, 0, 0)
IL_OP(IL_IMAX,         "imax",                 2, IC_INT,    SH_VEC,   1, 0, 0)
/* memory: raw UAVs */
IL_OP(IL_LOAD,         "uav_raw_load_id",      1, IC_MEM,    SH_LOAD,  0, 0, 0)
IL_OP(IL_STORE,        "uav_raw_store_id",     2, IC_MEM,    SH_STORE, 0, 0, 0)
/* control flow */
IL_OP(IL_WHILE,        "whileloop",            0, IC_FLOW,   SH_FLOW,  0, 0, 0)
IL_OP(IL_ENDLOOP,      "endloop",              0, IC_FLOW,   SH_FLOW,  0, 0, 0)
IL_OP(IL_BREAK,        "break",                0, IC_FLOW,   SH_FLOW,  0, 0, 0)
IL_OP(IL_BREAKZ,       "break_logicalz",       1, IC_FLOW,   SH_COND,  0, 0, 0)
IL_OP(IL_BREAKNZ,      "break_logicalnz",      1, IC_FLOW,   SH_COND,  0, 0, 0)
IL_OP(IL_IFZ,          "if_logicalz",          1, IC_FLOW,   SH_COND,  0, 0, 0)
IL_OP(IL_IFNZ,         "if_logicalnz",         1, IC_FLOW,   SH_COND,  0, 0, 0)
IL_OP(IL_ELSE,         "else",                 0, IC_FLOW,   SH_FLOW,  0, 0, 0)
IL_OP(IL_ENDIF,        "endif",                0, IC_FLOW,   SH_FLOW,  0, 0, 0)
IL_OP(IL_END,          "end",                  0, IC_FLOW,   SH_FLOW,  0, 0, 0)

#undef IL_OP
