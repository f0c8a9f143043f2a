/*
 * Helpers for the GPU tests (tests/gpu/test_*.c): open a runtime or skip,
 * compile-and-load with the log on failure, deterministic random data,
 * poisoned buffers, tolerant comparison and an fp64 host GEMM.
 *
 * Test programs may exit: every helper here that cannot go on prints why
 * and exits 1 (failure) or 77 (skip, the ctest SKIP_RETURN_CODE), so that a
 * test body reads as a straight line of steps.
 */
#ifndef TILEC_GPU_COMMON_H
#define TILEC_GPU_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "tilec.h"

/* The runtime for device $TILEC_DEVICE (default 0), or exit(77) with
 * "SKIP: <reason>" when there is no driver or no such device. */
tilecRuntime gpu_open(void);
void gpu_close(tilecRuntime *rt);

/* Fails the test (exit 1) unless r is TILEC_SUCCESS, printing what was
 * being done, the result name and the runtime's log (rt may be NULL). */
void gpu_check_at(tilecResult r, tilecRuntime rt, const char *what, const char *file, int line);
#define GPU_CHECK(rt, call) gpu_check_at((call), (rt), #call, __FILE__, __LINE__)

/* Compiles NUL-terminated src with opts and loads it; on failure prints the
 * program's or the runtime's log and exits 1. TILEC_TEST_LOAD=source loads
 * through tilecModuleLoadSource instead (the JIT's own options: its
 * TMA-only kernels and their fallback, docs/TIR.md "The JIT's default"). */
tilecModule gpu_load(tilecRuntime rt, const char *src, const char *name, int nopts, const char *const *opts);
enum { GPU_MAX_COPTS = 16 }; /* options gpu_load_copts() passes beyond its first two */
/* The space-separated options of TILEC_TEST_COPT, then of extra (may be
 * NULL), split in buf (size bytes) into all[0..max); returns how many. More
 * than max options, or more text than buf holds, fail the test (exit 1):
 * none is dropped quietly. */
int gpu_copts(char *buf, size_t size, const char *extra, const char **all, int max);
/* gpu_load() with opts (at most 2), then gpu_copts()' options (extra's and
 * TILEC_TEST_COPT's, at most GPU_MAX_COPTS). */
tilecModule gpu_load_copts(tilecRuntime rt, const char *src, const char *name, int nopts, const char *const *opts,
                           const char *extra);

/* Device buffers: allocation that cannot fail quietly. */
tilecDevicePtr gpu_alloc(tilecRuntime rt, size_t bytes);
tilecDevicePtr gpu_upload(tilecRuntime rt, const void *host, size_t bytes);
void gpu_download(tilecRuntime rt, void *host, tilecDevicePtr dev, size_t bytes);
/* Fills with 0xFF bytes: NaN as f32, -1 as integers, so unwritten
 * elements stand out. */
void gpu_poison(tilecRuntime rt, tilecDevicePtr dev, size_t bytes);
void gpu_poison_host(void *p, size_t bytes);

/* Deterministic pseudo-random data (splitmix64); the same seed gives the
 * same numbers everywhere. */
uint64_t gpu_rand_next(uint64_t *state);
void gpu_fill_f32(float *p, size_t n, uint64_t seed, float lo, float hi);
void gpu_fill_i32(int32_t *p, size_t n, uint64_t seed, int32_t lo, int32_t hi);

/* Counts elements where |got - want| > atol + rtol * |want| (NaN in got
 * always counts, NaN in want matches only NaN); prints the first few with
 * their (row, col) for a matrix of `cols` columns (cols 0 = a vector).
 * Also prints the largest absolute and relative error under `what`. */
size_t gpu_compare_f32(const char *what, const float *got, const double *want, size_t n, size_t cols, double atol,
                       double rtol);

/* The error a GEMM of f32 inputs may have per element of C in `precision`
 * (tf32-trunc, tf32-rna, tf32-rne, 3xtf32, ieee; K products), as a
 * fraction of sum_k |a||b|: f32 accumulation, plus the inputs' rounding. */
double gpu_gemm_tolerance(const char *precision, int K);

/* C[m][n] = sum_k A[m][k] * B[k][n] in double, from f32 row-major inputs
 * with leading dimensions lda, ldb; C has leading dimension ldc. */
void gpu_gemm_f64(int M, int N, int K, const float *A, int lda, const float *B, int ldb, double *C, int ldc);
/* Rounds an f32 to TF32 the way round_tf32 {mode = rna} does. */
float gpu_round_tf32_rna(float x);

/* The length of rt's log now, and whether it gained s since such a mark
 * (a note of the launches in between). */
size_t gpu_log_mark(tilecRuntime rt);
int gpu_log_has_since(tilecRuntime rt, size_t mark, const char *s);

/* The whole file at path, NUL-terminated (free() it); NULL where it cannot
 * be read. */
char *gpu_read_file(const char *path);

/* Milliseconds on a monotonic clock. */
double gpu_now_ms(void);

#endif
