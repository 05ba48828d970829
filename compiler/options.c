/* options.c: compiler flags shared by nbcc, nbrun and nbody, and the file
 * whole-file read every program needs (writes are outfile.c's). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "emit.h"

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

static const char help_before[] =
	"  --precision=P      float, double or dd: type of untyped declarations\n"
	"                     (default float)\n";
/* then the --target line, from the table of targets */
static const char help_after[] =
	"  --unroll-i=N       i-elements per work item (Fig. 3 of paper 001;\n"
	"                     default: chosen for the target)\n"
	"  --unroll-j=N       j-elements per inner iteration (Fig. 4;\n"
	"                     default: chosen for the target)\n"
	"  --jsplit=T         work items sharing one i-element, each summing a\n"
	"                     part of the j range (default 1; the runtime picks\n"
	"                     it per run on a GPU when it is not given)\n"
	"  --sched=S          none or interleave: order of unrolled copies\n"
	"                     (default interleave)\n"
	"  --fast-math        allow reassociation and fast native functions\n"
	"  --no-fma           do not contract a*b+c into fma\n"
	"  --device-class=C   gpu (default), cpu, or a narrower class of the\n"
	"                     defaults table (gpu-nvidia, cpu-avx512, host):\n"
	"                     the device the default unrolling is chosen for\n"
	"  --no-ftz           keep subnormal floats in OpenCL float kernels\n"
	"                     (by default they flush to zero: rsqrt is then\n"
	"                     one instruction on NVIDIA GPUs)\n"
	"  --dd=A             accurate or qd: dd arithmetic (default accurate:\n"
	"                     bounded relative error, IEEE special values);\n"
	"                     qd is QD's own default, faster: an add's error\n"
	"                     is relative to |a|+|b|, no infinities\n"
	"  --no-approx        C back end: float division, sqrt and rsqrt\n"
	"                     correctly rounded and libm's scalar exp, log,\n"
	"                     sin, cos, pow (by default: estimates with a\n"
	"                     Newton step and glibc's vector functions)\n"
	"  --wg=N             OpenCL work-group size (default 128)\n"
	"  --tile=N           j-elements staged per local-memory tile (default:\n"
	"                     the work-group size; 32 KB of them for a split\n"
	"                     kernel on a GPU); 0 reads them through the\n"
	"                     cache instead\n"
	"  --name=K           kernel function name (default: from the file)\n";

const char *nb_options_help_text(void)
{
	static _Thread_local char text[sizeof help_before + sizeof help_after +
	                               256];
	if (!*text)
		snprintf(text, sizeof text, "%s  --target=T         %s "
		         "(default: from -o's extension)\n%s", help_before,
		         target_list(TL_NAMES), help_after);
	return text;
}

/* Splits "--flag=value" or "--flag value"; returns the value or NULL. */
static const char *value(const char *arg, const char *flag, const char *next,
                         int *took)
{
	size_t n = strlen(flag);
	if (strncmp(arg, flag, n) != 0)
		return NULL;
	if (arg[n] == '=') {
		*took = 1;
		return arg + n + 1;
	}
	if (arg[n] == 0) {
		*took = 2;
		return next ? next : "";
	}
	return NULL;
}

static int posint(const char *v, int max, int *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < 1 || x > max)
		return -1;
	*out = (int)x;
	return 0;
}

int nb_options_parse(nb_options *o, const char *arg, const char *next,
                     char *err, size_t errlen)
{
	const char *v;
	int took = 0;
	if ((v = value(arg, "--precision", next, &took))) {
		int p = prec_find(v);
		if (p < 0)
			goto bad;
		o->precision = (nb_prec)p;
		o->given |= NB_GIVEN_PRECISION;
		return took;
	}
	if ((v = value(arg, "--target", next, &took))) {
		const Target *t = target_named(v);
		if (!t)
			goto bad;
		o->target = t->name;
		o->given |= NB_GIVEN_TARGET;
		return took;
	}
	if ((v = value(arg, "--unroll-i", next, &took))) {
		if (posint(v, 64, &o->unroll_i))
			goto badint;
		o->given |= NB_GIVEN_UNROLL_I;
		return took;
	}
	if ((v = value(arg, "--unroll-j", next, &took))) {
		if (posint(v, 64, &o->unroll_j))
			goto badint;
		o->given |= NB_GIVEN_UNROLL_J;
		return took;
	}
	if ((v = value(arg, "--jsplit", next, &took))) {
		if (posint(v, 256, &o->jsplit))
			goto badint;
		o->given |= NB_GIVEN_JSPLIT;
		return took;
	}
	if ((v = value(arg, "--sched", next, &took))) {
		if (strcmp(v, "none") == 0)
			o->sched = 0;
		else if (strcmp(v, "interleave") == 0)
			o->sched = 1;
		else
			goto bad;
		o->given |= NB_GIVEN_SCHED;
		return took;
	}
	if ((v = value(arg, "--wg", next, &took))) {
		if (posint(v, 1024, &o->wg))
			goto badint;
		o->given |= NB_GIVEN_WG;
		return took;
	}
	if ((v = value(arg, "--tile", next, &took))) {
		/* 0: no staging, j-elements come through the cache (-1 here,
		 * since 0 means "the default") */
		if (strcmp(v, "0") == 0)
			o->tile = -1;
		else if (posint(v, 4096, &o->tile))
			goto badint;
		o->given |= NB_GIVEN_TILE;
		return took;
	}
	if ((v = value(arg, "--name", next, &took))) {
		if (!nb_is_ident(v))
			goto bad;
		o->kname = v;
		o->given |= NB_GIVEN_NAME;
		return took;
	}
	if (strcmp(arg, "--fast-math") == 0) {
		o->fast_math = 1;
		o->given |= NB_GIVEN_FAST_MATH;
		return 1;
	}
	if (strcmp(arg, "--no-fma") == 0) {
		o->fma = 0;
		o->given |= NB_GIVEN_FMA;
		return 1;
	}
	if ((v = value(arg, "--device-class", next, &took))) {
		/* a class narrower than cpu or gpu picks its own row */
		if (strcmp(v, "cpu") == 0 || strcmp(v, "gpu") == 0)
			o->devclass = NULL;
		else if (nb_defaults_class_ok(v))
			o->devclass = v;
		else
			goto bad;
		o->cpu = strncmp(v, "gpu", 3) != 0;
		return took;
	}
	if ((v = value(arg, "--dd", next, &took))) {
		if (strcmp(v, "qd") == 0)
			o->dd_qd = 1;
		else if (strcmp(v, "accurate") == 0)
			o->dd_qd = 0;
		else
			goto bad;
		o->given |= NB_GIVEN_DD;
		return took;
	}
	if (strcmp(arg, "--no-ftz") == 0) {
		o->ftz = 0;
		o->given |= NB_GIVEN_FTZ;
		return 1;
	}
	if (strcmp(arg, "--no-approx") == 0) {
		o->approx = 0;
		o->given |= NB_GIVEN_APPROX;
		return 1;
	}
	if (strcmp(arg, "--fma") == 0) {
		o->fma = 1;
		o->given |= NB_GIVEN_FMA;
		return 1;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad value '%s' for %.*s", nb_esc(v),
	         (int)strcspn(arg, "="), arg);
	return -1;
badint:
	snprintf(err, errlen, "bad value '%s' for %.*s: expected a positive "
	         "integer in range", nb_esc(v), (int)strcspn(arg, "="), arg);
	return -1;
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
	if (o->sched != d.sched)
		ADD(" --sched=%s", o->sched ? "interleave" : "none");
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
