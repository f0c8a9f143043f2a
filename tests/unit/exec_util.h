/*
 * Helpers shared by the executor's unit tests: parse a kernel or fail the
 * test with the diagnostics, run it on the CPU or fail with the error.
 */
#ifndef TILEC_TEST_EXEC_UTIL_H
#define TILEC_TEST_EXEC_UTIL_H

#include <check.h>
#include <string.h>

#include "ir/ir.h"
#include "reference/exec.h"

static inline TirModule *parse_ok(const char *src)
{
    TirModule *m = tir_module_new("test.tir");
    ck_assert_ptr_nonnull(m);
    Diag d;
    diag_init(&d, "test.tir", src, strlen(src));
    int n = tir_parse(m, src, strlen(src), &d);
    ck_assert_msg(n == 0 && d.nerrors == 0, "parse failed:\n%s", d.log.data ? d.log.data : "");
    diag_free(&d);
    return m;
}

/* kernel 0 of m; a successful run leaves nothing in the error log */
static inline void exec_ok(const TirModule *m, const unsigned *grid, void **args, TirPrecision p)
{
    StrBuf err;
    sb_init(&err);
    int rc = tir_exec(m, 0, grid, args, p, &err);
    ck_assert_msg(rc == 0, "exec failed: %s", err.data ? err.data : "");
    ck_assert_uint_eq(err.len, 0);
    sb_free(&err);
}

#endif
