/* parse.y: the .nbl grammar.  A pure bison parser with locations that builds
 * the AST of ast.h.  It has no conflicts (%expect 0): precedence is spelled
 * out by the rule levels, lowest first.  `**` is right-associative and binds
 * tighter than unary minus, as in Fortran: -a**2 is -(a**2). */
%code requires {
#include "ast.h"
typedef struct Span { Loc a, b; } Span;
#define YYLTYPE_IS_DECLARED 1
}

%code provides {
void *lex_open(Ctx *c);
void lex_close(void *scanner);
int nblex(YYSTYPE *lval, Span *lloc, void *scanner);
Loc lex_prev_end(void *scanner);
const char *lex_prev_word(void *scanner);
void lex_skip_statement(void *scanner);
void lex_parsing(void *scanner);
}

%code {
#include <ctype.h>
#include <string.h>
#include <strings.h>
#define yylex nblex
/* A rule's span runs from its first symbol's start to its last one's end;
 * an empty rule sits at the end of what came before. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                      \
	do {                                                             \
		if (N) {                                                 \
			(Cur).a = YYRHSLOC(Rhs, 1).a;                    \
			(Cur).b = YYRHSLOC(Rhs, N).b;                    \
		} else {                                                 \
			(Cur).a = (Cur).b = YYRHSLOC(Rhs, 0).b;          \
		}                                                        \
	} while (0)
/* Room for 100 000-deep parentheses; depth of the tree is bounded apart. */
#define YYMAXDEPTH 250000
#define YYINITDEPTH 1000

static void yyerror(Span *l, void *sc, Ctx *c, Prog *p, const char *msg);
static Node *cap_depth(Ctx *c, Node *n);
static Node *bin(Ctx *c, NodeKind k, Span l, Node *a, Node *b);
static Node *un(Ctx *c, NodeKind k, Span l, Node *a);
static Stmt *stmt(Ctx *c, StmtKind k, Span l, Span op, const char *name,
                  Node *e);
static void push(Ctx *c, Prog *p, Stmt *s);
static Decl *decl_new(Ctx *c, Span l, const char *name);
static void decl_add(Ctx *c, Decl *d, Span l, const char *name);
}

%define api.pure full
%define api.location.type {Span}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {Ctx *ctx} {Prog *prog}

%union {
	const char *s;
	Node *node;
	Stmt *stmt;
	Decl *decl;
	int kind;
	struct { Node **v; int n, cap; } list;
}

%token <s> IDENT "name"
%token <s> NUMBER "number"
%token <s> LMEM "LMEM" BMEM "BMEM" RMEM "RMEM" CONST "CONST"
%token <s> SYMMETRIC "SYMMETRIC" ANTISYMMETRIC "ANTISYMMETRIC"
%token PLUSEQ "'+='" MINUSEQ "'-='" POW "'**'"
%token <s> REDOP "a reduction operator"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='" AND "'&&'" OR "'||'"

%type <node> expr cond or and cmp sum term unary power primary
%type <decl> names
%type <kind> role symmetry
%type <list> args

%%

file:
	%empty
	| file item
	;

item:
	decl
	| stmt
	;

decl:
	role names ';' {
		$2->role = $1;
		$2->loc = @1.a;
		$2->rolename = cstrndup(ctx, ctx->src + @1.a.off,
		                        (size_t)(@1.b.off - @1.a.off));
		Stmt *s = stmt(ctx, S_DECL, @1, @1, NULL, NULL);
		s->decl = $2;
		push(ctx, prog, s);
	}
	| role IDENT names ';' {
		$3->role = $1;
		$3->loc = @1.a;
		$3->rolename = cstrndup(ctx, ctx->src + @1.a.off,
		                        (size_t)(@1.b.off - @1.a.off));
		$3->typename = $2;
		$3->typeloc = @2.a;
		Stmt *s = stmt(ctx, S_DECL, @1, @1, NULL, NULL);
		s->decl = $3;
		push(ctx, prog, s);
	}
	/* Newton's third law: the pair terms of these RMEMs (sema.c) */
	| symmetry names ';' {
		$2->sym = $1;
		$2->role = SYM_RMEM;
		$2->loc = @1.a;
		$2->rolename = cstrndup(ctx, ctx->src + @1.a.off,
		                        (size_t)(@1.b.off - @1.a.off));
		Stmt *s = stmt(ctx, S_DECL, @1, @1, NULL, NULL);
		s->decl = $2;
		push(ctx, prog, s);
	}
	;

symmetry:
	SYMMETRIC       { $$ = 1; }
	| ANTISYMMETRIC { $$ = -1; }
	;

role:
	LMEM    { $$ = SYM_LMEM; }
	| BMEM  { $$ = SYM_BMEM; }
	| RMEM  { $$ = SYM_RMEM; }
	| CONST { $$ = SYM_CONST; }
	;

names:
	IDENT             { $$ = decl_new(ctx, @1, $1); }
	| names ',' IDENT { decl_add(ctx, $1, @3, $3); $$ = $1; }
	;

stmt:
	IDENT '=' expr ';'       { push(ctx, prog, stmt(ctx, S_LET, @1, @2, $1, $3)); }
	| IDENT PLUSEQ expr ';'  { push(ctx, prog, stmt(ctx, S_ACC, @1, @2, $1, $3)); }
	| IDENT MINUSEQ expr ';' { push(ctx, prog, stmt(ctx, S_ACCSUB, @1, @2, $1, $3)); }
	| IDENT REDOP expr ';'   { push(ctx, prog, stmt(ctx, accum_word($2)->kind, @1, @2, $1, $3)); }
	/* "min=1;": a temporary named as a reduction, written without a
	 * space before '=' */
	| REDOP expr ';'         { push(ctx, prog, stmt(ctx, S_LET, @1, @1, $1, $2)); }
	| error ';'              { yyerrok; }
	;

expr:
	cond
	;

cond:
	or
	| or '?' expr ':' cond {
		$$ = bin(ctx, E_COND, @2, $1, $3);
		if ($$->kind == E_COND) {
			$$->c = $5;
			if ($5->depth + 1 > $$->depth)
				$$->depth = $5->depth + 1;
			$$ = cap_depth(ctx, $$);
		}
	}
	;

or:
	and
	| or OR and { $$ = bin(ctx, E_OR, @2, $1, $3); }
	;

and:
	cmp
	| and AND cmp { $$ = bin(ctx, E_AND, @2, $1, $3); }
	;

cmp:
	sum
	| sum '<' sum { $$ = bin(ctx, E_LT, @2, $1, $3); }
	| sum LE sum  { $$ = bin(ctx, E_LE, @2, $1, $3); }
	| sum '>' sum { $$ = bin(ctx, E_GT, @2, $1, $3); }
	| sum GE sum  { $$ = bin(ctx, E_GE, @2, $1, $3); }
	| sum EQ sum  { $$ = bin(ctx, E_EQ, @2, $1, $3); }
	| sum NE sum  { $$ = bin(ctx, E_NE, @2, $1, $3); }
	;

sum:
	term
	| sum '+' term { $$ = bin(ctx, E_ADD, @2, $1, $3); }
	| sum '-' term { $$ = bin(ctx, E_SUB, @2, $1, $3); }
	;

term:
	unary
	| term '*' unary { $$ = bin(ctx, E_MUL, @2, $1, $3); }
	| term '/' unary { $$ = bin(ctx, E_DIV, @2, $1, $3); }
	;

unary:
	power
	| '-' unary { $$ = un(ctx, E_NEG, @1, $2); }
	| '+' unary { $$ = $2; }
	| '!' unary { $$ = un(ctx, E_NOT, @1, $2); }
	;

power:
	primary
	| primary POW unary { $$ = bin(ctx, E_POW, @2, $1, $3); }
	;

primary:
	NUMBER {
		$$ = node_new(ctx, E_NUM, @1.a);
		$$->text = $1;
	}
	| IDENT {
		$$ = node_new(ctx, E_NAME, @1.a);
		$$->name = $1;
	}
	| IDENT '(' ')' {
		$$ = node_new(ctx, E_CALL, @1.a);
		$$->name = $1;
	}
	| IDENT '(' args ')' {
		$$ = node_new(ctx, E_CALL, @1.a);
		$$->name = $1;
		$$->args = $3.v;
		$$->nargs = $3.n;
		for (int i = 0; i < $3.n; i++)
			if ($3.v[i]->depth + 1 > $$->depth)
				$$->depth = $3.v[i]->depth + 1;
		$$ = cap_depth(ctx, $$);
	}
	| '(' expr ')' { $$ = $2; }
	;

args:
	expr {
		$$.cap = 4;
		$$.n = 1;
		$$.v = cnew(ctx, sizeof(Node *) * 4);
		$$.v[0] = $1;
	}
	| args ',' expr {
		$$ = $1;
		if ($$.n == $$.cap) {
			Node **v = cnew(ctx, sizeof(Node *) * (size_t)$$.cap * 2);
			memcpy(v, $$.v, sizeof(Node *) * (size_t)$$.n);
			$$.v = v;
			$$.cap *= 2;
		}
		$$.v[$$.n++] = $3;
	}
	;

%%

/* The deepest tree we build.  The node that first goes over the limit is
 * reported and replaced by a literal marked as over the limit; nodes built
 * on it are over by more and pass it up silently.  So each overlong
 * expression gets one message and nothing later recurses without bound. */
static Node *cap_depth(Ctx *c, Node *n)
{
	if (n->depth <= MAX_DEPTH)
		return n;
	if (n->depth == MAX_DEPTH + 1)
		error(c, n->loc, "expression too deeply nested (more than %d "
		      "levels); split it with temporaries", MAX_DEPTH);
	Node *z = node_new(c, E_NUM, n->loc);
	z->text = "0";
	z->depth = MAX_DEPTH + 2;
	return z;
}

static Node *bin(Ctx *c, NodeKind k, Span l, Node *a, Node *b)
{
	if (a->depth > MAX_DEPTH || b->depth > MAX_DEPTH)
		return a->depth > MAX_DEPTH ? a : b;
	return cap_depth(c, node_bin(c, k, l.a, a, b));
}

static Node *un(Ctx *c, NodeKind k, Span l, Node *a)
{
	if (a->depth > MAX_DEPTH)
		return a;
	return cap_depth(c, node_bin(c, k, l.a, a, NULL));
}

static Stmt *stmt(Ctx *c, StmtKind k, Span l, Span op, const char *name,
                  Node *e)
{
	Stmt *s = cnew(c, sizeof *s);
	s->kind = k;
	s->loc = l.a;
	s->oploc = op.a;
	s->name = name;
	s->e = e;
	return s;
}

static void push(Ctx *c, Prog *p, Stmt *s)
{
	/* grow by doubling inside the arena; old arrays are simply dropped */
	if ((p->nstmt & (p->nstmt - 1)) == 0) {
		int cap = p->nstmt ? p->nstmt * 2 : 1;
		Stmt **v = cnew(c, sizeof(Stmt *) * (size_t)cap);
		if (p->nstmt)
			memcpy(v, p->stmt, sizeof(Stmt *) * (size_t)p->nstmt);
		p->stmt = v;
	}
	p->stmt[p->nstmt++] = s;
}

static Decl *decl_new(Ctx *c, Span l, const char *name)
{
	Decl *d = cnew(c, sizeof *d);
	decl_add(c, d, l, name);
	return d;
}

static void decl_add(Ctx *c, Decl *d, Span l, const char *name)
{
	if ((d->n & (d->n - 1)) == 0) {
		int cap = d->n ? d->n * 2 : 1;
		const char **nv = cnew(c, sizeof(char *) * (size_t)cap);
		Loc *lv = cnew(c, sizeof(Loc) * (size_t)cap);
		if (d->n) {
			memcpy(nv, d->names, sizeof(char *) * (size_t)d->n);
			memcpy(lv, d->locs, sizeof(Loc) * (size_t)d->n);
		}
		d->names = nv;
		d->locs = lv;
	}
	d->names[d->n] = name;
	d->locs[d->n] = l.a;
	d->n++;
}

static void yyerror(Span *l, void *sc, Ctx *c, Prog *p, const char *msg)
{
	(void)p;
	(void)sc;
	if (strcmp(msg, "memory exhausted") == 0)
		error(c, l->a, "input nested too deeply for the parser");
	else
		error(c, l->a, "%s", msg);
}

/* How the unexpected token is named: its spelling from the source, with
 * its class where that helps ("name 'xj'", "number '2'", "'*'"). */
static void token_desc(Ctx *c, yysymbol_kind_t k, const Span *l, Buf *b)
{
	if (k == YYSYMBOL_YYEOF) {
		buf_puts(b, "end of file");
		return;
	}
	int n = l->b.off - l->a.off;
	const char *more = n > 40 ? "..." : "";
	if (n > 40)
		n = 40;
	if (k == YYSYMBOL_IDENT || k == YYSYMBOL_NUMBER)
		buf_printf(b, "%s ", yysymbol_name(k));
	if (n > 0)
		buf_printf(b, "'%.*s%s'", n, c->src + l->a.off, more);
	else
		buf_puts(b, yysymbol_name(k));
}

/* Whether k is the token of one of the characters in set. */
static int is_char(yysymbol_kind_t k, const char *set)
{
	for (; *set; set++) {
		int ch = (unsigned char)*set;
		if (k == YYTRANSLATE(ch))
			return 1;
	}
	return 0;
}

/* Operators that may continue an expression; a message lumps them into
 * "an operator" rather than listing twenty tokens.  '(' counts: it only
 * follows a name, to make a call. */
static int is_operator(yysymbol_kind_t k)
{
	return is_char(k, "+-*/<>?(") || k == YYSYMBOL_POW ||
	       k == YYSYMBOL_LE || k == YYSYMBOL_GE || k == YYSYMBOL_EQ ||
	       k == YYSYMBOL_NE || k == YYSYMBOL_AND || k == YYSYMBOL_OR;
}

static int is_comparison(yysymbol_kind_t k)
{
	return is_char(k, "<>") || k == YYSYMBOL_LE || k == YYSYMBOL_GE ||
	       k == YYSYMBOL_EQ || k == YYSYMBOL_NE;
}

/* A token the parser wanted, for "expected X, Y or Z". */
static void expected_name(yysymbol_kind_t k, Buf *b)
{
	const char *s = yysymbol_name(k);
	if (k == YYSYMBOL_IDENT)
		buf_puts(b, "a name");
	else if (k == YYSYMBOL_NUMBER)
		buf_puts(b, "a number");
	else if (k == YYSYMBOL_YYEOF)
		buf_puts(b, "end of file");
	else if (k == YYSYMBOL_REDOP)
		buf_puts(b, "a reduction such as 'min='");
	else if (s[0] == '\'')
		buf_puts(b, s);
	else
		buf_printf(b, "'%s'", s);
}

/* The statements of C that people write first, and what nbcc has
 * instead.  A source that starts a statement with one of these words gets
 * this message, and the rest of the statement is skipped (lex.l). */
static const struct {
	const char *word;
	const char *instead;
} c_words[] = {
	{"if", "choose a value with c ? a : b"},
	{"else", "choose a value with c ? a : b"},
	{"switch", "choose a value with c ? a : b"},
	{"for", "the loops over i and j are implicit"},
	{"while", "the loops over i and j are implicit"},
	{"do", "the loops over i and j are implicit"},
	{"return", "the results are the RMEM names"},
	{"break", "the loops over i and j are implicit"},
	{"continue", "the loops over i and j are implicit"},
};

/* "if (" where a statement starts: says what nbcc has instead and skips
 * the rest of the construct.  0 when word is no such keyword. */
static int c_statement(Ctx *c, void *sc, const char *word)
{
	for (size_t i = 0; word && i < sizeof c_words / sizeof *c_words; i++) {
		if (strcmp(word, c_words[i].word) != 0)
			continue;
		Loc at = lex_prev_end(sc);
		int n = (int)strlen(word);
		at.col -= n;
		at.off -= n;
		Buf rule = {0};
		body_rule(&rule);
		error(c, at, "nbcc has no '%s' statement: %s; %s", word, rule.s,
		      c_words[i].instead);
		buf_free(&rule);
		lex_skip_statement(sc);
		return 1;
	}
	return 0;
}

/* The keyword that word is in another case ("lmem"), or NULL. */
static const char *keyword_case(const char *word)
{
	static const char *const kw[] = {"LMEM", "BMEM", "RMEM", "CONST",
	                                 "VARI", "VARJ", "VARF"};
	for (size_t i = 0; word && i < sizeof kw / sizeof *kw; i++)
		if (strcasecmp(word, kw[i]) == 0)
			return kw[i];
	return NULL;
}

/* Whether the statement around offset `at` begins with CONST. */
static int in_const(const Ctx *c, size_t at)
{
	size_t b = at;
	while (b > 0 && c->src[b - 1] != ';')
		b--;
	while (b < at && isspace((unsigned char)c->src[b]))
		b++;
	return at - b > 5 && strncmp(c->src + b, "CONST", 5) == 0 &&
	       isspace((unsigned char)c->src[b + 5]);
}

/* Says what the grammar allows where it stopped, in the terms a user
 * thinks in: "an expression", "a declaration or a statement", "';' or an
 * operator", or the few tokens that fit.  A missing ';' at the end of a
 * line is reported there, not at the start of the next one. */
static int yyreport_syntax_error(const yypcontext_t *pc, void *sc, Ctx *c,
                                 Prog *p)
{
	(void)p;
	enum { MAXEXP = 64 };
	yysymbol_kind_t exp[MAXEXP], list[MAXEXP];
	int n = yypcontext_expected_tokens(pc, exp, MAXEXP);
	yysymbol_kind_t tok = yypcontext_token(pc);
	const Span *l = yypcontext_location(pc);
	int has_expr = 0, has_decl = 0, has_op = 0, has_semi = 0, nl = 0;
	int stmt_op = 0;
	for (int i = 0; i < n; i++) {
		stmt_op |= exp[i] == YYSYMBOL_PLUSEQ;
		has_expr |= exp[i] == YYSYMBOL_NUMBER;
		has_decl |= exp[i] == YYSYMBOL_LMEM;
		has_semi |= is_char(exp[i], ";");
		if (is_operator(exp[i]))
			has_op = 1;
		else
			list[nl++] = exp[i];
	}
	/* after "LMEM x" a name may follow only if x was a type: say what
	 * the user most likely means */
	if (!has_op && nl == 3 && list[0] == YYSYMBOL_IDENT && has_semi) {
		list[0] = list[1];
		list[1] = list[2];
		nl = 2;
	}

	Loc at = l->a;
	Loc prev = lex_prev_end(sc);
	if (prev.line > 0 &&
	    (tok == YYSYMBOL_YYEOF || (has_semi && l->a.line > prev.line)))
		at = prev;

	/* after the name that starts a statement: "if (", "for (" */
	if (stmt_op && c_statement(c, sc, lex_prev_word(sc)))
		return 0;
	Buf b = {0};
	/* "r foo= x": a name before '=' where the operator goes */
	if (stmt_op && tok == YYSYMBOL_IDENT &&
	    (size_t)l->b.off < c->len && c->src[l->b.off] == '=') {
		accum_list(&b, "and");
		error(c, l->a, "'%.*s=' is not a reduction; the reductions are "
		      "%s", (int)(l->b.off - l->a.off), c->src + l->a.off, b.s);
		buf_free(&b);
		return 0;
	}
	if (has_op && is_comparison(tok)) {
		error(c, at, "comparisons do not chain: join two with && or || "
		      "(as in a < b && b < c)");
		return 0;
	}
	if (has_expr) {
		buf_puts(&b, "expected an expression");
	} else if (has_decl) {
		buf_puts(&b, "expected a declaration or a statement");
	} else if (nl + has_op == 0) { /* no state of this grammar, but */
		buf_puts(&b, "unexpected ");
		token_desc(c, tok, l, &b);
		error(c, at, "%s", b.s);
		buf_free(&b);
		return 0;
	} else {
		buf_puts(&b, "expected ");
		for (int i = 0; i < nl; i++) {
			if (i)
				buf_puts(&b, i == nl - 1 && !has_op ? " or " : ", ");
			expected_name(list[i], &b);
		}
		if (has_op)
			buf_puts(&b, nl ? " or an operator" : "an operator");
	}
	buf_puts(&b, tok == YYSYMBOL_YYEOF ? " at " : " before ");
	token_desc(c, tok, l, &b);
	/* "r *= x": nbcc has no compound assignment but += and -= */
	if (is_char(tok, "*/") &&
	    (size_t)l->b.off < c->len && c->src[l->b.off] == '=')
		buf_printf(&b, " ('%c=' is not an operator)",
		           c->src[l->a.off]);
	/* "lmem x;": the statement's first word was a keyword but for case */
	const char *w = lex_prev_word(sc), *kw = keyword_case(w);
	if (stmt_op && kw)
		buf_printf(&b, " (keywords are upper case: '%s', not '%s')", kw,
		           w);
	/* "CONST eps2 = 0.01;": the value comes with each run */
	if (has_semi && is_char(tok, "=") && w &&
	    in_const(c, (size_t)l->a.off)) {
		size_t v = (size_t)l->b.off, e;
		while (v < c->len && isspace((unsigned char)c->src[v]))
			v++;
		for (e = v; e < c->len && e - v < 24 && !strchr(";\n", c->src[e]);)
			e++;
		buf_printf(&b, " (a CONST's value is given at run time, as in "
		           "nbrun --const %s=%.*s, or nbrt_set_const)", w,
		           e > v ? (int)(e - v) : 1, e > v ? c->src + v : "V");
	}
	error(c, at, "%s", b.s);
	buf_free(&b);
	return 0;
}

Prog *parse(Ctx *c)
{
	Prog *p = cnew(c, sizeof *p);
	void *sc = lex_open(c);
	if (!sc)
		ICE("cannot start the scanner");
	lex_parsing(sc);
	int r = yyparse(sc, c, p);
	lex_close(sc);
	if (r == 2)
		error_file(c, "out of memory while parsing");
	return p;
}

int lex_dump(Ctx *c, Buf *out)
{
	void *sc = lex_open(c);
	if (!sc)
		ICE("cannot start the scanner");
	YYSTYPE v;
	Span l;
	int t;
	while ((t = nblex(&v, &l, sc)) != 0) {
		if (t == YYerror) /* reported by the scanner */
			continue;
		yysymbol_kind_t k = YYTRANSLATE(t);
		buf_printf(out, "%d:%d %s", l.a.line, l.a.col, yysymbol_name(k));
		if (k == YYSYMBOL_IDENT || k == YYSYMBOL_NUMBER ||
		    k == YYSYMBOL_LMEM || k == YYSYMBOL_BMEM ||
		    k == YYSYMBOL_RMEM || k == YYSYMBOL_CONST ||
		    k == YYSYMBOL_SYMMETRIC || k == YYSYMBOL_ANTISYMMETRIC)
			buf_printf(out, " %s", v.s);
		buf_putc(out, '\n');
	}
	lex_close(sc);
	return c->errors ? -1 : 0;
}
