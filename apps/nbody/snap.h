/* snap.h: bin/nbody's snapshots read back, as initial conditions or to
 * restart a run: a CSV file with a header (nbody's own snapshots, or any
 * file with columns x, y, z, vx, vy, vz, m), or an HDF5 file in the layout
 * of the GADGET family (snap_hdf5_read.c; snap_hdf5.c writes them).
 * Everything read is checked: a finite number in every field, a positive
 * mass; a refusal names the file and the row.  Units: G = 1 (N-body
 * units). */
#ifndef SNAP_H
#define SNAP_H

#include <stddef.h>
#include <stdint.h>

/* The columns, by their CSV names.  The first seven are the initial
 * conditions; ax..pot the leap-frog's state; jx..t the Hermite's. */
enum {
	SC_X, SC_Y, SC_Z, SC_VX, SC_VY, SC_VZ, SC_M,
	SC_AX, SC_AY, SC_AZ, SC_POT,
	SC_JX, SC_JY, SC_JZ, SC_DT, SC_T,
	SC_N
};
extern const char *const snap_col_name[SC_N];

/* What a snapshot of nbody says of its run (the CSV comment's keys, the
 * HDF5 header's attributes); has_* say which were there. */
#define SNAP_ICFILE 1024 /* the longest IC file name a snapshot keeps */
typedef struct snap_info {
	char ic[32];        /* the model, "file" for a file's bodies */
	char integrator[16];/* "leapfrog" or "hermite" */
	uint64_t seed;
	long step;
	double t, dt, eps, eta, e0;
	int has_ic, has_integrator, has_seed, has_step, has_t, has_dt, has_eps,
	    has_eta, has_e0, has_icfile;
	char icfile[SNAP_ICFILE]; /* ic "file": which (where its name fits) */
} snap_info;

/* An IC file's name as the CSV comment's icfile= value: every byte but
 * letters, digits and "._/+-" as %XX, so that blanks and '=' stay out of
 * the key=value list (snap.c reads it back). */
void snap_icfile_text(const char *name, char *buf, size_t len);

typedef struct snap_data {
	size_t n;
	double *col[SC_N]; /* n values each; NULL where the file had none */
	uint64_t *id;      /* the bodies' IDs (CSV id, HDF5 ParticleIDs); NULL
	                      where the file had none */
	long *line;        /* the CSV line of each body; NULL for HDF5 */
	snap_info info;
} snap_data;

void snap_data_free(snap_data *d);

/* Formats a message into err; returns -1 (the readers' failure). */
int snap_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Where body i came from, for messages: "FILE:LINE" or "FILE, body I",
 * FILE's control bytes escaped (nb_esc). */
void snap_where(const snap_data *d, const char *path, size_t i, char *buf,
                size_t len);

/* Parses CSV text named `path`: '#' lines (the first "# nbody snapshot:"
 * one read for its keys; its n=, where given, must be the rows' count, so
 * that a file cut short at a line's end is refused), a header naming columns (any order; id, the
 * bodies' IDs, integers 0 to 2^64 - 1; unknown ones such as type are
 * skipped), then one row a body.  At most max_n
 * bodies.  Returns 0, or -1 with a message naming the file and line. */
int snap_parse_csv(const char *path, const char *text, size_t len,
                   size_t max_n, snap_data *d, char *err, size_t errlen);

/* Reads a file: HDF5 if it starts with HDF5's signature, else CSV; the
 * messages name it escaped (nb_esc). */
int snap_read(const char *path, size_t max_n, snap_data *d, char *err,
              size_t errlen);
/* 1 if path names an HDF5 file by its name (.hdf5, .h5). */
int snap_is_hdf5_name(const char *path);

/* HDF5 (snap_hdf5_read.c): an image of a file in memory, read in a
 * child process (snap_apart), since libhdf5 itself has memory errors that
 * a damaged file reaches. */
int snap_parse_hdf5(const char *path, const void *image, size_t len,
                    size_t max_n, snap_data *d, char *err, size_t errlen);
/* Writes s as a GADGET-style HDF5 file (snap_hdf5.c: the bodies as
 * PartType1 with their IDs; the Hermite state where s has one; `in` for
 * /Parameters). */
struct sim;
int snap_write_hdf5(const struct sim *s, const snap_info *in,
                    const char *path, char *err, size_t errlen);

/* snap_fork.c: runs read(arg, max_n, d, err, errlen) in a child process,
 * which sends d back over a pipe, so that a crash, an endless loop or a
 * runaway allocation of a reader ends the child and `path` is refused with
 * a message naming `what` (the reader).  The child may use `budget` bytes
 * of memory beyond what it starts with (snap_apart_allow adds to it there)
 * and `cpu_s` seconds of CPU time.  What comes back is checked again:
 * n in 1..max_n, the seven columns of the bodies. */
typedef int (*snap_reader)(const void *arg, size_t max_n, snap_data *d,
                           char *err, size_t errlen);
int snap_apart(snap_reader read, const void *arg, const char *path,
               const char *what, size_t max_n, size_t budget, double cpu_s,
               snap_data *d, char *err, size_t errlen);
/* In the child: `bytes` more memory (a reader's checked data to come). */
void snap_apart_allow(size_t bytes);
/* 1 where the child's memory is limited; 0 in a build under
 * AddressSanitizer, whose shadow memory rules a data limit out (CPU time
 * is limited always). */
extern const int snap_apart_data_limit;
/* Where set, called first in the child (tests/fuzz/fuzz_hdf5.c: the
 * child's faults are the reader's to report, not libFuzzer's). */
extern void (*snap_apart_child)(void);

/* The values after reading: every mass positive, every step positive;
 * and with eps = 0, no two bodies at one position.  -1 with the message. */
int snap_check(const snap_data *d, const char *path, double eps, char *err,
               size_t errlen);

#endif
