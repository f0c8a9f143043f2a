/*
 * tilec: embed the tile-kernel compiler and its CUDA runtime.
 *
 * Shaped like NVRTC: create a program from .tir source, compile it with
 * string options (the `tilec` command's compile flags, same names; not its
 * -o, --emit, --time, --help), read the
 * log / PTX / tile IR / LLVM IR, load it on a device, launch its kernels,
 * destroy everything explicitly. Every call returns a tilecResult; failures
 * leave a readable explanation in the program's or runtime's log (a NULL
 * argument too, where there is a runtime to hold it). Nothing in the library
 * calls exit(), separate programs may be compiled from separate threads at
 * once, and a runtime (with its modules, memory and events) may be used from
 * several threads at once. The Destroy and Unload calls set the handle to
 * NULL; called again on it they return TILEC_ERROR_INVALID_ARGUMENT.
 *
 * The CUDA driver (libcuda.so.1) is loaded on first use of a runtime call;
 * without it, runtime calls return TILEC_ERROR_NO_DRIVER and compiling still
 * works.
 */
#ifndef TILEC_H
#define TILEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

typedef enum {
    TILEC_SUCCESS = 0,
    TILEC_ERROR_INVALID_ARGUMENT,  /* NULL handle, bad index, ... */
    TILEC_ERROR_INVALID_OPTION,    /* unknown or malformed compile or runtime option; see the log */
    TILEC_ERROR_OUT_OF_MEMORY,     /* host memory, or device memory for tilecMalloc; see the log */
    TILEC_ERROR_COMPILATION,       /* the source has errors; diagnostics in the log */
    TILEC_ERROR_INVALID_STATE,     /* e.g. asking for PTX before a successful compile */
    TILEC_ERROR_NOT_FOUND,         /* no kernel of that name */
    TILEC_ERROR_NO_DRIVER,         /* libcuda.so.1 could not be loaded */
    TILEC_ERROR_NO_DEVICE,         /* the driver reports no usable GPU */
    TILEC_ERROR_JIT,               /* the driver rejected the PTX; its JIT log is in the log */
    TILEC_ERROR_LAUNCH,            /* launch or execution failed; CUDA error name in the log */
    TILEC_ERROR_CUDA,              /* another driver call failed; CUDA error name in the log */
    TILEC_ERROR_CACHE,             /* reserved: cache problems are notes in the log, never errors */
    TILEC_ERROR_COUNT
} tilecResult;

/* A static string naming the result, e.g. "TILEC_ERROR_JIT". */
TILEC_API const char *tilecGetErrorString(tilecResult r);
/* "tilec 0.1.0 (LLVM 19.1.7, build 3f2a...)": the build, a hash of the
 * sources that make kernels (cmake/build_id.cmake), is part of every
 * kernel-cache key and autotune record. */
TILEC_API const char *tilecVersion(void);

/* ---- compiling ------------------------------------------------------------ */

typedef struct tilecProgram_st *tilecProgram;

/* src need not be NUL-terminated; name is used in diagnostics (may be NULL). */
TILEC_API tilecResult tilecCreateProgram(tilecProgram *prog, const char *src, size_t len, const char *name);
/* Options: "--arch=sm_80|sm_90a", "--precision=ieee|tf32-trunc|tf32-rna|tf32-rne|3xtf32",
 * "-O0".."-O3", "--dump-after=all|PASS[,PASS...]" (tile IR after those passes,
 * see tilecGetStage), "--no-verify", "-g" / "-g0" (line info or none),
 * "--remarks" (the log says which wgmma pipeline each kernel's GEMM loop
 * took, or why none), "-DNAME=VALUE" ($NAME in the source), "--stages=N",
 * "--jobs=N", and the -f / -fno- flags `tilec --help` lists. */
TILEC_API tilecResult tilecCompileProgram(tilecProgram prog, int nopts, const char *const *opts);
/* The log: diagnostics, warnings, notes and remarks of the last compile; never NULL
 * for a valid program. Valid until the next compile or destroy, as every
 * pointer a program gives (PTX, stages, tilecKernelInfo.name). */
TILEC_API tilecResult tilecGetProgramLog(tilecProgram prog, const char **log);
/* size (may be NULL) excludes the terminating NUL. */
TILEC_API tilecResult tilecGetPTX(tilecProgram prog, const char **ptx, size_t *size);

typedef enum {
    TILEC_STAGE_TIR_INPUT,  /* tile IR as parsed */
    TILEC_STAGE_TIR,        /* tile IR after all passes */
    TILEC_STAGE_TIR_PASSES, /* tile IR after each pass (with --dump-after) */
    TILEC_STAGE_LLVM,       /* LLVM IR after optimization */
    TILEC_STAGE_PTX
} tilecStage;
TILEC_API tilecResult tilecGetStage(tilecProgram prog, tilecStage stage, const char **text);
TILEC_API tilecResult tilecDestroyProgram(tilecProgram *prog);

/* Per-kernel facts of a compiled program. */
typedef struct {
    const char *name;
    unsigned threads;       /* per program (block) */
    unsigned shared_bytes;  /* dynamic shared memory the launch needs */
    unsigned grid[3];       /* the kernel's grid(...) attribute, 0 if none */
    unsigned nparams;       /* the declared parameters (not the hidden tensor maps) */
} tilecKernelInfo;
TILEC_API tilecResult tilecGetKernelCount(tilecProgram prog, unsigned *count);
TILEC_API tilecResult tilecGetKernelInfo(tilecProgram prog, unsigned index, tilecKernelInfo *info);

/* ---- running ---------------------------------------------------------------- */

typedef struct tilecRuntime_st *tilecRuntime;   /* a device + its context + the cache */
typedef struct tilecModule_st *tilecModule;     /* a loaded program */
typedef struct tilecStream_st *tilecStream;     /* the caller's CUstream, cast; NULL = the default stream */
typedef uint64_t tilecDevicePtr;

/* On failure *rt still receives a handle that holds only the log (read it
 * with tilecRuntimeGetLog to learn why); every other call on it returns the
 * same error, and it must be destroyed. Modules keep their runtime alive, so
 * destroying a runtime before unloading its modules is safe. */
TILEC_API tilecResult tilecRuntimeCreate(tilecRuntime *rt, int device);
/* tilecRuntimeCreate with settings, each over its environment variable
 * (which tilecRuntimeCreate reads). Both are read once, here: a variable
 * set later changes nothing for this runtime. Options apply in order, the
 * last of a kind winning; a bad variable is a note in the log, its default
 * kept.
 *   --cache-dir=DIR      the kernel cache's directory, and the cache on
 *                        (TILEC_CACHE_DIR; default $XDG_CACHE_HOME/tilec,
 *                        else ~/.cache/tilec; a relative DIR is taken from
 *                        the working directory at each use)
 *   --no-cache, --cache  memory only, or on disk (TILEC_CACHE=0|off|no|false)
 *   --ptxas=PATH         the ptxas that turns PTX into cubins: a regular
 *                        executable file when the runtime is made
 *                        (TILEC_PTXAS, not checked; default the toolkit's
 *                        where installed)
 *   --no-ptxas           the driver's JIT instead (TILEC_PTXAS=0|off)
 *   --stage=never|auto|always     tilecLaunch's copies of views TMA cannot
 *   --preround=never|auto|always  describe, and of tf32-rna views rounded
 *                        (TILEC_STAGE, TILEC_PREROUND = 0|1; default auto)
 *   --jit-tma-only, --no-jit-tma-only   tilecModuleLoadSource's own options
 *                        (TILEC_JIT_TMA_ONLY=0; default on)
 *   --persist-blocks=N   a persistent launch's blocks at most, 0..65535
 *                        (0: no cap; TILEC_PERSIST_BLOCKS=1..65535)
 *   --tune-jobs=N        tilecAutotune's compile threads, 0..1024, used up
 *                        to 16 (0: one per CPU; TILEC_TUNE_JOBS)
 *   --tune-verbose, --no-tune-verbose   its progress on stderr
 *                        (TILEC_TUNE_VERBOSE=1)
 * An unknown or malformed option: TILEC_ERROR_INVALID_OPTION, and the log
 * names each; a negative count or a NULL array: INVALID_ARGUMENT. The
 * handle is then as a failed tilecRuntimeCreate's (it holds the log). */
TILEC_API tilecResult tilecRuntimeCreateWithOptions(tilecRuntime *rt, int device, int nopts, const char *const *opts);
/* The explanation of the calling thread's last failing call on the runtime
 * or its modules (CUDA error names, JIT log), and notes of its calls since
 * (cache trouble): each thread has its own log of a runtime, so threads
 * sharing one read their own. A failing call replaces the log, notes of
 * successful calls are appended; the pointer is valid until the thread's
 * next call on this runtime. A thread that has made no call on it gets the
 * runtime's latest log, whichever thread's (why tilecRuntimeCreate failed). */
TILEC_API tilecResult tilecRuntimeGetLog(tilecRuntime rt, const char **log);
/* "NVIDIA H200 (sm_90)" */
TILEC_API tilecResult tilecRuntimeDeviceName(tilecRuntime rt, const char **name);
TILEC_API tilecResult tilecRuntimeComputeCapability(tilecRuntime rt, int *major, int *minor);
TILEC_API tilecResult tilecRuntimeDestroy(tilecRuntime *rt);

/* Loads a compiled program (through the kernel cache). The program may be
 * destroyed afterwards: the module keeps what it needs. */
TILEC_API tilecResult tilecModuleLoad(tilecRuntime rt, tilecProgram prog, tilecModule *mod);
/* Compiles (or finds in the cache) and loads source in one step. On its own
 * account it adds -fwgmma-tma-only (kernels without copies of their own
 * where their tiles are provably aligned: a smaller compile) and, first,
 * so that the given options may say otherwise, -fwgmma-tma-store (C stored
 * by TMA, without stores of the kernel's own where that is proven to work:
 * smaller again), and compiles
 * the kernel as asked for at the first launch that needs it (docs/TIR.md,
 * "The JIT's default"; TILEC_JIT_TMA_ONLY=0: never). The compile's warnings
 * and --remarks are notes in the runtime's log (none when the kernel comes
 * from the cache: nothing is compiled). */
TILEC_API tilecResult tilecModuleLoadSource(tilecRuntime rt, const char *src, size_t len, const char *name,
                                            int nopts, const char *const *opts, tilecModule *mod);
/* args[i] points to the value of parameter i (a tilecDevicePtr for ptr<...>,
 * an int32_t / int64_t / float for scalars): as with cuLaunchKernel, args
 * must hold one pointer for each declared parameter (a NULL one is refused;
 * the values' types cannot be checked). grid NULL = the kernel's grid(...);
 * one program a block, CUDA's limits apply (x up to 2^31 - 1, y and z up to
 * 65535); a persistent kernel takes any grid of up to 2^31 - 1 programs. A
 * grid empty along an axis (0 programs: an M = 0 product) launches nothing
 * and returns TILEC_SUCCESS.
 * An sm_90a kernel with a wgmma GEMM loop may take TMA tensor maps in
 * hidden parameters after its declared ones (the default; -fno-wgmma-tma:
 * none): tilecLaunch encodes and adds them from args (docs/TIR.md, "Kernel
 * parameters at launch"). Where a view's rows are not on 16 bytes, it may
 * copy that view for the launch into memory of its own, on the same stream,
 * and pass the copy instead (docs/TIR.md, "Staging"; TILEC_STAGE=0: never);
 * for a tf32-rna GEMM with K >= 1024 it may copy every view rounded to tf32,
 * so that the kernel need not round (same bits; "Pre-rounding";
 * TILEC_PREROUND=0: never). */
TILEC_API tilecResult tilecLaunch(tilecModule mod, const char *kernel, const unsigned grid[3],
                                  tilecStream stream, void **args);
TILEC_API tilecResult tilecModuleUnload(tilecModule *mod);

/* Device memory, so that embedders need no CUDA runtime. It belongs to the
 * runtime's device context: free it before destroying the runtime (what is
 * left goes with the context, once the runtime's last module and event are
 * gone and no one else holds the device's primary context). tilecMalloc
 * returns TILEC_ERROR_OUT_OF_MEMORY where the device has not the memory (the
 * log says how much was asked for), so that a caller may try less. */
TILEC_API tilecResult tilecMalloc(tilecRuntime rt, tilecDevicePtr *p, size_t bytes);
TILEC_API tilecResult tilecFree(tilecRuntime rt, tilecDevicePtr p);
TILEC_API tilecResult tilecMemcpyHtoD(tilecRuntime rt, tilecDevicePtr dst, const void *src, size_t bytes);
TILEC_API tilecResult tilecMemcpyDtoH(tilecRuntime rt, void *dst, tilecDevicePtr src, size_t bytes);
TILEC_API tilecResult tilecMemsetD8(tilecRuntime rt, tilecDevicePtr dst, unsigned char value, size_t bytes);
TILEC_API tilecResult tilecSynchronize(tilecRuntime rt);

/* Events: device-side timestamps for timing work on a stream (CUevents with
 * timing enabled, in the runtime's context). An event keeps its runtime
 * alive, like a module. tilecEventElapsed waits until `end` has completed,
 * then gives the milliseconds between the two records (resolution about
 * half a microsecond); both events must belong to runtimes on one device and
 * have been recorded, start first in the order of the tilecEventRecord
 * calls (else TILEC_ERROR_INVALID_STATE). Errors are explained in the
 * runtime's log. */
typedef struct tilecEvent_st *tilecEvent;
TILEC_API tilecResult tilecEventCreate(tilecRuntime rt, tilecEvent *ev);
TILEC_API tilecResult tilecEventRecord(tilecEvent ev, tilecStream stream);
TILEC_API tilecResult tilecEventElapsed(tilecEvent start, tilecEvent end, float *ms);
TILEC_API tilecResult tilecEventDestroy(tilecEvent *ev);

/* Autotuning: one configuration a kernel may run with (its source, with
 * the tile shape and warps it was written for, its compile options, e.g.
 * "--stages=3" or "-DBM=128" for a source written with $BM, and the launch
 * grid that configuration needs). */
typedef struct {
    const char *src;
    size_t len;
    const char *name;         /* file name for messages; may be NULL */
    int nopts;
    const char *const *opts;
    unsigned grid[3];
} tilecTuneConfig;

/* Picks the fastest of n configurations of kernel `kernel` on the problem
 * that args describe, loads it into *mod and gives its index in *best.
 * The configurations are compiled and loaded (through the kernel cache)
 * from several threads at once (the runtime's --tune-jobs or
 * TILEC_TUNE_JOBS, default one per CPU, at most 16), then each is launched once to check it and timed with device
 * events: batches of launches of at least ~1 ms, the median of 5 after a
 * warm-up (~0.1 s per configuration; the kernels run on args repeatedly,
 * so they must not read what they write). A configuration that fails to compile or launch, or whose
 * grid is empty (nothing to time), is skipped and noted in the runtime's log; TILEC_ERROR_NOT_FOUND
 * when none runs. The
 * choice is remembered under `key`, a shape class the caller names (e.g.
 * "gemm f32 8192x8192x8192"), together with the configurations and the
 * device: in the runtime and in the disk cache (<cache dir>/<hash>.tune),
 * so a later call, in this process or another, loads the choice without
 * timing. --tune-verbose (TILEC_TUNE_VERBOSE=1) prints each configuration's
 * time to stderr. Both are the runtime's, fixed when it was made. */
/* args as tilecLaunch's (not NULL). */
TILEC_API tilecResult tilecAutotune(tilecRuntime rt, const char *key, const tilecTuneConfig *cfgs, unsigned n,
                                    const char *kernel, void **args, unsigned *best, tilecModule *mod);

#ifdef __cplusplus
}
#endif
#endif
