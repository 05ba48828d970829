/* test_front.c: the lexer, parser and checker through their own API (ast.h)
 * and through nb_compile.  Token streams and messages are compared with
 * what the language defines; precedence and associativity are checked on
 * random expression trees against an independent printer; hostile inputs
 * (NUL bytes, bad UTF-8, deep nesting, random bytes) must end in messages,
 * never in a crash.  Random tests print their seed (NBCC_TEST_SEED=N
 * repeats). */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ast.h"
#include "seed.h"

static nb_options opt;
static unsigned long long seed, seed0; /* rng state, and where it began */

static void setup(void) { nb_options_init(&opt); }

/* ---- helpers ----------------------------------------------------------- */

/* Compiles src to `emit`; returns the output (or NULL) and the messages. */
typedef struct Res {
	int rc, errors, warnings;
	char *out;  /* malloc'd, NULL on failure */
	char *diag; /* malloc'd messages */
} Res;

static Res compile_n(const char *src, size_t len, const char *emit)
{
	Res r = {0};
	size_t dlen;
	FILE *d = open_memstream(&r.diag, &dlen);
	ck_assert_ptr_nonnull(d);
	/* the compiler gets a NUL-terminated copy, as nb_read_file gives */
	char *copy = malloc(len + 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, src, len);
	copy[len] = 0;
	nb_output out;
	r.rc = nb_compile("t.nbl", copy, len, &opt, emit, d, &out);
	fclose(d);
	free(copy);
	r.errors = out.errors;
	r.warnings = out.warnings;
	if (out.code)
		r.out = strdup(out.code);
	nb_output_free(&out);
	return r;
}

static Res compile(const char *src, const char *emit)
{
	return compile_n(src, strlen(src), emit);
}

static void res_free(Res *r)
{
	free(r->out);
	free(r->diag);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Expects a failure whose first message is exactly `first` (the line
 * "t.nbl:L:C: error: ..." without the source excerpt). */
static void expect_error(const char *src, size_t len, const char *first)
{
	Res r = compile_n(src, len, "ast");
	ck_assert_int_ne(r.rc, 0);
	ck_assert_ptr_null(r.out);
	size_t n = strcspn(r.diag, "\n");
	ck_assert_msg(strlen(first) == n && strncmp(r.diag, first, n) == 0,
	              "wanted: %s\ngot: %s", first, r.diag);
	res_free(&r);
}

/* ---- the lexer ---------------------------------------------------------- */

static void expect_tokens(const char *src, const char *want)
{
	Res r = compile(src, "tokens");
	ck_assert_msg(r.rc == 0, "%s", r.diag);
	ck_assert_str_eq(r.out, want);
	res_free(&r);
}

START_TEST(tokens_keywords_and_synonyms)
{
	expect_tokens("LMEM VARI BMEM VARJ RMEM VARF CONST lmem LMEMx _a1 float",
	              "1:1 LMEM LMEM\n1:6 LMEM VARI\n1:11 BMEM BMEM\n"
	              "1:16 BMEM VARJ\n1:21 RMEM RMEM\n1:26 RMEM VARF\n"
	              "1:31 CONST CONST\n1:37 name lmem\n1:42 name LMEMx\n"
	              "1:48 name _a1\n1:52 name float\n");
}
END_TEST

START_TEST(tokens_operators_longest_match)
{
	expect_tokens("a**-b<=c>=d==e!=f&&g||!h+=i-=j<k>l?m:n=(o,p);* /",
	              "1:1 name a\n1:2 '**'\n1:4 '-'\n1:5 name b\n1:6 '<='\n"
	              "1:8 name c\n1:9 '>='\n1:11 name d\n1:12 '=='\n"
	              "1:14 name e\n1:15 '!='\n1:17 name f\n1:18 '&&'\n"
	              "1:20 name g\n1:21 '||'\n1:23 '!'\n1:24 name h\n"
	              "1:25 '+='\n1:27 name i\n1:28 '-='\n1:30 name j\n"
	              "1:31 '<'\n1:32 name k\n1:33 '>'\n1:34 name l\n"
	              "1:35 '?'\n1:36 name m\n1:37 ':'\n1:38 name n\n"
	              "1:39 '='\n1:40 '('\n1:41 name o\n1:42 ','\n"
	              "1:43 name p\n1:44 ')'\n1:45 ';'\n1:46 '*'\n1:48 '/'\n");
}
END_TEST

START_TEST(tokens_numbers)
{
	expect_tokens("1 1. .5 1.5e-3 1E+3 0.25e0 007 1.e2 a.5",
	              "1:1 number 1\n1:3 number 1.\n1:6 number .5\n"
	              "1:9 number 1.5e-3\n1:16 number 1E+3\n"
	              "1:21 number 0.25e0\n1:28 number 007\n"
	              "1:32 number 1.e2\n1:37 name a\n1:38 number .5\n");
}
END_TEST

/* Columns count bytes, tabs included; CR LF line ends are whitespace;
 * comments vanish but keep the lines they span. */
START_TEST(tokens_positions)
{
	expect_tokens("\tLMEM x;\r\n/* two\nlines */ y // z\n  /**/z",
	              "1:2 LMEM LMEM\n1:7 name x\n1:8 ';'\n3:10 name y\n"
	              "4:7 name z\n");
	expect_tokens("x*/* a comment */y", "1:1 name x\n1:2 '*'\n1:18 name y\n");
	expect_tokens("", "");
	expect_tokens("// only a comment", "");
}
END_TEST

START_TEST(lexical_errors)
{
	static const char nul[] = "LMEM x;\0RMEM r; r += x;";
	expect_error(nul, sizeof nul - 1,
	             "t.nbl:1:8: error: unexpected NUL byte (is this a text "
	             "file?)");
	expect_error("LMEM x;\x01", 8, "t.nbl:1:8: error: unexpected control "
	             "character 0x01");
	/* U+2212 MINUS SIGN, as pasted from a paper */
	expect_error("LMEM x; RMEM r; r += \xe2\x88\x92x;", 26,
	             "t.nbl:1:22: error: unexpected character U+2212 (only "
	             "ASCII is allowed outside comments)");
	expect_error("LMEM \xf0\x9f\x98\x80;", 10, "t.nbl:1:6: error: "
	             "unexpected character U+1F600 (only ASCII is allowed "
	             "outside comments)");
	/* an overlong '/' and a UTF-16 surrogate are not UTF-8 */
	expect_error("LMEM x\xc0\xaf;", 9, "t.nbl:1:7: error: unexpected byte "
	             "0xC0 (not valid UTF-8)");
	expect_error("LMEM x\xed\xa0\x80;", 10, "t.nbl:1:7: error: unexpected "
	             "byte 0xED (not valid UTF-8)");
	expect_error("LMEM x; RMEM r; r += 1.5.2;", 27, "t.nbl:1:22: error: "
	             "invalid number '1.5.2'");
	expect_error("LMEM x; RMEM r; r += .5e-;", 26, "t.nbl:1:22: error: "
	             "the exponent of '.5e-' has no digits");
	/* bytes outside printable ASCII are fine in comments */
	Res r = compile("// \xff\xfe\x01 \xe2\x88\x92\nLMEM x; RMEM r; r += x;"
	                " /* \xc0 */", "ast");
	ck_assert_msg(r.rc == 0, "%s", r.diag);
	res_free(&r);
}
END_TEST

/* Every bad byte gets a message of its own, up to the limit; the excerpt
 * under a message never carries a control byte to the terminal. */
START_TEST(lexical_errors_counted)
{
	Res r = compile("LMEM x; RMEM r;\n r += x \x01\x02 $ \xff;", "ast");
	ck_assert_int_eq(r.errors, 4);
	ck_assert_int_eq(count(r.diag, "error:"), 4);
	for (const char *p = r.diag; *p; p++)
		ck_assert(*p == '\n' || (*p >= 32 && *p < 127));
	res_free(&r);
}
END_TEST

START_TEST(long_names)
{
	char src[600];
	memset(src, 'n', 255);
	strcpy(src + 255, "; RMEM r; r += 1;");
	char *decl = malloc(700);
	sprintf(decl, "LMEM %s", src);
	Res r = compile(decl, "ast");
	ck_assert_msg(r.rc == 0, "%s", r.diag);
	res_free(&r);
	sprintf(decl, "LMEM n%s", src);
	r = compile(decl, "ast");
	ck_assert_int_ne(r.rc, 0);
	ck_assert_ptr_nonnull(strstr(r.diag, "t.nbl:1:6: error: name "
	                             "'nnnnnnnnnnnnnnnnnnnn...' is 256 characters "
	                             "long; the limit is 255"));
	res_free(&r);
	free(decl);
}
END_TEST

/* ---- the parser: precedence on random trees -----------------------------
 * A random expression is printed with as few parentheses as the grammar
 * needs (from the precedence table of the language, written out here
 * independently of parse.y), sometimes with redundant ones, unary '+',
 * spaces and comments; the parser must give back the same tree. */

enum { T_NAME, T_NUM, T_ADD, T_SUB, T_MUL, T_DIV, T_NEG, T_POW };
typedef struct Tree {
	int kind;
	const char *leaf;
	struct Tree *a, *b;
} Tree;

static Tree pool[4096];
static int npool;

static uint64_t rng(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static int pick(int n) { return (int)(rng() % (uint64_t)n); }

static Tree *node(int kind, Tree *a, Tree *b, const char *leaf)
{
	ck_assert_int_lt(npool, (int)NELEM(pool));
	Tree *t = &pool[npool++];
	*t = (Tree){kind, leaf, a, b};
	return t;
}

/* Exponents are literal-only, small and finite. */
static Tree *gen_lit(int depth)
{
	static const char *const nums[] = {"1", "2", "0.5", "3"};
	int k = depth > 0 ? pick(5) : 0;
	switch (k) {
	case 1: return node(T_NEG, gen_lit(depth - 1), NULL, NULL);
	case 2: return node(T_ADD, gen_lit(depth - 1), gen_lit(depth - 1), NULL);
	case 3: return node(T_SUB, gen_lit(depth - 1), gen_lit(depth - 1), NULL);
	default: return node(T_NUM, NULL, NULL, nums[pick(4)]);
	}
}

static Tree *gen(int depth)
{
	static const char *const names[] = {"a", "b", "c"};
	static const char *const nums[] = {"2", "1.5", ".25", "1e3"};
	int k = depth > 0 ? pick(10) : pick(2);
	switch (k) {
	case 0: return node(T_NAME, NULL, NULL, names[pick(3)]);
	case 1: return node(T_NUM, NULL, NULL, nums[pick(4)]);
	case 2: case 3: case 4: case 5:
		return node(T_ADD + k - 2, gen(depth - 1), gen(depth - 1), NULL);
	case 6: case 7: return node(T_NEG, gen(depth - 1), NULL, NULL);
	default: return node(T_POW, gen(depth - 1), gen_lit(2), NULL);
	}
}

/* Levels: 1 sum, 2 term, 3 unary, 4 power, 5 primary. */
static int level(const Tree *t)
{
	switch (t->kind) {
	case T_ADD: case T_SUB: return 1;
	case T_MUL: case T_DIV: return 2;
	case T_NEG: return 3;
	case T_POW: return 4;
	default: return 5;
	}
}

static void print_src(const Tree *t, int need, Buf *b);

static void gap(Buf *b)
{
	static const char *const gaps[] = {"", "", "", " ", "\n", " /* c */ "};
	buf_puts(b, gaps[pick(6)]);
}

static void operand(const Tree *t, int need, Buf *b)
{
	int paren = level(t) < need || pick(8) == 0;
	if (paren)
		buf_putc(b, '(');
	print_src(t, paren ? 0 : need, b);
	if (paren)
		buf_putc(b, ')');
}

static void print_src(const Tree *t, int need, Buf *b)
{
	static const char ops[] = "+-*/";
	(void)need;
	switch (t->kind) {
	case T_NAME: case T_NUM:
		buf_puts(b, t->leaf);
		return;
	case T_NEG:
		if (pick(6) == 0)
			buf_puts(b, "+"); /* unary plus vanishes from the tree */
		buf_putc(b, '-');
		operand(t->a, 3, b);
		return;
	case T_POW:
		operand(t->a, 5, b);
		gap(b);
		buf_puts(b, "**");
		gap(b);
		operand(t->b, 3, b);
		return;
	default: {
		int lv = level(t);
		operand(t->a, lv, b);
		gap(b);
		buf_putc(b, ops[t->kind - T_ADD]);
		gap(b);
		operand(t->b, lv + 1, b);
	}
	}
}

static int has_name(const Tree *t)
{
	if (!t)
		return 0;
	if (t->kind == T_POW)
		return has_name(t->a);
	return t->kind == T_NAME || has_name(t->a) || has_name(t->b);
}

/* What --emit=ast must print for the tree: LMEM names are float. */
static void print_sexpr(const Tree *t, Buf *b)
{
	static const char *const kinds[] = {
		[T_ADD] = "add", [T_SUB] = "sub", [T_MUL] = "mul",
		[T_DIV] = "div", [T_NEG] = "neg", [T_POW] = "pow",
	};
	if (t->kind == T_NAME || t->kind == T_NUM) {
		buf_puts(b, t->leaf);
		return;
	}
	buf_printf(b, "(%s:%s ", kinds[t->kind],
	           has_name(t) ? "float" : "literal");
	print_sexpr(t->a, b);
	if (t->b) {
		buf_putc(b, ' ');
		print_sexpr(t->b, b);
	}
	buf_putc(b, ')');
}

START_TEST(precedence_random_trees)
{
	for (int iter = 0; iter < 3000; iter++) {
		npool = 0;
		Tree *t = gen(1 + pick(6));
		Buf src = {0}, want = {0};
		buf_puts(&src, "LMEM a, b, c; RMEM r;\nr += ");
		print_src(t, 0, &src);
		buf_puts(&src, ";\n");
		buf_puts(&want, "LMEM a:float b:float c:float\nRMEM r:float\n"
		         "r += ");
		print_sexpr(t, &want);
		buf_putc(&want, '\n');
		Res r = compile(src.s, "ast");
		ck_assert_msg(r.rc == 0, "seed %llu iter %d:\n%s\n%s", seed0,
		              iter, src.s, r.diag);
		/* a, b, c may go unused: only warnings */
		ck_assert_int_eq(r.errors, 0);
		ck_assert_msg(strcmp(r.out, want.s) == 0,
		              "seed %llu iter %d: source\n%s\nparsed as\n%s"
		              "expected\n%s", seed0, iter, src.s, r.out, want.s);
		res_free(&r);
		buf_free(&src);
		buf_free(&want);
	}
}
END_TEST

/* The worked examples of the language: -a**2 is -(a**2), 2**3**2 is 512. */
START_TEST(constant_exponents)
{
	static const struct {
		const char *expr;
		double value;
	} cases[] = {
		{"2**3**2", 512}, {"(2**3)**2", 64}, {"-2**2", -4},
		{"2**-1", 0.5}, {"-(2)**2", -4}, {"(-2)**2", 4},
		{"1.5e1 - 5", 10}, {"sqrt(16) * 2", 8}, {"fmax(2, 3)", 3},
		{"k * 2", 5}, {"k2", 2.5 * 2.5}, {"rsqrt(4)", 0.5},
		{"exp(0) + log(1) + sin(0) + cos(0)", 2}, {"pow(2, 3)", 8},
		{"fmin(2, 3) * fabs(-3)", 6},
	};
	for (size_t i = 0; i < NELEM(cases); i++) {
		Buf b = {0};
		buf_printf(&b, "LMEM x; RMEM r; k = 2.5; k2 = k*k;\n"
		           "r += x ** (%s);", cases[i].expr);
		Ctx c;
		ctx_init(&c, "t.nbl", b.s, b.len, &opt, NULL);
		Prog *p = parse(&c);
		ck_assert_int_eq(c.errors, 0);
		ck_assert_int_eq(sema(&c, p), 0);
		Node *e = p->stmt[p->nstmt - 1]->e;
		ck_assert_int_eq(e->kind, E_POW);
		ck_assert_msg(e->b->isconst && e->b->num == cases[i].value,
		              "%s: %g", cases[i].expr, e->b->num);
		ctx_free(&c);
		buf_free(&b);
	}
}
END_TEST

/* ---- the checker through the internal API ------------------------------- */

START_TEST(symbols_and_types)
{
	const char *src = "LMEM double x, y; VARJ u; RMEM dd r; CONST float c;\n"
	                  "BMEM dd w;\n t = x*u; h = 0.5; r += t*h + w*c;";
	opt.precision = NB_FLOAT;
	Ctx c;
	ctx_init(&c, "t.nbl", src, strlen(src), &opt, NULL);
	Prog *p = parse(&c);
	ck_assert_int_eq(sema(&c, p), 0);
	ck_assert_int_eq(p->nsym[SYM_LMEM], 2);
	ck_assert_int_eq(p->nsym[SYM_BMEM], 2);
	ck_assert_int_eq(p->nsym[SYM_RMEM], 1);
	ck_assert_int_eq(p->nsym[SYM_CONST], 1);
	ck_assert_int_eq(p->nsym[SYM_TEMP], 2);
	ck_assert_str_eq(p->sym[SYM_BMEM][1]->name, "w");
	ck_assert_int_eq(p->sym[SYM_BMEM][1]->index, 1);
	ck_assert_int_eq(p->sym[SYM_LMEM][1]->type, T_F64);
	ck_assert_int_eq(p->sym[SYM_BMEM][0]->type, T_F32); /* untyped */
	ck_assert_int_eq(p->sym[SYM_BMEM][0]->typed, 0);
	ck_assert_int_eq(p->sym[SYM_RMEM][0]->type, T_DD);
	ck_assert_int_eq(p->sym[SYM_RMEM][0]->typed, 1);
	ck_assert_int_eq(p->sym[SYM_TEMP][0]->type, T_F64); /* double*float */
	ck_assert_int_eq(p->sym[SYM_TEMP][1]->type, T_LIT);
	ck_assert_int_eq(p->stmt[p->nstmt - 1]->e->type, T_DD);
	ck_assert_int_eq(c.warnings, 1); /* y */
	ctx_free(&c);
}
END_TEST

/* A chain of literal temporaries doubling at each step must neither take
 * exponential time nor recurse without bound in any later stage. */
START_TEST(literal_chain)
{
	Buf b = {0};
	buf_puts(&b, "LMEM a; RMEM r;\nt0 = 1.5;\n");
	for (int i = 1; i < 200; i++)
		buf_printf(&b, "t%d = t%d*t%d - t%d/2;\n", i, i - 1, i - 1, i - 1);
	buf_puts(&b, "r += a*t199 + a**t3;\n");
	Res r = compile(b.s, "code");
	ck_assert_msg(r.rc == 0, "%s", r.diag);
	res_free(&r);
	buf_free(&b);
}
END_TEST

/* ---- limits and recovery ------------------------------------------------ */

static char *nested(const char *pre, const char *open, int n, const char *mid,
                    const char *close, const char *post)
{
	Buf b = {0};
	buf_puts(&b, pre);
	for (int i = 0; i < n; i++)
		buf_puts(&b, open);
	buf_puts(&b, mid);
	for (int i = 0; i < n; i++)
		buf_puts(&b, close);
	buf_puts(&b, post);
	return buf_take(&b);
}

START_TEST(depth_limit)
{
	/* MAX_DEPTH operators are accepted, one more is not */
	char *s = nested("LMEM x; RMEM r; r += ", "-", MAX_DEPTH, "x", "", ";");
	Res r = compile(s, "code");
	ck_assert_msg(r.rc == 0, "%s", r.diag);
	res_free(&r);
	free(s);
	s = nested("LMEM x; RMEM r; r += ", "-", MAX_DEPTH + 1, "x", "", ";");
	r = compile(s, "ast");
	ck_assert_int_eq(r.errors, 1);
	ck_assert_ptr_nonnull(strstr(r.diag, "t.nbl:1:22: error: expression too "
	                             "deeply nested (more than 2000 levels)"));
	res_free(&r);
	free(s);
	/* the same through calls, sums and conditionals */
	s = nested("LMEM x; RMEM r; r += ", "sqrt(", MAX_DEPTH + 5, "x", ")", ";");
	r = compile(s, "ast");
	ck_assert_int_eq(r.errors, 1);
	res_free(&r);
	free(s);
	s = nested("LMEM x; RMEM r; r += ", "x < 1 ? 1 : ", MAX_DEPTH + 5, "x",
	           "", ";");
	r = compile(s, "ast");
	ck_assert_int_eq(r.errors, 1);
	res_free(&r);
	free(s);
	s = nested("LMEM x; RMEM r; r += x", "", 0, "", "", "");
	Buf b = {0};
	buf_puts(&b, s);
	for (int i = 0; i < 5000; i++)
		buf_puts(&b, "+x");
	buf_puts(&b, ";");
	r = compile(b.s, "ast");
	ck_assert_int_eq(r.errors, 1);
	res_free(&r);
	buf_free(&b);
	free(s);
}
END_TEST

/* Redundant parentheses cost the parser's stack, not the tree's depth:
 * 100 000 pairs are fine; beyond the stack there is a message. */
START_TEST(deep_parentheses)
{
	char *s = nested("LMEM x; RMEM r; r += ", "(", 100000, "x", ")", ";");
	Res r = compile(s, "code");
	ck_assert_msg(r.rc == 0, "%s", r.diag);
	res_free(&r);
	free(s);
	s = nested("LMEM x; RMEM r; r += ", "(", 300000, "x", ")", ";");
	r = compile(s, "ast");
	ck_assert_int_ne(r.rc, 0);
	ck_assert_ptr_nonnull(strstr(r.diag, "error: input nested too deeply "
	                             "for the parser"));
	res_free(&r);
	free(s);
}
END_TEST

/* After a syntax error the parser goes on at the next ';', so each broken
 * statement gets one message. */
START_TEST(recovery)
{
	Res r = compile("LMEM x; RMEM r;\nr += x*;\nr += (x;\nr x;\nr += x;\n"
	                "q = ;\nr += x x;\n", "ast");
	ck_assert_int_eq(r.errors, 5);
	ck_assert_int_eq(count(r.diag, "error:"), 5);
	ck_assert_ptr_null(strstr(r.diag, "t.nbl:5:"));
	res_free(&r);
}
END_TEST

/* 20 messages at most, then a note; the count stays exact. */
START_TEST(error_limit)
{
	Buf b = {0};
	buf_puts(&b, "LMEM x; RMEM r;\n");
	for (int i = 0; i < 50; i++)
		buf_printf(&b, "r += u%d;\n", i);
	Res r = compile(b.s, "ast");
	ck_assert_int_ge(r.errors, 21);
	ck_assert_int_eq(count(r.diag, ": error:"), 20);
	ck_assert_int_eq(count(r.diag, "too many errors"), 1);
	res_free(&r);
	buf_free(&b);
	/* the lexer stops too: a megabyte of bad bytes is quick */
	size_t n = 1 << 20;
	char *junk = malloc(n);
	memset(junk, '$', n);
	r = compile_n(junk, n, "ast");
	ck_assert_int_eq(count(r.diag, ": error:"), 20);
	res_free(&r);
	free(junk);
}
END_TEST

/* Fig. 6 of paper 001 exactly as printed. */
START_TEST(fig6)
{
	const char *src =
		"LMEM xx, yy, cnt4;\n"
		"BMEM x30_1, gw30;\n"
		"RMEM res;\n"
		"CONST tt, ramda, fme, fmf, s, one;\n"
		"\n"
		"zz = x30_1*cnt4;\n"
		"d = -xx*yy*s-tt*zz*(one-xx-yy-zz)+(xx+yy)*ramda**2 +\n"
		"    (one-xx-yy-zz)*(one-xx-yy)*fme**2+zz*(one-xx-yy)*fmf**2;\n"
		"\n"
		"res += gw30/d**2;\n";
	opt.precision = NB_DD;
	Res r = compile(src, "code");
	ck_assert_msg(r.rc == 0 && r.warnings == 0, "%s", r.diag);
	res_free(&r);
	r = compile(src, "ast");
	ck_assert_ptr_nonnull(strstr(r.out, "res += (div:dd gw30 (pow:dd d 2))\n"));
	ck_assert_ptr_nonnull(strstr(r.out, "d:dd = (add:dd (add:dd (add:dd "
	                             "(sub:dd (mul:dd (mul:dd (neg:dd xx) yy) s)"));
	res_free(&r);
}
END_TEST

/* An nb_options filled in by hand (nbrt_load's opts) is checked as the
 * flags' values are: each kind of field refused past its values with
 * its message and nothing produced, and the values at its ends taken.
 * Before nb_compile checked, these compiled silently (kname "a b;"
 * into the generated code) or aborted (precision 7). */
typedef struct Field {
	size_t off;
	int str, v;
	const char *s;
} Field;
#define INT(f, x) {offsetof(nb_options, f), 0, x, NULL}
#define STR(f, x) {offsetof(nb_options, f), 1, 0, x}

static void set_field(const Field *f)
{
	nb_options_init(&opt);
	opt.target = "opencl"; /* the target that reads every field */
	if (f->str)
		memcpy((char *)&opt + f->off, &f->s, sizeof f->s);
	else
		memcpy((char *)&opt + f->off, &f->v, sizeof f->v);
}

START_TEST(options_by_hand)
{
	static const char src[] = "LMEM x; BMEM y; RMEM r;\nr += x * y;\n";
	static const struct {
		Field f;
		const char *msg;
	} bad[] = {
		{INT(unroll_i, 1000), "unroll_i = 1000: it must be 0 (chosen "
		 "for the target) or an integer from 1 to 64"},
		{INT(unroll_i, -3), "unroll_i = -3: it must be 0 (chosen for "
		 "the target) or an integer from 1 to 64"},
		{INT(unroll_j, 0), "unroll_j = 0: it must be an integer from 1 "
		 "to 64"},
		{INT(jsplit, 257), "jsplit = 257: it must be an integer from 1 "
		 "to 256"},
		{INT(wg, -5), "wg = -5: it must be 0 (chosen for the target) or "
		 "an integer from 1 to 1024"},
		{INT(tile, -7), "tile = -7: it must be -1 (none: through the "
		 "cache), 0 (chosen for the target) or an integer from 1 to "
		 "4096"},
		{INT(tile, 4097), "tile = 4097: it must be -1 (none: through "
		 "the cache), 0 (chosen for the target) or an integer from 1 "
		 "to 4096"},
		{INT(sched, 7), "sched = 7: it must be 0 (none) or 1 "
		 "(interleave)"},
		{INT(dd_qd, -1), "dd_qd = -1: it must be 0 (accurate) or 1 "
		 "(qd)"},
		{INT(fma, 42), "fma = 42: it must be 0 or 1"},
		{INT(split_warps, 2), "split_warps = 2: it must be 0 or 1"},
		{INT(ranges, -1), "ranges = -1: it must be 0 or 1"},
		{INT(fast_math, 2), "fast_math = 2: it must be 0 or 1"},
		{INT(ftz, 2), "ftz = 2: it must be 0 or 1"},
		{INT(approx, 2), "approx = 2: it must be 0 or 1"},
		{INT(cpu, 2), "cpu = 2: it must be 0 or 1"},
		{INT(rtasks, -1), "rtasks = -1: it must be an integer from 0 "
		 "to 1024 (tasks a work group; 0 or 1: one)"},
		{INT(precision, 3), "precision = 3: it must be float, double "
		 "or dd (nb_prec 0 to 2)"},
		{STR(target, "cuda"), "target = 'cuda': it must be opencl, c "
		 "or amdil"},
		{STR(kname, "a b;"), "kname = 'a b;': it must be an "
		 "identifier"},
		{STR(devclass, "tpu"), "devclass = 'tpu': it must be gpu, cpu "
		 "or a class of the defaults table"},
		{STR(jvp, "x"), "jvp = 'x': it must be NAME:TANGENT pairs, as "
		 "xi:vxi,yi:vyi"},
		{STR(grad, ""), "grad = '': it must be input names, as "
		 "xi,yi,zi"},
		{STR(grad_of, ""), "grad_of = '': it must be result names, as "
		 "pot,ax"},
	};
	static const Field good[] = {
		INT(unroll_i, 0), INT(unroll_i, 1), INT(unroll_i, 64),
		INT(unroll_j, 1), INT(unroll_j, 64), INT(jsplit, 1),
		INT(jsplit, 256), INT(wg, 0), INT(wg, 1), INT(wg, 1024),
		INT(tile, -1), INT(tile, 0), INT(tile, 1), INT(tile, 4096),
		INT(sched, 0), INT(sched, 1), INT(dd_qd, 1), INT(fma, 0),
		INT(split_warps, 1), INT(ranges, 1), INT(fast_math, 1),
		INT(ftz, 0), INT(approx, 0), INT(cpu, 1), INT(rtasks, 0),
		INT(rtasks, 1024), INT(precision, NB_DD), STR(target, "c"),
		STR(target, "amdil"), STR(target, NULL), STR(kname, "k_1"),
		STR(devclass, "cpu"), STR(devclass, "gpu-nvidia"),
		STR(devclass, "host-avx2"),
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		set_field(&bad[i].f);
		Res r = compile(src, "code");
		char want[256];
		snprintf(want, sizeof want, "t.nbl: error: %s\n", bad[i].msg);
		ck_assert_msg(r.rc != 0 && r.errors == 1 && !r.out &&
		              strcmp(r.diag, want) == 0,
		              "wanted: %sgot (rc %d): %s", want, r.rc, r.diag);
		res_free(&r);
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		set_field(&good[i]);
		Res r = compile(src, "code");
		ck_assert_msg(r.rc == 0 && r.out, "good[%zu]: %s", i, r.diag);
		res_free(&r);
	}
	/* the ranges entry's tasks must split its group evenly (the group
	 * known only to the back end): 3 of 128 divided by zero there */
	static const struct {
		int rtasks, jsplit;
		const char *diag;
	} tasks[] = {
		{3, 1, "t.nbl: error: rtasks = 3: it must divide the work group "
		 "of 128 into tasks of whole j-split groups of 1\n"},
		{256, 1, "t.nbl: error: rtasks = 256: it must divide the work "
		 "group of 128 into tasks of whole j-split groups of 1\n"},
		{32, 8, "t.nbl: error: rtasks = 32: it must divide the work "
		 "group of 128 into tasks of whole j-split groups of 8\n"},
		{16, 8, NULL}, {32, 4, NULL}, {128, 1, NULL},
	};
	for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
		nb_options_init(&opt);
		opt.target = "opencl";
		opt.ranges = 1;
		opt.wg = 128;
		opt.rtasks = tasks[i].rtasks;
		opt.jsplit = tasks[i].jsplit;
		Res r = compile(src, "code");
		if (tasks[i].diag)
			ck_assert_msg(r.rc != 0 && !r.out &&
			              strcmp(r.diag, tasks[i].diag) == 0,
			              "rtasks %d: rc %d, %s", tasks[i].rtasks, r.rc,
			              r.diag);
		else
			ck_assert_msg(r.rc == 0 && r.out, "rtasks %d: %s",
			              tasks[i].rtasks, r.diag);
		res_free(&r);
	}
}
END_TEST
#undef INT
#undef STR

/* ---- random bytes and mutations ------------------------------------------
 * The fuzz target (tests/fuzz) does this at length; here a quick round
 * keeps the guarantee in every test run: any input ends in a result or
 * messages, with exit status to match. */
START_TEST(random_inputs)
{
	static const char base[] =
		"LMEM double x, y; BMEM u, v; RMEM r, q; CONST c;\n"
		"t = (x - u)**2 + (y - v)**2 + c;\n"
		"r += t < 1 ? rsqrt(t)**3 : 0;\n"
		"q -= fmax(t, 1e-3) / 2**3**2;\n";
	static const char alphabet[] = "()+-*/;,=<>!?:&|.eE0123456789xyuvrtq \n";
	char buf[512];
	for (int iter = 0; iter < 1500; iter++) {
		size_t n = sizeof base - 1;
		memcpy(buf, base, n);
		int edits = 1 + pick(4);
		for (int e = 0; e < edits; e++) {
			size_t at = (size_t)pick((int)n);
			switch (pick(3)) {
			case 0: /* replace, sometimes with any byte */
				buf[at] = pick(4) ? alphabet[pick(sizeof alphabet - 1)]
				                  : (char)pick(256);
				break;
			case 1: /* delete */
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			default: /* duplicate a piece */
				if (n + 8 < sizeof buf) {
					memmove(buf + at + 8, buf + at, n - at);
					n += 8;
				}
			}
		}
		opt.precision = (nb_prec)pick(3);
		opt.unroll_i = 1 + pick(2);
		Res r = compile_n(buf, n, pick(2) ? "ast" : "code");
		ck_assert_msg((r.rc == 0) == (r.errors == 0),
		              "seed %llu iter %d", seed0, iter);
		ck_assert_msg(r.rc != 0 || r.out, "seed %llu iter %d", seed0, iter);
		ck_assert_msg(r.errors == 0 || strstr(r.diag, ": error: "),
		              "seed %llu iter %d: no message", seed0, iter);
		res_free(&r);
	}
}
END_TEST

int main(void)
{
	seed = test_seed("test_front");
	if (!seed)
		seed = 1;
	seed0 = seed;
	Suite *s = suite_create("front");
	TCase *lex = tcase_create("lexer");
	tcase_add_checked_fixture(lex, setup, NULL);
	tcase_add_test(lex, tokens_keywords_and_synonyms);
	tcase_add_test(lex, tokens_operators_longest_match);
	tcase_add_test(lex, tokens_numbers);
	tcase_add_test(lex, tokens_positions);
	tcase_add_test(lex, lexical_errors);
	tcase_add_test(lex, lexical_errors_counted);
	tcase_add_test(lex, long_names);
	suite_add_tcase(s, lex);
	TCase *par = tcase_create("parser");
	tcase_add_checked_fixture(par, setup, NULL);
	tcase_set_timeout(par, 60); /* sanitizers are slow */
	tcase_add_test(par, precedence_random_trees);
	tcase_add_test(par, constant_exponents);
	tcase_add_test(par, symbols_and_types);
	tcase_add_test(par, literal_chain);
	tcase_add_test(par, depth_limit);
	tcase_add_test(par, deep_parentheses);
	tcase_add_test(par, recovery);
	tcase_add_test(par, error_limit);
	tcase_add_test(par, fig6);
	tcase_add_test(par, options_by_hand);
	tcase_add_test(par, random_inputs);
	suite_add_tcase(s, par);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
