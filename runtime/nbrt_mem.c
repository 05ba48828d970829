/* nbrt_mem.c: what a run costs before it starts, and word of it while it
 * lasts.  Programs check a run's memory against what this process may use
 * and the device holds, so that a size too large is refused with the
 * numbers rather than ending in the OOM killer; long runs report their
 * progress on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "nbrt_impl.h"

/* The device buffers of a run (cl/run.c's ensure() makes each at least
 * 64 bytes), and the largest of them. */
static double device_bytes(const nbrt_kernel *k, size_t ni, size_t nj,
                           double *largest)
{
	const nb_iface *f = k->f;
	double sum = 0, one;
	*largest = 0;
	for (int v = 0; v < f->nvar; v++) {
		nb_role r = f->var[v].role;
		if (r != NB_LMEM && r != NB_RMEM)
			continue;
		one = (double)ni * (double)nbrt_prec_size(f->var[v].type);
		one = one < 64 ? 64 : one;
		sum += one;
		*largest = one > *largest ? one : *largest;
	}
	for (int p = 0; p < f->npack; p++) {
		const nb_pack *pk = &f->pack[p];
		one = (double)nj * pk->vwidth * (double)nb_prec_scalar_bytes(pk->type);
		one = one < 64 ? 64 : one;
		sum += one;
		*largest = one > *largest ? one : *largest;
	}
	return sum;
}

/* The runtime's staging copies (cl/run.c, nbrt_host.c): an array bound
 * in another type than the kernel's goes through a converted copy, and on
 * OpenCL so does every BMEM pack that is not one variable's own array. */
static double staging_bytes(const nbrt_kernel *k, size_t ni, size_t nj,
                            int native)
{
	const nb_iface *f = k->f;
	double sum = 0;
	for (int v = 0; v < f->nvar; v++) {
		nb_role r = f->var[v].role;
		if (r == NB_CONST || native)
			continue;
		if (r == NB_BMEM && !k->rt->be->host)
			continue; /* counted with its pack */
		sum += (double)(r == NB_BMEM ? nj : ni) *
		       (double)nbrt_prec_size(f->var[v].type);
	}
	if (k->rt->be->host)
		return sum;
	for (int p = 0; p < f->npack; p++) {
		const nb_pack *pk = &f->pack[p];
		int vars = 0;
		for (int v = 0; v < f->nvar; v++)
			vars += f->var[v].role == NB_BMEM && f->var[v].pack == p;
		double elem = (double)pk->vwidth * (pk->type == NB_FLOAT ? 4 : 8);
		if (native && vars == 1 &&
		    elem == (double)nbrt_prec_size(pk->type))
			continue; /* sent as it is */
		sum += (double)nj * elem;
	}
	return sum;
}

int nbrt_run_memory(nbrt_kernel *k, size_t ni, size_t nj, int native,
                    double *host)
{
	if (!k)
		return -1;
	nbrt *rt = k->rt;
	if (!host)
		return nbrt_fail(rt, "nbrt_run_memory: nowhere (NULL) for the "
		                 "host bytes");
	/* *host is written only on success: a caller's value survives a
	 * refusal */
	double staging = staging_bytes(k, ni, nj, native);
	if (rt->be->host) {
		*host = staging;
		return 0;
	}
	double largest, dev = device_bytes(k, ni, nj, &largest);
	char a[32], b[32];
	if (largest > (double)rt->maxalloc) {
		nbrt_format_bytes(a, sizeof a, largest);
		nbrt_format_bytes(b, sizeof b, (double)rt->maxalloc);
		return nbrt_fail(rt, "kernel %s: Ni = %zu, Nj = %zu needs a "
		                 "device buffer of %s; %s allows at most %s in one",
		                 k->f->kernel, ni, nj, a, rt->name, b);
	}
	if (rt->globalmem && dev > (double)rt->globalmem) {
		nbrt_format_bytes(a, sizeof a, dev);
		nbrt_format_bytes(b, sizeof b, (double)rt->globalmem);
		return nbrt_fail(rt, "kernel %s: Ni = %zu, Nj = %zu needs %s of "
		                 "device memory; %s has %s", k->f->kernel, ni, nj,
		                 a, rt->name, b);
	}
	/* a CPU device's buffers are this machine's memory */
	*host = staging + (rt->gpu ? 0 : dev);
	return 0;
}

/* --- progress --------------------------------------------------------- */

void nbrt_show_progress(nbrt_kernel *k, const char *label)
{
	if (k)
		k->plabel = label;
}

/* "40 s", "12 min", "3.5 h", "60 days" */
static void duration(char *buf, size_t len, double s)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.0f days", s / 86400);
}

/* Quiet for the first seconds, so short runs print nothing; then a line
 * every few seconds (rewritten in place on a terminal). */
enum { QUIET_S = 5, EVERY_S = 5 };

void nbrt_progress(nbrt_kernel *k, double done, double total)
{
	if (!k->plabel || total <= 0)
		return;
	double now = nbrt_now(), t = now - k->pstart;
	int last = done >= total;
	if (t < QUIET_S || (!last && now - k->plast < EVERY_S) ||
	    (last && !k->pshown))
		return;
	int tty = isatty(2);
	double left = done > 0 ? t * (total - done) / done : 0;
	char el[32], lf[32];
	duration(el, sizeof el, t);
	duration(lf, sizeof lf, left);
	double pct = 100 * done / total;
	fprintf(stderr, "%s%s: %.*f%% of %.3g interactions in %s",
	        tty && k->pshown ? "\r" : "", k->plabel, pct < 10 ? 1 : 0, pct,
	        total, el);
	if (!last && done > 0)
		fprintf(stderr, ", about %s to go%s", lf, tty ? "    " : "");
	if (!tty || last)
		fputc('\n', stderr);
	fflush(stderr);
	k->plast = now;
	k->pshown = 1;
}
