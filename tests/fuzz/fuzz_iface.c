/* fuzz_iface.c: the libFuzzer target for the interface-header reader
 * (nb_iface_parse, compiler/iface.c), which the runtime runs on any .cl or
 * .c it is given.  The input is the file.  Beyond not crashing or
 * leaking: a refusal carries a message, and what is accepted, written
 * again by nb_iface_print, reads back as the same interface.  Seeds:
 * tests/fuzz/corpus/iface (headers nbcc wrote, and damaged ones) and
 * generated/ (tests/fuzz/seeds.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"

/* the printer writes a missing source as "-" and missing flags or
 * options as nothing: the same to the runtime */
static int same(const char *a, const char *b, const char *none)
{
	return strcmp(a ? a : none, b ? b : none) == 0;
}

static int same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static int equal(const nb_iface *f, const nb_iface *g)
{
	if (!same(f->kernel, g->kernel, "") || !same(f->target, g->target, "") ||
	    !same(f->source, g->source, "-") || !same(f->flags, g->flags, "") ||
	    !same(f->options, g->options, "") || !same(f->entry, g->entry, "") ||
	    f->precision != g->precision ||
	    f->unroll_i != g->unroll_i || f->unroll_j != g->unroll_j ||
	    f->jsplit != g->jsplit || f->wg != g->wg || f->tile != g->tile ||
	    !same_num(f->flops, g->flops) ||
	    !same_num(f->flops_conv, g->flops_conv) || f->npack != g->npack ||
	    f->nvar != g->nvar)
		return 0;
	for (int i = 0; i < f->npack; i++)
		if (f->pack[i].type != g->pack[i].type ||
		    f->pack[i].width != g->pack[i].width ||
		    f->pack[i].vwidth != g->pack[i].vwidth)
			return 0;
	for (int i = 0; i < f->nvar; i++)
		if (strcmp(f->var[i].name, g->var[i].name) != 0 ||
		    f->var[i].role != g->var[i].role ||
		    f->var[i].type != g->var[i].type ||
		    f->var[i].pack != g->var[i].pack ||
		    f->var[i].comp != g->var[i].comp)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	nb_iface *f = nb_iface_parse((const char *)data, size, err, sizeof err);
	if (!f) {
		if (!err[0])
			abort();
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		abort();
	fputs("/*\n", m);
	nb_iface_print(f, m, " * ");
	fputs(" */\n", m);
	fclose(m);
	nb_iface *g = nb_iface_parse(text, len, err, sizeof err);
	if (!g || !equal(f, g))
		abort();
	nb_iface_free(g);
	nb_iface_free(f);
	free(text);
	return 0;
}
