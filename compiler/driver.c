/* driver.c: one compilation, start to end.  nb_compile runs the stages as a
 * straight list (QBE's main.c): parse, check, lower, the optimizer's passes,
 * the target.  --emit stops early to show a stage's result. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* IR dumps between passes: --emit=ir:PASS prints the IR after PASS, and
 * --emit=ir:all after every pass.  A pass run more than once is named
 * PASS, PASS.2, PASS.3 in the order of its runs.  The verifier runs after
 * every pass. */
typedef struct Dump {
	const char *want; /* pass name, "all", or NULL */
	Buf *out;
	int hit;
	Buf *live;        /* --stats: live values after each pass */
	const char *ran[32]; /* the passes so far, to number repeats */
	int nran;
	int nbl;          /* --emit=nbl: the source after lower and ad */
} Dump;

static void step(Dump *d, Func *f, const char *pass)
{
	int runs = 1;
	for (int i = 0; i < d->nran; i++)
		runs += strcmp(d->ran[i], pass) == 0;
	if (d->nran < (int)NELEM(d->ran))
		d->ran[d->nran++] = pass;
	char name[32];
	if (runs > 1)
		snprintf(name, sizeof name, "%s.%d", pass, runs);
	else
		snprintf(name, sizeof name, "%s", pass);
	ir_verify(f, 1);
	if (d->live) {
		Stats s;
		ir_stats(f, &s);
		buf_printf(d->live, "  %-10s %4d values live in the loop, %4d "
		           "32-bit words\n", name, s.live_body, s.regs);
	}
	if (!d->want)
		return;
	if (strcmp(d->want, "all") == 0) {
		buf_printf(d->out, "; after %s\n", name);
		ir_print(f, d->out);
		d->hit = 1;
	} else if (strcmp(d->want, name) == 0) {
		ir_print(f, d->out);
		d->hit = 1;
	}
}

/* Runs one pass and its step. */
static void run(Dump *d, Func *f, const char *name, void (*pass)(Func *))
{
	pass(f);
	step(d, f, name);
}

/* The size of a Func whose loop body is copied `copies` times (1: as it
 * is); *body, the body's. */
static long grown(const Func *f, long copies, long *body)
{
	*body = 0;
	for (int k = 0; k < f->n; k++)
		*body += f->ins[k].blk == B_BODY;
	return (long)f->n - *body + *body * copies;
}

/* An unrolling the user did not give (a row of the defaults table) is
 * halved while the copies would grow the Func past MAX_INS: the defaults
 * compile whatever compiles at 1 x 1.  `extra`: copies beyond the factor
 * (the j-unroll's one-element tail). */
static void fit(const Func *f, int *factor, unsigned given, long extra)
{
	long body;
	while (!given && *factor > 1 && grown(f, *factor + extra, &body) > MAX_INS)
		*factor /= 2;
}

/* Refuses a Func that would grow past MAX_INS when its loop body is
 * copied `copies` times (1: as it is), before the copies cost memory. */
static int too_big(Ctx *c, const Func *f, long copies, const nb_options *o)
{
	long body;
	long total = grown(f, copies, &body);
	if (total <= MAX_INS)
		return 0;
	if (copies == 1)
		error_file(c, "the kernel is too large: %ld operations, more "
		           "than the limit of %d; split it", total, MAX_INS);
	else
		error_file(c, "the kernel is too large for --unroll-i=%d "
		           "--unroll-j=%d: %ld operations of %ld in the loop "
		           "body, more than the limit of %d after unrolling; "
		           "unroll less or split the kernel", o->unroll_i,
		           o->unroll_j, total, body, MAX_INS);
	return 1;
}

static int regs_of(const Func *f)
{
	Stats s;
	ir_stats(f, &s);
	return s.regs;
}

/* The optimizer, a straight list: no pass calls another, each is checked
 * and can be dumped after it runs.  The order matters where a pass makes
 * work for the next: fold and powred leave unused literals, reassoc
 * opened sums and fma absorbed products to the dce after them, and cse
 * orders commutative operands by index, so it runs on a swept list. */
static Func *optimize(Ctx *c, Prog *p, nb_options *o, Dump *d,
                      const char *name)
{
	Func *f = lower(c, p);
	f->name = name;
	if (c->errors)
		return f;
	step(d, f, "lower");
	if (o->jvp || o->grad || o->grad_of) {
		if (ad_derive(f, o->jvp, o->grad, o->grad_of) < 0)
			return f;
		step(d, f, "ad");
		run(d, f, "dce", pass_dce); /* the rules' unused terms */
	}
	if (d->nbl) {
		nbl_print(f, d->out);
		return f;
	}
	run(d, f, "fold", pass_fold);
	run(d, f, "dce", pass_dce);
	run(d, f, "powred", pass_powred);
	run(d, f, "dce", pass_dce);
	if (too_big(c, f, 1, o))
		return f;
	run(d, f, "fold", pass_fold);     /* the products powred made */
	run(d, f, "dce", pass_dce);
	run(d, f, "cse", pass_cse);
	run(d, f, "dce", pass_dce);
	run(d, f, "reassoc", pass_reassoc);
	run(d, f, "dce", pass_dce);
	run(d, f, "fma", pass_fma);
	run(d, f, "dce", pass_dce);
	fit(f, &o->unroll_i, o->given & NB_GIVEN_UNROLL_I, 0);
	if (too_big(c, f, o->unroll_i, o))
		return f;
	pass_unroll_i(f, o->unroll_i);
	step(d, f, "unroll-i");
	run(d, f, "cse", pass_cse);       /* work the i-copies share */
	run(d, f, "dce", pass_dce);
	run(d, f, "hoist", pass_hoist);
	pass_jsplit(f, o->jsplit);
	step(d, f, "jsplit");
	/* NJ copies and the one-element tail */
	fit(f, &o->unroll_j, o->given & NB_GIVEN_UNROLL_J, 1);
	if (o->unroll_j > 1 && too_big(c, f, o->unroll_j + 1, o))
		return f;
	pass_unroll_j(f, o->unroll_j);
	step(d, f, "unroll-j");
	if (o->sched)
		pass_sched(f);
	step(d, f, "sched");
	return f;
}

static const char *kernel_name(Ctx *c, const char *path, const nb_options *o)
{
	/* Any identifier will do, kill or main or M_PI: generated code
	 * spells it behind a prefix of its own (emit.h). */
	if (o->kname) {
		/* checked here too: library callers bypass the option parser */
		if (!nb_is_ident(o->kname))
			error_file(c, "the kernel name '%s' is not an identifier",
			           nb_esc(o->kname));
		else if (strlen(o->kname) > 255)
			error_file(c, "--name=%.20s...: a kernel name may have at "
			           "most 255 characters", o->kname);
		return o->kname;
	}
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strcspn(b, ".");
	if (n == 0 || strcmp(path, "-") == 0 || strcmp(path, "<stdin>") == 0)
		return "nbkernel";
	char *s = cstrndup(c, b, n);
	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	/* a name is an identifier: 1d.nbl is k_1d */
	if (*s >= '0' && *s <= '9')
		return cprintf(c, "k_%s", s);
	return s;
}

/* A source may carry the flags it is meant for in a comment line
 *   // nbcc-options: --precision=dd --unroll-i=2
 * They apply where the command line left an option at its default, so a
 * kernel like Fig. 6 of paper 001 can say it wants dd without a type in
 * its declarations. */
static void file_options(Ctx *c, nb_options *o, const nb_options *given)
{
	static const char key[] = "nbcc-options:";
	nb_options def, mine;
	nb_options_init(&def);
	def.given = 0;
	int lineno = 1; /* of p: counting from the start each time is quadratic */
	for (const char *p = c->src; p && p < c->src + c->len; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(c->src + c->len - p));
		const char *e = nl ? nl : c->src + c->len;
		const char *q = p;
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (e - q > 2 && q[0] == '/' && q[1] == '/') {
			q += 2;
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
			if ((size_t)(e - q) > sizeof key - 1 &&
			    memcmp(q, key, sizeof key - 1) == 0) {
				char *line = cstrndup(c, q + sizeof key - 1,
				                      (size_t)(e - q) - (sizeof key - 1));
				mine = def;
				Loc l = {lineno, 1, (int)(q - c->src)};
				l.col = (int)(q - p) + 1;
				for (char *w = strtok(line, " \t\r"); w;
				     w = strtok(NULL, " \t\r")) {
					char err[256];
					unsigned before = mine.given;
					int cpu = mine.cpu;
					const char *dc = mine.devclass;
					int took = nb_options_parse(&mine, w, NULL, err,
					                            sizeof err);
					if (took < 0)
						error(c, l, "in nbcc-options: %s", err);
					else if (took == 0)
						error(c, l, "in nbcc-options: unknown flag "
						      "'%s' (see nbcc --help)", w);
					else if (took == 2)
						error(c, l, "in nbcc-options: '%s' needs "
						      "its value after '='", w);
					else if ((mine.given & ~before &
					          (NB_GIVEN_TARGET | NB_GIVEN_NAME)) ||
					         mine.cpu != cpu || mine.devclass != dc)
						warn(c, l, "'%s' in nbcc-options is "
						     "ignored: the target, the name and "
						     "the device class come from the "
						     "command line", w);
				}
				/* take what the file sets and the caller did not */
#define TAKE(bit, field) \
	if ((mine.given & (bit)) && !(given->given & (bit))) { \
		o->field = mine.field; \
		o->given |= (bit); \
	}
				TAKE(NB_GIVEN_PRECISION, precision);
				TAKE(NB_GIVEN_UNROLL_I, unroll_i);
				TAKE(NB_GIVEN_UNROLL_J, unroll_j);
				TAKE(NB_GIVEN_JSPLIT, jsplit);
				TAKE(NB_GIVEN_SCHED, sched);
				TAKE(NB_GIVEN_FAST_MATH, fast_math);
				TAKE(NB_GIVEN_FMA, fma);
				TAKE(NB_GIVEN_WG, wg);
				TAKE(NB_GIVEN_TILE, tile);
				TAKE(NB_GIVEN_FTZ, ftz);
				TAKE(NB_GIVEN_DD, dd_qd);
				TAKE(NB_GIVEN_APPROX, approx);
#undef TAKE
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}

int nb_compile(const char *path, const char *src, size_t len,
               const nb_options *opt, const char *emit, FILE *diag,
               nb_output *out)
{
	memset(out, 0, sizeof *out);
	nb_options o = *opt;
	Ctx c;
	ctx_init(&c, path, src, len, &o, diag);
	file_options(&c, &o, opt);
	Buf text = {0}, live = {0};
	const Target *t = NULL;
	/* a struct filled in by hand (nbrt_load's opts), not read by
	 * nb_options_parse: a precision past the table was read beyond it,
	 * then the IR verifier's internal error aborted the process, and a
	 * name that is no identifier would reach the generated code */
	char oerr[256];
	if (nb_options_check(&o, oerr, sizeof oerr)) {
		error_file(&c, "%s", oerr);
		goto done;
	}
	if (!emit)
		emit = "code";
	if (strcmp(emit, "code") == 0 || strcmp(emit, "stats") == 0 ||
	    strcmp(emit, "explain") == 0 || strcmp(emit, "vliw") == 0 ||
	    strncmp(emit, "ir", 2) == 0 || strcmp(emit, "nbl") == 0) {
		t = o.target ? target_named(o.target) : target_default();
		if (!t) {
			error_file(&c, "unknown target '%s'", o.target);
			goto done;
		}
		if (strcmp(emit, "vliw") == 0 && !t->vliw) {
			error_file(&c, "--vliw reports on VLIW bundles, which only "
			           "the amdil target has (--target=amdil)");
			goto done;
		}
	}
	if (len > NB_MAX_SOURCE) {
		error_file(&c, "the source is %zu bytes, more than the limit of "
		           "%zu MiB", len, NB_MAX_SOURCE >> 20);
		goto done;
	}

	if (strcmp(emit, "tokens") == 0) {
		lex_dump(&c, &text);
		goto done;
	}
	Prog *p = parse(&c);
	if (c.errors)
		goto done;
	if (sema(&c, p) || c.errors)
		goto done;
	if (strcmp(emit, "ast") == 0) {
		ast_print(p, &text);
		goto done;
	}

	Dump d = {0};
	d.out = &text;
	if (strcmp(emit, "stats") == 0)
		d.live = &live;
	if (strncmp(emit, "ir:", 3) == 0)
		d.want = emit + 3;
	else if (strcmp(emit, "nbl") == 0)
		d.nbl = 1;
	else if (strcmp(emit, "ir") != 0 && strcmp(emit, "code") != 0 &&
	         strcmp(emit, "stats") != 0 && strcmp(emit, "explain") != 0 &&
	         strcmp(emit, "vliw") != 0) {
		error_file(&c, "unknown --emit value '%s'", emit);
		goto done;
	}
	/* Options nobody set are the target's choice, made for the widest
	 * type the kernel declares.  An index (argmin=, argmax=) is a double
	 * only to hold j exactly, and so is an untyped count (sema.c's
	 * count_types): the values keep their type, so a float kernel with
	 * one keeps float's row (nearest.nbl: 16 x 1 on the host is 1.66
	 * times double's 8 x 1). */
	const nb_defaults *row = NULL;
	int wg_open = !(o.given & NB_GIVEN_WG) && !o.wg;
	if (t->defaults) {
		Type widest = T_F32;
		for (int k = SYM_LMEM; k <= SYM_CONST; k++)
			for (int i = 0; i < p->nsym[k]; i++) {
				const Sym *s = p->sym[k][i];
				if (k == SYM_RMEM && s->red &&
				    (s->red->red == NB_ARGMIN ||
				     s->red->red == NB_ARGMAX ||
				     (s->red->red == NB_SUM && !s->nocount &&
				      !s->typed)))
					continue;
				widest = type_join(widest, s->type);
			}
		row = t->defaults(widest, &o);
		c.row = row;
	}
	if (o.unroll_i == 0)
		o.unroll_i = 1;
	const char *name = kernel_name(&c, path, &o);
	Func *f = optimize(&c, p, &o, &d, name);
	/* The row's i-unroll is for kernels that fit its register budget: a
	 * larger one runs short of warps to hide latency with (Biot-Savart
	 * lost 15% at 4 x 4 on the H200), so it takes half the i-elements
	 * in twice the group (docs/performance.md, "The register budget") */
	while (!c.errors && row && row->regs && o.unroll_i > 1 &&
	       !(o.given & NB_GIVEN_UNROLL_I) && regs_of(f) > row->regs) {
		o.unroll_i /= 2;
		if (wg_open)
			o.wg = defaults_wg(row, &o);
		buf_free(&text);
		buf_free(&live);
		d.hit = d.nran = 0;
		f = optimize(&c, p, &o, &d, name);
	}
	if (c.errors || d.nbl)
		goto done;
	if (d.want) {
		if (!d.hit)
			error_file(&c, "no pass named '%s' (try --emit=ir:all)",
			           d.want);
		goto done;
	}
	if (strcmp(emit, "ir") == 0) {
		ir_print(f, &text);
		goto done;
	}
	if (strcmp(emit, "stats") == 0) {
		Stats s;
		ir_stats(f, &s);
		stats_print(f, &s, &text);
		if (o.jvp || o.grad) { /* the primal's cost beside the derived */
			nb_options q = o;
			Buf none = {0};
			Dump nd = {0};
			nd.out = &none;
			q.jvp = q.grad = q.grad_of = NULL;
			Stats ps;
			ir_stats(optimize(&c, p, &q, &nd, name), &ps);
			buf_free(&none);
			buf_printf(&text, "the primal (without --jvp and --grad): "
			           "%g operations, %g flops per interaction\n",
			           ps.ops, ps.flops);
		}
		buf_puts(&text, "register estimate after each pass:\n");
		buf_puts(&text, live.s ? live.s : "");
		buf_free(&live);
		goto done;
	}
	if (strcmp(emit, "explain") == 0) {
		explain_print(f, &text);
		Stats s;
		ir_stats(f, &s);
		buf_putc(&text, '\n');
		stats_print(f, &s, &text);
		goto done;
	}
	out->iface = iface_build(f, t, path, &o);
	t->emit(f, out->iface, &text);
	if (strcmp(emit, "vliw") == 0 && !c.errors) {
		Buf rep = {0};
		t->vliw(f, text.s ? text.s : "", text.len, &rep);
		buf_free(&text);
		text = rep;
	}

done:
	buf_free(&live);
	out->errors = c.errors;
	out->warnings = c.warnings;
	if (c.errors) {
		buf_free(&text);
		nb_iface_free(out->iface);
		out->iface = NULL;
	} else {
		out->len = text.len;
		out->code = buf_take(&text);
	}
	ctx_free(&c);
	return c.errors ? -1 : 0;
}

void nb_output_free(nb_output *out)
{
	free(out->code);
	nb_iface_free(out->iface);
	memset(out, 0, sizeof *out);
}
