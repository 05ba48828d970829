/* ast.c: building and printing the AST.  The printed form (--emit=ast) is
 * what tests/cases/ast and tests/cases/examples hold: one line
 * per statement, an S-expression per value, each operator with the type
 * sema gave it. */
#include <string.h>
#include "ir.h"

Type type_join(Type a, Type b)
{
	/* an index or a condition in arithmetic is read in the type of
	 * the rest, like a literal */
	if (a == T_INT || a == T_BOOL)
		a = T_LIT;
	if (b == T_INT || b == T_BOOL)
		b = T_LIT;
	if (a == T_LIT)
		return b;
	if (b == T_LIT)
		return a;
	return (Type)prec_join((nb_prec)a, (nb_prec)b);
}

static const char *const kind_names[] = {
	[E_NUM] = "num", [E_NAME] = "name", [E_NEG] = "neg", [E_NOT] = "not",
	[E_ADD] = "add", [E_SUB] = "sub",   [E_MUL] = "mul", [E_DIV] = "div",
	[E_POW] = "pow", [E_LT] = "lt",     [E_LE] = "le",   [E_GT] = "gt",
	[E_GE] = "ge",   [E_EQ] = "eq",     [E_NE] = "ne",   [E_AND] = "and",
	[E_OR] = "or",   [E_COND] = "cond", [E_CALL] = "call",
	[E_IDX] = "index",
};

const char *node_kind_name(NodeKind k) { return kind_names[k]; }

const Accum accums[] = {
	{S_ACC, "+=", NULL, "sum", NB_SUM, O_ACC},
	{S_ACCSUB, "-=", NULL, "negated sum", NB_SUM, O_ACCSUB},
	{S_MIN, "min=", "min", "minimum", NB_MIN, O_ACCMIN},
	{S_MAX, "max=", "max", "maximum", NB_MAX, O_ACCMAX},
	{S_ARGMIN, "argmin=", "argmin", "j of the minimum", NB_ARGMIN,
	 O_ACCARGMIN},
	{S_ARGMAX, "argmax=", "argmax", "j of the maximum", NB_ARGMAX,
	 O_ACCARGMAX},
	{S_LSE, "logsumexp=", "logsumexp", "log of the sum of exp",
	 NB_LOGSUMEXP, O_ACCLSE},
};
const int naccum = sizeof accums / sizeof *accums;

const Accum *accum_of(StmtKind k)
{
	for (int i = 0; i < naccum; i++)
		if (accums[i].kind == k)
			return &accums[i];
	return NULL;
}

const Accum *accum_word(const char *word)
{
	for (int i = 0; i < naccum; i++)
		if (accums[i].word && strcmp(accums[i].word, word) == 0)
			return &accums[i];
	return NULL;
}

void accum_list_what(Buf *b, const char *conj, int with_what)
{
	for (int i = 0; i < naccum; i++) {
		if (i)
			buf_printf(b, i == naccum - 1 ? " %s " : ", ", conj);
		buf_puts(b, accums[i].op);
		if (with_what)
			buf_printf(b, " (%s)", accums[i].what);
	}
}

void accum_list(Buf *b, const char *conj)
{
	accum_list_what(b, conj, 0);
}

void body_rule(Buf *b)
{
	buf_puts(b, "the body holds only assignments (t = e;) and "
	         "accumulations into RMEM names (");
	accum_list(b, "or");
	buf_puts(b, "), run for every (i, j) pair");
}

const char *type_name(Type t)
{
	if (type_numeric(t))
		return prec[t].name;
	return t == T_BOOL ? "bool" : t == T_INT ? "index" :
	       t == T_LIT ? "literal" : "?";
}

Node *node_new(Ctx *c, NodeKind k, Loc l)
{
	Node *n = cnew(c, sizeof *n);
	n->kind = k;
	n->loc = l;
	n->type = T_LIT;
	return n;
}

Node *node_bin(Ctx *c, NodeKind k, Loc l, Node *a, Node *b)
{
	Node *n = node_new(c, k, l);
	n->a = a;
	n->b = b;
	n->depth = a->depth + 1;
	if (b && b->depth + 1 > n->depth)
		n->depth = b->depth + 1;
	return n;
}

static void print_node(const Node *n, Buf *out)
{
	switch (n->kind) {
	case E_NUM:
		buf_puts(out, n->text);
		return;
	case E_NAME:
	case E_IDX:
		buf_puts(out, n->name);
		return;
	case E_CALL:
		buf_printf(out, "(%s:%s", n->name, type_name(n->type));
		for (int i = 0; i < n->nargs; i++) {
			buf_putc(out, ' ');
			print_node(n->args[i], out);
		}
		buf_putc(out, ')');
		return;
	default:
		buf_printf(out, "(%s:%s ", kind_names[n->kind],
		           type_name(n->type));
		print_node(n->a, out);
		if (n->b) {
			buf_putc(out, ' ');
			print_node(n->b, out);
		}
		if (n->c) {
			buf_putc(out, ' ');
			print_node(n->c, out);
		}
		buf_putc(out, ')');
	}
}

void ast_print(Prog *p, Buf *out)
{
	for (int i = 0; i < p->nstmt; i++) {
		Stmt *s = p->stmt[i];
		switch (s->kind) {
		case S_DECL: {
			Decl *d = s->decl;
			buf_printf(out, "%s", d->rolename);
			if (d->sym) { /* names, not declarations */
				for (int k = 0; k < d->n; k++)
					buf_printf(out, " %s", d->names[k]);
				buf_putc(out, '\n');
				break;
			}
			for (int k = 0; k < d->n; k++) {
				/* the type sema settled on, typed or not */
				const char *t = d->typename;
				if (d->syms && d->syms[k])
					t = type_name(d->syms[k]->type);
				buf_printf(out, " %s:%s", d->names[k], t ? t : "?");
			}
			buf_putc(out, '\n');
			break;
		}
		case S_LET:
			buf_printf(out, "%s:%s = ", s->name,
			           s->sym ? type_name(s->sym->type) : "?");
			print_node(s->e, out);
			buf_putc(out, '\n');
			break;
		default:
			buf_printf(out, "%s %s ", s->name, accum_of(s->kind)->op);
			print_node(s->e, out);
			buf_putc(out, '\n');
			break;
		}
	}
}
