/* timing.h: what the timing drivers of bench/ share (cpu_anchor.c, queues.c,
 * peers/pikg_main.c): a clock's reading in seconds, and the comparison
 * qsort takes for the median of the runs. */
#include <stdlib.h>
#include <time.h>

static double clk(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}
