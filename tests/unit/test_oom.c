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

/* Runs the workload failing from allocation n on, in a child; the child's
 * exit status: 0 fine, 3 wrong result without an oom report, 4 api. */
static int run_at(long n, int which, const char *src, const char *want)
{
    pid_t pid = fork();
    if (pid == 0) {
        int oom = 0;
        count = 0;
        fail_from = n;
        if (which == 2)
            _exit(api_workload(&oom) ? 4 : 0);
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
    else
        free(front_end(src, &oom));
    return count;
}

static void sweep(int which, const char *src)
{
    int oom = 0;
    char *want = which == 2 ? NULL : front_end(src, &oom);
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

int main(void)
{
    Suite *s = suite_create("oom");
    TCase *t = tcase_create("inject");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, front_end_valid);
    tcase_add_test(t, front_end_errors);
    tcase_add_test(t, api_compile_errors);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
