/* test_par.c: what apps/common/par.c reads of its launcher's environment
 * without starting MPI: the node-local rank and the ranks on this node,
 * from Open MPI's variables or Slurm's (srun's tasks-per-node lists, as
 * "4(x2),3"), each case a set of variables and the counts they give
 * (-1: a value refused, its message on stderr).  Built a second time as
 * test_par_nompi, with par.c's one-rank half (make MPI=0), which an MPI
 * build compiles nowhere else: there par_init refuses mpirun's ranks. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "par.h"
#include "prog.h"
#include "unit.h"
#include "capture.h"

static const char *const vars[] = {
	"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
	"SLURM_LOCALID", "SLURM_NODEID", "SLURM_STEP_TASKS_PER_NODE",
	"SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE",
};
#define NV (sizeof vars / sizeof vars[0])

static const struct {
	const char *val[NV]; /* in the order of vars; NULL: unset */
	int rank, size;
} cases[] = {
	{{NULL}, 0, 1},
	{{"3", "4"}, 3, 4},
	/* Open MPI's own win over Slurm's (mpirun inside an allocation) */
	{{"1", "2", "5", "0", "8", NULL, "8"}, 1, 2},
	{{NULL, NULL, "2", "0", "4"}, 2, 4},
	/* the step's list, not the allocation's */
	{{NULL, NULL, "1", "1", "2(x3),1", "8(x4)"}, 1, 2},
	{{NULL, NULL, "0", "3", "2(x3),1", "8(x4)"}, 0, 1},
	{{NULL, NULL, "0", "2", "3,1(x2)"}, 0, 1},
	{{NULL, NULL, "0", "4", "3,1(x2)", "6(x8)"}, 0, 6},
	/* malformed or short lists fall through to the next */
	{{NULL, NULL, "0", "0", "x", "5"}, 0, 5},
	{{NULL, NULL, "0", "0", "2(x", NULL, "3"}, 0, 3},
	{{NULL, NULL, "0", "9", "2(x3)", NULL, "4"}, 0, 4},
	{{NULL, NULL, "0", NULL, "2(x3)", NULL, "7"}, 0, 7},
	{{NULL, NULL, "0", "0", "0", NULL, "0"}, 0, 1},
	/* empty is unset, as for the runtime's NBRT_* switches */
	{{"", "", "2", NULL, NULL, NULL, "3"}, 2, 3},
	/* a number that is not whole, in range and from 0 is refused (-1):
	 * atoi read "1x" as 1, "-1" as a rank, 2^32 + 1 as 1 */
	{{"1x", "4"}, -1, 4},
	{{"-1", "4"}, -1, 4},
	{{"4294967297", "4"}, -1, 4},
	{{" 1", "4"}, -1, 4},
	{{NULL, NULL, "abc", NULL, NULL, NULL, "2"}, -1, 2},
	{{"1", "x"}, 1, -1},
	{{"1", "-2"}, 1, -1},
	{{"1", "99999999999"}, 1, -1},
	{{NULL, NULL, "0", "-1", "2(x3)", NULL, "4"}, 0, -1},
	{{NULL, NULL, "0", "1e3", "2(x3)", NULL, "4"}, 0, -1},
	{{NULL, NULL, "0", NULL, NULL, NULL, "4x"}, 0, -1},
};

START_TEST(env)
{
	for (size_t v = 0; v < NV; v++)
		if (cases[_i].val[v])
			setenv(vars[v], cases[_i].val[v], 1);
		else
			unsetenv(vars[v]);
	ck_assert_int_eq(par_local_rank(), cases[_i].rank);
	ck_assert_int_eq(par_local_size(), cases[_i].size);
}
END_TEST

#ifndef NB_MPI
/* One rank: started as 3 of mpirun's, each would run the whole job and
 * write the same files. */
START_TEST(one_rank)
{
	unsetenv("OMPI_COMM_WORLD_SIZE");
	ck_assert_int_eq(par_init(0, NULL), 0);
	setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
	ck_assert_int_eq(par_init(0, NULL), 0);
	setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
	Capture c;
	char err[512];
	ck_assert_int_eq(capture_start(&c), 0);
	int rc = par_init(0, NULL);
	capture_end(&c, err, sizeof err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "built without MPI, so mpirun's 3 ranks"),
	              "par_init's message: %s", err);
	unsetenv("OMPI_COMM_WORLD_SIZE");
}
END_TEST
#endif

int main(void)
{
	prog_name = "test_par";
	Suite *s;
	TCase *tc = unit_case(&s, "par", 0);
	tcase_add_loop_test(tc, env, 0, (int)(sizeof cases / sizeof cases[0]));
#ifndef NB_MPI
	tcase_add_test(tc, one_rank);
#endif
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
