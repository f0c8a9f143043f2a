/* What the fake driver (fake_cuda.c) saw, and the faults it is told to
 * return; a test finds both functions with dlsym in the libcuda.so.1 that
 * tilec loaded. */
#ifndef TILEC_FAKE_CUDA_H
#define TILEC_FAKE_CUDA_H

/* FAKE_CUDA_CLUSTERS: the clusters of 2 that run at once (fewer than
 * FAKE_CUDA_SMS / 2, as on a GPU whose GPCs leave SMs out) */
enum { FAKE_CUDA_SMS = 132, FAKE_CUDA_KEPT = 8, FAKE_CUDA_CLUSTERS = 60 };
#define FAKE_CUDA_MEMORY ((size_t)1 << 32) /* bytes of device memory */

typedef struct {
    int modules;          /* loaded now */
    unsigned launches;    /* so far */
    char kernels[FAKE_CUDA_KEPT][64]; /* launch i's kernel at [i % FAKE_CUDA_KEPT] */
    unsigned grid[3], block[3], shared; /* of the last launch */
    unsigned cluster[3];  /* of the last launch: its cluster dimensions (cuLaunchKernel: 0) */
    unsigned tensor_maps; /* encoded so far */
    unsigned pool_allocs; /* stream-ordered allocations so far */
    unsigned watched;     /* FAKE_CUDA_WATCH_PARAM=NAME:I: the u32 parameter I of the last launch of a
                           * kernel whose name starts with NAME (tilec's hidden flags word) */
} FakeCudaStats;

typedef const FakeCudaStats *(*FakeCudaStatsFn)(void);
const FakeCudaStats *fake_cuda_stats(void);
/* entry point `name` returns CUresult `code` the next `times` calls (-1: all) */
typedef void (*FakeCudaFailFn)(const char *name, int code, int times);
void fake_cuda_fail(const char *name, int code, int times);

#endif
