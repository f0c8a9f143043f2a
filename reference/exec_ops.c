/*
 * The reference executor's computing ops: element-wise arithmetic, casts,
 * splat/broadcast, reductions, dot with every precision mode, and the
 * inline_ptx templates the CPU can emulate.
 *
 * Needs: a verified module (operand types as typecheck.c guarantees).
 * Guarantees: integer arithmetic wraps and never traps (x / 0 = x % 0 = 0,
 * MIN / -1 = MIN, MIN % -1 = 0); f16/bf16 arithmetic equals the correctly
 * rounded result (computed in f32, which is exact enough for + - * / sqrt:
 * 24 >= 2p + 2 bits; fma through a round-to-odd double); float -> int casts
 * truncate, saturate and send NaN to 0 without undefined behaviour. exp is
 * tilec's (ir/exp_f32.h), the GPU's sequence: the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/exp_f32.h"
#include "reference/exec_impl.h"

static float canon_nan(void) { return bits_f32(F32_CANON_NAN); }

/* ---- element-wise ---- */

/* max.NaN.f32 / min.NaN.f32: NaN if either is NaN; -0 < +0. */
static float fmax_nan(float a, float b)
{
    if (isnan(a) || isnan(b))
        return canon_nan();
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}
static float fmin_nan(float a, float b)
{
    if (isnan(a) || isnan(b))
        return canon_nan();
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static float float_op(TirOp op, float a, float b, float c)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_MIN: return fmin_nan(a, b);
    case OP_MAX: return fmax_nan(a, b);
    case OP_EXP: return tir_exp_f32(a);
    case OP_SQRT: return sqrtf(a);
    case OP_FMA: return fmaf(a, b, c);
    default: return 0.0f; /* not reached for verified modules */
    }
}

/* Integer ops in 64 bits; the caller's store truncates i32 results, which
 * is exactly i32 wrapping because every i32 operand fits in 64 bits. */
static int64_t int_op(TirOp op, int64_t a, int64_t b, int is64)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    const int64_t min = is64 ? INT64_MIN : INT32_MIN;
    switch (op) {
    case OP_ADD: return (int64_t)(ua + ub);
    case OP_SUB: return (int64_t)(ua - ub);
    case OP_MUL: return (int64_t)(ua * ub);
    case OP_DIV:
        if (b == 0)
            return 0;
        if (a == min && b == -1)
            return min;
        return a / b;
    case OP_REM:
        if (b == 0 || b == -1)
            return 0;
        return a % b;
    case OP_CDIV: {
        if (b == 0)
            return 0;
        if (a == min && b == -1)
            return min; /* 2^63 (2^31) wraps like div */
        int64_t q = a / b, r = a % b;
        return q + (r != 0 && ((r > 0) == (b > 0)));
    }
    case OP_MIN: return a < b ? a : b;
    case OP_MAX: return a > b ? a : b;
    case OP_NEG: return (int64_t)(0 - ua);
    case OP_ABS: return a < 0 ? (int64_t)(0 - ua) : a;
    default: return 0;
    }
}

/* the raw bits of element k (for sign-bit ops and mask_nonfinite) */
static uint32_t raw_bits(const Slot *s, size_t k)
{
    size_t j = s->n == 1 ? 0 : k;
    if (s->elem == ELEM_F16 || s->elem == ELEM_BF16)
        return ((const uint16_t *)s->data)[j];
    uint32_t u;
    memcpy(&u, (const char *)s->data + j * 4, 4);
    return u;
}
static void put_raw(Slot *s, size_t k, uint32_t u)
{
    if (s->elem == ELEM_F16 || s->elem == ELEM_BF16)
        ((uint16_t *)s->data)[k] = (uint16_t)u;
    else
        memcpy((char *)s->data + k * 4, &u, 4);
}

int exec_ewise(Exec *e, const TirInst *in)
{
    const TirModule *m = e->m;
    const uint32_t *a = tir_args(m, in);
    TirOp op = (TirOp)in->op;
    const Slot *x = exec_slot(e, a[0]);
    const Slot *y = in->nargs > 1 ? exec_slot(e, a[1]) : x;
    const Slot *z = in->nargs > 2 ? exec_slot(e, a[2]) : x;
    Slot *d = exec_def(e, in, in->result);
    if (!d)
        return -1;
    uint32_t n = d->n;
    int is16 = d->elem == ELEM_F16 || d->elem == ELEM_BF16;
    uint32_t sign = is16 ? 0x8000u : 0x80000000u;
    if (!tir_elem_is_float((TirElem)d->elem)) {
        int is64 = d->elem == ELEM_I64;
        for (uint32_t k = 0; k < n; k++)
            slot_puti(d, k, int_op(op, slot_geti(x, k), slot_geti(y, k), is64));
        return 0;
    }
    switch (op) {
    case OP_NEG: /* sign-bit operations, as neg.f32 / abs.f32: NaN payloads kept */
    case OP_ABS:
        for (uint32_t k = 0; k < n; k++)
            put_raw(d, k, op == OP_NEG ? raw_bits(x, k) ^ sign : raw_bits(x, k) & ~sign);
        return 0;
    case OP_MASK_NONFINITE: /* isfinite(x) ? v : 0, v copied bit for bit */
        for (uint32_t k = 0; k < n; k++)
            put_raw(d, k, isfinite(slot_getf(y, k)) ? raw_bits(x, k) : 0);
        return 0;
    case OP_ROUND_TF32:
        for (uint32_t k = 0; k < n; k++)
            put_raw(d, k, tf32_round(raw_bits(x, k), (TirRound)in->ival));
        return 0;
    case OP_FMA:
        if (is16) {
            /* one rounding: exact product, round-to-odd sum, then RNE */
            for (uint32_t k = 0; k < n; k++) {
                double r = fma_small_odd(slot_getf(x, k), slot_getf(y, k), slot_getf(z, k));
                ((uint16_t *)d->data)[k] = d->elem == ELEM_F16 ? f64_to_f16(r) : f64_to_bf16(r);
            }
            return 0;
        }
        break;
    default:
        break;
    }
    for (uint32_t k = 0; k < n; k++)
        slot_putf(d, k, float_op(op, slot_getf(x, k), slot_getf(y, k), slot_getf(z, k)));
    return 0;
}

/* ---- casts ---- */

static int64_t float_to_int(double v, int is64)
{
    if (isnan(v))
        return 0;
    v = trunc(v);
    if (is64) {
        if (v >= 9223372036854775808.0)
            return INT64_MAX;
        if (v <= -9223372036854775808.0)
            return INT64_MIN;
    } else {
        if (v >= 2147483647.0)
            return INT32_MAX;
        if (v <= -2147483648.0)
            return INT32_MIN;
    }
    return (int64_t)v;
}

/* element k of s converted to element type of d (cast semantics) */
static void convert_elem(Slot *d, size_t kd, const Slot *s, size_t ks)
{
    int sf = tir_elem_is_float((TirElem)s->elem), df = tir_elem_is_float((TirElem)d->elem);
    if (s->elem == d->elem) {
        size_t es = elem_size(d->elem), j = s->n == 1 ? 0 : ks;
        memcpy((char *)d->data + kd * es, (const char *)s->data + j * es, es);
    } else if (sf && df) {
        slot_putf(d, kd, slot_getf(s, ks)); /* widening is exact: one rounding */
    } else if (sf) {
        slot_puti(d, kd, float_to_int(slot_getf(s, ks), d->elem == ELEM_I64));
    } else if (df) {
        double v = i64_to_f64_odd(slot_geti(s, ks));
        if (d->elem == ELEM_F32)
            ((float *)d->data)[kd] = (float)v;
        else
            ((uint16_t *)d->data)[kd] = d->elem == ELEM_F16 ? f64_to_f16(v) : f64_to_bf16(v);
    } else {
        slot_puti(d, kd, slot_geti(s, ks)); /* i64 -> i32 keeps the low bits */
    }
}

int exec_cast(Exec *e, const TirInst *in)
{
    const Slot *s = exec_slot(e, tir_args(e->m, in)[0]);
    Slot *d = exec_def(e, in, in->result);
    if (!d)
        return -1;
    for (uint32_t k = 0; k < d->n; k++)
        convert_elem(d, k, s, k);
    return 0;
}

int exec_splat(Exec *e, const TirInst *in)
{
    const Slot *s = exec_slot(e, tir_args(e->m, in)[0]);
    Slot *d = exec_def(e, in, in->result);
    if (!d)
        return -1;
    /* f32 -> f16/bf16 splats round once to nearest even */
    convert_elem(d, 0, s, 0);
    size_t es = elem_size(d->elem);
    for (uint32_t k = 1; k < d->n; k++)
        memcpy((char *)d->data + (size_t)k * es, d->data, es);
    return 0;
}

int exec_broadcast(Exec *e, const TirInst *in)
{
    const Slot *s = exec_slot(e, tir_args(e->m, in)[0]);
    Slot *d = exec_def(e, in, in->result);
    if (!d)
        return -1;
    size_t es = elem_size(d->elem);
    for (uint32_t r = 0; r < d->rows; r++)
        for (uint32_t c = 0; c < d->cols; c++) {
            uint32_t sr = s->rows == 1 ? 0 : r, sc = s->cols == 1 ? 0 : c;
            memcpy((char *)d->data + ((size_t)r * d->cols + c) * es,
                   (const char *)s->data + ((size_t)sr * s->cols + sc) * es, es);
        }
    return 0;
}

/* ---- reductions ---- */

/* Sum / max along an axis in ascending order, starting from the first
 * element; float sums accumulate in f32 and round to the element type once
 * at the end (as the GPU lowering does), integer sums wrap. */
int exec_reduce(Exec *e, const TirInst *in)
{
    const Slot *s = exec_slot(e, tir_args(e->m, in)[0]);
    Slot *d = exec_def(e, in, in->result);
    if (!d)
        return -1;
    int axis = in->ival, is_max = in->op == OP_REDUCE_MAX;
    uint32_t outer = axis == 0 ? s->cols : s->rows, len = axis == 0 ? s->rows : s->cols;
    int fl = tir_elem_is_float((TirElem)s->elem), is64 = s->elem == ELEM_I64;
    for (uint32_t o = 0; o < outer; o++) {
        size_t first = axis == 0 ? o : (size_t)o * s->cols, step = axis == 0 ? s->cols : 1;
        if (fl) {
            float acc = slot_getf(s, first);
            for (uint32_t k = 1; k < len; k++) {
                float v = slot_getf(s, first + k * step);
                acc = is_max ? fmax_nan(acc, v) : acc + v;
            }
            slot_putf(d, o, acc);
            /* keep the exact bits of a lone element (e.g. a NaN payload) */
            if (len == 1)
                put_raw(d, o, raw_bits(s, first));
        } else {
            int64_t acc = slot_geti(s, first);
            for (uint32_t k = 1; k < len; k++)
                acc = int_op(is_max ? OP_MAX : OP_ADD, acc, slot_geti(s, first + k * step), is64);
            slot_puti(d, o, acc);
        }
    }
    return 0;
}

/* ---- dot ---- */

/* out[i][j] = c[i][j] + sum_k a[i][k] * b[k][j], one fmaf per k in
 * ascending order; bt is b transposed (N x K) for contiguous access. */
static void dot_pass(const float *a, const float *bt, const float *c, float *out, uint32_t M, uint32_t N,
                     uint32_t K)
{
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            float acc = c[(size_t)i * N + j];
            const float *ar = a + (size_t)i * K, *bc = bt + (size_t)j * K;
            for (uint32_t k = 0; k < K; k++)
                acc = fmaf(ar[k], bc[k], acc);
            out[(size_t)i * N + j] = acc;
        }
}

enum { RD_NONE, RD_TC, RD_RNA, RD_RNE, RD_BIG, RD_SMALL, RD_HIC };

/* Operand element x as one of the dot's inputs. */
static float operand(float x, int how)
{
    uint32_t u = f32_bits(x);
    switch (how) {
    case RD_TC: return bits_f32(tf32_tc_read(u));
    case RD_RNA: return tf32_round_f(x, ROUND_RNA);
    case RD_RNE: return tf32_round_f(x, ROUND_RNE);
    case RD_BIG: return tf32_round_f(x, ROUND_RNA);
    case RD_SMALL: {
        /* mask_nonfinite(rna(x - big), big): the f32 sub of the split */
        float big = tf32_round_f(x, ROUND_RNA);
        return isfinite(big) ? tf32_round_f(x - big, ROUND_RNA) : 0.0f;
    }
    case RD_HIC: {
        float big = tf32_round_f(x, ROUND_RNA);
        return isfinite(big) ? big : 0.0f;
    }
    default: return x;
    }
}

/* Fills a (row-major R x C) or, with transpose, its transpose (C x R) with
 * the operand values of tile s as `how` prescribes, then reads them the way
 * the tensor core does when tc (the dot is a tf32-trunc one). */
static void prep(const Slot *s, float *out, int how, int tc, int transpose)
{
    for (uint32_t r = 0; r < s->rows; r++)
        for (uint32_t c = 0; c < s->cols; c++) {
            float v = operand(slot_getf(s, (size_t)r * s->cols + c), how);
            if (tc)
                v = bits_f32(tf32_tc_read(f32_bits(v)));
            out[transpose ? (size_t)c * s->rows + r : (size_t)r * s->cols + c] = v;
        }
}

int exec_dot(Exec *e, const TirInst *in)
{
    const uint32_t *args = tir_args(e->m, in);
    const Slot *A = exec_slot(e, args[0]), *B = exec_slot(e, args[1]), *C = exec_slot(e, args[2]);
    Slot *D = exec_def(e, in, in->result);
    if (!D)
        return -1;
    uint32_t M = A->rows, K = A->cols, N = B->cols;
    TirPrecision p = in->ival == PREC_DEFAULT ? e->defprec : (TirPrecision)in->ival;
    if (A->elem != ELEM_F32 || B->elem != ELEM_F32)
        p = PREC_IEEE; /* f16/bf16: exact products, f32 accumulation */
    size_t na = (size_t)M * K, nb = (size_t)K * N, nd = (size_t)M * N;
    int split = p == PREC_3XTF32;
    float *buf = malloc(sizeof(float) * (split ? 3 * (na + nb) + nd : na + nb));
    if (!buf)
        return exec_fail(e, in, "out of memory");
    const float *c = C->data;
    float *out = D->data;
    if (!split) {
        int how = p == PREC_TF32_TRUNC ? RD_TC : p == PREC_TF32_RNA ? RD_RNA : p == PREC_TF32_RNE ? RD_RNE : RD_NONE;
        int tc = p != PREC_IEEE; /* rna/rne feed TF32 values to a truncating read */
        prep(A, buf, how, tc, 0);
        prep(B, buf + na, how, tc, 1);
        dot_pass(buf, buf + na, c, out, M, N, K);
    } else {
        /* as pass_precision rewrites it: the small cross terms summed from
         * zero, the big product on top, then the caller's accumulator */
        float *big_a = buf, *small_a = big_a + na, *hic_a = small_a + na;
        float *big_b = hic_a + na, *small_b = big_b + nb, *hic_b = small_b + nb, *t = hic_b + nb;
        prep(A, big_a, RD_BIG, 1, 0);
        prep(A, small_a, RD_SMALL, 1, 0);
        prep(A, hic_a, RD_HIC, 1, 0);
        prep(B, big_b, RD_BIG, 1, 1);
        prep(B, small_b, RD_SMALL, 1, 1);
        prep(B, hic_b, RD_HIC, 1, 1);
        memset(out, 0, nd * sizeof *out);
        dot_pass(small_a, hic_b, out, t, M, N, K); /* t1 = small_a·hic_b from 0 */
        dot_pass(hic_a, small_b, t, out, M, N, K); /* t2 = t1 + hic_a·small_b */
        dot_pass(big_a, big_b, out, t, M, N, K);   /* t3 = t2 + big_a·big_b */
        for (size_t k = 0; k < nd; k++)            /* c + t3 */
            out[k] = c[k] + t[k];
    }
    /* the tensor cores and FFMA give NaN results as 0x7FFFFFFF */
    for (size_t k = 0; k < nd; k++)
        if (isnan(out[k]))
            out[k] = canon_nan();
    free(buf);
    return 0;
}

/* ---- inline_ptx ---- */

/* The template with all whitespace removed and without a final ';'. */
static size_t squeeze(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
            if (n + 1 >= cap)
                return 0;
            out[n++] = *s;
        }
    if (n && out[n - 1] == ';')
        n--;
    out[n] = 0;
    return n;
}

int exec_inline_ptx(Exec *e, const TirInst *in)
{
    const char *tmpl = tir_str(e->m, in->str);
    char sq[64];
    int which = -1;
    static const char *const known[] = {"cvt.rna.tf32.f32$0,$1", "cvt.rn.tf32.f32$0,$1", "cvt.rz.tf32.f32$0,$1"};
    if (squeeze(tmpl, sq, sizeof sq) && in->nargs == 1)
        for (int k = 0; k < 3; k++)
            if (!strcmp(sq, known[k]))
                which = k;
    if (which < 0)
        return exec_fail(e, in,
                         "inline_ptx cannot run on the CPU: \"%.80s\" (the reference executor emulates only "
                         "\"cvt.rna.tf32.f32 $0, $1;\", \"cvt.rn.tf32.f32 $0, $1;\" and \"cvt.rz.tf32.f32 $0, $1;\")",
                         tmpl);
    const Slot *x = exec_slot(e, tir_args(e->m, in)[0]);
    Slot *d = exec_def(e, in, in->result);
    if (!d)
        return -1;
    /* .b32 registers: the bits pass through whatever the element types */
    for (uint32_t k = 0; k < d->n; k++) {
        uint32_t u = raw_bits(x, k);
        put_raw(d, k, which == 0 ? tf32_hw_cvt_rna(u) : which == 1 ? tf32_hw_cvt_rn(u) : tf32_hw_cvt_rz(u));
    }
    return 0;
}
