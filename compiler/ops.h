/* ops.h: the IR's opcodes, every fact about each stated once (QBE's ops.h
 * idea).  Including this with OP defined yields the enum (ir.h), the
 * OpInfo table (ir.c), the built-in functions of the language, and the
 * constant evaluator (eval.c); the back ends spell an operation from its
 * row.  Adding a function is adding a row here and, for dd, its
 * nb_dd_<name> in ddlib.h (docs/hacking.md).
 *
 *  OP(name, args, props, kind, flops, latency, sym, fn, call, dd, fold, ddfold,
 *     il, ilp, deriv)
 *    args     operands taken from other instructions
 *    props    P_COMM commutative, P_LEAF reads an input, P_SINK updates an
 *             accumulator (RMEM) and yields no value, P_NATIVE has an
 *             OpenCL native_ form that --fast-math uses for float, P_I
 *             and P_J depend on the i- or j-element (its lane: copies of
 *             an unrolled body take their own), P_MVEC has a vector form
 *             in glibc's libmvec, which the C back end declares for float
 *             (prec.c's approx)
 *    kind     counted under this heading by --stats
 *    flops    counted flops (fma 2, others 1; loads, moves, logic 0)
 *    latency  rough cycles, for the scheduler's critical path
 *    sym      its operator in C, OpenCL C and --explain: infix for two
 *             operands, prefix for one; 0 when written as a call
 *    fn       the C and OpenCL C function computing it (C's <math.h>
 *             adds f for float); 0 when it has none
 *    call     the built-in function of the language that yields it, or 0
 *    dd       its ddlib.h function (nb_dd_<dd>) for dd operands, or 0
 *    fold     its value on constants a, b, c, the same text for float
 *             and double (<tgmath.h> picks sqrtf or sqrt): F(expr), or
 *             NOFOLD
 *    ddfold   likewise on dd constants x, y, z, through ddlib.h, the very
 *             code of the kernels, so a folded constant has their bits
 *    il       the AMD IL instruction of its float form where one
 *             instruction computes it (amdil/insn.c spells the rest), or 0
 *    ilp      the precisions it has an AMD IL form in (IL_F float and the
 *             conditions, IL_D double, IL_DD dd; IL_FD, IL_ALL), or 0:
 *             refused at the source position (every function has one
 *             now).  Double has no transcendentals in IL: the functions
 *             from exp on but fabs, fmin and fmax are ddlib.h's sequences
 *             (amdil/fn.c), float's without an instruction the double's
 *    deriv    its derivative along tangents da, db, dc of its operands a,
 *             b, c, as a .nbl expression (r: its result; sel and the
 *             comparisons by their names here), which ad.c builds into the
 *             IR; "0" where it has none: leaves (their tangents are
 *             seeded), comparisons and logic, floor, round and trunc
 *             (piecewise constant), a select's condition; a sink's is the
 *             tangent it accumulates (sums only: docs/autodiff.md) */
#ifndef OP
#error "define OP before including ops.h"
#endif

/*  name    args props         kind  flops lat sym  fn      call     dd      fold             ddfold  il  ilp  deriv */
/* leaves */
OP(IMM,     0, P_LEAF,   K_NONE,  0, 0,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* literal: imm[0] (+ imm[1] for dd) */
OP(CONST,   0, P_LEAF,   K_NONE,  0, 0,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* CONST var */
OP(LDI,     0, P_LEAF|P_I, K_LOAD,  0, 1,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* LMEM var, i-lane */
OP(LDJ,     0, P_LEAF|P_J, K_LOAD,  0, 4,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* BMEM var, j-lane */
OP(IDXI,    0, P_LEAF|P_I, K_NONE,  0, 1,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* i: index of the i-lane's element, i32 */
OP(IDXJ,    0, P_LEAF|P_J, K_NONE,  0, 1,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* j: index of the j-lane's element, i32 */
/* arithmetic */
OP(NEG,     1, 0,        K_OTHER, 0, 1,  "-",  0,      0,       "neg",  F(-a),           F(nb_dd_neg(x)), 0,       IL_ALL, "-da")
OP(ADD,     2, P_COMM,   K_ADD,   1, 4,  "+",  0,      0,       "add",  F(a + b),        F(nb_dd_add(x, y)), "add",   IL_ALL, "da + db")
OP(SUB,     2, 0,        K_ADD,   1, 4,  "-",  0,      0,       "sub",  F(a - b),        F(nb_dd_sub(x, y)), "sub",   IL_ALL, "da - db")
OP(MUL,     2, P_COMM,   K_MUL,   1, 4,  "*",  0,      0,       "mul",  F(a * b),        F(nb_dd_mul(x, y)), "mul",   IL_ALL, "da*b + a*db")
OP(DIV,     2, 0,        K_DIV,   1, 16, "/",  0,      0,       "div",  F(a / b),        F(nb_dd_div(x, y)), "div_zeroop(infinity)", IL_ALL, "(da - r*db)/b")
/* fused: float and double only (ir_verify), dd has no fused form */
OP(FMA,     3, 0,        K_FMA,   2, 4,  0,    "fma",  0,       0,      F(fma(a, b, c)), NOFOLD, 0,       IL_FD, "da*b + a*db + dc")  /* a*b + c */
OP(FMS,     3, 0,        K_FMA,   2, 4,  0,    "fma",  0,       0,      F(fma(a, b, -c)), NOFOLD, 0,       IL_FD, "da*b + a*db - dc") /* a*b - c */
OP(FNMA,    3, 0,        K_FMA,   2, 4,  0,    "fma",  0,       0,      F(fma(-a, b, c)), NOFOLD, 0,       IL_FD, "dc - da*b - a*db") /* c - a*b */
/* the built-in functions, in the order their list is shown to users */
OP(SQRT,    1, P_NATIVE, K_SQRT,  1, 16, 0,    "sqrt", "sqrt",  "sqrt", F(sqrt(a)),      F(nb_dd_sqrt(x)), "sqrt_vec", IL_ALL, "0.5*da/r")
OP(RSQRT,   1, P_NATIVE, K_RSQRT, 1, 16, 0,    "rsqrt","rsqrt", "rsqrt",F(1 / sqrt(a)),  F(nb_dd_rsqrt(x)), "rsq_vec", IL_ALL, "-0.5*r*r*r*da")
OP(EXP,     1, P_NATIVE|P_MVEC, K_TRANS, 1, 20, 0,    "exp",  "exp",   "exp",  F(exp(a)),       F(nb_dd_exp(x)), 0,       IL_ALL, "r*da")
OP(LOG,     1, P_NATIVE|P_MVEC, K_TRANS, 1, 20, 0,    "log",  "log",   "log",  F(log(a)),       F(nb_dd_log(x)), 0,       IL_ALL, "da/a")
OP(SIN,     1, P_NATIVE|P_MVEC, K_TRANS, 1, 20, 0,    "sin",  "sin",   "sin",  F(sin(a)),       F(nb_dd_sin(x)), "sin_vec", IL_ALL, "cos(a)*da")
OP(COS,     1, P_NATIVE|P_MVEC, K_TRANS, 1, 20, 0,    "cos",  "cos",   "cos",  F(cos(a)),       F(nb_dd_cos(x)), "cos_vec", IL_ALL, "-sin(a)*da")
OP(POW,     2, P_MVEC,   K_TRANS, 1, 40, 0,    "pow",  "pow",   "pow",  F(pow(a, b)),    F(nb_dd_pow(x, y)), 0,       IL_ALL, "b*pow(a, b - 1)*da + r*log(a)*db")
OP(FABS,    1, 0,        K_OTHER, 0, 1,  0,    "fabs", "fabs",  "fabs", F(fabs(a)),      F(nb_dd_fabs(x)), 0,       IL_ALL, "sel(lt(a, 0), -da, da)")
OP(FMIN,    2, P_COMM,   K_OTHER, 1, 4,  0,    "fmin", "fmin",  "fmin", F(fmin(a, b)),   F(nb_dd_fmin(x, y)), "min",   IL_ALL, "sel(le(a, b), da, db)")
OP(FMAX,    2, P_COMM,   K_OTHER, 1, 4,  0,    "fmax", "fmax",  "fmax", F(fmax(a, b)),   F(nb_dd_fmax(x, y)), "max",   IL_ALL, "sel(ge(a, b), da, db)")
OP(FLOOR,   1, 0,        K_OTHER, 1, 4,  0,    "floor","floor", "floor",F(floor(a)),     F(nb_dd_floor(x)), "round_neginf", IL_ALL, "0")
OP(ROUND,   1, 0,        K_OTHER, 1, 4,  0,    "round","round", "round",F(round(a)),     F(nb_dd_round(x)), 0,       IL_ALL, "0")  /* IL: amdil/fn.c (round_nearest ties to even) */
OP(TRUNC,   1, 0,        K_OTHER, 1, 4,  0,    "trunc","trunc", "trunc",F(trunc(a)),     F(nb_dd_trunc(x)), "round_zero", IL_ALL, "0")
OP(CBRT,    1, 0,        K_TRANS, 1, 20, 0,    "cbrt", "cbrt",  "cbrt", F(cbrt(a)),      F(nb_dd_cbrt(x)), 0,       IL_ALL, "da/(3*r*r)")
OP(EXPM1,   1, 0,        K_TRANS, 1, 20, 0,    "expm1","expm1", "expm1",F(expm1(a)),     F(nb_dd_expm1(x)), 0,       IL_ALL, "(r + 1)*da")
OP(LOG1P,   1, 0,        K_TRANS, 1, 20, 0,    "log1p","log1p", "log1p",F(log1p(a)),     F(nb_dd_log1p(x)), 0,       IL_ALL, "da/(1 + a)")
OP(TANH,    1, 0,        K_TRANS, 1, 20, 0,    "tanh", "tanh",  "tanh", F(tanh(a)),      F(nb_dd_tanh(x)), 0,       IL_ALL, "(1 - r*r)*da")
OP(ATAN2,   2, 0,        K_TRANS, 1, 40, 0,    "atan2","atan2", "atan2",F(atan2(a, b)),  F(nb_dd_atan2(x, y)), 0,       IL_ALL, "(b*da - a*db)/(a*a + b*b)")
OP(ERF,     1, 0,        K_TRANS, 1, 40, 0,    "erf",  "erf",   "erf",  F(erf(a)),       F(nb_dd_erf(x)), 0,       IL_ALL, "1.1283791670955125738961589031215452*exp(-(a*a))*da")
OP(ERFC,    1, 0,        K_TRANS, 1, 40, 0,    "erfc", "erfc",  "erfc", F(erfc(a)),      F(nb_dd_erfc(x)), 0,       IL_ALL, "-1.1283791670955125738961589031215452*exp(-(a*a))*da")
/* comparisons and logic: results of type bool, never folded */
OP(LT,      2, 0,        K_CMP,   0, 4,  "<",  0,      0,       "lt",   NOFOLD,          NOFOLD, "lt",    IL_ALL, "0")
OP(LE,      2, 0,        K_CMP,   0, 4,  "<=", 0,      0,       "le",   NOFOLD,          NOFOLD, "ge",    IL_ALL, "0")  /* IL: b >= a */
OP(GT,      2, 0,        K_CMP,   0, 4,  ">",  0,      0,       "gt",   NOFOLD,          NOFOLD, "lt",    IL_ALL, "0")  /* IL: b < a */
OP(GE,      2, 0,        K_CMP,   0, 4,  ">=", 0,      0,       "ge",   NOFOLD,          NOFOLD, "ge",    IL_ALL, "0")
OP(EQ,      2, P_COMM,   K_CMP,   0, 4,  "==", 0,      0,       "eq",   NOFOLD,          NOFOLD, "eq",    IL_ALL, "0")
OP(NE,      2, P_COMM,   K_CMP,   0, 4,  "!=", 0,      0,       "ne",   NOFOLD,          NOFOLD, "ne",    IL_ALL, "0")
OP(AND,     2, P_COMM,   K_OTHER, 0, 1,  "&&", 0,      0,       0,      NOFOLD,          NOFOLD, "iand",  IL_F, "0")
OP(OR,      2, P_COMM,   K_OTHER, 0, 1,  "||", 0,      0,       0,      NOFOLD,          NOFOLD, "ior",   IL_F, "0")
OP(NOT,     1, 0,        K_OTHER, 0, 1,  "!",  0,      0,       0,      NOFOLD,          NOFOLD, "inot",  IL_F, "0")
OP(SEL,     3, 0,        K_OTHER, 0, 4,  0,    0,      0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "sel(a, db, dc)")  /* a ? b : c */
OP(CVT,     1, 0,        K_OTHER, 0, 4,  0,    0,      0,       0,      F(a),            F(x), 0,       IL_ALL, "da")    /* a to the instruction's type */
/* accumulation into RMEM var, i-lane */
OP(ACC,     1, P_SINK,   K_ADD,   1, 4,  "+=", 0,      0,       "add",  NOFOLD,          NOFOLD, 0,       IL_ALL, "da")  /* r += a */
OP(ACCSUB,  1, P_SINK,   K_ADD,   1, 4,  "-=", 0,      0,       "sub",  NOFOLD,          NOFOLD, 0,       IL_ALL, "da")  /* r -= a */
OP(ACCFMA,  2, P_SINK,   K_FMA,   2, 4,  "+=", "fma",  0,       0,      NOFOLD,          NOFOLD, 0,       IL_FD, "da*b + a*db")  /* r += a*b, fused */
OP(ACCFNMA, 2, P_SINK,   K_FMA,   2, 4,  "-=", "fma",  0,       0,      NOFOLD,          NOFOLD, 0,       IL_FD, "da*b + a*db")  /* r -= a*b, fused */
/* the other reductions (ast.c's accums[]; their state, update and combine
 * in emit.c's red_*): the value in the RMEM's type, and for the arg forms
 * the j index (an IDXJ, i32) */
OP(ACCMIN,  1, P_SINK,   K_OTHER, 1, 4,  "min=", 0,    0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* r = min(r, a) */
OP(ACCMAX,  1, P_SINK,   K_OTHER, 1, 4,  "max=", 0,    0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* r = max(r, a) */
OP(ACCARGMIN, 2, P_SINK, K_CMP,   1, 4,  "argmin=", 0, 0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* r = j of min a */
OP(ACCARGMAX, 2, P_SINK, K_CMP,   1, 4,  "argmax=", 0, 0,       0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* r = j of max a */
OP(ACCLSE,  1, P_SINK,   K_TRANS, 3, 24, "logsumexp=", 0, 0,    0,      NOFOLD,          NOFOLD, 0,       IL_ALL, "0")  /* r = log sum exp a */

#undef OP
