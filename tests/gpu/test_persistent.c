/*
 * Persistent kernels (compiler/lower_programs.c) whose programs differ in
 * how their pipeline copies: program (pm, pn) sums k from lo = (pm + pn) %
 * 2, so every other program starts its loop off 16 bytes, where no TMA box
 * can start, and copies with the kernel's own copies instead. The barriers'
 * arrival counts differ between the two, so a block that runs both kinds in
 * turn initializes its barriers anew at each change (after every thread
 * meets): TILEC_PERSIST_BLOCKS of 2 and 3 make each block run many programs
 * of both kinds in turn, and the default launch (as many blocks as fit)
 * some. The same kernel with -fno-persistent is the control. Each C must
 * match an fp64 product of the rounded inputs (tf32-rna, tf32-rne) over
 * its program's k range, and every element must be written.
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernel_fmt =
    "kernel @gemm(%%A: ptr<f32>, %%B: ptr<f32>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32,\n"
    "             %%lda: i32, %%ldb: i32, %%ldc: i32) warps(%d) {\n"
    "  %%pm = program_id 0\n"
    "  %%pn = program_id 1\n"
    "  %%s = add %%pm, %%pn\n"
    "  %%lo = rem %%s, 2\n"
    "  %%m0 = mul %%pm, %d\n"
    "  %%n0 = mul %%pn, %d\n"
    "  %%va = view %%A [%%M, %%K] strides [%%lda, 1]\n"
    "  %%vb = view %%B [%%K, %%N] strides [%%ldb, 1]\n"
    "  %%vc = view %%C [%%M, %%N] strides [%%ldc, 1]\n"
    "  %%z = zeros : tile<%dx%dxf32>\n"
    "  %%acc = for %%k = %%lo to %%K step 32 iter(%%c = %%z) {\n"
    "    %%a = load %%va[%%m0, %%k] : tile<%dx32xf32>\n"
    "    %%b = load %%vb[%%k, %%n0] : tile<32x%dxf32>\n"
    "    %%d = dot %%a, %%b, %%c : tile<%dx%dxf32>\n"
    "    yield %%d\n"
    "  }\n"
    "  store %%acc, %%vc[%%m0, %%n0]\n"
    "}\n";

typedef struct {
    int bm, bn, warps;
} Tile;

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "ok" : "FAIL");
    failures += !ok;
}

/* RNE to tf32 (finite inputs): the low 13 bits rounded, ties to even. */
static float round_rne(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u += 0xFFFu + ((u >> 13) & 1u);
    u &= ~0x1FFFu;
    memcpy(&x, &u, sizeof u);
    return x;
}

static void run_case(const Tile *t, const char *precision, const char *persist, const char *blocks)
{
    enum { M = 640, N = 768, K = 200, LDA = 204, LDB = 772, LDC = 768 };
    char what[160];
    snprintf(what, sizeof what, "%dx%d w%d %s %s%s%s", t->bm, t->bn, t->warps, precision, persist,
             blocks ? ", TILEC_PERSIST_BLOCKS=" : "", blocks ? blocks : "");
    if (blocks)
        setenv("TILEC_PERSIST_BLOCKS", blocks, 1);
    else
        unsetenv("TILEC_PERSIST_BLOCKS");
    tilecRuntime rt = gpu_open();
    unsetenv("TILEC_PERSIST_BLOCKS");

    char src[2048], popt[48];
    snprintf(src, sizeof src, kernel_fmt, t->warps, t->bm, t->bn, t->bm, t->bn, t->bm, t->bn, t->bm, t->bn);
    snprintf(popt, sizeof popt, "--precision=%s", precision);
    const char *opts[] = {"--arch=sm_90a", popt, persist};
    /* the kernel is persistent exactly where asked: its PTX names the hidden grid */
    tilecProgram prog = NULL;
    const char *ptx = NULL;
    GPU_CHECK(rt, tilecCreateProgram(&prog, src, strlen(src), "persistent.tir"));
    GPU_CHECK(rt, tilecCompileProgram(prog, 3, opts));
    GPU_CHECK(rt, tilecGetStage(prog, TILEC_STAGE_PTX, &ptx));
    int persistent = strstr(ptx, "the grid of programs") != NULL;
    tilecDestroyProgram(&prog);
    char w2[200];
    snprintf(w2, sizeof w2, "%s: the kernel is %spersistent", what, persistent ? "" : "not ");
    check(persistent == (strcmp(persist, "-fpersistent") == 0), w2);

    tilecModule mod = gpu_load(rt, src, "persistent.tir", 3, opts);
    float *A = malloc(sizeof(float) * M * LDA), *B = malloc(sizeof(float) * K * LDB);
    float *C = malloc(sizeof(float) * M * LDC);
    double *want = malloc(sizeof(double) * M * LDC), *bound = malloc(sizeof(double) * M * LDC);
    gpu_fill_f32(A, (size_t)M * LDA, 11, -0.5f, 0.5f);
    gpu_fill_f32(B, (size_t)K * LDB, 12, -0.5f, 0.5f);
    tilecDevicePtr dA = gpu_upload(rt, A, sizeof(float) * M * LDA), dB = gpu_upload(rt, B, sizeof(float) * K * LDB);
    tilecDevicePtr dC = gpu_alloc(rt, sizeof(float) * M * LDC);
    gpu_poison(rt, dC, sizeof(float) * M * LDC);
    int32_t m = M, n = N, k = K, lda = LDA, ldb = LDB, ldc = LDC;
    void *args[] = {&dA, &dB, &dC, &m, &n, &k, &lda, &ldb, &ldc};
    unsigned grid[3] = {(M + t->bm - 1) / t->bm, (N + t->bn - 1) / t->bn, 1};
    GPU_CHECK(rt, tilecLaunch(mod, "gemm", grid, NULL, args));
    GPU_CHECK(rt, tilecSynchronize(rt));
    gpu_download(rt, C, dC, sizeof(float) * M * LDC);

    /* fp64 of the rounded inputs over each program's k range */
    int rna = strcmp(precision, "tf32-rna") == 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int lo = (i / t->bm + j / t->bn) % 2;
            double s = 0, a = 0;
            for (int q = lo; q < K; q++) {
                float x = A[(size_t)i * LDA + q], y = B[(size_t)q * LDB + j];
                x = rna ? gpu_round_tf32_rna(x) : round_rne(x);
                y = rna ? gpu_round_tf32_rna(y) : round_rne(y);
                s += (double)x * y;
                a += fabs((double)x * y);
            }
            want[(size_t)i * LDC + j] = s;
            bound[(size_t)i * LDC + j] = 1e-5 * a + 1e-30;
        }
    size_t bad = 0;
    for (size_t e = 0; e < (size_t)M * LDC; e++)
        if (!(fabs(C[e] - want[e]) <= bound[e])) { /* NaN (unwritten) fails too */
            if (bad < 3)
                printf("  (%zu, %zu): %.9g against %.9g\n", e / LDC, e % LDC, C[e], want[e]);
            bad++;
        }
    snprintf(w2, sizeof w2, "%s: %zu of %d elements wrong", what, bad, M * N);
    check(bad == 0, w2);
    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dC);
    tilecModuleUnload(&mod);
    gpu_close(&rt);
    free(A);
    free(B);
    free(C);
    free(want);
    free(bound);
}

int main(void)
{
    tilecRuntime probe = gpu_open(); /* skips (77) without a GPU */
    gpu_close(&probe);
    static const Tile tiles[] = {{128, 128, 8}, {128, 256, 8}, {64, 64, 4}};
    static const char *const precisions[] = {"tf32-rna", "tf32-rne"};
    static const char *const blocks[] = {"2", "3", NULL};
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
        for (size_t p = 0; p < 2; p++) {
            for (size_t b = 0; b < 3; b++)
                run_case(&tiles[t], precisions[p], "-fpersistent", blocks[b]);
            run_case(&tiles[t], precisions[p], "-fno-persistent", NULL);
        }
    printf("%s: %d failing check(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
