/*
 * Persistent kernels: which kernels the compiler makes persistent
 * (TcKernelInfo.persistent, compiler/lower_programs.c) and the blocks a
 * launch runs (runtime/programs.c). No driver: gpu_test_gemm runs them
 * (by default, with TILEC_TEST_COPT=-fpersistent and TILEC_PERSIST_BLOCKS).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"
#include "gemm_source.h"
#include "runtime/programs.h"

/* At most what runs at once, at most the cap, never more than the programs. */
START_TEST(blocks_launched)
{
    static const struct {
        unsigned g[3], resident, cap, blocks;
    } cases[] = {
        {{2048, 1, 1}, 132, 0, 132},   {{16, 32, 1}, 132, 0, 132}, {{7, 3, 2}, 132, 0, 42},
        {{1, 1, 1}, 132, 0, 1},        {{2048, 1, 1}, 132, 5, 5},  {{3, 1, 1}, 132, 5, 3},
        {{2048, 1, 1}, 0, 0, 1},       {{2048, 1, 1}, 264, 300, 264},
        {{65535, 32767, 1}, 132, 0, 132}, /* 2147385345 programs: still i32 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned b = 0;
        ck_assert_int_eq(tc_persist_blocks(cases[i].g, cases[i].resident, cases[i].cap, 1, &b), 0);
        ck_assert_msg(b == cases[i].blocks, "case %zu: %u blocks, expected %u", i, b, cases[i].blocks);
    }
}
END_TEST

/* More programs than an i32 counts are refused, not wrapped. */
START_TEST(too_many_programs)
{
    unsigned b = 7;
    const unsigned g1[3] = {65536, 32768, 1}, g2[3] = {4294967295u, 4294967295u, 4294967295u};
    const unsigned g3[3] = {2147483647u, 1, 1}, g4[3] = {2147483648u, 1, 1};
    ck_assert_int_eq(tc_persist_blocks(g1, 132, 0, 1, &b), -1);
    ck_assert_int_eq(tc_persist_blocks(g2, 132, 0, 1, &b), -1);
    ck_assert_int_eq(tc_persist_blocks(g4, 132, 0, 1, &b), -1);
    /* products that wrap a 64-bit count to 0 and to 4 (found by a review) */
    const unsigned w0[3] = {4194304u, 2097152u, 2097152u}, w4[3] = {769546u, 494770u, 48448661u};
    ck_assert_int_eq(tc_persist_blocks(w0, 132, 0, 1, &b), -1);
    ck_assert_int_eq(tc_persist_blocks(w4, 132, 0, 1, &b), -1);
    ck_assert_uint_eq(b, 7); /* untouched */
    ck_assert_int_eq(tc_persist_blocks(g3, 132, 0, 1, &b), 0);
    ck_assert_uint_eq(b, 132);
}
END_TEST

/* The GEMM with f32 or bf16 inputs, compiled with opt ("" for none) for
 * arch; its kernel's persistent flag (-1: it did not compile). */
static int persistent(const char *elem, TcArch arch, const char *opt)
{
    char src[2048];
    gemm_source(src, sizeof src, elem, 0, 0);
    TcOptions o;
    tc_options_default(&o);
    o.keep_llvm_ir = 0;
    o.arch = arch;
    StrBuf log;
    sb_init(&log);
    if (*opt)
        ck_assert_int_eq(tc_option_parse(&o, opt, &log), 0);
    TcResult r;
    int rc = tc_compile("mm.tir", src, strlen(src), &o, &r, &log), p = -1;
    ck_assert_msg(rc == 0, "%s", log.data ? log.data : "");
    ck_assert_uint_eq(r.nkernels, 1);
    p = r.kernels[0].persistent;
    /* the hidden grid: where the PTX says it is */
    ck_assert_int_eq(strstr(r.ptx, "the grid of programs") != NULL, p);
    tc_result_free(&r);
    sb_free(&log);
    return p;
}

/* By default the f32 pipeline is persistent, the bf16 one and sm_80's
 * kernels are not; -fpersistent makes them all, -fno-persistent none. */
START_TEST(which_kernels)
{
    ck_assert_int_eq(persistent("f32", ARCH_SM90A, ""), 1);
    ck_assert_int_eq(persistent("f32", ARCH_SM90A, "-fno-persistent"), 0);
    ck_assert_int_eq(persistent("bf16", ARCH_SM90A, ""), 0);
    ck_assert_int_eq(persistent("bf16", ARCH_SM90A, "-fpersistent"), 1);
    ck_assert_int_eq(persistent("f32", ARCH_SM80, ""), 0);
    ck_assert_int_eq(persistent("f32", ARCH_SM80, "-fpersistent"), 1);
    ck_assert_int_eq(persistent("f32", ARCH_SM90A, "-fno-wgmma-swapped"), 0);
}
END_TEST

/* C += A.B: its epilogue loads C through shared memory, above the
 * pipeline's stages when persistent. Compiled with `precision` and `stages`
 * (0: the default) at BM x BN; its kernel info. */
static TcKernelInfo cadd(int bn, TirPrecision precision, int stages, int *ok)
{
    char src[2048];
    snprintf(src, sizeof src,
             "kernel @mm(%%A: ptr<f32>, %%B: ptr<f32>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32, %%lda: i32,\n"
             "           %%ldb: i32, %%ldc: i32) warps(8) {\n"
             "  %%pm = program_id 0\n  %%pn = program_id 1\n  %%m0 = mul %%pm, 128\n  %%n0 = mul %%pn, %d\n"
             "  %%va = view %%A [%%M, %%K] strides [%%lda, 1]\n  %%vb = view %%B [%%K, %%N] strides [%%ldb, 1]\n"
             "  %%vc = view %%C [%%M, %%N] strides [%%ldc, 1]\n  %%z = zeros : tile<128x%dxf32>\n"
             "  %%acc = for %%k = 0 to %%K step 32 iter(%%c = %%z) {\n"
             "    %%a = load %%va[%%m0, %%k] : tile<128x32xf32>\n    %%b = load %%vb[%%k, %%n0] : tile<32x%dxf32>\n"
             "    %%d = dot %%a, %%b, %%c : tile<128x%dxf32>\n    yield %%d\n  }\n"
             "  %%old = load %%vc[%%m0, %%n0] : tile<128x%dxf32>\n  %%sum = add %%acc, %%old\n"
             "  store %%sum, %%vc[%%m0, %%n0]\n}\n",
             bn, bn, bn, bn, bn);
    TcOptions o;
    tc_options_default(&o);
    o.keep_llvm_ir = 0;
    o.precision = precision;
    o.stages = stages;
    StrBuf log;
    sb_init(&log);
    TcResult r;
    *ok = tc_compile("cadd.tir", src, strlen(src), &o, &r, &log) == 0;
    ck_assert_msg(*ok, "%s", log.data ? log.data : "");
    TcKernelInfo k = r.kernels[0];
    tc_result_free(&r);
    sb_free(&log);
    return k; /* its pointers are freed: the numbers only */
}

/* The epilogue's shared memory lies above the stages once (tf32-rna's two
 * entry points, for views that come rounded or not, take the same launch
 * and the same need as tf32-rne's one); where
 * stages and epilogue exceed the limit together, the kernel compiles one
 * program per block instead of failing. */
START_TEST(epilogue_memory)
{
    int ok;
    TcKernelInfo rna = cadd(128, PREC_TF32_RNA, 3, &ok), rne = cadd(128, PREC_TF32_RNE, 3, &ok);
    ck_assert_uint_eq(rna.persistent, 1);
    ck_assert_uint_eq(rne.persistent, 1);
    ck_assert_uint_eq(rna.shared_bytes, rne.shared_bytes);
    ck_assert_uint_eq(rna.rounded, 1); /* compiler/entries.c: a second entry, the same launch */
    ck_assert_uint_eq(rne.rounded, 0);
    TcKernelInfo big = cadd(256, PREC_TF32_RNA, 0, &ok);
    ck_assert_uint_eq(big.persistent, 0);
    ck_assert_uint_le(big.shared_bytes, 227 * 1024);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("programs");
    TCase *l = tcase_create("launch");
    tcase_add_test(l, blocks_launched);
    tcase_add_test(l, too_many_programs);
    suite_add_tcase(s, l);
    TCase *c = tcase_create("compiler");
    tcase_add_test(c, which_kernels);
    tcase_add_test(c, epilogue_memory);
    tcase_set_timeout(c, 120); /* compiles GEMM kernels: slow under sanitizers */
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
