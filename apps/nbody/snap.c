/* snap.c: reading bin/nbody's initial conditions and restart snapshots
 * (snap.h): the CSV reader, the checks every file's values pass, and the
 * choice between CSV and HDF5.  Numbers go through csv_number, so a
 * snapshot written with %.17g reads back to the same doubles. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "nbcc.h"
#include "opt.h"
#include "snap.h"

const char *const snap_col_name[SC_N] = {
	"x", "y", "z", "vx", "vy", "vz", "m", "ax", "ay", "az", "pot",
	"jx", "jy", "jz", "dt", "t",
};

void snap_data_free(snap_data *d)
{
	for (int k = 0; k < SC_N; k++)
		free(d->col[k]);
	free(d->id);
	free(d->line);
	memset(d, 0, sizeof *d);
}

void snap_where(const snap_data *d, const char *path, size_t i, char *buf,
                size_t len)
{
	if (d->line)
		snprintf(buf, len, "%s:%ld", nb_esc(path), d->line[i]);
	else
		snprintf(buf, len, "%s, body %zu", nb_esc(path), i);
}

int snap_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* --- the comment line of nbody's snapshots ------------------------------ */

static int blank(int c)
{
	return c == ' ' || c == '\t';
}

static int name_byte(int c)
{
	return isalnum(c) || (c && strchr("._/+-", c));
}

void snap_icfile_text(const char *name, char *buf, size_t len)
{
	size_t k = 0;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if (k + 4 > len)
			break;
		if (name_byte(*c))
			buf[k++] = (char)*c;
		else
			k += (size_t)snprintf(buf + k, len - k, "%%%02X", *c);
	}
	if (len)
		buf[k < len ? k : len - 1] = 0;
}

/* icfile=TEXT back into in->icfile: %XX two hex digits, not 00 */
static int icfile_read(const char *v, size_t vn, snap_info *in)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = 0;
	for (size_t i = 0; i < vn; i++) {
		int c = (unsigned char)v[i];
		if (c == '%') {
			const char *h1 = i + 2 < vn ? memchr(hex, v[i + 1], 16) : NULL;
			const char *h2 = h1 ? memchr(hex, v[i + 2], 16) : NULL;
			if (!h2 || (h1 == hex && h2 == hex))
				return -1;
			c = (int)((h1 - hex) * 16 + (h2 - hex));
			i += 2;
		} else if (!name_byte(c)) {
			return -1;
		}
		if (k + 1 >= sizeof in->icfile)
			return -1;
		in->icfile[k++] = (char)c;
	}
	if (!k)
		return -1;
	in->icfile[k] = 0;
	in->has_icfile = 1;
	return 0;
}

static int printable(const char *s, size_t n, char *buf, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 4 < len; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[k++] = c >= 32 && c < 127 ? (char)c : '?';
		if (i == 39 && n > 40) {
			memcpy(buf + k, "...", 3);
			k += 3;
			break;
		}
	}
	buf[k] = 0;
	return 0;
}

/* "# nbody snapshot: ic=plummer n=1024 seed=1 step=10 t=... dt=... eps=...
 * G=1 integrator=hermite eta=... e0=... [icfile=...]": the keys nbody reads
 * back.  A key it knows with a bad value is an error; others are skipped. */
static int comment_keys(const char *path, long line, const char *s,
                        size_t n, snap_info *in, uint64_t *rows, char *err,
                        size_t errlen)
{
	static const char tag[] = "# nbody snapshot:";
	if (n < sizeof tag - 1 || memcmp(s, tag, sizeof tag - 1) != 0)
		return 0;
	size_t i = sizeof tag - 1;
	while (i < n) {
		while (i < n && blank(s[i]))
			i++;
		size_t kb = i;
		while (i < n && !blank(s[i]) && s[i] != '=')
			i++;
		size_t ke = i;
		if (i >= n || s[i] != '=') {
			while (i < n && !blank(s[i]))
				i++;
			continue;
		}
		size_t vb = ++i;
		while (i < n && !blank(s[i]))
			i++;
		size_t vn = i - vb, kn = ke - kb;
		const char *v = s + vb;
		char key[16];
		if (kn == 0 || kn >= sizeof key)
			continue;
		memcpy(key, s + kb, kn);
		key[kn] = 0;
		struct {
			const char *name;
			double *d;
			int *has;
		} num[] = {
			{"t", &in->t, &in->has_t}, {"dt", &in->dt, &in->has_dt},
			{"eps", &in->eps, &in->has_eps}, {"eta", &in->eta, &in->has_eta},
			{"e0", &in->e0, &in->has_e0},
		};
		int done = 0;
		for (size_t k = 0; k < sizeof num / sizeof num[0]; k++) {
			if (strcmp(key, num[k].name) != 0)
				continue;
			double val[2];
			if (csv_number(v, vn, NB_DOUBLE, val) != CSV_OK) {
				/* the file's bytes, which a terminal would act on */
				char q[64];
				printable(v, vn, q, sizeof q);
				return snap_fail(err, errlen, "%s:%ld: %s=%s is not a finite "
				            "number", path, line, key, q);
			}
			*num[k].d = val[0];
			*num[k].has = 1;
			done = 1;
		}
		if (done)
			continue;
		if (strcmp(key, "step") == 0 || strcmp(key, "seed") == 0 ||
		    strcmp(key, "n") == 0) {
			uint64_t x;
			if (opt_u64(v, vn, &x) || (key[1] == 't' && x > 1000000000000ULL))
				return snap_fail(err, errlen, "%s:%ld: %s needs a non-negative "
				            "integer", path, line, key);
			if (key[0] == 'n') {
				*rows = x;
			} else if (key[1] == 't') {
				in->step = (long)x;
				in->has_step = 1;
			} else {
				in->seed = x;
				in->has_seed = 1;
			}
		} else if (strcmp(key, "icfile") == 0) {
			if (icfile_read(v, vn, in))
				return snap_fail(err, errlen, "%s:%ld: bad icfile", path, line);
		} else if (strcmp(key, "ic") == 0 || strcmp(key, "integrator") == 0) {
			int ic = key[0] == 'i' && key[1] == 'c';
			char *dst = ic ? in->ic : in->integrator;
			size_t cap = ic ? sizeof in->ic : sizeof in->integrator;
			if (vn == 0 || vn >= cap)
				return snap_fail(err, errlen, "%s:%ld: bad %s", path, line, key);
			for (size_t k = 0; k < vn; k++)
				if (!isalnum((unsigned char)v[k]) && v[k] != '_')
					return snap_fail(err, errlen, "%s:%ld: bad %s", path, line,
					            key);
			memcpy(dst, v, vn);
			dst[vn] = 0;
			*(ic ? &in->has_ic : &in->has_integrator) = 1;
		}
	}
	return 0;
}

/* --- the CSV reader ------------------------------------------------------- */

typedef struct Line {
	const char *s;
	size_t n;
	long no;
} Line;

/* The next line of text[*pos..len), without its end (\n or \r\n). */
static int next_line(const char *text, size_t len, size_t *pos, Line *l)
{
	if (*pos >= len)
		return 0;
	const char *b = text + *pos;
	const char *nl = memchr(b, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - b) : len - *pos;
	*pos += nl ? n + 1 : n;
	if (n && b[n - 1] == '\r')
		n--;
	l->s = b;
	l->n = n;
	l->no++;
	return 1;
}

static int skippable(const Line *l)
{
	size_t i = 0;
	while (i < l->n && blank(l->s[i]))
		i++;
	return i == l->n || l->s[i] == '#';
}

/* The field at *p: blanks around it and one pair of quotes go; *p moves
 * past the comma.  Returns 1 if there was a field, 0 at the line's end. */
static int field(const Line *l, size_t *p, const char **b, size_t *n)
{
	if (*p > l->n)
		return 0;
	size_t i = *p;
	while (i < l->n && blank(l->s[i]))
		i++;
	const char *c = memchr(l->s + i, ',', l->n - i);
	size_t e = c ? (size_t)(c - l->s) : l->n;
	*p = e + 1;
	size_t j = e;
	while (j > i && blank(l->s[j - 1]))
		j--;
	if (j - i >= 2 && l->s[i] == '"' && l->s[j - 1] == '"') {
		i++;
		j--;
		while (i < j && blank(l->s[i]))
			i++;
		while (j > i && blank(l->s[j - 1]))
			j--;
	}
	*b = l->s + i;
	*n = j - i;
	return 1;
}

/* Lines that hold bodies, counted before anything is allocated. */
static size_t count_rows(const char *text, size_t len, size_t pos)
{
	size_t rows = 0;
	Line l = {0};
	while (next_line(text, len, &pos, &l))
		rows += !skippable(&l);
	return rows;
}

/* The IDs' column, beside snap.h's columns of numbers */
enum { COL_ID = SC_N };

/* The header: map[f] is the column of field f (COL_ID: id), or -1
 * (skipped). */
static int header(const char *path, const Line *l, int *map, int *nf,
                  int maxf, char *err, size_t errlen)
{
	int seen[SC_N + 1] = {0};
	size_t p = 0;
	const char *b;
	size_t n;
	const char *sep = "";
	*nf = 0;
	while (field(l, &p, &b, &n)) {
		if (!*sep)
			sep = csv_sep_hint(b, n);
		if (*nf == maxf)
			return snap_fail(err, errlen, "%s:%ld: more than %d columns", path,
			            l->no, maxf);
		int c = n == 2 && memcmp(b, "id", 2) == 0 ? COL_ID : -1;
		for (int k = 0; k < SC_N; k++)
			if (strlen(snap_col_name[k]) == n &&
			    memcmp(snap_col_name[k], b, n) == 0)
				c = k;
		if (c >= 0 && seen[c]++) {
			char q[64];
			printable(b, n, q, sizeof q);
			return snap_fail(err, errlen, "%s:%ld: column '%s' twice", path,
			            l->no, q);
		}
		map[(*nf)++] = c;
	}
	for (int k = 0; k <= SC_M; k++)
		if (!seen[k])
			return snap_fail(err, errlen, "%s:%ld: the header lacks column '%s' "
			            "(a CSV of bodies needs x, y, z, vx, vy, vz, m%s%s)",
			            path, l->no, snap_col_name[k], *sep ? "; " : "", sep);
	return 0;
}

int snap_parse_csv(const char *path, const char *text, size_t len,
                   size_t max_n, snap_data *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	/* a UTF-8 byte order mark, as spreadsheets write */
	size_t pos = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	Line l = {0};
	int first_comment = 1;
	uint64_t said = UINT64_MAX; /* the comment's n=, where it has one */
	/* comments, then the header */
	for (;;) {
		if (!next_line(text, len, &pos, &l))
			return snap_fail(err, errlen, "%s: no header line (a CSV of bodies "
			            "needs columns x, y, z, vx, vy, vz, m)", path);
		if (!skippable(&l))
			break;
		if (first_comment && l.n && l.s[0] == '#') {
			first_comment = 0;
			if (comment_keys(path, l.no, l.s, l.n, &d->info, &said, err,
			                 errlen))
				return -1;
		}
	}
	enum { MAXF = 256 };
	int map[MAXF], nf;
	if (header(path, &l, map, &nf, MAXF, err, errlen))
		return -1;
	size_t rows = count_rows(text, len, pos);
	if (rows == 0)
		return snap_fail(err, errlen, "%s: no bodies after the header", path);
	/* a snapshot cut short at a line's end parses, but for its count */
	if (said != UINT64_MAX && said != rows)
		return snap_fail(err, errlen, "%s: %zu bodies, and its comment line "
		            "says n=%" PRIu64 " (a file cut short?)", path, rows, said);
	if (rows > max_n)
		return snap_fail(err, errlen, "%s: %zu bodies, more than the %zu nbody "
		            "takes", path, rows, max_n);
	int ok = (d->line = malloc(rows * sizeof *d->line)) != NULL;
	for (int f = 0; f < nf; f++)
		if (map[f] == COL_ID && ok)
			ok = (d->id = malloc(rows * sizeof *d->id)) != NULL;
		else if (map[f] >= 0 && ok)
			ok = (d->col[map[f]] = malloc(rows * sizeof(double))) != NULL;
	if (!ok) {
		snap_data_free(d);
		return snap_fail(err, errlen, "%s: out of memory for %zu bodies", path,
		            rows);
	}
	size_t i = 0;
	while (next_line(text, len, &pos, &l)) {
		if (skippable(&l))
			continue;
		size_t p = 0;
		const char *b;
		size_t n;
		int f = 0;
		while (field(&l, &p, &b, &n)) {
			if (f == nf) {
				snap_data_free(d);
				return snap_fail(err, errlen, "%s:%ld: more fields than the "
				            "header's %d", path, l.no, nf);
			}
			int c = map[f++];
			if (c < 0)
				continue;
			if (c == COL_ID && opt_u64(b, n, &d->id[i])) {
				char q[64];
				printable(b, n, q, sizeof q);
				snap_data_free(d);
				return snap_fail(err, errlen, "%s:%ld: column 'id': '%s' is "
				            "not a body's ID (an integer from 0 to 2^64 - 1)",
				            path, l.no, q);
			}
			if (c == COL_ID)
				continue;
			double v[2];
			csv_status st = csv_number(b, n, NB_DOUBLE, v);
			if (st != CSV_OK) {
				char why[160];
				csv_value_msg(why, sizeof why, st, b, n, NB_DOUBLE);
				snap_data_free(d);
				return snap_fail(err, errlen, "%s:%ld: column '%s': %s", path,
				            l.no, snap_col_name[c], why);
			}
			d->col[c][i] = v[0];
		}
		if (f < nf) {
			snap_data_free(d);
			return snap_fail(err, errlen, "%s:%ld: %d fields, and the header "
			            "has %d", path, l.no, f, nf);
		}
		d->line[i++] = l.no;
	}
	d->n = i;
	return 0;
}

int snap_is_hdf5_name(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && strcmp(path + n - 5, ".hdf5") == 0) ||
	       (n > 3 && strcmp(path + n - 3, ".h5") == 0);
}

/* --- checks ------------------------------------------------------------- */

typedef struct Pos {
	double x, y, z;
	size_t i;
} Pos;

static int pos_cmp(const void *a, const void *b)
{
	const Pos *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	if (p->z != q->z)
		return p->z < q->z ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

int snap_check(const snap_data *d, const char *path, double eps, char *err,
               size_t errlen)
{
	char at[512];
	for (size_t i = 0; i < d->n; i++)
		for (int k = 0; k < SC_N; k++) {
			double v = d->col[k] ? d->col[k][i] : 1;
			const char *bad = !isfinite(v) ? "not a finite number"
			                  : k == SC_M && v <= 0 ? "and a body's mass "
			                                           "must be positive"
			                  : k == SC_DT && v <= 0 ? "and a time step must "
			                                            "be positive"
			                  : NULL;
			if (!bad)
				continue;
			snap_where(d, path, i, at, sizeof at);
			return snap_fail(err, errlen, "%s: %s = %g, %s", at, snap_col_name[k],
			            v, bad);
		}
	if (eps > 0 || d->n < 2)
		return 0;
	Pos *p = malloc(d->n * sizeof *p);
	if (!p)
		return snap_fail(err, errlen, "out of memory");
	for (size_t i = 0; i < d->n; i++)
		p[i] = (Pos){d->col[SC_X][i], d->col[SC_Y][i], d->col[SC_Z][i], i};
	qsort(p, d->n, sizeof *p, pos_cmp);
	int rc = 0;
	for (size_t k = 1; k < d->n && !rc; k++) {
		if (p[k].x != p[k - 1].x || p[k].y != p[k - 1].y ||
		    p[k].z != p[k - 1].z)
			continue;
		char at2[512];
		snap_where(d, path, p[k - 1].i, at, sizeof at);
		snap_where(d, path, p[k].i, at2, sizeof at2);
		rc = snap_fail(err, errlen, "%s: the body at (%g, %g, %g) is also at %s, "
		          "and with the softening 0 their force is infinite (give "
		          "--eps > 0 or move one)", at2, p[k].x, p[k].y, p[k].z, at);
	}
	free(p);
	return rc;
}
