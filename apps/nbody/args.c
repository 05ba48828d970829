/* args.c: bin/nbody's command line: its table of flags (opt.h), which
 * --help prints, and the defaults and checks that depend on several
 * flags at once. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "nbody.h"
#include "opt.h"
#include "prog.h"

/* A model's name, or a file: a name with a '.' or a '/' in it. */
static int get_ic(void *to, const char *flag, const char *v)
{
	args *a = to;
	a->ic_file = NULL;
	a->lattice = strcmp(v, "lattice") == 0;
	if (a->lattice) {
		a->ic = SIM_PLUMMER; /* unused: sim_lattice makes the bodies */
		return 0;
	}
	if (sim_ic_parse(v, &a->ic) == 0)
		return 0;
	if (strchr(v, '.') || strchr(v, '/')) {
		a->ic_file = v;
		a->ic = SIM_PLUMMER; /* its dt and eps are the defaults */
		return 0;
	}
	return prog_fail("unknown %s '%s' (plummer, cube, collision or "
	                 "lattice, or a file NAME.csv or NAME.hdf5)", flag,
	                 nb_esc(v));
}

/* --const NAME=V, kept as given: force.c checks it against the kernel. */
static int get_const(void *to, const char *flag, const char *v)
{
	args *a = to;
	const char *eq = strchr(v, '=');
	if (!eq || eq == v || !eq[1])
		return opt_bad(flag, v, "NAME=VALUE");
	if (a->ncst == (int)(sizeof a->cst / sizeof a->cst[0]))
		return prog_fail("%s %s: more than %zu CONSTs given", flag,
		                 nb_esc(v), sizeof a->cst / sizeof a->cst[0]);
	a->cst[a->ncst++] = v;
	return 0;
}

/* --periodic L, Lx,Ly or Lx,Ly,Lz: each length finite and positive
 * (force.c matches their count to the kernel's dimension). */
static int get_period(void *to, const char *flag, const char *v)
{
	args *a = to;
	const char *p = v;
	a->nperiod = 0;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		double x;
		if (a->nperiod == 3 || opt_real(p, len, &x) || !(x > 0))
			return opt_bad(flag, v, "L or Lx,Ly[,Lz], lengths above 0");
		a->period[a->nperiod++] = x;
		if (!c)
			break;
		p = c + 1;
	}
	return 0;
}

/* The checks of --cutoff, --periodic and --ic lattice that need nothing
 * of the kernel. */
static int check_cells(args *a)
{
	if (a->nperiod && !(a->cutoff > 0))
		return prog_fail("--periodic needs --cutoff RC: the images of the "
		                 "box are met through the cell lists");
	if (a->lattice && a->nperiod)
		return prog_fail("--ic lattice makes its own periodic box from -n "
		                 "and --density: it takes no --periodic");
	if (a->lattice && !(a->cutoff > 0))
		return prog_fail("--ic lattice fills a periodic box, which needs "
		                 "--cutoff RC");
	if (!a->lattice && (a->have_density || a->have_temp))
		return prog_fail("%s is for --ic lattice", a->have_density ?
		                 a->have_density : a->have_temp);
	if (!a->tree && a->have_tree_flag)
		return prog_fail("%s is for --tree: give --tree too",
		                 a->have_tree_flag);
	if (a->tree && a->hermite)
		return prog_fail("--tree runs the leap-frog: the Hermite scheme "
		                 "needs the jerk, which the far field does not "
		                 "give, and its block steps would walk the tree "
		                 "for a few bodies each");
	if (a->tree && (a->cutoff > 0 || a->nperiod || a->lattice))
		return prog_fail("--tree and %s: the tree has open boundaries "
		                 "and sums every body: give one or the other",
		                 a->cutoff > 0 ? "--cutoff" : a->lattice ?
		                 "--ic lattice" : "--periodic");
	if (a->tree && a->kernel && !a->far)
		return prog_fail("--tree with --kernel %s: give its far field "
		                 "with --far FILE (docs/treecode.md)",
		                 nb_esc(a->kernel));
	if (a->have_predict && !a->hermite && !a->restart)
		return prog_fail("--predict is for --integrator hermite");
	if (a->have_tstep && !a->hermite && !a->restart)
		return prog_fail("--timestep is for --integrator hermite (the "
		                 "leap-frog's step is --dt)");
	if (a->have_eta && !a->hermite && !a->restart)
		return prog_fail("--eta is for --integrator hermite (the "
		                 "leap-frog's step is --dt)");
	if (a->tstep == HERM_FIXED && a->have_eta && !a->restart)
		return prog_fail("--eta sets Aarseth's steps: --timestep fixed "
		                 "steps every body by --dt");
	if (a->cutoff > 0 && a->hermite)
		return prog_fail("--cutoff runs the leap-frog: the Hermite scheme "
		                 "takes the dense sweep");
	if (a->cutoff > 0 && a->restart)
		return prog_fail("--cutoff and --periodic are not kept in "
		                 "snapshots: a --restart takes the dense sweep");
	for (int d = 0; d < a->nperiod; d++)
		if (a->cutoff > 0.5 * a->period[d])
			return prog_fail("--cutoff %g is more than half the periodic "
			                 "box %g: a body would meet two images of "
			                 "another", a->cutoff, a->period[d]);
	return 0;
}

static const opt_prog prog = {
	"nbody", "[options]",
	"N-body simulation (leap-frog or Hermite) with the force of an nbcc\n"
	"kernel: gravity (G = 1) of dsl-examples/gravity.nbl or hermite.nbl\n"
	"built in, or any --kernel that yields accelerations, through cell\n"
	"lists with --cutoff, in a --periodic box, or through a treecode\n"
	"with --tree.",
	0,
};

int args_parse(args *a, int argc, char **argv)
{
	long n = 1024;
	int list = 0;
	memset(a, 0, sizeof *a);
	a->ic = SIM_PLUMMER;
	a->seed = 1;
	a->steps = 100;
	a->size = 512;
	a->eta = 0.01;
	a->density = 0.8;
	a->temp = 1.0;
	nb_options_init(&a->opt);
	const opt t[] = {
		OPT(OPT_CALL, "--ic", "MODEL", a,
		    "plummer (default), cube or collision; lattice\n"
		    "(a periodic box at --density, --temp); or a\n"
		    "file of bodies, FILE.csv or FILE.hdf5", .call = get_ic,
		    .seen = &a->have_ic),
		OPT(OPT_REAL, "--density", "RHO", &a->density,
		    "--ic lattice: bodies per unit volume (area\n"
		    "in 2-D; default 0.8)", .lo = 0, .hi = HUGE_VAL,
		    .open = OPT_ABOVE, .seen = &a->have_density),
		OPT(OPT_REAL, "--temp", "T", &a->temp,
		    "--ic lattice: the temperature of the random\n"
		    "velocities (unit masses, k = 1; default 1)", .lo = 0,
		    .hi = HUGE_VAL, .seen = &a->have_temp),
		OPT(OPT_CHOICE, "--integrator", "I", &a->hermite,
		    "leapfrog (default) or hermite (4th order,\n"
		    "block time steps, the force in double)",
		    .words = "leapfrog|hermite", .seen = &a->have_integrator),
		OPT(OPT_CHOICE, "--predict", "WHERE", &a->host_predict,
		    "Hermite: where every body is predicted each\n"
		    "block step: device (default: where the kernel\n"
		    "runs, only changed bodies sent) or host (all\n"
		    "sent every block step; for comparison)",
		    .words = "device|host", .seen = &a->have_predict),
		OPT(OPT_CHOICE, "--timestep", "HOW", &a->tstep,
		    "Hermite: block (default: each body its own\n"
		    "step, Aarseth's criterion on levels dt 2^-k),\n"
		    "shared (every body the shortest of those) or\n"
		    "fixed (every body --dt; no --eta)",
		    .words = "block|shared|fixed", .seen = &a->have_tstep),
		OPT(OPT_REAL, "--eta", "ETA", &a->eta,
		    "Hermite: Aarseth's accuracy parameter\n"
		    "(default 0.01)", .lo = 0, .hi = 1, .open = OPT_ABOVE,
		    .seen = &a->have_eta),
		OPT(OPT_INT, "-n", "N", &n, "number of bodies (default 1024)",
		    .lo = 1, .hi = (double)MAX_N, .seen = &a->have_n),
		OPT(OPT_U64, "--seed", "S", &a->seed,
		    "seed of the initial conditions (default 1)",
		    .seen = &a->have_seed),
		OPT(OPT_REAL, "--dt", "DT", &a->dt,
		    "time step, a number or a ratio such as 1/256\n"
		    "(default: plummer 1/128, cube 0.01,\n"
		    "collision 1/64, lattice 0.005); Hermite:\n"
		    "the longest step (default 1/16), every\n"
		    "step with --timestep fixed", .lo = 0, .hi = HUGE_VAL,
		    .open = OPT_ABOVE, .seen = &a->have_dt),
		OPT(OPT_REAL, "--eps", "EPS", &a->eps,
		    "softening length (default: plummer 1/64,\n"
		    "cube 0.01, collision 1/64); Hermite: >= 0;\n"
		    "only for a kernel with CONST eps2", .lo = 0,
		    .hi = HUGE_VAL, .seen = &a->have_eps),
		OPT(OPT_INT, "--steps", "K", &a->steps,
		    "number of steps (default 100); Hermite: of dt", .lo = 0,
		    .hi = 1e9, .seen = &a->have_steps),
		OPT(OPT_REAL, "--t-end", "T", &a->t_end,
		    "integrate to time T instead", .lo = 0, .hi = HUGE_VAL,
		    .seen = &a->have_t_end),
		OPT(OPT_INT, "--every", "M", &a->every,
		    "snapshot/picture every M steps (default 0:\n"
		    "the first and the last step only)", .lo = 0, .hi = 1e9),
		OPT(OPT_STR, "--out", "DIR", &a->out,
		    "write snapshots DIR/snap_STEP.csv"),
		OPT(OPT_CHOICE, "--format", "F", &a->hdf5,
		    "csv (default) or hdf5 (GADGET layout)", .words = "csv|hdf5"),
		OPT(OPT_STR, "--restart", "FILE", &a->restart,
		    "continue the run a snapshot of --out saved"),
		OPT(OPT_STR, "--log", "FILE", &a->log,
		    "energy, momentum, virial ratio and time at\n"
		    "each snapshot step (every step if --every 0)"),
		OPT(OPT_STR, "--png", "DIR", &a->png,
		    "write pictures DIR/frame_STEP.png (x-y left,\n"
		    "x-z right) and DIR/energy.png"),
		OPT(OPT_INT, "--size", "PX", &a->size,
		    "picture panel size in pixels (default 512)", .lo = 16,
		    .hi = 4096),
		OPT(OPT_REAL, "--view", "L", &a->view,
		    "pictures span [-L, L] (default: from step 0)", .lo = 0,
		    .hi = HUGE_VAL, .open = OPT_ABOVE),
		OPT(OPT_STR, "--device", "SPEC", &a->device,
		    "host, amdil, cpu, gpu, P:D or a name (default:\n"
		    "$NBRT_DEVICE, else a GPU, else a CPU)"),
		OPT(OPT_SET, "--list-devices", NULL, &list,
		    "list OpenCL devices and exit"),
		OPT(OPT_STR, "--kernel", "FILE", &a->kernel,
		    "another kernel that yields accelerations (.nbl,\n"
		    "or .cl/.c/.il from nbcc; its interface: see\n"
		    "docs/nbody.md); default: the built-in gravity.nbl"),
		OPT(OPT_CALL, "--const", "NAME=V", a,
		    "the kernel's CONST NAME (all but eps2, which\n"
		    "--eps sets)", .call = get_const),
		OPT(OPT_REAL, "--cutoff", "RC", &a->cutoff,
		    "the force through cell lists: only pairs\n"
		    "closer than RC (and some more) are computed;\n"
		    "for a kernel that is zero beyond RC",
		    .lo = 0, .hi = HUGE_VAL, .open = OPT_ABOVE),
		OPT(OPT_SET, "--tree", NULL, &a->tree,
		    "the force through a treecode (leap-frog, 3-D,\n"
		    "a kernel with mj): far cells by their\n"
		    "multipoles; --theta T its opening angle"),
		OPT(OPT_REAL, "--theta", "T", &a->theta,
		    "--tree's opening angle (default 0.5)", .lo = 0,
		    .hi = HUGE_VAL, .open = OPT_ABOVE, .seen = &a->have_tree_flag),
		OPT(OPT_STR, "--far", "FILE", &a->far,
		    "--tree's far kernel for --kernel (default: the\n"
		    "built-in gravity_quad.nbl)", .seen = &a->have_tree_flag),
		OPT(OPT_CALL, "--periodic", "L[,Ly[,Lz]]", a,
		    "a periodic box [0, L) on each axis (with\n"
		    "--cutoff RC <= L/2); positions wrap after\n"
		    "each drift", .call = get_period),
		CLI_TUNE_ROWS(&a->tune_on, &a->budget,
		    "time the force kernel's variants at this N and\n"
		    "keep the fastest whose forces agree with the\n"
		    "default's (the cache keeps it for later runs)"),
		OPT(OPT_SET, "--no-queue", NULL, &a->no_queue,
		    "wait for each force evaluation (by default, on\n"
		    "an OpenCL device with doubles and one rank, the\n"
		    "steps' evaluations are queued; NBRT_QUEUE=0, 1\n"
		    "or 2 chooses too)"),
		OPT(OPT_SET, "--print-kernel", NULL, &a->print_kernel,
		    "print the built-in kernel source and exit\n"
		    "(hermite.nbl with --integrator hermite)"),
		OPT(OPT_SET, "--csv", NULL, &a->csv,
		    "print the summary as one CSV header and row"),
		{.kind = OPT_HELP},
		OPT(OPT_TEXT, NULL, NULL, NULL,
		    "--target=c runs on the host, --target=amdil in nbcc's AMD IL\n"
		    "interpreter, --target=opencl on an OpenCL device."),
		OPT(OPT_COMPILER, NULL, NULL, &a->opt, "Compiler options:"),
		OPT(OPT_TEXT, NULL, NULL, NULL,
		    "See docs/nbody.md for the models, the snapshot format and the\n"
		    "summary columns."),
		{0},
	};
	int rc = opt_parse(&prog, t, argc, argv);
	if (rc != OPT_GO)
		return rc == OPT_DONE ? P_DONE : P_BAD;
	if (list)
		return nbrt_list(stdout) < 0 || prog_flush_stdout() ? P_BAD : P_DONE;
	if (a->print_kernel) {
		fputs(a->hermite ? nb_hermite_nbl : nb_gravity_nbl, stdout);
		return prog_flush_stdout() ? P_BAD : P_DONE;
	}
	/* a model's name too: the snapshot says which the run began from */
	if (a->restart && a->have_ic)
		return prog_fail("--restart continues a run from its snapshot: it "
		                 "takes no --ic"), P_BAD;
	a->n = (size_t)n;
	a->tune = cli_tune(a->tune_on, a->budget);
	double dt, eps;
	sim_ic_defaults(a->ic, &dt, &eps);
	/* Lennard-Jones units: a step of 0.005 tau; no softening */
	if (a->lattice) {
		dt = 0.005;
		eps = 0;
	}
	if (a->hermite)
		dt = 1.0 / 16;
	if (!a->have_dt)
		a->dt = dt;
	if (!a->have_eps)
		a->eps = eps;
	/* the leap-frog's kernel has the j = i term: it needs a softening;
	 * hermite.nbl drops that term where r = 0 */
	if (!a->hermite && !a->kernel && a->eps <= 0)
		return prog_fail("--eps must be positive (the kernel includes "
		                 "j = i), not %g", a->eps), P_BAD;
	if (a->have_steps && a->have_t_end)
		return prog_fail("--steps and --t-end say the same thing: give "
		                 "one"), P_BAD;
	/* the Hermite scheme reaches |dE/E| < 1e-8, which a float force
	 * cannot: its kernel runs in double unless told otherwise */
	if (a->hermite && !(a->opt.given & NB_GIVEN_PRECISION)) {
		a->opt.precision = NB_DOUBLE;
		a->opt.given |= NB_GIVEN_PRECISION;
	}
	if (check_cells(a))
		return P_BAD;
	a->icname = a->ic_file ? "file" : a->lattice ? "lattice"
	                                             : sim_ic_name(a->ic);
	/* a name too long for a snapshot to keep is not kept in part */
	if (a->ic_file && strlen(a->ic_file) < sizeof a->icfile)
		snprintf(a->icfile, sizeof a->icfile, "%s", a->ic_file);
	return P_GO;
}
