/* options.c: the compiler's flags, one table of them that every program
 * takes (their parsing, their --help lines, and the check of a struct a
 * caller filled in by hand), and the whole-file read every program needs
 * (writes are outfile.c's). */
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "emit.h"

void nb_options_init(nb_options *o)
{
	memset(o, 0, sizeof *o);
	o->precision = NB_FLOAT;
	o->unroll_i = 0;
	o->unroll_j = 1;
	o->jsplit = 1;
	o->sched = 1;
	o->fma = 1;
	o->ftz = 1;
	o->approx = 1;
}

/* --- the compiler's flags, one row each ----------------------------------- */

/* What 0 means where it is the default outside a field's range (unroll_i,
 * wg, tile): nb_compile's caller leaves the choice to the target. */
#define CHOSEN "(chosen for the target)"

/* How a flag's value is read: F_SWITCH takes none and stores lo; F_INT an
 * integer from lo to hi; F_WORD the index of one of `words`; F_OWN its
 * own function, which returns 0, or -1 with what it expected in `what`.
 * The same rows check a struct filled in by hand (nb_options_check):
 * a switch holds 0 or 1, an integer its range or nb_options_init's value,
 * a word an index of `words`; F_OWN's function is given a string field's
 * value (NULL, the default, is not checked), or NULL for an int field,
 * whose value it checks as it stands. */
enum { F_SWITCH, F_INT, F_WORD, F_OWN };

typedef struct Flag {
	const char *name, *meta; /* meta NULL: takes no value */
	int kind;
	size_t off;              /* offsetof the field it sets, */
	const char *field;       /* its name, */
	int str;                 /* and whether it is a string (else an int) */
	int lo, hi;
	const char *words;       /* F_WORD: "none|interleave" */
	int (*own)(nb_options *o, const char *v, char *what, size_t n);
	unsigned given;          /* its NB_GIVEN_* bit */
	const Target *only;      /* the one target that reads it; NULL: all */
	const char *help;        /* --help lines; NULL: not listed */
} Flag;

static int set_precision(nb_options *o, const char *v, char *what, size_t n)
{
	int p = v ? prec_find(v) : (unsigned)o->precision < NPREC ?
	        (int)o->precision : -1;
	if (p < 0) {
		snprintf(what, n, "%s, %s or %s", nb_prec_name(NB_FLOAT),
		         nb_prec_name(NB_DOUBLE), nb_prec_name(NB_DD));
		if (!v) /* set by hand: the nb_prec values */
			snprintf(what + strlen(what), n - strlen(what),
			         " (nb_prec %d to %d)", NB_FLOAT, NPREC - 1);
		return -1;
	}
	o->precision = (nb_prec)p;
	return 0;
}

static int set_target(nb_options *o, const char *v, char *what, size_t n)
{
	const Target *t = target_named(v);
	if (!t) {
		snprintf(what, n, "%s", nb_target_list(NB_TL_NAMES));
		return -1;
	}
	o->target = t->name;
	return 0;
}

/* an integer from lo to hi, as strtol reads it whole */
static int int_in(const char *v, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < lo || x > hi)
		return -1;
	*out = (int)x;
	return 0;
}

/* 0: no staging, j-elements come through the cache (-1 here, since 0
 * means "the default") */
static int set_tile(nb_options *o, const char *v, char *what, size_t n)
{
	enum { MAX = 4096 };
	if (v && strcmp(v, "0") == 0)
		o->tile = -1;
	else if (v ? int_in(v, 1, MAX, &o->tile) :
	         o->tile < -1 || o->tile > MAX) {
		/* v NULL: as set by hand, where -1 is the "0" of the flag */
		snprintf(what, n, v ? "0, or an integer from 1 to %d" :
		         "-1 (none: through the cache), 0 " CHOSEN " or an "
		         "integer from 1 to %d", MAX);
		return -1;
	}
	return 0;
}

static int set_name(nb_options *o, const char *v, char *what, size_t n)
{
	if (!nb_is_ident(v)) {
		snprintf(what, n, "an identifier");
		return -1;
	}
	o->kname = v;
	return 0;
}

/* a list of names, checked against the kernel by ad.c */
static int set_jvp(nb_options *o, const char *v, char *what, size_t n)
{
	if (!*v || !strchr(v, ':')) {
		snprintf(what, n, "NAME:TANGENT pairs, as xi:vxi,yi:vyi");
		return -1;
	}
	o->jvp = v;
	return 0;
}

static int set_grad(nb_options *o, const char *v, char *what, size_t n)
{
	if (!*v) {
		snprintf(what, n, "input names, as xi,yi,zi");
		return -1;
	}
	o->grad = v;
	return 0;
}

static int set_grad_of(nb_options *o, const char *v, char *what, size_t n)
{
	if (!*v) {
		snprintf(what, n, "result names, as pot,ax");
		return -1;
	}
	o->grad_of = v;
	return 0;
}

/* a class narrower than cpu or gpu picks its own row */
static int set_class(nb_options *o, const char *v, char *what, size_t n)
{
	if (strcmp(v, "cpu") == 0 || strcmp(v, "gpu") == 0)
		o->devclass = NULL;
	else if (nb_defaults_class_ok(v))
		o->devclass = v;
	else {
		snprintf(what, n, "gpu, cpu or a class of the defaults table");
		return -1;
	}
	o->cpu = strncmp(v, "gpu", 3) != 0;
	return 0;
}

#define AT(field) offsetof(nb_options, field), #field,                \
	_Generic(((nb_options *)0)->field, const char *: 1, default: 0)
/* The targets that read a flag: every one, or only OpenCL's: the C back
 * end has no work groups, tiles or warps (emit_c.c), AMD IL fixes its
 * group at 64 and reads through the cache (il_launch), and what --no-ftz
 * leaves out, -cl-denorms-are-zero, is a build option of OpenCL's.  So
 * nb_options_ignored can warn of the rest. */
#define ANY NULL
#define OPENCL (&target_opencl)
static const Flag flags[] = {
	{"--precision", "P", F_OWN, AT(precision), 0, 0, NULL, set_precision,
	 NB_GIVEN_PRECISION, ANY,
	 "float, double or dd: type of untyped declarations\n"
	 "(default float)"},
	/* its help names the targets (nb_target_list): see help_text */
	{"--target", "T", F_OWN, AT(target), 0, 0, NULL, set_target,
	 NB_GIVEN_TARGET, ANY,
	 "(default: from -o's extension)"},
	{"--unroll-i", "N", F_INT, AT(unroll_i), 1, 64, NULL, NULL,
	 NB_GIVEN_UNROLL_I, ANY,
	 "i-elements per work item (Fig. 3 of paper 001;\n"
	 "default: chosen for the target)"},
	{"--unroll-j", "N", F_INT, AT(unroll_j), 1, 64, NULL, NULL,
	 NB_GIVEN_UNROLL_J, ANY,
	 "j-elements per inner iteration (Fig. 4;\n"
	 "default: chosen for the target)"},
	{"--jsplit", "T", F_INT, AT(jsplit), 1, 256, NULL, NULL,
	 NB_GIVEN_JSPLIT, ANY,
	 "work items sharing one i-element, each summing a\n"
	 "part of the j range (default 1; the runtime picks\n"
	 "it per run on a GPU when it is not given)"},
	{"--split-warps", NULL, F_SWITCH, AT(split_warps), 1, 0, NULL, NULL,
	 NB_GIVEN_SPLIT_WARPS, OPENCL,
	 "OpenCL, with --jsplit: a warp's work items share\n"
	 "one split position, not one i-element, so they\n"
	 "read each j-element of a tile together (groups of\n"
	 "at least 16 x T items)"},
	{"--sched", "S", F_WORD, AT(sched), 0, 0, "none|interleave", NULL,
	 NB_GIVEN_SCHED, ANY,
	 "none or interleave: order of unrolled copies\n"
	 "(default interleave)"},
	{"--ranges", NULL, F_SWITCH, AT(ranges), 1, 0, NULL, NULL,
	 NB_GIVEN_RANGES, ANY,
	 "also write the entry of block-sparse runs (i-groups\n"
	 "against j-ranges, for nbrt_run_ranges)"},
	{"--fast-math", NULL, F_SWITCH, AT(fast_math), 1, 0, NULL, NULL,
	 NB_GIVEN_FAST_MATH, ANY,
	 "allow reassociation and fast native functions"},
	{"--no-fma", NULL, F_SWITCH, AT(fma), 0, 0, NULL, NULL,
	 NB_GIVEN_FMA, ANY,
	 "do not contract a*b+c into fma"},
	{"--device-class", "C", F_OWN, AT(devclass), 0, 0, NULL, set_class, 0,
	 ANY,
	 "gpu (default), cpu, or a narrower class of the\n"
	 "defaults table (gpu-nvidia, cpu-avx512, host):\n"
	 "the device the default unrolling is chosen for"},
	{"--no-ftz", NULL, F_SWITCH, AT(ftz), 0, 0, NULL, NULL,
	 NB_GIVEN_FTZ, OPENCL,
	 "keep subnormal floats in OpenCL float kernels\n"
	 "(by default they flush to zero: rsqrt is then\n"
	 "one instruction on NVIDIA GPUs)"},
	{"--dd", "A", F_WORD, AT(dd_qd), 0, 0, "accurate|qd", NULL,
	 NB_GIVEN_DD, ANY,
	 "accurate or qd: dd arithmetic (default accurate:\n"
	 "bounded relative error, IEEE special values);\n"
	 "qd is QD's own default, faster: an add's error\n"
	 "is relative to |a|+|b|, no infinities"},
	{"--no-approx", NULL, F_SWITCH, AT(approx), 0, 0, NULL, NULL,
	 NB_GIVEN_APPROX, ANY,
	 "C back end: float division, sqrt and rsqrt\n"
	 "correctly rounded and libm's scalar exp, log,\n"
	 "sin, cos, pow (by default: estimates with a\n"
	 "Newton step and glibc's vector functions);\n"
	 "OpenCL for a CPU: float rsqrt as written (by\n"
	 "default: an estimate with a Newton step)"},
	{"--wg", "N", F_INT, AT(wg), 1, 1024, NULL, NULL, NB_GIVEN_WG, OPENCL,
	 "OpenCL work-group size (default 128)"},
	{"--tile", "N", F_OWN, AT(tile), 0, 0, NULL, set_tile, NB_GIVEN_TILE,
	 OPENCL,
	 "j-elements staged per local-memory tile (default:\n"
	 "the work-group size; 32 KB of them for a split\n"
	 "kernel on a GPU); 0 reads them through the\n"
	 "cache instead"},
	{"--name", "K", F_OWN, AT(kname), 0, 0, NULL, set_name, NB_GIVEN_NAME,
	 ANY,
	 "kernel function name (default: from the file)"},
	{"--jvp", "X:V,..", F_OWN, AT(jvp), 0, 0, NULL, set_jvp, 0, ANY,
	 "derive: input X's tangent is input V; each sum result\n"
	 "r gets its derivative d_r (R:NAME names it, R:-\n"
	 "drops it)"},
	{"--grad", "X,..", F_OWN, AT(grad), 0, 0, NULL, set_grad, 0, ANY,
	 "derive: each sum result r gets its gradient dr_dX\n"
	 "with respect to input X (BMEM: per j, i and j swapped)"},
	{"--grad-of", "R,..", F_OWN, AT(grad_of), 0, 0, NULL, set_grad_of, 0,
	 ANY,
	 "--grad differentiates these results only (default:\n"
	 "every sum, logsumexp=, min= and max=)"},
	/* the default, for a command line that turns it back on */
	{"--fma", NULL, F_SWITCH, AT(fma), 1, 0, NULL, NULL, NB_GIVEN_FMA, ANY,
	 NULL},
};
#undef AT
#undef ANY
#undef OPENCL
#define NFLAGS (sizeof flags / sizeof flags[0])

/* "  --wg=N             OpenCL ...": the term, its first help line from
 * column 21, the others under it. */
static size_t help_row(char *buf, size_t len, const Flag *f, const char *pre)
{
	char term[64];
	snprintf(term, sizeof term, "%s%s%s", f->name, f->meta ? "=" : "",
	         f->meta ? f->meta : "");
	size_t n = (size_t)snprintf(buf, len, "  %-17s", term);
	for (const char *l = f->help; *l && n < len;) {
		size_t k = strcspn(l, "\n");
		n += (size_t)snprintf(buf + n, len - n, "%s%s%.*s\n",
		                      l == f->help ? "  " : "                     ",
		                      l == f->help ? pre : "", (int)k, l);
		l += k + (l[k] == '\n');
	}
	return n < len ? n : len;
}

const char *nb_options_help_text(void)
{
	static _Thread_local char text[4096];
	if (*text)
		return text;
	size_t n = 0;
	char targets[128];
	snprintf(targets, sizeof targets, "%s ", nb_target_list(NB_TL_NAMES));
	for (size_t i = 0; i < NFLAGS; i++)
		if (flags[i].help)
			n += help_row(text + n, sizeof text - n, &flags[i],
			              flags[i].own == set_target ? targets : "");
	return text;
}

/* The row of arg ("--wg" or "--wg=64"), or NULL. */
static const Flag *flag_of(const char *arg)
{
	size_t n = strcspn(arg, "=");
	for (size_t i = 0; i < NFLAGS; i++)
		if (strlen(flags[i].name) == n && !strncmp(arg, flags[i].name, n))
			return arg[n] && !flags[i].meta ? NULL : &flags[i];
	return NULL;
}

int nb_options_flag(const char *arg)
{
	const Flag *f = flag_of(arg);
	return !f ? 0 : f->meta ? 2 : 1;
}

static void int_text(const Flag *f, char *buf, size_t n)
{
	snprintf(buf, n, "an integer from %d to %d", f->lo, f->hi);
}

/* A word row's words, "none or interleave", or numbered, "0 (none) or 1
 * (interleave)"; returns how many. */
static int words_text(const Flag *f, int numbered, char *buf, size_t n)
{
	int i = 0;
	size_t len = 0;
	buf[0] = 0;
	for (const char *w = f->words; *w && len < n; i++) {
		size_t k = strcspn(w, "|");
		const char *sep = !i ? "" : w[k] ? ", " : " or ";
		len += (size_t)(numbered ? snprintf(buf + len, n - len,
		                "%s%d (%.*s)", sep, i, (int)k, w) :
		                snprintf(buf + len, n - len, "%s%.*s", sep,
		                (int)k, w));
		w += k + (w[k] == '|');
	}
	return i;
}

int nb_options_parse(nb_options *o, const char *arg, const char *next,
                     char *err, size_t errlen)
{
	const Flag *f = flag_of(arg);
	if (!f)
		return 0;
	const char *eq = strchr(arg, '=');
	int took = f->meta && !eq ? 2 : 1;
	const char *v = eq ? eq + 1 : next ? next : "";
	int *at = (int *)((char *)o + f->off);
	char what[160] = "";
	switch (f->kind) {
	case F_SWITCH:
		*at = f->lo;
		break;
	case F_INT:
		if (int_in(v, f->lo, f->hi, at)) {
			int_text(f, what, sizeof what);
			goto bad;
		}
		break;
	case F_WORD: {
		const char *w = f->words;
		int i = 0;
		for (; *w; i++) {
			size_t k = strcspn(w, "|");
			if (strlen(v) == k && !strncmp(w, v, k))
				break;
			w += k + (w[k] == '|');
		}
		if (!*w) {
			words_text(f, 0, what, sizeof what);
			goto bad;
		}
		*at = i;
		break;
	}
	case F_OWN:
		if (f->own(o, v, what, sizeof what))
			goto bad;
		break;
	}
	o->given |= f->given;
	return took;
bad:
	snprintf(err, errlen, "bad value '%s' for %s: expected %s", nb_esc(v),
	         f->name, what);
	return -1;
}

/* "unroll_i = 1000: it must be 0 (chosen for the target) or an integer
 * from 1 to 64": the field as nbcc.h names it */
static int refuse(char *err, size_t errlen, const char *field, const char *s,
                  int v, const char *what)
{
	if (s)
		snprintf(err, errlen, "%s = '%s': it must be %s", field,
		         nb_esc(s), what);
	else
		snprintf(err, errlen, "%s = %d: it must be %s", field, v, what);
	return -1;
}

int nb_options_check(const nb_options *o, char *err, size_t errlen)
{
	static const char bit[] = "0 or 1";
	nb_options d, mine;
	nb_options_init(&d);
	char what[160];
	for (size_t i = 0; i < NFLAGS; i++) {
		const Flag *f = &flags[i];
		const char *at = (const char *)o + f->off;
		const char *s = f->str ? *(const char *const *)at : NULL;
		int v = f->str ? 0 : *(const int *)at;
		int dv = f->str ? 0 : *(const int *)((const char *)&d + f->off);
		switch (f->kind) {
		case F_SWITCH:
			if (v == 0 || v == 1)
				continue;
			snprintf(what, sizeof what, "%s", bit);
			break;
		case F_INT: {
			if (v == dv || (v >= f->lo && v <= f->hi))
				continue;
			int n = dv < f->lo || dv > f->hi ?
			        snprintf(what, sizeof what, "%d " CHOSEN " or ",
			                 dv) : 0;
			int_text(f, what + n, sizeof what - (size_t)n);
			break;
		}
		case F_WORD:
			if (words_text(f, 1, what, sizeof what) > v && v >= 0)
				continue;
			break;
		case F_OWN:
			mine = *o; /* what a setter sets is not the caller's */
			if ((f->str && !s) ||
			    !f->own(&mine, s, what, sizeof what))
				continue;
			break;
		}
		return refuse(err, errlen, f->field, s, v, what);
	}
	/* the fields no flag sets itself: set_class's, and the runtime's
	 * (ranges.c), whose tasks have a work item each at least */
	if (o->cpu != 0 && o->cpu != 1)
		return refuse(err, errlen, "cpu", NULL, o->cpu, bit);
	int most = flag_of("--wg")->hi;
	if (o->rtasks < 0 || o->rtasks > most) {
		snprintf(what, sizeof what, "an integer from 0 to %d (tasks a "
		         "work group; 0 or 1: one)", most);
		return refuse(err, errlen, "rtasks", NULL, o->rtasks, what);
	}
	return 0;
}

int nb_options_ignored(const nb_options *o, const char *target,
                       void (*warn)(const char *fmt, ...))
{
	const Target *t = target ? target_named(target) : target_default();
	int n = 0;
	for (size_t i = 0; t && i < NFLAGS; i++) {
		const Flag *f = &flags[i];
		if (f->only && f->only != t && (o->given & f->given)) {
			warn("%s applies to %s kernels only; ignored for target %s",
			     f->name, f->only->lang, t->name);
			n++;
		}
	}
	return n;
}

void nb_options_str(const nb_options *o, char *buf, size_t len)
{
	nb_options d;
	nb_options_init(&d);
	size_t n = 0;
	buf[0] = 0;
#define ADD(...)                                                          \
	do {                                                              \
		if (n < len) {                                            \
			int k = snprintf(buf + n, len - n, __VA_ARGS__);  \
			if (k > 0)                                        \
				n += (size_t)k;                           \
		}                                                         \
	} while (0)
	ADD("--precision=%s", nb_prec_name(o->precision));
	if (o->unroll_i != d.unroll_i)
		ADD(" --unroll-i=%d", o->unroll_i);
	/* given, even as 1: the defaults table may give another */
	if (o->unroll_j != d.unroll_j || (o->given & NB_GIVEN_UNROLL_J))
		ADD(" --unroll-j=%d", o->unroll_j);
	if (o->jsplit != d.jsplit)
		ADD(" --jsplit=%d", o->jsplit);
	if (o->split_warps)
		ADD(" --split-warps");
	if (o->sched != d.sched)
		ADD(" --sched=%s", o->sched ? "interleave" : "none");
	if (o->ranges)
		ADD(" --ranges");
	if (o->fast_math)
		ADD(" --fast-math");
	if (!o->fma)
		ADD(" --no-fma");
	if (!o->ftz)
		ADD(" --no-ftz");
	if (o->dd_qd)
		ADD(" --dd=qd");
	if (!o->approx)
		ADD(" --no-approx");
	if (o->devclass)
		ADD(" --device-class=%s", o->devclass);
	else if (o->cpu)
		ADD(" --device-class=cpu");
	if (o->wg)
		ADD(" --wg=%d", o->wg);
	if (o->tile)
		ADD(" --tile=%d", o->tile < 0 ? 0 : o->tile);
	if (o->kname)
		ADD(" --name=%s", o->kname);
	if (o->jvp)
		ADD(" --jvp=%s", o->jvp);
	if (o->grad)
		ADD(" --grad=%s", o->grad);
	if (o->grad_of)
		ADD(" --grad-of=%s", o->grad_of);
#undef ADD
}

char *nb_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	return nb_read_file_max(path, (size_t)1 << 30, len, err, errlen);
}

/* "16 MiB", "2.5 GiB": a size for messages. */
static void size_text(char *buf, size_t n, size_t bytes)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	int u = 0;
	while (u < 4 && v >= 1024) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, "%.*f %s", v == (double)(long)v ? 0 : 1, v, unit[u]);
}

char *nb_read_file_max(const char *path, size_t max, size_t *len, char *err,
                       size_t errlen)
{
	if (errlen)
		err[0] = 0;
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", nb_esc(path),
		         strerror(errno));
		return NULL;
	}
	/* never to be overwritten by an output of this run (outfile.c) */
	nb_in_note(fileno(f));
	size_t cap = 65536, n = 0;
	char *s = malloc(cap);
	for (;;) {
		if (!s)
			break;
		if (n > max) {
			char lim[32];
			size_text(lim, sizeof lim, max);
			snprintf(err, errlen, "'%s' is larger than %s",
			         nb_esc(path), lim);
			free(s);
			s = NULL;
			break;
		}
		if (n + 1 >= cap) {
			char *t = cap < SIZE_MAX / 4 ? realloc(s, cap * 2) : NULL;
			if (!t) {
				free(s);
				s = NULL;
				snprintf(err, errlen, "out of memory reading '%s' "
				         "(%zu bytes so far)", nb_esc(path), n);
				break;
			}
			s = t;
			cap *= 2;
		}
		/* never more than max + 1 bytes: enough to see it is too big */
		size_t room = cap - n - 1;
		if (room > max + 1 - n)
			room = max + 1 - n;
		size_t k = fread(s + n, 1, room, f);
		n += k;
		if (k == 0) {
			if (ferror(f)) {
				snprintf(err, errlen, "cannot read '%s': %s", nb_esc(path),
				         strerror(errno));
				free(s);
				s = NULL;
			}
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!s) {
		if (!err[0])
			snprintf(err, errlen, "out of memory reading '%s'",
			         nb_esc(path));
		return NULL;
	}
	s[n] = 0;
	*len = n;
	return s;
}
