/*
 * What runtime/api.c lends the rest of the runtime (runtime/autotune.c):
 * its log, module loads that leave it alone, its disk cache directory and
 * its memory of autotuning choices.
 */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <stdint.h>

#include "compiler/compiler.h"
#include "runtime/cache.h"
#include "tilec.h"

/* The error the runtime was created with, TILEC_SUCCESS if it works. */
tilecResult tc_runtime_dead(tilecRuntime rt);
/* The end of a call on rt: a failure replaces the log with msg, notes of a
 * success are appended; msg is freed. Returns t. */
tilecResult tc_runtime_done(tilecRuntime rt, tilecResult t, StrBuf *msg);
/* tilecModuleLoadSource without touching rt's log: what it would put
 * there goes to msg (for calls from several threads at once, whose
 * messages must not mix). */
tilecResult tc_module_load_source(tilecRuntime rt, const char *src, size_t len, const char *name, int nopts,
                                  const char *const *opts, tilecModule *mod, StrBuf *msg);
/* The kernel cache (its directory: tc_cache_dir, NULL when in memory only). */
TcCache *tc_runtime_cache(tilecRuntime rt);
/* Autotuning choices by key hash: get returns 1 and *best when known. */
int tc_runtime_tune_get(tilecRuntime rt, const uint8_t key[32], unsigned *best);
void tc_runtime_tune_put(tilecRuntime rt, const uint8_t key[32], unsigned best);

#endif
