/* sim.c: initial conditions, the leap-frog, diagnostics and output of
 * bin/nbody.  The force itself is a callback (the nbcc kernel in nbody.c, or
 * sim_force_direct here), so this file is testable without any device.
 * Every loop runs in a fixed order: one seed gives the same bits (on one
 * system: libm's transcendental functions may round differently elsewhere). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nbcc.h"
#include "sim.h"

#define PI 3.14159265358979323846

/* --- random numbers ------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

double sim_rng_uniform(sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* (0, 1]: safe under log and negative powers */
static double uniform_pos(sim_rng *r)
{
	return 1.0 - sim_rng_uniform(r);
}

static double normal(sim_rng *r)
{
	/* Box-Muller, one value per call: simple and fixed in its draws */
	double u = uniform_pos(r), v = sim_rng_uniform(r);
	return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

/* a vector of length len in a uniformly random direction */
static void isotropic(sim_rng *r, double len, double *x, double *y, double *z)
{
	double c = 1.0 - 2.0 * sim_rng_uniform(r);
	double s = sqrt(fmax(0.0, 1.0 - c * c));
	double phi = 2.0 * PI * sim_rng_uniform(r);
	*x = len * s * cos(phi);
	*y = len * s * sin(phi);
	*z = len * c;
}

/* --- bodies --------------------------------------------------------------- */

int sim_alloc(sim *s, size_t n, double eps)
{
	memset(s, 0, sizeof *s);
	double **a[] = {&s->m, &s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz,
	                &s->ax, &s->ay, &s->az, &s->pot};
	for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
		*a[k] = n ? calloc(n, sizeof(double)) : NULL;
		if (!*a[k]) {
			sim_free(s);
			return -1;
		}
	}
	s->n = n;
	s->eps = eps;
	return 0;
}

void sim_free(sim *s)
{
	free(s->m);
	free(s->x);
	free(s->y);
	free(s->z);
	free(s->vx);
	free(s->vy);
	free(s->vz);
	free(s->ax);
	free(s->ay);
	free(s->az);
	free(s->pot);
	free(s->jx);
	free(s->jy);
	free(s->jz);
	free(s->tstep);
	free(s->id);
	memset(s, 0, sizeof *s);
}

/* --- initial conditions ------------------------------------------------- */

static const struct {
	const char *name;
	double dt, eps;
} ic_table[] = {
	[SIM_PLUMMER] = {"plummer", 1.0 / 128, 1.0 / 64},
	[SIM_CUBE] = {"cube", 0.01, 0.01},   /* the 100000-body test of paper 000 */
	[SIM_COLLISION] = {"collision", 1.0 / 64, 1.0 / 64},
};

int sim_ic_parse(const char *name, sim_ic *ic)
{
	for (size_t k = 0; k < sizeof ic_table / sizeof ic_table[0]; k++)
		if (strcmp(name, ic_table[k].name) == 0) {
			*ic = (sim_ic)k;
			return 0;
		}
	return -1;
}

const char *sim_ic_name(sim_ic ic)
{
	return ic_table[ic].name;
}

void sim_ic_defaults(sim_ic ic, double *dt, double *eps)
{
	*dt = ic_table[ic].dt;
	*eps = ic_table[ic].eps;
}

/* Moves bodies [lo, hi) so that their centre of mass sits at rest at
 * (x, y, z) moving with (vx, vy, vz). */
static void recentre(sim *s, size_t lo, size_t hi, const double c[6])
{
	double m = 0, sum[6] = {0};
	for (size_t i = lo; i < hi; i++) {
		double w = s->m[i];
		m += w;
		sum[0] += w * s->x[i];
		sum[1] += w * s->y[i];
		sum[2] += w * s->z[i];
		sum[3] += w * s->vx[i];
		sum[4] += w * s->vy[i];
		sum[5] += w * s->vz[i];
	}
	if (m <= 0)
		return;
	double *v[6] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
	for (int k = 0; k < 6; k++) {
		double d = c[k] - sum[k] / m;
		for (size_t i = lo; i < hi; i++)
			v[k][i] += d;
	}
}

/* Plummer sphere, after Aarseth, Henon & Wielen (1974), A&A 37, 183: the
 * radius from the inverted cumulative mass, truncated at 99.9% of the mass
 * (r < 22.8 a) to avoid a few far outliers; the speed q*v_esc with q drawn
 * by rejection from g(q) = q^2 (1-q^2)^3.5 (max 0.092 < 0.1).  Bodies
 * [lo, hi) get total mass `mass`, Plummer radius `a`, and are centred. */
static void plummer(sim *s, sim_rng *r, size_t lo, size_t hi, double mass,
                    double a)
{
	double vscale = sqrt(mass / a);
	for (size_t i = lo; i < hi; i++) {
		double mr = 0.999 * uniform_pos(r);
		double rad = 1.0 / sqrt(pow(mr, -2.0 / 3.0) - 1.0);
		isotropic(r, a * rad, &s->x[i], &s->y[i], &s->z[i]);
		double q, g;
		do {
			q = sim_rng_uniform(r);
			g = 0.1 * sim_rng_uniform(r);
		} while (g > q * q * pow(1.0 - q * q, 3.5));
		double v = q * M_SQRT2 * pow(1.0 + rad * rad, -0.25);
		isotropic(r, vscale * v, &s->vx[i], &s->vy[i], &s->vz[i]);
		s->m[i] = mass / (double)(hi - lo);
	}
	recentre(s, lo, hi, (double[6]){0});
}

/* N-body (Henon) units, M = 1 and E = -1/4: a Plummer sphere of radius
 * a = 3 pi / 16 (its energy is -3 pi M^2 / (64 a)).  The sample's own
 * energy differs from -1/4 by sampling noise, O(N^-1/2). */
static void ic_plummer(sim *s, sim_rng *r)
{
	plummer(s, r, 0, s->n, 1.0, 3.0 * PI / 16.0);
}

/* A uniform cube [-1, 1]^3 with velocities uniform in a cube, as the
 * random 100000-body test of paper 000 (which gives no more detail).
 * Velocities are scaled to virial equilibrium, K = |W|/2, with the energy
 * of a uniform cube of side L, W = -0.9411563 M^2 / L. */
static void ic_cube(sim *s, sim_rng *r)
{
	for (size_t i = 0; i < s->n; i++) {
		s->m[i] = 1.0 / (double)s->n;
		s->x[i] = 2.0 * sim_rng_uniform(r) - 1.0;
		s->y[i] = 2.0 * sim_rng_uniform(r) - 1.0;
		s->z[i] = 2.0 * sim_rng_uniform(r) - 1.0;
		s->vx[i] = 2.0 * sim_rng_uniform(r) - 1.0;
		s->vy[i] = 2.0 * sim_rng_uniform(r) - 1.0;
		s->vz[i] = 2.0 * sim_rng_uniform(r) - 1.0;
	}
	recentre(s, 0, s->n, (double[6]){0});
	double k = 0;
	for (size_t i = 0; i < s->n; i++)
		k += 0.5 * s->m[i] * (s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] +
		                      s->vz[i] * s->vz[i]);
	if (k <= 0)
		return;
	double f = sqrt(0.5 * 0.9411563 / 2.0 / k);
	for (size_t i = 0; i < s->n; i++) {
		s->vx[i] *= f;
		s->vy[i] *= f;
		s->vz[i] *= f;
	}
}

/* A disk galaxy: see ic_collision. */
typedef struct galaxy {
	double mass;   /* disk + bulge */
	double fbulge; /* bulge share of the mass */
	double rd;     /* exponential scale length of the disk */
	double b;      /* Plummer radius of the bulge */
	double incl;   /* disk tilted by this angle about the x axis */
} galaxy;

/* Enclosed-mass circular speed at cylindrical radius R, softened like the
 * force: the bulge is exact (Plummer); the disk is taken as spherical,
 * M_d(<R) = M_d (1 - (1 + R/Rd) exp(-R/Rd)), which underestimates the
 * exponential disk's true speed by ~10% near its peak: simple, not exact. */
static double vcirc(const galaxy *g, double R, double eps)
{
	double mb = g->mass * g->fbulge, md = g->mass - mb;
	if (R <= 0)
		return 0;
	double x = R / g->rd;
	double menc = mb * pow(R * R / (R * R + g->b * g->b), 1.5) +
	              md * (1.0 - (1.0 + x) * exp(-x));
	return sqrt(menc * R * R / pow(R * R + eps * eps, 1.5));
}

/* The disk of galaxy g on bodies [lo, hi): surface density
 * exp(-R/Rd) (R sampled as Rd times a Gamma(2) variate, truncated at
 * 5 Rd), vertical profile sech^2(z/z0) with z0 = Rd/5, rotating at vcirc.
 * The dispersions: sigma_z^2 = pi Sigma z0 (an isothermal sheet of that
 * thickness), sigma_R = 2 sigma_z and sigma_phi = sigma_R / sqrt(2) (the
 * epicyclic ratio of a flat rotation curve), enough to keep the disk
 * from fragmenting at once (Toomre Q ~ 1.5 near 2 Rd). */
static void disk(sim *s, sim_rng *r, size_t lo, size_t hi, const galaxy *g)
{
	double md = g->mass * (1.0 - g->fbulge), z0 = g->rd / 5.0;
	for (size_t i = lo; i < hi; i++) {
		double R;
		do
			R = -g->rd * log(uniform_pos(r) * uniform_pos(r));
		while (R > 5.0 * g->rd);
		double phi = 2.0 * PI * sim_rng_uniform(r), z;
		do
			z = z0 * atanh(2.0 * uniform_pos(r) - 1.0);
		while (!isfinite(z) || fabs(z) > 5.0 * z0);
		double sigma = md / (2.0 * PI * g->rd * g->rd) * exp(-R / g->rd);
		double sz = sqrt(PI * sigma * z0), sr = 2.0 * sz;
		double vr = sr * normal(r), vp = sr / M_SQRT2 * normal(r);
		double vphi = vcirc(g, R, s->eps) + vp;
		double c = cos(phi), sn = sin(phi);
		s->x[i] = R * c;
		s->y[i] = R * sn;
		s->z[i] = z;
		s->vx[i] = vr * c - vphi * sn;
		s->vy[i] = vr * sn + vphi * c;
		s->vz[i] = sz * normal(r);
	}
}

static void rotate_x(double *y, double *z, double angle)
{
	double c = cos(angle), s = sin(angle), t = c * *y - s * *z;
	*z = s * *y + c * *z;
	*y = t;
}

/* Galaxy g on bodies [lo, hi), all of one mass, its centre of mass at
 * c[0..2] moving with c[3..5]. */
static void galaxy_make(sim *s, sim_rng *r, size_t lo, size_t hi,
                        const galaxy *g, const double c[6])
{
	size_t n = hi - lo;
	size_t nb = (size_t)llround((double)n * g->fbulge);
	double m = g->mass / (double)(n ? n : 1);
	if (nb)
		plummer(s, r, lo, lo + nb, m * (double)nb, g->b);
	disk(s, r, lo + nb, hi, g);
	for (size_t i = lo; i < hi; i++)
		s->m[i] = m; /* plummer()'s mass/n may be an ulp off */
	for (size_t i = lo; i < hi; i++) {
		rotate_x(&s->y[i], &s->z[i], g->incl);
		rotate_x(&s->vy[i], &s->vz[i], g->incl);
	}
	recentre(s, lo, hi, c);
}

/* Two disk galaxies with bulges, in the spirit of the cart-wheel run of
 * paper 000: a target A (3/4 of the mass, disk in the x-y plane) and an
 * intruder B (1/4 of the mass, lengths smaller by sqrt(1/3) so both have
 * the same surface density, disk tilted by 60 degrees) that falls onto A
 * almost along A's axis.  Each galaxy: a bulge (1/4 of its mass, Plummer)
 * and an exponential disk (see disk()).  All bodies have equal mass.
 * The centres start 1.5 apart on a parabolic two-point-mass orbit with
 * pericentre 0.1 (inside A's bulge): B crosses A's disk at t ~ 0.9,
 * and a ring runs outwards through A's disk afterwards.  For A, Rd = 0.3
 * and the circular speed peaks near 1, a rotation period of ~4 at 2 Rd. */
static void ic_collision(sim *s, sim_rng *r)
{
	size_t n = s->n;
	size_t na = (size_t)llround(0.75 * (double)n);
	if (na > n)
		na = n;
	size_t nb = n - na;
	double ma = (double)na / (double)n, mb = (double)nb / (double)n;
	galaxy a = {ma, 0.25, 0.3, 0.1, 0.0};
	double shrink = sqrt(1.0 / 3.0);
	galaxy b = {mb, 0.25, 0.3 * shrink, 0.1 * shrink, PI / 3.0};

	/* relative orbit of B about A: parabolic, h^2 = 2 M r_p */
	double d = 1.5, rp = 0.1, theta = 20.0 * PI / 180.0;
	double h = sqrt(2.0 * rp), vesc2 = 2.0 / d;
	double vt = h / d, vr = -sqrt(fmax(0.0, vesc2 - vt * vt));
	double ux = sin(theta), uz = cos(theta);  /* radial unit vector */
	double tx = cos(theta), tz = -sin(theta); /* tangential unit vector */
	double rel[6] = {d * ux, 0, d * uz, vr * ux + vt * tx, 0,
	                 vr * uz + vt * tz};
	double ca[6], cb[6];
	for (int k = 0; k < 6; k++) {
		ca[k] = -mb * rel[k];
		cb[k] = ma * rel[k];
	}
	galaxy_make(s, r, 0, na, &a, ca);
	if (nb)
		galaxy_make(s, r, na, n, &b, cb);
}

void sim_ic_make(sim *s, sim_ic ic, uint64_t seed)
{
	sim_rng r;
	sim_rng_seed(&r, seed);
	switch (ic) {
	case SIM_PLUMMER: ic_plummer(s, &r); break;
	case SIM_CUBE: ic_cube(s, &r); break;
	case SIM_COLLISION: ic_collision(s, &r); break;
	}
	/* exact: total mass 1, centre of mass at the origin and at rest */
	recentre(s, 0, s->n, (double[6]){0});
	s->t = 0;
	s->step = 0;
}

void sim_lattice(sim *s, uint64_t seed, int dim, double rho, double temp)
{
	sim_rng r;
	sim_rng_seed(&r, seed);
	double side = pow((double)s->n / rho, 1.0 / dim);
	size_t m = (size_t)floor(pow((double)s->n, 1.0 / dim));
	while ((dim == 3 ? m * m * m : m * m) < s->n)
		m++;
	double a = side / (double)m;
	double *c[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz};
	for (size_t i = 0; i < s->n; i++) {
		size_t site = i;
		for (int d = 0; d < dim; d++) {
			c[d][i] = ((double)(site % m) + 0.5) * a;
			site /= m;
			v[d][i] = sqrt(temp) * normal(&r);
		}
		s->m[i] = 1;
	}
	double k = 0;
	for (int d = 0; d < dim; d++) {
		double mean = 0;
		for (size_t i = 0; i < s->n; i++)
			mean += v[d][i];
		mean /= (double)s->n;
		for (size_t i = 0; i < s->n; i++) {
			v[d][i] -= mean;
			k += 0.5 * v[d][i] * v[d][i];
		}
	}
	double dof = (double)dim * (double)(s->n - 1);
	double f = k > 0 ? sqrt(0.5 * dof * temp / k) : 0;
	for (int d = 0; d < dim; d++) {
		for (size_t i = 0; i < s->n; i++)
			v[d][i] *= f;
		s->box[d] = side;
	}
	s->t = 0;
	s->step = 0;
}

/* --- force, integration, diagnostics ------------------------------------ */

int sim_force_direct(sim *s, void *unused)
{
	(void)unused;
	double e2 = s->eps * s->eps;
	for (size_t i = 0; i < s->n; i++) {
		double ax = 0, ay = 0, az = 0, p = 0;
		for (size_t j = 0; j < s->n; j++) {
			double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i];
			double dz = s->z[j] - s->z[i];
			double rinv = 1.0 / sqrt(e2 + dx * dx + dy * dy + dz * dz);
			double mr = s->m[j] * rinv, mr3 = mr * rinv * rinv;
			ax += mr3 * dx;
			ay += mr3 * dy;
			az += mr3 * dz;
			p -= mr;
		}
		s->ax[i] = ax;
		s->ay[i] = ay;
		s->az[i] = az;
		s->pot[i] = p;
	}
	return 0;
}

/* Element by element, so threads change no bit of the result; they help
 * only where the step is short (a GPU's force at large N). */
static void kick(sim *s, double h)
{
#pragma omp parallel for if (s->n >= 65536) schedule(static)
	for (size_t i = 0; i < s->n; i++) {
		s->vx[i] += h * s->ax[i];
		s->vy[i] += h * s->ay[i];
		s->vz[i] += h * s->az[i];
	}
}

/* x into [0, l): floor's rounding may give l itself, which is 0 */
static double wrap(double x, double l)
{
	if ((x >= 0 && x < l) || !isfinite(x))
		return x; /* NaN stays for sim_finite to see */
	x -= l * floor(x / l);
	return x < l && x >= 0 ? x : 0;
}

static void drift(sim *s, double dt)
{
#pragma omp parallel for if (s->n >= 65536) schedule(static)
	for (size_t i = 0; i < s->n; i++) {
		s->x[i] += dt * s->vx[i];
		s->y[i] += dt * s->vy[i];
		s->z[i] += dt * s->vz[i];
	}
	double *c[3] = {s->x, s->y, s->z};
	for (int d = 0; d < 3; d++)
		if (s->box[d] > 0)
			for (size_t i = 0; i < s->n; i++)
				c[d][i] = wrap(c[d][i], s->box[d]);
}

/* v(1/2) = v + a dt/2 (Eq. 1), x' = x + v(1/2) dt, which is Eq. 2, then
 * the new forces and v' = v(1/2) + a' dt/2 (Eq. 3). */
int sim_step(sim *s, double dt, sim_force_fn f, void *ctx)
{
	kick(s, 0.5 * dt);
	drift(s, dt);
	if (f(s, ctx))
		return -1;
	kick(s, 0.5 * dt);
	s->t += dt;
	s->step++;
	return 0;
}

int sim_finite(const sim *s)
{
	/* a sum is NaN if any term is NaN or infinities of both signs meet,
	 * else infinite if a term is: one pass, no branch per body */
	double sum = 0;
#pragma omp parallel for if (s->n >= 65536) reduction(+ : sum)
	for (size_t i = 0; i < s->n; i++)
		sum += 0 * (s->x[i] + s->y[i] + s->z[i] + s->vx[i] + s->vy[i] +
		            s->vz[i] + s->ax[i] + s->ay[i] + s->az[i]);
	return sum == 0;
}

double sim_self(const sim *s, size_t i)
{
	return s->eps > 0 ? s->m[i] / s->eps : 0;
}

void sim_measure(const sim *s, sim_diag *d)
{
	memset(d, 0, sizeof *d);
	for (size_t i = 0; i < s->n; i++) {
		double m = s->m[i];
		double v2 = s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] +
		            s->vz[i] * s->vz[i];
		d->mass += m;
		d->kin += 0.5 * m * v2;
		/* each pair counted twice; the kernel's j = i term removed */
		d->pot += 0.5 * m * (s->pot[i] + sim_self(s, i));
		d->px += m * s->vx[i];
		d->py += m * s->vy[i];
		d->pz += m * s->vz[i];
		d->cx += m * s->x[i];
		d->cy += m * s->y[i];
		d->cz += m * s->z[i];
		d->lx += m * (s->y[i] * s->vz[i] - s->z[i] * s->vy[i]);
		d->ly += m * (s->z[i] * s->vx[i] - s->x[i] * s->vz[i]);
		d->lz += m * (s->x[i] * s->vy[i] - s->y[i] * s->vx[i]);
	}
	if (d->mass > 0) {
		d->cx /= d->mass;
		d->cy /= d->mass;
		d->cz /= d->mass;
	}
	d->etot = d->kin + d->pot;
}

/* --- output ----------------------------------------------------------------- */

/* Snapshot format: text, CSV (RFC 4180, '\n' line ends), one file per
 * snapshot.  Line 1 is a comment, "# nbody snapshot: " then `info`
 * (key=value pairs).  Line 2 is the header
 *   id,m,x,y,z,vx,vy,vz,ax,ay,az,pot
 * then one row per body in id order: mass, position, velocity, the
 * acceleration and the potential (self-term removed) of the last force
 * evaluation, each printed with %.17g so that it reads back bit-exact.
 * A Hermite run's snapshot adds its state: jx,jy,jz,dt,t (the jerk, the
 * body's time step and its time). */
int sim_write_snapshot(const sim *s, const char *path, const char *info,
                       char *err, size_t errlen)
{
	/* through outfile.c: a failure never leaves a truncated file where
	 * a good one was */
	nb_out o;
	if (nb_out_open(&o, path, 0, err, errlen))
		return -1;
	FILE *f = o.f;
	fprintf(f, "# nbody snapshot: %s\n", info);
	fprintf(f, "id,m,x,y,z,vx,vy,vz,ax,ay,az,pot%s\n",
	        s->jx ? ",jx,jy,jz,dt,t" : "");
	for (size_t i = 0; i < s->n; i++) {
		fprintf(f, "%" PRIu64 ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
		        "%.17g,%.17g,%.17g,%.17g,%.17g",
		        s->id ? s->id[i] : (uint64_t)i, s->m[i], s->x[i],
		        s->y[i], s->z[i], s->vx[i], s->vy[i], s->vz[i], s->ax[i],
		        s->ay[i], s->az[i], s->pot[i] + sim_self(s, i));
		/* the Hermite state: every body ends an interval at s->t */
		if (s->jx)
			fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g", s->jx[i],
			        s->jy[i], s->jz[i], s->tstep[i], s->t);
		fputc('\n', f);
	}
	return nb_out_commit(&o, err, errlen);
}

/* The k-th smallest of d[0..n) (Hoare's selection, median of three):
 * what sorting would put at d[k], in linear time, since the model can be
 * 2^26 bodies (qsort took 16 s of the setup there). */
static double select_kth(double *d, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		double a = d[lo], b = d[mid], c = d[hi];
		double p = a < b ? (b < c ? b : a < c ? c : a)
		                 : (a < c ? a : b < c ? c : b);
		size_t i = lo, j = hi;
		while (i <= j) {
			while (d[i] < p)
				i++;
			while (d[j] > p)
				j--;
			if (i <= j) {
				double t = d[i];
				d[i] = d[j];
				d[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return d[k];
	}
	return d[k];
}

void sim_view_auto(const sim *s, int size, sim_view *v)
{
	memset(v, 0, sizeof *v);
	v->size = size;
	v->half = 1.0;
	double *d = malloc(s->n * sizeof *d);
	if (!d || s->n == 0) {
		free(d);
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		d[i] = fmax(fabs(s->x[i]), fmax(fabs(s->y[i]), fabs(s->z[i])));
	double q = select_kth(d, s->n, (size_t)(0.95 * (double)(s->n - 1)));
	if (q > 0 && isfinite(q))
		v->half = 1.15 * q;
	free(d);
}

/* Each body adds one to a pixel of a count image; a pixel's brightness
 * is 1 - exp(-count / c0), c0 chosen so that a lone body is dim but
 * visible (b = 0.49 at small N) and the density of a disk still shows
 * where bodies crowd, rather than every lit pixel saturating.  Dark blue
 * sky, bluish faint light, white cores. */
unsigned char *sim_render(const sim *s, const sim_view *v)
{
	int w = 2 * v->size, h = v->size;
	float *cnt = calloc((size_t)w * h, sizeof *cnt);
	unsigned char *img = malloc((size_t)w * h * 3);
	if (!cnt || !img) {
		free(cnt);
		free(img);
		return NULL;
	}
	double scale = v->size / (2.0 * v->half);
	for (size_t i = 0; i < s->n; i++) {
		double px = (s->x[i] - v->cx) * scale + 0.5 * v->size;
		double py = 0.5 * v->size - (s->y[i] - v->cy) * scale;
		double pz = 0.5 * v->size - (s->z[i] - v->cz) * scale;
		if (!(px >= 0 && px < v->size))
			continue;
		int col = (int)px;
		if (py >= 0 && py < v->size)
			cnt[(size_t)(int)py * w + col] += 1;
		if (pz >= 0 && pz < v->size)
			cnt[(size_t)(int)pz * w + v->size + col] += 1;
	}
	double c0 = fmax(1.5, 30.0 * (double)s->n / ((double)h * h));
	for (size_t p = 0; p < (size_t)w * h; p++) {
		double b = 1.0 - exp(-cnt[p] / c0);
		int col = (int)(p % (size_t)w);
		double bg = col == v->size || col == v->size - 1 ? 40 : 0;
		double rgb[3] = {fmax(8 + bg, 247 * pow(b, 1.3)),
		                 fmax(10 + bg, 245 * b),
		                 fmax(24 + bg, 255 * pow(b, 0.7))};
		for (int k = 0; k < 3; k++)
			img[3 * p + k] = (unsigned char)lrint(rgb[k]);
	}
	free(cnt);
	return img;
}

int sim_write_png(const sim *s, const sim_view *v, const char *path,
                  char *err, size_t errlen)
{
	unsigned char *img = sim_render(s, v);
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	im.width = 2 * (png_uint_32)v->size;
	im.height = (png_uint_32)v->size;
	im.format = PNG_FORMAT_RGB;
	png_alloc_size_t len = 0;
	void *buf = NULL;
	int ok = img && png_image_write_to_memory(&im, NULL, &len, 0, img, 0,
	                                          NULL);
	if (ok && !(buf = malloc(len)))
		ok = 0;
	if (ok)
		ok = png_image_write_to_memory(&im, buf, &len, 0, img, 0, NULL);
	free(img);
	if (!ok) {
		snprintf(err, errlen, "cannot make the picture for '%s': %s", nb_esc(path),
		         im.warning_or_error ? im.message : "out of memory");
		png_image_free(&im);
		free(buf);
		return -1;
	}
	int rc = nb_write_file(path, buf, len, err, errlen);
	free(buf);
	return rc;
}
