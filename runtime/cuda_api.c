/*
 * The CUDA driver, loaded with dlopen (see cuda_api.h for the interface).
 *
 * Needs: cuda.h / cudaTypedefs.h at build time only; libcuda.so.1 at run
 * time, found by the dynamic loader's usual search.
 * Guarantees: the only mutable global state is the table of entry points,
 * written once under pthread_once and read-only afterwards; no call here
 * exits or aborts; every driver failure is returned as a tilecResult and
 * described on one line of the caller's log, by error name and text.
 *
 * Entry points are resolved through cuGetProcAddress at the CUDA version
 * whose ABI the PFN_..._vNNNN typedef below describes, not at CUDA_VERSION:
 * asking for 13000 would return e.g. cuCtxSynchronize_v2, which takes a
 * context argument that the old one does not. Drivers without
 * cuGetProcAddress (< 11.3) fall back to dlsym of the exported name, which
 * for the changed functions carries the _v2 suffix.
 *
 * Optional entry points (required = 0 below) may be missing from an older
 * driver; their wrappers then return TILEC_ERROR_NOT_FOUND without a log
 * line, and the caller falls back (cuLink*: JIT at load; cuTensorMap*: the
 * kernel's own copies; stream-ordered memory: no staging, runtime/stage.h).
 */
#include "runtime/cuda_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

/* X(field, ABI version, exported name for dlsym, required) */
#define CU_SYMBOLS(X)                                                  \
    X(GetErrorName, 6000, "cuGetErrorName", 1)                         \
    X(GetErrorString, 6000, "cuGetErrorString", 1)                     \
    X(Init, 2000, "cuInit", 1)                                         \
    X(DriverGetVersion, 2020, "cuDriverGetVersion", 1)                 \
    X(DeviceGet, 2000, "cuDeviceGet", 1)                               \
    X(DeviceGetCount, 2000, "cuDeviceGetCount", 1)                     \
    X(DeviceGetName, 2000, "cuDeviceGetName", 1)                       \
    X(DeviceGetAttribute, 2000, "cuDeviceGetAttribute", 1)             \
    X(DevicePrimaryCtxRetain, 7000, "cuDevicePrimaryCtxRetain", 1)     \
    X(DevicePrimaryCtxRelease, 11000, "cuDevicePrimaryCtxRelease_v2", 1) \
    X(CtxPushCurrent, 4000, "cuCtxPushCurrent_v2", 1)                  \
    X(CtxPopCurrent, 4000, "cuCtxPopCurrent_v2", 1)                    \
    X(CtxSynchronize, 2000, "cuCtxSynchronize", 1)                     \
    X(StreamSynchronize, 2000, "cuStreamSynchronize", 1)               \
    X(ModuleLoadData, 2000, "cuModuleLoadData", 1)                     \
    X(ModuleLoadDataEx, 2010, "cuModuleLoadDataEx", 1)                 \
    X(ModuleUnload, 2000, "cuModuleUnload", 1)                         \
    X(ModuleGetFunction, 2000, "cuModuleGetFunction", 1)               \
    X(FuncSetAttribute, 9000, "cuFuncSetAttribute", 1)                 \
    X(LaunchKernel, 4000, "cuLaunchKernel", 1)                         \
    X(OccupancyMaxActiveBlocksPerMultiprocessor, 6050, "cuOccupancyMaxActiveBlocksPerMultiprocessor", 1) \
    X(OccupancyMaxActiveClusters, 11070, "cuOccupancyMaxActiveClusters", 0) \
    X(MemAlloc, 3020, "cuMemAlloc_v2", 1)                              \
    X(MemFree, 3020, "cuMemFree_v2", 1)                                \
    X(MemcpyHtoD, 3020, "cuMemcpyHtoD_v2", 1)                          \
    X(MemcpyDtoH, 3020, "cuMemcpyDtoH_v2", 1)                          \
    X(MemsetD8, 3020, "cuMemsetD8_v2", 1)                              \
    X(EventCreate, 2000, "cuEventCreate", 1)                           \
    X(EventRecord, 2000, "cuEventRecord", 1)                           \
    X(EventSynchronize, 2000, "cuEventSynchronize", 1)                 \
    X(EventElapsedTime, 2000, "cuEventElapsedTime", 1)                 \
    X(EventDestroy, 4000, "cuEventDestroy_v2", 1)                      \
    X(LinkCreate, 6050, "cuLinkCreate_v2", 0)                          \
    X(LinkAddData, 6050, "cuLinkAddData_v2", 0)                        \
    X(LinkComplete, 5050, "cuLinkComplete", 0)                         \
    X(LinkDestroy, 5050, "cuLinkDestroy", 0)                          \
    X(TensorMapEncodeTiled, 12000, "cuTensorMapEncodeTiled", 0)        \
    X(MemPoolCreate, 11020, "cuMemPoolCreate", 0)                      \
    X(MemPoolDestroy, 11020, "cuMemPoolDestroy", 0)                    \
    X(MemPoolSetAttribute, 11020, "cuMemPoolSetAttribute", 0)          \
    X(MemAllocFromPoolAsync, 11020, "cuMemAllocFromPoolAsync", 0)      \
    X(MemFreeAsync, 11020, "cuMemFreeAsync", 0)                        \
    X(MemPoolTrimTo, 11020, "cuMemPoolTrimTo", 0)

static struct {
#define X(f, v, dl, req) PFN_cu##f##_v##v f;
    CU_SYMBOLS(X)
#undef X
} cu;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static tilecResult load_result;
static char load_msg[1024];
static void *libcuda;

/* ---- error reporting ---------------------------------------------------- */

static const char *err_name(CUresult r)
{
    const char *s = NULL;
    if (!cu.GetErrorName || cu.GetErrorName(r, &s) != CUDA_SUCCESS || !s)
        return NULL;
    return s;
}

static const char *err_text(CUresult r)
{
    const char *s = NULL;
    if (!cu.GetErrorString || cu.GetErrorString(r, &s) != CUDA_SUCCESS || !s)
        return "no description";
    return s;
}

/* Errors after which the context is unusable: every later call returns
 * them again, and they may belong to an earlier asynchronous launch. */
static int is_sticky(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
        return 1;
    default:
        return 0;
    }
}

static tilecResult classify(CUresult r, tilecResult dflt)
{
    if (is_sticky(r))
        return TILEC_ERROR_LAUNCH;
    switch (r) {
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
        return TILEC_ERROR_LAUNCH;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
        return TILEC_ERROR_NO_DEVICE;
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        return TILEC_ERROR_NO_DRIVER;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
        return TILEC_ERROR_JIT;
    default:
        return dflt;
    }
}

/* "call: CUDA_ERROR_X (text)" on one line, plus a hint for sticky errors. */
static tilecResult fail(StrBuf *log, const char *call, CUresult r, tilecResult dflt)
{
    const char *name = err_name(r);
    if (name)
        sb_printf(log, "%s: %s (%s)\n", call, name, err_text(r));
    else
        sb_printf(log, "%s: CUDA error %d (unknown to this driver)\n", call, (int)r);
    if (is_sticky(r))
        sb_puts(log, "note: this error may come from an earlier launch (kernels run asynchronously); "
                     "the device context is unusable from now on in this process\n");
    return classify(r, dflt);
}

/* ---- loading -------------------------------------------------------------- */

static void *resolve(PFN_cuGetProcAddress_v12000 gpa2, PFN_cuGetProcAddress_v11030 gpa1, const char *base,
                     int version, const char *dlname)
{
    void *p = NULL;
    /* LEGACY_STREAM: NULL streams mean the legacy default stream, whatever
     * the host application was compiled with. */
    if (gpa2) {
        CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SUCCESS;
        if (gpa2(base, &p, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &q) == CUDA_SUCCESS &&
            q == CU_GET_PROC_ADDRESS_SUCCESS && p)
            return p;
    } else if (gpa1) {
        if (gpa1(base, &p, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM) == CUDA_SUCCESS && p)
            return p;
    }
    return dlsym(libcuda, dlname);
}

static void load_driver(void)
{
    libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        const char *e = dlerror();
        snprintf(load_msg, sizeof load_msg, "libcuda.so.1 not found (no NVIDIA driver on this machine): %s",
                 e ? e : "dlopen failed");
        load_result = TILEC_ERROR_NO_DRIVER;
        return;
    }
    PFN_cuGetProcAddress_v12000 gpa2 = (PFN_cuGetProcAddress_v12000)dlsym(libcuda, "cuGetProcAddress_v2");
    PFN_cuGetProcAddress_v11030 gpa1 =
        gpa2 ? NULL : (PFN_cuGetProcAddress_v11030)dlsym(libcuda, "cuGetProcAddress");
    const char *missing = NULL;
#define X(f, v, dl, req)                                                       \
    cu.f = (PFN_cu##f##_v##v)resolve(gpa2, gpa1, "cu" #f, v, dl);              \
    if (!cu.f && req && !missing)                                              \
        missing = dl;
    CU_SYMBOLS(X)
#undef X
    if (missing) {
        snprintf(load_msg, sizeof load_msg,
                 "libcuda.so.1 is too old: it has no %s (tilec needs a CUDA 11 or newer driver)", missing);
        load_result = TILEC_ERROR_NO_DRIVER;
        return;
    }
    CUresult r = cu.Init(0);
    if (r != CUDA_SUCCESS) {
        StrBuf b;
        sb_init(&b);
        load_result = fail(&b, "cuInit", r, TILEC_ERROR_CUDA);
        if (r == CUDA_ERROR_NO_DEVICE)
            sb_puts(&b, "note: the NVIDIA driver is installed but reports no usable GPU\n");
        else if (r == CUDA_ERROR_DEVICE_UNAVAILABLE)
            sb_puts(&b, "note: the GPUs are busy or unavailable (another process in exclusive mode?)\n");
        else if (r == CUDA_ERROR_STUB_LIBRARY)
            sb_puts(&b, "note: the libcuda.so.1 found is the CUDA toolkit's stub, not a driver\n");
        else if (r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
            sb_puts(&b, "note: the driver does not match this system or is too old\n");
        snprintf(load_msg, sizeof load_msg, "%s", b.data ? b.data : "cuInit failed");
        sb_free(&b);
        /* keep the message one unit: no trailing newline inside load_msg */
        size_t n = strlen(load_msg);
        while (n && load_msg[n - 1] == '\n')
            load_msg[--n] = 0;
        return;
    }
    load_result = TILEC_SUCCESS;
}

tilecResult cu_driver_load(StrBuf *log)
{
    pthread_once(&load_once, load_driver);
    if (load_result != TILEC_SUCCESS)
        sb_printf(log, "%s\n", load_msg);
    return load_result;
}

/* ---- devices and contexts -------------------------------------------------- */

tilecResult cu_device_count(int *count, StrBuf *log)
{
    *count = 0;
    tilecResult t = cu_driver_load(log);
    if (t != TILEC_SUCCESS)
        return t;
    CUresult r = cu.DeviceGetCount(count);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuDeviceGetCount", r, TILEC_ERROR_CUDA);
}

tilecResult cu_device_open(int ordinal, CuDevice *d, StrBuf *log)
{
    memset(d, 0, sizeof *d);
    int n = 0;
    tilecResult t = cu_device_count(&n, log);
    if (t != TILEC_SUCCESS)
        return t;
    if (ordinal < 0 || ordinal >= n) {
        sb_printf(log, "device %d not found: the driver reports %d device%s\n", ordinal, n, n == 1 ? "" : "s");
        return TILEC_ERROR_NO_DEVICE;
    }
    CUdevice dev;
    CUresult r = cu.DeviceGet(&dev, ordinal);
    if (r != CUDA_SUCCESS)
        return fail(log, "cuDeviceGet", r, TILEC_ERROR_NO_DEVICE);
    d->ordinal = ordinal;
    d->handle = (int)dev;
    if ((r = cu.DeviceGetName(d->name, (int)sizeof d->name - 1, dev)) != CUDA_SUCCESS)
        return fail(log, "cuDeviceGetName", r, TILEC_ERROR_CUDA);
    if ((r = cu.DeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) != CUDA_SUCCESS ||
        (r = cu.DeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) != CUDA_SUCCESS ||
        (r = cu.DeviceGetAttribute(&d->max_shared_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                   dev)) != CUDA_SUCCESS ||
        (r = cu.DeviceGetAttribute(&d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)) != CUDA_SUCCESS)
        return fail(log, "cuDeviceGetAttribute", r, TILEC_ERROR_CUDA);
    if ((r = cu.DriverGetVersion(&d->driver_version)) != CUDA_SUCCESS)
        return fail(log, "cuDriverGetVersion", r, TILEC_ERROR_CUDA);
    CUcontext ctx = NULL;
    if ((r = cu.DevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
        return fail(log, "cuDevicePrimaryCtxRetain", r, TILEC_ERROR_CUDA);
    d->ctx = ctx;
    return TILEC_SUCCESS;
}

void cu_device_close(CuDevice *d)
{
    if (d->ctx) {
        /* nothing useful to do with a failure while tearing down */
        (void)cu.DevicePrimaryCtxRelease((CUdevice)d->handle);
        d->ctx = NULL;
    }
}

tilecResult cu_ctx_enter(const CuDevice *d, StrBuf *log)
{
    CUresult r = cu.CtxPushCurrent((CUcontext)d->ctx);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuCtxPushCurrent", r, TILEC_ERROR_CUDA);
}

void cu_ctx_leave(void)
{
    CUcontext old = NULL;
    (void)cu.CtxPopCurrent(&old);
}

/* ---- modules ---------------------------------------------------------------- */

enum { JIT_LOG_SIZE = 16384 };

/* Appends the JIT's error and info logs (as far as they were filled). */
static void put_jit_logs(StrBuf *log, const char *err, const char *info)
{
    if (err && err[0])
        sb_printf(log, "JIT error log:\n%s%s", err, err[strlen(err) - 1] == '\n' ? "" : "\n");
    if (info && info[0])
        sb_printf(log, "JIT info log:\n%s%s", info, info[strlen(info) - 1] == '\n' ? "" : "\n");
}

/* The driver's JIT error and info log buffers and the options that hand
 * them to cuLinkCreate / cuModuleLoadDataEx (JIT_NOPTS entries). */
enum { JIT_NOPTS = 5 };
typedef struct {
    char *err, *info;
    CUjit_option opt[JIT_NOPTS];
    void *val[JIT_NOPTS];
} JitLogs;

static tilecResult jit_logs_open(JitLogs *j, StrBuf *log)
{
    j->err = calloc(1, JIT_LOG_SIZE);
    j->info = calloc(1, JIT_LOG_SIZE);
    if (!j->err || !j->info) {
        free(j->err);
        free(j->info);
        sb_puts(log, "out of host memory for the JIT log\n");
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    CUjit_option opt[JIT_NOPTS] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                   CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void *val[JIT_NOPTS] = {j->err, (void *)(uintptr_t)(JIT_LOG_SIZE - 1), j->info,
                            (void *)(uintptr_t)(JIT_LOG_SIZE - 1), (void *)(uintptr_t)1};
    memcpy(j->opt, opt, sizeof opt);
    memcpy(j->val, val, sizeof val);
    return TILEC_SUCCESS;
}

static void jit_logs_close(JitLogs *j)
{
    free(j->err);
    free(j->info);
}

tilecResult cu_link_ptx(const char *ptx, size_t len, const char *name, void **cubin, size_t *cubin_len,
                        StrBuf *log)
{
    *cubin = NULL;
    *cubin_len = 0;
    if (!cu.LinkCreate || !cu.LinkAddData || !cu.LinkComplete || !cu.LinkDestroy)
        return TILEC_ERROR_NOT_FOUND;
    JitLogs jl;
    if (jit_logs_open(&jl, log) != TILEC_SUCCESS)
        return TILEC_ERROR_OUT_OF_MEMORY;
    CUlinkState st = NULL;
    tilecResult t = TILEC_SUCCESS;
    CUresult r = cu.LinkCreate(JIT_NOPTS, jl.opt, jl.val, &st);
    if (r != CUDA_SUCCESS) {
        t = fail(log, "cuLinkCreate", r, TILEC_ERROR_JIT);
        goto out;
    }
    /* the PTX buffer handed to the driver must be NUL-terminated */
    char *copy = malloc(len + 1);
    if (!copy) {
        sb_puts(log, "out of host memory copying the PTX\n");
        t = TILEC_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    memcpy(copy, ptx, len);
    copy[len] = 0;
    r = cu.LinkAddData(st, CU_JIT_INPUT_PTX, copy, len + 1, name ? name : "tilec.ptx", 0, NULL, NULL);
    free(copy);
    if (r != CUDA_SUCCESS) {
        t = fail(log, "cuLinkAddData", r, TILEC_ERROR_JIT);
        goto out;
    }
    void *img = NULL;
    size_t img_len = 0;
    r = cu.LinkComplete(st, &img, &img_len);
    if (r != CUDA_SUCCESS) {
        t = fail(log, "cuLinkComplete", r, TILEC_ERROR_JIT);
        goto out;
    }
    /* the image belongs to the link state: copy it before destroying that */
    *cubin = malloc(img_len ? img_len : 1);
    if (!*cubin) {
        sb_puts(log, "out of host memory copying the cubin\n");
        t = TILEC_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    memcpy(*cubin, img, img_len);
    *cubin_len = img_len;
out:
    if (t != TILEC_SUCCESS)
        put_jit_logs(log, jl.err, jl.info);
    if (st)
        (void)cu.LinkDestroy(st);
    jit_logs_close(&jl);
    return t;
}

tilecResult cu_module_load_ptx(const char *ptx, void **mod, StrBuf *log)
{
    *mod = NULL;
    JitLogs jl;
    if (jit_logs_open(&jl, log) != TILEC_SUCCESS)
        return TILEC_ERROR_OUT_OF_MEMORY;
    CUmodule m = NULL;
    CUresult r = cu.ModuleLoadDataEx(&m, ptx, JIT_NOPTS, jl.opt, jl.val);
    tilecResult t = TILEC_SUCCESS;
    if (r != CUDA_SUCCESS) {
        t = fail(log, "cuModuleLoadDataEx", r, TILEC_ERROR_JIT);
        put_jit_logs(log, jl.err, jl.info);
    } else {
        *mod = m;
    }
    jit_logs_close(&jl);
    return t;
}

tilecResult cu_module_load_cubin(const void *cubin, void **mod, StrBuf *log)
{
    CUmodule m = NULL;
    CUresult r = cu.ModuleLoadData(&m, cubin);
    *mod = r == CUDA_SUCCESS ? m : NULL;
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuModuleLoadData", r, TILEC_ERROR_JIT);
}

tilecResult cu_module_unload(void *mod, StrBuf *log)
{
    CUresult r = cu.ModuleUnload((CUmodule)mod);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuModuleUnload", r, TILEC_ERROR_CUDA);
}

tilecResult cu_module_function(void *mod, const char *name, void **fn, StrBuf *log)
{
    CUfunction f = NULL;
    CUresult r = cu.ModuleGetFunction(&f, (CUmodule)mod, name);
    *fn = r == CUDA_SUCCESS ? f : NULL;
    if (r == CUDA_ERROR_NOT_FOUND) {
        sb_printf(log, "cuModuleGetFunction: kernel '%s' is not in the loaded module\n", name);
        return TILEC_ERROR_NOT_FOUND;
    }
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuModuleGetFunction", r, TILEC_ERROR_CUDA);
}

tilecResult cu_func_set_max_dynamic_shared(void *fn, unsigned bytes, StrBuf *log)
{
    CUresult r = cu.FuncSetAttribute((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuFuncSetAttribute", r, TILEC_ERROR_CUDA);
}

tilecResult cu_blocks_per_sm(void *fn, unsigned threads, unsigned shared_bytes, int *blocks, StrBuf *log)
{
    CUresult r = cu.OccupancyMaxActiveBlocksPerMultiprocessor(blocks, (CUfunction)fn, (int)threads, shared_bytes);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS
                             : fail(log, "cuOccupancyMaxActiveBlocksPerMultiprocessor", r, TILEC_ERROR_CUDA);
}

unsigned cu_clusters_at_once(void *fn, unsigned threads, unsigned shared_bytes, unsigned cluster)
{
    if (!cu.OccupancyMaxActiveClusters) /* (an older driver) */
        return 0;
    /* the entry declares its cluster (.reqnctapercluster): the configuration names none */
    CUlaunchConfig c = {.gridDimX = cluster, .gridDimY = 1, .gridDimZ = 1, .blockDimX = threads, .blockDimY = 1,
                        .blockDimZ = 1, .sharedMemBytes = shared_bytes};
    int n = 0;
    return cu.OccupancyMaxActiveClusters(&n, (CUfunction)fn, &c) == CUDA_SUCCESS && n > 0 ? (unsigned)n : 0;
}

tilecResult cu_launch(void *fn, const unsigned grid[3], unsigned threads, unsigned shared_bytes, void *stream,
                      void **args, StrBuf *log)
{
    CUresult r = cu.LaunchKernel((CUfunction)fn, grid[0], grid[1], grid[2], threads, 1, 1, shared_bytes,
                                 (CUstream)stream, args, NULL);
    /* any failure of a launch is a launch failure (bad grid, resources, ...) */
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuLaunchKernel", r, TILEC_ERROR_LAUNCH);
}

/* ---- memory ----------------------------------------------------------------- */

tilecResult cu_mem_alloc(uint64_t *p, size_t bytes, int *oom, StrBuf *log)
{
    CUdeviceptr d = 0;
    CUresult r = cu.MemAlloc(&d, bytes);
    *p = r == CUDA_SUCCESS ? (uint64_t)d : 0;
    if (oom)
        *oom = r == CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_ERROR_OUT_OF_MEMORY) { /* its own result: a caller may try less */
        fail(log, "cuMemAlloc", r, TILEC_ERROR_OUT_OF_MEMORY);
        sb_printf(log, "note: %zu bytes of device memory were asked for\n", bytes);
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemAlloc", r, TILEC_ERROR_CUDA);
}

tilecResult cu_mem_free(uint64_t p, StrBuf *log)
{
    CUresult r = cu.MemFree((CUdeviceptr)p);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemFree", r, TILEC_ERROR_CUDA);
}

tilecResult cu_memcpy_htod(uint64_t dst, const void *src, size_t bytes, StrBuf *log)
{
    CUresult r = cu.MemcpyHtoD((CUdeviceptr)dst, src, bytes);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemcpyHtoD", r, TILEC_ERROR_CUDA);
}

tilecResult cu_memcpy_dtoh(void *dst, uint64_t src, size_t bytes, StrBuf *log)
{
    CUresult r = cu.MemcpyDtoH(dst, (CUdeviceptr)src, bytes);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemcpyDtoH", r, TILEC_ERROR_CUDA);
}

tilecResult cu_memset_d8(uint64_t dst, unsigned char value, size_t bytes, StrBuf *log)
{
    CUresult r = cu.MemsetD8((CUdeviceptr)dst, value, bytes);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemsetD8", r, TILEC_ERROR_CUDA);
}

tilecResult cu_synchronize(void *stream, StrBuf *log)
{
    CUresult r = stream ? cu.StreamSynchronize((CUstream)stream) : cu.CtxSynchronize();
    return r == CUDA_SUCCESS ? TILEC_SUCCESS
                             : fail(log, stream ? "cuStreamSynchronize" : "cuCtxSynchronize", r, TILEC_ERROR_CUDA);
}

/* ---- stream-ordered memory (staging, runtime/stage.h) ------------------------ */

tilecResult cu_mem_pool_create(const CuDevice *d, void **pool, StrBuf *log)
{
    *pool = NULL;
    int supported = 0;
    if (!cu.MemPoolCreate || !cu.MemPoolDestroy || !cu.MemPoolSetAttribute || !cu.MemAllocFromPoolAsync ||
        !cu.MemFreeAsync ||
        cu.DeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, (CUdevice)d->handle) !=
            CUDA_SUCCESS ||
        !supported)
        return TILEC_ERROR_NOT_FOUND;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = d->handle;
    CUmemoryPool p = NULL;
    CUresult r = cu.MemPoolCreate(&p, &props);
    if (r != CUDA_SUCCESS)
        return fail(log, "cuMemPoolCreate", r, TILEC_ERROR_CUDA);
    /* keep what was reserved across synchronizations: a launch that stages
     * again reuses it instead of mapping it anew */
    cuuint64_t keep = UINT64_MAX;
    if ((r = cu.MemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep)) != CUDA_SUCCESS) {
        (void)cu.MemPoolDestroy(p);
        return fail(log, "cuMemPoolSetAttribute", r, TILEC_ERROR_CUDA);
    }
    *pool = p;
    return TILEC_SUCCESS;
}

void cu_mem_pool_trim(void *pool)
{
    if (pool && cu.MemPoolTrimTo)
        (void)cu.MemPoolTrimTo((CUmemoryPool)pool, 0);
}

void cu_mem_pool_destroy(void *pool)
{
    /* memory still in use is released when its last free completes */
    if (pool)
        (void)cu.MemPoolDestroy((CUmemoryPool)pool);
}

tilecResult cu_mem_alloc_async(void *pool, uint64_t *p, size_t bytes, void *stream, StrBuf *log)
{
    CUdeviceptr d = 0;
    CUresult r = cu.MemAllocFromPoolAsync(&d, bytes, (CUmemoryPool)pool, (CUstream)stream);
    *p = r == CUDA_SUCCESS ? (uint64_t)d : 0;
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemAllocFromPoolAsync", r, TILEC_ERROR_CUDA);
}

tilecResult cu_mem_free_async(uint64_t p, void *stream, StrBuf *log)
{
    CUresult r = cu.MemFreeAsync((CUdeviceptr)p, (CUstream)stream);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuMemFreeAsync", r, TILEC_ERROR_CUDA);
}

/* ---- events ------------------------------------------------------------------ */

tilecResult cu_event_create(void **ev, StrBuf *log)
{
    CUevent e = NULL;
    /* default flags: timing enabled; a blocking wait is not needed for a
     * benchmark's one synchronization per measurement */
    CUresult r = cu.EventCreate(&e, CU_EVENT_DEFAULT);
    *ev = r == CUDA_SUCCESS ? e : NULL;
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuEventCreate", r, TILEC_ERROR_CUDA);
}

tilecResult cu_event_record(void *ev, void *stream, StrBuf *log)
{
    CUresult r = cu.EventRecord((CUevent)ev, (CUstream)stream);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuEventRecord", r, TILEC_ERROR_CUDA);
}

tilecResult cu_event_elapsed(void *start, void *end, float *ms, StrBuf *log)
{
    *ms = 0;
    CUresult r = cu.EventSynchronize((CUevent)end);
    if (r != CUDA_SUCCESS)
        return fail(log, "cuEventSynchronize", r, TILEC_ERROR_CUDA);
    r = cu.EventElapsedTime(ms, (CUevent)start, (CUevent)end);
    if (r == CUDA_ERROR_INVALID_HANDLE || r == CUDA_ERROR_NOT_READY) {
        /* the usual cause: start was never recorded, or not before end */
        fail(log, "cuEventElapsedTime", r, TILEC_ERROR_CUDA);
        sb_puts(log, "note: both events must have been recorded (start first) before asking for the time\n");
        return TILEC_ERROR_INVALID_STATE;
    }
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuEventElapsedTime", r, TILEC_ERROR_CUDA);
}

tilecResult cu_event_destroy(void *ev, StrBuf *log)
{
    CUresult r = cu.EventDestroy((CUevent)ev);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuEventDestroy", r, TILEC_ERROR_CUDA);
}

/* ---- tensor maps -------------------------------------------------------------- */

/* the kernels' hidden parameters are .b8 [128]: the map is copied in whole */
_Static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

int cu_tensor_map_available(void)
{
    /* a call before any runtime exists must not race with the load */
    pthread_once(&load_once, load_driver);
    return load_result == TILEC_SUCCESS && cu.TensorMapEncodeTiled != NULL;
}

tilecResult cu_tensor_map_encode_tiled(void *map128, int dtype, unsigned rank, uint64_t base, const uint64_t *dims,
                                       const uint64_t *byte_strides, const uint32_t *box, int swizzle128,
                                       StrBuf *log)
{
    memset(map128, 0, sizeof(CUtensorMap));
    if (!cu_tensor_map_available())
        return TILEC_ERROR_NOT_FOUND;
    if (rank < 1 || rank > 5) {
        sb_printf(log, "cuTensorMapEncodeTiled: rank %u is outside 1..5\n", rank);
        return TILEC_ERROR_INVALID_ARGUMENT;
    }
    /* TcTmapType's order */
    static const CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
                                                CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
    if (dtype < 0 || dtype > 3) {
        sb_printf(log, "cuTensorMapEncodeTiled: element type %d is not one tilec encodes\n", dtype);
        return TILEC_ERROR_INVALID_ARGUMENT;
    }
    /* unit element strides: every element of the box is copied */
    const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    CUresult r = cu.TensorMapEncodeTiled(
        (CUtensorMap *)map128, types[dtype], (cuuint32_t)rank, (void *)(uintptr_t)base, (const cuuint64_t *)dims,
        (const cuuint64_t *)byte_strides, (const cuuint32_t *)box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
        swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? TILEC_SUCCESS : fail(log, "cuTensorMapEncodeTiled", r, TILEC_ERROR_CUDA);
}
