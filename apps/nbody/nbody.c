/* nbody.c: bin/nbody, the gravitational N-body simulator of paper 000:
 * main calls the jobs in order (nbody.h): the command line, the bodies
 * read and checked before anything is written, the device and the force
 * kernel (gravity.nbl for the leap-frog, hermite.nbl for the Hermite
 * scheme), the log, the model, the steps and the summary.  The physics
 * lives in sim.c (models, leap-frog, energy) and hermite.c; files in
 * snap*.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbody.h"
#include "par.h"
#include "prog.h"

int main(int argc, char **argv)
{
	prog_name = "nbody";
	if (par_init(argc, argv))
		return par_end(1);
	args a;
	int rc = args_parse(&a, argc, argv);
	if (par_agree(rc != P_GO && rc != P_DONE) || rc != P_GO)
		return par_end(rc == P_DONE ? 0 : 1);
	/* files are read and checked before anything is written */
	snap_data d = {0};
	int from_file = a.ic_file || a.restart;
	if (par_agree(from_file && restart_read(&a, &d)) ||
	    par_agree(restart_steps(&a, a.restart ? d.info.t : 0) ||
	              (!par_rank() && a.out && out_make_dir("--out", a.out)) ||
	              (!par_rank() && a.png && out_make_dir("--png", a.png)) ||
	              (!par_rank() && (out_log_clash(&a) ||
	                               out_input_clash(&a))))) {
		snap_data_free(&d);
		return par_end(1);
	}
	force fc = {0};
	sim s;
	herm h = {0};
	result r = {0};
	nb_out log = {0}, *logp = NULL;
	rc = force_memory(&a, NULL);
	if (!rc)
		rc = force_setup(&fc, &a);
	if (!rc)
		rc = force_memory(&a, &fc);
	if (!rc && a.log && !par_rank()) {
		char err[512];
		if (nb_out_open(&log, a.log, 0, err, sizeof err))
			rc = prog_fail("--log: %s", err);
		else {
			logp = &log;
			fputs("step,t,e,de_rel,ekin,epot,virial,px,py,pz,p,lx,ly,lz,"
			      "block_steps,interactions,wall_s\n", log.f);
		}
	}
	rc = par_agree(rc);
	if (!rc && par_agree(sim_alloc(&s, a.n, a.eps) ?
	                     prog_fail("out of memory for %zu bodies", a.n) : 0))
		rc = 1;
	else if (!rc) {
		h.s = &s;
		if (a.hermite && herm_alloc(&h, &s, a.eta, a.dt))
			rc = prog_fail("out of memory for %zu bodies", a.n);
		h.mode = (herm_mode)a.tstep;
		/* a big model takes seconds to make, and a force evaluation
		 * much longer: say so, and report the evaluations' progress */
		if (!rc && a.n >= (size_t)1 << 21 && !from_file && !par_rank())
			fprintf(stderr, "nbody: making the %s model of %zu bodies, "
			        "then %ld force evaluation%s of %.3g interactions "
			        "each\n", a.icname, a.n, a.steps + 1,
			        a.steps ? "s" : "", (double)a.n * (double)a.n);
		if (!rc) {
			nbrt_show_progress(fc.k, par_rank() ? NULL : "nbody: force");
			if (from_file)
				restart_take(&a, &d, &s);
			else if (a.lattice)
				sim_lattice(&s, a.seed, a.dim, a.density, a.temp);
			else
				sim_ic_make(&s, a.ic, a.seed);
			for (int k = 0; k < a.nperiod; k++)
				s.box[k] = a.period[k];
			rc = force_bodies(&a, &s, &d, from_file ? (a.restart ?
			                  a.restart : a.ic_file) : NULL);
		}
		if (!par_agree(rc) && !(rc = par_agree(restart_same(&s))))
			rc = run_steps(&a, &fc, &s, &h, &r, logp, a.restart ? &d : NULL);
		if (!rc && par_size() > 1)
			out_ranks(&a, &fc, &r);
		if (!rc && !par_rank())
			out_summary(&a, &fc, &s, &r);
		herm_free(&h);
		sim_free(&s);
	}
	if (logp) {
		char err[512];
		if (rc)
			nb_out_abort(logp);
		else if (nb_out_commit(logp, err, sizeof err))
			rc = prog_fail("--log: %s", err);
	}
	free(r.rt);
	free(r.rde);
	snap_data_free(&d);
	/* queued launches (force_queue) end before their arrays go; after
	 * a failure, the first message stands */
	if (fc.rt && nbrt_wait(fc.rt, NULL) && !rc)
		rc = prog_fail("%s", nbrt_error(fc.rt));
	for (int i = 0; i < A_N; i++)
		nbrt_array_free(fc.arr[i]), nbrt_array_free(fc.own[i]);
	nbrt_predictor_free(fc.pred);
	nbrt_array_free(fc.mass);
	if (fc.k)
		nbrt_free(fc.k);
	nbrt_free(fc.far);
	if (fc.rt)
		nbrt_close(fc.rt);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		rc = prog_fail("cannot write the summary");
	return par_end(rc ? 1 : 0);
}
