/*
 * The kernel cache: compiled programs (PTX, kernel facts, cubin) by key,
 * in memory (per runtime) and on disk (shared by processes).
 *
 * Key: SHA-256 over the source, the canonical options, the target, the
 * tilec and LLVM versions, the device's compute capability and the driver
 * version, so an entry is reused only where it would be rebuilt bit for bit.
 *
 * Disk: one file per key, <dir>/<64 hex>.tkc, written to a unique temporary
 * name in the same directory, fsync'ed and renamed into place, so readers
 * see a whole entry or none and concurrent writers of one key are safe.
 * Every read checks a SHA-256 checksum; a truncated, corrupt or foreign file
 * is reported once ("cache: entry ... is corrupt; rebuilding"), removed, and
 * treated as a miss. Directory trouble (read-only, full, missing $HOME) is
 * noted in the log and the cache carries on in memory: nothing here ever
 * fails a caller. All functions are thread-safe on one TcCache.
 */
#ifndef TILEC_CACHE_H
#define TILEC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/compiler.h"
#include "ir/ir.h"

/* ---- SHA-256 (also used for dump file names) ---- */
typedef struct {
    uint32_t h[8];
    uint64_t len;
    uint8_t buf[64];
    size_t nbuf;
} TcSha256;
void tc_sha256_init(TcSha256 *s);
void tc_sha256_update(TcSha256 *s, const void *data, size_t len);
void tc_sha256_final(TcSha256 *s, uint8_t out[32]);
void tc_sha256(const void *data, size_t len, uint8_t out[32]);
/* out must hold 2*n + 1 bytes */
void tc_hex(const uint8_t *bytes, size_t n, char *out);

/* ---- keys ---- */
typedef struct {
    uint8_t b[32];
} TcCacheKey;

typedef struct {
    const char *src;
    size_t src_len;
    const char *options;  /* canonical, tc_options_str */
    const char *target;   /* "sm_90a" */
    int cc_major, cc_minor;
    int driver_version;
} TcCacheKeyParts;

/* Includes TILEC_VERSION and TILEC_LLVM_VERSION of this build. */
void tc_cache_key(const TcCacheKeyParts *p, TcCacheKey *k);

/* ---- entries ---- */
typedef struct {
    char *ptx;
    size_t ptx_len;
    TcKernelInfo *kernels;
    unsigned nkernels;
    void *cubin;   /* may be NULL (no linker): then the PTX is JIT-compiled */
    size_t cubin_len;
} TcCacheEntry;

/* Deep copy; 0 on success, -1 when memory runs out (dst is then empty). */
int tc_cache_entry_copy(TcCacheEntry *dst, const TcCacheEntry *src);
void tc_cache_entry_free(TcCacheEntry *e);
/* Deep copies of kernel fact lists (names, parameter types, tensor maps). */
int tc_kernel_infos_copy(TcKernelInfo **dst, const TcKernelInfo *src, unsigned n);
void tc_kernel_infos_free(TcKernelInfo *k, unsigned n);

/* ---- the cache ---- */
typedef struct TcCache TcCache;

/* A cache on dir (created if missing); dir NULL = memory only. Returns NULL
 * only when memory runs out. Problems with dir are noted in log. */
TcCache *tc_cache_new(const char *dir, StrBuf *log);
/* Memory only unless on; then on dir, else $XDG_CACHE_HOME/tilec, else
 * $HOME/.cache/tilec, else memory only (noted). The runtime's settings
 * (settings.h) give on and dir. */
TcCache *tc_cache_open(int on, const char *dir, StrBuf *log);
void tc_cache_free(TcCache *c);
/* The disk directory in use, NULL if none. */
const char *tc_cache_dir(const TcCache *c);

/* 1 and a deep copy in *out on a hit, 0 on a miss. */
int tc_cache_get(TcCache *c, const TcCacheKey *k, TcCacheEntry *out, StrBuf *log);
void tc_cache_put(TcCache *c, const TcCacheKey *k, const TcCacheEntry *e, StrBuf *log);
/* Forgets k in memory (for a cubin the driver refused) and removes its file. */
void tc_cache_drop(TcCache *c, const TcCacheKey *k);
/* Writes n bytes to path (a file in the cache directory) as entries are
 * written: a unique temporary name, fsync, rename into place. 0, or an
 * errno (ENOENT when there is no disk cache). */
int tc_cache_write_file(TcCache *c, const char *path, const void *data, size_t n);
/* The entry's file name; 0, or -1 when there is no disk cache. */
int tc_cache_entry_path(const TcCache *c, const TcCacheKey *k, char *buf, size_t size);

#endif
