/*
 * tilecAutotune on the GPU: three GEMM configurations (tile shapes and
 * stages, from one source through -D constants) of one kernel on a
 * 1000x1100x300 problem (edges in every
 * dimension). Checks that the chosen module computes the product (against
 * fp64, TF32 bound), that a second call remembers the choice (in the
 * runtime; then, from a fresh runtime, on disk) and that a configuration
 * that does not compile is skipped and noted, not fatal. Runs with its own
 * cache directory. Skips (77) without a GPU.
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One source for every configuration: the tile shape and warps are
 * defined constants, filled in by each configuration's -D options. */
static const char *kernel_src =
    "kernel @gemm(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32) warps($W) {\n"
    "  %pm = program_id 0\n"
    "  %pn = program_id 1\n"
    "  %m0 = mul %pm, $BM\n"
    "  %n0 = mul %pn, $BN\n"
    "  %va = view %A [%M, %K] strides [%K, 1]\n"
    "  %vb = view %B [%K, %N] strides [%N, 1]\n"
    "  %vc = view %C [%M, %N] strides [%N, 1]\n"
    "  %z = zeros : tile<${BM}x${BN}xf32>\n"
    "  %acc = for %k = 0 to %K step 32 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<${BM}x32xf32>\n"
    "    %b = load %vb[%k, %n0] : tile<32x${BN}xf32>\n"
    "    %d = dot %a, %b, %c : tile<${BM}x${BN}xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  store %acc, %vc[%m0, %n0]\n"
    "}\n";

enum { M = 1000, N = 1100, K = 300, NCFG = 4 };

static int failures;
static char dir[] = "/tmp/tilec-autotune-XXXXXX";

/* the test's cache directory goes, whether the test ran or skipped */
static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
}

static void expect(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "ok" : "FAIL");
    failures += !ok;
}

/* How often the runtime's log holds s (notes of successful calls add up). */
static int log_count(tilecRuntime rt, const char *s)
{
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    int n = 0;
    for (const char *p = strstr(log, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

static int log_has(tilecRuntime rt, const char *s) { return log_count(rt, s) > 0; }

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    atexit(remove_dir);
    setenv("TILEC_CACHE_DIR", dir, 1);
    setenv("TILEC_CACHE", "1", 1);
    tilecRuntime rt = gpu_open();

    static const int tiles[NCFG][2] = {{64, 64}, {128, 128}, {128, 256}, {128, 128}};
    static const char *const opts[NCFG][4] = {
        {"-DBM=64", "-DBN=64", "-DW=4"},
        {"-DBM=128", "-DBN=128", "-DW=8", "--stages=3"},
        {"-DBM=128", "-DBN=256", "-DW=8"},
        {"-DBM=128", "-DBN=128", "-DW=8", "--stages=99"}, /* rejected by the compiler: skipped */
    };
    static const int nopts[NCFG] = {3, 4, 3, 4};
    tilecTuneConfig cfg[NCFG];
    for (int c = 0; c < NCFG; c++) {
        int bm = tiles[c][0], bn = tiles[c][1];
        cfg[c] = (tilecTuneConfig){kernel_src, strlen(kernel_src), "gemm.tir", nopts[c], opts[c],
                                   {(unsigned)((M + bm - 1) / bm), (unsigned)((N + bn - 1) / bn), 1}};
    }

    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N), *C = malloc(sizeof(float) * M * N);
    double *want = malloc(sizeof(double) * M * N);
    if (!A || !B || !C || !want) {
        fprintf(stderr, "FAIL: out of host memory\n");
        return 1;
    }
    gpu_fill_f32(A, (size_t)M * K, 7, -1.0f, 1.0f);
    gpu_fill_f32(B, (size_t)K * N, 8, -1.0f, 1.0f);
    gpu_gemm_f64(M, N, K, A, K, B, N, want, N);
    tilecDevicePtr dA = gpu_upload(rt, A, sizeof(float) * M * K), dB = gpu_upload(rt, B, sizeof(float) * K * N);
    tilecDevicePtr dC = gpu_alloc(rt, sizeof(float) * M * N);
    int32_t m = M, n = N, k = K;
    void *args[] = {&dA, &dB, &dC, &m, &n, &k};

    /* first call: every configuration timed; the bad one skipped */
    unsigned best = 99;
    tilecModule mod = NULL;
    GPU_CHECK(rt, tilecAutotune(rt, "gemm f32 1000x1100x300", cfg, NCFG, "gemm", args, &best, &mod));
    printf("picked configuration %u\n", best + 1);
    expect(best < 3, "a configuration that compiles is picked");
    expect(log_has(rt, "configuration 4 skipped"), "the one that does not compile is noted");
    gpu_poison(rt, dC, sizeof(float) * M * N);
    GPU_CHECK(rt, tilecLaunch(mod, "gemm", cfg[best].grid, NULL, args));
    gpu_download(rt, C, dC, sizeof(float) * M * N);
    /* TF32 (RNA) inputs: |err| <= ~2^-10 relative per product, summed */
    size_t bad_n = gpu_compare_f32("picked kernel vs fp64", C, want, (size_t)M * N, N, 2e-2, 2e-3);
    expect(bad_n == 0, "the picked kernel computes the product");
    GPU_CHECK(rt, tilecModuleUnload(&mod));

    /* second call, same runtime: remembered, nothing timed */
    unsigned again = 99;
    GPU_CHECK(rt, tilecAutotune(rt, "gemm f32 1000x1100x300", cfg, NCFG, "gemm", args, &again, &mod));
    expect(again == best && log_has(rt, "remembered"), "the same runtime remembers the choice");
    GPU_CHECK(rt, tilecModuleUnload(&mod));

    /* a fresh runtime: the record on disk (the buffers go with the old
     * runtime's context: upload them again) */
    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dC);
    gpu_close(&rt);
    rt = gpu_open();
    dA = gpu_upload(rt, A, sizeof(float) * M * K), dB = gpu_upload(rt, B, sizeof(float) * K * N);
    dC = gpu_alloc(rt, sizeof(float) * M * N);
    again = 99;
    GPU_CHECK(rt, tilecAutotune(rt, "gemm f32 1000x1100x300", cfg, NCFG, "gemm", args, &again, &mod));
    expect(again == best && log_has(rt, "remembered"), "a fresh runtime finds the record on disk");
    GPU_CHECK(rt, tilecModuleUnload(&mod));

    /* another key: timed again */
    int remembered = log_count(rt, "remembered");
    GPU_CHECK(rt, tilecAutotune(rt, "gemm f32 other", cfg, 3, "gemm", args, &again, &mod));
    expect(log_count(rt, "remembered") == remembered && log_has(rt, "autotune [gemm f32 other]: configuration"),
           "another key or configuration list is timed afresh");
    GPU_CHECK(rt, tilecModuleUnload(&mod));

    /* nothing runs: an error, not a crash */
    tilecResult r = tilecAutotune(rt, "gemm f32 bad", &cfg[3], 1, "gemm", args, &again, &mod);
    expect(r == TILEC_ERROR_NOT_FOUND && mod == NULL, "no configuration runs: TILEC_ERROR_NOT_FOUND");

    tilecFree(rt, dA);
    tilecFree(rt, dB);
    tilecFree(rt, dC);
    gpu_close(&rt);
    free(A);
    free(B);
    free(C);
    free(want);
    printf("%s: %d failing check(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
