/* nbody.c: bin/nbody, the gravitational N-body simulator of paper 000: the
 * command line, the force through an nbcc kernel (gravity.nbl for the
 * leap-frog, hermite.nbl for the Hermite scheme) on a device of the
 * runtime, initial conditions from files, restarts, snapshots, the log,
 * pictures and the performance summary.  The physics lives in sim.c
 * (models, leap-frog, energy) and hermite.c; files in snap*.c. */
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
#include "hermite.h"
#include "nbrt.h"
#include "par.h"
#include "prog.h"
#include "plot.h"
#include "sim.h"
#include "snap.h"

/* The kernel built in: dsl-examples/gravity.nbl itself, embedded at build
 * time (scripts/embed.sh), so that bin/nbody runs from anywhere. */
extern const char nb_gravity_nbl[], nb_hermite_nbl[];

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
	double tune;       /* --tune's budget in seconds, 0: none */
	nb_options opt;
	/* beyond paper 000 */
	int hermite, hdf5, print_kernel;
	double eta, t_end;
	const char *ic_file, *restart, *log;
	int have_n, have_dt, have_eps, have_eta, have_seed, have_steps,
	    have_t_end, have_integrator;
	long step0;        /* the step the run starts from (a restart's) */
	const char *icname; /* the model's name, or "file" */
	double e0;         /* the first state's energy, carried by restarts */
	int have_e0;
} args;

/* The leap-frog's bodies, in nbrt arrays (on the device where it has
 * memory of its own), in this order. */
enum { A_M, A_X, A_Y, A_Z, A_VX, A_VY, A_VZ, A_AX, A_AY, A_AZ, A_POT, A_N };

/* The force through the kernel, and what its launches cost. */
typedef struct force {
	nbrt_kernel *k;
	nbrt *rt;
	nbrt_array *arr[A_N]; /* the leap-frog's state (NULL: Hermite) */
	double t_kernel, t_total; /* summed over the timed evaluations */
	int untimed;              /* evaluations for the energy alone */
	double t_comm;            /* par_comm_time() when the steps began */
	char err[512];
	/* the arrays bound, which each rank binds again from its part's
	 * first element (MPI) */
	struct binding {
		const char *name;
		double *p;
	} bind[24];
	size_t nbind;
} force;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: nbody [options]\n"
	        "Gravitational N-body simulation (leap-frog or Hermite, G = 1) with\n"
	        "the force of dsl-examples/gravity.nbl or hermite.nbl compiled by\n"
	        "nbcc.\n\n"
	        "  --ic MODEL         plummer (default), cube or collision; or a\n"
	        "                     file of bodies, FILE.csv or FILE.hdf5\n"
	        "  --integrator I     leapfrog (default) or hermite (4th order,\n"
	        "                     block time steps, the force in double)\n"
	        "  --eta ETA          Hermite: Aarseth's accuracy parameter\n"
	        "                     (default 0.01)\n"
	        "  -n N               number of bodies (default 1024)\n"
	        "  --seed S           seed of the initial conditions (default 1)\n"
	        "  --dt DT            time step, a number or a ratio such as 1/256\n"
	        "                     (default: plummer 1/128, cube 0.01,\n"
	        "                     collision 1/64); Hermite: the longest\n"
	        "                     step (default 1/16)\n"
	        "  --eps EPS          softening length (default: plummer 1/64,\n"
	        "                     cube 0.01, collision 1/64); Hermite: >= 0\n"
	        "  --steps K          number of steps (default 100); Hermite: of dt\n"
	        "  --t-end T          integrate to time T instead\n"
	        "  --every M          snapshot/picture every M steps (default 0:\n"
	        "                     the first and the last step only)\n"
	        "  --out DIR          write snapshots DIR/snap_STEP.csv\n"
	        "  --format F         csv (default) or hdf5 (GADGET layout)\n"
	        "  --restart FILE     continue the run a snapshot of --out saved\n"
	        "  --log FILE         energy, momentum, virial ratio and time at\n"
	        "                     each snapshot step (every step if --every 0)\n"
	        "  --png DIR          write pictures DIR/frame_STEP.png (x-y left,\n"
	        "                     x-z right) and DIR/energy.png\n"
	        "  --size PX          picture panel size in pixels (default 512)\n"
	        "  --view L           pictures span [-L, L] (default: from step 0)\n"
	        "  --device SPEC      host, amdil, cpu, gpu, P:D or a name (default:\n"
	        "                     $NBRT_DEVICE, else a GPU, else a CPU)\n"
	        "  --list-devices     list OpenCL devices and exit\n"
	        "  --kernel FILE      another gravity kernel (.nbl, or .cl/.c/.il from\n"
	        "                     nbcc); default: the built-in gravity.nbl\n"
	        "  --tune             time the force kernel's variants at this N and\n"
	        "                     keep the fastest whose forces agree with the\n"
	        "                     default's (the cache keeps it for later runs)\n"
	        "  --tune-budget S    --tune within about S seconds (default 3)\n"
	        "  --print-kernel     print the built-in kernel source and exit\n"
	        "                     (hermite.nbl with --integrator hermite)\n"
	        "  --csv              print the summary as one CSV header and row\n"
	        "  --help\n\n"
	        "--target=c runs on the host, --target=amdil in nbcc's AMD IL\n"
	        "interpreter, --target=opencl on an OpenCL device.\n\n"
	        "Compiler options:\n%s"
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
		return prog_fail("%s needs a number, not '%s'", flag, nb_esc(v));
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
		return prog_fail("%s needs an integer, not '%s'", flag, nb_esc(v));
	if (x < min || x > max)
		return prog_fail("%s must be between %ld and %ld, not %ld", flag, min,
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
		return prog_fail("--seed needs a non-negative integer, not '%s'",
		                 nb_esc(v));
	*out = x;
	return 0;
}

enum { P_GO, P_DONE, P_BAD };

/* A model's name, or a file: a name with a '.' or a '/' in it. */
static int get_ic(args *a, const char *v)
{
	if (v == cli_missing)
		return 1;
	a->ic_file = NULL;
	if (sim_ic_parse(v, &a->ic) == 0)
		return 0;
	if (strchr(v, '.') || strchr(v, '/')) {
		a->ic_file = v;
		a->ic = SIM_PLUMMER; /* its dt and eps are the defaults */
		return 0;
	}
	return prog_fail("unknown --ic '%s' (plummer, cube or collision, or a "
	                 "file NAME.csv or NAME.hdf5)", nb_esc(v));
}

/* Sets a from argv; returns P_GO, or P_DONE/P_BAD when main should stop. */
static int parse_args(args *a, int argc, char **argv)
{
	long n = 1024;
	char err[256];
	const char *eps_text = NULL;
	memset(a, 0, sizeof *a);
	a->ic = SIM_PLUMMER;
	a->seed = 1;
	a->steps = 100;
	a->size = 512;
	a->eta = 0.01;
	nb_options_init(&a->opt);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i], *v = NULL;
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		int took = nb_options_parse(&a->opt, s, next, err, sizeof err);
		if (took < 0) {
			prog_fail("%s", err);
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
			a->print_kernel = 1;
		} else if (strcmp(s, "--list-devices") == 0) {
			return nbrt_list(stdout) < 0 ? P_BAD : P_DONE;
		} else if (strcmp(s, "--csv") == 0) {
			a->csv = 1;
		} else if ((v = cli_value(s, "--ic", argc, argv, &i))) {
			bad = get_ic(a, v);
		} else if ((v = cli_value(s, "--integrator", argc, argv, &i))) {
			a->have_integrator = 1;
			if (v != cli_missing && strcmp(v, "hermite") == 0)
				a->hermite = 1;
			else if (v != cli_missing && strcmp(v, "leapfrog") == 0)
				a->hermite = 0;
			else if (v != cli_missing)
				bad = prog_fail("unknown --integrator '%s' (leapfrog or "
				                "hermite)", nb_esc(v));
		} else if ((v = cli_value(s, "--format", argc, argv, &i))) {
			if (v != cli_missing && strcmp(v, "hdf5") == 0)
				a->hdf5 = 1;
			else if (v != cli_missing && strcmp(v, "csv") == 0)
				a->hdf5 = 0;
			else if (v != cli_missing)
				bad = prog_fail("unknown --format '%s' (csv or hdf5)",
				                nb_esc(v));
		} else if ((v = cli_value(s, "-n", argc, argv, &i))) {
			bad = get_long("-n", v, 1, (long)MAX_N, &n);
			a->have_n = 1;
		} else if ((v = cli_value(s, "--seed", argc, argv, &i))) {
			bad = get_seed(v, &a->seed);
			a->have_seed = 1;
		} else if ((v = cli_value(s, "--dt", argc, argv, &i))) {
			bad = get_double("--dt", v, &a->dt);
			if (!bad && a->dt <= 0)
				bad = prog_fail("--dt must be positive, not %s", v);
			a->have_dt = 1;
		} else if ((v = cli_value(s, "--eps", argc, argv, &i))) {
			bad = get_double("--eps", v, &a->eps);
			if (!bad && a->eps < 0)
				bad = prog_fail("--eps must be positive (the kernel "
				                "includes j = i), not %s", v);
			eps_text = v;
			a->have_eps = 1;
		} else if ((v = cli_value(s, "--eta", argc, argv, &i))) {
			bad = get_double("--eta", v, &a->eta);
			if (!bad && !(a->eta > 0 && a->eta <= 1))
				bad = prog_fail("--eta must be in (0, 1], not %s", v);
			a->have_eta = 1;
		} else if ((v = cli_value(s, "--t-end", argc, argv, &i))) {
			bad = get_double("--t-end", v, &a->t_end);
			if (!bad && a->t_end < 0)
				bad = prog_fail("--t-end must not be negative, not %s", v);
			a->have_t_end = 1;
		} else if ((v = cli_value(s, "--view", argc, argv, &i))) {
			bad = get_double("--view", v, &a->view);
			if (!bad && a->view <= 0)
				bad = prog_fail("--view must be positive, not %s", v);
		} else if ((v = cli_value(s, "--steps", argc, argv, &i))) {
			bad = get_long("--steps", v, 0, 1000000000L, &a->steps);
			a->have_steps = 1;
		} else if ((v = cli_value(s, "--every", argc, argv, &i))) {
			bad = get_long("--every", v, 0, 1000000000L, &a->every);
		} else if ((v = cli_value(s, "--size", argc, argv, &i))) {
			if (!(bad = get_long("--size", v, 16, 4096, &l)))
				a->size = (int)l;
		} else if ((v = cli_value(s, "--out", argc, argv, &i))) {
			a->out = v;
		} else if ((v = cli_value(s, "--png", argc, argv, &i))) {
			a->png = v;
		} else if ((v = cli_value(s, "--restart", argc, argv, &i))) {
			a->restart = v;
		} else if ((v = cli_value(s, "--log", argc, argv, &i))) {
			a->log = v;
		} else if ((v = cli_value(s, "--device", argc, argv, &i))) {
			a->device = v;
		} else if ((v = cli_value(s, "--kernel", argc, argv, &i))) {
			a->kernel = v;
		} else if (strcmp(s, "--tune") == 0) {
			if (!a->tune)
				a->tune = NBRT_TUNE_BUDGET;
		} else if ((v = cli_value(s, "--tune-budget", argc, argv, &i))) {
			char *end;
			a->tune = v == cli_missing ? 0 : strtod(v, &end);
			if (v != cli_missing &&
			    (*end || !(a->tune > 0) || a->tune > 1e6))
				bad = prog_fail("--tune-budget %s: expected seconds "
				                "above 0", nb_esc(v));
		} else {
			bad = prog_fail("unknown option '%s' (see nbody --help)",
			                nb_esc(s));
		}
		if (bad || v == cli_missing)
			return P_BAD;
	}
	if (a->print_kernel) {
		fputs(a->hermite ? nb_hermite_nbl : nb_gravity_nbl, stdout);
		return P_DONE;
	}
	a->n = (size_t)n;
	double dt, eps;
	sim_ic_defaults(a->ic, &dt, &eps);
	if (a->hermite)
		dt = 1.0 / 16;
	if (!a->have_dt)
		a->dt = dt;
	if (!a->have_eps)
		a->eps = eps;
	/* the leap-frog's kernel has the j = i term: it needs a softening;
	 * hermite.nbl drops that term where r = 0 */
	if (!a->hermite && a->eps <= 0) {
		prog_fail("--eps must be positive (the kernel includes j = i), not "
		          "%s", eps_text ? eps_text : "0");
		return P_BAD;
	}
	if ((a->out && !*a->out) || (a->png && !*a->png)) {
		prog_fail("--out and --png need a directory");
		return P_BAD;
	}
	if ((a->log && !*a->log) || (a->restart && !*a->restart)) {
		prog_fail("--log and --restart need a file");
		return P_BAD;
	}
	if (a->have_steps && a->have_t_end) {
		prog_fail("--steps and --t-end say the same thing: give one");
		return P_BAD;
	}
	if (a->restart && a->ic_file) {
		prog_fail("--restart continues a run from its snapshot: it takes no "
		          "--ic");
		return P_BAD;
	}
	/* the Hermite scheme reaches |dE/E| < 1e-8, which a float force
	 * cannot: its kernel runs in double unless told otherwise */
	if (a->hermite && !(a->opt.given & NB_GIVEN_PRECISION)) {
		a->opt.precision = NB_DOUBLE;
		a->opt.given |= NB_GIVEN_PRECISION;
	}
	a->icname = a->ic_file ? "file" : sim_ic_name(a->ic);
	return P_GO;
}

/* mkdir -p DIR, then a check that it is writable, so an unusable
 * directory is reported before any work is done. */
static int make_dir(const char *flag, const char *dir)
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

/* The kernel must be gravity.nbl's interface (hermite.nbl's for the
 * Hermite scheme), nothing more nor less, for the binding below to cover
 * every argument. */
typedef struct want {
	const char *name;
	nb_role role;
} want;

static const want want_gravity[] = {
	{"xi", NB_LMEM}, {"yi", NB_LMEM}, {"zi", NB_LMEM},
	{"xj", NB_BMEM}, {"yj", NB_BMEM}, {"zj", NB_BMEM}, {"mj", NB_BMEM},
	{"ax", NB_RMEM}, {"ay", NB_RMEM}, {"az", NB_RMEM}, {"pot", NB_RMEM},
	{"eps2", NB_CONST},
};

static const want want_hermite[] = {
	{"xi", NB_LMEM}, {"yi", NB_LMEM}, {"zi", NB_LMEM},
	{"vxi", NB_LMEM}, {"vyi", NB_LMEM}, {"vzi", NB_LMEM},
	{"xj", NB_BMEM}, {"yj", NB_BMEM}, {"zj", NB_BMEM},
	{"vxj", NB_BMEM}, {"vyj", NB_BMEM}, {"vzj", NB_BMEM}, {"mj", NB_BMEM},
	{"ax", NB_RMEM}, {"ay", NB_RMEM}, {"az", NB_RMEM},
	{"jx", NB_RMEM}, {"jy", NB_RMEM}, {"jz", NB_RMEM}, {"pot", NB_RMEM},
	{"eps2", NB_CONST},
};

static int check_iface(const nb_iface *f, const char *name, int hermite)
{
	const want *w = hermite ? want_hermite : want_gravity;
	size_t nw = hermite ? sizeof want_hermite / sizeof want_hermite[0]
	                    : sizeof want_gravity / sizeof want_gravity[0];
	const char *model = hermite ? "hermite.nbl" : "gravity.nbl";
	for (size_t k = 0; k < nw; k++) {
		int v = nb_iface_find(f, w[k].name);
		if (v < 0 || f->var[v].role != w[k].role)
			return prog_fail("kernel '%s' lacks %s %s: it must have the "
			                 "interface of %s (see --print-kernel)",
			                 name, nb_role_name(w[k].role), w[k].name,
			                 model);
	}
	if (f->nvar != (int)nw)
		return prog_fail("kernel '%s' has variables that %s does not "
		                 "(see --print-kernel)", name, model);
	return 0;
}

typedef struct binding binding;

static int bind_list(force *fc, const binding *b, size_t nb, double eps)
{
	memcpy(fc->bind, b, nb * sizeof *b);
	fc->nbind = nb;
	for (size_t i = 0; i < nb; i++)
		if (nbrt_bind(fc->k, b[i].name, NBRT_DOUBLE, b[i].p))
			return prog_fail("%s", nbrt_error(fc->rt));
	if (nbrt_set_const(fc->k, "eps2", eps * eps, 0))
		return prog_fail("%s", nbrt_error(fc->rt));
	return 0;
}

static double **state(sim *s, double **h)
{
	double *p[A_N] = {s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz, s->ax,
	                  s->ay, s->az, s->pot};
	memcpy(h, p, sizeof p);
	return h;
}

/* The leap-frog keeps its bodies where the kernel reads them (nbrt
 * arrays: device memory on an OpenCL device with doubles): a step then
 * moves nothing between host and device but the finite check's flag, and
 * the bodies come back to the host only for the energy, a snapshot or a
 * picture.  Across MPI ranks each rank computes a slice of the forces
 * and every rank needs all of them each step, so the bodies stay on the
 * host there (bind_host, sim_step) and fc->arr stays NULL. */
static int bind_host(force *fc, sim *s)
{
	binding b[] = {
		{"xi", s->x}, {"yi", s->y}, {"zi", s->z}, {"xj", s->x},
		{"yj", s->y}, {"zj", s->z}, {"mj", s->m}, {"ax", s->ax},
		{"ay", s->ay}, {"az", s->az}, {"pot", s->pot},
	};
	return bind_list(fc, b, sizeof b / sizeof b[0], s->eps);
}

static int bind_all(force *fc, sim *s)
{
	if (par_size() > 1)
		return bind_host(fc, s);
	static const struct {
		const char *name;
		int a;
	} b[] = {
		{"xi", A_X}, {"yi", A_Y}, {"zi", A_Z}, {"xj", A_X}, {"yj", A_Y},
		{"zj", A_Z}, {"mj", A_M}, {"ax", A_AX}, {"ay", A_AY},
		{"az", A_AZ}, {"pot", A_POT},
	};
	for (int i = 0; i < A_N; i++)
		if (!(fc->arr[i] = nbrt_array_new(fc->rt, s->n)))
			return prog_fail("%s", nbrt_error(fc->rt));
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		if (nbrt_bind_array(fc->k, b[i].name, fc->arr[b[i].a]))
			return prog_fail("%s", nbrt_error(fc->rt));
	if (nbrt_set_const(fc->k, "eps2", s->eps * s->eps, 0))
		return prog_fail("%s", nbrt_error(fc->rt));
	return 0;
}

/* Arrays [lo, hi) of the state from s (put) or into s; nothing to do
 * where the bodies are on the host (fc->arr NULL). */
static int transfer(force *fc, sim *s, int put, int lo, int hi)
{
	if (!fc->arr[0])
		return 0;
	double *h[A_N];
	state(s, h);
	for (int i = lo; i < hi; i++)
		if (put ? nbrt_array_write(fc->arr[i], h[i])
		        : nbrt_array_read(fc->arr[i], h[i]))
			return prog_fail("%s", nbrt_error(fc->rt));
	return 0;
}

/* The active block's gathered arrays against every body predicted: the
 * pointers stay, only Ni changes from one block step to the next. */
static int bind_hermite(force *fc, herm *h)
{
	binding b[] = {
		{"xi", h->ip[0]}, {"yi", h->ip[1]}, {"zi", h->ip[2]},
		{"vxi", h->ip[3]}, {"vyi", h->ip[4]}, {"vzi", h->ip[5]},
		{"xj", h->p[0]}, {"yj", h->p[1]}, {"zj", h->p[2]},
		{"vxj", h->p[3]}, {"vyj", h->p[4]}, {"vzj", h->p[5]},
		{"mj", h->s->m},
		{"ax", h->ia[0]}, {"ay", h->ia[1]}, {"az", h->ia[2]},
		{"jx", h->ia[3]}, {"jy", h->ia[4]}, {"jz", h->ia[5]},
		{"pot", h->ia[6]},
	};
	return bind_list(fc, b, sizeof b / sizeof b[0], h->s->eps);
}

/* The force on ni i-elements: under MPI this rank's part of them, then
 * every rank's results to every rank, so that each holds the same state
 * and integrates all of it alike (the exchange is the step's one). */
static int run_kernel(force *fc, size_t ni, size_t nj)
{
	const nb_iface *f = nbrt_iface(fc->k);
	size_t lo, hi;
	par_range(ni, par_rank(), &lo, &hi);
	int rc = 0;
	for (size_t b = 0; par_size() > 1 && b < fc->nbind && !rc; b++) {
		nb_role r = f->var[nb_iface_find(f, fc->bind[b].name)].role;
		if (r == NB_LMEM || r == NB_RMEM)
			rc = nbrt_bind(fc->k, fc->bind[b].name, NBRT_DOUBLE,
			               fc->bind[b].p + lo);
	}
	if (rc || nbrt_run(fc->k, hi - lo, nj)) {
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
		rc = -1;
	}
	if (par_agree(rc))
		return -1;
	for (size_t b = 0; par_size() > 1 && b < fc->nbind; b++)
		if (f->var[nb_iface_find(f, fc->bind[b].name)].role == NB_RMEM)
			par_gather(fc->bind[b].p, ni, sizeof(double), 1);
	if (!fc->untimed) {
		fc->t_kernel += nbrt_kernel_time(fc->k);
		fc->t_total += nbrt_total_time(fc->k);
	}
	return 0;
}

static int kernel_force(sim *s, void *ctx)
{
	return run_kernel(ctx, s->n, s->n);
}

static int hermite_force(herm *h, size_t ni, void *ctx)
{
	return run_kernel(ctx, ni, h->s->n);
}

/* One kick-drift-kick step where the bodies are, as sim_step does it on
 * the host (nbrt_array_axpy gives the same bits); then the finite check
 * of sim_finite.  Returns 0, or -1 with the message in fc->err. */
static int lf_step(force *fc, sim *s, double dt, int *finite)
{
	nbrt_array **a = fc->arr;
	double h = 0.5 * dt;
	if (nbrt_array_axpy(a + A_VX, h, a + A_AX, 3) ||
	    nbrt_array_axpy(a + A_X, dt, a + A_VX, 3))
		goto bad;
	if (run_kernel(fc, s->n, s->n))
		return -1;
	if (nbrt_array_axpy(a + A_VX, h, a + A_AX, 3) ||
	    nbrt_array_finite(a + A_X, 9, finite))
		goto bad;
	s->t += dt;
	s->step++;
	return 0;
bad:
	snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
	return -1;
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
	const char *name = a->hermite ? "hermite.nbl" : "gravity.nbl";
	const char *src = a->hermite ? nb_hermite_nbl : nb_gravity_nbl;
	if (a->kernel)
		fc->k = nbrt_load(fc->rt, a->kernel, &a->opt);
	else
		fc->k = nbrt_load_source(fc->rt, name, src, strlen(src), &a->opt);
	if (!fc->k || (a->tune > 0 && nbrt_set_tune(fc->k, a->tune)))
		return prog_fail("%s", nbrt_error(fc->rt));
	return check_iface(nbrt_iface(fc->k), a->kernel ? a->kernel : name,
	                   a->hermite);
}

/* What a snapshot says of the run, for its header. */
static void snap_info_of(const args *a, const sim *s, snap_info *in)
{
	memset(in, 0, sizeof *in);
	snprintf(in->ic, sizeof in->ic, "%s", a->icname);
	snprintf(in->integrator, sizeof in->integrator, "%s",
	         a->hermite ? "hermite" : "leapfrog");
	in->seed = a->seed;
	in->step = s->step;
	in->t = s->t;
	in->dt = a->dt;
	in->eps = s->eps;
	in->eta = a->eta;
	in->has_eta = a->hermite;
	in->e0 = a->e0;
	in->has_e0 = 1;
}

/* Writes the snapshot and picture of this step, where asked for. */
static int output(const args *a, const sim *s, const sim_view *v)
{
	if (par_rank())
		return 0; /* rank 0 writes what every rank holds */
	char err[512], info[384];
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
		int k = snprintf(info, sizeof info, "ic=%s n=%zu seed=%llu step=%ld "
		                 "t=%.17g dt=%.17g eps=%.17g G=1 integrator=%s",
		                 a->icname, s->n, (unsigned long long)a->seed,
		                 s->step, s->t, a->dt, s->eps, in.integrator);
		if (a->hermite)
			k += snprintf(info + k, sizeof info - (size_t)k, " eta=%.17g",
			              a->eta);
		snprintf(info + k, sizeof info - (size_t)k, " e0=%.17g", a->e0);
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

static long last_step(const args *a)
{
	return a->step0 + a->steps;
}

/* Snapshots and pictures: the first step (not on a restart: its snapshot
 * is there), every M-th, the last. */
static int want_output(const args *a, long step)
{
	if (!a->out && !a->png)
		return 0;
	return (step == 0 && !a->restart) || step == last_step(a) ||
	       (a->every > 0 && step % a->every == 0);
}

/* The log's rows and the energy plot's points: the first and last step,
 * every M-th, or every step when M is 0. */
static int want_record(const args *a, long step)
{
	if (!a->log && !a->png)
		return 0;
	return step == a->step0 || step == last_step(a) || a->every == 0 ||
	       step % a->every == 0;
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
	double inter;   /* interactions of the timed evaluations */
	long blocks;    /* Hermite block steps */
	/* the energy error at each record, for the plot */
	double *rt, *rde;
	size_t nrec, caprec;
} result;

/* One row of the log, and one point of the energy plot. */
static int record(const args *a, const sim *s, result *r, nb_out *log,
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

/* The energy needs the potential of the positions as they are: the
 * leap-frog's last force is that; the Hermite's block steps leave the
 * potential of predicted positions, so it is evaluated anew (untimed). */
static int potential(const args *a, force *fc, herm *h)
{
	if (!a->hermite)
		return 0;
	fc->untimed = 1;
	int rc = herm_potential(h, hermite_force, fc);
	fc->untimed = 0;
	return rc ? prog_fail("%s", fc->err) : 0;
}

static void plot_energy(const args *a, const result *r)
{
	if (!a->png || r->nrec == 0 || par_rank())
		return;
	char err[512], title[160];
	size_t len = strlen(a->png) + 32;
	char *path = malloc(len);
	if (!path)
		return;
	snprintf(path, len, "%s/energy.png", a->png);
	snprintf(title, sizeof title, "%s, N = %zu, %s", a->icname, a->n,
	         a->hermite ? "Hermite" : "leap-frog");
	plot_spec ps = {title, "t (N-body units)", "|E - E0| / |E0|", 0, 1,
	                800, 520};
	plot_series se = {NULL, r->rt, r->rde, r->nrec, r->nrec < 64};
	if (plot_png(&ps, &se, 1, path, err, sizeof err))
		prog_fail("%s", err);
	free(path);
}

static int run(args *a, force *fc, sim *s, herm *h, result *r, nb_out *log,
               const snap_data *rs)
{
	if (par_agree(a->hermite ? bind_hermite(fc, h) : bind_all(fc, s)))
		return 1;
	/* the first evaluation may include one-off costs (program build,
	 * buffer creation): it is left out of the timings */
	if (a->hermite && rs) {
		size_t bad;
		if (herm_resume(h, &bad)) {
			char at[512];
			snap_where(rs, a->restart, bad, at, sizeof at);
			return prog_fail("%s: dt = %g is not the longest step %g "
			                 "halved a whole number of times", at,
			                 s->tstep[bad], a->dt);
		}
		if (potential(a, fc, h))
			return 1;
	} else if (a->hermite) {
		fc->untimed = 1;
		int e = herm_start(h, hermite_force, fc);
		fc->untimed = 0;
		if (e || potential(a, fc, h))
			return prog_fail("%s", fc->err);
	} else {
		if (transfer(fc, s, 1, 0, A_N))
			return 1;
		if (kernel_force(s, fc))
			return prog_fail("%s", fc->err);
		/* a restart goes on with the accelerations it saved, whatever
		 * the force evaluated now rounds to */
		if (rs) {
			memcpy(s->ax, rs->col[SC_AX], s->n * sizeof(double));
			memcpy(s->ay, rs->col[SC_AY], s->n * sizeof(double));
			memcpy(s->az, rs->col[SC_AZ], s->n * sizeof(double));
			if (transfer(fc, s, 1, A_AX, A_AZ + 1))
				return 1;
		}
		if (transfer(fc, s, 0, 0, A_N))
			return 1;
	}
	fc->t_kernel = fc->t_total = 0;
	fc->t_comm = par_comm_time();
	h->inter = 0;
	h->blocks = 0;
	sim_measure(s, &r->d0);
	if (!a->have_e0)
		a->e0 = r->d0.etot;
	sim_view v;
	sim_view_auto(s, a->size, &v);
	if (a->view > 0)
		v.half = a->view;
	r->t_steps = 0;
	if (want_record(a, s->step) && par_agree(record(a, s, r, log, 0, 0, 0)))
		return 1;
	if (want_output(a, s->step) && par_agree(output(a, s, &v)))
		return 1;
	int tty = isatty(2), shown = -1;
	for (long k = 1; k <= a->steps; k++) {
		double t0 = prog_now();
		int finite = 1;
		if (a->hermite ? herm_step(h, hermite_force, fc)
		    : fc->arr[0] ? lf_step(fc, s, a->dt, &finite)
		                 : sim_step(s, a->dt, kernel_force, fc)) {
			if (tty)
				fputc('\n', stderr);
			return prog_fail("step %ld: %s", s->step + 1, fc->err);
		}
		r->t_steps += prog_now() - t0;
		if (tty)
			progress(k, a->steps, &shown);
		if (!fc->arr[0])
			finite = sim_finite(s);
		if (!finite) {
			if (tty)
				fputc('\n', stderr);
			if (a->hermite)
				return prog_fail("step %ld: the positions or velocities are "
				                 "no longer finite (NaN or infinite): eta = %g "
				                 "is too large for this model", s->step,
				                 a->eta);
			return prog_fail("step %ld: the positions or velocities are no "
			                 "longer finite (NaN or infinite): dt = %g is "
			                 "too long for this model", s->step, a->dt);
		}
		r->inter = a->hermite ? h->inter
		                      : (double)k * (double)s->n * (double)s->n;
		r->blocks = a->hermite ? h->blocks : k;
		/* the leap-frog's bodies back from the device where needed */
		if (!a->hermite &&
		    (want_record(a, s->step) || want_output(a, s->step) ||
		     k == a->steps) && transfer(fc, s, 0, 0, A_N))
			return 1;
		if (want_record(a, s->step) &&
		    (potential(a, fc, h) ||
		     par_agree(record(a, s, r, log, r->t_steps, r->inter,
		                      r->blocks))))
			return 1;
		if (want_output(a, s->step) && par_agree(output(a, s, &v)))
			return 1;
	}
	if (!want_record(a, s->step) && potential(a, fc, h))
		return 1;
	sim_measure(s, &r->d1);
	/* the energy squares velocities: it can overflow where they did not */
	if (!isfinite(r->d0.etot) || !isfinite(r->d1.etot))
		return prog_fail("the energy is not finite (E0 = %g, E = %g): dt = %g "
		                 "is too long for this model", r->d0.etot, r->d1.etot,
		                 a->dt);
	plot_energy(a, r);
	return 0;
}

static void summary(const args *a, const force *fc, const sim *s,
                    const result *r)
{
	const nb_iface *f = nbrt_iface(fc->k);
	double e0 = a->e0, e1 = r->d1.etot;
	/* relative where it can be: a lone body has E = 0 */
	double de = e0 != 0 ? fabs((e1 - e0) / e0) : fabs(e1 - e0);
	double dp = hypot(hypot(r->d1.px - r->d0.px, r->d1.py - r->d0.py),
	                  r->d1.pz - r->d0.pz);
	double steps = (double)(a->steps ? a->steps : 1);
	double t_step = r->t_steps / steps, t_force = fc->t_total / steps;
	double t_kern = fc->t_kernel / steps;
	/* interactions a step: N^2 for the leap-frog, the active blocks' sum
	 * for the Hermite scheme */
	double inter = a->hermite ? r->inter / steps
	                          : (double)s->n * (double)s->n;
	double ips = a->steps && t_kern > 0 ? inter / t_kern : 0;
	/* by convention 38 flops an interaction for the force, 60 for the
	 * force and jerk (Nitadori & Makino 2008) */
	double conv = f->flops_conv > 0 ? f->flops_conv : a->hermite ? 60 : 38;
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
		       a->icname, s->n, (unsigned long long)a->seed,
		       a->steps, a->dt, s->eps, s->t, e0, e1, de, dp, f->flops, conv,
		       t_step, t_force, t_kern, ips, g38, gnb, g38_step, f->target);
		cli_csv_str(nbrt_device_name(fc->rt));
		putchar(',');
		cli_csv_str(f->flags ? f->flags : "");
		putchar('\n');
		return;
	}
	const char *what = a->ic_file ? nb_esc(a->ic_file) : a->icname;
	if (a->hermite)
		printf("nbody: %s, N = %zu, seed %llu, hermite eta = %g, dt <= %g, "
		       "eps = %g, %ld steps (t = %g)\n", what, s->n,
		       (unsigned long long)a->seed, a->eta, a->dt, s->eps,
		       a->steps, s->t);
	else
		printf("nbody: %s, N = %zu, seed %llu, dt = %g, eps = %g, %ld steps "
		       "(t = %g)\n", what, s->n, (unsigned long long)a->seed,
		       a->dt, s->eps, a->steps, s->t);
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
	printf("time/step:   %.4g s (force %.4g s, of which kernel %.4g s)\n",
	       t_step, t_force, t_kern);
	printf("speed:       %.4g interactions/s in the kernel\n", ips);
	printf("GFLOPS:      %.4g (%g-flop convention), %.4g (nbcc's count, %g "
	       "flops/interaction); whole step: %.4g (convention)\n", g38, conv,
	       gnb, f->flops, g38_step);
}

/* Memory for n bodies, checked before anything is allocated: the model's
 * arrays (sim_alloc: 11 doubles a body, and one more while the picture
 * view is chosen; the Hermite scheme's state 28 more) and, once the kernel
 * is known, the runtime's copies and buffers, and the leap-frog's
 * nbrt_arrays where they are host memory (11 doubles a body; on an OpenCL
 * device they are the device's).  Refuses with the sizes where they do
 * not fit. */
static int check_memory(const args *a, force *fc)
{
	double model = (a->hermite ? 40.0 : 12.0) * sizeof(double) *
	               (double)a->n, extra = 0;
	if (fc && fc->k) {
		const nb_iface *f = nbrt_iface(fc->k);
		int native = 1; /* bound as doubles: copies unless all double */
		for (int v = 0; v < f->nvar; v++)
			native &= f->var[v].type == NB_DOUBLE;
		if (nbrt_run_memory(fc->k, a->n, a->n, native, &extra))
			return prog_fail("-n %zu: %s", a->n, nbrt_error(fc->rt));
		if (!a->hermite && strcmp(nbrt_target(fc->rt), "opencl") != 0)
			extra += (double)A_N * sizeof(double) * (double)a->n;
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
		return prog_fail("-n %zu needs %s of memory (the bodies %s, the "
		                 "runtime %s), and %s is available", a->n, sn, sm, se,
		                 sa);
	return prog_fail("-n %zu needs %s of memory for the bodies alone, and %s "
	                 "is available", a->n, sn, sa);
}

/* A parameter the snapshot fixes: given again, it must agree. */
static int agree(const char *flag, int given, double want, double got,
                 const char *path)
{
	if (given && want != got)
		return prog_fail("%s %g differs from the snapshot's %g (%s): a "
		                 "restart continues the run as it was", flag, want,
		                 got, nb_esc(path));
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
	int hermite = in->has_integrator && strcmp(in->integrator, "hermite") == 0;
	if (in->has_integrator && !hermite &&
	    strcmp(in->integrator, "leapfrog") != 0)
		return prog_fail("%s: unknown integrator '%s'", nb_esc(p),
		                 in->integrator);
	if (a->have_integrator && hermite != a->hermite)
		return prog_fail("--integrator %s differs from the snapshot's %s "
		                 "(%s): a restart continues the run as it was",
		                 a->hermite ? "hermite" : "leapfrog",
		                 hermite ? "hermite" : "leapfrog", nb_esc(p));
	if (hermite && !in->has_eta)
		return prog_fail("%s: a Hermite snapshot without eta", nb_esc(p));
	if (agree("-n", a->have_n, (double)a->n, (double)d->n, p) ||
	    agree("--dt", a->have_dt, a->dt, in->dt, p) ||
	    agree("--eps", a->have_eps, a->eps, in->eps, p) ||
	    agree("--eta", a->have_eta && hermite, a->eta, in->eta, p) ||
	    agree("--seed", a->have_seed, (double)a->seed, (double)in->seed, p))
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
	if (!(in->dt > 0) || (!hermite && !(in->eps > 0)) || in->eps < 0 ||
	    (hermite && !(in->eta > 0)))
		return prog_fail("%s: dt, eps or eta out of range", nb_esc(p));
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
	a->step0 = in->step;
	if (in->has_seed)
		a->seed = in->seed;
	a->icname = "file";
	sim_ic ic;
	if (in->has_ic && sim_ic_parse(in->ic, &ic) == 0)
		a->icname = sim_ic_name(ic);
	a->e0 = in->e0;
	a->have_e0 = in->has_e0;
	return 0;
}

/* --t-end T: the steps from the start's t to T, a whole number of dt. */
static int steps_to_end(args *a, double t0)
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
static int read_bodies(args *a, snap_data *d)
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

/* The bodies into s (allocated for them), and a restart's state. */
static void take_bodies(const args *a, const snap_data *d, sim *s)
{
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
static int same_bodies(const sim *s)
{
	const double *c[] = {s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz};
	uint64_t h = PAR_FNV;
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
		h = par_digest(h, c[k], s->n * sizeof(double));
	return par_same(h, "its bodies differ from rank 0's (--ic or "
	                "--restart: is the file the same on every node?)");
}

/* Under MPI, rank 0's line on stderr of what the ranks cost a step:
 * the slowest rank's kernel and exchanges.  The summary's kernel time is
 * the slowest rank's too, so its rate is that of all ranks together. */
static void ranks_summary(const args *a, force *fc, const result *r)
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

int main(int argc, char **argv)
{
	prog_name = "nbody";
	if (par_init(argc, argv))
		return par_end(1);
	args a;
	int rc = parse_args(&a, argc, argv);
	if (par_agree(rc != P_GO && rc != P_DONE) || rc != P_GO)
		return par_end(rc == P_DONE ? 0 : 1);
	/* files are read and checked before anything is written */
	snap_data d = {0};
	int from_file = a.ic_file || a.restart;
	if (par_agree(from_file && read_bodies(&a, &d)) ||
	    par_agree(steps_to_end(&a, a.restart ? d.info.t : 0) ||
	              (!par_rank() && a.out && make_dir("--out", a.out)) ||
	              (!par_rank() && a.png && make_dir("--png", a.png)))) {
		snap_data_free(&d);
		return par_end(1);
	}
	force fc = {0};
	sim s;
	herm h = {0};
	result r = {0};
	nb_out log = {0}, *logp = NULL;
	rc = check_memory(&a, NULL);
	if (!rc)
		rc = setup(&fc, &a);
	if (!rc)
		rc = check_memory(&a, &fc);
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
		/* a big model takes seconds to make, and a force evaluation
		 * much longer: say so, and report the evaluations' progress */
		if (!rc && a.n >= (size_t)1 << 21 && !from_file && !par_rank())
			fprintf(stderr, "nbody: making the %s model of %zu bodies, "
			        "then %ld force evaluation%s of %.3g interactions "
			        "each\n", sim_ic_name(a.ic), a.n, a.steps + 1,
			        a.steps ? "s" : "", (double)a.n * (double)a.n);
		if (!rc) {
			nbrt_show_progress(fc.k, par_rank() ? NULL : "nbody: force");
			if (from_file)
				take_bodies(&a, &d, &s);
			else
				sim_ic_make(&s, a.ic, a.seed);
		}
		if (!par_agree(rc) && !(rc = par_agree(same_bodies(&s))))
			rc = run(&a, &fc, &s, &h, &r, logp, a.restart ? &d : NULL);
		if (!rc && par_size() > 1)
			ranks_summary(&a, &fc, &r);
		if (!rc && !par_rank())
			summary(&a, &fc, &s, &r);
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
	for (int i = 0; i < A_N; i++)
		nbrt_array_free(fc.arr[i]);
	if (fc.k)
		nbrt_free(fc.k);
	if (fc.rt)
		nbrt_close(fc.rt);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		rc = prog_fail("cannot write the summary");
	return par_end(rc ? 1 : 0);
}
