/*
 * Helpers for the GPU tests (see gpu_common.h). Test code, so it may exit.
 */
#include "gpu_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *rt_log(tilecRuntime rt)
{
    const char *log = "";
    if (rt)
        tilecRuntimeGetLog(rt, &log);
    return log ? log : "";
}

tilecRuntime gpu_open(void)
{
    const char *env = getenv("TILEC_DEVICE");
    int dev = env && env[0] ? atoi(env) : 0;
    tilecRuntime rt = NULL;
    tilecResult r = tilecRuntimeCreate(&rt, dev);
    if (r == TILEC_ERROR_NO_DRIVER || r == TILEC_ERROR_NO_DEVICE) {
        /* the log's first line is the reason */
        const char *log = rt_log(rt);
        int n = (int)strcspn(log, "\n");
        printf("SKIP: %.*s (%s)\n", n, n ? log : "no GPU", tilecGetErrorString(r));
        tilecRuntimeDestroy(&rt);
        exit(77);
    }
    if (r != TILEC_SUCCESS) {
        fprintf(stderr, "FAIL: tilecRuntimeCreate(device %d): %s\n%s", dev, tilecGetErrorString(r), rt_log(rt));
        tilecRuntimeDestroy(&rt);
        exit(1);
    }
    const char *name = "?";
    tilecRuntimeDeviceName(rt, &name);
    printf("device %d: %s\n", dev, name);
    return rt;
}

void gpu_close(tilecRuntime *rt)
{
    if (*rt)
        gpu_check_at(tilecRuntimeDestroy(rt), NULL, "tilecRuntimeDestroy", __FILE__, __LINE__);
}

void gpu_check_at(tilecResult r, tilecRuntime rt, const char *what, const char *file, int line)
{
    if (r == TILEC_SUCCESS)
        return;
    const char *log = rt_log(rt);
    fprintf(stderr, "FAIL: %s:%d: %s: %s\n%s%s", file, line, what, tilecGetErrorString(r), log,
            log[0] && log[strlen(log) - 1] != '\n' ? "\n" : "");
    exit(1);
}

tilecModule gpu_load(tilecRuntime rt, const char *src, const char *name, int nopts, const char *const *opts)
{
    const char *how = getenv("TILEC_TEST_LOAD");
    if (how && !strcmp(how, "source")) {
        tilecModule m = NULL;
        gpu_check_at(tilecModuleLoadSource(rt, src, strlen(src), name, nopts, opts, &m), rt, "tilecModuleLoadSource",
                     __FILE__, __LINE__);
        return m;
    }
    tilecProgram p = NULL;
    const char *log = "";
    gpu_check_at(tilecCreateProgram(&p, src, strlen(src), name), NULL, "tilecCreateProgram", __FILE__, __LINE__);
    tilecResult r = tilecCompileProgram(p, nopts, opts);
    tilecGetProgramLog(p, &log);
    if (r != TILEC_SUCCESS) {
        fprintf(stderr, "FAIL: compiling %s: %s\n%s", name ? name : "<input>", tilecGetErrorString(r), log);
        exit(1);
    }
    if (log[0]) /* warnings are worth seeing in a test's output */
        fprintf(stderr, "%s", log);
    tilecModule m = NULL;
    gpu_check_at(tilecModuleLoad(rt, p, &m), rt, "tilecModuleLoad", __FILE__, __LINE__);
    tilecDestroyProgram(&p);
    return m;
}

int gpu_copts(char *buf, size_t size, const char *extra, const char **all, int max)
{
    const char *env = getenv("TILEC_TEST_COPT");
    if ((size_t)snprintf(buf, size, "%s %s", env ? env : "", extra ? extra : "") >= size) {
        printf("FAIL: TILEC_TEST_COPT and the test's options do not fit %zu bytes\n", size);
        exit(1);
    }
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (n == max) {
            printf("FAIL: more than %d options in TILEC_TEST_COPT and the test's own\n", max);
            exit(1);
        }
        all[n++] = tok;
    }
    return n;
}

tilecModule gpu_load_copts(tilecRuntime rt, const char *src, const char *name, int nopts, const char *const *opts,
                           const char *extra)
{
    char buf[512];
    const char *all[GPU_MAX_COPTS + 2];
    int n = 0;
    for (; n < nopts && n < 2; n++)
        all[n] = opts[n];
    n += gpu_copts(buf, sizeof buf, extra, all + n, GPU_MAX_COPTS);
    return gpu_load(rt, src, name, n, all);
}

tilecDevicePtr gpu_alloc(tilecRuntime rt, size_t bytes)
{
    tilecDevicePtr d = 0;
    gpu_check_at(tilecMalloc(rt, &d, bytes), rt, "tilecMalloc", __FILE__, __LINE__);
    return d;
}

tilecDevicePtr gpu_upload(tilecRuntime rt, const void *host, size_t bytes)
{
    tilecDevicePtr d = gpu_alloc(rt, bytes);
    gpu_check_at(tilecMemcpyHtoD(rt, d, host, bytes), rt, "tilecMemcpyHtoD", __FILE__, __LINE__);
    return d;
}

void gpu_download(tilecRuntime rt, void *host, tilecDevicePtr dev, size_t bytes)
{
    gpu_check_at(tilecMemcpyDtoH(rt, host, dev, bytes), rt, "tilecMemcpyDtoH", __FILE__, __LINE__);
}

void gpu_poison(tilecRuntime rt, tilecDevicePtr dev, size_t bytes)
{
    gpu_check_at(tilecMemsetD8(rt, dev, 0xFF, bytes), rt, "tilecMemsetD8", __FILE__, __LINE__);
}

void gpu_poison_host(void *p, size_t bytes) { memset(p, 0xFF, bytes); }

uint64_t gpu_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void gpu_fill_f32(float *p, size_t n, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        double u = (double)(gpu_rand_next(&s) >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
        p[i] = (float)(lo + (hi - lo) * u);
    }
}

void gpu_fill_i32(int32_t *p, size_t n, uint64_t seed, int32_t lo, int32_t hi)
{
    uint64_t s = seed;
    uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
    for (size_t i = 0; i < n; i++)
        p[i] = (int32_t)(lo + (int64_t)(gpu_rand_next(&s) % span));
}

size_t gpu_compare_f32(const char *what, const float *got, const double *want, size_t n, size_t cols, double atol,
                       double rtol)
{
    size_t bad = 0;
    double max_abs = 0, max_rel = 0;
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        int ok;
        if (isnan(w))
            ok = isnan(g);
        else if (isnan(g))
            ok = 0;
        else if (isinf(w))
            ok = g == w;
        else {
            double err = fabs(g - w);
            ok = err <= atol + rtol * fabs(w);
            if (err > max_abs)
                max_abs = err;
            if (w != 0 && err / fabs(w) > max_rel)
                max_rel = err / fabs(w);
        }
        if (ok)
            continue;
        if (bad < 10) {
            if (cols)
                fprintf(stderr, "  %s[%zu][%zu]: got %.9g, want %.9g\n", what, i / cols, i % cols, g, w);
            else
                fprintf(stderr, "  %s[%zu]: got %.9g, want %.9g\n", what, i, g, w);
        }
        bad++;
    }
    fprintf(stderr, "%s: %zu of %zu outside atol %.3g + rtol %.3g; max abs error %.3g, max rel error %.3g\n", what,
            bad, n, atol, rtol, max_abs, max_rel);
    return bad;
}

void gpu_gemm_f64(int M, int N, int K, const float *A, int lda, const float *B, int ldb, double *C, int ldc)
{
    /* i-k-j order keeps B and C rows streaming through the cache */
    for (int i = 0; i < M; i++) {
        double *c = C + (size_t)i * ldc;
        for (int j = 0; j < N; j++)
            c[j] = 0;
        for (int k = 0; k < K; k++) {
            double a = A[(size_t)i * lda + k];
            const float *b = B + (size_t)k * ldb;
            for (int j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

float gpu_round_tf32_rna(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) /* finite: round half away, keep 10 mantissa bits */
        u = (u + 0x1000u) & 0xffffe000u;
    else if (u & 0x007fffffu) /* NaN: truncate, stay NaN */
        u = (u & 0xffffe000u) | ((u & 0xffffe000u) == (u & 0xff800000u) ? 0x00400000u : 0);
    memcpy(&x, &u, 4);
    return x;
}

double gpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

size_t gpu_log_mark(tilecRuntime rt)
{
    const char *log = rt_log(rt);
    return strlen(log);
}

int gpu_log_has_since(tilecRuntime rt, size_t mark, const char *s)
{
    const char *log = rt_log(rt);
    return strlen(log) >= mark && strstr(log + mark, s) != NULL;
}

char *gpu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

double gpu_gemm_tolerance(const char *precision, int K)
{
    double acc = 2.0 * (K + 2) * ldexp(1, -24); /* f32 accumulation */
    if (!strcmp(precision, "tf32-trunc"))
        return acc + ldexp(1, -8);
    if (!strcmp(precision, "tf32-rna") || !strcmp(precision, "tf32-rne"))
        return acc + ldexp(1, -9);
    if (!strcmp(precision, "3xtf32")) /* split error ~2^-22 per product */
        return acc + ldexp(1, -21);
    return acc; /* ieee */
}
