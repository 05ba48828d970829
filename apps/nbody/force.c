/* force.c: bin/nbody's force through an nbcc kernel: the device and the
 * kernel (which must have gravity.nbl's or hermite.nbl's interface), the
 * binding of the bodies to it, the evaluations (under MPI, each rank's
 * part of the i-elements, then the exchange), the leap-frog's step where
 * the bodies are, and the memory a run needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "nbody.h"
#include "par.h"
#include "prog.h"

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
int force_move(force *fc, sim *s, int put, int lo, int hi)
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

int force_bind(force *fc, const args *a, sim *s, herm *h)
{
	return a->hermite ? bind_hermite(fc, h) : bind_all(fc, s);
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

int force_leapfrog(sim *s, void *ctx)
{
	return run_kernel(ctx, s->n, s->n);
}

int force_hermite(herm *h, size_t ni, void *ctx)
{
	return run_kernel(ctx, ni, h->s->n);
}

/* One kick-drift-kick step where the bodies are, as sim_step does it on
 * the host (nbrt_array_axpy gives the same bits); then the finite check
 * of sim_finite.  Returns 0, or -1 with the message in fc->err. */
int force_step(force *fc, sim *s, double dt, int *finite)
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

/* Memory for n bodies, checked before anything is allocated: the model's
 * arrays (sim_alloc: 11 doubles a body, and one more while the picture
 * view is chosen; the Hermite scheme's state 28 more) and, once the kernel
 * is known, the runtime's copies and buffers, and the leap-frog's
 * nbrt_arrays where they are host memory (11 doubles a body; on an OpenCL
 * device they are the device's).  Refuses with the sizes where they do
 * not fit. */
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
