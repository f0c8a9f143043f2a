/*
 * tilec.h promises that separate programs may be compiled from separate
 * threads at once. Threads here compile a mix of kernels and options (the
 * wgmma pipeline, the sm_80 lowering, a bf16 GEMM, a source with an error)
 * at the same time, each job several times over; every result must be the
 * one a compile alone gives: the same PTX byte for byte, the same tile IR,
 * the same error and log. Under the sanitizer build (CI step 2) this also
 * runs the compiler's shared state (LLVM's one-time set-up, the target
 * registry) under ASan and UBSan from several threads.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_source.h"
#include "tilec.h"

static char GEMM[2048], GEMM_BF16[2048];

static const char *const AXPB =
    "kernel @axpb(%X: ptr<f32>, %Y: ptr<f32>, %N: i32) warps(4) {\n"
    "  %p = program_id 0\n"
    "  %i = mul %p, 128\n"
    "  %vx = view %X [%N, 1] strides [1, 1]\n"
    "  %vy = view %Y [%N, 1] strides [1, 1]\n"
    "  %x = load %vx[%i, 0] : tile<128x1xf32>\n"
    "  %two = full 2.0 : tile<128x1xf32>\n"
    "  %y = mul %x, %two : tile<128x1xf32>\n"
    "  store %y, %vy[%i, 0]\n"
    "}\n";

/* an undefined value: a compile error at 3:22 */
static const char *const BAD = "kernel @k(%X: ptr<f32>) {\n"
                               "  %v = view %X [4, 4] strides [4, 1]\n"
                               "  %t = load %v[0, %nope] : tile<4x4xf32>\n"
                               "}\n";

typedef struct {
    const char *src;
    const char *opts[3];
    int nopts;
    /* a compile alone: its result, PTX (or NULL), tile IR and log */
    tilecResult rc;
    char *ptx, *tir, *log;
} Job;

static Job jobs[] = {
    {.src = GEMM, .opts = {"--arch=sm_90a", "--precision=tf32-rna"}, .nopts = 2},
    {.src = GEMM, .opts = {"--arch=sm_90a", "--precision=tf32-rne", "-fno-persistent"}, .nopts = 3},
    {.src = GEMM, .opts = {"--arch=sm_80", "--precision=3xtf32"}, .nopts = 2},
    {.src = GEMM_BF16, .opts = {"--arch=sm_90a"}, .nopts = 1},
    {.src = AXPB, .opts = {"--arch=sm_80", "-g0"}, .nopts = 2},
    {.src = BAD, .opts = {"--arch=sm_90a"}, .nopts = 1},
};
enum { NJOBS = sizeof jobs / sizeof jobs[0], THREADS = 4, ROUNDS = 2 };

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* Compiles job j; with keep, fills its expected results, else compares
 * with them. Returns a message (static storage per call site: the caller's
 * buffer) or NULL. */
static const char *compile_job(Job *j, int keep, char *msg, size_t n)
{
    tilecProgram p = NULL;
    tilecResult rc = tilecCreateProgram(&p, j->src, strlen(j->src), "threads.tir");
    if (rc == TILEC_SUCCESS)
        rc = tilecCompileProgram(p, j->nopts, j->opts);
    const char *ptx = NULL, *tir = NULL, *log = NULL;
    size_t size = 0;
    if (rc == TILEC_SUCCESS) {
        tilecGetPTX(p, &ptx, &size);
        tilecGetStage(p, TILEC_STAGE_TIR, &tir);
    }
    tilecGetProgramLog(p, &log);
    const char *bad = NULL;
    if (keep) {
        j->rc = rc;
        j->ptx = dup_or_null(ptx);
        j->tir = dup_or_null(tir);
        j->log = dup_or_null(log);
    } else if (rc != j->rc)
        bad = "another result";
    else if ((ptx == NULL) != (j->ptx == NULL) || (ptx && strcmp(ptx, j->ptx)))
        bad = "other PTX";
    else if ((tir == NULL) != (j->tir == NULL) || (tir && strcmp(tir, j->tir)))
        bad = "another tile IR";
    else if ((log == NULL) != (j->log == NULL) || (log && strcmp(log, j->log)))
        bad = "another log";
    if (bad)
        snprintf(msg, n, "job %d (%s): %s than alone", (int)(j - jobs), j->opts[0], bad);
    tilecDestroyProgram(&p);
    return bad ? msg : NULL;
}

typedef struct {
    int id;
    char msg[160];
    int failed;
} Worker;

static void *work(void *arg)
{
    Worker *w = arg;
    for (int r = 0; r < ROUNDS && !w->failed; r++)
        for (int k = 0; k < NJOBS && !w->failed; k++) /* each thread starts at another job */
            w->failed = compile_job(&jobs[(k + w->id) % NJOBS], 0, w->msg, sizeof w->msg) != NULL;
    return NULL;
}

START_TEST(concurrent_compiles_match)
{
    char msg[160];
    gemm_source(GEMM, sizeof GEMM, "f32", 0, 0);
    gemm_source(GEMM_BF16, sizeof GEMM_BF16, "bf16", 0, 0);
    for (int i = 0; i < NJOBS; i++)
        ck_assert_ptr_null(compile_job(&jobs[i], 1, msg, sizeof msg));
    /* the mix is what it means to be: PTX for all but the bad source, whose
     * log names the place */
    for (int i = 0; i < NJOBS - 1; i++)
        ck_assert_msg(jobs[i].rc == TILEC_SUCCESS && jobs[i].ptx && strstr(jobs[i].ptx, ".entry"), "job %d", i);
    ck_assert_int_eq(jobs[NJOBS - 1].rc, TILEC_ERROR_COMPILATION);
    ck_assert_ptr_nonnull(strstr(jobs[NJOBS - 1].log, "threads.tir:3:"));
    ck_assert_ptr_nonnull(strstr(jobs[0].ptx, "wgmma.mma_async"));
    ck_assert_ptr_nonnull(strstr(jobs[2].ptx, "mma.sync"));

    pthread_t t[THREADS];
    Worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (Worker){.id = i};
        ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(!w[i].failed, "thread %d: %s", i, w[i].msg);
    for (int i = 0; i < NJOBS; i++) {
        free(jobs[i].ptx);
        free(jobs[i].tir);
        free(jobs[i].log);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, concurrent_compiles_match);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
