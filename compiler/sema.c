/* sema.c: names, rules and types.  Walks the statements in order (a
 * temporary exists from its assignment on), reports every rule the source
 * breaks and keeps going, and gives each expression a type: the widest of
 * its operands (float < double < dd), literals taking their context's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ast.h"

typedef struct Scope {
	Sym **bucket;
	int nbucket, n;
	Prog *prog;
	/* names assigned with '=' somewhere, to tell "used before assignment"
	 * from "not declared" */
	const char **later;
	int nlater;
	int nreduce;
} Scope;

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
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

static Type join(Type a, Type b)
{
	if (a == T_LIT)
		return b;
	if (b == T_LIT)
		return a;
	return a > b ? a : b; /* T_F32 < T_F64 < T_DD */
}

static int assigned_later(Scope *sc, const char *name)
{
	for (int i = 0; i < sc->nlater; i++)
		if (strcmp(sc->later[i], name) == 0)
			return 1;
	return 0;
}

/* The value of a literal-only expression, for exponents.  Returns 0 if the
 * expression depends on anything known only at run time. */
static int constval(const Node *n, double *v)
{
	double a, b;
	switch (n->kind) {
	case E_NUM:
		*v = n->num;
		return 1;
	case E_NAME:
		if (n->sym && n->sym->kind == SYM_TEMP && n->sym->type == T_LIT &&
		    n->sym->def)
			return constval(n->sym->def, v);
		return 0;
	case E_NEG:
		if (!constval(n->a, &a))
			return 0;
		*v = -a;
		return 1;
	case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_POW:
		if (!constval(n->a, &a) || !constval(n->b, &b))
			return 0;
		switch (n->kind) {
		case E_ADD: *v = a + b; break;
		case E_SUB: *v = a - b; break;
		case E_MUL: *v = a * b; break;
		case E_DIV: *v = a / b; break;
		default: *v = pow(a, b); break;
		}
		return 1;
	default:
		return 0;
	}
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

/* Checks an expression and sets its type.  Errors leave the type at T_LIT
 * (numeric) so one mistake does not cascade into more messages. */
static void check(Ctx *c, Scope *sc, Node *n)
{
	switch (n->kind) {
	case E_NUM: {
		errno = 0;
		char *end;
		n->num = strtod(n->text, &end);
		if (errno == ERANGE && isinf(n->num))
			error(c, n->loc, "number '%s' is too large", n->text);
		n->isconst = 1;
		n->type = T_LIT;
		return;
	}
	case E_NAME: {
		Sym *s = lookup(sc, n->name);
		if (!s) {
			if (assigned_later(sc, n->name))
				error(c, n->loc,
				      "'%s' is used before it is assigned",
				      n->name);
			else
				error(c, n->loc, "'%s' is not declared",
				      n->name);
			return;
		}
		if (s->kind == SYM_RMEM) {
			error(c, n->loc,
			      "RMEM '%s' cannot be read; it only accumulates "
			      "with += and -=", n->name);
			return;
		}
		n->sym = s;
		s->used = 1;
		n->type = s->type;
		if (s->kind == SYM_TEMP && s->type == T_LIT) {
			double v;
			if (constval(n, &v)) {
				n->isconst = 1;
				n->num = v;
			}
		}
		return;
	}
	case E_NEG:
		check(c, sc, n->a);
		if (!numeric(n->a->type))
			error(c, n->loc, "operand of unary '-' is a condition, "
			      "not a number");
		else
			n->type = n->a->type;
		return;
	case E_NOT:
		check(c, sc, n->a);
		if (n->a->type != T_BOOL)
			error(c, n->loc, "operand of '!' must be a comparison");
		n->type = T_BOOL;
		return;
	case E_ADD: case E_SUB: case E_MUL: case E_DIV:
		check(c, sc, n->a);
		check(c, sc, n->b);
		if (!numeric(n->a->type) || !numeric(n->b->type)) {
			error(c, n->loc, "operand of '%s' is a condition, not a "
			      "number", op_word(n->kind));
			return;
		}
		n->type = join(n->a->type, n->b->type);
		return;
	case E_POW: {
		check(c, sc, n->a);
		check(c, sc, n->b);
		if (!numeric(n->a->type) || !numeric(n->b->type)) {
			error(c, n->loc, "operand of '**' is a condition, not a "
			      "number");
			return;
		}
		double e;
		if (!constval(n->b, &e)) {
			error(c, n->b->loc, "the exponent of '**' must be a "
			      "constant; use pow(x, y) for a variable one");
			return;
		}
		if (!isfinite(e)) {
			error(c, n->b->loc, "the exponent of '**' is not a "
			      "finite number");
			return;
		}
		n->b->isconst = 1;
		n->b->num = e;
		n->type = n->a->type;
		if (n->type == T_LIT) {
			double b;
			if (constval(n, &b)) {
				n->isconst = 1;
				n->num = b;
			}
		}
		return;
	}
	case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE:
		check(c, sc, n->a);
		check(c, sc, n->b);
		if (!numeric(n->a->type) || !numeric(n->b->type))
			error(c, n->loc, "operand of '%s' is a condition, not a "
			      "number", op_word(n->kind));
		n->type = T_BOOL;
		return;
	case E_AND: case E_OR:
		check(c, sc, n->a);
		check(c, sc, n->b);
		if (n->a->type != T_BOOL || n->b->type != T_BOOL)
			error(c, n->loc, "operands of '%s' must be comparisons",
			      op_word(n->kind));
		n->type = T_BOOL;
		return;
	case E_COND:
		check(c, sc, n->a);
		check(c, sc, n->b);
		check(c, sc, n->c);
		if (n->a->type != T_BOOL)
			error(c, n->a->loc, "the condition before '?' must be a "
			      "comparison");
		if (!numeric(n->b->type) || !numeric(n->c->type)) {
			error(c, n->loc, "the values after '?' must be numbers");
			return;
		}
		n->type = join(n->b->type, n->c->type);
		return;
	case E_CALL: {
		int f = builtin_find(n->name);
		for (int i = 0; i < n->nargs; i++)
			check(c, sc, n->args[i]);
		if (f < 0) {
			Sym *s = lookup(sc, n->name);
			if (s)
				error(c, n->loc, "'%s' is a %s, not a function",
				      n->name, kind_word(s->kind));
			else
				error(c, n->loc, "unknown function '%s'",
				      n->name);
			return;
		}
		n->fn = f;
		if (n->nargs != builtins[f].nargs) {
			error(c, n->loc, "'%s' takes %d argument%s, not %d",
			      n->name, builtins[f].nargs,
			      builtins[f].nargs == 1 ? "" : "s", n->nargs);
			return;
		}
		Type t = T_LIT;
		for (int i = 0; i < n->nargs; i++) {
			if (!numeric(n->args[i]->type)) {
				error(c, n->args[i]->loc, "argument of '%s' is a "
				      "condition, not a number", n->name);
				return;
			}
			t = join(t, n->args[i]->type);
		}
		n->type = t;
		return;
	}
	}
}

static void declare(Ctx *c, Scope *sc, Decl *d, int after_body)
{
	Type t = (Type)c->opt->precision;
	int typed = 0;
	if (after_body)
		error(c, d->loc, "declarations must come before the loop body");
	if (d->typename) {
		if (strcmp(d->typename, "float") == 0)
			t = T_F32;
		else if (strcmp(d->typename, "double") == 0)
			t = T_F64;
		else if (strcmp(d->typename, "dd") == 0)
			t = T_DD;
		else
			error(c, d->typeloc, "unknown type '%s' (expected float, "
			      "double or dd)", d->typename);
		typed = 1;
	}
	d->syms = cnew(c, sizeof(Sym *) * (size_t)d->n);
	for (int i = 0; i < d->n; i++) {
		Sym *old = lookup(sc, d->names[i]);
		if (old) {
			error(c, d->locs[i], "'%s' is already declared at %d:%d",
			      d->names[i], old->loc.line, old->loc.col);
			continue;
		}
		if (builtin_find(d->names[i]) >= 0)
			warn(c, d->locs[i], "'%s' hides the function of that "
			     "name", d->names[i]);
		Sym *s = define(c, sc, d->names[i], d->role, d->locs[i]);
		s->type = t;
		s->typed = typed;
		d->syms[i] = s;
	}
}

static void let(Ctx *c, Scope *sc, Stmt *s)
{
	check(c, sc, s->e);
	Sym *old = lookup(sc, s->name);
	if (old) {
		if (old->kind == SYM_TEMP)
			error(c, s->loc, "'%s' is assigned twice (first at %d:%d); "
			      "a temporary takes one value", s->name,
			      old->loc.line, old->loc.col);
		else if (old->kind == SYM_RMEM)
			error(c, s->oploc, "RMEM '%s' cannot be assigned; "
			      "accumulate into it with += or -=", s->name);
		else
			error(c, s->loc, "cannot assign to %s '%s'; it is an "
			      "input", kind_word(old->kind), s->name);
		return;
	}
	Sym *t = define(c, sc, s->name, SYM_TEMP, s->loc);
	t->type = s->e->type;
	t->def = s->e;
	s->sym = t;
}

static void reduce(Ctx *c, Scope *sc, Stmt *s)
{
	check(c, sc, s->e);
	const char *op = s->kind == S_ACC ? "+=" : "-=";
	Sym *r = lookup(sc, s->name);
	if (!r) {
		if (assigned_later(sc, s->name))
			error(c, s->loc, "'%s' is a temporary, not RMEM; only "
			      "RMEM names take %s", s->name, op);
		else
			error(c, s->loc, "'%s' is not declared; declare it "
			      "with RMEM", s->name);
		return;
	}
	if (r->kind != SYM_RMEM) {
		error(c, s->oploc, "cannot reduce into %s '%s'; only RMEM names "
		      "take %s", kind_word(r->kind), s->name, op);
		return;
	}
	if (!numeric(s->e->type)) {
		error(c, s->oploc, "the value after %s is a condition, not a "
		      "number", op);
		return;
	}
	r->used = 1;
	s->sym = r;
	sc->nreduce++;
}

static Loc end_loc(Ctx *c)
{
	Loc l = {1, 1, 0};
	for (size_t i = 0; i < c->len; i++) {
		if (c->src[i] == '\n') {
			l.line++;
			l.col = 1;
		} else {
			l.col++;
		}
	}
	l.off = (int)c->len;
	return l;
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
	sc.later = cnew(c, sizeof(char *) * (size_t)(nlet ? nlet : 1));
	/* "later" needs a fast test for long programs: only names of
	 * temporaries go in, and lookups go through it only on an error */
	for (int i = 0; i < p->nstmt; i++)
		if (p->stmt[i]->kind == S_LET)
			sc.later[sc.nlater++] = p->stmt[i]->name;

	int body = 0;
	for (int i = 0; i < p->nstmt; i++) {
		Stmt *s = p->stmt[i];
		switch (s->kind) {
		case S_DECL:
			declare(c, &sc, s->decl, body);
			break;
		case S_LET:
			body = 1;
			let(c, &sc, s);
			break;
		case S_ACC:
		case S_ACCSUB:
			body = 1;
			reduce(c, &sc, s);
			break;
		}
		if (c->errors > c->max_errors)
			return -1;
	}

	if (sc.nreduce == 0 && c->errors == 0)
		error(c, end_loc(c), "the kernel reduces nothing: accumulate into "
		      "an RMEM name with += or -=");
	for (int k = 0; k < 5; k++)
		for (int i = 0; i < p->nsym[k]; i++) {
			Sym *s = p->sym[k][i];
			if (s->used)
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
	/* a temporary of literals only is a constant; give it a type for
	 * printing, while lowering still folds it in each context */
	return c->errors ? -1 : 0;
}
