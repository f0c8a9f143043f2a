/* probe: cuMemcpy2DAsync D2D bandwidth for staging odd-stride operands (8191 x 8190 f32, pitch 32760 -> 32768) */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorName(r_, &s); printf("%s: %s\n", #x, s); exit(1); } } while (0)
static void run(size_t rows, size_t cols, size_t spitch, size_t dpitch, CUstream st, int pool)
{
    CUdeviceptr src, dst = 0; CUevent e0, e1;
    CK(cuMemAlloc(&src, rows * spitch));
    if (!pool) CK(cuMemAlloc(&dst, rows * dpitch));
    CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
    CUDA_MEMCPY2D c = {0};
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = src; c.srcPitch = spitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstPitch = dpitch;
    c.WidthInBytes = cols * 4; c.Height = rows;
    float best = 1e9, tot = 0; int n = 20;
    for (int i = 0; i < n + 3; i++) {
        CK(cuEventRecord(e0, st));
        if (pool) CK(cuMemAllocAsync(&dst, rows * dpitch, st));
        c.dstDevice = dst;
        CK(cuMemcpy2DAsync(&c, st));
        if (pool) CK(cuMemFreeAsync(dst, st));
        CK(cuEventRecord(e1, st)); CK(cuEventSynchronize(e1));
        float ms; CK(cuEventElapsedTime(&ms, e0, e1));
        if (i >= 3) { tot += ms; if (ms < best) best = ms; }
    }
    double bytes = 2.0 * rows * cols * 4;
    printf("rows %zu cols %zu spitch %zu dpitch %zu pool %d: best %.3f ms mean %.3f ms, %.0f GB/s (read+write)\n", rows, cols,
           spitch, dpitch, pool, best, tot / n, bytes / best / 1e6);
    cuMemFree(src); if (!pool) cuMemFree(dst);
}
int main(void)
{
    CUdevice d; CUcontext ctx; CUstream st;
    CK(cuInit(0)); CK(cuDeviceGet(&d, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, d)); CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    run(8191, 8190, 32760, 32768, st, 0);
    run(8190, 8193, 32772, 32784, st, 0);
    run(8191, 8190, 32760, 32768, st, 1);
    run(4095, 63, 252, 256, st, 0);
    run(63, 4097, 16388, 16400, st, 0);
    run(4096, 4096, 16384, 16384, st, 0);
    return 0;
}
