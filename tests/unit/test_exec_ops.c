/*
 * The CPU reference executor's element-wise ops, casts, reductions and
 * inline_ptx emulation (reference/exec_ops.c) against plain C written here
 * (and _Float16 for f16), bit for bit: integer wrap-around and the
 * no-trap rules for division, saturating float->int casts, NaN-propagating
 * min/max, sign-bit neg/abs, the TF32 roundings, ascending-order sums.
 * Dots, memory and control flow: test_exec.c.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/exp_f32.h"
#include "ir/ir.h"
#include "reference/exec.h"
#include "exec_util.h"
#include "reference/round.h"


static int same_bits_or_nan(float a, float b) { return (isnan(a) && isnan(b)) || f32_bits(a) == f32_bits(b); }

/* ---- element-wise, casts, reductions ---- */

static const char *IOPS_SRC =
    "kernel @iops(%X: ptr<i32>, %Y: ptr<i32>, %O: ptr<i32>, %X8: ptr<i64>, %Y8: ptr<i64>, %O8: ptr<i64>) grid(1) {\n"
    "  %vx = view %X [1, 16] strides [16, 1]\n"
    "  %vy = view %Y [1, 16] strides [16, 1]\n"
    "  %vo = view %O [8, 16] strides [16, 1]\n"
    "  %x = load %vx[0, 0] : tile<1x16xi32>\n"
    "  %y = load %vy[0, 0] : tile<1x16xi32>\n"
    "  %r0 = add %x, %y\n  store %r0, %vo[0, 0]\n"
    "  %r1 = sub %x, %y\n  store %r1, %vo[1, 0]\n"
    "  %r2 = mul %x, %y\n  store %r2, %vo[2, 0]\n"
    "  %r3 = div %x, %y\n  store %r3, %vo[3, 0]\n"
    "  %r4 = rem %x, %y\n  store %r4, %vo[4, 0]\n"
    "  %r5 = max %x, %y\n  store %r5, %vo[5, 0]\n"
    "  %r6 = neg %x\n  store %r6, %vo[6, 0]\n"
    "  %r7 = abs %x\n  store %r7, %vo[7, 0]\n"
    "  %wx = view %X8 [1, 16] strides [16, 1]\n"
    "  %wy = view %Y8 [1, 16] strides [16, 1]\n"
    "  %wo = view %O8 [4, 16] strides [16, 1]\n"
    "  %a = load %wx[0, 0] : tile<1x16xi64>\n"
    "  %b = load %wy[0, 0] : tile<1x16xi64>\n"
    "  %q0 = mul %a, %b\n  store %q0, %wo[0, 0]\n"
    "  %q1 = div %a, %b\n  store %q1, %wo[1, 0]\n"
    "  %q2 = rem %a, %b\n  store %q2, %wo[2, 0]\n"
    "  %q3 = min %a, %b\n  store %q3, %wo[3, 0]\n"
    "}\n";

static int64_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

START_TEST(test_int_ops)
{
    int32_t X[16] = {INT32_MIN, INT32_MIN, 7, -7, 7, -7, INT32_MAX, 0, 5, INT32_MAX, -1, 100, 3, INT32_MIN, 1 << 20, 13};
    int32_t Y[16] = {-1, 0, 2, 2, -2, -2, 1, 0, 0, INT32_MAX, INT32_MIN, -3, 3, 1, 1 << 20, -13};
    int64_t X8[16] = {INT64_MIN, INT64_MIN, 7, -7, INT64_MAX, 0, 3, 1ll << 40};
    int64_t Y8[16] = {-1, 0, -2, 2, 2, 0, 0, 1ll << 40};
    int32_t O[128];
    int64_t O8[64];
    TirModule *m = parse_ok(IOPS_SRC);
    void *px = X, *py = Y, *po = O, *px8 = X8, *py8 = Y8, *po8 = O8;
    void *args[] = {&px, &py, &po, &px8, &py8, &po8};
    exec_ok(m, NULL, args, PREC_DEFAULT);
    for (int k = 0; k < 16; k++) {
        int64_t x = X[k], y = Y[k];
        ck_assert_int_eq(O[k], wrap32(x + y));
        ck_assert_int_eq(O[16 + k], wrap32(x - y));
        ck_assert_int_eq(O[32 + k], wrap32(x * y));
        ck_assert_int_eq(O[48 + k], y == 0 ? 0 : wrap32(x / y)); /* MIN / -1 wraps to MIN */
        ck_assert_int_eq(O[64 + k], y == 0 ? 0 : wrap32(x % y));
        ck_assert_int_eq(O[80 + k], x > y ? x : y);
        ck_assert_int_eq(O[96 + k], wrap32(-x));
        ck_assert_int_eq(O[112 + k], wrap32(x < 0 ? -x : x));
        int64_t a = X8[k], b = Y8[k];
        ck_assert_int_eq(O8[k], (int64_t)((uint64_t)a * (uint64_t)b));
        ck_assert_int_eq(O8[16 + k], b == 0 ? 0 : (a == INT64_MIN && b == -1) ? INT64_MIN : a / b);
        ck_assert_int_eq(O8[32 + k], (b == 0 || b == -1) ? 0 : a % b);
        ck_assert_int_eq(O8[48 + k], a < b ? a : b);
    }
    tir_module_free(m);
}
END_TEST

static const char *SCALAR_SRC =
    "kernel @sc(%O: ptr<i32>, %a: i32, %b: i32, %f: f32) grid(1) {\n"
    "  %vo = view %O [1, 8] strides [8, 1]\n"
    "  %c = cdiv %a, %b\n"
    "  %np = num_programs 0\n"
    "  %fi = cast %f : i32\n"
    "  %g = cast %a : f32\n"
    "  %h = mul %g, %f\n"
    "  %hi = cast %h : i32\n"
    "  %l = const 0x100000007 : i64\n"
    "  %li = cast %l : i32\n"
    "  %t0 = splat %c : tile<1x1xi32>\n  store %t0, %vo[0, 0]\n"
    "  %t1 = splat %np : tile<1x1xi32>\n  store %t1, %vo[0, 1]\n"
    "  %t2 = splat %fi : tile<1x1xi32>\n  store %t2, %vo[0, 2]\n"
    "  %t3 = splat %hi : tile<1x1xi32>\n  store %t3, %vo[0, 3]\n"
    "  %t4 = splat %li : tile<1x1xi32>\n  store %t4, %vo[0, 4]\n"
    "}\n";

START_TEST(test_scalars_and_casts)
{
    static const struct {
        int32_t a, b;
        float f;
        int32_t cdiv, fi;
    } cases[] = {
        {7, 2, 2.7f, 4, 2},           {-7, 2, -2.7f, -3, -2},          {6, 3, -0.5f, 2, 0},
        {0, 5, NAN, 0, 0},            {5, 0, INFINITY, 0, INT32_MAX},  {INT32_MIN, -1, -INFINITY, INT32_MIN, INT32_MIN},
        {INT32_MAX, 2, 3e9f, 1073741824, INT32_MAX}, {1, 1, -3e9f, 1, INT32_MIN}, {-1, 3, 2147483520.0f, 0, 2147483520},
    };
    TirModule *m = parse_ok(SCALAR_SRC);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int32_t O[8], a = cases[c].a, b = cases[c].b;
        float f = cases[c].f;
        void *po = O;
        void *args[] = {&po, &a, &b, &f};
        unsigned grid[3] = {1, 1, 1};
        exec_ok(m, grid, args, PREC_DEFAULT);
        ck_assert_int_eq(O[0], cases[c].cdiv);
        ck_assert_int_eq(O[1], 1);
        ck_assert_int_eq(O[2], cases[c].fi);
        float h = (float)a * f;
        int32_t hi = isnan(h) ? 0 : h >= 2147483648.0f ? INT32_MAX : h <= -2147483648.0f ? INT32_MIN : (int32_t)h;
        ck_assert_int_eq(O[3], hi);
        ck_assert_int_eq(O[4], 7); /* i64 -> i32 keeps the low bits */
    }
    tir_module_free(m);
}
END_TEST

static const char *FOPS_SRC =
    "kernel @fops(%X: ptr<f32>, %Y: ptr<f32>, %O: ptr<f32>, %H: ptr<f16>, %G: ptr<bf16>, %I: ptr<i64>) grid(1) {\n"
    "  %vx = view %X [1, 16] strides [16, 1]\n"
    "  %vy = view %Y [1, 16] strides [16, 1]\n"
    "  %vo = view %O [20, 16] strides [16, 1]\n"
    "  %x = load %vx[0, 0] : tile<1x16xf32>\n"
    "  %y = load %vy[0, 0] : tile<1x16xf32>\n"
    "  %r0 = add %x, %y\n  store %r0, %vo[0, 0]\n"
    "  %r1 = sub %x, %y\n  store %r1, %vo[1, 0]\n"
    "  %r2 = mul %x, %y\n  store %r2, %vo[2, 0]\n"
    "  %r3 = div %x, %y\n  store %r3, %vo[3, 0]\n"
    "  %r4 = min %x, %y\n  store %r4, %vo[4, 0]\n"
    "  %r5 = max %x, %y\n  store %r5, %vo[5, 0]\n"
    "  %r6 = neg %x\n  store %r6, %vo[6, 0]\n"
    "  %r7 = abs %x\n  store %r7, %vo[7, 0]\n"
    "  %r8 = sqrt %x\n  store %r8, %vo[8, 0]\n"
    "  %r9 = fma %x, %y, %x\n  store %r9, %vo[9, 0]\n"
    "  %r10 = mask_nonfinite %y, %x\n  store %r10, %vo[10, 0]\n"
    "  %r11 = round_tf32 %x {mode = trunc}\n  store %r11, %vo[11, 0]\n"
    "  %r12 = round_tf32 %x {mode = rna}\n  store %r12, %vo[12, 0]\n"
    "  %r13 = round_tf32 %x {mode = rne}\n  store %r13, %vo[13, 0]\n"
    "  %r14 = inline_ptx \"cvt.rna.tf32.f32 $0, $1;\" %x : tile<1x16xf32>\n  store %r14, %vo[14, 0]\n"
    "  %r15 = inline_ptx \" cvt.rn.tf32.f32\\t$0 ,$1 \" %x : tile<1x16xf32>\n  store %r15, %vo[15, 0]\n"
    "  %r16 = inline_ptx \"cvt.rz.tf32.f32 $0, $1;\" %x : tile<1x16xf32>\n  store %r16, %vo[16, 0]\n"
    "  %r17 = exp %y\n  store %r17, %vo[17, 0]\n"
    "  %h = cast %x : tile<1x16xf16>\n"
    "  %hh = mul %h, %h\n"
    "  %vh = view %H [1, 16] strides [16, 1]\n  store %hh, %vh[0, 0]\n"
    "  %g = cast %x : tile<1x16xbf16>\n"
    "  %vg = view %G [1, 16] strides [16, 1]\n  store %g, %vg[0, 0]\n"
    "  %i = cast %x : tile<1x16xi64>\n"
    "  %vi = view %I [1, 16] strides [16, 1]\n  store %i, %vi[0, 0]\n"
    "  %fi = cast %i : tile<1x16xf32>\n  store %fi, %vo[18, 0]\n"
    "}\n";

START_TEST(test_float_ops)
{
    float X[16] = {1.5f, -2.25f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 3e38f, 1e-40f, bits_f32(0x3F801000u),
                   bits_f32(0x3F803000u), bits_f32(0x7F800001u), 65519.0f, 9.2233720e18f, -1e30f, 7.0f};
    float Y[16] = {2.0f, 0.5f, -0.0f, 0.0f, 1.0f, INFINITY, 1.0f, 3e38f, 1e-40f, -1.0f, NAN, 2.0f, 1.0f, 0.25f,
                   0.0f, -7.0f};
    float O[320];
    uint16_t H[16], G[16];
    int64_t I[16];
    TirModule *m = parse_ok(FOPS_SRC);
    void *px = X, *py = Y, *po = O, *ph = H, *pg = G, *pi = I;
    void *args[] = {&px, &py, &po, &ph, &pg, &pi};
    exec_ok(m, NULL, args, PREC_DEFAULT);
    for (int k = 0; k < 16; k++) {
        float x = X[k], y = Y[k];
        uint32_t u = f32_bits(x);
        ck_assert(same_bits_or_nan(O[k], x + y));
        ck_assert(same_bits_or_nan(O[16 + k], x - y));
        ck_assert(same_bits_or_nan(O[32 + k], x * y));
        ck_assert(same_bits_or_nan(O[48 + k], x / y));
        if (isnan(x) || isnan(y)) { /* max.NaN / min.NaN */
            ck_assert(isnan(O[64 + k]) && isnan(O[80 + k]));
        } else {
            ck_assert(O[64 + k] == fminf(x, y) && O[80 + k] == fmaxf(x, y));
        }
        ck_assert_uint_eq(f32_bits(O[96 + k]), u ^ 0x80000000u); /* sign ops keep NaN payloads */
        ck_assert_uint_eq(f32_bits(O[112 + k]), u & 0x7FFFFFFFu);
        ck_assert(same_bits_or_nan(O[128 + k], sqrtf(x)));
        ck_assert(same_bits_or_nan(O[144 + k], fmaf(x, y, x)));
        ck_assert_uint_eq(f32_bits(O[160 + k]), isfinite(x) ? f32_bits(y) : 0);
        ck_assert_uint_eq(f32_bits(O[176 + k]), tf32_round(u, ROUND_TRUNC));
        ck_assert_uint_eq(f32_bits(O[192 + k]), tf32_round(u, ROUND_RNA));
        ck_assert_uint_eq(f32_bits(O[208 + k]), tf32_round(u, ROUND_RNE));
        ck_assert_uint_eq(f32_bits(O[224 + k]), tf32_hw_cvt_rna(u));
        ck_assert_uint_eq(f32_bits(O[240 + k]), tf32_hw_cvt_rn(u));
        ck_assert_uint_eq(f32_bits(O[256 + k]), tf32_hw_cvt_rz(u));
        ck_assert(same_bits_or_nan(O[272 + k], tir_exp_f32(y))); /* the GPU's sequence: test_exp_f32 */
        /* f16: x rounded to f16, squared, rounded again (checked against _Float16) */
        _Float16 hx = (_Float16)x, hsq = hx * hx;
        uint16_t want;
        memcpy(&want, &hsq, 2);
        if (isnan(x))
            ck_assert((H[k] & 0x7C00) == 0x7C00 && (H[k] & 0x3FF));
        else
            ck_assert_msg(H[k] == want, "f16 %g: 0x%04x vs 0x%04x", x, H[k], want);
        ck_assert(isnan(x) ? isnan(bf16_to_f32(G[k])) : G[k] == f32_to_bf16(x));
        int64_t wi = isnan(x) ? 0 : x >= 0x1p63f ? INT64_MAX : x <= -0x1p63f ? INT64_MIN : (int64_t)x;
        ck_assert_int_eq(I[k], wi);
        ck_assert(O[288 + k] == (float)wi);
    }
    /* the hardware quirk vs the guard, on the low-payload NaN */
    ck_assert_uint_eq(f32_bits(O[224 + 11]), 0x7F800000u);
    ck_assert_uint_eq(f32_bits(O[192 + 11]), 0x7FC00000u);
    ck_assert_uint_eq(f32_bits(O[192 + 9]), 0x3F802000u); /* rna tie away */
    ck_assert_uint_eq(f32_bits(O[208 + 9]), 0x3F800000u); /* rne tie to even */
    ck_assert_uint_eq(f32_bits(O[96 + 3]), 0u);
    tir_module_free(m);
}
END_TEST

/* tilec's exp (ir/exp_f32.h, the reference's and the GPU's) within 0.94 ulp
 * of the double exp: every 4099th f32 bit pattern here (bench/NOTES.md v22:
 * all 2^32 of them, max 0.9386 ulp), and the edges exactly */
START_TEST(test_exp_f32)
{
    double worst = 0;
    for (uint64_t b = 0; b < 0x100000000ull; b += 4099) {
        float x = bits_f32((uint32_t)b), y = tir_exp_f32(x);
        double e = exp((double)x);
        if (isnan(x)) {
            ck_assert(isnan(y));
            continue;
        }
        int ex;
        frexp(e, &ex);
        double ulp = fmax(ldexp(1.0, ex - 24), 0x1p-149);
        if (isinf(y)) /* only where round to nearest overflows too */
            ck_assert_msg(e >= 0x1.fffffep127 * (1 + 0x1p-25), "exp(%a) = inf", x);
        else
            worst = fmax(worst, fabs((double)y - e) / ulp);
    }
    ck_assert_msg(worst < 0.94, "exp: %.4f ulp", worst);
    ck_assert(tir_exp_f32(0.0f) == 1.0f && tir_exp_f32(-0.0f) == 1.0f);
    ck_assert(tir_exp_f32(INFINITY) == INFINITY && tir_exp_f32(-INFINITY) == 0.0f);
    ck_assert(isfinite(tir_exp_f32(88.72283f))); /* ln FLT_MAX = 88.7228391 */
    ck_assert(tir_exp_f32(88.7229f) == INFINITY && tir_exp_f32(-104.0f) == 0.0f);
    ck_assert(tir_exp_f32(-103.9f) == 0x1p-149f); /* the smallest subnormal: 1.35e-45 rounds to it */
    ck_assert_uint_eq(f32_bits(tir_exp_f32(bits_f32(0x7F800001u))), 0x7F800001u); /* NaN as it came */
    ck_assert(tir_exp_f32(1.0f) == 0x1.5bf0a8p+1f); /* e, correctly rounded */
}
END_TEST

START_TEST(test_reduce_broadcast)
{
    static const char *src =
        "kernel @red(%X: ptr<f32>, %O: ptr<f32>) grid(1) {\n"
        "  %vx = view %X [4, 8] strides [8, 1]\n"
        "  %vo = view %O [16, 8] strides [8, 1]\n"
        "  %x = load %vx[0, 0] : tile<4x8xf32>\n"
        "  %s0 = reduce_sum %x {axis = 0} : tile<1x8xf32>\n  store %s0, %vo[0, 0]\n"
        "  %m0 = reduce_max %x {axis = 0} : tile<1x8xf32>\n  store %m0, %vo[1, 0]\n"
        "  %s1 = reduce_sum %x {axis = 1} : tile<4x1xf32>\n  store %s1, %vo[2, 0]\n"
        "  %m1 = reduce_max %x {axis = 1}\n  store %m1, %vo[6, 0]\n"
        "  %b = broadcast %s1 : tile<4x8xf32>\n  store %b, %vo[10, 0]\n"
        "  %one = reduce_sum %s0 {axis = 1} : tile<1x1xf32>\n"
        "  %b1 = broadcast %one : tile<2x8xf32>\n  store %b1, %vo[14, 0]\n"
        "}\n";
    float X[32], O[128];
    for (int k = 0; k < 32; k++)
        X[k] = (float)(k % 7) - 3.0f;
    /* column 0: ascending order gives 1, any other order does not */
    X[0] = 1e8f, X[8] = 1.0f, X[16] = -1e8f, X[24] = 1.0f;
    X[3 * 8 + 5] = NAN;
    TirModule *m = parse_ok(src);
    void *px = X, *po = O;
    void *args[] = {&px, &po};
    exec_ok(m, NULL, args, PREC_DEFAULT);
    ck_assert(O[0] == 1.0f);
    for (int j = 0; j < 8; j++) {
        float s = X[j], mx = X[j];
        for (int i = 1; i < 4; i++) {
            s += X[i * 8 + j];
            mx = isnan(mx) || isnan(X[i * 8 + j]) ? NAN : fmaxf(mx, X[i * 8 + j]);
        }
        ck_assert(same_bits_or_nan(O[j], s));
        ck_assert(isnan(mx) ? isnan(O[8 + j]) : O[8 + j] == mx);
    }
    float total = O[0];
    for (int j = 1; j < 8; j++)
        total += O[j];
    for (int i = 0; i < 4; i++) {
        float s = X[i * 8], mx = X[i * 8];
        for (int j = 1; j < 8; j++) {
            s += X[i * 8 + j];
            mx = isnan(mx) || isnan(X[i * 8 + j]) ? NAN : fmaxf(mx, X[i * 8 + j]);
        }
        ck_assert(same_bits_or_nan(O[(2 + i) * 8], s)); /* Rx1 tiles fill column 0 */
        ck_assert(isnan(mx) ? isnan(O[(6 + i) * 8]) : O[(6 + i) * 8] == mx);
        for (int j = 0; j < 8; j++)
            ck_assert(same_bits_or_nan(O[80 + i * 8 + j], s));
    }
    for (int k = 0; k < 16; k++)
        ck_assert(same_bits_or_nan(O[112 + k], total));
    tir_module_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exec_ops");
    TCase *tc = tcase_create("exec_ops");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_int_ops);
    tcase_add_test(tc, test_scalars_and_casts);
    tcase_add_test(tc, test_float_ops);
    tcase_add_test(tc, test_exp_f32);
    tcase_add_test(tc, test_reduce_broadcast);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
