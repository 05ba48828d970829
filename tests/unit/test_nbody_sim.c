/* test_nbody_sim.c: the physics of bin/nbody (apps/nbody/sim.c) without any
 * device: the initial conditions (mass, centre of mass, virial ratio and
 * profile checked by sums written here, not sim.c's), the leap-frog
 * against the analytic circular two-body orbit, and the snapshot and PNG
 * writers read back.  Seeds are fresh each run and printed;
 * NBCC_TEST_SEED=S repeats a run. */
#include <check.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "seed.h"
#include "sim.h"
#include "unit.h"

static uint64_t seed;

/* Totals computed here, independently of sim_measure. */
typedef struct totals {
	double mass, c[3], p[3], kin, w; /* w: unsoftened, pairs once */
} totals;

static void totals_of(const sim *s, int with_w, totals *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < s->n; i++) {
		double m = s->m[i];
		ck_assert(isfinite(s->x[i]) && isfinite(s->vx[i]) && m > 0);
		t->mass += m;
		t->c[0] += m * s->x[i];
		t->c[1] += m * s->y[i];
		t->c[2] += m * s->z[i];
		t->p[0] += m * s->vx[i];
		t->p[1] += m * s->vy[i];
		t->p[2] += m * s->vz[i];
		t->kin += 0.5 * m * (s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] +
		                     s->vz[i] * s->vz[i]);
		for (size_t j = 0; with_w && j < i; j++) {
			double dx = s->x[i] - s->x[j], dy = s->y[i] - s->y[j];
			double dz = s->z[i] - s->z[j];
			t->w -= m * s->m[j] / sqrt(dx * dx + dy * dy + dz * dz);
		}
	}
}

static void make(sim *s, sim_ic ic, size_t n, uint64_t sd)
{
	ck_assert_int_eq(sim_alloc(s, n, 1.0 / 64), 0);
	sim_ic_make(s, ic, sd);
}

/* every model, odd sizes too: mass 1, centre of mass at rest at 0 */
START_TEST(ic_mass_and_centre)
{
	static const size_t sizes[] = {1, 2, 3, 7, 1000, 1024};
	for (int ic = SIM_PLUMMER; ic <= SIM_COLLISION; ic++)
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			sim s;
			totals t;
			make(&s, (sim_ic)ic, sizes[k], seed + k);
			totals_of(&s, 0, &t);
			ck_assert_double_eq_tol(t.mass, 1.0, 1e-12);
			for (int d = 0; d < 3; d++) {
				ck_assert_double_eq_tol(t.c[d], 0.0, 1e-12);
				ck_assert_double_eq_tol(t.p[d], 0.0, 1e-12);
			}
			sim_free(&s);
		}
}
END_TEST

/* Plummer in N-body units: Q = K/|W| = 1/2 and E = -1/4 up to sampling
 * noise (over 200 seeds at N = 1024: sd(Q) = 0.014, sd(E) = 0.011; the
 * bounds are 5 sd), and the half-mass radius 1.305 a, a = 3 pi/16. */
START_TEST(plummer_virial)
{
	sim s;
	totals t;
	make(&s, SIM_PLUMMER, 1024, seed);
	totals_of(&s, 1, &t);
	double q = t.kin / -t.w, e = t.kin + t.w;
	printf("plummer: Q = %.4f, E = %.4f\n", q, e);
	ck_assert_double_eq_tol(q, 0.5, 0.07);
	ck_assert_double_eq_tol(e, -0.25, 0.055);
	double *r = malloc(s.n * sizeof *r);
	for (size_t i = 0; i < s.n; i++)
		r[i] = sqrt(s.x[i] * s.x[i] + s.y[i] * s.y[i] + s.z[i] * s.z[i]);
	size_t below = 0;
	double rh = 1.305 * 3.0 * M_PI / 16.0;
	for (size_t i = 0; i < s.n; i++)
		below += r[i] < rh;
	/* binomial, sd = 16 bodies: 5 sd */
	ck_assert_int_lt(labs((long)below - 512), 80);
	free(r);
	sim_free(&s);
}
END_TEST

/* cube: inside [-1, 1]^3 up to the centring shift, Q = 1/2 by the uniform
 * cube's energy (the sample's W within sampling noise, sd 0.004) */
START_TEST(cube_virial)
{
	sim s;
	totals t;
	make(&s, SIM_CUBE, 1024, seed);
	totals_of(&s, 1, &t);
	for (size_t i = 0; i < s.n; i++)
		ck_assert(fabs(s.x[i]) < 1.1 && fabs(s.y[i]) < 1.1 &&
		          fabs(s.z[i]) < 1.1);
	double q = t.kin / -t.w;
	printf("cube: Q = %.4f\n", q);
	ck_assert_double_eq_tol(q, 0.5, 0.03);
	sim_free(&s);
}
END_TEST

/* collision: bodies [0, 3N/4) are galaxy A, the rest B; their centres
 * 1.5 apart, approaching at the parabolic speed sqrt(2 M / d); both
 * disks turn counter-clockwise about +z (B's tilted by 60 degrees), so
 * the spin about z is positive and large. */
START_TEST(collision_orbit)
{
	sim s;
	size_t n = 4096, na = 3072;
	make(&s, SIM_COLLISION, n, seed);
	double c[2][6] = {{0}}, m[2] = {0};
	for (size_t i = 0; i < n; i++) {
		int g = i >= na;
		double v[6] = {s.x[i], s.y[i], s.z[i], s.vx[i], s.vy[i], s.vz[i]};
		m[g] += s.m[i];
		for (int k = 0; k < 6; k++)
			c[g][k] += s.m[i] * v[k];
	}
	double d[6], lz = 0;
	for (int k = 0; k < 6; k++)
		d[k] = c[1][k] / m[1] - c[0][k] / m[0];
	ck_assert_double_eq_tol(m[0], 0.75, 1e-12);
	ck_assert_double_eq_tol(hypot(hypot(d[0], d[1]), d[2]), 1.5, 1e-9);
	double v = hypot(hypot(d[3], d[4]), d[5]);
	ck_assert_double_eq_tol(v, sqrt(2.0 / 1.5), 1e-9);
	ck_assert(d[0] * d[3] + d[1] * d[4] + d[2] * d[5] < 0);
	for (size_t i = 0; i < n; i++)
		lz += s.m[i] * (s.x[i] * s.vy[i] - s.y[i] * s.vx[i]);
	printf("collision: Lz = %.4f\n", lz);
	ck_assert(lz > 0.1);
	sim_free(&s);
}
END_TEST

START_TEST(ic_seeded)
{
	for (int ic = SIM_PLUMMER; ic <= SIM_COLLISION; ic++) {
		sim a, b, c;
		make(&a, (sim_ic)ic, 500, seed);
		make(&b, (sim_ic)ic, 500, seed);
		make(&c, (sim_ic)ic, 500, seed + 1);
		size_t sz = 500 * sizeof(double);
		ck_assert(memcmp(a.x, b.x, sz) == 0 && memcmp(a.vz, b.vz, sz) == 0);
		ck_assert(memcmp(a.x, c.x, sz) != 0);
		sim_free(&a);
		sim_free(&b);
		sim_free(&c);
	}
}
END_TEST

/* sim_force_direct on two bodies: the analytic softened force, and
 * Newton's third law on many */
START_TEST(direct_force)
{
	sim s;
	ck_assert_int_eq(sim_alloc(&s, 2, 0.1), 0);
	s.m[0] = 0.3;
	s.m[1] = 0.7;
	s.x[1] = 0.8;
	s.y[1] = 0.6;
	sim_force_direct(&s, NULL);
	double f = 1.0 / pow(1.0 + 0.01, 1.5);
	ck_assert_double_eq_tol(s.ax[0], 0.7 * 0.8 * f, 1e-15);
	ck_assert_double_eq_tol(s.ay[1], -0.3 * 0.6 * f, 1e-15);
	ck_assert_double_eq_tol(s.pot[0], -0.7 / sqrt(1.01) - 0.3 / 0.1, 1e-14);
	sim_free(&s);
	make(&s, SIM_PLUMMER, 300, seed);
	sim_force_direct(&s, NULL);
	double p[3] = {0};
	for (size_t i = 0; i < s.n; i++) {
		p[0] += s.m[i] * s.ax[i];
		p[1] += s.m[i] * s.ay[i];
		p[2] += s.m[i] * s.az[i];
	}
	ck_assert(fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < 1e-13);
	sim_free(&s);
}
END_TEST

/* Two bodies of mass 1/2 a distance 1 apart on a circular orbit (omega =
 * 1): after one period at k steps, the error in position is the
 * leap-frog's phase error, O(dt^2) -- under 1e-3 at 1000 steps and 4 times
 * smaller at twice the steps; energy and angular momentum hold. */
static double orbit_error(int k, double *de)
{
	sim s;
	ck_assert_int_eq(sim_alloc(&s, 2, 1e-4), 0);
	s.m[0] = s.m[1] = 0.5;
	s.x[0] = -0.5;
	s.x[1] = 0.5;
	double v = 0.5 / pow(1.0 + 1e-8, 0.75); /* softened circular speed */
	s.vy[0] = -v;
	s.vy[1] = v;
	sim_force_direct(&s, NULL);
	sim_diag d0, d1;
	sim_measure(&s, &d0);
	double period = 2.0 * M_PI / (2.0 * v);
	for (int i = 0; i < k; i++)
		ck_assert_int_eq(sim_step(&s, period / k, sim_force_direct, NULL),
		                 0);
	sim_measure(&s, &d1);
	*de = fabs((d1.etot - d0.etot) / d0.etot);
	ck_assert_double_eq_tol(d1.lz, d0.lz, 1e-13);
	double err = hypot(s.x[1] - 0.5, s.y[1]);
	ck_assert_int_eq(s.step, k);
	sim_free(&s);
	return err;
}

START_TEST(leapfrog_circular)
{
	double de1, de2;
	double e1 = orbit_error(1000, &de1), e2 = orbit_error(2000, &de2);
	printf("leap-frog: error %.3e at 1000 steps, %.3e at 2000 (ratio %.2f),"
	       " dE/E %.1e\n", e1, e2, e1 / e2, de1);
	ck_assert(e1 < 1e-3);
	ck_assert(e1 / e2 > 3.5 && e1 / e2 < 4.5);
	ck_assert(de1 < 1e-6 && de2 < 1e-6);
}
END_TEST

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof dir, "/tmp/nbody-test.XXXXXX");
	ck_assert(mkdtemp(dir) != NULL);
}

static void rm_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* the snapshot reads back bit-exact and replaces an old file whole */
START_TEST(snapshot_roundtrip)
{
	mkdir_tmp();
	sim s;
	make(&s, SIM_COLLISION, 101, seed);
	sim_force_direct(&s, NULL);
	char path[128], err[256], line[1024];
	snprintf(path, sizeof path, "%s/snap.csv", dir);
	FILE *f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	ck_assert_int_eq(sim_write_snapshot(&s, path, "k=v", err, sizeof err), 0);
	f = fopen(path, "r");
	ck_assert(fgets(line, sizeof line, f));
	ck_assert_str_eq(line, "# nbody snapshot: k=v\n");
	ck_assert(fgets(line, sizeof line, f));
	ck_assert_str_eq(line, "id,m,x,y,z,vx,vy,vz,ax,ay,az,pot\n");
	for (size_t i = 0; i < s.n; i++) {
		ck_assert(fgets(line, sizeof line, f));
		char *p = line;
		ck_assert_int_eq(strtol(p, &p, 10), (long)i);
		double want[11] = {s.m[i], s.x[i], s.y[i], s.z[i], s.vx[i],
		                   s.vy[i], s.vz[i], s.ax[i], s.ay[i], s.az[i],
		                   s.pot[i] + s.m[i] / s.eps};
		for (int k = 0; k < 11; k++) {
			ck_assert(*p == ',');
			double v = strtod(p + 1, &p);
			ck_assert(v == want[k]);
		}
		ck_assert(*p == '\n');
	}
	ck_assert(!fgets(line, sizeof line, f));
	fclose(f);
	/* a directory that is not there: an error, and nothing left behind */
	snprintf(path, sizeof path, "%s/no/snap.csv", dir);
	ck_assert_int_eq(sim_write_snapshot(&s, path, "", err, sizeof err), -1);
	ck_assert(strstr(err, "no/snap.csv") != NULL);
	sim_free(&s);
	rm_tmp();
}
END_TEST

/* a body at the view's centre lights the centre of both panels; a body
 * outside the view lights nothing; the PNG holds the rendered pixels */
START_TEST(picture)
{
	mkdir_tmp();
	sim s;
	ck_assert_int_eq(sim_alloc(&s, 2, 0.1), 0);
	s.m[0] = s.m[1] = 0.5;
	s.x[1] = 5;
	sim_view v = {0, 0, 0, 1.0, 64};
	unsigned char *img = sim_render(&s, &v);
	ck_assert(img != NULL);
	size_t lit = 0, centre_xy = (32 * 128 + 32) * 3;
	size_t centre_xz = (32 * 128 + 64 + 32) * 3;
	for (size_t p = 0; p < 128 * 64 * 3; p += 3)
		lit += img[p + 1] > 60; /* sky 10, divider 50 */
	ck_assert_int_eq(lit, 2);
	ck_assert(img[centre_xy + 1] > 60 && img[centre_xz + 1] > 60);
	char path[128], err[256];
	snprintf(path, sizeof path, "%s/f.png", dir);
	ck_assert_int_eq(sim_write_png(&s, &v, path, err, sizeof err), 0);
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	ck_assert(png_image_begin_read_from_file(&im, path));
	ck_assert_int_eq(im.width, 128);
	ck_assert_int_eq(im.height, 64);
	im.format = PNG_FORMAT_RGB;
	unsigned char *back = malloc(PNG_IMAGE_SIZE(im));
	ck_assert(png_image_finish_read(&im, NULL, back, 0, NULL));
	ck_assert(memcmp(back, img, 128 * 64 * 3) == 0);
	free(back);
	free(img);
	sim_free(&s);
	rm_tmp();
}
END_TEST

int main(void)
{
	seed = test_seed("test_nbody_sim");
	Suite *s;
	TCase *tc = unit_case(&s, "nbody_sim", 60);
	tcase_add_test(tc, ic_mass_and_centre);
	tcase_add_test(tc, plummer_virial);
	tcase_add_test(tc, cube_virial);
	tcase_add_test(tc, collision_orbit);
	tcase_add_test(tc, ic_seeded);
	tcase_add_test(tc, direct_force);
	tcase_add_test(tc, leapfrog_circular);
	tcase_add_test(tc, snapshot_roundtrip);
	tcase_add_test(tc, picture);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? 1 : 0;
}
