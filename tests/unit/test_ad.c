/* test_ad.c: derived kernels through the C API (issue 29): nb_options'
 * grad, grad_of and jvp given to nbrt_load_source on the host, the
 * Plummer potential's gradient and its derivative along a tangent
 * against the formula summed here in long double, for Ni, Nj in {0, 1,
 * 7} x {0, 1, 5} on fresh random inputs (seed printed), the total over i
 * of the CONST's gradient (nbrt_sum) against the formula's sum over i and
 * j, nbrt_sum where a plain loop loses digits, and a bad name's message.
 * docs/autodiff.md. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "seed.h"
#include "unit.h"

static const char plummer[] =
	"LMEM xi, yi, zi;\nBMEM xj, yj, zj, mj;\nRMEM pot;\nCONST eps2;\n"
	"dx = xj - xi;\ndy = yj - yi;\ndz = zj - zi;\n"
	"pot -= mj*(eps2 + dx*dx + dy*dy + dz*dz)**-0.5;\n";

static unsigned short rng[3];

enum { NMAX = 7 };

/* The kernel derived by the options, loaded on the host: NULL with the
 * runtime's message in err (of at least 256 bytes). */
static nbrt_kernel *load(nbrt *rt, const char *grad, const char *grad_of,
                         const char *jvp, char *err)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = NB_DOUBLE;
	o.grad = grad;
	o.grad_of = grad_of;
	o.jvp = jvp;
	nbrt_kernel *k = nbrt_load_source(rt, "plummer", plummer,
	                                  strlen(plummer), &o);
	if (!k)
		snprintf(err, 256, "%s", nbrt_error(rt));
	return k;
}

START_TEST(gradient_and_tangent)
{
	char *oerr = NULL, err[256];
	nbrt *rt = nbrt_open("host", &oerr);
	ck_assert_msg(rt != NULL, "nbrt_open(host): %s", oerr);
	nbrt_kernel *g = load(rt, "xi,yi,zi,eps2", "pot", NULL, err);
	ck_assert_msg(g != NULL, "--grad through nb_options: %s", err);
	nbrt_kernel *t = load(rt, NULL, NULL, "xi:vxi,zi:vzi", err);
	ck_assert_msg(t != NULL, "--jvp through nb_options: %s", err);
	static const int nis[] = {0, 1, NMAX}, njs[] = {0, 1, 5};
	const double eps2 = 0.01;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			int ni = nis[a], nj = njs[b];
			double x[3][NMAX], v[3][NMAX], y[4][NMAX], grad[3][NMAX],
			       pot[NMAX], dpot[NMAX], pot2[NMAX], deps[NMAX];
			for (int i = 0; i < NMAX; i++) {
				for (int c = 0; c < 3; c++) {
					x[c][i] = erand48(rng) * 2 - 1;
					v[c][i] = erand48(rng) * 2 - 1;
					y[c][i] = erand48(rng) * 2 - 1;
				}
				y[3][i] = 0.1 + erand48(rng);
			}
			static const char *const xn[] = {"xi", "yi", "zi"},
			                         *const yn[] = {"xj", "yj", "zj", "mj"},
			                         *const gn[] = {"dpot_dxi", "dpot_dyi",
			                                        "dpot_dzi"};
			for (int c = 0; c < 3; c++) {
				ck_assert_int_eq(nbrt_bind(g, xn[c], NBRT_DOUBLE, x[c]), 0);
				ck_assert_int_eq(nbrt_bind(t, xn[c], NBRT_DOUBLE, x[c]), 0);
				ck_assert_int_eq(nbrt_bind(g, gn[c], NBRT_DOUBLE, grad[c]),
				                 0);
			}
			for (int c = 0; c < 4; c++) {
				ck_assert_int_eq(nbrt_bind(g, yn[c], NBRT_DOUBLE, y[c]), 0);
				ck_assert_int_eq(nbrt_bind(t, yn[c], NBRT_DOUBLE, y[c]), 0);
			}
			ck_assert_int_eq(nbrt_bind(g, "pot", NBRT_DOUBLE, pot), 0);
			ck_assert_int_eq(nbrt_bind(g, "dpot_deps2", NBRT_DOUBLE, deps),
			                 0);
			ck_assert_int_eq(nbrt_bind(t, "pot", NBRT_DOUBLE, pot2), 0);
			ck_assert_int_eq(nbrt_bind(t, "vxi", NBRT_DOUBLE, v[0]), 0);
			ck_assert_int_eq(nbrt_bind(t, "vzi", NBRT_DOUBLE, v[2]), 0);
			ck_assert_int_eq(nbrt_bind(t, "d_pot", NBRT_DOUBLE, dpot), 0);
			ck_assert_int_eq(nbrt_set_const(g, "eps2", eps2, 0), 0);
			ck_assert_int_eq(nbrt_set_const(t, "eps2", eps2, 0), 0);
			ck_assert_msg(nbrt_run(g, (size_t)ni, (size_t)nj) == 0,
			              "run: %s", nbrt_error(rt));
			ck_assert_msg(nbrt_run(t, (size_t)ni, (size_t)nj) == 0,
			              "run: %s", nbrt_error(rt));
			/* the CONST's gradient, reduced over i and j: the total of
			 * the column d pot[i]/d eps2, against the sum of every
			 * pair's 0.5 mj r2^-3/2 (a sum of positive terms) */
			long double etot = 0;
			for (int i = 0; i < ni; i++) {
				/* pot = -sum mj r2^-1/2: d/dxi = -sum mj dx r2^-3/2 */
				long double w[3] = {0, 0, 0}, p = 0;
				for (int j = 0; j < nj; j++) {
					long double d[3], r2 = eps2;
					for (int c = 0; c < 3; c++) {
						d[c] = (long double)y[c][j] - x[c][i];
						r2 += d[c] * d[c];
					}
					long double r3 = r2 * sqrtl(r2);
					p -= y[3][j] / sqrtl(r2);
					etot += 0.5L * y[3][j] / r3;
					for (int c = 0; c < 3; c++)
						w[c] -= y[3][j] * d[c] / r3;
				}
				long double along = w[0] * v[0][i] + w[2] * v[2][i];
				for (int c = 0; c < 3; c++)
					ck_assert_msg(fabsl(grad[c][i] - w[c]) <=
					              1e-13L * (1 + fabsl(w[c])),
					              "ni %d nj %d: %s[%d] = %.17g, the formula "
					              "%.17Lg", ni, nj, gn[c], i, grad[c][i],
					              w[c]);
				ck_assert_msg(fabsl(dpot[i] - along) <=
				              1e-13L * (1 + fabsl(along)),
				              "ni %d nj %d: d_pot[%d] = %.17g, the formula "
				              "%.17Lg", ni, nj, i, dpot[i], along);
				ck_assert_msg(fabsl(pot[i] - p) <= 1e-13L * (1 + fabsl(p)) &&
				              pot2[i] == pot[i], "ni %d nj %d: pot[%d]",
				              ni, nj, i);
			}
			double tot[2];
			ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, deps, NULL, (size_t)ni,
			                          tot), 0);
			ck_assert_msg(fabsl(tot[0] + (long double)tot[1] - etot) <=
			              1e-13L * etot, "ni %d nj %d: the total of "
			              "dpot_deps2 %.17g, the formula %.17Lg", ni, nj,
			              tot[0], etot);
		}
	nbrt_free(g);
	nbrt_free(t);
	nbrt_close(rt);
}
END_TEST

/* nbrt_sum: a column's total in dd, where a plain loop loses it */
START_TEST(column_total)
{
	double s[2];
	/* double: 1e16 + 1 - 1e16 is 0 in a double loop */
	const double a[] = {1e16, 1, -1e16, 1e-3};
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, a, NULL, 4, s), 0);
	ck_assert_msg(s[0] == 1.0 + 1e-3 && fabs(s[1]) <= 0x1p-53,
	              "double total %.17g + %.3g", s[0], s[1]);
	/* weighted, the products exact: 1e16 + 3 - 1e16 */
	const double b[] = {1e16, 1, 1e16}, w[] = {1, 3, -1};
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, b, w, 3, s), 0);
	ck_assert_msg(s[0] == 3 && s[1] == 0, "weighted %.17g", s[0]);
	/* a product's low half kept: (1 + 2^-30)^2 - 1 - 2^-29 = 2^-60 */
	const double c[] = {1 + 0x1p-30, -1, -0x1p-29},
	             cw[] = {1 + 0x1p-30, 1, 1};
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, c, cw, 3, s), 0);
	ck_assert_msg(s[0] == 0x1p-60, "a product's low half: %.17g", s[0]);
	/* dd: the low parts count, (1 + 2^-60) + (-1 + 2^-70) */
	const double d[] = {1, 0x1p-60, -1, 0x1p-70};
	ck_assert_int_eq(nbrt_sum(NBRT_DD, d, NULL, 2, s), 0);
	ck_assert_msg(s[0] + s[1] == 0x1p-60 + 0x1p-70 && s[1] == 0,
	              "dd total %.17g + %.17g", s[0], s[1]);
	/* float: 1000 random values of both signs between 2^-11 and 2^10,
	 * whose sum's bits span 2^-35 to 2^20: long double's 64 bits hold it
	 * exactly, and so does a dd */
	enum { N = 1000 };
	float f[N];
	long double want = 0;
	for (int i = 0; i < N; i++) {
		f[i] = (float)((erand48(rng) - 0.5) * ldexp(1, (int)(erand48(rng) *
		                                                     20) - 10));
		want += f[i];
	}
	ck_assert_int_eq(nbrt_sum(NBRT_FLOAT, f, NULL, N, s), 0);
	ck_assert_msg((long double)s[0] + s[1] == want,
	              "float total %.17g + %.3g, exactly %.21Lg", s[0], s[1],
	              want);
	/* none: 0; inf and NaN as a plain sum gives them; a bad type */
	ck_assert_int_eq(nbrt_sum(NBRT_FLOAT, NULL, NULL, 0, s), 0);
	ck_assert(s[0] == 0 && s[1] == 0);
	const double e[] = {1, INFINITY, 2};
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, e, NULL, 3, s), 0);
	ck_assert(s[0] == INFINITY && s[1] == 0);
	const double n[] = {1, NAN};
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, n, NULL, 2, s), 0);
	ck_assert(isnan(s[0]));
	ck_assert_int_eq(nbrt_sum((nbrt_type)7, a, NULL, 4, s), -1);
}
END_TEST

START_TEST(bad_name)
{
	char *oerr = NULL, err[256];
	nbrt *rt = nbrt_open("host", &oerr);
	ck_assert_msg(rt != NULL, "nbrt_open(host): %s", oerr);
	ck_assert_ptr_null(load(rt, "foo", NULL, NULL, err));
	ck_assert_msg(strstr(err, "'foo' is not an input of the kernel") != NULL,
	              "the message: %s", err);
	ck_assert_ptr_null(load(rt, "pot", NULL, NULL, err));
	ck_assert_msg(strstr(err, "plummer:3:6: error: --grad: 'pot' is an "
	                     "RMEM") != NULL, "the message: %s", err);
	nbrt_close(rt);
}
END_TEST

int main(void)
{
	seed_rng("test_ad", rng);
	Suite *s;
	TCase *tc = unit_case(&s, "ad", 120);
	tcase_add_test(tc, gradient_and_tangent);
	tcase_add_test(tc, column_total);
	tcase_add_test(tc, bad_name);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
