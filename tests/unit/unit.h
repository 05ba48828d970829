/* unit.h: the Check scaffolding of a unit's main(), stated once: a suite
 * of one case holding the unit's tests (unit_case), run and its failures
 * counted (unit_run); and assert_each, the assertion of a loop. */
#include <check.h>

/* ck_assert_msg for a check made of every element of an array: each
 * passing Check assertion writes its place to Check's message file (a
 * system call), and a million of them cost seconds of a test (test_iface
 * made 8 million, test_tree 1.6); this one calls ck_assert_msg only where
 * EXPR is false, so it fails as ck_assert_msg does, with its message.
 * EXPR is evaluated again there: no side effects. */
#define assert_each(expr, ...)                                                 \
	do {                                                                   \
		if (!(expr))                                                   \
			ck_assert_msg(expr, __VA_ARGS__);                      \
	} while (0)

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
