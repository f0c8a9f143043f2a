/*
 * Host memory exhaustion in tilec's own code: allocation-failure injection.
 *
 * The program is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
 * (tests/CMakeLists.txt), so every allocation in tilec goes through the
 * wrappers below. For each N, the N-th allocation of a workload and all
 * later ones fail; the workload must then end cleanly: no crash, no leak
 * (under the sanitizer build), and either the same result as without
 * injection or an "out of memory" report (the module's oom flag, a
 * diagnostic, or TILEC_ERROR_OUT_OF_MEMORY / a log saying so). Each N runs
 * in a fork so that a crash is a test failure, not the end of the test.
 *
 * Workloads stay in front of LLVM: LLVM's C++ allocations cannot fail
 * gracefully (std::bad_alloc ends the process), which TESTING.md lists as
 * a known limit.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir/ir.h"
#include "runtime/cache.h"
#include "runtime/tmap.h"
#include "tilec.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static long fail_from; /* 0: never fail */
static long count;     /* allocations since the workload started */

static int injected(void) { return ++count >= fail_from && fail_from > 0; }
void *__wrap_malloc(size_t n) { return injected() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return injected() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return injected() ? NULL : __real_realloc(p, n); }

static const char SEED[] =
    "kernel @seed(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>) grid(1, 1) warps(4) {\n"
    "  %va = view %A [64, 64] strides [64, 1]\n"
    "  %vb = view %B [64, 64] strides [64, 1]\n"
    "  %vc = view %C [64, 64] strides [64, 1]\n"
    "  %a = load %va[0, 0] : tile<64x64xf32>\n"
    "  %b = load %vb[0, 0] : tile<64x64xf32>\n"
    "  %z = zeros : tile<64x64xf32>\n"
    "  %acc = for %k = 0 to 4 step 1 iter(%c = %z) {\n"
    "    %d = dot %a, %b, %c {precision = 3xtf32} : tile<64x64xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  %s = inline_ptx \"mov.b32 $0, $1;\" %acc : tile<64x64xf32>\n"
    "  store %s, %vc[0, 0]\n"
    "}\n";

static const char BROKEN[] = "kernel @k(%X: ptr<f32>) {\n"
                             "  %a = frobnicate %X\n"
                             "  %b = add %undefined, 1.0\n"
                             "  %c = zeros : tile<3x4xf32>\n"
                             "}\n";

/* parse -> verify -> print; the printed text (malloc'ed, real allocator)
 * or NULL, and whether an out-of-memory condition was reported. */
static char *front_end(const char *src, int *oom_reported)
{
    Diag d;
    diag_init(&d, "oom.tir", src, strlen(src));
    TirModule *m = tir_module_new("oom.tir");
    char *text = NULL;
    *oom_reported = m == NULL;
    if (m) {
        int errors = tir_parse(m, src, strlen(src), &d);
        if (!errors && !m->oom)
            errors = tir_verify(m, &d);
        if (!errors && !m->oom) {
            StrBuf b;
            sb_init(&b);
            tir_print(m, &b);
            if (b.oom)
                *oom_reported = 1;
            else {
                long saved = fail_from;
                fail_from = 0; /* the copy for the comparison is not part of the workload */
                text = __real_malloc(b.len + 1);
                fail_from = saved;
                memcpy(text, b.data, b.len);
                text[b.len] = 0;
            }
            sb_free(&b);
        }
        *oom_reported |= m->oom || (d.log.data && strstr(d.log.data, "out of memory")) || d.log.oom;
        tir_module_free(m);
    }
    diag_free(&d);
    return text;
}

/* The API on a program that fails to parse: options, compile, log. */
static int api_workload(int *oom_reported)
{
    const char *opts[] = {"--arch=sm_80", "--precision=ieee", "-O2"};
    tilecProgram p = NULL;
    tilecResult r = tilecCreateProgram(&p, BROKEN, sizeof BROKEN - 1, "broken.tir");
    *oom_reported = r == TILEC_ERROR_OUT_OF_MEMORY;
    if (r != TILEC_SUCCESS)
        return r == TILEC_ERROR_OUT_OF_MEMORY ? 0 : 1;
    r = tilecCompileProgram(p, 3, opts);
    const char *log = NULL;
    tilecGetProgramLog(p, &log);
    int ok = log != NULL && (r == TILEC_ERROR_COMPILATION || r == TILEC_ERROR_OUT_OF_MEMORY);
    *oom_reported |= r == TILEC_ERROR_OUT_OF_MEMORY || (log && strstr(log, "out of memory"));
    /* a compile that failed for lack of memory may have an empty log, but
     * must not claim the source is fine */
    tilecDestroyProgram(&p);
    return ok ? 0 : 2;
}

/* Kernel facts with tensor maps: copied, read back from a disk cache entry
 * (written by the parent into tmap_dir) and turned into launch
 * parameters. A miss or a failed build counts only where an allocation
 * failed. */
static TirType tmap_params[3] = {{.kind = TY_PTR, .elem = ELEM_F32},
                                 {.kind = TY_SCALAR, .elem = ELEM_I32},
                                 {.kind = TY_SCALAR, .elem = ELEM_I64}};
static TcTmap tmap_maps[2] = {
    {.kind = TC_TMAP_ROWS, .dtype = TC_TMAP_TF32, .box = {32, 64, 0}, .base_param = 0, .d0 = {1, 0}, .d1 = {-1, 256},
     .s0 = {2, 0}, .s1 = {-1, 1}},
    {.kind = TC_TMAP_PANELS, .box = {8, 32, 16}, .base_param = 0, .d0 = {-1, 64}, .d1 = {1, 0}, .s0 = {2, 0},
     .s1 = {-1, 1}}};
static TcKernelInfo tmap_kernels[2] = {
    {.name = "gemm", .threads = 384, .nparams = 3, .params = tmap_params, .ntmaps = 2, .tmaps = tmap_maps},
    {.name = "plain", .threads = 128, .nparams = 1, .params = tmap_params}};
static char tmap_dir[256];
static char tmap_ptx[] = ".version 8.0\n";

static TcCacheKey tmap_key(void)
{
    TcCacheKeyParts parts = {.src = "oom", .src_len = 3, .options = "-O3", .target = "sm_90a"};
    TcCacheKey k;
    tc_cache_key(&parts, &k);
    return k;
}

static void tmap_write_entry(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmap_dir, sizeof tmap_dir, "%s/tilec-test-oom-XXXXXX", t && t[0] ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmap_dir));
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(tmap_dir, &log);
    TcCacheKey k = tmap_key();
    TcCacheEntry e = {.ptx = tmap_ptx, .ptx_len = strlen(tmap_ptx), .kernels = tmap_kernels, .nkernels = 2};
    tc_cache_put(c, &k, &e, &log);
    ck_assert_uint_eq(log.len, 0);
    tc_cache_free(c);
    sb_free(&log);
}

static void tmap_remove_entry(void)
{
    char path[600];
    TcCacheKey k = tmap_key();
    char hex[65];
    tc_hex(k.b, 32, hex);
    snprintf(path, sizeof path, "%s/%s.tkc", tmap_dir, hex);
    unlink(path);
    rmdir(tmap_dir);
}

static int same_tmaps(const TcKernelInfo *a, const TcKernelInfo *b)
{
    return a->ntmaps == b->ntmaps && (!a->ntmaps || !memcmp(a->tmaps, b->tmaps, a->ntmaps * sizeof *a->tmaps)) &&
           a->nparams == b->nparams && !strcmp(a->name, b->name);
}

static int tmap_workload(int *oom_reported)
{
    int ok = 1;
    TcKernelInfo *copy = NULL;
    if (tc_kernel_infos_copy(&copy, tmap_kernels, 2) == 0)
        ok &= same_tmaps(&copy[0], &tmap_kernels[0]) && same_tmaps(&copy[1], &tmap_kernels[1]);
    else
        *oom_reported = 1;
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(tmap_dir, &log);
    TcCacheEntry got;
    TcCacheKey k = tmap_key();
    if (c && tc_cache_get(c, &k, &got, &log)) {
        ok &= got.nkernels == 2 && same_tmaps(&got.kernels[0], &tmap_kernels[0]);
        tc_cache_entry_free(&got);
    } else {
        *oom_reported = 1;
    }
    tc_cache_free(c);
    uint64_t base = 0x10000;
    int32_t m = 64;
    int64_t ld = 64;
    void *args[3] = {&base, &m, &ld};
    TcTmapArgs a;
    tilecResult r = tc_tmap_args_build(&a, &tmap_kernels[0], args, NULL, &log);
    if (r == TILEC_ERROR_OUT_OF_MEMORY)
        *oom_reported = 1;
    else
        ok &= r == TILEC_SUCCESS && a.args[3] == a.maps && a.args[5] == &a.flags;
    tc_tmap_args_free(&a);
    tc_kernel_infos_free(copy, copy ? 2 : 0);
    sb_free(&log);
    return ok ? 0 : 5;
}

/* Runs the workload failing from allocation n on, in a child; the child's
 * exit status: 0 fine, 3 wrong result without an oom report, 4 api, 5
 * tensor maps. */
static int run_at(long n, int which, const char *src, const char *want)
{
    pid_t pid = fork();
    if (pid == 0) {
        int oom = 0;
        count = 0;
        fail_from = n;
        if (which == 2)
            _exit(api_workload(&oom) ? 4 : 0);
        if (which == 3) {
            int rc = tmap_workload(&oom);
            /* an oom report without a failed allocation is a wrong result */
            _exit(rc ? rc : oom && count < fail_from ? 3 : 0);
        }
        char *got = front_end(src, &oom);
        fail_from = 0;
        int same = (got == NULL && want == NULL) || (got && want && !strcmp(got, want));
        _exit(same || oom ? 0 : 3);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* How many allocations the workload makes without injection. */
static long allocations(int which, const char *src)
{
    int oom = 0;
    count = 0;
    fail_from = 0;
    if (which == 2)
        api_workload(&oom);
    else if (which == 3) {
        ck_assert_int_eq(tmap_workload(&oom), 0);
        ck_assert_msg(!oom, "the tensor map workload failed without injection");
    } else
        free(front_end(src, &oom));
    return count;
}

static void sweep(int which, const char *src)
{
    int oom = 0;
    char *want = which >= 2 ? NULL : front_end(src, &oom);
    long total = allocations(which, src);
    ck_assert_int_gt(total, 0);
    fprintf(stderr, "workload %d: %ld allocations\n", which, total);
    /* every failure point up to 400, then a spread over the rest */
    for (long n = 1; n <= total; n += n < 400 ? 1 : total / 200 + 1) {
        int rc = run_at(n, which, src, want);
        ck_assert_msg(rc == 0, "workload %d, allocations failing from #%ld of %ld: child status %d", which, n, total,
                      rc);
    }
    free(want);
}

START_TEST(front_end_valid) { sweep(0, SEED); }
END_TEST
START_TEST(front_end_errors) { sweep(1, BROKEN); }
END_TEST
START_TEST(api_compile_errors) { sweep(2, NULL); }
END_TEST
START_TEST(kernel_tmaps)
{
    tmap_write_entry();
    sweep(3, NULL);
    tmap_remove_entry();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("oom");
    TCase *t = tcase_create("inject");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, front_end_valid);
    tcase_add_test(t, front_end_errors);
    tcase_add_test(t, api_compile_errors);
    tcase_add_test(t, kernel_tmaps);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
