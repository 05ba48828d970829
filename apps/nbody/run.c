/* run.c: bin/nbody's run: the first force evaluation (or a restart's
 * state), then the steps, each followed by the log's row, the snapshot and
 * the picture it has; the energy at both ends. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "nbody.h"
#include "par.h"
#include "prog.h"

/* The energy needs the potential of the positions as they are: the
 * leap-frog's last force is that; the Hermite's block steps leave the
 * potential of predicted positions, so it is evaluated anew (untimed). */
int run_potential(const args *a, force *fc, herm *h)
{
	if (!a->hermite)
		return 0;
	fc->untimed = 1;
	int rc = herm_potential(h, force_hermite, fc);
	fc->untimed = 0;
	return rc ? prog_fail("%s", fc->err) : 0;
}

int run_steps(args *a, force *fc, sim *s, herm *h, result *r, nb_out *log,
              const snap_data *rs)
{
	if (par_agree(force_bind(fc, a, s, h)))
		return 1;
	/* the first evaluation may include one-off costs (program build,
	 * buffer creation): it is left out of the timings */
	if (a->hermite && rs) {
		size_t bad;
		/* restart_read checked the steps */
		if (herm_resume(h, &bad))
			return prog_fail("%s: body %zu's step %g", nb_esc(a->restart), bad,
			                 s->tstep[bad]);
		if (run_potential(a, fc, h))
			return 1;
	} else if (a->hermite) {
		fc->untimed = 1;
		int e = herm_start(h, force_hermite, fc);
		fc->untimed = 0;
		if (e || run_potential(a, fc, h))
			return prog_fail("%s", fc->err);
	} else {
		if (force_move(fc, s, 1, 0, A_N))
			return 1;
		if (force_leapfrog(s, fc))
			return prog_fail("%s", fc->err);
		/* a restart goes on with the accelerations it saved, whatever
		 * the force evaluated now rounds to */
		if (rs) {
			memcpy(s->ax, rs->col[SC_AX], s->n * sizeof(double));
			memcpy(s->ay, rs->col[SC_AY], s->n * sizeof(double));
			memcpy(s->az, rs->col[SC_AZ], s->n * sizeof(double));
			if (force_move(fc, s, 1, A_AX, A_AZ + 1))
				return 1;
		}
		if (force_move(fc, s, 0, 0, A_N))
			return 1;
	}
	/* the first evaluation's queued times (NBRT_QUEUE) dropped with
	 * its others */
	if (nbrt_wait(fc->rt, NULL))
		return prog_fail("%s", nbrt_error(fc->rt));
	if (force_queue(fc, a))
		return 1;
	/* the first forces, before any step: where they are not finite the
	 * model itself is beyond the kernel's arithmetic (an eps whose
	 * m/eps^3 overflows it in the j = i term, though eps2 is in range,
	 * or two bodies as close), which the first step's message blamed on
	 * dt or eta */
	if (par_agree(sim_finite(s) ? 0 : a->eps > 0 ?
	    prog_fail("the first forces are not finite (NaN or infinite), "
	              "before any step: --eps %g is too small for the kernel's "
	              "arithmetic, or two bodies are too close for it", a->eps) :
	    prog_fail("the first forces are not finite (NaN or infinite), "
	              "before any step: two bodies are too close (or coincide) "
	              "for the kernel's arithmetic")))
		return 1;
	fc->t_kernel = fc->t_total = fc->t_pred = 0;
	fc->qsteps = fc->ntimed = 0;
	fc->qspan = fc->qbusy = 0;
	fc->t_comm = par_comm_time();
	h->inter = 0;
	h->blocks = 0;
	sim_measure(s, &r->d0);
	if (!a->have_e0)
		a->e0 = r->d0.etot;
	sim_view v;
	sim_view_auto(s, (int)a->size, &v);
	if (a->view > 0)
		v.half = a->view;
	r->t_steps = 0;
	if (out_record_wanted(a, s->step) && par_agree(out_record(a, s, r, log, 0, 0, 0)))
		return 1;
	if (out_wanted(a, s->step) && par_agree(out_snapshot(a, s, &v)))
		return 1;
	int tty = isatty(2), shown = -1;
	for (long k = 1; k <= a->steps; k++) {
		double t0 = prog_now();
		int finite = 1;
		long checked = 0; /* the step finite is of */
		if (a->hermite ? herm_step(h, force_hermite, fc)
		    : fc->arr[0] ? force_step(fc, s, a->dt, &finite, &checked)
		                 : sim_step(s, a->dt, force_leapfrog, fc)) {
			if (tty)
				fputc('\n', stderr);
			return prog_fail("step %ld: %s", s->step + 1, fc->err);
		}
		/* the device's steps are checked a step late (force_step),
		 * but before any output of their bodies, and at the end */
		if (finite && fc->nfin &&
		    (out_record_wanted(a, s->step) || out_wanted(a, s->step) ||
		     k == a->steps) && force_settle(fc, &finite, &checked)) {
			if (tty)
				fputc('\n', stderr);
			return prog_fail("step %ld: %s", s->step, fc->err);
		}
		r->t_steps += prog_now() - t0;
		if (tty)
			out_progress(k, a->steps, &shown);
		if (!fc->arr[0]) {
			finite = sim_finite(s);
			checked = s->step;
		}
		if (!finite) {
			if (tty)
				fputc('\n', stderr);
			/* eta is not the cause where the fit's 1/dt^3 overflows,
			 * nor with --timestep fixed, which takes no eta */
			if (a->hermite && !(a->dt * a->dt * a->dt >= DBL_MIN))
				return prog_fail("step %ld: the positions or velocities are "
				                 "no longer finite (NaN or infinite): dt = %g "
				                 "is too short for the Hermite scheme, which "
				                 "divides by dt^3", checked, a->dt);
			if (a->hermite && a->tstep != HERM_FIXED)
				return prog_fail("step %ld: the positions or velocities are "
				                 "no longer finite (NaN or infinite): eta = %g "
				                 "is too large for this model", checked,
				                 a->eta);
			return prog_fail("step %ld: the positions or velocities are no "
			                 "longer finite (NaN or infinite): dt = %g is "
			                 "too long for this model", checked, a->dt);
		}
		r->inter = a->hermite ? h->inter : fc->cut.cutoff > 0 ? fc->pairs
		                      : (double)k * (double)s->n * (double)s->n;
		r->blocks = a->hermite ? h->blocks : k;
		/* the leap-frog's bodies back from the device where needed */
		if (!a->hermite &&
		    (out_record_wanted(a, s->step) || out_wanted(a, s->step) ||
		     k == a->steps) && force_move(fc, s, 0, 0, A_N))
			return 1;
		/* a snapshot's Potential too comes from the corrected
		 * positions, with or without --log (issue 28 item 1) */
		int rec = out_record_wanted(a, s->step);
		int snap = out_wanted(a, s->step);
		if ((rec || snap) && run_potential(a, fc, h))
			return 1;
		if (rec && par_agree(out_record(a, s, r, log, r->t_steps, r->inter,
		                                r->blocks)))
			return 1;
		if (snap && par_agree(out_snapshot(a, s, &v)))
			return 1;
	}
	if (!(a->steps > 0 && (out_record_wanted(a, s->step) ||
	                       out_wanted(a, s->step))) &&
	    run_potential(a, fc, h))
		return 1;
	sim_measure(s, &r->d1);
	/* the energy squares velocities: it can overflow where they did not */
	if (!isfinite(r->d0.etot) || !isfinite(r->d1.etot))
		return prog_fail("the energy is not finite (E0 = %g, E = %g): dt = %g "
		                 "is too long for this model", r->d0.etot, r->d1.etot,
		                 a->dt);
	/* a plot that could not be written fails the run, as a frame does */
	return par_agree(out_plot_energy(a, r));
}
