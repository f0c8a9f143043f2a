/*
 * The GEMM kernel the unit tests compile: C = A @ B, row-major, one
 * 128x128 tile of C per program of 8 warps (the wgmma pipelines' shape), K
 * in steps of 32 (f32) or 64 (f16, bf16). With strides, the views' row
 * strides are parameters of their own (%lda, %ldb, %ldc: what the runtime
 * stages and pre-rounds); else they are K and N.
 */
#ifndef TILEC_TEST_GEMM_SOURCE_H
#define TILEC_TEST_GEMM_SOURCE_H

#include <stdio.h>
#include <string.h>

static inline void gemm_source(char *buf, size_t size, const char *elem, int strides)
{
    int bk = strcmp(elem, "f32") ? 64 : 32;
    snprintf(buf, size,
             "kernel @mm(%%A: ptr<%s>, %%B: ptr<%s>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32%s) warps(8) {\n"
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
             "  store %%acc, %%vc[%%m0, %%n0]\n"
             "}\n",
             elem, elem, strides ? ", %lda: i32, %ldb: i32, %ldc: i32" : "", strides ? "%lda" : "%K",
             strides ? "%ldb" : "%N", strides ? "%ldc" : "%N", bk, bk, elem, bk, elem);
}

#endif
