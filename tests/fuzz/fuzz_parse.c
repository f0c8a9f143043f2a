/*
 * Fuzz target: the parser and the verifier on arbitrary bytes.
 *
 * Oracle beyond "no crash, no leak, no undefined behaviour" (the
 * sanitizers' job): a module that parses and verifies without errors must
 * print to text that parses and verifies again and prints to the same text
 * (print -> parse -> print is a fixed point). A difference means the printer
 * wrote something the parser reads differently, i.e. a silent miscompile
 * of a dumped-and-reloaded kernel, so it aborts like a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parses src and verifies it; the module (or NULL) and the error count. */
static TirModule *parse_verify(const char *src, size_t len, int max_errors, int *nerrors)
{
    Diag d;
    diag_init(&d, "fuzz.tir", src, len);
    d.max_errors = max_errors;
    TirModule *m = tir_module_new("fuzz.tir");
    if (!m) {
        diag_free(&d);
        *nerrors = -1;
        return NULL;
    }
    int n = tir_parse(m, src, len, &d);
    if (n == 0 && !m->oom)
        n = tir_verify(m, &d);
    /* the diagnostics themselves are part of what is fuzzed: formatting the
     * caret line reads the source at every reported location */
    if (d.log.len && !d.log.data)
        abort();
    diag_free(&d);
    *nerrors = n + (m->oom ? 1 : 0);
    return m;
}

static char *print(const TirModule *m, size_t *len)
{
    StrBuf b;
    sb_init(&b);
    tir_print(m, &b);
    *len = b.len;
    return sb_take(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int nerr;
    /* the error limit changes how far recovery goes: vary it with the input */
    int max_errors = size ? 1 + data[size - 1] % 24 : 20;
    TirModule *m = parse_verify((const char *)data, size, max_errors, &nerr);
    if (!m)
        return 0;
    if (nerr != 0) {
        tir_module_free(m);
        return 0;
    }
    size_t n1, n2;
    char *t1 = print(m, &n1);
    tir_module_free(m);
    TirModule *m2 = parse_verify(t1, n1, 20, &nerr);
    if (m2 && nerr != 0) {
        fprintf(stderr, "fuzz_parse: the printed module does not parse back:\n%s\n", t1);
        abort();
    }
    if (!m2) {
        free(t1);
        return 0;
    }
    char *t2 = print(m2, &n2);
    tir_module_free(m2);
    if (n1 != n2 || memcmp(t1, t2, n1) != 0) {
        fprintf(stderr, "fuzz_parse: print -> parse -> print is not a fixed point:\n--- first\n%s\n--- second\n%s\n",
                t1, t2);
        abort();
    }
    free(t1);
    free(t2);
    return 0;
}
