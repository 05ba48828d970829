/* sema.c: names, rules and types.  Walks the statements in order (a
 * temporary exists from its assignment on), reports every rule the source
 * breaks and keeps going, and gives each expression a type: the widest of
 * its operands (float < double < dd), literals taking their context's. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

/* A temporary of literals only is substituted into each use (lower.c), so
 * a chain t1 = 1; t2 = t1*t1; t3 = t2*t2; ... would grow exponentially.
 * One whose substituted size passes this bound is computed once instead,
 * in the default precision, like a typed temporary. */
#define MAX_LITERAL_NODES 256

/* A set of names: the temporaries assigned anywhere in the file (it
 * tells "used before it is assigned" from "not declared"), and the names
 * already reported, so that one mistake gets one message. */
typedef struct NameSet {
	const char **slot;
	size_t mask, n;
} NameSet;

typedef struct Scope {
	Sym **bucket;
	int nbucket, n;
	Prog *prog;
	NameSet later;  /* every temporary's name */
	NameSet early;  /* temporaries read before their assignment */
	int *litcost;   /* substituted size of each literal temporary */
	int nreduce;
	NameSet undeclared; /* names reported as not declared */
	NameSet unknown;    /* functions reported as unknown */
	Sym *target;        /* the RMEM being assigned: "r = r/2" gets the
	                     * message of the assignment alone */
} Scope;

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void set_init(Ctx *c, NameSet *s, int n)
{
	size_t cap = 16;
	while (cap < (size_t)n * 2)
		cap *= 2;
	s->slot = cnew(c, sizeof(char *) * cap);
	s->mask = cap - 1;
	s->n = 0;
}

/* Open addressing; the caller sized the set for everything it adds. */
static int set_has(NameSet *s, const char *name, int add)
{
	size_t h = hash(name) & s->mask;
	for (; s->slot[h]; h = (h + 1) & s->mask)
		if (strcmp(s->slot[h], name) == 0)
			return 1;
	if (add) {
		s->slot[h] = name;
		s->n++;
	}
	return 0;
}

/* Adds name to a set that grows (the names reported); 1 if it was in. */
static int set_add(Ctx *c, NameSet *s, const char *name)
{
	if (set_has(s, name, 0))
		return 1;
	if ((s->n + 1) * 2 > s->mask + 1) {
		NameSet t;
		set_init(c, &t, (int)(s->n + 1) * 2);
		for (size_t i = 0; i <= s->mask; i++)
			if (s->slot[i])
				set_has(&t, s->slot[i], 1);
		*s = t;
	}
	set_has(s, name, 1);
	return 0;
}

static Sym *lookup(Scope *sc, const char *name)
{
	for (Sym *s = sc->bucket[hash(name) & (unsigned)(sc->nbucket - 1)]; s;
	     s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static void rehash(Ctx *c, Scope *sc)
{
	int nb = sc->nbucket * 4;
	Sym **b = cnew(c, sizeof(Sym *) * (size_t)nb);
	for (int i = 0; i < sc->nbucket; i++)
		for (Sym *s = sc->bucket[i], *nx; s; s = nx) {
			nx = s->next;
			unsigned h = hash(s->name) & (unsigned)(nb - 1);
			s->next = b[h];
			b[h] = s;
		}
	sc->bucket = b;
	sc->nbucket = nb;
}

static Sym *define(Ctx *c, Scope *sc, const char *name, SymKind k, Loc l)
{
	if (sc->n >= sc->nbucket)
		rehash(c, sc);
	Sym *s = cnew(c, sizeof *s);
	s->name = name;
	s->kind = k;
	s->loc = l;
	s->type = T_LIT;
	unsigned h = hash(name) & (unsigned)(sc->nbucket - 1);
	s->next = sc->bucket[h];
	sc->bucket[h] = s;
	sc->n++;
	/* the per-kind lists keep declaration order for the interface */
	Prog *p = sc->prog;
	int n = p->nsym[k];
	if ((n & (n - 1)) == 0) {
		Sym **v = cnew(c, sizeof(Sym *) * (size_t)(n ? n * 2 : 1));
		if (n)
			memcpy(v, p->sym[k], sizeof(Sym *) * (size_t)n);
		p->sym[k] = v;
	}
	s->index = n;
	p->sym[k][p->nsym[k]++] = s;
	return s;
}

static const char *kind_word(SymKind k)
{
	switch (k) {
	case SYM_LMEM: return "LMEM";
	case SYM_BMEM: return "BMEM";
	case SYM_RMEM: return "RMEM";
	case SYM_CONST: return "CONST";
	case SYM_TEMP: return "temporary";
	}
	return "?";
}

static int numeric(Type t) { return t != T_BOOL; }

/* i and j name the indices of the pair's elements: 1 for i, 2 for j. */
static int index_name(const char *name)
{
	return name[0] && !name[1] && (name[0] == 'i' || name[0] == 'j') ?
	       1 + (name[0] == 'j') : 0;
}



static const char *op_word(NodeKind k)
{
	switch (k) {
	case E_ADD: return "+";
	case E_SUB: return "-";
	case E_MUL: return "*";
	case E_DIV: return "/";
	case E_POW: return "**";
	case E_NEG: return "unary -";
	case E_LT: return "<";
	case E_LE: return "<=";
	case E_GT: return ">";
	case E_GE: return ">=";
	case E_EQ: return "==";
	case E_NE: return "!=";
	case E_AND: return "&&";
	case E_OR: return "||";
	case E_NOT: return "!";
	default: return "?";
	}
}

/* Records the value of an arithmetic node whose operands are all known at
 * compile time (the exponent of ** must be one).  Computed in double: it
 * serves only the exponent and its checks, never the generated code, where
 * lowering evaluates literals in their context's type. */
static void fold_const(Node *n)
{
	const Node *a = n->a, *b = n->b;
	if (!a->isconst || (b && !b->isconst))
		return;
	double x[2] = {a->num, 0}, y[2] = {b ? b->num : 0, 0}, r[2];
	switch (n->kind) {
	case E_NEG: case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_POW:
		op_eval(node_op[n->kind], T_F64, x, y, NULL, r);
		n->num = r[0];
		n->isconst = 1;
		return;
	default:
		return;
	}
}

static void unknown_function(Ctx *c, Scope *sc, Node *n)
{
	Sym *s = lookup(sc, n->name);
	if (s) {
		s->used = 1; /* one message is enough */
		error(c, n->loc, "%s '%s' is not a function", kind_word(s->kind),
		      n->name);
		return;
	}
	if (set_add(c, &sc->unknown, n->name)) {
		error_again(c); /* said at its first call */
		return;
	}
	Buf b = {0};
	for (int op = 0; op < O_COUNT; op++)
		if (opinfo[op].call)
			buf_printf(&b, "%s%s", b.len ? ", " : "", opinfo[op].call);
	for (const Alias *a = builtin_alias; a->name; a++)
		buf_printf(&b, ", %s", a->name);
	char names[64];
	error(c, n->loc, "unknown function '%s' (the functions are %s; and "
	      "the conversions %s)", n->name, b.s,
	      prec_names(names, sizeof names));
	buf_free(&b);
}

static void check(Ctx *c, Scope *sc, Node *n);

/* float(e), double(e), dd(e): e's value rounded to that precision, which
 * is then the call's type like any typed value's (lower.c converts). */
static void check_conversion(Ctx *c, Node *n, Type t)
{
	if (n->nargs != 1) {
		error(c, n->loc, "'%s(e)' converts one value to %s; it takes 1 "
		      "argument, not %d", n->name, prec[t].name, n->nargs);
		return;
	}
	const Node *a = n->args[0];
	if (!numeric(a->type)) {
		error(c, a->loc, "argument of '%s' is a condition, not a "
		      "number", n->name);
		return;
	}
	n->fn = O_CVT;
	n->type = t;
	if (a->isconst) {
		double v[2] = {a->num, 0}, r[2];
		op_eval(O_CVT, t == T_F32 ? T_F32 : T_F64, v, NULL, NULL, r);
		n->num = r[0];
		n->isconst = 1;
	}
}

/* A call: every argument is checked even when the function is unknown,
 * so that their own mistakes are reported too. */
static void check_call(Ctx *c, Scope *sc, Node *n)
{
	int e0 = c->errors;
	int f = builtin_find(n->name);
	for (int i = 0; i < n->nargs; i++)
		check(c, sc, n->args[i]);
	int p = prec_find(n->name);
	if (p >= 0) {
		if (c->errors == e0)
			check_conversion(c, n, (Type)p);
		return;
	}
	if (f < 0) {
		unknown_function(c, sc, n);
		return;
	}
	n->fn = f;
	if (n->nargs != opinfo[f].nargs) {
		error(c, n->loc, "'%s' takes %d argument%s, not %d", n->name,
		      opinfo[f].nargs, opinfo[f].nargs == 1 ? "" : "s",
		      n->nargs);
		return;
	}
	if (c->errors != e0)
		return;
	Type t = T_LIT;
	double v[3][2] = {{0, 0}, {0, 0}, {0, 0}};
	int isconst = 1;
	for (int i = 0; i < n->nargs; i++) {
		if (!numeric(n->args[i]->type)) {
			error(c, n->args[i]->loc, "argument of '%s' is a condition, "
			      "not a number", n->name);
			return;
		}
		t = type_join(t, n->args[i]->type);
		isconst &= n->args[i]->isconst;
		v[i][0] = n->args[i]->num;
	}
	n->type = t;
	if (isconst) {
		n->isconst = 1;
		double r[2];
		op_eval(f, T_F64, v[0], v[1], v[2], r);
		n->num = r[0];
	}
}

/* The names the language reserves: pi, read as a literal of enough
 * digits that it rounds correctly in every precision, as any literal
 * does in its context's type (lower.c). */
#define PI_DIGITS "3.14159265358979323846264338327950288419716939937510582"

static int is_pi(const char *name) { return strcmp(name, "pi") == 0; }

/* Every name the language reserves, pi and the indices i and j: true,
 * with the error, when name is one; what says what was tried. */
static int reserved(Ctx *c, Loc l, const char *name, const char *what)
{
	if (is_pi(name)) {
		error(c, l, "'pi' is reserved: it is the constant pi (3.14159..., "
		      "exact in each precision); choose another name");
		return 1;
	}
	if (index_name(name)) {
		error(c, l, "'%s' is reserved: i and j are the indices of the "
		      "pair's i- and j-element (read-only integers), so it cannot "
		      "be %s", name, what);
		return 1;
	}
	return 0;
}

static void check_name(Ctx *c, Scope *sc, Node *n)
{
	if (is_pi(n->name)) {
		n->kind = E_NUM;
		n->text = PI_DIGITS;
		n->num = strtod(PI_DIGITS, NULL);
		n->isconst = 1;
		n->type = T_LIT;
		return;
	}
	Sym *s = lookup(sc, n->name);
	if (!s && index_name(n->name)) {
		n->kind = E_IDX;
		n->fn = index_name(n->name) - 1;
		n->type = T_INT;
		return;
	}
	/* each missing name is reported at its first use only */
	if (!s) {
		if (set_has(&sc->later, n->name, 0)) {
			if (!set_has(&sc->early, n->name, 1))
				error(c, n->loc, "'%s' is used before it is "
				      "assigned", n->name);
			else
				error_again(c);
		} else if (!set_add(c, &sc->undeclared, n->name)) {
			error(c, n->loc, "'%s' is not declared", n->name);
		} else {
			error_again(c);
		}
		return;
	}
	if (s->kind == SYM_RMEM) {
		if (s == sc->target) { /* the assignment says it */
			error_again(c);
			return;
		}
		Buf ops = {0};
		accum_list_what(&ops, "and", 1);
		error(c, n->loc, "RMEM '%s' cannot be read: its value is "
		      "complete only after every j; the reductions into it are "
		      "%s", n->name, ops.s);
		buf_free(&ops);
		return;
	}
	s->used = 1;
	n->sym = s;
	n->type = s->type;
	if (s->kind == SYM_TEMP && s->def && s->def->isconst) {
		n->isconst = 1;
		n->num = s->def->num;
	}
}

/* Why an exponent is not constant, for the message: a CONST is constant
 * to the user but not to the compiler. */
static const Node *find_const_sym(const Node *n)
{
	if (!n)
		return NULL;
	if (n->kind == E_NAME)
		return n->sym && n->sym->kind == SYM_CONST ? n : NULL;
	const Node *r = find_const_sym(n->a);
	if (!r)
		r = find_const_sym(n->b);
	if (!r)
		r = find_const_sym(n->c);
	for (int i = 0; !r && i < n->nargs; i++)
		r = find_const_sym(n->args[i]);
	return r;
}

static void check_pow(Ctx *c, Node *n)
{
	if (!n->b->isconst) {
		const Node *k = find_const_sym(n->b);
		if (k)
			error(c, n->b->loc, "the exponent of '**' must be known "
			      "at compile time, and CONST '%s' is set only at run "
			      "time; use pow(x, y)", k->name);
		else
			error(c, n->b->loc, "the exponent of '**' must be a "
			      "constant (literals only); use pow(x, y) for a "
			      "variable one");
		return;
	}
	if (!isfinite(n->b->num)) {
		error(c, n->b->loc, "the exponent of '**' is not a finite "
		      "number");
		return;
	}
	n->type = type_join(n->a->type, T_LIT);
	fold_const(n);
}

/* Checks an expression and sets its type.  A node whose operands already
 * had errors reports nothing itself (one mistake, one message) and stays
 * T_LIT, which every context accepts. */
static void check(Ctx *c, Scope *sc, Node *n)
{
	if (c->errors > c->max_errors)
		return;
	int e0 = c->errors;
	switch (n->kind) {
	case E_NUM: {
		errno = 0;
		n->num = strtod(n->text, NULL);
		if (errno == ERANGE && isinf(n->num))
			error(c, n->loc, "number '%.40s%s' is too large for a "
			      "double", n->text, strlen(n->text) > 40 ? "..." : "");
		n->isconst = 1;
		n->type = T_LIT;
		return;
	}
	case E_NAME:
		check_name(c, sc, n);
		return;
	case E_CALL:
		check_call(c, sc, n);
		return;
	default:
		break;
	}
	check(c, sc, n->a);
	if (n->b)
		check(c, sc, n->b);
	if (n->c)
		check(c, sc, n->c);
	if (c->errors != e0)
		return;
	switch (n->kind) {
	case E_NEG:
		if (!numeric(n->a->type)) {
			error(c, n->loc, "operand of unary '-' is a condition, "
			      "not a number");
			return;
		}
		n->type = type_join(n->a->type, T_LIT);
		fold_const(n);
		return;
	case E_NOT:
		if (n->a->type != T_BOOL)
			error(c, n->loc, "operand of '!' must be a comparison");
		n->type = T_BOOL;
		return;
	case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_POW:
		/* a condition is a number, 0 or 1, to + - * / (counting) */
		if (n->kind == E_POW && (!numeric(n->a->type) ||
		                         !numeric(n->b->type))) {
			error(c, n->loc, "operand of '%s' is a condition, not a "
			      "number", op_word(n->kind));
			return;
		}
		if (n->kind == E_POW) {
			check_pow(c, n);
			return;
		}
		n->type = type_join(n->a->type, n->b->type);
		fold_const(n);
		return;
	case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE:
		if (!numeric(n->a->type) || !numeric(n->b->type))
			error(c, n->loc, "operand of '%s' is a condition, not a "
			      "number; comparisons do not chain", op_word(n->kind));
		n->type = T_BOOL;
		return;
	case E_AND: case E_OR:
		if (n->a->type != T_BOOL || n->b->type != T_BOOL)
			error(c, n->loc, "operands of '%s' must be comparisons",
			      op_word(n->kind));
		n->type = T_BOOL;
		return;
	case E_COND:
		if (n->a->type != T_BOOL) {
			error(c, n->a->loc, "the condition before '?' must be a "
			      "comparison");
			return;
		}
		if (!numeric(n->b->type) || !numeric(n->c->type)) {
			error(c, n->loc, "the values after '?' must be numbers, "
			      "not conditions");
			return;
		}
		n->type = type_join(n->b->type, n->c->type);
		return;
	default:
		ICE("sema: node kind %d", n->kind);
	}
}

/* The size of an expression once literal temporaries are substituted,
 * saturating; the parser bounds the recursion by MAX_DEPTH. */
static int lit_cost(Scope *sc, const Node *n)
{
	if (!n)
		return 0;
	if (n->kind == E_NAME) {
		const Sym *s = n->sym;
		return s && s->kind == SYM_TEMP && s->type == T_LIT ?
		       sc->litcost[s->index] : 1;
	}
	long v = 1 + (long)lit_cost(sc, n->a) + lit_cost(sc, n->b) +
	         lit_cost(sc, n->c);
	for (int i = 0; i < n->nargs && v < INT_MAX; i++)
		v += lit_cost(sc, n->args[i]);
	return v < INT_MAX / 4 ? (int)v : INT_MAX / 4;
}

static void hides_builtin(Ctx *c, const char *name, Loc l)
{
	if (builtin_find(name) >= 0)
		warn(c, l, "'%s' is also the name of a function; %s(...) still "
		     "calls the function", name, name);
}

static void declare(Ctx *c, Scope *sc, Decl *d, int after_body)
{
	Type t = (Type)c->opt->precision;
	int typed = 0;
	if (after_body)
		error(c, d->loc, "declarations must come before the loop body");
	if (d->typename) {
		typed = 1;
		int p = prec_find(d->typename);
		if (p >= 0)
			t = (Type)p;
		else
			typed = 0;
	}
	if (d->typename && !typed) {
		/* "LMEM a b;": most likely a missing comma, so 'a' is
		 * declared as well and its uses raise nothing more */
		char names[64];
		error(c, d->typeloc, "'%s' is not a type (%s); is a ',' missing "
		      "after it?", d->typename, prec_names(names, sizeof names));
		Sym *old = lookup(sc, d->typename);
		if (!old) {
			Sym *s = define(c, sc, d->typename, d->role, d->typeloc);
			s->type = t;
			s->used = 1;
		}
	}
	d->syms = cnew(c, sizeof(Sym *) * (size_t)d->n);
	for (int i = 0; i < d->n; i++) {
		if (reserved(c, d->locs[i], d->names[i], "declared"))
			continue;
		Sym *old = lookup(sc, d->names[i]);
		if (old) {
			error(c, d->locs[i], "'%s' is already declared (as %s at "
			      "%d:%d)", d->names[i], kind_word(old->kind),
			      old->loc.line, old->loc.col);
			continue;
		}
		hides_builtin(c, d->names[i], d->locs[i]);
		Sym *s = define(c, sc, d->names[i], d->role, d->locs[i]);
		s->type = t;
		s->typed = typed;
		d->syms[i] = s;
	}
}

/* SYMMETRIC and ANTISYMMETRIC (Newton's third law, docs/language.md):
 * each name an RMEM declared before, named once.  What its reduction
 * allows is known only after the body (symmetry_check). */
static void symmetry(Ctx *c, Scope *sc, Decl *d, int after_body)
{
	const char *w = d->rolename;
	if (after_body)
		error(c, d->loc, "declarations must come before the loop body");
	for (int i = 0; i < d->n; i++) {
		Sym *r = lookup(sc, d->names[i]);
		if (!r) {
			if (!set_add(c, &sc->undeclared, d->names[i]))
				error(c, d->locs[i], "'%s' is not declared; %s names "
				      "results declared before it with RMEM", d->names[i],
				      w);
			continue;
		}
		if (r->kind != SYM_RMEM) {
			error(c, d->locs[i], "%s names RMEM results, and '%s' is %s "
			      "%s: the symmetry is that of the pair's term in a "
			      "result", w, d->names[i],
			      r->kind == SYM_LMEM ? "an" : "a",
			      kind_word(r->kind));
			continue;
		}
		if (r->sym) {
			error(c, d->locs[i], "'%s' is named %s already (at %d:%d); "
			      "name it once", d->names[i],
			      r->sym > 0 ? "SYMMETRIC" : "ANTISYMMETRIC",
			      r->symloc.line, r->symloc.col);
			continue;
		}
		r->sym = d->sym;
		r->symloc = d->locs[i];
	}
}

/* After the body: only sums and counts split into an i-side and a j-side
 * term; a count is never antisymmetric.  A kernel with some results
 * declared and some not computes every pair (its j-sides are unknown). */
static void symmetry_check(Ctx *c, Prog *p)
{
	int nsym = 0;
	const Sym *plain = NULL;
	for (int i = 0; i < p->nsym[SYM_RMEM]; i++) {
		const Sym *r = p->sym[SYM_RMEM][i];
		if (!r->sym) {
			if (!plain)
				plain = r;
			continue;
		}
		nsym++;
		const char *w = r->sym > 0 ? "SYMMETRIC" : "ANTISYMMETRIC";
		if (r->red && r->red->red != NB_SUM) {
			error(c, r->symloc, "'%s' is a %s (%s at %d:%d), which cannot "
			      "be %s: only sums (+=, -=) and counts split into a term "
			      "for i and one for j; declare the sums alone",
			      r->name, r->red->what, r->red->op, r->redloc.line,
			      r->redloc.col, w);
		} else if (r->red && !r->nocount && r->sym < 0) {
			error(c, r->symloc, "'%s' is a count, which cannot be "
			      "ANTISYMMETRIC (a pair counts +1 for both elements); "
			      "declare it SYMMETRIC", r->name);
		}
	}
	if (nsym && plain && c->errors == 0)
		warn(c, plain->loc, "RMEM '%s' is neither SYMMETRIC nor "
		     "ANTISYMMETRIC, so its j-side term is unknown: runs compute "
		     "every pair (Newton's third law needs every RMEM declared)",
		     plain->name);
}

/* After the body, when a sum is known to be a count: a float holds the
 * integers only to 2^24, so an untyped float count becomes a double, as
 * an index's RMEM does (exact to 2^53: any Nj); a declared float stays. */
static void count_types(Prog *p)
{
	for (int i = 0; i < p->nsym[SYM_RMEM]; i++) {
		Sym *r = p->sym[SYM_RMEM][i];
		if (r->red && r->red->red == NB_SUM && !r->nocount &&
		    r->type == T_F32 && !r->typed)
			r->type = T_F64;
	}
}

static void let(Ctx *c, Scope *sc, Stmt *s)
{
	int e0 = c->errors;
	if (reserved(c, s->loc, s->name, "assigned")) {
		check(c, sc, s->e);
		return;
	}
	Sym *old = lookup(sc, s->name);
	sc->target = old && old->kind == SYM_RMEM ? old : NULL;
	check(c, sc, s->e);
	sc->target = NULL;
	if (old) {
		if (old->kind == SYM_TEMP) {
			error(c, s->loc, "'%s' is assigned twice (first at %d:%d); "
			      "a temporary takes one value", s->name,
			      old->loc.line, old->loc.col);
		} else if (old->kind == SYM_RMEM) {
			old->used = 1;
			Buf ops = {0};
			accum_list(&ops, "or");
			error(c, s->oploc, "RMEM '%s' cannot be assigned; "
			      "accumulate into it with %s", s->name, ops.s);
			buf_free(&ops);
		} else {
			old->used = 1; /* one message is enough */
			error(c, s->loc, "cannot assign to %s '%s'; it is an "
			      "input", kind_word(old->kind), s->name);
		}
		return;
	}
	hides_builtin(c, s->name, s->loc);
	Sym *t = define(c, sc, s->name, SYM_TEMP, s->loc);
	t->type = c->errors == e0 ? s->e->type : T_LIT;
	t->def = s->e;
	s->sym = t;
	if (set_has(&sc->early, s->name, 0))
		t->used = 1; /* its use before was reported already */
	sc->litcost[t->index] = 1;
	if (t->type == T_LIT && c->errors == e0) {
		sc->litcost[t->index] = lit_cost(sc, s->e);
		if (sc->litcost[t->index] > MAX_LITERAL_NODES)
			t->type = (Type)c->opt->precision;
	}
}

static void reduce(Ctx *c, Scope *sc, Stmt *s)
{
	int e0 = c->errors;
	check(c, sc, s->e);
	const Accum *red = accum_of(s->kind);
	const char *op = red->op;
	Sym *r = lookup(sc, s->name);
	if (!r && reserved(c, s->loc, s->name, "reduced into"))
		return;
	if (!r) {
		if (set_has(&sc->later, s->name, 0))
			error(c, s->loc, "'%s' is a temporary, not RMEM; only "
			      "RMEM names take %s", s->name, op);
		else
			error(c, s->loc, "'%s' is not declared; declare it "
			      "with RMEM", s->name);
		return;
	}
	if (r->kind != SYM_RMEM) {
		r->used = 1;
		error(c, s->loc, "cannot reduce into %s '%s'; only RMEM names "
		      "take %s", kind_word(r->kind), s->name, op);
		return;
	}
	r->used = 1;
	sc->nreduce++;
	if (r->red && r->red->red != red->red) {
		error(c, s->oploc, "RMEM '%s' is a %s already (%s at %d:%d); an "
		      "RMEM takes one kind of reduction, so use another RMEM "
		      "for the %s", s->name, r->red->what, r->red->op,
		      r->redloc.line, r->redloc.col, red->what);
		return;
	}
	if (!r->red) {
		r->red = red;
		r->redloc = s->oploc;
	}
	/* an index is exact in a double up to 2^53, in a float only to
	 * 2^24: an untyped float RMEM of an index becomes a double */
	if (red->red == NB_ARGMIN || red->red == NB_ARGMAX) {
		if (r->type == T_F32 && r->typed) {
			error(c, s->oploc, "RMEM '%s' gets a j index from %s, "
			      "exact in a float only up to 2^24; declare it double "
			      "or leave its type out (it is then a double)",
			      s->name, op);
			return;
		}
		if (r->type == T_F32)
			r->type = T_F64;
	}
	/* a sum of conditions only is a count, an integer */
	if (c->errors == e0 && (s->e->type != T_BOOL || red->red != NB_SUM))
		r->nocount = 1;
	s->sym = r;
}

/* Where "nothing is reduced" points: just past the last token. */
static Loc end_loc(Ctx *c)
{
	size_t e = c->len;
	while (e > 0 && strchr(" \t\r\n\f\v", c->src[e - 1]) && c->src[e - 1])
		e--;
	Loc l = {1, 1, 0};
	for (size_t i = 0; i < e; i++) {
		if (c->src[i] == '\n') {
			l.line++;
			l.col = 1;
		} else {
			l.col++;
		}
	}
	l.off = (int)e;
	return l;
}

/* Warnings for what is declared or assigned and never used: the first
 * MAX_UNUSED, then a count, so that a generated file with a million unused
 * names is not a million messages. */
#define MAX_UNUSED 20

static void unused(Ctx *c, Prog *p)
{
	int n = 0;
	for (int k = 0; k < 5; k++)
		for (int i = 0; i < p->nsym[k]; i++) {
			Sym *s = p->sym[k][i];
			if (s->used)
				continue;
			if (++n > MAX_UNUSED)
				continue;
			if (k == SYM_RMEM)
				warn(c, s->loc, "RMEM '%s' is never reduced into; "
				     "it stays 0", s->name);
			else if (k == SYM_TEMP)
				warn(c, s->loc, "'%s' is assigned but never used",
				     s->name);
			else
				warn(c, s->loc, "%s '%s' is never used",
				     kind_word(s->kind), s->name);
		}
	if (n > MAX_UNUSED && c->diag)
		fprintf(c->diag, "%s: note: %d more names are never used (not "
		        "listed)\n", nb_esc(c->path), n - MAX_UNUSED);
}

int sema(Ctx *c, Prog *p)
{
	Scope sc = {0};
	sc.nbucket = 64;
	sc.bucket = cnew(c, sizeof(Sym *) * 64);
	sc.prog = p;
	int nlet = 0;
	for (int i = 0; i < p->nstmt; i++)
		nlet += p->stmt[i]->kind == S_LET;
	set_init(c, &sc.later, nlet);
	set_init(c, &sc.early, nlet);
	set_init(c, &sc.undeclared, 0);
	set_init(c, &sc.unknown, 0);
	sc.litcost = cnew(c, sizeof(int) * (size_t)(nlet + 1));
	for (int i = 0; i < p->nstmt; i++)
		if (p->stmt[i]->kind == S_LET)
			set_has(&sc.later, p->stmt[i]->name, 1);

	int body = 0;
	for (int i = 0; i < p->nstmt; i++) {
		Stmt *s = p->stmt[i];
		switch (s->kind) {
		case S_DECL:
			if (s->decl->sym)
				symmetry(c, &sc, s->decl, body);
			else
				declare(c, &sc, s->decl, body);
			break;
		case S_LET:
			body = 1;
			let(c, &sc, s);
			break;
		default:
			body = 1;
			reduce(c, &sc, s);
			break;
		}
		if (c->errors > c->max_errors)
			return -1;
	}

	if (sc.nreduce == 0 && c->errors == 0) {
		Buf ops = {0};
		accum_list(&ops, "or");
		if (p->nstmt == 0)
			error(c, end_loc(c), "the file has no declarations or "
			      "statements; a kernel needs at least an RMEM result "
			      "and a %s into it", ops.s);
		else if (p->nsym[SYM_RMEM] == 0)
			error(c, end_loc(c), "the kernel has no result: declare "
			      "one with RMEM and accumulate into it with %s",
			      ops.s);
		else
			error(c, end_loc(c), "the kernel reduces nothing: "
			      "accumulate into an RMEM name with %s", ops.s);
		buf_free(&ops);
	}
	symmetry_check(c, p);
	count_types(p);
	unused(c, p);
	return c->errors ? -1 : 0;
}
