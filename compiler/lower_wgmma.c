/*
 * The sm_90a GEMM loop (marked by pass_wgmma): a warp-specialized wgmma
 * pipeline through a ring of shared-memory stages.
 *
 * The program runs its warps(W) as consumers (W/4 warpgroups, each owning
 * 64 rows of the BM x BN accumulator) and P more warpgroups as producers
 * (producer_warpgroups()); producer warpgroup p fills the stages of K steps
 * p, p + P, ... (with two, two stages of global loads are in flight without
 * doubling any thread's registers):
 *
 *   producer, step i, stage s = i % S: wait until empty[s] completes,
 *     load its part of the A tile (BM x 32) and the B tile (32 x BN) from
 *     global memory (16-byte loads when the tile is inside and its rows are
 *     16-byte aligned, else element by element behind bounds checks, zero
 *     outside), round each element once (rna, rne; 3xtf32: big, small and
 *     the masked big, as pass_precision defines them), store both tiles as
 *     K-major rows of 32 f32 (128 bytes, 128-byte swizzle; B transposed 4x4
 *     in registers), fence.proxy.async, arrive on full[s].
 *   consumer, step i: wait for full[s]; wgmma m64nBNk8 from shared-memory
 *     descriptors, 4 per stage, wait for them; arrive on empty[s]. 3xtf32:
 *     12 per stage (small*hic, hic*small, big*big per k8) summed from zero
 *     apart, then added to the accumulator with a round-to-nearest f32 add:
 *     the tensor cores truncate as they accumulate, a bias that would grow
 *     with K (measured 2.9e-5 at K = 4096 when accumulating in place, 100x
 *     the split's own error).
 *
 * Why not TMA: every element must pass through registers anyway to be
 * rounded (the tensor cores truncate), and TF32 wgmma reads only K-major
 * operands from shared memory while B is row-major; loading through
 * registers does both at once and takes any stride, odd ones included.
 *
 * The accumulator registers are the MMA layout with one warp per 16 rows,
 * exactly wgmma's fragment order, so the rest of the kernel lowers as
 * usual, run by the consumers alone (lw_barrier becomes named barrier 1 of
 * the consumer threads); the producers exit after the loop.
 */
#include "compiler/lower.h"

#include <stdio.h>
#include <string.h>

enum { WARPGROUP = 128, ROW_BYTES = 128, BK = 32 };

/* The dot of a marked loop (its body: load, load, dot, yield). */
static const TirInst *loop_dot(const TirModule *m, const TirInst *f)
{
    const TirBlock *body = &m->blocks[f->body];
    const TirInst *y = &m->insts[m->pool[body->insts + body->ninsts - 1]];
    return &m->insts[tir_value_def_inst(m, tir_args(m, y)[0])];
}

/* Two producer warpgroups keep two stages of loads in flight, at 128
 * registers a thread (512 threads); where the consumers need more than that
 * (BN = 256: 128 accumulators; 3xtf32: a second accumulator set), one
 * producer warpgroup leaves them 168 (384 threads). 3xtf32 does three times
 * the math per stage, so one producer keeps up there. */
static uint32_t producer_warpgroups(const TirInst *dot)
{
    return dot->ival == PREC_3XTF32 || dot->type.dim[1] > 128 ? 1 : 2;
}

uint32_t wgmma_producer_threads(const TirModule *m, const TirKernel *k)
{
    const TirBlock *b = &m->blocks[k->body];
    for (uint32_t j = 0; j < b->ninsts; j++) {
        const TirInst *in = &m->insts[m->pool[b->insts + j]];
        if (in->op == OP_FOR && in->ival > 0)
            return producer_warpgroups(loop_dot(m, in)) * WARPGROUP;
    }
    return 0;
}

typedef struct {
    Lower *L;
    uint32_t bm, bn, stages, copies, consumers, producers; /* producers: warpgroups */
    TirPrecision prec;
    uint32_t copy_bytes;  /* one copy of the A and B tiles */
    uint32_t stage_bytes; /* all copies */
    LLVMValueRef ring;    /* ptr addrspace(3), 1024-byte aligned (the swizzle's period) */
    LLVMValueRef ring32;  /* its shared-window address, i32 */
    LLVMValueRef full32, empty32; /* the barrier arrays, i32 addresses */
    LLVMValueRef nsteps;  /* i32 */
    LLVMValueRef lo;      /* i64: k of step 0 */
} Pipe;

static LLVMValueRef c32(Lower *L, int64_t v) { return lw_const_i32(L, v); }
static LLVMValueRef c64(Lower *L, int64_t v) { return lw_const_i64(L, v); }
static LLVMTypeRef void_t(Lower *L) { return LLVMVoidTypeInContext(L->ctx); }

static const int SE = LW_ASM_SIDE_EFFECTS, SEC = LW_ASM_SIDE_EFFECTS | LW_ASM_CONVERGENT;

/* ---- mbarriers (inline PTX: LLVM 19 has no parity wait) ---- */

static LLVMValueRef bar_addr(Lower *L, LLVMValueRef arr32, LLVMValueRef stage)
{
    return LLVMBuildAdd(L->b, arr32, LLVMBuildShl(L->b, stage, c32(L, 3), ""), "");
}

static void bar_arrive(Lower *L, LLVMValueRef addr)
{
    lw_asm(L, void_t(L), "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}", &addr, 1, SE);
}

/* Spins until the phase of the given parity has completed. */
static void bar_wait(Lower *L, LLVMValueRef addr, LLVMValueRef parity)
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

/* ---- producer ---- */

/* The copies of element x the stages hold (see the file comment). */
static void split(Pipe *P, LLVMValueRef x, LLVMValueRef out[3])
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

/* Loads nv runs of 4 consecutive elements along dimension 1 of x, run v at
 * (row[v], col[v]): one 16-byte load each when `fast` (the whole tile is
 * inside and its rows are 16-byte aligned), else element by element, each
 * behind its bounds check (predicated: nothing is read outside). */
static void load_runs(Pipe *P, const Access *x, LLVMValueRef fast, uint32_t nv, const LLVMValueRef *row,
                      const LLVMValueRef *col, LLVMValueRef *out)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef v4 = LLVMVectorType(L->t_f32, 4);
    LLVMValueRef *fv = lw_regs(L, 4 * nv), *sv = lw_regs(L, 4 * nv);
    if (!fv || !sv)
        return;
    LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ld.fast");
    LLVMBasicBlockRef sbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ld.edge");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ld.done");
    LLVMBuildCondBr(b, fast, fbb, sbb);

    LLVMPositionBuilderAtEnd(b, fbb);
    for (uint32_t v = 0; v < nv; v++) {
        LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, row[v], x->s0, ""), col[v], "");
        LLVMValueRef p = LLVMBuildGEP2(b, L->t_f32, x->base, &off, 1, "");
        LLVMValueRef ld = LLVMBuildLoad2(b, v4, p, "");
        LLVMSetAlignment(ld, 16);
        for (uint32_t e = 0; e < 4; e++)
            fv[4 * v + e] = LLVMBuildExtractElement(b, ld, c32(L, e), "");
    }
    LLVMBasicBlockRef fend = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);

    LLVMPositionBuilderAtEnd(b, sbb);
    for (uint32_t v = 0; v < nv; v++) {
        LLVMValueRef rok = LLVMBuildAnd(b, x->nonempty, lw_in_range(L, row[v], x->d0), "");
        LLVMValueRef roff = LLVMBuildMul(b, row[v], x->s0, "");
        for (uint32_t e = 0; e < 4; e++) {
            LLVMValueRef c = LLVMBuildAdd(b, col[v], c64(L, e), "");
            LLVMValueRef ok = LLVMBuildAnd(b, rok, lw_in_range(L, c, x->d1), "");
            LLVMValueRef off = LLVMBuildAdd(b, roff, LLVMBuildMul(b, c, x->s1, ""), "");
            LLVMValueRef p = LLVMBuildGEP2(b, L->t_f32, x->base, &off, 1, "");
            LLVMValueRef args[2] = {LLVMBuildPtrToInt(b, p, L->t_i64, ""), LLVMBuildZExt(b, ok, L->t_i32, "")};
            sv[4 * v + e] = lw_asm(L, L->t_f32,
                                   "{\n\t.reg .pred P1;\n\tsetp.ne.b32 P1, $2, 0;\n\tmov.f32 $0, 0f00000000;\n\t"
                                   "@P1 ld.global.f32 $0, [$1];\n\t}",
                                   "=f,l,r", args, 2, 0);
        }
    }
    LLVMBasicBlockRef send = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);

    LLVMPositionBuilderAtEnd(b, join);
    for (uint32_t r = 0; r < 4 * nv; r++) {
        out[r] = LLVMBuildPhi(b, L->t_f32, "");
        LLVMValueRef vals[2] = {fv[r], sv[r]};
        LLVMBasicBlockRef bbs[2] = {fend, send};
        LLVMAddIncoming(out[r], vals, bbs, 2);
    }
}

/* Whether the 16-byte path serves the tile rows [r0, r0+nr) x columns
 * [c0, c0+nc): unit column stride, row stride a multiple of 4, a 16-byte
 * aligned base, and the tile inside the matrix. */
static LLVMValueRef fast_ok(Lower *L, const Access *x, LLVMValueRef r0, uint32_t nr, LLVMValueRef c0, uint32_t nc)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef ok = LLVMBuildAnd(b, x->nonempty, LLVMBuildICmp(b, LLVMIntEQ, x->s1, c64(L, 1), ""), "");
    LLVMValueRef s0lo = LLVMBuildAnd(b, x->s0, c64(L, 3), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntEQ, s0lo, c64(L, 0), ""), "");
    LLVMValueRef blo = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, x->base, L->t_i64, ""), c64(L, 15), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntEQ, blo, c64(L, 0), ""), "");
    LLVMValueRef in[4] = {
        LLVMBuildICmp(b, LLVMIntSGE, r0, c64(L, 0), ""),
        LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, r0, c64(L, nr), ""), x->d0, ""),
        LLVMBuildICmp(b, LLVMIntSGE, c0, c64(L, 0), ""),
        LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, c0, c64(L, nc), ""), x->d1, ""),
    };
    for (int i = 0; i < 4; i++)
        ok = LLVMBuildAnd(b, ok, in[i], "");
    return ok;
}

static void st_shared_v4(Lower *L, LLVMValueRef base, LLVMValueRef off, LLVMValueRef *e)
{
    LLVMTypeRef v4 = LLVMVectorType(L->t_f32, 4);
    LLVMValueRef v = LLVMGetUndef(v4);
    for (uint32_t i = 0; i < 4; i++)
        v = LLVMBuildInsertElement(L->b, v, e[i], c32(L, i), "");
    LLVMValueRef p = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), base, &off, 1, "");
    LLVMSetAlignment(LLVMBuildStore(L->b, v, p), 16);
}

/* Byte offset of 16-byte chunk `chunk` (k = 4*chunk..) of K-major row `row`
 * under the 128-byte swizzle: chunk ^ (row % 8). */
static LLVMValueRef swz(Lower *L, LLVMValueRef row, LLVMValueRef chunk)
{
    LLVMValueRef x = LLVMBuildXor(L->b, chunk, LLVMBuildAnd(L->b, row, c32(L, 7), ""), "");
    return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, c32(L, ROW_BYTES), ""), LLVMBuildShl(L->b, x, c32(L, 4), ""),
                        "");
}

/* The producer warpgroups: fill stages, then return. */
static void producer(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef ptid = LLVMBuildSub(b, L->tid, c32(L, P->consumers), "");
    LLVMValueRef pwg = LLVMBuildLShr(b, ptid, c32(L, 7), "");
    LLVMValueRef lt = LLVMBuildAnd(b, ptid, c32(L, WARPGROUP - 1), "");
    LLVMValueRef lt8 = LLVMBuildLShr(b, lt, c32(L, 3), ""), lt_8 = LLVMBuildAnd(b, lt, c32(L, 7), "");
    uint32_t na = P->bm / 16, nb = P->bn / 64; /* A chunks, B 4x4 blocks per thread */
    LLVMValueRef *rows = lw_regs(L, 4 * nb + na), *cols = lw_regs(L, 4 * nb + na);
    LLVMValueRef *va = lw_regs(L, 4 * na), *vb = lw_regs(L, 16 * nb);
    if (!rows || !cols || !va || !vb)
        return;

    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.loop");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.step");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.exit");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef it = LLVMBuildPhi(b, L->t_i32, "pit");
    LLVMAddIncoming(it, &pwg, &pre, 1);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, it, P->nsteps, ""), body, exit);

    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef s = LLVMBuildURem(b, it, c32(L, P->stages), "");
    LLVMValueRef ph = LLVMBuildAnd(b, LLVMBuildUDiv(b, it, c32(L, P->stages), ""), c32(L, 1), "");
    bar_wait(L, bar_addr(L, P->empty32, s), LLVMBuildXor(b, ph, c32(L, 1), ""));
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, it, L->t_i64, ""), c64(L, BK), ""), "k");

    /* A: chunk q is row 16q + lt/8, k columns 4*(lt%8).. */
    LLVMValueRef colA = LLVMBuildAdd(b, k, LLVMBuildZExt(b, LLVMBuildShl(b, lt_8, c32(L, 2), ""), L->t_i64, ""), "");
    for (uint32_t q = 0; q < na; q++) {
        LLVMValueRef r = LLVMBuildAdd(b, lt8, c32(L, 16 * q), "");
        rows[q] = LLVMBuildAdd(b, xa->i0, LLVMBuildZExt(b, r, L->t_i64, ""), "");
        cols[q] = colA;
    }
    load_runs(P, xa, fast_ok(L, xa, xa->i0, P->bm, k, BK), na, rows, cols, va);
    /* B: block q is k rows 4*(lt%8).. (4 of them), columns 4*(16q + lt/8).. */
    for (uint32_t q = 0; q < nb; q++) {
        LLVMValueRef nc = LLVMBuildAdd(b, lt8, c32(L, 16 * q), "");
        LLVMValueRef c = LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, LLVMBuildShl(b, nc, c32(L, 2), ""), L->t_i64, ""), "");
        for (uint32_t i = 0; i < 4; i++) {
            LLVMValueRef kr = LLVMBuildZExt(b, LLVMBuildAdd(b, LLVMBuildShl(b, lt_8, c32(L, 2), ""), c32(L, i), ""),
                                            L->t_i64, "");
            rows[4 * q + i] = LLVMBuildAdd(b, k, kr, "");
            cols[4 * q + i] = c;
        }
    }
    load_runs(P, xb, fast_ok(L, xb, k, BK, xb->i1, P->bn), 4 * nb, rows, cols, vb);

    LLVMValueRef stage_off = LLVMBuildMul(b, s, c32(L, P->stage_bytes), "");
    LLVMValueRef sa[3][4], sb4[3][16];
    for (uint32_t q = 0; q < na; q++) {
        for (uint32_t e = 0; e < 4; e++) {
            LLVMValueRef o[3];
            split(P, va[4 * q + e], o);
            for (uint32_t c = 0; c < P->copies; c++)
                sa[c][e] = o[c];
        }
        LLVMValueRef off = swz(L, LLVMBuildAdd(b, lt8, c32(L, 16 * q), ""), lt_8);
        for (uint32_t c = 0; c < P->copies; c++)
            st_shared_v4(L, P->ring, LLVMBuildAdd(b, off, LLVMBuildAdd(b, stage_off, c32(L, c * P->copy_bytes), ""), ""),
                         sa[c]);
    }
    for (uint32_t q = 0; q < nb; q++) {
        for (uint32_t e = 0; e < 16; e++) {
            LLVMValueRef o[3];
            split(P, vb[16 * q + e], o);
            for (uint32_t c = 0; c < P->copies; c++)
                sb4[c][e] = o[c];
        }
        LLVMValueRef nc = LLVMBuildAdd(b, lt8, c32(L, 16 * q), "");
        for (uint32_t j = 0; j < 4; j++) { /* row n = 4nc + j of B^T gets column j of the 4 loaded rows */
            LLVMValueRef n = LLVMBuildAdd(b, LLVMBuildShl(b, nc, c32(L, 2), ""), c32(L, j), "");
            LLVMValueRef off = LLVMBuildAdd(b, swz(L, n, lt_8), c32(L, P->bm * ROW_BYTES), "");
            for (uint32_t c = 0; c < P->copies; c++) {
                LLVMValueRef e4[4] = {sb4[c][j], sb4[c][4 + j], sb4[c][8 + j], sb4[c][12 + j]};
                LLVMValueRef o = LLVMBuildAdd(b, off, LLVMBuildAdd(b, stage_off, c32(L, c * P->copy_bytes), ""), "");
                st_shared_v4(L, P->ring, o, e4);
            }
        }
    }
    /* the tensor cores read through the async proxy */
    lw_asm(L, void_t(L), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0, SE);
    bar_arrive(L, bar_addr(L, P->full32, s));
    LLVMValueRef next = LLVMBuildAdd(b, it, c32(L, P->producers), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMAddIncoming(it, &next, &latch, 1);
    LLVMBuildBr(b, head);

    LLVMPositionBuilderAtEnd(b, exit);
    LLVMBuildRetVoid(b);
}

/* ---- consumer ---- */

/* wgmma shared-memory descriptor of a K-major, 128-byte swizzled operand at
 * shared address a32: start >> 4, leading offset 1 (unused when swizzled),
 * 8-row stride 1024 bytes, swizzle mode 1 (128 B). */
static LLVMValueRef descriptor(Lower *L, LLVMValueRef a32)
{
    LLVMValueRef a = LLVMBuildZExt(L->b, a32, L->t_i64, "");
    a = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, a, c64(L, 4), ""), c64(L, 0x3FFF), "");
    uint64_t hi = (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
    return LLVMBuildOr(L->b, a, LLVMConstInt(L->t_i64, hi, 0), "desc");
}

/* One stage of wgmmas on acc (nacc registers), in one asm statement so that
 * nothing touches the accumulators while they are in flight. */
static void mma_stage(Pipe *P, LLVMValueRef da, LLVMValueRef db, LLVMValueRef *acc, uint32_t nacc, int from_zero)
{
    Lower *L = P->L;
    /* (A copy, B copy) per k-substep: 3xtf32 sums small*hic, hic*small, big*big */
    static const uint32_t pairs3[3][2] = {{1, 2}, {2, 1}, {0, 0}};
    uint32_t npairs = P->copies == 3 ? 3 : 1, nmma = 4 * npairs, ndesc = 2 * nmma;
    LLVMValueRef *args = lw_regs(L, nacc + ndesc + 1);
    LLVMTypeRef *ftys = lw_alloc(L, nacc * sizeof *ftys);
    if (!args || !ftys)
        return;
    StrBuf t, c;
    sb_init(&t);
    sb_init(&c);
    sb_printf(&t, "{\n\t.reg .pred P0, P1;\n\tsetp.ne.b32 P1, $%u, 0;\n\tsetp.eq.b32 P0, $%u, 0;\n"
              "\twgmma.fence.sync.aligned;\n", 2 * nacc + ndesc, 2 * nacc + ndesc);
    uint32_t d = 0;
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t p = 0; p < npairs; p++, d++) {
            uint32_t ca = npairs == 3 ? pairs3[p][0] : 0, cb = npairs == 3 ? pairs3[p][1] : 0;
            int64_t adda = (ca * P->copy_bytes + j * 32) >> 4, addb = (cb * P->copy_bytes + j * 32) >> 4;
            args[nacc + 2 * d] = LLVMBuildAdd(L->b, da, c64(L, adda), "");
            args[nacc + 2 * d + 1] = LLVMBuildAdd(L->b, db, c64(L, addb), "");
            sb_printf(&t, "\twgmma.mma_async.sync.aligned.m64n%uk8.f32.tf32.tf32 {", P->bn);
            for (uint32_t r = 0; r < nacc; r++)
                sb_printf(&t, "%s$%u", r ? ", " : "", r);
            /* from_zero: the first wgmma ignores the accumulator (scale-d false) */
            sb_printf(&t, "}, $%u, $%u, %s, 1, 1;\n", 2 * nacc + 2 * d, 2 * nacc + 2 * d + 1,
                      from_zero && d == 0 ? "P0" : "P1");
        }
    sb_puts(&t, "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\t}");
    for (uint32_t r = 0; r < nacc; r++) {
        sb_printf(&c, "%s=f", r ? "," : "");
        args[r] = acc[r];
        ftys[r] = L->t_f32;
    }
    for (uint32_t r = 0; r < nacc; r++)
        sb_printf(&c, ",%u", r);
    for (uint32_t r = 0; r < ndesc; r++)
        sb_puts(&c, ",l");
    sb_puts(&c, ",r,~{memory}");
    args[nacc + ndesc] = c32(L, 1);
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, ftys, nacc, 0);
    if (t.oom || c.oom) {
        lw_error(L, (TirLoc){0}, "out of memory while lowering");
    } else {
        LLVMValueRef r = lw_asm(L, st, t.data, c.data, args, nacc + ndesc + 1, SEC);
        for (uint32_t i = 0; i < nacc; i++)
            acc[i] = LLVMBuildExtractValue(L->b, r, i, "");
    }
    sb_free(&t);
    sb_free(&c);
}

static void consumer(Pipe *P, LLVMValueRef *acc, uint32_t nacc)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef wg = LLVMBuildLShr(b, L->tid, c32(L, 7), "");
    LLVMValueRef a0 = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, wg, c32(L, 64 * ROW_BYTES), ""), "");
    LLVMValueRef desc_a = descriptor(L, a0);
    LLVMValueRef desc_b = descriptor(L, LLVMBuildAdd(b, P->ring32, c32(L, P->bm * ROW_BYTES), ""));

    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mma.loop");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mma.step");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mma.exit");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef it = LLVMBuildPhi(b, L->t_i32, "cit");
    LLVMValueRef zero = c32(L, 0);
    LLVMAddIncoming(it, &zero, &pre, 1);
    LLVMValueRef *phis = lw_regs(L, nacc);
    if (!phis)
        return;
    for (uint32_t r = 0; r < nacc; r++) {
        phis[r] = LLVMBuildPhi(b, L->t_f32, "");
        LLVMAddIncoming(phis[r], &acc[r], &pre, 1);
    }
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, it, P->nsteps, ""), body, exit);

    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef s = LLVMBuildURem(b, it, c32(L, P->stages), "");
    LLVMValueRef ph = LLVMBuildAnd(b, LLVMBuildUDiv(b, it, c32(L, P->stages), ""), c32(L, 1), "");
    bar_wait(L, bar_addr(L, P->full32, s), ph);
    LLVMValueRef soff = LLVMBuildZExt(b, LLVMBuildMul(b, s, c32(L, P->stage_bytes >> 4), ""), L->t_i64, "");
    LLVMValueRef *cur = lw_regs(L, nacc);
    if (!cur)
        return;
    memcpy(cur, phis, nacc * sizeof *cur);
    if (P->copies == 3) { /* this stage's products apart, then one RN add */
        LLVMValueRef *part = lw_regs(L, nacc);
        if (!part)
            return;
        for (uint32_t r = 0; r < nacc; r++)
            part[r] = LLVMConstReal(L->t_f32, 0.0);
        mma_stage(P, LLVMBuildAdd(b, desc_a, soff, ""), LLVMBuildAdd(b, desc_b, soff, ""), part, nacc, 1);
        for (uint32_t r = 0; r < nacc; r++)
            cur[r] = LLVMBuildFAdd(b, cur[r], part[r], "");
    } else {
        mma_stage(P, LLVMBuildAdd(b, desc_a, soff, ""), LLVMBuildAdd(b, desc_b, soff, ""), cur, nacc, 0);
    }
    bar_arrive(L, bar_addr(L, P->empty32, s));
    LLVMValueRef next = LLVMBuildAdd(b, it, c32(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMAddIncoming(it, &next, &latch, 1);
    for (uint32_t r = 0; r < nacc; r++)
        LLVMAddIncoming(phis[r], &cur[r], &latch, 1);
    LLVMBuildBr(b, head);

    LLVMPositionBuilderAtEnd(b, exit);
    memcpy(acc, phis, nacc * sizeof *acc);
}

/* ---- the loop ---- */

void lower_wgmma_loop(Lower *L, uint32_t i)
{
    const TirModule *m = L->m;
    const TirInst in = m->insts[i];
    const uint32_t *args = tir_args(m, &in);
    const TirBlock *body = &m->blocks[in.body];
    const uint32_t *bargs = tir_block_args(m, body);
    const TirInst *dot = loop_dot(m, &in);
    const uint32_t *da = tir_args(m, dot);
    const TirInst *lda = &m->insts[tir_value_def_inst(m, da[0])];
    const TirInst *ldb = &m->insts[tir_value_def_inst(m, da[1])];
    LLVMBuilderRef b = L->b;

    Pipe P = {.L = L, .bm = dot->type.dim[0], .bn = dot->type.dim[1], .stages = (uint32_t)in.ival,
              .prec = (TirPrecision)dot->ival, .consumers = L->threads, .producers = producer_warpgroups(dot)};
    P.copies = P.prec == PREC_3XTF32 ? 3 : 1;
    P.copy_bytes = (P.bm + P.bn) * ROW_BYTES;
    P.stage_bytes = P.copies * P.copy_bytes;

    /* the step count; k itself is never read from the IR inside the loop */
    LLVMValueRef lo = LLVMBuildSExt(b, lw_val(L, args[0])->s, L->t_i64, "lo");
    LLVMValueRef hi = LLVMBuildSExt(b, lw_val(L, args[1])->s, L->t_i64, "hi");
    LLVMValueRef span = LLVMBuildSub(b, hi, lo, "");
    LLVMValueRef steps = LLVMBuildAShr(b, LLVMBuildAdd(b, span, c64(L, BK - 1), ""), c64(L, 5), "");
    steps = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, span, c64(L, 0), ""), steps, c64(L, 0), "");
    P.nsteps = LLVMBuildTrunc(b, steps, L->t_i32, "nsteps");
    P.lo = lo;
    lw_set(L, bargs[0], (LVal){.kind = LV_SCALAR, .s = lw_val(L, args[0])->s}); /* for lw_access only */
    Access xa = lw_access(L, lda, 0, ELEM_F32), xb = lw_access(L, ldb, 0, ELEM_F32);

    /* the ring, 1024-byte aligned, then full[] and empty[] */
    uint32_t ring_bytes = P.stages * P.stage_bytes;
    LLVMValueRef sm = smem_ptr(L, ring_bytes + 16 * P.stages + 1024);
    LLVMValueRef sm64 = LLVMBuildPtrToInt(b, sm, L->t_i64, "");
    LLVMValueRef pad = LLVMBuildAnd(b, LLVMBuildSub(b, c64(L, 0), sm64, ""), c64(L, 1023), "");
    P.ring = LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), sm, &pad, 1, "ring");
    P.ring32 = LLVMBuildTrunc(b, LLVMBuildAdd(b, sm64, pad, ""), L->t_i32, "");
    P.full32 = LLVMBuildAdd(b, P.ring32, c32(L, ring_bytes), "");
    P.empty32 = LLVMBuildAdd(b, P.full32, c32(L, 8 * P.stages), "");

    LLVMBasicBlockRef init = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.init");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "pipe");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, L->tid, c32(L, 0), ""), init, go);
    LLVMPositionBuilderAtEnd(b, init);
    for (uint32_t s = 0; s < P.stages; s++) {
        LLVMValueRef a[2] = {bar_addr(L, P.full32, c32(L, s)), c32(L, WARPGROUP)};
        lw_asm(L, void_t(L), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2, SE);
        a[0] = bar_addr(L, P.empty32, c32(L, s));
        a[1] = c32(L, P.consumers);
        lw_asm(L, void_t(L), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2, SE);
    }
    LLVMBuildBr(b, go);
    LLVMPositionBuilderAtEnd(b, go);
    lw_barrier(L); /* every thread: the barriers are ready */

    LLVMBasicBlockRef prod = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "producer");
    LLVMBasicBlockRef cons = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "consumer");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGE, L->tid, c32(L, P.consumers), ""), prod, cons);
    LLVMPositionBuilderAtEnd(b, prod);
    producer(&P, &xa, &xb);
    if (L->failed)
        return;

    LLVMPositionBuilderAtEnd(b, cons);
    L->bar_threads = P.consumers;
    Layout lay = {.kind = LAYOUT_MMA, .rows = P.bm, .cols = P.bn, .wm = P.consumers / 32, .wn = 1, .mt = 1,
                  .nt = P.bn / 8};
    LLVMValueRef *acc = lw_tile_in(L, args[3], &lay); /* a constant tile (pass_wgmma) */
    uint32_t nacc = layout_nregs(&lay);
    LLVMValueRef *regs = lw_regs(L, nacc);
    if (!acc || !regs)
        return;
    memcpy(regs, acc, nacc * sizeof *regs);
    consumer(&P, regs, nacc);
    lw_barrier(L); /* every consumer is done with the ring before the rest reuses shared memory */
    lw_set(L, in.result, (LVal){.kind = LV_TILE, .regs = regs, .lay = lay});
}
