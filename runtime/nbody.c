/* nbody.c: bin/nbody, the gravitational N-body simulator of paper 000: the
 * command line, the force through an nbcc kernel (gravity.nbl) on a device
 * of the runtime, snapshots, pictures and the performance summary.  The
 * physics (initial conditions, leap-frog, energy) lives in sim.c. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "nbrt.h"
#include "sim.h"

/* The kernel built in: dsl-examples/gravity.nbl itself, embedded at build
 * time (scripts/embed.sh), so that bin/nbody runs from anywhere. */
extern const char nb_gravity_nbl[];

#define MAX_N ((size_t)1 << 26)

typedef struct args {
	sim_ic ic;
	size_t n;
	uint64_t seed;
	double dt, eps, view;
	long steps, every;
	int size;
	const char *out, *png, *device, *kernel;
	int csv;
	nb_options opt;
} args;

/* The force through the kernel, and what its launches cost. */
typedef struct force {
	nbrt_kernel *k;
	nbrt *rt;
	double t_kernel, t_total; /* summed over the timed evaluations */
	char err[512];
} force;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: nbody [options]\n"
	        "Gravitational N-body simulation (leap-frog, G = 1) with the force\n"
	        "of dsl-examples/gravity.nbl compiled by nbcc.\n\n"
	        "  --ic MODEL         plummer (default), cube or collision\n"
	        "  -n N               number of bodies (default 1024)\n"
	        "  --seed S           seed of the initial conditions (default 1)\n"
	        "  --dt DT            time step, a number or a ratio such as 1/256\n"
	        "                     (default: plummer 1/128, cube 0.01,\n"
	        "                     collision 1/64)\n"
	        "  --eps EPS          softening length (default: plummer 1/64,\n"
	        "                     cube 0.01, collision 1/64)\n"
	        "  --steps K          number of steps (default 100)\n"
	        "  --every M          snapshot/picture every M steps (default 0:\n"
	        "                     the first and the last step only)\n"
	        "  --out DIR          write snapshots DIR/snap_STEP.csv\n"
	        "  --png DIR          write pictures DIR/frame_STEP.png (x-y left,\n"
	        "                     x-z right)\n"
	        "  --size PX          picture panel size in pixels (default 512)\n"
	        "  --view L           pictures span [-L, L] (default: from step 0)\n"
	        "  --device SPEC      host, amdil, cpu, gpu, P:D or a name (default:\n"
	        "                     $NBRT_DEVICE, else a GPU, else a CPU)\n"
	        "  --list-devices     list OpenCL devices and exit\n"
	        "  --kernel FILE      another gravity kernel (.nbl, or .cl/.c/.il from\n"
	        "                     nbcc); default: the built-in gravity.nbl\n"
	        "  --print-kernel     print the built-in kernel source and exit\n"
	        "  --csv              print the summary as one CSV header and row\n"
	        "  --help\n\n"
	        "Compiler options (--target=c runs on the host, --target=amdil in\n"
	        "nbcc's AMD IL interpreter, --target=opencl on an OpenCL device):\n%s"
	        "\nSee docs/nbody.md for the models, the snapshot format and the\n"
	        "summary columns.\n",
	        nb_options_help_text());
}

/* A number, or a ratio A/B such as 1/128 (the paper's step sizes). */
static int get_double(const char *flag, const char *v, double *out)
{
	if (v == cli_missing)
		return 1;
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end != v && *end == '/') {
		const char *d = end + 1;
		double y = strtod(d, &end);
		x = end != d && y != 0 ? x / y : NAN;
	}
	if (!*v || *end || errno || !isfinite(x))
		return cli_fail("%s needs a number, not '%s'", flag, nb_esc(v));
	*out = x;
	return 0;
}

static int get_long(const char *flag, const char *v, long min, long max,
                    long *out)
{
	if (v == cli_missing)
		return 1;
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno)
		return cli_fail("%s needs an integer, not '%s'", flag, nb_esc(v));
	if (x < min || x > max)
		return cli_fail("%s must be between %ld and %ld, not %ld", flag, min,
		                max, x);
	*out = x;
	return 0;
}

static int get_seed(const char *v, uint64_t *out)
{
	if (v == cli_missing)
		return 1;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (!*v || *v == '-' || *end || errno)
		return cli_fail("--seed needs a non-negative integer, not '%s'",
		                nb_esc(v));
	*out = x;
	return 0;
}

enum { P_GO, P_DONE, P_BAD };

/* Sets a from argv; returns P_GO, or P_DONE/P_BAD when main should stop. */
static int parse_args(args *a, int argc, char **argv)
{
	int have_dt = 0, have_eps = 0;
	long n = 1024;
	char err[256];
	memset(a, 0, sizeof *a);
	a->ic = SIM_PLUMMER;
	a->seed = 1;
	a->steps = 100;
	a->size = 512;
	nb_options_init(&a->opt);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i], *v = NULL;
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		int took = nb_options_parse(&a->opt, s, next, err, sizeof err);
		if (took < 0) {
			cli_fail("%s", err);
			return P_BAD;
		}
		if (took) {
			i += took - 1;
			continue;
		}
		int bad = 0;
		long l;
		if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
			usage(stdout);
			return P_DONE;
		} else if (strcmp(s, "--print-kernel") == 0) {
			fputs(nb_gravity_nbl, stdout);
			return P_DONE;
		} else if (strcmp(s, "--list-devices") == 0) {
			return nbrt_list(stdout) < 0 ? P_BAD : P_DONE;
		} else if (strcmp(s, "--csv") == 0) {
			a->csv = 1;
		} else if ((v = cli_value(s, "--ic", argc, argv, &i))) {
			if (v != cli_missing && sim_ic_parse(v, &a->ic))
				bad = cli_fail("unknown --ic '%s' (plummer, cube or "
				               "collision)", nb_esc(v));
		} else if ((v = cli_value(s, "-n", argc, argv, &i))) {
			bad = get_long("-n", v, 1, (long)MAX_N, &n);
		} else if ((v = cli_value(s, "--seed", argc, argv, &i))) {
			bad = get_seed(v, &a->seed);
		} else if ((v = cli_value(s, "--dt", argc, argv, &i))) {
			bad = get_double("--dt", v, &a->dt);
			if (!bad && a->dt <= 0)
				bad = cli_fail("--dt must be positive, not %s", v);
			have_dt = 1;
		} else if ((v = cli_value(s, "--eps", argc, argv, &i))) {
			bad = get_double("--eps", v, &a->eps);
			if (!bad && a->eps <= 0)
				bad = cli_fail("--eps must be positive (the kernel "
				               "includes j = i), not %s", v);
			have_eps = 1;
		} else if ((v = cli_value(s, "--view", argc, argv, &i))) {
			bad = get_double("--view", v, &a->view);
			if (!bad && a->view <= 0)
				bad = cli_fail("--view must be positive, not %s", v);
		} else if ((v = cli_value(s, "--steps", argc, argv, &i))) {
			bad = get_long("--steps", v, 0, 1000000000L, &a->steps);
		} else if ((v = cli_value(s, "--every", argc, argv, &i))) {
			bad = get_long("--every", v, 0, 1000000000L, &a->every);
		} else if ((v = cli_value(s, "--size", argc, argv, &i))) {
			if (!(bad = get_long("--size", v, 16, 4096, &l)))
				a->size = (int)l;
		} else if ((v = cli_value(s, "--out", argc, argv, &i))) {
			a->out = v;
		} else if ((v = cli_value(s, "--png", argc, argv, &i))) {
			a->png = v;
		} else if ((v = cli_value(s, "--device", argc, argv, &i))) {
			a->device = v;
		} else if ((v = cli_value(s, "--kernel", argc, argv, &i))) {
			a->kernel = v;
		} else {
			bad = cli_fail("unknown option '%s' (see nbody --help)",
			               nb_esc(s));
		}
		if (bad || v == cli_missing)
			return P_BAD;
	}
	a->n = (size_t)n;
	double dt, eps;
	sim_ic_defaults(a->ic, &dt, &eps);
	if (!have_dt)
		a->dt = dt;
	if (!have_eps)
		a->eps = eps;
	if ((a->out && !*a->out) || (a->png && !*a->png)) {
		cli_fail("--out and --png need a directory");
		return P_BAD;
	}
	return P_GO;
}

/* mkdir -p DIR, then a check that it is writable, so an unusable
 * directory is reported before any work is done. */
static int make_dir(const char *flag, const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		return cli_fail("out of memory");
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c != 0)
			continue;
		char keep = *c;
		*c = 0;
		struct stat st;
		if (stat(p, &st) != 0 && mkdir(p, 0777) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return cli_fail("%s: cannot create '%s': %s", flag,
			                nb_esc(dir), strerror(e));
		}
		*c = keep;
		if (!keep)
			break;
	}
	free(p);
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return cli_fail("%s: '%s' is not a directory", flag, nb_esc(dir));
	/* a check that creates nothing: a probe file would be one more
	 * name for another user to plant a link at */
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		return cli_fail("%s: cannot write in '%s': %s", flag, nb_esc(dir),
		                strerror(errno));
	return 0;
}

/* The kernel must be gravity.nbl's interface, nothing more nor less, for
 * the binding below to cover every argument. */
static int check_iface(const nb_iface *f, const char *name)
{
	static const struct {
		const char *name;
		nb_role role;
	} want[] = {
		{"xi", NB_LMEM}, {"yi", NB_LMEM}, {"zi", NB_LMEM},
		{"xj", NB_BMEM}, {"yj", NB_BMEM}, {"zj", NB_BMEM}, {"mj", NB_BMEM},
		{"ax", NB_RMEM}, {"ay", NB_RMEM}, {"az", NB_RMEM}, {"pot", NB_RMEM},
		{"eps2", NB_CONST},
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		int v = nb_iface_find(f, want[k].name);
		if (v < 0 || f->var[v].role != want[k].role)
			return cli_fail("kernel '%s' lacks %s %s: it must have the "
			                "interface of gravity.nbl (see --print-kernel)",
			                name, nb_role_name(want[k].role), want[k].name);
	}
	if (f->nvar != (int)(sizeof want / sizeof want[0]))
		return cli_fail("kernel '%s' has variables that gravity.nbl does not "
		                "(see --print-kernel)", name);
	return 0;
}

static int bind_all(force *fc, sim *s)
{
	nbrt_kernel *k = fc->k;
	struct {
		const char *name;
		double *p;
	} b[] = {
		{"xi", s->x}, {"yi", s->y}, {"zi", s->z}, {"xj", s->x},
		{"yj", s->y}, {"zj", s->z}, {"mj", s->m}, {"ax", s->ax},
		{"ay", s->ay}, {"az", s->az}, {"pot", s->pot},
	};
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		if (nbrt_bind(k, b[i].name, NBRT_DOUBLE, b[i].p))
			return cli_fail("%s", nbrt_error(fc->rt));
	if (nbrt_set_const(k, "eps2", s->eps * s->eps, 0))
		return cli_fail("%s", nbrt_error(fc->rt));
	return 0;
}

static int kernel_force(sim *s, void *ctx)
{
	force *fc = ctx;
	if (nbrt_run(fc->k, s->n, s->n)) {
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
		return -1;
	}
	fc->t_kernel += nbrt_kernel_time(fc->k);
	fc->t_total += nbrt_total_time(fc->k);
	return 0;
}

/* Opens the device and loads the kernel; the --target given, if any, must
 * suit the device. */
static int setup(force *fc, args *a)
{
	/* a generated --kernel runs on its target's back end where that has
	 * a device of its own (the host for .c, the interpreter for .il) */
	const char *dev = a->device, *et = a->kernel && !a->opt.target ?
	                                  nb_target_of_ext(a->kernel) : NULL;
	if (!dev && et)
		nbrt_target_device(et, &dev, NULL);
	fc->rt = cli_open(dev, a->opt.target, "--target=");
	if (!fc->rt)
		return 1;
	if (a->kernel)
		fc->k = nbrt_load(fc->rt, a->kernel, &a->opt);
	else
		fc->k = nbrt_load_source(fc->rt, "gravity.nbl", nb_gravity_nbl,
		                         strlen(nb_gravity_nbl), &a->opt);
	if (!fc->k)
		return cli_fail("%s", nbrt_error(fc->rt));
	return check_iface(nbrt_iface(fc->k), a->kernel ? a->kernel
	                                                : "gravity.nbl");
}

/* Writes the snapshot and picture of this step, where asked for. */
static int output(const args *a, const sim *s, const sim_view *v)
{
	char err[512], info[256];
	size_t len = strlen(a->out ? a->out : "") + strlen(a->png ? a->png : "") +
	             64;
	char *path = malloc(len);
	if (!path)
		return cli_fail("out of memory");
	int rc = 0;
	if (a->out) {
		snprintf(info, sizeof info, "ic=%s n=%zu seed=%llu step=%ld "
		         "t=%.17g dt=%.17g eps=%.17g G=1", sim_ic_name(a->ic),
		         s->n, (unsigned long long)a->seed, s->step, s->t, a->dt,
		         s->eps);
		snprintf(path, len, "%s/snap_%06ld.csv", a->out, s->step);
		if (sim_write_snapshot(s, path, info, err, sizeof err))
			rc = cli_fail("%s", err);
	}
	if (!rc && a->png) {
		snprintf(path, len, "%s/frame_%06ld.png", a->png, s->step);
		if (sim_write_png(s, v, path, err, sizeof err))
			rc = cli_fail("%s", err);
	}
	free(path);
	return rc;
}

static int want_output(const args *a, long step)
{
	if (!a->out && !a->png)
		return 0;
	return step == 0 || step == a->steps ||
	       (a->every > 0 && step % a->every == 0);
}

static void progress(long step, long steps, int *shown)
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

typedef struct result {
	sim_diag d0, d1;
	double t_steps; /* wall time of the steps, output excluded */
} result;

static int run(args *a, force *fc, sim *s, result *r)
{
	if (bind_all(fc, s))
		return 1;
	/* the first evaluation may include one-off costs (program build,
	 * buffer creation): it is left out of the timings */
	if (kernel_force(s, fc))
		return cli_fail("%s", fc->err);
	fc->t_kernel = fc->t_total = 0;
	sim_measure(s, &r->d0);
	sim_view v;
	sim_view_auto(s, a->size, &v);
	if (a->view > 0)
		v.half = a->view;
	if (want_output(a, 0) && output(a, s, &v))
		return 1;
	int tty = isatty(2), shown = -1;
	r->t_steps = 0;
	for (long k = 1; k <= a->steps; k++) {
		double t0 = cli_now();
		if (sim_step(s, a->dt, kernel_force, fc)) {
			if (tty)
				fputc('\n', stderr);
			return cli_fail("step %ld: %s", k, fc->err);
		}
		r->t_steps += cli_now() - t0;
		if (tty)
			progress(k, a->steps, &shown);
		if (!sim_finite(s)) {
			if (tty)
				fputc('\n', stderr);
			return cli_fail("step %ld: the positions or velocities are no "
			                "longer finite (NaN or infinite): dt = %g is "
			                "too long for this model", k, a->dt);
		}
		if (want_output(a, k) && output(a, s, &v))
			return 1;
	}
	sim_measure(s, &r->d1);
	/* the energy squares velocities: it can overflow where they did not */
	if (!isfinite(r->d0.etot) || !isfinite(r->d1.etot))
		return cli_fail("the energy is not finite (E0 = %g, E = %g): dt = %g "
		                "is too long for this model", r->d0.etot, r->d1.etot,
		                a->dt);
	return 0;
}

static void summary(const args *a, const force *fc, const sim *s,
                    const result *r)
{
	const nb_iface *f = nbrt_iface(fc->k);
	double e0 = r->d0.etot, e1 = r->d1.etot;
	/* relative where it can be: a lone body has E = 0 */
	double de = e0 != 0 ? fabs((e1 - e0) / e0) : fabs(e1 - e0);
	double dp = hypot(hypot(r->d1.px - r->d0.px, r->d1.py - r->d0.py),
	                  r->d1.pz - r->d0.pz);
	double steps = (double)(a->steps ? a->steps : 1);
	double t_step = r->t_steps / steps, t_force = fc->t_total / steps;
	double t_kern = fc->t_kernel / steps;
	double inter = (double)s->n * (double)s->n;
	double ips = a->steps && t_kern > 0 ? inter / t_kern : 0;
	double conv = f->flops_conv > 0 ? f->flops_conv : 38;
	double g38 = ips * conv * 1e-9, gnb = ips * f->flops * 1e-9;
	double g38_step = a->steps && t_step > 0 ? inter / t_step * conv * 1e-9
	                                        : 0;
	if (a->csv) {
		/* numbers first, quoted strings last: `cut -d, -f1-20` works */
		puts("ic,n,seed,steps,dt,eps,t,e0,e,de_rel,dp,flops_nbcc,"
		     "flops_conv,time_step,time_force,time_kernel,"
		     "interactions_per_s,gflops_conv,gflops_nbcc,gflops_conv_step,"
		     "target,device,flags");
		printf("%s,%zu,%llu,%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
		       "%g,%g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,",
		       sim_ic_name(a->ic), s->n, (unsigned long long)a->seed,
		       a->steps, a->dt, s->eps, s->t, e0, e1, de, dp, f->flops, conv,
		       t_step, t_force, t_kern, ips, g38, gnb, g38_step, f->target);
		cli_csv_str(nbrt_device_name(fc->rt));
		putchar(',');
		cli_csv_str(f->flags ? f->flags : "");
		putchar('\n');
		return;
	}
	printf("nbody: %s, N = %zu, seed %llu, dt = %g, eps = %g, %ld steps "
	       "(t = %g)\n", sim_ic_name(a->ic), s->n,
	       (unsigned long long)a->seed, a->dt, s->eps, a->steps, s->t);
	printf("device:      %s\n", nb_esc(nbrt_device_name(fc->rt)));
	printf("kernel:      %s, target %s, %s\n", f->kernel, f->target,
	       f->flags ? f->flags : "");
	printf("energy:      E0 = %.10f  E = %.10f  |dE/E| = %.3e\n", e0, e1,
	       de);
	printf("momentum:    |dP| = %.3e\n", dp);
	printf("time/step:   %.4g s (force %.4g s, of which kernel %.4g s)\n",
	       t_step, t_force, t_kern);
	printf("speed:       %.4g interactions/s in the kernel\n", ips);
	printf("GFLOPS:      %.4g (%g-flop convention), %.4g (nbcc's count, %g "
	       "flops/interaction); whole step: %.4g (convention)\n", g38, conv,
	       gnb, f->flops, g38_step);
}

/* Memory for n bodies, checked before anything is allocated: the model's
 * arrays (sim_alloc: 11 doubles a body, and one more while the picture
 * view is chosen) and, once the kernel is known, the runtime's copies and
 * buffers.  Refuses with the sizes where they do not fit. */
static int check_memory(const args *a, force *fc)
{
	double model = 12.0 * sizeof(double) * (double)a->n, extra = 0;
	if (fc && fc->k) {
		const nb_iface *f = nbrt_iface(fc->k);
		int native = 1; /* bound as doubles: copies unless all double */
		for (int v = 0; v < f->nvar; v++)
			native &= f->var[v].type == NB_DOUBLE;
		if (nbrt_run_memory(fc->k, a->n, a->n, native, &extra))
			return cli_fail("-n %zu: %s", a->n, nbrt_error(fc->rt));
	}
	double avail = nbrt_host_memory();
	if (model + extra <= avail)
		return 0;
	char sn[32], sm[32], se[32], sa[32];
	nbrt_format_bytes(sn, sizeof sn, model + extra);
	nbrt_format_bytes(sm, sizeof sm, model);
	nbrt_format_bytes(se, sizeof se, extra);
	nbrt_format_bytes(sa, sizeof sa, avail);
	if (fc && fc->k)
		return cli_fail("-n %zu needs %s of memory (the bodies %s, the "
		                "runtime %s), and %s is available", a->n, sn, sm, se,
		                sa);
	return cli_fail("-n %zu needs %s of memory for the bodies alone, and %s "
	                "is available", a->n, sn, sa);
}

int main(int argc, char **argv)
{
	cli_prog = "nbody";
	args a;
	int rc = parse_args(&a, argc, argv);
	if (rc != P_GO)
		return rc == P_DONE ? 0 : 1;
	if ((a.out && make_dir("--out", a.out)) ||
	    (a.png && make_dir("--png", a.png)))
		return 1;
	force fc = {0};
	sim s;
	result r;
	rc = check_memory(&a, NULL);
	if (!rc)
		rc = setup(&fc, &a);
	if (!rc)
		rc = check_memory(&a, &fc);
	if (!rc && sim_alloc(&s, a.n, a.eps))
		rc = cli_fail("out of memory for %zu bodies", a.n);
	else if (!rc) {
		/* a big model takes seconds to make, and a force evaluation
		 * much longer: say so, and report the evaluations' progress */
		if (a.n >= (size_t)1 << 21)
			fprintf(stderr, "nbody: making the %s model of %zu bodies, "
			        "then %ld force evaluation%s of %.3g interactions "
			        "each\n", sim_ic_name(a.ic), a.n, a.steps + 1,
			        a.steps ? "s" : "", (double)a.n * (double)a.n);
		nbrt_show_progress(fc.k, "nbody: force");
		sim_ic_make(&s, a.ic, a.seed);
		rc = run(&a, &fc, &s, &r);
		if (!rc)
			summary(&a, &fc, &s, &r);
		sim_free(&s);
	}
	if (fc.k)
		nbrt_free(fc.k);
	if (fc.rt)
		nbrt_close(fc.rt);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		rc = cli_fail("cannot write the summary");
	return rc ? 1 : 0;
}
