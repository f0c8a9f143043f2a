/*
 * exp on f32, as tilec defines it: the sequence the lowering emits
 * (compiler/lower_ewise.c) and the reference executor computes (this
 * function), so the GPU's result and the CPU's are the same bits. Every step
 * is an IEEE-exact operation on both (multiply, fma, round to integer,
 * exponent bits), none an approximation unit: over all 2^32 inputs the
 * result is within 0.94 ulp of exp (faithfully rounded; checked against
 * the double exp on the CPU, bench/NOTES.md v22), where ex2.approx(x *
 * log2 e) was 2 + 1.17 |x| ulp off (63 ulp at x = 86).
 *
 *   x clamped to [-104, 89]  (exp is 0 below, inf above; NaN passes)
 *   t = rint(x * log2 e)     |t| <= 150
 *   r = x - t ln2            ln2 in two parts (Cody and Waite): t * LN2_HI
 *                            is exact (LN2_HI has 15 significant bits)
 *   p = exp(r)               |r| <= 0.35: Taylor to degree 7 (truncation
 *                            5e-9 relative), Horner with fma
 *   p * 2^(t >> 1) * 2^(t - (t >> 1))   two exact scalings, each factor a
 *                            normal number; the last rounds once where the
 *                            result is subnormal
 */
#ifndef TILEC_IR_EXP_F32_H
#define TILEC_IR_EXP_F32_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define TIR_EXP_LO (-104.0f)
#define TIR_EXP_HI 89.0f
enum {
    TIR_EXP_LOG2E = 0x3fb8aa3b,  /* 1.44269502 */
    TIR_EXP_LN2_HI = 0x3f317200, /* 0.693145752 */
    TIR_EXP_LN2_LO = 0x35bfbe8e, /* 1.42860677e-6 = ln 2 - LN2_HI */
    TIR_EXP_DEGREE = 7,
};
/* 1/k!, k = 0..7, as f32 bits */
static const uint32_t tir_exp_coef[TIR_EXP_DEGREE + 1] = {0x3f800000, 0x3f800000, 0x3f000000, 0x3e2aaaab,
                                                          0x3d2aaaab, 0x3c088889, 0x3ab60b61, 0x39500d01};

static inline float tir_exp_bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline float tir_exp_f32(float x)
{
    if (x != x)
        return x;
    float xc = x < TIR_EXP_LO ? TIR_EXP_LO : x > TIR_EXP_HI ? TIR_EXP_HI : x;
    float t = rintf(xc * tir_exp_bits_f32(TIR_EXP_LOG2E));
    float r = fmaf(t, -tir_exp_bits_f32(TIR_EXP_LN2_HI), xc);
    r = fmaf(t, -tir_exp_bits_f32(TIR_EXP_LN2_LO), r);
    float p = tir_exp_bits_f32(tir_exp_coef[TIR_EXP_DEGREE]);
    for (int k = TIR_EXP_DEGREE - 1; k >= 0; k--)
        p = fmaf(p, r, tir_exp_bits_f32(tir_exp_coef[k]));
    int32_t k = (int32_t)t, k1 = k >= 0 ? k / 2 : -((1 - k) / 2), k2 = k - k1; /* k1 = floor(k / 2), shr.s32 */
    float s1 = tir_exp_bits_f32((uint32_t)(k1 + 127) << 23), s2 = tir_exp_bits_f32((uint32_t)(k2 + 127) << 23);
    return (p * s1) * s2;
}

#endif
