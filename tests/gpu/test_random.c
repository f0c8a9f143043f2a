/*
 * Random kernels on the GPU against the CPU reference executor, on the same
 * inputs. fuzz_compile's kernel generator in its runnable form
 * (tests/fuzz/gen_kernel.h: loads at any offset, element-wise ops, casts,
 * reductions, broadcasts, dots of every precision and input type, loops,
 * stores; 1 to 16 warps; a third of the kernels start with a GEMM loop in a
 * tile the sm_90a wgmma pipelines take) writes each kernel from seeded
 * bytes; it is compiled for each target the device runs (sm_80, and sm_90a
 * on Hopper), launched as one program and run by tir_exec, and every element
 * of the five buffers (inputs with NaN, Inf, -0 and subnormals) compared.
 *
 * Comparison: bitwise (NaN matches any NaN; the odd seeds' kernels have no
 * float sums, so all of it), except in kernels with a dot or reduce_sum,
 * which the GPU sums in another order: there a float may differ by rounding
 * (relative 1e-2, or 1e-3 of the buffer's largest value), and what derives
 * from a sum (a cast to an integer, a rounding) may flip, so such a kernel
 * fails where more than 1% (and more than two) of the elements its stores
 * changed differ beyond that, or where the two sides disagree about which
 * elements were written. Their inputs hold no finite value large enough
 * for a sum's order to decide an overflow.
 *
 * First the kept kernels of tests/gpu/random/ (each reduced from a seed that
 * once failed; under TILEC_SOURCE_DIR), then the random ones. A kernel that
 * does not compile fails unless the compiler refused it for a documented
 * limit (registers, shared memory); one the executor refuses is skipped and
 * counted (a kept one fails). A failure prints the seed and the kernel.
 * Environment: TILEC_RANDOM_N kernels (default 400; 150 with
 * TILEC_GPU_QUICK), TILEC_TEST_SEED the first seed (default: the clock,
 * printed), TILEC_RANDOM_FILE a .tir file of the generator's signature to
 * run instead, TILEC_TEST_COPT more compile options (space-separated),
 * TILEC_TEST_LOAD=source the JIT's path (tilecModuleLoadSource and its
 * defaults).
 */
#include "gpu_common.h"
#include "compiler/compiler.h"
#include "reference/exec.h"
#include "reference/round.h"
#include "tests/fuzz/gen_kernel.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { COLS = 256, NBUF = 5, GEN_BYTES = 160 };
/* the generator's pointers, in parameter order: i32, i64, f16, bf16, f32 */
static const size_t ESIZE[NBUF] = {4, 8, 2, 2, 4};
static const char *const ENAME[NBUF] = {"i32", "i64", "f16", "bf16", "f32"};

static int failures, skipped_exec, skipped_limit, inexact_kernels, ran;

/* Element i of buffer b as a double (floats) and whether it is NaN. */
static double value(int b, const void *p, size_t i, int *nan)
{
    double v;
    switch (b) {
    case 0: v = ((const int32_t *)p)[i]; break;
    case 1: v = (double)((const int64_t *)p)[i]; break;
    case 2: v = f16_to_f32(((const uint16_t *)p)[i]); break;
    case 3: v = bf16_to_f32(((const uint16_t *)p)[i]); break;
    default: v = ((const float *)p)[i]; break;
    }
    *nan = isnan(v);
    return v;
}

/* A float drawn from ordinary values, with specials mixed in; tame: no
 * finite value so large that a sum's order decides whether it overflows
 * (the order-dependent kernels' inputs: Inf and NaN are the same in any
 * order, an overflow is not). */
static float draw_f32(uint64_t *st, int tame)
{
    uint64_t r = gpu_rand_next(st);
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e38f, 65504.0f, 1e-8f, 0.5f};
    if (r % 16 == 0) {
        float f = sp[(r >> 8) % 10];
        return tame && isfinite(f) && fabsf(f) > 4.0f ? 1.0f : f;
    }
    return (float)((double)(r >> 40) / (double)(1u << 24) * 8.0 - 4.0);
}

static void fill(int b, void *p, size_t n, uint64_t *st, int tame)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = gpu_rand_next(st);
        switch (b) {
        case 0: ((int32_t *)p)[i] = r % 4 ? (int32_t)(r % 2001) - 1000 : (int32_t)(uint32_t)(r >> 32); break;
        case 1: ((int64_t *)p)[i] = r % 4 ? (int64_t)(r % 2001) - 1000 : (int64_t)r; break;
        case 2: case 3: { /* the f32 value's top half for bf16; f16 from its value */
            float f = draw_f32(st, tame);
            uint32_t u;
            memcpy(&u, &f, 4);
            uint16_t h;
            if (b == 3)
                h = (uint16_t)(u >> 16);
            else { /* a random f16 pattern: every class appears */
                h = (uint16_t)(r >> 16);
                if ((h & 0x7C00) == 0x7C00 && r % 8)
                    h &= 0xBFFF; /* mostly finite */
                if (tame && (h & 0x7C00) != 0x7C00)
                    h &= 0xBFFF; /* below 2 */
            }
            ((uint16_t *)p)[i] = h;
            break;
        }
        default: ((float *)p)[i] = draw_f32(st, tame); break;
        }
    }
}

/* Whether the kernel sums floats in an order the GPU need not keep (an
 * integer reduce_sum counts too: conservative). */
static int order_dependent(const char *src) { return strstr(src, " = dot ") || strstr(src, "reduce_sum"); }

/* Compares buffer b of the two sides; returns the number of bad elements. */
static size_t compare(int b, const void *gpu, const void *cpu, const void *init, size_t n, int inexact,
                      const char *tag)
{
    size_t changed = 0, hard = 0, soft = 0, shown = 0;
    double scale = 0;
    if (inexact)
        for (size_t i = 0; i < n; i++) {
            int nan;
            double v = fabs(value(b, cpu, i, &nan));
            if (!nan && isfinite(v) && v > scale)
                scale = v;
        }
    for (size_t i = 0; i < n; i++) {
        const char *g = (const char *)gpu + i * ESIZE[b], *c = (const char *)cpu + i * ESIZE[b];
        const char *o = (const char *)init + i * ESIZE[b];
        int gw = memcmp(g, o, ESIZE[b]) != 0, cw = memcmp(c, o, ESIZE[b]) != 0;
        changed += cw;
        if (!memcmp(g, c, ESIZE[b]))
            continue;
        int gn, cn;
        double gv = value(b, gpu, i, &gn), cv = value(b, cpu, i, &cn);
        if (gn && cn)
            continue;
        int is_soft = 0;
        if (inexact && gw == cw) { /* both wrote it, or both left it: the values may differ by order */
            if (b >= 2 && !gn && !cn && isfinite(gv) && isfinite(cv) &&
                fabs(gv - cv) <= 1e-2 * fmax(fabs(gv), fabs(cv)) + 1e-3 * scale)
                continue;
            is_soft = 1;
        }
        if (is_soft)
            soft++;
        else
            hard++;
        if (shown++ < 4)
            printf("  %s %s[%zu] (row %zu, col %zu): gpu %.9g cpu %.9g (was %s written by the gpu, %s by the cpu)\n",
                   tag, ENAME[b], i, i / COLS, i % COLS, gv, cv, gw ? "" : "not", cw ? "" : "not");
    }
    size_t bad = hard + (soft > 2 && soft * 100 > changed ? soft : 0);
    if (!bad && soft)
        printf("  %s %s: %zu of %zu written elements differ beyond rounding (allowed for order: at most two, or 1%%)\n", tag,
               ENAME[b], soft, changed);
    return bad;
}

/* The executor's run of src (after the precision pass, as the compiler
 * would). Returns 0, or 1 where the executor refused the kernel. */
static int cpu_run(const char *src, void **args, int *invalid)
{
    TirModule *m = tir_module_new("gen.tir");
    Diag d;
    diag_init(&d, "gen.tir", src, strlen(src));
    StrBuf err;
    sb_init(&err);
    unsigned grid[3] = {1, 1, 1};
    int rc = 0;
    *invalid = 0;
    if (!m || tir_parse(m, src, strlen(src), &d) || tir_verify(m, &d)) {
        *invalid = 1; /* the generator wrote something the parser refuses: not a kernel */
        if (getenv("TILEC_RANDOM_FILE") || strstr(src, "// seed: ")) /* a file: say why */
            printf("  not a kernel: %s", d.log.data ? d.log.data : "\n");
        rc = 1;
    } else if (pass_precision(m, PREC_TF32_RNA, &d) || tir_exec(m, 0, grid, args, PREC_TF32_RNA, &err)) {
        printf("  executor refused it: %s%s", d.log.data ? d.log.data : "", err.data ? err.data : "\n");
        rc = 1;
    }
    sb_free(&err);
    diag_free(&d);
    tir_module_free(m);
    return rc;
}

/* Compiles src for arch; NULL where the compiler refused it for a limit
 * (counted), exits the test on any other refusal. */
static tilecModule compile(tilecRuntime rt, const char *src, const char *arch, uint64_t seed)
{
    char buf[512];
    const char *opts[1 + GPU_MAX_COPTS] = {arch};
    int nopts = 1 + gpu_copts(buf, sizeof buf, NULL, opts + 1, GPU_MAX_COPTS);
    tilecProgram p = NULL;
    tilecModule m = NULL;
    const char *log = "", *how = getenv("TILEC_TEST_LOAD");
    int jit = how && !strcmp(how, "source"); /* the JIT's path, with its own defaults (TMA only, C stored by TMA) */
    tilecResult r;
    if (jit) {
        r = tilecModuleLoadSource(rt, src, strlen(src), "gen.tir", nopts, opts, &m);
        if (r == TILEC_SUCCESS)
            return m;
        tilecRuntimeGetLog(rt, &log); /* a failing call's log is its explanation alone */
    } else {
        GPU_CHECK(NULL, tilecCreateProgram(&p, src, strlen(src), "gen.tir"));
        r = tilecCompileProgram(p, nopts, opts);
        tilecGetProgramLog(p, &log);
    }
    if (r != TILEC_SUCCESS) {
        int limit = strstr(log, "registers") || strstr(log, "shared memory");
        if (!limit) {
            printf("FAIL: seed %llu, %s: the compiler refused a valid kernel: %s\n%s\n%s", (unsigned long long)seed, arch,
                   tilecGetErrorString(r), log, src);
            exit(1);
        }
        skipped_limit++;
        const char *why = strstr(log, "error:") ? strstr(log, "error:") : log; /* past any warnings */
        printf("  seed %llu, %s: refused for a limit: %.*s\n", (unsigned long long)seed, arch, (int)strcspn(why, "\n"),
               why);
        tilecDestroyProgram(&p);
        return NULL;
    }
    GPU_CHECK(rt, tilecModuleLoad(rt, p, &m));
    tilecDestroyProgram(&p);
    return m;
}

/* One kernel: returns the number of failing buffers. */
static int run_one(tilecRuntime rt, const char *src, uint64_t seed, const char *const *archs, int narchs)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    static const int32_t rows[] = {1, 37, 130, 256};
    int32_t n = rows[gpu_rand_next(&st) % 4];
    int inexact = order_dependent(src);
    float s = draw_f32(&st, inexact);
    size_t count = (size_t)n * COLS;
    void *init[NBUF], *cpu[NBUF], *gpu[NBUF];
    for (int b = 0; b < NBUF; b++) {
        init[b] = malloc(count * ESIZE[b]);
        cpu[b] = malloc(count * ESIZE[b]);
        gpu[b] = malloc(count * ESIZE[b]);
        if (!init[b] || !cpu[b] || !gpu[b]) {
            printf("FAIL: out of host memory\n");
            exit(1);
        }
        fill(b, init[b], count, &st, inexact);
        memcpy(cpu[b], init[b], count * ESIZE[b]);
    }
    void *cargs[NBUF + 2];
    for (int b = 0; b < NBUF; b++)
        cargs[b] = &cpu[b];
    cargs[NBUF] = &s;
    cargs[NBUF + 1] = &n;
    int invalid, bad_kernel = 0;
    if (cpu_run(src, cargs, &invalid)) {
        skipped_exec += !invalid;
        goto out;
    }
    inexact_kernels += inexact;
    ran++;
    for (int a = 0; a < narchs; a++) {
        tilecModule mod = compile(rt, src, archs[a], seed);
        if (!mod)
            continue;
        tilecDevicePtr d[NBUF];
        for (int b = 0; b < NBUF; b++)
            d[b] = gpu_upload(rt, init[b], count * ESIZE[b]);
        void *gargs[NBUF + 2];
        for (int b = 0; b < NBUF; b++)
            gargs[b] = &d[b];
        gargs[NBUF] = &s;
        gargs[NBUF + 1] = &n;
        unsigned grid[3] = {1, 1, 1};
        GPU_CHECK(rt, tilecLaunch(mod, "gen", grid, NULL, gargs));
        int bad = 0;
        char tag[64];
        snprintf(tag, sizeof tag, "seed %llu %s", (unsigned long long)seed, archs[a] + 7);
        for (int b = 0; b < NBUF; b++) {
            gpu_download(rt, gpu[b], d[b], count * ESIZE[b]);
            bad += compare(b, gpu[b], cpu[b], init[b], count, inexact, tag) != 0;
            GPU_CHECK(rt, tilecFree(rt, d[b]));
        }
        GPU_CHECK(rt, tilecModuleUnload(&mod));
        if (bad) {
            printf("FAIL: seed %llu, %s, %d rows: %d of 5 buffers differ%s; the kernel:\n%s", (unsigned long long)seed,
                   archs[a], n, bad, inexact ? " (an order-dependent kernel)" : "", src);
            bad_kernel = 1;
        }
    }
out:
    for (int b = 0; b < NBUF; b++)
        free(init[b]), free(cpu[b]), free(gpu[b]);
    return bad_kernel;
}

/* The file at path, or the test fails. */
static char *read_file(const char *path)
{
    char *s = gpu_read_file(path);
    if (!s) {
        printf("FAIL: cannot read %s\n", path);
        exit(1);
    }
    return s;
}

/* The kernels kept in tests/gpu/random/ (each a reduced kernel that once
 * failed, with its data's seed on a "// seed: N" line), in name order.
 * Returns how many ran. */
static int run_kept(tilecRuntime rt, const char *const *archs, int narchs)
{
    const char *root = getenv("TILEC_SOURCE_DIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/gpu/random", root && root[0] ? root : ".");
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort), ran_files = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t len = strlen(nm);
        if (len > 4 && !strcmp(nm + len - 4, ".tir")) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            char *src = read_file(path);
            const char *sl = strstr(src, "// seed: ");
            uint64_t seed = sl ? strtoull(sl + 9, NULL, 10) : 1;
            int before = ran, bad = run_one(rt, src, seed, archs, narchs);
            if (ran == before) { /* the executor refused it: a kept kernel must run */
                printf("FAIL: %s: not a kernel the executor runs\n", nm);
                bad = 1;
            }
            printf("%s (seed %llu): %s\n", nm, (unsigned long long)seed, bad ? "FAIL" : "ok");
            failures += bad;
            ran_files++;
            free(src);
        }
        free(names[i]);
    }
    free(names);
    return ran_files;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    tilecRuntime rt = gpu_open();
    int major = 0, minor = 0;
    GPU_CHECK(rt, tilecRuntimeComputeCapability(rt, &major, &minor));
    const char *archs[2] = {"--arch=sm_80", "--arch=sm_90a"};
    int narchs = major == 9 ? 2 : 1;
    const char *env = getenv("TILEC_TEST_SEED");
    uint64_t seed0 = env && env[0] ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    const char *file = getenv("TILEC_RANDOM_FILE");
    if (file && file[0]) {
        char *src = read_file(file);
        failures += run_one(rt, src, seed0, archs, narchs);
        free(src);
    } else {
        if (!run_kept(rt, archs, narchs))
            printf("(no kept kernels: TILEC_SOURCE_DIR names no source tree with tests/gpu/random)\n");
        const char *ne = getenv("TILEC_RANDOM_N"), *quick = getenv("TILEC_GPU_QUICK");
        long nk = ne && ne[0] ? atol(ne) : quick && quick[0] == '1' ? 150 : 400;
        printf("seeds %llu .. %llu (TILEC_TEST_SEED repeats them)\n", (unsigned long long)seed0,
               (unsigned long long)(seed0 + (uint64_t)nk - 1));
        double t0 = gpu_now_ms();
        for (long k = 0; k < nk; k++) {
            if (k && k % 100 == 0) /* where a run that was stopped got to */
                printf("%ld kernels, %.1f s\n", k, (gpu_now_ms() - t0) / 1000);
            uint64_t seed = seed0 + (uint64_t)k, st = seed;
            uint8_t bytes[GEN_BYTES];
            for (int i = 0; i < GEN_BYTES; i++)
                bytes[i] = (uint8_t)gpu_rand_next(&st);
            StrBuf src;
            sb_init(&src);
            if (seed % 3 == 2) /* a third: a GEMM loop first, its epilogue random */
                gen_kernel_gemm(bytes, sizeof bytes, &src);
            else /* odd seeds: no float sums */
                gen_kernel_runnable(bytes, sizeof bytes, (int)(seed & 1), &src);
            failures += run_one(rt, src.data, seed, archs, narchs);
            sb_free(&src);
        }
    }
    printf("%d kernels ran (%d order-dependent), %d refused by the executor, %d compiles refused for a limit\n", ran,
           inexact_kernels, skipped_exec, skipped_limit);
    gpu_close(&rt);
    if (failures) {
        printf("FAIL: %d kernel(s) differ\n", failures);
        return 1;
    }
    if (!ran) {
        printf("FAIL: no kernel ran\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
