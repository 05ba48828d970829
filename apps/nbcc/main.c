/* main.c: bin/nbcc, the compiler's command line (its flags in opt.c's
 * table form).  Reads one .nbl, compiles it through nb_compile, and writes
 * the result to -o (through outfile.c, so a failed compilation never
 * touches an existing output). */
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "opt.h"
#include "prog.h"

static const opt_prog prog = {
	"nbcc", "FILE.nbl [-o OUT] [options]\n--explain FILE.nbl [options]",
	"Compiles the inner-loop body of for i: for j: r[i] += f(x[i], y[j])\n"
	"into a kernel.  FILE may be - for standard input.", 1,
};

int main(int argc, char **argv)
{
	nb_options o;
	nb_options_init(&o);
	const char *in = NULL, *out = NULL, *emit = NULL;
	char err[512], oh[256];
	snprintf(oh, sizeof oh, "output file; its extension picks the target:\n%s",
	         nb_target_list(NB_TL_LANGS));
	const opt t[] = {
		OPT(OPT_ARG, "input file", "FILE.nbl", &in, NULL),
		OPT(OPT_STR, "-o", "OUT", &out, oh),
		OPT(OPT_STR, "--emit", "=WHAT", &emit,
		    "print a stage instead of code: tokens, ast,\n"
		    "ir (after all passes), ir:PASS (after one\n"
		    "pass), ir:all (after each), stats, explain,\n"
		    "vliw, nbl (the lowered, derived source)"),
		OPT(OPT_ALIAS, "--stats", NULL, &emit, "same as --emit=stats",
		    .words = "stats"),
		OPT(OPT_ALIAS, "--explain", NULL, &emit, "same as --emit=explain",
		    .words = "explain"),
		OPT(OPT_ALIAS, "--vliw", NULL, &emit,
		    "with --target=amdil: the kernel's VLIW bundles,\n"
		    "slot use and registers (docs/amdil.md)", .words = "vliw"),
		{.kind = OPT_HELP},
		OPT(OPT_COMPILER, NULL, NULL, &o,
		    "Compiler options (also taken by nbrun and nbody):"),
		{0},
	};
	int rc = opt_parse(&prog, t, argc, argv);
	if (rc != OPT_GO)
		return rc == OPT_DONE ? 0 : 2;
	if (!in)
		return 2 * prog_fail("no input file (see nbcc --help)");
	if (!o.target) {
		o.target = out ? nb_target_of_ext(out) : NULL;
		if (out && !o.target && !emit)
			return 2 * prog_fail("cannot tell the target from '%s'; name "
			                     "it %s, or give --target", nb_esc(out),
			                     nb_target_list(NB_TL_EXTS));
	}
	/* a flag the target never reads (--wg for C) is no error: the
	 * output is what it would be without it, which the user may not
	 * expect */
	nb_options_ignored(&o, o.target, prog_warn);
	size_t len;
	char *src = nb_read_file_max(in, NB_MAX_SOURCE, &len, err, sizeof err);
	if (!src)
		return prog_fail("%s", err);
	nb_output res;
	const char *name = strcmp(in, "-") == 0 ? "<stdin>" : in;
	rc = nb_compile(name, src, len, &o, emit, stderr, &res);
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
	rc = nb_write_file(dest, res.code, res.len, err, sizeof err) ?
	     prog_fail("%s", err) : 0;
	nb_output_free(&res);
	return rc;
}
