/*
 * dot: c + a·b on one tile.
 *
 * Both operands are staged through shared memory (row-major, padded rows so
 * that fragment reads hit distinct banks), then:
 *   - tensor cores (mma.sync.m16n8k8 .tf32 for f32, m16n8k16 for f16/bf16)
 *     with the accumulator in the MMA register layout, when the precision is
 *     tf32-trunc (operands already rounded by pass_precision, or raw) or the
 *     inputs are 16-bit and the tile is at least 16x8xK-step; with
 *     {accumulate = rn}, each k-step's MMA starts from zero and is added to
 *     the accumulator by a round-to-nearest f32 add;
 *   - f32 FMA on the CUDA cores otherwise (ieee, and tiles too small for
 *     mma), accumulating in ascending k from c, like the reference
 *     executor. A tf32 dot on this path reads its operands as the tensor core
 *     would (low 13 mantissa bits dropped), so the precision never depends on
 *     the tile shape.
 */
#include "compiler/lower.h"

#include <string.h>

#define UNROLL_STEPS 8

static int use_mma(Lower *L, const TirInst *in, Layout *out)
{
    const uint32_t *a = tir_args(L->m, in);
    TirType ta = tir_value_type(L->m, a[0]), tb = tir_value_type(L->m, a[1]);
    if (ta.elem == ELEM_F32 && in->ival == PREC_IEEE)
        return 0;
    return layout_mma(ta.dim[0], tb.dim[1], ta.dim[1], (TirElem)ta.elem, L->k->warps, out);
}

Layout dot_result_layout(Lower *L, uint32_t inst)
{
    const TirInst *in = &L->m->insts[inst];
    Layout l;
    if (use_mma(L, in, &l))
        return l;
    return layout_blocked_2d(in->type.dim[0], in->type.dim[1], L->threads);
}

/* Runs step(k0) for k0 = 0, kstep, ... (nsteps times) on the accumulator
 * registers: unrolled when short, else an LLVM loop carrying acc in phis. */
typedef void (*KStep)(Lower *L, void *ctx, LLVMValueRef k0, LLVMValueRef *acc);

static void k_loop(Lower *L, uint32_t nsteps, uint32_t kstep, LLVMValueRef *acc, uint32_t nacc, KStep step, void *ctx)
{
    if (nsteps <= UNROLL_STEPS) {
        for (uint32_t s = 0; s < nsteps && !L->failed; s++)
            step(L, ctx, lw_const_i32(L, s * kstep), acc);
        return;
    }
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "kstep");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "kdone");
    LLVMBuildBr(L->b, body);
    LLVMPositionBuilderAtEnd(L->b, body);
    LLVMValueRef iv = LLVMBuildPhi(L->b, L->t_i32, "ks");
    LLVMValueRef zero = lw_const_i32(L, 0);
    LLVMAddIncoming(iv, &zero, &pre, 1);
    LLVMValueRef *phis = lw_regs(L, nacc);
    if (!phis)
        return;
    for (uint32_t r = 0; r < nacc; r++) {
        phis[r] = LLVMBuildPhi(L->b, L->t_f32, "");
        LLVMAddIncoming(phis[r], &acc[r], &pre, 1);
        acc[r] = phis[r];
    }
    step(L, ctx, LLVMBuildMul(L->b, iv, lw_const_i32(L, kstep), ""), acc);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    for (uint32_t r = 0; r < nacc; r++)
        LLVMAddIncoming(phis[r], &acc[r], &latch, 1);
    LLVMValueRef next = LLVMBuildAdd(L->b, iv, lw_const_i32(L, 1), "");
    LLVMAddIncoming(iv, &next, &latch, 1);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntULT, next, lw_const_i32(L, nsteps), ""), body, exit);
    LLVMPositionBuilderAtEnd(L->b, exit);
    /* after the loop the accumulator is the value leaving the last step */
}

typedef struct {
    LLVMValueRef a, b;   /* shared arrays */
    uint32_t lda, ldb;   /* row pitches in elements */
    TirElem e;
    Layout lay;          /* result layout */
    LLVMValueRef row0, col0;
    uint32_t m, n;
    int trunc;           /* FMA path of a tf32 dot: read operands as tf32 */
    int rn_acc;          /* {accumulate = rn}: each k-step's MMA from zero, then an f32 add */
    int round;           /* f32 fragments: LW_FRAG_* */
} DotCtx;

static LLVMValueRef smem_at(Lower *L, LLVMValueRef base, LLVMTypeRef t, LLVMValueRef row, uint32_t ld, LLVMValueRef col)
{
    LLVMValueRef idx = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, lw_const_i32(L, ld), ""), col, "");
    return LLVMBuildGEP2(L->b, t, base, &idx, 1, "");
}

static LLVMValueRef add_c(Lower *L, LLVMValueRef x, uint32_t c) { return LLVMBuildAdd(L->b, x, lw_const_i32(L, c), ""); }

/* ---- tensor cores ---- */

static LLVMValueRef fit(Lower *L, LLVMValueRef v, LLVMTypeRef want)
{
    return LLVMTypeOf(v) == want ? v : LLVMBuildBitCast(L->b, v, want, "");
}

/* two 16-bit elements of B from consecutive rows, packed low-first */
static LLVMValueRef pack_pair(Lower *L, const DotCtx *x, LLVMValueRef k, LLVMValueRef col)
{
    LLVMTypeRef et = lw_elem_type(L, x->e);
    LLVMValueRef lo = LLVMBuildLoad2(L->b, et, smem_at(L, x->b, et, k, x->ldb, col), "");
    LLVMValueRef hi = LLVMBuildLoad2(L->b, et, smem_at(L, x->b, et, add_c(L, k, 1), x->ldb, col), "");
    LLVMTypeRef vt = LLVMVectorType(et, 2);
    LLVMValueRef v = LLVMBuildInsertElement(L->b, LLVMGetUndef(vt), lo, lw_const_i32(L, 0), "");
    return LLVMBuildInsertElement(L->b, v, hi, lw_const_i32(L, 1), "");
}

/* An f32 fragment's bits (i32) rounded for the tensor core, which drops
 * the low 13 bits: half an ulp added (ties away), or half less one plus
 * the kept lowest bit (ties to even); NaN a quiet NaN, whose high payload
 * bits an add could carry into the sign. Inf and values rounding past
 * FLT_MAX come out Inf, as round_tf32's do. */
static LLVMValueRef frag_round(Lower *L, LLVMValueRef v, int round)
{
    if (round == LW_FRAG_AS_IS)
        return v;
    LLVMBuilderRef b = L->b;
    if (round == LW_FRAG_RNE && L->o->arch >= ARCH_SM90A) /* a NaN stays one */
        return lw_asm(L, L->t_i32, "cvt.rn.tf32.f32 $0, $1;", "=r,r", &v, 1, 0);
    LLVMValueRef r = round == LW_FRAG_RNA ? LLVMBuildAdd(b, v, lw_const_i32(L, 0x1000), "")
                                          : LLVMBuildAdd(b, LLVMBuildAdd(b, v, lw_const_i32(L, 0xFFF), ""),
                                                         LLVMBuildAnd(b, LLVMBuildLShr(b, v, lw_const_i32(L, 13), ""),
                                                                      lw_const_i32(L, 1), ""), "");
    LLVMValueRef f = LLVMBuildBitCast(b, v, L->t_f32, "");
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, f, f, "");
    return LLVMBuildSelect(b, nan, lw_const_i32(L, 0x7FC00000), r, "");
}

/* 3xtf32's split of a fragment's bits v, as pass_precision writes it: big
 * = rna(v) (a NaN one), small = rna(v - big) and hic = big where big is
 * finite, both 0 where not (so Inf * 0 makes no NaN in the cross terms;
 * the big product carries Inf and NaN). small's rounding is completed by
 * the tensor core, big's here: v - big must be exact. */
static void frag_split3(Lower *L, LLVMValueRef v, LLVMValueRef out[3])
{
    LLVMBuilderRef b = L->b;
    LLVMTypeRef f32 = L->t_f32;
    LLVMValueRef f = LLVMBuildBitCast(b, v, f32, "");
    LLVMValueRef big = LLVMBuildAnd(b, LLVMBuildAdd(b, v, lw_const_i32(L, 0x1000), ""),
                                    lw_const_i32(L, (int32_t)0xFFFFE000u), "");
    big = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, f, f, ""), lw_const_i32(L, 0x7FC00000), big, "big");
    LLVMValueRef bigf = LLVMBuildBitCast(b, big, f32, "");
    LLVMValueRef mag = lw_call(L, "llvm.fabs", &f32, 1, &bigf, 1);
    LLVMValueRef fin = LLVMBuildFCmp(b, LLVMRealOLT, mag, LLVMConstReal(f32, __builtin_inf()), "");
    LLVMValueRef small = LLVMBuildBitCast(b, LLVMBuildFSub(b, f, bigf, ""), L->t_i32, "");
    small = LLVMBuildAdd(b, small, lw_const_i32(L, 0x1000), "");
    out[0] = big;
    out[1] = LLVMBuildSelect(b, fin, small, lw_const_i32(L, 0), "small");
    out[2] = LLVMBuildSelect(b, fin, big, lw_const_i32(L, 0), "hic");
}

/* 3xtf32 on one k step's fragments (their raw bits): each 16x8 tile's
 * small_a hic_b + hic_a small_b + big_a big_b from zero in the tensor core,
 * then added to the accumulator by an RN add (the cross terms at their own
 * magnitude, the big products' truncating accumulation one k step deep;
 * the pipelines' order, docs/TIR.md). */
static void x3_mmas(Lower *L, const DotCtx *x, LLVMValueRef afr[][4], LLVMValueRef bfr[][2], uint32_t mt, uint32_t nt,
                    LLVMTypeRef fty, LLVMValueRef fn, LLVMTypeRef *pt, LLVMValueRef *acc)
{
    LLVMValueRef (*as)[4][3] = lw_alloc(L, mt * sizeof *as), (*bs)[2][3] = lw_alloc(L, nt * sizeof *bs);
    if (!as || !bs)
        return;
    for (uint32_t mi = 0; mi < mt; mi++)
        for (int q = 0; q < 4; q++)
            frag_split3(L, afr[mi][q], as[mi][q]);
    for (uint32_t ni = 0; ni < nt; ni++)
        for (int q = 0; q < 2; q++)
            frag_split3(L, bfr[ni][q], bs[ni][q]);
    static const int terms[3][2] = {{1, 2}, {2, 1}, {0, 0}}; /* (a, b): small·hic, hic·small, big·big */
    for (uint32_t mi = 0; mi < mt; mi++)
        for (uint32_t ni = 0; ni < nt; ni++) {
            LLVMValueRef *c = &acc[(mi * x->lay.nt + ni) * 4];
            LLVMValueRef d[4];
            for (int q = 0; q < 4; q++)
                d[q] = LLVMConstReal(L->t_f32, 0.0);
            for (int t = 0; t < 3; t++) {
                int ta = terms[t][0], tb = terms[t][1];
                LLVMValueRef args[10] = {as[mi][0][ta], as[mi][1][ta], as[mi][2][ta], as[mi][3][ta],
                                         bs[ni][0][tb], bs[ni][1][tb], d[0], d[1], d[2], d[3]};
                for (int q = 0; q < 10; q++)
                    args[q] = fit(L, args[q], pt[q]);
                LLVMValueRef res = LLVMBuildCall2(L->b, fty, fn, args, 10, "");
                for (unsigned q = 0; q < 4; q++)
                    d[q] = LLVMBuildExtractValue(L->b, res, q, "");
            }
            for (int q = 0; q < 4; q++)
                c[q] = LLVMBuildFAdd(L->b, c[q], d[q], "");
        }
}

static void mma_step(Lower *L, void *ctx, LLVMValueRef k0, LLVMValueRef *acc)
{
    const DotCtx *x = ctx;
    const Layout *l = &x->lay;
    int tf32 = x->e == ELEM_F32;
    const char *name = tf32 ? "llvm.nvvm.mma.m16n8k8.row.col.tf32"
                       : x->e == ELEM_F16 ? "llvm.nvvm.mma.m16n8k16.row.col.f32.f32"
                                          : "llvm.nvvm.mma.m16n8k16.row.col.bf16";
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->mod, id, NULL, 0);
    LLVMTypeRef fty = LLVMIntrinsicGetType(L->ctx, id, NULL, 0);
    LLVMTypeRef pt[10];
    LLVMGetParamTypes(fty, pt);

    LLVMValueRef lane = LLVMBuildAnd(L->b, L->tid, lw_const_i32(L, 31), "");
    LLVMValueRef t = LLVMBuildAnd(L->b, lane, lw_const_i32(L, 3), "");
    LLVMValueRef afr[64][4], bfr[128][2];
    uint32_t mt = l->mt < 64 ? l->mt : 64, nt = l->nt < 128 ? l->nt : 128;
    /* fragments: A rows g, g+8 of each 16-row block; B columns g of each 8 */
    for (uint32_t mi = 0; mi < mt; mi++) {
        LLVMValueRef r0 = add_c(L, x->row0, mi * 16), r1 = add_c(L, x->row0, mi * 16 + 8);
        if (tf32) {
            LLVMValueRef c0 = LLVMBuildAdd(L->b, k0, t, ""), c1 = add_c(L, c0, 4);
            LLVMValueRef rc[4][2] = {{r0, c0}, {r1, c0}, {r0, c1}, {r1, c1}};
            for (int q = 0; q < 4; q++)
                afr[mi][q] = LLVMBuildLoad2(L->b, L->t_i32, smem_at(L, x->a, L->t_f32, rc[q][0], x->lda, rc[q][1]), "");
        } else {
            LLVMTypeRef et = lw_elem_type(L, x->e), vt = LLVMVectorType(et, 2);
            LLVMValueRef c0 = LLVMBuildAdd(L->b, k0, LLVMBuildShl(L->b, t, lw_const_i32(L, 1), ""), "");
            LLVMValueRef c1 = add_c(L, c0, 8);
            LLVMValueRef rc[4][2] = {{r0, c0}, {r1, c0}, {r0, c1}, {r1, c1}};
            for (int q = 0; q < 4; q++)
                afr[mi][q] = LLVMBuildLoad2(L->b, vt, smem_at(L, x->a, et, rc[q][0], x->lda, rc[q][1]), "");
        }
    }
    /* col0 is the accumulator's column (2t); B fragments need column g */
    LLVMValueRef w = LLVMBuildLShr(L->b, L->tid, lw_const_i32(L, 5), "");
    LLVMValueRef wx = LLVMBuildURem(L->b, w, lw_const_i32(L, l->wn), "");
    LLVMValueRef g = LLVMBuildLShr(L->b, lane, lw_const_i32(L, 2), "");
    LLVMValueRef bcol0 = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, wx, lw_const_i32(L, l->nt * 8), ""), g, "");
    for (uint32_t ni = 0; ni < nt; ni++) {
        LLVMValueRef col = add_c(L, bcol0, ni * 8);
        if (tf32) {
            LLVMValueRef k = LLVMBuildAdd(L->b, k0, t, "");
            bfr[ni][0] = LLVMBuildLoad2(L->b, L->t_i32, smem_at(L, x->b, L->t_f32, k, x->ldb, col), "");
            bfr[ni][1] = LLVMBuildLoad2(L->b, L->t_i32, smem_at(L, x->b, L->t_f32, add_c(L, k, 4), x->ldb, col), "");
        } else {
            LLVMValueRef k = LLVMBuildAdd(L->b, k0, LLVMBuildShl(L->b, t, lw_const_i32(L, 1), ""), "");
            bfr[ni][0] = pack_pair(L, x, k, col);
            bfr[ni][1] = pack_pair(L, x, add_c(L, k, 8), col);
        }
    }
    if (x->round == LW_FRAG_X3) {
        x3_mmas(L, x, afr, bfr, mt, nt, fty, fn, pt, acc);
        return;
    }
    for (uint32_t mi = 0; tf32 && mi < mt; mi++)
        for (int q = 0; q < 4; q++)
            afr[mi][q] = frag_round(L, afr[mi][q], x->round);
    for (uint32_t ni = 0; tf32 && ni < nt; ni++)
        for (int q = 0; q < 2; q++)
            bfr[ni][q] = frag_round(L, bfr[ni][q], x->round);
    for (uint32_t mi = 0; mi < mt; mi++)
        for (uint32_t ni = 0; ni < nt; ni++) {
            LLVMValueRef *c = &acc[(mi * l->nt + ni) * 4];
            LLVMValueRef zero = LLVMConstReal(L->t_f32, 0.0);
            LLVMValueRef args[10] = {afr[mi][0], afr[mi][1], afr[mi][2], afr[mi][3], bfr[ni][0], bfr[ni][1],
                                     x->rn_acc ? zero : c[0], x->rn_acc ? zero : c[1],
                                     x->rn_acc ? zero : c[2], x->rn_acc ? zero : c[3]};
            for (int q = 0; q < 10; q++)
                args[q] = fit(L, args[q], pt[q]);
            LLVMValueRef res = LLVMBuildCall2(L->b, fty, fn, args, 10, "");
            for (unsigned q = 0; q < 4; q++) {
                LLVMValueRef d = LLVMBuildExtractValue(L->b, res, q, "");
                c[q] = x->rn_acc ? LLVMBuildFAdd(L->b, c[q], d, "") : d;
            }
        }
}

void lw_mma_smem_step(Lower *L, LLVMValueRef a, uint32_t lda, LLVMValueRef b, uint32_t ldb, TirElem e,
                      const Layout *lay, LLVMValueRef row0, LLVMValueRef col0, int round, LLVMValueRef k0,
                      LLVMValueRef *acc)
{
    DotCtx x = {.a = a, .b = b, .lda = lda, .ldb = ldb, .e = e, .lay = *lay, .row0 = row0, .col0 = col0,
                .m = lay->rows, .n = lay->cols, .round = round};
    mma_step(L, &x, k0, acc);
}

/* ---- CUDA-core FMA ---- */

/* x as the tensor core reads a raw f32 operand: low 13 mantissa bits dropped */
static LLVMValueRef tf32_read(Lower *L, LLVMValueRef x)
{
    LLVMValueRef bits = LLVMBuildBitCast(L->b, x, L->t_i32, "");
    bits = LLVMBuildAnd(L->b, bits, lw_const_i32(L, (int32_t)0xFFFFE000u), "");
    return LLVMBuildBitCast(L->b, bits, L->t_f32, "");
}

static void fma_step(Lower *L, void *ctx, LLVMValueRef k, LLVMValueRef *acc)
{
    const DotCtx *x = ctx;
    const Layout *l = &x->lay;
    uint32_t ri = l->tr >= l->rows ? 1 : l->rows / l->tr;
    uint32_t ci = l->tc >= l->cols ? 1 : l->cols / l->tc;
    LLVMTypeRef et = lw_elem_type(L, x->e);
    LLVMValueRef av[1024], bv[1024];
    if (ri > 1024 || ci > 1024)
        return;
    for (uint32_t i = 0; i < ri; i++) {
        LLVMValueRef row = add_c(L, x->row0, i * l->tr);
        if (l->tr > l->rows) /* replicated threads: stay inside the array */
            row = LLVMBuildURem(L->b, row, lw_const_i32(L, x->m), "");
        LLVMValueRef v = LLVMBuildLoad2(L->b, et, smem_at(L, x->a, et, row, x->lda, k), "");
        v = ew_convert(L, v, x->e, ELEM_F32);
        av[i] = x->trunc ? tf32_read(L, v) : v;
    }
    for (uint32_t j = 0; j < ci; j++) {
        LLVMValueRef col = add_c(L, x->col0, j * l->tc);
        LLVMValueRef v = LLVMBuildLoad2(L->b, et, smem_at(L, x->b, et, k, x->ldb, col), "");
        v = ew_convert(L, v, x->e, ELEM_F32);
        bv[j] = x->trunc ? tf32_read(L, v) : v;
    }
    LLVMTypeRef f32 = L->t_f32;
    for (uint32_t i = 0; i < ri; i++)
        for (uint32_t j = 0; j < ci; j++) {
            LLVMValueRef args[3] = {av[i], bv[j], acc[i * ci + j]};
            acc[i * ci + j] = lw_call(L, "llvm.fma", &f32, 1, args, 3);
        }
}

/* ---- the op ---- */

void lower_DOT(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    const uint32_t *args = tir_args(L->m, in);
    TirType ta = tir_value_type(L->m, args[0]), tb = tir_value_type(L->m, args[1]);
    uint32_t M = ta.dim[0], K = ta.dim[1], N = tb.dim[1];
    TirElem e = (TirElem)ta.elem;
    uint32_t esz = (uint32_t)tir_elem_bits(e) / 8;

    DotCtx x = {.e = e, .m = M, .n = N};
    int mma = use_mma(L, in, &x.lay);
    if (!mma)
        x.lay = layout_blocked_2d(M, N, L->threads);
    x.trunc = !mma && e == ELEM_F32 && in->ival != PREC_IEEE;
    x.rn_acc = (in->i64 & TIR_DOT_ACC_RN) != 0; /* the FMA path rounds every step anyway */
    if (mma) {
        x.lda = K + (esz == 4 ? 4 : 8);
        x.ldb = N + 8;
    } else {
        x.lda = K + 1;
        x.ldb = N;
    }
    uint32_t abytes = (M * x.lda * esz + 15) & ~15u;
    LLVMValueRef base = smem_ptr(L, abytes + K * x.ldb * esz);

    uint32_t n = layout_nregs(&x.lay);
    LLVMValueRef *cin = lw_tile_in(L, args[2], &x.lay);
    LLVMValueRef *acc = lw_regs(L, n);
    if (!cin || !acc)
        return;
    for (uint32_t r = 0; r < n; r++)
        acc[r] = cin[r];

    /* both operands in registers first: a broadcast operand comes through shared memory of its
     * own (lw_tile_in), the same bytes the operands are staged in below */
    Layout la = lw_layout_of(L, args[0]), lb = lw_layout_of(L, args[1]);
    LLVMValueRef *ra = lw_tile_in(L, args[0], &la);
    LLVMValueRef *rb = ra ? lw_tile_in(L, args[1], &lb) : NULL;
    if (!rb)
        return;
    lw_barrier(L);
    LLVMValueRef off = lw_const_i32(L, abytes);
    x.a = base;
    x.b = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), base, &off, 1, "smem_b");
    smem_store_tile(L, x.a, x.lda, ra, &la, e);
    smem_store_tile(L, x.b, x.ldb, rb, &lb, e);
    lw_barrier(L);
    if (L->failed)
        return;

    x.row0 = layout_base_row(L, &x.lay);
    x.col0 = layout_base_col(L, &x.lay);
    if (mma) {
        uint32_t kstep = e == ELEM_F32 ? 8 : 16;
        if (x.lay.mt > 64 || x.lay.nt > 128) {
            lw_error(L, in->loc, "dot: tile too large for one program's warps");
            return;
        }
        k_loop(L, K / kstep, kstep, acc, n, mma_step, &x);
    } else {
        if (layout_nregs(&x.lay) > 4096) {
            lw_error(L, in->loc, "dot: a %ux%u result needs more than 4096 registers per thread with %u warps; "
                     "use more warps or a smaller tile", M, N, L->k->warps);
            return;
        }
        k_loop(L, K, 1, acc, n, fma_step, &x);
    }
    lw_set(L, in->result, (LVal){.kind = LV_TILE, .regs = acc, .lay = x.lay});
}
