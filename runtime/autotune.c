/*
 * tilecAutotune (include/tilec.h): the fastest of a kernel's configurations
 * on the caller's problem, timed once per shape class and remembered.
 *
 * Needs: the public API (modules, launches, events) and runtime/runtime.h
 * (log, module loads that leave the log alone, cache directory, the
 * runtime's memory of choices).
 * Guarantees: nothing exits; the configurations are loaded from several
 * threads, then timed one at a time; every configuration that fails is
 * noted in the log and skipped; the modules of the losers are unloaded.
 *
 * The choice is keyed by SHA-256 over the caller's key, every
 * configuration (source, options, grid), the kernel name, the device and
 * this tilec's version, so a changed configuration list or a new tilec
 * times again. On disk a record is a small text file written as cache
 * entries are (tc_cache_write_file); one that does not parse, or names a
 * configuration beyond the list, is ignored and removed. A configuration
 * that does not compile is skipped; one whose launch fails is skipped if
 * the context survives (then the choice is kept in memory only, since the
 * failure may be passing), and ends the tuning with its error if not.
 */
#include "tilec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/autotune.h"
#include "runtime/cache.h"
#include "runtime/runtime.h"

enum { BATCHES = 5, WARMUP_LAUNCHES = 3, MAX_BATCH_LAUNCHES = 4096, MAX_LOAD_THREADS = 16 };

void tc_tune_key(const char *key, const tilecTuneConfig *cfgs, unsigned n, const char *kernel, const char *device,
                 uint8_t out[32])
{
    TcSha256 s;
    tc_sha256_init(&s);
    /* every field with its length, so that no two lists hash alike by concatenation */
    const char *fixed[3] = {key, kernel, device};
    for (int i = 0; i < 3; i++) {
        uint64_t len = strlen(fixed[i]);
        tc_sha256_update(&s, &len, sizeof len);
        tc_sha256_update(&s, fixed[i], len);
    }
    const char *version = tilecVersion();
    tc_sha256_update(&s, version, strlen(version) + 1);
    for (unsigned c = 0; c < n; c++) {
        uint64_t len = cfgs[c].len, nopts = (uint64_t)cfgs[c].nopts;
        tc_sha256_update(&s, &len, sizeof len);
        tc_sha256_update(&s, cfgs[c].src, cfgs[c].len);
        tc_sha256_update(&s, &nopts, sizeof nopts);
        for (int o = 0; o < cfgs[c].nopts; o++) {
            uint64_t ol = strlen(cfgs[c].opts[o]);
            tc_sha256_update(&s, &ol, sizeof ol);
            tc_sha256_update(&s, cfgs[c].opts[o], ol);
        }
        tc_sha256_update(&s, cfgs[c].grid, sizeof cfgs[c].grid);
    }
    tc_sha256_final(&s, out);
}

/* The record's file name in cache's directory; -1 when there is none. */
static int record_path(TcCache *cache, const uint8_t key[32], char *buf, size_t size)
{
    const char *dir = cache ? tc_cache_dir(cache) : NULL;
    if (!dir)
        return -1;
    char hex[65];
    tc_hex(key, 32, hex);
    int w = snprintf(buf, size, "%s/%s.tune", dir, hex);
    return w > 0 && (size_t)w < size ? 0 : -1;
}

int tc_tune_record_read(TcCache *cache, const uint8_t key[32], unsigned n, unsigned *best)
{
    char path[4096];
    if (record_path(cache, key, path, sizeof path))
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char text[128];
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = 0;
    unsigned b = 0;
    char tail = 0;
    if (sscanf(text, "tilec-tune 1 best %u%c", &b, &tail) != 2 || tail != '\n' || b >= n) {
        remove(path); /* not a record this tilec wrote: time again */
        return 0;
    }
    *best = b;
    return 1;
}

int tc_tune_record_write(TcCache *cache, const uint8_t key[32], unsigned best)
{
    char path[4096], text[64];
    if (record_path(cache, key, path, sizeof path))
        return -1;
    int n = snprintf(text, sizeof text, "tilec-tune 1 best %u\n", best);
    return tc_cache_write_file(cache, path, text, (size_t)n) ? -1 : 0;
}

/* One line of TILEC_TUNE_VERBOSE progress, written at once (the loading
 * threads write theirs too). */
static void progress(const char *key, unsigned c, unsigned n, const tilecTuneConfig *cfg, const char *what)
{
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "tilec autotune [%s] %u/%u %s", key, c + 1, n, cfg->name ? cfg->name : "");
    for (int o = 0; o < cfg->nopts; o++)
        sb_printf(&b, " %s", cfg->opts[o]);
    sb_printf(&b, ": %s\n", what);
    if (b.data)
        fputs(b.data, stderr);
    sb_free(&b);
}

/* Every configuration compiled and loaded before any is timed, from up to
 * one thread per CPU (at most MAX_LOAD_THREADS, or TILEC_TUNE_JOBS): each
 * load is a compile and a ptxas run (a process of its own, or the
 * driver's linker), about a second for a GEMM kernel, and they do not
 * depend on each other. The timing stays one configuration at a time. */
typedef struct {
    tilecRuntime rt;
    const tilecTuneConfig *cfgs;
    const char *key; /* for progress lines, where verbose */
    int verbose;
    unsigned n;
    tilecModule *mods;
    tilecResult *rcs;
    StrBuf *whys; /* what the failed loads said */
} Loads;

static void load_one(void *ctx, unsigned c)
{
    Loads *l = ctx;
    const tilecTuneConfig *g = &l->cfgs[c];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    l->rcs[c] = tc_module_load_source(l->rt, g->src, g->len, g->name, g->nopts, g->opts, &l->mods[c], &l->whys[c]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (l->verbose) {
        char what[96];
        snprintf(what, sizeof what, "%s in %.0f ms", l->rcs[c] == TILEC_SUCCESS ? "loaded" : "failed",
                 (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
        progress(l->key, c, l->n, g, what);
    }
}

static unsigned load_threads(tilecRuntime rt, unsigned n)
{
    unsigned jobs = tc_runtime_settings(rt)->tune_jobs;
    jobs = jobs ? jobs : tc_cpus();
    jobs = jobs > MAX_LOAD_THREADS ? MAX_LOAD_THREADS : jobs;
    return (unsigned)jobs < n ? (unsigned)jobs : n;
}

/* Why a call failed: its result's name and the runtime's log. */
static void note_failure(tilecRuntime rt, tilecResult r, StrBuf *msg)
{
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    sb_printf(msg, "%s (%s)", tilecGetErrorString(r), log);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median milliseconds per launch of cfg's kernel, or a negative value with
 * the reason in msg. */
static float time_config(tilecRuntime rt, tilecModule mod, const char *kernel, const tilecTuneConfig *cfg, void **args,
                         tilecEvent ev[2], StrBuf *msg)
{
    if (!cfg->grid[0] || !cfg->grid[1] || !cfg->grid[2]) { /* a launch would succeed in no time and win */
        sb_printf(msg, "its grid (%u, %u, %u) is empty: no program runs, nothing to time", cfg->grid[0], cfg->grid[1],
                  cfg->grid[2]);
        return -1;
    }
    tilecResult r = TILEC_SUCCESS;
    for (int i = 0; i < WARMUP_LAUNCHES && r == TILEC_SUCCESS; i++)
        r = tilecLaunch(mod, kernel, cfg->grid, NULL, args);
    if (r == TILEC_SUCCESS)
        r = tilecSynchronize(rt);
    /* launches per batch: about 1 ms, from one timed launch */
    float one = 0;
    if (r == TILEC_SUCCESS && (r = tilecEventRecord(ev[0], NULL)) == TILEC_SUCCESS &&
        (r = tilecLaunch(mod, kernel, cfg->grid, NULL, args)) == TILEC_SUCCESS &&
        (r = tilecEventRecord(ev[1], NULL)) == TILEC_SUCCESS)
        r = tilecEventElapsed(ev[0], ev[1], &one);
    unsigned per = one > 0 ? (unsigned)(1.0f / one) + 1 : 1;
    per = per > MAX_BATCH_LAUNCHES ? MAX_BATCH_LAUNCHES : per;
    float ms[BATCHES];
    for (int bt = 0; bt < BATCHES && r == TILEC_SUCCESS; bt++) {
        r = tilecEventRecord(ev[0], NULL);
        for (unsigned i = 0; i < per && r == TILEC_SUCCESS; i++)
            r = tilecLaunch(mod, kernel, cfg->grid, NULL, args);
        if (r == TILEC_SUCCESS)
            r = tilecEventRecord(ev[1], NULL);
        if (r == TILEC_SUCCESS)
            r = tilecEventElapsed(ev[0], ev[1], &ms[bt]);
        if (r == TILEC_SUCCESS)
            ms[bt] /= (float)per;
    }
    if (r != TILEC_SUCCESS) {
        note_failure(rt, r, msg);
        return -1;
    }
    qsort(ms, BATCHES, sizeof ms[0], cmp_float);
    return ms[BATCHES / 2];
}

tilecResult tilecAutotune(tilecRuntime rt, const char *key, const tilecTuneConfig *cfgs, unsigned n,
                          const char *kernel, void **args, unsigned *best, tilecModule *mod)
{
    if (!rt || !key || !cfgs || !n || !kernel || !args || !best || !mod)
        return tc_runtime_bad_arg(rt, "tilecAutotune",
                                  !key ? "key is NULL" : !cfgs || !n ? "no configurations" : !kernel ? "kernel is NULL"
                                  : !args                            ? "args is NULL"
                                                                     : "best or mod is NULL");
    *mod = NULL;
    for (unsigned c = 0; c < n; c++) {
        int bad = !cfgs[c].src || (cfgs[c].nopts && !cfgs[c].opts) || cfgs[c].nopts < 0;
        for (int o = 0; !bad && o < cfgs[c].nopts; o++)
            bad = !cfgs[c].opts[o];
        if (bad) {
            char what[128]; /* the log counts configurations from 1, as its other lines do */
            snprintf(what, sizeof what, "cfgs[%u] (configuration %u of %u) has no source, or a NULL option", c, c + 1,
                     n);
            return tc_runtime_bad_arg(rt, "tilecAutotune", what);
        }
    }
    if (tc_runtime_dead(rt))
        return tc_runtime_dead(rt);
    const char *device = "";
    tilecRuntimeDeviceName(rt, &device);
    uint8_t h[32];
    tc_tune_key(key, cfgs, n, kernel, device, h);
    TcCache *cache = tc_runtime_cache(rt);
    const char *dir = cache ? tc_cache_dir(cache) : NULL;
    int verbose = tc_runtime_settings(rt)->tune_verbose;
    StrBuf msg;
    sb_init(&msg);

    /* remembered: load the choice */
    unsigned b;
    if (tc_runtime_tune_get(rt, h, &b) || tc_tune_record_read(cache, h, n, &b)) {
        tilecResult r = tilecModuleLoadSource(rt, cfgs[b].src, cfgs[b].len, cfgs[b].name, cfgs[b].nopts, cfgs[b].opts, mod);
        if (r == TILEC_SUCCESS) {
            tc_runtime_tune_put(rt, h, b);
            *best = b;
            if (verbose)
                progress(key, b, n, &cfgs[b], "remembered");
            sb_printf(&msg, "autotune [%s]: configuration %u of %u, remembered\n", key, b + 1, n);
            return tc_runtime_done(rt, TILEC_SUCCESS, &msg);
        }
        /* it no longer loads (a driver change): time them all again */
    }

    Loads l = {.rt = rt, .cfgs = cfgs, .key = key, .verbose = verbose, .n = n};
    l.mods = calloc(n, sizeof *l.mods);
    l.rcs = calloc(n, sizeof *l.rcs);
    l.whys = calloc(n, sizeof *l.whys);
    tilecEvent ev[2] = {NULL, NULL};
    tilecResult r = l.mods && l.rcs && l.whys ? TILEC_SUCCESS : TILEC_ERROR_OUT_OF_MEMORY;
    if (r == TILEC_SUCCESS)
        r = tilecEventCreate(rt, &ev[0]);
    if (r == TILEC_SUCCESS)
        r = tilecEventCreate(rt, &ev[1]);
    if (r != TILEC_SUCCESS) {
        tilecEventDestroy(&ev[0]);
        free(l.mods);
        free(l.rcs);
        free(l.whys);
        if (r == TILEC_ERROR_OUT_OF_MEMORY)
            return tc_runtime_done(rt, r, &msg);
        sb_free(&msg);
        return r; /* the log says why */
    }
    if (verbose)
        fprintf(stderr, "tilec autotune [%s] compiling %u configurations on %u threads\n", key, n, load_threads(rt, n));
    /* l.mods, l.rcs and l.whys filled; where a thread cannot be started the others do its share */
    tc_parallel(n, load_threads(rt, n), load_one, &l);
    float best_ms = -1;
    unsigned bi = 0;
    int passing = 0; /* a launch failed, the context survived: keep the choice in memory only */
    tilecResult dead = TILEC_SUCCESS;
    for (unsigned c = 0; c < n; c++) {
        tilecModule m = l.mods[c];
        StrBuf why;
        sb_init(&why);
        float ms = -1;
        if (dead != TILEC_SUCCESS) {
            tilecModuleUnload(&m); /* loaded before the context failed: nothing to time */
            sb_free(&l.whys[c]);
            continue;
        }
        if (l.rcs[c] != TILEC_SUCCESS) {
            sb_printf(&why, "%s (%s)", tilecGetErrorString(l.rcs[c]), l.whys[c].data ? l.whys[c].data : "");
        } else {
            if (l.whys[c].len) /* a load's notes (the cache's), as tilecModuleLoadSource leaves them */
                sb_putn(&msg, l.whys[c].data, l.whys[c].len);
            ms = time_config(rt, m, kernel, &cfgs[c], args, ev, &why);
            if (ms < 0 && (dead = tilecSynchronize(rt)) == TILEC_SUCCESS)
                passing = 1;
        }
        sb_free(&l.whys[c]);
        char line[64];
        snprintf(line, sizeof line, "%.4f ms", ms);
        if (verbose)
            progress(key, c, n, &cfgs[c], ms < 0 ? (why.data ? why.data : "failed") : line);
        if (ms < 0)
            sb_printf(&msg, "autotune [%s]: configuration %u skipped: %s\n", key, c + 1, why.data ? why.data : "");
        sb_free(&why);
        if (ms >= 0 && (best_ms < 0 || ms < best_ms)) {
            tilecModuleUnload(mod);
            *mod = m;
            best_ms = ms;
            bi = c;
        } else if (m) {
            tilecModuleUnload(&m);
        }
    }
    free(l.mods);
    free(l.rcs);
    free(l.whys);
    tilecEventDestroy(&ev[0]);
    tilecEventDestroy(&ev[1]);
    if (dead != TILEC_SUCCESS) { /* the context is gone: nothing loaded can run */
        tilecModuleUnload(mod);
        sb_printf(&msg, "autotune [%s]: stopped: the device context failed (%s)\n", key, tilecGetErrorString(dead));
        return tc_runtime_done(rt, dead, &msg);
    }
    if (best_ms < 0) {
        sb_printf(&msg, "autotune [%s]: none of the %u configurations ran\n", key, n);
        return tc_runtime_done(rt, TILEC_ERROR_NOT_FOUND, &msg);
    }
    *best = bi;
    tc_runtime_tune_put(rt, h, bi);
    if (passing)
        sb_printf(&msg, "autotune [%s]: a launch failed: the choice is not written to disk\n", key);
    else if (dir && tc_tune_record_write(cache, h, bi))
        sb_printf(&msg, "autotune [%s]: could not write the record in %s (kept in memory)\n", key, dir);
    sb_printf(&msg, "autotune [%s]: configuration %u of %u, %.4f ms\n", key, bi + 1, n, best_ms);
    return tc_runtime_done(rt, TILEC_SUCCESS, &msg);
}
