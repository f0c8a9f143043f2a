/* What the fake driver (fake_cuda.c) saw; a test finds fake_cuda_stats with
 * dlsym in the libcuda.so.1 that tilec loaded. */
#ifndef TILEC_FAKE_CUDA_H
#define TILEC_FAKE_CUDA_H

enum { FAKE_CUDA_SMS = 132 };

typedef struct {
    int modules;          /* loaded now */
    unsigned launches;    /* so far */
    unsigned grid[3], block[3], shared; /* of the last launch */
    unsigned tensor_maps; /* encoded so far */
} FakeCudaStats;

typedef const FakeCudaStats *(*FakeCudaStatsFn)(void);
const FakeCudaStats *fake_cuda_stats(void);

#endif
