/* seed.h: the seed of a unit test's random inputs, for the units that
 * draw them with erand48: TEST_SEED, else the clock, printed so that a
 * failure can be repeated. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned short rng[3];

static void seed_rng(const char *test)
{
	const char *e = getenv("TEST_SEED");
	unsigned long long s = e ? strtoull(e, NULL, 10)
	                         : (unsigned long long)time(NULL);
	printf("%s: seed %llu (TEST_SEED=%llu repeats it)\n", test, s, s);
	fflush(stdout);
	rng[0] = (unsigned short)s;
	rng[1] = (unsigned short)(s >> 16);
	rng[2] = (unsigned short)(s >> 32);
}
