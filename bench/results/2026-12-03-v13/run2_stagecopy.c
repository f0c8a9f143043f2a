/* probe: cuMemcpy2DAsync vs a PTX copy kernel (stage.ptx) for staging odd-stride views; checks the kernel's rows */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorName(r_, &s); printf("%s: %s\n", #x, s); exit(1); } } while (0)
static CUfunction f32k, f16k;
static void run(size_t rows, size_t cols, size_t es, size_t spitch, CUstream st)
{
    size_t width = cols * es, dpitch = (width + 15) / 16 * 16;
    CUdeviceptr src, d1, d2;
    CK(cuMemAlloc(&src, rows * spitch)); CK(cuMemAlloc(&d1, rows * dpitch)); CK(cuMemAlloc(&d2, rows * dpitch));
    unsigned char *h = malloc(rows * spitch);
    for (size_t i = 0; i < rows * spitch; i++) h[i] = (unsigned char)(i * 2654435761u >> 13);
    CK(cuMemcpyHtoD(src, h, rows * spitch));
    CK(cuMemsetD8(d1, 0, rows * dpitch)); CK(cuMemsetD8(d2, 0, rows * dpitch));
    CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
    CUDA_MEMCPY2D c = {0};
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = src; c.srcPitch = spitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = d1; c.dstPitch = dpitch;
    c.WidthInBytes = width; c.Height = rows;
    unsigned per = es == 4 ? 4 : 8, threads = 128;
    size_t chunks = (cols + per - 1) / per;
    unsigned gx = (unsigned)((chunks + threads - 1) / threads), gy = rows < 65535 ? (unsigned)rows : 65535;
    unsigned long long a_dst = d2, a_dp = dpitch, a_src = src, a_sp = spitch, a_cols = cols, a_rows = rows;
    void *args[] = {&a_dst, &a_dp, &a_src, &a_sp, &a_cols, &a_rows};
    for (int which = 0; which < 2; which++) {
        float best = 1e9, tot = 0; int n = 20;
        for (int i = 0; i < n + 3; i++) {
            CK(cuEventRecord(e0, st));
            if (which == 0) CK(cuMemcpy2DAsync(&c, st));
            else CK(cuLaunchKernel(es == 4 ? f32k : f16k, gx, gy, 1, threads, 1, 1, 0, st, args, NULL));
            CK(cuEventRecord(e1, st)); CK(cuEventSynchronize(e1));
            float ms; CK(cuEventElapsedTime(&ms, e0, e1));
            if (i >= 3) { tot += ms; if (ms < best) best = ms; }
        }
        printf("%s rows %zu cols %zu esize %zu spitch %zu dpitch %zu: best %.3f ms mean %.3f ms, %.0f GB/s\n",
               which ? "kernel " : "memcpy2d", rows, cols, es, spitch, dpitch, best, tot / n, 2.0 * rows * width / best / 1e6);
    }
    unsigned char *o1 = malloc(rows * dpitch), *o2 = malloc(rows * dpitch);
    CK(cuMemcpyDtoH(o1, d1, rows * dpitch)); CK(cuMemcpyDtoH(o2, d2, rows * dpitch));
    size_t bad = 0;
    for (size_t r = 0; r < rows; r++) bad += memcmp(o1 + r * dpitch, o2 + r * dpitch, width) != 0;
    printf("  rows differing from cuMemcpy2D: %zu of %zu\n", bad, rows);
    free(h); free(o1); free(o2); cuMemFree(src); cuMemFree(d1); cuMemFree(d2);
}
int main(int argc, char **argv)
{
    CUdevice d; CUcontext ctx; CUstream st; CUmodule m;
    CK(cuInit(0)); CK(cuDeviceGet(&d, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, d)); CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    CK(cuModuleLoad(&m, argc > 1 ? argv[1] : "carry2/stage.ptx"));
    CK(cuModuleGetFunction(&f32k, m, "tilec_stage_b32")); CK(cuModuleGetFunction(&f16k, m, "tilec_stage_b16"));
    run(8191, 8190, 4, 32760, st);
    run(8190, 8193, 4, 32772, st);
    run(8191, 8190, 2, 16380, st);
    run(8190, 8193, 2, 16386, st);
    run(4095, 63, 4, 252, st);
    run(300, 333, 2, 670, st);
    return 0;
}
