/* prec.c: the precision table.  One row per precision says how it is
 * named, spelled in generated code, read, folded and sized; the stages
 * index it by type instead of each keeping its own switch. */
#include <float.h>
#include <stdio.h>
#include <string.h>
#include "base.h"

const Prec prec[NPREC] = {
	[NB_FLOAT] = {"float", "f32", "float", "float", "float", "f", "0",
	              "%.9g", "f", "", 0, 1, 1, FLT_MAX, FLT_MIN, FLT_TRUE_MIN,
	              read_f32, eval_f32},
	[NB_DOUBLE] = {"double", "f64", "double", "double", "double", "d", "0",
	               "%.17g", "", "(double)", 1, 1, 2, DBL_MAX, DBL_MIN,
	               DBL_TRUE_MIN, read_f64, eval_f64},
	[NB_DD] = {"dd", "dd", "nb_dd", "double", "double2", "dd",
	           "nb_dd_make(0.0, 0.0)", "%.17g", "", "(double)", 2, 2, 4,
	           DBL_MAX, DBL_MIN, DBL_TRUE_MIN, read_dd, eval_dd},
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

size_t nb_prec_scalar_bytes(nb_prec p)
{
	return (size_t)(4 * prec[p].words / prec[p].scalars);
}

const char *nb_prec_name(nb_prec p)
{
	return (unsigned)p < NPREC ? prec[p].name : "?";
}
