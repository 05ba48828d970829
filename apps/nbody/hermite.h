/* hermite.h: the 4th-order Hermite predictor-corrector of Makino & Aarseth
 * (1992) with Aarseth's time-step criterion and hierarchical block time
 * steps, on the bodies of a sim.  The force (acceleration, jerk, potential
 * of the active block against every body) is a callback, as for sim_step:
 * the nbcc kernel dsl-examples/hermite.nbl in nbody.c, herm_force_direct
 * in the tests. */
#ifndef HERMITE_H
#define HERMITE_H

#include <stddef.h>
#include <stdint.h>
#include "sim.h"

/* Time steps are dtmax 2^-level, level 0 to HERM_LEVELS; times inside one
 * interval of dtmax are counted in ticks of dtmax 2^-HERM_LEVELS, so that
 * block times are exact whatever dtmax is. */
#define HERM_LEVELS 40

/* How the bodies' steps are chosen (--timestep): each its own by
 * Aarseth's criterion on the block levels; one shared by all, the
 * shortest of theirs (every step then evaluates all N on all N); or
 * every body on dtmax, fixed. */
typedef enum { HERM_BLOCK, HERM_SHARED, HERM_FIXED } herm_mode;
/* The integrator's name in snapshots, by mode: "hermite" (block steps),
 * "hermite_shared", "hermite_fixed" */
extern const char *const herm_name[3];

typedef struct herm {
	sim *s;             /* its jx, jy, jz and tstep are allocated here */
	double eta;         /* Aarseth's accuracy parameter */
	double dtmax;       /* the longest step, and the interval of sim_step */
	herm_mode mode;     /* HERM_BLOCK unless set after herm_alloc */
	unsigned char *level;
	unsigned char *want; /* shared steps: each body's level, wanted */
	uint64_t *tick;     /* t_i within the current interval */
	double *p[6];       /* every body predicted: x y z vx vy vz (BMEM) */
	double *ip[6];      /* the active ones predicted (LMEM) */
	double *ia[7];      /* their results: ax ay az jx jy jz pot (RMEM) */
	size_t *act, nact;
	/* the bodies grouped by level: level l's at bylev[first[l] ..
	 * first[l + 1]), body i at bylev[pos[i]]; a block step's bodies are
	 * the levels from some l on, a tail of bylev */
	size_t *bylev, *pos, first[HERM_LEVELS + 2];
	/* jdev = 1: the force predicts every body itself where its kernel
	 * runs (bin/nbody: nbrt_predict), from the series of s and tick as
	 * the bodies chg[0..nchg) changed them since its last call (every
	 * body where chg_all), and clears nchg and chg_all; p is then not
	 * filled.  now: the time of the evaluation, in ticks. */
	int jdev;
	size_t *chg, nchg;
	int chg_all;
	uint64_t now;
	long blocks;        /* block steps taken */
	double inter;       /* interactions evaluated in block steps */
	long clamped;       /* steps the criterion wanted below the last level */
} herm;

/* The force on h->ip[*][0..ni) (the bodies h->act[0..ni)) from every
 * body at h->p[*] (jdev: predicted to h->now by the force) with masses
 * s->m, into h->ia[*][0..ni).  Returns 0, or -1 with its own message. */
typedef int (*herm_force_fn)(herm *h, size_t ni, void *ctx);

/* Direct summation in double, the formulas of hermite.nbl. */
int herm_force_direct(herm *h, size_t ni, void *unused);

/* Allocates the state for s (s->jx, jy, jz, tstep too); 0 or -1. */
int herm_alloc(herm *h, sim *s, double eta, double dtmax);
void herm_free(herm *h);

/* A fresh start: the force and jerk of every body, and the first steps
 * eta/4 |a|/|j| (Aarseth's starting rule) or, where shorter, Aarseth's
 * criterion with a2 and a3 from a second evaluation of every body at the
 * shortest of those steps. */
int herm_start(herm *h, herm_force_fn f, void *ctx);
/* Steps tstep[0..n) a run of this mode may hold: 0, or -1 where a step
 * is not dtmax 2^-k, k <= HERM_LEVELS, -2 where shared steps differ from
 * body 0's or a fixed one is not dtmax (*bad set to the body). */
int herm_steps_check(herm_mode mode, double dtmax, const double *tstep,
                     size_t n, size_t *bad);
/* A restart: s holds a, j and tstep as a snapshot saved them at an
 * interval's end.  Returns 0, or herm_steps_check's -1 or -2. */
int herm_resume(herm *h, size_t *bad);

/* Integrates one interval of dtmax: block steps until every body is at
 * t + dtmax again; then s->t += dtmax and s->step++. */
int herm_step(herm *h, herm_force_fn f, void *ctx);

/* s->pot from the corrected positions of every body (one evaluation with
 * Ni = N), for the energy; the integrator's state is left as it was. */
int herm_potential(herm *h, herm_force_fn f, void *ctx);

#endif
