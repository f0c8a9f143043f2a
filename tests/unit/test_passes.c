/*
 * The passes keep the meaning of a kernel: the CPU reference executor gives
 * bit-identical results on the tile IR before and after them.
 *   - pass_prefetch on a K loop with partial tiles (and a load it must
 *     leave alone);
 *   - pass_precision: the un-rewritten IR (the executor implements every
 *     mode itself) against the rewritten one, for every mode.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "exec_util.h"

static const char *gemm_src =
    "kernel @g(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32) warps(4) {\n"
    "  %pm = program_id 0\n"
    "  %pn = program_id 1\n"
    "  %m0 = mul %pm, 32\n"
    "  %n0 = mul %pn, 32\n"
    "  %va = view %A [%M, %K] strides [%K, 1]\n"
    "  %vb = view %B [%K, %N] strides [%N, 1]\n"
    "  %vc = view %C [%M, %N] strides [%N, 1]\n"
    "  %z = zeros : tile<32x32xf32>\n"
    "  %acc = for %k = 0 to %K step 16 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<32x16xf32>\n"
    "    %k2 = add %k, 0\n"
    "    %b = load %vb[%k2, %n0] : tile<16x32xf32>\n"
    "    %d = dot %a, %b, %c : tile<32x32xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  store %acc, %vc[%m0, %n0]\n"
    "}\n";

enum { M = 45, N = 37, K = 53 };

static void fill(float *p, size_t n, unsigned seed)
{
    srand(seed);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    p[3] = INFINITY; /* Inf and NaN take the same path through every form */
    p[n / 2] = NAN;
}

/* Runs gemm_src through the passes selected and the executor. */
static void run(float *C, TirPrecision mode, int precision_pass, int prefetch)
{
    static float A[M * K], B[K * N];
    fill(A, M * K, 1);
    fill(B, K * N, 2);
    for (int i = 0; i < M * N; i++)
        C[i] = -7.0f;
    TirModule *m = parse_ok(gemm_src);
    Diag d;
    diag_init(&d, "g.tir", gemm_src, strlen(gemm_src));
    if (precision_pass)
        ck_assert_int_eq(pass_precision(m, mode, &d), 0);
    if (prefetch)
        ck_assert_int_eq(pass_prefetch(m, &d), 0);
    ck_assert_int_eq(tir_verify(m, &d), 0);
    diag_free(&d);
    int32_t mm = M, nn = N, kk = K;
    void *a = A, *b = B, *c = C;
    void *args[] = {&a, &b, &c, &mm, &nn, &kk};
    unsigned grid[3] = {(M + 31) / 32, (N + 31) / 32, 1};
    exec_ok(m, grid, args, mode);
    tir_module_free(m);
}

static void assert_same(const float *x, const float *y, size_t n)
{
    ck_assert_int_eq(memcmp(x, y, n * sizeof *x), 0);
}

START_TEST(prefetch_keeps_results)
{
    static float ref[M * N], got[M * N];
    run(ref, PREC_TF32_RNA, 1, 0);
    run(got, PREC_TF32_RNA, 1, 1);
    assert_same(ref, got, M * N);
    for (int i = 0; i < M * N; i++) /* every element was written */
        ck_assert(ref[i] != -7.0f);
    ck_assert(isinf(ref[3]) || isnan(ref[3]) || isinf(ref[0]) || isnan(ref[0])); /* row 0 met the Inf */
}
END_TEST

START_TEST(precision_pass_keeps_results)
{
    static const TirPrecision modes[] = {PREC_IEEE, PREC_TF32_TRUNC, PREC_TF32_RNA, PREC_TF32_RNE, PREC_3XTF32};
    static float ref[M * N], got[M * N];
    TirPrecision p = modes[_i];
    run(ref, p, 0, 0); /* the executor applies the mode itself */
    run(got, p, 1, 0); /* the pass made it explicit */
    assert_same(ref, got, M * N);
}
END_TEST

START_TEST(prefetch_leaves_dependent_loads)
{
    TirModule *m = parse_ok(gemm_src);
    Diag d;
    diag_init(&d, "g.tir", gemm_src, strlen(gemm_src));
    ck_assert_int_eq(pass_prefetch(m, &d), 0);
    StrBuf out;
    sb_init(&out);
    tir_print(m, &out);
    /* %a moved ahead (carried), %b (indexed by a value computed in the loop) stayed */
    ck_assert_ptr_nonnull(strstr(out.data, "iter(%c = %z, %a = "));
    ck_assert_ptr_nonnull(strstr(out.data, "%b = load %vb[%k2, %n0]"));
    sb_free(&out);
    diag_free(&d);
    tir_module_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("passes");
    TCase *tc = tcase_create("passes");
    tcase_add_test(tc, prefetch_keeps_results);
    tcase_add_loop_test(tc, precision_pass_keeps_results, 0, 5);
    tcase_add_test(tc, prefetch_leaves_dependent_loads);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
