/* fuzz_parse.c: the libFuzzer target for the whole compiler (make fuzz),
 * front end, passes, both back ends and the interface-header writer.
 * Input: two option bytes, a byte saying what to make, an optional file
 * name, then the .nbl text:
 *   byte 0, 1   unrolling, j-split, precision, scheduling, fast-math, fma,
 *               tile, work group (see options())
 *   byte 2      bits 0-2: what to make: 0 OpenCL, 1 C, 2 IR, 3 explain,
 *               4 stats, 5 IR after every pass, 6 AMD IL, 7 all of them;
 *               bit 3: a file name follows, up to a NUL byte (else
 *               "fuzz.nbl"); bit 4: it is the --name too; bit 5: CPU
 *               device class; bit 6: no flush to zero
 * The file name goes into the generated header and the kernel name, so
 * names with blanks, comment ends, newlines or a library function's name
 * are fuzzed with the code.  Any crash, sanitizer report or ICE (abort)
 * is a bug, and so is generated code whose header comment is cut short or
 * does not read back as what was written (paths and names included: the
 * header escapes them).  Seeds: tests/fuzz/corpus/parse (any three bytes
 * before a .nbl make one), and every .nbl of dsl-examples and tests/cases
 * so (tests/fuzz/seeds.sh); parse.dict lists the tokens.  An input that takes
 * more than 10 s counts as a crash too (make fuzz passes -timeout=10). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "il.h"

static void options(nb_options *o, const uint8_t *d, size_t n)
{
	static const int ui[] = {0, 1, 2, 4}, uj[] = {1, 2, 3, 4},
	                 js[] = {1, 2, 4, 3};
	static const nb_prec prec[] = {NB_FLOAT, NB_DOUBLE, NB_DD, NB_FLOAT};
	nb_options_init(o);
	uint8_t a = n > 0 ? d[0] : 0, b = n > 1 ? d[1] : 0,
	        c = n > 2 ? d[2] : 0;
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
	o->cpu = c >> 5 & 1;
	if (c >> 6 & 1)
		o->ftz = 0;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The header comment of C and OpenCL code ends after its "end" line, so
 * nothing in it (a path, a name) can close the comment early. */
static int comment_whole(const char *code)
{
	if (strncmp(code, "il_cs_2_0\n", 10) == 0) {
		/* AMD IL: every line of the header is a ';' comment, and the
		 * whole text is IL its own reader takes */
		const char *p = code + 10;
		for (;;) {
			if (*p != ';')
				return 0;
			if (strncmp(p, "; end\n", 6) == 0)
				break;
			p = strchr(p, '\n');
			if (!p)
				return 0;
			p++;
		}
		char err[256];
		IlProg *prog = nb_il_read(code, strlen(code), "fuzz.il", err,
		                       sizeof err);
		nb_il_free(prog);
		return prog != NULL;
	}
	const char *end = strstr(code, "\n * end\n");
	const char *close = strstr(code + 2, "*/");
	return end && close && close > end;
}

/* One compilation; generated code must carry an interface header that
 * reads back as the one the compiler holds (the runtime launches by it). */
static void run(const char *path, const char *src, size_t len,
                const nb_options *base, const char *target, const char *emit)
{
	nb_options o = *base;
	o.target = target;
	nb_output out;
	int rc = nb_compile(path, src, len, &o, emit, NULL, &out);
	if (rc == 0 && (!out.code || strlen(out.code) != out.len))
		abort();
	if (rc == 0 && strcmp(emit, "code") == 0) {
		char err[256];
		nb_iface *f = nb_iface_parse(out.code, out.len, err, sizeof err);
		const nb_iface *g = out.iface;
		if (!f || !g || !comment_whole(out.code) ||
		    f->nvar != g->nvar || f->npack != g->npack ||
		    !same(f->kernel, g->kernel) || !same(f->target, g->target) ||
		    !same(f->source, g->source) || !same(f->entry, g->entry) ||
		    !same(f->flags, g->flags) ||
		    f->unroll_i != g->unroll_i || f->jsplit != g->jsplit ||
		    f->wg != g->wg || f->tile != g->tile)
			abort();
		for (int i = 0; i < f->nvar; i++)
			if (!same(f->var[i].name, g->var[i].name) ||
			    f->var[i].role != g->var[i].role ||
			    f->var[i].type != g->var[i].type ||
			    f->var[i].pack != g->var[i].pack ||
			    f->var[i].comp != g->var[i].comp)
				abort();
		nb_iface_free(f);
	}
	nb_output_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nb_options o;
	options(&o, data, size);
	size_t skip = size < 3 ? size : 3;
	uint8_t how = size > 2 ? data[2] : 0;
	char name[256] = "fuzz.nbl";
	if (how >> 3 & 1) {
		size_t n = 0;
		while (skip + n < size && n < sizeof name - 1 && data[skip + n])
			n++;
		memcpy(name, data + skip, n);
		name[n] = 0;
		skip += n + (skip + n < size);
		if (how >> 4 & 1)
			o.kname = name;
	}
	size_t len = size - skip;
	char *src = malloc(len + 1);
	if (!src)
		return 0;
	memcpy(src, data + skip, len);
	src[len] = 0;

	run(name, src, len, &o, NULL, "tokens");
	nb_output out;
	int ok = nb_compile(name, src, len, &o, "ast", NULL, &out) == 0;
	nb_output_free(&out);
	/* the later stages only see what the front end accepts */
	static const struct { const char *target, *emit; } what[] = {
		{"opencl", "code"}, {"c", "code"}, {"opencl", "ir"},
		{"c", "explain"}, {"opencl", "stats"}, {"c", "ir:all"},
		{"amdil", "code"},
	};
	int w = how & 7;
	for (int i = 0; ok && i < 7; i++)
		if (w == 7 || w == i)
			run(name, src, len, &o, what[i].target, what[i].emit);
	free(src);
	return 0;
}
