/*
 * The GEMM kernel the unit tests compile: C = A @ B, row-major, one
 * 128x128 tile of C per program of 8 warps (the wgmma pipelines' shape), K
 * in steps of 32 (f32) or 64 (f16, bf16). With strides, the views' row
 * strides are parameters of their own (%lda, %ldb, %ldc: what the runtime
 * stages and pre-rounds); else they are K and N. With c0, a last parameter
 * %c0 is added to C's first column (%n0 + %c0: not proven a multiple of 4,
 * so a -fwgmma-tma-store kernel keeps its own stores and C's map is optional).
 */
#ifndef TILEC_TEST_GEMM_SOURCE_H
#define TILEC_TEST_GEMM_SOURCE_H

#include <stdio.h>
#include <string.h>

static inline void gemm_source(char *buf, size_t size, const char *elem, int strides, int c0)
{
    int bk = strcmp(elem, "f32") ? 64 : 32;
    snprintf(buf, size,
             "kernel @mm(%%A: ptr<%s>, %%B: ptr<%s>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32%s%s) warps(8) {\n"
             "  %%pm = program_id 0\n"
             "  %%pn = program_id 1\n"
             "  %%m0 = mul %%pm, 128\n"
             "  %%n0 = mul %%pn, 128\n"
             "  %%va = view %%A [%%M, %%K] strides [%s, 1]\n"
             "  %%vb = view %%B [%%K, %%N] strides [%s, 1]\n"
             "  %%vc = view %%C [%%M, %%N] strides [%s, 1]\n"
             "  %%z = zeros : tile<128x128xf32>\n"
             "  %%acc = for %%k = 0 to %%K step %d iter(%%c = %%z) {\n"
             "    %%a = load %%va[%%m0, %%k] : tile<128x%dx%s>\n"
             "    %%b = load %%vb[%%k, %%n0] : tile<%dx128x%s>\n"
             "    %%d = dot %%a, %%b, %%c : tile<128x128xf32>\n"
             "    yield %%d\n"
             "  }\n"
             "%s"
             "  store %%acc, %%vc[%%m0, %%%s]\n"
             "}\n",
             elem, elem, strides ? ", %lda: i32, %ldb: i32, %ldc: i32" : "", c0 ? ", %c0: i32" : "",
             strides ? "%lda" : "%K", strides ? "%ldb" : "%N", strides ? "%ldc" : "%N", bk, bk, elem, bk, elem,
             c0 ? "  %nc = add %n0, %c0\n" : "", c0 ? "nc" : "n0");
}

#endif
