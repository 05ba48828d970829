/* seed.h: the seed of a unit test's random inputs: NBCC_TEST_SEED (which
 * tests/run.sh sets for every test), else one from the clock; printed
 * first, so that a failure can be repeated.  test_seed gives it to units
 * with a generator of their own, seed_rng makes it erand48's state. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline unsigned long long test_seed(const char *test)
{
	const char *e = getenv("NBCC_TEST_SEED");
	unsigned long long s =
	    e && *e ? strtoull(e, NULL, 10)
	            : (unsigned long long)time(NULL) * 2654435761ULL ^
	                  (unsigned long long)clock();
	printf("%s: seed %llu (NBCC_TEST_SEED=%llu repeats it)\n", test, s, s);
	fflush(stdout);
	return s;
}

static inline void seed_rng(const char *test, unsigned short rng[3])
{
	unsigned long long s = test_seed(test);
	rng[0] = (unsigned short)s;
	rng[1] = (unsigned short)(s >> 16);
	rng[2] = (unsigned short)(s >> 32);
}
