/*
 * The precision modes' accuracy promises (DESIGN.md, README), at a K long
 * enough for the accumulation to matter, on the same inputs for every mode:
 *   - 3xtf32's error is at most twice ieee's (fp32 FMAs);
 *   - tf32-rna and tf32-rne are within 1.25x of each other (both round,
 *     as cuBLAS TF32 does) and at most half of tf32-trunc's (2.7x theirs:
 *     a rounding step that did nothing would show);
 * each error being the relative Frobenius norm of C - fp64 product over a
 * block of rows. test_gemm's per-element bounds are worst cases, linear in
 * K: they pass an accumulation that is 30x less accurate than fp32's
 * (3xtf32 summed straight into the tensor cores' accumulators, measured
 * in session 11: bench/NOTES.md v14). This test is what catches that.
 * Tiles: examples/matmul.tir's 128x128 with 8 warps and 64x64 with 4
 * (sm_90a's pipeline), 128x256 with 8 (the benchmark's tf32 tile; 3xtf32
 * takes the generic lowering there), and 64x64 on sm_80.
 * TILEC_GPU_QUICK=1: K 2048 instead of 8192.
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernel_fmt =
    "kernel @gemm(%%A: ptr<f32>, %%B: ptr<f32>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32) warps(%d) {\n"
    "  %%pm = program_id 0\n"
    "  %%pn = program_id 1\n"
    "  %%m0 = mul %%pm, %d\n"
    "  %%n0 = mul %%pn, %d\n"
    "  %%va = view %%A [%%M, %%K] strides [%%K, 1]\n"
    "  %%vb = view %%B [%%K, %%N] strides [%%N, 1]\n"
    "  %%vc = view %%C [%%M, %%N] strides [%%N, 1]\n"
    "  %%z = zeros : tile<%dx%dxf32>\n"
    "  %%acc = for %%k = 0 to %%K step 32 iter(%%c = %%z) {\n"
    "    %%a = load %%va[%%m0, %%k] : tile<%dx32xf32>\n"
    "    %%b = load %%vb[%%k, %%n0] : tile<32x%dxf32>\n"
    "    %%d = dot %%a, %%b, %%c : tile<%dx%dxf32>\n"
    "    yield %%d\n"
    "  }\n"
    "  store %%acc, %%vc[%%m0, %%n0]\n"
    "}\n";

enum { IEEE, TRUNC, RNA, RNE, X3, NMODES };
static const char *const modes[NMODES] = {"ieee", "tf32-trunc", "tf32-rna", "tf32-rne", "3xtf32"};

typedef struct {
    const char *arch;
    int bm, bn, warps;
} Tile;

static int failures;

/* Relative Frobenius error of C (M x N) against ref. */
static double frobenius(const float *C, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = C[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : 0;
}

static void check(int ok, const char *what, const Tile *t, double a, double b)
{
    printf("%s %dx%d w%d: %s (%.3g against %.3g): %s\n", t->arch, t->bm, t->bn, t->warps, what, a, b,
           ok ? "ok" : "FAIL");
    failures += !ok;
}

static void run_tile(tilecRuntime rt, const Tile *t, const float *A, const float *B, const double *ref, int M,
                     int N, int K)
{
    char src[2048], arch[32], prec[64];
    snprintf(src, sizeof src, kernel_fmt, t->warps, t->bm, t->bn, t->bm, t->bn, t->bm, t->bn, t->bm, t->bn);
    snprintf(arch, sizeof arch, "--arch=%s", t->arch);
    tilecDevicePtr dA = gpu_upload(rt, A, sizeof(float) * M * K), dB = gpu_upload(rt, B, sizeof(float) * K * N);
    tilecDevicePtr dC = gpu_alloc(rt, sizeof(float) * M * N);
    float *C = malloc(sizeof(float) * M * N);
    if (!C) {
        printf("FAIL: out of host memory\n");
        exit(1);
    }
    double err[NMODES];
    for (int p = 0; p < NMODES; p++) {
        snprintf(prec, sizeof prec, "--precision=%s", modes[p]);
        const char *opts[] = {prec, arch};
        tilecModule mod = gpu_load_copts(rt, src, "accuracy.tir", 2, opts, NULL); /* with TILEC_TEST_COPT's */
        gpu_poison(rt, dC, sizeof(float) * M * N);
        int32_t Mi = M, Ni = N, Ki = K;
        void *args[] = {&dA, &dB, &dC, &Mi, &Ni, &Ki};
        unsigned grid[3] = {(unsigned)((M + t->bm - 1) / t->bm), (unsigned)((N + t->bn - 1) / t->bn), 1};
        GPU_CHECK(rt, tilecLaunch(mod, "gemm", grid, NULL, args));
        GPU_CHECK(rt, tilecSynchronize(rt));
        gpu_download(rt, C, dC, sizeof(float) * M * N);
        err[p] = frobenius(C, ref, (size_t)M * N); /* NaN (an unwritten element) fails every check below */
        printf("%s %dx%d w%d %-10s %dx%dx%d: relative error %.3g\n", t->arch, t->bm, t->bn, t->warps, modes[p], M, N,
               K, err[p]);
        tilecModuleUnload(&mod);
    }
    check(err[X3] <= 2 * err[IEEE], "3xtf32 within 2x ieee", t, err[X3], err[IEEE]);
    check(err[RNA] <= 1.25 * err[RNE] && err[RNE] <= 1.25 * err[RNA], "tf32-rna and tf32-rne within 1.25x", t,
          err[RNA], err[RNE]);
    check(err[RNA] <= 0.5 * err[TRUNC], "tf32-rna at most half of tf32-trunc", t, err[RNA], err[TRUNC]);
    free(C);
    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dC);
}

int main(void)
{
    tilecRuntime rt = gpu_open();
    const char *q = getenv("TILEC_GPU_QUICK");
    int quick = q && q[0] == '1';
    /* C small enough for an fp64 reference on the host; inputs as the
     * benchmark's, uniform in [-0.5, 0.5) */
    int M = 256, N = 256, K = quick ? 2048 : 8192;
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    double *ref = malloc(sizeof(double) * M * N);
    if (!A || !B || !ref) {
        printf("FAIL: out of host memory\n");
        return 1;
    }
    gpu_fill_f32(A, (size_t)M * K, 11, -0.5f, 0.5f);
    gpu_fill_f32(B, (size_t)K * N, 12, -0.5f, 0.5f);
    gpu_gemm_f64(M, N, K, A, K, B, N, ref, N);
    static const Tile tiles[] = {
        {"sm_90a", 128, 128, 8}, {"sm_90a", 64, 64, 4}, {"sm_90a", 128, 256, 8}, {"sm_80", 64, 64, 4}};
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
        run_tile(rt, &tiles[t], A, B, ref, M, N, K);
    free(A);
    free(B);
    free(ref);
    gpu_close(&rt);
    printf("%s: %d failing check(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
