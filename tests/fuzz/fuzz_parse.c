/* fuzz_parse.c: the libFuzzer target for the whole compiler (make fuzz).
 * The first two input bytes pick the options, so that unrolling, j-split,
 * precision and the other passes' switches are fuzzed along with the
 * source; the rest is the .nbl text, compiled to every stage and both
 * real targets.  Any crash, sanitizer report or ICE (abort) is a bug.
 * The seeds in corpus/ are .nbl files behind two such option bytes (any
 * two characters); nbl.dict lists the tokens.  An input that takes more
 * than 10 s counts as a crash too (make fuzz passes -timeout=10).  Inputs
 * that crashed once live on as cases under tests/cases/fuzz. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"

static void options(nb_options *o, const uint8_t *d, size_t n)
{
	static const int ui[] = {0, 1, 2, 4}, uj[] = {1, 2, 3, 4},
	                 js[] = {1, 2, 4, 3};
	static const nb_prec prec[] = {NB_FLOAT, NB_DOUBLE, NB_DD, NB_FLOAT};
	nb_options_init(o);
	uint8_t a = n > 0 ? d[0] : 0, b = n > 1 ? d[1] : 0;
	o->unroll_i = ui[a & 3];
	o->unroll_j = uj[a >> 2 & 3];
	o->jsplit = js[a >> 4 & 3];
	o->precision = prec[a >> 6 & 3];
	o->sched = b & 1;
	o->fast_math = b >> 1 & 1;
	o->fma = !(b >> 2 & 1);
	if (b >> 3 & 1)
		o->tile = 16;
	if (b >> 4 & 1)
		o->wg = 32;
}

/* One compilation; generated code must carry an interface header that
 * reads back (the runtime depends on it). */
static void run(const char *src, size_t len, const nb_options *base,
                const char *target, const char *emit)
{
	nb_options o = *base;
	o.target = target;
	nb_output out;
	int rc = nb_compile("fuzz.nbl", src, len, &o, emit, NULL, &out);
	if (rc == 0 && (!out.code || strlen(out.code) != out.len))
		abort();
	if (rc == 0 && strcmp(emit, "code") == 0) {
		char err[256];
		nb_iface *f = nb_iface_parse(out.code, out.len, err, sizeof err);
		if (!f || !out.iface || f->nvar != out.iface->nvar)
			abort();
		nb_iface_free(f);
	}
	nb_output_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nb_options o;
	options(&o, data, size);
	size_t skip = size < 2 ? size : 2;
	size_t len = size - skip;
	char *src = malloc(len + 1);
	if (!src)
		return 0;
	memcpy(src, data + skip, len);
	src[len] = 0;

	run(src, len, &o, NULL, "tokens");
	nb_output out;
	int ok = nb_compile("fuzz.nbl", src, len, &o, "ast", NULL, &out) == 0;
	nb_output_free(&out);
	if (ok) { /* the later stages only see what the front end accepts */
		run(src, len, &o, "opencl", "code");
		run(src, len, &o, "c", "code");
		run(src, len, &o, "opencl", "ir");
		run(src, len, &o, "c", "explain");
		if (size > 1 && data[1] >> 5 & 1)
			run(src, len, &o, "opencl", "ir:all");
	}
	free(src);
	return 0;
}
