/* sim.h: the physics of bin/nbody apart from the force kernel: seeded
 * initial conditions, the leap-frog of paper 000 (Eq. 1-3), energy and
 * momentum, a direct double-precision force, snapshots and pictures.
 * Units: G = 1.  Everything here is deterministic for a given seed. */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** seeded through splitmix64: the same stream on every host */
typedef struct sim_rng {
	uint64_t s[4];
} sim_rng;

void sim_rng_seed(sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(sim_rng *r);
double sim_rng_uniform(sim_rng *r); /* [0, 1), 53 random bits */

/* N bodies.  Positions, velocities and masses are the state; a, pot are
 * what the last force evaluation left, in the kernel's convention: pot_i =
 * -sum_j m_j / sqrt(r_ij^2 + eps^2) with j = i included (a self-term
 * -m_i/eps that sim_measure removes; none where eps = 0, which only
 * hermite.nbl allows). */
typedef struct sim {
	size_t n;
	double eps;    /* Plummer softening length, > 0 (>= 0 for Hermite;
	                  0 for a kernel without eps2) */
	double box[3]; /* > 0: a periodic axis [0, box), wrapped by drifts */
	double t;
	long step;
	double *m;
	double *x, *y, *z;
	double *vx, *vy, *vz;
	double *ax, *ay, *az, *pot;
	/* the Hermite integrator's own state (hermite.h), NULL for the
	 * leap-frog: jerk and each body's time step */
	double *jx, *jy, *jz, *tstep;
	/* the bodies' IDs from a file of bodies (snap.h), kept in its
	 * snapshots; NULL: the IDs are 0..n-1 */
	uint64_t *id;
} sim;

/* Allocates n zeroed bodies (n >= 1); returns 0 or -1 (out of memory). */
int sim_alloc(sim *s, size_t n, double eps);
void sim_free(sim *s);

/* Initial conditions; see sim.c for the models. */
typedef enum { SIM_PLUMMER, SIM_CUBE, SIM_COLLISION } sim_ic;

/* "plummer", "cube", "collision": 0 and *ic set, or -1 */
int sim_ic_parse(const char *name, sim_ic *ic);
const char *sim_ic_name(sim_ic ic);
/* time step and softening that suit the model */
void sim_ic_defaults(sim_ic ic, double *dt, double *eps);
/* Fills s (allocated, eps set) with total mass 1, the centre of mass at the
 * origin and at rest. */
void sim_ic_make(sim *s, sim_ic ic, uint64_t seed);

/* A force evaluation: fills s->ax, ay, az, pot from the positions (the
 * convention above).  Returns 0, or -1 with its own message kept by ctx. */
typedef int (*sim_force_fn)(sim *s, void *ctx);

/* A periodic box of `dim` (2 or 3) axes of side (n / rho)^(1/dim) with
 * the bodies (unit masses) on a square or cubic lattice of it, the first n
 * sites of the smallest lattice that holds them, row by row; Gaussian
 * velocities of temperature `temp` (k = 1), at rest as a whole and scaled
 * to that temperature exactly (dim (n - 1) degrees of freedom); z and vz
 * 0 in 2-D.  Sets s->box. */
void sim_lattice(sim *s, uint64_t seed, int dim, double rho, double temp);

/* Direct summation in double, the same formula as dsl-examples/gravity.nbl */
int sim_force_direct(sim *s, void *unused);

/* One kick-drift-kick step (Eq. 1-3 of paper 000) of length dt; s must hold
 * the accelerations of its current positions. */
int sim_step(sim *s, double dt, sim_force_fn f, void *ctx);

/* 1 if every position, velocity and acceleration is finite (a step too
 * long for the model makes them NaN or infinite). */
int sim_finite(const sim *s);

typedef struct sim_diag {
	double mass;
	double kin, pot, etot;   /* pot: self-terms removed */
	double px, py, pz;       /* momentum */
	double cx, cy, cz;       /* centre of mass */
	double lx, ly, lz;       /* angular momentum about the origin */
} sim_diag;

void sim_measure(const sim *s, sim_diag *d);
/* The self-term m/eps of body i's pot (0 where eps = 0). */
double sim_self(const sim *s, size_t i);

/* Writes a snapshot (format in sim.c and docs/nbody.md) to path through
 * nb_out_open (a temporary and a rename).  `info` is the text of the first comment line.
 * Returns 0, or -1 with a message in err. */
int sim_write_snapshot(const sim *s, const char *path, const char *info,
                       char *err, size_t errlen);

/* A picture: two square panels of size x size pixels, the x-y projection
 * (left) and the x-z projection (right), centred on (cx, cy, cz) and
 * spanning [-half, half] in each coordinate. */
typedef struct sim_view {
	double cx, cy, cz, half;
	int size;
} sim_view;

/* A view that holds most of the bodies of s: centred on the origin, half
 * a little wider than 95% of the bodies' largest coordinate. */
void sim_view_auto(const sim *s, int size, sim_view *v);
/* RGB, 3 bytes a pixel, rows top to bottom: 2*size wide, size high.
 * Returns a malloc'd image or NULL (out of memory). */
unsigned char *sim_render(const sim *s, const sim_view *v);
int sim_write_png(const sim *s, const sim_view *v, const char *path,
                  char *err, size_t errlen);

#endif
