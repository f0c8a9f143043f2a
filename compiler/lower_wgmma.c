/*
 * The sm_90a GEMM loop (marked by pass_wgmma): the driver that lowers it to
 * one of the warp-specialized wgmma pipelines (lower_wgmma.h: f32 through
 * the swapped product (its form for a K-major B: lower_wgmma_kmajor.c) or
 * the older pipeline, f16/bf16 through lower_wgmma_ss.c),
 * and what they share: mbarriers, counted loops, the rounding and 3xTF32 split, the
 * 128-byte swizzle, descriptors and the wgmma asm, the consumers' loop.
 *
 * The program runs its warps(W) as consumers (W/4 warpgroups) and P more
 * warpgroups as producers; the consumers' accumulators are an MMA layout
 * (transposed for the swapped product), so the rest of the kernel lowers as
 * usual, run by the consumers alone (lw_barrier becomes named barrier 1 of
 * the consumer threads); the producers exit after the loop. Registers: a
 * cap at entry (.maxnreg) and setmaxnreg give the consumers what the
 * producers do not need.
 */
#include "compiler/lower_wgmma.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The dot of a marked loop (its body: load, load, dot, yield). */
const TirInst *wgmma_loop_dot(const TirModule *m, const TirInst *f)
{
    const TirBlock *body = &m->blocks[f->body];
    const TirInst *y = &m->insts[m->pool[body->insts + body->ninsts - 1]];
    return &m->insts[tir_value_def_inst(m, tir_args(m, y)[0])];
}

/* Whether a marked loop's dot takes f16/bf16 (lower_wgmma_ss.c). */
static int half_dot(const TirModule *m, const TirInst *dot)
{
    return tir_value_type(m, tir_args(m, dot)[0]).elem != ELEM_F32;
}

const TirInst *wgmma_marked_loop(const TirModule *m, const TirKernel *k)
{
    const TirBlock *b = &m->blocks[k->body];
    for (uint32_t j = 0; j < b->ninsts; j++) {
        const TirInst *in = &m->insts[m->pool[b->insts + j]];
        if (in->op == OP_FOR && in->ival > 0)
            return in;
    }
    return NULL;
}

uint32_t wgmma_producer_threads(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirInst *in = wgmma_marked_loop(m, k);
    if (!in)
        return 0;
    const TirInst *dot = wgmma_loop_dot(m, in);
    if (half_dot(m, dot))
        return ss_producers(k->warps * 32, dot->type.dim[1], o) * WARPGROUP;
    if (o->wgmma_swapped && wgmma_kmajor_b_mma(m, k, o))
        return kmajor_producers(dot->type.dim[0], dot->type.dim[1], k->warps * 32, (TirPrecision)dot->ival,
                                (uint32_t)in->ival, o->wgmma_one_producer) *
               WARPGROUP;
    if (o->wgmma_swapped)
        return swapped_producers(dot->type.dim[0], dot->type.dim[1], k->warps * 32, (TirPrecision)dot->ival,
                                 (uint32_t)in->ival, o->wgmma_one_producer) *
               WARPGROUP;
    return wgmma_producers(dot->type.dim[1], (TirPrecision)dot->ival, (uint32_t)in->ival) * WARPGROUP;
}

int wgmma_f32_pipeline(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirInst *in = wgmma_marked_loop(m, k);
    return in && !half_dot(m, wgmma_loop_dot(m, in)) && o->wgmma_swapped;
}

/* Whether marked loop f's B is taken K-major (the one decision the tensor
 * maps and the lowering share): f16/bf16 wherever B's view is, f32 where
 * wgmma_kmajor_b_fits (tf32: lower_wgmma_kmajor.c) or wgmma_kmajor_b_frags
 * (3xtf32 and ieee: the swapped product, P->bkf; ieee's transposed by its producers, P->bt). */
static int loop_kmajor_b(const TirModule *m, const TirInst *f, uint32_t warps, const TcOptions *o)
{
    const TirInst *dot = wgmma_loop_dot(m, f);
    const uint32_t *da = tir_args(m, dot);
    const TirInst *ldb = &m->insts[tir_value_def_inst(m, da[1])];
    if (half_dot(m, dot)) /* any tile of the f16/bf16 pipeline's */
        return o->wgmma_kmajor_b && wgmma_view_col_major(m, ldb);
    return wgmma_kmajor_b_fits(m, ldb, dot->type.dim[0], dot->type.dim[1], warps, (TirPrecision)dot->ival, o) ||
           wgmma_kmajor_b_frags(m, ldb, dot->type.dim[0], dot->type.dim[1], warps, (TirPrecision)dot->ival, o);
}

/* ... and read by the swapped product's consumers from that layout (3xtf32's fragments, ieee's FMA operands) */
static int loop_kmajor_b_frags(const TirModule *m, const TirInst *f, uint32_t warps, const TcOptions *o)
{
    const TirInst *dot = wgmma_loop_dot(m, f);
    return !half_dot(m, dot) && wgmma_kmajor_b_frags(m, &m->insts[tir_value_def_inst(m, tir_args(m, dot)[1])],
                                                     dot->type.dim[0], dot->type.dim[1], warps,
                                                     (TirPrecision)dot->ival, o);
}

int wgmma_kmajor_b(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirInst *f = wgmma_marked_loop(m, k);
    return f && loop_kmajor_b(m, f, k->warps, o);
}

int wgmma_kmajor_b_mma(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirInst *f = wgmma_marked_loop(m, k);
    return f && loop_kmajor_b(m, f, k->warps, o) && !loop_kmajor_b_frags(m, f, k->warps, o);
}

/* Whether marked loop f's A is taken M-major (the tensor maps and the
 * lowering share it): f16/bf16, any tile of their pipeline's; f32, the
 * swapped product's (and B K-major's) without clusters. */
static int loop_mmajor_a(const TirModule *m, const TirInst *f, const TcOptions *o)
{
    const TirInst *dot = wgmma_loop_dot(m, f);
    return (half_dot(m, dot) || (o->wgmma_swapped && !o->wgmma_cluster)) && o->wgmma_mmajor_a &&
           wgmma_view_col_major(m, &m->insts[tir_value_def_inst(m, tir_args(m, dot)[0])]);
}

int wgmma_mmajor_a(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirInst *f = wgmma_marked_loop(m, k);
    return f && loop_mmajor_a(m, f, o);
}

int wgmma_persistable(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirInst *in = wgmma_marked_loop(m, k);
    return !in || half_dot(m, wgmma_loop_dot(m, in)) || o->wgmma_swapped;
}

enum { REGISTER_FILE = 65536 };

uint32_t wgmma_entry_regs(uint32_t launch)
{
    uint32_t r = REGISTER_FILE / launch / 8 * 8;
    return r > 255 ? 255 : r;
}

/* ---- mbarriers (inline PTX: LLVM 19 has no parity wait) ---- */

LLVMValueRef wg_bar_addr(Lower *L, LLVMValueRef arr32, LLVMValueRef stage)
{
    return LLVMBuildAdd(L->b, arr32, LLVMBuildShl(L->b, stage, c32(L, 3), ""), "");
}

void wg_bar_arrive(Lower *L, LLVMValueRef addr)
{
    lw_asm(L, void_t(L), "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}", &addr, 1, SE);
}

void wg_bar_arrive_if(Lower *L, LLVMValueRef addr, LLVMValueRef cond)
{
    LLVMValueRef a[2] = {addr, LLVMBuildZExt(L->b, cond, L->t_i32, "")};
    lw_asm(L, void_t(L),
           "{\n\t.reg .pred P1;\n\tsetp.ne.b32 P1, $1, 0;\n\t@P1 mbarrier.arrive.shared::cta.b64 _, [$0];\n\t}",
           "r,r,~{memory}", a, 2, SE);
}

/* Spins until the phase of the given parity has completed. */
void wg_bar_wait(Lower *L, LLVMValueRef addr, LLVMValueRef parity)
{
    LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.wait");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.done");
    LLVMBuildBr(L->b, spin);
    LLVMPositionBuilderAtEnd(L->b, spin);
    LLVMValueRef args[2] = {addr, parity};
    LLVMValueRef ok = lw_asm(L, L->t_i32,
                             "{\n\t.reg .pred P1;\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [$1], $2;\n\t"
                             "selp.b32 $0, 1, 0, P1;\n\t}",
                             "=r,r,r,~{memory}", args, 2, SE);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, ok, c32(L, 0), ""), done, spin);
    LLVMPositionBuilderAtEnd(L->b, done);
}

LLVMValueRef wg_wait_step(Pipe *P, LLVMValueRef arr32, LLVMValueRef t, int prior_round)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    if (P->base) /* persistent: steps numbered on from the programs before */
        t = LLVMBuildAdd(b, t, P->base, "");
    LLVMValueRef s = LLVMBuildURem(b, t, c32(L, P->stages), "");
    LLVMValueRef ph = LLVMBuildAnd(b, LLVMBuildUDiv(b, t, c32(L, P->stages), ""), c32(L, 1), "");
    if (prior_round)
        ph = LLVMBuildXor(b, ph, c32(L, 1), "");
    /* (a cluster's empty[] too, which both blocks' consumers release: CTA scope, as CUTLASS's;
     * cluster scope ran 1.25-1.7x slower, bench/NOTES.md v20) */
    wg_bar_wait(L, wg_bar_addr(L, arr32, s), ph);
    return s;
}

Loop wg_loop_open(Lower *L, const char *name)
{
    char nm[32];
    Loop lp = {.pre = LLVMGetInsertBlock(L->b)};
    snprintf(nm, sizeof nm, "%s.loop", name);
    lp.head = LLVMAppendBasicBlockInContext(L->ctx, L->fn, nm);
    snprintf(nm, sizeof nm, "%s.step", name);
    lp.body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, nm);
    snprintf(nm, sizeof nm, "%s.exit", name);
    lp.exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, nm);
    LLVMBuildBr(L->b, lp.head);
    LLVMPositionBuilderAtEnd(L->b, lp.head);
    lp.i = LLVMBuildPhi(L->b, L->t_i32, name);
    LLVMValueRef zero = c32(L, 0);
    LLVMAddIncoming(lp.i, &zero, &lp.pre, 1);
    return lp;
}

LLVMBasicBlockRef wg_if_open(Lower *L, LLVMValueRef cond, const char *name)
{
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(L->ctx, L->fn, name);
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildCondBr(L->b, cond, yes, done);
    LLVMPositionBuilderAtEnd(L->b, yes);
    return done;
}

void wg_if_close(Lower *L, LLVMBasicBlockRef done)
{
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

/* Ends the head: into the body while i < n. */
void wg_loop_test(Lower *L, Loop *lp, LLVMValueRef n)
{
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), lp->body, lp->exit);
    LLVMPositionBuilderAtEnd(L->b, lp->body);
}

/* Ends the body (from the current block): i + 1, back to the head; the
 * builder continues at the exit. */
void wg_loop_close(Lower *L, Loop *lp)
{
    LLVMValueRef next = LLVMBuildAdd(L->b, lp->i, c32(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMAddIncoming(lp->i, &next, &latch, 1);
    LLVMBuildBr(L->b, lp->head);
    LLVMPositionBuilderAtEnd(L->b, lp->exit);
}

/* The copies of element x the stages hold (see the file comment). */
void wg_split(Pipe *P, LLVMValueRef x, LLVMValueRef out[3])
{
    Lower *L = P->L;
    TirInst round = {.op = OP_ROUND_TF32, .ival = ROUND_RNA}, mask = {.op = OP_MASK_NONFINITE};
    switch (P->prec) {
    case PREC_TF32_TRUNC: /* the tensor core drops the low bits itself */
        out[0] = x;
        return;
    case PREC_TF32_RNE:
        round.ival = ROUND_RNE;
        out[0] = ew_apply(L, OP_ROUND_TF32, ELEM_F32, &x, 1, &round);
        return;
    case PREC_3XTF32: {
        LLVMValueRef big = ew_apply(L, OP_ROUND_TF32, ELEM_F32, &x, 1, &round);
        LLVMValueRef rest = LLVMBuildFSub(L->b, x, big, "");
        LLVMValueRef sm[2] = {ew_apply(L, OP_ROUND_TF32, ELEM_F32, &rest, 1, &round), big};
        LLVMValueRef hic[2] = {big, big};
        out[0] = big;
        out[1] = ew_apply(L, OP_MASK_NONFINITE, ELEM_F32, sm, 2, &mask);
        out[2] = ew_apply(L, OP_MASK_NONFINITE, ELEM_F32, hic, 2, &mask);
        return;
    }
    default:
        out[0] = ew_apply(L, OP_ROUND_TF32, ELEM_F32, &x, 1, &round);
        return;
    }
}

/* RNA in integers, exact for |x| below the overflow threshold (DESIGN.md 4:
 * (x + 0x1000) & 0xFFFFE000), as its two steps: the add alone serves a value
 * only a tensor core reads, which reads x & 0xFFFFE000 itself (DESIGN.md 5):
 * the same operand, one instruction less an element. */
static LLVMValueRef rna_add(Lower *L, LLVMValueRef x)
{
    LLVMValueRef u = LLVMBuildAdd(L->b, LLVMBuildBitCast(L->b, x, L->t_i32, ""), c32(L, 0x1000), "");
    return LLVMBuildBitCast(L->b, u, L->t_f32, "");
}

static LLVMValueRef tf32_mask(Lower *L, LLVMValueRef x)
{
    LLVMValueRef u = LLVMBuildAnd(L->b, LLVMBuildBitCast(L->b, x, L->t_i32, ""), c32(L, (int32_t)0xFFFFE000u), "");
    return LLVMBuildBitCast(L->b, u, L->t_f32, "");
}

/* wg_split() for n elements at once, out[c][i] = copy c of x[i]. rna and
 * 3xtf32 take a short path when no element is NaN, Inf or so large that
 * rounding overflows (one compare each; -fwgmma-x3-rest-test: the rests' sum finite, one
 * add each): rounding is then two integer ops (one where only the tensor
 * cores read the result: every copy but 3xtf32's big)
 * and hic = big; otherwise every element takes wg_split()'s guarded path. Both
 * give the same tensor-core operands (the same bits but for the low 13 of the
 * unmasked copies) where the short path applies. *special (if not NULL):
 * i1, the guarded path taken (for 3xtf32: some big non-finite, hic not big). */
void wg_split_batch(Pipe *P, const LLVMValueRef *x, uint32_t n, LLVMValueRef out[3][16], LLVMValueRef *special)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    if (special)
        *special = LLVMConstInt(LLVMInt1TypeInContext(L->ctx), 0, 0);
    if (P->prec != PREC_TF32_RNA && P->prec != PREC_3XTF32) {
        for (uint32_t i = 0; i < n; i++) {
            LLVMValueRef o[3];
            wg_split(P, x[i], o);
            for (uint32_t c = 0; c < P->copies; c++)
                out[c][i] = o[c];
        }
        return;
    }
    LLVMTypeRef f = L->t_f32;
    LLVMValueRef any = NULL, fbig[16], frest[16];
    if (P->x3_rest_test) {
        /* -fwgmma-x3-rest-test (experimental: 3-7% slower on an H100, bench/NOTES.md v41): the
         * short path's big and rest = x - big first: rest is Inf or NaN exactly where x takes the
         * guarded path (x NaN, Inf, or rounding to Inf; checked over all 2^32 inputs), and |rest|
         * < 2^117, so the sum of the rests is finite exactly when every element takes the short
         * path: one add an element in a tree of depth log2 n, where a compare an element chains
         * its predicates */
        LLVMValueRef sum[16];
        for (uint32_t i = 0; i < n; i++) {
            fbig[i] = tf32_mask(L, rna_add(L, x[i]));
            sum[i] = frest[i] = LLVMBuildFSub(b, x[i], fbig[i], "");
        }
        for (uint32_t w = 1; w < n; w *= 2)
            for (uint32_t i = 0; i + w < n; i += 2 * w)
                sum[i] = LLVMBuildFAdd(b, sum[i], sum[i + w], "");
        LLVMValueRef as = lw_call(L, "llvm.fabs", &f, 1, &sum[0], 1);
        any = LLVMBuildFCmp(b, LLVMRealUGE, as, LLVMConstReal(f, INFINITY), "");
    } else {
        /* 0x7F7FF000: the least magnitude whose RNA rounding is Inf */
        LLVMValueRef lim = LLVMConstBitCast(c32(L, 0x7F7FF000), f);
        for (uint32_t i = 0; i < n; i++) {
            fbig[i] = frest[i] = NULL;
            LLVMValueRef ax = lw_call(L, "llvm.fabs", &f, 1, (LLVMValueRef *)&x[i], 1);
            LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealUGE, ax, lim, "");
            any = any ? LLVMBuildOr(b, any, big, "") : big;
        }
    }
    if (special)
        *special = any;
    LLVMValueRef fv[3][16], sv[3][16];
    LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "rnd.fast");
    LLVMBasicBlockRef sbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "rnd.special");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "rnd.done");
    LLVMBuildCondBr(b, any, sbb, fbb);
    LLVMPositionBuilderAtEnd(b, fbb);
    int unmasked = P->L->o->wgmma_unmasked;
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef u = fbig[i] ? NULL : rna_add(L, x[i]);
        /* 3xtf32's big also makes the rest (and hic, which x3_spare reads back): masked */
        fv[0][i] = fbig[i] ? fbig[i] : P->copies == 3 || !unmasked ? tf32_mask(L, u) : u;
        if (P->copies == 3) {
            LLVMValueRef small = rna_add(L, frest[i] ? frest[i] : LLVMBuildFSub(b, x[i], fv[0][i], ""));
            fv[1][i] = unmasked ? small : tf32_mask(L, small);
            /* hic = big; unmasked, big before its mask: a value of its own, so that where the
             * guarded path's hic differs from its big (the phis below) the short path needs no
             * copy of big (ptxas moved 16 registers a stage in the consumers) */
            fv[2][i] = unmasked && u ? u : fv[0][i];
        }
    }
    LLVMBasicBlockRef fend = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, sbb);
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef o[3];
        wg_split(P, x[i], o);
        for (uint32_t c = 0; c < P->copies; c++)
            sv[c][i] = o[c];
    }
    LLVMBasicBlockRef send = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    for (uint32_t c = 0; c < P->copies; c++)
        for (uint32_t i = 0; i < n; i++) {
            out[c][i] = LLVMBuildPhi(b, f, "");
            LLVMValueRef vals[2] = {fv[c][i], sv[c][i]};
            LLVMBasicBlockRef bbs[2] = {fend, send};
            LLVMAddIncoming(out[c][i], vals, bbs, 2);
        }
}

/* Byte offset of 16-byte chunk `chunk` of 128-byte row `row` under the
 * 128-byte swizzle: chunk ^ (row % 8). */
void wg_trap_if(Lower *L, LLVMValueRef cond)
{
    lw_asm(L, void_t(L), "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $0, 0;\n\t@p trap;\n\t}", "r,~{memory}",
           (LLVMValueRef[]){LLVMBuildZExt(L->b, cond, L->t_i32, "")}, 1, SE);
}

LLVMValueRef wg_smem_1024(Lower *L, uint32_t bytes, LLVMValueRef *addr32)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef sm = smem_ptr(L, bytes + 1024u);
    LLVMValueRef sm64 = LLVMBuildPtrToInt(b, sm, L->t_i64, "");
    LLVMValueRef pad = LLVMBuildAnd(b, LLVMBuildSub(b, c64(L, 0), sm64, ""), c64(L, 1023), "");
    *addr32 = LLVMBuildTrunc(b, LLVMBuildAdd(b, sm64, pad, ""), L->t_i32, "");
    return LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), sm, &pad, 1, "");
}

LLVMValueRef wg_swz(Lower *L, LLVMValueRef row, LLVMValueRef chunk)
{
    LLVMValueRef x = LLVMBuildXor(L->b, chunk, LLVMBuildAnd(L->b, row, c32(L, 7), ""), "");
    return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, c32(L, ROW_BYTES), ""), LLVMBuildShl(L->b, x, c32(L, 4), ""),
                        "");
}

void wg_ld_shared_v4(Lower *L, LLVMValueRef base, LLVMValueRef off, LLVMValueRef *e)
{
    LLVMTypeRef v4 = LLVMVectorType(L->t_f32, 4);
    LLVMValueRef ld = LLVMBuildLoad2(L->b, v4, LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), base, &off, 1, ""), "");
    LLVMSetAlignment(ld, 16);
    for (uint32_t i = 0; i < 4; i++)
        e[i] = LLVMBuildExtractElement(L->b, ld, c32(L, i), "");
}

void wg_st_shared_v4(Lower *L, LLVMValueRef base, LLVMValueRef off, LLVMValueRef *e)
{
    LLVMTypeRef v4 = LLVMVectorType(L->t_f32, 4);
    LLVMValueRef v = LLVMGetUndef(v4);
    for (uint32_t i = 0; i < 4; i++)
        v = LLVMBuildInsertElement(L->b, v, e[i], c32(L, i), "");
    LLVMValueRef p = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), base, &off, 1, "");
    LLVMSetAlignment(LLVMBuildStore(L->b, v, p), 16);
}

/* ---- consumer ---- */

LLVMValueRef wg_descriptor_offsets(Lower *L, LLVMValueRef a32, uint32_t lbo, uint32_t sbo)
{
    LLVMValueRef a = LLVMBuildZExt(L->b, a32, L->t_i64, "");
    a = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, a, c64(L, 4), ""), c64(L, 0x3FFF), "");
    uint64_t hi = ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) | (1ull << 62);
    return LLVMBuildOr(L->b, a, LLVMConstInt(L->t_i64, hi, 0), "desc");
}

/* K-major: leading offset 16 bytes (encoded 1: unused when swizzled),
 * 8-row stride 1024 bytes. */
LLVMValueRef wg_descriptor(Lower *L, LLVMValueRef a32) { return wg_descriptor_offsets(L, a32, 16, 1024); }

/* Inline PTX `tmpl` on the accumulators: operands 0..nacc-1 are acc, read
 * and written in place (each output tied to its input), followed by the
 * inputs in[0..nin) with constraints in_cons (each with its leading comma).
 * acc receives the results. */
void wg_acc_asm(Lower *L, const char *tmpl, const char *in_cons, LLVMValueRef *acc, uint32_t nacc,
                    const LLVMValueRef *in, uint32_t nin)
{
    LLVMValueRef *args = lw_regs(L, nacc + nin);
    LLVMTypeRef *ftys = lw_alloc(L, nacc * sizeof *ftys);
    if (!args || !ftys)
        return;
    StrBuf c;
    sb_init(&c);
    for (uint32_t r = 0; r < nacc; r++) {
        sb_printf(&c, "%s=f", r ? "," : "");
        args[r] = acc[r];
        ftys[r] = L->t_f32;
    }
    for (uint32_t r = 0; r < nacc; r++)
        sb_printf(&c, ",%u", r);
    sb_puts(&c, in_cons);
    sb_puts(&c, ",~{memory}");
    if (nin)
        memcpy(args + nacc, in, nin * sizeof *in);
    if (c.oom) {
        lw_error(L, (TirLoc){0}, "out of memory while lowering");
    } else {
        LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, ftys, nacc, 0);
        LLVMValueRef r = lw_asm(L, st, tmpl, c.data, args, nacc + nin, SEC);
        for (uint32_t i = 0; i < nacc; i++)
            acc[i] = LLVMBuildExtractValue(L->b, r, i, "");
    }
    sb_free(&c);
}

LLVMValueRef x3_odd_step(const Pipe *P)
{
    return P->x3_sum2 && P->step ? LLVMBuildTrunc(P->L->b, P->step, LLVMInt1TypeInContext(P->L->ctx), "") : NULL;
}

/* n wgmmas m64 x wn x k8 (tf32), each on per accumulators, in one asm
 * statement on acc (nacc registers), committed as a group. With pending 0
 * the statement waits for every group, so nothing touches the accumulators
 * while they are in flight; otherwise (the first group of a split stage,
 * the k-overlapped consumers) the next group on the same accumulators must
 * follow before any other use of them (wgmmas in order may chain on
 * in-flight accumulators), and the register operands of the groups left in
 * flight must not be written (ptxas keeps them live until the wait). */
void wg_wgmma_group(Pipe *P, const Wgmma *w, uint32_t n, uint32_t wn, uint32_t per, LLVMValueRef *acc,
                    uint32_t nacc, int pending)
{
    Lower *L = P->L;
    LLVMValueRef keep = x3_odd_step(P);
    uint32_t nin = keep ? 2 : 1;
    for (uint32_t d = 0; d < n; d++)
        nin += w[d].adesc ? 2 : 5;
    LLVMValueRef *in = lw_regs(L, nin);
    if (!in)
        return;
    StrBuf t, c;
    sb_init(&t);
    sb_init(&c);
    uint32_t o = 2 * nacc, flag = 2 * nacc + nin - 1; /* operand numbers */
    if (keep) /* P0 (the first wgmmas' scale-d) from the step's parity, the operand before the flag */
        sb_printf(&t, "{\n\t.reg .pred P0, P1;\n\tsetp.ne.b32 P1, $%u, 0;\n\tsetp.ne.b32 P0, $%u, 0;\n"
                  "\twgmma.fence.sync.aligned;\n", flag, flag - 1);
    else
        sb_printf(&t, "{\n\t.reg .pred P0, P1;\n\tsetp.ne.b32 P1, $%u, 0;\n\tsetp.eq.b32 P0, $%u, 0;\n"
                  "\twgmma.fence.sync.aligned;\n", flag, flag);
    for (uint32_t d = 0, x = 0; d < n; d++) {
        sb_printf(&t, "\twgmma.mma_async.sync.aligned.m64n%uk8.f32.tf32.tf32 {", wn);
        for (uint32_t r = 0; r < per; r++)
            sb_printf(&t, "%s$%u", r ? ", " : "", w[d].acc0 + r);
        if (w[d].adesc) { /* both operands from shared memory */
            in[x++] = w[d].adesc;
            in[x++] = w[d].desc;
            sb_printf(&t, "}, $%u, $%u, %s, 1, 1;\n", o, o + 1, w[d].from_zero ? "P0" : "P1");
            sb_puts(&c, ",l,l");
            o += 2;
            continue;
        }
        memcpy(&in[x], w[d].a, sizeof w[d].a);
        in[x + 4] = w[d].desc;
        x += 5;
        sb_printf(&t, "}, {$%u, $%u, $%u, $%u}, $%u, %s, 1, 1;\n", o, o + 1, o + 2, o + 3, o + 4,
                  w[d].from_zero ? "P0" : "P1");
        sb_puts(&c, ",r,r,r,r,l");
        o += 5;
    }
    sb_puts(&t, "\twgmma.commit_group.sync.aligned;\n");
    if (pending != WG_NO_WAIT)
        sb_printf(&t, "\twgmma.wait_group.sync.aligned %d;\n", pending);
    sb_puts(&t, "\t}");
    if (keep) {
        sb_puts(&c, ",r");
        in[nin - 2] = LLVMBuildZExt(L->b, keep, L->t_i32, "");
    }
    sb_puts(&c, ",r");
    in[nin - 1] = c32(L, 1);
    if (t.oom || c.oom)
        lw_error(L, (TirLoc){0}, "out of memory while lowering");
    else
        wg_acc_asm(L, t.data, c.data, acc, nacc, in, nin);
    sb_free(&t);
    sb_free(&c);
}

/* (A copy, B copy) of each product: 3xtf32 sums small*hic, hic*small, big*big */
const uint32_t wg_pairs3[3][2] = {{1, 2}, {2, 1}, {0, 0}};

void wg_producer_steps(Pipe *P, LLVMValueRef *pwg, LLVMValueRef *lt, LLVMValueRef *mine)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef ptid = LLVMBuildSub(b, L->tid, c32(L, P->consumers), "");
    *pwg = LLVMBuildLShr(b, ptid, c32(L, 7), "");
    *lt = LLVMBuildAnd(b, ptid, c32(L, WARPGROUP - 1), "");
    LLVMValueRef left = LLVMBuildSub(b, P->nsteps, *pwg, "");
    LLVMValueRef m = LLVMBuildUDiv(b, LLVMBuildAdd(b, left, c32(L, P->producers - 1), ""), c32(L, P->producers), "");
    *mine = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, left, c32(L, 0), ""), m, c32(L, 0), "mine");
}

/* The consumers' loop. Where a launch may pass A and B rounded (P->pre),
 * the kernel has two entries (compiler/entries.c): the one for views that
 * come rounded takes B's fragments as they load (P->b_ready, as tf32-rne's
 * do), the other rounds them. */
static void consumer(Pipe *P, LLVMValueRef *acc, uint32_t nacc)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef desc_b = wg_descriptor(L, LLVMBuildAdd(b, P->ring32, c32(L, P->bm * ROW_BYTES), ""));
    if (P->cluster) /* the peer block, whose empty[] wg_release arrives on too: read once, not per release */
        P->peer = LLVMBuildXor(b, wg_cluster_rank(L), c32(L, 1), "peer");
    /* the stage before is released once the group after it is issued */
    int overlap = P->k_overlap || ((P->ss || (P->kss && !P->bk_one_stage)) && !P->serial);
    if (P->ffma)
        ffma_frags(P);
    else if (P->swapped && !P->ss && !P->kss)
        swapped_frags(P);

    Loop lp = wg_loop_open(L, "mma");
    LLVMValueRef it = lp.i;
    /* x3_sum2: the part sums after the accumulators (their first value unread: step 0 starts them) */
    uint32_t ncarry = P->x3_sum2 ? 2 * nacc : nacc;
    LLVMValueRef *phis = lw_regs(L, ncarry);
    if (!phis)
        return;
    for (uint32_t r = 0; r < ncarry; r++) {
        LLVMValueRef init = r < nacc ? acc[r] : LLVMConstReal(L->t_f32, 0.0);
        phis[r] = LLVMBuildPhi(b, L->t_f32, "");
        LLVMAddIncoming(phis[r], &init, &lp.pre, 1);
    }
    wg_loop_test(L, &lp, P->nsteps);
    /* P->direct under TMA: the copies' landed[] alone (no producer releases full[]) */
    LLVMValueRef first = P->direct ? LLVMBuildSelect(b, P->use_tma, P->landed32, P->full32, "") : P->full32;
    LLVMValueRef s = wg_wait_step(P, first, it, 0);
    if (P->swapped) /* B is read from where the bulk copies wrote it: observe their barrier too */
        wg_wait_step(P, P->landed32, it, 0);
    LLVMValueRef soff = LLVMBuildMul(b, s, c32(L, P->stage_bytes), "");
    LLVMValueRef *cur = lw_regs(L, ncarry);
    if (!cur)
        return;
    memcpy(cur, phis, ncarry * sizeof *cur);
    P->step = it;
    LLVMValueRef db = LLVMBuildAdd(b, desc_b, LLVMBuildZExt(b, LLVMBuildLShr(b, soff, c32(L, 4), ""), L->t_i64, ""), "");
    LLVMValueRef rel_addr = NULL, rel_if = NULL; /* overlap: the stage before, released inside */
    if (overlap) {
        LLVMValueRef prev = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, s, c32(L, 0), ""), c32(L, P->stages - 1),
                                            LLVMBuildSub(b, s, c32(L, 1), ""), "");
        rel_addr = wg_bar_addr(L, P->empty32, prev);
        rel_if = LLVMBuildICmp(b, LLVMIntNE, it, c32(L, 0), "");
    }
    if (P->ss) {
        ss_stage(P, soff, cur, nacc, rel_addr, rel_if);
    } else if (P->kss) {
        kmajor_stage(P, soff, cur, nacc, rel_addr, rel_if);
    } else if (P->k_overlap) {
        swapped_stage(P, s, soff, cur, nacc, rel_addr, rel_if);
    } else if (P->ffma) {
        ffma_stage(P, soff, cur, nacc);
    } else if (P->swapped) {
        swapped_stage(P, s, soff, cur, nacc, NULL, NULL);
    } else {
        transposed_stage(P, soff, db, cur, nacc);
    }
    if (!overlap)
        wg_release(P, wg_bar_addr(L, P->empty32, s), NULL);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    for (uint32_t r = 0; r < ncarry; r++)
        LLVMAddIncoming(phis[r], &cur[r], &latch, 1);
    wg_loop_close(L, &lp);
    P->step = NULL;
    memcpy(acc, phis, nacc * sizeof *acc);
    if (overlap) { /* the last step's group, then its stage */
        wg_acc_asm(L, "wgmma.wait_group.sync.aligned 0;", "", acc, nacc, NULL, 0);
        LLVMValueRef n = P->base ? LLVMBuildAdd(b, P->base, P->nsteps, "") : P->nsteps;
        LLVMValueRef last = LLVMBuildURem(b, LLVMBuildSub(b, n, c32(L, 1), ""), c32(L, P->stages), "");
        wg_release(P, wg_bar_addr(L, P->empty32, last), LLVMBuildICmp(b, LLVMIntSGT, P->nsteps, c32(L, 0), ""));
    }
}

/* ---- the loop ---- */

/* The barriers' initialization, by one thread: full[] and empty[] (and
 * landed[]) of every stage. */
static void init_barriers(Pipe *P)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    for (uint32_t s = 0; s < P->stages; s++) {
        /* ss: every producer thread arrives twice per step (its copies, and
         * itself: ss_issue); swapped: the copier's, or each producer's for
         * its own steps */
        LLVMValueRef a[2] = {wg_bar_addr(L, P->full32, c32(L, s)),
                             c32(L, P->ss ? 2 * P->producers * WARPGROUP : WARPGROUP)};
        if (P->ss && P->tma) /* with TMA: the issuing thread's arrival, and the bytes */
            a[1] = LLVMBuildSelect(b, P->use_tma, c32(L, 1), a[1], "");
        lw_asm(L, void_t(L), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2, SE);
        a[0] = wg_bar_addr(L, P->empty32, c32(L, s));
        a[1] = c32(L, P->cluster ? 2 * P->consumers / 32 : P->consumers); /* a cluster: both blocks' consumer warps */
        lw_asm(L, void_t(L), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2, SE);
        if (P->swapped) { /* every producer thread arrives once per step (with TMA: the issuing one) */
            a[0] = wg_bar_addr(L, P->landed32, c32(L, s));
            a[1] = P->tma ? LLVMBuildSelect(b, P->use_tma, c32(L, 1), c32(L, WARPGROUP), "") : c32(L, WARPGROUP);
            lw_asm(L, void_t(L), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2, SE);
        }
    }
    /* the bulk (and TMA) copies complete on landed[] (f16/bf16 TMA: full[]) through the async
     * proxy: it must see the inits */
    if (P->swapped || P->tma)
        lw_asm(L, void_t(L), "fence.mbarrier_init.release.cluster;", "~{memory}", NULL, 0, SE);
}

static void inval_barriers(Pipe *P)
{
    Lower *L = P->L;
    for (uint32_t s = 0; s < (P->swapped ? 3 : 2) * P->stages; s++) {
        LLVMValueRef a = wg_bar_addr(L, P->full32, c32(L, s)); /* empty[] (and landed[]) follow full[] */
        lw_asm(L, void_t(L), "mbarrier.inval.shared::cta.b64 [$0];", "r,~{memory}", &a, 1, SE);
    }
}

/* Every thread of the block, the roles from their own loops: not bar.sync
 * (barrier.sync.aligned), which all of them must reach at the same
 * instruction (compute-sanitizer's synccheck: divergent threads). */
static void block_barrier(Lower *L)
{
    lw_asm(L, void_t(L), "barrier.sync 0;", "~{memory}", NULL, 0, SEC);
}

/* Persistent (L->role): the steps of the programs a block runs share the
 * ring, numbered on from program to program (P->base: the first step of
 * this one), so the barriers' phases run on and a role may start the next
 * program while the other finishes this one. The barriers' counts depend
 * on whether the program copies by TMA (P->use_tma, uniform for a launch
 * in practice; per program in principle): where it differs from the last
 * program's (and at the first), every thread of the block meets, thread 0
 * initializes the barriers anew, and the steps count from 0. */
static void pipe_programs(Pipe *P)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef prev = lw_programs_carry(L, c32(L, -1)), base = lw_programs_carry(L, c32(L, 0));
    LLVMValueRef cur = P->tma ? LLVMBuildZExt(b, P->use_tma, L->t_i32, "") : c32(L, 0);
    LLVMValueRef anew = LLVMBuildICmp(b, LLVMIntNE, cur, prev, "");
    P->base = LLVMBuildSelect(b, anew, c32(L, 0), base, "base");
    lw_programs_next(L, prev, cur);
    /* stage and parity depend on the step's number modulo 2S alone: kept
     * there, it never wraps however many programs a block runs */
    lw_programs_next(L, base, LLVMBuildURem(b, LLVMBuildAdd(b, P->base, P->nsteps, ""), c32(L, 2 * P->stages), ""));
    LLVMBasicBlockRef meet = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.anew");
    LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.init");
    LLVMBasicBlockRef ready = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.ready");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "pipe");
    LLVMBuildCondBr(b, anew, meet, go);
    LLVMPositionBuilderAtEnd(b, meet);
    block_barrier(L); /* every thread of the block: the last program's steps are over */
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, L->tid, c32(L, 0), ""), one, ready);
    LLVMPositionBuilderAtEnd(b, one);
    LLVMBasicBlockRef init = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.reinit");
    LLVMBasicBlockRef inval = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.inval");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGE, prev, c32(L, 0), ""), inval, init);
    LLVMPositionBuilderAtEnd(b, inval);
    inval_barriers(P);
    LLVMBuildBr(b, init);
    LLVMPositionBuilderAtEnd(b, init);
    init_barriers(P);
    LLVMBuildBr(b, ready);
    LLVMPositionBuilderAtEnd(b, ready);
    block_barrier(L); /* the barriers are ready */
    if (P->cluster) /* and the peer block's (its first program too: tma_only never starts anew) */
        wg_cluster_sync(L);
    LLVMBuildBr(b, go);
    LLVMPositionBuilderAtEnd(b, go);
}

/* setmaxnreg (tmpl with the count) where the role starts: at its entry
 * when persistent (once, before its loop), else here. */
static void role_registers(Pipe *P, const char *op, uint32_t regs)
{
    Lower *L = P->L;
    if (!regs)
        return;
    char t[64];
    snprintf(t, sizeof t, "setmaxnreg.%s.sync.aligned.u32 %u;", op, regs);
    LLVMBasicBlockRef at = LLVMGetInsertBlock(L->b);
    if (L->role) /* first: ptxas spilled the program count computed before it (4 bytes at 128x256) */
        LLVMPositionBuilderBefore(L->b, LLVMGetFirstInstruction(L->role_entry));
    lw_asm(L, void_t(L), t, "~{memory}", NULL, 0, SEC);
    LLVMPositionBuilderAtEnd(L->b, at);
}

static uint32_t register_split(const Pipe *P, uint32_t *creg)
{
    return P->ss        ? ss_register_split(P->consumers, P->producers, creg)
           : P->swapped ? swapped_register_split(P->consumers, P->producers, P->copies, P->x3_sum2, creg)
                        : transposed_register_split(P->consumers, P->producers, P->copies, creg);
}

static void pipe_producers(Pipe *P, const Access *xa, const Access *xb)
{
    uint32_t creg, preg = register_split(P, &creg);
    role_registers(P, "dec", preg);
    if (P->ss)
        ss_producer(P, xa, xb);
    else if (P->swapped)
        swapped_producer(P, xa, xb);
    else
        transposed_producer(P, xa, xb);
}

/* The consumers' loop on accumulators from `init` (a constant tile), the
 * result as IR value `result`. */
static void pipe_consumers(Pipe *P, uint32_t init, uint32_t result)
{
    Lower *L = P->L;
    uint32_t creg;
    register_split(P, &creg);
    role_registers(P, "inc", creg);
    L->bar_threads = P->consumers;
    Layout lay = {.kind = LAYOUT_MMA, .rows = P->bm, .cols = P->bn, .wm = P->consumers / 32, .wn = 1, .mt = 1,
                  .nt = P->bn / 8};
    if (P->swapped && !P->kss) /* C^T's MMA layout: warp w holds its 16 * blocks columns of B */
        lay = (Layout){.kind = LAYOUT_MMA, .trans = 1, .rows = P->bm, .cols = P->bn, .wm = P->consumers / 32, .wn = 1,
                       .mt = P->blocks, .nt = P->bm / 8, .nperm = (uint8_t)P->b128};
    if (P->ffma)
        lay = ffma_layout(P);
    LLVMValueRef *acc = lw_tile_in(L, init, &lay); /* a constant tile (pass_wgmma) */
    uint32_t nacc = layout_nregs(&lay);
    LLVMValueRef *regs = lw_regs(L, nacc);
    if (!acc || !regs)
        return;
    memcpy(regs, acc, nacc * sizeof *regs);
    consumer(P, regs, nacc);
    lw_set(L, result, (LVal){.kind = LV_TILE, .regs = regs, .lay = lay});
}

void wg_producer_exit(Lower *L)
{
    if (L->role)
        LLVMBuildBr(L->b, L->next_prog);
    else
        LLVMBuildRetVoid(L->b);
}

/* --remarks: how the pipeline is built (pass_wgmma said that it is). */
static void pipe_remark(const Pipe *P, TirLoc loc)
{
    int rounds = P->prec == PREC_TF32_RNA || P->prec == PREC_TF32_RNE || P->prec == PREC_3XTF32;
    const char *how = P->ss     ? "; both operands from shared memory as they lie" /* + the layouts below */
                      : P->bt   ? "; FMA consumers reading fp32 from shared memory; B K-major: copied as A "
                                  "is, transposed in place into 32-column panels by the producers"
                      : P->bkf && P->ffma ? "; FMA consumers reading fp32 from shared memory; B K-major: copied "
                                            "as A is"
                      : P->bkf  ? "; B K-major: copied as A is, split by the consumers as they load their "
                                  "fragments"
                      : P->kss  ? (P->prec == PREC_TF32_RNE && P->tma
                                       ? "; B K-major: both operands from shared memory, the TMA copies round to "
                                         "tf32 (the producers round where a launch gives no maps)"
                                   : rounds ? "; B K-major: both operands from shared memory, rounded there by the "
                                              "producers"
                                            : "; B K-major: both operands from shared memory")
                      : P->ffma ? "; FMA consumers reading fp32 from shared memory"
                      : !P->swapped ? (rounds ? "; B transposed and rounded (split) by the producers, A rounded by the "
                                                "consumers in registers"
                                              : "; B transposed by the producers")
                      : P->prec == PREC_TF32_RNE && P->tma
                          ? "; the TMA copies round to tf32 (the producers round where a launch gives no maps)"
                      : !rounds   ? ""
                      : P->round_b ? "; A and B rounded in shared memory by the producers"
                                   : "; A rounded (split) in shared memory by the producers, B by the consumers "
                                     "in registers";
    diag_remark(P->L->d, loc, "wgmma pipeline %ux%u: %u stages, %u consumer and %u producer warpgroup%s%s%s%s%s%s%s%s%s%s%s%s%s",
                P->bm, P->bn, P->stages, P->consumers / WARPGROUP, P->producers, P->producers > 1 ? "s" : "",
                P->roles ? " (one issues the copies, one finishes each step)" : "",
                P->tma ? "; TMA copies through tensor maps in hidden parameters (the kernel's own copies where a "
                         "launch gives none)"
                       : "",
                P->b128 ? ", B as 32-column panels under the 128-byte swizzle" : "", how,
                !P->am  ? ""
                : P->ss ? ", A M-major"
                        : "; A M-major: A^T's panels transposed in shared memory by the producers",
                !P->am || P->ss              ? ""
                : P->prec == PREC_3XTF32     ? ", split as they go"
                : P->prec == PREC_TF32_RNE   ? ", rounded as they go (again where the TMA rounded them: the same bits)"
                : P->prec == PREC_TF32_RNA   ? ", rounded as they go"
                                             : "",
                P->ss && P->bk ? ", B K-major" : "",
                P->k_overlap ? "; k-overlap" : "", P->direct ? "; direct" : "",
                P->tma_only ? "; TMA only (-fwgmma-tma-only): a launch must pass every map" : "",
                !P->pre                      ? ""
                : !P->L->o->wgmma_preround_b ? "; a second entry point for launches that pass A rounded (B rounded in registers)"
                : !P->L->o->wgmma_preround_a ? "; a second entry point for launches that pass B rounded (A rounded in shared memory)"
                                             : "; a second entry point for launches that pass A and B rounded (no rounding then)",
                P->cluster ? "; clusters of 2 blocks along x sharing B's copies (-fwgmma-cluster, experimental)"
                           : "");
}

/* The pipeline of marked loop `loop`, as its tile, options and tensor maps
 * make it (no IR yet); the shared memory it takes, and the older
 * pipeline's raw slots in it. */
static Pipe pipe_setup(Lower *L, const TirInst *loop, uint32_t *smem_bytes, uint32_t *raw_bytes)
{
    const TirModule *m = L->m;
    const TirInst *dot = wgmma_loop_dot(m, loop);
    const uint32_t *da = tir_args(m, dot);
    Pipe P = {.L = L, .bm = dot->type.dim[0], .bn = dot->type.dim[1], .stages = (uint32_t)loop->ival,
              .prec = (TirPrecision)dot->ival, .consumers = L->threads};
    P.copies = P.prec == PREC_3XTF32 ? 3 : 1;
    P.ss = half_dot(m, dot);
    P.swapped = L->o->wgmma_swapped && !P.ss;
    TirElem elem = tir_value_type(m, da[0]).elem;
    /* the kernel's tensor maps (lower.c made the parameters) are this loop's: one pipeline per kernel */
    P.tma = L->ntmaps >= 2;
    /* a K-major B: copied as A; f16/bf16 read it by a K-major descriptor (no transpose bit), f32
     * through lower_wgmma_kmajor.c */
    P.bk = loop_kmajor_b(m, loop, P.consumers / 32, L->o);
    P.bkf = P.bk && loop_kmajor_b_frags(m, loop, P.consumers / 32, L->o);
    P.kss = P.bk && !P.bkf && !P.ss;
    P.am = loop_mmajor_a(m, loop, L->o);
    if (P.ss) {
        P.producers = ss_producers(P.consumers, P.bn, L->o);
        P.elem = elem;
        P.stage_bytes = wgmma_ss_stage_bytes(P.bm, P.bn);
        *smem_bytes = wgmma_ss_smem_bytes(P.bm, P.bn, P.stages);
    } else if (P.swapped) {
        P.producers = (P.kss ? kmajor_producers : swapped_producers)(P.bm, P.bn, P.consumers, P.prec, P.stages,
                                                                    L->o->wgmma_one_producer);
        if (P.copies == 3 && P.producers != 1) /* x3_spare's named barrier counts one warpgroup */
            lw_error(L, (TirLoc){0}, "internal error: 3xtf32's swapped pipeline with %u producer warpgroups",
                     P.producers);
        P.stage_bytes = wgmma_swapped_stage_bytes(P.bm, P.bn, P.prec);
        P.blocks = P.bn / (64 * (P.consumers / WARPGROUP));
        P.unaligned = L->o->wgmma_unaligned;
        P.roles = L->o->wgmma_roles && P.producers == 2;
        P.round_b = P.roles && L->o->wgmma_round_b && (P.prec == PREC_TF32_RNA || P.prec == PREC_TF32_RNE);
        /* two wgmma groups per stage where each still holds 4 wgmmas or more
         * (two 64-column blocks per consumer warpgroup): +3% at 128x256,
         * -1 to -2% at 128x128 and for 3xtf32 (bench/NOTES.md v7) */
        P.split = L->o->wgmma_split && P.blocks >= 2 && P.copies == 1;
        /* 3xtf32 sums each stage's products apart (needs them complete).
         * Without TMA it measured +4-6% or -12% at 128x256 from run to run,
         * -8-10% at 256x128 (bench/NOTES.md v8, v9); with TMA tf32-rna
         * 128x256 +6-11%, rne within noise (v12); 256x128 (m64n256
         * wgmmas) -40% for rna (v13; without it 251.4 / 237.9 against 150.5 /
         * 155.4 at 4096^3 / 8192^3, v14) */
        P.k_overlap = L->o->wgmma_k_overlap && P.copies == 1 && P.prec != PREC_IEEE && P.bm <= 128;
        P.ffma = P.prec == PREC_IEEE; /* pass_wgmma marks ieee loops only where the FMA pipeline takes them */
        P.x3_sum2 = L->o->wgmma_x3_sum2 && P.copies == 3;
        /* (two blocks a consumer warpgroup, 64x256: the rests beside the raw values at the test
         * spilled 8 bytes) */
        P.x3_rest_test = L->o->wgmma_x3_rest_test && P.copies == 3 && P.blocks < 2;
        P.b128 = P.tma && L->o->wgmma_tma_b128;
        if (P.tma && P.prec == PREC_TF32_RNE) /* B arrives rounded: by the TMA, or by the rounder */
            P.round_b = 1;
        /* where the consumers round B for tf32-rne (no TMA), a cvt.rn.tf32
         * (F2FP) defining the next group's fragments while one is in flight
         * made ptxas serialize every wgmma of the stage (C7513: a wait for
         * all after each group; cvt.rna and integer ops do not): without
         * k-overlap the 128x256 consumer loop is 106 SASS instructions with
         * one wait a stage; k-overlap with the rounding in integers was 271
         * (bench/NOTES.md v22) */
        if (P.prec == PREC_TF32_RNE && !P.round_b)
            P.k_overlap = 0;
        *smem_bytes = wgmma_swapped_smem_bytes(P.bm, P.bn, P.prec, P.stages);
        if (P.bkf) { /* B's tile as A's, after A's copies; fragments from it (smem_bytes: the raw rows' size, more) */
            P.stage_bytes = (swapped_a_copies(&P) * P.bm + P.bn) * ROW_BYTES;
            P.b128 = P.round_b = 0;
            /* ieee: B^T's 4 k of a column in one chunk meet A's 4 k in the FMAs' register banks (a
             * 16-byte load's 4 registers: k % 4 both): 41% of the FMAs with a bank conflict against
             * 20% with a row-major B (SASS), ncu's dispatch stalls +35%, 0.89x the row-major speed
             * (bench/NOTES.md v39); transposed to a row-major B's panels by the idle producers.
             * Whole panels only (BN 16 reads rows), one copy of A (the consumers find B after A's
             * tile), and not where two producer warpgroups each copy and finish (-fno-wgmma-roles:
             * their 56 registers spilled 44 bytes at 128x128 with the 32 values a lane transposes) */
            if (P.ffma && L->o->wgmma_ffma_transpose_b && P.bn % 32 == 0 && swapped_a_copies(&P) == 1 &&
                (P.roles || P.producers == 1)) {
                P.bt = 1;
                P.bkf = 0;
            }
        } else if (P.kss) { /* B's tile as A's: no fragments, no panels, nothing rounded by the consumers */
            P.stage_bytes = (P.bm + P.bn) * ROW_BYTES;
            *smem_bytes = wgmma_kmajor_smem_bytes(P.bm, P.bn, P.stages);
            P.blocks = 0;
            P.split = P.b128 = P.round_b = P.k_overlap = P.x3_sum2 = 0; /* (a stage's group waits for the one before) */
        }
    } else {
        P.producers = wgmma_producers(P.bn, P.prec, P.stages);
        P.stage_bytes = wgmma_stage_bytes(P.bm, P.bn, P.prec);
        P.hoist = L->o->wgmma_hoist;
        *smem_bytes = wgmma_smem_bytes(P.bm, P.bn, P.prec, P.stages);
    }
    P.lag = wgmma_lag(P.stages, P.producers);
    /* k-overlap's consumers hold two stages: not where the producers would then deadlock
     * (--stages=2, or -fno-wgmma-roles with 3 or 5 stages) */
    if (P.k_overlap && !wgmma_hold_two_ok(P.stages, P.producers, P.roles))
        P.k_overlap = 0;
    P.bk_one_stage = P.kss && !wgmma_hold_two_ok(P.stages, P.producers, P.roles);
    P.serial = L->o->wgmma_serial < 0 ? L->o->opt_level == 0 : L->o->wgmma_serial;
    if (P.serial)
        P.k_overlap = P.split = 0;
    *raw_bytes = 0;
    if (!P.swapped && !P.ss)
        *raw_bytes = P.producers * (P.lag + 1) * P.bn * ROW_BYTES;
    if (P.tma && L->o->wgmma_tma_only && (P.swapped || P.ss))
        P.tma_only = !wg_tma_only_refusal(m, loop, &m->insts[tir_value_def_inst(m, da[0])],
                                          &m->insts[tir_value_def_inst(m, da[1])], P.ss, P.b128, P.bk, P.am);
    /* a launch may pass tf32-rna's views rounded: a second entry point for them */
    P.pre = P.tma && L->tmaps_round && P.swapped && P.prec == PREC_TF32_RNA && !P.round_b;
    /* -fwgmma-tma-direct: the consumers wait on the copies' landed[] themselves where nothing is
     * left to round under TMA (tf32-trunc, tf32-rne, tf32-rna's entry for views that all come
     * rounded); persistent only with TMA only (direct skips full[] under TMA, so a program without
     * TMA would wait on phases of full[] that the ones before skipped) */
    /* the entry for rounded views: which of A and B come so (the others are rounded as they load) */
    int a_pre = P.pre && L->rounded_views && L->o->wgmma_preround_a;
    int b_pre = P.pre && L->rounded_views && L->o->wgmma_preround_b;
    P.a_ready = a_pre;
    P.b_ready = P.round_b || b_pre; /* P.bk: B comes rounded (its producers round it where not) */
    int nothing_to_round = P.prec == PREC_TF32_TRUNC || P.prec == PREC_TF32_RNE || (a_pre && b_pre);
    P.direct = P.swapped && P.tma && !P.am && L->o->wgmma_tma_direct && (!L->persist || P.tma_only) && !L->cluster &&
               nothing_to_round;
    /* lower.c decided it (wg_cluster_refusal: implies P.swapped, P.b128 and P.tma_only) */
    P.cluster = L->cluster && P.swapped && P.b128 && P.tma_only;
    if (L->cluster && !P.cluster)
        lw_error(L, (TirLoc){0}, "internal error: -fwgmma-cluster applied to a pipeline it does not fit");
    return P;
}

int wgmma_probe(Lower *L, const TirKernel *k, int *pre, int *tma_only)
{
    const TirInst *in = wgmma_marked_loop(L->m, k);
    uint32_t smem, raw;
    Pipe P = in ? pipe_setup(L, in, &smem, &raw) : (Pipe){0};
    *pre = P.pre;
    *tma_only = P.tma_only;
    return in != NULL;
}

void lower_wgmma_loop(Lower *L, uint32_t i)
{
    const TirModule *m = L->m;
    const TirInst in = m->insts[i];
    const uint32_t *args = tir_args(m, &in);
    const TirBlock *body = &m->blocks[in.body];
    const uint32_t *bargs = tir_block_args(m, body);
    const uint32_t *da = tir_args(m, wgmma_loop_dot(m, &in));
    const TirInst *lda = &m->insts[tir_value_def_inst(m, da[0])];
    const TirInst *ldb = &m->insts[tir_value_def_inst(m, da[1])];
    LLVMBuilderRef b = L->b;

    uint32_t smem_bytes, raw_bytes;
    Pipe P = pipe_setup(L, &in, &smem_bytes, &raw_bytes);
    TirElem elem = tir_value_type(m, da[0]).elem;

    /* the step count; k itself is never read from the IR inside the loop */
    LLVMValueRef lo = LLVMBuildSExt(b, lw_val(L, args[0])->s, L->t_i64, "lo");
    LLVMValueRef hi = LLVMBuildSExt(b, lw_val(L, args[1])->s, L->t_i64, "hi");
    LLVMValueRef span = LLVMBuildSub(b, hi, lo, "");
    uint32_t bk = P.ss ? SS_BK : BK, log2_bk = 0; /* a power of two */
    while ((1u << log2_bk) < bk)
        log2_bk++;
    LLVMValueRef steps = LLVMBuildAShr(b, LLVMBuildAdd(b, span, c64(L, bk - 1), ""), c64(L, log2_bk), "");
    steps = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, span, c64(L, 0), ""), steps, c64(L, 0), "");
    P.nsteps = LLVMBuildTrunc(b, steps, L->t_i32, "nsteps");
    P.lo = lo;
    lw_set(L, bargs[0], (LVal){.kind = LV_SCALAR, .s = lw_val(L, args[0])->s}); /* for lw_access only */
    Access xa = lw_access(L, lda, 0, elem), xb = lw_access(L, ldb, 0, elem);
    if (P.bk) /* the producers copy B^T's K-major rows */
        xb = transposed_access(&xb);
    if (P.am) /* and A^T's M-major rows */
        xa = transposed_access(&xa);
    if (P.cluster && L->role != LW_CONSUMERS) /* (the producers' choice) */
        P.shares_b = wg_cluster_shares_b(L, tir_args(m, ldb)[2]);
    if (P.tma) {
        P.use_tma = wg_tma_usable(&P, &xa, &xb);
        for (int o = 0; o < 2; o++) { /* a batched view's batch: the load's first index, in i32 */
            const TirInst *ld = o ? ldb : lda;
            if (lw_val(L, tir_args(m, ld)[0])->rank != 3)
                continue;
            LLVMValueRef bi = lw_val(L, tir_args(m, ld)[1])->s;
            P.use_tma = LLVMBuildAnd(b, P.use_tma, wg_fits_i32(L, LLVMBuildSExt(b, bi, L->t_i64, ""), 0), "");
            *(o ? &P.batch_b : &P.batch_a) = LLVMBuildIntCast2(b, bi, L->t_i32, 1, "");
        }
        L->tmaps_pre |= P.pre;
        if (P.tma_only) { /* no copies of its own: a program the maps cannot serve stops here */
            wg_trap_if(L, LLVMBuildNot(b, P.use_tma, ""));
            P.use_tma = LLVMConstInt(L->t_i1, 1, 0);
            L->tmaps_required = 1;
        }
    }
    if (L->o->remarks && L->role != LW_PRODUCERS && !L->rounded_views) { /* after P.pre; once a kernel */
        pipe_remark(&P, in.loc);
        if (L->o->wgmma_tma_only && !P.tma_only)
            diag_remark(L->d, in.loc, "-fwgmma-tma-only does not apply: %s%s",
                        !P.tma ? "the pipeline takes no tensor maps"
                        : !(P.swapped || P.ss)
                            ? "the older pipeline (-fno-wgmma-swapped) has no TMA-only form"
                            : wg_tma_only_refusal(m, &in, lda, ldb, P.ss, P.b128, P.bk, P.am),
                        P.tma ? ": the kernel keeps its own copies" : "");
    }

    /* the stages, 1024-byte aligned, 3xtf32's spare tile (swapped), the raw
     * B slots (older pipeline), then full[], empty[], (swapped) landed[] and
     * 3xtf32's flags */
    uint32_t ring_bytes = P.stages * P.stage_bytes;
    uint32_t spare_bytes = P.swapped && P.copies == 3 ? P.bm * ROW_BYTES : 0; /* 3xtf32's hic tile */
    P.ring = wg_smem_1024(L, smem_bytes - 1024u, &P.ring32); /* (smem_bytes has the 1024 for the alignment) */
    P.spare32 = LLVMBuildAdd(b, P.ring32, c32(L, ring_bytes), "");
    P.raw_off = c32(L, ring_bytes + spare_bytes);
    P.raw32 = LLVMBuildAdd(b, P.ring32, P.raw_off, "");
    P.full32 = LLVMBuildAdd(b, P.raw32, c32(L, raw_bytes), "");
    P.empty32 = LLVMBuildAdd(b, P.full32, c32(L, 8 * P.stages), "");
    P.landed32 = LLVMBuildAdd(b, P.empty32, c32(L, 8 * P.stages), "");
    P.x3flags32 = LLVMBuildAdd(b, P.landed32, c32(L, 8 * P.stages), "");

    if (L->role) { /* persistent: each role its part, in its own loop over the programs */
        pipe_programs(&P);
        if (L->role == LW_PRODUCERS) {
            pipe_producers(&P, &xa, &xb);
            L->stop = 1; /* the rest of the kernel is the consumers' */
            return;
        }
        pipe_consumers(&P, args[3], in.result);
        /* the ring stays in use (the producers' next copies) while the
         * consumers run the rest of the program */
        L->smem_floor = (smem_bytes + 15) & ~15u; /* the pipeline's own, not a first version's epilogue */
        return;
    }
    LLVMBasicBlockRef init = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.init");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "pipe");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, L->tid, c32(L, 0), ""), init, go);
    LLVMPositionBuilderAtEnd(b, init);
    init_barriers(&P);
    LLVMBuildBr(b, go);
    LLVMPositionBuilderAtEnd(b, go);
    lw_barrier(L); /* every thread: the barriers are ready */
    if (P.cluster) /* and the peer block's, before a copy or a release reaches them */
        wg_cluster_sync(L);

    LLVMBasicBlockRef prod = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "producer");
    LLVMBasicBlockRef cons = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "consumer");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGE, L->tid, c32(L, P.consumers), ""), prod, cons);
    LLVMPositionBuilderAtEnd(b, prod);
    pipe_producers(&P, &xa, &xb);
    if (L->failed)
        return;
    LLVMPositionBuilderAtEnd(b, cons);
    pipe_consumers(&P, args[3], in.result);
    if (L->failed)
        return;
    lw_barrier(L); /* every consumer is done with the ring */
    if (P.cluster) /* and the peer's, whose releases reach this block's barriers (the producers have exited) */
        wg_cluster_sync(L);
    /* the barriers' memory may be reused by the rest of the kernel: PTX wants
     * them invalidated first (every producer wait and arrive is over: the
     * consumers have seen the last step) */
    LLVMBasicBlockRef inval = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.inval");
    LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "pipe.done");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, L->tid, c32(L, 0), ""), inval, after);
    LLVMPositionBuilderAtEnd(b, inval);
    inval_barriers(&P);
    LLVMBuildBr(b, after);
    LLVMPositionBuilderAtEnd(b, after);
    lw_barrier(L);
}
