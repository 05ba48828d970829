/* snap_hdf5_read.c: bin/nbody's reader of HDF5 files of bodies in the
 * layout of the GADGET family (snap.h): the groups /PartType0-5 with
 * Coordinates, Velocities, Masses (or /Header MassTable) and ParticleIDs,
 * and nbody's own state and /Parameters where the file is its snapshot.
 * /Header is optional, as SWIFT's and GADGET-4's readers take it: the
 * datasets give the counts.  libhdf5 reads an image of the file in a
 * child process (snap_fork.c), and every dataset's and attribute's rank,
 * dims, type and size are checked against what nbody expects and against
 * the file's size before it is read. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "snap.h"

/* The datasets of a body's state, by GADGET's names where it has one
 * (Acceleration, Potential, TimeStep); ParticleIDs are the IDs. */
enum { IDS = -1 };
static const struct {
	const char *name;
	int col, width; /* first snap.h column (IDS: the IDs), 3 or 1 */
} dsets[] = {
	{"Coordinates", SC_X, 3},  {"Velocities", SC_VX, 3},
	{"Masses", SC_M, 1},       {"Acceleration", SC_AX, 3},
	{"Potential", SC_POT, 1},  {"Jerk", SC_JX, 3},
	{"TimeStep", SC_DT, 1},    {"IndividualTime", SC_T, 1},
	{"ParticleIDs", IDS, 1},
};
enum { NDSETS = sizeof dsets / sizeof dsets[0] };

/* deflate's largest ratio: what a filtered dataset's bytes can expand to */
enum { MAX_RATIO = 1032 };

typedef struct R {
	const char *path;
	char *err;
	size_t errlen;
	size_t len; /* the file's size, which bounds what its data can be */
} R;

/* The number types nbody reads: IEEE floats and two's-complement
 * integers of the usual sizes in either byte order (integers only where
 * `integer`).  HDF5 converts these by its hard conversions; another
 * type's bit fields, whatever a damaged file says, would reach its soft
 * ones. */
static int usual(hid_t t, int integer)
{
	hid_t std[] = {
		H5T_STD_I8LE,   H5T_STD_I8BE,   H5T_STD_U8LE,   H5T_STD_U8BE,
		H5T_STD_I16LE,  H5T_STD_I16BE,  H5T_STD_U16LE,  H5T_STD_U16BE,
		H5T_STD_I32LE,  H5T_STD_I32BE,  H5T_STD_U32LE,  H5T_STD_U32BE,
		H5T_STD_I64LE,  H5T_STD_I64BE,  H5T_STD_U64LE,  H5T_STD_U64BE,
		H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE,
	};
	size_t n = sizeof std / sizeof std[0] - (integer ? 4 : 0);
	for (size_t k = 0; t >= 0 && k < n; k++)
		if (H5Tequal(t, std[k]) > 0)
			return 1;
	return 0;
}

/* An attribute with its dataspace and type: 1 open, 0 absent (loc may
 * be -1: no such group), -1 when one of the three cannot be opened. */
typedef struct Attr {
	hid_t a, sp, t;
} Attr;

static int attr_open(hid_t loc, const char *name, Attr *at)
{
	at->a = at->sp = at->t = -1;
	if (loc < 0 || H5Aexists(loc, name) <= 0)
		return 0;
	at->a = H5Aopen(loc, name, H5P_DEFAULT);
	at->sp = at->a >= 0 ? H5Aget_space(at->a) : -1;
	at->t = at->a >= 0 ? H5Aget_type(at->a) : -1;
	return at->a >= 0 && at->sp >= 0 && at->t >= 0 ? 1 : -1;
}

static void attr_close(Attr *at)
{
	if (at->t >= 0)
		H5Tclose(at->t);
	if (at->sp >= 0)
		H5Sclose(at->sp);
	if (at->a >= 0)
		H5Aclose(at->a);
}

/* Attribute `name` of loc, n numbers as doubles into v, if there (loc
 * may be -1: no such group); 1 read, 0 absent, -1 refused. */
static int get_attr_d(R *r, hid_t loc, const char *where, const char *name,
                      double *v, int n)
{
	Attr at;
	int k = attr_open(loc, name, &at);
	int ok = k > 0 && usual(at.t, 0) &&
	         H5Sget_simple_extent_npoints(at.sp) == n &&
	         H5Aread(at.a, H5T_NATIVE_DOUBLE, v) >= 0;
	for (int i = 0; ok && i < n; i++)
		ok = isfinite(v[i]);
	attr_close(&at);
	if (k == 0)
		return 0;
	if (!ok)
		return snap_fail(r->err, r->errlen, "%s: /%s attribute %s: not %d "
		                 "finite number%s", r->path, where, name, n,
		                 n > 1 ? "s" : "");
	return 1;
}

/* An integer attribute >= 0 as 64 bits, if there; 1, 0 absent, -1 */
static int get_attr_u64(R *r, hid_t loc, const char *where,
                        const char *name, uint64_t *v)
{
	Attr at;
	int k = attr_open(loc, name, &at);
	int sgn = k > 0 && usual(at.t, 1) && H5Tget_sign(at.t) == H5T_SGN_2;
	int64_t s = 0;
	int ok = k > 0 && usual(at.t, 1) &&
	         H5Sget_simple_extent_npoints(at.sp) == 1 &&
	         (sgn ? H5Aread(at.a, H5T_NATIVE_INT64, &s) >= 0 && s >= 0
	              : H5Aread(at.a, H5T_NATIVE_UINT64, v) >= 0);
	if (ok && sgn)
		*v = (uint64_t)s;
	attr_close(&at);
	if (k == 0)
		return 0;
	if (!ok)
		return snap_fail(r->err, r->errlen, "%s: /%s attribute %s: not an "
		                 "integer >= 0", r->path, where, name);
	return 1;
}

/* A fixed-length string attribute, if there and it fits: a short name
 * (letters, digits, '_'), or with any text a file's name of any bytes */
static int get_attr_s(R *r, hid_t loc, const char *name, char *buf,
                      size_t cap, int any)
{
	Attr at;
	int k = attr_open(loc, name, &at);
	int ok = k > 0 && H5Sget_simple_extent_npoints(at.sp) == 1 &&
	         H5Tget_class(at.t) == H5T_STRING &&
	         H5Tis_variable_str(at.t) == 0 && H5Tget_size(at.t) < cap;
	if (ok) {
		hid_t mt = H5Tcopy(H5T_C_S1);
		H5Tset_size(mt, cap);
		memset(buf, 0, cap);
		ok = mt >= 0 && H5Aread(at.a, mt, buf) >= 0;
		buf[cap - 1] = 0;
		if (mt >= 0)
			H5Tclose(mt);
	}
	attr_close(&at);
	if (k == 0)
		return 0;
	for (char *c = buf; ok && !any && *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '_')
			ok = 0;
	if (!ok || (any && !*buf))
		return snap_fail(r->err, r->errlen, "%s: /Parameters attribute %s: "
		                 "not a %s", r->path, name,
		                 any ? "text that fits" : "short name");
	return 1;
}

/* /Header, if the file has one: the time, one file a snapshot.  *h is
 * the group (for MassTable and NumPart_ThisFile), or -1. */
static int header(R *r, hid_t file, hid_t *h, snap_info *in)
{
	*h = -1;
	if (H5Lexists(file, "Header", H5P_DEFAULT) <= 0)
		return 0; /* the datasets say it all; the time is 0 */
	if ((*h = H5Gopen2(file, "Header", H5P_DEFAULT)) < 0)
		return snap_fail(r->err, r->errlen, "%s: /Header is not a group",
		                 r->path);
	double files;
	int k = get_attr_d(r, *h, "Header", "NumFilesPerSnapshot", &files, 1);
	if (k > 0 && files > 1)
		return snap_fail(r->err, r->errlen, "%s: one of %g files of a "
		                 "snapshot (/Header NumFilesPerSnapshot): nbody "
		                 "reads a snapshot in one file", r->path, files);
	if (k >= 0)
		k = get_attr_d(r, *h, "Header", "Time", &in->t, 1);
	in->has_t = k > 0;
	return k < 0 ? -1 : 0;
}

static int params(R *r, hid_t file, snap_info *in)
{
	if (H5Lexists(file, "Parameters", H5P_DEFAULT) <= 0)
		return 0;
	hid_t p = H5Gopen2(file, "Parameters", H5P_DEFAULT);
	if (p < 0)
		return snap_fail(r->err, r->errlen, "%s: /Parameters is not a group",
		                 r->path);
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
		if ((rc = get_attr_d(r, p, "Parameters", num[i].name, num[i].d,
		                     1)) > 0)
			*num[i].has = 1;
	uint64_t v;
	if (rc >= 0 && (rc = get_attr_u64(r, p, "Parameters", "Step", &v)) > 0) {
		if (v > 1000000000000u)
			rc = snap_fail(r->err, r->errlen, "%s: /Parameters Step is not a "
			               "step number", r->path);
		in->step = (long)v;
		in->has_step = 1;
	}
	if (rc >= 0 && (rc = get_attr_u64(r, p, "Parameters", "Seed",
	                                  &in->seed)) > 0)
		in->has_seed = 1;
	if (rc >= 0 && (rc = get_attr_s(r, p, "InitialConditions", in->ic,
	                                sizeof in->ic, 0)) > 0)
		in->has_ic = 1;
	if (rc >= 0 && (rc = get_attr_s(r, p, "InitialConditionsFile",
	                                in->icfile, sizeof in->icfile, 1)) > 0)
		in->has_icfile = 1;
	if (rc >= 0 && (rc = get_attr_s(r, p, "Integrator", in->integrator,
	                                sizeof in->integrator, 0)) > 0)
		in->has_integrator = 1;
	H5Gclose(p);
	return rc < 0 ? -1 : 0;
}

/* What a dataset's data may take, in bytes: the file holds it, or, where
 * filters such as deflate packed it, MAX_RATIO times the file. */
static size_t room(const R *r, hid_t dcpl)
{
	if (H5Pget_nfilters(dcpl) <= 0)
		return r->len;
	return r->len > SIZE_MAX / MAX_RATIO ? SIZE_MAX : r->len * MAX_RATIO;
}

/* The storage of dataset d, checked before anything is read: in this
 * file (no external files, no virtual dataset's other files), `bytes` of
 * data and a chunk within room().  The chunk's bytes into *chunk. */
static int storage(R *r, hid_t d, const char *gname, const char *name,
                   size_t bytes, size_t tsize, size_t *chunk)
{
	hid_t dcpl = H5Dget_create_plist(d);
	if (dcpl < 0)
		return snap_fail(r->err, r->errlen, "%s: /%s/%s: no storage "
		                 "properties", r->path, gname, name);
	H5D_layout_t lay = H5Pget_layout(dcpl);
	int ext = H5Pget_external_count(dcpl);
	size_t cap = room(r, dcpl);
	int rc = 0;
	*chunk = 0;
	if (ext != 0 || (lay != H5D_COMPACT && lay != H5D_CONTIGUOUS &&
	                 lay != H5D_CHUNKED))
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s is stored outside the "
		               "file (external or virtual): nbody reads data in the "
		               "file only", r->path, gname, name);
	else if (bytes > cap)
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s claims %zu bytes of "
		               "data, more than the file of %zu bytes can hold",
		               r->path, gname, name, bytes, r->len);
	if (!rc && lay == H5D_CHUNKED) {
		hsize_t cd[2] = {0, 0};
		int k = H5Pget_chunk(dcpl, 2, cd), big = k < 1 || k > 2;
		size_t c = tsize;
		for (int i = 0; !big && i < k; i++)
			if (!(big = cd[i] == 0 || cd[i] > cap / c))
				c *= (size_t)cd[i];
		if (big || c > cap)
			rc = snap_fail(r->err, r->errlen, "%s: /%s/%s: chunks larger "
			               "than the file can hold", r->path, gname, name);
		*chunk = c;
	}
	H5Pclose(dcpl);
	return rc;
}

/* Dataset `name` of group g, checked: n rows of `width` numbers (the IDs:
 * integers >= 0); *rows set to its rows if it is (size_t)-1, else they
 * must agree.  With dst (or ids), read into it from row `at`.  1 read,
 * 0 absent, -1 refused. */
static int get_dataset(R *r, hid_t g, const char *gname, int s,
                       size_t *rows, double *dst[3], uint64_t *ids,
                       size_t at, size_t max_n)
{
	const char *name = dsets[s].name;
	int width = dsets[s].width, integer = dsets[s].col == IDS;
	if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
		return 0;
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return snap_fail(r->err, r->errlen, "%s: /%s/%s is not a dataset",
		                 r->path, gname, name);
	hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
	hsize_t dim[2] = {0, 0};
	int rank = sp >= 0 && H5Sget_simple_extent_type(sp) == H5S_SIMPLE
	           ? H5Sget_simple_extent_ndims(sp) : -1;
	if (rank >= 1 && rank <= 2 && H5Sget_simple_extent_dims(sp, dim, NULL) < 0)
		rank = -1;
	size_t tsize = usual(t, integer) ? H5Tget_size(t) : 0, chunk = 0;
	int rc = 0;
	if (!tsize)
		rc = snap_fail(r->err, r->errlen, "%s: /%s/%s does not hold %s",
		               r->path, gname, name, integer ? "integers (8 to 64 "
		               "bits)" : "numbers (integers, or IEEE floats of 32 "
		               "or 64 bits)");
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
	size_t n = (size_t)dim[0];
	if (!rc)
		rc = storage(r, d, gname, name, n * (size_t)width * tsize, tsize,
		             &chunk);
	if (!rc && (dst || ids)) {
		/* 8 bytes a value: doubles, or the IDs as 64-bit integers */
		snap_apart_allow(n * (size_t)width * 8 + 2 * chunk);
		int sgn = integer && H5Tget_sign(t) == H5T_SGN_2;
		hid_t mem = !integer ? H5T_NATIVE_DOUBLE
		            : sgn ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
		void *buf = malloc(n * (size_t)width * 8 + 1);
		if (!buf || H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
			rc = snap_fail(r->err, r->errlen, "%s: cannot read /%s/%s%s",
			               r->path, gname, name, buf ? "" : ": out of memory");
		const double *v = buf;
		const int64_t *iv = buf;
		for (size_t i = 0; !rc && ids && i < n; i++) {
			if (sgn && iv[i] < 0)
				rc = snap_fail(r->err, r->errlen, "%s: /%s/%s: ID %lld of "
				               "body %zu is negative", r->path, gname, name,
				               (long long)iv[i], i);
			ids[at + i] = (uint64_t)iv[i];
		}
		for (size_t i = 0; !rc && dst && i < n; i++)
			for (int k = 0; k < width; k++)
				dst[k][at + i] = v[i * (size_t)width + (size_t)k];
		free(buf);
	}
	if (!rc && *rows == (size_t)-1)
		*rows = n;
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	H5Dclose(d);
	return rc ? -1 : 1;
}

/* Bodies of every PartTypeK group, K = 0..5, one after another: the
 * datasets every group has are read, the others dropped.  h: /Header or
 * -1. */
static int parts(R *r, hid_t file, hid_t h, size_t max_n, snap_data *d)
{
	size_t rows[6], total = 0;
	int have[NDSETS], ngroups = 0;
	double mt[6] = {0}, np[6];
	int k = get_attr_d(r, h, "Header", "MassTable", mt, 6), knp = 0;
	if (k >= 0)
		knp = get_attr_d(r, h, "Header", "NumPart_ThisFile", np, 6);
	if (k < 0 || knp < 0)
		return -1;
	for (int s = 0; s < NDSETS; s++)
		have[s] = 1;
	/* first the sizes and which datasets are there */
	for (int t = 0; t < 6; t++) {
		char gname[16];
		snprintf(gname, sizeof gname, "PartType%d", t);
		rows[t] = 0;
		if (H5Lexists(file, gname, H5P_DEFAULT) <= 0) {
			if (knp && np[t] != 0)
				return snap_fail(r->err, r->errlen, "%s: /Header "
				                 "NumPart_ThisFile[%d] is %g, and there is "
				                 "no /%s", r->path, t, np[t], gname);
			continue;
		}
		hid_t g = H5Gopen2(file, gname, H5P_DEFAULT);
		if (g < 0)
			return snap_fail(r->err, r->errlen, "%s: /%s is not a group",
			                 r->path, gname);
		size_t n = (size_t)-1;
		int rc = 0;
		for (int s = 0; s < NDSETS && rc >= 0; s++) {
			rc = get_dataset(r, g, gname, s, &n, NULL, NULL, 0, max_n);
			if (rc == 0 && s <= 1)
				rc = snap_fail(r->err, r->errlen, "%s: /%s has no %s", r->path,
				               gname, dsets[s].name);
			if (rc == 0 && dsets[s].col == SC_M && h < 0)
				rc = snap_fail(r->err, r->errlen, "%s: /%s has no Masses, and "
				               "there is no /Header MassTable", r->path,
				               gname);
			else if (rc == 0 && dsets[s].col == SC_M && !(mt[t] > 0))
				rc = snap_fail(r->err, r->errlen, "%s: /%s has no Masses, and "
				               "/Header MassTable[%d] is not positive",
				               r->path, gname, t);
			if (rc == 0)
				have[s] = 0;
		}
		H5Gclose(g);
		if (rc < 0)
			return -1;
		if (knp && np[t] != (double)n)
			return snap_fail(r->err, r->errlen, "%s: /Header "
			                 "NumPart_ThisFile[%d] is %g, and /%s has %zu "
			                 "bodies", r->path, t, np[t], gname, n);
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
		/* the potential is not state: a file's own may be whatever */
		have[s] &= dsets[s].col != SC_POT;
		if (!have[s] && dsets[s].col != SC_M)
			continue;
		snap_apart_allow(total * 8 * (size_t)dsets[s].width);
		int ok = 1;
		if (dsets[s].col == IDS)
			ok = (d->id = malloc(total * sizeof *d->id)) != NULL;
		for (int c = 0; dsets[s].col != IDS && c < dsets[s].width; c++)
			ok &= (d->col[dsets[s].col + c] =
			       malloc(total * sizeof(double))) != NULL;
		if (!ok)
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
		int rc = g < 0 ? -1 : 0;
		for (int s = 0; s < NDSETS && rc >= 0; s++) {
			if (!have[s] && dsets[s].col != SC_M)
				continue;
			double *dst[3] = {NULL, NULL, NULL};
			for (int c = 0; dsets[s].col >= 0 && c < dsets[s].width; c++)
				dst[c] = d->col[dsets[s].col + c];
			rc = get_dataset(r, g, gname, s, &rows[t],
			                 dsets[s].col == IDS ? NULL : dst,
			                 dsets[s].col == IDS ? d->id : NULL, at, max_n);
			if (rc == 0) /* the mass table's */
				for (size_t i = 0; i < rows[t]; i++)
					d->col[SC_M][at + i] = mt[t];
		}
		if (g >= 0)
			H5Gclose(g);
		if (rc < 0)
			return g < 0 ? snap_fail(r->err, r->errlen, "%s: cannot open /%s",
			                         r->path, gname) : -1;
		at += rows[t];
	}
	return 0;
}

typedef struct Image {
	const char *path;
	const void *data;
	size_t len;
} Image;

/* The reader proper, in the child process (snap_reader) */
static int read_image(const void *arg, size_t max_n, snap_data *d,
                      char *err, size_t errlen)
{
	const Image *im = arg;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* nbody says what went wrong */
	memset(d, 0, sizeof *d);
	R r = {im->path, err, errlen, im->len};
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_core(fapl, (size_t)1 << 20, 0);
	H5Pset_file_image(fapl, (void *)im->data, im->len);
	hid_t f = H5Fopen("nbody-input.hdf5", H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (f < 0)
		return snap_fail(err, errlen, "%s: HDF5 cannot open it (damaged or "
		                 "cut short?)", im->path);
	hid_t h;
	int rc = header(&r, f, &h, &d->info);
	if (!rc)
		rc = params(&r, f, &d->info);
	if (!rc)
		rc = parts(&r, f, h, max_n, d);
	if (h >= 0)
		H5Gclose(h);
	H5Fclose(f);
	if (rc)
		snap_data_free(d);
	return rc;
}

int snap_parse_hdf5(const char *path, const void *image, size_t len,
                    size_t max_n, snap_data *d, char *err, size_t errlen)
{
	Image im = {path, image, len};
	/* the library itself, its copy of the image and its caches; each
	 * dataset's data is allowed for after its checks.  A CPU second
	 * reads 4 MB, many times over. */
	size_t budget = ((size_t)128 << 20) +
	                (len > SIZE_MAX / 4 ? SIZE_MAX / 2 : 2 * len);
	double cpu_s = 30 + (double)len / (4 << 20);
	return snap_apart(read_image, &im, path, "HDF5", max_n, budget, cpu_s, d,
	                  err, errlen);
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
	/* the readers name the file in their messages: its control bytes
	 * escaped, or a terminal would act on them */
	char *name = strdup(nb_esc(path));
	int rc;
	if (!name)
		rc = snap_fail(err, errlen, "%s: out of memory", nb_esc(path));
	else if (len >= sizeof hdf5_sig &&
	         memcmp(text, hdf5_sig, sizeof hdf5_sig) == 0)
		rc = snap_parse_hdf5(name, text, len, max_n, d, err, errlen);
	else if (snap_is_hdf5_name(path))
		rc = snap_fail(err, errlen, "%s: not an HDF5 file (no HDF5 signature)",
		               name);
	else
		rc = snap_parse_csv(name, text, len, max_n, d, err, errlen);
	free(name);
	free(text);
	return rc;
}
