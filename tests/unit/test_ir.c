/* test_ir.c: the IR verifier rejects each kind of broken IR it promises to
 * catch, and accepts what every pass produces from the examples' shapes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

static Ctx ctx;
static nb_options opt;

static void setup(void)
{
	nb_options_init(&opt);
	ctx_init(&ctx, "t.nbl", "", 0, &opt, NULL);
}

static void teardown(void) { ctx_free(&ctx); }

/* r += x[i] * y[j]: a correct function to break in different ways */
static Func *sample(void)
{
	Func *f = func_new(&ctx, "t");
	f->var = cnew(&ctx, sizeof(Var) * 3);
	f->var[0] = (Var){.name = "x", .role = NB_LMEM, .type = T_F32};
	f->var[1] = (Var){.name = "y", .role = NB_BMEM, .type = T_F32};
	f->var[2] = (Var){.name = "r", .role = NB_RMEM, .type = T_F32};
	f->nvar = 3;
	Ins a = ins_make(O_LDI, T_F32, B_BODY, -1, -1, -1);
	a.var = 0;
	Ins b = ins_make(O_LDJ, T_F32, B_BODY, -1, -1, -1);
	b.var = 1;
	ins_add(f, a);
	ins_add(f, b);
	ins_add(f, ins_make(O_MUL, T_F32, B_BODY, 0, 1, -1));
	Ins s = ins_make(O_ACC, T_F32, B_BODY, 2, -1, -1);
	s.var = 2;
	ins_add(f, s);
	return f;
}

START_TEST(accepts_good)
{
	ck_assert_int_eq(ir_verify(sample(), 0), 0);
}
END_TEST

START_TEST(rejects_forward_operand)
{
	Func *f = sample();
	f->ins[2].arg[1] = 3;
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rejects_type_mismatch)
{
	Func *f = sample();
	f->ins[2].type = T_F64;
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rejects_wrong_role)
{
	Func *f = sample();
	f->ins[0].var = 1; /* ldi of a BMEM */
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rejects_j_load_before_loop)
{
	Func *f = sample();
	f->ins[1].blk = B_PRE;
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rejects_cross_block_use)
{
	Func *f = sample();
	f->ins[2].blk = B_TAIL; /* uses BODY values from TAIL */
	f->ins[3].blk = B_TAIL;
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rejects_lane_out_of_range)
{
	Func *f = sample();
	f->ins[3].lane = 1; /* ni is 1 */
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rejects_sink_as_operand)
{
	Func *f = sample();
	Ins s = ins_make(O_ACC, T_F32, B_BODY, 3, -1, -1);
	s.var = 2;
	ins_add(f, s);
	ck_assert_int_eq(ir_verify(f, 0), -1);
}
END_TEST

START_TEST(rewrite_renumbers)
{
	Func *f = sample();
	/* drop the multiply, accumulate x directly */
	int keep[] = {1, 1, 0, 1};
	int repl[] = {0, 1, 0, 3};
	func_rewrite(f, keep, repl, NULL);
	ck_assert_int_eq(f->n, 3);
	ck_assert_int_eq(f->ins[2].op, O_ACC);
	ck_assert_int_eq(f->ins[2].arg[0], 0);
	ck_assert_int_eq(ir_verify(f, 0), 0);
}
END_TEST

START_TEST(passes_keep_it_valid)
{
	/* every pass on the sample, then unrolled every way */
	for (int ni = 1; ni <= 3; ni++)
		for (int nj = 1; nj <= 3; nj++) {
			Func *f = sample();
			pass_fold(f);
			pass_cse(f);
			pass_fma(f);
			pass_unroll_i(f, ni);
			pass_cse(f);
			pass_hoist(f);
			pass_unroll_j(f, nj);
			pass_sched(f);
			ck_assert_int_eq(ir_verify(f, 0), 0);
			ck_assert_int_eq(f->ni, ni);
			ck_assert_int_eq(f->nj, nj);
			int sinks = 0;
			for (int k = 0; k < f->n; k++)
				sinks += (opinfo[f->ins[k].op].props & P_SINK) &&
				         f->ins[k].blk == B_BODY;
			ck_assert_int_eq(sinks, ni * nj);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ir");
	TCase *tc = tcase_create("verify");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, accepts_good);
	tcase_add_test(tc, rejects_forward_operand);
	tcase_add_test(tc, rejects_type_mismatch);
	tcase_add_test(tc, rejects_wrong_role);
	tcase_add_test(tc, rejects_j_load_before_loop);
	tcase_add_test(tc, rejects_cross_block_use);
	tcase_add_test(tc, rejects_lane_out_of_range);
	tcase_add_test(tc, rejects_sink_as_operand);
	tcase_add_test(tc, rewrite_renumbers);
	tcase_add_test(tc, passes_keep_it_valid);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
