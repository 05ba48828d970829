/* test_tree_far.c: the treecode's vortex kind (nbrt_run_tree with
 * dsl-examples/biot_savart.nbl and far/biot_savart_dipole.nbl) against a
 * direct sum of the regularised Biot-Savart law in long double written
 * here, on fresh random vortex rings and balls: every cell opened gives the
 * direct sum to rounding; theta 0.5 keeps the relative velocity error
 * under stated bounds; degenerate particles; bad inputs refused. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"

#include "seed.h"

static unsigned short rng[3];

static const char *const devs[] = {"host", "cpu"};
enum { NDEVS = 2 };
static nbrt *dev[NDEVS];
static int have[NDEVS];

/* biot_savart.nbl's columns */
enum { XI, YI, ZI, XJ, YJ, ZJ, GX, GY, GZ, U, V, W, NCOL };
static const char *const coln[NCOL] = {"xi", "yi", "zi", "xj", "yj", "zj",
                                       "gx", "gy", "gz", "u", "v", "w"};
static const double sigma = 0.02;

typedef struct Parts {
	size_t n;
	double *c[NCOL];
	long double *ref; /* u, v, w and sum |k| |Gamma| a particle */
} Parts;

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

enum { RING, BALL, LINE, COINCIDENT };

/* Position p and strength g of a particle of the distribution. */
static void draw(int kind, double p[3], double g[3])
{
	if (kind == RING) { /* radius 1, core 0.1, strength along the ring */
		double ph = urand(0, 2 * M_PI), a = urand(0, 2 * M_PI);
		double r = 0.1 * sqrt(urand(0, 1));
		double R = 1 + r * cos(a);
		p[0] = R * cos(ph);
		p[1] = R * sin(ph);
		p[2] = r * sin(a);
		g[0] = -sin(ph);
		g[1] = cos(ph);
		g[2] = 0;
	} else if (kind == LINE) {
		double u = urand(-1, 1);
		p[0] = u;
		p[1] = 2 * u;
		p[2] = 0.5;
		g[0] = urand(-1, 1);
		g[1] = urand(-1, 1);
		g[2] = urand(-1, 1);
	} else
		for (int d = 0; d < 3; d++) {
			p[d] = kind == COINCIDENT ? 0.25 : urand(-1, 1);
			g[d] = urand(-1, 1);
		}
}

/* The kernel of biot_savart.nbl in long double, for d = x_j - x_i. */
static void pair(const long double d[3], const double g[3], long double u[4])
{
	long double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	long double r3 = r2 * sqrtl(r2), x = r3 / (sigma * sigma * sigma);
	long double q = x < 1e-6L ? (1 - x / 2) / (long double)(sigma * sigma *
	                                                         sigma) :
	                -expm1l(-x) / r3;
	long double k = q / (4 * 3.14159265358979323846264338327950288L);
	u[0] += k * (d[1] * g[2] - d[2] * g[1]);
	u[1] += k * (d[2] * g[0] - d[0] * g[2]);
	u[2] += k * (d[0] * g[1] - d[1] * g[0]);
	u[3] += k * sqrtl(r2 * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]));
}

static void make(Parts *b, size_t n, int kind)
{
	b->n = n;
	for (int c = 0; c < NCOL; c++)
		b->c[c] = calloc(n + 1, sizeof(double));
	b->ref = calloc(4 * (n + 1), sizeof *b->ref);
	for (size_t j = 0; j < n; j++) {
		double p[3], g[3];
		draw(kind, p, g);
		for (int d = 0; d < 3; d++) {
			b->c[XJ + d][j] = b->c[XI + d][j] = p[d];
			b->c[GX + d][j] = g[d] / (double)n;
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			long double d[3];
			double g[3];
			for (int e = 0; e < 3; e++) {
				d[e] = (long double)b->c[XJ + e][j] - b->c[XI + e][i];
				g[e] = b->c[GX + e][j];
			}
			pair(d, g, b->ref + 4 * i);
		}
}

static void release(Parts *b)
{
	for (int c = 0; c < NCOL; c++)
		free(b->c[c]);
	free(b->ref);
}

static nbrt_kernel *load(nbrt *rt, const char *path, nb_prec p)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	o.given |= NB_GIVEN_PRECISION;
	nbrt_kernel *k = nbrt_load(rt, path, &o);
	ck_assert_msg(k != NULL, "%s: %s", path, nbrt_error(rt));
	return k;
}

static void bind(nbrt_kernel *k, Parts *b)
{
	for (int c = 0; c < NCOL; c++)
		ck_assert(nbrt_bind(k, coln[c], NBRT_DOUBLE, b->c[c]) == 0);
	ck_assert(nbrt_set_const(k, "isig3", 1 / (sigma * sigma * sigma), 0) ==
	          0);
}

static nbrt_tree params(double theta)
{
	nbrt_tree t = {theta, 16, 64, {"xi", "yi", "zi"}, {"xj", "yj", "zj"},
	               NULL, NULL, {"gx", "gy", "gz"}};
	return t;
}

/* The median and 99th percentile of the relative velocity errors (against
 * the larger of |u| and 1e-3 of the sum of the terms' sizes). */
static void errors(const Parts *b, double q[2])
{
	size_t n = b->n;
	double *e = malloc((n + 1) * sizeof *e);
	for (size_t i = 0; i < n; i++) {
		const long double *r = b->ref + 4 * i;
		long double d2 = 0, a2 = 0;
		for (int d = 0; d < 3; d++) {
			long double x = b->c[U + d][i] - r[d];
			d2 += x * x;
			a2 += r[d] * r[d];
		}
		long double s = fmaxl(sqrtl(a2), 1e-3L * r[3]);
		e[i] = s > 0 ? (double)(sqrtl(d2) / s) : d2 == 0 ? 0 : INFINITY;
	}
	for (size_t x = 1; x < n; x++)
		for (size_t y = x; y > 0 && !(e[y - 1] <= e[y]); y--) {
			double t = e[y];
			e[y] = e[y - 1];
			e[y - 1] = t;
		}
	q[0] = n ? e[n / 2] : 0;
	q[1] = n ? e[(size_t)(0.99 * (double)(n - 1))] : 0;
	if (n)
		ck_assert_msg(!isnan(e[n - 1]), "a NaN velocity, n %zu", n);
	free(e);
}

static struct nbrt_tree_stats st;

static void run(nbrt *rt, nb_prec p, Parts *b, double theta, double q[2])
{
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/biot_savart.nbl", p);
	nbrt_kernel *far = load(rt, ROOT "/far/biot_savart_dipole.nbl", p);
	bind(k, b);
	for (int c = U; c <= W; c++)
		for (size_t i = 0; i < b->n; i++)
			b->c[c][i] = NAN;
	nbrt_tree t = params(theta);
	t.stats = &st;
	ck_assert_msg(nbrt_run_tree(k, far, b->n, b->n, &t) == 0, "%s",
	              nbrt_error(rt));
	errors(b, q);
	nbrt_free(far);
	nbrt_free(k);
}

/* Every cell opened: the direct sum to rounding. */
START_TEST(every_cell_opened)
{
	static const size_t n[] = {0, 1, 2, 97, 1009};
	for (int d = 0; d < NDEVS; d++)
		for (size_t s = 0; have[d] && s < sizeof n / sizeof *n; s++)
			for (int kind = RING; kind <= COINCIDENT; kind++) {
				Parts b;
				make(&b, n[s], kind);
				double q[2];
				run(dev[d], NB_DOUBLE, &b, 1e-9, q);
				ck_assert_msg(q[1] < 1e-12, "%s: n %zu, distribution %d: "
				              "error %g (99%%)", devs[d], b.n, kind, q[1]);
				ck_assert(st.far_pairs == 0);
				release(&b);
			}
}
END_TEST

/* Bounds at theta 0.5, bucket 16, group 64, N = 1501: about three times
 * the largest seen (ring median 1.6e-3, 99th percentile 1.1e-2; ball
 * 2.5e-3 and 2.0e-2; at N = 3001 2.1e-3 and 1.9e-2, 4.1e-3 and 3.0e-2).  The expansion's error is of second
 * order in the cell's size over its distance: halving theta must divide
 * the median error by more than 3 (seen: 8 to 10), which a wrong first
 * moment (an error of first order) would not. */
static const double bound_med = 1.2e-2, bound_99 = 8e-2;

START_TEST(theta_half)
{
	for (int kind = RING; kind <= BALL; kind++) {
		Parts b;
		make(&b, 1501, kind);
		for (int d = 0; d < NDEVS; d++)
			for (nb_prec p = NB_FLOAT; have[d] && p <= NB_DOUBLE; p++) {
				double q[2], h[2];
				run(dev[d], p, &b, 0.5, q);
				printf("test_tree_far: %s %s %s: median %.2g, 99%% %.2g, "
				       "far pairs %.3g, near %.3g\n", devs[d],
				       kind == RING ? "ring" : "ball",
				       p == NB_FLOAT ? "float" : "double", q[0], q[1],
				       st.far_pairs, st.near_pairs);
				ck_assert(st.far_pairs > 0);
				ck_assert_msg(q[0] < bound_med && q[1] < bound_99,
				              "%s: median %g, 99%% %g", devs[d], q[0],
				              q[1]);
				if (p != NB_DOUBLE)
					continue;
				run(dev[d], p, &b, 0.25, h);
				printf("test_tree_far: theta 0.25: median %.2g, 99%% %.2g\n",
				       h[0], h[1]);
				ck_assert_msg(h[0] < q[0] / 3, "theta 0.25: median %g, "
				              "0.5: %g", h[0], q[0]);
			}
		release(&b);
	}
}
END_TEST

/* A refusal: -1, the message names `want`, no result written. */
static void refused(nbrt *rt, nbrt_kernel *k, nbrt_kernel *far, Parts *b,
                    const nbrt_tree *t, const char *want)
{
	for (size_t i = 0; i < b->n; i++)
		b->c[U][i] = 12345;
	ck_assert(nbrt_run_tree(k, far, b->n, b->n, t) == -1);
	const char *msg = nbrt_error(rt);
	ck_assert_msg(strstr(msg, want), "message \"%s\" lacks \"%s\"", msg,
	              want);
	for (size_t i = 0; i < b->n; i++)
		ck_assert(b->c[U][i] == 12345);
}

START_TEST(bad_input)
{
	nbrt *rt = dev[0];
	Parts b;
	make(&b, 40, BALL);
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/biot_savart.nbl",
	                      NB_DOUBLE);
	nbrt_kernel *far = load(rt, ROOT "/far/biot_savart_dipole.nbl",
	                        NB_DOUBLE);
	nbrt_kernel *grav = load(rt, ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
	bind(k, &b);
	nbrt_tree t = params(0.5);
	t.jsrc[1] = NULL;
	refused(rt, k, far, &b, &t, "source '(null)' is no BMEM");
	t = params(0.5);
	t.jsrc[2] = "u";
	refused(rt, k, far, &b, &t, "source 'u' is no BMEM");
	t = params(0.5);
	b.c[GY][7] = NAN;
	refused(rt, k, far, &b, &t, "source 'gy' at 7 is nan");
	b.c[GY][7] = 0;
	/* gravity's far field computes none of the velocities */
	refused(rt, k, grav, &b, &t, "which it must come from");
	static const char mixed[] =
	    "LMEM xi; BMEM cx, cm, cgx; RMEM u, v, w;\n"
	    "u += cm*(cx - xi); v += cgx; w += 0;\n";
	nbrt_kernel *f = nbrt_load_source(rt, "far-mixed", mixed,
	                                  strlen(mixed), NULL);
	ck_assert_msg(f != NULL, "%s", nbrt_error(rt));
	refused(rt, k, f, &b, &t, "not the columns of one kind");
	nbrt_free(f);
	ck_assert(nbrt_run_tree(k, far, b.n, b.n, &t) == 0);
	nbrt_free(grav);
	nbrt_free(far);
	nbrt_free(k);
	release(&b);
}
END_TEST

int main(void)
{
	seed_rng("test_tree_far", rng);
	for (int d = 0; d < NDEVS; d++) {
		char *err = NULL;
		dev[d] = nbrt_open(devs[d], &err);
		have[d] = dev[d] != NULL;
		if (!have[d]) {
			printf("test_tree_far: no device %s: %s\n", devs[d], err);
			free(err);
		}
	}
	if (!have[0])
		return 1;
	Suite *s = suite_create("tree_far");
	TCase *tc = tcase_create("tree_far");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, every_cell_opened);
	tcase_add_test(tc, theta_half);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int d = 0; d < NDEVS; d++)
		nbrt_close(dev[d]);
	return failed ? 1 : 0;
}
