/* test_snap.c: bin/nbody's readers of initial conditions and snapshots
 * (apps/nbody/snap.c, snap_hdf5.c, snap_hdf5_read.c, snap_fork.c): a CSV
 * with comments, quotes, CRLF and columns in any order reads to the exact
 * doubles; its refusals name the file and line; an HDF5 snapshot written
 * by snap_write_hdf5 reads back bit for bit with its run's parameters,
 * twice the same bytes; a NaN or a massless body in one is refused naming
 * the body.  A GADGET-style file without /Header reads (made here with
 * libhdf5); the bodies' IDs, random 64-bit ones, go through both formats
 * unchanged; damaged files that make libhdf5 1.10.8 overflow or fault are
 * refused without harm to the caller (the sanitized build sees it); the
 * HDF5 reader's refusals (a dataset larger than the file, a negative ID,
 * NumPart_ThisFile against the groups, a negative Step) are its exact
 * messages on files made here; snap_apart contains a reader that crashes,
 * loops or lies, and a signal ending it leaves the caller's temporaries. */
#include <check.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nbcc.h"
#include "seed.h"
#include "sim.h"
#include "snap.h"
#include "unit.h"

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
	/* a snapshot cut short at a line's end: its n= counts the rows */
	refused("# nbody snapshot: n=3\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n"
	        "1,0,0,0,0,0,1\n", "b.csv: 2 bodies, and its comment line says "
	        "n=3 (a file cut short?)");
	refused("# nbody snapshot: n=2x\nx,y,z,vx,vy,vz,m\n",
	        "b.csv:1: n needs a non-negative integer");
	refused("# nbody snapshot: step=x\nx,y,z,vx,vy,vz,m\n",
	        "b.csv:1: step needs a non-negative integer");
	refused("# nbody snapshot: dt=nan\nx,y,z,vx,vy,vz,m\n",
	        "b.csv:1: dt=nan is not a finite number");
	/* a bad value's bytes reach the terminal only as '?' */
	refused("# nbody snapshot: t=\033[2J\nx,y,z,vx,vy,vz,m\n",
	        "b.csv:1: t=?[2J is not a finite number");
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
	                -0.3, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, ""};
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
	ck_assert(d.info.has_seed);
	snap_data_free(&d);
	/* a file's bodies have no seed: none is written */
	in.has_seed = 0;
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	ck_assert_int_eq(snap_read(path, 100, &d, err, sizeof err), 0);
	ck_assert(!d.info.has_seed);
	snap_data_free(&d);
	in.has_seed = 1;
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

/* --- a file without /Header, made with libhdf5 ------------------------ */

static void h5_put(hid_t g, const char *name, hid_t ftype, hid_t mtype,
                   int rank, hsize_t rows, const void *v)
{
	hsize_t dim[2] = {rows, 3};
	hid_t sp = H5Screate_simple(rank, dim, NULL);
	hid_t d = H5Dcreate2(g, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT,
	                     H5P_DEFAULT);
	ck_assert(d >= 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	                             v) >= 0);
	H5Dclose(d);
	H5Sclose(sp);
}

/* A new file in memory, and its image when done */
static hid_t h5_new(void)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_core(fapl, 1 << 16, 0);
	hid_t f = H5Fcreate("test.hdf5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	ck_assert(f >= 0);
	return f;
}

static char *h5_done(hid_t f, size_t *len)
{
	H5Fflush(f, H5F_SCOPE_GLOBAL);
	ssize_t n = H5Fget_file_image(f, NULL, 0);
	char *img = malloc((size_t)n);
	ck_assert(img && H5Fget_file_image(f, img, (size_t)n) == n);
	H5Fclose(f);
	*len = (size_t)n;
	return img;
}

/* A file image: PartType0 with 2 bodies in float32 and signed IDs,
 * PartType1 with 3 in double and unsigned 64-bit IDs; with `masses`
 * each has Masses; `header` adds /Header with NumFilesPerSnapshot and
 * NumPart_ThisFile {2, np1}. */
static char *h5_image(int masses, int header, double files, int np1,
                      size_t *len)
{
	static const float x0[6] = {1, 2, 3, 4, 5, 6}, v0[6] = {0.5f, 0, 0, 0,
	                                                        -0.5f, 0};
	static const float m0[2] = {0.25f, 0.125f};
	static const long long id0[2] = {7, 3};
	static const double x1[9] = {-1, -2, -3, 0.1, 0.2, 0.3, 9, 8, 7};
	static const double v1[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
	static const double m1[3] = {1, 2, 3};
	static const unsigned long long id1[3] = {18446744073709551615ULL,
	                                          9223372036854775808ULL, 0};
	hid_t f = h5_new();
	hid_t g = H5Gcreate2(f, "PartType0", H5P_DEFAULT, H5P_DEFAULT,
	                     H5P_DEFAULT);
	h5_put(g, "Coordinates", H5T_IEEE_F32BE, H5T_NATIVE_FLOAT, 2, 2, x0);
	h5_put(g, "Velocities", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 2, 2, v0);
	if (masses)
		h5_put(g, "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, 2, m0);
	h5_put(g, "ParticleIDs", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, 2, id0);
	H5Gclose(g);
	g = H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	h5_put(g, "Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, 3, x1);
	h5_put(g, "Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, 3, v1);
	h5_put(g, "Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, 3, m1);
	h5_put(g, "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_ULLONG, 1, 3, id1);
	H5Gclose(g);
	if (header) {
		g = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		hsize_t six = 6;
		int np[6] = {2, np1, 0, 0, 0, 0};
		hid_t sp = H5Screate(H5S_SCALAR), sp6 = H5Screate_simple(1, &six,
		                                                         NULL);
		hid_t a = H5Acreate2(g, "NumFilesPerSnapshot", H5T_NATIVE_DOUBLE, sp,
		                     H5P_DEFAULT, H5P_DEFAULT);
		ck_assert(H5Awrite(a, H5T_NATIVE_DOUBLE, &files) >= 0);
		H5Aclose(a);
		a = H5Acreate2(g, "NumPart_ThisFile", H5T_NATIVE_INT, sp6,
		               H5P_DEFAULT, H5P_DEFAULT);
		ck_assert(H5Awrite(a, H5T_NATIVE_INT, np) >= 0);
		H5Aclose(a);
		H5Sclose(sp);
		H5Sclose(sp6);
		H5Gclose(g);
	}
	return h5_done(f, len);
}

START_TEST(hdf5_no_header)
{
	size_t len;
	char *img = h5_image(1, 0, 0, 0, &len);
	snap_data d;
	ck_assert_msg(snap_parse_hdf5("nh.hdf5", img, len, 100, &d, err,
	                              sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(d.n, 5);
	ck_assert(!d.info.has_t && !d.info.has_step && !d.col[SC_AX]);
	static const double x[5] = {1, 4, -1, 0.1, 9}, vy[5] = {0, -0.5, 1, 2, 3};
	static const double m[5] = {0.25, 0.125, 1, 2, 3};
	static const uint64_t id[5] = {7, 3, 18446744073709551615ULL,
	                               9223372036854775808ULL, 0};
	for (int i = 0; i < 5; i++) {
		ck_assert(d.col[SC_X][i] == x[i] && d.col[SC_VY][i] == vy[i]);
		ck_assert(d.col[SC_M][i] == m[i]);
		ck_assert_msg(d.id && d.id[i] == id[i], "id %d", i);
	}
	snap_data_free(&d);
	free(img);
	/* no Masses and no MassTable; a header that the datasets belie */
	img = h5_image(0, 0, 0, 0, &len);
	ck_assert_int_eq(snap_parse_hdf5("nm.hdf5", img, len, 100, &d, err,
	                                 sizeof err), -1);
	ck_assert_msg(strstr(err, "nm.hdf5: /PartType0 has no Masses, and there "
	                     "is no /Header MassTable") != NULL, "%s", err);
	free(img);
	img = h5_image(1, 1, 1, 4, &len);
	ck_assert_int_eq(snap_parse_hdf5("np.hdf5", img, len, 100, &d, err,
	                                 sizeof err), -1);
	ck_assert_msg(strstr(err, "np.hdf5: /Header NumPart_ThisFile[1] is 4, "
	                     "and /PartType1 has 3 bodies") != NULL, "%s", err);
	free(img);
	img = h5_image(1, 1, 8, 3, &len);
	ck_assert_int_eq(snap_parse_hdf5("nf.hdf5", img, len, 100, &d, err,
	                                 sizeof err), -1);
	ck_assert_msg(strstr(err, "nf.hdf5: one of 8 files of a snapshot") !=
	              NULL, "%s", err);
	free(img);
	img = h5_image(1, 1, 1, 3, &len); /* a header that agrees */
	ck_assert_msg(snap_parse_hdf5("ok.hdf5", img, len, 100, &d, err,
	                              sizeof err) == 0, "%s", err);
	snap_data_free(&d);
	free(img);
}
END_TEST

/* --- the reader's refusals, on files made here -------------------------- */

/* /PartType1 with n bodies: Coordinates (never written, so never stored,
 * where `unstored`), Velocities, Masses and the signed IDs ids */
static void h5_part1(hid_t f, hsize_t n, int unstored, const long long *ids)
{
	hid_t g = H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT,
	                     H5P_DEFAULT);
	double *z = calloc(3 * n, sizeof *z), *m = malloc(n * sizeof *m);
	ck_assert(z && m);
	for (hsize_t i = 0; i < n; i++)
		m[i] = 1;
	if (unstored) {
		hsize_t dim[2] = {n, 3};
		hid_t sp = H5Screate_simple(2, dim, NULL);
		hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
		H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE);
		hid_t d = H5Dcreate2(g, "Coordinates", H5T_IEEE_F64LE, sp,
		                     H5P_DEFAULT, dcpl, H5P_DEFAULT);
		ck_assert(d >= 0);
		H5Dclose(d);
		H5Pclose(dcpl);
		H5Sclose(sp);
	} else {
		h5_put(g, "Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, n, z);
	}
	if (!unstored) {
		h5_put(g, "Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, n, z);
		h5_put(g, "Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, n, m);
		h5_put(g, "ParticleIDs", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, n, ids);
	}
	free(z);
	free(m);
	H5Gclose(g);
}

/* /Header with NumPart_ThisFile np, or /Parameters with Step (signed) */
static void h5_attr(hid_t f, const char *group, const char *name,
                    const int *v, hsize_t n)
{
	hid_t g = H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	hid_t sp = n > 1 ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(g, name, H5T_STD_I32LE, sp, H5P_DEFAULT,
	                     H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, v) >= 0);
	H5Aclose(a);
	H5Sclose(sp);
	H5Gclose(g);
}

static void h5_refused(char *img, size_t len, size_t max_n, const char *want)
{
	snap_data d;
	err[0] = 0;
	ck_assert_int_eq(snap_parse_hdf5("r.hdf5", img, len, max_n, &d, err,
	                                 sizeof err), -1);
	ck_assert_msg(strcmp(err, want) == 0, "got '%s', want '%s'", err, want);
	ck_assert(d.n == 0 && !d.col[SC_X] && !d.id);
	free(img);
}

START_TEST(hdf5_refusals)
{
	static const long long ids[3] = {5, -3, 7}, pos[3] = {1, 2, 3};
	size_t len;
	char want[256];
	/* a dataset of 100000 x 3 doubles that the file of a few KB cannot
	 * hold: refused before libhdf5 is asked to read it */
	hid_t f = h5_new();
	h5_part1(f, 100000, 1, NULL);
	char *img = h5_done(f, &len);
	ck_assert_uint_lt(len, 100000);
	snprintf(want, sizeof want, "r.hdf5: /PartType1/Coordinates claims "
	         "2400000 bytes of data, more than the file of %zu bytes can "
	         "hold", len);
	h5_refused(img, len, 1000000, want);
	/* a negative ID, named with its body */
	f = h5_new();
	h5_part1(f, 3, 0, ids);
	img = h5_done(f, &len);
	h5_refused(img, len, 100, "r.hdf5: /PartType1/ParticleIDs: ID -3 of "
	           "body 1 is negative");
	/* NumPart_ThisFile counting a group that is not there, or more
	 * bodies than the group has */
	static const int np[2][6] = {{0, 3, 4, 0, 0, 0}, {0, 2, 0, 0, 0, 0}};
	static const char *const npmsg[2] = {
		"r.hdf5: /Header NumPart_ThisFile[2] is 4, and there is no "
		"/PartType2",
		"r.hdf5: /Header NumPart_ThisFile[1] is 2, and /PartType1 has 3 "
		"bodies"};
	for (int c = 0; c < 2; c++) {
		f = h5_new();
		h5_part1(f, 3, 0, pos);
		h5_attr(f, "Header", "NumPart_ThisFile", np[c], 6);
		img = h5_done(f, &len);
		h5_refused(img, len, 100, npmsg[c]);
	}
	/* a negative step */
	const int step = -2;
	f = h5_new();
	h5_part1(f, 3, 0, pos);
	h5_attr(f, "Parameters", "Step", &step, 1);
	img = h5_done(f, &len);
	h5_refused(img, len, 100, "r.hdf5: /Parameters attribute Step: not an "
	           "integer >= 0");
}
END_TEST

/* --- the bodies' IDs through both formats ----------------------------- */

START_TEST(ids_kept)
{
	unsigned short rng[3];
	seed_rng("ids_kept", rng);
	sim s;
	ck_assert_int_eq(sim_alloc(&s, 23, 0.01), 0);
	sim_ic_make(&s, SIM_PLUMMER, 5);
	ck_assert_ptr_nonnull(s.id = malloc(23 * sizeof *s.id));
	for (int i = 0; i < 23; i++) /* 64 random bits, and the extremes */
		s.id[i] = (uint64_t)jrand48(rng) << 32 ^ (uint32_t)jrand48(rng);
	s.id[3] = UINT64_MAX;
	s.id[9] = 0;
	/* and the name of the file they came from, any bytes of it (item 9) */
	snap_info in = {"file", "leapfrog", 1, 4, 0.5, 0.0625, 0.01, 0, -0.3,
	                0, 0, 0, 0, 0, 0, 0, 0, 1, 1, "a b=100%\t\xc3\xa9.csv"};
	char info[128] = "step=4 icfile=";
	snap_icfile_text(in.icfile, info + strlen(info), 128 - strlen(info));
	ck_assert_str_eq(info, "step=4 icfile=a%20b%3D100%25%09%C3%A9.csv");
	char path[] = "/tmp/test_snap_XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	snap_data d;
	for (int hdf5 = 0; hdf5 <= 1; hdf5++) {
		int rc = hdf5 ? snap_write_hdf5(&s, &in, path, err, sizeof err)
		              : sim_write_snapshot(&s, path, info, err, sizeof err);
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_msg(snap_read(path, 100, &d, err, sizeof err) == 0, "%s",
		              err);
		ck_assert_uint_eq(d.n, 23);
		ck_assert_msg(d.id && memcmp(d.id, s.id, 23 * sizeof *s.id) == 0,
		              "%s IDs", hdf5 ? "HDF5" : "CSV");
		ck_assert_int_eq(d.info.has_icfile, 1);
		ck_assert_str_eq(d.info.icfile, in.icfile);
		snap_data_free(&d);
	}
	/* without IDs of its own, a run writes 0..N-1 */
	free(s.id);
	s.id = NULL;
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	ck_assert_int_eq(snap_read(path, 100, &d, err, sizeof err), 0);
	for (size_t i = 0; i < 23; i++)
		ck_assert(d.id && d.id[i] == i);
	snap_data_free(&d);
	unlink(path);
	sim_free(&s);
	const char *h = "id,x,y,z,vx,vy,vz,m\n";
	char t[256];
	snprintf(t, sizeof t, "%s18446744073709551616,0,0,0,0,0,0,1\n", h);
	refused(t, "b.csv:2: column 'id': '18446744073709551616' is not a body's "
	        "ID (an integer from 0 to 2^64 - 1)");
	snprintf(t, sizeof t, "%s-1,0,0,0,0,0,0,1\n", h);
	refused(t, "b.csv:2: column 'id': '-1' is not a body's ID");
	snprintf(t, sizeof t, "%s,0,0,0,0,0,0,1\n", h);
	refused(t, "b.csv:2: column 'id': '' is not a body's ID");
}
END_TEST

/* --- damaged files ------------------------------------------------------ */

/* nbody's snapshot of 16 Plummer bodies at step 0 (the bytes of `nbody
 * --ic plummer -n 16 --steps 2 --out s --format hdf5`'s first, but for
 * the data, which takes no part in these faults) */
static char *snap16(size_t *len)
{
	sim s;
	ck_assert_int_eq(sim_alloc(&s, 16, 0.015625), 0);
	sim_ic_make(&s, SIM_PLUMMER, 1);
	snap_info in = {"plummer", "leapfrog", 1, 0, 0, 0.0078125, 0.015625, 0,
	                -0.2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, ""};
	char path[] = "/tmp/test_snap_XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	ck_assert_int_eq(snap_write_hdf5(&s, &in, path, err, sizeof err), 0);
	char *img = nb_read_file(path, len, err, sizeof err);
	ck_assert_ptr_nonnull(img);
	unlink(path);
	sim_free(&s);
	return img;
}

START_TEST(hdf5_damaged)
{
	/* bytes set in that file, each making libhdf5 1.10.8 read out of
	 * bounds (issue 28 item 23's 2303 = 0x80: in H5Aexists), fault or
	 * ask for 2^64 - 2^56 bytes, found by mutating a few thousand copies;
	 * the sanitized build reports each in the reader's child process,
	 * and the caller gets a message */
	static const struct {
		int n, at[4], to[4];
	} cut[] = {
		{1, {2303}, {0x80}},
		{1, {4173}, {0xff}},
		{2, {3542, 4239}, {0xff, 0xff}},
		{2, {4117, 5151}, {0xff, 0xff}},
		{4, {1207, 3197, 3355, 3906}, {0x3b, 0xff, 0xff, 0xff}},
	};
	size_t len;
	char *good = snap16(&len);
	char *img = malloc(len);
	ck_assert_ptr_nonnull(img);
	for (size_t c = 0; c < sizeof cut / sizeof cut[0]; c++) {
		memcpy(img, good, len);
		for (int k = 0; k < cut[c].n; k++)
			img[cut[c].at[k]] = (char)cut[c].to[k];
		snap_data d;
		err[0] = 0;
		int rc = snap_parse_hdf5("bad.hdf5", img, len, 100, &d, err,
		                         sizeof err);
		/* read (the fault harmless), or refused with a message */
		ck_assert_msg(rc == 0 || (rc == -1 && strncmp(err, "bad.hdf5: ", 10)
		                                      == 0), "case %zu: %d %s", c,
		              rc, err);
		if (rc == 0) {
			ck_assert_uint_eq(d.n, 16);
			snap_data_free(&d);
		}
	}
	free(img);
	free(good);
}
END_TEST

/* --- snap_apart: readers that crash, loop or lie ------------------------ */

/* a reader ended by the signal *arg */
static int r_raise(const void *arg, size_t max_n, snap_data *d, char *e,
                   size_t el)
{
	(void)max_n, (void)d, (void)e, (void)el;
	raise(*(const int *)arg);
	return -1;
}

static int r_loop(const void *arg, size_t max_n, snap_data *d, char *e,
                  size_t el)
{
	(void)arg, (void)max_n, (void)d, (void)e, (void)el;
	for (volatile unsigned long k = 0;; k++)
		;
	return -1;
}

/* n bodies (*arg), every column and the IDs: more than a pipe holds */
static int r_bodies(const void *arg, size_t max_n, snap_data *d, char *e,
                    size_t el)
{
	(void)max_n, (void)e, (void)el;
	memset(d, 0, sizeof *d);
	d->n = *(const size_t *)arg;
	snprintf(d->info.ic, sizeof d->info.ic, "plummer");
	d->info.has_ic = 1;
	for (int k = 0; k < SC_N; k++) {
		d->col[k] = malloc(d->n * sizeof(double));
		for (size_t i = 0; i < d->n; i++)
			d->col[k][i] = (double)i * 0.5 + k;
	}
	d->id = malloc(d->n * sizeof *d->id);
	for (size_t i = 0; i < d->n; i++)
		d->id[i] = UINT64_MAX - i;
	return 0;
}

static int r_greedy(const void *arg, size_t max_n, snap_data *d, char *e,
                    size_t el)
{
	(void)arg, (void)max_n, (void)d;
	/* twice its budget: refused by the limit, not taken from the host */
	char *p = malloc((size_t)256 << 20);
	if (p)
		memset(p, 1, (size_t)256 << 20);
	return snap_fail(e, el, "x: %s", p ? "got it" : "out of memory");
}

START_TEST(apart)
{
	snap_data d;
	static const int sig[3] = {SIGSEGV, SIGQUIT, SIGHUP};
	ck_assert_int_eq(snap_apart(r_raise, &sig[0], "c", "test", 10, 1 << 26,
	                            10, &d, err, sizeof err), -1);
	/* the signal, or the sanitizer's exit after its report */
	ck_assert_msg(strstr(err, "c: the test reader died of signal 11") ||
	              strstr(err, "c: the test reader failed on it (exit status "),
	              "%s", err);
	ck_assert_msg(strstr(err, "a damaged file?"), "%s", err);
	ck_assert_int_eq(snap_apart(r_loop, NULL, "l", "test", 10, 1 << 26, 1,
	                            &d, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "l: the test reader took more than 1 s of CPU "
	                     "time"), "%s", err);
	size_t n = 100000;
	ck_assert_msg(snap_apart(r_bodies, &n, "b", "test", n, 1 << 26, 10, &d,
	                         err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(d.n, n);
	ck_assert_str_eq(d.info.ic, "plummer");
	for (size_t i = 0; i < n; i += 997)
		for (int k = 0; k < SC_N; k++)
			ck_assert(d.col[k][i] == (double)i * 0.5 + k &&
			          d.id[i] == UINT64_MAX - i);
	ck_assert(d.col[SC_T][n - 1] == (double)(n - 1) * 0.5 + SC_T);
	snap_data_free(&d);
	/* a child that sends more bodies than it may */
	ck_assert_int_eq(snap_apart(r_bodies, &n, "b", "test", n - 1, 1 << 26,
	                            10, &d, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "b: the test reader sent back what it cannot "
	                     "have read"), "%s", err);
	ck_assert(d.n == 0 && !d.col[SC_X] && !d.id);
	if (snap_apart_data_limit) {
		ck_assert_int_eq(snap_apart(r_greedy, NULL, "g", "test", 10,
		                            128 << 20, 10, &d, err, sizeof err), -1);
		ck_assert_str_eq(err, "x: out of memory");
	}
	/* a signal that ends the child leaves the parent's temporaries: its
	 * handlers (tmpfiles.c) are not the child's; SIGHUP and SIGQUIT had
	 * removed them (SIGTERM is Check's own here) */
	char tmp[] = "/tmp/test_snap_tmp_XXXXXX";
	int fd = mkstemp(tmp);
	ck_assert(fd >= 0);
	close(fd);
	int slot = nb_tmp_add(tmp);
	ck_assert_int_ge(slot, 0);
	for (int s = 1; s < 3; s++) {
		ck_assert_int_eq(snap_apart(r_raise, &sig[s], "t", "test", 10,
		                            1 << 26, 10, &d, err, sizeof err), -1);
		ck_assert_msg(access(tmp, F_OK) == 0, "%s: %s", tmp, err);
	}
	nb_tmp_drop(slot);
	unlink(tmp);
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc = unit_case(&s, "snap", 60);
	tcase_add_test(tc, csv_reads);
	tcase_add_test(tc, csv_refusals);
	tcase_add_test(tc, hdf5_roundtrip);
	tcase_add_test(tc, hdf5_no_header);
	tcase_add_test(tc, ids_kept);
	tcase_add_test(tc, hdf5_damaged);
	tcase_add_test(tc, hdf5_refusals);
	tcase_add_test(tc, apart);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? 1 : 0;
}
