/* snap_hdf5.c: bin/nbody's snapshots in HDF5, in the layout of the GADGET
 * family (/Header attributes, /PartType1/Coordinates, Velocities, Masses,
 * ParticleIDs), so that yt, pynbody or h5py read them; the run's own
 * state beside it (/Parameters, Acceleration, Jerk, TimeStep).  Files are
 * made and read as images in memory (HDF5's core driver): written through
 * nb_write_file (a temporary and a rename), read from what nb_read_file
 * read, so that one path serves files and tests alike. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "sim.h"
#include "snap.h"

/* HDF5 prints its error stack on stderr unless told not to: nbody says
 * what went wrong itself. */
static void quiet(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* The datasets of a body's state beyond the initial conditions, by
 * GADGET's names where it has one (Acceleration, Potential, TimeStep). */
static const struct {
	const char *name;
	int col, width; /* first snap.h column, and 3 or 1 of them */
} dsets[] = {
	{"Coordinates", SC_X, 3},  {"Velocities", SC_VX, 3},
	{"Masses", SC_M, 1},       {"Acceleration", SC_AX, 3},
	{"Potential", SC_POT, 1},  {"Jerk", SC_JX, 3},
	{"TimeStep", SC_DT, 1},    {"IndividualTime", SC_T, 1},
};
enum { NDSETS = sizeof dsets / sizeof dsets[0] };

/* --- writing -------------------------------------------------------------- */

typedef struct W {
	hid_t file, gcpl, dcpl; /* creation properties: no times */
	int bad;
} W;

static void attr(W *w, hid_t loc, const char *name, hid_t type, int n,
                 const void *v)
{
	hsize_t dim = (hsize_t)n;
	hid_t sp = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
	hid_t a = H5Acreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
	w->bad |= a < 0 || H5Awrite(a, type, v) < 0;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
}

static void attr_d(W *w, hid_t loc, const char *name, double v)
{
	attr(w, loc, name, H5T_NATIVE_DOUBLE, 1, &v);
}

static void attr_s(W *w, hid_t loc, const char *name, const char *v)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, strlen(v) + 1);
	attr(w, loc, name, t, 1, v);
	H5Tclose(t);
}

/* n x width doubles, interleaved from the columns */
static void dataset(W *w, hid_t g, const char *name, hid_t type,
                    const double *const *cols, int width, size_t n,
                    double add_self, const sim *s)
{
	hsize_t dim[2] = {n, (hsize_t)width};
	double *buf = malloc(n * (size_t)width * sizeof *buf + 1);
	if (!buf) {
		w->bad = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < width; k++)
			buf[i * (size_t)width + (size_t)k] =
				cols[k][i] + (add_self != 0 ? sim_self(s, i) : 0);
	hid_t sp = H5Screate_simple(width == 1 ? 1 : 2, dim, NULL);
	hid_t d = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, w->dcpl,
	                     H5P_DEFAULT);
	w->bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
	                             H5P_DEFAULT, buf) < 0;
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(sp);
	free(buf);
}

static void header(W *w, const sim *s, const snap_info *in)
{
	hid_t h = H5Gcreate2(w->file, "Header", H5P_DEFAULT, w->gcpl,
	                     H5P_DEFAULT);
	int this[6] = {0, (int)s->n, 0, 0, 0, 0}, one = 1, zero = 0;
	unsigned total[6] = {0, (unsigned)s->n, 0, 0, 0, 0}, high[6] = {0};
	double mass[6] = {0};
	attr(w, h, "NumPart_ThisFile", H5T_NATIVE_INT, 6, this);
	attr(w, h, "NumPart_Total", H5T_NATIVE_UINT, 6, total);
	attr(w, h, "NumPart_Total_HighWord", H5T_NATIVE_UINT, 6, high);
	attr(w, h, "MassTable", H5T_NATIVE_DOUBLE, 6, mass);
	attr_d(w, h, "Time", s->t);
	attr_d(w, h, "Redshift", 0);
	attr_d(w, h, "BoxSize", 0);
	attr_d(w, h, "Omega0", 0);
	attr_d(w, h, "OmegaLambda", 0);
	attr_d(w, h, "HubbleParam", 1);
	attr(w, h, "NumFilesPerSnapshot", H5T_NATIVE_INT, 1, &one);
	attr(w, h, "Flag_DoublePrecision", H5T_NATIVE_INT, 1, &one);
	static const char *flags[] = {"Flag_Sfr", "Flag_Cooling", "Flag_Feedback",
	                              "Flag_StellarAge", "Flag_Metals"};
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
		attr(w, h, flags[k], H5T_NATIVE_INT, 1, &zero);
	H5Gclose(h);

	hid_t p = H5Gcreate2(w->file, "Parameters", H5P_DEFAULT, w->gcpl,
	                     H5P_DEFAULT);
	attr_s(w, p, "Units", "N-body (Henon) units: G = 1, total mass and "
	       "energy as the initial conditions give them");
	attr_d(w, p, "GravityConstantInternal", 1);
	attr_s(w, p, "InitialConditions", in->ic);
	attr_s(w, p, "Integrator", in->integrator);
	attr(w, p, "Seed", H5T_NATIVE_UINT64, 1, &in->seed);
	long long step = in->step;
	attr(w, p, "Step", H5T_NATIVE_LLONG, 1, &step);
	attr_d(w, p, "TimeStepMax", in->dt);
	attr_d(w, p, "Softening", in->eps);
	if (in->has_eta)
		attr_d(w, p, "Eta", in->eta);
	if (in->has_e0)
		attr_d(w, p, "InitialEnergy", in->e0);
	H5Gclose(p);
}

static void bodies(W *w, const sim *s)
{
	hid_t g = H5Gcreate2(w->file, "PartType1", H5P_DEFAULT, w->gcpl,
	                     H5P_DEFAULT);
	const double *x[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz};
	const double *a[3] = {s->ax, s->ay, s->az}, *j[3] = {s->jx, s->jy, s->jz};
	const double *m[1] = {s->m}, *p[1] = {s->pot}, *dt[1] = {s->tstep};
	hid_t f64 = H5T_IEEE_F64LE;
	dataset(w, g, "Coordinates", f64, x, 3, s->n, 0, s);
	dataset(w, g, "Velocities", f64, v, 3, s->n, 0, s);
	dataset(w, g, "Masses", f64, m, 1, s->n, 0, s);
	dataset(w, g, "Acceleration", f64, a, 3, s->n, 0, s);
	dataset(w, g, "Potential", f64, p, 1, s->n, 1, s);
	if (s->jx) {
		dataset(w, g, "Jerk", f64, j, 3, s->n, 0, s);
		dataset(w, g, "TimeStep", f64, dt, 1, s->n, 0, s);
		double *t = malloc(s->n * sizeof *t + 1);
		const double *tc[1] = {t};
		if (t) {
			for (size_t i = 0; i < s->n; i++)
				t[i] = s->t; /* every body ends an interval together */
			dataset(w, g, "IndividualTime", f64, tc, 1, s->n, 0, s);
		}
		w->bad |= !t;
		free(t);
	}
	unsigned long long *id = malloc(s->n * sizeof *id + 1);
	if (id) {
		for (size_t i = 0; i < s->n; i++)
			id[i] = i;
		hsize_t dim = s->n;
		hid_t sp = H5Screate_simple(1, &dim, NULL);
		hid_t d = H5Dcreate2(g, "ParticleIDs", H5T_STD_U64LE, sp,
		                     H5P_DEFAULT, w->dcpl, H5P_DEFAULT);
		w->bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_ULLONG, H5S_ALL,
		                             H5S_ALL, H5P_DEFAULT, id) < 0;
		if (d >= 0)
			H5Dclose(d);
		H5Sclose(sp);
	}
	w->bad |= !id;
	free(id);
	H5Gclose(g);
}

int snap_write_hdf5(const sim *s, const snap_info *in, const char *path,
                    char *err, size_t errlen)
{
	quiet();
	W w = {0};
	/* the file is built in memory (no backing store) and its image
	 * written as any other output file; no times in object headers, so
	 * that one state always gives the same bytes */
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_core(fapl, (size_t)1 << 20, 0);
	H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18);
	w.gcpl = H5Pcreate(H5P_GROUP_CREATE);
	w.dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_obj_track_times(w.gcpl, 0);
	H5Pset_obj_track_times(w.dcpl, 0);
	w.file = H5Fcreate("nbody-snapshot.hdf5", H5F_ACC_TRUNC, H5P_DEFAULT,
	                   fapl);
	H5Pclose(fapl);
	char *img = NULL;
	ssize_t len = -1;
	if (w.file >= 0) {
		header(&w, s, in);
		bodies(&w, s);
		H5Fflush(w.file, H5F_SCOPE_GLOBAL);
		len = H5Fget_file_image(w.file, NULL, 0);
		if (len > 0 && (img = malloc((size_t)len)))
			len = H5Fget_file_image(w.file, img, (size_t)len);
		H5Fclose(w.file);
	}
	H5Pclose(w.gcpl);
	H5Pclose(w.dcpl);
	if (w.file < 0 || w.bad || len <= 0 || !img) {
		free(img);
		return snap_fail(err, errlen, "cannot make the HDF5 snapshot '%s'%s",
		            nb_esc(path), !img ? ": out of memory" : "");
	}
	int rc = nb_write_file(path, img, (size_t)len, err, errlen);
	free(img);
	return rc;
}

/* --- reading -------------------------------------------------------------- */

typedef struct R {
	const char *path;
	char *err;
	size_t errlen;
} R;

/* A scalar attribute of loc as a double, if there; 1 found, 0 not, -1 bad */
static int get_attr_d(R *r, hid_t loc, const char *name, double *v, int n)
{
	if (H5Aexists(loc, name) <= 0)
		return 0;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
	hid_t t = a >= 0 ? H5Aget_type(a) : -1;
	H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
	hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
	int ok = (cl == H5T_FLOAT || cl == H5T_INTEGER) && np == n &&
	         H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	if (a >= 0)
		H5Aclose(a);
	if (!ok)
		return snap_fail(r->err, r->errlen, "%s: attribute %s: not %d number%s",
		            r->path, name, n, n > 1 ? "s" : "");
	return 1;
}

/* A fixed-length string attribute, if there and it fits */
static int get_attr_s(R *r, hid_t loc, const char *name, char *buf,
                      size_t cap)
{
	if (H5Aexists(loc, name) <= 0)
		return 0;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : -1;
	int ok = t >= 0 && H5Tget_class(t) == H5T_STRING &&
	         H5Tis_variable_str(t) <= 0 && H5Tget_size(t) < cap;
	if (ok) {
		hid_t mt = H5Tcopy(H5T_C_S1);
		H5Tset_size(mt, cap);
		memset(buf, 0, cap);
		ok = H5Aread(a, mt, buf) >= 0;
		buf[cap - 1] = 0;
		H5Tclose(mt);
	}
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	for (char *c = buf; ok && *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '_')
			ok = 0;
	if (!ok)
		return snap_fail(r->err, r->errlen, "%s: attribute %s: not a short name",
		            r->path, name);
	return 1;
}

static int params(R *r, hid_t file, snap_info *in)
{
	double v;
	int k;
	hid_t h = H5Gopen2(file, "Header", H5P_DEFAULT);
	if (h < 0)
		return snap_fail(r->err, r->errlen, "%s: no /Header group (not a "
		            "GADGET-style HDF5 snapshot)", r->path);
	k = get_attr_d(r, h, "Time", &in->t, 1);
	H5Gclose(h);
	if (k < 0)
		return -1;
	in->has_t = k;
	if (H5Lexists(file, "Parameters", H5P_DEFAULT) <= 0)
		return 0;
	hid_t p = H5Gopen2(file, "Parameters", H5P_DEFAULT);
	if (p < 0)
		return snap_fail(r->err, r->errlen, "%s: cannot open /Parameters", r->path);
	struct {
		const char *name;
		double *d;
		int *has;
	} num[] = {
		{"TimeStepMax", &in->dt, &in->has_dt},
		{"Softening", &in->eps, &in->has_eps},
		{"Eta", &in->eta, &in->has_eta},
		{"InitialEnergy", &in->e0, &in->has_e0},
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof num / sizeof num[0] && rc >= 0; i++)
		if ((rc = get_attr_d(r, p, num[i].name, num[i].d, 1)) > 0) {
			*num[i].has = 1;
			if (!isfinite(*num[i].d))
				rc = snap_fail(r->err, r->errlen, "%s: /Parameters %s is not "
				          "finite", r->path, num[i].name);
		}
	if (rc >= 0 && (rc = get_attr_d(r, p, "Step", &v, 1)) > 0) {
		if (!(v >= 0 && v <= 1e12 && v == floor(v)))
			rc = snap_fail(r->err, r->errlen, "%s: /Parameters Step is not a "
			          "step number", r->path);
		in->step = (long)v;
		in->has_step = 1;
	}
	if (rc >= 0 && H5Aexists(p, "Seed") > 0) {
		unsigned long long seed;
		hid_t a = H5Aopen(p, "Seed", H5P_DEFAULT);
		hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
		if (sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 &&
		    H5Aread(a, H5T_NATIVE_ULLONG, &seed) >= 0) {
			in->seed = seed;
			in->has_seed = 1;
		}
		if (sp >= 0)
			H5Sclose(sp);
		if (a >= 0)
			H5Aclose(a);
	}
	if (rc >= 0 && (rc = get_attr_s(r, p, "InitialConditions", in->ic,
	                                sizeof in->ic)) > 0)
		in->has_ic = 1;
	if (rc >= 0 && (rc = get_attr_s(r, p, "Integrator", in->integrator,
	                                sizeof in->integrator)) > 0)
		in->has_integrator = 1;
	H5Gclose(p);
	return rc < 0 ? -1 : 0;
}

/* Dataset `name` of group g: n rows of `width` values into dst (from
 * row `at`); *rows set to its rows if *rows is (size_t)-1, else checked.
 * 1 read, 0 absent, -1 bad. */
static int get_dataset(R *r, hid_t g, const char *gname, const char *name,
                       int width, size_t *rows, double *dst[3], size_t at,
                       size_t max_n)
{
	if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
		return 0;
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return snap_fail(r->err, r->errlen, "%s: /%s/%s is not a dataset",
		            r->path, gname, name);
	hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
	H5T_class_t cl = H5Tget_class(t);
	hsize_t dim[2] = {0, 0};
	int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
	if (rank >= 1 && rank <= 2)
		H5Sget_simple_extent_dims(sp, dim, NULL);
	int rc = 0;
	if (cl != H5T_FLOAT && cl != H5T_INTEGER)
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s does not hold numbers",
		          r->path, gname, name);
	else if (!(width == 1 ? rank == 1 || (rank == 2 && dim[1] == 1)
	                      : rank == 2 && dim[1] == (hsize_t)width))
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s must have %s (one row a "
		          "body)", r->path, gname, name,
		          width == 1 ? "one column" : "three columns");
	else if (*rows != (size_t)-1 && dim[0] != *rows)
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s has %llu rows, and "
		          "Coordinates %zu", r->path, gname, name,
		          (unsigned long long)dim[0], *rows);
	else if (dim[0] > max_n)
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s: %llu bodies, more than "
		          "the %zu nbody takes", r->path, gname, name,
		          (unsigned long long)dim[0], max_n);
	if (!rc && dst) {
		size_t n = (size_t)dim[0];
		double *buf = malloc(n * (size_t)width * sizeof *buf + 1);
		if (!buf || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
		                    H5P_DEFAULT, buf) < 0)
			rc = snap_fail(r->err, r->errlen, "%s: cannot read /%s/%s%s",
			          r->path, gname, name, buf ? "" : ": out of memory");
		for (size_t i = 0; !rc && i < n; i++)
			for (int k = 0; k < width; k++)
				dst[k][at + i] = buf[i * (size_t)width + (size_t)k];
		free(buf);
	}
	if (!rc && *rows == (size_t)-1)
		*rows = (size_t)dim[0];
	H5Tclose(t);
	H5Sclose(sp);
	H5Dclose(d);
	return rc ? -1 : 1;
}

/* Bodies of every PartTypeK group, K = 0..5, one after another: the
 * datasets every group has are read, the others dropped. */
static int parts(R *r, hid_t file, size_t max_n, snap_data *d)
{
	size_t rows[6], total = 0;
	int have[NDSETS], ngroups = 0;
	double mt[6] = {0};
	hid_t h = H5Gopen2(file, "Header", H5P_DEFAULT);
	int k = get_attr_d(r, h, "MassTable", mt, 6);
	H5Gclose(h);
	if (k < 0)
		return -1;
	for (int s = 0; s < NDSETS; s++)
		have[s] = 1;
	/* first the sizes and which datasets are there */
	for (int t = 0; t < 6; t++) {
		char gname[16];
		snprintf(gname, sizeof gname, "PartType%d", t);
		rows[t] = 0;
		if (H5Lexists(file, gname, H5P_DEFAULT) <= 0)
			continue;
		hid_t g = H5Gopen2(file, gname, H5P_DEFAULT);
		if (g < 0)
			return snap_fail(r->err, r->errlen, "%s: /%s is not a group",
			            r->path, gname);
		size_t n = (size_t)-1;
		int rc = 0;
		for (int s = 0; s < NDSETS && rc >= 0; s++) {
			rc = get_dataset(r, g, gname, dsets[s].name, dsets[s].width,
			                 &n, NULL, 0, max_n);
			if (rc == 0 && s <= 1)
				rc = snap_fail(r->err, r->errlen, "%s: /%s has no %s", r->path,
				          gname, dsets[s].name);
			if (rc == 0 && dsets[s].col == SC_M && !(mt[t] > 0))
				rc = snap_fail(r->err, r->errlen, "%s: /%s has no Masses, and "
				          "/Header MassTable[%d] is not positive", r->path,
				          gname, t);
			if (rc == 0)
				have[s] = 0;
		}
		H5Gclose(g);
		if (rc < 0)
			return -1;
		rows[t] = n;
		total += n;
		ngroups++;
		if (total > max_n)
			return snap_fail(r->err, r->errlen, "%s: more than the %zu bodies "
			            "nbody takes", r->path, max_n);
	}
	if (!ngroups || !total)
		return snap_fail(r->err, r->errlen, "%s: no bodies (no PartType0-5 "
		            "group with Coordinates)", r->path);
	for (int s = 0; s < NDSETS; s++) {
		if (!have[s] && dsets[s].col != SC_M)
			continue;
		for (int c = 0; c < dsets[s].width; c++)
			if (!(d->col[dsets[s].col + c] = malloc(total * sizeof(double))))
				return snap_fail(r->err, r->errlen, "%s: out of memory for %zu "
				            "bodies", r->path, total);
	}
	d->n = total;
	size_t at = 0;
	for (int t = 0; t < 6; t++) {
		if (!rows[t])
			continue;
		char gname[16];
		snprintf(gname, sizeof gname, "PartType%d", t);
		hid_t g = H5Gopen2(file, gname, H5P_DEFAULT);
		int rc = 0;
		for (int s = 0; s < NDSETS && rc >= 0; s++) {
			if (!have[s] && dsets[s].col != SC_M)
				continue;
			double *dst[3];
			for (int c = 0; c < dsets[s].width; c++)
				dst[c] = d->col[dsets[s].col + c];
			rc = get_dataset(r, g, gname, dsets[s].name, dsets[s].width,
			                 &rows[t], dst, at, max_n);
			if (rc == 0) /* the mass table's */
				for (size_t i = 0; i < rows[t]; i++)
					d->col[SC_M][at + i] = mt[t];
		}
		H5Gclose(g);
		if (rc < 0)
			return -1;
		at += rows[t];
	}
	/* the potential is not state: a file's own may be whatever */
	free(d->col[SC_POT]);
	d->col[SC_POT] = NULL;
	return 0;
}

int snap_parse_hdf5(const char *path, const void *image, size_t len,
                    size_t max_n, snap_data *d, char *err, size_t errlen)
{
	quiet();
	memset(d, 0, sizeof *d);
	R r = {path, err, errlen};
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_core(fapl, (size_t)1 << 20, 0);
	H5Pset_file_image(fapl, (void *)image, len);
	hid_t f = H5Fopen("nbody-input.hdf5", H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (f < 0)
		return snap_fail(err, errlen, "%s: HDF5 cannot open it (damaged or "
		            "cut short?)", path);
	int rc = params(&r, f, &d->info);
	if (!rc)
		rc = parts(&r, f, max_n, d);
	H5Fclose(f);
	if (rc)
		snap_data_free(d);
	return rc;
}

static const unsigned char hdf5_sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n',
                                          0x1a, '\n'};

int snap_read(const char *path, size_t max_n, snap_data *d, char *err,
              size_t errlen)
{
	memset(d, 0, sizeof *d);
	size_t len;
	char *text = nb_read_file(path, &len, err, errlen);
	if (!text)
		return -1;
	int rc;
	if (len >= sizeof hdf5_sig && memcmp(text, hdf5_sig, sizeof hdf5_sig) == 0)
		rc = snap_parse_hdf5(path, text, len, max_n, d, err, errlen);
	else if (snap_is_hdf5_name(path))
		rc = snap_fail(err, errlen, "%s: not an HDF5 file (no HDF5 signature)",
		          path);
	else
		rc = snap_parse_csv(path, text, len, max_n, d, err, errlen);
	free(text);
	return rc;
}
