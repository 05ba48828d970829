/* unit.h: the Check scaffolding of a unit's main(), stated once: a suite
 * of one case holding the unit's tests (unit_case), run and its failures
 * counted (unit_run). */
#include <check.h>

/* A suite, NAME, of one case, NAME, each test of it given TIMEOUT seconds
 * (0: Check's default); the tests are added to the case returned. */
static inline TCase *unit_case(Suite **s, const char *name, double timeout)
{
	*s = suite_create(name);
	TCase *tc = tcase_create(name);
	if (timeout > 0)
		tcase_set_timeout(tc, timeout);
	suite_add_tcase(*s, tc);
	return tc;
}

/* Runs the suite (forked as CK_FORK says unless FORK is CK_NOFORK: the
 * unit keeps an opened runtime or device across its tests) and returns
 * how many of its tests failed. */
static inline int unit_run(Suite *s, enum fork_status fork)
{
	SRunner *sr = srunner_create(s);
	if (fork != CK_FORK_GETENV)
		srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}
