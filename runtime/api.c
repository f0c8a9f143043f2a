/*
 * The public API (include/tilec.h): runtimes, modules, launches, memory,
 * events (programs: runtime/api_program.c).
 *
 * Needs: the compiler (compiler/compiler.h), the driver wrapper
 * (runtime/cuda_api.h), the kernel cache (runtime/cache.h).
 * Guarantees: every entry point checks its handles and returns a
 * tilecResult; nothing exits; the only global state is the driver's
 * one-time load in cuda_api.c. A program belongs to one thread at a time;
 * a runtime (and its modules) may be shared by threads: its log, cache and
 * reference count are guarded by its mutex, and driver calls push and pop
 * its primary context so the host's current context is left alone.
 *
 * Runtime log: each thread has its own log of its calls on a runtime
 * (runtime/logs.h): a failing call replaces it with its explanation, notes
 * of calls that succeed (cache trouble) are appended. The pointer from
 * tilecRuntimeGetLog is valid until the thread's next call on the runtime
 * or its modules, like NVRTC's log. A thread that has made no call on it
 * gets a copy of the runtime's latest log, whichever thread's (a failed
 * tilecRuntimeCreate's explanation).
 *
 * A runtime that fails to be created is still returned (unless memory runs
 * out), holding only its log: tilecRuntimeGetLog explains the failure,
 * every other call returns the same error, and tilecRuntimeDestroy frees it.
 * Runtimes are reference counted by their modules, so destroying a runtime
 * before unloading its modules is safe; the context goes with the last one.
 *
 * Streams: tilec has no stream creation call; a tilecStream is a CUstream
 * owned by the host application (NULL = the legacy default stream).
 */
#include "tilec.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "runtime/cache.h"
#include "runtime/programs.h"
#include "runtime/stage.h"
#include "runtime/cuda_api.h"
#include "runtime/logs.h"
#include "runtime/ptxas.h"
#include "runtime/runtime.h"
#include "runtime/tmap.h"
#include "tilec_build_id.h" /* TILEC_BUILD_ID (cmake/build_id.cmake) */

#if !defined(TILEC_VERSION) || !defined(TILEC_LLVM_VERSION)
#error "TILEC_VERSION and TILEC_LLVM_VERSION must be defined"
#endif

/* Kernels wanting more dynamic shared memory than this must opt in. */
#define DEFAULT_SHARED_LIMIT (48u * 1024u)


struct tilecRuntime_st {
    pthread_mutex_t mu;
    tilecResult dead; /* creation failed: only GetLog / Destroy work */
    CuDevice dev;
    void *stage_pool; /* staging's memory (runtime/stage.h); NULL: no staging */
    void *stage_mod;  /* its copy kernels' module, loaded at the first launch with tensor maps */
    TcStageKernels stage_kernels;
    int stage_failed; /* that load failed (noted once): no staging */
    TcSettings settings; /* runtime/settings.h: staging, ptxas, the JIT's options, persistent blocks, tuning */
    TcCache *cache;
    StrBuf log;       /* the latest log of any thread's call (runtime/logs.h: each thread reads its own) */
    uint64_t log_id;  /* its threads' logs' key */
    char label[320]; /* "NVIDIA H200 (sm_90)" */
    unsigned refs;   /* the user's handle + one per loaded module */
    struct {         /* autotuning choices (runtime/autotune.c), the latest kept */
        uint8_t key[32];
        unsigned best;
    } tuned[64];
    unsigned ntuned;
};

struct tilecModule_st {
    tilecRuntime rt;
    void *cumod;
    TcKernelInfo *kernels;
    unsigned nkernels;
    void **fns;
    void **fns_rounded;             /* per kernel with TcKernelInfo.rounded: its entry for rounded views */
    unsigned char *too_much_shared; /* per kernel: more than the device allows */
    unsigned char *staged_noted;    /* per kernel: a launch's staged views noted in the log (once; under rt->mu) */
    unsigned *resident;             /* per kernel: the blocks the device runs at once (persistent kernels) */
    struct FullKernels *full;       /* compiled with the JIT's -fwgmma-tma-only: how to load it without */
};

/* A module whose kernels the runtime compiled with -fwgmma-tma-only on its
 * own account (the JIT's default; TILEC_JIT_TMA_ONLY=0: never) keeps what
 * it was loaded from, so that a launch its TMA-only kernel cannot serve (a
 * view no map describes that the staging rule leaves unstaged, or C's view
 * that no map can store to, -fwgmma-tma-store) runs the
 * kernel as asked for instead, loaded then, once: the launches decide as
 * the kernel asked for would, only the first compile is smaller. */
struct FullKernels {
    pthread_mutex_t mu;
    char *src, *name;
    size_t len;
    char **opts;
    int nopts;
    tilecModule mod; /* NULL until a launch needs it */
};

/* ---- results and versions ---------------------------------------------------- */

const char *tilecGetErrorString(tilecResult r)
{
    static const char *const names[TILEC_ERROR_COUNT] = {
        [TILEC_SUCCESS] = "TILEC_SUCCESS",
        [TILEC_ERROR_INVALID_ARGUMENT] = "TILEC_ERROR_INVALID_ARGUMENT",
        [TILEC_ERROR_INVALID_OPTION] = "TILEC_ERROR_INVALID_OPTION",
        [TILEC_ERROR_OUT_OF_MEMORY] = "TILEC_ERROR_OUT_OF_MEMORY",
        [TILEC_ERROR_COMPILATION] = "TILEC_ERROR_COMPILATION",
        [TILEC_ERROR_INVALID_STATE] = "TILEC_ERROR_INVALID_STATE",
        [TILEC_ERROR_NOT_FOUND] = "TILEC_ERROR_NOT_FOUND",
        [TILEC_ERROR_NO_DRIVER] = "TILEC_ERROR_NO_DRIVER",
        [TILEC_ERROR_NO_DEVICE] = "TILEC_ERROR_NO_DEVICE",
        [TILEC_ERROR_JIT] = "TILEC_ERROR_JIT",
        [TILEC_ERROR_LAUNCH] = "TILEC_ERROR_LAUNCH",
        [TILEC_ERROR_CUDA] = "TILEC_ERROR_CUDA",
        [TILEC_ERROR_CACHE] = "TILEC_ERROR_CACHE",
    };
    if ((unsigned)r >= TILEC_ERROR_COUNT || !names[r])
        return "TILEC_ERROR_UNKNOWN";
    return names[r];
}

const char *tilecVersion(void) { return "tilec " TILEC_VERSION " (LLVM " TILEC_LLVM_VERSION ", build " TILEC_BUILD_ID ")"; }

/* ---- runtimes ------------------------------------------------------------------- */

/* The log of a call: msg replaces the log (failed) or is appended to it
 * (succeeded; a note that repeats must not grow it forever), the calling
 * thread's and the runtime's latest. */
static void put_log(StrBuf *log, int replace, const char *text, size_t n)
{
    if (replace || log->oom || log->len > 65536) {
        sb_free(log);
        sb_init(log);
    }
    sb_putn(log, text, n);
}

static void log_call(tilecRuntime rt, int replace, const char *text, size_t n)
{
    StrBuf *mine = tc_thread_log(rt->log_id, 1);
    if (mine)
        put_log(mine, replace, text, n);
    pthread_mutex_lock(&rt->mu);
    put_log(&rt->log, replace, text, n);
    pthread_mutex_unlock(&rt->mu);
}

/* A failing call: msg replaces the log. */
static tilecResult rt_fail(tilecRuntime rt, tilecResult t, StrBuf *msg)
{
    if (!msg->len)
        sb_printf(msg, "%s\n", tilecGetErrorString(t));
    if (msg->oom) {
        sb_free(msg);
        sb_init(msg);
        sb_printf(msg, "%s (and out of memory for the rest of the log)\n", tilecGetErrorString(t));
    }
    log_call(rt, 1, msg->data ? msg->data : "", msg->len);
    sb_free(msg);
    return t;
}

/* A NULL or bad argument of call: said in rt's log (a failing call replaces
 * it) where there is a working runtime to hold it; a failed runtime keeps
 * the explanation of its failure. */
tilecResult tc_runtime_bad_arg(tilecRuntime rt, const char *call, const char *what)
{
    if (!rt || rt->dead)
        return TILEC_ERROR_INVALID_ARGUMENT;
    StrBuf msg;
    sb_init(&msg);
    sb_printf(&msg, "%s: %s\n", call, what);
    return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
}

/* The end of a call: failures replace the log, notes are appended. */
static tilecResult rt_done(tilecRuntime rt, tilecResult t, StrBuf *msg)
{
    if (t != TILEC_SUCCESS)
        return rt_fail(rt, t, msg);
    if (msg->len && !msg->oom)
        log_call(rt, 0, msg->data, msg->len);
    else /* the thread has a log of this runtime now, empty where nothing was said: never another
          * thread's (tilecRuntimeGetLog's copy is for threads that have made no call) */
        (void)tc_thread_log(rt->log_id, 1);
    sb_free(msg);
    return t;
}

tilecResult tc_runtime_dead(tilecRuntime rt) { return rt->dead; }

tilecResult tc_runtime_done(tilecRuntime rt, tilecResult t, StrBuf *msg) { return rt_done(rt, t, msg); }

const TcSettings *tc_runtime_settings(tilecRuntime rt) { return &rt->settings; }

TcCache *tc_runtime_cache(tilecRuntime rt) { return rt->cache; }

/* The slot of key among the remembered choices, -1 if none; under rt->mu. */
static int tune_slot(tilecRuntime rt, const uint8_t key[32])
{
    unsigned n = rt->ntuned < 64 ? rt->ntuned : 64;
    for (unsigned i = 0; i < n; i++)
        if (!memcmp(rt->tuned[i].key, key, 32))
            return (int)i;
    return -1;
}

int tc_runtime_tune_get(tilecRuntime rt, const uint8_t key[32], unsigned *best)
{
    pthread_mutex_lock(&rt->mu);
    int i = tune_slot(rt, key);
    if (i >= 0)
        *best = rt->tuned[i].best;
    pthread_mutex_unlock(&rt->mu);
    return i >= 0;
}

void tc_runtime_tune_put(tilecRuntime rt, const uint8_t key[32], unsigned best)
{
    pthread_mutex_lock(&rt->mu);
    int i = tune_slot(rt, key);
    if (i < 0) { /* a new key: the next slot of a ring, the oldest choice goes first */
        i = (int)(rt->ntuned++ % 64);
        memcpy(rt->tuned[i].key, key, 32);
    }
    rt->tuned[i].best = best;
    pthread_mutex_unlock(&rt->mu);
}

/* Staging's pool and kernels, where any (context current). */
static void stage_close(tilecRuntime rt)
{
    StrBuf ignored;
    sb_init(&ignored);
    if (rt->stage_mod)
        (void)cu_module_unload(rt->stage_mod, &ignored);
    sb_free(&ignored);
    cu_mem_pool_destroy(rt->stage_pool);
    rt->stage_mod = rt->stage_pool = NULL;
    rt->stage_kernels = (TcStageKernels){0};
}

static void rt_release(tilecRuntime rt)
{
    pthread_mutex_lock(&rt->mu);
    unsigned left = --rt->refs;
    pthread_mutex_unlock(&rt->mu);
    if (left)
        return;
    tc_cache_free(rt->cache);
    if (rt->stage_pool || rt->stage_mod) {
        StrBuf ignored;
        sb_init(&ignored);
        if (cu_ctx_enter(&rt->dev, &ignored) == TILEC_SUCCESS) {
            stage_close(rt);
            cu_ctx_leave();
        }
        sb_free(&ignored);
    }
    if (rt->dead == TILEC_SUCCESS)
        cu_device_close(&rt->dev);
    tc_settings_free(&rt->settings);
    sb_free(&rt->log);
    tc_thread_log_drop(rt->log_id);
    pthread_mutex_destroy(&rt->mu);
    free(rt);
}

/* The settings' pre-rounding switch as the staging plan takes it (TC_PREROUND_*). */
static int preround_rule(const TcSettings *s)
{
    return s->preround == TC_SWITCH_NEVER ? TC_PREROUND_OFF : s->preround == TC_SWITCH_ALWAYS ? TC_PREROUND_ALWAYS
                                                                                               : TC_PREROUND_AUTO;
}

/* Staging (runtime/stage.h), for the kernels with tensor maps (compute
 * capability 9.0): its pool (the copy kernels wait for the first launch
 * that may need them: their JIT compilation is not every runtime's cost).
 * None (no staging, not an error) where the driver has no memory pools or
 * the settings say never; always stages every view it can (the tests' way
 * to reach it with small shapes). Pre-rounding: never stages views only to
 * round them, always does wherever the kernel allows (tests). */

static void stage_open(tilecRuntime rt, StrBuf *msg)
{
    if (rt->settings.stage == TC_SWITCH_NEVER || rt->dev.cc_major * 10 + rt->dev.cc_minor != 90 ||
        cu_ctx_enter(&rt->dev, msg) != TILEC_SUCCESS)
        return;
    StrBuf why;
    sb_init(&why);
    tilecResult t = cu_mem_pool_create(&rt->dev, &rt->stage_pool, &why);
    if (t != TILEC_SUCCESS) {
        if (t != TILEC_ERROR_NOT_FOUND || why.len)
            sb_printf(msg, "%snote: no staging of odd-stride views (runtime/stage.h)\n", why.data ? why.data : "");
        stage_close(rt);
    }
    sb_free(&why);
    cu_ctx_leave();
}

/* The copy kernels, loaded once, by the first launch that asks (context
 * current); NULL where there is no staging or their load failed (the log
 * says so, once). */
static const TcStageKernels *stage_kernels(tilecRuntime rt, StrBuf *msg)
{
    if (!rt->stage_pool)
        return NULL;
    pthread_mutex_lock(&rt->mu);
    if (!rt->stage_mod && !rt->stage_failed) {
        StrBuf why;
        sb_init(&why);
        TcStageKernels k = {0};
        void *mod = NULL;
        tilecResult t = cu_module_load_ptx(tc_stage_ptx, &mod, &why);
        if (t == TILEC_SUCCESS && (t = cu_module_function(mod, "tilec_stage_b32", &k.b32, &why)) == TILEC_SUCCESS &&
            (t = cu_module_function(mod, "tilec_stage_b32_rna", &k.b32_rna, &why)) == TILEC_SUCCESS)
            t = cu_module_function(mod, "tilec_stage_b16", &k.b16, &why);
        if (t == TILEC_SUCCESS) {
            rt->stage_kernels = k;
            rt->stage_mod = mod;
        } else {
            if (mod)
                (void)cu_module_unload(mod, &why);
            sb_printf(msg, "%snote: no staging of odd-stride views (runtime/stage.h: its copy kernels did not load)\n",
                      why.data ? why.data : "");
            rt->stage_failed = 1;
        }
        sb_free(&why);
    }
    const TcStageKernels *k = rt->stage_mod ? &rt->stage_kernels : NULL;
    pthread_mutex_unlock(&rt->mu);
    return k;
}

tilecResult tilecRuntimeCreate(tilecRuntime *rtp, int device) { return tilecRuntimeCreateWithOptions(rtp, device, 0, NULL); }

tilecResult tilecRuntimeCreateWithOptions(tilecRuntime *rtp, int device, int nopts, const char *const *opts)
{
    if (!rtp)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *rtp = NULL;
    tilecRuntime rt = calloc(1, sizeof *rt);
    if (!rt)
        return TILEC_ERROR_OUT_OF_MEMORY;
    pthread_mutex_init(&rt->mu, NULL);
    sb_init(&rt->log);
    rt->log_id = tc_log_id();
    rt->refs = 1;
    StrBuf msg;
    sb_init(&msg);
    int oom = 0;
    tilecResult t = TILEC_SUCCESS;
    if (nopts < 0 || (nopts > 0 && !opts)) {
        sb_puts(&msg, "error: invalid option list (negative count or NULL array)\n");
        t = TILEC_ERROR_INVALID_ARGUMENT;
    } else if (tc_settings_init(&rt->settings, nopts, opts, &msg, &oom) != 0)
        t = oom ? TILEC_ERROR_OUT_OF_MEMORY : TILEC_ERROR_INVALID_OPTION;
    else if (device < 0) {
        sb_printf(&msg, "device %d: a device number is 0 or more\n", device);
        t = TILEC_ERROR_INVALID_ARGUMENT;
    } else
        t = cu_device_open(device, &rt->dev, &msg);
    if (t != TILEC_SUCCESS) {
        /* keep a handle on the log, so that the caller can read why */
        rt->dead = t;
        cu_device_close(&rt->dev);
        rt_fail(rt, t, &msg);
        *rtp = rt;
        return t;
    }
    snprintf(rt->label, sizeof rt->label, "%s (sm_%d%d)", rt->dev.name, rt->dev.cc_major, rt->dev.cc_minor);
    rt->cache = tc_cache_open(rt->settings.cache, rt->settings.cache_dir, &msg);
    if (!rt->cache) {
        cu_device_close(&rt->dev);
        tc_settings_free(&rt->settings);
        sb_free(&msg);
        sb_free(&rt->log);
        pthread_mutex_destroy(&rt->mu);
        free(rt);
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    stage_open(rt, &msg);
    *rtp = rt;
    return rt_done(rt, TILEC_SUCCESS, &msg);
}

tilecResult tilecRuntimeGetLog(tilecRuntime rt, const char **log)
{
    if (!rt || !log)
        return tc_runtime_bad_arg(rt, "tilecRuntimeGetLog", "log is NULL");
    StrBuf *mine = tc_thread_log(rt->log_id, 0);
    if (!mine && (mine = tc_thread_log(rt->log_id, 1)) != NULL) { /* no call of this thread's yet */
        pthread_mutex_lock(&rt->mu);
        sb_putn(mine, rt->log.data ? rt->log.data : "", rt->log.len);
        pthread_mutex_unlock(&rt->mu);
    }
    *log = !mine || mine->oom ? "(out of memory for the log)\n" : mine->data ? mine->data : "";
    return TILEC_SUCCESS;
}

tilecResult tilecRuntimeDeviceName(tilecRuntime rt, const char **name)
{
    if (!rt || !name)
        return tc_runtime_bad_arg(rt, "tilecRuntimeDeviceName", "name is NULL");
    if (rt->dead)
        return rt->dead;
    *name = rt->label;
    return TILEC_SUCCESS;
}

tilecResult tilecRuntimeComputeCapability(tilecRuntime rt, int *major, int *minor)
{
    if (!rt || !major || !minor)
        return tc_runtime_bad_arg(rt, "tilecRuntimeComputeCapability", "major or minor is NULL");
    if (rt->dead)
        return rt->dead;
    *major = rt->dev.cc_major;
    *minor = rt->dev.cc_minor;
    return TILEC_SUCCESS;
}

tilecResult tilecRuntimeDestroy(tilecRuntime *rt)
{
    if (!rt || !*rt)
        return TILEC_ERROR_INVALID_ARGUMENT;
    tc_thread_log_drop((*rt)->log_id); /* (its modules' calls may start another) */
    rt_release(*rt);
    *rt = NULL;
    return TILEC_SUCCESS;
}

/* ---- modules --------------------------------------------------------------------- */

/* sm_90a code runs on compute capability 9.0 only; sm_80 on 8.0 and later. */
static tilecResult check_target(tilecRuntime rt, TcArch arch, StrBuf *msg)
{
    int cc = rt->dev.cc_major * 10 + rt->dev.cc_minor;
    if (cc < 80)
        sb_printf(msg, "%s is too old: tilec's code needs compute capability 8.0 or newer\n", rt->label);
    else if (arch == ARCH_SM90A && cc != 90)
        sb_printf(msg, "the program was compiled for sm_90a, which runs only on compute capability 9.0, "
                       "not on %s; compile with --arch=sm_80\n", rt->label);
    else
        return TILEC_SUCCESS;
    return TILEC_ERROR_JIT;
}

static void full_free(struct FullKernels *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->nopts; i++)
        free(f->opts[i]);
    free(f->opts);
    free(f->src);
    free(f->name);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static void module_free(tilecModule m)
{
    full_free(m->full);
    tc_kernel_infos_free(m->kernels, m->nkernels);
    free(m->fns);
    free(m->fns_rounded);
    free(m->too_much_shared);
    free(m->staged_noted);
    free(m->resident);
    free(m);
}

/* A driver without cuTensorMapEncodeTiled runs kernels with tensor maps
 * on their own copies (slower, not wrong): said once per module load. */
static void note_no_tensor_maps(const TcKernelInfo *k, unsigned n, StrBuf *msg)
{
    unsigned i = 0;
    while (i < n && !k[i].ntmaps)
        i++;
    if (i < n && !cu_tensor_map_available())
        sb_printf(msg, "note: this driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer): @%s and any other "
                       "kernel with tensor maps copy their tiles without TMA\n", k[i].name);
}

/* Wraps a loaded CUmodule (taking it over, also on failure). Context current. */
static tilecResult make_module(tilecRuntime rt, void *cumod, const TcKernelInfo *k, unsigned n, tilecModule *out,
                               StrBuf *msg)
{
    tilecModule m = calloc(1, sizeof *m);
    tilecResult t = TILEC_ERROR_OUT_OF_MEMORY;
    if (!m)
        goto fail;
    m->rt = rt;
    m->cumod = cumod;
    m->fns = calloc(n ? n : 1, sizeof *m->fns);
    m->fns_rounded = calloc(n ? n : 1, sizeof *m->fns_rounded);
    m->too_much_shared = calloc(n ? n : 1, 1);
    m->staged_noted = calloc(n ? n : 1, 1);
    m->resident = calloc(n ? n : 1, sizeof *m->resident);
    if (!m->fns || !m->fns_rounded || !m->too_much_shared || !m->staged_noted || !m->resident ||
        tc_kernel_infos_copy(&m->kernels, k, n) != 0)
        goto fail;
    m->nkernels = n;
    for (unsigned i = 0; i < n; i++) {
        if ((t = cu_module_function(cumod, k[i].name, &m->fns[i], msg)) != TILEC_SUCCESS)
            goto fail;
        char rounded[1100];
        snprintf(rounded, sizeof rounded, "%s%s", k[i].name, TC_ROUNDED_SUFFIX);
        if (k[i].rounded && (t = cu_module_function(cumod, rounded, &m->fns_rounded[i], msg)) != TILEC_SUCCESS)
            goto fail;
        if (k[i].shared_bytes > (unsigned)rt->dev.max_shared_optin) {
            m->too_much_shared[i] = 1; /* launching it says so */
            continue;
        }
        /* each entry of the kernel (the same launch: compiler/entries.c); the blocks that
         * run at once: the fewer of the two */
        unsigned resident = 0;
        for (int e = 0; e < 1 + k[i].rounded; e++) {
            void *fn = e ? m->fns_rounded[i] : m->fns[i];
            if (k[i].shared_bytes > DEFAULT_SHARED_LIMIT &&
                (t = cu_func_set_max_dynamic_shared(fn, k[i].shared_bytes, msg)) != TILEC_SUCCESS)
                goto fail;
            int per_sm = 0;
            if (k[i].persistent &&
                (t = cu_blocks_per_sm(fn, k[i].threads, k[i].shared_bytes, &per_sm, msg)) != TILEC_SUCCESS)
                goto fail;
            /* at least one block: a kernel that fits none fails at its launch, with the driver's reason */
            unsigned r = per_sm > 0 ? (unsigned)per_sm * (unsigned)rt->dev.sm_count : 1;
            if (k[i].persistent && k[i].cluster > 1) { /* whole clusters, as many as run at once */
                unsigned nc = cu_clusters_at_once(fn, k[i].threads, k[i].shared_bytes, k[i].cluster);
                r = nc ? nc * k[i].cluster : r / k[i].cluster * k[i].cluster; /* (else: of the blocks) */
                r = r ? r : k[i].cluster;
            }
            resident = e && resident < r ? resident : r;
        }
        m->resident[i] = resident;
    }
    note_no_tensor_maps(k, n, msg);
    pthread_mutex_lock(&rt->mu);
    rt->refs++;
    pthread_mutex_unlock(&rt->mu);
    *out = m;
    return TILEC_SUCCESS;
fail:
    if (t == TILEC_ERROR_OUT_OF_MEMORY)
        sb_puts(msg, "out of host memory loading the module\n");
    if (m)
        module_free(m);
    cu_module_unload(cumod, msg);
    return t;
}

/* Loads key's entry from the cache; 1 when *out is ready. An entry that the
 * driver refuses is dropped (and rebuilt by the caller). Context current. */
static int load_cached(tilecRuntime rt, const TcCacheKey *key, tilecModule *out, tilecResult *t, StrBuf *msg)
{
    TcCacheEntry e;
    if (!tc_cache_get(rt->cache, key, &e, msg))
        return 0;
    StrBuf why;
    sb_init(&why);
    void *cumod = NULL;
    tilecResult r = e.cubin ? cu_module_load_cubin(e.cubin, &cumod, &why) : cu_module_load_ptx(e.ptx, &cumod, &why);
    if (r == TILEC_SUCCESS) {
        *t = make_module(rt, cumod, e.kernels, e.nkernels, out, msg);
    } else {
        sb_printf(msg, "cache: the driver refused a cached entry; rebuilding it. It said:\n%s",
                  why.data ? why.data : "(nothing)\n");
        tc_cache_drop(rt->cache, key);
    }
    sb_free(&why);
    tc_cache_entry_free(&e);
    return r == TILEC_SUCCESS;
}

/* PTX -> cubin (cuLink) -> cache -> module. Context current. */
static tilecResult load_built(tilecRuntime rt, const TcCacheKey *key, const char *ptx, const TcKernelInfo *k,
                              unsigned n, const char *name, tilecModule *out, StrBuf *msg)
{
    TcCacheEntry e = {.ptx = (char *)ptx, .ptx_len = strlen(ptx), .kernels = (TcKernelInfo *)k, .nkernels = n};
    void *cumod = NULL;
    const char *ptxas = rt->settings.ptxas;
    tilecResult t = TILEC_ERROR_JIT;
    if (ptxas) /* where it fails (too old for the PTX, say), the driver's JIT may still do */
        t = ptxas_compile(ptxas, ptx, e.ptx_len, rt->dev.cc_major, rt->dev.cc_minor, &e.cubin, &e.cubin_len, msg);
    if (t != TILEC_SUCCESS)
        t = cu_link_ptx(ptx, e.ptx_len, name, &e.cubin, &e.cubin_len, msg);
    if (t == TILEC_ERROR_NOT_FOUND) /* no linker in this driver: JIT at load, cache the PTX only */
        t = cu_module_load_ptx(ptx, &cumod, msg);
    else if (t == TILEC_SUCCESS)
        t = cu_module_load_cubin(e.cubin, &cumod, msg);
    if (t == TILEC_SUCCESS)
        tc_cache_put(rt->cache, key, &e, msg);
    free(e.cubin);
    if (t != TILEC_SUCCESS)
        return t;
    return make_module(rt, cumod, k, n, out, msg);
}

static void program_key(tilecRuntime rt, const char *src, size_t len, const char *opts_str, TcArch arch,
                        TcCacheKey *key)
{
    char target[64]; /* a cubin from an external ptxas is another entry than the driver's */
    snprintf(target, sizeof target, "%s%s", tc_arch_name(arch), rt->settings.ptxas ? " ptxas" : "");
    TcCacheKeyParts parts = {.src = src,
                             .src_len = len,
                             .options = opts_str,
                             .target = target,
                             .cc_major = rt->dev.cc_major,
                             .cc_minor = rt->dev.cc_minor,
                             .driver_version = rt->dev.driver_version};
    tc_cache_key(&parts, key);
}

tilecResult tilecModuleLoad(tilecRuntime rt, tilecProgram prog, tilecModule *mod)
{
    if (!rt || !prog || !mod)
        return tc_runtime_bad_arg(rt, "tilecModuleLoad", !prog ? "the program is NULL" : "mod is NULL");
    *mod = NULL;
    if (rt->dead)
        return rt->dead;
    StrBuf msg;
    sb_init(&msg);
    if (!prog->compiled || !prog->res.ptx || !prog->opts_str) {
        sb_puts(&msg, "tilecModuleLoad: the program has not been compiled successfully\n");
        return rt_fail(rt, TILEC_ERROR_INVALID_STATE, &msg);
    }
    tilecResult t = check_target(rt, prog->opts.arch, &msg);
    if (t != TILEC_SUCCESS)
        return rt_fail(rt, t, &msg);
    TcCacheKey key;
    program_key(rt, prog->src, prog->len, prog->opts_str, prog->opts.arch, &key);
    if ((t = cu_ctx_enter(&rt->dev, &msg)) != TILEC_SUCCESS)
        return rt_fail(rt, t, &msg);
    if (!load_cached(rt, &key, mod, &t, &msg))
        t = load_built(rt, &key, prog->res.ptx, prog->res.kernels, prog->res.nkernels, prog->name, mod, &msg);
    cu_ctx_leave();
    return rt_done(rt, t, &msg);
}

static tilecResult load_source(tilecRuntime rt, const char *src, size_t len, const char *name, int nopts,
                               const char *const *opts, tilecModule *mod, StrBuf *msg)
{
    if (!rt || !mod || (!src && len))
        return tc_runtime_bad_arg(rt, "tilecModuleLoadSource", !mod ? "mod is NULL" : "src is NULL (and len is not 0)");
    *mod = NULL;
    if (rt->dead)
        return rt->dead;
    TcOptions o;
    tilecResult t = tc_parse_options(nopts, opts, &o, msg);
    if (t != TILEC_SUCCESS || (t = check_target(rt, o.arch, msg)) != TILEC_SUCCESS)
        return t;
    StrBuf os;
    sb_init(&os);
    tc_options_str(&o, &os);
    if (os.oom) {
        sb_free(&os);
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    TcCacheKey key;
    program_key(rt, src ? src : "", len, os.data ? os.data : "", o.arch, &key);
    sb_free(&os);
    if ((t = cu_ctx_enter(&rt->dev, msg)) != TILEC_SUCCESS)
        return t;
    if (!load_cached(rt, &key, mod, &t, msg)) {
        tilecProgram p = NULL;
        t = tilecCreateProgram(&p, src ? src : "", len, name);
        if (t == TILEC_SUCCESS && (t = tc_compile_program(p, nopts, opts, 0)) != TILEC_SUCCESS)
            sb_printf(msg, "%s: compilation failed (%s)\n%s", name ? name : "<input>", tilecGetErrorString(t),
                      p->log);
        if (t == TILEC_SUCCESS && p->log[0]) /* warnings, --remarks: notes of the load (not for a cached one) */
            sb_printf(msg, "%s", p->log);
        if (t == TILEC_SUCCESS)
            t = load_built(rt, &key, p->res.ptx, p->res.kernels, p->res.nkernels, name, mod, msg);
        if (p)
            tilecDestroyProgram(&p);
    }
    cu_ctx_leave();
    return t;
}

/* Whether opts name opt. */
static int has_opt(int nopts, const char *const *opts, const char *opt)
{
    for (int i = 0; i < nopts; i++)
        if (opts[i] && !strcmp(opts[i], opt))
            return 1;
    return 0;
}

/* What a TMA-only module needs to load its kernels as asked for (NULL:
 * out of memory; the module then refuses such launches, as without it). */
static struct FullKernels *full_new(const char *src, size_t len, const char *name, int nopts,
                                    const char *const *opts)
{
    struct FullKernels *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    pthread_mutex_init(&f->mu, NULL);
    f->src = malloc(len + 1);
    f->name = name ? strdup(name) : NULL;
    f->opts = calloc((size_t)nopts + 1, sizeof *f->opts);
    int ok = f->src && f->opts && (!name || f->name);
    for (int i = 0; ok && i < nopts; i++, f->nopts++)
        ok = (f->opts[i] = strdup(opts[i])) != NULL;
    if (!ok) {
        full_free(f);
        return NULL;
    }
    memcpy(f->src, src ? src : "", len);
    f->src[len] = 0;
    f->len = len;
    return f;
}

tilecResult tc_module_load_source(tilecRuntime rt, const char *src, size_t len, const char *name, int nopts,
                                  const char *const *opts, tilecModule *mod, StrBuf *msg)
{
    if (!rt || !mod || (!src && len) || nopts < 0 || (nopts && !opts))
        return load_source(rt, src, len, name, nopts, opts, mod, msg); /* (its checks) */
    int null_opt = 0; /* refused by load_source, counted as the caller counts them (not after the JIT's own) */
    for (int i = 0; i < nopts; i++)
        null_opt |= !opts[i];
    if (null_opt || !rt->settings.jit_tma_only || has_opt(nopts, opts, "-fwgmma-tma-only") ||
        has_opt(nopts, opts, "-fno-wgmma-tma-only") || has_opt(nopts, opts, "-fno-wgmma-tma"))
        return load_source(rt, src, len, name, nopts, opts, mod, msg);
    /* and C stored by TMA too (-fwgmma-tma-store: ptxas's time a quarter less, bench/NOTES.md v28),
     * first, so that options that say otherwise win */
    const char **more = malloc(((size_t)nopts + 2) * sizeof *more);
    if (!more)
        return TILEC_ERROR_OUT_OF_MEMORY;
    more[0] = "-fwgmma-tma-store";
    if (nopts)
        memcpy(more + 1, opts, (size_t)nopts * sizeof *more);
    more[nopts + 1] = "-fwgmma-tma-only";
    tilecResult t = load_source(rt, src, len, name, nopts + 2, more, mod, msg);
    free(more);
    if (t != TILEC_SUCCESS)
        return t;
    for (unsigned i = 0; i < (*mod)->nkernels && !(*mod)->full; i++)
        if ((*mod)->kernels[i].tma_required)
            (*mod)->full = full_new(src, len, name, nopts, opts);
    return t;
}

/* The kernels of mod as asked for, loaded at the first call (context not
 * current); NULL with the reason in msg. */
static tilecModule full_module(tilecModule mod, StrBuf *msg)
{
    struct FullKernels *f = mod->full;
    pthread_mutex_lock(&f->mu);
    if (!f->mod && load_source(mod->rt, f->src, f->len, f->name, f->nopts, (const char *const *)f->opts, &f->mod,
                               msg) == TILEC_SUCCESS)
        sb_printf(msg, "note: %s: a launch the JIT's TMA-only kernels cannot serve (a view no tensor map describes, "
                       "not staged, or C's that none can store to): loaded them with their own copies too (TILEC_JIT_TMA_ONLY=0: from the start)\n",
                  f->name ? f->name : "<input>");
    tilecModule full = f->mod;
    pthread_mutex_unlock(&f->mu);
    return full;
}

tilecResult tilecModuleLoadSource(tilecRuntime rt, const char *src, size_t len, const char *name, int nopts,
                                  const char *const *opts, tilecModule *mod)
{
    if (!rt || !mod || (!src && len))
        return tc_runtime_bad_arg(rt, "tilecModuleLoadSource", !mod ? "mod is NULL" : "src is NULL (and len is not 0)");
    if (rt->dead) {
        *mod = NULL;
        return rt->dead;
    }
    StrBuf msg;
    sb_init(&msg);
    tilecResult t = tc_module_load_source(rt, src, len, name, nopts, opts, mod, &msg);
    return rt_done(rt, t, &msg);
}

tilecResult tilecLaunch(tilecModule mod, const char *kernel, const unsigned grid[3], tilecStream stream, void **args)
{
    if (!mod || !kernel)
        return tc_runtime_bad_arg(mod ? mod->rt : NULL, "tilecLaunch", "the kernel's name is NULL");
    tilecRuntime rt = mod->rt;
    if (kernel[0] == '@')
        kernel++;
    StrBuf msg;
    sb_init(&msg);
    unsigned i = 0;
    while (i < mod->nkernels && strcmp(mod->kernels[i].name, kernel) != 0)
        i++;
    if (i == mod->nkernels) {
        sb_printf(&msg, "tilecLaunch: no kernel @%s in this module (it has:", kernel);
        for (unsigned j = 0; j < mod->nkernels; j++)
            sb_printf(&msg, " @%s", mod->kernels[j].name);
        sb_puts(&msg, ")\n");
        return rt_fail(rt, TILEC_ERROR_NOT_FOUND, &msg);
    }
    const TcKernelInfo *k = &mod->kernels[i];
    unsigned g[3];
    if (grid) {
        memcpy(g, grid, sizeof g);
    } else if (k->grid[0]) {
        for (int a = 0; a < 3; a++)
            g[a] = k->grid[a] ? k->grid[a] : 1;
    } else {
        sb_printf(&msg, "tilecLaunch @%s: the kernel has no grid(...) attribute, so a grid must be passed\n", k->name);
        return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
    }
    for (unsigned p = 0; p < k->nparams; p++) {
        if (args && args[p])
            continue;
        char ty[64];
        sb_printf(&msg, "tilecLaunch @%s: argument %u (%s) is NULL; args[i] must point to the value of parameter i\n",
                  k->name, p, tir_type_str(k->params[p], ty, sizeof ty));
        return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
    }
    /* no programs (a grid empty along an axis: an M = 0 product): nothing runs, as cuBLAS returns
     * at once for an empty product; the arguments and the limits below are checked all the same */
    int empty = !g[0] || !g[1] || !g[2];
    unsigned blocks = 0; /* persistent: the blocks launched */
    if (k->persistent) {
        if (!empty && tc_persist_blocks(g, mod->resident[i], rt->settings.persist_blocks, k->cluster, &blocks) != 0) {
            sb_printf(&msg, "tilecLaunch @%s: grid (%u, %u, %u): a persistent kernel takes at most 2^31 - 1 programs\n",
                      k->name, g[0], g[1], g[2]);
            return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
        }
    } else if (g[0] > (unsigned)INT32_MAX - (k->cluster > 1 ? k->cluster - 1u : 0u) || g[1] > 65535 || g[2] > 65535) {
        /* one program a block: CUDA's grid (x rounded up to whole clusters below) */
        sb_printf(&msg, "tilecLaunch @%s: grid (%u, %u, %u): a block a program, so CUDA's limits apply: x at most "
                  "2^31 - 1, y and z at most 65535 (a persistent kernel, -fpersistent, takes any grid of up to "
                  "2^31 - 1 programs)\n", k->name, g[0], g[1], g[2]);
        return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
    }
    if (mod->too_much_shared[i]) {
        sb_printf(&msg, "tilecLaunch @%s: the kernel needs %u bytes of shared memory; %s allows %d per block\n",
                  k->name, k->shared_bytes, rt->label, rt->dev.max_shared_optin);
        return rt_fail(rt, TILEC_ERROR_LAUNCH, &msg);
    }
    if (empty)
        return rt_done(rt, TILEC_SUCCESS, &msg);
    tilecResult t = cu_ctx_enter(&rt->dev, &msg);
    if (t != TILEC_SUCCESS)
        return rt_fail(rt, t, &msg);
    /* kernels with tensor maps take them, and their flags, after the
     * declared parameters (runtime/tmap.h); encoding needs the context */
    TcTmapArgs tmaps = {0};
    pthread_mutex_lock(&rt->mu);
    int noted = mod->staged_noted[i];
    pthread_mutex_unlock(&rt->mu);
    /* a kernel without copies of its own (-fwgmma-tma-only asked for) has every view staged that
     * no map describes as it is, whatever the reuse (any_reuse; pre-rounding keeps its rule); one
     * the JIT made so (mod->full) stages by the rule and leaves the rest to the kernel as asked for */
    TcStageCtx stage = {rt->stage_pool, k->ntmaps ? stage_kernels(rt, &msg) : NULL, (void *)stream,
                        rt->settings.stage == TC_SWITCH_ALWAYS ? UINT64_MAX : (uint64_t)g[0] * g[1] * g[2], preround_rule(&rt->settings), noted,
                        k->tma_required && !mod->full};
    if (k->ntmaps && (t = tc_tmap_args_build(&tmaps, k, args, &stage, &msg)) != TILEC_SUCCESS) {
        cu_ctx_leave();
        return rt_fail(rt, t, &msg);
    }
    uint32_t need = tc_tmaps_required(k); /* bits i */
    if ((tmaps.flags & need) != need && mod->full) {
        /* (the JIT's TMA-only kernel) the kernel as asked for, which copies what no map describes */
        tc_tmap_args_free(&tmaps);
        cu_ctx_leave();
        tilecModule full = full_module(mod, &msg);
        if (!full)
            return rt_fail(rt, TILEC_ERROR_JIT, &msg);
        rt_done(rt, TILEC_SUCCESS, &msg); /* the note, once */
        return tilecLaunch(full, kernel, grid, stream, args);
    }
    if ((tmaps.flags & need) != need) {
        /* a store map that cannot be encoded is the cause alone: the launch then stages nothing
         * (tc_stage_views_plan), so the loads' maps it would have staged are missing too */
        uint32_t miss = need & ~tmaps.flags, stores = tc_tmaps_stored(k);
        int store = (miss & stores) != 0;
        uint32_t named = store ? miss & stores : miss;
        unsigned missing = (unsigned)__builtin_popcount(named);
        sb_printf(&msg, "tilecLaunch @%s: compiled with -fwgmma-tma-only, the kernel has no copies of its own: every "
                        "tensor map it needs must be encoded, and map%s",
                  k->name, missing > 1 ? "s" : "");
        for (unsigned m = 0, said = 0; m < k->ntmaps; m++)
            if (named >> m & 1)
                sb_printf(&msg, "%s %u", said++ ? " and" : "", m);
        if (store)
            sb_printf(&msg, " of the view%s the kernel stores through (-fwgmma-tma-store; never staged) %s not: "
                            "such a view's base and row stride must be multiples of 16 bytes, and so must its rows' "
                            "length (a TMA store writes whole 16-byte chunks), within a tensor map's other limits, so "
                            "nothing was staged; compile without "
                            "-fwgmma-tma-only (or with -fno-wgmma-tma-store) for such views\n",
                      missing > 1 ? "s" : "", missing > 1 ? "are" : "is");
        else
            sb_printf(&msg, " %s not (a view's base or row stride off 16 bytes, or another limit of a tensor map, and "
                            "no staged copy: staging off, out of memory or too large); compile without "
                            "-fwgmma-tma-only for such views\n",
                      missing > 1 ? "are" : "is");
        tc_tmap_args_free(&tmaps);
        cu_ctx_leave();
        return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
    }
    void **largs = k->ntmaps ? tmaps.args : args, **pargs = NULL;
    unsigned lg[3] = {g[0], g[1], g[2]};
    if (k->persistent) { /* at most the blocks that run at once, each taking programs in turn */
        unsigned nbase = k->nparams + (k->ntmaps ? k->ntmaps + 1 : 0);
        if (!(pargs = malloc((nbase + 3) * sizeof *pargs))) {
            tc_tmap_args_free(&tmaps);
            cu_ctx_leave();
            sb_puts(&msg, "tilecLaunch: out of host memory\n");
            return rt_fail(rt, TILEC_ERROR_OUT_OF_MEMORY, &msg);
        }
        if (nbase)
            memcpy(pargs, largs, nbase * sizeof *pargs);
        for (int a = 0; a < 3; a++)
            pargs[nbase + a] = &g[a];
        largs = pargs;
        lg[0] = blocks;
        lg[1] = lg[2] = 1;
    }
    /* the kernel's entry for rounded views where every view that may come rounded does (staged so) */
    uint32_t all = tc_tmaps_roundable(k) * TC_TMAP_FLAG_ROUNDED(0);
    int rounded = k->rounded && all && (tmaps.flags & all) == all;
    void *fn = rounded ? mod->fns_rounded[i] : mod->fns[i];
    /* -fwgmma-cluster, one program a block: the entry declares its clusters (.reqnctapercluster), the
     * grid must be a multiple; a program added to pair the last stores nothing (persistent: the
     * blocks are whole clusters already, tc_persist_blocks) */
    if (!k->persistent && k->cluster > 1 && lg[0] % k->cluster) {
        lg[0] = (lg[0] + k->cluster - 1) / k->cluster * k->cluster;
        tmaps.flags |= TC_TMAP_FLAG_EXTRA_X; /* (a cluster kernel takes its maps: largs holds &tmaps.flags) */
    }
    t = cu_launch(fn, lg, k->threads, k->shared_bytes, (void *)stream, largs, &msg);
    free(pargs);
    if (tmaps.nstaged && !noted && t == TILEC_SUCCESS) {
        if (rounded)
            sb_printf(&msg, "note: tilecLaunch @%s: the views it lets come rounded did: launched its entry %s%s, "
                            "which does not round them\n",
                      k->name, k->name, TC_ROUNDED_SUFFIX);
        pthread_mutex_lock(&rt->mu);
        mod->staged_noted[i] = 1;
        pthread_mutex_unlock(&rt->mu);
    }
    tc_tmap_args_free(&tmaps); /* staged copies: freed on the stream, after the launch */
    cu_ctx_leave();
    if (t != TILEC_SUCCESS) {
        sb_printf(&msg, "while launching @%s%s on grid (%u, %u, %u)%s with %u threads and %u bytes of shared memory\n",
                  k->name, rounded ? " (its entry " TC_ROUNDED_SUFFIX " for views passed rounded)" : "", g[0], g[1],
                  g[2], k->persistent ? " (persistent)" : "", k->threads, k->shared_bytes);
        return rt_fail(rt, t, &msg);
    }
    return rt_done(rt, TILEC_SUCCESS, &msg); /* its notes (a view staged or not) */
}

tilecResult tilecModuleUnload(tilecModule *mod)
{
    if (!mod || !*mod)
        return TILEC_ERROR_INVALID_ARGUMENT;
    tilecModule m = *mod;
    tilecRuntime rt = m->rt;
    if (m->full && m->full->mod)
        tilecModuleUnload(&m->full->mod);
    StrBuf msg;
    sb_init(&msg);
    tilecResult t = cu_ctx_enter(&rt->dev, &msg);
    if (t == TILEC_SUCCESS) {
        t = cu_module_unload(m->cumod, &msg);
        cu_ctx_leave();
    }
    /* the host side goes regardless: the handle is invalid afterwards */
    module_free(m);
    *mod = NULL;
    t = rt_done(rt, t, &msg);
    rt_release(rt);
    return t;
}

/* ---- memory ---------------------------------------------------------------------- */

/* Runs op in rt's context; the shape shared by the memory calls. */
#define IN_CONTEXT(rt, call)                                  \
    do {                                                      \
        if ((rt)->dead)                                       \
            return (rt)->dead;                                \
        StrBuf msg_;                                          \
        sb_init(&msg_);                                       \
        tilecResult t_ = cu_ctx_enter(&(rt)->dev, &msg_);     \
        if (t_ == TILEC_SUCCESS) {                            \
            StrBuf *msg = &msg_;                              \
            t_ = (call);                                      \
            cu_ctx_leave();                                   \
        }                                                     \
        return rt_done((rt), t_, &msg_);                      \
    } while (0)

/* cuMemAlloc; when the device is out of memory and staging's pool holds
 * some that no copy uses (it keeps what it reserved), that is given back
 * and the allocation tried once more. */
static tilecResult mem_alloc(tilecRuntime rt, uint64_t *p, size_t bytes, StrBuf *msg)
{
    int oom = 0;
    StrBuf first;
    sb_init(&first);
    tilecResult t = cu_mem_alloc(p, bytes, &oom, &first);
    if (t != TILEC_SUCCESS && oom && rt->stage_pool) {
        cu_mem_pool_trim(rt->stage_pool);
        sb_free(&first);
        t = cu_mem_alloc(p, bytes, NULL, &first);
    }
    if (first.len)
        sb_putn(msg, first.data, first.len);
    sb_free(&first);
    return t;
}

tilecResult tilecMalloc(tilecRuntime rt, tilecDevicePtr *p, size_t bytes)
{
    if (!rt || !p)
        return tc_runtime_bad_arg(rt, "tilecMalloc", "p is NULL");
    *p = 0;
    if (bytes == 0) {
        StrBuf msg;
        sb_init(&msg);
        sb_puts(&msg, "tilecMalloc: zero bytes asked for\n");
        return rt_fail(rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
    }
    IN_CONTEXT(rt, mem_alloc(rt, p, bytes, msg));
}

tilecResult tilecFree(tilecRuntime rt, tilecDevicePtr p)
{
    if (!rt)
        return TILEC_ERROR_INVALID_ARGUMENT;
    if (!p)
        return TILEC_SUCCESS; /* like free(NULL) */
    IN_CONTEXT(rt, cu_mem_free(p, msg));
}

tilecResult tilecMemcpyHtoD(tilecRuntime rt, tilecDevicePtr dst, const void *src, size_t bytes)
{
    if (!rt || (bytes && (!dst || !src)))
        return tc_runtime_bad_arg(rt, "tilecMemcpyHtoD", "dst or src is NULL (and bytes is not 0)");
    if (!bytes)
        return TILEC_SUCCESS;
    IN_CONTEXT(rt, cu_memcpy_htod(dst, src, bytes, msg));
}

tilecResult tilecMemcpyDtoH(tilecRuntime rt, void *dst, tilecDevicePtr src, size_t bytes)
{
    if (!rt || (bytes && (!dst || !src)))
        return tc_runtime_bad_arg(rt, "tilecMemcpyDtoH", "dst or src is NULL (and bytes is not 0)");
    if (!bytes)
        return TILEC_SUCCESS;
    IN_CONTEXT(rt, cu_memcpy_dtoh(dst, src, bytes, msg));
}

tilecResult tilecMemsetD8(tilecRuntime rt, tilecDevicePtr dst, unsigned char value, size_t bytes)
{
    if (!rt || (bytes && !dst))
        return tc_runtime_bad_arg(rt, "tilecMemsetD8", "dst is NULL (and bytes is not 0)");
    if (!bytes)
        return TILEC_SUCCESS;
    IN_CONTEXT(rt, cu_memset_d8(dst, value, bytes, msg));
}

tilecResult tilecSynchronize(tilecRuntime rt)
{
    if (!rt)
        return TILEC_ERROR_INVALID_ARGUMENT;
    IN_CONTEXT(rt, cu_synchronize(NULL, msg));
}

/* ---- events ---------------------------------------------------------------------- */

struct tilecEvent_st {
    tilecRuntime rt; /* holds a reference, like a module */
    void *cuev;
    _Atomic uint64_t recorded; /* 0: never; else its last record's place among all records (record_count) */
};

/* every successful tilecEventRecord's number, in the order they were made */
static _Atomic uint64_t record_count;

tilecResult tilecEventCreate(tilecRuntime rt, tilecEvent *ev)
{
    if (!rt || !ev)
        return tc_runtime_bad_arg(rt, "tilecEventCreate", "ev is NULL");
    *ev = NULL;
    if (rt->dead)
        return rt->dead;
    tilecEvent e = calloc(1, sizeof *e);
    if (!e)
        return TILEC_ERROR_OUT_OF_MEMORY;
    StrBuf msg;
    sb_init(&msg);
    tilecResult t = cu_ctx_enter(&rt->dev, &msg);
    if (t == TILEC_SUCCESS) {
        t = cu_event_create(&e->cuev, &msg);
        cu_ctx_leave();
    }
    if (t != TILEC_SUCCESS) {
        free(e);
        return rt_fail(rt, t, &msg);
    }
    e->rt = rt;
    pthread_mutex_lock(&rt->mu);
    rt->refs++;
    pthread_mutex_unlock(&rt->mu);
    *ev = e;
    return rt_done(rt, t, &msg);
}

static tilecResult event_record(tilecEvent ev, tilecStream stream, StrBuf *msg)
{
    tilecResult t = cu_event_record(ev->cuev, (void *)stream, msg);
    if (t == TILEC_SUCCESS)
        ev->recorded = ++record_count;
    return t;
}

tilecResult tilecEventRecord(tilecEvent ev, tilecStream stream)
{
    if (!ev)
        return TILEC_ERROR_INVALID_ARGUMENT;
    IN_CONTEXT(ev->rt, event_record(ev, stream, msg));
}

tilecResult tilecEventElapsed(tilecEvent start, tilecEvent end, float *ms)
{
    if (!start || !end || !ms)
        return tc_runtime_bad_arg(end ? end->rt : start ? start->rt : NULL, "tilecEventElapsed",
                                  !ms ? "ms is NULL" : "an event is NULL");
    *ms = 0;
    if (!start->recorded || !end->recorded || start->recorded > end->recorded) {
        StrBuf msg;
        sb_init(&msg);
        sb_printf(&msg, "tilecEventElapsed: %s\n",
                  !start->recorded && !end->recorded ? "neither event has been recorded"
                  : !start->recorded                 ? "the start event has not been recorded"
                  : !end->recorded                   ? "the end event has not been recorded"
                                                     : "the end event was recorded before the start event");
        return rt_fail(end->rt, TILEC_ERROR_INVALID_STATE, &msg);
    }
    if (start->rt->dev.ordinal != end->rt->dev.ordinal) {
        StrBuf msg;
        sb_init(&msg);
        sb_printf(&msg, "tilecEventElapsed: the events belong to different devices (%d and %d)\n",
                  start->rt->dev.ordinal, end->rt->dev.ordinal);
        return rt_fail(end->rt, TILEC_ERROR_INVALID_ARGUMENT, &msg);
    }
    IN_CONTEXT(end->rt, cu_event_elapsed(start->cuev, end->cuev, ms, msg));
}

tilecResult tilecEventDestroy(tilecEvent *ev)
{
    if (!ev || !*ev)
        return TILEC_ERROR_INVALID_ARGUMENT;
    tilecEvent e = *ev;
    tilecRuntime rt = e->rt;
    StrBuf msg;
    sb_init(&msg);
    tilecResult t = cu_ctx_enter(&rt->dev, &msg);
    if (t == TILEC_SUCCESS) {
        t = cu_event_destroy(e->cuev, &msg);
        cu_ctx_leave();
    }
    /* the handle is invalid afterwards whatever the driver said */
    free(e);
    *ev = NULL;
    t = rt_done(rt, t, &msg);
    rt_release(rt);
    return t;
}
