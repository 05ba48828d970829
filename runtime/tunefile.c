/* tunefile.c: the tuner's cache entries, written and read back.  An entry
 * is a few lines of text, which cache.c binds to its key and seals with a
 * digest; the reader still takes bytes that anyone could have damaged, so
 * it reads nothing past their end and refuses every value out of range
 * (tests/fuzz/fuzz_tune.c, which reaches it with no digest in the way). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"

/* 3: the layout of the split (warps=); a 2 is read as no entry, and
 * tuned again */
#define MAGIC "nbcc-tune 3\n"

void nbrt_variant_str(const nbrt_variant *v, char *buf, size_t len)
{
	snprintf(buf, len, "ui=%d uj=%d split=%d wg=%d tile=%d warps=%d path=%s",
	         v->ui, v->uj, v->split, v->wg, v->tile, v->warps,
	         v->other ? "other" : "own");
}

char *nbrt_tunefile_write(const nbrt_variant *v, double rate, double ratio)
{
	char var[128];
	nbrt_variant_str(v, var, sizeof var);
	return nbrt_aprintf(MAGIC "variant %s\nrate %.6e ratio %.4f\n", var, rate,
	                    ratio);
}

/* "key=N" with N in [lo, hi]: the next word of *p. */
static int field(char **p, const char *key, int lo, int hi, int *out)
{
	size_t n = strlen(key);
	if (strncmp(*p, key, n) || (*p)[n] != '=')
		return -1;
	char *s = *p + n + 1, *end;
	if (!(*s >= '0' && *s <= '9') && *s != '-')
		return -1;
	long x = strtol(s, &end, 10);
	if (end == s || x < lo || x > hi || (*end != ' ' && *end != '\n'))
		return -1;
	*out = (int)x;
	*p = end + (*end == ' ');
	return 0;
}

int nbrt_tunefile_read(const char *s, size_t len, nbrt_variant *v,
                       double *rate)
{
	/* entries are short: a longer one is not ours */
	char buf[512];
	if (len >= sizeof buf || len < sizeof MAGIC - 1 ||
	    memcmp(s, MAGIC, sizeof MAGIC - 1))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (strlen(buf) != len)
		return -1;
	char *p = buf + sizeof MAGIC - 1;
	if (strncmp(p, "variant ", 8))
		return -1;
	p += 8;
	int split;
	if (field(&p, "ui", 1, 64, &v->ui) || field(&p, "uj", 1, 64, &v->uj) ||
	    field(&p, "split", 1, 16, &split) ||
	    field(&p, "wg", 0, 4096, &v->wg) ||
	    field(&p, "tile", -1, 4096, &v->tile) ||
	    field(&p, "warps", 1, 2, &v->warps))
		return -1;
	if (split & (split - 1))
		return -1;
	v->split = split;
	if (strncmp(p, "path=own\n", 9) == 0)
		v->other = 0;
	else if (strncmp(p, "path=other\n", 11) == 0)
		v->other = 1;
	else
		return -1;
	p = strchr(p, '\n') + 1;
	char *end;
	if (strncmp(p, "rate ", 5))
		return -1;
	double r = strtod(p + 5, &end);
	if (end == p + 5 || !isfinite(r) || r <= 0 || strncmp(end, " ratio ", 7))
		return -1;
	/* the ratio is for people reading the entry: a number, then the end */
	double q = strtod(end + 7, &p);
	if (p == end + 7 || !isfinite(q) || strcmp(p, "\n"))
		return -1;
	*rate = r;
	return 0;
}
