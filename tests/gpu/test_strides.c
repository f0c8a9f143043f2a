/*
 * Views whose strides are negative or zero: docs/TIR.md puts element
 * (i, j) at p + i·s0 + j·s1 for any integer strides, so a view may walk a
 * matrix backwards (rows reversed: s0 = -ld, p at the last row; columns
 * reversed: s1 = -1) or read one row for all (s0 = 0, a broadcast). No
 * tensor map describes such a view and the runtime must not stage one, so
 * each GEMM kernel below takes its own copies for it, on sm_90a (the
 * pipelines) and sm_80, in each f32 precision, and once more with
 * TILEC_STAGE=1 and TILEC_PREROUND=1 (the runtime's copies asked for
 * everywhere: they must leave these views alone or copy them right). C
 * must match an fp64 product of the views' elements, within the
 * precision's bound, and every element of C's buffer outside the view must
 * stay poisoned.
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernel_fmt =
    "kernel @gemm(%%A: ptr<f32>, %%B: ptr<f32>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32,\n"
    "             %%sa0: i32, %%sb0: i32, %%sc0: i32) warps(%d) {\n"
    "  %%pm = program_id 0\n"
    "  %%pn = program_id 1\n"
    "  %%m0 = mul %%pm, %d\n"
    "  %%n0 = mul %%pn, %d\n"
    "  %%va = view %%A [%%M, %%K] strides [%%sa0, %d]\n"
    "  %%vb = view %%B [%%K, %%N] strides [%%sb0, 1]\n"
    "  %%vc = view %%C [%%M, %%N] strides [%%sc0, 1]\n"
    "  %%z = zeros : tile<%dx%dxf32>\n"
    "  %%acc = for %%k = 0 to %%K step 32 iter(%%c = %%z) {\n"
    "    %%a = load %%va[%%m0, %%k] : tile<%dx32xf32>\n"
    "    %%b = load %%vb[%%k, %%n0] : tile<32x%dxf32>\n"
    "    %%d = dot %%a, %%b, %%c : tile<%dx%dxf32>\n"
    "    yield %%d\n"
    "  }\n"
    "  store %%acc, %%vc[%%m0, %%n0]\n"
    "}\n";

typedef struct {
    const char *name;
    int a_rows_reversed, a_cols_reversed, b_rows_reversed, b_broadcast, c_rows_reversed;
} Layouts;

static const Layouts layouts[] = {
    {"A and C rows reversed", 1, 0, 0, 0, 1},
    {"B rows reversed", 0, 0, 1, 0, 0},
    {"A columns reversed", 0, 1, 0, 0, 0},
    {"B one row for all k (stride 0)", 0, 0, 0, 1, 0},
};

typedef struct {
    int bm, bn, warps;
} Tile;

static const Tile tiles[] = {{128, 128, 8}, {64, 128, 4}};

static const char *const precisions[] = {"tf32-rna", "tf32-rne", "3xtf32", "ieee"};

static int failures, cases;

static void run(tilecRuntime rt, const Tile *t, const char *arch, const char *precision, const Layouts *l,
                const char *env)
{
    enum { M = 200, N = 136, K = 72, G = 64 /* poisoned elements before and after C's view */ };
    char src[2048], prec[48], what[200];
    /* A's column stride a constant, as in any GEMM kernel: the pipelines want to know it is 1 */
    int32_t sa1 = l->a_cols_reversed ? -1 : 1;
    snprintf(src, sizeof src, kernel_fmt, t->warps, t->bm, t->bn, sa1, t->bm, t->bn, t->bm, t->bn, t->bm, t->bn);
    snprintf(prec, sizeof prec, "--precision=%s", precision);
    snprintf(what, sizeof what, "%dx%d w%d %s %s, %s%s%s", t->bm, t->bn, t->warps, arch + 7, precision, l->name,
             env ? ", " : "", env ? env : "");
    const char *opts[2] = {arch, prec};
    tilecModule mod = gpu_load_copts(rt, src, "strides.tir", 2, opts, NULL);

    /* the buffers hold exactly the views' elements (B one row where its stride is 0) */
    size_t nb = l->b_broadcast ? N : (size_t)K * N;
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * nb), *C = malloc(sizeof(float) * (M * N + 2 * G));
    if (!A || !B || !C) {
        fprintf(stderr, "FAIL: out of host memory\n");
        exit(1);
    }
    gpu_fill_f32(A, (size_t)M * K, 51, -1.0f, 1.0f);
    gpu_fill_f32(B, nb, 52, -1.0f, 1.0f);
    tilecDevicePtr dA = gpu_upload(rt, A, sizeof(float) * M * K), dB = gpu_upload(rt, B, sizeof(float) * nb);
    tilecDevicePtr dC = gpu_alloc(rt, sizeof(float) * (M * N + 2 * G));
    gpu_poison(rt, dC, sizeof(float) * (M * N + 2 * G));
    /* element (i, j) of each view at its buffer's offset i·s0 + j·s1 from the view's base */
    int32_t sa0 = l->a_rows_reversed ? -K : K;
    int32_t sb0 = l->b_broadcast ? 0 : l->b_rows_reversed ? -N : N, sc0 = l->c_rows_reversed ? -N : N;
    size_t a_off = (size_t)(sa0 < 0 ? M - 1 : 0) * K + (sa1 < 0 ? K - 1 : 0);
    size_t b_off = sb0 < 0 ? (size_t)(K - 1) * N : 0, c_off = G + (sc0 < 0 ? (size_t)(M - 1) * N : 0);
    tilecDevicePtr pa = dA + a_off * 4, pb = dB + b_off * 4, pc = dC + c_off * 4;
    int32_t m = M, n = N, k = K;
    void *args[] = {&pa, &pb, &pc, &m, &n, &k, &sa0, &sb0, &sc0};
    unsigned grid[3] = {(M + t->bm - 1) / t->bm, (N + t->bn - 1) / t->bn, 1};
    GPU_CHECK(rt, tilecLaunch(mod, "gemm", grid, NULL, args));
    GPU_CHECK(rt, tilecSynchronize(rt));
    gpu_download(rt, C, dC, sizeof(float) * (M * N + 2 * G));

    double tol = gpu_gemm_tolerance(precision, K), worst = 0;
    size_t bad = 0;
    for (size_t g = 0; g < 2 * G; g++) {
        size_t at = g < G ? g : M * N + g;
        uint32_t bits;
        memcpy(&bits, &C[at], 4);
        if (bits != 0xFFFFFFFFu && bad++ < 5)
            printf("  written outside C's view: element %td of its buffer\n", (ptrdiff_t)at - G);
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0, mag = 0;
            for (int q = 0; q < K; q++) {
                double ab = (double)A[(ptrdiff_t)a_off + (ptrdiff_t)i * sa0 + (ptrdiff_t)q * sa1] *
                            B[(ptrdiff_t)b_off + (ptrdiff_t)q * sb0 + j];
                s += ab;
                mag += fabs(ab);
            }
            float got = C[(ptrdiff_t)c_off + (ptrdiff_t)i * sc0 + j];
            double err = fabs(got - s);
            if (err / mag > worst)
                worst = err / mag;
            if (!(err <= tol * mag) && bad++ < 5)
                printf("  C(%d, %d) = %.9g, want %.9g\n", i, j, got, s);
        }
    printf("%s: %s (worst |err| / sum|ab| %.3g)\n", what, bad ? "FAIL" : "ok", worst);
    failures += bad != 0;
    cases++;
    GPU_CHECK(rt, tilecFree(rt, dA));
    GPU_CHECK(rt, tilecFree(rt, dB));
    GPU_CHECK(rt, tilecFree(rt, dC));
    GPU_CHECK(rt, tilecModuleUnload(&mod));
    free(A);
    free(B);
    free(C);
}

int main(void)
{
    static const char *const envs[] = {NULL, "TILEC_STAGE", "TILEC_PREROUND"};
    static const char *const archs[] = {"--arch=sm_90a", "--arch=sm_80"};
    for (size_t e = 0; e < sizeof envs / sizeof envs[0]; e++) {
        if (envs[e])
            setenv(envs[e], "1", 1);
        tilecRuntime rt = gpu_open();
        if (envs[e])
            unsetenv(envs[e]);
        for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
            if (envs[e] && a) /* the runtime's copies are sm_90's */
                continue;
            for (size_t ti = 0; ti < sizeof tiles / sizeof tiles[0]; ti++)
                for (size_t p = 0; p < sizeof precisions / sizeof precisions[0]; p++)
                    for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++)
                        run(rt, &tiles[ti], archs[a], precisions[p], &layouts[li], envs[e]);
        }
        gpu_close(&rt);
    }
    printf("%d cases, %d failed\n", cases, failures);
    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
