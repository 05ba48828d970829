/* iface.c: the kernel interface as text.  Every generated file starts with
 * it, inside a comment, one "key values" line each, between the lines
 * "nbcc-interface 1" and "end"; the runtime reads it back to launch a
 * kernel without its .nbl:
 *
 *   nbcc-interface 1
 *   kernel gravity              the user's name for the kernel
 *   entry nbk_gravity           its symbol: the OpenCL kernel, or the C
 *                               entry (nbk_gravity_entry)
 *   target opencl
 *   source dsl-examples/gravity.nbl
 *   flags --precision=float     nbcc flags it was built with
 *   options -cl-denorms-are-zero  build options the kernel asks for
 *   precision float
 *   unroll 4 1 1                NI NJ T
 *   launch 128 128              work-group size, tile
 *   ranges 1 2                  the entry of block-sparse runs is there
 *                               (entry_ranges), and the kernel reads the
 *                               indices i (1) and j (2): their sum; absent:
 *                               no such entry
 *   slices 2                    1: a second launch dimension may cut the
 *                               j range (nb_iface.slices); 2: and the
 *                               kernel can add the slices up itself;
 *                               absent: 0
 *   pairs nbk_lj_pairs          the entry of Newton's third law, where
 *                               every RMEM is (anti)symmetric (OpenCL: and
 *                               with its _fold; emit_opencl.c); absent: none
 *   flops 20 38                 per interaction: counted, 38-convention
 *   pack 0 float 4 4            BMEM pack: index type values scalars
 *   var xi LMEM float           name role type [pack comp]
 *   var xj BMEM float 0 0
 *   var k RMEM double argmin    an RMEM's reduction, unless a sum
 *   var fx RMEM float antisymmetric   and its symmetry, if declared
 *   end
 *
 * The text of the values comes from outside (the source path above all)
 * and sits inside a comment of C or OpenCL C, so it is escaped: a
 * backslash is written \\, a control byte, a byte above 0x7e or a space
 * where a space would end the value (inside a name, at the end of a line)
 * \xHH, and the second character of each pair that could end or open a
 * comment or form a trigraph -- the '/' of '*' '/', the '*' of '/' '*',
 * the second '?' of '?' '?' -- is written \/, \* or \?.  No escaped value
 * holds a newline, "*" "/" or "??" then, whatever the path.  The reader
 * undoes exactly these escapes and refuses any other, a raw control
 * byte, and a line given twice.  A missing entry line means the names
 * nbcc used to give: the kernel name in OpenCL, KERNEL_entry in C. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* The reductions as the runtime sees them: one row each. */
static const struct {
	const char *name;
	int integer, resumes;
} reds[NB_NRED] = {
	[NB_SUM] = {"sum", 0, 1},        [NB_COUNT] = {"count", 1, 1},
	[NB_MIN] = {"min", 0, 1},        [NB_MAX] = {"max", 0, 1},
	[NB_ARGMIN] = {"argmin", 1, 0},  [NB_ARGMAX] = {"argmax", 1, 0},
	[NB_LOGSUMEXP] = {"logsumexp", 0, 1},
};

const char *nb_role_name(nb_role r)
{
	switch (r) {
	case NB_LMEM: return "LMEM";
	case NB_BMEM: return "BMEM";
	case NB_RMEM: return "RMEM";
	case NB_CONST: return "CONST";
	}
	return "?";
}

const char *nb_red_name(nb_red r)
{
	return (unsigned)r < NB_NRED ? reds[r].name : "?";
}

int nb_red_integer(nb_red r) { return (unsigned)r < NB_NRED && reds[r].integer; }
int nb_red_resumes(nb_red r) { return (unsigned)r < NB_NRED && reds[r].resumes; }

static int red_of(const char *s, nb_red *r)
{
	for (int i = 0; i < NB_NRED; i++)
		if (strcmp(s, reds[i].name) == 0) {
			*r = (nb_red)i;
			return 0;
		}
	return -1;
}

int nb_iface_count(const nb_iface *f, nb_role role)
{
	int n = 0;
	for (int i = 0; i < f->nvar; i++)
		n += f->var[i].role == role;
	return n;
}

int nb_iface_find(const nb_iface *f, const char *name)
{
	for (int i = 0; i < f->nvar; i++)
		if (strcmp(f->var[i].name, name) == 0)
			return i;
	return -1;
}

void nb_iface_free(nb_iface *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nvar; i++)
		free(f->var[i].name);
	free(f->var);
	free(f->pack);
	free(f->kernel);
	free(f->entry);
	free(f->target);
	free(f->source);
	free(f->flags);
	free(f->options);
	free(f->pairs);
	free(f);
}

/* Writes s escaped as the header comment above says; `word`: the value is
 * one word of a line (a name), so no space may stay raw. */
static void put_esc(FILE *out, const char *s, int word)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned c = *p;
		unsigned prev = p > (const unsigned char *)s ? p[-1] : 0;
		if (c == '\\')
			fputs("\\\\", out);
		else if (c < 0x20 || c > 0x7e || (c == ' ' && (word || !p[1])))
			fprintf(out, "\\x%02x", c);
		else if ((c == '/' && prev == '*') ||
		         (c == '*' && prev == '/') || (c == '?' && prev == '?'))
			fprintf(out, "\\%c", (int)c);
		else
			fputc((int)c, out);
	}
}

static void line(FILE *out, const char *p, const char *key, const char *v,
                 int word)
{
	fprintf(out, "%s%s%s", p, key, *v ? " " : "");
	put_esc(out, v, word);
	fputc('\n', out);
}

void nb_iface_print(const nb_iface *f, FILE *out, const char *p)
{
	fprintf(out, "%s" NB_IFACE_MAGIC "\n", p);
	line(out, p, "kernel", f->kernel, 1);
	if (f->entry)
		line(out, p, "entry", f->entry, 1);
	line(out, p, "target", f->target, 1);
	line(out, p, "source", f->source ? f->source : "-", 0);
	line(out, p, "flags", f->flags ? f->flags : "", 0);
	if (f->options && *f->options)
		line(out, p, "options", f->options, 0);
	fprintf(out, "%sprecision %s\n", p, nb_prec_name(f->precision));
	fprintf(out, "%sunroll %d %d %d\n", p, f->unroll_i, f->unroll_j,
	        f->jsplit);
	fprintf(out, "%slaunch %d %d\n", p, f->wg, f->tile);
	if (f->ranges)
		fprintf(out, "%sranges %d %d\n", p, f->ranges, f->indices);
	if (f->slices)
		fprintf(out, "%sslices %d\n", p, f->slices);
	if (f->pairs)
		line(out, p, "pairs", f->pairs, 1);
	fprintf(out, "%sflops %.17g %.17g\n", p, f->flops, f->flops_conv);
	for (int i = 0; i < f->npack; i++)
		fprintf(out, "%spack %d %s %d %d\n", p, i,
		        nb_prec_name(f->pack[i].type), f->pack[i].width,
		        f->pack[i].vwidth);
	for (int i = 0; i < f->nvar; i++) {
		const nb_var *v = &f->var[i];
		fprintf(out, "%svar ", p);
		put_esc(out, v->name, 1);
		fprintf(out, " %s %s", nb_role_name(v->role),
		        nb_prec_name(v->type));
		if (v->role == NB_BMEM)
			fprintf(out, " %d %d", v->pack, v->comp);
		if (v->role == NB_RMEM && v->red != NB_SUM)
			fprintf(out, " %s", nb_red_name(v->red));
		if (v->role == NB_RMEM && v->sym)
			fprintf(out, " %s", v->sym > 0 ? "symmetric" :
			        "antisymmetric");
		fputc('\n', out);
	}
	fprintf(out, "%send\n", p);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	       c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Undoes put_esc in place.  Returns NULL, or why the text is malformed. */
static const char *unesc(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if ((unsigned char)*r < 0x20 || *r == 0x7f)
			return "a raw control byte (written \\xHH by nbcc)";
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		if (*r == '\\' || *r == '/' || *r == '*' || *r == '?') {
			*w++ = *r;
		} else if (*r == 'x') {
			int h = hexval(r[1]), l = h < 0 ? -1 : hexval(r[2]);
			if (l < 0)
				return "'\\x' without two hex digits";
			if (h == 0 && l == 0)
				return "a NUL byte (\\x00)";
			*w++ = (char)(h * 16 + l);
			r += 2;
		} else {
			return *r ? "an unknown escape (only \\\\, \\/, \\*, \\? "
			       "and \\xHH are written)" : "a '\\' at the end";
		}
	}
	*w = 0;
	return NULL;
}

/* ASCII only, whatever the locale: names become C and OpenCL symbols */
int nb_is_ident(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int prec_of(const char *s, nb_prec *p)
{
	int i = prec_find(s);
	if (i >= 0)
		*p = (nb_prec)i;
	return i < 0 ? -1 : 0;
}

static int role_of(const char *s, nb_role *r)
{
	for (int i = 0; i < NB_NROLE; i++)
		if (strcmp(s, nb_role_name((nb_role)i)) == 0) {
			*r = (nb_role)i;
			return 0;
		}
	return -1;
}

/* A whole decimal int in [lo, 1 << 30]: "4x" and "" are not numbers. */
static int num(const char *s, int lo, int *v)
{
	char *e;
	errno = 0;
	long x = strtol(s, &e, 10);
	if (e == s || *e || errno || x < lo || x > (1L << 30))
		return -1;
	*v = (int)x;
	return 0;
}

static int real(const char *s, double *v)
{
	char *e;
	*v = strtod(s, &e);
	return e == s || *e ? -1 : 0;
}

static char *dupn(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

/* Splits a line into at most 8 words in place; 9 means more. */
static int words(char *s, char **w)
{
	int n = 0;
	while (*s) {
		while (*s == ' ')
			*s++ = 0;
		if (!*s)
			break;
		if (n == 8)
			return 9;
		w[n++] = s;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

static int byname(const void *a, const void *b)
{
	return strcmp((*(nb_var *const *)a)->name, (*(nb_var *const *)b)->name);
}

/* The keys of the lines, in the order nbcc writes them; each may appear
 * once, except pack and var. */
static const char *const keys[] = {
	"kernel", "entry", "target", "source", "flags", "options", "precision",
	"unroll", "launch", "ranges", "slices", "pairs", "flops", "pack", "var",
	"end", NULL,
};
enum { K_KERNEL, K_ENTRY, K_TARGET, K_SOURCE, K_FLAGS, K_OPTIONS, K_PREC,
       K_UNROLL, K_LAUNCH, K_RANGES, K_SLICES, K_PAIRS, K_FLOPS, K_PACK, K_VAR,
       K_END };

/* Reads one line (s: its text after the comment prefix) into f.  Returns
 * NULL, or what is wrong with it. */
static const char *one_line(nb_iface *f, char *s, unsigned *seen, int *oom)
{
	size_t kl = strcspn(s, " ");
	int key = 0;
	while (keys[key] && (strlen(keys[key]) != kl ||
	                     strncmp(keys[key], s, kl) != 0))
		key++;
	if (!keys[key])
		return "unknown key";
	if (key != K_PACK && key != K_VAR) {
		if (*seen & 1u << key)
			return "given twice";
		*seen |= 1u << key;
	}
	/* values that are the rest of the line: they may hold spaces */
	if (key == K_SOURCE || key == K_FLAGS || key == K_OPTIONS) {
		char *v = s + kl + (s[kl] == ' ');
		const char *why = unesc(v);
		if (why)
			return why;
		char *d = dupn(v, strlen(v));
		if (!d) {
			*oom = 1;
			return "";
		}
		*(key == K_SOURCE ? &f->source : key == K_FLAGS ? &f->flags :
		  &f->options) = d;
		return NULL;
	}
	char *w[8];
	int n = words(s, w);
	for (int i = 1; i < n && i < 8; i++) {
		const char *why = unesc(w[i]);
		if (why)
			return why;
	}
	switch (key) {
	case K_KERNEL:
	case K_ENTRY:
	case K_PAIRS:
	case K_TARGET: {
		if (n != 2)
			return "expected one word after the key";
		/* the runtime makes a symbol of these */
		if (key != K_TARGET && !nb_is_ident(w[1]))
			return "not an identifier";
		char **to = key == K_KERNEL ? &f->kernel : key == K_ENTRY ?
		            &f->entry : key == K_PAIRS ? &f->pairs : &f->target;
		if (!(*to = dupn(w[1], strlen(w[1]))))
			*oom = 1;
		return NULL;
	}
	case K_PREC:
		return n == 2 && prec_of(w[1], &f->precision) == 0 ? NULL :
		       "expected float, double or dd";
	case K_UNROLL:
		return n == 4 && !num(w[1], 1, &f->unroll_i) &&
		       !num(w[2], 1, &f->unroll_j) &&
		       !num(w[3], 1, &f->jsplit) ? NULL :
		       "expected three positive integers";
	case K_LAUNCH:
		return n == 3 && !num(w[1], 0, &f->wg) &&
		       !num(w[2], 0, &f->tile) ? NULL :
		       "expected two integers >= 0";
	case K_RANGES:
		return n == 3 && !num(w[1], 1, &f->ranges) && f->ranges == 1 &&
		       !num(w[2], 0, &f->indices) && f->indices <= 3 ? NULL :
		       "expected 1 and the indices read, 0 to 3";
	case K_SLICES:
		return n == 2 && !num(w[1], 0, &f->slices) && f->slices <= 2 ?
		       NULL : "expected 0, 1 or 2";
	case K_FLOPS:
		return n == 3 && !real(w[1], &f->flops) &&
		       !real(w[2], &f->flops_conv) ? NULL :
		       "expected two numbers";
	case K_PACK: {
		nb_pack k;
		int ix;
		if (n != 5 || num(w[1], 0, &ix) || ix != f->npack ||
		    prec_of(w[2], &k.type) || num(w[3], 1, &k.width) ||
		    num(w[4], 1, &k.vwidth) || k.vwidth > 16)
			return "expected: pack INDEX TYPE VALUES SCALARS, the "
			       "packs numbered from 0";
		nb_pack *np = realloc(f->pack, sizeof(nb_pack) *
		                      (size_t)(f->npack + 1));
		if (!np) {
			*oom = 1;
			return "";
		}
		f->pack = np;
		f->pack[f->npack++] = k;
		return NULL;
	}
	case K_VAR: {
		nb_var v = {NULL, NB_LMEM, NB_FLOAT, -1, -1, NB_SUM, 0};
		/* an RMEM's words after its type: a reduction, then a
		 * symmetry, each optional */
		int rw = 4;
		if (n > 4 && role_of(w[2], &v.role) == 0 && v.role == NB_RMEM) {
			if (rw < n && red_of(w[rw], &v.red) == 0)
				rw++;
			if (rw < n && (strcmp(w[rw], "symmetric") == 0 ||
			               strcmp(w[rw], "antisymmetric") == 0))
				v.sym = w[rw++][0] == 's' ? 1 : -1;
		}
		if (n < 4 || n > 6 || role_of(w[2], &v.role) ||
		    prec_of(w[3], &v.type) ||
		    (v.role == NB_BMEM ? n != 6 || num(w[4], 0, &v.pack) ||
		                         num(w[5], 0, &v.comp) :
		     v.role == NB_RMEM ? rw != n : n != 4))
			return "expected: var NAME ROLE TYPE, PACK COMP for a "
			       "BMEM, and a reduction (count, min, max, argmin, "
			       "argmax, logsumexp) or none, then symmetric, "
			       "antisymmetric or none for an RMEM";
		if (!nb_is_ident(w[1]))
			return "the name is not an identifier";
		nb_var *nv = realloc(f->var, sizeof(nb_var) *
		                     (size_t)(f->nvar + 1));
		if (nv)
			f->var = nv;
		if (!nv || !(v.name = dupn(w[1], strlen(w[1])))) {
			*oom = 1;
			return "";
		}
		f->var[f->nvar++] = v;
		return NULL;
	}
	default: /* K_END */
		return n == 1 ? NULL : "expected nothing after 'end'";
	}
}

/* A variable named twice would bind one array to two arguments. */
static const char *duplicate_var(const nb_iface *f, int *oom)
{
	if (f->nvar < 2)
		return NULL;
	const nb_var **s = malloc(sizeof *s * (size_t)f->nvar);
	if (!s) {
		*oom = 1;
		return NULL;
	}
	for (int i = 0; i < f->nvar; i++)
		s[i] = &f->var[i];
	qsort(s, (size_t)f->nvar, sizeof *s, byname);
	const char *dup = NULL;
	for (int i = 1; i < f->nvar && !dup; i++)
		if (strcmp(s[i - 1]->name, s[i]->name) == 0)
			dup = s[i]->name;
	free(s);
	return dup;
}

nb_iface *nb_iface_parse(const char *text, size_t len, char *err,
                         size_t errlen)
{
	const char *start = NULL;
	const char *key = NB_IFACE_MAGIC;
	size_t kl = strlen(key);
	/* the interface sits at the top; do not scan a whole kernel for it */
	size_t lim = len < 65536 ? len : 65536;
	for (size_t i = 0; i + kl <= lim; i++)
		if (memcmp(text + i, key, kl) == 0) {
			start = text + i;
			break;
		}
	if (!start) {
		snprintf(err, errlen, "no '" NB_IFACE_MAGIC "' header: not a file "
		         "written by nbcc");
		return NULL;
	}
	nb_iface *f = calloc(1, sizeof *f);
	if (!f)
		goto oom;
	const char *end = text + len;
	const char *p = start;
	/* messages count lines in the file, as an editor shows them */
	int lineno = 0, oom = 0, first = 1;
	for (const char *q = text; q < start; q++)
		lineno += *q == '\n';
	unsigned seen = 0;
	while (p < end && !(seen & 1u << K_END)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		char *line = dupn(p, (size_t)(nl - p));
		if (!line)
			goto oom;
		const char *raw = p; /* one_line cuts `line` up */
		p = nl + 1;
		lineno++;
		/* drop the comment prefix: spaces, '*', ';', '/' */
		char *s = line;
		while (*s && strchr(" \t*;/", *s))
			s++;
		size_t sl = strlen(s);
		while (sl && (s[sl - 1] == '\r' || s[sl - 1] == ' '))
			s[--sl] = 0;
		const char *why = first ? NULL :
		                  memchr(line, 0, (size_t)(nl - raw)) ?
		                  "a NUL byte" : one_line(f, s, &seen, &oom);
		first = 0;
		if (oom) {
			free(line);
			goto oom;
		}
		if (why) {
			/* the line as it stands, control bytes escaped */
			char shown[64];
			size_t n = 0;
			const char *q = raw + (s - line), *qe = q + sl;
			for (; q < qe && n + 5 < sizeof shown; q++)
				if ((unsigned char)*q < 0x20 || *q == 0x7f)
					n += (size_t)snprintf(shown + n,
					                      sizeof shown - n, "\\x%02x",
					                      (unsigned char)*q);
				else
					shown[n++] = *q;
			shown[n] = 0;
			snprintf(err, errlen, "malformed interface line %d: %s: "
			         "'%s%s'", lineno, why, shown,
			         q < qe ? "..." : "");
			free(line);
			nb_iface_free(f);
			return NULL;
		}
		free(line);
	}
	const char *miss = !(seen & 1u << K_END) ? "end" :
	                   !f->kernel ? "kernel" : !f->target ? "target" :
	                   !f->unroll_i ? "unroll" : NULL;
	if (miss) {
		snprintf(err, errlen, "interface header has no '%s' line", miss);
		nb_iface_free(f);
		return NULL;
	}
	if (!(seen & 1u << K_RANGES))
		f->indices = 3; /* unknown: either may be read */
	for (int i = 0; i < f->nvar; i++) {
		nb_var *v = &f->var[i];
		if (v->role == NB_BMEM &&
		    (v->pack < 0 || v->pack >= f->npack || v->comp < 0 ||
		     v->comp >= f->pack[v->pack].width)) {
			snprintf(err, errlen, "interface: BMEM '%s' is in no pack",
			         v->name);
			nb_iface_free(f);
			return NULL;
		}
	}
	const char *dup = duplicate_var(f, &oom);
	if (oom)
		goto oom;
	if (dup) {
		snprintf(err, errlen, "interface: variable '%s' is declared "
		         "twice", dup);
		nb_iface_free(f);
		return NULL;
	}
	/* files from before the entry line: the names nbcc gave then */
	if (!f->entry) {
		const Target *t = target_named(f->target);
		const char *suffix = t && t->entry_suffix ? t->entry_suffix : "";
		size_t n = strlen(f->kernel) + strlen(suffix) + 1;
		if (!(f->entry = malloc(n)))
			goto oom;
		snprintf(f->entry, n, "%s%s", f->kernel, suffix);
	}
	return f;
oom:
	snprintf(err, errlen, "out of memory");
	nb_iface_free(f);
	return NULL;
}
