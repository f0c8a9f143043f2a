/*
 * The parts of runtime/autotune.c that do not need a GPU, for unit tests:
 * the key of a choice and its record on disk.
 */
#ifndef TILEC_AUTOTUNE_H
#define TILEC_AUTOTUNE_H

#include <stdint.h>

#include "runtime/cache.h"
#include "tilec.h"

/* SHA-256 over key, kernel, device, tilec's version and every
 * configuration (source, options, grid). */
void tc_tune_key(const char *key, const tilecTuneConfig *cfgs, unsigned n, const char *kernel, const char *device,
                 uint8_t out[32]);
/* 1 and *best (< n) from the record for key in cache's directory; 0 when there is none, or
 * when it does not parse or names a configuration beyond n (then the file
 * is removed). */
int tc_tune_record_read(TcCache *cache, const uint8_t key[32], unsigned n, unsigned *best);
/* Writes the record in cache's directory; 0, or -1 when it could not be
 * written (no disk cache among the reasons). */
int tc_tune_record_write(TcCache *cache, const uint8_t key[32], unsigned best);

#endif
