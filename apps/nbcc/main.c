/* main.c: the nbcc command line.  Reads one .nbl, compiles it through
 * nb_compile, and writes the result to -o (through outfile.c, so a failed
 * compilation never touches an existing output). */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: nbcc FILE.nbl [-o OUT] [options]\n"
	        "       nbcc --explain FILE.nbl [options]\n"
	        "Compiles the inner-loop body of for i: for j: r[i] += f(x[i], y[j])\n"
	        "into a kernel.  FILE may be - for standard input.\n\n"
	        "  -o OUT             output file; its extension picks the target:\n"
	        "                     %s\n"
	        "  --emit=WHAT        print a stage instead of code: tokens, ast,\n"
	        "                     ir (after all passes), ir:PASS (after one\n"
	        "                     pass), ir:all (after each), stats, explain,\n"
	        "                     vliw\n"
	        "  --stats            same as --emit=stats\n"
	        "  --explain          same as --emit=explain\n"
	        "  --vliw             with --target=amdil: the kernel's VLIW bundles,\n"
	        "                     slot use and registers (docs/amdil.md)\n"
	        "  --help, --version\n\n"
	        "Compiler options (also taken by nbrun and nbody):\n%s",
	        target_list(TL_LANGS), nb_options_help_text());
}

int main(int argc, char **argv)
{
	nb_options o;
	nb_options_init(&o);
	const char *in = NULL, *out = NULL, *emit = NULL;
	char err[512];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		int took = nb_options_parse(&o, a, next, err, sizeof err);
		if (took < 0) {
			fprintf(stderr, "nbcc: error: %s\n", err);
			return 2;
		}
		if (took) {
			i += took - 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("nbcc %s\n", NBCC_VERSION);
			return 0;
		} else if (strcmp(a, "-o") == 0) {
			if (!next) {
				fprintf(stderr, "nbcc: error: -o needs a file name\n");
				return 2;
			}
			out = argv[++i];
		} else if (strncmp(a, "--emit=", 7) == 0) {
			emit = a + 7;
		} else if (strcmp(a, "--stats") == 0) {
			emit = "stats";
		} else if (strcmp(a, "--explain") == 0) {
			emit = "explain";
		} else if (strcmp(a, "--vliw") == 0) {
			emit = "vliw";
		} else if (a[0] == '-' && a[1] != 0) {
			fprintf(stderr, "nbcc: error: unknown option '%s' (see "
			        "nbcc --help)\n", nb_esc(a));
			return 2;
		} else if (in) {
			fprintf(stderr, "nbcc: error: more than one input file "
			        "('%s' and '%s')\n", nb_esc(in), nb_esc(a));
			return 2;
		} else {
			in = a;
		}
	}
	if (!in) {
		fprintf(stderr, "nbcc: error: no input file (see nbcc --help)\n");
		return 2;
	}
	if (!o.target) {
		o.target = out ? nb_target_of_ext(out) : NULL;
		if (out && !o.target && !emit) {
			fprintf(stderr, "nbcc: error: cannot tell the target from "
			        "'%s'; name it %s, or give --target\n",
			        nb_esc(out), target_list(TL_EXTS));
			return 2;
		}
	}
	size_t len;
	char *src = nb_read_file_max(in, NB_MAX_SOURCE, &len, err, sizeof err);
	if (!src) {
		fprintf(stderr, "nbcc: error: %s\n", err);
		return 1;
	}
	nb_output res;
	const char *name = strcmp(in, "-") == 0 ? "<stdin>" : in;
	int rc = nb_compile(name, src, len, &o, emit, stderr, &res);
	free(src);
	if (rc) {
		nb_output_free(&res);
		return 1;
	}
	const char *dest = out ? out : "-";
	if (!out && !emit) {
		/* code with no -o goes to standard output */
		dest = "-";
	}
	if (nb_write_file(dest, res.code, res.len, err, sizeof err)) {
		fprintf(stderr, "nbcc: error: %s\n", err);
		nb_output_free(&res);
		return 1;
	}
	nb_output_free(&res);
	return 0;
}
