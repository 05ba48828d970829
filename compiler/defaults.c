/* defaults.c: the table of default variants, one row per target, device
 * class and precision, each with the rule it states and the benchmark
 * suite and result file that support it (bench/run.sh; the story of each
 * row: docs/performance.md, "The defaults table").  The back ends'
 * defaults hooks and the runtime's j-split rule read it; nothing else
 * chooses an unrolling. */
#include <string.h>
#include "emit.h"

/* Classes narrow left to right: "cpu-avx512" falls back to "cpu", and the
 * class of a target's last row serves every class it has no row for.  wg and tile 0
 * leave the back end's own (128 work items, a tile of one work group). */
static const nb_defaults table[] = {
	/* Float on NVIDIA GPUs: 4 x 4 in groups of 64 where the kernel's
	 * register estimate at 4 x 4 is at most 120 words, else half the
	 * i-unroll in twice the group (2 x 4 in 128); a group holds at least
	 * 8 rows of i-elements; the least j-split giving 960 i-elements x
	 * split a compute unit, and at least 4; 16 j-slices.  Why, on an
	 * H200: 4 x 4 gains the kernels within the budget 0.5 to 7% and
	 * loses those over it up to 14%, the four held-out kernels falling
	 * on the side it predicts (suite examples, the source below); a
	 * split of 4 is within 1% of the best from N = 32768 up once split
	 * kernels stage 32 KB tiles (jsplit, ...-from-device_run5.txt); a
	 * group of 64 at a split of 16 ran 20% slower than one of 128
	 * (variants, ...-from-device_run16.txt); 16 slices gain 3 to 4% from
	 * N = 32768 (slices, ...-from-device_run9-run10.txt).  With it,
	 * float gravity runs 2.04e12 and 2.06e12 at N = 131072 and 524288
	 * (gpu-gravity, ...-from-device_run18.txt).  Newton's third law
	 * (newton_min, the dense entry): force-form gravity's self run 1.12
	 * and 1.14 times every pair at N = 65536 and 262144, 0.93 at 16384
	 * (sh bench/run.sh newtonpeer, docs/performance.md, session 16:
	 * bench/results/2026-11-28-newtonpeer-nvidia-h200-s16-final-float.txt).
	 * Its term summed apart (newton_apart): 30.9 against 33.3 ms at
	 * 262144 with the sinks a side (session 17, ...-s17tile-mid-float.txt
	 * and ...-s17tile-final-float.txt), where double gains by them.
	 * The split across warps (--split-warps) only where the groups
	 * make one wave (wave_split, wave_uj): 1 x 8 split 16 ways in
	 * groups of 512 ran the 11 of 14 float kernels that are not a
	 * single sum 0.98 to 1.20 times as fast queued from N = 3072 to
	 * 4224 (gravity 1.08 from 3584), but every kernel 0.74 to 0.90
	 * times from 4352 to 6144 (a second wave) and most slower at 2048
	 * (half the units idle); the three single sums (the Gauss
	 * transform, SPH density, Plummer's potential) lose or tie at
	 * nearly every N, their partial sums being cheap (sh bench/run.sh
	 * variants, docs/performance.md, session 25: "One wave across
	 * warps", bench/results/2026-11-29-wave-sweep*-nvidia-h200-s25.txt
	 * and ...-variants-nvidia-h200-s25-wave.txt: the new defaults 1.00
	 * to 1.21 times the old for the other 10 at 3072 to 4224, the Gauss
	 * gradient 0.98 to 1.02).
	 * Earlier, at every narrowed N it had lost those sums 6-12% and all
	 * at 8192 ("Split across warps").  Its inputs read
	 * from the arrays in every run (din_max 0): from their float copies
	 * the kernel took 98.7-99.2 us at N = 12288 where the arrays' doubles
	 * took 104 (session 20's limit of 2e8 pairs came from 166 against
	 * 156 us at 16384 reading doubles; the copies 157.5-157.9) and was
	 * level with the converted inputs' from 24576 to 131072, while
	 * bin/nbody's step at 16384 took 173-174 us in four rounds against
	 * 174-488 converting (sh bench/run.sh step ns="12288 16384 24576
	 * 32768 65536" variants=";NBRT_DIN_MAX=0;NBRT_DIN_MAX=0
	 * NBRT_DIN_SHADOW=0", docs/performance.md, session 24:
	 * bench/results/2026-11-29-step-nvidia-h200-s24-shadow-dinmax.txt). */
	{.target = "opencl", .devclass = "gpu-nvidia", .prec = NB_FLOAT,
	 .unroll_i = 4, .unroll_j = 4, .wg = 64, .split_items = 960,
	 .split_min = 4, .slices = 16, .regs = 120, .rows = 8,
	 .newton_min = 65536, .newton_apart = 1, .din_max = 0,
	 .wave_split = 16, .wave_uj = 8,
	 .source = "sh bench/run.sh examples: "
	           "bench/results/2026-11-23-nvidia-h200-from-device_run15.txt"},
	/* Double on NVIDIA GPUs: 2 x 1, at least a split of 4, 16 slices.
	 * Why, on an H200: no unrolling beat 2 x 1 by more than 8%, and at
	 * N = 131072 a split of 4 ran 1.12 times the 480 rule's 1 (tuner,
	 * the source below); slices gain 7% at 131072 and 524288 (gpu-gravity
	 * variants=";NBRT_SLICES=1", ...-from-device_run11.txt).  Newton's
	 * third law (the dense entry): gravity's self run 1.33, 1.31 and
	 * 1.34 times every pair at N = 16384, 65536 and 262144 (newtonpeer,
	 * ...-s16-final-double.txt; smaller N not measured). */
	{.target = "opencl", .devclass = "gpu-nvidia", .prec = NB_DOUBLE,
	 .unroll_i = 2, .unroll_j = 1, .split_items = 960, .split_min = 4,
	 .slices = 16, .newton_min = 16384,
	 .source = "sh bench/run.sh tuner: "
	           "bench/results/2026-11-23-nvidia-h200-from-device_run7.txt"},
	/* dd on NVIDIA GPUs: 1 x 1, 480 i-elements x split, at least 8, 16
	 * slices.  Why, on an H200: a dd's operations are long chains, 1 x 1
	 * best; at N = 32768 a split of 8 ran 1.10 times the rule's 2
	 * (tuner, the source below); slices gain 2 to 5% (gpu-gravity,
	 * ...-from-device_run11.txt).  Newton's third law (the dense entry):
	 * gravity_force's self run 1.45 times every pair at N = 16384, 32768
	 * and 65536, 0.27 and 0.74 times at 4096 and 8192 (nbrun --self
	 * --newton=on|off --time, bench/results/2026-11-29-newton-dense-
	 * nvidia-h200-s21.txt, which also has double's 16384 confirmed). */
	{.target = "opencl", .devclass = "gpu-nvidia", .prec = NB_DD,
	 .unroll_i = 1, .unroll_j = 1, .split_items = 480, .split_min = 8,
	 .slices = 16, .newton_min = 16384,
	 .source = "sh bench/run.sh tuner: "
	           "bench/results/2026-11-23-nvidia-h200-from-device_run7.txt"},
	/* Other GPUs: no sweep of their own yet, so the H200's rows (an H100
	 * runs them as well: gpu-gravity, ...-from-device_run19.txt) */
	{.target = "opencl", .devclass = "gpu", .prec = NB_FLOAT,
	 .unroll_i = 4, .unroll_j = 4, .wg = 64, .split_items = 960,
	 .split_min = 4, .slices = 16, .regs = 120, .rows = 8,
	 .wave_split = 16, .wave_uj = 8,
	 .source = "the gpu-nvidia row (no sweep of this GPU)"},
	{.target = "opencl", .devclass = "gpu", .prec = -1,
	 .unroll_i = 2, .unroll_j = 1, .split_items = 960, .split_min = 4,
	 .slices = 16,
	 .source = "the gpu-nvidia row (no sweep of this GPU)"},
	{.target = "opencl", .devclass = "gpu", .prec = NB_DD,
	 .unroll_i = 1, .unroll_j = 1, .split_items = 480, .split_min = 8,
	 .slices = 16,
	 .source = "the gpu-nvidia row (no sweep of this GPU)"},
	/* PoCL on AVX-512: 16 i-elements a work item, the lanes of a 512-bit
	 * vector of floats, and 2 j-elements in float, 1 in double.  Why, on
	 * the 2-core AMD EPYC: 16 x 2 is 1.27, 1.59 and 1.43 times 8 x 2 on
	 * gravity, Biot-Savart and the Gauss transform, 8 x 2 1.5 to 2.1
	 * times the 4 x 1 of the "cpu" row; double 16 x 1 best (suite rows
	 * device=cpu, the source below; again 2026-11-26, 4 x 1 at 0.3 to 0.5
	 * of the row: bench/results/2026-11-26-rows-pocl-amd-epyc.txt). */
	{.target = "opencl", .devclass = "cpu-avx512", .prec = NB_FLOAT,
	 .unroll_i = 16, .unroll_j = 2,
	 .source = "sh bench/run.sh rows device=cpu: "
	           "bench/results/2026-11-23-pocl-amd-epyc-from-cpu_rows.txt"},
	{.target = "opencl", .devclass = "cpu-avx512", .prec = NB_DOUBLE,
	 .unroll_i = 16, .unroll_j = 1,
	 .source = "sh bench/run.sh rows device=cpu: "
	           "bench/results/2026-11-23-pocl-amd-epyc-from-cpu_rows.txt"},
	/* PoCL on AVX2 (no AVX-512): float 8 x 2, the 8 lanes of a 256-bit
	 * vector (PoCL's LLVM packs a work item's 8 i-elements into one) and 2
	 * j-elements; double and dd keep the "cpu" rows.  Why, on the 2-core
	 * AMD EPYC (Zen 3), one core, per CPU-second: 8 x 2 is 1.8 to 4.0
	 * times the "cpu" row's 4 x 1 on gravity, Biot-Savart, the Gauss
	 * transform, Lennard-Jones and the cut-off Coulomb at N = 8192 (1.7 to
	 * 3.8 at 4096), and at least 0.76 (0.73) of the best variant on each,
	 * the most of any: 16 x 1 and 16 x 2 fall to 0.25 and 0.34 on
	 * Lennard-Jones; double gravity within noise of 4 x 1 at every shape
	 * (suite rows, the source below; ...-s15-cpu-rows-percpu.txt: 4096). */
	{.target = "opencl", .devclass = "cpu-avx2", .prec = NB_FLOAT,
	 .unroll_i = 8, .unroll_j = 2,
	 .source = "sh bench/run.sh rows device=cpu one=1 percpu=1: "
	           "bench/results/2026-11-28-rows-pocl-amd-epyc-s15-cpu-rows-8192.txt"},
	/* Other OpenCL CPUs: 4 i-elements, twice as fast as 2 x 2 on the
	 * 2-core machine before the table (no suite; an AVX2 CPU has not
	 * been swept); dd not swept: a dd is four registers */
	{.target = "opencl", .devclass = "cpu", .prec = -1,
	 .unroll_i = 4, .unroll_j = 1,
	 .source = "PoCL 2-core measurement before the table (4 x 1 against 2 x 2)"},
	{.target = "opencl", .devclass = "cpu", .prec = NB_DD,
	 .unroll_i = 1, .unroll_j = 1,
	 .source = "not swept: a dd is four registers"},
	/* The host's C (gcc -O3 -march=native) on AVX-512: float 16 x 1,
	 * double 8 x 1, dd 8 x 4, one core's work.  Why, on the 2-core AMD
	 * EPYC, every example: float 16 x 1 is 1.0 to 1.6 times 8 x 2 in all
	 * but gravity (the same) and the only row at least 0.82 of PoCL's
	 * default in every one; double 8 x 1 is within 4% of 8 x 2, 8 x 4
	 * and 16 x 1 and 4.2 times 4 x 1; dd (oneloop) 8 x 4 is 2.4 times
	 * 4 x 1 (suite rows device=host kernels=examples one=1 ref=cpu, the
	 * source below; again 2026-11-26, float 0.84 to 6.0 times PoCL's
	 * default: bench/results/2026-11-26-rows-amd-epyc-every-example.txt). */
	{.target = "c", .devclass = "host-avx512", .prec = NB_FLOAT,
	 .unroll_i = 16, .unroll_j = 1,
	 .source = "sh bench/run.sh rows device=host: "
	           "bench/results/2026-11-23-host-amd-epyc-from-cpu_rows.txt"},
	/* Newton's third law (newton_min): double self runs, 1.3 to 1.8
	 * times faster from N = 16384 on 1 and 2 threads, Lennard-Jones and
	 * force-form gravity; float and N = 4096 not on 2 threads (sh
	 * bench/run.sh newton: bench/results/2026-11-26-newton-amd-epyc.txt);
	 * in cell lists (newton_cells_min) not faster on the whole run,
	 * float or double, N = 2^18 and 2^20 (...-newton-amd-epyc-2.txt) */
	{.target = "c", .devclass = "host-avx512", .prec = NB_DOUBLE,
	 .unroll_i = 8, .unroll_j = 1, .newton_min = 16384,
	 .source = "sh bench/run.sh rows device=host: "
	           "bench/results/2026-11-23-host-amd-epyc-from-cpu_rows.txt"},
	{.target = "c", .devclass = "host-avx512", .prec = NB_DD,
	 .unroll_i = 8, .unroll_j = 4,
	 .source = "sh bench/run.sh rows device=host: "
	           "bench/results/2026-11-23-host-amd-epyc-from-cpu_rows.txt"},
	/* Other hosts: a lane loop of 8 fills a 256-bit vector of floats;
	 * double and dd half that (before the table; not swept) */
	{.target = "c", .devclass = "host", .prec = NB_FLOAT,
	 .unroll_i = 8, .unroll_j = 1,
	 .source = "a 256-bit vector of floats (before the table)"},
	{.target = "c", .devclass = "host", .prec = -1,
	 .unroll_i = 4, .unroll_j = 1,
	 .source = "half float's lanes (before the table; dd not swept)"},
	/* AMD IL (the RV770): paper 000's fastest gravity ("double-unrolling",
	 * Table II) and paper 001's Fig. 4: 16 independent float operations
	 * a step fill the 5-slot VLIW bundles; a double takes several slots,
	 * so two i-elements; a dd's operations are long chains already (no
	 * such device to measure on: docs/amdil.md) */
	{.target = "amdil", .devclass = "", .prec = NB_FLOAT,
	 .unroll_i = 4, .unroll_j = 4, .source = "papers 000 and 001 (RV770)"},
	{.target = "amdil", .devclass = "", .prec = NB_DOUBLE,
	 .unroll_i = 2, .unroll_j = 1, .source = "papers 000 and 001 (RV770)"},
	{.target = "amdil", .devclass = "", .prec = NB_DD,
	 .unroll_i = 1, .unroll_j = 1, .source = "papers 000 and 001 (RV770)"},
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
	return nb_defaults_class_of(NULL, devclass);
}

int nb_defaults_class_of(const char *target, const char *devclass)
{
	for (size_t i = 0; i < NELEM(table); i++) {
		const char *c = table[i].devclass;
		if (target && strcmp(table[i].target, target))
			continue;
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
 * 1.35e12 in groups of 64, 4 rows, and 1.67 in groups of 128 on an
 * H200: suite variants,
 * bench/results/2026-11-23-nvidia-h200-from-device_run16.txt). */
int defaults_wg(const nb_defaults *r, const nb_options *o)
{
	if (!r->regs || r->wg <= 0)
		return r->wg;
	int u = o->unroll_i > 0 ? o->unroll_i : 1, w = r->wg;
	int t = o->jsplit > 0 ? o->jsplit : 1;
	/* split across warps: each split position a row of 16 i-elements,
	 * half a warp; from a split of 16, rows of 512 / (T x u) i-elements
	 * (8 at the least): groups of 512 i-slots ran 1.002 to 1.15 times
	 * the 256 across warps on an H200 (gravity, the Gauss transform and
	 * SPH density at N = 4096 and 8192, queued; docs/performance.md,
	 * "Groups over 256 on NVIDIA"), and their split sums leave the 32 KB
	 * tile within 48 KB of local memory (1024 i-slots do not) */
	int want = 16;
	if (t >= 16)
		want = 512 / (t * u) > 8 ? 512 / (t * u) : 8;
	int rows = o->split_warps && r->rows < want ? want : r->rows;
	while ((w * u < r->wg * r->unroll_i || w < rows * t) && w < 1024)
		w *= 2;
	return w;
}
