/* hermite.c: the 4th-order Hermite scheme with block time steps (hermite.h)
 * for bin/nbody.  Positions, velocities, accelerations and jerks are
 * doubles on the host; each block step predicts its active bodies and
 * corrects them here, and the force predicts every body (here, or where
 * its kernel runs: h->jdev).  Every loop runs in a fixed order, and the
 * times are integer ticks, so that one run, or one run cut by a restart,
 * gives the same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hermite.h"

#define TICKS ((uint64_t)1 << HERM_LEVELS)

const char *const herm_name[3] = {"hermite", "hermite_shared",
                                  "hermite_fixed"};

static uint64_t ticks_of(int level)
{
	return (uint64_t)1 << (HERM_LEVELS - level);
}

int herm_alloc(herm *h, sim *s, double eta, double dtmax)
{
	memset(h, 0, sizeof *h);
	h->s = s;
	h->eta = eta;
	h->dtmax = dtmax;
	size_t n = s->n ? s->n : 1;
	int ok = 1;
	double **d[] = {&s->jx, &s->jy, &s->jz, &s->tstep};
	for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
		if (!*d[k])
			ok &= (*d[k] = calloc(n, sizeof(double))) != NULL;
	for (int k = 0; k < 6; k++) {
		ok &= (h->p[k] = calloc(n, sizeof(double))) != NULL;
		ok &= (h->ip[k] = calloc(n, sizeof(double))) != NULL;
	}
	for (int k = 0; k < 7; k++)
		ok &= (h->ia[k] = calloc(n, sizeof(double))) != NULL;
	ok &= (h->level = calloc(n, 1)) != NULL;
	ok &= (h->want = calloc(n, 1)) != NULL;
	ok &= (h->tick = calloc(n, sizeof *h->tick)) != NULL;
	ok &= (h->act = calloc(n, sizeof *h->act)) != NULL;
	ok &= (h->chg = calloc(n, sizeof *h->chg)) != NULL;
	ok &= (h->bylev = calloc(n, sizeof *h->bylev)) != NULL;
	ok &= (h->pos = calloc(n, sizeof *h->pos)) != NULL;
	if (!ok) {
		herm_free(h);
		return -1;
	}
	return 0;
}

void herm_free(herm *h)
{
	for (int k = 0; k < 6; k++) {
		free(h->p[k]);
		free(h->ip[k]);
	}
	for (int k = 0; k < 7; k++)
		free(h->ia[k]);
	free(h->level);
	free(h->want);
	free(h->tick);
	free(h->act);
	free(h->chg);
	free(h->bylev);
	free(h->pos);
	sim *s = h->s;
	memset(h, 0, sizeof *h);
	h->s = s;
}

int herm_force_direct(herm *h, size_t ni, void *unused)
{
	(void)unused;
	const sim *s = h->s;
	double e2 = s->eps * s->eps;
	for (size_t i = 0; i < ni; i++) {
		double a[3] = {0}, jk[3] = {0}, pot = 0;
		for (size_t j = 0; j < s->n; j++) {
			double d[3], dv[3];
			for (int k = 0; k < 3; k++) {
				d[k] = h->p[k][j] - h->ip[k][i];
				dv[k] = h->p[3 + k][j] - h->ip[3 + k][i];
			}
			double r2 = e2 + d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
			double rinv = r2 > 0 ? 1 / sqrt(r2) : 0, rinv2 = rinv * rinv;
			double mr = s->m[j] * rinv, mr3 = mr * rinv2;
			double rv = 3 * (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) *
			            rinv2;
			for (int k = 0; k < 3; k++) {
				a[k] += mr3 * d[k];
				jk[k] += mr3 * (dv[k] - rv * d[k]);
			}
			pot -= mr;
		}
		for (int k = 0; k < 3; k++) {
			h->ia[k][i] = a[k];
			h->ia[3 + k][i] = jk[k];
		}
		h->ia[6][i] = pot;
	}
	return 0;
}

/* bylev and first from every body's level, each level's bodies in the
 * order of their index. */
static void levels_build(herm *h)
{
	size_t n = h->s->n;
	memset(h->first, 0, sizeof h->first);
	for (size_t i = 0; i < n; i++)
		h->first[h->level[i] + 1]++;
	for (int l = 0; l <= HERM_LEVELS; l++)
		h->first[l + 1] += h->first[l];
	size_t at[HERM_LEVELS + 1];
	memcpy(at, h->first, sizeof at);
	for (size_t i = 0; i < n; i++) {
		h->pos[i] = at[h->level[i]]++;
		h->bylev[h->pos[i]] = i;
	}
}

static void levels_swap(herm *h, size_t a, size_t b)
{
	size_t i = h->bylev[a], j = h->bylev[b];
	h->bylev[a] = j;
	h->bylev[b] = i;
	h->pos[j] = a;
	h->pos[i] = b;
}

/* Body i to level l: one level at a time, it trades places with the end
 * of its level's range next to l and the boundary moves past it. */
static void levels_move(herm *h, size_t i, int l)
{
	for (int k = h->level[i]; k < l; k++) {
		levels_swap(h, h->pos[i], h->first[k + 1] - 1);
		h->first[k + 1]--;
	}
	for (int k = h->level[i]; k > l; k--) {
		levels_swap(h, h->pos[i], h->first[k]);
		h->first[k]++;
	}
	h->level[i] = (unsigned char)l;
}

static double norm3(double x, double y, double z)
{
	return sqrt(x * x + y * y + z * z);
}

/* The level whose step is the longest not above dt, within [lo, LEVELS];
 * a dt that is not a number or not positive gets the shortest. */
static int level_for(double dtmax, double dt, int lo, long *clamped)
{
	int l = lo;
	if (!(dt > 0)) {
		++*clamped;
		return HERM_LEVELS;
	}
	while (l < HERM_LEVELS && ldexp(dtmax, -l) > dt)
		l++;
	if (ldexp(dtmax, -l) > dt)
		++*clamped;
	return l;
}

/* Aarseth's criterion from a and its derivatives a1, a2, a3 (norms);
 * the longest step where they all vanish. */
static double aarseth(const herm *h, double na, double n1, double n2,
                      double n3)
{
	double den = n1 * n3 + n2 * n2;
	return den > 0 ? sqrt(h->eta * (na * n2 + n1 * n1) / den) : h->dtmax;
}

/* The snap and crackle at the start of a step of dt from the force and
 * jerk at both ends (the Hermite interpolation), one component. */
static void hermite_fit(double a0, double j0, double a1, double j1,
                        double dt, double *snap, double *crackle)
{
	double da = a0 - a1;
	*snap = (-6 * da - dt * (4 * j0 + 2 * j1)) / (dt * dt);
	*crackle = (12 * da + 6 * dt * (j0 + j1)) / (dt * dt * dt);
}

/* Every body active, into the kernel's arrays as it is (all
 * synchronized, at tick 0 of the interval; with jdev the force predicts
 * them to now = 0, which is the same). */
static void gather_all(herm *h)
{
	const sim *s = h->s;
	const double *src[6] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
	for (int k = 0; k < 6 && !h->jdev; k++) {
		memcpy(h->p[k], src[k], s->n * sizeof(double));
		memcpy(h->ip[k], src[k], s->n * sizeof(double));
	}
	for (size_t i = 0; i < s->n; i++)
		h->act[i] = i;
	h->nact = s->n;
	h->now = 0;
}

static void predict(herm *h, uint64_t now);
static void share(herm *h, uint64_t now);

/* The first steps of Aarseth's starting rule, eta/4 |a|/|a1|, are too
 * long where a1 is small by accident (a body whose own motion and its
 * neighbours' pulls cancel in its jerk): Plummer spheres of 32768 bodies
 * started some at the longest step, 1/16 where 1/256 was due, and
 * two such bodies made 117% of the first interval's energy error (eta
 * 0.02, docs/nbody.md).  So every body is also predicted to the shortest
 * of those steps, tau, and evaluated there: the Hermite fit of the two
 * forces gives a2 and a3 at t = 0, and Aarseth's full criterion, where
 * it is shorter, sets the step.  Rounding in a fit over a short tau can
 * only make a2 and a3 too large, and so the step too short, never too
 * long. */
static void start_check(herm *h)
{
	sim *s = h->s;
	const double *a0[3] = {s->ax, s->ay, s->az}, *j0[3] = {s->jx, s->jy,
	                                                      s->jz};
	double tau = ldexp(h->dtmax, -h->level[h->bylev[s->n - 1]]);
	for (size_t i = 0; i < s->n; i++) {
		double a2[3], a3[3];
		for (int k = 0; k < 3; k++)
			hermite_fit(a0[k][i], j0[k][i], h->ia[k][i], h->ia[3 + k][i],
			            tau, &a2[k], &a3[k]);
		double want = aarseth(h, norm3(s->ax[i], s->ay[i], s->az[i]),
		                      norm3(s->jx[i], s->jy[i], s->jz[i]),
		                      norm3(a2[0], a2[1], a2[2]),
		                      norm3(a3[0], a3[1], a3[2]));
		if (want < s->tstep[i]) {
			h->level[i] = (unsigned char)level_for(h->dtmax, want,
			                                       h->level[i], &h->clamped);
			s->tstep[i] = ldexp(h->dtmax, -h->level[i]);
		}
	}
}

int herm_start(herm *h, herm_force_fn f, void *ctx)
{
	sim *s = h->s;
	gather_all(h);
	h->chg_all = 1;
	if (s->n && f(h, s->n, ctx))
		return -1;
	h->inter += (double)s->n * (double)s->n;
	for (size_t i = 0; i < s->n; i++) {
		s->ax[i] = h->ia[0][i];
		s->ay[i] = h->ia[1][i];
		s->az[i] = h->ia[2][i];
		s->jx[i] = h->ia[3][i];
		s->jy[i] = h->ia[4][i];
		s->jz[i] = h->ia[5][i];
		s->pot[i] = h->ia[6][i];
		double a = norm3(s->ax[i], s->ay[i], s->az[i]);
		double j = norm3(s->jx[i], s->jy[i], s->jz[i]);
		/* a body that feels nothing (alone, or far from all) takes the
		 * longest step */
		double dt = j > 0 ? 0.25 * h->eta * a / j : h->dtmax;
		h->level[i] = h->mode == HERM_FIXED ? 0 :
		              (unsigned char)level_for(h->dtmax, dt, 0, &h->clamped);
		h->tick[i] = 0;
		s->tstep[i] = ldexp(h->dtmax, -h->level[i]);
	}
	levels_build(h);
	if (s->n > 1 && h->mode != HERM_FIXED) {
		/* the trial evaluation at tau: every body still active */
		uint64_t t = ticks_of(h->level[h->bylev[s->n - 1]]);
		h->now = t;
		/* the series again, now with a and j (jdev) */
		h->chg_all = 1;
		predict(h, t);
		if (f(h, s->n, ctx))
			return -1;
		h->inter += (double)s->n * (double)s->n;
		start_check(h);
		if (h->mode == HERM_SHARED) {
			memcpy(h->want, h->level, s->n);
			share(h, 0);
		}
		levels_build(h); /* the checked levels */
		h->now = 0;
	}
	h->chg_all = 1;
	return 0;
}

/* The level of a step of dt, or -1 where it is not dtmax 2^-k. */
static int level_of(double dtmax, double dt)
{
	int l = 0;
	while (l < HERM_LEVELS && ldexp(dtmax, -l) != dt)
		l++;
	return ldexp(dtmax, -l) == dt ? l : -1;
}

int herm_steps_check(herm_mode mode, double dtmax, const double *tstep,
                     size_t n, size_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		int l = level_of(dtmax, tstep[i]);
		*bad = i;
		if (l < 0)
			return -1;
		if ((mode == HERM_FIXED && l != 0) ||
		    (mode == HERM_SHARED && tstep[i] != tstep[0]))
			return -2;
	}
	return 0;
}

int herm_resume(herm *h, size_t *bad)
{
	sim *s = h->s;
	int rc = herm_steps_check(h->mode, h->dtmax, s->tstep, s->n, bad);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->n; i++) {
		h->level[i] = (unsigned char)level_of(h->dtmax, s->tstep[i]);
		h->tick[i] = 0;
	}
	levels_build(h);
	h->chg_all = 1;
	return 0;
}

/* x_p = x + v dt + a dt^2/2 + j dt^3/6, v_p = v + a dt + j dt^2/2 of
 * body i, from its own time to `now` (ticks), into q[*][r]: the sums and
 * products in the order of nbrt_predict (nbrt.h), which gives the same
 * bits where the kernel runs. */
static void taylor(const herm *h, size_t i, uint64_t now, double *const *q,
                   size_t r)
{
	const sim *s = h->s;
	const double *x[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz};
	const double *a[3] = {s->ax, s->ay, s->az}, *j[3] = {s->jx, s->jy, s->jz};
	double dt = (double)(now - h->tick[i]) * ldexp(h->dtmax, -HERM_LEVELS);
	double dt2 = dt * dt * 0.5, dt3 = dt2 * dt * (1.0 / 3);
	for (int k = 0; k < 3; k++) {
		q[k][r] = x[k][i] + v[k][i] * dt + a[k][i] * dt2 + j[k][i] * dt3;
		q[3 + k][r] = v[k][i] + a[k][i] * dt + j[k][i] * dt2;
	}
}

/* The active bodies predicted to `now` into ip; without jdev every body
 * into p first, the active ones gathered from there. */
static void predict(herm *h, uint64_t now)
{
	size_t n = h->s->n;
	if (h->jdev) {
		size_t m = h->nact;
#pragma omp parallel for if (m >= 4096) schedule(static)
		for (size_t r = 0; r < m; r++)
			taylor(h, h->act[r], now, h->ip, r);
		return;
	}
#pragma omp parallel for if (n >= 4096) schedule(static)
	for (size_t i = 0; i < n; i++)
		taylor(h, i, now, h->p, i);
	for (size_t r = 0; r < h->nact; r++)
		for (int k = 0; k < 6; k++)
			h->ip[k][r] = h->p[k][h->act[r]];
}

/* The corrector of Makino & Aarseth (1992) for active body i, predicted
 * at ip[*][r], whose new force is ia[*][r], and the level of its next
 * step by Aarseth's criterion
 *   dt = sqrt(eta (|a||a''| + |a'|^2) / (|a'||a'''| + |a''|^2))
 * held to the block rules: at most doubled, and then only where the new
 * time is a multiple of the longer step; halved as often as needed.
 * Body i's own state alone changes: bodies may be corrected at once. */
static int correct(herm *h, size_t i, size_t r, uint64_t now, long *clamped)
{
	sim *s = h->s;
	double *x[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz};
	double *a[3] = {s->ax, s->ay, s->az}, *j[3] = {s->jx, s->jy, s->jz};
	double dt = ldexp(h->dtmax, -h->level[i]);
	double a1[3], j1[3], a2[3], a3[3];
	for (int k = 0; k < 3; k++) {
		a1[k] = h->ia[k][r];
		j1[k] = h->ia[3 + k][r];
		double snap, crackle;
		hermite_fit(a[k][i], j[k][i], a1[k], j1[k], dt, &snap, &crackle);
		double dt3 = dt * dt * dt, dt4 = dt3 * dt;
		x[k][i] = h->ip[k][r] + snap * (dt4 / 24) + crackle * (dt4 * dt / 120);
		v[k][i] = h->ip[3 + k][r] + snap * (dt3 / 6) + crackle * (dt4 / 24);
		a[k][i] = a1[k];
		j[k][i] = j1[k];
		a2[k] = snap + dt * crackle; /* snap at the end of the step */
		a3[k] = crackle;
	}
	s->pot[i] = h->ia[6][r];
	if (h->mode == HERM_FIXED)
		return 0;
	double want = aarseth(h, norm3(a1[0], a1[1], a1[2]),
	                      norm3(j1[0], j1[1], j1[2]),
	                      norm3(a2[0], a2[1], a2[2]),
	                      norm3(a3[0], a3[1], a3[2]));
	int l = h->level[i];
	if (want >= 2 * dt && l > 0 && now % ticks_of(l - 1) == 0)
		l--;
	else if (want < dt)
		l = level_for(h->dtmax, want, l, clamped);
	return l;
}

/* Shared steps: every body on the finest of the levels they want, want[]
 * (at `now`, every body active; the block rules hold for that level as
 * they held for each body's). */
static void share(herm *h, uint64_t now)
{
	sim *s = h->s;
	int l = 0;
	for (size_t i = 0; i < s->n; i++)
		if (h->want[i] > l)
			l = h->want[i];
	for (size_t i = 0; i < s->n; i++) {
		h->level[i] = (unsigned char)l;
		h->tick[i] = now;
		s->tstep[i] = ldexp(h->dtmax, -l);
	}
	levels_build(h);
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* One block step: the bodies due first move to their next time.  A
 * body's time is a multiple of its step (a step halves anywhere, doubles
 * only where the time is a multiple of the longer one), so every body of
 * level l is due at the first multiple of its step after `now`: the
 * finest level present is due first, and with it every level whose step
 * divides that time, the levels from lo on. */
static int block(herm *h, herm_force_fn f, void *ctx, uint64_t *now)
{
	sim *s = h->s;
	int fine = HERM_LEVELS, lo = 0;
	while (fine > 0 && h->first[fine] == h->first[fine + 1])
		fine--;
	uint64_t next = (*now / ticks_of(fine) + 1) * ticks_of(fine);
	while (next % ticks_of(lo))
		lo++;
	/* in the order of their index, as the force has always had them */
	h->nact = s->n - h->first[lo];
	if (h->nact == s->n) {
		for (size_t i = 0; i < s->n; i++)
			h->act[i] = i;
	} else {
		memcpy(h->act, h->bylev + h->first[lo], h->nact * sizeof *h->act);
		qsort(h->act, h->nact, sizeof *h->act, by_index);
	}
	h->now = next;
	predict(h, next);
	if (f(h, h->nact, ctx))
		return -1;
	h->inter += (double)h->nact * (double)s->n;
	h->blocks++;
	if (h->mode == HERM_BLOCK) {
		for (size_t r = 0; r < h->nact; r++) {
			size_t i = h->act[r];
			levels_move(h, i, correct(h, i, r, next, &h->clamped));
			h->tick[i] = next;
			s->tstep[i] = ldexp(h->dtmax, -h->level[i]);
		}
	} else {
		/* every body active, act[r] = r */
		long clamped = 0;
		size_t n = s->n;
#pragma omp parallel for if (n >= 4096) schedule(static) reduction(+ : clamped)
		for (size_t i = 0; i < n; i++)
			h->want[i] = (unsigned char)correct(h, i, i, next, &clamped);
		h->clamped += clamped;
		share(h, next);
	}
	/* for the force's next call (jdev) */
	memcpy(h->chg, h->act, h->nact * sizeof *h->chg);
	h->nchg = h->nact;
	*now = next;
	return 0;
}

int herm_step(herm *h, herm_force_fn f, void *ctx)
{
	sim *s = h->s;
	uint64_t now = 0;
	while (s->n && now < TICKS)
		if (block(h, f, ctx, &now))
			return -1;
	for (size_t i = 0; i < s->n; i++)
		h->tick[i] = 0;
	s->t += h->dtmax;
	s->step++;
	return 0;
}

int herm_potential(herm *h, herm_force_fn f, void *ctx)
{
	sim *s = h->s;
	gather_all(h);
	if (s->n && f(h, s->n, ctx))
		return -1;
	memcpy(s->pot, h->ia[6], s->n * sizeof(double));
	return 0;
}
