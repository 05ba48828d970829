/* nbrun.c: bin/nbrun, any nbcc kernel on the user's data.  Reads the LMEM
 * columns from one CSV file and the BMEM columns from another, or both
 * from one file of particles (or makes random ones), runs the kernel
 * through the runtime on the host, an OpenCL device or the AMD IL
 * interpreter, and writes the RMEM columns as CSV. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "csv.h"
#include "jobs.h"
#include "nbrt.h"
#include "opt.h"
#include "par.h"
#include "prog.h"
#include "ranges.h"
#include "tree.h"

/* Exit statuses: a run that failed (data, kernel, device), and a command
 * line that makes no sense (as nbcc). */
enum { FAILED = 1, USAGE = 2, HELP = -1 };

#define MAX_RANDOM ((size_t)INT_MAX) /* OpenCL kernels index with int */
#define MAX_REPEAT 1000000

/* --jobs - read the jobs from standard input, which a job's - would find
 * empty ("<stdin>: no header row") */
static int stdin_jobs;

typedef struct Const {
	const char *arg;  /* NAME=VALUE as given */
	size_t namelen;
	const char *value;
} Const;

/* --map VAR=COLUMN: the CSV column a variable is read from. */
typedef struct Map {
	char *var, *col; /* one allocation: var, then col */
} Map;

typedef struct Args {
	const char *kernel, *ifile, *jfile, *ijfile, *out, *device;
	Const *cst;
	int ncst;
	Map *map;
	int nmap;
	long repeat;        /* --repeat R; 0 when not given */
	nb_options opt;
	const char *optflag; /* a compiler flag given, besides --target */
	int random;
	size_t rni, rnj;
	const char *seeded; /* --seed given */
	unsigned long long seed;
	int time, list, info;
	int tune_on;        /* --tune */
	double budget;      /* --tune-budget S; 0 when not given */
	double tune;        /* --tune's budget in seconds, 0: none */
	/* the pairs that run: --ranges FILE, or cell lists of --cutoff RC
	 * over the positions --pos names (ipos, jpos: dim of each, in posbuf),
	 * periodic along the axes --periodic gives lengths (nperiod: 1 for
	 * all, else dim) */
	const char *ranges;
	const char *cutoff_seen;
	const char *pos_arg, *periodic_arg; /* their values as given */
	double cutoff;
	char *posbuf;
	int dim, nperiod, self;
	int newton; /* --newton: nbrt_newton's order, auto on off */
	const char *ipos[3], *jpos[3];
	double period[3];
	/* --tree: the far kernel (--far, else found: tree.c) and the tree's
	 * parameters (0: not given, the usual values) */
	int tree;
	const char *far, *tree_flag; /* tree_flag: --far, --theta ... given */
	double theta;
	long bucket, group;
} Args;

/* One side's columns (LMEM, BMEM or RMEM) and its element count. */
typedef struct Side {
	csv_col *col;
	int n;
	size_t len;
} Side;

static int fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	prog_vfail(fmt, ap);
	va_end(ap);
	return code;
}

/* --- the command line -------------------------------------------------- */

static int parse_random(void *to, const char *flag, const char *v)
{
	Args *a = to;
	const char *comma = strchr(v, ',');
	long ni, nj;
	if (!comma || opt_long(v, (size_t)(comma - v), &ni) ||
	    opt_long(comma + 1, strlen(comma + 1), &nj) || ni < 0 || nj < 0 ||
	    (size_t)ni > MAX_RANDOM || (size_t)nj > MAX_RANDOM)
		return opt_bad(flag, v, "NI,NJ, two counts from 0 to %zu",
		               MAX_RANDOM);
	a->rni = (size_t)ni;
	a->rnj = (size_t)nj;
	a->random = 1;
	return 0;
}

/* --map VAR=COL[,VAR=COL...]: the pairs are checked against the kernel
 * once it is loaded (check_maps). */
static int parse_map(void *to, const char *flag, const char *v)
{
	Args *a = to;
	for (const char *p = v;;) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		if (!eq || eq == p || eq + 1 == p + n ||
		    memchr(eq + 1, '=', (size_t)(p + n - eq - 1)))
			return opt_bad(flag, v, "VARIABLE=COLUMN, several joined by "
			               "commas (as in xi=x,xj=x)");
		Map *m = realloc(a->map, sizeof *m * (size_t)(a->nmap + 1));
		char *t = malloc(n + 1);
		if (m)
			a->map = m;
		if (!m || !t) {
			free(t);
			return fail(FAILED, "out of memory");
		}
		memcpy(t, p, n);
		t[n] = 0;
		t[eq - p] = 0;
		a->map[a->nmap++] = (Map){t, t + (eq - p) + 1};
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* The names of one side of --pos: 1 to 3, joined by commas, into
 * name[]; returns how many, or 0 for a bad list. */
static int pos_names(char *v, const char **name)
{
	int n = 0;
	for (char *p = v;; p++) {
		char *c = strchr(p, ',');
		if (c)
			*c = 0;
		if (!*p || n == 3)
			return 0;
		name[n++] = p;
		if (!c)
			return n;
		p = c;
	}
}

/* --pos xi,yi,zi:xj,yj,zj: the names are checked against the kernel once
 * it is loaded (check_cutoff). */
static int parse_pos(void *to, const char *flag, const char *v)
{
	Args *a = to;
	free(a->posbuf);
	a->posbuf = strdup(v);
	if (!a->posbuf)
		return fail(FAILED, "out of memory");
	char *colon = strchr(a->posbuf, ':');
	int ni = 0, nj = 0;
	if (colon) {
		*colon = 0;
		ni = pos_names(a->posbuf, a->ipos);
		nj = strchr(colon + 1, ':') ? 0 : pos_names(colon + 1, a->jpos);
	}
	if (!ni || ni != nj)
		return opt_bad(flag, v, "the LMEM position columns, ':', the "
		               "BMEM ones, 1 to 3 of each and as many of each "
		               "(as in xi,yi,zi:xj,yj,zj)");
	a->dim = ni;
	a->pos_arg = v;
	return 0;
}

/* --periodic L or Lx,Ly[,Lz]: lengths 0 (an open axis) or above. */
static int parse_periodic(void *to, const char *flag, const char *v)
{
	Args *a = to;
	int n = 0, open = 0;
	for (const char *p = v;; n++) {
		size_t k = strcspn(p, ",");
		double x;
		if (n == 3 || opt_real(p, k, &x) || x < 0)
			return opt_bad(flag, v, "L, or Lx,Ly[,Lz]: one length for "
			               "every axis or one per axis, each 0 (open) "
			               "or above");
		a->period[n] = x;
		open += x == 0;
		if (!p[k])
			break;
		p += k + 1;
	}
	if (open == n + 1)
		return opt_bad(flag, v, "a length above 0: 0 leaves an axis open, "
		               "and without --periodic every axis is");
	a->nperiod = n + 1;
	a->periodic_arg = v;
	return 0;
}

static void free_args(Args *a)
{
	free(a->posbuf);
	free(a->cst);
	for (int m = 0; m < a->nmap; m++)
		free(a->map[m].var);
	free(a->map);
}

static int parse_const(void *to, const char *flag, const char *v)
{
	Args *a = to;
	const char *eq = strchr(v, '=');
	if (!eq || eq == v)
		return opt_bad(flag, v, "NAME=VALUE");
	Const *c = realloc(a->cst, sizeof *c * (size_t)(a->ncst + 1));
	if (!c)
		return fail(FAILED, "out of memory");
	a->cst = c;
	c[a->ncst++] = (Const){v, (size_t)(eq - v), eq + 1};
	return 0;
}

/* The flags that choose the pairs: --ranges, or --cutoff with --pos
 * and perhaps --periodic and --self. */
static int check_pairs(const Args *a)
{
	if (a->ranges && a->cutoff_seen)
		return fail(USAGE, "--ranges and --cutoff both choose the pairs "
		            "that run: give one or the other");
	if (a->tree && (a->ranges || a->cutoff_seen))
		return fail(USAGE, "--tree and %s both choose the pairs that run: "
		            "give one or the other", a->ranges ? "--ranges" :
		            "--cutoff");
	if (!a->tree && a->tree_flag)
		return fail(USAGE, "%s is for --tree: give --tree too",
		            a->tree_flag);
	if (a->tree && a->periodic_arg)
		return fail(USAGE, "--periodic is for --cutoff: the tree has open "
		            "boundaries");
	if (a->cutoff_seen && !a->pos_arg)
		return fail(USAGE, "--cutoff needs the position columns: give "
		            "--pos xi,yi,zi:xj,yj,zj (1 to 3 LMEM, then as many "
		            "BMEM)");
	if (!a->cutoff_seen && !a->tree && a->pos_arg)
		return fail(USAGE, "--pos names the positions of --cutoff or "
		            "--tree: give --cutoff RC or --tree too");
	if (!a->cutoff_seen && a->periodic_arg)
		return fail(USAGE, "--periodic is for --cutoff: give --cutoff RC "
		            "and --pos too");
	if (a->self && !a->ijfile)
		return fail(USAGE, "--self says that the i-elements are the "
		            "j-elements: that is so only with --ij FILE");
	if (a->nperiod > 1 && a->dim && a->nperiod != a->dim)
		return fail(USAGE, "--periodic %s gives %d lengths for %d "
		            "position axes (--pos %s): give one for every axis, "
		            "or one per axis", nb_esc(a->periodic_arg), a->nperiod,
		            a->dim, nb_esc(a->pos_arg));
	return 0;
}

/* Conflicts and omissions, once every flag is known. */
static int check_args(Args *a)
{
	if (!a->kernel)
		return fail(USAGE, "no kernel given (see nbrun --help)");
	const char *t = a->opt.target, *where, *dwhere;
	if (t && nbrt_target_device(t, NULL, &where))
		return fail(USAGE, "--target %s kernels cannot be run: the runtime "
		            "has no back end for them", nb_esc(t));
	const char *dt = a->device ? nbrt_spec_target(a->device) : NULL;
	if (t && dt && strcmp(t, dt) != 0 &&
	    !nbrt_target_device(dt, NULL, &dwhere))
		return fail(USAGE, "--device %s and --target %s disagree: target "
		            "%s runs on %s, %s on %s", nb_esc(a->device),
		            nb_esc(t), nb_esc(t), where, dt, dwhere);
	if (a->random && (a->ifile || a->jfile))
		return fail(USAGE, "--random replaces --i and --j: give one or "
		            "the other");
	if (a->random && a->ijfile)
		return fail(USAGE, "--random replaces --ij: give one or the "
		            "other");
	if (a->ijfile && (a->ifile || a->jfile))
		return fail(USAGE, "--ij replaces --i and --j: give one or the "
		            "other");
	if (!a->random && !a->ijfile && (!a->ifile || !a->jfile))
		return fail(USAGE, "no %s given: the kernel's inputs come from "
		            "--i I.csv and --j J.csv, --ij P.csv for both, or "
		            "--random NI,NJ", !a->ifile ? "--i" : "--j");
	if (a->seeded && !a->random)
		return fail(USAGE, "--seed is only for --random");
	if (a->nmap && a->random)
		return fail(USAGE, "--map names the columns of --i, --j or --ij "
		            "files: --random has none");
	if (a->repeat && !a->time)
		return fail(USAGE, "--repeat is for --time: it times R runs");
	if (check_pairs(a))
		return USAGE;
	int stdins = (a->ranges && !strcmp(a->ranges, "-")) +
	             !strcmp(a->kernel, "-") +
	             (a->ifile && !strcmp(a->ifile, "-")) +
	             (a->jfile && !strcmp(a->jfile, "-")) +
	             (a->ijfile && !strcmp(a->ijfile, "-"));
	if (stdins > 1)
		return fail(USAGE, "only one of the kernel, --i, --j, --ij and "
		            "--ranges can be standard input (-)");
	if (stdins && stdin_jobs)
		return fail(USAGE, "standard input (-) holds the file of jobs "
		            "(--jobs -): a job cannot read it too");
	return 0;
}

static const opt_prog prog = {
	"nbrun",
	"KERNEL --i I.csv --j J.csv [options]\n"
	"KERNEL --ij P.csv [options]\n"
	"KERNEL --random NI,NJ [options]\n"
	"--jobs FILE",
	"Runs an nbcc kernel: for every row i of I.csv, each RMEM r[i] is\n"
	"reduced over every row j of J.csv; the results are written as CSV.",
	1,
};

static int parse_args(int argc, char **argv, Args *a)
{
	memset(a, 0, sizeof *a);
	nb_options_init(&a->opt);
	const opt t[] = {
		OPT(OPT_ARG, "kernel", "KERNEL", &a->kernel,
		    "a .nbl (compiled here, with the compiler options\n"
		    "below) or a .cl, .c or .il that nbcc wrote"),
		OPT(OPT_STR, "--i", "FILE", &a->ifile,
		    "the LMEM columns: a header row naming them, in\n"
		    "any order, then one row per i-element (- for\n"
		    "standard input)"),
		OPT(OPT_STR, "--j", "FILE", &a->jfile,
		    "the BMEM columns, one row per j-element"),
		OPT(OPT_STR, "--ij", "FILE", &a->ijfile,
		    "one file for both: its rows are the i-elements\n"
		    "and the j-elements, its header names every\n"
		    "LMEM and BMEM column (or see --map)"),
		OPT(OPT_CALL, "--map", "V=COL,...", a,
		    "read the LMEM or BMEM V from column COL, as in\n"
		    "--map xi=x,xj=x (one column may feed several);\n"
		    "with --map, columns that nothing reads are\n"
		    "skipped", .call = parse_map),
		OPT(OPT_STR, "--ranges", "FILE", &a->ranges,
		    "run only the pairs FILE lists: one i-group a\n"
		    "line, 'I0 I1: J0 J1, J0 J1, ...', i in [I0, I1)\n"
		    "meeting j in each [J0, J1) (see below)"),
		OPT(OPT_REAL, "--cutoff", "RC", &a->cutoff,
		    "run only the pairs closer than about RC (whole\n"
		    "cells of cell lists the runtime builds): for a\n"
		    "kernel that is zero beyond RC the results of\n"
		    "the dense run, within rounding", .lo = 0,
		    .hi = HUGE_VAL, .open = OPT_ABOVE, .seen = &a->cutoff_seen),
		OPT(OPT_CALL, "--pos", "XI,..:XJ,..", a,
		    "--cutoff's positions: 1 to 3 LMEM columns, then\n"
		    "as many BMEM, as in --pos xi,yi,zi:xj,yj,zj",
		    .call = parse_pos),
		OPT(OPT_CALL, "--periodic", "L[,L,L]", a,
		    "--cutoff in a periodic box: one length for every\n"
		    "axis of --pos, or one per axis (0: that axis is\n"
		    "open); positions must lie in [0, L), and the\n"
		    "cutoff below L/2", .call = parse_periodic),
		OPT(OPT_SET, "--self", NULL, &a->self,
		    "with --cutoff and --ij: the i-elements are the\n"
		    "j-elements (each --pos pair read from one column,\n"
		    "as --map xi=x,xj=x does), so a kernel declared\n"
		    "symmetric may compute each pair once (with\n"
		    "--cutoff in its cell lists, else in the dense run)"),
		OPT(OPT_CHOICE, "--newton", "M", &a->newton,
		    "with --self: auto (default: where the defaults\n"
		    "table measured it faster), on or off, Newton's\n"
		    "third law for a kernel declared symmetric",
		    .words = "auto|on|off"),
		OPT(OPT_SET, "--tree", NULL, &a->tree,
		    "run through a treecode: near pairs by the kernel,\n"
		    "distant cells by its far kernel's expansions;\n"
		    "positions from --pos, else the first three\n"
		    "LMEMs and BMEMs; sources: the other BMEMs\n"
		    "(one, a mass, or three, a vector)"),
		OPT(OPT_STR, "--far", "FILE", &a->far,
		    "--tree's far kernel (default: the one file\n"
		    "far/STEM_*.nbl beside kernel STEM.nbl, in its\n"
		    "folder, the folder above, or the source tree)",
		    .seen = &a->tree_flag),
		OPT(OPT_REAL, "--theta", "T", &a->theta,
		    "--tree's opening angle (0.5): a cell is taken\n"
		    "whole when its side is below T times its distance",
		    .lo = 0, .hi = HUGE_VAL, .open = OPT_ABOVE,
		    .seen = &a->tree_flag),
		OPT(OPT_INT, "--bucket", "B", &a->bucket,
		    "--tree's most bodies in a leaf cell (16)", .lo = 1,
		    .hi = 1e9, .seen = &a->tree_flag),
		OPT(OPT_INT, "--group", "G", &a->group,
		    "--tree's most i-elements sharing one walk (512,\n"
		    "1024 from 2^20 i-elements)",
		    .lo = 1, .hi = 1e9, .seen = &a->tree_flag),
		OPT(OPT_CALL, "--const", "NAME=V", a,
		    "the value of a CONST (each CONST once)",
		    .call = parse_const),
		OPT(OPT_STR, "-o", "FILE", &a->out,
		    "write the results to FILE (a file is replaced\n"
		    "whole, a FIFO or device written straight);\n"
		    "default: standard output"),
		OPT(OPT_COMPILER, "--target", "T", &a->opt,
		    "c: run on the host through the C back end;\n"
		    "opencl: on an OpenCL device; amdil: in nbcc's\n"
		    "AMD IL interpreter, on this CPU (default: from\n"
		    "--device, else from KERNEL's extension, else\n"
		    "OpenCL)"),
		OPT(OPT_STR, "--device", "SPEC", &a->device,
		    "gpu, cpu, P:D (see --list-devices), part of a\n"
		    "device name, host, or amdil (default:\n"
		    "$NBRT_DEVICE, else the first GPU, else the\n"
		    "first CPU)"),
		OPT(OPT_CALL, "--random", "NI,NJ", a,
		    "random inputs instead of --i and --j: every LMEM\n"
		    "and BMEM uniform in (0,1); CONSTs not given\n"
		    "by --const random in (0,1) too (shown on stderr);\n"
		    "one seed gives every precision the same values\n"
		    "(float's rounded, dd's with random low parts)",
		    .call = parse_random),
		OPT(OPT_U64, "--seed", "S", &a->seed,
		    "seed of --random (default: from the clock; the\n"
		    "seed used is shown on stderr)", .seen = &a->seeded),
		OPT(OPT_SET, "--time", NULL, &a->time,
		    "print on stderr the variant that ran ('variant:\n"
		    "kernel, target, device, unroll, j-split, the\n"
		    "compiler flags and build options) and 'time:\n"
		    "T s, interactions/s: X' (T: the kernel's\n"
		    "launches; with --ranges or --cutoff, X counts\n"
		    "Ni x Nj, and ', pairs: P, pairs/s: Y' follows,\n"
		    "the pairs computed)"),
		CLI_TUNE_ROWS(&a->tune_on, &a->budget,
		    "time the kernel's variants (unrolling, j-split,\n"
		    "work-group size, tile; on a CPU the C path\n"
		    "and OpenCL) for this size on this device, the\n"
		    "results of each checked against the default's,\n"
		    "and keep the fastest in the cache for later\n"
		    "runs (a .nbl; docs/performance.md)"),
		OPT(OPT_INT, "--repeat", "R", &a->repeat,
		    "with --time: run R times (the results are the\n"
		    "last run's); T is the median, and the line\n"
		    "adds the min, the max and their spread", .lo = 1,
		    .hi = MAX_REPEAT),
		OPT(OPT_SET, "--list-devices", NULL, &a->list,
		    "list the OpenCL devices and exit"),
		OPT(OPT_SET, "--device-info", NULL, &a->info,
		    "print the limits of the device --device picks\n"
		    "(local memory, work-group size, extensions...),\n"
		    "one 'key value' per line, and exit"),
		{.kind = OPT_HELP},
		OPT(OPT_TEXT, NULL, NULL, NULL,
		    "CSV files: values separated by commas, blanks around them and\n"
		    "double quotes allowed; blank lines, lines starting with #, CRLF\n"
		    "line ends and a byte order mark are fine.  Values are decimal\n"
		    "numbers ([+-]digits[.digits][e[+-]digits]); nan, inf and hex are\n"
		    "refused.  They are read at the precision of the kernel's type\n"
		    "(dd: the nearest double-double) and written with the digits to\n"
		    "read back the same: %.9g for float, %.17g for double, for dd 32\n"
		    "significant digits or the fewest more that suffice; a count (an\n"
		    "RMEM summing conditions) or a j index (argmin=, argmax=) as an\n"
		    "integer."),
		OPT(OPT_TEXT, NULL, NULL, NULL,
		    "--ranges files: one i-group a line, 'I0 I1: J0 J1, J0 J1, ...': the\n"
		    "i-elements [I0, I1) meet the j-elements of each range [J0, J1) (all\n"
		    "half-open, indices from 0 as rows count in the CSV files).  A group\n"
		    "may have no ranges, a range may be empty; i-groups must not overlap,\n"
		    "nor the ranges of one group; an i in no group gets the reduction's\n"
		    "identity.  Blank lines, # comments and CRLF line ends are fine."),
		OPT(OPT_TEXT, NULL, NULL, NULL,
		    "nbrun --jobs FILE runs each line of FILE as an nbrun command line\n"
		    "(its arguments, without 'nbrun'), one after the other in this one\n"
		    "process, so that the OpenCL compiler starts once for all of them.\n"
		    "Words are split and quoted as sh does: blanks between them, '...'\n"
		    "and \"...\" kept whole, a backslash keeping the next character; a\n"
		    "word >PATH or 2>PATH sends that job's standard output or error to\n"
		    "PATH (written once the job ends; a failed job's >PATH is left as\n"
		    "it was, and no input is overwritten), and words NAME=VALUE before\n"
		    "its first argument set NAME for that job alone; blank lines and #\n"
		    "comments are fine.  Every job runs; each failure is reported as\n"
		    "FILE:LINE, and the exit status is the worst."),
		OPT(OPT_COMPILER, NULL, NULL, &a->opt,
		    "Compiler options (for a .nbl KERNEL):", .seen = &a->optflag),
		{0},
	};
	int rc = opt_parse(&prog, t, argc, argv);
	if (rc != OPT_GO)
		return rc == OPT_DONE ? HELP : USAGE;
	a->tune = cli_tune(a->tune_on, a->budget);
	if (a->list || a->info)
		return 0;
	return check_args(a);
}

/* --- the device and the kernel ------------------------------------------ */

static int open_device(const Args *a, nbrt **rt)
{
	const char *spec = a->device;
	const char *t = a->opt.target;
	/* the back end of the target asked for, else of a generated
	 * kernel's (a C kernel runs nowhere but the host); OpenCL's devices
	 * are the user's to pick */
	const char *tg = t ? t : !spec ? nb_target_of_ext(a->kernel) : NULL;
	const char *own = NULL;
	if (tg && !nbrt_target_device(tg, &own, NULL) && own)
		spec = own;
	int nth = par_local_rank();
	if (nth < 0)
		return FAILED;
	char *err = NULL;
	*rt = nbrt_open_nth(spec, nth, &err);
	if (!*rt) {
		int r = fail(FAILED, "%s", err ? err : "cannot open a device");
		free(err);
		return r;
	}
	if (t && strcmp(t, nbrt_target(*rt)) != 0 && nbrt_is_host(*rt))
		return fail(FAILED, "--target opencl: no OpenCL device, only the "
		            "host (see --list-devices, --device, $NBRT_DEVICE)");
	return 0;
}

static int load(const Args *a, nbrt *rt, nbrt_kernel **k)
{
	int nbl = !nb_target_of_ext(a->kernel);
	if (!nbl && a->optflag && !par_rank())
		fprintf(stderr, "nbrun: warning: %s is ignored: %s is compiled "
		        "already\n", nb_esc(a->optflag), nb_esc(a->kernel));
	*k = nbrt_load(rt, a->kernel, &a->opt);
	if (!*k || (a->tune > 0 && nbrt_set_tune(*k, a->tune)) ||
	    nbrt_set_newton(*k, (nbrt_newton)a->newton))
		return fail(FAILED, "%s", nbrt_error(rt));
	if (a->tune > 0 && !nbl)
		fprintf(stderr, "nbrun: warning: --tune is ignored: %s is compiled "
		        "already\n", nb_esc(a->kernel));
	return 0;
}

/* --- CONSTs ------------------------------------------------------------- */

static void list_role(char *buf, size_t len, const nb_iface *f, nb_role r)
{
	size_t n = 0;
	buf[0] = 0;
	for (int v = 0; v < f->nvar && n < len; v++)
		if (f->var[v].role == r)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
			                      f->var[v].name);
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Which var[] the --const names; checks it is a CONST given once. */
static int const_var(const Args *a, const nb_iface *f, int c, int *var)
{
	const Const *k = &a->cst[c];
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)k->namelen, k->arg);
	int v = nb_iface_find(f, name);
	if (v < 0) {
		char all[512];
		list_role(all, sizeof all, f, NB_CONST);
		return fail(FAILED, "--const %s: kernel %s has no CONST '%s' "
		            "(its CONST: %s)", nb_esc(k->arg), f->kernel,
		            nb_esc(name), all);
	}
	if (f->var[v].role != NB_CONST)
		return fail(FAILED, "--const %s: '%s' is %s %s, not a CONST",
		            nb_esc(k->arg), nb_esc(name), f->var[v].role == NB_LMEM ? "an" : "a",
		            nb_role_name(f->var[v].role));
	for (int d = 0; d < c; d++)
		if (a->cst[d].namelen == k->namelen &&
		    !memcmp(a->cst[d].arg, k->arg, k->namelen))
			return fail(FAILED, "--const %s: CONST '%s' is given "
			            "twice (also --const %s)", nb_esc(k->arg),
			            nb_esc(name), nb_esc(a->cst[d].arg));
	*var = v;
	return 0;
}

static int set_given_consts(const Args *a, nbrt *rt, nbrt_kernel *k,
                            char *set)
{
	const nb_iface *f = nbrt_iface(k);
	for (int c = 0; c < a->ncst; c++) {
		int v = -1;
		if (const_var(a, f, c, &v))
			return FAILED;
		double x[2];
		const char *s = a->cst[c].value;
		csv_status st = csv_number(s, strlen(s), f->var[v].type, x);
		if (st != CSV_OK) {
			char m[160];
			csv_value_msg(m, sizeof m, st, s, strlen(s), f->var[v].type);
			return fail(FAILED, "--const %s: %s",
			            nb_esc(a->cst[c].arg), m);
		}
		if (nbrt_set_const(k, f->var[v].name, x[0], x[1]))
			return fail(FAILED, "%s", nbrt_error(rt));
		set[v] = 1;
	}
	return 0;
}

/* --- --map -------------------------------------------------------------- */

/* Each --map names an LMEM or BMEM of the kernel, once. */
static int check_maps(const Args *a, const nb_iface *f)
{
	for (int m = 0; m < a->nmap; m++) {
		const Map *p = &a->map[m];
		char pair[600];
		snprintf(pair, sizeof pair, "%s=%s", p->var, p->col);
		int v = nb_iface_find(f, p->var);
		if (v < 0) {
			char li[512], bj[512];
			list_role(li, sizeof li, f, NB_LMEM);
			list_role(bj, sizeof bj, f, NB_BMEM);
			return fail(FAILED, "--map %s: kernel %s has no variable "
			            "'%s' (its LMEM: %s; its BMEM: %s)", nb_esc(pair),
			            f->kernel, nb_esc(p->var), li, bj);
		}
		nb_role r = f->var[v].role;
		if (r == NB_CONST)
			return fail(FAILED, "--map %s: '%s' is a CONST, not a "
			            "column: give it with --const %s=VALUE",
			            nb_esc(pair), p->var, p->var);
		if (r != NB_LMEM && r != NB_BMEM)
			return fail(FAILED, "--map %s: '%s' is an RMEM, a result; "
			            "--map names the inputs read from files (LMEM "
			            "and BMEM)", nb_esc(pair), p->var);
		for (int d = 0; d < m; d++)
			if (!strcmp(a->map[d].var, p->var))
				return fail(FAILED, "--map %s: '%s' is mapped twice "
				            "(also --map %s=%s)", nb_esc(pair), p->var,
				            p->var, nb_esc(a->map[d].col));
	}
	return 0;
}

/* --- --cutoff and --ranges ----------------------------------------------- */

/* The CSV column a variable is read from: its --map, else its name. */
static const char *column_of(const Args *a, const char *var)
{
	for (int m = 0; m < a->nmap; m++)
		if (!strcmp(a->map[m].var, var))
			return a->map[m].col;
	return var;
}

/* name, one of --pos's names: an LMEM (before the ':') or BMEM of the
 * kernel, named once. */
static int check_pos_name(const Args *a, const nb_iface *f, const char *name,
                          nb_role want)
{
	const char *pos = nb_esc(a->pos_arg);
	char all[512];
	list_role(all, sizeof all, f, want);
	int v = nb_iface_find(f, name);
	if (v < 0)
		return fail(FAILED, "--pos %s: kernel %s has no %s '%s' (its %s: "
		            "%s)", pos, f->kernel, nb_role_name(want),
		            nb_esc(name), nb_role_name(want), all);
	nb_role r = f->var[v].role;
	if (r != want)
		return fail(FAILED, "--pos %s: '%s' is %s %s, not %s %s: the "
		            "names %s ':' are %s (its %s: %s)", pos, nb_esc(name),
		            r == NB_BMEM || r == NB_CONST ? "a" : "an",
		            nb_role_name(r), want == NB_LMEM ? "an" : "a",
		            nb_role_name(want), want == NB_LMEM ? "before" : "after",
		            nb_role_name(want), nb_role_name(want), all);
	int n = 0;
	for (int d = 0; d < a->dim; d++)
		n += !strcmp(a->ipos[d], name) + !strcmp(a->jpos[d], name);
	if (n > 1)
		return fail(FAILED, "--pos %s: '%s' is named twice: each axis has "
		            "its own column", pos, nb_esc(name));
	return 0;
}

/* --pos's names against the kernel; --self's columns. */
static int check_cutoff(const Args *a, const nb_iface *f)
{
	for (int d = 0; d < a->dim; d++)
		if (check_pos_name(a, f, a->ipos[d], NB_LMEM) ||
		    check_pos_name(a, f, a->jpos[d], NB_BMEM))
			return FAILED;
	for (int d = 0; a->self && d < a->dim; d++) {
		const char *ci = column_of(a, a->ipos[d]);
		const char *cj = column_of(a, a->jpos[d]);
		if (strcmp(ci, cj) != 0)
			return fail(FAILED, "--self: %s and %s are read from the "
			            "columns '%s' and '%s': with --self each --pos "
			            "pair reads one column of the --ij file (--map "
			            "%s=COL,%s=COL)", a->ipos[d], a->jpos[d],
			            nb_esc(ci), nb_esc(cj), a->ipos[d], a->jpos[d]);
	}
	return 0;
}

/* The --ranges file, checked against Ni and Nj. */
static int read_ranges(const Args *a, ranges_file *rf, size_t ni, size_t nj)
{
	if (par_size() > 1 && !strcmp(a->ranges, "-"))
		return fail(FAILED, "--ranges -: under MPI every rank reads the "
		            "file, and only rank 0 has standard input");
	char *err = NULL;
	if (!ranges_read(a->ranges, rf, &err) &&
	    !ranges_check(rf, ni, nj, &err))
		return 0;
	if (!par_rank())
		fputs(err, stderr);
	free(err);
	return FAILED;
}

static nbrt_cutoff make_cutoff(const Args *a)
{
	nbrt_cutoff c = {.cutoff = a->cutoff, .dim = a->dim};
	for (int d = 0; d < a->dim; d++) {
		c.ipos[d] = a->ipos[d];
		c.jpos[d] = a->jpos[d];
		c.period[d] = a->period[a->nperiod > 1 ? d : 0];
	}
	/* a rank runs a part of the i-elements against all of the j */
	c.self = a->self && par_size() == 1;
	return c;
}

/* The pairs every rank computed, summed. */
static double all_pairs(nbrt_kernel *k)
{
	int n = par_size();
	double *v = calloc((size_t)n, sizeof *v), sum = 0;
	if (!v)
		return -1;
	v[par_rank()] = nbrt_pairs(k);
	par_max(v, n);
	for (int r = 0; r < n; r++)
		sum += v[r];
	free(v);
	return sum;
}

/* The columns the maps name, in the sides' csv_col. */
static void apply_maps(const Args *a, Side *l, Side *b)
{
	for (int m = 0; m < a->nmap; m++)
		for (int c = 0; c < l->n + b->n; c++) {
			csv_col *x = c < l->n ? &l->col[c] : &b->col[c - l->n];
			if (!strcmp(x->name, a->map[m].var))
				x->src = a->map[m].col;
		}
}

/* --- random inputs ------------------------------------------------------ */

/* Two streams: rng gives every value's high part and rng_lo only dd low
 * parts, so one seed gives float, double and dd the same high parts
 * (float's rounded from double's) and precisions compare on equal inputs. */
static unsigned short rng[3], rng_lo[3];

static void seed_rng(unsigned long long s)
{
	rng[0] = (unsigned short)s;
	rng[1] = (unsigned short)(s >> 16);
	rng[2] = (unsigned short)((s >> 32) ^ (s >> 48));
	for (int k = 0; k < 3; k++)
		rng_lo[k] = rng[k] ^ 0x5a5a;
}

/* Uniform in (0,1) at the precision of t; a dd gets a random low part
 * below half an ulp of its high part, so it is a normalized dd.  Draws
 * that round to 0 or 1 in float are skipped in every precision, to keep
 * the streams in step. */
static void uniform(nb_prec t, double v[2])
{
	double u;
	do
		u = erand48(rng);
	while (u == 0 || (float)u == 0 || (float)u == 1);
	v[0] = t == NB_FLOAT ? (float)u : u;
	v[1] = 0;
	if (t == NB_DD) {
		double ulp = nextafter(u, 2) - u;
		v[1] = (erand48(rng_lo) - 0.5) * ulp;
	}
}

static void fill_random(csv_col *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v[2];
		uniform(c->type, v);
		if (c->type == NB_FLOAT)
			((float *)c->data)[i] = (float)v[0];
		else if (c->type == NB_DOUBLE)
			((double *)c->data)[i] = v[0];
		else {
			((double *)c->data)[2 * i] = v[0];
			((double *)c->data)[2 * i + 1] = v[1];
		}
	}
}

static unsigned long long clock_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long s = (unsigned long long)ts.tv_sec * 1000003u ^
	                       (unsigned long long)ts.tv_nsec ^
	                       (unsigned long long)getpid() << 20;
	return s & (((unsigned long long)1 << 48) - 1);
}

/* CONSTs --const left unset: random under --random, an error otherwise. */
static int other_consts(const Args *a, nbrt *rt, nbrt_kernel *k,
                        const char *set)
{
	const nb_iface *f = nbrt_iface(k);
	char missing[512] = "";
	size_t n = 0;
	int nmiss = 0;
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_CONST || set[v])
			continue;
		if (!a->random) {
			if (n < sizeof missing)
				n += (size_t)snprintf(missing + n, sizeof missing - n,
				                      "%s%s", n ? ", " : "",
				                      f->var[v].name);
			nmiss++;
			continue;
		}
		double x[2];
		uniform(f->var[v].type, x);
		if (nbrt_set_const(k, f->var[v].name, x[0], x[1]))
			return fail(FAILED, "%s", nbrt_error(rt));
		csv_buf b = {0};
		csv_put_value(&b, f->var[v].type, x[0], x[1]);
		fprintf(stderr, "nbrun: random --const %s=%s\n", f->var[v].name,
		        b.s);
		csv_buf_free(&b);
	}
	if (nmiss == 1)
		return fail(FAILED, "CONST %s is not set: give --const %s=VALUE",
		            missing, missing);
	if (nmiss)
		return fail(FAILED, "CONSTs %s are not set: give --const "
		            "NAME=VALUE for each", missing);
	return 0;
}

/* --- data --------------------------------------------------------------- */

static size_t esize(nb_prec t)
{
	return t == NB_FLOAT ? sizeof(float)
	                     : t == NB_DD ? 2 * sizeof(double) : sizeof(double);
}

static void side_init(Side *s, const nb_iface *f, nb_role r)
{
	s->n = 0;
	s->len = 0;
	s->col = calloc((size_t)f->nvar + 1, sizeof *s->col);
	if (!s->col) {
		fail(FAILED, "out of memory");
		exit(FAILED);
	}
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == r)
			s->col[s->n++] = (csv_col){f->var[v].name, f->var[v].type,
			                           NULL, NULL,
			                           r == NB_RMEM &&
			                           nb_red_integer(f->var[v].red)};
}

static void side_free(Side *s)
{
	for (int c = 0; s->col && c < s->n; c++)
		free(s->col[c].data);
	free(s->col);
	s->col = NULL;
}

/* Arrays of len elements for every column (zeroed). */
static int side_alloc(Side *s, size_t len)
{
	s->len = len;
	for (int c = 0; c < s->n; c++) {
		size_t es = esize(s->col[c].type);
		if (len > SIZE_MAX / es - 1 ||
		    !(s->col[c].data = calloc(len + 1, es)))
			return fail(FAILED, "out of memory for %zu elements", len);
	}
	return 0;
}

static int read_side(Side *s, const char *path, const char *flag,
                     const char *role, const nb_iface *f, int flags)
{
	if (s->n == 0)
		return fail(FAILED, "%s %s: kernel %s has no %s, so a file cannot "
		            "give the count; use --random NI,NJ", flag,
		            nb_esc(path), f->kernel, role);
	char *err = NULL;
	if (csv_read(path, s->col, s->n, role, flags, &s->len, &err)) {
		fputs(err, stderr);
		free(err);
		return FAILED;
	}
	return 0;
}

/* --ij: one read of the file gives both sides their columns, and its
 * rows are the i-elements and the j-elements. */
static int read_both(const Args *a, const nb_iface *f, Side *l, Side *b,
                     int flags)
{
	if (l->n + b->n == 0)
		return fail(FAILED, "--ij %s: kernel %s has neither LMEM nor BMEM, "
		            "so a file cannot give the count; use --random NI,NJ",
		            nb_esc(a->ijfile), f->kernel);
	Side both = {0};
	both.col = calloc((size_t)(l->n + b->n) + 1, sizeof *both.col);
	if (!both.col)
		return fail(FAILED, "out of memory");
	memcpy(both.col, l->col, sizeof *l->col * (size_t)l->n);
	memcpy(both.col + l->n, b->col, sizeof *b->col * (size_t)b->n);
	both.n = l->n + b->n;
	int rc = read_side(&both, a->ijfile, "--ij", "LMEM and BMEM", f,
	                   flags);
	if (!rc) {
		for (int c = 0; c < both.n; c++)
			if (c < l->n)
				l->col[c].data = both.col[c].data;
			else
				b->col[c - l->n].data = both.col[c].data;
		l->len = b->len = both.len;
	}
	free(both.col);
	return rc;
}

static int inputs(const Args *a, const nb_iface *f, Side *l, Side *b)
{
	int flags = a->nmap ? CSV_OTHER_COLUMNS : 0;
	apply_maps(a, l, b);
	if (a->ijfile)
		return read_both(a, f, l, b, flags);
	if (!a->random)
		return read_side(l, a->ifile, "--i", "LMEM", f, flags) ||
		       read_side(b, a->jfile, "--j", "BMEM", f, flags)
		               ? FAILED
		               : 0;
	if (side_alloc(l, a->rni) || side_alloc(b, a->rnj))
		return FAILED;
	for (int c = 0; c < l->n; c++)
		fill_random(&l->col[c], l->len);
	for (int c = 0; c < b->n; c++)
		fill_random(&b->col[c], b->len);
	return 0;
}

static nbrt_type host_type(nb_prec t)
{
	return t == NB_FLOAT ? NBRT_FLOAT : t == NB_DD ? NBRT_DD : NBRT_DOUBLE;
}

/* Binds s from its element `from` on (a rank's part of the i-range). */
static int bind_side(nbrt_kernel *k, const Side *s, nbrt *rt, size_t from)
{
	for (int c = 0; c < s->n; c++)
		if (nbrt_bind(k, s->col[c].name, host_type(s->col[c].type),
		              (char *)s->col[c].data +
		                      from * esize(s->col[c].type)))
			return fail(FAILED, "%s", nbrt_error(rt));
	return 0;
}

/* A warning when some results are inf or nan: they are written, but the
 * user should know (a softening of 0 with i = j, say). */
static void check_finite(const Side *r)
{
	size_t bad = 0, first = 0;
	const char *col = NULL;
	for (size_t i = 0; i < r->len; i++)
		for (int c = 0; c < r->n; c++) {
			const csv_col *x = &r->col[c];
			double v = x->type == NB_FLOAT ? ((float *)x->data)[i]
			         : x->type == NB_DOUBLE ? ((double *)x->data)[i]
			                                : ((double *)x->data)[2 * i];
			if (!isfinite(v) && !bad++) {
				first = i;
				col = x->name;
			}
		}
	if (bad)
		fprintf(stderr, "nbrun: warning: %zu result%s not finite (the "
		        "first: %s of i-element %zu)\n", bad,
		        bad == 1 ? " is" : "s are", col, first);
}

static int write_results(const Args *a, const Side *r)
{
	csv_buf b = {0};
	csv_write(&b, r->col, r->n, r->len);
	char err[512];
	int rc = nb_write_file(a->out ? a->out : "-", b.s, b.len, err,
	                       sizeof err);
	csv_buf_free(&b);
	if (rc)
		return fail(FAILED, "%s", err);
	return 0;
}

/* 1 when name is one of --grad's comma-separated names. */
static int grad_names(const char *grad, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = grad; p; p = strchr(p, ',')) {
		p += *p == ',';
		while (*p == ' ')
			p++;
		if (!strncmp(p, name, n) && strchr(", ", p[n]))
			return 1;
	}
	return 0;
}

/* --grad by a CONST c gives each result r the per-i column dr_dc; the
 * gradient of sum_i r[i] by c is that column's total, which the runtime
 * sums in dd (nbrt_sum) and this prints, the column staying in the CSV
 * (docs/autodiff.md, "Gradients").  A derived result's name is d, the
 * result's, _d and the CONST's (compiler/ad.c), and nbcc refuses one that
 * is declared already, so a name of that form whose parts are the
 * kernel's is a derived one. */
static void report_totals(const Args *a, const nb_iface *f, const Side *r)
{
	for (int c = 0; a->opt.grad && c < r->n; c++) {
		const csv_col *x = &r->col[c];
		size_t len = strlen(x->name);
		for (int v = 0; v < f->nvar; v++) {
			const char *cn = f->var[v].name;
			size_t cl = strlen(cn), rl;
			if (f->var[v].role != NB_CONST || len < cl + 4 ||
			    x->name[0] != 'd' || strcmp(x->name + len - cl, cn) ||
			    strncmp(x->name + len - cl - 2, "_d", 2) ||
			    !grad_names(a->opt.grad, cn))
				continue;
			rl = len - cl - 3;
			char res[256];
			if (rl >= sizeof res)
				continue;
			memcpy(res, x->name + 1, rl);
			res[rl] = 0;
			double s[2];
			if (nb_iface_find(f, res) < 0 ||
			    nbrt_sum(host_type(x->type), x->data, NULL, r->len, s))
				continue;
			char num[64];
			if (x->type == NB_DD)
				nb_dd_write(num, sizeof num, s[0], s[1]);
			else /* a float column's total to a float's digits */
				snprintf(num, sizeof num, x->type == NB_FLOAT ? "%.9g"
				         : "%.17g", s[0] + s[1]);
			fprintf(stderr, "total: %s = %s (the gradient of sum_i %s[i] "
			        "by CONST %s)\n", x->name, num, res, cn);
		}
	}
}

/* The longest text csv_put_value writes for a value of t, and its comma:
 * %.9g of a float, %.17g of a double, and for a dd 32 digits or a few
 * more (an estimate: a dd with a tiny low part takes many more). */
static double csv_width(nb_prec t)
{
	return t == NB_FLOAT ? 16 : t == NB_DOUBLE ? 25 : 44;
}

/* Everything a run of ni x nj will allocate, checked before it does:
 * the inputs (with_inputs: --random makes them; read ones exist already),
 * the results, their CSV text, and the runtime's copies and buffers. */
static int check_memory(const Args *a, nbrt *rt, nbrt_kernel *k,
                        const Side *l, const Side *b, const Side *r,
                        size_t ni, size_t nj, int with_inputs)
{
	double in = 0, res = 0, text = 0, extra = 0;
	for (int c = 0; with_inputs && c < l->n; c++)
		in += (double)(ni + 1) * (double)esize(l->col[c].type);
	for (int c = 0; with_inputs && c < b->n; c++)
		in += (double)(nj + 1) * (double)esize(b->col[c].type);
	for (int c = 0; c < r->n; c++) {
		res += (double)(ni + 1) * (double)esize(r->col[c].type);
		text += (double)ni * csv_width(r->col[c].type);
	}
	if (nbrt_run_memory(k, ni, nj, 1, &extra))
		return fail(FAILED, "%s", nbrt_error(rt));
	double need = in + res + text + extra, avail = nbrt_host_memory();
	if (need <= avail)
		return 0;
	char what[64], sn[32], si[32], sr[32], st[32], se[32], sa[32];
	if (a->random)
		snprintf(what, sizeof what, "--random %zu,%zu", ni, nj);
	else
		snprintf(what, sizeof what, "Ni = %zu, Nj = %zu", ni, nj);
	nbrt_format_bytes(sn, sizeof sn, need);
	nbrt_format_bytes(si, sizeof si, in);
	nbrt_format_bytes(sr, sizeof sr, res);
	nbrt_format_bytes(st, sizeof st, text);
	nbrt_format_bytes(se, sizeof se, extra);
	nbrt_format_bytes(sa, sizeof sa, avail);
	return fail(FAILED, "%s needs %s of memory (inputs %s, results %s, "
	            "their CSV text up to %s, the runtime %s), and %s is "
	            "available", what, sn, si, sr, st, se, sa);
}

/* Which variant ran: the interface of the last run (a j-split the
 * runtime chose shows there) and the device. */
static void report_variant(nbrt *rt, nbrt_kernel *k)
{
	const nb_iface *f = nbrt_iface(k);
	fprintf(stderr, "variant: kernel %s (%s), target %s, device %s, "
	        "unroll %d x %d, jsplit %d, flags %s", f->kernel,
	        nb_esc(f->source), f->target, nbrt_device_name(rt), f->unroll_i,
	        f->unroll_j, f->jsplit, nb_esc(f->flags));
	if (f->options && *f->options)
		fprintf(stderr, ", build options %s", nb_esc(f->options));
	fprintf(stderr, ", wg %d, tile %d, chosen by %s\n", f->wg, f->tile,
	        nbrt_variant_origin(k));
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* t[0..reps): the kernel time of each run.  One run: its time; more: the
 * median (of the middle two for an even count), then the spread.  pairs:
 * those computed by a run of --ranges or --cutoff, else < 0. */
static void report_time(double *t, int reps, size_t ni, size_t nj,
                        double pairs)
{
	qsort(t, (size_t)reps, sizeof *t, cmp_double);
	double med = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
	double n = (double)ni * (double)nj;
	fprintf(stderr, "time: %.6g s, interactions/s: %e", med,
	        med > 0 ? n / med : 0.0);
	if (pairs >= 0)
		fprintf(stderr, ", pairs: %.0f, pairs/s: %e", pairs,
		        med > 0 ? pairs / med : 0.0);
	if (reps > 1)
		fprintf(stderr, " (median of %d runs; min %.6g s, max %.6g s, "
		        "spread %.3g%%)", reps, t[0], t[reps - 1],
		        med > 0 ? 100 * (t[reps - 1] - t[0]) / med : 0.0);
	fputc('\n', stderr);
}

/* --tree's far kernel, loaded with the kernel's options, and the tree's
 * columns. */
static int load_far(const Args *a, nbrt *rt, const nb_iface *f,
                    nbrt_kernel **far, nbrt_tree *t)
{
	char *path = a->far ? NULL : tree_find_far(a->kernel);
	if (!a->far && !path)
		return FAILED;
	*far = nbrt_load(rt, a->far ? a->far : path, &a->opt);
	free(path);
	if (!*far)
		return fail(FAILED, "%s", nbrt_error(rt));
	return tree_columns(f, a->dim, a->ipos, a->jpos, t) ? FAILED : 0;
}

/* Which pairs run: all, the lists of --ranges (this rank's part), or
 * the cell lists of --cutoff. */
typedef struct Pairs {
	const nbrt_ranges *ranges;
	const nbrt_cutoff *cut;
	int self; /* without cut: a dense self run (nbrt_run_self) */
	const nbrt_tree *tree;
	nbrt_kernel *far;
} Pairs;

/* The run, R times under --repeat; the kernel times into t. */
static int run_timed(const Args *a, nbrt *rt, nbrt_kernel *k, size_t ni,
                     size_t nj, const Pairs *p, double *t)
{
	int reps = a->repeat ? a->repeat : 1;
	for (int r = 0; r < reps; r++) {
		int rc = p->ranges ? nbrt_run_ranges(k, ni, nj, p->ranges)
		       : p->cut ? nbrt_run_cutoff(k, ni, nj, p->cut)
		       : p->self ? nbrt_run_self(k, ni)
		       : p->tree ? nbrt_run_tree(k, p->far, ni, nj, p->tree)
		                 : nbrt_run(k, ni, nj);
		if (rc)
			return fail(FAILED, "%s", nbrt_error(rt));
		t[r] = nbrt_kernel_time(k);
	}
	return 0;
}

/* Under MPI, rank 0's inputs (read from files) to every rank; --random
 * makes the same ones everywhere from rank 0's seed. */
static int share_inputs(Side *l, Side *b)
{
	size_t len[2] = {l->len, b->len};
	par_bcast(len, sizeof len);
	int rc = 0;
	if (par_rank())
		rc = side_alloc(l, len[0]) || side_alloc(b, len[1]) ? FAILED : 0;
	if ((rc = par_agree(rc)))
		return rc;
	for (int c = 0; c < l->n; c++)
		par_bcast(l->col[c].data, l->len * esize(l->col[c].type));
	for (int c = 0; c < b->n; c++)
		par_bcast(b->col[c].data, b->len * esize(b->col[c].type));
	return 0;
}

/* Everything after the kernel is loaded.  Under MPI each rank runs its
 * part of the i-range and rank 0 gathers the results and writes them. */
static int run(const Args *a, nbrt *rt, nbrt_kernel *k)
{
	const nb_iface *f = nbrt_iface(k);
	char *set = calloc((size_t)f->nvar + 1, 1);
	double *t = calloc(a->repeat ? (size_t)a->repeat : 1, sizeof *t);
	Side l, b, r;
	side_init(&l, f, NB_LMEM);
	side_init(&b, f, NB_BMEM);
	side_init(&r, f, NB_RMEM);
	int rc = set && t ? 0 : fail(FAILED, "out of memory");
	if (!rc)
		rc = set_given_consts(a, rt, k, set);
	if (!rc)
		rc = check_maps(a, f);
	if (!rc && !a->tree)
		rc = check_cutoff(a, f);
	nbrt_kernel *far = NULL;
	struct nbrt_tree_stats st;
	nbrt_tree tree = {a->theta ? a->theta : 0.5, a->bucket ? (size_t)a->bucket
	                  : NBRT_TREE_BUCKET, a->group ? (size_t)a->group :
	                  NBRT_TREE_GROUP, .stats = &st};
	if (!rc && a->tree)
		rc = load_far(a, rt, f, &far, &tree);
	rc = par_agree(rc);
	if (!rc && a->random) {
		unsigned long long s = a->seeded ? a->seed : clock_seed();
		par_bcast(&s, sizeof s);
		seed_rng(s);
		if (!par_rank())
			fprintf(stderr, "nbrun: --random %zu,%zu --seed %llu\n",
			        a->rni, a->rnj, s);
	}
	if (!rc && a->random)
		rc = check_memory(a, rt, k, &l, &b, &r, a->rni, a->rnj, 1);
	if (!rc)
		rc = a->random || !par_rank() ? inputs(a, f, &l, &b) : 0;
	rc = par_agree(rc);
	if (!rc && !a->random)
		rc = share_inputs(&l, &b);
	if (!rc && !a->random)
		rc = check_memory(a, rt, k, &l, &b, &r, l.len, b.len, 0);
	ranges_file rf = {0};
	if (!rc && a->ranges)
		rc = read_ranges(a, &rf, l.len, b.len);
	if (!rc)
		rc = other_consts(a, rt, k, set);
	rc = par_agree(rc);
	if (!rc)
		rc = side_alloc(&r, l.len);
	if (!a->group)
		tree.group = nbrt_tree_group(l.len);
	size_t lo, hi;
	par_range(l.len, par_rank(), &lo, &hi);
	nbrt_ranges part;
	size_t *pgroup = NULL;
	nbrt_cutoff cut = make_cutoff(a);
	Pairs pairs = {NULL, a->cutoff_seen ? &cut : NULL, cut.self,
	               a->tree ? &tree : NULL, far};
	if (!rc && a->ranges) {
		if (ranges_part(&rf, lo, hi, &part, &pgroup))
			rc = fail(FAILED, "out of memory");
		pairs.ranges = &part;
	}
	if (!rc)
		rc = bind_side(k, &l, rt, lo) || bind_side(k, &b, rt, 0) ||
		     bind_side(k, &r, rt, lo) ? FAILED : 0;
	nbrt_show_progress(k, par_rank() ? NULL : "nbrun");
	if (!rc)
		rc = run_timed(a, rt, k, hi - lo, b.len, &pairs, t);
	double npairs = -1;
	if (!(rc = par_agree(rc))) {
		if (pairs.ranges || pairs.cut || pairs.self || pairs.tree)
			npairs = all_pairs(k);
		for (int c = 0; c < r.n; c++)
			par_gather(r.col[c].data, r.len, esize(r.col[c].type), 0);
		/* a run takes as long as its slowest rank */
		par_max(t, a->repeat ? a->repeat : 1);
	}
	if (!rc && !par_rank()) {
		check_finite(&r);
		rc = write_results(a, &r);
		if (!rc)
			report_totals(a, f, &r);
	}
	if (!rc && a->time && !par_rank()) {
		report_variant(rt, k);
		report_time(t, a->repeat ? a->repeat : 1, l.len, b.len, npairs);
		if (a->tree)
			tree_report(&st);
	}
	nbrt_free(far);
	side_free(&l);
	side_free(&b);
	side_free(&r);
	ranges_free(&rf);
	free(pgroup);
	free(set);
	free(t);
	return rc;
}

static int describe(nbrt *rt)
{
	if (par_size() == 1)
		return nbrt_describe(rt, stdout);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return fail(FAILED, "out of memory");
	int rc = nbrt_describe(rt, m);
	fclose(m);
	for (char *l = text, *e; l && *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l) - 1;
		printf("rank %d: %.*s\n", par_rank(), (int)(e - l), l);
	}
	free(text);
	return rc;
}

/* One nbrun command line. */
static int nbrun(int argc, char **argv)
{
	Args a;
	int rc = par_agree(parse_args(argc, argv, &a));
	if (rc) {
		free_args(&a);
		return rc == HELP ? 0 : rc;
	}
	if (a.list && par_rank()) {
		free_args(&a); /* one list, from rank 0 */
		return 0;
	}
	if (a.list) {
		int n = nbrt_list(stdout);
		free_args(&a);
		if (n < 0 || prog_flush_stdout())
			return FAILED;
		if (n == 0)
			fprintf(stderr, "nbrun: no OpenCL device (--target c runs "
			        "on the host)\n");
		return 0;
	}
	nbrt *rt = NULL;
	nbrt_kernel *k = NULL;
	if (a.info) {
		char *err = NULL;
		/* under MPI, each rank's device, its lines after "rank R: " */
		int nth = par_local_rank();
		rt = nth < 0 ? NULL : nbrt_open_nth(a.device, nth, &err);
		rc = rt ? describe(rt) || prog_flush_stdout() : nth < 0 ? FAILED :
		     fail(FAILED, "%s", err ? err : "cannot open a device");
		free(err);
		nbrt_close(rt);
		free_args(&a);
		return rc;
	}
	rc = par_agree(open_device(&a, &rt));
	if (!rc)
		rc = par_agree(load(&a, rt, &k));
	if (!rc)
		rc = run(&a, rt, k);
	nbrt_free(k);
	nbrt_close(rt);
	free_args(&a);
	return rc;
}

/* --- --jobs FILE --------------------------------------------------------- */

/* A job's messages name its line: "nbrun: FILE:LINE: error: MSG". */
static char job_at[512];

static void job_sink(const char *msg)
{
	fprintf(stderr, "nbrun: %s: error: %s\n", job_at, msg);
}

/* A job's >PATH or 2>PATH: the descriptor's old self and the output that
 * stands in for it.  The output goes through nb_out, so that PATH is
 * replaced only once the job has ended (a job reading PATH as its input
 * reads it whole, and an input is never replaced), and a failed job's
 * standard output leaves what PATH held as it was; its messages (2>PATH)
 * are kept whatever the job did, since they say why it failed. */
typedef struct Redir {
	int fd, saved; /* saved: dup of fd, -1 when nothing is redirected */
	int kept;      /* a file's output dropped: PATH left as it was */
	nb_out o;
	struct stat was; /* PATH before the job (was.st_nlink 0: none) */
} Redir;

/* Whether the file at o's path is no longer the one `was` describes: the
 * job wrote it itself (-o PATH >PATH). */
static int rewritten(const Redir *r)
{
	struct stat now;
	int have = stat(r->o.path, &now) == 0;
	if (!have || !r->was.st_nlink)
		return have != (r->was.st_nlink != 0);
	return now.st_dev != r->was.st_dev || now.st_ino != r->was.st_ino ||
	       now.st_size != r->was.st_size ||
	       now.st_mtim.tv_sec != r->was.st_mtim.tv_sec ||
	       now.st_mtim.tv_nsec != r->was.st_mtim.tv_nsec;
}

/* Points descriptor fd (1 or 2) at path for one job. */
static int redirect(Redir *r, int fd, const char *path)
{
	r->fd = fd;
	r->saved = -1;
	r->kept = 0;
	if (!path)
		return 0;
	char err[512];
	/* sh's >- is a file named "-", not standard output */
	const char *p = strcmp(path, "-") ? path : "./-";
	if (nb_out_open(&r->o, p, 0, err, sizeof err))
		return fail(FAILED, "%s", err);
	if (!r->o.path || stat(r->o.path, &r->was))
		r->was.st_nlink = 0;
	fflush(fd == 1 ? stdout : stderr);
	r->saved = dup(fd);
	if (r->saved < 0 || dup2(fileno(r->o.f), fd) < 0) {
		int e = errno;
		if (r->saved >= 0)
			close(r->saved);
		r->saved = -1;
		nb_out_abort(&r->o);
		return fail(FAILED, "%s: %s", nb_esc(path), strerror(e));
	}
	return 0;
}

/* The descriptor back, and the job's output made PATH (keep) or dropped;
 * returns 0, or FAILED with the message where PATH could not be written. */
static int restore(Redir *r, int keep)
{
	if (r->saved < 0)
		return 0;
	fflush(r->fd == 1 ? stdout : stderr);
	dup2(r->saved, r->fd);
	close(r->saved);
	r->saved = -1;
	if (!keep) {
		r->kept = r->o.path != NULL; /* not a device written straight */
		nb_out_abort(&r->o);
		return 0;
	}
	/* the job wrote PATH itself (as sh's -o PATH >PATH leaves it, the
	 * job's file): its standard output goes nowhere, a failure only where
	 * there was some */
	struct stat st;
	if (r->o.path && rewritten(r)) {
		int some = fstat(fileno(r->o.f), &st) || st.st_size > 0;
		int rc = some ? fail(FAILED, "%s was written by the job itself: "
		                     "its standard output not written there",
		                     nb_esc(r->o.name)) : 0;
		nb_out_abort(&r->o);
		return rc;
	}
	char err[512];
	return nb_out_commit(&r->o, err, sizeof err) ? fail(FAILED, "%s", err)
	                                             : 0;
}

/* Sets (on) or restores (!on) a job's NAME=VALUE words; old[] keeps
 * what each NAME was (NULL: unset).  Restored in the reverse order, so
 * that a NAME given twice ends as it began. */
static int job_env(const job *j, char **old, int on)
{
	int rc = 0;
	for (int e = on ? 0 : j->nenv - 1; on ? e < j->nenv : e >= 0;
	     e += on ? 1 : -1) {
		char *eq = strchr(j->env[e], '=');
		*eq = 0;
		if (on) {
			const char *v = getenv(j->env[e]);
			old[e] = v ? strdup(v) : NULL;
			if ((v && !old[e]) || setenv(j->env[e], eq + 1, 1))
				rc = fail(FAILED, "cannot set %s", j->env[e]);
		} else {
			if (old[e])
				setenv(j->env[e], old[e], 1);
			else
				unsetenv(j->env[e]);
			free(old[e]);
		}
		*eq = '=';
	}
	return rc;
}

/* Each line of path an nbrun command line, run here in turn: a process
 * pays the OpenCL compiler's start (LLVM, PoCL's kernel library) once
 * for all of them.  Every job runs whatever the others did; each
 * failure is named by its line, and the exit status is the worst. */
static int run_jobs(const char *path)
{
	if (par_size() > 1)
		return fail(USAGE, "--jobs runs in one process, not under MPI");
	job *jobs;
	int n, worst = 0;
	char *err = NULL;
	/* the file of jobs is an input too: no job's output replaces it */
	nb_in_guard();
	if (jobs_read(path, &jobs, &n, &err)) {
		fputs(err, stderr);
		free(err);
		return USAGE;
	}
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	stdin_jobs = !strcmp(path, "-");
	for (int i = 0; i < n; i++) {
		snprintf(job_at, sizeof job_at, "%s:%d", name, jobs[i].line);
		prog_sink = job_sink;
		char **old = calloc((size_t)jobs[i].nenv + 1, sizeof *old);
		Redir so = {.saved = -1}, se = {.saved = -1};
		int rc = redirect(&so, 1, jobs[i].out);
		if (!rc)
			rc = redirect(&se, 2, jobs[i].err);
		if (!rc)
			rc = old ? job_env(&jobs[i], old, 1) : fail(FAILED, "out of "
			                                            "memory");
		if (!rc)
			rc = nbrun(jobs[i].argc, jobs[i].argv);
		if (old)
			job_env(&jobs[i], old, 0);
		free(old);
		/* its messages first: the job's line names where they are */
		int re = restore(&se, 1), ro = restore(&so, !rc);
		rc = rc ? rc : ro ? ro : re;
		prog_sink = NULL;
		if (rc)
			fprintf(stderr, "nbrun: %s:%d: error: the job failed (exit "
			        "status %d)%s%s%s%s\n", name, jobs[i].line, rc,
			        jobs[i].err ? ", its messages in " : "",
			        jobs[i].err ? nb_esc(jobs[i].err) : "",
			        so.kept ? "; its output not written to " : "",
			        so.kept ? nb_esc(jobs[i].out) : "");
		worst = rc > worst ? rc : worst;
	}
	jobs_free(jobs, n);
	return worst;
}

int main(int argc, char **argv)
{
	prog_name = "nbrun";
	if (par_init(argc, argv))
		return par_end(FAILED);
	if (argc > 1 && !strcmp(argv[1], "--jobs")) {
		if (argc != 3)
			return par_end(fail(USAGE, "--jobs FILE takes nothing else: "
			                    "each line of FILE is a command line"));
		return par_end(run_jobs(argv[2]));
	}
	return par_end(nbrun(argc, argv));
}
