/*
 * The CUDA driver, loaded at run time.
 *
 * cuda_api.c is the only file that includes cuda.h. It dlopen()s
 * libcuda.so.1 once per process (pthread_once), resolves the entry points
 * at the ABI versions this file was written against, and wraps each call so
 * that a failure comes back as a tilecResult plus one line in the caller's
 * log: "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access
 * was encountered)". Handles cross this interface as void * / uint64_t, so
 * nothing else in tilec depends on cuda.h.
 *
 * Context rule: the cu_* calls below that take no CuDevice act on the
 * current context; callers bracket them with cu_ctx_enter / cu_ctx_leave,
 * which push and pop the device's primary context and so leave whatever
 * context the host application had current untouched.
 */
#ifndef TILEC_CUDA_API_H
#define TILEC_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "tilec.h"

typedef struct {
    int ordinal;
    int handle;           /* CUdevice */
    void *ctx;            /* CUcontext: the primary context, retained */
    char name[256];
    int cc_major, cc_minor;
    int driver_version;   /* e.g. 12080 for CUDA 12.8 */
    int max_shared_optin; /* dynamic shared memory a block may opt in to */
    int sm_count;         /* multiprocessors */
} CuDevice;

/* Loads the driver and runs cuInit once per process; later calls return the
 * first outcome again (with its message appended to log). TILEC_ERROR_NO_DRIVER
 * when libcuda.so.1 is missing or too old, NO_DEVICE when the driver sees no
 * GPU, CUDA for other cuInit failures. */
tilecResult cu_driver_load(StrBuf *log);

tilecResult cu_device_count(int *count, StrBuf *log);
/* Fills d and retains the device's primary context. */
tilecResult cu_device_open(int ordinal, CuDevice *d, StrBuf *log);
/* Releases the primary context retained by cu_device_open. */
void cu_device_close(CuDevice *d);

tilecResult cu_ctx_enter(const CuDevice *d, StrBuf *log);
void cu_ctx_leave(void);

/* PTX -> cubin through the driver's linker (cuLink*). On success *cubin is
 * a malloc'ed copy owned by the caller. TILEC_ERROR_JIT with the JIT's error
 * and info logs when the PTX is rejected; TILEC_ERROR_NOT_FOUND (and no log
 * line) when this driver has no linker entry points, so that the caller can
 * fall back to cu_module_load_ptx. */
tilecResult cu_link_ptx(const char *ptx, size_t len, const char *name, void **cubin, size_t *cubin_len,
                        StrBuf *log);
/* cuModuleLoadDataEx on NUL-terminated PTX, with the JIT logs on failure. */
tilecResult cu_module_load_ptx(const char *ptx, void **mod, StrBuf *log);
/* cuModuleLoadData on a cubin image. */
tilecResult cu_module_load_cubin(const void *cubin, void **mod, StrBuf *log);
tilecResult cu_module_unload(void *mod, StrBuf *log);
tilecResult cu_module_function(void *mod, const char *name, void **fn, StrBuf *log);
/* Raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to bytes. */
tilecResult cu_func_set_max_dynamic_shared(void *fn, unsigned bytes, StrBuf *log);

/* How many blocks of `threads` with shared_bytes of dynamic shared memory
 * one multiprocessor runs at once (cuOccupancyMaxActiveBlocksPerMultiprocessor). */
tilecResult cu_blocks_per_sm(void *fn, unsigned threads, unsigned shared_bytes, int *blocks, StrBuf *log);
/* How many clusters of `cluster` blocks (the entry's .reqnctapercluster)
 * the device runs at once (cuOccupancyMaxActiveClusters); 0 where the
 * driver cannot say (no error: the caller then takes whole clusters of
 * the blocks per SM). */
unsigned cu_clusters_at_once(void *fn, unsigned threads, unsigned shared_bytes, unsigned cluster);
/* cuLaunchKernel with a 1-D block of `threads`. stream NULL = the legacy
 * default stream. Launch and execution failures are TILEC_ERROR_LAUNCH. */
tilecResult cu_launch(void *fn, const unsigned grid[3], unsigned threads, unsigned shared_bytes, void *stream,
                      void **args, StrBuf *log);

/* *oom (may be NULL): set when the driver had no memory for it. */
tilecResult cu_mem_alloc(uint64_t *p, size_t bytes, int *oom, StrBuf *log);
tilecResult cu_mem_free(uint64_t p, StrBuf *log);
tilecResult cu_memcpy_htod(uint64_t dst, const void *src, size_t bytes, StrBuf *log);
tilecResult cu_memcpy_dtoh(void *dst, uint64_t src, size_t bytes, StrBuf *log);
tilecResult cu_memset_d8(uint64_t dst, unsigned char value, size_t bytes, StrBuf *log);
/* stream NULL: the whole context (cuCtxSynchronize). */
tilecResult cu_synchronize(void *stream, StrBuf *log);

/* Stream-ordered memory for staging (runtime/stage.h; CUDA 11.2+,
 * optional). cu_mem_pool_create makes a pool of d's memory that keeps what
 * it reserved until destroyed; NOT_FOUND (and no log line) where the driver
 * or the device has no memory pools. Allocations and frees are ordered on
 * stream like its kernels. */
tilecResult cu_mem_pool_create(const CuDevice *d, void **pool, StrBuf *log);
void cu_mem_pool_destroy(void *pool);
/* Gives back to the device what the pool holds and no allocation uses
 * (frees already done on their streams). */
void cu_mem_pool_trim(void *pool);
tilecResult cu_mem_alloc_async(void *pool, uint64_t *p, size_t bytes, void *stream, StrBuf *log);
tilecResult cu_mem_free_async(uint64_t p, void *stream, StrBuf *log);

/* Events with timing (CUevent as void *); context current. cu_event_elapsed
 * waits for end, then gives the milliseconds from start to end;
 * TILEC_ERROR_INVALID_STATE when either event was never recorded. */
tilecResult cu_event_create(void **ev, StrBuf *log);
tilecResult cu_event_record(void *ev, void *stream, StrBuf *log);
tilecResult cu_event_elapsed(void *start, void *end, float *ms, StrBuf *log);
tilecResult cu_event_destroy(void *ev, StrBuf *log);

/* Tensor maps (TMA descriptors; CUDA 12.0+, optional in the driver). 1 when
 * the driver is loaded and has cuTensorMapEncodeTiled. */
int cu_tensor_map_available(void);
/* cuTensorMapEncodeTiled into map128 (128 bytes, 64-byte aligned): a
 * tensor of dtype (TcTmapType: FLOAT32, TFLOAT32, FLOAT16, BFLOAT16) of
 * rank dims at base, byte_strides[rank - 1] for dims 1.., a box of
 * box[rank] elements, unit element strides, no interleave, 128-byte
 * swizzle or none, L2 promotion 256 B, zeros outside the tensor. Context current (without one the driver answers
 * CUDA_ERROR_INVALID_CONTEXT). map128 is zeroed first; NOT_FOUND (and no
 * log line) when the driver has no such entry point; CUDA when the driver
 * refuses the geometry. */
tilecResult cu_tensor_map_encode_tiled(void *map128, int dtype, unsigned rank, uint64_t base, const uint64_t *dims,
                                       const uint64_t *byte_strides, const uint32_t *box, int swizzle128,
                                       StrBuf *log);

#endif
