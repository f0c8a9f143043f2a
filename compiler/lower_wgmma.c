/*
 * The sm_90a GEMM loop (marked by pass_wgmma): a warp-specialized wgmma
 * pipeline through a ring of S shared-memory stages.
 *
 * The program runs its warps(W) as consumers (W/4 warpgroups, each owning
 * 64 rows of the BM x BN accumulator) and P more warpgroups as producers
 * (wgmma_producers(): two where the registers allow). Producer warpgroup p
 * handles K steps p, p + P, ...; its iteration u
 *
 *   issues step t = p + P*u: waits until stage t % S is empty, then copies
 *     with cp.async (16 bytes where the tile is inside and its rows 16-byte
 *     aligned, else element by element behind bounds checks, zero outside)
 *     the A tile (BM x 32) into the stage, as 128-byte K-major rows with
 *     the 128-byte swizzle, and the B tile (32 x BN) raw into one of its
 *     lag + 1 slots;
 *   finishes step t - P*lag: waits for those copies (cp.async.wait_group
 *     lag, then its named barrier), rounds B once per element (rna, rne;
 *     3xtf32: big, small and the masked big, as pass_precision defines
 *     them), transposes it 4x4 in registers into the stage's K-major B
 *     operand (one copy per split part), fence.proxy.async, arrives on
 *     full[stage].
 *
 * The consumers, step by step: wait for full[s]; read their A fragments from
 * the raw A tile and round (or split) them in registers; wgmma m64nBNk8
 * with A from registers and B by descriptor, 4 per stage, in one asm
 * statement that also waits for them; arrive on empty[s]. 3xtf32: 12 per
 * stage (small*hic, hic*small, big*big per k8) summed from zero apart, then
 * added to the accumulator with a round-to-nearest f32 add: the tensor
 * cores truncate as they accumulate, a bias that grows with K (measured
 * 2.9e-5 at K = 4096 accumulating in place, 100x the split's own error).
 *
 * Why this shape: the tensor cores truncate, so every element passes
 * through registers once to be rounded; TF32 wgmma reads only K-major
 * operands from shared memory, and row-major B is not, so B is transposed
 * on that pass; A is K-major already and is rounded where it meets the
 * tensor core, as a register operand. cp.async holds no registers while the
 * loads are in flight (the first version loaded through registers and was
 * latency-bound: bench/NOTES.md v2..v5), and takes any stride, odd ones
 * included. TMA would take the copies off the producers too; it needs
 * tensor maps from the runtime and 16-byte strides, and is not done yet.
 *
 * The accumulator registers are the MMA layout with one warp per 16 rows,
 * exactly wgmma's fragment order, so the rest of the kernel lowers as
 * usual, run by the consumers alone (lw_barrier becomes named barrier 1 of
 * the consumer threads); the producers exit after the loop. Registers: a
 * cap at entry (.maxnreg) and setmaxnreg give the consumers what the
 * producers do not need.
 *
 * An experiment, off by default until measured (bench/NOTES.md):
 * -fwgmma-hoist computes each producer thread's address terms once, before
 * its loop (the default recomputes 64-bit row * stride products every step,
 * most of the producer's instructions), and copies tiles that are inside the
 * matrix but not 16-byte aligned in unchecked 4-byte pieces.
 *
 * This pipeline runs with -fno-wgmma-swapped; the swapped product below is
 * the default (bench/NOTES.md v6: 1.4x at 128x256).
 */
#include "compiler/lower.h"

#include <stdio.h>
#include <string.h>

enum { WARPGROUP = 128, ROW_BYTES = 128, BK = 32 };
/* B runs of 16 bytes per producer thread and step: 32 x BN / 4 / 128, at
 * most 16 (pass_wgmma caps BN at 256) */
enum { MAX_B_RUNS = 16 };

/* The dot of a marked loop (its body: load, load, dot, yield). */
static const TirInst *loop_dot(const TirModule *m, const TirInst *f)
{
    const TirBlock *body = &m->blocks[f->body];
    const TirInst *y = &m->insts[m->pool[body->insts + body->ninsts - 1]];
    return &m->insts[tir_value_def_inst(m, tir_args(m, y)[0])];
}

static uint32_t swp_producers(uint32_t bm, TirPrecision p, uint32_t stages);

uint32_t wgmma_producer_threads(const TirModule *m, const TirKernel *k, const TcOptions *o)
{
    const TirBlock *b = &m->blocks[k->body];
    for (uint32_t j = 0; j < b->ninsts; j++) {
        const TirInst *in = &m->insts[m->pool[b->insts + j]];
        if (in->op == OP_FOR && in->ival > 0) {
            const TirInst *dot = loop_dot(m, in);
            if (o->wgmma_swapped)
                return swp_producers(dot->type.dim[0], (TirPrecision)dot->ival, (uint32_t)in->ival) * WARPGROUP;
            return wgmma_producers(dot->type.dim[1], (TirPrecision)dot->ival, (uint32_t)in->ival) * WARPGROUP;
        }
    }
    return 0;
}

enum { REGISTER_FILE = 65536 };

uint32_t wgmma_entry_regs(uint32_t launch)
{
    uint32_t r = REGISTER_FILE / launch / 8 * 8;
    return r > 255 ? 255 : r;
}

/* setmaxnreg: producers need addresses and one 4x4 block per copy (more
 * with one producer, which covers a whole step alone), the consumers all
 * the accumulators, out of what the program holds at entry (setmaxnreg.inc
 * waits until the program's own registers suffice). Returns the producers'
 * count; *consumer gets the consumers' (both 0: leave the entry count, when
 * it is already 255). */
static uint32_t register_split(uint32_t consumers, uint32_t producers, uint32_t copies, uint32_t *consumer)
{
    uint32_t nc = consumers / WARPGROUP, launch = consumers + producers * WARPGROUP;
    uint32_t prod = producers == 2 ? 88 : copies == 3 ? 112 : 120;
    *consumer = 0;
    if (launch <= 256)
        return 0;
    uint32_t held = (nc + producers) * wgmma_entry_regs(launch);
    uint32_t c = (held - producers * prod) / nc / 8 * 8;
    *consumer = c > 240 ? 240 : c;
    return prod;
}

/* The swapped product's producer warpgroups: two, each taking every other
 * step, where the stages allow (P * lag < stages) and the registers: tf32
 * modes (one copy of A to make), and wgmmas of N <= 128 (with 512 threads
 * the program holds 128 registers at entry, and ptxas wants every
 * instruction to fit in that: m64n256 needs 158). */
static uint32_t swp_producers(uint32_t bm, TirPrecision p, uint32_t stages)
{
    return p != PREC_3XTF32 && stages >= 3 && bm <= 128 ? 2 : 1;
}

/* The swapped product's producers hold only a 16-element batch (three
 * copies for 3xtf32) and addresses. */
static uint32_t swp_register_split(uint32_t consumers, uint32_t producers, uint32_t copies, uint32_t *consumer)
{
    uint32_t nc = consumers / WARPGROUP, launch = consumers + producers * WARPGROUP;
    /* two producer warpgroups beside two consumer ones: 128 registers at
     * entry, the consumers need 192 */
    uint32_t prod = copies == 3 ? 112 : producers == 2 && nc == 2 ? 64 : 96;
    *consumer = 0;
    if (launch <= 256)
        return 0;
    uint32_t c = ((nc + producers) * wgmma_entry_regs(launch) - producers * prod) / nc / 8 * 8;
    *consumer = c > 240 ? 240 : c;
    return prod;
}

typedef struct {
    Lower *L;
    uint32_t bm, bn, stages, lag, copies, consumers, producers; /* producers: warpgroups */
    TirPrecision prec;
    uint32_t stage_bytes; /* raw A tile, then the B operand copies */
    LLVMValueRef ring;    /* ptr addrspace(3), 1024-byte aligned (the swizzle's period) */
    LLVMValueRef ring32;  /* its shared-window address, i32 */
    LLVMValueRef raw_off, raw32; /* the raw B slots: offset from ring, address */
    LLVMValueRef full32, empty32; /* the barrier arrays, i32 addresses */
    LLVMValueRef nsteps;  /* i32 */
    LLVMValueRef lo;      /* i64: k of step 0 */
    int hoist;            /* -fwgmma-hoist: the producer's per-thread address terms computed once */
    int swapped;          /* -fwgmma-swapped: the swapped product (see "the swapped product" below) */
    int unaligned;        /* -fwgmma-unaligned: unchecked 4-byte copies of misaligned tiles inside */
    uint32_t blocks;      /* swapped: 64-column blocks of B per consumer warpgroup */
    LLVMValueRef landed32; /* swapped: the barriers a stage's copies complete on */
} Pipe;

/* A producer thread's address terms that no K step changes (-fwgmma-hoist),
 * computed before its loop: the first 16-byte run of A and of B without k
 * (element pointers) and the steps between runs; the rows and columns the
 * element path starts from; the swizzled shared offsets of the B transform. */
typedef struct {
    LLVMValueRef pa0, stepa, pb0, stepb;    /* global: ptr, i64 elements */
    LLVMValueRef rowa0, cola0, rowb0, colb0; /* i64: A rows and columns (+k), B rows (+k) and columns */
    LLVMValueRef dsta;                      /* i32: A run 0's offset in a stage */
    LLVMValueRef ldsb, stsb[4];             /* i32: the transform's read and write offsets (block 0) */
    LLVMValueRef dstb[MAX_B_RUNS];          /* i32: B run q's offset in a raw slot */
} Hoisted;

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

/* A counted loop: `i` runs from 0 while `i < n`; the caller adds its own phis
 * at `head` (incoming from `pre`), emits the body, and loop_close()s. */
typedef struct {
    LLVMBasicBlockRef pre, head, body, exit;
    LLVMValueRef i;
} Loop;

static Loop loop_open(Lower *L, const char *name)
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

/* Ends the head: into the body while i < n. */
static void loop_test(Lower *L, Loop *lp, LLVMValueRef n)
{
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), lp->body, lp->exit);
    LLVMPositionBuilderAtEnd(L->b, lp->body);
}

/* Ends the body (from the current block): i + 1, back to the head; the
 * builder continues at the exit. */
static void loop_close(Lower *L, Loop *lp)
{
    LLVMValueRef next = LLVMBuildAdd(L->b, lp->i, c32(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMAddIncoming(lp->i, &next, &latch, 1);
    LLVMBuildBr(L->b, lp->head);
    LLVMPositionBuilderAtEnd(L->b, lp->exit);
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

/* RNA in integers, exact for |x| below the overflow threshold (DESIGN.md 4:
 * (x + 0x1000) & 0xFFFFE000). */
static LLVMValueRef rna_int(Lower *L, LLVMValueRef x)
{
    LLVMValueRef u = LLVMBuildBitCast(L->b, x, L->t_i32, "");
    u = LLVMBuildAnd(L->b, LLVMBuildAdd(L->b, u, c32(L, 0x1000), ""), c32(L, (int32_t)0xFFFFE000u), "");
    return LLVMBuildBitCast(L->b, u, L->t_f32, "");
}

/* split() for n elements at once, out[c][i] = copy c of x[i]. rna and
 * 3xtf32 take a short path when no element is NaN, Inf or so large that
 * rounding overflows (one compare each): rounding is then two integer ops
 * and hic = big; otherwise every element takes split()'s guarded path. Both
 * give the same bits where the short path applies. */
static void split_batch(Pipe *P, const LLVMValueRef *x, uint32_t n, LLVMValueRef out[3][16])
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    if (P->prec != PREC_TF32_RNA && P->prec != PREC_3XTF32) {
        for (uint32_t i = 0; i < n; i++) {
            LLVMValueRef o[3];
            split(P, x[i], o);
            for (uint32_t c = 0; c < P->copies; c++)
                out[c][i] = o[c];
        }
        return;
    }
    LLVMTypeRef f = L->t_f32;
    /* 0x7F7FF000: the least magnitude whose RNA rounding is Inf */
    LLVMValueRef lim = LLVMConstBitCast(c32(L, 0x7F7FF000), f), any = NULL;
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef ax = lw_call(L, "llvm.fabs", &f, 1, (LLVMValueRef *)&x[i], 1);
        LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealUGE, ax, lim, "");
        any = any ? LLVMBuildOr(b, any, big, "") : big;
    }
    LLVMValueRef fv[3][16], sv[3][16];
    LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "rnd.fast");
    LLVMBasicBlockRef sbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "rnd.special");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "rnd.done");
    LLVMBuildCondBr(b, any, sbb, fbb);
    LLVMPositionBuilderAtEnd(b, fbb);
    for (uint32_t i = 0; i < n; i++) {
        fv[0][i] = rna_int(L, x[i]);
        if (P->copies == 3) {
            fv[1][i] = rna_int(L, LLVMBuildFSub(b, x[i], fv[0][i], ""));
            fv[2][i] = fv[0][i];
        }
    }
    LLVMBasicBlockRef fend = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, sbb);
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef o[3];
        split(P, x[i], o);
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

/* Whether the tile rows [r0, r0+nr) x columns [c0, c0+nc) lie inside the
 * matrix with unit column stride, aligned or not (-fwgmma-hoist's 4-byte
 * path: no per-element checks). */
static LLVMValueRef inside_ok(Lower *L, const Access *x, LLVMValueRef r0, uint32_t nr, LLVMValueRef c0, uint32_t nc)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef ok = LLVMBuildAnd(b, x->nonempty, LLVMBuildICmp(b, LLVMIntEQ, x->s1, c64(L, 1), ""), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntSGE, r0, c64(L, 0), ""), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, r0, c64(L, nr), ""), x->d0, ""), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntSGE, c0, c64(L, 0), ""), "");
    return LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, c0, c64(L, nc), ""), x->d1, ""), "");
}

/* Whether the 16-byte path serves that tile: inside, and its rows 16-byte
 * aligned (row stride a multiple of 4, a 16-byte aligned base, a first column
 * that is a multiple of 4: not a loop from an odd k, a tile at an odd
 * column). */
static LLVMValueRef fast_ok(Lower *L, const Access *x, LLVMValueRef r0, uint32_t nr, LLVMValueRef c0, uint32_t nc)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef blo = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, x->base, L->t_i64, ""), c64(L, 15), "");
    LLVMValueRef lo4 = LLVMBuildOr(b, LLVMBuildAnd(b, x->s0, c64(L, 3), ""), LLVMBuildAnd(b, c0, c64(L, 3), ""), "");
    LLVMValueRef aligned = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildOr(b, blo, lo4, ""), c64(L, 0), "");
    return LLVMBuildAnd(b, inside_ok(L, x, r0, nr, c0, nc), aligned, "");
}

/* Where run v of a copy starts: precomputed coordinates (row[v], col[v]), or
 * (row0 + v*drow, col0) built only where the element path needs them. */
typedef struct {
    const LLVMValueRef *row, *col;
    LLVMValueRef row0, col0; /* i64 */
    int64_t drow;
} RunCoords;

static void run_coords(Lower *L, const RunCoords *rc, uint32_t v, LLVMValueRef *row, LLVMValueRef *col)
{
    if (rc->row) {
        *row = rc->row[v];
        *col = rc->col[v];
        return;
    }
    *row = LLVMBuildAdd(L->b, rc->row0, c64(L, (int64_t)v * rc->drow), "");
    *col = rc->col0;
}

/* Copies n runs of 4 consecutive elements along dimension 1 of x, run v
 * from its coordinates to shared address dst[v] (i32), with cp.async: one
 * 16-byte copy each when `fast`, else element by element, each behind its
 * bounds check (zero stored where it fails: nothing is read outside). With
 * p0, the 16-byte copies read p0, p0 + step, ... (elements) instead of
 * computing each address from its coordinates, and where `inside` holds
 * (the tile is inside the matrix but not 16-byte aligned), the runs are
 * copied in 4-byte pieces from there without per-element checks. */
static void copy_runs(Lower *L, const Access *x, LLVMValueRef fast, LLVMValueRef inside, uint32_t n,
                      const RunCoords *rc, LLVMValueRef p0, LLVMValueRef step, const LLVMValueRef *dst)
{
    LLVMBuilderRef b = L->b;
    LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp.fast");
    LLVMBasicBlockRef sbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp.edge");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp.done");
    LLVMBuildCondBr(b, fast, fbb, sbb);

    LLVMPositionBuilderAtEnd(b, fbb);
    LLVMValueRef p = p0;
    for (uint32_t v = 0; v < n; v++) {
        if (p0 && v)
            p = LLVMBuildGEP2(b, L->t_f32, p, &step, 1, "");
        else if (!p0) {
            LLVMValueRef row, col;
            run_coords(L, rc, v, &row, &col);
            LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, row, x->s0, ""), col, "");
            p = LLVMBuildGEP2(b, L->t_f32, x->base, &off, 1, "");
        }
        LLVMValueRef a[2] = {dst[v], LLVMBuildPtrToInt(b, p, L->t_i64, "")};
        lw_asm(L, void_t(L), "cp.async.cg.shared.global [$0], [$1], 16;", "r,l,~{memory}", a, 2, SE);
    }
    LLVMBuildBr(b, join);

    LLVMPositionBuilderAtEnd(b, sbb);
    if (inside && p0) { /* inside but not 16-byte aligned: 4-byte copies, no checks (needs p0's addresses) */
        LLVMBasicBlockRef ibb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp.inside");
        LLVMBasicBlockRef ebb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "cp.edge.checked");
        LLVMBuildCondBr(b, inside, ibb, ebb);
        LLVMPositionBuilderAtEnd(b, ibb);
        LLVMValueRef pi = p0;
        for (uint32_t v = 0; v < n; v++) {
            if (v)
                pi = LLVMBuildGEP2(b, L->t_f32, pi, &step, 1, "");
            for (uint32_t e = 0; e < 4; e++) {
                LLVMValueRef ce = c64(L, e);
                LLVMValueRef pe = LLVMBuildGEP2(b, L->t_f32, pi, &ce, 1, "");
                LLVMValueRef a[2] = {LLVMBuildAdd(b, dst[v], c32(L, 4 * e), ""), LLVMBuildPtrToInt(b, pe, L->t_i64, "")};
                lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4;", "r,l,~{memory}", a, 2, SE);
            }
        }
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, ebb);
    }
    for (uint32_t v = 0; v < n; v++) {
        LLVMValueRef row, col;
        run_coords(L, rc, v, &row, &col);
        LLVMValueRef rok = LLVMBuildAnd(b, x->nonempty, lw_in_range(L, row, x->d0), "");
        LLVMValueRef roff = LLVMBuildMul(b, row, x->s0, "");
        for (uint32_t e = 0; e < 4; e++) {
            LLVMValueRef c = LLVMBuildAdd(b, col, c64(L, e), "");
            LLVMValueRef ok = LLVMBuildAnd(b, rok, lw_in_range(L, c, x->d1), "");
            LLVMValueRef off = LLVMBuildAdd(b, roff, LLVMBuildMul(b, c, x->s1, ""), "");
            LLVMValueRef pe = LLVMBuildGEP2(b, L->t_f32, x->base, &off, 1, "");
            LLVMValueRef a[3] = {LLVMBuildAdd(b, dst[v], c32(L, 4 * e), ""), LLVMBuildPtrToInt(b, pe, L->t_i64, ""),
                                 LLVMBuildZExt(b, ok, L->t_i32, "")};
            lw_asm(L, void_t(L),
                   "{\n\t.reg .pred P1;\n\tsetp.ne.b32 P1, $2, 0;\n\t@P1 cp.async.ca.shared.global [$0], [$1], 4;\n\t"
                   "@!P1 st.shared.b32 [$0], 0;\n\t}",
                   "r,l,r,~{memory}", a, 3, SE);
        }
    }
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
}

/* Byte offset of 16-byte chunk `chunk` of 128-byte row `row` under the
 * 128-byte swizzle: chunk ^ (row % 8). */
static LLVMValueRef swz(Lower *L, LLVMValueRef row, LLVMValueRef chunk)
{
    LLVMValueRef x = LLVMBuildXor(L->b, chunk, LLVMBuildAnd(L->b, row, c32(L, 7), ""), "");
    return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, c32(L, ROW_BYTES), ""), LLVMBuildShl(L->b, x, c32(L, 4), ""),
                        "");
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

/* Named barrier 2 + p of producer warpgroup p. */
static void producer_barrier(Lower *L, LLVMValueRef id)
{
    lw_asm(L, void_t(L), "bar.sync $0, 128;", "r,~{memory}", &id, 1, SEC);
}

/* B run q of producer thread lt: row r = lt / (BN/4) + q * per, chunk
 * c = lt % (BN/4) (a warp reads 512 contiguous bytes). */
static void raw_b_coords(Pipe *P, LLVMValueRef lt, uint32_t q, LLVMValueRef *r, LLVMValueRef *c)
{
    Lower *L = P->L;
    uint32_t nbc = P->bn / 4, per = WARPGROUP / nbc; /* BN <= 256: a row has <= 64 chunks */
    *r = LLVMBuildAdd(L->b, LLVMBuildUDiv(L->b, lt, c32(L, nbc), ""), c32(L, q * per), "");
    *c = LLVMBuildURem(L->b, lt, c32(L, nbc), "");
}

/* Its byte offset in a raw slot: chunk c of row r is stored at c ^ ((r/4) % 8),
 * so that the transposing reads hit distinct banks. */
static LLVMValueRef raw_b_offset(Pipe *P, LLVMValueRef r, LLVMValueRef c)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef sc = LLVMBuildXor(b, c, LLVMBuildAnd(b, LLVMBuildLShr(b, r, c32(L, 2), ""), c32(L, 7), ""), "");
    return LLVMBuildAdd(b, LLVMBuildMul(b, r, c32(L, P->bn * 4), ""), LLVMBuildShl(b, sc, c32(L, 4), ""), "");
}

static void hoist_terms(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef lt, Hoisted *h)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    uint32_t nbc = P->bn / 4, per = WARPGROUP / nbc;
    LLVMValueRef lt8 = LLVMBuildLShr(b, lt, c32(L, 3), ""), lt_8 = LLVMBuildAnd(b, lt, c32(L, 7), "");
    /* A run q: row i0 + lt/8 + 16q, columns k + 4*(lt%8).. */
    h->rowa0 = LLVMBuildAdd(b, xa->i0, LLVMBuildZExt(b, lt8, L->t_i64, ""), "");
    h->cola0 = LLVMBuildZExt(b, LLVMBuildShl(b, lt_8, c32(L, 2), ""), L->t_i64, "");
    LLVMValueRef offa = LLVMBuildAdd(b, LLVMBuildMul(b, h->rowa0, xa->s0, ""), h->cola0, "");
    h->pa0 = LLVMBuildGEP2(b, L->t_f32, xa->base, &offa, 1, "");
    h->stepa = LLVMBuildShl(b, xa->s0, c64(L, 4), "");
    h->dsta = swz(L, lt8, lt_8); /* run q: + q * 16 rows * 128 bytes */
    /* B run q: row k + lt/(BN/4) + q*per, columns i1 + 4*(lt%(BN/4)).. */
    LLVMValueRef rb = LLVMBuildUDiv(b, lt, c32(L, nbc), ""), cb = LLVMBuildURem(b, lt, c32(L, nbc), "");
    h->rowb0 = LLVMBuildZExt(b, rb, L->t_i64, "");
    h->colb0 = LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, LLVMBuildShl(b, cb, c32(L, 2), ""), L->t_i64, ""), "");
    LLVMValueRef offb = LLVMBuildAdd(b, LLVMBuildMul(b, h->rowb0, xb->s0, ""), h->colb0, "");
    h->pb0 = LLVMBuildGEP2(b, L->t_f32, xb->base, &offb, 1, "");
    h->stepb = LLVMBuildMul(b, xb->s0, c64(L, per), "");
    /* transform, block 0: reads row 4kc+i, chunk (lt/8) ^ kc; block q adds 16 chunks
     * (256 bytes). Writes row 4*(lt/8) + jj of B^T, chunk kc ^ row%8; block q adds
     * 64 rows (8192 bytes) */
    LLVMValueRef kc = lt_8;
    h->ldsb = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildShl(b, kc, c32(L, 2), ""), c32(L, P->bn * 4), ""),
                           LLVMBuildShl(b, LLVMBuildXor(b, lt8, kc, ""), c32(L, 4), ""), "");
    for (uint32_t jj = 0; jj < 4; jj++)
        h->stsb[jj] = swz(L, LLVMBuildAdd(b, LLVMBuildShl(b, lt8, c32(L, 2), ""), c32(L, jj), ""), kc);
    for (uint32_t q = 0; q < 32 * nbc / WARPGROUP && q < MAX_B_RUNS; q++) {
        LLVMValueRef r, c;
        raw_b_coords(P, lt, q, &r, &c);
        h->dstb[q] = raw_b_offset(P, r, c);
    }
}

/* Step t's copies: the A tile into its stage, the B tile into its raw slot. */
static void issue_step(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef t, LLVMValueRef slot,
                       LLVMValueRef lt, const Hoisted *h)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    uint32_t na = P->bm / 16, nbc = P->bn / 4, nb = 32 * nbc / WARPGROUP;
    LLVMValueRef rows[64], cols[64], dst[64];
    LLVMValueRef s = LLVMBuildURem(b, t, c32(L, P->stages), "");
    bar_wait(L, bar_addr(L, P->empty32, s), LLVMBuildXor(b, LLVMBuildAnd(b, LLVMBuildUDiv(b, t, c32(L, P->stages), ""),
                                                                          c32(L, 1), ""), c32(L, 1), ""));
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, t, L->t_i64, ""), c64(L, BK), ""), "k");
    /* A: chunk q is row 16q + lt/8, k columns 4*(lt%8).., swizzled as wgmma would read it */
    if (h) { /* the hoisted terms: one add per run */
        LLVMValueRef a_base = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
        LLVMValueRef pa = LLVMBuildGEP2(b, L->t_f32, h->pa0, &k, 1, "");
        for (uint32_t q = 0; q < na; q++)
            dst[q] = LLVMBuildAdd(b, LLVMBuildAdd(b, a_base, h->dsta, ""), c32(L, q * 16 * ROW_BYTES), "");
        RunCoords rca = {.row0 = h->rowa0, .col0 = LLVMBuildAdd(b, k, h->cola0, ""), .drow = 16};
        copy_runs(L, xa, fast_ok(L, xa, xa->i0, P->bm, k, BK), inside_ok(L, xa, xa->i0, P->bm, k, BK), na, &rca, pa,
                  h->stepa, dst);
    } else {
        LLVMValueRef lt8 = LLVMBuildLShr(b, lt, c32(L, 3), ""), lt_8 = LLVMBuildAnd(b, lt, c32(L, 7), "");
        LLVMValueRef a_base = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
        LLVMValueRef colA = LLVMBuildAdd(b, k, LLVMBuildZExt(b, LLVMBuildShl(b, lt_8, c32(L, 2), ""), L->t_i64, ""), "");
        for (uint32_t q = 0; q < na; q++) {
            LLVMValueRef r = LLVMBuildAdd(b, lt8, c32(L, 16 * q), "");
            rows[q] = LLVMBuildAdd(b, xa->i0, LLVMBuildZExt(b, r, L->t_i64, ""), "");
            cols[q] = colA;
            dst[q] = LLVMBuildAdd(b, a_base, swz(L, r, lt_8), "");
        }
        RunCoords rca = {.row = rows, .col = cols};
        copy_runs(L, xa, fast_ok(L, xa, xa->i0, P->bm, k, BK), NULL, na, &rca, NULL, NULL, dst);
    }
    /* B: run q is row id / (BN/4), chunk id % (BN/4) for id = 128q + lt (a warp
     * reads 512 contiguous bytes); chunk c of row r lands at c ^ ((r/4) % 8) so
     * that the transposing reads below hit distinct banks */
    LLVMValueRef b_base = LLVMBuildAdd(b, P->raw32, LLVMBuildMul(b, slot, c32(L, P->bn * ROW_BYTES), ""), "");
    for (uint32_t q = 0; q < nb; q++) {
        if (h) {
            dst[q] = LLVMBuildAdd(b, b_base, h->dstb[q], "");
            continue;
        }
        LLVMValueRef r, c;
        raw_b_coords(P, lt, q, &r, &c);
        rows[q] = LLVMBuildAdd(b, k, LLVMBuildZExt(b, r, L->t_i64, ""), "");
        cols[q] = LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, LLVMBuildShl(b, c, c32(L, 2), ""), L->t_i64, ""), "");
        dst[q] = LLVMBuildAdd(b, b_base, raw_b_offset(P, r, c), "");
    }
    if (h) {
        LLVMValueRef ks0 = LLVMBuildMul(b, k, xb->s0, "");
        LLVMValueRef pb = LLVMBuildGEP2(b, L->t_f32, h->pb0, &ks0, 1, "");
        RunCoords rcb = {.row0 = LLVMBuildAdd(b, k, h->rowb0, ""), .col0 = h->colb0,
                         .drow = WARPGROUP / nbc};
        copy_runs(L, xb, fast_ok(L, xb, k, BK, xb->i1, P->bn), inside_ok(L, xb, k, BK, xb->i1, P->bn), nb, &rcb, pb,
                  h->stepb, dst);
    } else {
        RunCoords rcb = {.row = rows, .col = cols};
        copy_runs(L, xb, fast_ok(L, xb, k, BK, xb->i1, P->bn), NULL, nb, &rcb, NULL, NULL, dst);
    }
}

/* Step j's B tile: raw slot -> rounded (split) K-major rows of its stage,
 * transposed 4x4 in registers: thread block q holds k rows 4*(lt%8)..+3 of
 * columns 4*(16q + lt/8)..+3. */
static void transform_step(Pipe *P, LLVMValueRef j, LLVMValueRef slot, LLVMValueRef lt, const Hoisted *h)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef v4 = LLVMVectorType(L->t_f32, 4), i8 = LLVMInt8TypeInContext(L->ctx);
    LLVMValueRef s = LLVMBuildURem(b, j, c32(L, P->stages), "");
    LLVMValueRef raw = LLVMBuildAdd(b, P->raw_off, LLVMBuildMul(b, slot, c32(L, P->bn * ROW_BYTES), ""), "");
    LLVMValueRef op = LLVMBuildAdd(b, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), c32(L, P->bm * ROW_BYTES), "");
    LLVMValueRef kc = LLVMBuildAnd(b, lt, c32(L, 7), ""), lt8 = LLVMBuildLShr(b, lt, c32(L, 3), "");
    for (uint32_t q = 0; q < P->bn / 64; q++) {
        LLVMValueRef nc = LLVMBuildAdd(b, lt8, c32(L, 16 * q), "");
        LLVMValueRef v[16], o[3][16];
        for (uint32_t i = 0; i < 4; i++) { /* row 4kc+i, chunk nc stored at nc ^ kc */
            LLVMValueRef off;
            if (h) {
                off = LLVMBuildAdd(b, LLVMBuildAdd(b, raw, h->ldsb, ""), c32(L, i * P->bn * 4 + q * 256), "");
            } else {
                LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildShl(b, kc, c32(L, 2), ""), c32(L, i), "");
                off = LLVMBuildAdd(b, LLVMBuildMul(b, r, c32(L, P->bn * 4), ""),
                                   LLVMBuildShl(b, LLVMBuildXor(b, nc, kc, ""), c32(L, 4), ""), "");
                off = LLVMBuildAdd(b, raw, off, "");
            }
            LLVMValueRef ld = LLVMBuildLoad2(b, v4, LLVMBuildGEP2(b, i8, P->ring, &off, 1, ""), "");
            LLVMSetAlignment(ld, 16);
            for (uint32_t e = 0; e < 4; e++)
                v[4 * i + e] = LLVMBuildExtractElement(b, ld, c32(L, e), "");
        }
        split_batch(P, v, 16, o);
        for (uint32_t jj = 0; jj < 4; jj++) { /* row n = 4nc + jj of B^T: column jj of the 4 rows */
            LLVMValueRef off;
            if (h) {
                off = LLVMBuildAdd(b, LLVMBuildAdd(b, op, h->stsb[jj], ""), c32(L, q * 64 * ROW_BYTES), "");
            } else {
                LLVMValueRef n = LLVMBuildAdd(b, LLVMBuildShl(b, nc, c32(L, 2), ""), c32(L, jj), "");
                off = LLVMBuildAdd(b, op, swz(L, n, kc), "");
            }
            for (uint32_t c = 0; c < P->copies; c++) {
                LLVMValueRef e4[4] = {o[c][jj], o[c][4 + jj], o[c][8 + jj], o[c][12 + jj]};
                st_shared_v4(L, P->ring, LLVMBuildAdd(b, off, c32(L, c * P->bn * ROW_BYTES), ""), e4);
            }
        }
    }
}

/* Producer warpgroup p of P: its iteration u issues the copies of step
 * t = p + P*u and finishes step t - P*lag (its copies landed: B rounded into
 * place, both released to the consumers); then it returns. Its raw B slots
 * are its own: p*(lag+1) + u % (lag+1). */
static void producer(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef ptid = LLVMBuildSub(b, L->tid, c32(L, P->consumers), "");
    LLVMValueRef pwg = LLVMBuildLShr(b, ptid, c32(L, 7), "");
    LLVMValueRef lt = LLVMBuildAnd(b, ptid, c32(L, WARPGROUP - 1), "");
    LLVMValueRef bar_id = LLVMBuildAdd(b, pwg, c32(L, 2), "");
    /* my steps: ceil((nsteps - p) / P), at least 0 */
    LLVMValueRef left = LLVMBuildSub(b, P->nsteps, pwg, "");
    LLVMValueRef mine = LLVMBuildUDiv(b, LLVMBuildAdd(b, left, c32(L, P->producers - 1), ""), c32(L, P->producers), "");
    mine = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, left, c32(L, 0), ""), mine, c32(L, 0), "mine");
    LLVMValueRef total = LLVMBuildAdd(b, mine, c32(L, P->lag), "");
    LLVMValueRef slot0 = LLVMBuildMul(b, pwg, c32(L, P->lag + 1), "");
    Hoisted hoisted, *h = NULL;
    if (P->hoist) {
        hoist_terms(P, xa, xb, lt, &hoisted);
        h = &hoisted;
    }

    Loop lp = loop_open(L, "prod");
    LLVMValueRef u = lp.i;
    loop_test(L, &lp, total);
    LLVMBasicBlockRef issue = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.issue");
    LLVMBasicBlockRef issued = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.issued");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, u, mine, ""), issue, issued);
    LLVMPositionBuilderAtEnd(b, issue);
    LLVMValueRef t = LLVMBuildAdd(b, pwg, LLVMBuildMul(b, u, c32(L, P->producers), ""), "");
    LLVMValueRef slot = LLVMBuildAdd(b, slot0, LLVMBuildURem(b, u, c32(L, P->lag + 1), ""), "");
    issue_step(P, xa, xb, t, slot, lt, h);
    LLVMBuildBr(b, issued);
    LLVMPositionBuilderAtEnd(b, issued);
    /* one group per iteration, empty past the last step, so that "all but
     * the newest lag groups" is always the step being finished */
    lw_asm(L, void_t(L), "cp.async.commit_group;", "~{memory}", NULL, 0, SE);

    LLVMValueRef v = LLVMBuildSub(b, u, c32(L, P->lag), "");
    LLVMBasicBlockRef fin = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.finish");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.next");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGE, v, c32(L, 0), ""), fin, next);
    LLVMPositionBuilderAtEnd(b, fin);
    char w[48];
    snprintf(w, sizeof w, "cp.async.wait_group %u;", P->lag);
    lw_asm(L, void_t(L), w, "~{memory}", NULL, 0, SE);
    producer_barrier(L, bar_id); /* every thread's copies of the step have landed */
    LLVMValueRef j = LLVMBuildAdd(b, pwg, LLVMBuildMul(b, v, c32(L, P->producers), ""), "");
    transform_step(P, j, LLVMBuildAdd(b, slot0, LLVMBuildURem(b, v, c32(L, P->lag + 1), ""), ""), lt, h);
    /* the tensor cores read B through the async proxy */
    lw_asm(L, void_t(L), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0, SE);
    bar_arrive(L, bar_addr(L, P->full32, LLVMBuildURem(b, j, c32(L, P->stages), "")));
    producer_barrier(L, bar_id); /* the raw slot is read by all before the next step reuses it */
    LLVMBuildBr(b, next);

    LLVMPositionBuilderAtEnd(b, next);
    loop_close(L, &lp);
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

/* Inline PTX `tmpl` on the accumulators: operands 0..nacc-1 are acc, read
 * and written in place (each output tied to its input), followed by the
 * inputs in[0..nin) with constraints in_cons (each with its leading comma).
 * acc receives the results. */
static void acc_asm(Lower *L, const char *tmpl, const char *in_cons, LLVMValueRef *acc, uint32_t nacc,
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

/* One wgmma of a group: its register operand (4 x i32), its shared-memory
 * operand's descriptor, the accumulators it updates (acc[acc0 ..]), and
 * whether it ignores their values (starts from zero). */
typedef struct {
    LLVMValueRef a[4], desc;
    uint32_t acc0;
    int from_zero;
} Wgmma;

/* n wgmmas m64 x wn x k8 (tf32), each on per accumulators, in one asm
 * statement on acc (nacc registers) that also waits for them, so that
 * nothing touches the accumulators while they are in flight. */
static void wgmma_group(Pipe *P, const Wgmma *w, uint32_t n, uint32_t wn, uint32_t per, LLVMValueRef *acc,
                        uint32_t nacc)
{
    Lower *L = P->L;
    uint32_t nin = 5 * n + 1;
    LLVMValueRef *in = lw_regs(L, nin);
    if (!in)
        return;
    StrBuf t, c;
    sb_init(&t);
    sb_init(&c);
    uint32_t first_in = 2 * nacc, flag = 2 * nacc + 5 * n; /* operand numbers */
    sb_printf(&t, "{\n\t.reg .pred P0, P1;\n\tsetp.ne.b32 P1, $%u, 0;\n\tsetp.eq.b32 P0, $%u, 0;\n"
              "\twgmma.fence.sync.aligned;\n", flag, flag);
    for (uint32_t d = 0; d < n; d++) {
        memcpy(&in[5 * d], w[d].a, sizeof w[d].a);
        in[5 * d + 4] = w[d].desc;
        sb_printf(&t, "\twgmma.mma_async.sync.aligned.m64n%uk8.f32.tf32.tf32 {", wn);
        for (uint32_t x = 0; x < per; x++)
            sb_printf(&t, "%s$%u", x ? ", " : "", w[d].acc0 + x);
        uint32_t o = first_in + 5 * d;
        sb_printf(&t, "}, {$%u, $%u, $%u, $%u}, $%u, %s, 1, 1;\n", o, o + 1, o + 2, o + 3, o + 4,
                  w[d].from_zero ? "P0" : "P1");
        sb_puts(&c, ",r,r,r,r,l");
    }
    sb_puts(&t, "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\t}");
    sb_puts(&c, ",r");
    in[5 * n] = c32(L, 1);
    if (t.oom || c.oom)
        lw_error(L, (TirLoc){0}, "out of memory while lowering");
    else
        acc_asm(L, t.data, c.data, acc, nacc, in, nin);
    sb_free(&t);
    sb_free(&c);
}

/* (A copy, B copy) of each product: 3xtf32 sums small*hic, hic*small, big*big */
static const uint32_t pairs3[3][2] = {{1, 2}, {2, 1}, {0, 0}};

/* The wgmmas of k8 steps j0 .. j0+nk-1 of one stage: A from registers
 * (a[copy][j][4], i32), B by descriptor (db: B copy 0 of the stage), all on
 * acc. from_zero: the first ignores acc. */
static void mma_group(Pipe *P, LLVMValueRef a[3][4][4], uint32_t j0, uint32_t nk, LLVMValueRef db, LLVMValueRef *acc,
                      uint32_t nacc, int from_zero)
{
    uint32_t npairs = P->copies == 3 ? 3 : 1, d = 0;
    Wgmma w[12];
    for (uint32_t j = j0; j < j0 + nk; j++)
        for (uint32_t p = 0; p < npairs; p++, d++) {
            uint32_t ca = npairs == 3 ? pairs3[p][0] : 0, cb = npairs == 3 ? pairs3[p][1] : 0;
            memcpy(w[d].a, a[ca][j], sizeof w[d].a);
            int64_t addb = ((int64_t)cb * P->bn * ROW_BYTES + j * 32) >> 4;
            w[d].desc = LLVMBuildAdd(P->L->b, db, c64(P->L, addb), "");
            w[d].acc0 = 0;
            w[d].from_zero = from_zero && d == 0;
        }
    wgmma_group(P, w, d, P->bn, nacc, acc, nacc);
}

/* One stage: the A fragments from the raw A tile (rounded or split here,
 * once per element), then the wgmmas. Fragment of k8 step j, warp w, lane
 * g*4+t: A[16w+g][8j+t], A[16w+g+8][8j+t], A[16w+g][8j+t+4], A[16w+g+8][8j+t+4]. */
static void mma_stage(Pipe *P, LLVMValueRef a_off, LLVMValueRef db, LLVMValueRef *acc, uint32_t nacc)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef g = LLVMBuildLShr(b, LLVMBuildAnd(b, L->tid, c32(L, 31), ""), c32(L, 2), "");
    LLVMValueRef t4 = LLVMBuildShl(b, LLVMBuildAnd(b, L->tid, c32(L, 3), ""), c32(L, 2), "");
    LLVMValueRef r0 = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildLShr(b, L->tid, c32(L, 5), ""), c32(L, 16), ""), g, "");
    LLVMValueRef row_off = LLVMBuildAdd(b, a_off, LLVMBuildMul(b, r0, c32(L, ROW_BYTES), ""), "");
    uint32_t kg = P->copies == 3 ? 2 : 4; /* k8 steps per asm: 3xtf32's split fragments take registers */
    LLVMValueRef *part = acc;
    if (P->copies == 3) { /* this stage's products apart, then one RN add */
        part = lw_regs(L, nacc);
        if (!part)
            return;
        for (uint32_t r = 0; r < nacc; r++)
            part[r] = LLVMConstReal(L->t_f32, 0.0); /* ignored: the first wgmma starts from zero */
    }
    for (uint32_t j0 = 0; j0 < 4; j0 += kg) {
        LLVMValueRef a[3][4][4], raw[16], o[3][16];
        for (uint32_t j = j0; j < j0 + kg; j++)
            for (uint32_t e = 0; e < 4; e++) {
                uint32_t chunk = 2 * j + (e >> 1), plus8 = e & 1;
                LLVMValueRef off = LLVMBuildShl(b, LLVMBuildXor(b, g, c32(L, chunk), ""), c32(L, 4), "");
                off = LLVMBuildAdd(b, LLVMBuildAdd(b, row_off, off, ""), t4, "");
                off = LLVMBuildAdd(b, off, c32(L, plus8 * 8 * ROW_BYTES), "");
                raw[4 * (j - j0) + e] = LLVMBuildLoad2(b, L->t_f32, LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx),
                                                                                    P->ring, &off, 1, ""), "");
            }
        split_batch(P, raw, 4 * kg, o);
        for (uint32_t j = j0; j < j0 + kg; j++)
            for (uint32_t e = 0; e < 4; e++)
                for (uint32_t c = 0; c < P->copies; c++)
                    a[c][j][e] = LLVMBuildBitCast(b, o[c][4 * (j - j0) + e], L->t_i32, "");
        mma_group(P, a, j0, kg, db, part, nacc, P->copies == 3 && j0 == 0);
    }
    if (P->copies == 3)
        for (uint32_t r = 0; r < nacc; r++)
            acc[r] = LLVMBuildFAdd(b, acc[r], part[r], "");
}

static void swp_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc);

static void consumer(Pipe *P, LLVMValueRef *acc, uint32_t nacc)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef desc_b = descriptor(L, LLVMBuildAdd(b, P->ring32, c32(L, P->bm * ROW_BYTES), ""));

    Loop lp = loop_open(L, "mma");
    LLVMValueRef it = lp.i;
    LLVMValueRef *phis = lw_regs(L, nacc);
    if (!phis)
        return;
    for (uint32_t r = 0; r < nacc; r++) {
        phis[r] = LLVMBuildPhi(b, L->t_f32, "");
        LLVMAddIncoming(phis[r], &acc[r], &lp.pre, 1);
    }
    loop_test(L, &lp, P->nsteps);
    LLVMValueRef s = LLVMBuildURem(b, it, c32(L, P->stages), "");
    LLVMValueRef ph = LLVMBuildAnd(b, LLVMBuildUDiv(b, it, c32(L, P->stages), ""), c32(L, 1), "");
    bar_wait(L, bar_addr(L, P->full32, s), ph);
    if (P->swapped) /* B is read from where the bulk copies wrote it: observe their barrier too */
        bar_wait(L, bar_addr(L, P->landed32, s), ph);
    LLVMValueRef soff = LLVMBuildMul(b, s, c32(L, P->stage_bytes), "");
    LLVMValueRef *cur = lw_regs(L, nacc);
    if (!cur)
        return;
    memcpy(cur, phis, nacc * sizeof *cur);
    LLVMValueRef db = LLVMBuildAdd(b, desc_b, LLVMBuildZExt(b, LLVMBuildLShr(b, soff, c32(L, 4), ""), L->t_i64, ""), "");
    if (P->swapped)
        swp_stage(P, soff, cur, nacc);
    else
        mma_stage(P, soff, db, cur, nacc);
    bar_arrive(L, bar_addr(L, P->empty32, s));
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    for (uint32_t r = 0; r < nacc; r++)
        LLVMAddIncoming(phis[r], &cur[r], &latch, 1);
    loop_close(L, &lp);
    memcpy(acc, phis, nacc * sizeof *acc);
}

/* ---- the swapped product (-fwgmma-swapped) ----
 *
 * C = A B computed as C^T = B^T A^T: A (K-major as it lies in a row-major
 * matrix) is wgmma's shared-memory operand, N = BM; B^T is the register
 * operand, read straight from the raw B tile (a row-major B[K,N] gives any
 * register layout for free), M = 64 columns of B per wgmma. Nothing is
 * transposed: the producers copy whole tile rows with cp.async.bulk (one
 * instruction per row, completed on the stage's `landed` barrier by byte
 * count), then only round (or split) A in place, writing it back under the
 * 128-byte swizzle; the consumers round B as they load their fragments.
 * Rows that are not 16-byte aligned or not wholly inside the matrix are
 * copied element by element with cp.async (src-size 0 outside: zeros,
 * nothing read), tracked on the same barrier. The accumulators are C^T's
 * MMA layout: C gets the transposed MMA layout (lower.h). */

enum { B_PAD = 32 }; /* bytes after each raw B row: 8 rows t..t+3 of a fragment read hit distinct banks */

static uint32_t raw_b_row_bytes(uint32_t bn) { return bn * 4 + B_PAD; }

/* Whether rows of x may be copied in bulk from column c0, n columns: unit
 * column stride, 16-byte aligned base, row stride and c0, and the columns
 * inside the matrix (the row is checked by the caller). */
static LLVMValueRef bulk_ok(Lower *L, const Access *x, LLVMValueRef c0, uint32_t n)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef blo = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, x->base, L->t_i64, ""), c64(L, 15), "");
    LLVMValueRef lo4 = LLVMBuildOr(b, LLVMBuildAnd(b, x->s0, c64(L, 3), ""), LLVMBuildAnd(b, c0, c64(L, 3), ""), "");
    LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildOr(b, blo, lo4, ""), c64(L, 0), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildAnd(b, x->nonempty, LLVMBuildICmp(b, LLVMIntEQ, x->s1, c64(L, 1), ""), ""), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntSGE, c0, c64(L, 0), ""), "");
    return LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, c0, c64(L, n), ""), x->d1, ""), "");
}

/* Elements [c0, c0 + n) of row `row` of x to shared address dst (i32, 4
 * bytes apart) with 4-byte cp.async, zero outside the matrix (src-size 0:
 * nothing is read). A loop: edges and odd strides only. */
static void copy_elems(Lower *L, const Access *x, LLVMValueRef row, LLVMValueRef c0, uint32_t n, LLVMValueRef dst)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef rok = LLVMBuildAnd(b, x->nonempty, lw_in_range(L, row, x->d0), "");
    LLVMValueRef roff = LLVMBuildMul(b, row, x->s0, "");
    Loop lp = loop_open(L, "cp.elem");
    loop_test(L, &lp, c32(L, n));
    LLVMValueRef c = LLVMBuildAdd(b, c0, LLVMBuildZExt(b, lp.i, L->t_i64, ""), "");
    LLVMValueRef ok = LLVMBuildAnd(b, rok, lw_in_range(L, c, x->d1), "");
    LLVMValueRef eoff = LLVMBuildSelect(b, ok, LLVMBuildAdd(b, roff, LLVMBuildMul(b, c, x->s1, ""), ""), c64(L, 0), "");
    LLVMValueRef pe = LLVMBuildGEP2(b, L->t_f32, x->base, &eoff, 1, "");
    LLVMValueRef e[3] = {LLVMBuildAdd(b, dst, LLVMBuildShl(b, lp.i, c32(L, 2), ""), ""),
                         LLVMBuildPtrToInt(b, pe, L->t_i64, ""), LLVMBuildSelect(b, ok, c32(L, 4), c32(L, 0), "")};
    lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r,~{memory}", e, 3, SE);
    loop_close(L, &lp);
}

/* Opens `if (cond)`; returns the block to close it with if_close(). */
static LLVMBasicBlockRef if_open(Lower *L, LLVMValueRef cond, const char *name)
{
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(L->ctx, L->fn, name);
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildCondBr(L->b, cond, yes, done);
    LLVMPositionBuilderAtEnd(L->b, yes);
    return done;
}

static void if_close(Lower *L, LLVMBasicBlockRef done)
{
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

/* A producer thread's A copies, fixed for the loop: chunk lt % 8 of rows
 * lt / 8 + 16q (a warp reads 4 rows, 512 contiguous bytes, per copy). */
typedef struct {
    LLVMValueRef p0;    /* &A[i0 + lt/8][4 * (lt%8)] (before k) */
    LLVMValueRef step;  /* i64: 16 rows, in elements */
    LLVMValueRef row0;  /* i64: i0 + lt/8 */
    LLVMValueRef col0;  /* i64: 4 * (lt%8) */
    LLVMValueRef dst0;  /* i32: row lt/8, chunk lt%8 swizzled, in a stage */
} ACopy;

static ACopy a_copy_terms(Pipe *P, const Access *xa, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    ACopy a;
    LLVMValueRef r = LLVMBuildLShr(b, lt, c32(L, 3), ""), ch = LLVMBuildAnd(b, lt, c32(L, 7), "");
    a.row0 = LLVMBuildAdd(b, xa->i0, LLVMBuildZExt(b, r, L->t_i64, ""), "");
    a.col0 = LLVMBuildZExt(b, LLVMBuildShl(b, ch, c32(L, 2), ""), L->t_i64, "");
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, a.row0, xa->s0, ""), a.col0, "");
    a.p0 = LLVMBuildGEP2(b, L->t_f32, xa->base, &off, 1, "");
    a.step = LLVMBuildShl(b, xa->s0, c64(L, 4), "");
    a.dst0 = swz(L, r, ch); /* (r + 16q) % 8 = r % 8: copy q adds 16 rows */
    return a;
}

/* -fwgmma-unaligned: a B tile inside the matrix but not 16-byte aligned
 * (odd row strides) is copied element e = lt + 128i at a time in unchecked
 * 4-byte pieces (a warp reads 32 consecutive columns), then on to `join`;
 * the builder continues where the checked element path starts. */
static void b_unaligned(Pipe *P, const Access *xb, LLVMValueRef k, LLVMValueRef lt, LLVMValueRef bbase,
                        LLVMBasicBlockRef join)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef inb = LLVMBuildAnd(b, LLVMBuildAnd(b, xb->nonempty, LLVMBuildICmp(b, LLVMIntEQ, xb->s1, c64(L, 1), ""), ""),
                                    LLVMBuildICmp(b, LLVMIntSGE, k, c64(L, 0), ""), "");
    inb = LLVMBuildAnd(b, inb, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, k, c64(L, BK), ""), xb->d0, ""), "");
    inb = LLVMBuildAnd(b, inb, LLVMBuildICmp(b, LLVMIntSGE, xb->i1, c64(L, 0), ""), "");
    inb = LLVMBuildAnd(b, inb, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, xb->i1, c64(L, P->bn), ""), xb->d1, ""), "");
    LLVMBasicBlockRef ibb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.inside");
    LLVMBasicBlockRef cbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.checked");
    LLVMBuildCondBr(b, inb, ibb, cbb);
    LLVMPositionBuilderAtEnd(b, ibb);
    {
        uint32_t shift = 0;
        while ((1u << shift) < P->bn)
            shift++;
        Loop li = loop_open(L, "b.elem");
        loop_test(L, &li, c32(L, P->bn / 16));
        for (uint32_t u = 0; u < 4; u++) {
            LLVMValueRef e = LLVMBuildAdd(b, lt, LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildShl(b, li.i, c32(L, 2), ""),
                                                                              c32(L, u), ""), c32(L, WARPGROUP), ""), "");
            LLVMValueRef r = LLVMBuildLShr(b, e, c32(L, shift), ""), c = LLVMBuildAnd(b, e, c32(L, P->bn - 1), "");
            LLVMValueRef grow = LLVMBuildAdd(b, k, LLVMBuildZExt(b, r, L->t_i64, ""), "");
            LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, grow, xb->s0, ""),
                                            LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, c, L->t_i64, ""), ""), "");
            LLVMValueRef src = LLVMBuildGEP2(b, L->t_f32, xb->base, &off, 1, "");
            LLVMValueRef d = LLVMBuildAdd(b, LLVMBuildAdd(b, bbase, LLVMBuildMul(b, r, c32(L, raw_b_row_bytes(P->bn)), ""), ""),
                                          LLVMBuildShl(b, c, c32(L, 2), ""), "");
            LLVMValueRef x[2] = {d, LLVMBuildPtrToInt(b, src, L->t_i64, "")};
            lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4;", "r,l,~{memory}", x, 2, SE);
        }
        loop_close(L, &li);
    }
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, cbb);
}

/* Step t's copies, by producer thread lt: its A chunks with cp.async into
 * the stage's A operand, already under the 128-byte swizzle (16 bytes where
 * the tile is 16-byte aligned and the row inside, else element by element);
 * B row lt / 4 raw into the stage's B tile, in one bulk copy by its first
 * thread, or a quarter each element by element. Every thread arrives on
 * landed[stage] once, when its cp.async copies are done; the bulk copies
 * complete their bytes there. */
static void swp_issue(Pipe *P, const Access *xa, const Access *xb, const ACopy *ac, LLVMValueRef t, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef s = LLVMBuildURem(b, t, c32(L, P->stages), "");
    bar_wait(L, bar_addr(L, P->empty32, s), LLVMBuildXor(b, LLVMBuildAnd(b, LLVMBuildUDiv(b, t, c32(L, P->stages), ""),
                                                                          c32(L, 1), ""), c32(L, 1), ""));
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, t, L->t_i64, ""), c64(L, BK), ""), "k");
    LLVMValueRef stage = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
    LLVMValueRef bar = bar_addr(L, P->landed32, s);

    LLVMValueRef fa = bulk_ok(L, xa, k, BK), pa = LLVMBuildGEP2(b, L->t_f32, ac->p0, &k, 1, "");
    LLVMValueRef adst = LLVMBuildAdd(b, stage, ac->dst0, "");
    /* the whole tile inside and aligned (every step but the edges): 16-byte
     * copies from a running pointer, nothing checked per row */
    LLVMValueRef whole = LLVMBuildAnd(b, fa, LLVMBuildICmp(b, LLVMIntSGE, xa->i0, c64(L, 0), ""), "");
    whole = LLVMBuildAnd(b, whole, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, xa->i0, c64(L, P->bm), ""), xa->d0, ""), "");
    LLVMBasicBlockRef wbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.whole");
    LLVMBasicBlockRef rbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.rows");
    LLVMBasicBlockRef adone = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.copied");
    LLVMBuildCondBr(b, whole, wbb, rbb);
    LLVMPositionBuilderAtEnd(b, wbb);
    LLVMValueRef pw = pa;
    for (uint32_t q = 0; q < P->bm / 16; q++) {
        if (q)
        {
            LLVMValueRef st = ac->step;
            pw = LLVMBuildGEP2(b, L->t_f32, pw, &st, 1, "");
        }
        LLVMValueRef a[2] = {LLVMBuildAdd(b, adst, c32(L, q * 16 * ROW_BYTES), ""), LLVMBuildPtrToInt(b, pw, L->t_i64, "")};
        lw_asm(L, void_t(L), "cp.async.cg.shared.global [$0], [$1], 16;", "r,l,~{memory}", a, 2, SE);
    }
    LLVMBuildBr(b, adone);
    LLVMPositionBuilderAtEnd(b, rbb);
    /* else row by row, in a loop (the producers' registers are few); a row
     * inside the matrix whose columns are too, but not 16-byte aligned (odd
     * row strides), in unchecked 4-byte pieces */
    LLVMValueRef acols = NULL;
    if (P->unaligned) {
        acols = LLVMBuildAnd(b, LLVMBuildAnd(b, xa->nonempty, LLVMBuildICmp(b, LLVMIntEQ, xa->s1, c64(L, 1), ""), ""),
                             LLVMBuildICmp(b, LLVMIntSGE, k, c64(L, 0), ""), "");
        acols = LLVMBuildAnd(b, acols, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, k, c64(L, BK), ""), xa->d1, ""), "");
    }
    Loop lq = loop_open(L, "a.copy");
    LLVMValueRef q = lq.i;
    loop_test(L, &lq, c32(L, P->bm / 16));
    {
        LLVMValueRef row = LLVMBuildAdd(b, ac->row0, LLVMBuildShl(b, LLVMBuildZExt(b, q, L->t_i64, ""), c64(L, 4), ""), "");
        LLVMValueRef dst = LLVMBuildAdd(b, adst, LLVMBuildMul(b, q, c32(L, 16 * ROW_BYTES), ""), "");
        LLVMValueRef fast = LLVMBuildAnd(b, fa, lw_in_range(L, row, xa->d0), "");
        LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.fast");
        LLVMBasicBlockRef ebb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.edge");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.done");
        LLVMValueRef dq = NULL;
        if (P->unaligned)
            dq = LLVMBuildMul(b, ac->step, LLVMBuildZExt(b, q, L->t_i64, ""), "");
        LLVMBuildCondBr(b, fast, fbb, ebb);
        LLVMPositionBuilderAtEnd(b, fbb);
        if (!P->unaligned)
            dq = LLVMBuildMul(b, ac->step, LLVMBuildZExt(b, q, L->t_i64, ""), "");
        LLVMValueRef p = LLVMBuildGEP2(b, L->t_f32, pa, &dq, 1, "");
        LLVMValueRef a[2] = {dst, LLVMBuildPtrToInt(b, p, L->t_i64, "")};
        lw_asm(L, void_t(L), "cp.async.cg.shared.global [$0], [$1], 16;", "r,l,~{memory}", a, 2, SE);
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, ebb);
        if (P->unaligned) {
            LLVMBasicBlockRef ibb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.inside");
            LLVMBasicBlockRef cbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.checked");
            LLVMBuildCondBr(b, LLVMBuildAnd(b, acols, lw_in_range(L, row, xa->d0), ""), ibb, cbb);
            LLVMPositionBuilderAtEnd(b, ibb);
            LLVMValueRef pi = LLVMBuildGEP2(b, L->t_f32, pa, &dq, 1, "");
            for (uint32_t e = 0; e < 4; e++) {
                LLVMValueRef ce = c64(L, e);
                LLVMValueRef pe = LLVMBuildGEP2(b, L->t_f32, pi, &ce, 1, "");
                LLVMValueRef x[2] = {LLVMBuildAdd(b, dst, c32(L, 4 * e), ""), LLVMBuildPtrToInt(b, pe, L->t_i64, "")};
                lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4;", "r,l,~{memory}", x, 2, SE);
            }
            LLVMBuildBr(b, join);
            LLVMPositionBuilderAtEnd(b, cbb);
        }
        copy_elems(L, xa, row, LLVMBuildAdd(b, k, ac->col0, ""), 4, dst);
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, join);
    }
    loop_close(L, &lq);
    LLVMBuildBr(b, adone);
    LLVMPositionBuilderAtEnd(b, adone);

    /* B: the whole tile inside and aligned: lane 0 of producer warp w copies
     * rows 8w .. 8w+7, a bulk copy each (one elected thread: the bulk copy
     * takes uniform operands); else a quarter of row lt / 4 per thread,
     * element by element */
    LLVMValueRef bbase = LLVMBuildAdd(b, stage, c32(L, P->copies * P->bm * ROW_BYTES), "");
    LLVMValueRef fb = LLVMBuildAnd(b, bulk_ok(L, xb, xb->i1, P->bn), LLVMBuildICmp(b, LLVMIntSGE, k, c64(L, 0), ""), "");
    fb = LLVMBuildAnd(b, fb, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, k, c64(L, BK), ""), xb->d0, ""), "");
    LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.whole");
    LLVMBasicBlockRef ebb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.edge");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.done");
    LLVMBuildCondBr(b, fb, fbb, ebb);
    LLVMPositionBuilderAtEnd(b, fbb);
    LLVMBasicBlockRef one = if_open(L, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, lt, c32(L, 31), ""), c32(L, 0), ""),
                                    "b.bulk");
    LLVMValueRef w = LLVMBuildLShr(b, lt, c32(L, 5), "");
    LLVMValueRef r0 = LLVMBuildAdd(b, k, LLVMBuildZExt(b, LLVMBuildShl(b, w, c32(L, 3), ""), L->t_i64, ""), "");
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, r0, xb->s0, ""), xb->i1, "");
    LLVMValueRef p = LLVMBuildGEP2(b, L->t_f32, xb->base, &off, 1, "");
    LLVMValueRef d = LLVMBuildAdd(b, bbase, LLVMBuildMul(b, w, c32(L, 8 * raw_b_row_bytes(P->bn)), ""), "");
    LLVMValueRef tx[2] = {bar, c32(L, 8 * P->bn * 4)};
    lw_asm(L, void_t(L), "mbarrier.expect_tx.shared::cta.b64 [$0], $1;", "r,r,~{memory}", tx, 2, SE);
    for (uint32_t r = 0; r < 8; r++) {
        if (r)
        {
            LLVMValueRef st = xb->s0;
            p = LLVMBuildGEP2(b, L->t_f32, p, &st, 1, "");
        }
        LLVMValueRef a[4] = {LLVMBuildAdd(b, d, c32(L, r * raw_b_row_bytes(P->bn)), ""),
                             LLVMBuildPtrToInt(b, p, L->t_i64, ""), c32(L, P->bn * 4), bar};
        lw_asm(L, void_t(L), "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];",
               "r,l,r,r,~{memory}", a, 4, SE);
    }
    if_close(L, one);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, ebb);
    if (P->unaligned)
        b_unaligned(P, xb, k, lt, bbase, join);
    uint32_t quarter = P->bn / 4;
    LLVMValueRef kb = LLVMBuildLShr(b, lt, c32(L, 2), ""), qb = LLVMBuildAnd(b, lt, c32(L, 3), "");
    LLVMValueRef brow = LLVMBuildAdd(b, k, LLVMBuildZExt(b, kb, L->t_i64, ""), "");
    LLVMValueRef qoff = LLVMBuildMul(b, qb, c32(L, quarter), "");
    LLVMValueRef bdst = LLVMBuildAdd(b, bbase, LLVMBuildMul(b, kb, c32(L, raw_b_row_bytes(P->bn)), ""), "");
    copy_elems(L, xb, brow, LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, qoff, L->t_i64, ""), ""), quarter,
               LLVMBuildAdd(b, bdst, LLVMBuildShl(b, qoff, c32(L, 2), ""), ""));
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    lw_asm(L, void_t(L), "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r,~{memory}", &bar, 1, SE);
}

/* Step j's A tile, once landed: rounded (split) where it lies, copy 0 in
 * place, the others at the same offsets in theirs; thread lt takes 16-byte
 * chunks lt, lt + 128, .. (a warp 512 contiguous bytes). tf32-trunc leaves
 * it as it is: the tensor cores truncate. */
static void swp_transform(Pipe *P, LLVMValueRef j, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef v4 = LLVMVectorType(L->t_f32, 4), i8 = LLVMInt8TypeInContext(L->ctx);
    LLVMValueRef s = LLVMBuildURem(b, j, c32(L, P->stages), "");
    bar_wait(L, bar_addr(L, P->landed32, s), LLVMBuildAnd(b, LLVMBuildUDiv(b, j, c32(L, P->stages), ""), c32(L, 1), ""));
    LLVMValueRef off0 = LLVMBuildAdd(b, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), LLVMBuildShl(b, lt, c32(L, 4), ""), "");
    uint32_t chunks = P->bm * ROW_BYTES / 16 / WARPGROUP; /* per thread */
    for (uint32_t i0 = 0; i0 < chunks && P->prec != PREC_TF32_TRUNC; i0 += 4) {
        LLVMValueRef v[16], o[3][16];
        uint32_t n = chunks - i0 < 4 ? chunks - i0 : 4;
        for (uint32_t i = 0; i < n; i++) {
            LLVMValueRef off = LLVMBuildAdd(b, off0, c32(L, (i0 + i) * WARPGROUP * 16), "");
            LLVMValueRef ld = LLVMBuildLoad2(b, v4, LLVMBuildGEP2(b, i8, P->ring, &off, 1, ""), "");
            LLVMSetAlignment(ld, 16);
            for (uint32_t e = 0; e < 4; e++)
                v[4 * i + e] = LLVMBuildExtractElement(b, ld, c32(L, e), "");
        }
        split_batch(P, v, 4 * n, o);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t c = 0; c < P->copies; c++) {
                uint32_t add = (i0 + i) * WARPGROUP * 16 + c * P->bm * ROW_BYTES;
                st_shared_v4(L, P->ring, LLVMBuildAdd(b, off0, c32(L, add), ""), &o[c][4 * i]);
            }
    }
    /* the tensor cores read A through the async proxy */
    lw_asm(L, void_t(L), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0, SE);
    bar_arrive(L, bar_addr(L, P->full32, s));
}

/* Producer warpgroup p of P: iteration u issues step p + P*u and finishes
 * step p + P*(u - lag) (as producer() above, without slots of its own). */
static void swp_producer(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef ptid = LLVMBuildSub(b, L->tid, c32(L, P->consumers), "");
    LLVMValueRef pwg = LLVMBuildLShr(b, ptid, c32(L, 7), "");
    LLVMValueRef lt = LLVMBuildAnd(b, ptid, c32(L, WARPGROUP - 1), "");
    /* my steps: ceil((nsteps - p) / P), at least 0 */
    LLVMValueRef left = LLVMBuildSub(b, P->nsteps, pwg, "");
    LLVMValueRef mine = LLVMBuildUDiv(b, LLVMBuildAdd(b, left, c32(L, P->producers - 1), ""), c32(L, P->producers), "");
    mine = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, left, c32(L, 0), ""), mine, c32(L, 0), "mine");
    LLVMValueRef total = LLVMBuildAdd(b, mine, c32(L, P->lag), "");
    ACopy ac = a_copy_terms(P, xa, lt);
    Loop lp = loop_open(L, "prod");
    LLVMValueRef u = lp.i;
    loop_test(L, &lp, total);
    LLVMBasicBlockRef issue = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.issue");
    LLVMBasicBlockRef issued = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.issued");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, u, mine, ""), issue, issued);
    LLVMPositionBuilderAtEnd(b, issue);
    swp_issue(P, xa, xb, &ac, LLVMBuildAdd(b, pwg, LLVMBuildMul(b, u, c32(L, P->producers), ""), ""), lt);
    LLVMBuildBr(b, issued);
    LLVMPositionBuilderAtEnd(b, issued);
    LLVMValueRef v = LLVMBuildSub(b, u, c32(L, P->lag), "");
    LLVMBasicBlockRef fin = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.finish");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.next");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGE, v, c32(L, 0), ""), fin, next);
    LLVMPositionBuilderAtEnd(b, fin);
    swp_transform(P, LLVMBuildAdd(b, pwg, LLVMBuildMul(b, v, c32(L, P->producers), ""), ""), lt);
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, next);
    loop_close(L, &lp);
    LLVMBuildRetVoid(b);
}

/* The wgmmas of k8 steps j0 .. j0+nk-1 of one stage, every block: block
 * r's accumulators are acc[r * BM/2 ..], its register operand
 * f[copy][r][j - j0][4] (i32), A by descriptor (da: A copy 0 of the stage).
 * from_zero: each block's first wgmma ignores its accumulators. */
static void swp_mma_group(Pipe *P, LLVMValueRef f[3][4][4][4], uint32_t j0, uint32_t nk, LLVMValueRef da,
                          LLVMValueRef *acc, uint32_t nacc, int from_zero)
{
    uint32_t npairs = P->copies == 3 ? 3 : 1, per = P->bm / 2, d = 0;
    Wgmma w[4 * 3 * 4]; /* k8 steps x products x blocks */
    for (uint32_t j = j0; j < j0 + nk; j++)
        for (uint32_t p = 0; p < npairs; p++)
            for (uint32_t r = 0; r < P->blocks; r++, d++) {
                uint32_t ca = npairs == 3 ? pairs3[p][0] : 0, cb = npairs == 3 ? pairs3[p][1] : 0;
                memcpy(w[d].a, f[cb][r][j - j0], sizeof w[d].a);
                int64_t adda = ((int64_t)ca * P->bm * ROW_BYTES + j * 32) >> 4;
                w[d].desc = LLVMBuildAdd(P->L->b, da, c64(P->L, adda), "");
                w[d].acc0 = r * per;
                w[d].from_zero = from_zero && j == j0 && p == 0;
            }
    wgmma_group(P, w, d, P->bm, per, acc, nacc);
}

/* One stage of the swapped product: B fragments from the raw B tile,
 * rounded (split) in registers, then the wgmmas. Block r, k8 step j, warp w
 * (of all consumers), lane g*4+t: B[8j+t][n], B[8j+t][n+8], B[8j+t+4][n],
 * B[8j+t+4][n+8] with n = 16*blocks*w + 16r + g, the C^T MMA layout's rows. */
static void swp_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    uint32_t rb = raw_b_row_bytes(P->bn);
    LLVMValueRef g = LLVMBuildLShr(b, LLVMBuildAnd(b, L->tid, c32(L, 31), ""), c32(L, 2), "");
    LLVMValueRef t = LLVMBuildAnd(b, L->tid, c32(L, 3), "");
    LLVMValueRef n0 = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildLShr(b, L->tid, c32(L, 5), ""), c32(L, 16 * P->blocks), ""),
                                   g, "");
    LLVMValueRef base = LLVMBuildAdd(b, soff, c32(L, P->copies * P->bm * ROW_BYTES), "");
    base = LLVMBuildAdd(b, base, LLVMBuildMul(b, t, c32(L, rb), ""), "");
    base = LLVMBuildAdd(b, base, LLVMBuildShl(b, n0, c32(L, 2), ""), "");
    LLVMValueRef da = descriptor(L, LLVMBuildAdd(b, P->ring32, soff, ""));
    uint32_t kg = P->copies == 3 ? 2 : 4;
    LLVMValueRef *part = acc;
    if (P->copies == 3) { /* this stage's products apart, then one RN add (as mma_stage) */
        part = lw_regs(L, nacc);
        if (!part)
            return;
        for (uint32_t r = 0; r < nacc; r++)
            part[r] = LLVMConstReal(L->t_f32, 0.0);
    }
    for (uint32_t j0 = 0; j0 < 4; j0 += kg) {
        LLVMValueRef f[3][4][4][4];
        for (uint32_t r = 0; r < P->blocks; r++) {
            LLVMValueRef raw[16], o[3][16];
            for (uint32_t j = 0; j < kg; j++)
                for (uint32_t e = 0; e < 4; e++) {
                    uint32_t k = 8 * (j0 + j) + 4 * (e >> 1), n = 16 * r + 8 * (e & 1);
                    LLVMValueRef off = LLVMBuildAdd(b, base, c32(L, k * rb + n * 4), "");
                    raw[4 * j + e] = LLVMBuildLoad2(b, L->t_f32, LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), P->ring,
                                                                               &off, 1, ""), "");
                }
            split_batch(P, raw, 4 * kg, o);
            for (uint32_t j = 0; j < kg; j++)
                for (uint32_t e = 0; e < 4; e++)
                    for (uint32_t c = 0; c < P->copies; c++)
                        f[c][r][j][e] = LLVMBuildBitCast(b, o[c][4 * j + e], L->t_i32, "");
        }
        swp_mma_group(P, f, j0, kg, da, part, nacc, P->copies == 3 && j0 == 0);
    }
    if (P->copies == 3)
        for (uint32_t r = 0; r < nacc; r++)
            acc[r] = LLVMBuildFAdd(b, acc[r], part[r], "");
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
              .prec = (TirPrecision)dot->ival, .consumers = L->threads};
    P.copies = P.prec == PREC_3XTF32 ? 3 : 1;
    P.producers = wgmma_producers(P.bn, P.prec, P.stages);
    P.lag = wgmma_lag(P.stages, P.producers);
    P.stage_bytes = wgmma_stage_bytes(P.bm, P.bn, P.prec);
    P.hoist = L->o->wgmma_hoist;
    P.swapped = L->o->wgmma_swapped;
    P.unaligned = L->o->wgmma_unaligned;
    if (P.swapped) {
        P.producers = swp_producers(P.bm, P.prec, P.stages);
        P.lag = wgmma_lag(P.stages, P.producers);
        P.stage_bytes = wgmma_swapped_stage_bytes(P.bm, P.bn, P.prec);
        P.blocks = P.bn / (64 * (P.consumers / WARPGROUP));
        P.hoist = 0;
    }

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

    /* the stages, 1024-byte aligned, the raw B slots, then full[] and empty[] */
    uint32_t ring_bytes = P.stages * P.stage_bytes, raw_bytes = P.producers * (P.lag + 1) * P.bn * ROW_BYTES;
    if (P.swapped)
        raw_bytes = 0;
    LLVMValueRef sm = smem_ptr(L, P.swapped ? wgmma_swapped_smem_bytes(P.bm, P.bn, P.prec, P.stages)
                                            : wgmma_smem_bytes(P.bm, P.bn, P.prec, P.stages));
    LLVMValueRef sm64 = LLVMBuildPtrToInt(b, sm, L->t_i64, "");
    LLVMValueRef pad = LLVMBuildAnd(b, LLVMBuildSub(b, c64(L, 0), sm64, ""), c64(L, 1023), "");
    P.ring = LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), sm, &pad, 1, "ring");
    P.ring32 = LLVMBuildTrunc(b, LLVMBuildAdd(b, sm64, pad, ""), L->t_i32, "");
    P.raw_off = c32(L, ring_bytes);
    P.raw32 = LLVMBuildAdd(b, P.ring32, P.raw_off, "");
    P.full32 = LLVMBuildAdd(b, P.raw32, c32(L, raw_bytes), "");
    P.empty32 = LLVMBuildAdd(b, P.full32, c32(L, 8 * P.stages), "");
    P.landed32 = LLVMBuildAdd(b, P.empty32, c32(L, 8 * P.stages), "");

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
        if (P.swapped) { /* every producer thread arrives once per step */
            a[0] = bar_addr(L, P.landed32, c32(L, s));
            a[1] = c32(L, WARPGROUP);
            lw_asm(L, void_t(L), "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r,~{memory}", a, 2, SE);
        }
    }
    LLVMBuildBr(b, go);
    LLVMPositionBuilderAtEnd(b, go);
    lw_barrier(L); /* every thread: the barriers are ready */

    LLVMBasicBlockRef prod = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "producer");
    LLVMBasicBlockRef cons = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "consumer");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGE, L->tid, c32(L, P.consumers), ""), prod, cons);
    uint32_t creg, preg = P.swapped ? swp_register_split(P.consumers, P.producers, P.copies, &creg)
                                     : register_split(P.consumers, P.producers, P.copies, &creg);
    char rtmpl[64];
    LLVMPositionBuilderAtEnd(b, prod);
    if (preg) {
        snprintf(rtmpl, sizeof rtmpl, "setmaxnreg.dec.sync.aligned.u32 %u;", preg);
        lw_asm(L, void_t(L), rtmpl, "~{memory}", NULL, 0, SEC);
    }
    if (P.swapped)
        swp_producer(&P, &xa, &xb);
    else
        producer(&P, &xa, &xb);
    if (L->failed)
        return;

    LLVMPositionBuilderAtEnd(b, cons);
    if (creg) {
        snprintf(rtmpl, sizeof rtmpl, "setmaxnreg.inc.sync.aligned.u32 %u;", creg);
        lw_asm(L, void_t(L), rtmpl, "~{memory}", NULL, 0, SEC);
    }
    L->bar_threads = P.consumers;
    Layout lay = {.kind = LAYOUT_MMA, .rows = P.bm, .cols = P.bn, .wm = P.consumers / 32, .wn = 1, .mt = 1,
                  .nt = P.bn / 8};
    if (P.swapped) /* C^T's MMA layout: warp w holds its 16 * blocks columns of B */
        lay = (Layout){.kind = LAYOUT_MMA, .trans = 1, .rows = P.bm, .cols = P.bn, .wm = P.consumers / 32, .wn = 1,
                       .mt = P.blocks, .nt = P.bm / 8};
    LLVMValueRef *acc = lw_tile_in(L, args[3], &lay); /* a constant tile (pass_wgmma) */
    uint32_t nacc = layout_nregs(&lay);
    LLVMValueRef *regs = lw_regs(L, nacc);
    if (!acc || !regs)
        return;
    memcpy(regs, acc, nacc * sizeof *regs);
    consumer(&P, regs, nacc);
    lw_barrier(L); /* every consumer is done with the ring */
    /* the barriers' memory may be reused by the rest of the kernel: PTX wants
     * them invalidated first (every producer wait and arrive is over: the
     * consumers have seen the last step) */
    LLVMBasicBlockRef inval = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "mbar.inval");
    LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "pipe.done");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, L->tid, c32(L, 0), ""), inval, after);
    LLVMPositionBuilderAtEnd(b, inval);
    for (uint32_t s = 0; s < (P.swapped ? 3 : 2) * P.stages; s++) {
        LLVMValueRef a = bar_addr(L, P.full32, c32(L, s)); /* empty[] (and landed[]) follow full[] */
        lw_asm(L, void_t(L), "mbarrier.inval.shared::cta.b64 [$0];", "r,~{memory}", &a, 1, SE);
    }
    LLVMBuildBr(b, after);
    LLVMPositionBuilderAtEnd(b, after);
    lw_barrier(L);
    lw_set(L, in.result, (LVal){.kind = LV_TILE, .regs = regs, .lay = lay});
}
