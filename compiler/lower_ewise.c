/*
 * Element-wise ops, constants tiles, casts, broadcasts, reductions, TF32
 * rounding and inline PTX. Element-wise work happens in whatever layout the
 * operands already have (an accumulator stays in its MMA registers for an
 * epilogue); f16/bf16 arithmetic is done in f32 and rounded back, which is
 * correctly rounded for + - * / sqrt (fma: the 16-bit fma itself).
 */
#include "compiler/lower.h"
#include "ir/exp_f32.h"

#include <math.h>

#define M_TF32 0xFFFFE000u

static LLVMValueRef ci32(Lower *L, uint32_t v) { return lw_const_i32(L, (int32_t)v); }

/* An integer to bf16, rounded once to nearest even where the target has
 * no conversion of its own (sm_80: LLVM goes through f32, rounding twice,
 * 1 ulp off for integers past 2^24 that land on a tie; a review's finding).
 * The magnitude is cut to its top 24 bits with the rest OR'ed into the
 * last (round to odd), which f32 holds exactly, and f32 -> bf16 then rounds
 * as one rounding of the integer would. */
static LLVMValueRef int_to_bf16(Lower *L, LLVMValueRef x)
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i64 = L->t_i64;
    if (LLVMTypeOf(x) != i64)
        x = LLVMBuildSExt(b, x, i64, "");
    LLVMValueRef no = LLVMConstInt(LLVMInt1TypeInContext(L->ctx), 0, 0);
    LLVMValueRef ua[2] = {x, no}; /* |INT64_MIN| is 2^63 as unsigned */
    LLVMValueRef u = lw_call(L, "llvm.abs", &i64, 1, ua, 2);
    LLVMValueRef za[2] = {u, no};
    LLVMValueRef lz = lw_call(L, "llvm.ctlz", &i64, 1, za, 2);
    LLVMValueRef sh = LLVMBuildSub(b, lw_const_i64(L, 40), lz, ""); /* bits below the top 24 */
    sh = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, sh, lw_const_i64(L, 0), ""), sh, lw_const_i64(L, 0), "");
    LLVMValueRef bit = LLVMBuildShl(b, lw_const_i64(L, 1), sh, ""), low = LLVMBuildSub(b, bit, lw_const_i64(L, 1), "");
    LLVMValueRef sticky = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, u, low, ""), lw_const_i64(L, 0), "");
    LLVMValueRef odd = LLVMBuildSelect(b, sticky, bit, lw_const_i64(L, 0), "");
    u = LLVMBuildOr(b, LLVMBuildAnd(b, u, LLVMBuildNot(b, low, ""), ""), odd, "");
    LLVMValueRef f = LLVMBuildUIToFP(b, u, L->t_f32, ""); /* exact: 24 bits */
    f = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, lw_const_i64(L, 0), ""), LLVMBuildFNeg(b, f, ""), f, "");
    return LLVMBuildFPTrunc(b, f, lw_elem_type(L, ELEM_BF16), "");
}

LLVMValueRef ew_convert(Lower *L, LLVMValueRef x, TirElem from, TirElem to)
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef t = lw_elem_type(L, to);
    if (from == to)
        return x;
    int ff = tir_elem_is_float(from), tf = tir_elem_is_float(to);
    if (ff && tf) {
        if (from != ELEM_F32 && to != ELEM_F32) /* f16 <-> bf16 through f32 (exact widening) */
            x = LLVMBuildFPExt(b, x, L->t_f32, "");
        else if (from != ELEM_F32)
            return LLVMBuildFPExt(b, x, t, "");
        return LLVMBuildFPTrunc(b, x, t, "");
    }
    if (!ff && tf) {
        if (to == ELEM_BF16 && L->o->arch != ARCH_SM90A)
            return int_to_bf16(L, x);
        return LLVMBuildSIToFP(b, x, t, "");
    }
    if (ff && !tf) { /* truncate toward zero, saturate, NaN -> 0 */
        if (from != ELEM_F32)
            x = LLVMBuildFPExt(b, x, L->t_f32, "");
        LLVMTypeRef ov[2] = {t, L->t_f32};
        return lw_call(L, "llvm.fptosi.sat", ov, 2, &x, 1);
    }
    return tir_elem_bits(to) > tir_elem_bits(from) ? LLVMBuildSExt(b, x, t, "") : LLVMBuildTrunc(b, x, t, "");
}

/* Integer division and remainder without undefined behaviour: x/0 = 0,
 * x%0 = 0, INT_MIN/-1 = INT_MIN (wraps), INT_MIN%-1 = 0. */
static LLVMValueRef int_divrem(Lower *L, LLVMValueRef a, LLVMValueRef d, int rem)
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef zero = LLVMConstInt(t, 0, 1), one = LLVMConstInt(t, 1, 1), m1 = LLVMConstAllOnes(t);
    LLVMValueRef isz = LLVMBuildICmp(b, LLVMIntEQ, d, zero, "");
    LLVMValueRef ism1 = LLVMBuildICmp(b, LLVMIntEQ, d, m1, "");
    LLVMValueRef safe = LLVMBuildSelect(b, LLVMBuildOr(b, isz, ism1, ""), one, d, "");
    LLVMValueRef r = rem ? LLVMBuildSRem(b, a, safe, "") : LLVMBuildSDiv(b, a, safe, "");
    LLVMValueRef bym1 = rem ? zero : LLVMBuildSub(b, zero, a, "");
    r = LLVMBuildSelect(b, ism1, bym1, r, "");
    return LLVMBuildSelect(b, isz, zero, r, "");
}

static LLVMValueRef round_tf32(Lower *L, LLVMValueRef x, int mode)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef r;
    if (mode == ROUND_RNA) {
        /* a NaN whose payload sits in the dropped bits would become Inf:
         * keep it a NaN by setting the quiet bit. One asm call instead of
         * seven IR instructions: tf32-rna's guarded rounding paths hold
         * thousands of these (compile time; the same instructions) */
        r = lw_asm(L, L->t_i32,
                   "{\n\t.reg .pred %pn, %pr;\n\tcvt.rna.tf32.f32 $0, $1;\n\tsetp.nan.f32 %pn, $1, $1;\n\t"
                   "setp.num.f32 %pr, $0, $0;\n\tand.pred %pn, %pn, %pr;\n\t@%pn or.b32 $0, $0, 0x00400000;\n\t}",
                   "=r,f", &x, 1, 0);
    } else if (mode == ROUND_RNE && L->o->arch >= ARCH_SM90A) {
        r = lw_asm(L, L->t_i32, "cvt.rn.tf32.f32 $0, $1;", "=r,f", &x, 1, 0);
    } else { /* in integers, NaNs made the canonical one */
        LLVMValueRef u = LLVMBuildBitCast(b, x, L->t_i32, "");
        if (mode == ROUND_RNE) { /* sm_80 has no cvt.rn.tf32: round half to even */
            LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, u, ci32(L, 13), ""), ci32(L, 1), "");
            u = LLVMBuildAdd(b, LLVMBuildAdd(b, u, ci32(L, 0xFFF), ""), odd, "");
        }
        LLVMValueRef isnan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
        r = LLVMBuildSelect(b, isnan, ci32(L, 0x7FFFE000u), LLVMBuildAnd(b, u, ci32(L, M_TF32), ""), "");
    }
    return LLVMBuildBitCast(b, r, L->t_f32, "");
}

/* ir/exp_f32.h's sequence, step for step (the reference computes it too):
 * IEEE multiplies, fmas and rounding only, so the bits are the CPU's */
static LLVMValueRef exp_f32(Lower *L, LLVMValueRef x)
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef f = L->t_f32;
    LLVMValueRef lo = LLVMConstReal(f, TIR_EXP_LO), hi = LLVMConstReal(f, TIR_EXP_HI);
    LLVMValueRef xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, lo, ""), lo, x, "");
    xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, xc, hi, ""), hi, xc, "");
    LLVMValueRef t = LLVMBuildFMul(b, xc, LLVMConstReal(f, tir_exp_bits_f32(TIR_EXP_LOG2E)), "");
    t = lw_call(L, "llvm.rint", &f, 1, &t, 1);
    LLVMValueRef a[3] = {t, LLVMConstReal(f, -tir_exp_bits_f32(TIR_EXP_LN2_HI)), xc};
    LLVMValueRef r = lw_call(L, "llvm.fma", &f, 1, a, 3);
    LLVMValueRef a2[3] = {t, LLVMConstReal(f, -tir_exp_bits_f32(TIR_EXP_LN2_LO)), r};
    r = lw_call(L, "llvm.fma", &f, 1, a2, 3);
    LLVMValueRef p = LLVMConstReal(f, tir_exp_bits_f32(tir_exp_coef[TIR_EXP_DEGREE]));
    for (int k = TIR_EXP_DEGREE - 1; k >= 0; k--) {
        LLVMValueRef h[3] = {p, r, LLVMConstReal(f, tir_exp_bits_f32(tir_exp_coef[k]))};
        p = lw_call(L, "llvm.fma", &f, 1, h, 3);
    }
    LLVMValueRef k = LLVMBuildFPToSI(b, t, L->t_i32, "");
    LLVMValueRef k1 = LLVMBuildAShr(b, k, ci32(L, 1), ""), k2 = LLVMBuildSub(b, k, k1, "");
    LLVMValueRef s1 = LLVMBuildBitCast(b, LLVMBuildShl(b, LLVMBuildAdd(b, k1, ci32(L, 127), ""), ci32(L, 23), ""), f, "");
    LLVMValueRef s2 = LLVMBuildBitCast(b, LLVMBuildShl(b, LLVMBuildAdd(b, k2, ci32(L, 127), ""), ci32(L, 23), ""), f, "");
    LLVMValueRef y = LLVMBuildFMul(b, LLVMBuildFMul(b, p, s1, ""), s2, "");
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""), x, y, "");
}

static LLVMValueRef float_op(Lower *L, TirOp op, LLVMValueRef *x, const TirInst *in)
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef f = L->t_f32;
    switch (op) {
    case OP_ADD: return LLVMBuildFAdd(b, x[0], x[1], "");
    case OP_SUB: return LLVMBuildFSub(b, x[0], x[1], "");
    case OP_MUL: return LLVMBuildFMul(b, x[0], x[1], "");
    case OP_DIV: return LLVMBuildFDiv(b, x[0], x[1], "");
    case OP_MIN: return lw_call(L, "llvm.minimum", &f, 1, x, 2);
    case OP_MAX: return lw_call(L, "llvm.maximum", &f, 1, x, 2);
    case OP_NEG: return LLVMBuildFNeg(b, x[0], "");
    case OP_ABS: return lw_call(L, "llvm.fabs", &f, 1, x, 1);
    case OP_SQRT: return lw_call(L, "llvm.sqrt", &f, 1, x, 1);
    case OP_FMA: return lw_call(L, "llvm.fma", &f, 1, x, 3);
    case OP_EXP: return exp_f32(L, x[0]);
    case OP_ROUND_TF32: return round_tf32(L, x[0], in->ival);
    case OP_MASK_NONFINITE: {
        LLVMValueRef ax = lw_call(L, "llvm.fabs", &f, 1, &x[1], 1);
        LLVMValueRef fin = LLVMBuildFCmp(b, LLVMRealOLT, ax, LLVMConstReal(f, INFINITY), "");
        return LLVMBuildSelect(b, fin, x[0], LLVMConstReal(f, 0.0), "");
    }
    default:
        lw_error(L, in->loc, "internal error: '%s' has no float lowering", tir_ops[op].name);
        return x[0];
    }
}

static LLVMValueRef int_op(Lower *L, TirOp op, LLVMValueRef *x, const TirInst *in)
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef t = LLVMTypeOf(x[0]);
    switch (op) {
    case OP_ADD: return LLVMBuildAdd(b, x[0], x[1], "");
    case OP_SUB: return LLVMBuildSub(b, x[0], x[1], "");
    case OP_MUL: return LLVMBuildMul(b, x[0], x[1], "");
    case OP_DIV: return int_divrem(L, x[0], x[1], 0);
    case OP_REM: return int_divrem(L, x[0], x[1], 1);
    case OP_MIN: return lw_call(L, "llvm.smin", &t, 1, x, 2);
    case OP_MAX: return lw_call(L, "llvm.smax", &t, 1, x, 2);
    case OP_NEG: return LLVMBuildSub(b, LLVMConstInt(t, 0, 1), x[0], "");
    case OP_ABS: {
        LLVMValueRef args[2] = {x[0], LLVMConstInt(L->t_i1, 0, 0)};
        return lw_call(L, "llvm.abs", &t, 1, args, 2);
    }
    case OP_CDIV: { /* ceil: q + 1 when the remainder is nonzero with the divisor's sign */
        LLVMValueRef q = int_divrem(L, x[0], x[1], 0), r = int_divrem(L, x[0], x[1], 1);
        LLVMValueRef zero = LLVMConstInt(t, 0, 1);
        LLVMValueRef up = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, r, zero, ""),
                                       LLVMBuildICmp(b, LLVMIntSGE, LLVMBuildXor(b, r, x[1], ""), zero, ""), "");
        return LLVMBuildAdd(b, q, LLVMBuildZExt(b, up, t, ""), "");
    }
    default:
        lw_error(L, in->loc, "internal error: '%s' has no integer lowering", tir_ops[op].name);
        return x[0];
    }
}

LLVMValueRef ew_apply(Lower *L, TirOp op, TirElem e, LLVMValueRef *x, int n, const TirInst *in)
{
    if (!tir_elem_is_float(e))
        return int_op(L, op, x, in);
    if (op == OP_FMA && e != ELEM_F32) { /* one rounding: the 16-bit fma (fma.rn.f16 / .bf16), not an
                                          * f32 fma rounded again (1 ulp off at ties, a review's finding) */
        LLVMTypeRef t = lw_elem_type(L, e);
        return lw_call(L, "llvm.fma", &t, 1, x, 3);
    }
    LLVMValueRef w[3];
    for (int k = 0; k < n && k < 3; k++)
        w[k] = ew_convert(L, x[k], e, ELEM_F32);
    return ew_convert(L, float_op(L, op, w, in), ELEM_F32, e);
}

/* The layout an element-wise op computes in: that of a tile operand already
 * in registers (an MMA accumulator first), else the default. */
static int pick_layout(Lower *L, const TirInst *in, Layout *out)
{
    const uint32_t *a = tir_args(L->m, in);
    int found = 0;
    for (uint32_t k = 0; k < in->nargs; k++) {
        const LVal *v = lw_val(L, a[k]);
        if (v->kind == LV_TILE && (!found || v->lay.kind == LAYOUT_MMA)) {
            *out = v->lay;
            found = 1;
        }
    }
    return found;
}

static int all_uniform(Lower *L, const TirInst *in)
{
    const uint32_t *a = tir_args(L->m, in);
    for (uint32_t k = 0; k < in->nargs; k++)
        if (lw_val(L, a[k])->kind != LV_SCALAR && lw_val(L, a[k])->kind != LV_SPLAT)
            return 0;
    return 1;
}

/* Applies fn to each element; operands may mix tiles and scalars. */
typedef LLVMValueRef (*ElemFn)(Lower *L, const TirInst *in, LLVMValueRef *x, int n);

static void lower_map(Lower *L, uint32_t i, ElemFn fn)
{
    const TirInst *in = &L->m->insts[i];
    const uint32_t *a = tir_args(L->m, in);
    int n = (int)in->nargs;
    LLVMValueRef x[8];
    if (n > 8) {
        lw_error(L, in->loc, "too many operands (at most 8)");
        return;
    }
    if (in->type.kind != TY_TILE || all_uniform(L, in)) {
        for (int k = 0; k < n; k++)
            x[k] = lw_val(L, a[k])->s;
        LLVMValueRef r = fn(L, in, x, n);
        lw_set(L, in->result, (LVal){.kind = in->type.kind == TY_TILE ? LV_SPLAT : LV_SCALAR, .s = r});
        return;
    }
    Layout lay;
    if (!pick_layout(L, in, &lay))
        lay = layout_blocked(in->type.dim[0], in->type.dim[1], L->threads);
    LLVMValueRef *src[8];
    for (int k = 0; k < n; k++) {
        src[k] = NULL;
        if (tir_value_type(L->m, a[k]).kind == TY_TILE && !(src[k] = lw_tile_in(L, a[k], &lay)))
            return;
    }
    uint32_t nr = layout_nregs(&lay);
    LLVMValueRef *regs = lw_regs(L, nr);
    if (!regs)
        return;
    for (uint32_t r = 0; r < nr; r++) {
        for (int k = 0; k < n; k++)
            x[k] = src[k] ? src[k][r] : lw_val(L, a[k])->s;
        regs[r] = fn(L, in, x, n);
    }
    lw_set(L, in->result, (LVal){.kind = LV_TILE, .regs = regs, .lay = lay});
}

static LLVMValueRef arith_fn(Lower *L, const TirInst *in, LLVMValueRef *x, int n)
{
    return ew_apply(L, (TirOp)in->op, (TirElem)in->type.elem, x, n, in);
}

static LLVMValueRef cast_fn(Lower *L, const TirInst *in, LLVMValueRef *x, int n)
{
    (void)n;
    TirElem from = (TirElem)tir_value_type(L->m, tir_args(L->m, in)[0]).elem;
    return ew_convert(L, x[0], from, (TirElem)in->type.elem);
}

static LLVMValueRef ptx_fn(Lower *L, const TirInst *in, LLVMValueRef *x, int n)
{
    char cons[64] = "=r";
    size_t len = 2;
    for (int k = 0; k < n && len + 3 < sizeof cons; k++) {
        if (LLVMTypeOf(x[k]) != L->t_i32)
            x[k] = LLVMBuildBitCast(L->b, x[k], L->t_i32, "");
        cons[len++] = ',';
        cons[len++] = 'r';
        cons[len] = 0;
    }
    LLVMValueRef r = lw_asm(L, L->t_i32, tir_str(L->m, in->str), cons, x, (unsigned)n, 0);
    return in->type.elem == ELEM_F32 ? LLVMBuildBitCast(L->b, r, L->t_f32, "") : r;
}

#define EWISE(E) \
    void lower_##E(Lower *L, uint32_t i) { lower_map(L, i, arith_fn); }
EWISE(ADD)
EWISE(SUB)
EWISE(MUL)
EWISE(DIV)
EWISE(REM)
EWISE(MIN)
EWISE(MAX)
EWISE(CDIV)
EWISE(NEG)
EWISE(ABS)
EWISE(EXP)
EWISE(SQRT)
EWISE(FMA)
EWISE(ROUND_TF32)
EWISE(MASK_NONFINITE)
#undef EWISE

void lower_CAST(Lower *L, uint32_t i) { lower_map(L, i, cast_fn); }
void lower_INLINE_PTX(Lower *L, uint32_t i) { lower_map(L, i, ptx_fn); }

/* ---- constant tiles and broadcasts ---- */

static void set_splat(Lower *L, const TirInst *in, LLVMValueRef s)
{
    lw_set(L, in->result, (LVal){.kind = LV_SPLAT, .s = s});
}

void lower_ZEROS(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    set_splat(L, in, LLVMConstNull(lw_elem_type(L, (TirElem)in->type.elem)));
}

void lower_FULL(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    TirElem e = (TirElem)in->type.elem;
    LLVMValueRef v = tir_elem_is_float(e) ? lw_const_float(L, e, in->fval)
                                          : LLVMConstInt(lw_elem_type(L, e), (unsigned long long)(long long)in->fval, 1);
    set_splat(L, in, v);
}

void lower_SPLAT(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    uint32_t a = tir_args(L->m, in)[0];
    TirElem from = (TirElem)tir_value_type(L->m, a).elem;
    set_splat(L, in, ew_convert(L, lw_val(L, a)->s, from, (TirElem)in->type.elem));
}

void lower_BROADCAST(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    uint32_t a = tir_args(L->m, in)[0];
    const LVal *src = lw_val(L, a);
    if (src->kind == LV_SPLAT)
        set_splat(L, in, src->s);
    else /* materialized by lw_tile_in in the layout of its first user */
        lw_set(L, in->result, (LVal){.kind = LV_BCAST, .src = a});
}

/* ---- reductions ---- */

static void lower_reduce(Lower *L, uint32_t i, int is_max)
{
    const TirInst *in = &L->m->insts[i];
    uint32_t a = tir_args(L->m, in)[0];
    TirType t = tir_value_type(L->m, a);
    TirElem e = (TirElem)t.elem;
    int axis = in->ival;
    uint32_t rows = t.dim[0], cols = t.dim[1], len = axis == 0 ? rows : cols;
    int fl = tir_elem_is_float(e);
    TirElem acc_e = fl ? ELEM_F32 : e;
    LLVMTypeRef et = lw_elem_type(L, e), at = lw_elem_type(L, acc_e);

    const LVal *src = lw_val(L, a);
    Layout out = layout_blocked(in->type.dim[0], in->type.dim[1], L->threads);
    uint32_t n = layout_nregs(&out);
    LLVMValueRef *regs = lw_regs(L, n);
    if (!regs)
        return;
    if (src->kind == LV_SPLAT || src->kind == LV_SCALAR) { /* sum of equal values: add them up as written */
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef acc = ew_convert(L, src->s, e, acc_e);
            LLVMValueRef x = acc;
            for (uint32_t k = 1; k < len; k++)
                acc = is_max ? acc : (fl ? LLVMBuildFAdd(L->b, acc, x, "") : LLVMBuildAdd(L->b, acc, x, ""));
            regs[r] = ew_convert(L, acc, acc_e, e);
        }
        lw_set(L, in->result, (LVal){.kind = LV_TILE, .regs = regs, .lay = out});
        return;
    }
    Layout sl = lw_layout_of(L, a);
    LLVMValueRef *sregs = lw_tile_in(L, a, &sl);
    if (!sregs)
        return;
    uint32_t ld = cols + 1;
    LLVMValueRef base = smem_ptr(L, rows * ld * (uint32_t)tir_elem_bits(e) / 8);
    lw_barrier(L);
    smem_store_tile(L, base, ld, sregs, &sl, e);
    lw_barrier(L);
    LLVMValueRef row0 = layout_base_row(L, &out), col0 = layout_base_col(L, &out);
    LLVMTypeRef ov = at;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t dr, dc;
        layout_offset(&out, r, &dr, &dc);
        /* the fixed coordinate of this output element (replicated rows wrap) */
        LLVMValueRef fixed = axis == 0 ? LLVMBuildAdd(L->b, col0, lw_const_i32(L, dc), "")
                                       : LLVMBuildURem(L->b, LLVMBuildAdd(L->b, row0, lw_const_i32(L, dr), ""),
                                                       lw_const_i32(L, rows), "");
        LLVMValueRef acc = NULL;
        for (uint32_t k = 0; k < len; k++) { /* ascending, like the reference executor */
            LLVMValueRef idx = axis == 0 ? LLVMBuildAdd(L->b, lw_const_i32(L, k * ld), fixed, "")
                                         : LLVMBuildAdd(L->b, LLVMBuildMul(L->b, fixed, lw_const_i32(L, ld), ""),
                                                        lw_const_i32(L, k), "");
            LLVMValueRef x = LLVMBuildLoad2(L->b, et, LLVMBuildGEP2(L->b, et, base, &idx, 1, ""), "");
            x = ew_convert(L, x, e, acc_e);
            if (!acc)
                acc = x;
            else if (is_max) {
                LLVMValueRef xs[2] = {acc, x};
                acc = lw_call(L, fl ? "llvm.maximum" : "llvm.smax", &ov, 1, xs, 2);
            } else
                acc = fl ? LLVMBuildFAdd(L->b, acc, x, "") : LLVMBuildAdd(L->b, acc, x, "");
        }
        regs[r] = ew_convert(L, acc, acc_e, e);
    }
    lw_set(L, in->result, (LVal){.kind = LV_TILE, .regs = regs, .lay = out});
}

void lower_REDUCE_SUM(Lower *L, uint32_t i) { lower_reduce(L, i, 0); }
void lower_REDUCE_MAX(Lower *L, uint32_t i) { lower_reduce(L, i, 1); }
