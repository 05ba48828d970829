/* ast.h: the front end.  The lexer (lex.l) and parser (parse.y) build a
 * Prog of declarations and statements; sema.c resolves names, checks the
 * rules of the language and gives every expression a type.  After sema
 * succeeds, every Node and Stmt is valid input for lowering (lower.c). */
#ifndef NB_AST_H
#define NB_AST_H

#include "base.h"

/* Expression types.  T_LIT is a literal-only expression that takes the type
 * of its context; T_BOOL comes from comparisons and logic; T_INT is an
 * element index (i, j), exact, which arithmetic reads in its context's
 * type as it reads a literal, and comparisons of indices compare exactly. */
typedef enum { T_F32 = NB_FLOAT, T_F64 = NB_DOUBLE, T_DD = NB_DD, T_BOOL,
               T_INT, T_LIT } Type;
/* Whether t is a precision: a row of prec[] (base.h). */
static inline int type_numeric(Type t) { return (unsigned)t < NPREC; }
/* The type an operation on a and b is computed in: a literal takes the
 * other's type, precisions widen by prec[].rank. */
Type type_join(Type a, Type b);

typedef enum {
	SYM_LMEM = NB_LMEM, SYM_BMEM = NB_BMEM, SYM_RMEM = NB_RMEM,
	SYM_CONST = NB_CONST, SYM_TEMP
} SymKind;

typedef struct Node Node;

typedef struct Sym {
	const char *name;
	SymKind kind;
	Type type;       /* declared or inferred; T_LIT until known */
	int typed;       /* declared with an explicit type */
	Loc loc;         /* where declared or first assigned */
	int index;       /* order among the symbols of its kind */
	int used;        /* read somewhere (or reduced into, for RMEM) */
	const struct Accum *red; /* RMEM: its first reduction, which fixes
	                          * its kind (+= and -= are one kind) */
	Loc redloc;      /* RMEM: where that first reduction is */
	int nocount;     /* RMEM: some += takes a value, not a condition */
	int sym;         /* RMEM: 1 SYMMETRIC, -1 ANTISYMMETRIC, 0 neither */
	Loc symloc;      /* RMEM: where it is named so */
	Node *def;       /* SYM_TEMP: its defining expression */
	struct Sym *next;/* in the symbol table's bucket */
} Sym;

typedef enum {
	E_NUM,    /* literal: num, text */
	E_NAME,   /* name: sym after sema */
	E_NEG,    /* -a */
	E_NOT,    /* !a */
	E_ADD, E_SUB, E_MUL, E_DIV,
	E_POW,    /* a ** b, b a constant expression */
	E_LT, E_LE, E_GT, E_GE, E_EQ, E_NE,
	E_AND, E_OR,
	E_COND,   /* a ? b : c */
	E_CALL,   /* name(args) */
	E_IDX,    /* the index i (fn 0) or j (fn 1), from an E_NAME by sema */
} NodeKind;

struct Node {
	NodeKind kind;
	Loc loc;          /* the operator, or the start of a leaf */
	Type type;        /* set by sema */
	int depth;        /* height of the tree, bounded by the parser */
	const char *name; /* E_NAME, E_CALL */
	const char *text; /* E_NUM: spelling, for exact dd conversion */
	double num;       /* E_NUM: value; after sema also any constant */
	int isconst;      /* after sema: value known at compile time (num) */
	Sym *sym;         /* E_NAME after sema */
	int fn;           /* E_CALL after sema: its opcode (ops.h) */
	Node *a, *b, *c;
	Node **args;
	int nargs;
};

typedef enum { S_DECL, S_LET, S_ACC, S_ACCSUB, S_MIN, S_MAX, S_ARGMIN,
               S_ARGMAX, S_LSE } StmtKind;

/* The accumulation operators, one row each (ast.c), in the order messages
 * list them: "RMEM 'r' cannot be read", "accumulate into it with += or
 * -=".  A new reduction is a row there (its word before '=' is all the
 * parser needs), its nb_red row in iface.c, its sink in ops.h, and its
 * state, update and combine in emit.c (docs/hacking.md). */
typedef struct Accum {
	StmtKind kind;
	const char *op;   /* as written: "+=", "min=" */
	const char *word; /* the name before '=' ("min"), NULL for += and -= */
	const char *what; /* what it makes of the values over j: "sum" */
	nb_red red;       /* what the RMEM holds after it */
	int sink;         /* its IR operation (ops.h: O_ACC, ...) */
} Accum;
extern const Accum accums[];
extern const int naccum;
/* The row of an accumulating statement kind; the row of a word. */
const Accum *accum_of(StmtKind k);
const Accum *accum_word(const char *word);
/* Appends the operators as a list, "+= or -=" (conj "or"), "+=, -= and
 * min=" (conj "and"); with_what adds each one's meaning: "+= (sum)". */
void accum_list_what(Buf *b, const char *conj, int with_what);
void accum_list(Buf *b, const char *conj);
/* What a loop body may hold, for the messages about C statements and
 * blocks: "the body holds only assignments (t = e;) and ...". */
void body_rule(Buf *b);

typedef struct Decl {
	Loc loc;
	SymKind role;
	const char *rolename;  /* as spelled: LMEM, VARI, ... */
	const char *typename;  /* NULL if untyped */
	Loc typeloc;
	const char **names;
	Loc *locs;
	Sym **syms;            /* after sema; NULL where a name was refused */
	int n;
	/* SYMMETRIC 1, ANTISYMMETRIC -1: names RMEMs declared before (role
	 * SYM_RMEM), whose pair terms it describes; 0: declares its names */
	int sym;
} Decl;

typedef struct Stmt {
	StmtKind kind;
	Loc loc;            /* the statement's target name */
	Loc oploc;          /* '=', '+=' or '-=' */
	const char *name;   /* target */
	Sym *sym;           /* after sema */
	Node *e;            /* value */
	Decl *decl;         /* S_DECL */
} Stmt;

typedef struct Prog {
	Stmt **stmt;
	int nstmt;
	/* after sema: symbols by kind, in declaration order */
	Sym **sym[5];
	int nsym[5];
} Prog;

/* Token dump (--emit=tokens) and parse.  Return 0 on success; diagnostics
 * go through the context. */
int lex_dump(Ctx *c, Buf *out);
Prog *parse(Ctx *c);
int sema(Ctx *c, Prog *p);
void ast_print(Prog *p, Buf *out);

/* The deepest expression the parser accepts; deeper ones are an error so
 * that no later stage can run out of stack. */
#define MAX_DEPTH 2000
/* The most tokens a source may have.  Each costs up to about 130 bytes in
 * the front end and may become IR, so this bounds the memory of a
 * compilation before it is spent (docs/language.md, "Limits"). */
#define MAX_TOKENS 4000000

/* Helpers the parser uses to build nodes (ast.c). */
Node *node_new(Ctx *c, NodeKind k, Loc l);
Node *node_bin(Ctx *c, NodeKind k, Loc l, Node *a, Node *b);
const char *node_kind_name(NodeKind k);
const char *type_name(Type t);

#endif
