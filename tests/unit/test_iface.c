/* test_iface.c: the interface header (compiler/iface.c) as text.  Any
 * source path, flags or options text goes through nb_iface_print and
 * nb_iface_parse unchanged, and what is printed can neither end the
 * comment it sits in ("*" "/"), open another, form a trigraph nor break
 * the line: fixed hostile strings and random byte strings (seed printed;
 * NBCC_TEST_SEED=S repeats a run).  Malformed escapes, raw control bytes,
 * names that are not identifiers and lines given twice are refused with
 * their message (and, under LeakSanitizer, without a leak). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nbcc.h"

#include "seed.h"
#include "unit.h"

static unsigned short rng[3]; /* erand48's state, from seed_rng */

static char *dup(const char *s)
{
	char *p = malloc(strlen(s) + 1);
	ck_assert_ptr_nonnull(p);
	return strcpy(p, s);
}

/* A small valid interface: one variable of each role. */
static nb_iface *sample(const char *source, const char *flags,
                        const char *options)
{
	nb_iface *f = calloc(1, sizeof *f);
	ck_assert_ptr_nonnull(f);
	f->kernel = dup("kill");
	f->entry = dup("nbk_kill_entry");
	f->target = dup("c");
	f->source = dup(source);
	f->flags = dup(flags);
	f->options = dup(options);
	f->unroll_i = f->unroll_j = f->jsplit = 1;
	f->npack = 1;
	f->pack = calloc(1, sizeof *f->pack);
	f->pack[0] = (nb_pack){NB_FLOAT, 1, 1};
	static const char *const names[] = {"a", "b", "c", "r"};
	f->nvar = 4;
	f->var = calloc(4, sizeof *f->var);
	for (int i = 0; i < 4; i++)
		f->var[i] = (nb_var){dup(names[i]), (nb_role)i, NB_FLOAT,
		                     i == NB_BMEM ? 0 : -1, i == NB_BMEM ? 0 : -1,
		                     NB_SUM, 0};
	return f;
}

/* The header as a C file would carry it, in *text. */
static void print(const nb_iface *f, char **text, size_t *len)
{
	FILE *m = open_memstream(text, len);
	ck_assert_ptr_nonnull(m);
	fputs("/* Generated\n", m);
	nb_iface_print(f, m, " * ");
	fputs(" */\nvoid f(void) {}\n", m);
	fclose(m);
}

/* Prints an interface with these texts, checks the comment is intact,
 * and reads it back. */
static void round_trip(const char *source, const char *flags,
                       const char *options)
{
	nb_iface *f = sample(source, flags, options);
	size_t len;
	char *text = NULL;
	print(f, &text, &len);
	/* the comment ends once, where it should */
	const char *end = strstr(text, "*/");
	ck_assert_msg(end && strcmp(end, "*/\nvoid f(void) {}\n") == 0,
	              "the header comment ends early:\n%s", text);
	ck_assert_msg(!strstr(text + 2, "/*"), "a comment opens:\n%s", text);
	ck_assert_msg(!strstr(text, "??"), "a trigraph:\n%s", text);
	/* every byte: assert_each, as ck_assert_msg's write a byte (8 million
	 * in all) was most of this test's 16 CPU s */
	int lines = 0;
	for (const char *p = text; *p; p++) {
		lines += *p == '\n';
		assert_each(*p == '\n' || (*p >= 0x20 && *p < 0x7f),
		            "byte 0x%02x printed raw", (unsigned char)*p);
	}
	/* "Generated", 16 header lines (and options), the code */
	ck_assert_int_eq(lines, 1 + 16 + (*options != 0) + 2);
	char err[256];
	nb_iface *g = nb_iface_parse(text, len, err, sizeof err);
	ck_assert_msg(g != NULL, "%s\n%s", err, text);
	ck_assert_str_eq(g->source, source);
	ck_assert_str_eq(g->flags, flags);
	ck_assert_str_eq(g->options ? g->options : "", options);
	ck_assert_str_eq(g->kernel, "kill");
	ck_assert_str_eq(g->entry, "nbk_kill_entry");
	ck_assert_int_eq(g->nvar, 4);
	ck_assert_str_eq(g->var[3].name, "r");
	nb_iface_free(g);
	nb_iface_free(f);
	free(text);
}

START_TEST(hostile_texts)
{
	static const char *const s[] = {
		"dsl-examples/gravity.nbl", "b*/g.nbl", "x*/\nint x;\n/*/g.nbl",
		"*/", "/*", "*//**/", "a\\b\\", "\\x41", "?\?/", "??\?=?", "? ?",
		"trailing space ", "  ", " lead", "tab\there", "\r\n", "\x7f",
		"caf\xc3\xa9 \xff\x80", "\x1b[31mred", "end", "-", "//", "/",
		"*", "*/*/*/", "a b  c",
	};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		round_trip(s[i], "--precision=float", "");
		round_trip("g.nbl", s[i], s[i]);
	}
	round_trip("", "", "");
}
END_TEST

START_TEST(random_texts)
{
	/* bytes from a small alphabet, so that pairs such as * / and ? ?
	 * come up often, and any byte 1..255 */
	static const char alpha[] = "*/?\\ \nx\tab";
	char s[40];
	/* a tenth under the sanitizers (make check's second pass), where a
	 * round trip is ten times slower; each run draws a new seed */
	const char *san = getenv("NBCC_SANITIZED");
	int rounds = san && *san == '1' ? 2000 : 20000;
	for (int t = 0; t < rounds; t++) {
		int n = (int)(erand48(rng) * 39);
		for (int i = 0; i < n; i++)
			s[i] = erand48(rng) < 0.8 ?
			       alpha[(int)(erand48(rng) * (sizeof alpha - 1))] :
			       (char)(1 + (int)(erand48(rng) * 255));
		s[n] = 0;
		round_trip(s, s, s);
	}
}
END_TEST

static const char head[] = "/*\n * nbcc-interface 1\n * kernel k\n"
                           " * target opencl\n";
static const char tail[] = " * unroll 1 1 1\n * launch 128 128\n"
                           " * var a LMEM float\n * end\n */\n";

/* The message for a header made of head, line and tail. */
static void refused(const char *line, const char *want)
{
	char text[1024], err[256];
	snprintf(text, sizeof text, "%s%s%s", head, line, tail);
	nb_iface *f = nb_iface_parse(text, strlen(text), err, sizeof err);
	ck_assert_msg(f == NULL, "accepted: %s", line);
	ck_assert_msg(strstr(err, want) != NULL, "'%s': '%s' lacks '%s'", line,
	              err, want);
}

START_TEST(malformed)
{
	refused(" * source a\\qb\n", "malformed interface line 5: an "
	        "unknown escape");
	refused(" * source a\\x4\n", "'\\x' without two hex digits");
	refused(" * source a\\xg0\n", "'\\x' without two hex digits");
	refused(" * source a\\x00b\n", "a NUL byte (\\x00)");
	refused(" * source ab\\\n", "a '\\' at the end");
	refused(" * source a\tb\n", "a raw control byte");
	refused(" * flags --x\x1b[31m\n", "a raw control byte (written "
	        "\\xHH by nbcc): 'flags --x\\x1b[31m'");
	refused(" * entry 1x\n", "line 5: not an identifier: 'entry 1x'");
	refused(" * entry a\\x20b\n", "not an identifier");
	refused(" * entry a b\n", "expected one word");
	refused(" * var b RMEM float\n * var a\\x2e RMEM float\n",
	        "line 6: the name is not an identifier");
	refused(" * unroll 1 2\n", "expected three positive integers");
	refused(" * launch 4x 1\n", "expected two integers");
	refused(" * pack 1 float 1 1\n", "the packs numbered from 0");
	refused(" * var b BMEM float\n", "PACK COMP for a BMEM");
	refused(" * nonsense 1\n", "line 5: unknown key: 'nonsense 1'");
	char err[256];
	static const char nul[] = "/*\n * nbcc-interface 1\n * kernel k\n"
	                          " * source a\0b\n";
	ck_assert_ptr_null(nb_iface_parse(nul, sizeof nul - 1, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "line 4: a NUL byte"));
	/* a long line is shown cut short */
	char line[300];
	memset(line, 'y', sizeof line);
	memcpy(line, " * source \\q", 12);
	strcpy(line + 200, "\n");
	refused(line, "...'");
}
END_TEST

/* Every line that may appear once, twice: refused, nothing leaked. */
START_TEST(duplicates)
{
	static const char *const twice[] = {
		" * kernel k\n", " * target opencl\n", " * entry e\n * entry e\n",
		" * source a\n * source b\n", " * flags\n * flags --x\n",
		" * options -a\n * options -b\n", " * precision float\n"
		" * precision dd\n", " * unroll 1 1 1\n", " * launch 1 1\n",
		" * flops 1 2\n * flops 1 2\n",
	};
	for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++)
		refused(twice[i], "given twice");
	refused(" * var a RMEM float\n", "variable 'a' is declared twice");
	refused(" * var b RMEM float\n * var c CONST dd\n * var b LMEM float\n",
	        "variable 'b' is declared twice");
	char text[512], err[256];
	snprintf(text, sizeof text, "%s%s", head, " * end\n");
	ck_assert_ptr_null(nb_iface_parse(text, strlen(text), err, sizeof err));
	ck_assert_str_eq(err, "interface header has no 'unroll' line");
}
END_TEST

/* The slices line: 0, 1 or 2, once; absent means 0; printed and read
 * back. */
START_TEST(slices_line)
{
	char text[1024], err[256];
	for (int v = -1; v <= 2; v++) {
		char line[32] = "";
		if (v >= 0)
			snprintf(line, sizeof line, " * slices %d\n", v);
		snprintf(text, sizeof text, "%s%s%s", head, line, tail);
		nb_iface *f = nb_iface_parse(text, strlen(text), err, sizeof err);
		ck_assert_msg(f != NULL, "%s", err);
		ck_assert_int_eq(f->slices, v > 0 ? v : 0);
		nb_iface_free(f);
	}
	refused(" * slices 3\n", "expected 0, 1 or 2");
	refused(" * slices -1\n", "expected 0, 1 or 2");
	refused(" * slices\n", "expected 0, 1 or 2");
	refused(" * slices 1\n * slices 1\n", "given twice");
	nb_iface *f = sample("a.nbl", "", "");
	f->slices = 2;
	size_t len;
	char *out = NULL;
	print(f, &out, &len);
	ck_assert_ptr_nonnull(strstr(out, " * slices 2\n"));
	nb_iface *g = nb_iface_parse(out, len, err, sizeof err);
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_int_eq(g->slices, 2);
	nb_iface_free(g);
	nb_iface_free(f);
	free(out);
}
END_TEST

/* Newton's third law: an RMEM's symmetry word after its reduction, the
 * pairs line once; printed and read back. */
START_TEST(symmetry_words)
{
	char text[1024], err[256];
	snprintf(text, sizeof text, "%s%s", head,
	         " * pairs nbk_k_pairs\n * unroll 1 1 1\n"
	         " * var s RMEM float symmetric\n"
	         " * var c RMEM float count symmetric\n"
	         " * var f RMEM double antisymmetric\n * end\n");
	nb_iface *f = nb_iface_parse(text, strlen(text), err, sizeof err);
	ck_assert_msg(f != NULL, "%s", err);
	ck_assert_str_eq(f->pairs, "nbk_k_pairs");
	int sym[3] = {1, 1, -1};
	for (int v = 0; v < 3; v++)
		ck_assert_int_eq(f->var[nb_iface_find(f, v == 0 ? "s" : v == 1 ?
		                                      "c" : "f")].sym, sym[v]);
	ck_assert_int_eq(f->var[nb_iface_find(f, "c")].red, NB_COUNT);
	size_t len;
	char *out = NULL;
	print(f, &out, &len);
	ck_assert_ptr_nonnull(strstr(out, " * var c RMEM float count "
	                              "symmetric\n"));
	ck_assert_ptr_nonnull(strstr(out, " * pairs nbk_k_pairs\n"));
	nb_iface *g = nb_iface_parse(out, len, err, sizeof err);
	ck_assert_msg(g != NULL, "%s", err);
	ck_assert_int_eq(g->var[nb_iface_find(g, "f")].sym, -1);
	nb_iface_free(g);
	nb_iface_free(f);
	free(out);
	refused(" * var s RMEM float symmetric count\n", "symmetric, "
	        "antisymmetric or none for an RMEM");
	refused(" * var s LMEM float symmetric\n", "expected: var");
	refused(" * var s RMEM float odd\n", "expected: var");
	refused(" * pairs 1x\n", "not an identifier");
	refused(" * pairs a\n * pairs a\n", "given twice");
}
END_TEST

/* Headers without an entry line (hand-written ones, nbcc's before it
 * wrote one) name the functions as nbcc did then. */
START_TEST(default_entry)
{
	char text[512], err[256];
	snprintf(text, sizeof text, "%s%s", head, tail);
	nb_iface *f = nb_iface_parse(text, strlen(text), err, sizeof err);
	ck_assert_msg(f != NULL, "%s", err);
	ck_assert_str_eq(f->entry, "k");
	nb_iface_free(f);
	static const char c[] = "/*\n * nbcc-interface 1\n * kernel k\n"
	                        " * target c\n * unroll 1 1 1\n * end\n */\n";
	f = nb_iface_parse(c, sizeof c - 1, err, sizeof err);
	ck_assert_msg(f != NULL, "%s", err);
	ck_assert_str_eq(f->entry, "k_entry");
	nb_iface_free(f);
}
END_TEST

/* What nbcc writes for a kernel and variables with C's and OpenCL's
 * names: the header keeps them, the code has them behind nbk_, nbv_. */
START_TEST(compiled_names)
{
	static const char src[] = "LMEM float4, NULL;\nBMEM ni;\nCONST M_PI;\n"
	                          "RMEM main;\narr = float4 - ni;\n"
	                          "main += arr * NULL + M_PI;\n";
	for (int t = 0; t < 2; t++) {
		nb_options o;
		nb_options_init(&o);
		o.target = t ? "c" : "opencl";
		nb_output out;
		ck_assert_int_eq(nb_compile("dir*/x*/\n/kill.nbl", src,
		                            sizeof src - 1, &o, "code", stderr,
		                            &out), 0);
		char err[256];
		nb_iface *f = nb_iface_parse(out.code, out.len, err, sizeof err);
		ck_assert_msg(f != NULL, "%s", err);
		ck_assert_str_eq(f->kernel, "kill");
		ck_assert_str_eq(f->entry, t ? "nbk_kill_entry" : "nbk_kill");
		ck_assert_str_eq(f->source, "dir*/x*/\n/kill.nbl");
		ck_assert_str_eq(f->var[0].name, "float4");
		ck_assert_str_eq(f->var[4].name, "main");
		ck_assert_ptr_nonnull(strstr(out.code, t ? "void nbk_kill_entry(" :
		                             "void nbk_kill("));
		/* past the header, each name only behind its prefix */
		static const char *const names[] = {
			"kill", "float4", "NULL", "M_PI", "main", "arr(", NULL,
		};
		const char *code = strstr(out.code, " */\n");
		ck_assert_ptr_nonnull(code);
		ck_assert_ptr_nonnull(strstr(code, "nbv_float4"));
		for (int i = 0; names[i]; i++)
			for (const char *p = code; (p = strstr(p, names[i])); p++)
				ck_assert_msg(p - code >= 4 && (!memcmp(p - 4, "nbk_", 4) ||
				              !memcmp(p - 4, "nbv_", 4)),
				              "'%s' without a prefix: %.40s", names[i],
				              p - 4);
		nb_iface_free(f);
		nb_output_free(&out);
	}
}
END_TEST

int main(void)
{
	seed_rng("test_iface", rng);
	Suite *s;
	/* random_texts takes 13 CPU s; at a load of 12 on 2 cores it took 73 s
	 * of wall time, past a limit of 60 */
	TCase *tc = unit_case(&s, "iface", 300);
	tcase_add_test(tc, hostile_texts);
	tcase_add_test(tc, random_texts);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, duplicates);
	tcase_add_test(tc, slices_line);
	tcase_add_test(tc, symmetry_words);
	tcase_add_test(tc, default_entry);
	tcase_add_test(tc, compiled_names);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
