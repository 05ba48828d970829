/* sortbench.c: the host's radix sort (order.c's nbrt_order_sort) against
 * the device's (nbrt_sort_kv forced onto the device: cl/sort.c) on the
 * same pairs, for bench/suites/sort.sh: Morton keys of uniform points
 * (63 bits) or random keys of BITS bits, values their indices, as the
 * treecode and the cell lists sort them.
 * usage: sortbench [--] N BITS DEVICE [REPS SEED]; prints one CSV row
 * after a header: the medians of REPS timed runs (after one untimed) of
 * the host sort, the device's whole call and its parts (staging and
 * upload, the sort on the device, download and unstaging), the host's
 * sample sort (nbrt_order_sort_sample on every thread, keys made: the
 * treecode's at small N), and whether the three results were the same
 * array bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "cl/cl_impl.h"
#include "order.h"

static const char usage[] = "usage: sortbench [--] N BITS DEVICE [REPS SEED]"
                            "\n";

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Argument s as a whole number in [lo, hi], else a message naming it. */
static int count(const char *s, const char *what, unsigned long long lo,
                 unsigned long long hi, unsigned long long *v)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (end == s || *end || s[0] == '-' || x < lo || x > hi) {
		fprintf(stderr, "sortbench: %s '%s': it must be a whole number "
		        "from %llu to %llu\n%s", what, s, lo, hi, usage);
		return -1;
	}
	*v = x;
	return 0;
}

int main(int argc, char **argv)
{
	int a = 1;
	if (a < argc && !strcmp(argv[a], "--"))
		a++;
	if (argc - a < 3 || argc - a > 5) {
		fputs(usage, stderr);
		return 2;
	}
	unsigned long long n, bits, reps = 5, seed = 1;
	if (count(argv[a], "N", 2, UINT32_MAX, &n) ||
	    count(argv[a + 1], "BITS", 1, 63, &bits) ||
	    (argc - a > 3 && count(argv[a + 3], "REPS", 1, 1000, &reps)) ||
	    (argc - a > 4 && count(argv[a + 4], "SEED", 0, 65535, &seed)))
		return 2;
	const char *spec = argv[a + 2];
	char *err = NULL;
	nbrt *rt = nbrt_open(spec, &err);
	if (!rt) {
		fprintf(stderr, "sortbench: %s\n", err);
		free(err);
		return 1;
	}
	int rc = 1;
	nbrt_kv *in = malloc(n * sizeof *in), *ref = malloc(2 * n * sizeof *ref);
	nbrt_kv *kv = malloc(2 * n * sizeof *kv);
	double *pos = malloc(3 * n * sizeof *pos);
	double *t = malloc(6 * reps * sizeof *t);
	nbrt_kv *ms = malloc(2 * n * sizeof *ms);
	if (!in || !ref || !kv || !pos || !t || !ms) {
		fprintf(stderr, "sortbench: out of memory for %llu pairs\n", n);
		goto out;
	}
	unsigned short rng[3] = {(unsigned short)seed, 0x5eed, 0x50f7};
	if (bits == 63) {
		for (size_t e = 0; e < 3 * n; e++)
			pos[e] = erand48(rng);
		const double *const p[3] = {pos, pos + n, pos + 2 * n};
		static const double lo[3] = {0, 0, 0};
		nbrt_order_keys(in, p, n, 3, lo, 1.0);
	} else
		for (size_t e = 0; e < n; e++) {
			uint64_t r = (uint64_t)(nrand48(rng) & 0xffff) << 48 |
			             (uint64_t)(nrand48(rng) & 0xffff) << 32 |
			             (uint64_t)(nrand48(rng) & 0xffff) << 16 |
			             (uint64_t)(nrand48(rng) & 0xffff);
			in[e] = (nbrt_kv){r & (((uint64_t)1 << bits) - 1), e};
		}
	if (!rt->be->sort) {
		fprintf(stderr, "sortbench: %s has no device sort (an OpenCL "
		        "device has)\n", rt->name);
		goto out;
	}
	if (setenv("NBRT_DEVICE_SORT", "1", 1))
		goto out;
	nbrt_kv *want = NULL, *got = NULL, *msd = NULL;
	int nt = 1;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	for (unsigned long long r = 0; r <= reps; r++) {
		/* the first of each untimed: kernels built, memory mapped */
		memcpy(ref, in, n * sizeof *in);
		double t0 = nbrt_now();
		want = nbrt_order_sort(ref, ref + n, n);
		double t1 = nbrt_now();
		memcpy(kv, in, n * sizeof *in);
		double t2 = nbrt_now();
		got = nbrt_sort_kv(rt, kv, kv + n, n, 0);
		double t3 = nbrt_now();
		if (!got) {
			fprintf(stderr, "sortbench: %s\n", nbrt_error(rt));
			goto out;
		}
		memcpy(ms, in, n * sizeof *in);
		double t4 = nbrt_now();
		msd = nbrt_order_sort_sample(ms, ms + n, n, NULL, 3, NULL, 1, nt,
		                             NULL, NULL) ? NULL : ms;
		double t5 = nbrt_now();
		if (!msd) {
			fprintf(stderr, "sortbench: out of memory for the sample "
			        "sort\n");
			goto out;
		}
		if (r) {
			double part[3];
			t[5 * reps + r - 1] = t5 - t4;
			nbrt_cl_sort_times(rt, part);
			t[r - 1] = t1 - t0;
			t[reps + r - 1] = t3 - t2;
			for (int q = 0; q < 3; q++)
				t[(2 + q) * reps + r - 1] = part[q];
		}
	}
	int same = !memcmp(want, got, n * sizeof *want) &&
	           !memcmp(want, msd, n * sizeof *want);
	double m[6];
	for (int q = 0; q < 6; q++)
		m[q] = median(t + q * reps, (int)reps);
	printf("n,bits,device,host_s,device_s,upload_s,sort_s,download_s,"
	       "speedup,sort_mpairs_s,host_sample_s,same\n");
	printf("%llu,%llu,\"%s\",%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.6g,%d\n",
	       n, bits, rt->name, m[0], m[1], m[2], m[3], m[4], m[0] / m[1],
	       (double)n / m[3] * 1e-6, m[5], same);
	rc = same ? 0 : 1;
	if (!same)
		fprintf(stderr, "sortbench: the device's order is not the host's\n");
out:
	free(in);
	free(ref);
	free(kv);
	free(pos);
	free(t);
	free(ms);
	nbrt_close(rt);
	return rc;
}
