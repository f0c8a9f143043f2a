/*
 * Every op on the GPU against the CPU reference executor, on the same
 * module and the same inputs (fresh random data each run; TILEC_TEST_SEED
 * repeats one):
 *   - an element-wise zoo (float and integer arithmetic, casts, splat, full,
 *     broadcast, reductions, TF32 rounding, mask_nonfinite) over data with
 *     NaN, Inf, -0, subnormals and huge values, on both targets;
 *   - fma on f16 and bf16 tiles and integer -> bf16 casts at inputs where
 *     rounding twice is 1 ulp off;
 *   - examples/matmul_bias_relu.tir in ieee precision (same FMA order on
 *     both sides, so bit-identical) on a shape with partial tiles;
 *   - RNA rounding written as inline PTX before a tf32-trunc dot against the
 *     built-in tf32-rna dot: bit-identical on the GPU;
 *   - the seed kernel on the fixtures, each mode in its error band.
 * Comparisons are bitwise (NaN matches any NaN; exp too: ir/exp_f32.h's
 * sequence on both sides) except tensor-core dots (accumulation order).
 */
#include "gpu_common.h"
#include "compiler/compiler.h"
#include "reference/exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

/* Parses src, runs the precision pass and executes kernel 0 on the CPU. */
static void cpu_run(const char *src, TirPrecision prec, const unsigned grid[3], void **args)
{
    TirModule *m = tir_module_new("cpu.tir");
    Diag d;
    diag_init(&d, "cpu.tir", src, strlen(src));
    StrBuf err;
    sb_init(&err);
    if (!m || tir_parse(m, src, strlen(src), &d) || pass_precision(m, prec, &d) ||
        tir_exec(m, 0, grid, args, prec, &err)) {
        fprintf(stderr, "FAIL: CPU executor: %s%s\n", d.log.data ? d.log.data : "", err.data ? err.data : "");
        exit(1);
    }
    sb_free(&err);
    diag_free(&d);
    tir_module_free(m);
}

/* bitwise, NaN == NaN */
static size_t compare(const char *what, const float *gpu, const float *cpu, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a, b;
        memcpy(&a, &gpu[i], 4);
        memcpy(&b, &cpu[i], 4);
        int ok = a == b || (isnan(gpu[i]) && isnan(cpu[i]));
        if (!ok && bad++ < 5)
            printf("  %s[%zu]: gpu %.9g (0x%08x) cpu %.9g (0x%08x)\n", what, i, gpu[i], a, cpu[i], b);
    }
    printf("%-34s %6zu values: %s\n", what, n, bad ? "FAIL" : "ok");
    failures += bad != 0;
    return bad;
}

static float special(uint64_t *st)
{
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e-39f, 3.4e38f, -3.3e38f, 1.0f};
    uint64_t r = gpu_rand_next(st);
    if (r % 8 == 0)
        return sp[(r >> 8) % (sizeof sp / sizeof sp[0])];
    float x = (float)((double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0);
    return (r >> 3) % 5 == 0 ? x * 1e-3f : x;
}

/* ---- the element-wise zoo: 32 rows of outputs from one 32x64 input tile ---- */

#define ZR 32
#define ZC 64
static const char *zoo_src =
    "kernel @zoo(%X: ptr<f32>, %Y: ptr<f32>, %I: ptr<i32>, %J: ptr<i32>, %s: f32) grid(1, 1) warps(4) {\n"
    "  %vx = view %X [32, 64] strides [64, 1]\n"
    "  %vy = view %Y [32, 64] strides [64, 1]\n"
    "  %vo = view %Y [640, 64] strides [64, 1]\n"
    "  %vi = view %I [32, 64] strides [64, 1]\n"
    "  %vj = view %J [320, 64] strides [64, 1]\n"
    "  %x = load %vx[0, 0] : tile<32x64xf32>\n"
    "  %y = load %vy[0, 0] : tile<32x64xf32>\n"
    "  %i = load %vi[0, 0] : tile<32x64xi32>\n"
    "  %a1 = add %x, %y\n  store %a1, %vo[32, 0]\n"
    "  %a2 = sub %x, %s\n  store %a2, %vo[64, 0]\n"
    "  %a3 = mul %x, %y\n  store %a3, %vo[96, 0]\n"
    "  %a4 = div %x, %y\n  store %a4, %vo[128, 0]\n"
    "  %a5 = min %x, %y\n  store %a5, %vo[160, 0]\n"
    "  %a6 = max %x, 0.0\n  store %a6, %vo[192, 0]\n"
    "  %a7 = neg %x\n  %a8 = abs %a7\n  store %a8, %vo[224, 0]\n"
    "  %a9 = sqrt %a8\n  store %a9, %vo[256, 0]\n"
    "  %a10 = fma %x, %y, %a1\n  store %a10, %vo[288, 0]\n"
    "  %h = cast %x : tile<32x64xf16>\n  %hb = cast %h : tile<32x64xf32>\n  store %hb, %vo[320, 0]\n"
    "  %b = cast %x : tile<32x64xbf16>\n  %bb = cast %b : tile<32x64xf32>\n  store %bb, %vo[352, 0]\n"
    "  %r1 = round_tf32 %x {mode = rna}\n  store %r1, %vo[384, 0]\n"
    "  %r2 = round_tf32 %x {mode = rne}\n  store %r2, %vo[416, 0]\n"
    "  %r3 = round_tf32 %x {mode = trunc}\n  store %r3, %vo[448, 0]\n"
    "  %m = mask_nonfinite %y, %x\n  store %m, %vo[480, 0]\n"
    "  %row = reduce_sum %y {axis = 0} : tile<1x64xf32>\n"
    "  %rowb = broadcast %row : tile<32x64xf32>\n  store %rowb, %vo[512, 0]\n"
    "  %col = reduce_max %x {axis = 1} : tile<32x1xf32>\n"
    "  %colb = broadcast %col : tile<32x64xf32>\n  %sp = splat %s : tile<32x64xf32>\n"
    "  %cs = add %colb, %sp\n  store %cs, %vo[544, 0]\n"
    "  %e = exp %x\n  %ex = mul %e, %y\n  store %ex, %vo[576, 0]\n"
    "  %xi = cast %x : tile<32x64xi32>\n  store %xi, %vj[32, 0]\n"
    "  %d1 = div %i, 7\n  store %d1, %vj[64, 0]\n"
    "  %d2 = rem %i, %i\n  store %d2, %vj[96, 0]\n"
    "  %d3 = div %i, -1\n  store %d3, %vj[128, 0]\n"
    "  %d4 = min %i, 5\n  %d5 = max %d4, -5\n  store %d5, %vj[160, 0]\n"
    "  %d6 = neg %i\n  %d7 = abs %d6\n  store %d7, %vj[192, 0]\n"
    "  %d8 = cast %i : tile<32x64xf32>\n  %d9 = cast %d8 : tile<32x64xi32>\n  %d10 = sub %d9, %i\n"
    "  store %d10, %vj[224, 0]\n"
    "  %isum = reduce_sum %i {axis = 1} : tile<32x1xi32>\n  %isb = broadcast %isum : tile<32x64xi32>\n"
    "  store %isb, %vj[256, 0]\n"
    "}\n";

static void test_zoo(tilecRuntime rt, const char *arch, uint64_t seed)
{
    size_t nf = (size_t)ZR * ZC * 20, ni = (size_t)ZR * ZC * 10;
    float *X = malloc(ZR * ZC * 4), *Yg = malloc(nf * 4), *Yc = malloc(nf * 4);
    int32_t *I = malloc(ZR * ZC * 4), *Jg = malloc(ni * 4), *Jc = malloc(ni * 4);
    uint64_t st = seed;
    for (int k = 0; k < ZR * ZC; k++) {
        X[k] = special(&st);
        Yc[k] = special(&st);
        I[k] = (int32_t)gpu_rand_next(&st);
        if (k % 7 == 0)
            I[k] = k % 3 ? 0 : INT32_MIN;
    }
    for (size_t k = ZR * ZC; k < nf; k++)
        Yc[k] = NAN;
    memset(Jc, 0xff, ni * 4);
    memcpy(Yg, Yc, nf * 4);
    memcpy(Jg, Jc, ni * 4);
    float s = 0.75f;

    const char *opt = arch;
    tilecModule mod = gpu_load(rt, zoo_src, "zoo.tir", 1, &opt);
    tilecDevicePtr dx = gpu_upload(rt, X, ZR * ZC * 4), dy = gpu_upload(rt, Yg, nf * 4);
    tilecDevicePtr di = gpu_upload(rt, I, ZR * ZC * 4), dj = gpu_upload(rt, Jg, ni * 4);
    void *gargs[] = {&dx, &dy, &di, &dj, &s};
    GPU_CHECK(rt, tilecLaunch(mod, "zoo", NULL, NULL, gargs));
    gpu_download(rt, Yg, dy, nf * 4);
    gpu_download(rt, Jg, dj, ni * 4);
    void *X_ = X, *Y_ = Yc, *I_ = I, *J_ = Jc;
    void *cargs[] = {&X_, &Y_, &I_, &J_, &s};
    unsigned grid[3] = {1, 1, 1};
    cpu_run(zoo_src, PREC_TF32_RNA, grid, cargs);

    static const char *const fnames[] = {"add", "sub scalar", "mul", "div", "min (NaN)", "max 0 (relu)",
                                         "abs neg", "sqrt", "fma", "cast f16 and back", "cast bf16 and back",
                                         "round_tf32 rna", "round_tf32 rne", "round_tf32 trunc", "mask_nonfinite",
                                         "reduce_sum axis 0 + broadcast", "reduce_max axis 1 + splat"};
    char what[96];
    for (int r = 0; r < 17; r++) {
        snprintf(what, sizeof what, "%s %s", arch + 7, fnames[r]);
        compare(what, Yg + (size_t)(r + 1) * ZR * ZC, Yc + (size_t)(r + 1) * ZR * ZC, ZR * ZC);
    }
    snprintf(what, sizeof what, "%s exp", arch + 7); /* ir/exp_f32.h on both: the same bits */
    compare(what, Yg + (size_t)18 * ZR * ZC, Yc + (size_t)18 * ZR * ZC, ZR * ZC);
    static const char *const inames[] = {"cast f32->i32 (saturating)", "i32 div 7", "i32 rem (by 0)",
                                          "i32 div -1 (MIN wraps)", "i32 min/max", "i32 abs neg (MIN)",
                                          "i32 -> f32 -> i32", "i32 reduce_sum axis 1"};
    for (int r = 0; r < 8; r++) {
        snprintf(what, sizeof what, "%s %s", arch + 7, inames[r]);
        compare(what, (float *)Jg + (size_t)(r + 1) * ZR * ZC, (float *)Jc + (size_t)(r + 1) * ZR * ZC, ZR * ZC);
    }
    tilecFree(rt, dx);
    tilecFree(rt, dy);
    tilecFree(rt, di);
    tilecFree(rt, dj);
    tilecModuleUnload(&mod);
    free(X), free(Yg), free(Yc), free(I), free(Jg), free(Jc);
}

/* ---- one rounding for 16-bit fma and integer -> bf16 ---- */

/* fma on f16 and bf16 tiles rounds once, and an integer cast to bf16 rounds
 * once on sm_80 too (where it has no conversion of its own): lanes 0-5
 * hold inputs where rounding twice is 1 ulp off (a review's finding,
 * session 30), the rest random ones; bitwise against the executor. */
static const char *sixteen_src =
    "kernel @h16(%X: ptr<f32>, %Y: ptr<f32>, %Z: ptr<f32>, %I: ptr<i32>, %L: ptr<i64>, %O: ptr<f32>)"
    " grid(1, 1) warps(1) {\n"
    "  %vx = view %X [1, 64] strides [64, 1]\n  %vy = view %Y [1, 64] strides [64, 1]\n"
    "  %vz = view %Z [1, 64] strides [64, 1]\n  %vi = view %I [1, 64] strides [64, 1]\n"
    "  %vl = view %L [1, 64] strides [64, 1]\n  %vo = view %O [4, 64] strides [64, 1]\n"
    "  %x = load %vx[0, 0] : tile<1x64xf32>\n  %y = load %vy[0, 0] : tile<1x64xf32>\n"
    "  %z = load %vz[0, 0] : tile<1x64xf32>\n"
    "  %xh = cast %x : tile<1x64xf16>\n  %yh = cast %y : tile<1x64xf16>\n  %zh = cast %z : tile<1x64xf16>\n"
    "  %fh = fma %xh, %yh, %zh\n  %fh32 = cast %fh : tile<1x64xf32>\n  store %fh32, %vo[0, 0]\n"
    "  %xb = cast %x : tile<1x64xbf16>\n  %yb = cast %y : tile<1x64xbf16>\n  %zb = cast %z : tile<1x64xbf16>\n"
    "  %fb = fma %xb, %yb, %zb\n  %fb32 = cast %fb : tile<1x64xf32>\n  store %fb32, %vo[1, 0]\n"
    "  %i = load %vi[0, 0] : tile<1x64xi32>\n  %ib = cast %i : tile<1x64xbf16>\n"
    "  %ib32 = cast %ib : tile<1x64xf32>\n  store %ib32, %vo[2, 0]\n"
    "  %l = load %vl[0, 0] : tile<1x64xi64>\n  %lb = cast %l : tile<1x64xbf16>\n"
    "  %lb32 = cast %lb : tile<1x64xf32>\n  store %lb32, %vo[3, 0]\n"
    "}\n";

static void test_sixteen_bit(tilecRuntime rt, const char *arch, uint64_t seed)
{
    float X[64], Y[64], Z[64], Og[256], Oc[256];
    int32_t I[64];
    int64_t L[64];
    uint64_t st = seed;
    for (int k = 0; k < 64; k++) {
        X[k] = special(&st), Y[k] = special(&st), Z[k] = special(&st);
        I[k] = (int32_t)gpu_rand_next(&st);
        L[k] = (int64_t)gpu_rand_next(&st) >> (gpu_rand_next(&st) % 40);
    }
    /* f16: (1 + 2^-7)(1 - 2^-7)2^-11 + (1 + 2^-10) lies 2^-25 below a tie of f16 */
    X[0] = 1.0078125f, Y[0] = 0.000484466552734375f, Z[0] = 1.0009765625f;
    /* bf16: 384 * 380 = 145920, a tie of bf16, and 2^-7 half an f32 ulp there */
    X[1] = 384.0f, Y[1] = 380.0f, Z[1] = 0.0078125f;
    static const int32_t ties32[] = {16842753, -16842753, 33685505, INT32_MIN, INT32_MAX};
    static const int64_t ties64[] = {(1ll << 40) + (1ll << 32) + 1, (1ll << 31) + (1ll << 23) + 1, INT64_MIN, INT64_MAX,
                                     -((1ll << 40) + (1ll << 32) + 1)};
    for (int k = 0; k < 5; k++)
        I[k] = ties32[k], L[k] = ties64[k];
    for (int k = 0; k < 256; k++)
        Og[k] = Oc[k] = NAN;
    const char *opt = arch;
    tilecModule mod = gpu_load(rt, sixteen_src, "h16.tir", 1, &opt);
    tilecDevicePtr dx = gpu_upload(rt, X, sizeof X), dy = gpu_upload(rt, Y, sizeof Y), dz = gpu_upload(rt, Z, sizeof Z);
    tilecDevicePtr di = gpu_upload(rt, I, sizeof I), dl = gpu_upload(rt, L, sizeof L), dout = gpu_upload(rt, Og, sizeof Og);
    void *gargs[] = {&dx, &dy, &dz, &di, &dl, &dout};
    GPU_CHECK(rt, tilecLaunch(mod, "h16", NULL, NULL, gargs));
    gpu_download(rt, Og, dout, sizeof Og);
    void *X_ = X, *Y_ = Y, *Z_ = Z, *I_ = I, *L_ = L, *O_ = Oc;
    void *cargs[] = {&X_, &Y_, &Z_, &I_, &L_, &O_};
    unsigned grid[3] = {1, 1, 1};
    cpu_run(sixteen_src, PREC_TF32_RNA, grid, cargs);
    static const char *const names[] = {"fma f16", "fma bf16", "cast i32 -> bf16", "cast i64 -> bf16"};
    char what[96];
    for (int r = 0; r < 4; r++) {
        snprintf(what, sizeof what, "%s %s", arch + 7, names[r]);
        compare(what, Og + 64 * r, Oc + 64 * r, 64);
    }
    tilecFree(rt, dx), tilecFree(rt, dy), tilecFree(rt, dz), tilecFree(rt, di), tilecFree(rt, dl), tilecFree(rt, dout);
    tilecModuleUnload(&mod);
}

/* ---- GEMM + bias + ReLU (examples/matmul_bias_relu.tir) ---- */

static void test_epilogue(tilecRuntime rt, const char *arch, uint64_t seed)
{
    const char *dir = getenv("TILEC_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/matmul_bias_relu.tir", dir ? dir : ".");
    char *src = gpu_read_file(path);
    if (!src) {
        printf("FAIL: cannot read %s (set TILEC_SOURCE_DIR)\n", path);
        failures++;
        return;
    }
    int32_t M = 150, N = 77, K = 100;
    float *A = malloc((size_t)M * K * 4), *B = malloc((size_t)K * N * 4), *bias = malloc((size_t)N * 4);
    float *Yg = malloc((size_t)M * N * 4), *Yc = malloc((size_t)M * N * 4);
    gpu_fill_f32(A, (size_t)M * K, seed, -1, 1);
    gpu_fill_f32(B, (size_t)K * N, seed + 1, -1, 1);
    gpu_fill_f32(bias, (size_t)N, seed + 2, -1, 1);
    gpu_poison_host(Yc, (size_t)M * N * 4);
    const char *opts[] = {arch, "--precision=ieee"};
    tilecModule mod = gpu_load(rt, src, "matmul_bias_relu.tir", 2, opts);
    tilecDevicePtr dA = gpu_upload(rt, A, (size_t)M * K * 4), dB = gpu_upload(rt, B, (size_t)K * N * 4);
    tilecDevicePtr dbias = gpu_upload(rt, bias, (size_t)N * 4), dY = gpu_alloc(rt, (size_t)M * N * 4);
    gpu_poison(rt, dY, (size_t)M * N * 4);
    void *gargs[] = {&dA, &dB, &dbias, &dY, &M, &N, &K};
    unsigned grid[3] = {(unsigned)(M + 63) / 64, (unsigned)(N + 63) / 64, 1};
    GPU_CHECK(rt, tilecLaunch(mod, "matmul_bias_relu", grid, NULL, gargs));
    gpu_download(rt, Yg, dY, (size_t)M * N * 4);
    void *A_ = A, *B_ = B, *b_ = bias, *Y_ = Yc;
    void *cargs[] = {&A_, &B_, &b_, &Y_, &M, &N, &K};
    cpu_run(src, PREC_IEEE, grid, cargs);
    char what[96];
    snprintf(what, sizeof what, "%s matmul_bias_relu ieee 150x77x100", arch + 7);
    compare(what, Yg, Yc, (size_t)M * N);
    tilecFree(rt, dA), tilecFree(rt, dB), tilecFree(rt, dbias), tilecFree(rt, dY);
    tilecModuleUnload(&mod);
    free(src), free(A), free(B), free(bias), free(Yg), free(Yc);
}

/* ---- inline PTX RNA == built-in tf32-rna, bit for bit ---- */

static const char *inline_src =
    "kernel @k(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>) grid(1, 1) warps(4) {\n"
    "  %va = view %A [64, 64] strides [64, 1]\n"
    "  %vb = view %B [64, 64] strides [64, 1]\n"
    "  %vc = view %C [128, 64] strides [64, 1]\n"
    "  %a = load %va[0, 0] : tile<64x64xf32>\n"
    "  %b = load %vb[0, 0] : tile<64x64xf32>\n"
    "  %z = zeros : tile<64x64xf32>\n"
    "  %ar = inline_ptx \"cvt.rna.tf32.f32 $0, $1;\" %a : tile<64x64xf32>\n"
    "  %br = inline_ptx \"cvt.rna.tf32.f32 $0, $1;\" %b : tile<64x64xf32>\n"
    "  %c1 = dot %ar, %br, %z {precision = tf32-trunc} : tile<64x64xf32>\n"
    "  %c2 = dot %a, %b, %z {precision = tf32-rna} : tile<64x64xf32>\n"
    "  store %c1, %vc[0, 0]\n"
    "  store %c2, %vc[64, 0]\n"
    "}\n";

static void test_inline_rna(tilecRuntime rt, const char *arch, uint64_t seed)
{
    float *A = malloc(64 * 64 * 4), *B = malloc(64 * 64 * 4), *C = malloc(128 * 64 * 4);
    gpu_fill_f32(A, 64 * 64, seed, -1, 1);
    gpu_fill_f32(B, 64 * 64, seed + 7, -1, 1);
    const char *opt = arch;
    tilecModule mod = gpu_load(rt, inline_src, "inline.tir", 1, &opt);
    tilecDevicePtr dA = gpu_upload(rt, A, 64 * 64 * 4), dB = gpu_upload(rt, B, 64 * 64 * 4);
    tilecDevicePtr dC = gpu_alloc(rt, 128 * 64 * 4);
    gpu_poison(rt, dC, 128 * 64 * 4);
    void *args[] = {&dA, &dB, &dC};
    GPU_CHECK(rt, tilecLaunch(mod, "k", NULL, NULL, args));
    gpu_download(rt, C, dC, 128 * 64 * 4);
    char what[96];
    snprintf(what, sizeof what, "%s inline cvt.rna == tf32-rna dot", arch + 7);
    compare(what, C, C + 64 * 64, 64 * 64);
    tilecFree(rt, dA), tilecFree(rt, dB), tilecFree(rt, dC);
    tilecModuleUnload(&mod);
    free(A), free(B), free(C);
}

/* ---- the seed case in each mode's band ---- */

static const char *seed_src =
    "kernel @seed(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>) grid(1, 1) warps(4) {\n"
    "  %va = view %A [64, 64] strides [64, 1]\n  %vb = view %B [64, 64] strides [64, 1]\n"
    "  %vc = view %C [64, 64] strides [64, 1]\n"
    "  %a = load %va[0, 0] : tile<64x64xf32>\n  %b = load %vb[0, 0] : tile<64x64xf32>\n"
    "  %z = zeros : tile<64x64xf32>\n  %c = dot %a, %b, %z : tile<64x64xf32>\n  store %c, %vc[0, 0]\n}\n";

static void test_seed(tilecRuntime rt)
{
    /* the repository's tests/fixtures (TILEC_FIXTURES, else under
     * TILEC_SOURCE_DIR, else from the repository's root) */
    const char *dir = getenv("TILEC_FIXTURES"), *src = getenv("TILEC_SOURCE_DIR");
    char where[900], pa[1024], pb[1024];
    snprintf(where, sizeof where, "%s%s", dir ? dir : src ? src : ".", dir ? "" : "/tests/fixtures");
    snprintf(pa, sizeof pa, "%s/seed64/A.f32", where);
    snprintf(pb, sizeof pb, "%s/seed64/B.f32", where);
    FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
    float A[4096], B[4096], C[4096];
    if (!fa || !fb || fread(A, 4, 4096, fa) != 4096 || fread(B, 4, 4096, fb) != 4096) {
        printf("FAIL seed: no fixtures in %s/seed64 (set TILEC_FIXTURES or TILEC_SOURCE_DIR)\n", where);
        failures++;
        if (fa)
            fclose(fa);
        if (fb)
            fclose(fb);
        return;
    }
    fclose(fa);
    fclose(fb);
    double ref[4096], norm = 0;
    gpu_gemm_f64(64, 64, 64, A, 64, B, 64, ref, 64);
    for (int k = 0; k < 4096; k++)
        norm += ref[k] * ref[k];
    static const struct { const char *mode; double lo, hi; } bands[] = {
        {"ieee", 0, 2.5e-7}, {"tf32-trunc", 6.6e-4 * 0.9, 6.6e-4 * 1.1}, {"tf32-rna", 4.7e-5 * 0.9, 4.7e-5 * 1.1},
        {"tf32-rne", 4.7e-5 * 0.9, 4.7e-5 * 1.1}, {"3xtf32", 0, 2.5e-7}};
    tilecDevicePtr dA = gpu_upload(rt, A, sizeof A), dB = gpu_upload(rt, B, sizeof B), dC = gpu_alloc(rt, sizeof C);
    for (int i = 0; i < 5; i++) {
        char prec[64];
        snprintf(prec, sizeof prec, "--precision=%s", bands[i].mode);
        const char *opt = prec;
        tilecModule mod = gpu_load(rt, seed_src, "seed.tir", 1, &opt);
        gpu_poison(rt, dC, sizeof C);
        void *args[] = {&dA, &dB, &dC};
        GPU_CHECK(rt, tilecLaunch(mod, "seed", NULL, NULL, args));
        gpu_download(rt, C, dC, sizeof C);
        double e = 0;
        for (int k = 0; k < 4096; k++)
            e += (C[k] - ref[k]) * (C[k] - ref[k]);
        e = sqrt(e / norm);
        int ok = e >= bands[i].lo && e <= bands[i].hi;
        printf("seed %-10s relerr %.3e (band %.2e..%.2e): %s\n", bands[i].mode, e, bands[i].lo, bands[i].hi,
               ok ? "ok" : "FAIL");
        failures += !ok;
        tilecModuleUnload(&mod);
    }
    tilecFree(rt, dA), tilecFree(rt, dB), tilecFree(rt, dC);
}

int main(void)
{
    tilecRuntime rt = gpu_open();
    const char *env = getenv("TILEC_TEST_SEED");
    uint64_t seed = env && env[0] ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    printf("seed %llu (TILEC_TEST_SEED=%llu repeats this run)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    static const char *const archs[] = {"--arch=sm_80", "--arch=sm_90a"};
    for (int a = 0; a < 2; a++) {
        test_zoo(rt, archs[a], seed);
        test_sixteen_bit(rt, archs[a], seed);
        test_epilogue(rt, archs[a], seed);
        test_inline_rna(rt, archs[a], seed);
    }
    test_seed(rt);
    gpu_close(&rt);
    printf("%s: %d failing check(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
