/*
 * GEMM on the GPU against an fp64 host product, for every precision mode,
 * both targets (sm_80 PTX JIT-compiled for the device, and sm_90a), shapes
 * that are not multiples of the tile, transposed (strided) views, batches,
 * f16/bf16 inputs, Inf/NaN inputs, examples/matmul_grouped.tir (its
 * 1-D grid in the grouped tile order), and the examples with row strides
 * no tensor map describes, staged (runtime/stage.h).
 *
 * Each element is checked against a bound that scales with sum_k |a||b|:
 * a rounding-level error passes, a wrong element (layout or bounds bug)
 * does not. Outputs are poisoned (NaN) before each launch, and C sits inside
 * a larger poisoned buffer whose margins must stay poisoned: every element
 * is written, nothing outside C is.
 * TILEC_GPU_QUICK=1 runs the small shapes only (for compute-sanitizer);
 * TILEC_TEST_COPT="OPT ..." compiles every kernel with more options (up to
 * GPU_MAX_COPTS, space-separated); TILEC_TEST_LOAD=source loads them through
 * tilecModuleLoadSource (the JIT's TMA-only kernels, and the kernel as
 * asked for where a launch leaves a view unstaged: run_staged_cases checks
 * that one did); TILEC_TEST_CLUSTER=1 adds the experimental
 * -fwgmma-cluster's cases (run_cluster_cases), =only runs them alone;
 * TILEC_TEST_TMA_STORE=only runs run_tma_store_cases alone;
 * TILEC_TEST_RANDOM_CONFIGS=N runs N random configurations alone (tiles,
 * warps, types, modes, targets, an option; TILEC_TEST_SEED repeats them).
 */
#include "gpu_common.h"
#include "reference/round.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One kernel for all cases: batched rank-3 views with runtime strides. */
static const char *kernel_fmt =
    "kernel @gemm(%%A: ptr<%s>, %%B: ptr<%s>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32,\n"
    "             %%sab: i64, %%sam: i64, %%sak: i64, %%sbb: i64, %%sbk: i64, %%sbn: i64,\n"
    "             %%scb: i64, %%scm: i64, %%scn: i64, %%batch: i32) warps(%d) {\n"
    "  %%pm = program_id 0\n"
    "  %%pn = program_id 1\n"
    "  %%pb = program_id 2\n"
    "  %%m0 = mul %%pm, %d\n"
    "  %%n0 = mul %%pn, %d\n"
    "  %%va = view %%A [%%batch, %%M, %%K] strides [%%sab, %s, %%sak]\n"
    "  %%vb = view %%B [%%batch, %%K, %%N] strides [%%sbb, %s, %%sbn]\n"
    "  %%vc = view %%C [%%batch, %%M, %%N] strides [%%scb, %%scm, %%scn]\n"
    "  %%z = zeros : tile<%dx%dxf32>\n"
    "  %%acc = for %%k = 0 to %%K step %d iter(%%c = %%z) {\n"
    "    %%a = load %%va[%%pb, %%m0, %%k] : tile<%dx%dx%s>\n"
    "    %%b = load %%vb[%%pb, %%k, %%n0] : tile<%dx%dx%s>\n"
    "    %%d = dot %%a, %%b, %%c : tile<%dx%dxf32>\n"
    "    yield %%d\n"
    "  }\n"
    "  store %%acc, %%vc[%%pb, %%m0, %%n0]\n"
    "}\n";

typedef struct {
    const char *elem; /* f32, f16, bf16 */
    const char *precision;
    const char *arch;
    int bm, bn, bk, warps;
    const char *copt; /* more options, space-separated (NULL: none) */
    int kmajor_b;     /* B's k stride the constant 1 in the kernel (B stored N x K: every shape's trans_b) */
    int mmajor_a;     /* A's m stride the constant 1 in the kernel (A stored K x M: every shape's trans_a) */
} Config;

typedef struct {
    int M, N, K, batch;
    int trans_a, trans_b; /* A stored as K x M (column-major A), B as N x K */
    int special;          /* put Inf and NaN into the inputs (2: an Inf at every K step too) */
    int sample_rows;      /* check only this many rows per batch (0 = all) */
    int aligned;          /* row and batch strides multiples of 8 elements (else K + 3, N + 1, ...):
                           * the TMA copies' case (-fwgmma-tma) */
} Shape;

static long long round8(long long x) { return (x + 7) / 8 * 8; }

static int failures;

/* Relative error allowed per element, times sum_k |a||b|. */
static double tolerance(const Config *c, int K)
{
    /* f16/bf16 products are exact: f32 accumulation alone, as ieee's */
    return gpu_gemm_tolerance(strcmp(c->elem, "f32") ? "ieee" : c->precision, K);
}

/* TILEC_TEST_PRECISION (e.g. "3xtf32", or "tf32-rna,3xtf32"): the cases of
 * those precisions alone, the others neither compiled nor run (a change to
 * one mode, checked on the interpreter in minutes). Unset or empty: all. */
static int precision_wanted(const char *precision)
{
    const char *w = getenv("TILEC_TEST_PRECISION");
    if (!w || !w[0])
        return 1;
    size_t n = strlen(precision);
    for (const char *p = w; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, precision, n))
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static void run_case(tilecRuntime rt, tilecModule mod, const Config *c, const Shape *s, uint64_t seed)
{
    if (!precision_wanted(c->precision))
        return;
    int M = s->M, N = s->N, K = s->K, nb = s->batch;
    int e16 = strcmp(c->elem, "f32") != 0;
    size_t esz = e16 ? 2 : 4;
    /* strides (elements): A is M x K, stored row-major or transposed; each
     * batch is padded so batches are not adjacent */
    long long pa = s->aligned ? round8(K) + 8 - K : 3, pb = s->aligned ? round8(N) + 8 - N : 1;
    int trans_a = s->trans_a || c->mmajor_a, trans_b = s->trans_b || c->kmajor_b;
    /* (an M-major A's rows, of M, 16-byte aligned where asked: its tensor map's case) */
    long long ldat = c->mmajor_a && s->aligned ? round8(M) + 8 : M + 5;
    long long sam = trans_a ? 1 : K + pa, sak = trans_a ? ldat : 1;
    /* (a K-major B's rows 16-byte aligned where asked: its tensor map's case) */
    long long ldbt = c->kmajor_b && s->aligned ? round8(K) + 8 : K + 7;
    long long sbk = trans_b ? 1 : N + pb, sbn = trans_b ? ldbt : 1;
    long long sab = (long long)(trans_a ? ldat * (long long)K : M * (long long)(K + pa)) + (s->aligned ? 16 : 11);
    long long sbb = (long long)(trans_b ? ldbt * (long long)N : K * (long long)(N + pb)) + (s->aligned ? 24 : 13);
    /* C's rows and batches 16-byte aligned with aligned (its map for -fwgmma-tma-store) */
    long long ldc = s->aligned ? (N + 5) / 4 * 4 : N + 2, scb = (long long)M * ldc + (s->aligned ? 16 : 17);
    long long scm = ldc, scn = 1;
    size_t na = (size_t)sab * nb, nbb = (size_t)sbb * nb, margin = 64;
    size_t nc = (size_t)scb * nb + 2 * margin;

    float *A = calloc(na, 4), *B = calloc(nbb, 4), *C = malloc(nc * 4);
    void *Adev = malloc(na * esz), *Bdev = malloc(nbb * esz);
    if (!A || !B || !C || !Adev || !Bdev) {
        fprintf(stderr, "FAIL: out of host memory\n");
        exit(1);
    }
    gpu_fill_f32(A, na, seed, -1.0f, 1.0f);
    gpu_fill_f32(B, nbb, seed + 1, -1.0f, 1.0f);
    if (s->special) {
        A[0] = NAN;                   /* batch 0, row 0: NaN in every mode */
        A[1 * sam + 1 * sak] = INFINITY; /* row 1: Inf (or NaN where a product is Inf*0) */
        if (s->M > 3 && s->K > 64) { /* later K steps too, finite ones between (3xtf32's spare tile) */
            A[2 * sam + (size_t)(s->K / 2) * sak] = -INFINITY;
            A[3 * sam + (size_t)(s->K - 1) * sak] = INFINITY;
        }
        /* consecutive steps, at k 9i mod 32 in step i: every k8 slice of a step in turn */
        for (int i = 0; s->special == 2 && 4 + i < s->M && 32 * i + 9 * i % 32 < s->K; i++)
            A[(size_t)(4 + i) * sam + (size_t)(32 * i + 9 * i % 32) * sak] = i % 2 ? -INFINITY : INFINITY;
        /* B's rows that meet those Infs exact in TF32 (their 3xtf32 small part zero): an Inf
         * that reaches the small-times-big product (3xtf32 without its hic copy, for any k8
         * slice) then gives NaN, not the Inf a nonzero small part hides it behind */
        for (int b = 0; b < nb; b++)
            for (int k = 0; k < K; k++) {
                int meets = k == 1 || (s->M > 3 && s->K > 64 && (k == K / 2 || k == K - 1));
                for (int i = 0; !meets && s->special == 2 && 4 + i < s->M && 32 * i + 9 * i % 32 < s->K; i++)
                    meets = k == 32 * i + 9 * i % 32;
                for (int j = 0; meets && j < N; j++) {
                    float *w = &B[(size_t)b * sbb + (size_t)k * sbk + (size_t)j * sbn];
                    uint32_t u;
                    memcpy(&u, w, 4);
                    u &= ~0x1FFFu;
                    memcpy(w, &u, 4);
                }
            }
    }
    for (size_t i = 0; i < na; i++) { /* what the device sees, as f32 */
        if (!strcmp(c->elem, "f16")) {
            uint16_t h = f32_to_f16(A[i]);
            memcpy((char *)Adev + 2 * i, &h, 2);
            A[i] = f16_to_f32(h);
        } else if (!strcmp(c->elem, "bf16")) {
            uint16_t h = f32_to_bf16(A[i]);
            memcpy((char *)Adev + 2 * i, &h, 2);
            A[i] = bf16_to_f32(h);
        } else
            memcpy((char *)Adev + 4 * i, &A[i], 4);
    }
    for (size_t i = 0; i < nbb; i++) {
        if (!strcmp(c->elem, "f16")) {
            uint16_t h = f32_to_f16(B[i]);
            memcpy((char *)Bdev + 2 * i, &h, 2);
            B[i] = f16_to_f32(h);
        } else if (!strcmp(c->elem, "bf16")) {
            uint16_t h = f32_to_bf16(B[i]);
            memcpy((char *)Bdev + 2 * i, &h, 2);
            B[i] = bf16_to_f32(h);
        } else
            memcpy((char *)Bdev + 4 * i, &B[i], 4);
    }

    tilecDevicePtr dA = gpu_upload(rt, Adev, na * esz), dB = gpu_upload(rt, Bdev, nbb * esz);
    tilecDevicePtr dCbuf = gpu_alloc(rt, nc * 4), dC = dCbuf + margin * 4;
    gpu_poison(rt, dCbuf, nc * 4);
    int32_t Mi = M, Ni = N, Ki = K, bi = nb;
    void *args[] = {&dA, &dB, &dC, &Mi, &Ni, &Ki, &sab, &sam, &sak, &sbb, &sbk, &sbn, &scb, &scm, &scn, &bi};
    unsigned grid[3] = {(unsigned)((M + c->bm - 1) / c->bm), (unsigned)((N + c->bn - 1) / c->bn), (unsigned)nb};
    GPU_CHECK(rt, tilecLaunch(mod, "gemm", grid, NULL, args));
    GPU_CHECK(rt, tilecSynchronize(rt));
    gpu_download(rt, C, dCbuf, nc * 4);

    size_t bad = 0, checked = 0;
    double tol = tolerance(c, K), worst = 0;
    for (size_t i = 0; i < nc; i++) { /* outside C: still poisoned */
        size_t off = i < margin ? (size_t)-1 : i - margin;
        int inside = 0;
        if (off != (size_t)-1 && off < (size_t)scb * nb) {
            size_t r = (off % (size_t)scb) / (size_t)ldc, col = (off % (size_t)scb) % (size_t)ldc;
            inside = r < (size_t)M && col < (size_t)N;
        }
        uint32_t bits;
        memcpy(&bits, &C[i], 4);
        if (!inside && bits != 0xFFFFFFFFu) {
            if (bad++ < 5)
                printf("  written outside C at offset %zd\n", (ssize_t)i - (ssize_t)margin);
        }
    }
    for (int b = 0; b < nb; b++) {
        int rows = s->sample_rows && s->sample_rows < M ? s->sample_rows : M;
        for (int rr = 0; rr < rows; rr++) {
            int i = rows == M ? rr : (int)(((uint64_t)rr * 2654435761u) % (uint64_t)M);
            for (int j = 0; j < N; j++) {
                double ref = 0, mag = 0;
                int nan_in = 0;
                for (int k = 0; k < K; k++) {
                    double a = A[b * sab + i * sam + k * sak], w = B[b * sbb + k * sbk + j * sbn];
                    ref += a * w;
                    mag += fabs(a * w);
                    nan_in |= isnan(a) || isnan(w);
                }
                float got = C[margin + b * scb + i * scm + j * scn];
                checked++;
                int ok;
                if (nan_in || isnan(ref))
                    ok = isnan(got); /* NaN in, NaN out (Inf-Inf also gives NaN) */
                else if (isinf(ref))
                    ok = got == ref || (!strcmp(c->precision, "tf32-trunc") && isnan(got));
                else {
                    double err = fabs(got - ref);
                    ok = err <= tol * mag + 1e-30;
                    if (mag > 0 && err / mag > worst)
                        worst = err / mag;
                }
                if (!ok && bad++ < 5)
                    printf("  C[%d][%d][%d] = %.9g, want %.9g (bound %.3g)\n", b, i, j, got, ref, tol * mag);
            }
        }
    }
    const char *copt = (c->mmajor_a || c->kmajor_b) && c->copt ? c->copt : NULL; /* an option of the layout cases' */
    printf("%s %-10s %-6s %4s %dx%dx%d batch %d%s%s%s%s%s: %zu checked, worst |err|/sum|ab| %.3g (bound %.3g): %s\n",
           c->arch, c->precision, c->elem, "", M, N, K, nb, c->mmajor_a ? " A M-major" : s->trans_a ? " At" : "",
           c->kmajor_b ? " B K-major" : s->trans_b ? " Bt" : "",
           s->special == 2 ? " inf/nan every step" : s->special ? " inf/nan" : "", copt ? " " : "", copt ? copt : "",
           checked, worst, tol, bad ? "FAIL" : "ok");
    failures += bad != 0;
    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dCbuf);
    free(A);
    free(B);
    free(C);
    free(Adev);
    free(Bdev);
}

/* A K loop from an odd k0 and tiles from an odd column c0 (aligned base
 * pointers and strides): where a 16-byte copy would start at a misaligned
 * address, the kernel must take the element path. C[i][j] for j >= c0 is
 * the sum over k >= k0; columns left of c0 are never written. */
static const char *offset_src =
    "kernel @gemm(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32,\n"
    "             %lda: i32, %ldb: i32, %ldc: i32, %k0: i32, %c0: i32) warps(4) {\n"
    "  %pm = program_id 0\n"
    "  %pn = program_id 1\n"
    "  %m0 = mul %pm, 64\n"
    "  %n = mul %pn, 64\n"
    "  %n0 = add %n, %c0\n"
    "  %va = view %A [%M, %K] strides [%lda, 1]\n"
    "  %vb = view %B [%K, %N] strides [%ldb, 1]\n"
    "  %vc = view %C [%M, %N] strides [%ldc, 1]\n"
    "  %z = zeros : tile<64x64xf32>\n"
    "  %acc = for %k = %k0 to %K step 32 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<64x32xf32>\n"
    "    %b = load %vb[%k, %n0] : tile<32x64xf32>\n"
    "    %d = dot %a, %b, %c : tile<64x64xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  store %acc, %vc[%m0, %n0]\n"
    "}\n";

/* Loads src with --precision and --arch of c, plus TILEC_TEST_COPT's
 * options (space-separated, up to four); NULL for a precision not wanted
 * (run_case and run_dense_rows skip it). */
static tilecModule load_with_copts(tilecRuntime rt, const char *src, const char *name, const Config *c)
{
    if (!precision_wanted(c->precision))
        return NULL;
    char prec[64], arch[32];
    snprintf(prec, sizeof prec, "--precision=%s", c->precision);
    snprintf(arch, sizeof arch, "--arch=%s", c->arch);
    const char *opts[2] = {prec, arch};
    return gpu_load_copts(rt, src, name, 2, opts, c->copt);
}

/* Checks a row-major C (M rows, ldc columns) against the fp64 product of
 * rows of A (lda) and B (ldb) over k0 <= k < K: columns c0 .. N-1 within
 * tol * sum|ab|, every other column still poisoned. Returns the bad
 * elements (the first five printed); *worst: the largest |err| / sum|ab|. */
static size_t check_dense(const float *A, int lda, const float *B, int ldb, const float *C, int ldc, int M, int N,
                          int K, int k0, int c0, double tol, double *worst)
{
    size_t bad = 0;
    *worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++) {
            uint32_t bits;
            memcpy(&bits, &C[(size_t)i * ldc + j], 4);
            if (j < c0 || j >= N) { /* never written */
                if (bits != 0xFFFFFFFFu && bad++ < 5)
                    printf("  C[%d][%d] written\n", i, j);
                continue;
            }
            double ref = 0, mag = 0;
            for (int k = k0; k < K; k++) {
                ref += (double)A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
                mag += fabs((double)A[(size_t)i * lda + k] * B[(size_t)k * ldb + j]);
            }
            double err = fabs(C[(size_t)i * ldc + j] - ref);
            if (mag > 0 && err / mag > *worst)
                *worst = err / mag;
            if (!(err <= tol * mag + 1e-30) && bad++ < 5)
                printf("  C[%d][%d] = %.9g, want %.9g\n", i, j, C[(size_t)i * ldc + j], ref);
        }
    return bad;
}

/* Runs kernel `kernel` of src, (A, B, C, M, N, K, lda, ldb, ldc[, k0, c0]),
 * on random f32 data (rows of lda, ldb, ldc floats) and checks all of C
 * (check_dense). */
/* run_dense() where the grid covers only C's first `rows` rows: the rest
 * must stay poisoned (a cluster launch's added program stores nothing). */
static void run_dense_rows(tilecRuntime rt, const Config *c, const char *src, const char *file, const char *kernel,
                           int M, int N, int K, int lda, int ldb, int ldc, int k0, int c0, const unsigned grid[3],
                           uint64_t seed, const char *pre, const char *post, int rows)
{
    if (!precision_wanted(c->precision))
        return;
    size_t na = (size_t)M * lda, nb = (size_t)K * ldb, nc = (size_t)M * ldc;
    float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb), *C = malloc(sizeof(float) * nc);
    if (!A || !B || !C) {
        fprintf(stderr, "FAIL: out of host memory\n");
        exit(1);
    }
    gpu_fill_f32(A, na, seed, -1.0f, 1.0f);
    gpu_fill_f32(B, nb, seed + 1, -1.0f, 1.0f);
    int half = !strcmp(c->elem, "bf16"); /* the device gets bf16 A and B, the reference their values */
    tilecModule mod = load_with_copts(rt, src, file, c);
    tilecDevicePtr dA, dB;
    if (half) {
        uint16_t *hb = malloc(2 * nb), *ha = malloc(2 * na);
        if (!ha || !hb) {
            fprintf(stderr, "FAIL: out of host memory\n");
            exit(1);
        }
        for (size_t i = 0; i < na; i++) {
            ha[i] = f32_to_bf16(A[i]);
            A[i] = bf16_to_f32(ha[i]);
        }
        for (size_t i = 0; i < nb; i++) {
            hb[i] = f32_to_bf16(B[i]);
            B[i] = bf16_to_f32(hb[i]);
        }
        dA = gpu_upload(rt, ha, 2 * na);
        dB = gpu_upload(rt, hb, 2 * nb);
        free(ha);
        free(hb);
    } else {
        dA = gpu_upload(rt, A, sizeof(float) * na);
        dB = gpu_upload(rt, B, sizeof(float) * nb);
    }
    tilecDevicePtr dC = gpu_alloc(rt, sizeof(float) * nc);
    gpu_poison(rt, dC, sizeof(float) * nc);
    int32_t Mi = M, Ni = N, Ki = K, la = lda, lb = ldb, lc = ldc, k0i = k0, c0i = c0;
    void *args[] = {&dA, &dB, &dC, &Mi, &Ni, &Ki, &la, &lb, &lc, &k0i, &c0i}; /* a kernel reads its own count */
    GPU_CHECK(rt, tilecLaunch(mod, kernel, grid, NULL, args));
    GPU_CHECK(rt, tilecSynchronize(rt));
    gpu_download(rt, C, dC, sizeof(float) * nc);
    double tol = tolerance(c, K), worst;
    size_t bad = check_dense(A, lda, B, ldb, C, ldc, rows < M ? rows : M, N, K, k0, c0, tol, &worst);
    for (size_t i = (size_t)(rows < M ? rows : M) * ldc; i < nc; i++) /* rows no program was asked for */
        bad += !isnan(C[i]);
    printf("%s %-10s %s %s%dx%dx%d%s: worst |err|/sum|ab| %.3g (bound %.3g): %s\n", c->arch, c->precision, c->elem,
           pre, M, N, K, post, worst, tol, bad ? "FAIL" : "ok");
    failures += bad != 0;
    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dC);
    tilecModuleUnload(&mod);
    free(A);
    free(B);
    free(C);
}

static void run_dense(tilecRuntime rt, const Config *c, const char *src, const char *file, const char *kernel, int M,
                      int N, int K, int lda, int ldb, int ldc, int k0, int c0, const unsigned grid[3], uint64_t seed,
                      const char *pre, const char *post)
{
    run_dense_rows(rt, c, src, file, kernel, M, N, K, lda, ldb, ldc, k0, c0, grid, seed, pre, post, M);
}

static void run_offset_case(tilecRuntime rt, const Config *c, int k0, int c0, uint64_t seed)
{
    enum { M = 70, N = 75, K = 77, LD = 80 }; /* LD: rows 16-byte aligned */
    unsigned grid[3] = {(M + 63) / 64, (N - c0 + 63) / 64, 1};
    char label[48];
    snprintf(label, sizeof label, " from k %d, column %d", k0, c0);
    run_dense(rt, c, offset_src, "offset.tir", "gemm", M, N, K, LD, LD, LD, k0, c0, grid, seed, "", label);
}

/* -fwgmma-tma-only -fwgmma-tma-store on a kernel whose loads the compiler
 * proves aligned (K from 0, B's columns %n) but whose store's column
 * (%n + %c0, c0 = 0 here) it does not: the kernel keeps its own stores
 * beside the TMA's, and C's map is optional. N = 76 stores by TMA; N = 75
 * (C's rows end inside a 16-byte chunk: no map) must still launch, store
 * with the kernel's own stores and leave C's padding unwritten, also with
 * A's rows off 16 bytes (A staged: the optional map stops no staging). */
static void replace_all(char *dst, size_t cap, const char *src, const char *from, const char *to);
static void run_unproven_store_cases(tilecRuntime rt, uint64_t seed)
{
    static char src[2048], tmp[2048];
    replace_all(tmp, sizeof tmp, offset_src, "%k = %k0 to", "%k = 0 to");
    replace_all(src, sizeof src, tmp, "load %vb[%k, %n0]", "load %vb[%k, %n]");
    Config c = {"f32", "tf32-rne", "sm_90a", 64, 64, 32, 4, "-fwgmma-tma-only -fwgmma-tma-store", 0, 0};
    static const int cases[][2] = {{76, 80}, {75, 80}, {75, 77}}; /* N, lda: A's rows off 16 bytes (staged) */
    for (int i = 0; i < 3; i++) {
        enum { M = 70, K = 77, LD = 80 };
        int n = cases[i][0], lda = cases[i][1];
        unsigned grid[3] = {(M + 63) / 64, (unsigned)(n + 63) / 64, 1};
        run_dense(rt, &c, src, "unproven_store.tir", "gemm", M, n, K, lda, LD, LD, 0, 0, grid, seed++, "",
                  lda == LD ? " C's column unproven, TMA only" : " C's column unproven, TMA only, A staged");
    }
}

/* examples/matmul_grouped.tir (a 1-D grid in the grouped tile order, the
 * 128x256 tile) on a shape whose last group of tile rows is partial (11 rows
 * of tiles: 8 + 3) and whose last tile column is partial; row strides
 * 16-byte aligned (TMA where it applies). Every element of C is checked
 * against fp64, and C's padding columns must stay unwritten. */
/* examples/NAME into src (8 KiB); 0 and a failure when it cannot be read. */
static int read_example(const char *name, char *src, size_t cap)
{
    const char *dir = getenv("TILEC_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", dir ? dir : ".", name);
    FILE *f = fopen(path, "rb");
    size_t len = f ? fread(src, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    src[len] = 0;
    if (!len) {
        printf("FAIL: cannot read %s (set TILEC_SOURCE_DIR)\n", path);
        failures++;
    }
    return len != 0;
}

static void run_grouped_example(tilecRuntime rt, const Config *c, uint64_t seed, const char *post)
{
    static char src[8192];
    if (!read_example("matmul_grouped.tir", src, sizeof src))
        return;
    enum { M = 1300, N = 700, K = 200 };
    unsigned grid[3] = {((M + 127) / 128) * ((N + 255) / 256), 1, 1};
    run_dense(rt, c, src, "matmul_grouped.tir", "matmul_grouped", M, N, K, 200, 704, 708, 0, 0, grid, seed,
              "examples/matmul_grouped.tir ", post);
}

/* Whether the space-separated list opts holds opt. */
static int has_option(const char *opts, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = opts ? strstr(opts, opt) : NULL; p; p = strstr(p + 1, opt))
        if ((p == opts || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

/* Fails unless rt's log gained a note of a staged view since mark: a
 * staged case whose views were not staged checks nothing of staging. */
static void expect_staged(tilecRuntime rt, size_t mark, const char *what)
{
    /* options whose kernels take no tensor map for these views: nothing to stage */
    const char *copt = getenv("TILEC_TEST_COPT");
    if (has_option(copt, "-fno-wgmma-tma") || has_option(copt, "-fno-wgmma-swapped") || has_option(copt, "-fno-wgmma")) {
        printf("%s: staging not checked (TILEC_TEST_COPT=%s: no tensor maps for these views)\n", what, copt);
        return;
    }
    int ok = gpu_log_has_since(rt, mark, "staged the view of tensor map");
    printf("%s: the log notes a staged view: %s\n", what, ok ? "ok" : "FAIL");
    failures += !ok;
}

/* examples/matmul.tir (128x128 tiles), 300x520x333 with row strides no
 * tensor map describes (lda K + 2, ldb N + 1, ldc N + 3), all of C checked. */
static void run_skewed_matmul(tilecRuntime rt, const char *src, const char *mode, uint64_t seed, const char *prefix)
{
    enum { M = 300, N = 520, K = 333 };
    Config c = {"f32", mode, "sm_90a", 128, 128, 32, 8, NULL, 0, 0};
    unsigned grid[3] = {(M + 127) / 128, (N + 127) / 128, 1};
    run_dense(rt, &c, src, "matmul.tir", "matmul", M, N, K, K + 2, N + 1, N + 3, 0, 0, grid, seed, prefix,
              " (lda K + 2, ldb N + 1)");
}

/* Staging (runtime/stage.h): examples/matmul.tir (128x128 tiles) and
 * matmul_bf16.tir (128x256) with row strides that no tensor map describes
 * (K + 2, N + 1, ...), on a runtime made with TILEC_STAGE=1, which stages
 * every such view whatever its reuse; then (not quick) on the usual
 * runtime, a shape whose views are read by enough programs to be staged by
 * the default rule. Each checked like run_dense's: all of C. */
static void run_staged_cases(tilecRuntime rt, int quick, uint64_t seed)
{
    static char f32_src[8192], bf16_src[8192];
    if (!read_example("matmul.tir", f32_src, sizeof f32_src) || !read_example("matmul_bf16.tir", bf16_src, sizeof bf16_src))
        return;
    const char *old = getenv("TILEC_STAGE");
    char saved[16];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    setenv("TILEC_STAGE", "1", 1);
    tilecRuntime forced = gpu_open();
    if (old)
        setenv("TILEC_STAGE", saved, 1);
    else
        unsetenv("TILEC_STAGE");
    enum { M = 300, N = 520, K = 333 };
    static const char *const modes[] = {"tf32-rna", "tf32-rne", "tf32-trunc", "3xtf32"};
    for (size_t p = 0; p < 4; p++) {
        size_t mark = gpu_log_mark(forced);
        run_skewed_matmul(forced, f32_src, modes[p], seed++, "examples/matmul.tir staged ");
        if (precision_wanted(modes[p]))
            expect_staged(forced, mark, modes[p]);
    }
    Config h = {"bf16", "ieee", "sm_90a", 128, 256, 64, 8, NULL, 0, 0};
    unsigned hgrid[3] = {(M + 127) / 128, (N + 255) / 256, 1};
    size_t mark = gpu_log_mark(forced);
    run_dense(forced, &h, bf16_src, "matmul_bf16.tir", "matmul_bf16", M, N, K, K + 1, N + 3, N, 0, 0, hgrid, seed++,
              "examples/matmul_bf16.tir staged ", " (lda K + 1, ldb N + 3)");
    if (precision_wanted(h.precision))
        expect_staged(forced, mark, "bf16");
    gpu_close(&forced);
    /* the same views on the usual runtime: too few programs for the default rule to stage them, so
     * the kernel copies them itself; loaded by tilecModuleLoadSource, that is the kernel as asked
     * for, loaded at this launch in place of the JIT's TMA-only one */
    const char *how = getenv("TILEC_TEST_LOAD");
    for (size_t p = 0; p < 2; p++) {
        size_t mark = gpu_log_mark(rt);
        run_skewed_matmul(rt, f32_src, modes[p], seed++, "examples/matmul.tir not staged ");
        if (how && !strcmp(how, "source") && precision_wanted(modes[p])) {
            int ok = gpu_log_has_since(rt, mark, "loaded them with their own copies too");
            printf("%s: the log notes the JIT's fallback to the kernel as asked for: %s\n", modes[p], ok ? "ok" : "FAIL");
            failures += !ok;
        }
    }
    if (quick)
        return;
    enum { BM = 2100, BN = 2100, BK = 100 }; /* 17 x 17 programs: each view read by 17.6 per element */
    Config c = {"f32", "tf32-rna", "sm_90a", 128, 128, 32, 8, NULL, 0, 0};
    unsigned grid[3] = {(BM + 127) / 128, (BN + 127) / 128, 1};
    mark = gpu_log_mark(rt);
    run_dense(rt, &c, f32_src, "matmul.tir", "matmul", BM, BN, BK, BK + 1, BN + 1, BN + 3, 0, 0, grid, seed,
              "examples/matmul.tir ", " (lda K + 1, ldb N + 1: staged by the default rule)");
    if (precision_wanted(c.precision))
        expect_staged(rt, mark, "the default rule");
}

/* dst = src with every `from` replaced by `to` (dst holds cap bytes). */
static void replace_all(char *dst, size_t cap, const char *src, const char *from, const char *to)
{
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    while (*src && n + tl + 1 < cap) {
        if (!strncmp(src, from, fl)) {
            memcpy(dst + n, to, tl);
            n += tl;
            src += fl;
        } else {
            dst[n++] = *src++;
        }
    }
    dst[n] = 0;
}

/* -fwgmma-cluster (experimental): examples/matmul.tir and its 128x256
 * variant, programs paired into clusters of two blocks sharing B's copies,
 * one program a block (pairs along x) and persistent (programs 2j and
 * 2j + 1, which a 2-D grid of odd x pairs across rows of tiles: there the
 * blocks copy B alone), the latter also with TILEC_PERSIST_BLOCKS=2 and 6
 * (a cluster runs many programs, switching between sharing B and not, its
 * barriers' phases carried from one to the next): an odd grid x covering
 * all rows, an odd grid x covering fewer rows than C has (the program the
 * launch adds stores nothing: the rows after the grid's stay poisoned), an
 * even grid; 16-byte rows (TMA only); and examples/matmul_grouped.tir, whose
 * last group's pairs take different columns. */
static void run_cluster_set(tilecRuntime rt, uint64_t seed, int persistent, int nmodes, const char *blocks)
{
    static char src128[8192], src256[8192], tmp[8192];
    if (!read_example("matmul.tir", src128, sizeof src128))
        return;
    replace_all(tmp, sizeof tmp, src128, "128x128xf32", "128x256xf32");
    replace_all(src256, sizeof src256, tmp, "32x128xf32", "32x256xf32");
    replace_all(tmp, sizeof tmp, src256, "%n0 = mul %pn, 128", "%n0 = mul %pn, 256");
    memcpy(src256, tmp, sizeof src256);
    static const char *const modes[] = {"tf32-rna", "tf32-rne", "tf32-trunc", "3xtf32"};
    static const char *const copts[] = {"-fwgmma-tma-only -fwgmma-cluster -fno-persistent",
                                        "-fwgmma-tma-only -fwgmma-cluster"};
    char post[96];
    for (int wide = 0; wide < 2; wide++)
        for (int p = 0; p < nmodes; p++) {
            int bn = wide ? 256 : 128;
            if (wide && p == 3) /* 3xtf32 at 128x256: the generic lowering */
                continue;
            Config c = {"f32", modes[p], "sm_90a", 128, bn, 32, 8, copts[persistent], 0, 0};
            const char *src = wide ? src256 : src128;
            snprintf(post, sizeof post, " (128x%d%s%s%s)", bn, persistent ? ", persistent" : "",
                     blocks ? ", TILEC_PERSIST_BLOCKS=" : "", blocks ? blocks : "");
            unsigned odd[3] = {3, (520 + bn - 1) / bn, 1}, part[3] = {3, 512 / bn, 1}, even[3] = {4, 512 / bn, 1};
            run_dense(rt, &c, src, "matmul.tir", "matmul", 300, 520, 336, 336, 520, 520, 0, 0, odd, seed++,
                      "cluster, odd grid x ", post);
            run_dense_rows(rt, &c, src, "matmul.tir", "matmul", 512, 512, 512, 512, 512, 512, 0, 0, part, seed++,
                           "cluster, 3 of 4 programs along x ", post, 384);
            run_dense(rt, &c, src, "matmul.tir", "matmul", 512, 512, 512, 512, 512, 512, 0, 0, even, seed++,
                      "cluster, even grid x ", post);
        }
    for (int p = 0; p < 2; p++) {
        Config c = {"f32", modes[p], "sm_90a", 128, 256, 32, 8, copts[persistent], 0, 0};
        snprintf(post, sizeof post, " (cluster%s%s%s)", persistent ? ", persistent" : "",
                 blocks ? ", TILEC_PERSIST_BLOCKS=" : "", blocks ? blocks : "");
        run_grouped_example(rt, &c, seed++, post);
    }
}

static void run_cluster_cases(tilecRuntime rt, uint64_t seed)
{
    run_cluster_set(rt, seed, 0, 4, NULL);
    run_cluster_set(rt, seed + 32, 1, 4, NULL);
    static const char *const caps[] = {"2", "6"};
    for (int i = 0; i < 2; i++) {
        setenv("TILEC_PERSIST_BLOCKS", caps[i], 1);
        tilecRuntime capped = gpu_open();
        unsetenv("TILEC_PERSIST_BLOCKS");
        run_cluster_set(capped, seed + 64 + 32 * (uint64_t)i, 1, 2, caps[i]);
        tilecRuntimeDestroy(&capped);
    }
}

/* kernel_fmt for c's tile, warps and element type */
static void config_source(const Config *c, char *src, size_t cap)
{
    snprintf(src, cap, kernel_fmt, c->elem, c->elem, c->warps, c->bm, c->bn, c->mmajor_a ? "1" : "%sam",
             c->kmajor_b ? "1" : "%sbk", c->bm,
             c->bn, c->bk, c->bm, c->bk, c->elem, c->bk, c->bn, c->elem, c->bm, c->bn);
}

static tilecModule load_config(tilecRuntime rt, const Config *c);

/* A K-major B's five shapes for config c (its kmajor_b set): TMA through B^T's map (aligned rows),
 * the kernel's own copies (odd rows), batches, a transposed A, Inf and NaN (every K step too), 1x1x1 */
static void run_kmajor_shapes(tilecRuntime rt, const Config *c, uint64_t *seed)
{
    tilecModule mod = load_config(rt, c);
    Shape sh[] = {{300, 520, 333, 1, 0, 1, 0, 0, 1}, {260, 300, 100, 2, 0, 1, 0, 0, 0},
                  {260, 304, 96, 2, 1, 1, 1, 0, 1},  {129, 200, 64, 1, 0, 1, 2, 0, 0},
                  {1, 1, 1, 1, 0, 1, 0, 0, 1}};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
        run_case(rt, mod, c, &sh[i], (*seed)++);
    tilecModuleUnload(&mod);
}

/* An M-major A's four shapes for config c (its mmajor_a set): aligned rows of A^T (TMA through its
 * map), odd ones (the kernel's own copies, or A^T staged), a batch, edges in every dimension, Inf and NaN */
static void run_mmajor_shapes(tilecRuntime rt, const Config *c, uint64_t *seed)
{
    tilecModule mod = load_config(rt, c);
    Shape sh[] = {{300, 520, 333, 1, 1, 0, 0, 0, 1}, {260, 300, 100, 2, 1, 0, 0, 0, 0},
                  {129, 203, 190, 1, 1, 0, 1, 0, 1}, {256, 512, 128, 1, 1, 0, 0, 0, 1}};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
        run_case(rt, mod, c, &sh[i], (*seed)++);
    tilecModuleUnload(&mod);
}

static tilecModule load_config(tilecRuntime rt, const Config *c)
{
    char src[4096];
    config_source(c, src, sizeof src);
    return load_with_copts(rt, src, "gemm.tir", c);
}

/* -fwgmma-tma-store (the JIT's default) where a launch gives C no map (rows
 * K + 3 .. long, or N = 522: N % 4 != 0; the consumers store the bands of
 * the TMA's layout themselves, in a loop) and where it gives one (N = 520,
 * rows 16-byte aligned), and -fwgmma-x3-halves (experimental): what
 * TILEC_TEST_TMA_STORE=only runs alone (emulated.gpu_test_gemm_tma_store). */
static void run_tma_store_cases(tilecRuntime rt, uint64_t seed)
{
    static const struct {
        int bm, bn, warps;
        const char *precision, *copt;
    } cfgs[] = {{128, 256, 8, "tf32-rna", "-fwgmma-tma-store"},
                {128, 128, 8, "tf32-rne", "-fwgmma-tma-store"},
                {64, 64, 4, "3xtf32", "-fwgmma-tma-store"},
                {128, 128, 8, "3xtf32", "-fwgmma-tma-store -fwgmma-x3-halves"},
                {64, 64, 4, "3xtf32", "-fwgmma-x3-halves"}};
    Shape sh[] = {{300, 520, 333, 1, 0, 0, 0, 0, 0}, {300, 522, 333, 1, 0, 0, 0, 0, 1},
                  {260, 300, 100, 2, 0, 1, 0, 0, 0}, {300, 520, 333, 1, 0, 0, 0, 0, 1}};
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        Config c = {"f32", cfgs[i].precision, "sm_90a", cfgs[i].bm, cfgs[i].bn, 32, cfgs[i].warps, cfgs[i].copt, 0, 0};
        tilecModule mod = load_config(rt, &c);
        for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++)
            run_case(rt, mod, &c, &sh[s], seed++);
        tilecModuleUnload(&mod);
    }
}

/* One random configuration: tile, warps, element type, precision, target
 * and maybe one option, on a few random shapes (sizes around the tile's,
 * batches, transposed operands, aligned or odd strides, Inf and NaN). A
 * configuration the compiler refuses for a documented limit (registers,
 * shared memory) is skipped; any other refusal fails. */
static void run_random_config(tilecRuntime rt, uint64_t *st, uint64_t seed)
{
    static const int sides[] = {16, 32, 64, 128, 256}, bks[] = {8, 16, 32, 64}, warps[] = {1, 2, 4, 8};
    static const char *const precs[] = {"ieee", "tf32-trunc", "tf32-rna", "tf32-rne", "3xtf32"};
    static const char *const elems[] = {"f32", "f32", "f32", "f16", "bf16"};
    static const char *const copts[] = {NULL, NULL, NULL, "-fno-wgmma", "-fno-persistent", "-fwgmma-tma-only",
                                        "-fno-wgmma-tma", "--stages=2", "-fprefetch", "-fno-wgmma-swapped",
                                        "-fwgmma-tma-store", "-O1"};
    Config c;
    c.elem = elems[gpu_rand_next(st) % 5];
    c.precision = strcmp(c.elem, "f32") ? "ieee" : precs[gpu_rand_next(st) % 5];
    c.arch = gpu_rand_next(st) % 3 ? "sm_90a" : "sm_80";
    c.bm = sides[gpu_rand_next(st) % 5];
    c.bn = sides[gpu_rand_next(st) % 5];
    c.bk = bks[gpu_rand_next(st) % 4];
    c.warps = warps[gpu_rand_next(st) % 4];
    c.copt = copts[gpu_rand_next(st) % (sizeof copts / sizeof copts[0])];
    c.kmajor_b = !strcmp(c.elem, "f32") && gpu_rand_next(st) % 4 == 0; /* B's k stride the constant 1 */
    c.mmajor_a = gpu_rand_next(st) % 4 == 0; /* A's m stride the constant 1 */
    char src[4096], prec[64], arch[32];
    config_source(&c, src, sizeof src);
    snprintf(prec, sizeof prec, "--precision=%s", c.precision);
    snprintf(arch, sizeof arch, "--arch=%s", c.arch);
    const char *opts[3] = {prec, arch, c.copt};
    tilecProgram p = NULL;
    const char *log = "";
    printf("random config %s %s %s %dx%dx%d w%d%s%s %s:", c.arch, c.elem, c.precision, c.bm, c.bn, c.bk, c.warps,
           c.kmajor_b ? " B K-major" : "", c.mmajor_a ? " A M-major" : "", c.copt ? c.copt : "");
    double t0 = gpu_now_ms();
    GPU_CHECK(NULL, tilecCreateProgram(&p, src, strlen(src), "gemm.tir"));
    tilecResult r = tilecCompileProgram(p, c.copt ? 3 : 2, opts);
    tilecGetProgramLog(p, &log);
    printf(" compiled in %.0f ms%s", gpu_now_ms() - t0, r == TILEC_SUCCESS ? "" : ", refused\n");
    if (r != TILEC_SUCCESS) {
        if (!strstr(log, "registers") && !strstr(log, "shared memory")) {
            printf("FAIL: the compiler refused it for no limit: %s\n%s", tilecGetErrorString(r), log);
            failures++;
        }
        tilecDestroyProgram(&p);
        return;
    }
    tilecModule mod = NULL;
    t0 = gpu_now_ms();
    GPU_CHECK(rt, tilecModuleLoad(rt, p, &mod));
    printf(", loaded in %.0f ms\n", gpu_now_ms() - t0); /* the driver's ptxas: slow where a tile spills */
    tilecDestroyProgram(&p);
    for (int k = 0; k < 3; k++) {
        /* sizes near the tile's multiples (edges), and small ones */
        int d[3], t[3] = {c.bm, c.bn, c.bk};
        for (int j = 0; j < 3; j++) {
            uint64_t r2 = gpu_rand_next(st);
            d[j] = r2 % 4 == 0 ? 1 + (int)(r2 >> 8) % 40 : t[j] * (1 + (int)(r2 >> 8) % 3) + (int)(r2 >> 16) % 7 - 3;
            if (d[j] < 1)
                d[j] = 1;
        }
        uint64_t r3 = gpu_rand_next(st);
        Shape sh = {d[0], d[1], d[2], 1 + (int)(r3 % 2), (int)(r3 >> 4) % 4 == 0, (int)(r3 >> 8) % 4 == 0,
                    (int)(r3 >> 12) % 5 == 0, 0, (int)(r3 >> 16) % 2};
        run_case(rt, mod, &c, &sh, seed + (uint64_t)k);
    }
    tilecModuleUnload(&mod);
}

/* Closes the runtime; the verdict and the exit status. */
static int finish(tilecRuntime *rt)
{
    gpu_close(rt);
    printf("%s: %d failing case(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}

int main(void)
{
    const char *cl = getenv("TILEC_TEST_CLUSTER"); /* experimental: until it has run, a hang must not stop the rest */
    if (cl && !strcmp(cl, "only")) /* each line as it ends (a hang shows where); before any output, as C asks */
        setvbuf(stdout, NULL, _IOLBF, 0);
    tilecRuntime rt = gpu_open();
    static const char *const precisions[] = {"ieee", "tf32-trunc", "tf32-rna", "tf32-rne", "3xtf32"};
    static const char *const archs[] = {"sm_80", "sm_90a"};
    const Shape small[] = {
        {1, 1, 1, 1, 0, 0, 0, 0, 0},       {17, 9, 33, 1, 0, 0, 0, 0, 0},  {63, 65, 67, 1, 0, 0, 0, 0, 0},
        {63, 65, 67, 3, 1, 0, 0, 0, 0},    {63, 65, 67, 2, 0, 1, 0, 0, 0}, {40, 50, 70, 2, 1, 1, 0, 0, 0},
        {64, 64, 64, 1, 0, 0, 1, 0, 0},
    };
    uint64_t seed = 1234;
    const char *q = getenv("TILEC_GPU_QUICK");
    int quick = q && q[0] == '1';
    const char *rc = getenv("TILEC_TEST_RANDOM_CONFIGS"); /* N random configurations alone */
    if (rc && atoi(rc) > 0) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        const char *se = getenv("TILEC_TEST_SEED");
        uint64_t st = se && se[0] ? strtoull(se, NULL, 0) : (uint64_t)time(NULL);
        printf("random configurations from seed %llu (TILEC_TEST_SEED repeats them)\n", (unsigned long long)st);
        for (int i = 0; i < atoi(rc); i++)
            run_random_config(rt, &st, seed + 8 * (uint64_t)i);
        return finish(&rt);
    }
    if (cl && !strcmp(cl, "only")) { /* those cases alone */
        run_cluster_cases(rt, seed);
        return finish(&rt);
    }
    const char *ts = getenv("TILEC_TEST_TMA_STORE");
    if (ts && !strcmp(ts, "only")) { /* those cases alone */
        run_tma_store_cases(rt, seed);
        return finish(&rt);
    }
    for (size_t a = 0; a < 2; a++)
        for (size_t p = 0; p < 5; p++) {
            Config c = {"f32", precisions[p], archs[a], 64, 64, 32, 4, NULL, 0, 0};
            tilecModule mod = load_config(rt, &c);
            for (size_t s = 0; s < sizeof small / sizeof small[0]; s++)
                run_case(rt, mod, &c, &small[s], seed++);
            Shape big = {1000, 1999, 777, 1, 0, 0, 0, 64, 0};
            if (!quick)
                run_case(rt, mod, &c, &big, seed++);
            tilecModuleUnload(&mod);
        }
    for (size_t a = 0; a < 2; a++)
        for (int e = 0; e < 2; e++) {
            Config c = {e ? "bf16" : "f16", "ieee", archs[a], 64, 64, 32, 4, NULL, 0, 0};
            tilecModule mod = load_config(rt, &c);
            Shape s1 = {63, 65, 67, 2, 1, 0, 0, 0, 0}, s2 = {1000, 1999, 777, 1, 0, 1, 0, 64, 0};
            run_case(rt, mod, &c, &s1, seed++);
            if (!quick)
                run_case(rt, mod, &c, &s2, seed++);
            tilecModuleUnload(&mod);
        }
    for (size_t a = 0; a < 2; a++)
        for (size_t p = 2; p < 5; p += 2) { /* tf32-rna, 3xtf32 */
            Config c = {"f32", precisions[p], archs[a], 64, 64, 32, 4, NULL, 0, 0};
            run_offset_case(rt, &c, 1, 1, seed++);
            run_offset_case(rt, &c, 3, 2, seed++);
            run_offset_case(rt, &c, 4, 4, seed++); /* 16-byte aligned starts: TMA with -fwgmma-tma */
        }
    /* the benchmark's wide tiles (one consumer warpgroup holding 128 or 256
     * columns), and those of the FMA pipeline (ieee, -fwgmma-ffma: 128x128
     * with 8 warps, 128x64 with 4): edges in every dimension, a transposed
     * B (element copies) */
    static const int wide[][3] = {{128, 256, 8}, {256, 128, 8}, {64, 256, 4}, {128, 128, 4},
                                  {256, 64, 4},  {64, 256, 8},  {128, 128, 8}, {128, 64, 4}};
    for (size_t w = 0; w < sizeof wide / sizeof wide[0]; w++)
        for (size_t p = 0; p < 5; p++) {
            Config c = {"f32", precisions[p], "sm_90a", wide[w][0], wide[w][1], 32, wide[w][2], NULL, 0, 0};
            tilecModule mod = load_config(rt, &c);
            Shape s1 = {300, 520, 333, 1, 0, 0, 0, 0, 0}, s2 = {260, 300, 100, 2, 0, 1, 0, 0, 0};
            /* 16-byte aligned rows (TMA where it applies: edges in every dimension, a
             * batch; N % 8 != 0, whose B panels the TMA cannot bound) */
            Shape s3 = {300, 520, 333, 1, 0, 0, 0, 0, 1}, s4 = {260, 304, 100, 2, 0, 0, 1, 0, 1},
                  s5 = {300, 522, 333, 1, 0, 0, 0, 0, 1};
            /* Inf and NaN at K steps 0, 5 and 10 of 11 (TMA where it applies); for 3xtf32 also an
             * Inf at every step (its spare tile, written again each step once the one before is
             * released) */
            Shape s6 = {300, 520, 333, 1, 0, 0, 1, 0, 1}, s7 = {300, 520, 333, 1, 0, 0, 2, 0, 1},
                  s8 = {300, 520, 333, 1, 0, 0, 2, 0, 0};
            run_case(rt, mod, &c, &s1, seed++);
            run_case(rt, mod, &c, &s2, seed++);
            run_case(rt, mod, &c, &s3, seed++);
            run_case(rt, mod, &c, &s4, seed++);
            run_case(rt, mod, &c, &s5, seed++);
            run_case(rt, mod, &c, &s6, seed++);
            if (!strcmp(c.precision, "3xtf32")) { /* with TMA, and with the kernel's own copies */
                run_case(rt, mod, &c, &s7, seed++);
                run_case(rt, mod, &c, &s8, seed++);
            }
            tilecModuleUnload(&mod);
        }
    /* ieee's narrow FMA tiles (BN 16: no whole 32-column panel of B, so no tensor maps; the
     * kernel's own copies): aligned rows, where a map would otherwise apply, and edges */
    {
        Config c = {"f32", "ieee", "sm_90a", 128, 16, 32, 4, NULL, 0, 0};
        tilecModule mod = load_config(rt, &c);
        Shape s1 = {300, 520, 333, 1, 0, 0, 0, 0, 1}, s2 = {260, 304, 100, 2, 0, 0, 0, 0, 0};
        run_case(rt, mod, &c, &s1, seed++);
        run_case(rt, mod, &c, &s2, seed++);
        tilecModuleUnload(&mod);
    }
    /* the f16/bf16 pipeline's tiles (64 k a step, 64 rows of C per consumer
     * warpgroup): edges in every dimension, odd strides and transposed
     * operands (element copies), and row strides of A and B that are
     * multiples of 8 elements (K + 3, N + 1: 16-byte copies inside) */
    static const int half[][3] = {{128, 256, 8}, {128, 128, 8}, {128, 64, 8}, {64, 256, 4}, {64, 128, 4}, {64, 64, 4}};
    for (size_t w = 0; w < sizeof half / sizeof half[0]; w++)
        for (int e = 0; e < 2; e++) {
            Config c = {e ? "bf16" : "f16", "ieee", "sm_90a", half[w][0], half[w][1], 64, half[w][2], NULL, 0, 0};
            tilecModule mod = load_config(rt, &c);
            Shape sh[] = {{300, 520, 333, 1, 0, 0, 0, 0, 0}, {260, 300, 100, 2, 0, 1, 0, 0, 0},
                          {129, 203, 190, 1, 1, 0, 0, 0, 0}, {255, 257, 129, 1, 0, 0, 0, 0, 0},
                          {256, 511, 253, 1, 0, 0, 0, 0, 0}, {384, 1023, 509, 1, 0, 0, 0, 0, 0},
                          {300, 520, 333, 1, 0, 0, 0, 0, 1}, {260, 304, 100, 2, 0, 0, 1, 0, 1}};
            for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
                run_case(rt, mod, &c, &sh[i], seed++);
            tilecModuleUnload(&mod);
        }
    /* B K-major in the kernel (its k stride the constant 1: lower_wgmma_kmajor.c for the tf32
     * modes, both operands from shared memory; 3xtf32 the swapped product with B's tile copied as
     * A's, its fragments read from there; ieee the same copies transposed by the producers into a
     * row-major B's panels, at the tiles below; sm_80 element copies): TMA through B^T's map
     * (aligned rows), the kernel's own copies (odd rows), edges in every dimension, batches, Inf
     * and NaN, one producer warpgroup (BN 256) */
    static const int kmajor[][3] = {{128, 256, 8}, {128, 128, 8}, {64, 256, 4}, {64, 64, 4}, {128, 16, 8}};
    for (size_t w = 0; w < sizeof kmajor / sizeof kmajor[0]; w++)
        for (size_t p = 0; p < 5; p++) {
            /* (ieee: the first tile only; 3xtf32: also the tiles its swapped product takes, 128x128
             * and 64x64; at 128x256 it takes the generic lowering) */
            if (w && (p == 0 || (p == 4 && w != 1 && w != 3)))
                continue;
            Config c = {"f32", precisions[p], "sm_90a", kmajor[w][0], kmajor[w][1], 32, kmajor[w][2], NULL, 1, 0};
            run_kmajor_shapes(rt, &c, &seed);
        }
    /* 3xtf32's K-major B again: two 64-column blocks a consumer warpgroup (64x128, 4 warps), and the
     * kernel's own 16-byte copies of B^T's rows where they are aligned (-fno-wgmma-tma). ieee with a
     * K-major B (B^T's rows transposed into panels by the producers, bt_transpose): 4, 2 and 1
     * panels (BN 128, 64, 32), the kernel's own copies (-fno-wgmma-tma), and the consumers reading
     * B^T's rows themselves (-fno-wgmma-ffma-transpose-b: a thread's columns c + tc*j, each column's
     * 4 k one 16-byte load; BN 16, less than a panel, always); B^T's rows where each producer
     * warpgroup also copies (-fno-wgmma-roles), the transposition where one does both
     * (-fwgmma-one-producer); 16 columns a thread (-fwgmma-ffma-wide) keeps the element copies */
    static const struct {
        const char *prec;
        int bm, bn, warps;
        const char *copt;
    } kmajor_more[] = {{"3xtf32", 64, 128, 4, NULL}, {"3xtf32", 128, 128, 8, "-fno-wgmma-tma"},
                       {"ieee", 128, 128, 8, NULL},  {"ieee", 64, 64, 4, NULL},
                       {"ieee", 64, 32, 4, NULL},    {"ieee", 256, 128, 8, "-fwgmma-ffma-wide"},
                       {"ieee", 128, 128, 8, "-fno-wgmma-tma"},
                       {"ieee", 128, 128, 8, "-fno-wgmma-ffma-transpose-b"},
                       {"ieee", 128, 16, 4, NULL},
                       {"ieee", 128, 128, 8, "-fno-wgmma-roles"},
                       {"ieee", 128, 128, 8, "-fwgmma-one-producer"}};
    for (size_t w = 0; w < sizeof kmajor_more / sizeof kmajor_more[0]; w++) {
        Config c = {"f32", kmajor_more[w].prec, "sm_90a", kmajor_more[w].bm, kmajor_more[w].bn, 32,
                    kmajor_more[w].warps, kmajor_more[w].copt, 1, 0};
        run_kmajor_shapes(rt, &c, &seed);
    }
    /* the f16/bf16 pipeline with a K-major B: B^T's rows copied as A's, read without the
     * transpose bit (TMA through B^T's map; the kernel's own copies at odd rows) */
    static const int kmajor16[][3] = {{128, 256, 8}, {64, 128, 4}};
    for (size_t w = 0; w < sizeof kmajor16 / sizeof kmajor16[0]; w++)
        for (int e = 0; e < 2; e++) {
            Config c = {e ? "bf16" : "f16", "ieee", "sm_90a", kmajor16[w][0], kmajor16[w][1], 64, kmajor16[w][2], NULL, 1, 0};
            tilecModule mod = load_config(rt, &c);
            Shape sh[] = {{300, 520, 333, 1, 0, 1, 0, 0, 1}, {260, 300, 100, 2, 0, 1, 0, 0, 0},
                          {129, 203, 190, 1, 1, 1, 0, 0, 1}};
            for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
                run_case(rt, mod, &c, &sh[i], seed++);
            tilecModuleUnload(&mod);
        }
    /* ... with an M-major A (A^T @ B, a weight gradient's X^T dY; -fwgmma-mmajor-a, the default):
     * A^T's rows copied as a row-major B's panels, read with the transpose bit for A (TMA through A^T's map at aligned
     * rows, the kernel's own copies at odd ones), B row-major or K-major too; last, once, the element copies
     * that -fno-wgmma-mmajor-a leaves */
    for (size_t w = 0; w < sizeof kmajor16 / sizeof kmajor16[0]; w++)
        for (int e = 0; e < 2; e++)
            for (int bk = 0; bk < 2 + (w == 1 && e == 1); bk++) {
                Config c = {e ? "bf16" : "f16", "ieee", "sm_90a", kmajor16[w][0], kmajor16[w][1], 64, kmajor16[w][2],
                            bk == 2 ? "-fno-wgmma-mmajor-a" : NULL, bk == 1, 1};
                run_mmajor_shapes(rt, &c, &seed);
            }
    /* f32 with an M-major A (the swapped product, B K-major's for the tf32 modes): A^T's 32-column
     * panels transposed into A's rows by the producers, rounded (split) as they go; every f32 mode at
     * 128x128, the tf32 ones at 128x256, tf32-rna and 3xtf32 at 64x64 (BM 64: two panels, two warps),
     * tf32-rna at 256x128 (eight panels, two a warp), B row-major and K-major (tf32-rna, -trunc and
     * -rne, 3xtf32), the kernel's own 16-byte copies of A^T's rows where they are aligned
     * (-fno-wgmma-tma); TMA through A^T's map at aligned rows, the kernel's own copies at odd ones, a
     * batch, edges in every dimension, Inf and NaN */
    static const struct {
        int bm, bn, warps;
        const char *prec;
        int bk;
        const char *copt;
    } mmajor32[] = {{128, 128, 8, "tf32-rna", 0, NULL},   {128, 128, 8, "tf32-rne", 0, NULL},
                    {128, 128, 8, "tf32-trunc", 0, NULL}, {128, 128, 8, "3xtf32", 0, NULL},
                    {128, 128, 8, "ieee", 0, NULL},       {128, 256, 8, "tf32-rna", 0, NULL},
                    {128, 256, 8, "tf32-rne", 0, NULL},   {64, 64, 4, "tf32-rna", 0, NULL},
                    {64, 64, 4, "3xtf32", 0, NULL},       {256, 128, 8, "tf32-rna", 0, NULL},
                    {128, 128, 8, "tf32-rna", 1, NULL},   {128, 128, 8, "tf32-trunc", 1, NULL},
                    {128, 128, 8, "tf32-rne", 1, NULL},   {128, 128, 8, "3xtf32", 1, NULL},
                    {128, 128, 8, "ieee", 1, NULL},       {128, 128, 8, "tf32-rna", 0, "-fno-wgmma-tma"}};
    for (size_t w = 0; w < sizeof mmajor32 / sizeof mmajor32[0]; w++) {
        Config c = {"f32", mmajor32[w].prec, "sm_90a", mmajor32[w].bm, mmajor32[w].bn, 32, mmajor32[w].warps,
                    mmajor32[w].copt, mmajor32[w].bk, 1};
        run_mmajor_shapes(rt, &c, &seed);
    }
    {
        Config c = {"f32", "tf32-rna", "sm_80", 64, 64, 32, 4, NULL, 1, 0};
        tilecModule mod = load_config(rt, &c);
        Shape s1 = {63, 65, 67, 2, 0, 1, 0, 0, 1};
        run_case(rt, mod, &c, &s1, seed++);
        tilecModuleUnload(&mod);
    }
    for (size_t a = 0; a < 2; a++)
        for (size_t p = 2; p < 4; p++) { /* tf32-rna, tf32-rne (TMA that rounds) */
            Config c = {"f32", precisions[p], archs[a], 128, 256, 32, 8, NULL, 0, 0};
            run_grouped_example(rt, &c, seed++, "");
        }
    run_unproven_store_cases(rt, seed);
    run_staged_cases(rt, quick, seed + 3);
    seed += 16;
    if (cl && !strcmp(cl, "1"))
        run_cluster_cases(rt, seed);
    seed += 16;
    if (!quick) { /* the large case with the big tile of examples/matmul.tir */
        Config c = {"f32", "tf32-rna", "sm_90a", 128, 128, 32, 8, NULL, 0, 0};
        tilecModule mod = load_config(rt, &c);
        Shape s = {4096, 4096, 4096, 1, 0, 0, 0, 32, 1};
        run_case(rt, mod, &c, &s, seed++);
        tilecModuleUnload(&mod);
    }
    return finish(&rt);
}
