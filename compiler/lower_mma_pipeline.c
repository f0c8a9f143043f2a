/*
 * The cp.async + mma.sync pipeline: a GEMM loop marked by pass_mma,
 *
 *   for %k = lo to hi step BK iter(%c = init) {
 *     %a = load %va[.., %m0, %k] : tile<BMxBKxf32>
 *     %b = load %vb[.., %k, %n0] : tile<BKxBNxf32>
 *     %d = dot %a, %b, %c
 *     yield %d
 *   }
 *
 * lowered as the tensor-core GEMMs before Hopper are: every thread copies
 * its share of step s + S - 1's A and B tiles from global to shared memory
 * with cp.async (no registers, no wait) into a ring of S stages, while the
 * warps run mma.sync over step s's stage (lower_dot.c's fragments and
 * MMAs). One barrier a step: after it, step s's copies have landed (each
 * thread waited for its own with cp.async.wait_group S - 2) and every warp
 * is done with step s - 1's stage, the one step s + S - 1 refills.
 *
 * Copies: 16 bytes along a row where the view allows it (unit column
 * stride, row stride and base on 16 bytes, the tile's first column on 16
 * bytes: checked once, at run time), each zero-filled past the view
 * (cp.async's source size); else element by element, any strides (4-byte
 * cp.asyncs; f16/bf16 a predicated load and a shared store each).
 * Nothing outside the view is read. The precision mode is applied as each
 * fragment is read from shared memory: tf32-rna adds half a TF32 ulp to the
 * bits and tf32-rne the same rounded to even (the tensor core drops the low
 * 13 bits, which completes the rounding; NaN kept a NaN), tf32-trunc reads
 * them as they are, and 3xtf32 splits them (big, small, hic) for three
 * MMAs a tile from zero, added to the accumulator by an RN add each k8
 * step (lower_dot.c).
 *
 * Needs: the loop marked by pass_mma (for.ival = -stages, the dot's ival
 * its precision). Guarantees: the loop's result is the dot's accumulation
 * over every step, in dot_result_layout's MMA layout; every cp.async has
 * landed when the loop ends; the shared memory is the scratch every op
 * takes (smem_ptr), entered after a barrier.
 */
#include "compiler/lower.h"

#include <stdio.h>

/* One operand's copies: the tile (rows x cols) at (i0, i1) of the view. */
typedef struct {
    LLVMValueRef base;            /* the view's pointer, its batch applied */
    LLVMValueRef d0, d1, s0, s1;  /* i64 */
    LLVMValueRef ok;              /* the view has elements and the batch index is in range */
    LLVMValueRef fast;            /* 16-byte copies (uniform) */
    uint32_t rows, cols, pitch;   /* the tile; its shared rows' pitch in elements */
    TirElem e;
    uint32_t esize;               /* 4 (f32) or 2 (f16, bf16) */
} Operand;

static LLVMValueRef c32(Lower *L, int64_t v) { return lw_const_i32(L, v); }
static LLVMValueRef c64(Lower *L, int64_t v) { return lw_const_i64(L, v); }
static LLVMTypeRef void_t(Lower *L) { return LLVMVoidTypeInContext(L->ctx); }

static LLVMValueRef sext64(Lower *L, LLVMValueRef v)
{
    return LLVMTypeOf(v) == L->t_i64 ? v : LLVMBuildSExt(L->b, v, L->t_i64, "");
}

/* The operand of load ld (its view, rank 2 or 3): fixed_col says whether
 * the index that does not move with k is the column (B's) or the row
 * (A's, whose first column is then lo). */
static Operand operand(Lower *L, const TirInst *ld, uint32_t rows, uint32_t cols, uint32_t pitch, int fixed_col,
                       LLVMValueRef lo)
{
    LLVMBuilderRef b = L->b;
    const uint32_t *a = tir_args(L->m, ld);
    const LVal *v = lw_val(L, a[0]);
    int o = v->rank - 2;
    TirElem e = (TirElem)ld->type.elem;
    Operand x = {.base = v->base, .d0 = v->dims[o], .d1 = v->dims[o + 1], .s0 = v->strides[o],
                 .s1 = v->strides[o + 1], .rows = rows, .cols = cols, .pitch = pitch, .e = e,
                 .esize = (uint32_t)tir_elem_bits(e) / 8};
    x.ok = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, x.d0, c64(L, 0), ""),
                        LLVMBuildICmp(b, LLVMIntSGT, x.d1, c64(L, 0), ""), "");
    if (o) {
        LLVMValueRef bi = sext64(L, lw_val(L, a[1])->s);
        x.ok = LLVMBuildAnd(b, x.ok, lw_in_range(L, bi, v->dims[0]), "");
        LLVMValueRef off = LLVMBuildMul(b, bi, v->strides[0], "");
        x.base = LLVMBuildGEP2(b, lw_elem_type(L, e), x.base, &off, 1, "batch");
    }
    /* the tile's first column: A's moves with k (lo, then steps of BK, 16 bytes' worth or more) */
    LLVMValueRef col0 = fixed_col ? sext64(L, lw_val(L, a[1 + o + 1])->s) : lo;
    LLVMValueRef low = LLVMBuildOr(b, LLVMBuildPtrToInt(b, x.base, L->t_i64, ""),
                                   LLVMBuildShl(b, LLVMBuildOr(b, x.s0, col0, ""), c64(L, x.esize == 4 ? 2 : 1), ""), "");
    x.fast = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, x.s1, c64(L, 1), ""),
                          LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, low, c64(L, 15), ""), c64(L, 0), ""), "fast");
    return x;
}

static void cp_async(Lower *L, int bytes, LLVMValueRef dst32, LLVMValueRef src, LLVMValueRef src_bytes)
{
    LLVMValueRef a[3] = {dst32, LLVMBuildPtrToInt(L->b, src, L->t_i64, ""), src_bytes};
    lw_asm(L, void_t(L),
           bytes == 16 ? "cp.async.cg.shared.global [$0], [$1], 16, $2;" : "cp.async.ca.shared.global [$0], [$1], 4, $2;",
           "r,l,r,~{memory}", a, 3, LW_ASM_SIDE_EFFECTS);
}

/* Issues the copies of x's tile at (i0, i1) (i64) into the stage at dst32
 * (a shared address): the thread's 16-byte chunks (fast) or elements: by
 * cp.async for 4-byte ones; 2-byte ones (cp.async copies 4 bytes or more)
 * loaded and stored as the generic lowering would, the padding 0 outside
 * the view. */
static void copy_tile(Lower *L, const Operand *x, LLVMValueRef i0, LLVMValueRef i1, LLVMValueRef dst32, int fast)
{
    LLVMBuilderRef b = L->b;
    uint32_t per = fast ? 16 / x->esize : 1, units = x->rows * x->cols / per, upr = x->cols / per;
    LLVMTypeRef et = lw_elem_type(L, x->e);
    for (uint32_t j = 0; j * L->threads < units; j++) {
        LLVMValueRef u = LLVMBuildAdd(b, L->tid, c32(L, j * L->threads), "");
        /* a round with more threads than units: the threads past the tile copy nothing (a copy of
         * no bytes still writes its zeros, which would land past the tile) */
        LLVMBasicBlockRef part_done = NULL;
        if ((j + 1) * L->threads > units) {
            LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp_part");
            part_done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp_part_done");
            LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, u, c32(L, units), ""), go, part_done);
            LLVMPositionBuilderAtEnd(b, go);
        }
        LLVMValueRef r = LLVMBuildUDiv(b, u, c32(L, upr), ""), q = LLVMBuildURem(b, u, c32(L, upr), "");
        LLVMValueRef gi = LLVMBuildAdd(b, i0, LLVMBuildZExt(b, r, L->t_i64, ""), "");
        LLVMValueRef gj = LLVMBuildAdd(b, i1, LLVMBuildZExt(b, LLVMBuildMul(b, q, c32(L, per), ""), L->t_i64, ""), "");
        LLVMValueRef in = LLVMBuildAnd(b, x->ok, lw_in_range(L, gi, x->d0), "");
        LLVMValueRef nbytes;
        if (fast) { /* the chunk's elements inside the view: 0..per of them, from gj >= 0 (gj is on per) */
            LLVMValueRef left = LLVMBuildSub(b, x->d1, gj, "");
            LLVMTypeRef t = L->t_i64;
            LLVMValueRef mm[2] = {left, c64(L, per)};
            LLVMValueRef n = lw_call(L, "llvm.smin", &t, 1, mm, 2);
            in = LLVMBuildAnd(b, in, LLVMBuildICmp(b, LLVMIntSGT, n, c64(L, 0), ""), "");
            in = LLVMBuildAnd(b, in, LLVMBuildICmp(b, LLVMIntSGE, gj, c64(L, 0), ""), "");
            nbytes = LLVMBuildSelect(b, in, LLVMBuildTrunc(b, LLVMBuildMul(b, n, c64(L, x->esize), ""), L->t_i32, ""),
                                     c32(L, 0), "");
        } else {
            in = LLVMBuildAnd(b, in, lw_in_range(L, gj, x->d1), "");
            nbytes = LLVMBuildSelect(b, in, c32(L, 4), c32(L, 0), "");
        }
        /* a copy of no bytes reads nothing; its address is the view's own all the same */
        LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, gi, x->s0, ""), LLVMBuildMul(b, gj, x->s1, ""), "");
        off = LLVMBuildSelect(b, in, off, c64(L, 0), "");
        LLVMValueRef src = LLVMBuildGEP2(b, et, x->base, &off, 1, "");
        LLVMValueRef soff = LLVMBuildAdd(b, LLVMBuildMul(b, r, c32(L, x->pitch), ""), LLVMBuildMul(b, q, c32(L, per), ""), "");
        LLVMValueRef d = LLVMBuildAdd(b, dst32, LLVMBuildMul(b, soff, c32(L, x->esize), ""), "");
        if (fast || x->esize == 4) {
            cp_async(L, fast ? 16 : 4, d, src, nbytes);
        } else { /* loaded only in the view (an empty view's base may point nowhere), 0 elsewhere */
            LLVMValueRef la[3] = {LLVMBuildPtrToInt(b, src, L->t_i64, ""), LLVMBuildZExt(b, in, L->t_i32, ""), d};
            lw_asm(L, void_t(L),
                   "{ .reg .pred p; .reg .b16 v; setp.ne.b32 p, $1, 0; mov.b16 v, 0; @p ld.global.b16 v, [$0]; "
                   "st.shared.b16 [$2], v; }",
                   "l,r,r,~{memory}", la, 3, LW_ASM_SIDE_EFFECTS);
        }
        if (part_done) {
            LLVMBuildBr(b, part_done);
            LLVMPositionBuilderAtEnd(b, part_done);
        }
    }
}

/* Both ways of copying, chosen by x->fast at run time. */
static void copy_operand(Lower *L, const Operand *x, LLVMValueRef i0, LLVMValueRef i1, LLVMValueRef dst32)
{
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp16");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp4");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "copied");
    LLVMBuildCondBr(L->b, x->fast, fast, slow);
    LLVMPositionBuilderAtEnd(L->b, fast);
    copy_tile(L, x, i0, i1, dst32, 1);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, slow);
    copy_tile(L, x, i0, i1, dst32, 0);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

typedef struct {
    Operand a, b;
    LLVMValueRef m0, n0;     /* i64 */
    LLVMValueRef ring32;     /* the ring's shared address */
    uint32_t stage_bytes, a_bytes;
} Pipe;

/* Step `step`'s copies (when step < nk) into ring slot `slot` (i32), then
 * the group's commit (always: the groups then count steps). */
static void issue(Lower *L, const Pipe *P, LLVMValueRef step, LLVMValueRef nk, LLVMValueRef lo, uint32_t bk,
                  LLVMValueRef slot)
{
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "issue");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "issued");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, step, nk, ""), go, done);
    LLVMPositionBuilderAtEnd(L->b, go);
    LLVMValueRef k = LLVMBuildAdd(L->b, lo, LLVMBuildMul(L->b, step, c64(L, bk), ""), "k");
    LLVMValueRef st = LLVMBuildAdd(L->b, P->ring32, LLVMBuildMul(L->b, slot, c32(L, P->stage_bytes), ""), "");
    copy_operand(L, &P->a, P->m0, k, st);
    copy_operand(L, &P->b, k, P->n0, LLVMBuildAdd(L->b, st, c32(L, P->a_bytes), ""));
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    lw_asm(L, void_t(L), "cp.async.commit_group;", "~{memory}", NULL, 0, LW_ASM_SIDE_EFFECTS);
}

void lower_mma_loop(Lower *L, uint32_t fi)
{
    const TirModule *m = L->m;
    const TirInst *f = &m->insts[fi];
    LLVMBuilderRef b = L->b;
    const uint32_t *args = tir_args(m, f);
    const TirBlock *body = &m->blocks[f->body];
    const TirInst *yield = &m->insts[m->pool[body->insts + body->ninsts - 1]];
    uint32_t di = tir_value_def_inst(m, tir_args(m, yield)[0]);
    const TirInst *dot = &m->insts[di];
    const uint32_t *da = tir_args(m, dot);
    const TirInst *lda = &m->insts[tir_value_def_inst(m, da[0])], *ldb = &m->insts[tir_value_def_inst(m, da[1])];
    uint32_t bm = lda->type.dim[0], bk = lda->type.dim[1], bn = ldb->type.dim[1];
    uint32_t stages = (uint32_t)-f->ival;
    TirPrecision p = (TirPrecision)dot->ival;
    TirElem e = (TirElem)lda->type.elem;
    uint32_t esize = (uint32_t)tir_elem_bits(e) / 8, pad_a = mma_pipeline_pad_a(esize);
    /* above a persistent wgmma pipeline's ring (a kernel's later loop), fewer stages where they
     * would not fit beside it: the kernel then stays persistent */
    uint32_t planned = stages;
    while (stages > 2 && L->smem_floor + stages * mma_pipeline_stage_bytes(bm, bn, bk, esize) > TC_MAX_SHARED_BYTES)
        stages--;
    if (stages < planned && L->o->remarks && !L->rounded_views)
        diag_remark(L->d, f->loc, "mma.sync pipeline: %u stages, not %u, beside the wgmma pipeline's ring", stages,
                    planned);

    Layout lay = dot_result_layout(L, di);
    uint32_t nacc = layout_nregs(&lay);
    LLVMValueRef *init = lw_tile_in(L, args[3], &lay);
    LLVMValueRef *acc = lw_regs(L, nacc);
    if (!init || !acc)
        return;

    /* the steps: none where hi <= lo (the step is BK > 0) */
    LLVMValueRef lo = sext64(L, lw_val(L, args[0])->s), hi = sext64(L, lw_val(L, args[1])->s);
    LLVMValueRef span = LLVMBuildSub(b, hi, lo, "");
    LLVMValueRef nk = LLVMBuildSDiv(b, LLVMBuildAdd(b, span, c64(L, bk - 1), ""), c64(L, bk), "");
    nk = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, span, c64(L, 0), ""), nk, c64(L, 0), "nk");

    Pipe P = {.a_bytes = bm * (bk + pad_a) * esize, .stage_bytes = mma_pipeline_stage_bytes(bm, bn, bk, esize)};
    P.a = operand(L, lda, bm, bk, bk + pad_a, 0, lo);
    P.b = operand(L, ldb, bk, bn, bn + 8, 1, lo);
    {
        const uint32_t *aa = tir_args(m, lda), *ba = tir_args(m, ldb);
        P.m0 = sext64(L, lw_val(L, aa[lda->nargs - 2])->s);
        P.n0 = sext64(L, lw_val(L, ba[ldb->nargs - 1])->s);
    }
    LLVMValueRef ring = smem_ptr(L, stages * P.stage_bytes);
    P.ring32 = LLVMBuildTrunc(b, LLVMBuildPtrToInt(b, ring, L->t_i64, ""), L->t_i32, "ring");
    lw_barrier(L); /* the shared scratch's last readers are done */
    for (uint32_t s = 0; s + 1 < stages; s++)
        issue(L, &P, c64(L, s), nk, lo, bk, c32(L, s));

    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mma_loop");
    LLVMBasicBlockRef bodybb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mma_step");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mma_done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef it = LLVMBuildPhi(b, L->t_i64, "step"), slot = LLVMBuildPhi(b, L->t_i32, "slot");
    LLVMValueRef zero64 = c64(L, 0), zero32 = c32(L, 0);
    LLVMAddIncoming(it, &zero64, &pre, 1);
    LLVMAddIncoming(slot, &zero32, &pre, 1);
    LLVMValueRef *phis = lw_regs(L, nacc);
    if (!phis)
        return;
    for (uint32_t r = 0; r < nacc; r++) {
        phis[r] = LLVMBuildPhi(b, L->t_f32, "");
        LLVMAddIncoming(phis[r], &init[r], &pre, 1);
        acc[r] = phis[r];
    }
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, it, nk, ""), bodybb, exit);

    LLVMPositionBuilderAtEnd(b, bodybb);
    char wait[64];
    snprintf(wait, sizeof wait, "cp.async.wait_group %u;", stages - 2);
    lw_asm(L, void_t(L), wait, "~{memory}", NULL, 0, LW_ASM_SIDE_EFFECTS);
    lw_barrier(L);
    /* step it + S - 1 goes to the slot step it - 1 used */
    LLVMValueRef back = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, slot, zero32, ""), c32(L, stages - 1),
                                        LLVMBuildSub(b, slot, c32(L, 1), ""), "");
    issue(L, &P, LLVMBuildAdd(b, it, c64(L, stages - 1), ""), nk, lo, bk, back);
    LLVMValueRef sa = LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), ring,
                                    (LLVMValueRef[]){LLVMBuildMul(b, slot, c32(L, P.stage_bytes), "")}, 1, "");
    LLVMValueRef sb = LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), sa, (LLVMValueRef[]){c32(L, P.a_bytes)}, 1, "");
    int round = e != ELEM_F32         ? LW_FRAG_AS_IS
                : p == PREC_TF32_RNA ? LW_FRAG_RNA
                : p == PREC_TF32_RNE ? LW_FRAG_RNE
                : p == PREC_3XTF32   ? LW_FRAG_X3
                                     : LW_FRAG_AS_IS;
    LLVMValueRef row0 = layout_base_row(L, &lay), col0 = layout_base_col(L, &lay);
    uint32_t kstep = e == ELEM_F32 ? 8 : 16;
    for (uint32_t k = 0; k < bk; k += kstep)
        lw_mma_smem_step(L, sa, bk + pad_a, sb, bn + 8, e, &lay, row0, col0, round, c32(L, k), acc);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    for (uint32_t r = 0; r < nacc; r++)
        LLVMAddIncoming(phis[r], &acc[r], &latch, 1);
    LLVMValueRef it1 = LLVMBuildAdd(b, it, c64(L, 1), "");
    LLVMValueRef slot1 = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, slot, c32(L, stages - 1), ""), zero32,
                                         LLVMBuildAdd(b, slot, c32(L, 1), ""), "");
    LLVMAddIncoming(it, &it1, &latch, 1);
    LLVMAddIncoming(slot, &slot1, &latch, 1);
    LLVMBuildBr(b, head);

    LLVMPositionBuilderAtEnd(b, exit);
    /* the groups left are empty (steps past the last), but none may land later */
    lw_asm(L, void_t(L), "cp.async.wait_all;", "~{memory}", NULL, 0, LW_ASM_SIDE_EFFECTS);
    lw_set(L, f->result, (LVal){.kind = LV_TILE, .regs = phis, .lay = lay});
}
