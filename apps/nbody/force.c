/* force.c: bin/nbody's force through an nbcc kernel: the device and the
 * kernel (any that yields accelerations for the leap-frog, hermite.nbl's
 * interface for the Hermite scheme) with its CONSTs and cell lists, the
 * bodies it needs, the binding of the bodies to it, the evaluations (under MPI, each rank's
 * part of the i-elements, then the exchange), the leap-frog's step where
 * the bodies are, and the memory a run needs. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "csv.h"
#include "nbody.h"
#include "par.h"
#include "prog.h"

/* The Hermite scheme's kernel must be hermite.nbl's interface, nothing
 * more nor less, for bind_hermite to cover every argument. */
typedef struct want {
	const char *name;
	nb_role role;
} want;

static const want want_hermite[] = {
	{"xi", NB_LMEM}, {"yi", NB_LMEM}, {"zi", NB_LMEM},
	{"vxi", NB_LMEM}, {"vyi", NB_LMEM}, {"vzi", NB_LMEM},
	{"xj", NB_BMEM}, {"yj", NB_BMEM}, {"zj", NB_BMEM},
	{"vxj", NB_BMEM}, {"vyj", NB_BMEM}, {"vzj", NB_BMEM}, {"mj", NB_BMEM},
	{"ax", NB_RMEM}, {"ay", NB_RMEM}, {"az", NB_RMEM},
	{"jx", NB_RMEM}, {"jy", NB_RMEM}, {"jz", NB_RMEM}, {"pot", NB_RMEM},
	{"eps2", NB_CONST},
};

static int check_hermite(const nb_iface *f, const char *name)
{
	size_t nw = sizeof want_hermite / sizeof want_hermite[0];
	for (size_t k = 0; k < nw; k++) {
		int v = nb_iface_find(f, want_hermite[k].name);
		if (v < 0 || f->var[v].role != want_hermite[k].role)
			return prog_fail("kernel '%s' lacks %s %s: it must have the "
			                 "interface of hermite.nbl (see "
			                 "--print-kernel)", name,
			                 nb_role_name(want_hermite[k].role),
			                 want_hermite[k].name);
	}
	if (f->nvar != (int)nw)
		return prog_fail("kernel '%s' has variables that hermite.nbl "
		                 "does not (see --print-kernel)", name);
	return 0;
}

/* The leap-frog's kernel: any that yields accelerations from positions,
 * in 2 or 3 dimensions (docs/nbody.md, "Any kernel"): the rows it binds
 * to the state, `dim` 3 for the z rows, `opt` for those it may lack.
 * Its CONSTs are eps2 (--eps) and what --const gives. */
static const struct slot {
	const char *name;
	nb_role role;
	int a, dim, opt;
} slots[] = {
	{"xi", NB_LMEM, A_X, 2, 0}, {"yi", NB_LMEM, A_Y, 2, 0},
	{"zi", NB_LMEM, A_Z, 3, 0},
	{"xj", NB_BMEM, A_X, 2, 0}, {"yj", NB_BMEM, A_Y, 2, 0},
	{"zj", NB_BMEM, A_Z, 3, 0}, {"mj", NB_BMEM, A_M, 2, 1},
	{"ax", NB_RMEM, A_AX, 2, 0}, {"ay", NB_RMEM, A_AY, 2, 0},
	{"az", NB_RMEM, A_AZ, 3, 0}, {"pot", NB_RMEM, A_POT, 2, 1},
};
#define NSLOTS (sizeof slots / sizeof slots[0])

static int has(const nb_iface *f, const char *name)
{
	return nb_iface_find(f, name) >= 0;
}

/* The kernel's dimension, and that it has every row of it in its role
 * and nothing but the rows and CONSTs. */
static int check_leapfrog(const nb_iface *f, const char *name, int *dim)
{
	*dim = has(f, "zi") || has(f, "zj") || has(f, "az") ? 3 : 2;
	for (size_t k = 0; k < NSLOTS; k++) {
		int v = nb_iface_find(f, slots[k].name);
		if (slots[k].dim > *dim || (v < 0 && slots[k].opt))
			continue;
		if (v < 0 || f->var[v].role != slots[k].role)
			return prog_fail("kernel '%s' lacks %s %s: a %d-D kernel of "
			                 "nbody has LMEM xi, yi%s, BMEM xj, yj%s "
			                 "(and mj), RMEM ax, ay%s (and pot)", name,
			                 nb_role_name(slots[k].role), slots[k].name,
			                 *dim, *dim == 3 ? ", zi" : "",
			                 *dim == 3 ? ", zj" : "",
			                 *dim == 3 ? ", az" : "");
	}
	for (int v = 0; v < f->nvar; v++) {
		size_t k = 0;
		while (k < NSLOTS && strcmp(slots[k].name, f->var[v].name))
			k++;
		if (k == NSLOTS && f->var[v].role != NB_CONST)
			return prog_fail("kernel '%s' has %s %s, which nbody does not "
			                 "bind: see docs/nbody.md for the rows a "
			                 "kernel may have", name,
			                 nb_role_name(f->var[v].role), f->var[v].name);
	}
	return 0;
}

/* The NAME of --const NAME=V is name. */
static int names(const char *arg, const char *name)
{
	size_t len = strlen(name);
	return !strncmp(arg, name, len) && arg[len] == '=';
}

/* eps2 is --eps's, every other CONST --const's: each given once, and
 * none left without a value. */
static int set_consts(force *fc, args *a, const char *name)
{
	const nb_iface *f = nbrt_iface(fc->k);
	for (int c = 0; c < a->ncst; c++) {
		const char *arg = a->cst[c], *eq = strchr(arg, '=');
		char cn[128];
		snprintf(cn, sizeof cn, "%.*s", (int)(eq - arg), arg);
		int v = nb_iface_find(f, cn);
		if (v < 0 || f->var[v].role != NB_CONST)
			return prog_fail("--const %s: kernel '%s' has no CONST '%s'",
			                 nb_esc(arg), name, nb_esc(cn));
		if (!strcmp(cn, "eps2"))
			return prog_fail("--const %s: eps2 is the softening's, which "
			                 "--eps gives", nb_esc(arg));
		for (int d = 0; d < c; d++)
			if (names(a->cst[d], cn))
				return prog_fail("--const %s: CONST '%s' is given twice",
				                 nb_esc(arg), cn);
		double x[2];
		csv_status st = csv_number(eq + 1, strlen(eq + 1), f->var[v].type,
		                           x);
		if (st != CSV_OK) {
			char m[160];
			csv_value_msg(m, sizeof m, st, eq + 1, strlen(eq + 1),
			              f->var[v].type);
			return prog_fail("--const %s: %s", nb_esc(arg), m);
		}
		if (nbrt_set_const(fc->k, cn, x[0], x[1]))
			return prog_fail("%s", nbrt_error(fc->rt));
	}
	for (int v = 0; v < f->nvar; v++) {
		int c = 0;
		while (c < a->ncst && !names(a->cst[c], f->var[v].name))
			c++;
		if (f->var[v].role == NB_CONST && c == a->ncst &&
		    strcmp(f->var[v].name, "eps2"))
			return prog_fail("kernel '%s' has CONST %s: give it with "
			                 "--const %s=VALUE", name, f->var[v].name,
			                 f->var[v].name);
	}
	return 0;
}

/* What the kernel's interface asks of the run: the softening where it
 * has eps2 (gravity's j = i term needs one; without eps2 the kernel must
 * leave j = i out itself, and --eps has no use), the cell lists'
 * positions and box. */
static int kernel_run(force *fc, args *a, const char *name)
{
	const nb_iface *f = nbrt_iface(fc->k);
	if (!has(f, "eps2")) {
		if (a->have_eps)
			return prog_fail("--eps: kernel '%s' has no CONST eps2 to "
			                 "soften", name);
		a->eps = 0;
	} else if (!a->hermite && a->eps <= 0) {
		return prog_fail("--eps must be positive (the kernel includes "
		                 "j = i), not %g", a->eps);
	} else {
		/* eps^2 beyond eps2's type was infinite: every force NaN, and the
		 * first step's message blamed dt; below its normal range (0 in
		 * double for --eps 1e-200, FTZ on a GPU's float) j = i was
		 * barely softened or not at all, with the same message */
		nb_prec t = f->var[nb_iface_find(f, "eps2")].type;
		double e2 = a->eps * a->eps;
		if (!(e2 <= (t == NB_FLOAT ? FLT_MAX : DBL_MAX)))
			return prog_fail("--eps %g: eps2 = %g is out of range for %s "
			                 "(kernel '%s')", a->eps, e2, nb_prec_name(t),
			                 name);
		double min = t == NB_FLOAT ? FLT_MIN : DBL_MIN;
		if (a->eps > 0 && e2 < min)
			return prog_fail("--eps %g: eps2 = %g is below %s's smallest "
			                 "normal %g (kernel '%s')", a->eps, e2,
			                 nb_prec_name(t), min, name);
	}
	if (a->nperiod != 1 && a->nperiod && a->nperiod != a->dim)
		return prog_fail("--periodic gives %d lengths to a %d-D kernel: "
		                 "give one for every axis, or one for all",
		                 a->nperiod, a->dim);
	if (a->lattice) {
		a->nperiod = 1;
		a->period[0] = pow((double)a->n / a->density, 1.0 / a->dim);
		if (a->cutoff > 0.5 * a->period[0])
			return prog_fail("--cutoff %g is more than half the box %g of "
			                 "%zu bodies at --density %g: give more bodies "
			                 "or a shorter cutoff", a->cutoff, a->period[0],
			                 a->n, a->density);
	}
	for (int d = 1; d < a->dim && a->nperiod == 1; d++)
		a->period[d] = a->period[0];
	if (a->nperiod)
		a->nperiod = a->dim;
	if (!(a->cutoff > 0))
		return 0;
	if (par_size() > 1)
		return prog_fail("--cutoff runs on one rank: the cell lists are "
		                 "not shared among %d", par_size());
	static const char *ipos[] = {"xi", "yi", "zi"}, *jpos[] = {"xj", "yj",
	                                                           "zj"};
	fc->cut.cutoff = a->cutoff;
	fc->cut.dim = a->dim;
	fc->cut.self = 1;
	for (int d = 0; d < a->dim; d++) {
		fc->cut.ipos[d] = ipos[d];
		fc->cut.jpos[d] = jpos[d];
		fc->cut.period[d] = a->nperiod ? a->period[d] : 0;
	}
	return 0;
}

/* The bodies a run starts from, as the kernel and the box need them:
 * all of one mass where the kernel has no mj (its accelerations do not
 * weigh the bodies, and the energy is then right for equal masses
 * alone), and inside a periodic box.  `from` names the file, or NULL. */
int force_bodies(const args *a, const sim *s, const snap_data *d,
                 const char *from)
{
	char at[512];
	for (size_t i = 0; i < s->n && !a->hermite; i++) {
		if (a->have_mj || s->m[i] == s->m[0])
			continue;
		if (from)
			snap_where(d, from, i, at, sizeof at);
		else
			snprintf(at, sizeof at, "body %zu", i);
		return prog_fail("%s: mass %g is not body 0's %g: the kernel has "
		                 "no mj, so the bodies must be of one mass", at,
		                 s->m[i], s->m[0]);
	}
	const double *c[3] = {s->x, s->y, s->z};
	for (int k = 0; k < a->nperiod; k++)
		for (size_t i = 0; i < s->n; i++) {
			if (c[k][i] >= 0 && c[k][i] < a->period[k])
				continue;
			if (from)
				snap_where(d, from, i, at, sizeof at);
			else
				snprintf(at, sizeof at, "--ic %s: body %zu", a->icname, i);
			return prog_fail("%s: %c = %g lies outside the periodic box "
			                 "[0, %g)", at, "xyz"[k], c[k][i], a->period[k]);
		}
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
	if (has(nbrt_iface(fc->k), "eps2") &&
	    nbrt_set_const(fc->k, "eps2", eps * eps, 0))
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
 * picture.  Across MPI ranks each rank computes a slice of the forces and
 * every rank needs all of them each step: on such a device each rank
 * keeps every body there all the same, and its own part [lo, hi) again
 * in arrays of their own (fc->own) for the kernel's LMEM and RMEM, since
 * a bound array starts at its first element; a step then moves its part
 * of the forces to the host, the exchange, and every force back (docs/mpi.md,
 * "The step under MPI").  Elsewhere (the host and amdil back ends, fewer
 * bodies than ranks) the bodies stay on the host under MPI (bind_host,
 * sim_step) and fc->arr stays NULL; so they do in a periodic box, where
 * sim_step's drift wraps them. */
static int bind_host(force *fc, sim *s)
{
	const nb_iface *f = nbrt_iface(fc->k);
	double *h[A_N];
	binding b[NSLOTS];
	size_t nb = 0;
	state(s, h);
	for (size_t k = 0; k < NSLOTS; k++)
		if (has(f, slots[k].name))
			b[nb++] = (binding){slots[k].name, h[slots[k].a]};
	return bind_list(fc, b, nb, s->eps);
}

static int bind_all(force *fc, sim *s)
{
	int ranks = par_size() > 1;
	if (s->box[0] > 0 ||
	    (ranks && (!nbrt_device_arrays(fc->rt) || s->n < (size_t)par_size())))
		return bind_host(fc, s);
	const nb_iface *f = nbrt_iface(fc->k);
	fc->lo = 0;
	fc->hi = s->n;
	if (ranks)
		par_range(s->n, par_rank(), &fc->lo, &fc->hi);
	for (int i = 0; i < A_N; i++)
		if (!(fc->arr[i] = nbrt_array_new(fc->rt, s->n)) ||
		    (ranks && i >= A_X &&
		     !(fc->own[i] = nbrt_array_new(fc->rt, fc->hi - fc->lo))))
			return prog_fail("%s", nbrt_error(fc->rt));
	for (size_t k = 0; k < NSLOTS; k++) {
		nbrt_array *a = fc->own[slots[k].a] && slots[k].role != NB_BMEM ?
		                fc->own[slots[k].a] : fc->arr[slots[k].a];
		if (has(f, slots[k].name) && nbrt_bind_array(fc->k, slots[k].name, a))
			return prog_fail("%s", nbrt_error(fc->rt));
	}
	if (has(f, "eps2") && nbrt_set_const(fc->k, "eps2", s->eps * s->eps, 0))
		return prog_fail("%s", nbrt_error(fc->rt));
	return 0;
}

/* Arrays [lo, hi) of the state from s (put) or into s; nothing to do
 * where the bodies are on the host (fc->arr NULL).  Under MPI the host's
 * forces are every rank's already (the exchange's), the device's the
 * same bits.  A failure names the step, as the run's others do: a read
 * is where untimed queued steps' failed launches are first seen. */
int force_move(force *fc, sim *s, int put, int lo, int hi)
{
	if (!fc->arr[0])
		return 0;
	double *h[A_N];
	state(s, h);
	for (int i = lo; i < hi; i++) {
		if (!put && fc->own[i] && i >= A_AX)
			continue;
		if (put ? nbrt_array_write(fc->arr[i], h[i]) ||
		          (fc->own[i] && nbrt_array_write(fc->own[i], h[i] + fc->lo))
		        : nbrt_array_read(fc->arr[i], h[i]))
			return prog_fail("step %ld: %s", s->step,
			                 nbrt_error(fc->rt));
	}
	return 0;
}

/* The Hermite scheme's kernel: hermite.nbl's rows (LMEM i, BMEM j, and
 * the results). */
static const char *const herm_i[6] = {"xi", "yi", "zi", "vxi", "vyi", "vzi"};
static const char *const herm_j[6] = {"xj", "yj", "zj", "vxj", "vyj", "vzj"};
static const char *const herm_r[7] = {"ax", "ay", "az", "jx", "jy", "jz",
                                      "pot"};

/* The Hermite scheme keeps its j-bodies where the kernel reads them
 * (nbrt_predictor: device memory on an OpenCL device with doubles): a
 * block step sends the bodies the last one corrected and the active
 * list, and every body is predicted there (force_hermite); the active
 * ones' LMEM are gathered from the same predicted values, so that i and
 * j see the same bits (eps = 0 drops the j = i term by r2 = 0), and only
 * the results come back.  --predict host binds host arrays instead: every
 * body predicted on the host (hermite.c) and sent each block step.  The
 * pointers stay; only Ni changes from one block step to the next. */
static int bind_hermite(force *fc, herm *h, int host)
{
	sim *s = h->s;
	binding b[20];
	size_t nb = 0;
	for (int c = 0; c < 7; c++)
		b[nb++] = (binding){herm_r[c], h->ia[c]};
	if (host) {
		for (int c = 0; c < 6; c++) {
			b[nb++] = (binding){herm_i[c], h->ip[c]};
			b[nb++] = (binding){herm_j[c], h->p[c]};
		}
		b[nb++] = (binding){"mj", s->m};
		return bind_list(fc, b, nb, s->eps);
	}
	h->jdev = 1;
	fc->pred = nbrt_predictor_new(fc->rt, s->n,
	                              ldexp(h->dtmax, -HERM_LEVELS));
	if (!fc->pred || !(fc->mass = nbrt_array_new(fc->rt, s->n)) ||
	    nbrt_array_write(fc->mass, s->m) ||
	    nbrt_bind_array(fc->k, "mj", fc->mass))
		return prog_fail("%s", nbrt_error(fc->rt));
	for (int c = 0; c < 6; c++)
		if (nbrt_bind_array(fc->k, herm_j[c],
		                    nbrt_predictor_array(fc->pred, c)) ||
		    nbrt_bind_array(fc->k, herm_i[c],
		                    nbrt_predictor_array(fc->pred, 6 + c)))
			return prog_fail("%s", nbrt_error(fc->rt));
	return bind_list(fc, b, nb, s->eps);
}

int force_bind(force *fc, const args *a, sim *s, herm *h)
{
	return a->hermite ? bind_hermite(fc, h, a->host_predict)
	                  : bind_all(fc, s);
}

/* This rank's forces from its own arrays to the host, every rank's to
 * every rank, and all of them back to the device for the kick (the
 * potential stays on the host, which alone needs it). */
static int exchange_own(force *fc, sim *s)
{
	const nb_iface *f = nbrt_iface(fc->k);
	double *h[A_N];
	state(s, h);
	int rc = 0;
	for (size_t k = 0; k < NSLOTS && !rc; k++)
		if (slots[k].role == NB_RMEM && has(f, slots[k].name))
			rc = nbrt_array_read(fc->own[slots[k].a], h[slots[k].a] + fc->lo);
	if (rc)
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
	if (par_agree(rc))
		return -1;
	for (size_t k = 0; k < NSLOTS; k++)
		if (slots[k].role == NB_RMEM && has(f, slots[k].name))
			par_gather(h[slots[k].a], s->n, sizeof(double), 1);
	for (int i = A_AX; i <= A_AZ && !rc; i++)
		rc = nbrt_array_write(fc->arr[i], h[i]);
	if (rc) {
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
		return -1;
	}
	return 0;
}

/* The force on ni i-elements: under MPI this rank's part of them, then
 * every rank's results to every rank, so that each holds the same state
 * and integrates all of it alike (the exchange is the step's one).  s is
 * the leap-frog's state (NULL for the Hermite scheme's). */
static int run_kernel(force *fc, sim *s, size_t ni, size_t nj)
{
	const nb_iface *f = nbrt_iface(fc->k);
	size_t lo, hi;
	par_range(ni, par_rank(), &lo, &hi);
	int rc = 0, own = fc->own[A_X] != NULL;
	for (size_t b = 0; par_size() > 1 && !own && b < fc->nbind && !rc; b++) {
		nb_role r = f->var[nb_iface_find(f, fc->bind[b].name)].role;
		if (r == NB_LMEM || r == NB_RMEM)
			rc = nbrt_bind(fc->k, fc->bind[b].name, NBRT_DOUBLE,
			               fc->bind[b].p + lo);
	}
	if (rc || (fc->cut.cutoff > 0 ? nbrt_run_cutoff(fc->k, ni, nj, &fc->cut)
	           : fc->far ? nbrt_run_tree(fc->k, fc->far, hi - lo, nj,
	                                     &fc->tree)
	                     : nbrt_run(fc->k, hi - lo, nj))) {
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
		rc = -1;
	}
	if (par_agree(rc))
		return -1;
	if (own && exchange_own(fc, s))
		return -1;
	for (size_t b = 0; par_size() > 1 && !own && b < fc->nbind; b++)
		if (f->var[nb_iface_find(f, fc->bind[b].name)].role == NB_RMEM)
			par_gather(fc->bind[b].p, ni, sizeof(double), 1);
	if (!fc->untimed) {
		fc->t_kernel += nbrt_kernel_time(fc->k);
		fc->t_total += nbrt_total_time(fc->k);
		fc->pairs += nbrt_pairs(fc->k);
	}
	return 0;
}

int force_leapfrog(sim *s, void *ctx)
{
	return run_kernel(ctx, s, s->n, s->n);
}

/* The bodies the corrector changed since the last evaluation to the
 * device, every body predicted there to h->now, and this rank's part of
 * the active ones gathered for the kernel's LMEM (run_kernel's part). */
static int predict_j(force *fc, herm *h, size_t ni)
{
	double t0 = prog_now();
	sim *s = h->s;
	const double *src[12] = {s->x, s->y, s->z, s->vx, s->vy, s->vz,
	                         s->ax, s->ay, s->az, s->jx, s->jy, s->jz};
	size_t lo, hi;
	par_range(ni, par_rank(), &lo, &hi);
	if (nbrt_predictor_put(fc->pred, h->chg_all ? s->n : h->nchg,
	                       h->chg_all ? NULL : h->chg, src, h->tick) ||
	    nbrt_predict(fc->pred, h->now, hi - lo, h->act + lo)) {
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
		return -1;
	}
	h->nchg = 0;
	h->chg_all = 0;
	if (!fc->untimed)
		fc->t_pred += prog_now() - t0;
	return 0;
}

int force_hermite(herm *h, size_t ni, void *ctx)
{
	force *fc = ctx;
	if (par_agree(fc->pred ? predict_j(fc, h, ni) : 0))
		return -1;
	return run_kernel(fc, NULL, ni, h->s->n);
}

/* Takes the oldest check force_step queued (none: *finite 1, *checked
 * 0): its step, its answer, and the times of the queued launches it
 * waited for, which stand for the host's time queuing that step's force
 * (the step's run_kernel added that, its host), which overlaps them. */
int force_settle(force *fc, int *finite, long *checked)
{
	*finite = 1;
	*checked = 0;
	if (!fc->nfin)
		return 0;
	*checked = fc->fin[0].step;
	int timed = fc->fin[0].timed;
	double t[2];
	fc->fin[0] = fc->fin[1];
	fc->nfin--;
	if (nbrt_array_finite_take(fc->rt, finite, t)) {
		snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
		return -1;
	}
	/* a queued step's times, which its run could not give, are its
	 * launches' by their events (none for a waited one or an untimed
	 * one), summed apart from the runs' host times, so that a step of
	 * one launch has a span equal to its busy time to the bit;
	 * out_summary takes their means */
	if (t[1] > 0 && timed && !fc->untimed) {
		fc->qspan += t[0];
		fc->qbusy += t[1];
		fc->ntimed++;
	}
	return 0;
}

/* One kick-drift-kick step where the bodies are, as sim_step does it on
 * the host (nbrt_array_axpy2 gives the same bits: the kick and the
 * drift in one launch, and the closing kick with its finite check,
 * sim_finite's); then the step before's check taken
 * (force_settle), so that the host queues this step while the device
 * still runs the last one, not after it.  Returns 0, or -1 with the
 * message in fc->err. */
int force_step(force *fc, sim *s, double dt, int *finite, long *checked)
{
	nbrt_array **a = fc->arr, **o = fc->own;
	double h = 0.5 * dt;
	*finite = 1;
	*checked = 0;
	int timed = !fc->sample || fc->qsteps++ % fc->sample == 0;
	if (fc->sample && nbrt_set_queue(fc->rt, timed ? 1 : 2))
		goto bad;
	/* this rank's part (o) takes the same steps as every body's (a):
	 * the same bits */
	if (nbrt_array_axpy2(a + A_VX, h, a + A_AX, a + A_X, dt, 3) ||
	    (o[A_X] && nbrt_array_axpy2(o + A_VX, h, o + A_AX, o + A_X, dt, 3)))
		goto bad;
	if (run_kernel(fc, s, s->n, s->n))
		return -1;
	/* the closing kick and the step's check in one launch */
	if ((o[A_X] && nbrt_array_axpy(o + A_VX, h, o + A_AX, 3)) ||
	    nbrt_array_axpy_finite_queue(a + A_VX, h, a + A_AX, 3, a + A_X, 9))
		goto bad;
	s->t += dt;
	s->step++;
	fc->fin[fc->nfin].step = s->step;
	fc->fin[fc->nfin].timed = timed;
	fc->nfin++;
	return fc->nfin < 2 ? 0 : force_settle(fc, finite, checked);
bad:
	snprintf(fc->err, sizeof fc->err, "%s", nbrt_error(fc->rt));
	return -1;
}

/* Queued runs (nbrt_set_queue) spare each step's force its round trip
 * to the host (the step waits once, for its finite check): nbody's
 * default where the runtime can queue (an OpenCL device with doubles)
 * and one rank runs (under MPI the exchange reads the forces back each
 * step anyway).  One step in QUEUE_SAMPLE is timed (1, force_step),
 * the others not (2), so that the CSV keeps the kernel's time, as the
 * timed steps' mean, without a profiling event every step: NVIDIA's
 * OpenCL spends some 8 us of host time making one (docs/performance.md,
 * "Queued launches"), a tenth of a small step.  Not where the first evaluation's kernel took a second
 * or more: a queued run shows no progress (nbrt_show_progress reports
 * runs of over 5 s), and against such a kernel a launch's round trip
 * (tens of us) is nothing.  NBODY_TEST_QUEUE_MAX=S (tests only, as
 * NBRT_TEST_FAIL) puts that limit at S seconds, so that a test's kernel
 * is over it (S = 0) without being slow.  NBRT_QUEUE in the
 * environment, which the runtime took at nbrt_open, chooses instead;
 * --no-queue (force_setup) before either. */
#define QUEUE_KERNEL_MAX 1.0
#define QUEUE_SAMPLE 8

int force_queue(force *fc, const args *a)
{
	const char *env = getenv("NBRT_QUEUE");
	const char *tmax = getenv("NBODY_TEST_QUEUE_MAX");
	double max = QUEUE_KERNEL_MAX;
	if (tmax && *tmax) {
		char *end;
		max = strtod(tmax, &end);
		if (*end || !(max >= 0) || !isfinite(max))
			return prog_fail("NBODY_TEST_QUEUE_MAX='%s': the "
			                 "queue's limit on the first kernel's time "
			                 "must be a number of seconds, 0 or more",
			                 nb_esc(tmax));
	}
	if (a->no_queue || (env && *env) || par_size() > 1 ||
	    !nbrt_device_arrays(fc->rt) || !(nbrt_kernel_time(fc->k) < max))
		return 0;
	fc->sample = QUEUE_SAMPLE;
	return nbrt_set_queue(fc->rt, 1) ? prog_fail("%s", nbrt_error(fc->rt))
	                                 : 0;
}

/* --tree: the far kernel (--far, else the built-in gravity_quad.nbl),
 * loaded with the kernel's options, and the tree over the bodies'
 * positions and masses (the runtime's usual bucket, its group for N). */
static int tree_setup(force *fc, const args *a, const char *kn)
{
	if (!a->tree)
		return 0;
	if (a->dim != 3 || !a->have_mj)
		return prog_fail("--tree: kernel '%s' is %s: the tree needs "
		                 "xi, yi, zi, xj, yj, zj and the masses mj", kn,
		                 a->dim != 3 ? "2-D" : "without mj");
	const char *src = nb_gravity_quad_nbl;
	fc->far = a->far ? nbrt_load(fc->rt, a->far, &a->opt) :
	          nbrt_load_source(fc->rt, "gravity_quad.nbl", src, strlen(src),
	                           &a->opt);
	if (!fc->far)
		return prog_fail("%s", nbrt_error(fc->rt));
	fc->tree = (nbrt_tree){a->theta > 0 ? a->theta : 0.5, NBRT_TREE_BUCKET,
	                       nbrt_tree_group(a->n),
	                       {"xi", "yi", "zi"}, {"xj", "yj", "zj"}, "mj",
	                       NULL, {NULL, NULL, NULL}};
	return 0;
}

/* Opens the device and loads the kernel; the --target given, if any, must
 * suit the device. */
int force_setup(force *fc, args *a)
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
	/* over NBRT_QUEUE, which queues from the first run on */
	if (a->no_queue)
		nbrt_set_queue(fc->rt, 0);
	const char *name = a->hermite ? "hermite.nbl" : "gravity.nbl";
	const char *src = a->hermite ? nb_hermite_nbl : nb_gravity_nbl;
	if (a->kernel)
		fc->k = nbrt_load(fc->rt, a->kernel, &a->opt);
	else
		fc->k = nbrt_load_source(fc->rt, name, src, strlen(src), &a->opt);
	if (!fc->k || (a->tune > 0 && nbrt_set_tune(fc->k, a->tune)))
		return prog_fail("%s", nbrt_error(fc->rt));
	const nb_iface *f = nbrt_iface(fc->k);
	const char *kn = a->kernel ? nb_esc(a->kernel) : name;
	a->dim = 3;
	if (a->hermite ? check_hermite(f, kn) : check_leapfrog(f, kn, &a->dim))
		return 1;
	a->have_mj = has(f, "mj");
	a->have_pot = has(f, "pot");
	return set_consts(fc, a, kn) || kernel_run(fc, a, kn) ||
	       tree_setup(fc, a, kn);
}

/* Memory for n bodies, checked before anything is allocated: the model's
 * arrays (sim_alloc: 11 doubles a body, and one more while the picture
 * view is chosen; the Hermite scheme's state 28 more) and, once the kernel
 * is known, the runtime's copies and buffers, and the leap-frog's
 * nbrt_arrays and the Hermite scheme's predictor where they are host
 * memory (11 and 26 doubles a body; on an OpenCL device they are the
 * device's, but for the predictor's 14 of the bodies put).  Refuses
 * with the sizes where they do not fit. */
int force_memory(const args *a, force *fc)
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
		if (!a->hermite && !nbrt_device_arrays(fc->rt))
			extra += (double)A_N * sizeof(double) * (double)a->n;
		/* the Hermite scheme's nbrt_predictor: its series, predicted
		 * values and masses (26 doubles a body) where they are host
		 * memory; on a device, the rows put (14) */
		if (a->hermite && !a->host_predict)
			extra += (nbrt_device_arrays(fc->rt) ? 14.0 : 26.0) *
			         sizeof(double) * (double)a->n;
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
