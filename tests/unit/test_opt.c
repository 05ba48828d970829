/* test_opt.c: the programs' command-line parser (apps/common/opt.c).  A
 * table of a made-up program has a row of every kind; each case is a
 * command line, what opt_parse returns, and the message it gives or the
 * values it leaves (those that differ from the defaults): every value
 * kind, "--flag V" and "--flag=V", missing, empty and out-of-range values,
 * unknown flags, the compiler's flags, arguments that are not flags; then
 * --help from the table. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "opt.h"
#include "prog.h"
#include "unit.h"

typedef struct vals {
	int set;
	const char *alias, *str, *call, *first, *seen_int, *seen_cc, *seen_t;
	long in, any, size[2];
	unsigned long long u64;
	double above, unit, real;
	int pick;
	nb_options o;
} vals;

/* OPT_CALL: NAME=VALUE; OPT_ARG's call: a count */
static int pair(void *to, const char *flag, const char *v)
{
	if (!strchr(v, '='))
		return opt_bad(flag, v, "NAME=VALUE");
	*(const char **)to = v;
	return 0;
}

static int count(void *to, const char *flag, const char *v)
{
	long *n = to;
	if (opt_long(v, strlen(v), n) || *n < 0)
		return opt_bad(flag, v, "a count");
	return 0;
}

static const opt_prog prog = {
	"t", "[options] FIRST [N]", "A made-up program: every kind of row.", 1,
};

static vals v;
static const opt table[] = {
	OPT(OPT_ARG, "first argument", "FIRST", &v.first, "the first"),
	OPT(OPT_ARG, "count", "N", v.size, "a count", .call = count),
	OPT(OPT_SET, "--set", NULL, &v.set, "a switch"),
	OPT(OPT_ALIAS, "--alias", NULL, &v.alias, "same as --str=word",
	    .words = "word"),
	OPT(OPT_STR, "--str", "S", &v.str, "a string"),
	OPT(OPT_STR, "-o", "FILE", &v.str, "a short name"),
	OPT(OPT_INT, "--int", "N", &v.in, "an integer\nfrom 1 to 10", .lo = 1,
	    .hi = 10, .seen = &v.seen_int),
	OPT(OPT_INT, "--any", "N", &v.any, "any integer"),
	OPT(OPT_U64, "--u64", "S", &v.u64, "a seed"),
	OPT(OPT_REAL, "--above", "X", &v.above, "above 0", .lo = 0,
	    .hi = HUGE_VAL, .open = OPT_ABOVE),
	OPT(OPT_REAL, "--unit", "X", &v.unit, "in (0, 1]", .lo = 0, .hi = 1,
	    .open = OPT_ABOVE),
	OPT(OPT_REAL, "--real", "X", &v.real, "any number"),
	OPT(OPT_CHOICE, "--pick", "P", &v.pick, "a, b or c", .words = "a|b|c"),
	OPT(OPT_CALL, "--call", "NAME=V", &v.call, "a pair", .call = pair),
	OPT(OPT_STR, "--a-very-long-flag", "VALUE", &v.str,
	    "its text on the next line"),
	OPT(OPT_COMPILER, "--target", "T", &v.o, "the target, shown here",
	    .seen = &v.seen_t),
	{.kind = OPT_HELP},
	OPT(OPT_TEXT, NULL, NULL, NULL, "A paragraph."),
	OPT(OPT_COMPILER, NULL, NULL, &v.o, "Compiler options:",
	    .seen = &v.seen_cc),
	{0},
};

/* the messages prog_fail gives, one a line */
static char msgs[1024];
static void keep(const char *m)
{
	size_t n = strlen(msgs);
	snprintf(msgs + n, sizeof msgs - n, "%s\n", m);
}

/* The values that differ from the defaults, "name=value" each. */
static void show(char *buf, size_t len)
{
	nb_options d;
	nb_options_init(&d);
	size_t n = 0;
	buf[0] = 0;
#define SHOW(cond, ...)                                                   \
	if ((cond) && n < len)                                            \
		n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__)
	SHOW(v.first, "first=%s ", v.first);
	SHOW(v.size[0], "count=%ld ", v.size[0]);
	SHOW(v.set, "set=%d ", v.set);
	SHOW(v.alias, "alias=%s ", v.alias);
	SHOW(v.str, "str=%s ", v.str);
	SHOW(v.in, "int=%ld ", v.in);
	SHOW(v.seen_int, "seen=%s ", v.seen_int);
	SHOW(v.any, "any=%ld ", v.any);
	SHOW(v.u64, "u64=%llu ", v.u64);
	SHOW(v.above != 0, "above=%g ", v.above);
	SHOW(v.unit != 0, "unit=%g ", v.unit);
	SHOW(v.real != 0, "real=%g ", v.real);
	SHOW(v.pick, "pick=%d ", v.pick);
	SHOW(v.call, "call=%s ", v.call);
	SHOW(v.o.unroll_i != d.unroll_i, "unroll_i=%d ", v.o.unroll_i);
	SHOW(v.o.fast_math, "fast_math ");
	SHOW(v.o.target, "target=%s ", v.o.target);
	SHOW(v.seen_t, "seen_t=%s ", v.seen_t);
	SHOW(v.seen_cc, "seen_cc=%s ", v.seen_cc);
#undef SHOW
	if (n && buf[n - 1] == ' ')
		buf[n - 1] = 0;
}

/* A command line, blanks between its arguments ("''" is an empty one, '_'
 * a blank within one);
 * what opt_parse returns; its messages, or the values it read. */
static const struct {
	const char *args;
	int rc;
	const char *want;
} cases[] = {
	{"", OPT_GO, ""},
	/* the two syntaxes of a value, and none */
	{"--int 5", OPT_GO, "int=5 seen=--int"},
	{"--int=5", OPT_GO, "int=5 seen=--int"},
	{"--str -1", OPT_GO, "str=-1"},
	{"--str=a=b", OPT_GO, "str=a=b"},
	{"-o f.csv", OPT_GO, "str=f.csv"},
	{"-o=f.csv", OPT_GO, "str=f.csv"},
	{"--int", OPT_BAD, "--int needs a value\n"},
	{"--int=", OPT_BAD, "--int needs a value\n"},
	{"--str ''", OPT_BAD, "--str needs a value\n"},
	{"-o", OPT_BAD, "-o needs a value\n"},
	/* integers */
	{"--int 1 --int 10", OPT_GO, "int=10 seen=--int"},
	{"--int +7", OPT_GO, "int=7 seen=--int"},
	{"--int 0", OPT_BAD,
	 "bad value '0' for --int: expected an integer from 1 to 10\n"},
	{"--int 11", OPT_BAD,
	 "bad value '11' for --int: expected an integer from 1 to 10\n"},
	{"--int 5x", OPT_BAD,
	 "bad value '5x' for --int: expected an integer from 1 to 10\n"},
	{"--int _5", OPT_BAD,
	 "bad value ' 5' for --int: expected an integer from 1 to 10\n"},
	{"--int 0x5", OPT_BAD,
	 "bad value '0x5' for --int: expected an integer from 1 to 10\n"},
	{"--any -9223372036854775808", OPT_GO, "any=-9223372036854775808"},
	{"--any 9223372036854775808", OPT_BAD,
	 "bad value '9223372036854775808' for --any: expected an integer\n"},
	{"--any -", OPT_BAD, "bad value '-' for --any: expected an integer\n"},
	{"--u64 18446744073709551615", OPT_GO, "u64=18446744073709551615"},
	{"--u64 18446744073709551616", OPT_BAD,
	 "bad value '18446744073709551616' for --u64: expected an integer "
	 "from 0 to 18446744073709551615\n"},
	{"--u64 -1", OPT_BAD, "bad value '-1' for --u64: expected an integer "
	 "from 0 to 18446744073709551615\n"},
	/* numbers, and ratios A/B */
	{"--above 0.25", OPT_GO, "above=0.25"},
	{"--above 1/256", OPT_GO, "above=0.00390625"},
	{"--above=2e-3", OPT_GO, "above=0.002"},
	{"--above 0", OPT_BAD,
	 "bad value '0' for --above: expected a number above 0\n"},
	{"--above nan", OPT_BAD,
	 "bad value 'nan' for --above: expected a number above 0\n"},
	{"--above inf", OPT_BAD,
	 "bad value 'inf' for --above: expected a number above 0\n"},
	{"--above 1/0", OPT_BAD,
	 "bad value '1/0' for --above: expected a number above 0\n"},
	{"--above 1e999", OPT_BAD,
	 "bad value '1e999' for --above: expected a number above 0, and within "
	 "a double's normal range (2.22507e-308 to 1.79769e+308)\n"},
	/* positive, but a subnormal: was told "a number above 0" */
	{"--above 1e-310", OPT_BAD,
	 "bad value '1e-310' for --above: expected a number above 0, and within "
	 "a double's normal range (2.22507e-308 to 1.79769e+308)\n"},
	{"--above 1/1e308", OPT_BAD,
	 "bad value '1/1e308' for --above: expected a number above 0, and within "
	 "a double's normal range (2.22507e-308 to 1.79769e+308)\n"},
	{"--above _1", OPT_BAD,
	 "bad value ' 1' for --above: expected a number above 0\n"},
	{"--unit 1", OPT_GO, "unit=1"},
	{"--unit 1.5", OPT_BAD,
	 "bad value '1.5' for --unit: expected a number in (0, 1]\n"},
	{"--real -3.5e2", OPT_GO, "real=-350"},
	{"--real 2/-4", OPT_GO, "real=-0.5"},
	{"--real x", OPT_BAD, "bad value 'x' for --real: expected a number\n"},
	/* choices, calls, switches */
	{"--pick c", OPT_GO, "pick=2"},
	{"--pick=a", OPT_GO, ""},
	{"--pick d", OPT_BAD, "bad value 'd' for --pick: expected a, b or c\n"},
	{"--call x=1", OPT_GO, "call=x=1"},
	{"--call x", OPT_BAD, "bad value 'x' for --call: expected NAME=VALUE\n"},
	{"--set", OPT_GO, "set=1"},
	{"--set=1", OPT_BAD, "unknown option '--set=1' (see t --help)\n"},
	{"--alias", OPT_GO, "alias=word"},
	/* unknown flags: no prefix of a flag is one */
	{"--bogus", OPT_BAD, "unknown option '--bogus' (see t --help)\n"},
	{"--in 5", OPT_BAD, "unknown option '--in' (see t --help)\n"},
	{"--int5", OPT_BAD, "unknown option '--int5' (see t --help)\n"},
	{"-x\033", OPT_BAD, "unknown option '-x\\x1b' (see t --help)\n"},
	/* the compiler's flags, and one of them in a row of its own */
	{"--unroll-i 4", OPT_GO, "unroll_i=4 seen_cc=--unroll-i"},
	{"--unroll-i=4", OPT_GO, "unroll_i=4 seen_cc=--unroll-i=4"},
	{"--fast-math --unroll-i 2", OPT_GO,
	 "unroll_i=2 fast_math seen_cc=--unroll-i"},
	{"--unroll-i", OPT_BAD, "--unroll-i needs a value\n"},
	{"--unroll-i=", OPT_BAD, "--unroll-i needs a value\n"},
	{"--unroll-i 0", OPT_BAD,
	 "bad value '0' for --unroll-i: expected an integer from 1 to 64\n"},
	{"--fast-math=1", OPT_BAD,
	 "unknown option '--fast-math=1' (see t --help)\n"},
	{"--target c --unroll-i 2", OPT_GO,
	 "unroll_i=2 target=c seen_t=--target seen_cc=--unroll-i"},
	{"--target=opencl", OPT_GO, "target=opencl seen_t=--target"},
	{"--target", OPT_BAD, "--target needs a value\n"},
	{"--target x", OPT_BAD, "bad value 'x' for --target: expected opencl, "
	 "c or amdil\n"},
	/* arguments that are not flags, in order */
	{"k.nbl", OPT_GO, "first=k.nbl"},
	{"- 12", OPT_GO, "first=- count=12"},
	{"k.nbl --int 3 12", OPT_GO, "first=k.nbl count=12 int=3 seen=--int"},
	{"k.nbl x", OPT_BAD, "bad value 'x' for count: expected a count\n"},
	{"a 1 b", OPT_BAD, "more than one count ('1' and 'b')\n"},
	/* the first bad flag ends the reading */
	{"--int 0 --bogus", OPT_BAD,
	 "bad value '0' for --int: expected an integer from 1 to 10\n"},
};

START_TEST(parse)
{
	char *argv[16], buf[256], got[512];
	snprintf(buf, sizeof buf, "%s", cases[_i].args);
	int argc = 0;
	argv[argc++] = "t";
	for (char *a = strtok(buf, " "); a && argc < 15; a = strtok(NULL, " ")) {
		for (char *c = a; *c; c++)
			if (*c == '_')
				*c = ' ';
		argv[argc++] = strcmp(a, "''") == 0 ? "" : a;
	}
	argv[argc] = NULL;
	memset(&v, 0, sizeof v);
	nb_options_init(&v.o);
	msgs[0] = 0;
	prog_sink = keep;
	int rc = opt_parse(&prog, table, argc, argv);
	ck_assert_str_eq(prog_name, "t");
	ck_assert_msg(rc == cases[_i].rc, "%s: returned %d, not %d",
	              cases[_i].args, rc, cases[_i].rc);
	if (rc == OPT_BAD) {
		ck_assert_str_eq(msgs, cases[_i].want);
	} else {
		ck_assert_str_eq(msgs, "");
		show(got, sizeof got);
		ck_assert_str_eq(got, cases[_i].want);
	}
}
END_TEST

/* --help: usage, the lead, the rows with their text from column 21 (on
 * the next line for a long term), the paragraph, the compiler's flags. */
START_TEST(help)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	opt_help(&prog, table, f);
	fclose(f);
	static const char want[] =
		"usage: t [options] FIRST [N]\n"
		"A made-up program: every kind of row.\n"
		"\n"
		"  FIRST              the first\n"
		"  N                  a count\n"
		"  --set              a switch\n"
		"  --alias            same as --str=word\n"
		"  --str S            a string\n"
		"  -o FILE            a short name\n"
		"  --int N            an integer\n"
		"                     from 1 to 10\n"
		"  --any N            any integer\n"
		"  --u64 S            a seed\n"
		"  --above X          above 0\n"
		"  --unit X           in (0, 1]\n"
		"  --real X           any number\n"
		"  --pick P           a, b or c\n"
		"  --call NAME=V      a pair\n"
		"  --a-very-long-flag VALUE\n"
		"                     its text on the next line\n"
		"  --target T         the target, shown here\n"
		"  --help, --version\n"
		"\n"
		"A paragraph.\n"
		"\n"
		"Compiler options:\n"
		"  --precision=P      float, double or dd: type of untyped "
		"declarations\n";
	ck_assert_msg(len > sizeof want && !memcmp(text, want, sizeof want - 1),
	              "got:\n%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\n  --name=K           kernel "
	                                   "function name"));
	free(text);
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc = unit_case(&s, "opt", 0);
	tcase_add_loop_test(tc, parse, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, help);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
