/* snap_hdf5.c: bin/nbody's snapshots written in HDF5, in the layout of
 * the GADGET family (/Header attributes, /PartType1/Coordinates,
 * Velocities, Masses, ParticleIDs), so that yt, pynbody or h5py read them;
 * the run's own state beside it (/Parameters, Acceleration, Jerk,
 * TimeStep).  A file is made as an image in memory (HDF5's core driver)
 * and written through nb_write_file (a temporary and a rename);
 * snap_hdf5_read.c reads them back. */
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
	if (in->has_icfile)
		attr_s(w, p, "InitialConditionsFile", in->icfile);
	attr_s(w, p, "Integrator", in->integrator);
	if (in->has_seed)
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
	/* the IDs of the bodies' file, else 0..N-1 (the CSV's id) */
	uint64_t *id = s->id ? s->id : malloc(s->n * sizeof *id + 1);
	if (id) {
		for (size_t i = 0; !s->id && i < s->n; i++)
			id[i] = i;
		hsize_t dim = s->n;
		hid_t sp = H5Screate_simple(1, &dim, NULL);
		hid_t d = H5Dcreate2(g, "ParticleIDs", H5T_STD_U64LE, sp,
		                     H5P_DEFAULT, w->dcpl, H5P_DEFAULT);
		w->bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL,
		                             H5S_ALL, H5P_DEFAULT, id) < 0;
		if (d >= 0)
			H5Dclose(d);
		H5Sclose(sp);
	}
	w->bad |= !id;
	if (id != s->id)
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
