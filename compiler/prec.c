/* prec.c: the precision table.  One row per precision says how it is
 * named, spelled in generated code, read, folded and sized; the stages
 * index it by type instead of each keeping its own switch. */
#include <float.h>
#include <stdio.h>
#include <string.h>
#include "base.h"

const Prec prec[NPREC] = {
	[NB_FLOAT] = {
		.name = "float", .ir = "f32", .ctype = "float", .scalar = "float",
		.clelem = "float", .tag = "f", .zero = "0", .litfmt = "%.9g",
		.litsfx = "f", .litcast = "", .mathsfx = "f", .rank = 0,
		.scalars = 1, .words = 1, .fuses = 1, .reorder = 1, .ftz = 1,
		.approx = 1,
		.max = FLT_MAX, .min_normal = FLT_MIN, .true_min = FLT_TRUE_MIN,
		.unit = 0x1p-24,
		.read = read_f32, .eval = eval_f32,
	},
	[NB_DOUBLE] = {
		.name = "double", .ir = "f64", .ctype = "double",
		.scalar = "double", .clelem = "double", .tag = "d", .zero = "0",
		.litfmt = "%.17g", .litsfx = "", .litcast = "(double)",
		.mathsfx = "", .rank = 1, .scalars = 1, .words = 2, .fuses = 1,
		.max = DBL_MAX, .min_normal = DBL_MIN, .true_min = DBL_TRUE_MIN,
		.unit = 0x1p-53, .read = read_f64, .eval = eval_f64,
	},
	/* a pair of doubles (ddlib.h): its own operations are library calls */
	[NB_DD] = {
		.name = "dd", .ir = "dd", .ctype = "nb_dd", .scalar = "double",
		.clelem = "double2", .tag = "dd", .zero = "nb_dd_make(0.0, 0.0)",
		.litfmt = "%.17g", .litsfx = "", .litcast = "(double)",
		.mathsfx = "", .rank = 2, .scalars = 2, .words = 4, .eft = 1,
		.max = DBL_MAX, .min_normal = DBL_MIN, .true_min = DBL_TRUE_MIN,
		.unit = 0x1p-104, .read = read_dd, .eval = eval_dd,
	},
};

nb_prec prec_join(nb_prec a, nb_prec b)
{
	return prec[a].rank >= prec[b].rank ? a : b;
}

int prec_find(const char *s)
{
	for (int p = 0; p < NPREC; p++)
		if (strcmp(prec[p].name, s) == 0)
			return p;
	return -1;
}

const char *prec_names(char *s, size_t n)
{
	size_t len = 0;
	for (int p = 0; p < NPREC && len < n; p++)
		len += (size_t)snprintf(s + len, n - len, "%s%s",
		                        p == 0 ? "" : p == NPREC - 1 ? " or " :
		                        ", ", prec[p].name);
	return s;
}

int nb_prec_scalars(nb_prec p) { return prec[p].scalars; }

double nb_prec_unit(nb_prec p) { return prec[p].unit; }

size_t nb_prec_scalar_bytes(nb_prec p)
{
	return (size_t)(4 * prec[p].words / prec[p].scalars);
}

const char *nb_prec_name(nb_prec p)
{
	return (unsigned)p < NPREC ? prec[p].name : "?";
}
