/*
 * The autotuner's parts that need no GPU (runtime/autotune.h): the key of
 * a choice covers every configuration field, a record survives the trip to
 * disk, and a record that is damaged or names a configuration beyond the
 * list is ignored and removed; tilecAutotune rejects bad arguments (a NULL
 * option among them) before anything else and, on a runtime without a
 * driver, returns the runtime's error.
 * (tests/gpu/test_autotune.c times real configurations.)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/autotune.h"
#include "tilec.h"

static const char *const opt_a[] = {"--stages=3"}, *const opt_b[] = {"--stages=4"};

static void two_configs(tilecTuneConfig c[2])
{
    c[0] = (tilecTuneConfig){"kernel-a", 8, "a.tir", 1, opt_a, {8, 8, 1}};
    c[1] = (tilecTuneConfig){"kernel-b", 8, "b.tir", 0, NULL, {4, 8, 1}};
}

START_TEST(key_covers_every_field)
{
    tilecTuneConfig c[2];
    uint8_t k0[32], k[32];
    two_configs(c);
    tc_tune_key("gemm 8192", c, 2, "gemm", "H200", k0);
    tc_tune_key("gemm 8192", c, 2, "gemm", "H200", k);
    ck_assert_mem_eq(k0, k, 32); /* deterministic */
    tc_tune_key("gemm 4096", c, 2, "gemm", "H200", k);
    ck_assert(memcmp(k0, k, 32) != 0);
    tc_tune_key("gemm 8192", c, 2, "other", "H200", k);
    ck_assert(memcmp(k0, k, 32) != 0);
    tc_tune_key("gemm 8192", c, 2, "gemm", "A100", k);
    ck_assert(memcmp(k0, k, 32) != 0);
    tc_tune_key("gemm 8192", c, 1, "gemm", "H200", k);
    ck_assert(memcmp(k0, k, 32) != 0);
    c[1].grid[0] = 5; /* the grid */
    tc_tune_key("gemm 8192", c, 2, "gemm", "H200", k);
    ck_assert(memcmp(k0, k, 32) != 0);
    two_configs(c);
    c[0].opts = opt_b; /* an option */
    tc_tune_key("gemm 8192", c, 2, "gemm", "H200", k);
    ck_assert(memcmp(k0, k, 32) != 0);
    two_configs(c);
    c[1].src = "kernel-c"; /* the source */
    tc_tune_key("gemm 8192", c, 2, "gemm", "H200", k);
    ck_assert(memcmp(k0, k, 32) != 0);
}
END_TEST

static char dir[] = "/tmp/tilec-tune-unit-XXXXXX";

static void record_file(const uint8_t key[32], const char *text)
{
    static const char hexd[] = "0123456789abcdef";
    char path[256], hex[65];
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = hexd[key[i] >> 4];
        hex[2 * i + 1] = hexd[key[i] & 15];
    }
    hex[64] = 0;
    snprintf(path, sizeof path, "%s/%s.tune", dir, hex);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int files_in_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

START_TEST(record_round_trip_and_damage)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    uint8_t key[32];
    tilecTuneConfig c[2];
    two_configs(c);
    tc_tune_key("k", c, 2, "gemm", "H200", key);
    unsigned best = 99;
    StrBuf log;
    sb_init(&log);
    TcCache *cache = tc_cache_new(dir, &log);
    ck_assert_ptr_nonnull(cache);
    ck_assert_int_eq(tc_tune_record_read(cache, key, 2, &best), 0); /* none yet */
    ck_assert_int_eq(tc_tune_record_write(cache, key, 1), 0);
    ck_assert_int_eq(tc_tune_record_read(cache, key, 2, &best), 1);
    ck_assert_uint_eq(best, 1);
    ck_assert_int_eq(files_in_dir(), 1); /* no temporary left behind */
    /* a record naming configuration 1 of a one-configuration list: ignored, removed */
    ck_assert_int_eq(tc_tune_record_read(cache, key, 1, &best), 0);
    ck_assert_int_eq(files_in_dir(), 0);
    static const char *const damaged[] = {"", "tilec-tune 1 best", "tilec-tune 2 best 0\n", "tilec-tune 1 best 0",
                                          "garbage\n", "tilec-tune 1 best -1\n"};
    for (size_t i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
        record_file(key, damaged[i]);
        ck_assert_msg(tc_tune_record_read(cache, key, 2, &best) == 0, "accepted damaged record '%s'", damaged[i]);
        ck_assert_int_eq(files_in_dir(), 0);
    }
    ck_assert_int_eq(tc_tune_record_read(NULL, key, 2, &best), 0); /* no cache */
    ck_assert_int_eq(tc_tune_record_write(NULL, key, 0), -1);
    TcCache *mem = tc_cache_new(NULL, &log); /* memory only: no record */
    ck_assert_int_eq(tc_tune_record_write(mem, key, 0), -1);
    tc_cache_free(mem);
    tc_cache_free(cache);
    sb_free(&log);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(api_arguments)
{
    tilecTuneConfig c[2];
    two_configs(c);
    unsigned best;
    tilecModule mod = (tilecModule)1;
    void *args[1] = {NULL};
    ck_assert_int_eq(tilecAutotune(NULL, "k", c, 2, "gemm", args, &best, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    tilecRuntime rt = NULL;
    tilecResult created = tilecRuntimeCreate(&rt, 0);
    ck_assert_ptr_nonnull(rt);
    ck_assert_int_eq(tilecAutotune(rt, NULL, c, 2, "gemm", args, &best, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecAutotune(rt, "k", c, 0, "gemm", args, &best, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecAutotune(rt, "k", c, 2, NULL, args, &best, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecAutotune(rt, "k", c, 2, "gemm", args, NULL, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    static const char *const null_opt[] = {NULL};
    c[1].nopts = 1, c[1].opts = null_opt; /* an option that is NULL */
    ck_assert_int_eq(tilecAutotune(rt, "k", c, 2, "gemm", args, &best, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    two_configs(c);
    c[1].nopts = 2; /* options promised, none given */
    ck_assert_int_eq(tilecAutotune(rt, "k", c, 2, "gemm", args, &best, &mod), TILEC_ERROR_INVALID_ARGUMENT);
    if (created != TILEC_SUCCESS) { /* no driver here: the runtime's own error */
        two_configs(c);
        ck_assert_int_eq(tilecAutotune(rt, "k", c, 2, "gemm", args, &best, &mod), created);
        ck_assert_ptr_null(mod);
    }
    ck_assert_int_eq(tilecRuntimeDestroy(&rt), TILEC_SUCCESS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("autotune");
    TCase *tc = tcase_create("autotune");
    tcase_add_test(tc, key_covers_every_field);
    tcase_add_test(tc, record_round_trip_and_damage);
    tcase_add_test(tc, api_arguments);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
