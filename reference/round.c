/*
 * TF32 roundings and 16-bit float conversions on bit patterns (see round.h).
 * Pure integer code except where a double is the documented carrier; no
 * dependence on the FPU rounding mode.
 */
#include "reference/round.h"

#include <math.h>

uint32_t tf32_hw_cvt_rna(uint32_t x)
{
    if (f32_bits_nonfinite(x))
        return x & TF32_MASK;
    /* cannot wrap: the largest finite pattern 0xFF7FFFFF + 0x1000 < 2^32 */
    return (x + 0x1000u) & TF32_MASK;
}

/* Round half to even on the low 13 bits; shared by cvt.rn, the sm_80
 * formula and round_tf32 rne. For finite x the sum stays below 2^32. */
static uint32_t rne_finite(uint32_t x) { return (x + 0xFFFu + ((x >> 13) & 1u)) & TF32_MASK; }

uint32_t tf32_hw_cvt_rn(uint32_t x)
{
    if (f32_bits_isnan(x))
        return TF32_CANON_NAN;
    /* Inf: 0x7F800000 + 0xFFF keeps the exponent, so Inf maps to itself */
    return rne_finite(x);
}

uint32_t tf32_hw_cvt_rz(uint32_t x)
{
    if (f32_bits_isnan(x))
        return TF32_CANON_NAN;
    return x & TF32_MASK;
}

uint32_t tf32_tc_read(uint32_t x) { return x & TF32_MASK; }

uint32_t tf32_rne_sm80(uint32_t x)
{
    if (f32_bits_isnan(x))
        return TF32_CANON_NAN;
    if (f32_bits_isinf(x))
        return x;
    return rne_finite(x);
}

uint32_t tf32_round(uint32_t x, TirRound mode)
{
    if (f32_bits_isinf(x))
        return x;
    switch (mode) {
    case ROUND_TRUNC:
        return f32_bits_isnan(x) ? TF32_CANON_NAN : x & TF32_MASK;
    case ROUND_RNE:
        return f32_bits_isnan(x) ? TF32_CANON_NAN : rne_finite(x);
    case ROUND_RNA:
    default:
        if (f32_bits_isnan(x)) {
            /* the hardware would give +-Inf for a low-payload NaN: set the
             * quiet bit so the result stays a NaN (the guard of docs/TIR.md) */
            uint32_t r = x & TF32_MASK;
            return f32_bits_isinf(r) ? r | 0x00400000u : r;
        }
        return (x + 0x1000u) & TF32_MASK;
    }
}

/* ---- 16-bit floats ---------------------------------------------------------- */

/* Rounds a double to a binary format with `mbits` stored mantissa bits and
 * `ebits` exponent bits (IEEE layout, bias 2^(ebits-1) - 1), RNE. The
 * scaled significand n = |x| / quantum is exact in a double (a power-of-two
 * scaling of a value with <= 53 bits), so one explicit tie check rounds it. */
static uint16_t f64_to_small(double x, int mbits, int ebits)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const uint32_t sign = (uint32_t)(b >> 63) << (mbits + ebits);
    const uint32_t expmask = ((1u << ebits) - 1u) << mbits;
    const int bias = (1 << (ebits - 1)) - 1;
    if (isnan(x)) {
        uint32_t payload = (uint32_t)((b & 0x000FFFFFFFFFFFFFull) >> (52 - mbits));
        return (uint16_t)(sign | expmask | payload | (1u << (mbits - 1)));
    }
    double a = fabs(x);
    if (a == 0.0)
        return (uint16_t)sign;
    if (isinf(a))
        return (uint16_t)(sign | expmask);
    int e2;
    (void)frexp(a, &e2); /* a = f * 2^e2, f in [0.5, 1): unbiased exponent e2 - 1 */
    int e = e2 - 1;
    const int emin = 1 - bias;
    if (e > bias)
        return (uint16_t)(sign | expmask);
    if (e < emin)
        e = emin; /* subnormal range: fixed quantum */
    double n = ldexp(a, mbits - e); /* in [2^mbits, 2^(mbits+1)) when normal */
    double fl = floor(n);
    double frac = n - fl;
    uint32_t r = (uint32_t)fl;
    if (frac > 0.5 || (frac == 0.5 && (r & 1u)))
        r++;
    if (r >= (2u << mbits)) { /* rounded up to the next binade */
        r >>= 1;
        e++;
    }
    if (r < (1u << mbits)) /* subnormal (e == emin): exponent field 0 */
        return (uint16_t)(sign | r);
    if (e > bias)
        return (uint16_t)(sign | expmask);
    return (uint16_t)(sign | ((uint32_t)(e + bias) << mbits) | (r - (1u << mbits)));
}

uint16_t f64_to_f16(double x) { return f64_to_small(x, 10, 5); }
uint16_t f64_to_bf16(double x) { return f64_to_small(x, 7, 8); }

uint16_t f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if (f32_bits_isnan(x))
        return (uint16_t)((x >> 16) | 0x0040u);
    return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
    if (exp == 0x1F) /* Inf/NaN: keep the payload at the top of the mantissa */
        return bits_f32(sign | 0x7F800000u | (man << 13));
    if (exp == 0) {
        float v = ldexpf((float)man, -24); /* exact: subnormal = man * 2^-24 */
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

double i64_to_f64_odd(int64_t v)
{
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int shift = 0;
    uint64_t sticky = 0;
    while ((mag >> shift) >= (1ull << 53))
        shift++;
    if (shift) {
        sticky = (mag & ((1ull << shift) - 1)) != 0;
        mag = (mag >> shift) | sticky;
    }
    double d = ldexp((double)mag, shift);
    return v < 0 ? -d : d;
}

double fma_small_odd(double a, double b, double c)
{
    double p = a * b; /* exact: <= 22 significant bits, exponents well in range */
    double s = p + c;
    if (!isfinite(s))
        return s;
    /* TwoSum: err is exactly (p + c) - s */
    double bb = s - p;
    double err = (p - (s - bb)) + (c - bb);
    if (err == 0.0)
        return s;
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    if ((err > 0) != (s > 0))
        bits--; /* the exact value lies between s and the next double toward 0 */
    bits |= 1;  /* round to odd */
    memcpy(&s, &bits, sizeof s);
    return s;
}
