/*
 * TMA copies for the swapped product (-fwgmma-tma; lower_wgmma.h).
 *
 * The kernel takes two tensor maps in hidden parameters (TcTmap, encoded
 * by the runtime at each launch from the arguments): A's rows as the
 * 128-byte swizzled K-major stage layout, B as panels of 8 columns
 * ([n / 8][k][n % 8], whose fragment reads hit 32 distinct banks). One
 * thread then issues a step: two cp.async.bulk.tensor completing on
 * landed[]. For tf32-rne the maps have the TFLOAT32 element type: the copy
 * itself rounds to nearest even, bit-exact with cvt.rn.tf32.f32 over all
 * 2^32 inputs (NaN -> 0x7FFFE000; measured on the H200, bench/NOTES.md v10),
 * so nothing else rounds. The maps describe the loop's views only where
 * their extents and strides are parameters or constants (the runtime
 * evaluates them) and the views rank 2 (or 3: the batch one more
 * dimension), the runtime encoding them for a unit column stride; the
 * kernel takes the TMA copies only where the runtime set both maps' flag
 * bits and B's tile columns start at a multiple of 8, and its own copies
 * otherwise (lower_wgmma_swapped.c), so a launch with zero maps is safe.
 */
#include "compiler/lower_wgmma.h"

#include <stdio.h>

/* Operand v of a view as a parameter or a constant. */
static int tmap_scalar(const TirModule *m, uint32_t v, TcTmapScalar *out)
{
    const TirValue *val = &m->values[v];
    if (val->kind == VAL_PARAM) {
        TirType t = val->type;
        if (t.kind != TY_SCALAR || (t.elem != ELEM_I32 && t.elem != ELEM_I64))
            return 0;
        *out = (TcTmapScalar){.param = (int32_t)val->index, .value = 0};
        return 1;
    }
    if (val->kind == VAL_RESULT && m->insts[val->def].op == OP_CONST) {
        *out = (TcTmapScalar){.param = -1, .value = m->insts[val->def].i64};
        return 1;
    }
    return 0;
}

/* The map of the rank-2 or rank-3 f32 view that load `ld` reads, if it
 * can be one: view operands p, [db,] d0, d1, [sb,] s0, s1. */
static int tmap_of_load(const TirModule *m, const TirInst *ld, TcTmap *t)
{
    const TirInst *v = &m->insts[tir_value_def_inst(m, tir_args(m, ld)[0])];
    if (v->op != OP_VIEW || (v->nargs != 5 && v->nargs != 7))
        return 0;
    const uint32_t *a = tir_args(m, v);
    uint32_t r = (v->nargs - 1) / 2, o = r - 2; /* o = 1: batched */
    const TirValue *base = &m->values[a[0]];
    if (base->kind != VAL_PARAM || base->type.elem != ELEM_F32 || !tmap_scalar(m, a[1 + r + o + 1], &t->s1) ||
        (t->s1.param < 0 && t->s1.value != 1))
        return 0;
    t->base_param = base->index;
    t->batched = (uint8_t)o;
    if (o && (!tmap_scalar(m, a[1], &t->db) || !tmap_scalar(m, a[1 + r], &t->sb)))
        return 0;
    return tmap_scalar(m, a[1 + o], &t->d0) && tmap_scalar(m, a[2 + o], &t->d1) && tmap_scalar(m, a[1 + r + o], &t->s0);
}

uint32_t wgmma_tma_maps(const TirModule *m, const TirKernel *k, const TcOptions *o, TcTmap maps[2])
{
    if (o->arch != ARCH_SM90A || !o->wgmma || !o->wgmma_tma || !o->wgmma_swapped)
        return 0;
    const TirBlock *body = &m->blocks[k->body];
    for (uint32_t j = 0; j < body->ninsts; j++) {
        const TirInst *f = &m->insts[m->pool[body->insts + j]];
        if (f->op != OP_FOR || f->ival <= 0)
            continue;
        const TirInst *dot = wgmma_loop_dot(m, f);
        const uint32_t *da = tir_args(m, dot);
        TirPrecision p = (TirPrecision)dot->ival;
        if (tir_value_type(m, da[0]).elem != ELEM_F32 || p == PREC_IEEE)
            return 0; /* f16/bf16 and the FMA consumers copy as they do */
        uint32_t bm = dot->type.dim[0], bn = dot->type.dim[1];
        maps[0] = (TcTmap){.kind = TC_TMAP_ROWS, .tf32 = p == PREC_TF32_RNE, .box = {BK, (uint16_t)bm, 0}};
        maps[1] = (TcTmap){.kind = TC_TMAP_PANELS, .tf32 = p == PREC_TF32_RNE, .box = {8, BK, (uint16_t)(bn / 8)}};
        if (!tmap_of_load(m, &m->insts[tir_value_def_inst(m, da[0])], &maps[0]) ||
            !tmap_of_load(m, &m->insts[tir_value_def_inst(m, da[1])], &maps[1]))
            return 0;
        return 2;
    }
    return 0;
}

/* The generic address of hidden parameter `param` (a tensor map the TMA
 * unit reads in place, as CUDA's __grid_constant__ parameters): LLVM names
 * a kernel's parameters <kernel>_param_<index>. */
static LLVMValueRef tmap_addr(Lower *L, uint32_t param)
{
    char tmpl[1200];
    snprintf(tmpl, sizeof tmpl, "mov.b64 $0, %s_param_%u;\n\tcvta.param.u64 $0, $0;", tir_str(L->m, L->k->name), param);
    return lw_asm(L, L->t_i64, tmpl, "=l", NULL, 0, 0);
}

LLVMValueRef wg_tma_usable(Pipe *P, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef flags = LLVMGetParam(L->fn, L->tma_param0 + 2);
    LLVMValueRef both = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, flags, c32(L, 3), ""), c32(L, 3), "");
    LLVMValueRef col8 = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, xb->i1, c64(L, 7), ""), c64(L, 0), "");
    return LLVMBuildAnd(b, both, col8, "tma");
}

void wg_tma_prepare(Pipe *P)
{
    P->tmap_a = tmap_addr(P->L, P->L->tma_param0);
    P->tmap_b = tmap_addr(P->L, P->L->tma_param0 + 1);
}

void wg_tma_issue(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef t)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef s = wg_wait_step(P, P->empty32, t, 1);
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, t, L->t_i64, ""), c64(L, BK), ""), "");
    LLVMValueRef stage = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
    LLVMValueRef bar = wg_bar_addr(L, P->landed32, s);
    LLVMValueRef tx[2] = {bar, c32(L, (P->bm + P->bn) * BK * 4)};
    lw_asm(L, void_t(L), "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}", tx, 2, SE);
    /* coordinates: the runtime encodes a map only for extents below 2^31 */
    LLVMValueRef k32 = LLVMBuildTrunc(b, k, L->t_i32, "");
    /* a batched view's batch is the outermost coordinate (zeros for a batch
     * outside the view, as the load's padding) */
    LLVMValueRef a[6] = {stage, P->tmap_a, k32, LLVMBuildTrunc(b, xa->i0, L->t_i32, ""), bar, P->batch_a};
    lw_asm(L, void_t(L),
           P->batch_a ? "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                        "[$0], [$1, {$2, $3, $5}], [$4];"
                      : "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                        "[$0], [$1, {$2, $3}], [$4];",
           P->batch_a ? "r,l,r,r,r,r,~{memory}" : "r,l,r,r,r,~{memory}", a, P->batch_a ? 6 : 5, SE);
    LLVMValueRef bb[6] = {LLVMBuildAdd(b, stage, c32(L, P->copies * P->bm * ROW_BYTES), ""), P->tmap_b, k32,
                          LLVMBuildTrunc(b, LLVMBuildAShr(b, xb->i1, c64(L, 3), ""), L->t_i32, ""), bar, P->batch_b};
    lw_asm(L, void_t(L),
           P->batch_b ? "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                        "[$0], [$1, {0, $2, $3, $5}], [$4];"
                      : "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                        "[$0], [$1, {0, $2, $3}], [$4];",
           P->batch_b ? "r,l,r,r,r,r,~{memory}" : "r,l,r,r,r,~{memory}", bb, P->batch_b ? 6 : 5, SE);
}
