/*
 * reference/round.c against independent re-statements of the rules in
 * DESIGN.md section 4 and docs/TIR.md "Precision": hand-picked edge bit
 * patterns with their expected results written out, a strided sweep and a
 * few million random patterns. The 16-bit conversions are checked against
 * the compiler's _Float16 and against exact integer arithmetic.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "reference/round.h"

#define M 0xFFFFE000u

/* ---- independent statements of the rules: field arithmetic on the low 13
 * bits instead of the add-and-mask formulas of round.c ---- */

static int is_nan(uint32_t x) { return ((x >> 23) & 0xFF) == 0xFF && (x & 0x7FFFFF) != 0; }
static int is_inf(uint32_t x) { return ((x >> 23) & 0xFF) == 0xFF && (x & 0x7FFFFF) == 0; }

/* magnitude rounding of the low 13 bits; carries ripple into the exponent */
static uint32_t up(uint32_t x) { return (x & M) + 0x2000u; }

static uint32_t ref_hw_rna(uint32_t x)
{
    if (((x >> 23) & 0xFF) == 0xFF)
        return x & M;
    return (x & 0x1FFFu) >= 0x1000u ? up(x) : (x & M);
}

static uint32_t ref_rne_finite(uint32_t x)
{
    uint32_t low = x & 0x1FFFu;
    int odd = (x & 0x2000u) != 0;
    if (low > 0x1000u || (low == 0x1000u && odd))
        return up(x);
    return x & M;
}

static uint32_t ref_hw_rn(uint32_t x) { return is_nan(x) ? 0x7FFFE000u : ref_rne_finite(x); }
static uint32_t ref_hw_rz(uint32_t x) { return is_nan(x) ? 0x7FFFE000u : (x & M); }

static uint32_t ref_round(uint32_t x, TirRound mode)
{
    if (is_inf(x))
        return x;
    if (is_nan(x)) {
        if (mode != ROUND_RNA)
            return 0x7FFFE000u;
        uint32_t r = x & M;
        return is_inf(r) ? (r | 0x00400000u) : r;
    }
    switch (mode) {
    case ROUND_TRUNC: return x & M;
    case ROUND_RNE: return ref_rne_finite(x);
    default: return ref_hw_rna(x);
    }
}

/* Plain comparisons in the hot loops: each ck_assert records a mark point
 * (a write to a pipe in fork mode), far too slow for millions of checks. */
#define EXPECT_EQ(got, want, what, x)                                                                         \
    do {                                                                                                      \
        uint32_t g_ = (got), w_ = (want);                                                                     \
        if (g_ != w_)                                                                                         \
            ck_abort_msg("%s(0x%08x) = 0x%08x, expected 0x%08x", what, (unsigned)(x), (unsigned)g_, (unsigned)w_); \
    } while (0)

static void check_all(uint32_t x)
{
    EXPECT_EQ(tf32_hw_cvt_rna(x), ref_hw_rna(x), "cvt.rna", x);
    EXPECT_EQ(tf32_hw_cvt_rn(x), ref_hw_rn(x), "cvt.rn", x);
    EXPECT_EQ(tf32_hw_cvt_rz(x), ref_hw_rz(x), "cvt.rz", x);
    EXPECT_EQ(tf32_tc_read(x), x & M, "tc_read", x);
    EXPECT_EQ(tf32_rne_sm80(x), ref_hw_rn(x), "rne_sm80", x);
    EXPECT_EQ(tf32_round(x, ROUND_TRUNC), ref_round(x, ROUND_TRUNC), "round_tf32 trunc", x);
    EXPECT_EQ(tf32_round(x, ROUND_RNA), ref_round(x, ROUND_RNA), "round_tf32 rna", x);
    EXPECT_EQ(tf32_round(x, ROUND_RNE), ref_round(x, ROUND_RNE), "round_tf32 rne", x);
}

/* xorshift64*: deterministic random patterns */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* ---- edge patterns with their results written out ---- */

typedef struct {
    uint32_t x, hw_rna, hw_rn, hw_rz, rd_trunc, rd_rna, rd_rne;
} Edge;

static const Edge edges[] = {
    /*  x            cvt.rna      cvt.rn       cvt.rz       trunc        rna          rne */
    {0x3F801000u, 0x3F802000u, 0x3F800000u, 0x3F800000u, 0x3F800000u, 0x3F802000u, 0x3F800000u}, /* tie, even -> down */
    {0x3F803000u, 0x3F804000u, 0x3F804000u, 0x3F802000u, 0x3F802000u, 0x3F804000u, 0x3F804000u}, /* tie, odd -> up */
    {0x3F800FFFu, 0x3F800000u, 0x3F800000u, 0x3F800000u, 0x3F800000u, 0x3F800000u, 0x3F800000u}, /* below tie */
    {0x3F801001u, 0x3F802000u, 0x3F802000u, 0x3F800000u, 0x3F800000u, 0x3F802000u, 0x3F802000u}, /* above tie */
    {0x3F802FFFu, 0x3F802000u, 0x3F802000u, 0x3F802000u, 0x3F802000u, 0x3F802000u, 0x3F802000u},
    {0x3FFFF000u, 0x40000000u, 0x40000000u, 0x3FFFE000u, 0x3FFFE000u, 0x40000000u, 0x40000000u}, /* carry into exponent */
    {0xBF801000u, 0xBF802000u, 0xBF800000u, 0xBF800000u, 0xBF800000u, 0xBF802000u, 0xBF800000u}, /* negative tie */
    {0xBF803000u, 0xBF804000u, 0xBF804000u, 0xBF802000u, 0xBF802000u, 0xBF804000u, 0xBF804000u},
    {0xC0A01801u, 0xC0A02000u, 0xC0A02000u, 0xC0A00000u, 0xC0A00000u, 0xC0A02000u, 0xC0A02000u},
    {0x7F7FFFFFu, 0x7F800000u, 0x7F800000u, 0x7F7FE000u, 0x7F7FE000u, 0x7F800000u, 0x7F800000u}, /* FLT_MAX -> Inf */
    {0xFF7FFFFFu, 0xFF800000u, 0xFF800000u, 0xFF7FE000u, 0xFF7FE000u, 0xFF800000u, 0xFF800000u}, /* -FLT_MAX */
    {0x7F7FF000u, 0x7F800000u, 0x7F800000u, 0x7F7FE000u, 0x7F7FE000u, 0x7F800000u, 0x7F800000u}, /* odd tie at the top */
    {0x7F7FD000u, 0x7F7FE000u, 0x7F7FC000u, 0x7F7FC000u, 0x7F7FC000u, 0x7F7FE000u, 0x7F7FC000u}, /* even tie at the top */
    {0x7F7FEFFFu, 0x7F7FE000u, 0x7F7FE000u, 0x7F7FE000u, 0x7F7FE000u, 0x7F7FE000u, 0x7F7FE000u}, /* largest tf32 stays */
    {0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u}, /* +0 */
    {0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u}, /* -0 */
    {0x00000001u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u}, /* min subnormal */
    {0x00001000u, 0x00002000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00002000u, 0x00000000u}, /* subnormal tie, even */
    {0x00003000u, 0x00004000u, 0x00004000u, 0x00002000u, 0x00002000u, 0x00004000u, 0x00004000u}, /* subnormal tie, odd */
    {0x80001001u, 0x80002000u, 0x80002000u, 0x80000000u, 0x80000000u, 0x80002000u, 0x80002000u},
    {0x007FF000u, 0x00800000u, 0x00800000u, 0x007FE000u, 0x007FE000u, 0x00800000u, 0x00800000u}, /* into min normal */
    {0x7F800000u, 0x7F800000u, 0x7F800000u, 0x7F800000u, 0x7F800000u, 0x7F800000u, 0x7F800000u}, /* +Inf */
    {0xFF800000u, 0xFF800000u, 0xFF800000u, 0xFF800000u, 0xFF800000u, 0xFF800000u, 0xFF800000u}, /* -Inf */
    /* NaNs: payload only in the low 13 bits -> Inf in hardware, kept NaN by round_tf32 rna */
    {0x7F800001u, 0x7F800000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FC00000u, 0x7FFFE000u},
    {0x7F801FFFu, 0x7F800000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FC00000u, 0x7FFFE000u},
    {0xFF801000u, 0xFF800000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0xFFC00000u, 0x7FFFE000u},
    /* NaNs with payload in the high bits stay NaN, low bits dropped */
    {0x7FC00000u, 0x7FC00000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FC00000u, 0x7FFFE000u},
    {0x7F802000u, 0x7F802000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7F802000u, 0x7FFFE000u}, /* signaling */
    {0x7FFFFFFFu, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u},
    {0xFFC01234u, 0xFFC00000u, 0x7FFFE000u, 0x7FFFE000u, 0x7FFFE000u, 0xFFC00000u, 0x7FFFE000u},
};

START_TEST(test_edges)
{
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        const Edge *e = &edges[i];
        ck_assert_msg(tf32_hw_cvt_rna(e->x) == e->hw_rna, "cvt.rna 0x%08x -> 0x%08x", e->x, tf32_hw_cvt_rna(e->x));
        ck_assert_msg(tf32_hw_cvt_rn(e->x) == e->hw_rn, "cvt.rn 0x%08x -> 0x%08x", e->x, tf32_hw_cvt_rn(e->x));
        ck_assert_msg(tf32_hw_cvt_rz(e->x) == e->hw_rz, "cvt.rz 0x%08x", e->x);
        ck_assert_msg(tf32_rne_sm80(e->x) == e->hw_rn, "sm80 rne 0x%08x", e->x);
        ck_assert_msg(tf32_tc_read(e->x) == (e->x & M), "tc read 0x%08x", e->x);
        ck_assert_msg(tf32_round(e->x, ROUND_TRUNC) == e->rd_trunc, "round trunc 0x%08x", e->x);
        ck_assert_msg(tf32_round(e->x, ROUND_RNA) == e->rd_rna, "round rna 0x%08x -> 0x%08x", e->x,
                      tf32_round(e->x, ROUND_RNA));
        ck_assert_msg(tf32_round(e->x, ROUND_RNE) == e->rd_rne, "round rne 0x%08x", e->x);
        check_all(e->x);
    }
}
END_TEST

START_TEST(test_nan_stays_nan)
{
    /* round_tf32 keeps every NaN a NaN and every non-NaN a non-NaN */
    for (uint32_t low = 0; low < 0x800000u; low += 0x7F) {
        for (uint32_t sign = 0; sign < 2; sign++) {
            uint32_t x = (sign << 31) | 0x7F800000u | low;
            for (int mode = 0; mode < ROUND_COUNT; mode++) {
                uint32_t r = tf32_round(x, (TirRound)mode);
                if (low == 0)
                    EXPECT_EQ(r, x, "round_tf32", x);
                else if (!is_nan(r))
                    ck_abort_msg("mode %d 0x%08x -> 0x%08x", mode, x, r);
            }
        }
    }
}
END_TEST

START_TEST(test_values)
{
    /* results are TF32 values (low 13 bits clear) and round to nearest */
    for (uint32_t i = 0; i < 200000; i++) {
        uint32_t x = (uint32_t)rnd64();
        if (((x >> 23) & 0xFF) == 0xFF)
            continue;
        double v = bits_f32(x);
        uint32_t rna = tf32_round(x, ROUND_RNA), rne = tf32_round(x, ROUND_RNE);
        EXPECT_EQ(rna & ~M, 0, "rna low bits", x);
        EXPECT_EQ(rne & ~M, 0, "rne low bits", x);
        uint32_t lo = x & M, hi = up(x);
        double dlo = fabs(v - bits_f32(lo)), dhi = fabs((double)bits_f32(hi) - v);
        uint32_t want = dlo < dhi ? lo : dhi < dlo ? hi : (((lo >> 13) & 1) ? hi : lo);
        if (!is_inf(hi)) /* rounding up past FLT_MAX is covered by the edge table */
            EXPECT_EQ(rne, want, "nearest-even", x);
    }
}
END_TEST

START_TEST(test_strided_sweep)
{
    /* every 61st pattern of the full 2^32 range (70M), all rules */
    for (uint64_t x = (uint64_t)_i; x < (1ull << 32); x += 61 * 4)
        check_all((uint32_t)x);
}
END_TEST

START_TEST(test_random_sweep)
{
    for (int i = 0; i < 4000000; i++)
        check_all((uint32_t)rnd64());
    /* near the ties, where rounding decides */
    for (int i = 0; i < 1000000; i++) {
        uint32_t x = ((uint32_t)rnd64() & M) | (0x1000u + (uint32_t)(rnd64() % 5) - 2u);
        check_all(x);
    }
}
END_TEST

/* ---- 16-bit formats ---- */

static uint16_t ref_f16(float f)
{
    _Float16 h = (_Float16)f;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

START_TEST(test_f16_vs_compiler)
{
    for (uint64_t x = (uint64_t)_i; x < (1ull << 32); x += 97 * 2) {
        float f = bits_f32((uint32_t)x);
        uint16_t got = f32_to_f16(f), want = ref_f16(f);
        if (isnan(f)) {
            if ((got & 0x7C00u) != 0x7C00u || !(got & 0x3FFu) || (got >> 15) != ((uint32_t)x >> 31))
                ck_abort_msg("NaN 0x%08x -> 0x%04x", (uint32_t)x, got);
        } else {
            EXPECT_EQ(got, want, "f32_to_f16", x);
        }
    }
    for (uint32_t h = 0; h < 65536; h++) {
        _Float16 hh;
        uint16_t u = (uint16_t)h;
        memcpy(&hh, &u, 2);
        float want = (float)hh, got = f16_to_f32(u);
        if (isnan(want))
            ck_assert(isnan(got));
        else
            ck_assert_uint_eq(f32_bits(got), f32_bits(want));
        if (!isnan(got))
            ck_assert_uint_eq(f32_to_f16(got), u); /* round trip */
    }
}
END_TEST

START_TEST(test_bf16)
{
    /* two independent routes: the generic double rounding and the bit trick */
    for (uint64_t x = (uint64_t)_i; x < (1ull << 32); x += 89 * 2) {
        float f = bits_f32((uint32_t)x);
        uint16_t a = f64_to_bf16((double)f), b = f32_to_bf16(f);
        if (isnan(f)) {
            if (!isnan(bf16_to_f32(a)) || !isnan(bf16_to_f32(b)))
                ck_abort_msg("bf16 NaN 0x%08x", (uint32_t)x);
        } else {
            EXPECT_EQ(a, b, "f64_to_bf16 vs f32_to_bf16", x);
        }
    }
    ck_assert_uint_eq(f32_to_bf16(1.0f), 0x3F80);
    ck_assert_uint_eq(f32_to_bf16(bits_f32(0x3F808000u)), 0x3F80); /* tie to even */
    ck_assert_uint_eq(f32_to_bf16(bits_f32(0x3F818000u)), 0x3F82);
    ck_assert_uint_eq(f32_to_bf16(bits_f32(0x7F7FFFFFu)), 0x7F80); /* overflow */
    ck_assert_uint_eq(bf16_to_f32(0xC040) == -3.0f, 1);
}
END_TEST

START_TEST(test_int_to_small)
{
    static const int64_t fixed[] = {0, 1, -1, 2047, 2049, 65504, 65519, 65520, -65520, INT64_MAX, INT64_MIN,
                                    (1ll << 53) + 1, (1ll << 60) + (1ll << 36) + 1, -(1ll << 62) - 3};
    for (int i = 0; i < 2000000 + (int)(sizeof fixed / sizeof fixed[0]); i++) {
        int64_t v;
        if (i < (int)(sizeof fixed / sizeof fixed[0]))
            v = fixed[i];
        else
        {
            uint64_t u = rnd64() >> (rnd64() % 64);
            v = (int64_t)((rnd64() & 1) ? 0 - u : u); /* wraps, no signed overflow */
        }
        double d = i64_to_f64_odd(v);
        EXPECT_EQ(f32_bits((float)d), f32_bits((float)v), "i64 -> f32 via odd double", (uint32_t)v); /* C's is RNE */
        _Float16 h = (_Float16)v;
        uint16_t want;
        memcpy(&want, &h, 2);
        if (f64_to_f16(d) != want)
            ck_abort_msg("%lld -> 0x%04x want 0x%04x", (long long)v, f64_to_f16(d), want);
    }
}
END_TEST

/* exact f16/bf16 fma through 128-bit integers, units of 2^-300 being too
 * wide: f16 values are multiples of 2^-24, so a*b + c is a multiple of 2^-48 */
START_TEST(test_fma_small)
{
    for (int i = 0; i < 1000000; i++) {
        uint16_t ha = (uint16_t)rnd64(), hb = (uint16_t)rnd64(), hc = (uint16_t)rnd64();
        float a = f16_to_f32(ha), b = f16_to_f32(hb), c = f16_to_f32(hc);
        if (!isfinite(a) || !isfinite(b) || !isfinite(c))
            continue;
        __int128 ia = (__int128)ldexp(a, 24), ib = (__int128)ldexp(b, 24), ic = (__int128)ldexp(c, 24);
        __int128 exact = ia * ib + ic * ((__int128)1 << 24); /* units of 2^-48 */
        /* round the exact integer to f16: scale to 53 bits with a sticky bit */
        int neg = exact < 0;
        unsigned __int128 mag = neg ? (unsigned __int128)(-exact) : (unsigned __int128)exact;
        int sh = 0;
        while ((mag >> sh) >= ((unsigned __int128)1 << 53))
            sh++;
        uint64_t t = (uint64_t)(mag >> sh) | (sh && (mag & (((unsigned __int128)1 << sh) - 1)) ? 1 : 0);
        double ref = ldexp((double)t, sh - 48);
        uint16_t want = f64_to_f16(neg ? -ref : ref);
        uint16_t got = f64_to_f16(fma_small_odd(a, b, c));
        if (exact == 0 ? (got & 0x7FFF) != 0 : got != want)
            ck_abort_msg("fma(%a,%a,%a): 0x%04x want 0x%04x", a, b, c, got, want);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("round");
    TCase *tc = tcase_create("tf32");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_edges);
    tcase_add_test(tc, test_nan_stays_nan);
    tcase_add_test(tc, test_values);
    tcase_add_loop_test(tc, test_strided_sweep, 0, 4);
    tcase_add_test(tc, test_random_sweep);
    suite_add_tcase(s, tc);
    TCase *t16 = tcase_create("f16");
    tcase_set_timeout(t16, 300);
    tcase_add_loop_test(t16, test_f16_vs_compiler, 0, 2);
    tcase_add_loop_test(t16, test_bf16, 0, 2);
    tcase_add_test(t16, test_int_to_small);
    tcase_add_test(t16, test_fma_small);
    suite_add_tcase(s, t16);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
