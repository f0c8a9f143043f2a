/*
 * A fake CUDA driver: libcuda.so.1 for tests on machines without a GPU
 * (unit/test_fake_driver puts it first on LD_LIBRARY_PATH). It exports the
 * entry points runtime/cuda_api.c resolves by name (no cuGetProcAddress, so
 * the loader takes its dlsym path), with the prototypes of cuda.h, and
 * behaves like one device of compute capability 9.0 with 132
 * multiprocessors: memory (also from its one memory pool) is host memory,
 * modules are counted, launches are recorded (the kernel's name) and do not
 * run, events read the host clock. With FAKE_CUDA_EMULATE=1 in the
 * environment a launch of a PTX module runs on the host instead
 * (ptx_emu.h): its threads, shared memory, tensor maps and all, over the
 * device memory it allocated; an emulation failure is the launch's error,
 * its reason on stderr. FAKE_CUDA_EMULATE_SEED=N: a random schedule.
 *
 * Faults on demand: fake_cuda_fail(NAME, CODE, TIMES) makes entry point
 * NAME (e.g. "cuModuleLoadData") return CUresult CODE the next TIMES calls
 * (-1: every call); a failing JIT entry point writes "fake-jit: error: ..."
 * into the caller's JIT error log. The test reads what happened through
 * fake_cuda_stats(); it finds both with dlsym.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_cuda.h"
#include "ptx_emu.h"

static FakeCudaStats stats;
static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER; /* launches may come from several threads */

const FakeCudaStats *fake_cuda_stats(void) { return &stats; }

/* fake_cuda_fail's order: which entry point fails, how, how many times more */
static char fail_name[64];
static int fail_code, fail_times;

void fake_cuda_fail(const char *name, int code, int times)
{
    snprintf(fail_name, sizeof fail_name, "%s", name ? name : "");
    fail_code = code;
    fail_times = times;
}

/* the ordered error where fn is the entry point told to fail, else CUDA_SUCCESS */
static CUresult fault(const char *fn)
{
    if (!fail_times || strcmp(fn, fail_name) != 0)
        return CUDA_SUCCESS;
    if (fail_times > 0)
        fail_times--;
    return (CUresult)fail_code;
}

/* a failing JIT call's error log, where the options give one */
static void jit_log(unsigned n, const CUjit_option *opt, void **val, const char *fn)
{
    char *buf = NULL;
    size_t size = 0;
    for (unsigned i = 0; opt && val && i < n; i++) {
        if (opt[i] == CU_JIT_ERROR_LOG_BUFFER)
            buf = val[i];
        else if (opt[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            size = (size_t)(uintptr_t)val[i];
    }
    if (buf && size)
        snprintf(buf, size, "fake-jit: error: %s was told to fail", fn);
}

#define FAULT(fn)                                                                                                       \
    do {                                                                                                               \
        CUresult r_ = fault(fn);                                                                                       \
        if (r_ != CUDA_SUCCESS)                                                                                        \
            return r_;                                                                                                 \
    } while (0)

CUresult cuGetErrorName(CUresult e, const char **s)
{
    static char buf[64];
    switch (e) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; break;
    case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_STUB_LIBRARY: *s = "CUDA_ERROR_STUB_LIBRARY"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_ILLEGAL_INSTRUCTION: *s = "CUDA_ERROR_ILLEGAL_INSTRUCTION"; break;
    case CUDA_ERROR_LAUNCH_TIMEOUT: *s = "CUDA_ERROR_LAUNCH_TIMEOUT"; break;
    case CUDA_ERROR_NOT_SUPPORTED: *s = "CUDA_ERROR_NOT_SUPPORTED"; break;
    default: snprintf(buf, sizeof buf, "CUDA_ERROR_%d", (int)e); *s = buf;
    }
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
    *s = e == CUDA_SUCCESS ? "no error" : "an error of the fake driver (told to fail, or an emulated kernel's fault)";
    return CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags)
{
    (void)flags;
    FAULT("cuInit");
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    *d = ordinal;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    snprintf(name, (size_t)len, "tilec fake driver");
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = FAKE_CUDA_SMS; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *v = 1; break;
    default: *v = 0;
    }
    return CUDA_SUCCESS;
}

static int the_context;

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    (void)d;
    *c = (CUcontext)&the_context;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    (void)d;
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *c)
{
    if (c)
        *c = (CUcontext)&the_context;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    FAULT("cuCtxSynchronize");
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}

/* A module is a copy of its image: PTX text (the fake linker's "cubin" is
 * the PTX it was given) has the functions its ".entry NAME(" lines name; an
 * ELF image (a real ptxas's) any function asked for. A function is a slot
 * of its module and name (it reads as the name: launches record it), free
 * again when its module is unloaded. */
enum { MAX_FUNCTIONS = 64 };
typedef struct {
    PtxEmuModule *emu; /* parsed at its first emulated launch */
    char text[];       /* the image: PTX, or "\x7fELF" for a cubin */
} FakeModule;
typedef struct {
    char name[64];      /* first: a CUfunction reads as its name */
    FakeModule *module; /* NULL: a free slot */
    unsigned cluster;   /* its entry's .reqnctapercluster x, else 0 */
} FakeFunction;
static FakeFunction functions[MAX_FUNCTIONS];
static pthread_mutex_t functions_mu = PTHREAD_MUTEX_INITIALIZER;

static CUresult new_module(CUmodule *m, const void *image)
{
    const char *text = !memcmp(image, "\x7f" "ELF", 4) ? "\x7f" "ELF" : image;
    size_t n = strlen(text) + 1;
    FakeModule *fm = malloc(sizeof *fm + n);
    if (!fm)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fm->emu = NULL;
    memcpy(fm->text, text, n);
    *m = (CUmodule)fm;
    __atomic_add_fetch(&stats.modules, 1, __ATOMIC_SEQ_CST);
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    FAULT("cuModuleLoadData");
    return new_module(m, image);
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *opt, void **val)
{
    CUresult r = fault("cuModuleLoadDataEx");
    if (r != CUDA_SUCCESS) {
        jit_log(n, opt, val, "cuModuleLoadDataEx");
        return r;
    }
    return new_module(m, image);
}

CUresult cuModuleUnload(CUmodule m)
{
    FakeModule *fm = (FakeModule *)m;
    pthread_mutex_lock(&functions_mu);
    for (unsigned i = 0; i < MAX_FUNCTIONS; i++)
        if (functions[i].module == fm)
            functions[i].module = NULL;
    pthread_mutex_unlock(&functions_mu);
    ptx_emu_free(fm->emu);
    free(fm);
    __atomic_sub_fetch(&stats.modules, 1, __ATOMIC_SEQ_CST);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    FakeModule *fm = (FakeModule *)m;
    const char *text = fm->text;
    unsigned cluster = 0;
    if (memcmp(text, "\x7f" "ELF", 4) != 0) {
        size_t n = strlen(name) + 16;
        char *entry = malloc(n);
        if (!entry)
            return CUDA_ERROR_OUT_OF_MEMORY;
        snprintf(entry, n, ".entry %s(", name);
        const char *at = strstr(text, entry);
        free(entry);
        if (!at)
            return CUDA_ERROR_NOT_FOUND;
        const char *body = strchr(at, '{'), *req = strstr(at, ".reqnctapercluster");
        cluster = req && (!body || req < body) ? (unsigned)atoi(req + strlen(".reqnctapercluster")) : 0;
    }
    pthread_mutex_lock(&functions_mu);
    unsigned i = 0, slot = MAX_FUNCTIONS;
    for (; i < MAX_FUNCTIONS && !(functions[i].module == fm && !strcmp(functions[i].name, name)); i++)
        if (!functions[i].module && slot == MAX_FUNCTIONS)
            slot = i;
    if (i == MAX_FUNCTIONS && slot < MAX_FUNCTIONS) {
        i = slot;
        snprintf(functions[i].name, sizeof functions[i].name, "%s", name);
        functions[i].module = fm;
        functions[i].cluster = cluster;
    }
    pthread_mutex_unlock(&functions_mu);
    if (i == MAX_FUNCTIONS)
        return CUDA_ERROR_NOT_FOUND;
    *f = (CUfunction)&functions[i];
    return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    (void)f, (void)a, (void)v;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int threads, size_t shared)
{
    (void)f, (void)threads, (void)shared;
    *blocks = 1;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *clusters, CUfunction f, const CUlaunchConfig *c)
{
    FAULT("cuOccupancyMaxActiveClusters");
    /* the entry's cluster (a cubin's the fake cannot read: the configuration's) */
    unsigned cl = ((const FakeFunction *)f)->cluster;
    cl = cl ? cl : c->gridDimX;
    if (!cl || c->gridDimX % cl)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    *clusters = cl == 2 ? FAKE_CUDA_CLUSTERS : FAKE_CUDA_SMS / (int)cl;
    return CUDA_SUCCESS;
}

/* FAKE_CUDA_EMULATE=1: the launch run by the PTX interpreter */
static CUresult emulate_launch(CUfunction f, const unsigned g[3], const unsigned bl[3], unsigned shared, void **params)
{
    char err[2048] = "";
    pthread_mutex_lock(&functions_mu); /* (two threads may launch one module's kernels at once) */
    FakeModule *fm = ((const FakeFunction *)f)->module;
    int cubin = fm && !memcmp(fm->text, "\x7f" "ELF", 4);
    if (fm && !cubin && !fm->emu)
        fm->emu = ptx_emu_parse(fm->text, err, sizeof err);
    PtxEmuModule *emu = fm ? fm->emu : NULL;
    pthread_mutex_unlock(&functions_mu);
    if (!emu) {
        fprintf(stderr, "fake-cuda: %s: %s\n", (const char *)f,
                !fm || cubin ? "no PTX to emulate (a cubin: run without ptxas)" : err);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    const char *seed = getenv("FAKE_CUDA_EMULATE_SEED"); /* a random schedule (ptx_emu.h) */
    PtxEmuResult r = ptx_emu_launch(emu, (const char *)f, g, bl, shared, params,
                                    seed ? strtoull(seed, NULL, 0) : 0, err, sizeof err);
    if (r != PTX_EMU_OK)
        fprintf(stderr, "fake-cuda: emulated launch: %s\n", err);
    switch (r) {
    case PTX_EMU_OK: return CUDA_SUCCESS;
    case PTX_EMU_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case PTX_EMU_TRAP: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case PTX_EMU_HANG: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case PTX_EMU_UNSUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_LAUNCH_FAILED;
    }
}

/* a launch's record; cluster: its dimensions, NULL for none */
static void record_launch(CUfunction f, const unsigned g[3], const unsigned bl[3], unsigned shared,
                          const unsigned *cluster)
{
    pthread_mutex_lock(&stats_mu);
    snprintf(stats.kernels[stats.launches % FAKE_CUDA_KEPT], sizeof stats.kernels[0], "%s", (const char *)f);
    stats.launches++;
    for (int i = 0; i < 3; i++) {
        stats.grid[i] = g[i];
        stats.block[i] = bl[i];
        stats.cluster[i] = cluster ? cluster[i] : 0;
    }
    stats.shared = shared;
    pthread_mutex_unlock(&stats_mu);
}

/* FAKE_CUDA_WATCH_PARAM=NAME:I: keeps parameter I (a u32) of a launch of a
 * kernel named NAME... (the test names one whose parameters it knows) */
static void watch_param(const char *name, void **params)
{
    const char *w = getenv("FAKE_CUDA_WATCH_PARAM"), *colon = w ? strchr(w, ':') : NULL;
    if (!colon || !params || strncmp(name, w, (size_t)(colon - w)) != 0)
        return;
    uint32_t v;
    memcpy(&v, params[atoi(colon + 1)], sizeof v);
    pthread_mutex_lock(&stats_mu);
    stats.watched = v;
    pthread_mutex_unlock(&stats_mu);
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra)
{
    (void)s, (void)extra;
    FAULT("cuLaunchKernel");
    const unsigned g[3] = {gx, gy, gz}, bl[3] = {bx, by, bz};
    watch_param((const char *)f, params);
    unsigned cl[3] = {((const FakeFunction *)f)->cluster, 1, 1};
    if (cl[0] && gx % cl[0]) /* the driver's rule: the grid a multiple of the entry's cluster */
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    record_launch(f, g, bl, shared, cl[0] ? cl : NULL);
    const char *emulate = getenv("FAKE_CUDA_EMULATE");
    return emulate && !strcmp(emulate, "1") ? emulate_launch(f, g, bl, shared, params) : CUDA_SUCCESS;
}

/* device memory starts on 256 bytes, as the driver's does; the device
 * has FAKE_CUDA_MEMORY bytes (NULL: more than that) */
static void *device_alloc(size_t n)
{
    void *m = n > FAKE_CUDA_MEMORY ? NULL : aligned_alloc(256, (n + 255) / 256 * 256 + (n ? 0 : 256));
    if (m) /* memory an emulated kernel may reach */
        ptx_emu_add_range((uint64_t)(uintptr_t)m, n);
    return m;
}

static void device_free(CUdeviceptr p)
{
    ptx_emu_remove_range(p);
    free((void *)(uintptr_t)p);
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    FAULT("cuMemAlloc_v2");
    void *m = device_alloc(n);
    *p = (CUdeviceptr)(uintptr_t)m;
    return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
    device_free(p);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
    memcpy((void *)(uintptr_t)d, s, n);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    memcpy(d, (const void *)(uintptr_t)s, n);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
    memset((void *)(uintptr_t)d, v, n);
    return CUDA_SUCCESS;
}

/* stream-ordered memory: host memory, freed at once */
static int the_pool;

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    (void)props;
    *pool = (CUmemoryPool)&the_pool;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    (void)pool;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void *v)
{
    (void)pool, (void)a, (void)v;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    (void)pool, (void)keep;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
    (void)pool, (void)s;
    FAULT("cuMemAllocFromPoolAsync");
    void *m = device_alloc(n);
    *p = (CUdeviceptr)(uintptr_t)m;
    if (m)
        __atomic_add_fetch(&stats.pool_allocs, 1, __ATOMIC_SEQ_CST);
    return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
    (void)s;
    device_free(p);
    return CUDA_SUCCESS;
}

/* an event: the host clock when recorded, in ms */
CUresult cuEventCreate(CUevent *e, unsigned flags)
{
    (void)flags;
    *e = calloc(1, sizeof(double));
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    *(double *)e = t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e)
{
    (void)e;
    return CUDA_SUCCESS;
}

/* exported under the name tilec's loader asks dlsym for (cuda.h 13 renames
 * it to the _v2 that takes the same arguments) */
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    *ms = (float)(*(double *)b - *(double *)a);
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}

/* the linker: the "cubin" is a copy of the PTX it was given */
typedef struct {
    char *img;
    size_t len;
    unsigned n;
    CUjit_option *opt;
    void **val;
} Link;

CUresult cuLinkCreate_v2(unsigned n, CUjit_option *opt, void **val, CUlinkState *st)
{
    Link *l = calloc(1, sizeof *l);
    if (!l)
        return CUDA_ERROR_OUT_OF_MEMORY;
    l->n = n, l->opt = opt, l->val = val;
    *st = (CUlinkState)l;
    return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState st, CUjitInputType type, void *data, size_t size, const char *name, unsigned n,
                          CUjit_option *opt, void **val)
{
    (void)type, (void)name, (void)n, (void)opt, (void)val;
    Link *l = (Link *)st;
    CUresult r = fault("cuLinkAddData_v2");
    if (r != CUDA_SUCCESS) {
        jit_log(l->n, l->opt, l->val, "cuLinkAddData_v2");
        return r;
    }
    free(l->img);
    l->img = malloc(size);
    if (!l->img)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(l->img, data, size);
    l->len = size;
    return CUDA_SUCCESS;
}

CUresult cuLinkComplete(CUlinkState st, void **img, size_t *len)
{
    Link *l = (Link *)st;
    *img = l->img;
    *len = l->len;
    return l->img ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuLinkDestroy(CUlinkState st)
{
    Link *l = (Link *)st;
    free(l->img);
    free(l);
    return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *base,
                                const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                const cuuint32_t *estrides, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
    (void)estrides, (void)il, (void)l2;
    memset(map, 0, sizeof *map);
    /* what the interpreter reads back (ptx_emu.h) */
    PtxEmuTmap t = {.magic = PTX_EMU_TMAP_MAGIC, .dtype = (uint32_t)type, .rank = rank, .oob_nan = oob != 0,
                    .base = (uint64_t)(uintptr_t)base};
    switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: t.esize = 1; break;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16: case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
        t.esize = 2;
        break;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64: case CU_TENSOR_MAP_DATA_TYPE_INT64: case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
        t.esize = 8;
        break;
    default: t.esize = 4;
    }
    t.swizzle = sw == CU_TENSOR_MAP_SWIZZLE_128B ? 128 : sw == CU_TENSOR_MAP_SWIZZLE_64B ? 64
                : sw == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : 0;
    if (rank < 1 || rank > 5)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < rank; i++) {
        t.dims[i] = (uint32_t)dims[i];
        t.box[i] = box[i];
        if (i)
            t.strides[i - 1] = strides[i - 1];
    }
    _Static_assert(sizeof t <= sizeof *map, "the emulator's map fits a CUtensorMap");
    memcpy(map, &t, sizeof t);
    __atomic_add_fetch(&stats.tensor_maps, 1, __ATOMIC_SEQ_CST);
    return CUDA_SUCCESS;
}
