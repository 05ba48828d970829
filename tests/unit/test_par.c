/* test_par.c: what apps/common/par.c reads of its launcher's environment
 * without starting MPI: the node-local rank and the ranks on this node,
 * from Open MPI's variables or Slurm's (srun's tasks-per-node lists, as
 * "4(x2),3"), each case a set of variables and the counts they give
 * (-1: a value refused, its message on stderr). */
#include <check.h>
#include <stdlib.h>
#include "par.h"
#include "prog.h"
#include "unit.h"

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

int main(void)
{
	prog_name = "test_par";
	Suite *s;
	TCase *tc = unit_case(&s, "par", 0);
	tcase_add_loop_test(tc, env, 0, (int)(sizeof cases / sizeof cases[0]));
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
