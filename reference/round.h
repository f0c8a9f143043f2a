/*
 * Bit-exact CPU emulation of the fp32 -> TF32 roundings tilec cares about,
 * and RNE conversions between f32/f64 and the 16-bit float formats.
 *
 * Everything works on raw IEEE-754 bit patterns (uint32 for f32, uint16 for
 * f16/bf16) so NaN payloads, signed zeros and subnormals are reproduced
 * exactly; nothing depends on the host's rounding mode or FTZ/DAZ flags.
 *
 * Two families, kept apart on purpose:
 *   tf32_hw_*      what one PTX instruction does on the H200, quirks included
 *                  (measured over all 2^32 inputs, docs/../DESIGN.md section 4);
 *   tf32_round()   the semantics of tilec's `round_tf32` op (docs/TIR.md,
 *                  "Precision"): the hardware rule plus a NaN guard that
 *                  keeps a NaN a NaN.
 */
#ifndef TILEC_REFERENCE_ROUND_H
#define TILEC_REFERENCE_ROUND_H

#include <stdint.h>
#include <string.h>

#include "ir/ir.h"

/* The 19 bits a TF32 value keeps: sign, 8 exponent bits, 10 mantissa bits. */
#define TF32_MASK 0xFFFFE000u
/* The NaN cvt.rn / cvt.rz produce for any NaN input. */
#define TF32_CANON_NAN 0x7FFFE000u
/* The NaN the tensor cores and CUDA-core f32 arithmetic produce. */
#define F32_CANON_NAN 0x7FFFFFFFu

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline int f32_bits_isnan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }
static inline int f32_bits_isinf(uint32_t x) { return (x & 0x7FFFFFFFu) == 0x7F800000u; }
/* exponent field all ones: Inf or NaN */
static inline int f32_bits_nonfinite(uint32_t x) { return (x & 0x7F800000u) == 0x7F800000u; }

/* ---- single PTX instructions, bit for bit ---------------------------------- */

/* cvt.rna.tf32.f32: round half away from zero. Inf/NaN -> x & M, so a NaN
 * whose payload lies only in the low 13 bits becomes +-Inf (hardware quirk).
 * Finite values near FLT_MAX round to +-Inf. */
uint32_t tf32_hw_cvt_rna(uint32_t x);
/* cvt.rn.tf32.f32 (sm_90 only): round half to even; NaN -> 0x7FFFE000. */
uint32_t tf32_hw_cvt_rn(uint32_t x);
/* cvt.rz.tf32.f32: truncate; NaN -> 0x7FFFE000. */
uint32_t tf32_hw_cvt_rz(uint32_t x);
/* What mma.sync / wgmma with .tf32 operands read from a raw f32 register:
 * x & M (truncation; a low-payload NaN reads as +-Inf; subnormals kept). */
uint32_t tf32_tc_read(uint32_t x);

/* The sm_80 lowering of round-half-even, in plain 32-bit integer ops (sm_80
 * has no cvt.rn.tf32.f32): NaN -> 0x7FFFE000; Inf -> x; otherwise
 * (x + 0xFFF + ((x >> 13) & 1)) & M. Kept as its own function so a GPU test
 * can compare the generated code against it over all 2^32 patterns. */
uint32_t tf32_rne_sm80(uint32_t x);

/* ---- tilec's round_tf32 op ------------------------------------------------- */

/* round_tf32 {mode = trunc|rna|rne} on one f32 bit pattern (docs/TIR.md):
 *   trunc: finite x & M;                    Inf x; NaN 0x7FFFE000
 *   rna:   finite (x + 0x1000) & M;         Inf x; NaN x & M, quiet bit set if that is Inf
 *   rne:   finite (x + 0xFFF + lsb) & M;    Inf x; NaN 0x7FFFE000
 * An out-of-range mode is treated as rna (the compile default). */
uint32_t tf32_round(uint32_t x, TirRound mode);
static inline float tf32_round_f(float x, TirRound mode) { return bits_f32(tf32_round(f32_bits(x), mode)); }

/* ---- 16-bit floats ----------------------------------------------------------- */

/* Round to nearest even, overflow to +-Inf, gradual underflow; NaN stays a
 * quiet NaN keeping the sign and the top payload bits. Exact for every
 * double input (a single rounding), so f32 -> f16 through these is exact too. */
uint16_t f64_to_f16(double x);
uint16_t f64_to_bf16(double x);
static inline uint16_t f32_to_f16(float x) { return f64_to_f16((double)x); }
uint16_t f32_to_bf16(float x);
/* Exact widenings. */
float f16_to_f32(uint16_t h);
static inline float bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

/* An int64 as a double rounded to odd (truncate, then set the last bit if
 * anything was dropped). 53 bits >= p + 2 for p = 24, 11, 8, so rounding this
 * double once more to f32/f16/bf16 gives the correctly rounded (RNE) result. */
double i64_to_f64_odd(int64_t v);

/* fma(a, b, c) for operands that are f16/bf16 values (widened), returned as a
 * double rounded to odd so that one more rounding to f16/bf16 is exact. The
 * product of two such values is exact in a double. */
double fma_small_odd(double a, double b, double c);

#endif
