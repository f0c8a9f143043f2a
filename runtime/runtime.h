/*
 * What runtime/api.c lends the rest of the runtime (runtime/autotune.c):
 * its log, module loads that leave it alone, its disk cache directory and
 * its settings and its memory of autotuning choices; and what the programs of
 * runtime/api_program.c share with api.c's module loads.
 */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <stdint.h>

#include "compiler/compiler.h"
#include "runtime/cache.h"
#include "runtime/settings.h"
#include "tilec.h"

/* A program (runtime/api_program.c); runtime/api.c's module loads read it. */
struct tilecProgram_st {
    char *src;
    size_t len;
    char *name;      /* NULL when none was given */
    char *log;       /* never NULL; empty_log when there is nothing */
    int compiled;    /* 1 after a successful compile */
    int have_result; /* res holds (possibly partial) stages */
    TcResult res;
    TcOptions opts;
    char *opts_str;  /* canonical options of the last compile (cache key) */
};

/* Parses opts into o (from the defaults); problems go to log. */
tilecResult tc_parse_options(int nopts, const char *const *opts, TcOptions *o, StrBuf *log);
/* Compiles p with opts (keep_llvm: keep the LLVM IR text); the log and the
 * stages in p. */
tilecResult tc_compile_program(tilecProgram p, int nopts, const char *const *opts, int keep_llvm);

/* A NULL or bad argument of call ("tilecX"): INVALID_ARGUMENT, with what
 * in rt's log where rt works (a failed runtime keeps its own explanation). */
tilecResult tc_runtime_bad_arg(tilecRuntime rt, const char *call, const char *what);
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
/* The runtime's settings, fixed when it was made. */
const TcSettings *tc_runtime_settings(tilecRuntime rt);
/* Autotuning choices by key hash: get returns 1 and *best when known. */
int tc_runtime_tune_get(tilecRuntime rt, const uint8_t key[32], unsigned *best);
void tc_runtime_tune_put(tilecRuntime rt, const uint8_t key[32], unsigned best);

#endif
