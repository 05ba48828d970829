/* restart.c: where bin/nbody's run starts when it is not a model: the
 * bodies of an --ic file, or a --restart snapshot with the parameters of
 * the run it continues (given again, they must agree); --t-end as steps;
 * under MPI, the check that every rank holds the same bodies. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbody.h"
#include "par.h"
#include "prog.h"

/* v in the fewest digits that read back as v: %g's six showed two
 * values that differ as one (--eps 0.015625000000001 against 0.015625),
 * and rounded -n from 1048577 on */
static const char *exact(char buf[32], double v)
{
	for (int p = 6; p <= 17; p++) {
		snprintf(buf, 32, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/* A parameter the snapshot fixes: given again, it must agree. */
static int agree(const char *flag, int given, double want, double got,
                 const char *path)
{
	char a[32], b[32];
	if (given && want != got)
		return prog_fail("%s %s differs from the snapshot's %s (%s): a "
		                 "restart continues the run as it was", flag,
		                 exact(a, want), exact(b, got), nb_esc(path));
	return 0;
}

/* --restart FILE: the run's parameters and state from its snapshot. */
static int restart_args(args *a, const snap_data *d)
{
	const snap_info *in = &d->info;
	const char *p = a->restart;
	if (!in->has_step || !in->has_t || !in->has_dt || !in->has_eps)
		return prog_fail("%s has no step, t, dt or eps: not a snapshot of "
		                 "nbody (--ic reads a file of bodies)", nb_esc(p));
	int hermite = 0, mode = HERM_BLOCK;
	for (int k = 0; k < 3 && in->has_integrator; k++)
		if (strcmp(in->integrator, herm_name[k]) == 0)
			hermite = 1, mode = k;
	if (in->has_integrator && !hermite &&
	    strcmp(in->integrator, "leapfrog") != 0)
		return prog_fail("%s: unknown integrator '%s'", nb_esc(p),
		                 in->integrator);
	if (a->have_integrator && hermite != a->hermite)
		return prog_fail("--integrator %s differs from the snapshot's %s "
		                 "(%s): a restart continues the run as it was",
		                 a->hermite ? "hermite" : "leapfrog",
		                 hermite ? "hermite" : "leapfrog", nb_esc(p));
	if ((a->have_predict || a->have_tstep || a->have_eta) && !hermite)
		return prog_fail("%s is for --integrator hermite, and %s is a "
		                 "leap-frog's snapshot", a->have_predict ?
		                 "--predict" : a->have_tstep ? "--timestep" :
		                 "--eta", nb_esc(p));
	if (a->have_tstep && a->tstep != mode)
		return prog_fail("--timestep %s differs from the snapshot's %s "
		                 "(%s): a restart continues the run as it was",
		                 herm_name[a->tstep], herm_name[mode], nb_esc(p));
	if (hermite && !in->has_eta)
		return prog_fail("%s: a Hermite snapshot without eta", nb_esc(p));
	if (agree("-n", !!a->have_n, (double)a->n, (double)d->n, p) ||
	    agree("--dt", !!a->have_dt, a->dt, in->dt, p) ||
	    agree("--eps", !!a->have_eps, a->eps, in->eps, p) ||
	    agree("--eta", a->have_eta && hermite, a->eta, in->eta, p) ||
	    agree("--seed", a->have_seed && in->has_seed, (double)a->seed,
	          (double)in->seed, p))
		return 1;
	static const int need_lf[] = {SC_AX, SC_AY, SC_AZ};
	static const int need_h[] = {SC_AX, SC_AY, SC_AZ, SC_JX, SC_JY, SC_JZ,
	                             SC_DT};
	const int *need = hermite ? need_h : need_lf;
	int nneed = hermite ? 7 : 3;
	for (int k = 0; k < nneed; k++)
		if (!d->col[need[k]])
			return prog_fail("%s has no '%s' of the bodies: a %s restart "
			                 "needs %s", nb_esc(p), snap_col_name[need[k]],
			                 hermite ? "Hermite" : "leap-frog",
			                 hermite ? "ax, ay, az, jx, jy, jz and dt"
			                        : "ax, ay, az");
	/* eps = 0 is a kernel's without eps2; force_setup refuses it for
	 * one with eps2 */
	if (!(in->dt > 0) || !(in->eps >= 0) || (hermite && !(in->eta > 0)))
		return prog_fail("%s: dt, eps or eta out of range", nb_esc(p));
	size_t bad;
	const double *ts = d->col[SC_DT];
	int e = hermite ? herm_steps_check(mode, in->dt, ts, d->n, &bad) : 0;
	if (e) {
		char at[512];
		snap_where(d, p, bad, at, sizeof at);
		if (e == -2)
			return prog_fail("%s: dt = %g, and the run's steps are %s (%g)",
			                 at, ts[bad], mode == HERM_FIXED ?
			                 "fixed at --dt" : "shared by every body",
			                 mode == HERM_FIXED ? in->dt : ts[0]);
		return prog_fail("%s: dt = %g is not the longest step %g halved a "
		                 "whole number of times", at, ts[bad], in->dt);
	}
	a->hermite = hermite;
	if (hermite && !(a->opt.given & NB_GIVEN_PRECISION)) {
		a->opt.precision = NB_DOUBLE;
		a->opt.given |= NB_GIVEN_PRECISION;
	}
	a->n = d->n;
	a->dt = in->dt;
	a->eps = in->eps;
	if (hermite)
		a->eta = in->eta;
	a->tstep = mode;
	a->step0 = in->step;
	if (in->has_seed)
		a->seed = in->seed;
	a->icname = "file";
	sim_ic ic;
	if (in->has_ic && sim_ic_parse(in->ic, &ic) == 0)
		a->icname = sim_ic_name(ic);
	else if (in->has_icfile)
		memcpy(a->icfile, in->icfile, sizeof a->icfile);
	a->e0 = in->e0;
	a->have_e0 = in->has_e0;
	return 0;
}

/* --t-end T: the steps from the start's t to T, a whole number of dt. */
int restart_steps(args *a, double t0)
{
	if (!a->have_t_end)
		return 0;
	double k = (a->t_end - t0) / a->dt;
	double r = nearbyint(k);
	if (r < 0 || fabs(k - r) > 1e-9 * fmax(1, fabs(k)) || r > 1e9)
		return prog_fail("--t-end %g is not t + K dt for a whole K >= 0 (t = "
		                 "%g, dt = %g)", a->t_end, t0, a->dt);
	a->steps = (long)r;
	return 0;
}

/* The bodies of an --ic file or a --restart snapshot, checked. */
int restart_read(args *a, snap_data *d)
{
	const char *path = a->restart ? a->restart : a->ic_file;
	char err[1024];
	if (snap_read(path, MAX_N, d, err, sizeof err))
		return prog_fail("%s", err);
	if (a->restart) {
		if (restart_args(a, d))
			return 1;
	} else if (a->have_n && a->n != d->n) {
		return prog_fail("-n %zu, and %s holds %zu bodies", a->n,
		                 nb_esc(path), d->n);
	} else {
		a->n = d->n;
	}
	if (snap_check(d, path, a->eps, err, sizeof err))
		return prog_fail("%s", err);
	return 0;
}

/* The bodies into s (allocated for them), and a restart's state; the
 * file's IDs move to s, which writes them in its snapshots. */
void restart_take(const args *a, snap_data *d, sim *s)
{
	s->id = d->id;
	d->id = NULL;
	double *dst[SC_N] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->m,
	                     s->ax, s->ay, s->az, NULL, s->jx, s->jy, s->jz,
	                     s->tstep, NULL};
	for (int k = 0; k < SC_N; k++)
		if (dst[k] && d->col[k] && (k <= SC_M || a->restart))
			memcpy(dst[k], d->col[k], d->n * sizeof(double));
	s->t = a->restart ? d->info.t : 0;
	s->step = a->restart ? d->info.step : 0;
}

/* Under MPI every rank makes or reads the bodies; they must be rank 0's
 * (an --ic file that differs between nodes would go unseen). */
int restart_same(const sim *s)
{
	const double *c[] = {s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz};
	uint64_t h = PAR_FNV;
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
		h = par_digest(h, c[k], s->n * sizeof(double));
	return par_same(h, "its bodies differ from rank 0's (--ic or "
	                "--restart: is the file the same on every node?)");
}
