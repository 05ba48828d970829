/* wynn.c: Wynn's epsilon algorithm (P. Wynn, 1956; paper 001's reference
 * [12]), which bin/oneloop applies to its estimates of A and B as lambda
 * falls: it sums away errors that shrink geometrically in k. */
#include <stdlib.h>
#include "num.h"
#include "oneloop.h"

/* A difference this small next to its operands is rounding, not a trend:
 * dividing by it would only amplify noise (2^-98 in dd, 2^-46 in double,
 * 64 units of the last place). */
static int lost(int dbl, nb_dd a, nb_dd b, nb_dd d)
{
	double big = fmax(fabs(a.hi), fabs(b.hi));
	return d.hi == 0 || fabs(d.hi) <= big * (dbl ? 0x1p-46 : 0x1p-98);
}

/* eps[r][j] (r = -1 .. n-1, j = 0 .. n-1-r):
 *   eps[-1][j] = 0, eps[0][j] = s[j],
 *   eps[r+1][j] = eps[r-1][j+1] + 1 / (eps[r][j+1] - eps[r][j]);
 * the even columns eps[2m][j] are the extrapolants of s[j .. j+2m]. */
void wynn(int dbl, const nb_dd *s, int n, nb_dd *ext)
{
	size_t w = (size_t)n + 1;
	nb_dd *e = calloc(w * w, sizeof *e);
	char *ok = calloc(w * w, 1);
	if (!e || !ok) {
		/* not worth a failure path: without the table, no acceleration */
		for (int k = 0; k < n; k++)
			ext[k] = s[k];
		free(e);
		free(ok);
		return;
	}
#define E(r, j) e[(size_t)((r) + 1) * w + (size_t)(j)]
#define OK(r, j) ok[(size_t)((r) + 1) * w + (size_t)(j)]
	for (int j = 0; j <= n; j++)
		OK(-1, j) = 1; /* E(-1, j) = 0 from calloc */
	for (int j = 0; j < n; j++) {
		E(0, j) = s[j];
		OK(0, j) = 1;
	}
	for (int r = 0; r + 1 < n; r++)
		for (int j = 0; j + r + 1 < n; j++) {
			if (!OK(r, j + 1) || !OK(r, j) || !OK(r - 1, j + 1))
				continue;
			nb_dd d = num_sub(dbl, E(r, j + 1), E(r, j));
			if (lost(dbl, E(r, j + 1), E(r, j), d))
				continue;
			E(r + 1, j) = num_add(dbl, E(r - 1, j + 1),
			                      num_div(dbl, nb_dd_from(1), d));
			OK(r + 1, j) = 1;
		}
	for (int k = 0; k < n; k++) {
		ext[k] = s[k];
		for (int r = k - k % 2; r >= 2; r -= 2)
			if (OK(r, k - r)) {
				ext[k] = E(r, k - r);
				break;
			}
	}
#undef E
#undef OK
	free(e);
	free(ok);
}
