/*
 * The instructions that compute: integer and floating-point arithmetic,
 * comparisons and conversions as the PTX ISA defines them, and the warp
 * and warpgroup collectives (shfl, vote, mma.sync, wgmma with its queue of
 * wgmmas in flight) that run when their last member arrives.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptx_emu_run.h"

/* ---- arithmetic --------------------------------------------------------------------------- */

int emu_compare(int cmp, int type, uint64_t a, uint64_t b)
{
    if (is_float(type)) {
        double x = fval(type, a), y = fval(type, b);
        int un = isnan(x) || isnan(y);
        switch (cmp) {
        case 1: return !un && x == y;
        case 2: return !un && x != y;
        case 3: return !un && x < y;
        case 4: return !un && x <= y;
        case 5: return !un && x > y;
        case 6: return !un && x >= y;
        case 11: return un || x == y;
        case 12: return un || x != y;
        case 13: return un || x < y;
        case 14: return un || x <= y;
        case 15: return un || x > y;
        case 16: return un || x >= y;
        case 17: return !un;
        case 18: return un;
        }
        return 0;
    }
    unsigned w = width(type);
    if (is_signed(type) && cmp >= 3 && cmp <= 6) {
        int64_t x = sext(a, w), y = sext(b, w);
        return cmp == 3 ? x < y : cmp == 4 ? x <= y : cmp == 5 ? x > y : x >= y;
    }
    a &= mask_of(w), b &= mask_of(w);
    switch (cmp) {
    case 1: return a == b;
    case 2: return a != b;
    case 3: case 7: return a < b;
    case 4: case 8: return a <= b;
    case 5: case 9: return a > b;
    case 6: case 10: return a >= b;
    }
    return 0;
}

/* f32 / f64 / f16 / bf16 add, sub, mul, fma, div, min, max (one rounding) */
uint64_t emu_float_op(const PtxInsn *in, int type, uint64_t ua, uint64_t ub, uint64_t uc)
{
    int fz = (in->mods & M_FTZ) && type == T_F32;
    double a = fval(type, ua), b = fval(type, ub), c = fval(type, uc), r;
    if (fz)
        a = ftz((float)a, 1), b = ftz((float)b, 1), c = ftz((float)c, 1);
    switch (in->op) {
    case PO_ADD: r = a + b; break;
    case PO_SUB: r = a - b; break;
    case PO_MUL: r = a * b; break;
    case PO_DIV: r = a / b; break;
    case PO_MIN:
    case PO_MAX:
        if (isnan(a) || isnan(b)) {
            if (in->mods & M_NAN || (isnan(a) && isnan(b)))
                return type == T_F64 ? 0x7FF8000000000000ull : type == T_F32 ? F32_CANON_NAN : 0x7FFF;
            r = isnan(a) ? b : a;
        } else if (a == 0 && b == 0) /* -0 < +0 */
            r = (in->op == PO_MIN) == (signbit(a) != 0) ? a : b;
        else
            r = in->op == PO_MIN ? fmin(a, b) : fmax(a, b);
        break;
    default: /* fma, mad.f32 */
        if (type == T_F32)
            return bf32(ftz(fmaf((float)a, (float)b, (float)c), fz));
        if (type == T_F64)
            return bf64(fma(a, b, c));
        r = fma_small_odd(a, b, c);
    }
    if (in->mods & M_SAT)
        r = isnan(r) ? 0 : r < 0 ? 0 : r > 1 ? 1 : r;
    if (type == T_F32) {
        float f = (float)r; /* a + b, a * b and a / b of floats: exact or correctly rounded through double */
        if (in->op == PO_DIV && isfinite(a) && isfinite(b) && b != 0)
            f = (float)a / (float)b;
        if (isnan(f))
            return F32_CANON_NAN;
        return bf32(ftz(f, fz));
    }
    return fbits(type, r);
}

uint64_t emu_int_op(const PtxInsn *in, int type, uint64_t a, uint64_t x, uint64_t c, int *wide)
{
    unsigned w = width(type);
    int s = is_signed(type);
    int64_t sa = sext(a, w), sx = sext(x, w);
    *wide = 0;
    switch (in->op) {
    case PO_ADD: return a + x;
    case PO_SUB: return a - x;
    case PO_MUL:
    case PO_MAD: {
        uint64_t r;
        if (in->mods & M_WIDE) {
            *wide = 1;
            r = s ? (uint64_t)(sa * sx) : (a & mask_of(w)) * (x & mask_of(w));
        } else if (in->mods & M_HI) {
            if (w == 64)
                r = s ? (uint64_t)(((__int128)sa * sx) >> 64) : (uint64_t)(((unsigned __int128)a * x) >> 64);
            else
                r = s ? (uint64_t)((sa * sx) >> w) : ((a & mask_of(w)) * (x & mask_of(w))) >> w;
        } else
            r = a * x;
        if (in->op == PO_MAD)
            r += c;
        return r;
    }
    case PO_DIV:
    case PO_REM:
        if (s) {
            if (sx == 0)
                return in->op == PO_DIV ? ~0ull : (uint64_t)sa;
            if (sx == -1)
                return in->op == PO_DIV ? (uint64_t)(-(uint64_t)sa) : 0;
            return (uint64_t)(in->op == PO_DIV ? sa / sx : sa % sx);
        }
        a &= mask_of(w), x &= mask_of(w);
        if (!x)
            return in->op == PO_DIV ? ~0ull : a;
        return in->op == PO_DIV ? a / x : a % x;
    case PO_MIN: return s ? (uint64_t)(sa < sx ? sa : sx) : ((a & mask_of(w)) < (x & mask_of(w)) ? a : x);
    case PO_MAX: return s ? (uint64_t)(sa > sx ? sa : sx) : ((a & mask_of(w)) > (x & mask_of(w)) ? a : x);
    }
    return 0;
}

int emu_float_unary(Blk *b, Th *t, const PtxInsn *in)
{
    int type = in->types[0];
    if (type != T_F32 && type != T_F64)
        return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only f32 / f64 forms are known");
    double a = fval(type, rd(b, t, &in->o[1])), r;
    if (type == T_F32)
        a = ftz((float)a, in->mods & M_FTZ);
    switch (in->op) {
    case PO_RCP: r = 1.0 / a; break;
    case PO_SQRT: r = sqrt(a); break;
    case PO_RSQRT: r = 1.0 / sqrt(a); break;
    case PO_EX2: r = exp2(a); break;
    case PO_LG2: r = log2(a); break;
    case PO_SIN: r = sin(a); break;
    case PO_COS: r = cos(a); break;
    default: r = tanh(a); break;
    }
    if (type == T_F32) {
        float f = (float)r;
        if (in->op == PO_SQRT && !(in->mods & M_APPROX))
            f = sqrtf((float)a);
        wr(t, &in->o[0], type, isnan(f) ? F32_CANON_NAN : bf32(ftz(f, in->mods & M_FTZ)));
    } else
        wr(t, &in->o[0], type, bf64(r));
    return X_NEXT;
}

int emu_cvt(Blk *b, Th *t, const PtxInsn *in)
{
    int dt = in->types[0], st = in->ntypes > 1 ? in->types[1] : in->types[0];
    uint64_t a = rdt(b, t, &in->o[1], st);
    if (dt == T_BF16X2 || dt == T_F16X2) { /* d = {cvt(a), cvt(b)}: a in the upper half */
        uint64_t hi = rdt(b, t, &in->o[1], st), lo = rdt(b, t, &in->o[2], st);
        int h = dt == T_BF16X2 ? T_BF16 : T_F16;
        wr(t, &in->o[0], T_B32, fbits(h, fval(st, hi)) << 16 | fbits(h, fval(st, lo)));
        return X_NEXT;
    }
    if (dt == T_TF32) {
        uint32_t x = (uint32_t)a;
        wr(t, &in->o[0], T_B32,
           in->rnd == R_RNA ? tf32_hw_cvt_rna(x) : in->rnd == R_RZ ? tf32_hw_cvt_rz(x) : tf32_hw_cvt_rn(x));
        return X_NEXT;
    }
    if (!is_float(dt) && !is_float(st)) {
        uint64_t v = is_signed(st) ? (uint64_t)sext(a, width(st)) : a;
        if (in->mods & M_SAT) {
            unsigned w = width(dt);
            int64_t lo = is_signed(dt) ? -(int64_t)(1ull << (w - 1)) : 0;
            uint64_t hi = is_signed(dt) ? (1ull << (w - 1)) - 1 : mask_of(w);
            if (is_signed(st) && (int64_t)v < lo)
                v = (uint64_t)lo;
            else if ((!is_signed(st) || (int64_t)v >= 0) && v > hi)
                v = hi;
        }
        wr_ext(t, &in->o[0], dt, v);
        return X_NEXT;
    }
    if (is_float(dt) && is_float(st)) {
        double x = fval(st, a);
        if (in->mods & M_RINT)
            x = in->rnd == R_RZ ? trunc(x) : in->rnd == R_RM ? floor(x) : in->rnd == R_RP ? ceil(x) : nearbyint(x);
        else if (width(dt) < width(st) && in->rnd != R_RN && in->rnd != R_DEFAULT)
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only round-to-nearest narrowing is known");
        if (dt == T_F32) {
            float f = (float)x;
            if (in->mods & M_SAT)
                f = isnan(f) ? 0 : f < 0 ? 0 : f > 1 ? 1 : f;
            wr(t, &in->o[0], dt, bf32(ftz(f, in->mods & M_FTZ)));
        } else
            wr(t, &in->o[0], dt, dt == T_F16 ? f32_to_f16((float)x) : dt == T_BF16 ? f32_to_bf16((float)x) : bf64(x));
        return X_NEXT;
    }
    if (is_float(dt)) { /* from an integer */
        double x = is_signed(st) ? i64_to_f64_odd(sext(a, width(st)))
                                 : (a >> 63 ? i64_to_f64_odd((int64_t)(a >> 1) | (int64_t)(a & 1)) * 2
                                            : i64_to_f64_odd((int64_t)a));
        if (in->rnd != R_RN && in->rnd != R_DEFAULT)
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only round-to-nearest conversions from integers are known");
        wr(t, &in->o[0], dt, fbits(dt, x));
        return X_NEXT;
    }
    /* to an integer: NaN is 0, out of range saturates */
    double x = fval(st, a);
    x = in->rnd == R_RN ? nearbyint(x) : in->rnd == R_RM ? floor(x) : in->rnd == R_RP ? ceil(x) : trunc(x);
    unsigned w = width(dt);
    double lo = is_signed(dt) ? -ldexp(1, (int)w - 1) : 0, hi = is_signed(dt) ? ldexp(1, (int)w - 1) - 1 : ldexp(1, (int)w) - 1;
    uint64_t v;
    if (isnan(x))
        v = 0;
    else if (x <= lo)
        v = is_signed(dt) ? (uint64_t)(-(int64_t)(1ull << (w - 1)) + (w == 64 ? 0 : 0)) : 0;
    else if (x >= hi)
        v = is_signed(dt) ? (1ull << (w - 1)) - 1 : mask_of(w);
    else
        v = is_signed(dt) ? (uint64_t)(int64_t)x : (uint64_t)x;
    wr_ext(t, &in->o[0], dt, v);
    return X_NEXT;
}

/* ---- collectives ---------------------------------------------------------------------------- */

static float tc_operand(int type, uint32_t v)
{
    switch (type) {
    case T_TF32: return bits_f32(tf32_tc_read(v));
    case T_BF16: return bf16_to_f32((uint16_t)v);
    case T_F16: return f16_to_f32((uint16_t)v);
    default: return bits_f32(v);
    }
}

/* the shared address of element (row i, k) of a wgmma operand from its descriptor */
static uint32_t desc_addr(uint64_t d, unsigned i, unsigned k, unsigned es, int mn_major)
{
    uint32_t start = (uint32_t)(d & 0x3fff) << 4, lbo = (uint32_t)((d >> 16) & 0x3fff) << 4;
    uint32_t sbo = (uint32_t)((d >> 32) & 0x3fff) << 4;
    unsigned sw = (unsigned)(d >> 62) & 3, span = sw == 1 ? 128 : sw == 2 ? 64 : sw == 3 ? 32 : 0;
    uint32_t a;
    if (!mn_major) {
        uint32_t kb = k * es;
        a = span ? start + (i / 8) * sbo + (i % 8) * span + kb
                 : start + (i / 8) * sbo + (i % 8) * 16 + (kb / 16) * lbo + kb % 16;
    } else {
        uint32_t mb = i * es;
        a = span ? start + (mb / span) * lbo + (k / 8) * sbo + (k % 8) * span + mb % span
                 : start + (mb / 16) * lbo + (k / 8) * sbo + (k % 8) * 16 + mb % 16;
    }
    return swizzle(a, span);
}

static int smem_operand(Blk *b, const Th *t, const PtxInsn *in, uint64_t desc, int type, unsigned rows, unsigned K,
                        int mn_major, float *out /* [rows][K] */)
{
    unsigned es = width(type) / 8;
    for (unsigned i = 0; i < rows; i++)
        for (unsigned k = 0; k < K; k++) {
            const uint8_t *p = emu_mem(b, t, in, SP_SHARED, desc_addr(desc, i, k, es, mn_major), es);
            if (!p)
                return 0;
            out[i * K + k] = tc_operand(type, (uint32_t)load_n(p, es));
        }
    return 1;
}

static int wgmma_issue(Blk *b, const PtxInsn *in, unsigned first)
{
    unsigned N = in->shape[1], K = in->shape[2];
    Th *t0 = &b->th[first];
    if (in->types[0] != T_F32 || in->shape[0] != 64 || N > 256 || K > 16)
        return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only m64nNk8/k16 wgmmas into f32 are known");
    if (in->nops < 4 || in->o[0].kind != K_VEC || in->o[0].n != N / 2 || (in->o[1].kind == K_VEC && in->o[1].n != 4))
        return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "operands of a form the interpreter does not know");
    WgQueue *q = &b->wgq[first / 128];
    if (q->n == WG_PENDING_MAX)
        return emu_fail(b, PTX_EMU_FAULT, in, "more than %d wgmmas in flight without a wait_group", WG_PENDING_MAX);
    PendingMma *pm = &q->p[q->n++];
    const PtxOp *oa = &in->o[1];
    unsigned ops = in->nops;
    pm->in = in;
    pm->group = q->group;
    pm->a_regs = oa->kind == K_VEC;
    /* scale-d, scale-a, scale-b, [tnsp-a,] [tnsp-b] after d, a, b */
    pm->scale_d = (int)(rd(b, t0, &in->o[3]) & 1);
    pm->neg = (ops > 4 && (int64_t)rd(b, t0, &in->o[4]) == -1) != (ops > 5 && (int64_t)rd(b, t0, &in->o[5]) == -1);
    pm->tn_a = !pm->a_regs && ops > 6 && rd(b, t0, &in->o[6]) == 1;
    pm->tn_b = ops > (pm->a_regs ? 6u : 7u) && rd(b, t0, &in->o[pm->a_regs ? 6 : 7]) == 1;
    pm->da = pm->a_regs ? 0 : rd(b, t0, oa);
    pm->db = rd(b, t0, &in->o[2]);
    return 1;
}

/* A's 64 x K elements from the warpgroup's registers (operand oa) */
static void reg_operand(Blk *b, const PtxOp *oa, int type, unsigned K, unsigned first, float *A)
{
    unsigned per = width(type) == 32 ? 1 : 2; /* elements a register */
    for (unsigned th = 0; th < 128; th++) {
        const Th *t = &b->th[first + th];
        unsigned w = th / 32, g = th % 32 / 4, qd = th % 4;
        for (unsigned r = 0; r < 4; r++) {
            unsigned row = 16 * w + g + (r & 1) * 8, col = (r >> 1) * (K / 2) + qd * per;
            uint64_t v = vec_item(b, t, oa, r);
            for (unsigned e = 0; e < per; e++)
                A[row * K + col + e] = tc_operand(type, (uint32_t)(per == 1 ? v : v >> (16 * e)));
        }
    }
}

static int wgmma_complete(Blk *b, PendingMma *pm, unsigned first)
{
    const PtxInsn *in = pm->in;
    unsigned N = in->shape[1], K = in->shape[2];
    const PtxOp *od = &in->o[0];
    Th *t0 = &b->th[first];
    static float A[64 * 16], B[256 * 16];
    static double D[64 * 256];
    if (pm->a_regs)
        reg_operand(b, &in->o[1], in->types[1], K, first, A);
    else if (!smem_operand(b, t0, in, pm->da, in->types[1], 64, K, pm->tn_a, A))
        return 0;
    if (!smem_operand(b, t0, in, pm->db, in->types[2], N, K, pm->tn_b, B))
        return 0;
    for (unsigned th = 0; th < 128; th++) {
        const Th *t = &b->th[first + th];
        unsigned w = th / 32, g = th % 32 / 4, q = th % 4;
        for (unsigned j = 0; j < N / 8; j++)
            for (unsigned r = 0; r < 4; r++)
                D[(16 * w + g + (r >> 1) * 8) * N + 8 * j + 2 * q + (r & 1)] =
                    pm->scale_d ? f32(vec_item(b, t, od, 4 * j + r)) : 0.0;
    }
    for (unsigned m = 0; m < 64; m++)
        for (unsigned n = 0; n < N; n++) {
            double s = 0;
            for (unsigned k = 0; k < K; k++)
                s += (double)A[m * K + k] * B[n * K + k];
            D[m * N + n] += pm->neg ? -s : s;
        }
    for (unsigned th = 0; th < 128; th++) {
        Th *t = &b->th[first + th];
        unsigned w = th / 32, g = th % 32 / 4, q = th % 4;
        for (unsigned j = 0; j < N / 8; j++)
            for (unsigned r = 0; r < 4; r++) {
                float f = (float)D[(16 * w + g + (r >> 1) * 8) * N + 8 * j + 2 * q + (r & 1)];
                wr(t, &b->m->vec[od->first + 4 * j + r], T_F32, isnan(f) ? F32_CANON_NAN : bf32(f));
            }
    }
    return 1;
}

/* wgmma.wait_group N: the warpgroup's wgmmas complete, in order, until at
 * most N committed groups are pending */
static int wgmma_wait(Blk *b, unsigned pending, unsigned first)
{
    WgQueue *q = &b->wgq[first / 128];
    unsigned done = 0;
    while (done < q->n && q->p[done].group + pending < q->group) {
        if (!wgmma_complete(b, &q->p[done], first))
            return 0;
        done++;
    }
    memmove(q->p, q->p + done, (q->n - done) * sizeof *q->p);
    q->n -= done;
    return 1;
}

static int exec_wgmma(Blk *b, Th *t, const PtxInsn *in, unsigned first)
{
    switch (in->sub) {
    case WG_MMA: return wgmma_issue(b, in, first);
    case WG_COMMIT: b->wgq[first / 128].group++; return 1;
    default: return wgmma_wait(b, (unsigned)rd(b, t, &in->o[0]), first);
    }
}

static int exec_mma(Blk *b, const PtxInsn *in, unsigned first)
{
    unsigned M = in->shape[0], N = in->shape[1], K = in->shape[2];
    int ta = in->types[1], tb = in->types[2];
    if (M != 16 || N != 8 || K != (ta == T_TF32 ? 8u : 16u) || ta != tb || in->types[0] != T_F32 ||
        in->types[3] != T_F32 || in->nops != 4 || in->o[0].kind != K_VEC || in->o[0].n != 4 ||
        in->o[1].kind != K_VEC || in->o[1].n != 4 || in->o[2].kind != K_VEC || in->o[2].n != 2 ||
        in->o[3].kind != K_VEC || in->o[3].n != 4)
        return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only m16n8k8 tf32 / m16n8k16 f16, bf16 mma.sync into f32 is known");
    float A[16][16], B[16][8];
    double D[16][8];
    unsigned per = width(ta) == 32 ? 1 : 2;
    for (unsigned l = 0; l < 32; l++) {
        const Th *t = &b->th[first + l];
        unsigned g = l / 4, q = l % 4;
        for (unsigned r = 0; r < 4; r++) {
            uint64_t v = vec_item(b, t, &in->o[1], r);
            unsigned row = g + (r & 1) * 8, col = (r >> 1) * (K / 2) + q * per;
            for (unsigned e = 0; e < per; e++)
                A[row][col + e] = tc_operand(ta, (uint32_t)(per == 1 ? v : v >> (16 * e)));
        }
        for (unsigned r = 0; r < 2; r++) {
            uint64_t v = vec_item(b, t, &in->o[2], r);
            for (unsigned e = 0; e < per; e++)
                B[r * (K / 2) + q * per + e][g] = tc_operand(tb, (uint32_t)(per == 1 ? v : v >> (16 * e)));
        }
        for (unsigned r = 0; r < 4; r++)
            D[g + (r >> 1) * 8][2 * q + (r & 1)] = f32(vec_item(b, t, &in->o[3], r));
    }
    for (unsigned m = 0; m < 16; m++)
        for (unsigned n = 0; n < 8; n++) {
            double s = 0;
            for (unsigned k = 0; k < K; k++)
                s += (double)A[m][k] * B[k][n];
            D[m][n] += s;
        }
    for (unsigned l = 0; l < 32; l++) {
        Th *t = &b->th[first + l];
        unsigned g = l / 4, q = l % 4;
        for (unsigned r = 0; r < 4; r++) {
            float f = (float)D[g + (r >> 1) * 8][2 * q + (r & 1)];
            wr(t, &b->m->vec[in->o[0].first + r], T_F32, isnan(f) ? F32_CANON_NAN : bf32(f));
        }
    }
    return 1;
}

static void exec_shfl(Blk *b, const PtxInsn *in, unsigned first, unsigned n)
{
    uint64_t val[32], out[32];
    int ok[32];
    unsigned k = in->pair ? 2 : 1;
    for (unsigned l = 0; l < n; l++)
        val[l] = rd(b, &b->th[first + l], &in->o[k]);
    for (unsigned l = 0; l < n; l++) {
        const Th *t = &b->th[first + l];
        unsigned bv = (unsigned)rd(b, t, &in->o[k + 1]) & 31, c = (unsigned)rd(b, t, &in->o[k + 2]);
        unsigned seg = (c >> 8) & 31, clamp = c & 31, min = l & seg, max = min | (clamp & ~seg), j = l;
        int p = 1;
        switch (in->sub) {
        case SHFL_UP: j = l - bv; p = (int)j >= (int)max; break;
        case SHFL_DOWN: j = l + bv; p = j <= max; break;
        case SHFL_BFLY: j = l ^ bv; p = j <= max; break;
        default: j = min | (bv & ~seg); p = j <= max;
        }
        if (!p || j >= n)
            j = l;
        out[l] = val[j];
        ok[l] = p;
    }
    for (unsigned l = 0; l < n; l++) {
        Th *t = &b->th[first + l];
        if (t->state != TS_COLL) /* not in the membermask */
            continue;
        wr(t, &in->o[0], T_B32, out[l]);
        if (in->pair)
            wr(t, &in->o[1], T_PRED, (uint64_t)ok[l]);
    }
}

static void exec_vote(Blk *b, const PtxInsn *in, unsigned first, unsigned n)
{
    uint32_t ballot = 0;
    for (unsigned l = 0; l < n; l++)
        ballot |= (uint32_t)(rd(b, &b->th[first + l], &in->o[1]) & 1) << l;
    uint32_t full = n >= 32 ? ~0u : (1u << n) - 1;
    for (unsigned l = 0; l < n; l++) {
        Th *t = &b->th[first + l];
        if (t->state != TS_COLL) /* not in the membermask */
            continue;
        uint32_t mask = in->nops > 2 ? (uint32_t)rd(b, t, &in->o[2]) & full : full;
        uint64_t v = in->sub2 == 3   ? ballot & mask
                     : in->sub2 == 1 ? (ballot & mask) == mask
                     : in->sub2 == 2 ? (ballot & mask) != 0
                                     : ((ballot & mask) == 0 || (ballot & mask) == mask);
        wr(t, &in->o[0], in->sub2 == 3 ? T_B32 : T_PRED, v);
    }
}

/* a thread arrives at a collective; the last member runs it for all */
int emu_collective(Blk *b, Th *t, const PtxInsn *in)
{
    int wg = in->op == PO_WGMMA;
    unsigned size = wg ? 128 : 32, group = t->tid / size, first = group * size;
    unsigned n = b->nthreads - first < size ? b->nthreads - first : size;
    if (wg && n < 128)
        return emu_fail(b, PTX_EMU_FAULT, in, "a wgmma in a warpgroup of %u threads", n);
    Coll *c = wg ? &b->wg[group] : &b->warp[group];
    /* shfl.sync and vote.sync name their lanes; the others take the whole warp (warpgroup) */
    uint32_t full = n >= 32 ? ~0u : (1u << n) - 1, mask = full;
    if (in->op == PO_SHFL || (in->op == PO_VOTE && in->nops > 2) || (in->op == PO_BAR && in->nops))
        mask = (uint32_t)rd(b, t, &in->o[in->op == PO_SHFL ? (in->pair ? 5 : 4) : in->op == PO_VOTE ? 2 : 0]) & full;
    if (!wg && !(mask >> (t->tid - first) & 1))
        return emu_fail(b, PTX_EMU_FAULT, in, "lane %u is not in the membermask 0x%x", t->tid - first, mask);
    if (c->arrived && (c->pc != (int)t->pc || (!wg && c->mask != mask)))
        return emu_fail(b, PTX_EMU_FAULT, in, "threads of one %s at different collectives (ptx lines %d and %d)",
                    wg ? "warpgroup" : "warp", b->e->insns[c->pc].line, in->line);
    c->mask = wg ? ~0u : mask;
    c->pc = (int)t->pc;
    c->arrived++;
    t->state = TS_COLL;
    b->events++;
    return emu_collective_finish(b, c, first, n, wg);
}

/* runs the collective c waits at once every live member of the group
 * [first, first + n) has arrived */
int emu_collective_finish(Blk *b, Coll *c, unsigned first, unsigned n, int wg)
{
    const PtxInsn *in = &b->e->insns[c->pc];
    Th *t = &b->th[first];
    if (!c->arrived)
        return X_BLOCK;
    unsigned members = 0, live = 0;
    for (unsigned i = 0; i < n; i++)
        if (wg || c->mask >> i & 1) {
            members++;
            live += b->th[first + i].state != TS_DONE; /* members that exited never come */
        }
    if (c->arrived < live)
        return X_BLOCK;
    if (live < members && (wg || in->op == PO_MMA))
        return emu_fail(b, PTX_EMU_FAULT, in, "a collective some of whose threads have exited");
    int ok = 1;
    switch (in->op) {
    case PO_WGMMA: ok = exec_wgmma(b, t, in, first); break;
    case PO_MMA: ok = exec_mma(b, in, first); break;
    case PO_SHFL: exec_shfl(b, in, first, n); break;
    case PO_VOTE: exec_vote(b, in, first, n); break;
    case PO_BAR: break; /* bar.warp.sync: meeting is all */
    default: { /* activemask */
        uint32_t mask = 0;
        for (unsigned i = 0; i < n; i++)
            mask |= (uint32_t)(b->th[first + i].state != TS_DONE) << i;
        for (unsigned i = 0; i < n; i++)
            wr(&b->th[first + i], &in->o[0], T_B32, mask);
    }
    }
    if (!ok)
        return X_FAIL;
    c->arrived = 0;
    for (unsigned i = 0; i < n; i++)
        if (b->th[first + i].state == TS_COLL) {
            b->th[first + i].state = TS_RUN;
            b->th[first + i].pc++;
        }
    return X_BLOCK;
}

