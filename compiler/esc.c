/* esc.c: names from the user (files, devices) and other programs' output
 * (a compiler's log) made safe to print: control bytes in them must not
 * move a terminal's cursor, recolour it, or fake a line of output.
 * Printable UTF-8 stays as it is. */
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"

/* Length of the UTF-8 sequence at s that is valid and printable (not a C1
 * control, U+0080..U+009F), or 0. */
static size_t utf8_ok(const unsigned char *s)
{
	size_t n;
	unsigned c = s[0], min;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0xa0;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* The escaped form of the character at p into e (room for 8 bytes), its
 * length in *k; returns how many bytes of p it takes.  `lines` keeps a
 * newline and a tab as they are: they move no cursor but to the next line
 * or tab stop, and a build log escaped into one line is unreadable. */
static size_t esc1(const unsigned char *p, char *e, size_t *k, int lines)
{
	static const char hex[] = "0123456789abcdef";
	size_t u = *p >= 0x80 ? utf8_ok(p) : 0;
	*k = 0;
	if (u) {
		memcpy(e, p, u);
		*k = u;
		return u;
	}
	if (*p == '\\') {
		e[(*k)++] = '\\';
		e[(*k)++] = '\\';
	} else if ((*p >= 0x20 && *p < 0x7f) ||
	           (lines && (*p == '\n' || *p == '\t'))) {
		e[(*k)++] = (char)*p;
	} else {
		const char *c = *p == '\n' ? "n" : *p == '\t' ? "t" :
		                *p == '\r' ? "r" : NULL;
		e[(*k)++] = '\\';
		if (c) {
			e[(*k)++] = *c;
		} else {
			e[(*k)++] = 'x';
			e[(*k)++] = hex[*p >> 4];
			e[(*k)++] = hex[*p & 15];
		}
	}
	return 1;
}

/* Writes the escaped s into out (room for n bytes), ending it in "..."
 * where the whole does not fit. */
static void escape(const char *s, char *out, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	while (*p) {
		char e[8];
		size_t k, take = esc1(p, e, &k, 0);
		if (o + k + 4 > n) {
			memcpy(out + o, "...", 4);
			return;
		}
		memcpy(out + o, e, k);
		o += k;
		p += take;
	}
	out[o] = 0;
}

const char *nb_esc(const char *s)
{
	static char buf[8][4200];
	static unsigned next;
	char *b = buf[next++ % 8];
	escape(s ? s : "(null)", b, sizeof buf[0]);
	return b;
}

char *nb_esc_lines(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "(null)");
	/* no byte becomes more than 4 ("\\xHH") */
	char *out = malloc(4 * strlen((const char *)p) + 1), *o = out;
	if (!out)
		return NULL;
	while (*p) {
		size_t k;
		p += esc1(p, o, &k, 1);
		o += k;
	}
	*o = 0;
	return out;
}
