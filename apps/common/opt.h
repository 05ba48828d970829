/* opt.h: the command line of every program (nbcc, nbrun, nbody, oneloop,
 * nbbench, ilrun) from one table of its flags: one parser, one syntax for
 * values, one set of rules and messages, and --help printed from the same
 * table (scripts/man.sh turns --help into the manual pages). */
#ifndef OPT_H
#define OPT_H

#include <stdint.h>
#include <stdio.h>

/* What a row is, and where its value goes (`to`).  A flag's value is
 * "--flag V" (the next argument, whatever it is) or "--flag=V"; an empty
 * or absent one is "FLAG needs a value". */
typedef enum {
	OPT_END,      /* ends the table */
	OPT_SET,      /* a flag without a value: *(int *)to = 1 */
	OPT_ALIAS,    /* a flag without a value that stands for another's
	                 value: *(const char **)to = words (--stats) */
	OPT_STR,      /* *(const char **)to = the value */
	OPT_INT,      /* *(long *)to: [+-]digits, from lo to hi (both 0: any) */
	OPT_U64,      /* *(unsigned long long *)to: digits, 0 to 2^64 - 1 */
	OPT_REAL,     /* *(double *)to: a number as strtod reads it (no blanks)
	                 or a ratio A/B, finite, from lo to hi (OPT_ABOVE:
	                 above lo; both 0: any) */
	OPT_CHOICE,   /* *(int *)to = the index of the value among `words` */
	OPT_CALL,     /* call(to, flag, value) checks the value and keeps it */
	OPT_COMPILER, /* the compiler's flags (nbcc.h's nb_options_parse) into
	                 *(nb_options *)to, shown under the heading `help`;
	                 with a name, that compiler flag alone, shown in this
	                 row with this row's help */
	OPT_ARG,      /* an argument that is not a flag, the next such row each:
	                 *(const char **)to, or call(to, name, value); `name`
	                 is its noun in messages ("kernel"), `meta` in help */
	OPT_HELP,     /* the --help (-h) row, and --version where the program
	                 has one */
	OPT_TEXT,     /* no flag: the paragraph `help` at this place in --help */
} opt_kind;

enum { OPT_ABOVE = 1 }; /* opt.open: lo itself is refused */

typedef struct opt {
	opt_kind kind;
	const char *name; /* "--steps", "-n" */
	const char *meta; /* the value in --help ("N"; "=WHAT" joins it) */
	void *to;
	/* the --help text, its lines joined by '\n', the first beside the
	 * flag where the flag leaves room; NULL: the row is not shown */
	const char *help;
	double lo, hi;     /* OPT_INT, OPT_REAL */
	int open;          /* OPT_REAL: OPT_ABOVE */
	const char *words; /* OPT_CHOICE: "leapfrog|hermite" */
	int (*call)(void *to, const char *flag, const char *value);
	/* set to the flag as given (its name, or the argument of a compiler
	 * flag), each time it is given; may be NULL */
	const char **seen;
} opt;

/* A row, its other fields by name:
 *   OPT(OPT_INT, "--steps", "K", &a->steps, "number of steps", .hi = 1e9)
 * and {.kind = OPT_HELP}; a table ends with {0}. */
#define OPT(k, n, m, t, h, ...)                                         \
	{.kind = (k), .name = (n), .meta = (m), .to = (t), .help = (h),  \
	 __VA_ARGS__}

typedef struct opt_prog {
	const char *name;  /* "nbrun": prog_name, the messages, --version */
	const char *usage; /* the synopsis after "usage: ", lines by '\n' */
	const char *about; /* the lead paragraph of --help */
	int version;       /* takes --version: "nbrun (nbcc) 0.1.0" */
} opt_prog;

enum { OPT_GO, OPT_DONE, OPT_BAD };

/* Sets prog_name and reads argv into the table's places; after "--"
 * every argument is an operand (a kernel or a file named "-k.nbl").  Returns OPT_GO;
 * OPT_DONE after --help or --version (printed on stdout); OPT_BAD after
 * the message (prog_fail), for the program to exit with its own status. */
int opt_parse(const opt_prog *p, const opt *t, int argc, char **argv);

/* --help: the usage lines, the lead paragraph, then the table's rows. */
void opt_help(const opt_prog *p, const opt *t, FILE *f);
/* The usage lines alone ("usage: ..."), for a command line that lacks
 * what the program needs. */
void opt_usage(const opt_prog *p, FILE *f);

/* For OPT_CALL and OPT_ARG functions, the rules of OPT_INT and OPT_REAL:
 * the integer or number in v[0..n), or -1 (no message); opt_real -2 for
 * a number beyond a double's normal range (1e400, 1e-308). */
int opt_long(const char *v, size_t n, long *out);
int opt_real(const char *v, size_t n, double *out);
/* The rule of OPT_U64, decimal digits only (no sign, no blanks), 0 to
 * 2^64 - 1: the one reader of such values, nbody's files' IDs, steps and
 * seeds (snap.c) too. */
int opt_u64(const char *v, size_t n, uint64_t *out);
/* "bad value 'V' for FLAG: expected WHAT": returns 1. */
int opt_bad(const char *flag, const char *v, const char *what, ...)
	__attribute__((format(printf, 3, 4)));

#endif
