/*
 * compiler/ptx_splice.c on PTX written here the way LLVM's NVPTX writes it:
 *   - the body goes in place of the marker line as a block of its own, its
 *     registers (every class, in declarations and operands) and labels
 *     renamed, its parameters read as the entry's, the special registers
 *     (%tid.x, %cluster_ctarank), inline-asm names and a name that only
 *     holds a parameter's name left alone, the rest of the entry unchanged;
 *   - PTX that is not as expected (no marker, two markers, no definition,
 *     a function with a stack) gives NULL and a reason, never a guess.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

static const char ENTRY[] = ".visible .entry k(\n"
                            "\t.param .u32 k_param_0\n"
                            ")\n"
                            "{\n"
                            "\t.reg .b32 \t%r<3>;\n"
                            "\tmov.u32 \t%r1, %tid.x;\n"
                            "\t// begin inline asm\n"
                            "\t" TC_SPLICE_MARK "k$producers\n"
                            "\t// end inline asm\n"
                            "$L__BB0_1:\n"
                            "\tret;\n"
                            "}\n";

static const char FN[] = "// .globl\tk$producers\n"
                         ".visible .func k$producers(\n"
                         "\t.param .b32 k$producers_param_0\n"
                         ")\n"
                         "{\n"
                         "\t.reg .pred \t%p<2>;\n"
                         "\t.reg .b32 \t%r<4>;\n"
                         "\t.reg .b64 \t%rd<2>;\n"
                         "\t.reg .f32 \t%f<2>;\n"
                         "\n"
                         "\tld.param.u32 \t%r1, [k$producers_param_0];\n"
                         "\tmov.u32 \t%r3, xk$producers_param_0;\n"
                         "\tmov.u32 \t%r2, %cluster_ctarank;\n"
                         "\tsetp.ne.s32 \t%p1, %r1, 0;\n"
                         "\t@%p1 bra \t$L__BB1_2;\n"
                         "\t{\n\t.reg .pred P1;\n\tsetp.eq.u32 P1, %r2, 0;\n\t}\n"
                         "\tmov.f32 \t%f1, 0f00000000;\n"
                         "\tcvt.u64.u32 \t%rd1, %r2;\n"
                         "$L__BB1_2:\n"
                         "\tret;\n"
                         "\n"
                         "}\n";

START_TEST(body_in_place_of_the_marker)
{
    const char *why = "unset";
    char *out = tc_ptx_splice(ENTRY, strlen(ENTRY), FN, "k$producers", "k", &why);
    ck_assert_msg(out != NULL, "%s", why);
    ck_assert_ptr_null(why);
    static const char want[] = ".visible .entry k(\n"
                               "\t.param .u32 k_param_0\n"
                               ")\n"
                               "{\n"
                               "\t.reg .b32 \t%r<3>;\n"
                               "\tmov.u32 \t%r1, %tid.x;\n"
                               "\t// begin inline asm\n"
                               "\t{ // the body of k$producers (compiler/ptx_splice.c)\n"
                               "\t.reg .pred \t%Pp<2>;\n"
                               "\t.reg .b32 \t%Pr<4>;\n"
                               "\t.reg .b64 \t%Prd<2>;\n"
                               "\t.reg .f32 \t%Pf<2>;\n"
                               "\n"
                               "\tld.param.u32 \t%Pr1, [k_param_0];\n"
                               "\tmov.u32 \t%Pr3, xk$producers_param_0;\n"
                               "\tmov.u32 \t%Pr2, %cluster_ctarank;\n"
                               "\tsetp.ne.s32 \t%Pp1, %Pr1, 0;\n"
                               "\t@%Pp1 bra \t$L__PBB1_2;\n"
                               "\t{\n\t.reg .pred P1;\n\tsetp.eq.u32 P1, %Pr2, 0;\n\t}\n"
                               "\tmov.f32 \t%Pf1, 0f00000000;\n"
                               "\tcvt.u64.u32 \t%Prd1, %Pr2;\n"
                               "$L__PBB1_2:\n"
                               "\tret;\n"
                               "\n"
                               "\t}\n"
                               "\t// end inline asm\n"
                               "$L__BB0_1:\n"
                               "\tret;\n"
                               "}\n";
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

START_TEST(refuses_what_it_does_not_expect)
{
    const char *why = NULL;
    /* no marker */
    ck_assert_ptr_null(tc_ptx_splice(FN, strlen(FN), FN, "k$producers", "k", &why));
    ck_assert_ptr_nonnull(why);
    /* the marker twice */
    size_t n = strlen(ENTRY);
    char *twice = malloc(2 * n + 1);
    memcpy(twice, ENTRY, n);
    memcpy(twice + n, ENTRY, n + 1);
    why = NULL;
    ck_assert_ptr_null(tc_ptx_splice(twice, 2 * n, FN, "k$producers", "k", &why));
    ck_assert_ptr_nonnull(why);
    free(twice);
    /* another function's definition */
    why = NULL;
    ck_assert_ptr_null(tc_ptx_splice(ENTRY, strlen(ENTRY), FN, "k$other", "k", &why));
    ck_assert_ptr_nonnull(why);
    /* a stack */
    char *stack = strdup(FN);
    char *at = strstr(stack, "\tmov.f32");
    memcpy(at, "\tmov.u64 %rd1, __local_depot1;", strlen("\tmov.u64 %rd1, __local_depot1;"));
    why = NULL;
    ck_assert_ptr_null(tc_ptx_splice(ENTRY, strlen(ENTRY), stack, "k$producers", "k", &why));
    ck_assert_ptr_nonnull(why);
    free(stack);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("splice");
    TCase *tc = tcase_create("splice");
    tcase_add_test(tc, body_in_place_of_the_marker);
    tcase_add_test(tc, refuses_what_it_does_not_expect);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
