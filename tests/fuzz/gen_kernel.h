/*
 * A .tir kernel generator for fuzz_compile: turns arbitrary bytes into a
 * well-typed kernel (loads, element-wise ops, casts, reductions,
 * broadcasts, dots of every precision, loops carrying tiles, inline PTX,
 * stores), so that every such input reaches the passes, the lowering and
 * LLVM instead of stopping in the parser. The bytes are read as a stream of
 * choices; when they run out every choice is 0, so any input gives a
 * kernel. Tiles stay at most 64 elements per thread, so compiles are fast.
 */
#ifndef TILEC_GEN_KERNEL_H
#define TILEC_GEN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

/* Appends the kernel generated from data to out. */
void gen_kernel(const uint8_t *data, size_t size, StrBuf *out);

/* The same, for running (tests/gpu/test_random.c): no inline PTX (the
 * reference executor has none) and loops of at most 6 iterations with
 * literal bounds, so that the CPU and an interpreter run it in moments;
 * exact: no dot and no reduce_sum either (float sums, whose order the GPU
 * need not keep), so that the GPU must give the executor's bits. The
 * kernel is always
 *   kernel @gen(%I: ptr<i32>, %L: ptr<i64>, %H: ptr<f16>, %B: ptr<bf16>,
 *               %X: ptr<f32>, %s: f32, %n: i32) warps(W)
 * over five views of the n x 256 elements each pointer has (row-major,
 * transposed, every other column or a column short), one per pointer. */
void gen_kernel_runnable(const uint8_t *data, size_t size, int exact, StrBuf *out);

/* A runnable kernel that starts with a GEMM loop in a tile the sm_90a wgmma
 * pipelines take (f32 over X, or f16/bf16), then the generator's ops on its
 * accumulator and the rest: the pipelines' epilogues (consumer warps only,
 * named barriers, shared memory above the ring) meet everything else. */
void gen_kernel_gemm(const uint8_t *data, size_t size, StrBuf *out);

#endif
