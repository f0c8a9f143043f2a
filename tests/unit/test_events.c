/*
 * The event (timing) API: handle checks everywhere, the no-driver answer on
 * a machine without a GPU, and, where a GPU is present, that two recorded
 * events give a sane elapsed time.
 *
 * The no-driver case only means something without libcuda.so.1, and the
 * device case only with a working GPU: each of them returns early (saying
 * so on stderr) on the wrong kind of machine, so the suite passes on both.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

static int driver_present(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

START_TEST(null_handles)
{
    tilecEvent ev = (tilecEvent)(uintptr_t)1; /* must be reset to NULL */
    float ms = -1;
    ck_assert_int_eq(tilecEventCreate(NULL, &ev), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecEventCreate(NULL, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecEventRecord(NULL, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecEventElapsed(NULL, NULL, &ms), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecEventElapsed(NULL, NULL, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecEventDestroy(NULL), TILEC_ERROR_INVALID_ARGUMENT);
    tilecEvent none = NULL;
    ck_assert_int_eq(tilecEventDestroy(&none), TILEC_ERROR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(no_driver)
{
    if (driver_present()) {
        fprintf(stderr, "events.no_driver: skipped, libcuda.so.1 is present\n");
        return;
    }
    tilecRuntime rt = NULL;
    ck_assert_int_eq(tilecRuntimeCreate(&rt, 0), TILEC_ERROR_NO_DRIVER);
    ck_assert_ptr_nonnull(rt);
    tilecEvent ev = (tilecEvent)(uintptr_t)1;
    ck_assert_int_eq(tilecEventCreate(rt, &ev), TILEC_ERROR_NO_DRIVER);
    ck_assert_ptr_null(ev);
    ck_assert_int_eq(tilecEventCreate(rt, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    const char *log = NULL;
    ck_assert_int_eq(tilecRuntimeGetLog(rt, &log), TILEC_SUCCESS);
    ck_assert_msg(strstr(log, "libcuda.so.1 not found") != NULL, "log: %s", log);
    ck_assert_int_eq(tilecRuntimeDestroy(&rt), TILEC_SUCCESS);
}
END_TEST

/* On a GPU machine: records around a small memset, elapsed time >= 0, the
 * runtime outlives its user handle while events hold it, and asking for the
 * time of an event never recorded is INVALID_STATE. */
START_TEST(with_device)
{
    tilecRuntime rt = NULL;
    tilecResult r = tilecRuntimeCreate(&rt, 0);
    if (r != TILEC_SUCCESS) {
        fprintf(stderr, "events.with_device: skipped, no GPU (%s)\n", tilecGetErrorString(r));
        tilecRuntimeDestroy(&rt);
        return;
    }
    tilecEvent a = NULL, b = NULL, never = NULL;
    ck_assert_int_eq(tilecEventCreate(rt, &a), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventCreate(rt, &b), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventCreate(rt, &never), TILEC_SUCCESS);
    tilecDevicePtr d = 0;
    ck_assert_int_eq(tilecMalloc(rt, &d, 1 << 20), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventRecord(a, NULL), TILEC_SUCCESS);
    ck_assert_int_eq(tilecMemsetD8(rt, d, 0, 1 << 20), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventRecord(b, NULL), TILEC_SUCCESS);
    float ms = -1;
    ck_assert_int_eq(tilecEventElapsed(a, b, &ms), TILEC_SUCCESS);
    ck_assert_msg(ms >= 0 && ms < 10000, "elapsed %g ms", ms);
    ck_assert_int_eq(tilecEventElapsed(never, b, &ms), TILEC_ERROR_INVALID_STATE);
    ck_assert_int_eq(tilecFree(rt, d), TILEC_SUCCESS);
    /* events keep the runtime alive: destroy it first */
    ck_assert_int_eq(tilecRuntimeDestroy(&rt), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventDestroy(&a), TILEC_SUCCESS);
    ck_assert_ptr_null(a);
    ck_assert_int_eq(tilecEventDestroy(&b), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventDestroy(&never), TILEC_SUCCESS);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("events");
    TCase *t = tcase_create("events");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, null_handles);
    tcase_add_test(t, no_driver);
    tcase_add_test(t, with_device);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
