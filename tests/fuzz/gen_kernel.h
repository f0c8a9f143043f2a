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

#endif
