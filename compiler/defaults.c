/* defaults.c: the table of default variants, one row per target, device
 * class and precision, each written from a sweep that docs/performance.md
 * names ("The defaults table").  The back ends' defaults hooks and the
 * runtime's j-split rule read it; nothing else chooses an unrolling. */
#include <string.h>
#include "emit.h"

/* Classes narrow left to right: "cpu-avx512" falls back to "cpu", and the
 * class of a target's last row serves every class it has no row for.  wg and tile 0
 * leave the back end's own (128 work items, a tile of one work group). */
static const nb_defaults table[] = {
	/* H200, 2026-11-22, bench/device_run1.sh and device_run3.sh: 2 x 2
	 * best or within 2% from N = 16384 to 524288 once the j-split gives
	 * 480 work items per compute unit (8, 4, 1 at 16384, 32768, 131072);
	 * with 32 KB tiles (2026-11-23, bench/device_run5.sh) a split of at
	 * least 4 is within 1% of the best from 32768 to 1048576, where the
	 * unsplit kernel's groups spread unevenly over 132 units (3-11%).
	 * With 16 j-slices (2026-11-23 15:30 UTC, device_run10.sh and
	 * device_run12.sh, every float example at N = 131072 and 524288):
	 * 2 x 4 is 0.99 to 1.04 times 2 x 2 (geometric mean 1.012); 4 x 4
	 * in groups of 64 gains gravity 7% but loses Biot-Savart 15% and
	 * gauss_logsumexp 36%.  The latter was logsumexp's branch; the
	 * others are the kernels whose register estimate at 4 x 4 is over
	 * 120 words (device_run15.sh, 2026-11-23 17:20 UTC: four kernels
	 * held out of the choice fell on the side it predicts), so 4 x 4 in
	 * groups of 64 within the budget, 2 x 4 in groups of 128 over it; a
	 * group of 8 rows at least (a split of 16: 128; device_run16.sh);
	 * 1.00 to 1.07 times the 2 x 4 row from N = 16384 to 524288 on every
	 * float example, gauss_logsumexp 1.4 to 2.4 (device_run17.sh, 18) */
	{"opencl", "gpu-nvidia", NB_FLOAT, 4, 4, 64, 0, 960, 4,
	 "H200 sweeps 2026-11-22 and 23 (device_run1, 3, 10, 12, 15)", 16, 120, 8},
	/* 2026-11-23 14:40 UTC, nbbench --sweep (docs/performance.md):
	 * double gravity at N = 131072 gains 12% from a split of 4 where the
	 * 480 rule gave 1 (unrollings within 8%); dd gravity and oneloop at
	 * 32768 10% from a split of 8 where it gave 2 (1 x 1 best); 16
	 * j-slices gain double gravity 7% at 131072 and 524288, dd 2 to 5%
	 * at 32768 and 131072 (device_run11.sh) */
	{"opencl", "gpu-nvidia", NB_DOUBLE, 2, 1, 0, 0, 960, 4,
	 "H200 sweeps 2026-11-23 (nbbench --sweep, device_run7.sh)", 16, 0, 0},
	{"opencl", "gpu-nvidia", NB_DD, 1, 1, 0, 0, 480, 8,
	 "H200 sweeps 2026-11-23 (nbbench --sweep, device_run7.sh)", 16, 0, 0},
	/* other GPUs have no sweep of their own yet: the H200's rows */
	{"opencl", "gpu", NB_FLOAT, 4, 4, 64, 0, 960, 4,
	 "the H200 row (no sweep of this GPU)", 16, 120, 8},
	{"opencl", "gpu", -1, 2, 1, 0, 0, 960, 4,
	 "the H200 row (no sweep of this GPU)", 16, 0, 0},
	{"opencl", "gpu", NB_DD, 1, 1, 0, 0, 480, 8,
	 "the H200 row (no sweep of this GPU)", 16, 0, 0},
	/* PoCL on the 2-core AMD EPYC (AVX-512), 2026-11-23, bench/cpu_rows.sh
	 * cpu 8192: 16 floats fill a 512-bit vector; 16 x 2 is 1.27, 1.59 and
	 * 1.43 times 8 x 2 on gravity, Biot-Savart and the Gauss transform,
	 * 8 x 2 1.5 to 2.1 times the 4 x 1 of the "cpu" row */
	{"opencl", "cpu-avx512", NB_FLOAT, 16, 2, 0, 0, 0, 0,
	 "PoCL AVX-512 sweep 2026-11-23 (bench/cpu_rows.sh cpu 8192)", 0, 0, 0},
	{"opencl", "cpu-avx512", NB_DOUBLE, 16, 1, 0, 0, 0, 0,
	 "PoCL AVX-512 sweep 2026-11-23 (bench/cpu_rows.sh cpu 8192)", 0, 0, 0},
	/* PoCL, earlier: 4 i-elements twice as fast as 2 x 2 (2-core) */
	{"opencl", "cpu", -1, 4, 1, 0, 0, 0, 0,
	 "PoCL 2-core measurement before the table (4 x 1 against 2 x 2)", 0, 0, 0},
	{"opencl", "cpu", NB_DD, 1, 1, 0, 0, 0, 0,
	 "not swept: a dd is four registers", 0, 0, 0},
	/* the host's C (gcc -O3 -march=native), 2-core AMD EPYC with
	 * AVX-512, 2026-11-23, one core, every example (KERNELS=all UI="8 16"
	 * UJ="1 2 4" ONE=1 REF=cpu sh bench/cpu_rows.sh host):
	 * float 16 x 1 is 1.0 to 1.6 times 8 x 2 in all of them but gravity
	 * (the same) and the only row at least 0.88 of PoCL's default in
	 * every one; double 8 x 1 is within 4% of 8 x 2, 8 x 4, 16 x 1 and
	 * 4.2 times 4 x 1; dd (oneloop) 8 x 4 is 2.4 times 4 x 1 */
	{"c", "host-avx512", NB_FLOAT, 16, 1, 0, 0, 0, 0,
	 "host C sweep 2026-11-23 (bench/cpu_rows.sh host, every example)", 0, 0, 0},
	{"c", "host-avx512", NB_DOUBLE, 8, 1, 0, 0, 0, 0,
	 "host C sweep 2026-11-23 (bench/cpu_rows.sh host 8192)", 0, 0, 0},
	{"c", "host-avx512", NB_DD, 8, 4, 0, 0, 0, 0,
	 "host C sweep 2026-11-23 (bench/cpu_rows.sh host, every example)", 0, 0, 0},
	/* before the table: a lane loop of 8 fills a 256-bit vector of
	 * floats; double and dd half that (dd not swept) */
	{"c", "host", NB_FLOAT, 8, 1, 0, 0, 0, 0,
	 "a 256-bit vector of floats (before the table)", 0, 0, 0},
	{"c", "host", -1, 4, 1, 0, 0, 0, 0,
	 "half float's lanes (before the table; dd not swept)", 0, 0, 0},
	/* paper 000's fastest gravity ("double-unrolling", Table II) and
	 * paper 001's Fig. 4: 16 independent float operations a step fill
	 * the 5-slot VLIW bundles; a double takes several slots, so two
	 * i-elements; a dd's operations are long chains already */
	{"amdil", "", NB_FLOAT, 4, 4, 0, 0, 0, 0, "papers 000 and 001 (RV770)", 0, 0, 0},
	{"amdil", "", NB_DOUBLE, 2, 1, 0, 0, 0, 0, "papers 000 and 001 (RV770)", 0, 0, 0},
	{"amdil", "", NB_DD, 1, 1, 0, 0, 0, 0, "papers 000 and 001 (RV770)", 0, 0, 0},
};

/* The row of exactly this class and precision (or any precision). */
static const nb_defaults *exact(const char *target, const char *cls,
                                size_t n, nb_prec p)
{
	const nb_defaults *any = NULL;
	for (size_t i = 0; i < NELEM(table); i++) {
		const nb_defaults *r = &table[i];
		if (strcmp(r->target, target) || strlen(r->devclass) != n ||
		    strncmp(r->devclass, cls, n))
			continue;
		if (r->prec == (int)p)
			return r;
		if (r->prec < 0 && !any)
			any = r;
	}
	return any;
}

const nb_defaults *nb_defaults_find(const char *target,
                                    const char *devclass, nb_prec p)
{
	const char *c = devclass ? devclass : "";
	for (size_t n = strlen(c);; ) {
		const nb_defaults *r = exact(target, c, n, p);
		if (r)
			return r;
		if (n == 0)
			break;
		const char *dash = memchr(c, '-', n);
		size_t m = n;
		while (dash && (size_t)(dash - c) < n) {
			m = (size_t)(dash - c);
			dash = memchr(dash + 1, '-', n - m - 1);
		}
		n = m < n ? m : 0;
	}
	/* a class the target has no row for: the class of its last row */
	for (size_t i = NELEM(table); i-- > 0;)
		if (strcmp(table[i].target, target) == 0)
			return exact(target, table[i].devclass,
			             strlen(table[i].devclass), p);
	return NULL;
}

int nb_defaults_class_ok(const char *devclass)
{
	for (size_t i = 0; i < NELEM(table); i++) {
		const char *c = table[i].devclass;
		/* a row's class, or a narrower one of it ("gpu-amd") */
		if (*c && strncmp(devclass, c, strlen(c)) == 0 &&
		    (devclass[strlen(c)] == 0 || devclass[strlen(c)] == '-'))
			return 1;
	}
	return 0;
}

const nb_defaults *defaults_apply(const char *target, Type widest,
                                  nb_options *o)
{
	const char *cls = o->devclass ? o->devclass : o->cpu ? "cpu" : "gpu";
	const nb_defaults *r = nb_defaults_find(target, cls, (nb_prec)widest);
	if (!r)
		return NULL;
	if (!(o->given & NB_GIVEN_UNROLL_I) && !o->unroll_i)
		o->unroll_i = r->unroll_i;
	if (!(o->given & NB_GIVEN_UNROLL_J))
		o->unroll_j = r->unroll_j;
	if (!(o->given & NB_GIVEN_WG) && !o->wg)
		o->wg = defaults_wg(r, o);
	if (!(o->given & NB_GIVEN_TILE) && !o->tile)
		o->tile = r->tile;
	return r;
}

/* A group of fewer i-elements than the row's loads each j tile for fewer
 * interactions, so the group grows as the i-unroll shrinks, and as the
 * j-split grows (at a split of 16, 4 x 4 float gravity at N = 16384 ran
 * 1.35e12 in groups of 64, 4 rows, and 1.67 in groups of 128). */
int defaults_wg(const nb_defaults *r, const nb_options *o)
{
	if (!r->regs || r->wg <= 0)
		return r->wg;
	int u = o->unroll_i > 0 ? o->unroll_i : 1, w = r->wg;
	int t = o->jsplit > 0 ? o->jsplit : 1;
	while ((w * u < r->wg * r->unroll_i || w < r->rows * t) && w < 1024)
		w *= 2;
	return w;
}
