/* seed.h: the seed of a unit test's random inputs: NBCC_TEST_SEED (which
 * tests/run.sh sets for every test), else one from the clock; printed
 * first, so that a failure can be repeated.  test_seed gives it to units
 * with a generator of their own, seed_rng makes it erand48's state, and
 * rand64 draws 64 bits from that state. */
#include <stdint.h>
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

/* nrand48 gives 31 bits a call: four calls' low 16 */
static inline uint64_t rand64(unsigned short rng[3])
{
	uint64_t v = 0;
	for (int q = 0; q < 4; q++)
		v = v << 16 | (uint64_t)(nrand48(rng) & 0xffff);
	return v;
}
