/*
 * Shared pieces of the GEMM benchmark (bench_gemm.c): the vendor libraries
 * loaded at run time (bench_libs.c) and the compile-time measurements
 * (bench_compile.c). Benchmark code: helpers report failures through a
 * message buffer and a nonzero return; only main() decides to exit.
 */
#ifndef TILEC_BENCH_H
#define TILEC_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "tilec.h"

/* ---- small utilities (bench_compile.c) ---- */

double bench_now_ms(void);                 /* monotonic clock */
double bench_median(double *v, int n);     /* sorts v */
/* Removes a directory tree made by the benchmark (mkdtemp). */
void bench_rmtree(const char *dir);

/* The tile-GEMM source for one configuration: row-major A[M,K], B[K,N],
 * C[M,N] with runtime row strides, one bm x bn tile of C per program, K in
 * steps of bk. elem is "f32" or "bf16". group > 0: a 1-D grid of tiles taken
 * in groups of `group` rows of tiles, column by column (Triton's grouped
 * order: the tiles running at once share A's and B's panels in L2); else a
 * 2-D grid (x: rows of tiles). layout: BENCH_B_KMAJOR, B stored N x K (its
 * view's strides [1, %ldb]); BENCH_A_MMAJOR, A stored K x M (strides [1,
 * %lda]). Returns the length written. */
enum { BENCH_B_KMAJOR = 1, BENCH_A_MMAJOR = 2 };
int bench_gemm_source(char *buf, size_t size, const char *elem, int bm, int bn, int bk, int warps, int group,
                      unsigned layout);

/* ---- libcuda bits and cuBLAS (bench_libs.c) ---- */

/* Makes the primary context of `device` current on this thread, so that
 * cuBLAS (which carries its own CUDA runtime) works in the context tilec
 * uses and shares its legacy default stream; also reads the L2 size.
 * 0 on success; else why holds the reason. */
int bench_cuda_setup(int device, size_t *l2_bytes, char *why, size_t n);
void bench_cuda_teardown(void);

typedef enum { BC_SGEMM, BC_TF32, BC_BF16 } BenchCublasMode;
typedef struct BenchCublas BenchCublas;

/* dlopens libcublas ($TILEC_BENCH_CUBLAS, then libcublas.so.13 / .so.12 on
 * the loader's path, then /usr/local/cuda/lib64) and creates a handle. */
int bench_cublas_open(BenchCublas **cb, char *why, size_t n);
const char *bench_cublas_name(const BenchCublas *cb); /* "cuBLAS 130000 (path)" */
/* Row-major C[M,N] = A[M,K] B[K,N] on the legacy default stream. A and B
 * are f32 (SGEMM, TF32) or bf16 (BF16); C is f32. layout (bench_gemm_source's):
 * B stored N x K (row-major B^T), A stored K x M (row-major A^T). */
int bench_cublas_gemm(BenchCublas *cb, BenchCublasMode mode, int M, int N, int K, uint64_t A, uint64_t B,
                      uint64_t C, unsigned layout, char *why, size_t n);
void bench_cublas_close(BenchCublas *cb);

/* ---- compile time (bench_compile.c) ---- */

typedef struct {
    char what[128];
    double ms_median, ms_min, ms_first;
    int runs;
    char note[160];
} CompileTime;

/* What a compile-time measurement compiles, runs times: src (a
 * NUL-terminated .tir source) with --arch, --precision and the extra
 * options (bench_gemm's --copt), which the rows' names carry. */
typedef struct {
    const char *src, *arch, *precision;
    const char *const *extra;
    int nextra, runs;
} BenchCompile;

/* Each appends its rows to out[*n] (at most max in all) and returns 0, or
 * -1 with the reason in why.
 * Whole `tilec` processes (fork/exec; output to /dev/null). */
int bench_compile_process(const char *tilec, const BenchCompile *c, CompileTime *out, int *n, int max, char *why,
                          size_t wn);
/* tilecCreateProgram + tilecCompileProgram in this process (no GPU). */
int bench_compile_inprocess(const BenchCompile *c, CompileTime *out, int *n, int max, char *why, size_t wn);
/* tilecModuleLoadSource (compile + driver link + load): cold (a fresh
 * cache directory and runtime each run), warm from the disk cache (a new
 * runtime on the same directory) and warm from the runtime's memory. */
int bench_compile_jit(int device, const BenchCompile *c, CompileTime *out, int *n, int max, char *why, size_t wn);

#endif
