/*
 * The vendor libraries the GEMM benchmark loads at run time: a few libcuda
 * calls (context, L2 size) and cuBLAS. Both are dlopen'ed, so the benchmark
 * builds and links where neither exists; the handful of prototypes and enum
 * values used are declared here (values as in cuda.h / cublas_api.h /
 * library_types.h, which are stable ABI).
 */
#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- libcuda ---- */

typedef int (*PFN_init)(unsigned);
typedef int (*PFN_devget)(int *, int);
typedef int (*PFN_attr)(int *, int, int);
typedef int (*PFN_retain)(void **, int);
typedef int (*PFN_release)(int);
typedef int (*PFN_setcur)(void *);

enum { CU_ATTR_L2_CACHE_SIZE = 38 };

static void *libcuda;
static int cuda_dev = -1;
static PFN_release cu_release;
static PFN_setcur cu_setcur;

int bench_cuda_setup(int device, size_t *l2_bytes, char *why, size_t n)
{
    *l2_bytes = 0;
    libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        snprintf(why, n, "libcuda.so.1: %s", dlerror());
        return -1;
    }
    PFN_init init = (PFN_init)dlsym(libcuda, "cuInit");
    PFN_devget devget = (PFN_devget)dlsym(libcuda, "cuDeviceGet");
    PFN_attr attr = (PFN_attr)dlsym(libcuda, "cuDeviceGetAttribute");
    PFN_retain retain = (PFN_retain)dlsym(libcuda, "cuDevicePrimaryCtxRetain");
    cu_release = (PFN_release)dlsym(libcuda, "cuDevicePrimaryCtxRelease_v2");
    cu_setcur = (PFN_setcur)dlsym(libcuda, "cuCtxSetCurrent");
    if (!init || !devget || !attr || !retain || !cu_release || !cu_setcur) {
        snprintf(why, n, "libcuda.so.1 lacks a needed entry point");
        return -1;
    }
    int dev = 0, l2 = 0, r;
    void *ctx = NULL;
    if ((r = init(0)) != 0 || (r = devget(&dev, device)) != 0 || (r = retain(&ctx, dev)) != 0) {
        snprintf(why, n, "libcuda: CUDA error %d opening device %d", r, device);
        return -1;
    }
    cuda_dev = dev;
    if ((r = cu_setcur(ctx)) != 0) {
        snprintf(why, n, "cuCtxSetCurrent: CUDA error %d", r);
        return -1;
    }
    if (attr(&l2, CU_ATTR_L2_CACHE_SIZE, dev) == 0 && l2 > 0)
        *l2_bytes = (size_t)l2;
    return 0;
}

void bench_cuda_teardown(void)
{
    if (cuda_dev >= 0) {
        cu_setcur(NULL);
        cu_release(cuda_dev);
        cuda_dev = -1;
    }
    /* libcuda stays loaded: cuBLAS and tilec still refer to it */
}

/* ---- cuBLAS ---- */

typedef void *cublasHandle_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum { CUDA_R_32F = 0, CUDA_R_16BF = 14 };
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };
enum { CUBLAS_GEMM_DEFAULT = -1 };
enum { CUBLAS_DEFAULT_MATH = 0 };

typedef int (*PFN_create)(cublasHandle_t *);
typedef int (*PFN_destroy)(cublasHandle_t);
typedef int (*PFN_version)(cublasHandle_t, int *);
typedef int (*PFN_setmath)(cublasHandle_t, int);
typedef const char *(*PFN_status)(int);
typedef int (*PFN_sgemm)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *,
                         int, const float *, float *, int);
typedef int (*PFN_gemmex)(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int,
                          const void *, int, int, const void *, void *, int, int, int, int);

struct BenchCublas {
    void *lib, *lt;
    cublasHandle_t h;
    PFN_destroy destroy;
    PFN_status status;
    PFN_sgemm sgemm;
    PFN_gemmex gemmex;
    char name[512];
};

/* A library by soname first (the loader's path), then in the toolkit. */
static void *open_lib(const char *soname, char *path, size_t n)
{
    static const char *const dirs[] = {"", "/usr/local/cuda/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, n, "%s%s", dirs[i], soname);
        void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (h)
            return h;
    }
    return NULL;
}

int bench_cublas_open(BenchCublas **out, char *why, size_t n)
{
    *out = NULL;
    BenchCublas *cb = calloc(1, sizeof *cb);
    if (!cb) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    char path[400] = "";
    const char *env = getenv("TILEC_BENCH_CUBLAS");
    if (env && env[0]) {
        snprintf(path, sizeof path, "%s", env);
        cb->lib = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
    }
    /* libcublasLt first, by the same search, so that libcublas's own
     * dependency on it resolves even where its directory is not on the
     * loader's path (a loaded library is matched by its soname) */
    for (int v = 13; !cb->lib && v >= 12; v--) {
        char so[64], ltpath[400];
        snprintf(so, sizeof so, "libcublasLt.so.%d", v);
        void *lt = open_lib(so, ltpath, sizeof ltpath);
        snprintf(so, sizeof so, "libcublas.so.%d", v);
        cb->lib = open_lib(so, path, sizeof path);
        if (cb->lib)
            cb->lt = lt;
        else if (lt)
            dlclose(lt);
    }
    if (!cb->lib) {
        snprintf(why, n, "libcublas.so.13 / .so.12 not found (set TILEC_BENCH_CUBLAS=/path/to/libcublas.so)");
        free(cb);
        return -1;
    }
    PFN_create create = (PFN_create)dlsym(cb->lib, "cublasCreate_v2");
    PFN_version version = (PFN_version)dlsym(cb->lib, "cublasGetVersion_v2");
    PFN_setmath setmath = (PFN_setmath)dlsym(cb->lib, "cublasSetMathMode");
    cb->destroy = (PFN_destroy)dlsym(cb->lib, "cublasDestroy_v2");
    cb->status = (PFN_status)dlsym(cb->lib, "cublasGetStatusString");
    cb->sgemm = (PFN_sgemm)dlsym(cb->lib, "cublasSgemm_v2");
    cb->gemmex = (PFN_gemmex)dlsym(cb->lib, "cublasGemmEx");
    int r;
    if (!create || !version || !setmath || !cb->destroy || !cb->sgemm || !cb->gemmex) {
        snprintf(why, n, "%s lacks a needed entry point", path);
    } else if ((r = create(&cb->h)) != 0) {
        snprintf(why, n, "cublasCreate_v2: status %d %s", r, cb->status ? cb->status(r) : "");
    } else {
        /* SGEMM must stay fp32: default math, no TF32 unless the caller asks
         * through GemmEx (NVIDIA_TF32_OVERRIDE=1 in the environment would
         * still change that; run.sh leaves it unset) */
        setmath(cb->h, CUBLAS_DEFAULT_MATH);
        int ver = 0;
        version(cb->h, &ver);
        snprintf(cb->name, sizeof cb->name, "cuBLAS %d (%s)", ver, path);
        *out = cb;
        return 0;
    }
    bench_cublas_close(cb);
    return -1;
}

const char *bench_cublas_name(const BenchCublas *cb) { return cb->name; }

int bench_cublas_gemm(BenchCublas *cb, BenchCublasMode mode, int M, int N, int K, uint64_t A, uint64_t B,
                      uint64_t C, unsigned layout, char *why, size_t n)
{
    /* Row-major C = A B is column-major C^T = B^T A^T: the row-major
     * buffers read column-major are exactly B^T (N x K, ld N) and A^T
     * (K x M, ld K), so swap the operands and M, N; no transposes. */
    const float one = 1.0f, zero = 0.0f;
    const void *a = (const void *)(uintptr_t)B, *b = (const void *)(uintptr_t)A;
    void *c = (void *)(uintptr_t)C;
    /* B stored N x K (K-major): read column-major it is B (K x N, ld K), so B^T is its transpose;
     * A stored K x M (M-major): read column-major it is A (M x K, ld M), A^T its transpose */
    int opa = layout & BENCH_B_KMAJOR ? CUBLAS_OP_T : CUBLAS_OP_N, lda = layout & BENCH_B_KMAJOR ? K : N;
    int opb = layout & BENCH_A_MMAJOR ? CUBLAS_OP_T : CUBLAS_OP_N, ldb = layout & BENCH_A_MMAJOR ? M : K;
    int r;
    switch (mode) {
    case BC_SGEMM:
        r = cb->sgemm(cb->h, opa, opb, N, M, K, &one, a, lda, b, ldb, &zero, c, N);
        break;
    case BC_TF32:
        r = cb->gemmex(cb->h, opa, opb, N, M, K, &one, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &zero, c,
                       CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
        break;
    default:
        r = cb->gemmex(cb->h, opa, opb, N, M, K, &one, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &zero, c,
                       CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        break;
    }
    if (r != 0)
        snprintf(why, n, "cuBLAS gemm: status %d %s", r, cb->status ? cb->status(r) : "");
    return r;
}

void bench_cublas_close(BenchCublas *cb)
{
    if (!cb)
        return;
    if (cb->h)
        cb->destroy(cb->h);
    /* the libraries stay loaded: cuBLAS registers exit handlers */
    free(cb);
}
