/* output.c: what bin/nbody writes as it runs: the directories of --out
 * and --png, the snapshots and pictures of the steps that have them, the
 * progress bar, the log's rows and the energy plot, and the summary (in
 * words or one CSV row). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "csv.h"
#include "nbody.h"
#include "par.h"
#include "plot.h"
#include "prog.h"

/* Whether dir names the directory st is. */
static int same_dir(const char *dir, const struct stat *st)
{
	struct stat d;
	return dir && stat(dir, &d) == 0 && d.st_dev == st->st_dev &&
	       d.st_ino == st->st_ino;
}

/* Whether name is one the run writes: snap_STEP.csv or .hdf5 (--out),
 * frame_STEP.png or energy.png (--png). */
static int run_file(const char *name, int png)
{
	const char *pre = png ? "frame_" : "snap_";
	size_t n = strlen(pre), k = n;
	if (png && !strcmp(name, "energy.png"))
		return 1;
	if (strncmp(name, pre, n))
		return 0;
	while (name[k] >= '0' && name[k] <= '9')
		k++;
	return k > n && (png ? !strcmp(name + k, ".png") :
	                 !strcmp(name + k, ".csv") || !strcmp(name + k, ".hdf5"));
}

static long last_step(const args *a)
{
	return a->step0 + a->steps;
}

/* The directory that holds path, into *st, and path's base name: 1, or 0
 * where it cannot be seen, -1 after a message. */
static int parent_stat(const char *path, const char **base, struct stat *st)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path + 1))
	                  : strdup(".");
	if (!dir)
		return prog_fail("out of memory"), -1;
	*base = slash ? slash + 1 : path;
	int rc = stat(dir, st) == 0;
	free(dir);
	return rc;
}

int out_log_clash(const args *a)
{
	const char *base;
	struct stat st;
	int k = a->log ? parent_stat(a->log, &base, &st) : 0;
	if (k <= 0)
		return k < 0;
	if (same_dir(a->out, &st) && run_file(base, 0))
		return prog_fail("--log %s is named as --out %s names its "
		                 "snapshots: give the log another name",
		                 nb_esc(a->log), nb_esc(a->out));
	if (same_dir(a->png, &st) && run_file(base, 1))
		return prog_fail("--log %s is named as --png %s names its "
		                 "pictures: give the log another name",
		                 nb_esc(a->log), nb_esc(a->png));
	return 0;
}

int out_input_clash(const args *a)
{
	const char *in = a->restart ? a->restart : a->ic_file, *base;
	struct stat st;
	int k = in && a->out ? parent_stat(in, &base, &st) : 0;
	if (k <= 0 || !same_dir(a->out, &st) || !run_file(base, 0))
		return k < 0;
	/* the name of the snapshot of its step, if the run writes one */
	long step = strtol(base + 5, NULL, 10);
	char name[64];
	snprintf(name, sizeof name, "snap_%06ld.%s", step, a->hdf5 ? "hdf5"
	                                                          : "csv");
	if (strcmp(name, base) || step < a->step0 || step > last_step(a) ||
	    !out_wanted(a, step))
		return 0;
	return prog_fail("%s %s is the snapshot of step %ld that --out %s "
	                 "writes: the run would fail there, after writing over "
	                 "the snapshots before it; give --out another directory",
	                 a->restart ? "--restart" : "--ic", nb_esc(in), step,
	                 nb_esc(a->out));
}

/* mkdir -p DIR, then a check that it is writable, so an unusable
 * directory is reported before any work is done. */
int out_make_dir(const char *flag, const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		return prog_fail("out of memory");
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c != 0)
			continue;
		char keep = *c;
		*c = 0;
		struct stat st;
		if (stat(p, &st) != 0 && mkdir(p, 0777) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return prog_fail("%s: cannot create '%s': %s", flag,
			                 nb_esc(dir), strerror(e));
		}
		*c = keep;
		if (!keep)
			break;
	}
	free(p);
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return prog_fail("%s: '%s' is not a directory", flag, nb_esc(dir));
	/* a check that creates nothing: a probe file would be one more
	 * name for another user to plant a link at */
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		return prog_fail("%s: cannot write in '%s': %s", flag, nb_esc(dir),
		                 strerror(errno));
	return 0;
}

/* What a snapshot says of the run, for its header. */
static void snap_info_of(const args *a, const sim *s, snap_info *in)
{
	memset(in, 0, sizeof *in);
	snprintf(in->ic, sizeof in->ic, "%s", a->icname);
	snprintf(in->integrator, sizeof in->integrator, "%s",
	         a->hermite ? herm_name[a->tstep] : "leapfrog");
	/* a seed says nothing of bodies from a file (icfile names it) */
	in->seed = a->seed;
	in->has_seed = strcmp(a->icname, "file") != 0;
	in->step = s->step;
	in->t = s->t;
	in->dt = a->dt;
	in->eps = s->eps;
	in->eta = a->eta;
	in->has_eta = a->hermite;
	in->e0 = a->e0;
	in->has_e0 = 1;
	memcpy(in->icfile, a->icfile, sizeof in->icfile);
	in->has_icfile = *a->icfile != 0;
}

/* Writes the snapshot and picture of this step, where asked for. */
int out_snapshot(const args *a, const sim *s, const sim_view *v)
{
	if (par_rank())
		return 0; /* rank 0 writes what every rank holds */
	char err[512], info[384 + 3 * SNAP_ICFILE];
	size_t len = strlen(a->out ? a->out : "") + strlen(a->png ? a->png : "") +
	             64;
	char *path = malloc(len);
	if (!path)
		return prog_fail("out of memory");
	int rc = 0;
	snap_info in;
	snap_info_of(a, s, &in);
	if (a->out && a->hdf5) {
		snprintf(path, len, "%s/snap_%06ld.hdf5", a->out, s->step);
		if (snap_write_hdf5(s, &in, path, err, sizeof err))
			rc = prog_fail("%s", err);
	} else if (a->out) {
		int k = snprintf(info, sizeof info, "ic=%s n=%zu", a->icname, s->n);
		if (in.has_seed)
			k += snprintf(info + k, sizeof info - (size_t)k, " seed=%llu",
			              (unsigned long long)a->seed);
		k += snprintf(info + k, sizeof info - (size_t)k, " step=%ld t=%.17g "
		              "dt=%.17g eps=%.17g G=1 integrator=%s", s->step, s->t,
		              a->dt, s->eps, in.integrator);
		if (a->hermite)
			k += snprintf(info + k, sizeof info - (size_t)k, " eta=%.17g",
			              a->eta);
		k += snprintf(info + k, sizeof info - (size_t)k, " e0=%.17g", a->e0);
		if (in.has_icfile) {
			k += snprintf(info + k, sizeof info - (size_t)k, " icfile=");
			snap_icfile_text(in.icfile, info + k, sizeof info - (size_t)k);
		}
		snprintf(path, len, "%s/snap_%06ld.csv", a->out, s->step);
		if (sim_write_snapshot(s, path, info, err, sizeof err))
			rc = prog_fail("%s", err);
	}
	if (!rc && a->png) {
		snprintf(path, len, "%s/frame_%06ld.png", a->png, s->step);
		if (sim_write_png(s, v, path, err, sizeof err))
			rc = prog_fail("%s", err);
	}
	free(path);
	return rc;
}

/* Snapshots and pictures: the first step, every M-th, the last; never a
 * restart's first step, whatever M: its snapshot is the file the run
 * started from (rewriting it would refuse to clobber an input, or write
 * the same bodies again in another format) and its picture was drawn. */
int out_wanted(const args *a, long step)
{
	if (!a->out && !a->png)
		return 0;
	if (a->restart && step == a->step0)
		return 0;
	return step == 0 || step == last_step(a) ||
	       (a->every > 0 && step % a->every == 0);
}

/* The log's rows and the energy plot's points: the first and last step,
 * every M-th, or every step when M is 0. */
int out_record_wanted(const args *a, long step)
{
	if (!a->log && !a->png)
		return 0;
	return step == a->step0 || step == last_step(a) || a->every == 0 ||
	       step % a->every == 0;
}

void out_progress(long step, long steps, int *shown)
{
	int pct = steps ? (int)(100 * step / steps) : 100;
	if (pct == *shown)
		return;
	*shown = pct;
	char bar[41];
	memset(bar, '.', 40);
	memset(bar, '#', (size_t)(pct * 40 / 100));
	bar[40] = 0;
	fprintf(stderr, "\r[%s] %3d%% step %ld/%ld", bar, pct, step, steps);
	if (step == steps)
		fputs("\n", stderr);
	fflush(stderr);
}

/* One row of the log, and one point of the energy plot. */
int out_record(const args *a, const sim *s, result *r, nb_out *log,
               double wall, double inter, long blocks)
{
	sim_diag d;
	sim_measure(s, &d);
	double de = a->e0 != 0 ? fabs((d.etot - a->e0) / a->e0)
	                       : fabs(d.etot - a->e0);
	if (r->nrec == r->caprec) {
		size_t cap = r->caprec ? 2 * r->caprec : 64;
		double *t = realloc(r->rt, cap * sizeof *t);
		if (t)
			r->rt = t;
		double *e = t ? realloc(r->rde, cap * sizeof *e) : NULL;
		if (e)
			r->rde = e;
		if (!t || !e)
			return prog_fail("out of memory");
		r->caprec = cap;
	}
	r->rt[r->nrec] = s->t;
	r->rde[r->nrec++] = de;
	if (log) {
		double p = hypot(hypot(d.px, d.py), d.pz);
		double q = d.pot != 0 ? -d.kin / d.pot : 0;
		fprintf(log->f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
		        "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%ld,%.17g,%.6g\n",
		        s->step, s->t, d.etot, de, d.kin, d.pot, q, d.px, d.py, d.pz,
		        p, d.lx, d.ly, d.lz, blocks, inter, wall);
	}
	return 0;
}

int out_plot_energy(const args *a, const result *r)
{
	if (!a->png || r->nrec == 0 || par_rank())
		return 0;
	char err[512], title[160];
	size_t len = strlen(a->png) + 32;
	char *path = malloc(len);
	if (!path)
		return prog_fail("out of memory");
	snprintf(path, len, "%s/energy.png", a->png);
	snprintf(title, sizeof title, "%s, N = %zu, %s", a->icname, a->n,
	         a->hermite ? "Hermite" : "leap-frog");
	plot_spec ps = {title, "t (N-body units)", "|E - E0| / |E0|", 0, 1,
	                800, 520};
	plot_series se = {NULL, r->rt, r->rde, r->nrec, r->nrec < 64};
	int rc = plot_png(&ps, &se, 1, path, err, sizeof err) ?
	         prog_fail("%s", err) : 0;
	free(path);
	return rc;
}

void out_summary(const args *a, const force *fc, const sim *s,
                 const result *r)
{
	const nb_iface *f = nbrt_iface(fc->k);
	double e0 = a->e0, e1 = r->d1.etot;
	/* relative where it can be: a lone body has E = 0 */
	double de = e0 != 0 ? fabs((e1 - e0) / e0) : fabs(e1 - e0);
	double dp = hypot(hypot(r->d1.px - r->d0.px, r->d1.py - r->d0.py),
	                  r->d1.pz - r->d0.pz);
	double steps = (double)(a->steps ? a->steps : 1);
	/* queued steps timed by their events (force_settle): their means */
	double nt = (double)fc->ntimed;
	double t_step = r->t_steps / steps;
	double t_force = nt > 0 ? fc->qspan / nt : fc->t_total / steps;
	double t_kern = nt > 0 ? fc->qbusy / nt : fc->t_kernel / steps;
	/* interactions a step: N^2 for the leap-frog, the active blocks' sum
	 * for the Hermite scheme */
	double inter = a->hermite || fc->cut.cutoff > 0 ? r->inter / steps
	                          : (double)s->n * (double)s->n;
	double ips = a->steps && t_kern > 0 ? inter / t_kern : 0;
	/* by convention 38 flops an interaction for the force, 60 for the
	 * force and jerk (Nitadori & Makino 2008) */
	double conv = f->flops_conv > 0 ? f->flops_conv : a->hermite ? 60 : 38;
	double g38 = ips * conv * 1e-9, gnb = ips * f->flops * 1e-9;
	double g38_step = a->steps && t_step > 0 ? inter / t_step * conv * 1e-9
	                                        : 0;
	/* a seed says something only of bodies a model made: not of an --ic
	 * file's, nor of a restart whose snapshot says its IC was a file */
	int seeded = !a->ic_file && strcmp(a->icname, "file") != 0;
	char seed[24] = "";
	if (seeded)
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)a->seed);
	if (a->csv) {
		/* numbers first, quoted strings last: `cut -d, -f1-20` works */
		puts("ic,n,seed,steps,dt,eps,t,e0,e,de_rel,dp,flops_nbcc,"
		     "flops_conv,time_step,time_force,time_kernel,"
		     "interactions_per_s,gflops_conv,gflops_nbcc,gflops_conv_step,"
		     "target,device,flags");
		printf("%s,%zu,%s,%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
		       "%g,%g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,",
		       a->icname, s->n, seed,
		       a->steps, a->dt, s->eps, s->t, e0, e1, de, dp, f->flops, conv,
		       t_step, t_force, t_kern, ips, g38, gnb, g38_step, f->target);
		csv_print_text(stdout, nbrt_device_name(fc->rt));
		putchar(',');
		csv_print_text(stdout, f->flags ? f->flags : "");
		putchar('\n');
		return;
	}
	/* where the bodies came from: the model, the --ic file, or the
	 * --restart snapshot and the IC its run began from */
	char what[2 * 4200 + 64]; /* two nb_esc texts */
	if (a->ic_file)
		snprintf(what, sizeof what, "%s", nb_esc(a->ic_file));
	else if (a->restart)
		snprintf(what, sizeof what, "%s (a restart; IC %s)",
		         nb_esc(a->restart), seeded ? a->icname
		         : *a->icfile ? nb_esc(a->icfile) : "from a file");
	else
		snprintf(what, sizeof what, "%s", a->icname);
	printf("nbody: %s, N = %zu%s%s, ", what, s->n, seeded ? ", seed " : "",
	       seed);
	if (a->hermite && a->tstep == HERM_FIXED)
		printf("hermite, fixed dt = %g, eps = %g, %ld steps (t = %g)\n",
		       a->dt, s->eps, a->steps, s->t);
	else if (a->hermite)
		printf("hermite%s eta = %g, dt <= %g, eps = %g, %ld steps (t = %g)\n",
		       a->tstep == HERM_SHARED ? ", shared steps," : "", a->eta,
		       a->dt, s->eps, a->steps, s->t);
	else
		printf("dt = %g, eps = %g, %ld steps (t = %g)\n", a->dt, s->eps,
		       a->steps, s->t);
	printf("device:      %s\n", nb_esc(nbrt_device_name(fc->rt)));
	printf("kernel:      %s, target %s, %s (%s)\n", f->kernel, f->target,
	       f->flags ? f->flags : "", nbrt_variant_origin(fc->k));
	printf("energy:      E0 = %.10f  E = %.10f  |dE/E| = %.3e\n", e0, e1,
	       de);
	printf("momentum:    |dP| = %.3e\n", dp);
	if (a->hermite)
		printf("blocks:      %ld block steps, %.4g force evaluations a "
		       "body a step\n", r->blocks, inter / ((double)s->n *
		                                            (double)s->n));
	/* where a block step's time goes: the host's own loops (the active
	 * list, their prediction, the corrector), the j-bodies' put and
	 * prediction (the calls; on a device that queues them, their work
	 * falls in the force's wait), the force's run, its kernel */
	if (a->hermite && r->blocks > 0) {
		double b = 1e6 / (double)r->blocks;
		printf("a block:     %.4g us (host %.4g, j-bodies %.4g, force %.4g, "
		       "of which kernel %.4g)\n", r->t_steps * b,
		       (r->t_steps - fc->t_total - fc->t_pred) * b, fc->t_pred * b,
		       fc->t_total * b, fc->t_kernel * b);
	}
	printf("time/step:   %.4g s (force %.4g s, of which kernel %.4g s)\n",
	       t_step, t_force, t_kern);
	printf("speed:       %.4g interactions/s in the kernel\n", ips);
	printf("GFLOPS:      %.4g (%g-flop convention), %.4g (nbcc's count, %g "
	       "flops/interaction); whole step: %.4g (convention)\n", g38, conv,
	       gnb, f->flops, g38_step);
}

/* Under MPI, rank 0's line on stderr of what the ranks cost a step:
 * the slowest rank's kernel and exchanges.  The summary's kernel time is
 * the slowest rank's too, so its rate is that of all ranks together. */
void out_ranks(const args *a, force *fc, const result *r)
{
	double t[2] = {fc->t_kernel, par_comm_time() - fc->t_comm};
	par_max(t, 2);
	fc->t_kernel = t[0];
	double steps = (double)(a->steps ? a->steps : 1);
	if (!par_rank())
		fprintf(stderr, "nbody: %d ranks; a step: %.6g s, kernel %.6g s, "
		        "exchanges %.6g s (the slowest rank's)\n", par_size(),
		        r->t_steps / steps, t[0] / steps, t[1] / steps);
}
