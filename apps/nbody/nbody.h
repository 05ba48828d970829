/* nbody.h: bin/nbody's own records and the jobs its files share: the
 * command line (args.c), the force through the kernel (force.c), the run's
 * start from a file or a snapshot (restart.c), the steps (run.c), what the
 * run writes (output.c), and main (nbody.c), which calls them in order. */
#ifndef NBODY_H
#define NBODY_H

#include <stddef.h>
#include "hermite.h"
#include "nbrt.h"
#include "sim.h"
#include "snap.h"

/* The kernels built in: dsl-examples/gravity.nbl and hermite.nbl
 * themselves, embedded at build time (scripts/embed.sh), so that
 * bin/nbody runs from anywhere. */
extern const char nb_gravity_nbl[], nb_hermite_nbl[];
/* far/gravity_quad.nbl, gravity.nbl's far field for --tree */
extern const char nb_gravity_quad_nbl[];

#define MAX_N ((size_t)1 << 26)

typedef struct args {
	sim_ic ic;
	size_t n;
	unsigned long long seed;
	double dt, eps, view;
	long steps, every;
	long size;
	const char *out, *png, *device, *kernel;
	int csv;
	int tune_on;       /* --tune */
	double budget;     /* --tune-budget S; 0 when not given */
	double tune;       /* --tune's budget in seconds, 0: none */
	nb_options opt;
	/* beyond paper 000 */
	int hermite, hdf5, print_kernel;
	int host_predict;  /* --predict host: Hermite's j-bodies on the host */
	int no_queue;      /* --no-queue: every force evaluation waited for */
	const char *have_predict;
	int tstep;         /* --timestep: a herm_mode */
	const char *have_tstep;
	double eta, t_end;
	const char *ic_file, *restart, *log;
	/* the flag, where it was given */
	const char *have_ic, *have_n, *have_dt, *have_eps, *have_eta, *have_seed,
	           *have_steps, *have_t_end, *have_integrator;
	/* any kernel (force.c): --const NAME=V, its dimension (2 or 3) */
	const char *cst[16];
	int ncst, dim, have_mj, have_pot;
	/* cell lists and periodic boxes: --cutoff RC (0: the dense sweep),
	 * --periodic's lengths (0: open), --ic lattice's density and
	 * temperature */
	double cutoff, period[3], density, temp;
	int lattice, nperiod;
	const char *have_density, *have_temp;
	/* --tree: the treecode's opening angle (0: not given, 0.5) and far
	 * kernel (--far; default the built-in gravity_quad.nbl) */
	int tree;
	double theta;
	const char *far, *have_tree_flag;
	long step0;        /* the step the run starts from (a restart's) */
	const char *icname; /* the model's name, or "file" */
	char icfile[SNAP_ICFILE]; /* that file (--ic, or a restart's
	                           * snapshot's icfile), "" where unknown */
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
	/* the Hermite scheme's j-bodies where the kernel runs (NULL:
	 * --predict host), their masses, and the time of the calls that put
	 * and predict them (summed over the timed evaluations) */
	nbrt_predictor *pred;
	nbrt_array *mass;
	double t_pred;
	/* under MPI on a device with doubles: this rank's part [lo, hi) of
	 * the state from A_X on, which its kernel reads and writes (NULL:
	 * one rank, or the bodies on the host) */
	nbrt_array *own[A_N];
	size_t lo, hi;
	double t_kernel, t_total; /* summed over the timed evaluations */
	int untimed;              /* evaluations for the energy alone */
	double t_comm;            /* par_comm_time() when the steps began */
	double pairs;             /* pairs of the timed evaluations */
	/* force_step's finite checks queued and not yet taken, oldest
	 * first: each one's step and whether its launches were timed */
	struct { long step; int timed; } fin[2];
	int nfin;
	/* queued steps timed one in `sample` (force_queue; 0: every one,
	 * as the queue is), of qsteps: the ntimed steps timed by their
	 * launches' events, their span and busy time summed (force_settle) */
	int sample;
	long qsteps, ntimed;
	double qspan, qbusy;
	nbrt_cutoff cut;          /* cut.cutoff > 0: cell lists */
	nbrt_kernel *far;         /* not NULL: the treecode, tree */
	nbrt_tree tree;
	char err[512];
	/* the arrays bound, which each rank binds again from its part's
	 * first element (MPI) */
	struct binding {
		const char *name;
		double *p;
	} bind[24];
	size_t nbind;
} force;

/* What the steps measured, for the log, the energy plot and the summary. */
typedef struct result {
	sim_diag d0, d1;
	double t_steps; /* wall time of the steps, output excluded */
	double inter;   /* interactions of the timed evaluations */
	long blocks;    /* Hermite block steps */
	/* the energy error at each record, for the plot */
	double *rt, *rde;
	size_t nrec, caprec;
} result;

/* args.c: sets a from argv; returns P_GO, or P_DONE/P_BAD when main
 * should stop (P_BAD after the message). */
enum { P_GO, P_DONE, P_BAD };
int args_parse(args *a, int argc, char **argv);

/* force.c.  force_setup opens the device and loads the kernel (the
 * --target given, if any, must suit the device), checks its interface,
 * sets its CONSTs and a's dim, box and cell lists from it; force_memory refuses
 * an n whose bodies (and, once fc holds the kernel, the runtime's
 * buffers) do not fit in memory.  force_bind binds the kernel to the
 * state (the leap-frog's to nbrt arrays where one rank runs it);
 * force_move moves the arrays [lo, hi) of that state to them (put) or
 * back into s.  force_leapfrog and force_hermite are sim.c's and
 * hermite.c's force functions (ctx: the force); force_step is one
 * leap-frog step where the bodies are.  Each returns 0, or nonzero with
 * the message in fc->err (the evaluations, force_step) or given. */
int force_setup(force *fc, args *a);
int force_memory(const args *a, force *fc);
int force_bind(force *fc, const args *a, sim *s, herm *h);
int force_move(force *fc, sim *s, int put, int lo, int hi);
int force_leapfrog(sim *s, void *ctx);
int force_hermite(herm *h, size_t ni, void *ctx);
int force_step(force *fc, sim *s, double dt, int *finite, long *checked);
/* force_step checks each step's bodies finite a step later (*checked the
 * step whose answer *finite is, 0: none yet); force_settle takes the
 * check still queued, where output or the end needs the bodies. */
int force_settle(force *fc, int *finite, long *checked);
/* After the first force evaluation: the steps' evaluations queued
 * (nbrt_set_queue 1) where that is nbody's default (force.c); 0, or
 * nonzero after the message. */
int force_queue(force *fc, const args *a);
/* The bodies a run starts from against the kernel and the box (one mass
 * where the kernel has no mj; inside a periodic box), `from` the file
 * they came from (d), or NULL for a model. */
int force_bodies(const args *a, const sim *s, const snap_data *d,
                 const char *from);

/* restart.c: the bodies of an --ic file or a --restart snapshot, read and
 * checked (restart_read: a restart's parameters into a too), into s
 * (restart_take); under MPI, that every rank holds rank 0's
 * (restart_same); --t-end as a number of steps from t0 (restart_steps). */
int restart_read(args *a, snap_data *d);
void restart_take(const args *a, snap_data *d, sim *s);
int restart_same(const sim *s);
int restart_steps(args *a, double t0);

/* run.c: the steps, from the first force evaluation to the last
 * snapshot; rs is the restart's snapshot, or NULL. */
int run_steps(args *a, force *fc, sim *s, herm *h, result *r, nb_out *log,
              const snap_data *rs);
/* The potential of the positions as they are, for the energy. */
int run_potential(const args *a, force *fc, herm *h);

/* output.c: mkdir -p for --out and --png; the snapshot and picture of a
 * step, and whether a step has one (out_wanted) or a row of the log
 * (out_record_wanted); the progress bar; a row of the log; the energy
 * plot; the summary, and under MPI the ranks' line. */
int out_make_dir(const char *flag, const char *dir);
/* Fails, with a message, where --log names a file the run writes in its
 * --out or --png directory: the log, committed last, would replace it. */
int out_log_clash(const args *a);
/* Fails, with a message, where the --ic or --restart file is a snapshot
 * the run writes in --out (its name, its format, a step it saves): the
 * run would write the steps before it, then fail to replace its input. */
int out_input_clash(const args *a);
int out_snapshot(const args *a, const sim *s, const sim_view *v);
int out_wanted(const args *a, long step);
int out_record_wanted(const args *a, long step);
void out_progress(long step, long steps, int *shown);
int out_record(const args *a, const sim *s, result *r, nb_out *log,
               double wall, double inter, long blocks);
int out_plot_energy(const args *a, const result *r);
void out_summary(const args *a, const force *fc, const sim *s,
                 const result *r);
void out_ranks(const args *a, force *fc, const result *r);

#endif
