/* test_snap.c: bin/nbody's readers of initial conditions and snapshots
 * (apps/nbody/snap.c, snap_hdf5.c): a CSV with comments, quotes, CRLF and
 * columns in any order reads to the exact doubles; its refusals name the
 * file and line; an HDF5 snapshot written by snap_write_hdf5 reads back
 * bit for bit with its run's parameters, twice the same bytes; a NaN or
 * a massless body in one is refused naming the body. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nbcc.h"
#include "sim.h"
#include "snap.h"

static char err[1024];

START_TEST(csv_reads)
{
	static const char text[] =
		"\xef\xbb\xbf# nbody snapshot: ic=plummer n=2 seed=7 step=12 t=0.5 "
		"dt=0.0625 eps=0 G=1 integrator=hermite eta=0.02 e0=-0.25\r\n"
		"id, m ,\"x\",y,z,vx,vy,vz,extra\r\n"
		"\r\n"
		"0,0.25,0.1,-2e-3,3,0,0,0,whatever\r\n"
		"# a comment between rows\n"
		"1,0.75,\" 1 \",2,3,4,5,6.5e+1,\n";
	snap_data d;
	ck_assert_msg(snap_parse_csv("a.csv", text, sizeof text - 1, 10, &d, err,
	                             sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(d.n, 2);
	ck_assert(d.col[SC_X][0] == 0.1 && d.col[SC_Y][0] == -2e-3);
	ck_assert(d.col[SC_X][1] == 1 && d.col[SC_VZ][1] == 65);
	ck_assert(d.col[SC_M][1] == 0.75 && !d.col[SC_AX] && !d.col[SC_JX]);
	ck_assert_int_eq(d.line[1], 6);
	ck_assert(d.info.has_step && d.info.step == 12 && d.info.t == 0.5);
	ck_assert(d.info.has_eta && d.info.eta == 0.02 && d.info.e0 == -0.25);
	ck_assert_str_eq(d.info.integrator, "hermite");
	ck_assert_str_eq(d.info.ic, "plummer");
	ck_assert(d.info.seed == 7 && d.info.has_eps && d.info.eps == 0);
	ck_assert_int_eq(snap_check(&d, "a.csv", 0, err, sizeof err), 0);
	snap_data_free(&d);
}
END_TEST

static void refused(const char *text, const char *want)
{
	snap_data d;
	int rc = snap_parse_csv("b.csv", text, strlen(text), 3, &d, err,
	                        sizeof err);
	if (rc == 0) {
		rc = snap_check(&d, "b.csv", 0, err, sizeof err);
		snap_data_free(&d);
	}
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
}

START_TEST(csv_refusals)
{
	const char *h = "x,y,z,vx,vy,vz,m\n";
	char t[256];
	refused("", "b.csv: no header line");
	refused("x,y,z\n", "b.csv:1: the header lacks column 'vx'");
	refused("x,y,z,vx,vy,vz,m,x\n", "b.csv:1: column 'x' twice");
	snprintf(t, sizeof t, "%s", h);
	refused(t, "b.csv: no bodies");
	snprintf(t, sizeof t, "%s0,0,0,0,0,0,1\n0,0,0,0,0,0,1,9\n", h);
	refused(t, "b.csv:3: more fields");
	snprintf(t, sizeof t, "%s0,0,0,0,0,0,1\n0,inf,0,0,0,0,1\n", h);
	refused(t, "b.csv:3: column 'y': 'inf' is not a finite number");
	snprintf(t, sizeof t, "%s0,0,0,0,0,0,1\n0,0,0,0,0,0,\n", h);
	refused(t, "b.csv:3: column 'm': empty value");
	snprintf(t, sizeof t, "%s0,0,0,0,0,0,1e-400\n", h);
	refused(t, "b.csv:2: m = 0, and a body's mass must be positive");
	snprintf(t, sizeof t, "%s1,0,0,0,0,0,1\n1,0,0,0,0,0,1\n", h);
	refused(t, "b.csv:3: the body at (1, 0, 0) is also at b.csv:2");
	snprintf(t, sizeof t, "%s1,0,0,0,0,0,1\n1,0,0,0,0,0,1\n2,0,0,0,0,0,1\n"
	         "3,0,0,0,0,0,1\n", h);
	refused(t, "4 bodies, more than the 3");
	refused("# nbody snapshot: step=x\nx,y,z,vx,vy,vz,m\n",
	        "b.csv:1: step needs a non-negative integer");
	refused("# nbody snapshot: dt=nan\nx,y,z,vx,vy,vz,m\n",
	        "b.csv:1: dt=nan is not a finite number");
}
END_TEST

static void fill(sim *s)
{
	for (size_t i = 0; i < s->n; i++) {
		double u = (double)i + 1;
		double *v[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->ax, s->ay,
		               s->az, s->pot, s->jx, s->jy, s->jz};
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			v[k][i] = sin(u * (double)(k + 1)) / 3;
		s->m[i] = 1 / (u + 2);
		s->tstep[i] = ldexp(0.125, -(int)(i % 5));
	}
}

START_TEST(hdf5_roundtrip)
{
	sim s;
	ck_assert_int_eq(sim_alloc(&s, 37, 0.01), 0);
	double *j[4];
	for (int k = 0; k < 4; k++)
		ck_assert_ptr_nonnull(j[k] = calloc(37, sizeof(double)));
	s.jx = j[0];
	s.jy = j[1];
	s.jz = j[2];
	s.tstep = j[3];
	fill(&s);
	s.t = 1.75;
	snap_info in = {"collision", "hermite", 99, 28, 1.75, 0.0625, 0.01, 0.02,
	                -0.3, 0, 0, 0, 0, 0, 0, 0, 1, 1};
	char path[] = "/tmp/test_snap_XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	size_t len1, len2;
	char *img1 = nb_read_file(path, &len1, err, sizeof err);
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	char *img2 = nb_read_file(path, &len2, err, sizeof err);
	ck_assert(img1 && img2 && len1 == len2 && memcmp(img1, img2, len1) == 0);
	snap_data d;
	ck_assert_msg(snap_read(path, 100, &d, err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(d.n, 37);
	const double *want[SC_N] = {s.x, s.y, s.z, s.vx, s.vy, s.vz, s.m, s.ax,
	                            s.ay, s.az, NULL, s.jx, s.jy, s.jz, s.tstep};
	for (int k = 0; k < SC_N; k++)
		if (want[k])
			ck_assert_msg(d.col[k] && memcmp(d.col[k], want[k],
			                                 37 * sizeof(double)) == 0,
			              "column %s", snap_col_name[k]);
	for (size_t i = 0; i < 37; i++)
		ck_assert(d.col[SC_T][i] == 1.75);
	ck_assert(d.line == NULL && d.info.step == 28 && d.info.t == 1.75);
	ck_assert(d.info.dt == 0.0625 && d.info.eps == 0.01 && d.info.eta == 0.02);
	ck_assert(d.info.e0 == -0.3 && d.info.seed == 99);
	ck_assert_str_eq(d.info.ic, "collision");
	ck_assert_str_eq(d.info.integrator, "hermite");
	snap_data_free(&d);
	/* a NaN, then a massless body: read, and refused by the check */
	s.vy[5] = NAN;
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	ck_assert_int_eq(snap_read(path, 100, &d, err, sizeof err), 0);
	ck_assert_int_eq(snap_check(&d, path, 0.01, err, sizeof err), -1);
	ck_assert_msg(strstr(err, ", body 5: vy = nan, not a finite") != NULL,
	              "%s", err);
	snap_data_free(&d);
	s.vy[5] = 0;
	s.m[7] = 0;
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	ck_assert_int_eq(snap_read(path, 100, &d, err, sizeof err), 0);
	ck_assert_int_eq(snap_check(&d, path, 0.01, err, sizeof err), -1);
	ck_assert_msg(strstr(err, ", body 7: m = 0") != NULL, "%s", err);
	snap_data_free(&d);
	/* too many bodies, and a file cut short */
	ck_assert_int_eq(snap_read(path, 36, &d, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "more than the 36") != NULL, "%s", err);
	ck_assert_int_eq(snap_parse_hdf5(path, img1, len1 / 2, 100, &d, err,
	                                 sizeof err), -1);
	ck_assert_msg(strstr(err, "HDF5 cannot open it") != NULL, "%s", err);
	free(img1);
	free(img2);
	unlink(path);
	sim_free(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snap");
	TCase *tc = tcase_create("snap");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, csv_reads);
	tcase_add_test(tc, csv_refusals);
	tcase_add_test(tc, hdf5_roundtrip);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
