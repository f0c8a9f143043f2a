/*
 * A runtime's settings: what tilecRuntimeCreateWithOptions takes, each
 * option over its environment variable, the variable over the default.
 * Read once, when the runtime is made, so that a runtime behaves the same
 * for its whole life and embedders need no setenv (not thread-safe) to
 * configure one.
 *
 *   option                         variable              default
 *   --cache-dir=DIR                TILEC_CACHE_DIR       $XDG_CACHE_HOME/tilec, ~/.cache/tilec
 *   --no-cache / --cache           TILEC_CACHE=0         on disk
 *   --ptxas=PATH / --no-ptxas      TILEC_PTXAS (0: none) /usr/local/cuda/bin/ptxas if there
 *   --stage=never|auto|always      TILEC_STAGE=0|1       auto (runtime/stage.h's rule)
 *   --preround=never|auto|always   TILEC_PREROUND=0|1    auto
 *   --jit-tma-only / --no-...      TILEC_JIT_TMA_ONLY=0  on
 *   --persist-blocks=N             TILEC_PERSIST_BLOCKS  0: as many as the GPU holds
 *   --tune-jobs=N                  TILEC_TUNE_JOBS       0: one per CPU (at most 16)
 *   --tune-verbose                 TILEC_TUNE_VERBOSE=1  off
 *
 * A bad variable is a note in the log and its default applies (as
 * before options existed); a bad option is an error.
 */
#ifndef TILEC_SETTINGS_H
#define TILEC_SETTINGS_H

#include "ir/ir.h"

enum { TC_SWITCH_AUTO = -1, TC_SWITCH_NEVER = 0, TC_SWITCH_ALWAYS = 1 };

typedef struct {
    int cache;               /* 1: on disk (in cache_dir); 0: in memory only */
    char *cache_dir;         /* NULL: the default directory */
    char *ptxas;             /* NULL: none, the driver's JIT */
    int stage;               /* TC_SWITCH_*: staging of views TMA cannot describe */
    int preround;            /* TC_SWITCH_*: tf32-rna views copied rounded */
    int jit_tma_only;        /* tilecModuleLoadSource adds -fwgmma-tma-only and -fwgmma-tma-store */
    unsigned persist_blocks; /* a persistent launch takes at most this many blocks; 0: no cap */
    unsigned tune_jobs;      /* tilecAutotune's compile threads; 0: one per CPU */
    int tune_verbose;        /* tilecAutotune prints its progress on stderr */
} TcSettings;

/* The environment's settings, then opts over them. Notes about variables
 * and errors about options go to log; returns 0, or -1 when an option is
 * unknown or malformed (or memory ran out: *oom set), with *s freed. */
int tc_settings_init(TcSettings *s, int nopts, const char *const *opts, StrBuf *log, int *oom);
void tc_settings_free(TcSettings *s);

#endif
