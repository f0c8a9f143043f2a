/*
 * Pre-rounding (runtime/stage.h): a tf32-rna GEMM whose views the runtime
 * stages rounded to tf32 (TILEC_PREROUND=1) must give the same bits as the
 * same kernel rounding them itself (TILEC_PREROUND=0): the launch then
 * takes the kernel's entry for rounded views (gemm$rounded), which skips
 * the rounding (the rounding warpgroup's pass over A, the consumers' over
 * B's fragments), so a launch whose views were not all rounded, or an
 * entry that skipped too much, shows as a difference. On
 * inputs with exact ties (the low 13 bits 0x1000, where RNA and RNE part),
 * Inf and NaN, for the sm_90a tiles the benchmark uses (128x256 and
 * 128x128 with 8 warps: one producer warpgroup copies, one rounds),
 * 64x64 with 4, and 128x128 with
 * -fno-wgmma-roles (each producer both copies and rounds; also with 3
 * stages), B K-major (128x256, 128x128; 64x64 with 3 stages and no roles), and 128x256 and
 * 128x128 with -fno-wgmma-preround-b (A alone passed rounded, B rounded in
 * registers by both entries), on aligned views, on views read from k 2 (no TMA
 * box starts there: the kernel's own copies of the rounded views) and on
 * views with odd row strides (staged either way). Each run must be noted
 * in the runtime's log as rounded or not, and both must match an fp64
 * product of the RNA-rounded inputs.
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernel_fmt =
    "kernel @gemm(%%A: ptr<f32>, %%B: ptr<f32>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32,\n"
    "             %%lda: i32, %%ldb: i32, %%ldc: i32, %%k0: i32) warps(%d) {\n"
    "  %%pm = program_id 0\n"
    "  %%pn = program_id 1\n"
    "  %%m0 = mul %%pm, %d\n"
    "  %%n0 = mul %%pn, %d\n"
    "  %%va = view %%A [%%M, %%K] strides [%%lda, 1]\n"
    "  %%vb = view %%B [%%K, %%N] strides %s\n"
    "  %%vc = view %%C [%%M, %%N] strides [%%ldc, 1]\n"
    "  %%z = zeros : tile<%dx%dxf32>\n"
    "  %%acc = for %%k = %%k0 to %%K step 32 iter(%%c = %%z) {\n"
    "    %%a = load %%va[%%m0, %%k] : tile<%dx32xf32>\n"
    "    %%b = load %%vb[%%k, %%n0] : tile<32x%dxf32>\n"
    "    %%d = dot %%a, %%b, %%c {precision = tf32-rna} : tile<%dx%dxf32>\n"
    "    yield %%d\n"
    "  }\n"
    "  store %%acc, %%vc[%%m0, %%n0]\n"
    "}\n";

typedef struct {
    int bm, bn, warps;
    const char *opt, *opt2; /* NULL or one more option, two */
    int kmajor;             /* B stored N x K (its view's strides [1, ldb]: lower_wgmma_kmajor.c) */
} Tile;

typedef struct {
    int M, N, K, lda, ldb, ldc;
    int k0; /* the loop's first k: off 4 columns, no TMA box can start there (the kernel's own copies) */
} Shape;

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "ok" : "FAIL");
    failures += !ok;
}

/* Uniform in [-0.5, 0.5), every 7th element an exact tie, a few Inf and
 * NaN (each spoils whole rows or columns of C, the same ones either way),
 * among them NaNs whose payload lies in the 13 bits rounding drops
 * (cvt.rna.tf32.f32 alone makes them Inf). */
static void set_bits(float *p, uint32_t u) { memcpy(p, &u, sizeof u); }
static void fill(float *p, size_t n, uint64_t seed, int specials)
{
    gpu_fill_f32(p, n, seed, -0.5f, 0.5f);
    for (size_t i = 0; i < n; i += 7) {
        uint32_t u;
        memcpy(&u, &p[i], sizeof u);
        u = (u & ~0x1FFFu) | 0x1000u;
        memcpy(&p[i], &u, sizeof u);
    }
    if (specials && n > 100) {
        p[n / 3] = INFINITY;
        p[n / 2] = NAN;
        p[n - 5] = -INFINITY;
        set_bits(&p[n / 5], 0x7F800001u);
        set_bits(&p[n / 7], 0xFF801FFFu);
    }
}

/* C of one launch on rt (its own upload of A and B). */
static void run(tilecRuntime rt, const Tile *t, const Shape *s, const float *A, const float *B, float *C, int *rounded)
{
    char src[2048];
    snprintf(src, sizeof src, kernel_fmt, t->warps, t->bm, t->bn, t->kmajor ? "[1, %ldb]" : "[%ldb, 1]", t->bm,
             t->bn, t->bm, t->bn, t->bm, t->bn);
    const char *opts[] = {"--arch=sm_90a", t->opt, t->opt2};
    tilecModule mod = gpu_load(rt, src, "preround.tir", t->opt2 ? 3 : t->opt ? 2 : 1, opts);
    size_t na = (size_t)s->M * s->lda, nb = (size_t)(t->kmajor ? s->N : s->K) * s->ldb, nc = (size_t)s->M * s->ldc;
    tilecDevicePtr dA = gpu_upload(rt, A, sizeof(float) * na), dB = gpu_upload(rt, B, sizeof(float) * nb);
    tilecDevicePtr dC = gpu_alloc(rt, sizeof(float) * nc);
    gpu_poison(rt, dC, sizeof(float) * nc);
    int32_t M = s->M, N = s->N, K = s->K, lda = s->lda, ldb = s->ldb, ldc = s->ldc, k0 = s->k0;
    void *args[] = {&dA, &dB, &dC, &M, &N, &K, &lda, &ldb, &ldc, &k0};
    unsigned grid[3] = {(unsigned)((M + t->bm - 1) / t->bm), (unsigned)((N + t->bn - 1) / t->bn), 1};
    size_t mark = gpu_log_mark(rt);
    GPU_CHECK(rt, tilecLaunch(mod, "gemm", grid, NULL, args));
    GPU_CHECK(rt, tilecSynchronize(rt));
    *rounded = gpu_log_has_since(rt, mark, "rounded to tf32 (rna)");
    if (*rounded) { /* the views that may come rounded did: the entry that does not round them ran */
        char what[160];
        snprintf(what, sizeof what, "%dx%d w%d%s%s%s%s%s, %dx%dx%d: the rounded views launched gemm$rounded", t->bm,
                 t->bn, t->warps, t->opt ? " " : "", t->opt ? t->opt : "", t->opt2 ? " " : "", t->opt2 ? t->opt2 : "",
                 t->kmajor ? " B K-major" : "", s->M, s->N, s->K);
        check(gpu_log_has_since(rt, mark, "launched its entry gemm$rounded"), what);
    }
    gpu_download(rt, C, dC, sizeof(float) * nc);
    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dC);
    tilecModuleUnload(&mod);
}

/* A runtime with TILEC_PREROUND (and TILEC_STAGE) as given. */
static tilecRuntime open_with(const char *preround, const char *stage)
{
    setenv("TILEC_PREROUND", preround, 1);
    if (stage)
        setenv("TILEC_STAGE", stage, 1);
    else
        unsetenv("TILEC_STAGE");
    tilecRuntime rt = gpu_open();
    unsetenv("TILEC_PREROUND");
    unsetenv("TILEC_STAGE");
    return rt;
}

static void run_case(tilecRuntime own, tilecRuntime given, const Tile *t, const Shape *s, uint64_t seed)
{
    size_t na = (size_t)s->M * s->lda, nb = (size_t)(t->kmajor ? s->N : s->K) * s->ldb, nc = (size_t)s->M * s->ldc;
    float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb), *C0 = malloc(sizeof(float) * nc),
          *C1 = malloc(sizeof(float) * nc), *Ar = malloc(sizeof(float) * na), *Br = malloc(sizeof(float) * nb);
    double *ref = malloc(sizeof(double) * nc);
    if (!A || !B || !C0 || !C1 || !Ar || !Br || !ref) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    fill(A, na, seed, 1);
    fill(B, nb, seed + 1, 1);
    for (int i = 0; i < s->M; i++) /* the columns before k0 are not read: 0 for the reference */
        for (int k = 0; k < s->k0; k++)
            A[(size_t)i * s->lda + k] = 0;
    int r0 = 0, r1 = 0;
    run(own, t, s, A, B, C0, &r0);
    run(given, t, s, A, B, C1, &r1);
    char what[256];
    snprintf(what, sizeof what, "%dx%d w%d%s%s%s%s%s, %dx%dx%d (lda %d, ldb %d, ldc %d)", t->bm, t->bn, t->warps,
             t->opt ? " " : "", t->opt ? t->opt : "", t->opt2 ? " " : "", t->opt2 ? t->opt2 : "",
             t->kmajor ? " B K-major" : "", s->M, s->N, s->K, s->lda, s->ldb, s->ldc);
    char line[400];
    snprintf(line, sizeof line, "%s: TILEC_PREROUND=0 rounds in the kernel, =1 passes rounded views", what);
    check(!r0 && r1, line);
    size_t diff = 0, first = nc;
    for (int i = 0; i < s->M; i++)
        for (int j = 0; j < s->N; j++) {
            size_t e = (size_t)i * s->ldc + j;
            int same = memcmp(&C0[e], &C1[e], sizeof(float)) == 0; /* NaNs too: the same operations */
            if (!same && diff++ == 0)
                first = e;
        }
    if (diff)
        printf("  first difference at (%zu, %zu): %.9g against %.9g\n", first / s->ldc, first % s->ldc, C0[first],
               C1[first]);
    snprintf(line, sizeof line, "%s: the same bits either way (%zu elements differ)", what, diff);
    check(diff == 0, line);
    /* both against fp64 of the RNA-rounded inputs (Inf x 0 = NaN as on the GPU) */
    for (size_t i = 0; i < na; i++)
        Ar[i] = gpu_round_tf32_rna(A[i]);
    /* (K-major: B^T's rows, as row-major B[K][N] for the product; B's rows before k0, which the
     * kernel does not read either, 0: an Inf or NaN there would meet A's zeros) */
    for (size_t i = 0; i < nb; i++) {
        size_t k = i / (size_t)(t->kmajor ? s->N : s->ldb);
        Br[i] = k < (size_t)s->k0 ? 0.0f
                                  : gpu_round_tf32_rna(t->kmajor ? B[i % (size_t)s->N * s->ldb + k] : B[i]);
    }
    gpu_gemm_f64(s->M, s->N, s->K, Ar, s->lda, Br, t->kmajor ? s->N : s->ldb, ref, s->ldc);
    size_t bad = 0;
    for (int i = 0; i < s->M; i++) /* row by row: C's padding columns are not compared */
        bad += gpu_compare_f32(what, C1 + (size_t)i * s->ldc, ref + (size_t)i * s->ldc, (size_t)s->N, 0,
                               2e-6 * s->K, 1e-5);
    snprintf(line, sizeof line, "%s: matches fp64 of the rounded inputs", what);
    check(bad == 0, line);
    free(A);
    free(B);
    free(C0);
    free(C1);
    free(Ar);
    free(Br);
    free(ref);
}

int main(void)
{
    /* TILEC_STAGE=1: views staged whatever their reuse (these shapes are
     * small), so the rounded run stages them all and the other only the
     * odd ones */
    tilecRuntime own = open_with("0", "1"), given = open_with("1", "1");
    static const Tile tiles[] = {
        {128, 256, 8, NULL, NULL, 0},
        {128, 128, 8, NULL, NULL, 0},
        {64, 64, 4, NULL, NULL, 0},
        {128, 128, 8, "-fno-wgmma-roles", NULL, 0},
        /* two producers each finishing every other step of 3 stages: every producer thread waits
         * for the stage as the one issuing the TMA copies does (before, the others could round a
         * stage on landed[]'s phase of a round before: some steps unrounded, session 31) */
        {128, 128, 8, "-fno-wgmma-roles", "--stages=3", 0},
        {64, 64, 4, "-fno-wgmma-roles", "--stages=3", 1},
        {128, 256, 8, "-fno-wgmma-preround-b", NULL, 0}, /* A alone comes rounded; both entries round B */
        {128, 128, 8, "-fno-wgmma-preround-b", NULL, 0},
        {128, 256, 8, "-fno-wgmma-preround-a", NULL, 0}, /* B alone comes rounded; both entries round A */
        {128, 128, 8, "-fno-wgmma-preround-a", NULL, 0},
        /* through the JIT (TILEC_TEST_LOAD=source: TMA only) the rounded entry's consumers wait on
         * the TMA's landed[] themselves; compiled, persistent, the option changes nothing */
        {128, 256, 8, "-fwgmma-tma-direct", NULL, 0},
        /* B K-major (lower_wgmma_kmajor.c): B^T's copy rounded and staged as N rows of K; the
         * kernel's own entry rounds A and B in shared memory (one producer warpgroup at BN 256) */
        {128, 256, 8, NULL, NULL, 1},
        {128, 128, 8, NULL, NULL, 1},
    };
    static const Shape shapes[] = {
        {384, 512, 256, 256, 512, 512, 0},  /* aligned: only pre-rounding stages */
        {300, 520, 333, 333, 521, 520, 0},  /* odd row strides: staged either way */
        {200, 260, 100, 100, 260, 263, 0},  /* K not a multiple of 32; C's stride odd */
        {256, 384, 300, 300, 384, 384, 2},  /* from k 2: the kernel's own copies of the rounded views */
        {150, 100, 130, 132, 132, 100, 0},  /* 5 steps of 3 stages (-fno-wgmma-roles: where producer
                                             * warpgroup 1's steps 1, 3 share a stage with its step 7) */
    };
    uint64_t seed = 40;
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, seed += 2)
            run_case(own, given, &tiles[t], &shapes[s], seed);
    gpu_close(&own);
    gpu_close(&given);
    printf("%s: %d failing check(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
