/* msg.c: the runtime's words, at the bottom of its layers: the message a
 * failure leaves for nbrt_error, the notes NBRT_VERBOSE asks for, the
 * escaped lines of a device listing, and the integer switches read from
 * the environment. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"

static char *vaprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *nbrt_aprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vaprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Out of memory leaves a fixed message rather than none. */
int nbrt_fail(nbrt *rt, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vaprintf(fmt, ap);
	va_end(ap);
	free(rt->err);
	rt->err = s ? s : strdup("out of memory");
	rt->fails++;
	return -1;
}

void nbrt_note(const nbrt *rt, const char *fmt, ...)
{
	if (!rt->verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("nbrt: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

const char *nbrt_error(const nbrt *rt)
{
	return rt && rt->err ? rt->err : "";
}

void nbrt_put_str(FILE *out, const char *key, const char *s)
{
	fprintf(out, "%s ", key);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('\n', out);
}

int nbrt_env_int(nbrt *rt, const char *name, long lo, long hi, long *v)
{
	const char *e = getenv(name);
	if (!e || !*e)
		return 0;
	char *end;
	errno = 0;
	long x = strtol(e, &end, 10);
	if (errno || *end || end == e || x < lo || x > hi ||
	    !(*e == '-' || (*e >= '0' && *e <= '9'))) {
		if (lo == 0 && hi == 1)
			return nbrt_fail(rt, "%s='%s': it must be 0 or 1", name,
			                 nb_esc(e));
		return nbrt_fail(rt, "%s='%s': it must be an integer from %ld to "
		                 "%ld", name, nb_esc(e), lo, hi);
	}
	*v = x;
	return 1;
}
