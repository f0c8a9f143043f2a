/*
 * Views whose addresses pass 32 bits: a GEMM kernel whose A has more than
 * 2^31 elements (8 GiB and more, dense), and one whose A, B and C are
 * strided so widely that a row's offset passes 2^31 elements (4 GiB apart)
 * while the kernel touches little of them. Every offset a lowering, a
 * tensor map or the runtime's staging and pre-rounding copies computes in
 * 32 bits would wrap here and read another row (or fault). Each kernel runs
 * on sm_90a (the pipelines: TMA, wgmma) and on sm_80 (mma.sync and the
 * kernel's own copies), in the precisions whose lowerings differ, and once
 * more through the runtime's copies (TILEC_PREROUND=1, TILEC_STAGE=1).
 *
 * The dense A repeats PERIOD distinct rows (row i is pattern row i %
 * PERIOD, PERIOD prime to the row shift a 32-bit wrap would make), so the
 * fp64 reference is PERIOD rows of C and every row of C is checked. The
 * strided operands hold random values in the elements the kernel may read;
 * the words after each row of C are poisoned and must stay so.
 *
 * Needs ~26 GiB of device memory; a case whose buffers cannot be allocated
 * is reported skipped (exit 77 when no case ran).
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernel_src =
    "kernel @gemm(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32,\n"
    "             %lda: i32, %ldb: i32, %ldc: i32) warps(8) {\n"
    "  %pm = program_id 0\n"
    "  %pn = program_id 1\n"
    "  %m0 = mul %pm, 128\n"
    "  %n0 = mul %pn, 128\n"
    "  %va = view %A [%M, %K] strides [%lda, 1]\n"
    "  %vb = view %B [%K, %N] strides [%ldb, 1]\n"
    "  %vc = view %C [%M, %N] strides [%ldc, 1]\n"
    "  %z = zeros : tile<128x128xf32>\n"
    "  %acc = for %k = 0 to %K step 32 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<128x32xf32>\n"
    "    %b = load %vb[%k, %n0] : tile<32x128xf32>\n"
    "    %d = dot %a, %b, %c : tile<128x128xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  store %acc, %vc[%m0, %n0]\n"
    "}\n";

typedef struct {
    const char *arch, *precision;
    const char *env; /* NULL, or "TILEC_PREROUND" / "TILEC_STAGE" set to 1 for the runtime */
    const char *log_note; /* what the runtime's log must then say of the launch */
    unsigned cases;       /* DENSE, STRIDED, ODD: which of the cases run */
} Config;

enum { DENSE = 1, STRIDED = 2, ODD = 4, ALL = DENSE | STRIDED | ODD };

static const Config configs[] = {
    {"sm_90a", "tf32-rna", NULL, NULL, ALL},
    {"sm_90a", "tf32-rne", NULL, NULL, ALL},
    {"sm_90a", "3xtf32", NULL, NULL, ALL},
    {"sm_90a", "ieee", NULL, NULL, ALL},
    {"sm_80", "tf32-rna", NULL, NULL, ALL},
    {"sm_80", "ieee", NULL, NULL, ALL},
    {"sm_90a", "tf32-rna", "TILEC_PREROUND", "rounded to tf32 (rna)", ALL},
    /* staging copies only views that no tensor map describes (docs/TIR.md) */
    {"sm_90a", "tf32-rne", "TILEC_STAGE", "staged the view", ODD},
};

enum { PERIOD = 7, GUARD = 16 /* poisoned words after each strided row of C */ };

static int failures, ran, skipped;

static void report(const char *what, size_t bad, double worst, double tol)
{
    printf("%s: %s (worst |err| / sum|ab| %.3g, tolerance %.3g)\n", what, bad ? "FAIL" : "ok", worst, tol);
    failures += bad != 0;
    ran++;
}

/* A device buffer of `bytes`, or 0 where the device has not that much
 * memory; any other error fails the test. */
static tilecDevicePtr try_alloc(tilecRuntime rt, size_t bytes)
{
    tilecDevicePtr p = 0;
    tilecResult r = tilecMalloc(rt, &p, bytes);
    if (r == TILEC_ERROR_OUT_OF_MEMORY)
        return 0;
    GPU_CHECK(rt, r);
    return p;
}

static void free_all(tilecRuntime rt, int n, const tilecDevicePtr *p)
{
    for (int i = 0; i < n; i++)
        GPU_CHECK(rt, tilecFree(rt, p[i]));
}

/* n device buffers of bytes[i] into p[i]; where the device has not the
 * memory for them all, none (the case is reported skipped): 0. */
static int alloc_all(tilecRuntime rt, const char *what, int n, const size_t *bytes, tilecDevicePtr *p)
{
    size_t total = 0;
    int got = 0;
    for (int i = 0; i < n; i++)
        total += bytes[i];
    while (got < n && (p[got] = try_alloc(rt, bytes[got])))
        got++;
    if (got == n)
        return 1;
    printf("%s: skipped (no %.1f GiB of device memory)\n", what, (double)total / (1 << 30));
    free_all(rt, got, p);
    skipped++;
    return 0;
}

static tilecRuntime open_for(const Config *c)
{
    if (c->env)
        setenv(c->env, "1", 1);
    tilecRuntime rt = gpu_open();
    if (c->env)
        unsetenv(c->env);
    return rt;
}

static tilecModule load(tilecRuntime rt, const Config *c)
{
    char prec[48], arch[32];
    snprintf(prec, sizeof prec, "--precision=%s", c->precision);
    snprintf(arch, sizeof arch, "--arch=%s", c->arch);
    const char *opts[2] = {prec, arch};
    return gpu_load_copts(rt, kernel_src, "large.tir", 2, opts, NULL);
}

/* Whether a line of text holds both a and b. */
static int line_has_both(const char *text, const char *a, const char *b)
{
    for (const char *line = text; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *at = strstr(line, a), *bt = strstr(line, b);
        if (at && bt && at < line + n && bt < line + n)
            return 1;
        line += n + (eol != NULL);
    }
    return 0;
}

/* Launches @gemm over an M x N C; where c names a note, the runtime's log
 * must say it of A's view (M rows of K floats: that copy is the one past 4
 * GiB). 1: check C; 0: not (failed, or skipped where the runtime had not
 * the memory for its copy). */
static int launch(tilecRuntime rt, const Config *c, const char *what, tilecDevicePtr dA, tilecDevicePtr dB,
                  tilecDevicePtr dC, int32_t M, int32_t N, int32_t K, int32_t lda, int32_t ldb, int32_t ldc)
{
    tilecModule mod = load(rt, c);
    size_t mark = gpu_log_mark(rt);
    void *args[] = {&dA, &dB, &dC, &M, &N, &K, &lda, &ldb, &ldc};
    unsigned grid[3] = {(unsigned)(M + 127) / 128, (unsigned)(N + 127) / 128, 1};
    GPU_CHECK(rt, tilecLaunch(mod, "gemm", grid, NULL, args));
    GPU_CHECK(rt, tilecSynchronize(rt));
    GPU_CHECK(rt, tilecModuleUnload(&mod));
    if (!c->log_note)
        return 1;
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    log += strlen(log) >= mark ? mark : strlen(log);
    char a_view[64];
    snprintf(a_view, sizeof a_view, "(%d rows of %d bytes", M, K * 4);
    if (line_has_both(log, a_view, c->log_note))
        return 1;
    if (strstr(log, "not staging")) { /* the device had not the memory for the runtime's copy too */
        printf("%s: skipped (the runtime could not copy A):\n%s\n", what, log);
        skipped++;
        return 0;
    }
    printf("%s: FAIL: the runtime's log does not say \"%s\" of A's view %s:\n%s\n", what, c->log_note, a_view, log);
    failures++;
    return 0;
}

/* A dense [M, K] A with M * K > 2^31, B [K, N], C [M, N]. */
static void run_dense(const Config *c)
{
    enum { K = 1024, N = 128 };
    const int32_t M = (int32_t)((1u << 31) / K) + 301; /* the last rows' elements past 2^31 (8 GiB) */
    char what[160];
    snprintf(what, sizeof what, "dense A %d x %d (%.1f GiB), %s %s%s%s", M, K, (double)M * K * 4 / (1 << 30), c->arch,
             c->precision, c->env ? ", " : "", c->env ? c->env : "");
    tilecRuntime rt = open_for(c);
    size_t cbytes = (size_t)M * N * 4, bytes[3] = {(size_t)M * K * 4, (size_t)K * N * 4, cbytes};
    tilecDevicePtr d[3];
    if (!alloc_all(rt, what, 3, bytes, d)) {
        gpu_close(&rt);
        return;
    }
    tilecDevicePtr dA = d[0], dB = d[1], dC = d[2];
    /* A: a chunk of whole periods uploaded again and again */
    enum { CHUNK_ROWS = PERIOD * 512 };
    float *pattern = malloc(sizeof(float) * PERIOD * K), *chunk = malloc(sizeof(float) * CHUNK_ROWS * K);
    float *B = malloc(sizeof(float) * K * N), *C = malloc(cbytes);
    double *want = malloc(sizeof(double) * PERIOD * N), *mag = malloc(sizeof(double) * PERIOD * N);
    if (!pattern || !chunk || !B || !C || !want || !mag) {
        fprintf(stderr, "FAIL: out of host memory\n");
        exit(1);
    }
    gpu_fill_f32(pattern, (size_t)PERIOD * K, 41, -1.0f, 1.0f);
    gpu_fill_f32(B, (size_t)K * N, 42, -1.0f, 1.0f);
    for (int r = 0; r < CHUNK_ROWS; r++)
        memcpy(chunk + (size_t)r * K, pattern + (size_t)(r % PERIOD) * K, sizeof(float) * K);
    for (int32_t r = 0; r < M; r += CHUNK_ROWS) {
        int32_t n = M - r < CHUNK_ROWS ? M - r : CHUNK_ROWS;
        GPU_CHECK(rt, tilecMemcpyHtoD(rt, dA + (size_t)r * K * 4, chunk, (size_t)n * K * 4));
    }
    GPU_CHECK(rt, tilecMemcpyHtoD(rt, dB, B, sizeof(float) * K * N));
    gpu_poison(rt, dC, cbytes);
    for (int p = 0; p < PERIOD; p++)
        for (int j = 0; j < N; j++) {
            double s = 0, m = 0;
            for (int k = 0; k < K; k++) {
                double ab = (double)pattern[(size_t)p * K + k] * B[(size_t)k * N + j];
                s += ab;
                m += fabs(ab);
            }
            want[p * N + j] = s;
            mag[p * N + j] = m;
        }
    if (launch(rt, c, what, dA, dB, dC, M, N, K, K, N, N)) {
        gpu_download(rt, C, dC, cbytes);
        double tol = gpu_gemm_tolerance(c->precision, K), worst = 0;
        size_t bad = 0;
        for (int32_t i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int p = i % PERIOD;
                double err = fabs(C[(size_t)i * N + j] - want[p * N + j]);
                if (err / mag[p * N + j] > worst)
                    worst = err / mag[p * N + j];
                if (!(err <= tol * mag[p * N + j]) && bad++ < 5)
                    printf("  C[%d][%d] = %.9g, want %.9g\n", i, j, C[(size_t)i * N + j], want[p * N + j]);
            }
        report(what, bad, worst, tol);
    }
    free_all(rt, 3, d);
    free(pattern);
    free(chunk);
    free(B);
    free(C);
    free(want);
    free(mag);
    gpu_close(&rt);
}

/* A [M, K], B [K, N] and C [M, N] with row strides of 256 MiB, 4 MiB and
 * 256 MiB: A's and C's last rows 9 GiB from their first, B's 6 GiB. odd:
 * A's and B's rows off 16 bytes, so that no tensor map describes them (the
 * kernel's own copies, or the runtime's staging copies). */
static void run_strided(const Config *c, int odd)
{
    enum { M = 37, N = 200, K = 1500 };
    const int32_t lda = (1 << 26) + (odd ? 3 : 4), ldb = (1 << 20) + (odd ? 13 : 12), ldc = (1 << 26) + 8;
    char what[160];
    snprintf(what, sizeof what, "strided A, B, C (lda %d, ldb %d, ldc %d), %s %s%s%s", lda, ldb, ldc, c->arch,
             c->precision, c->env ? ", " : "", c->env ? c->env : "");
    tilecRuntime rt = open_for(c);
    size_t bytes[3] = {((size_t)(M - 1) * lda + K) * 4, ((size_t)(K - 1) * ldb + N) * 4,
                       ((size_t)(M - 1) * ldc + N + GUARD) * 4};
    tilecDevicePtr d[3];
    if (!alloc_all(rt, what, 3, bytes, d)) {
        gpu_close(&rt);
        return;
    }
    tilecDevicePtr dA = d[0], dB = d[1], dC = d[2];
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * (N + GUARD));
    if (!A || !B || !C) {
        fprintf(stderr, "FAIL: out of host memory\n");
        exit(1);
    }
    gpu_fill_f32(A, (size_t)M * K, 43, -1.0f, 1.0f);
    gpu_fill_f32(B, (size_t)K * N, 44, -1.0f, 1.0f);
    for (int i = 0; i < M; i++) {
        GPU_CHECK(rt, tilecMemcpyHtoD(rt, dA + (size_t)i * lda * 4, A + (size_t)i * K, sizeof(float) * K));
        gpu_poison(rt, dC + (size_t)i * ldc * 4, sizeof(float) * (N + GUARD));
    }
    for (int k = 0; k < K; k++)
        GPU_CHECK(rt, tilecMemcpyHtoD(rt, dB + (size_t)k * ldb * 4, B + (size_t)k * N, sizeof(float) * N));
    if (launch(rt, c, what, dA, dB, dC, M, N, K, lda, ldb, ldc)) {
        for (int i = 0; i < M; i++)
            gpu_download(rt, C + (size_t)i * (N + GUARD), dC + (size_t)i * ldc * 4, sizeof(float) * (N + GUARD));
        double tol = gpu_gemm_tolerance(c->precision, K), worst = 0;
        size_t bad = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N + GUARD; j++) {
                float got = C[(size_t)i * (N + GUARD) + j];
                if (j >= N) { /* past the row: never written */
                    uint32_t bits;
                    memcpy(&bits, &got, 4);
                    if (bits != 0xFFFFFFFFu && bad++ < 5)
                        printf("  C[%d][%d] written\n", i, j);
                    continue;
                }
                double s = 0, m = 0;
                for (int k = 0; k < K; k++) {
                    double ab = (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
                    s += ab;
                    m += fabs(ab);
                }
                double err = fabs(got - s);
                if (err / m > worst)
                    worst = err / m;
                if (!(err <= tol * m) && bad++ < 5)
                    printf("  C[%d][%d] = %.9g, want %.9g\n", i, j, got, s);
            }
        report(what, bad, worst, tol);
    }
    free_all(rt, 3, d);
    free(A);
    free(B);
    free(C);
    gpu_close(&rt);
}

int main(void)
{
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        if (configs[i].cases & DENSE)
            run_dense(&configs[i]);
        if (configs[i].cases & STRIDED)
            run_strided(&configs[i], 0);
        if (configs[i].cases & ODD)
            run_strided(&configs[i], 1);
    }
    printf("%d cases ran, %d skipped, %d failed\n", ran, skipped, failures);
    if (failures)
        return 1;
    return ran ? 0 : 77;
}
