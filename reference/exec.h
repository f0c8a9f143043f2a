/*
 * The CPU reference executor of the tile IR: runs a kernel of a module on
 * the host with exactly the semantics of docs/TIR.md, so the precision
 * semantics (and everything else) can be tested where there is no GPU.
 *
 * Bit-exact where the IR is: element-wise ops, casts, loads/stores, the
 * TF32 roundings (reference/round.h). `dot` accumulates in f32 in ascending
 * k order starting from c, acc = fmaf(a', b', acc), with a'/b' the operands
 * as the tensor core sees them for the dot's precision; the GPU sums in
 * another order, so results agree with it to rounding, not bit for bit.
 */
#ifndef TILEC_REFERENCE_EXEC_H
#define TILEC_REFERENCE_EXEC_H

#include <stdint.h>

#include "ir/ir.h"

/* Host memory the executor may hold for tile values of one run. */
#define TIR_EXEC_MAX_BYTES ((size_t)1 << 30)

/* Runs kernel number `kernel` of m over every program of the grid, one
 * after the other (axis 0 fastest). grid NULL = the kernel's grid(...)
 * attribute (an error if it has none); each size at most 2^31-1, and 0
 * along any axis runs no program (as tilecLaunch launches nothing), the
 * arguments still checked. args[i] points to the value of
 * parameter i: a `void *` host pointer for ptr<...> parameters, an int32_t,
 * int64_t or float for scalars. default_precision is the compile option for
 * dots without a precision attribute (PREC_DEFAULT there means tf32-rna).
 *
 * The module is verified first. Returns 0 on success; otherwise nonzero with
 * an explanation appended to err (unsupported inline_ptx, bad arguments, an
 * invalid module, too much memory). Never exits, aborts or raises a signal
 * for any input data; memory a view reaches must be valid host memory,
 * exactly as on the GPU. */
int tir_exec(const TirModule *m, uint32_t kernel, const unsigned grid[3], void **args,
             TirPrecision default_precision, StrBuf *err);

#endif
