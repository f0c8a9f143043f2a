/*
 * The swapped product, the default sm_90a GEMM pipeline (lower_wgmma.h).
 *
 * C = A B computed as C^T = B^T A^T: A (K-major as it lies in a row-major
 * matrix) is wgmma's shared-memory operand, N = BM; B^T is the register
 * operand, read straight from the raw B tile (a row-major B[K,N] gives any
 * register layout for free), M = 64 columns of B per wgmma. Nothing is
 * transposed. Per step the producers copy A with 16-byte cp.async straight
 * into the 128-byte swizzle and each B row with one cp.async.bulk (32 per
 * stage: bulk copies cost ~19 cycles each whatever their size, so A's
 * 128-byte rows are not worth one each; bench/NOTES.md v6a), all completed
 * on the stage's `landed` barrier (bytes by expect_tx, cp.async through
 * cp.async.mbarrier.arrive.noinc); then they round (or split) A in place,
 * fence it for the async proxy and release it on full[]. With two producer
 * warpgroups (the default roles) one issues every step's copies and the
 * other rounds every step; otherwise each does both for every other step.
 * The consumers round B as they load their fragments (-fwgmma-round-b: the
 * rounding warpgroup rounds it in place instead); raw B rows are padded by
 * 32 bytes so a warp's fragment reads hit 32 distinct banks. Tiles not
 * wholly inside the matrix or not 16-byte aligned are copied element by
 * element (src-size 0 outside: zeros, nothing read); where A or B is
 * misaligned (odd strides) the copies run in a loop version of their own
 * that copies the tiles inside the matrix without per-element checks. The
 * accumulators are C^T's MMA layout: C gets the transposed MMA layout
 * (lower.h).
 *
 * An M-major A (P->am: A^T @ B's A, its view's m stride 1) arrives as A^T's
 * 32 k rows, copied in 32-column panels as b128's B (TMA boxes, or
 * b_panel_copies without the unaligned loop version), and the producers
 * that round A transpose each panel in place into A's rows (am_transpose),
 * so the consumers find A as ever. A K-major B for 3xtf32 (P->bkf): B^T's
 * rows copied as A's, the fragments read from there (swp_load_frags).
 */

#include "compiler/lower_wgmma.h"

#include <string.h>

/* The swapped product's producer warpgroups: two (one copying, one
 * rounding, or with -fno-wgmma-roles each taking every other step), where
 * the stages allow (P * lag < stages) and the registers: tf32
 * modes (one copy of A to make), and wgmmas of N <= 128 (with 512 threads
 * the program holds 128 registers at entry, and ptxas wants every
 * instruction to fit in that: m64n256 needs 158); not for FMA consumers
 * holding more than 64 accumulators a thread (ieee 128x256 spilled). */
uint32_t swapped_producers(uint32_t bm, uint32_t bn, uint32_t consumer_threads, TirPrecision p, uint32_t stages,
                           int one)
{
    if (one || (p == PREC_IEEE && bm * bn > 64 * consumer_threads))
        return 1;
    return p != PREC_3XTF32 && stages >= 3 && bm <= 128 ? 2 : 1;
}

/* The swapped product's producers hold only a 16-element batch (three
 * copies for 3xtf32) and addresses. x3_sum2: the consumers carry their part
 * sums across the step (8 registers more, from the producers: at 192, ptxas
 * spilled 36 bytes in their loop, at 200 one word). */
uint32_t swapped_register_split(uint32_t consumers, uint32_t producers, uint32_t copies, int x3_sum2,
                                uint32_t *consumer)
{
    uint32_t nc = consumers / WARPGROUP, launch = consumers + producers * WARPGROUP;
    /* two producer warpgroups beside two consumer ones: 128 registers at
     * entry; the consumers get 200 and the producers 56 (persistent, at 192
     * ptxas spilled at 128x256 and at 184 it serialized the wgmmas; one
     * program a block, 192 spilled the step count once the edge stores were
     * predicated) */
    uint32_t prod = copies == 3 ? (x3_sum2 ? 104 : 112) : producers == 2 && nc == 2 ? 56 : 96;
    *consumer = 0;
    if (launch <= 256)
        return 0;
    uint32_t c = ((nc + producers) * wgmma_entry_regs(launch) - producers * prod) / nc / 8 * 8;
    *consumer = c > 240 ? 240 : c;
    return prod;
}

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
    Loop lp = wg_loop_open(L, "cp.elem");
    wg_loop_test(L, &lp, c32(L, n));
    LLVMValueRef c = LLVMBuildAdd(b, c0, LLVMBuildZExt(b, lp.i, L->t_i64, ""), "");
    LLVMValueRef ok = LLVMBuildAnd(b, rok, lw_in_range(L, c, x->d1), "");
    LLVMValueRef eoff = LLVMBuildSelect(b, ok, LLVMBuildAdd(b, roff, LLVMBuildMul(b, c, x->s1, ""), ""), c64(L, 0), "");
    LLVMValueRef pe = LLVMBuildGEP2(b, L->t_f32, x->base, &eoff, 1, "");
    LLVMValueRef e[3] = {LLVMBuildAdd(b, dst, LLVMBuildShl(b, lp.i, c32(L, 2), ""), ""),
                         LLVMBuildPtrToInt(b, pe, L->t_i64, ""), LLVMBuildSelect(b, ok, c32(L, 4), c32(L, 0), "")};
    lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r,~{memory}", e, 3, SE);
    wg_loop_close(L, &lp);
}

/* [n / 32][k][chunk (n % 32 / 4) ^ (k % 8)][n % 4]: 32-column panels under
 * the 128-byte swizzle (b128's B, an M-major f32 A^T) */
static LLVMValueRef panel128_offset(Lower *L, LLVMValueRef k, LLVMValueRef n)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef chunk = LLVMBuildXor(b, LLVMBuildAnd(b, LLVMBuildLShr(b, n, c32(L, 2), ""), c32(L, 7), ""),
                                      LLVMBuildAnd(b, k, c32(L, 7), ""), "");
    LLVMValueRef o = LLVMBuildMul(b, LLVMBuildLShr(b, n, c32(L, 5), ""), c32(L, BK * 128), "");
    o = LLVMBuildAdd(b, o, LLVMBuildShl(b, k, c32(L, 7), ""), "");
    o = LLVMBuildAdd(b, o, LLVMBuildShl(b, chunk, c32(L, 4), ""), "");
    return LLVMBuildAdd(b, o, LLVMBuildShl(b, LLVMBuildAnd(b, n, c32(L, 3), ""), c32(L, 2), ""), "");
}

/* Byte offset of B[k][n] (i32 values; constants fold) in a stage's B tile:
 * the raw rows; with TMA (P->tma) panels of 8 columns, [n / 8][k][n % 8],
 * 1024 bytes each; or (P->b128) 32-column panels under the 128-byte
 * swizzle, [n / 32][k][chunk (n % 32 / 4) ^ (k % 8)][n % 4] (all within the
 * rows' bytes; fragment reads hit 32 distinct banks, b128's through the
 * permuted accumulator rows, Layout.nperm). */
LLVMValueRef swapped_b_offset(Pipe *P, LLVMValueRef k, LLVMValueRef n)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    if (P->bt) /* (bt_transpose made them, TMA or not) */
        return panel128_offset(L, k, n);
    if (!P->tma)
        return LLVMBuildAdd(b, LLVMBuildMul(b, k, c32(L, raw_b_row_bytes(P->bn)), ""), LLVMBuildShl(b, n, c32(L, 2), ""), "");
    if (P->b128)
        return panel128_offset(L, k, n);
    LLVMValueRef panel = LLVMBuildMul(b, LLVMBuildLShr(b, n, c32(L, 3), ""), c32(L, BK * 32), "");
    LLVMValueRef in = LLVMBuildAdd(b, LLVMBuildShl(b, k, c32(L, 5), ""), LLVMBuildShl(b, LLVMBuildAnd(b, n, c32(L, 7), ""), c32(L, 2), ""), "");
    return LLVMBuildAdd(b, panel, in, "");
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
    a.dst0 = wg_swz(L, r, ch); /* (r + 16q) % 8 = r % 8: copy q adds 16 rows */
    return a;
}

/* The misaligned loop version: a B tile inside the matrix but not 16-byte aligned
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
        Loop li = wg_loop_open(L, "b.elem");
        wg_loop_test(L, &li, c32(L, P->bn / 16));
        for (uint32_t u = 0; u < 4; u++) {
            LLVMValueRef e = LLVMBuildAdd(b, lt, LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildShl(b, li.i, c32(L, 2), ""),
                                                                              c32(L, u), ""), c32(L, WARPGROUP), ""), "");
            LLVMValueRef r = LLVMBuildLShr(b, e, c32(L, shift), ""), c = LLVMBuildAnd(b, e, c32(L, P->bn - 1), "");
            LLVMValueRef grow = LLVMBuildAdd(b, k, LLVMBuildZExt(b, r, L->t_i64, ""), "");
            LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, grow, xb->s0, ""),
                                            LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, c, L->t_i64, ""), ""), "");
            LLVMValueRef src = LLVMBuildGEP2(b, L->t_f32, xb->base, &off, 1, "");
            LLVMValueRef d = LLVMBuildAdd(b, bbase, swapped_b_offset(P, r, c), "");
            LLVMValueRef x[2] = {d, LLVMBuildPtrToInt(b, src, L->t_i64, "")};
            lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4;", "r,l,~{memory}", x, 2, SE);
        }
        wg_loop_close(L, &li);
    }
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, cbb);
}

/* B's tile into the panel layout without TMA (maps not passed, B
 * misaligned, or its columns not a multiple of 8): 4-column chunks
 * lt, lt + 128, .. of the row-major tile (a warp reads 512 contiguous
 * bytes), each one 16-byte cp.async where the tile is inside and aligned,
 * else (misaligned tiles inside: b_unaligned) element by element. */
/* B's tile at step k (BK rows of BN columns from column xb->i1) into the
 * panel layout at bbase (swapped_b_offset); with a_panels A^T's instead
 * (an M-major A, xb its transpose: BM columns, panel128_offset, no
 * unaligned loop version). */
static void b_panel_copies(Pipe *P, const Access *xb, LLVMValueRef k, LLVMValueRef lt, LLVMValueRef bbase,
                           int a_panels)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    uint32_t width = a_panels ? P->bm : P->bn, per_row = width / 4;
    LLVMValueRef fb = LLVMBuildAnd(b, bulk_ok(L, xb, xb->i1, width), LLVMBuildICmp(b, LLVMIntSGE, k, c64(L, 0), ""), "");
    fb = LLVMBuildAnd(b, fb, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, k, c64(L, BK), ""), xb->d0, ""), "");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.done");
    for (int whole = 1; whole >= 0; whole--) {
        LLVMBasicBlockRef done = whole ? wg_if_open(L, fb, "b.whole") : NULL;
        if (!whole && P->unaligned && !a_panels)
            b_unaligned(P, xb, k, lt, bbase, join);
        Loop lc = wg_loop_open(L, whole ? "b.chunk" : "b.edge");
        wg_loop_test(L, &lc, c32(L, BK * per_row / WARPGROUP));
        LLVMValueRef idx = LLVMBuildAdd(b, lt, LLVMBuildMul(b, lc.i, c32(L, WARPGROUP), ""), "");
        LLVMValueRef row = LLVMBuildUDiv(b, idx, c32(L, per_row), ""), col = LLVMBuildShl(b, LLVMBuildURem(b, idx, c32(L, per_row), ""), c32(L, 2), "");
        LLVMValueRef dst = LLVMBuildAdd(b, bbase, a_panels ? panel128_offset(L, row, col) : swapped_b_offset(P, row, col), "");
        LLVMValueRef grow = LLVMBuildAdd(b, k, LLVMBuildZExt(b, row, L->t_i64, ""), "");
        LLVMValueRef gcol = LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, col, L->t_i64, ""), "");
        if (whole) {
            LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, grow, xb->s0, ""), gcol, "");
            LLVMValueRef a[2] = {dst, LLVMBuildPtrToInt(b, LLVMBuildGEP2(b, L->t_f32, xb->base, &off, 1, ""), L->t_i64, "")};
            lw_asm(L, void_t(L), "cp.async.cg.shared.global [$0], [$1], 16;", "r,l,~{memory}", a, 2, SE);
        } else {
            copy_elems(L, xb, grow, gcol, 4, dst);
        }
        wg_loop_close(L, &lc);
        if (whole) {
            LLVMBuildBr(b, join);
            LLVMPositionBuilderAtEnd(b, done);
        }
    }
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
}

/* A K-major tile (A's; B's where P->bk) of `rows` rows at step k into the
 * stage at shared address stage (its offset dst0 in ac): 16-byte cp.async
 * into the 128-byte swizzle where the tile is 16-byte aligned and the row
 * inside, else element by element. */
static void ktile_copy(Pipe *P, const Access *xa, const ACopy *ac, uint32_t rows, LLVMValueRef k, LLVMValueRef stage)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef fa = bulk_ok(L, xa, k, BK), pa = LLVMBuildGEP2(b, L->t_f32, ac->p0, &k, 1, "");
    LLVMValueRef adst = LLVMBuildAdd(b, stage, ac->dst0, "");
    /* the whole tile inside and aligned (every step but the edges): 16-byte
     * copies from a running pointer, nothing checked per row */
    LLVMValueRef whole = LLVMBuildAnd(b, fa, LLVMBuildICmp(b, LLVMIntSGE, xa->i0, c64(L, 0), ""), "");
    whole = LLVMBuildAnd(b, whole, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, xa->i0, c64(L, rows), ""), xa->d0, ""), "");
    LLVMBasicBlockRef wbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.whole");
    LLVMBasicBlockRef rbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.rows");
    LLVMBasicBlockRef adone = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.copied");
    LLVMBuildCondBr(b, whole, wbb, rbb);
    LLVMPositionBuilderAtEnd(b, wbb);
    LLVMValueRef pw = pa;
    for (uint32_t q = 0; q < rows / 16; q++) {
        if (q) {
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
    Loop lq = wg_loop_open(L, "a.copy");
    LLVMValueRef q = lq.i;
    wg_loop_test(L, &lq, c32(L, rows / 16));
    {
        LLVMValueRef row = LLVMBuildAdd(b, ac->row0, LLVMBuildShl(b, LLVMBuildZExt(b, q, L->t_i64, ""), c64(L, 4), ""), "");
        LLVMValueRef dst = LLVMBuildAdd(b, adst, LLVMBuildMul(b, q, c32(L, 16 * ROW_BYTES), ""), "");
        LLVMValueRef fast = LLVMBuildAnd(b, fa, lw_in_range(L, row, xa->d0), "");
        LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.fast");
        LLVMBasicBlockRef ebb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.edge");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "a.done");
        LLVMValueRef dq = LLVMBuildMul(b, ac->step, LLVMBuildZExt(b, q, L->t_i64, ""), "");
        LLVMBuildCondBr(b, fast, fbb, ebb);
        LLVMPositionBuilderAtEnd(b, fbb);
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
    wg_loop_close(L, &lq);
    LLVMBuildBr(b, adone);
    LLVMPositionBuilderAtEnd(b, adone);
}

/* Step t's copies, by producer thread lt: A's tile (ktile_copy; an M-major
 * A: A^T's panels, b_panel_copies), and B's:
 * as A's where it is K-major (P->bk), else with tensor maps in the panel
 * layout (b_panel_copies), else row lt / 4 raw into the stage's B tile, in
 * one bulk copy by its first thread, or a quarter each element by element.
 * Every thread arrives on
 * landed[stage] once, when its cp.async copies are done; the bulk copies
 * complete their bytes there. */
static void swp_issue(Pipe *P, const Access *xa, const Access *xb, const ACopy *ac, LLVMValueRef t, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef s = wg_wait_step(P, P->empty32, t, 1);
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, t, L->t_i64, ""), c64(L, BK), ""), "k");
    LLVMValueRef stage = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
    LLVMValueRef bar = wg_bar_addr(L, P->landed32, s);
    if (P->am) /* A^T's panels (am_transpose makes them A's rows) */
        b_panel_copies(P, xa, k, lt, stage, 1);
    else
        ktile_copy(P, xa, &ac[0], P->bm, k, stage);
    if (P->bk) { /* B^T's rows as A's, after A's copies (xb is the transpose, ac[1] its terms) */
        ktile_copy(P, xb, &ac[1], P->bn, k, LLVMBuildAdd(b, stage, c32(L, swapped_a_copies(P) * P->bm * ROW_BYTES), ""));
        lw_asm(L, void_t(L), "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r,~{memory}", &bar, 1, SE);
        return;
    }
    if (P->tma) { /* the panel layout (the TMA's): no row is contiguous in it */
        b_panel_copies(P, xb, k, lt, LLVMBuildAdd(b, stage, c32(L, swapped_a_copies(P) * P->bm * ROW_BYTES), ""), 0);
        lw_asm(L, void_t(L), "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r,~{memory}", &bar, 1, SE);
        return;
    }
    /* B: the whole tile inside and aligned: lane 0 of producer warp w copies
     * rows 8w .. 8w+7, a bulk copy each (one elected thread: the bulk copy
     * takes uniform operands); else a quarter of row lt / 4 per thread,
     * element by element */
    LLVMValueRef bbase = LLVMBuildAdd(b, stage, c32(L, swapped_a_copies(P) * P->bm * ROW_BYTES), "");
    LLVMValueRef fb = LLVMBuildAnd(b, bulk_ok(L, xb, xb->i1, P->bn), LLVMBuildICmp(b, LLVMIntSGE, k, c64(L, 0), ""), "");
    fb = LLVMBuildAnd(b, fb, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, k, c64(L, BK), ""), xb->d0, ""), "");
    LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.whole");
    LLVMBasicBlockRef ebb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.edge");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.done");
    LLVMBuildCondBr(b, fb, fbb, ebb);
    LLVMPositionBuilderAtEnd(b, fbb);
    /* the warp's index through a shuffle from lane 0 (every lane is here):
     * ptxas then knows it, and the addresses made from it, warp-uniform, so
     * each bulk copy takes its operands as they are instead of in a loop
     * over the lanes */
    LLVMValueRef sh[4] = {c32(L, -1), LLVMBuildLShr(b, lt, c32(L, 5), ""), c32(L, 0), c32(L, 31)};
    LLVMValueRef w = lw_call(L, "llvm.nvvm.shfl.sync.idx.i32", NULL, 0, sh, 4);
    LLVMBasicBlockRef one = wg_if_open(L, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, lt, c32(L, 31), ""), c32(L, 0), ""),
                                    "b.bulk");
    LLVMValueRef r0 = LLVMBuildAdd(b, k, LLVMBuildZExt(b, LLVMBuildShl(b, w, c32(L, 3), ""), L->t_i64, ""), "");
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, r0, xb->s0, ""), xb->i1, "");
    LLVMValueRef p = LLVMBuildGEP2(b, L->t_f32, xb->base, &off, 1, "");
    LLVMValueRef d = LLVMBuildAdd(b, bbase, LLVMBuildMul(b, w, c32(L, 8 * raw_b_row_bytes(P->bn)), ""), "");
    LLVMValueRef tx[2] = {bar, c32(L, 8 * P->bn * 4)};
    lw_asm(L, void_t(L), "mbarrier.expect_tx.shared::cta.b64 [$0], $1;", "r,r,~{memory}", tx, 2, SE);
    for (uint32_t r = 0; r < 8; r++) {
        if (r) {
            LLVMValueRef st = xb->s0;
            p = LLVMBuildGEP2(b, L->t_f32, p, &st, 1, "");
        }
        LLVMValueRef a[4] = {LLVMBuildAdd(b, d, c32(L, r * raw_b_row_bytes(P->bn)), ""),
                             LLVMBuildPtrToInt(b, p, L->t_i64, ""), c32(L, P->bn * 4), bar};
        lw_asm(L, void_t(L), "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];",
               "r,l,r,r,~{memory}", a, 4, SE);
    }
    wg_if_close(L, one);
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
/* Rounds (splits) n <= 4 16-byte chunks at ring offsets off[] in place;
 * copy c > 0 of a chunk goes copy_bytes * c further (3xtf32: big and small;
 * its hic copy is x3_spare()'s). Returns i1: some chunk's big not finite. */
static LLVMValueRef swp_round_chunks(Pipe *P, const LLVMValueRef *off, uint32_t n, uint32_t copy_bytes)
{
    Lower *L = P->L;
    LLVMValueRef v[16], o[3][16], special;
    for (uint32_t i = 0; i < n; i++)
        wg_ld_shared_v4(L, P->ring, off[i], &v[4 * i]);
    wg_split_batch(P, v, 4 * n, o, &special);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t c = 0; c < swapped_a_copies(P); c++)
            wg_st_shared_v4(L, P->ring, c ? LLVMBuildAdd(L->b, off[i], c32(L, c * copy_bytes), "") : off[i], &o[c][4 * i]);
    return special;
}

/* 3xtf32: stage s's flag word (a byte per producer warp: x3_spare writes it,
 * swapped_stage reads it after full[s]). */
static LLVMValueRef x3_flag_addr(Pipe *P, LLVMValueRef s)
{
    return LLVMBuildAdd(P->L->b, P->x3flags32, LLVMBuildShl(P->L->b, s, c32(P->L, 2), ""), "");
}

/* 3xtf32's hic copy of step j's A tile (stage s; thread lt's chunks start at
 * ring offset off0, WARPGROUP * 16 bytes apart): hic differs from big only
 * where big is not finite (there it is 0, so that an Inf in A meets no zero
 * small part of B in small-times-hic). A stage whose big is all finite has
 * none to write: the consumers take big for it. Otherwise the producers
 * write it to the one spare tile, once every step before j has been
 * released (no wgmma reads the spare any more), and set the stage's flag
 * (each warp its byte, from a vote); the consumers read the flag after
 * full[s]. The producer warpgroup meets on named barrier 2 between the
 * flag's bytes and its reading. */
static void x3_spare(Pipe *P, LLVMValueRef j, LLVMValueRef s, LLVMValueRef lt, LLVMValueRef off0, uint32_t chunks,
                     LLVMValueRef special)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef fa = x3_flag_addr(P, s);
    LLVMValueRef in[2] = {LLVMBuildZExt(b, special, L->t_i32, ""),
                          LLVMBuildAdd(b, fa, LLVMBuildLShr(b, lt, c32(L, 5), ""), "")};
    lw_asm(L, void_t(L),
           "{\n\t.reg .pred p, q;\n\t.reg .b32 lane, v;\n\tsetp.ne.b32 p, $0, 0;\n\t"
           "vote.sync.any.pred q, p, 0xffffffff;\n\tselp.b32 v, 1, 0, q;\n\tmov.u32 lane, %laneid;\n\t"
           "setp.eq.u32 p, lane, 0;\n\t@p st.shared.u8 [$1], v;\n\tbar.sync 2, 128;\n\t}",
           "r,r,~{memory}", in, 2, SEC);
    LLVMValueRef flag = lw_asm(L, L->t_i32, "ld.shared.u32 $0, [$1];", "=r,r,~{memory}", &fa, 1, SE);
    LLVMBasicBlockRef done = wg_if_open(L, LLVMBuildICmp(b, LLVMIntNE, flag, c32(L, 0), ""), "x3.hic");
    /* step j - 1 released, so every step before it (the consumers release in order) */
    wg_wait_step(P, P->empty32, LLVMBuildAdd(b, j, c32(L, P->stages - 1), ""), 1);
    /* from a chunk of the stage to its place in the spare tile (just past the ring) */
    LLVMValueRef spare_off = LLVMBuildSub(b, c32(L, P->stages * P->stage_bytes),
                                          LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
    TirInst mask = {.op = OP_MASK_NONFINITE};
    for (uint32_t i = 0; i < chunks; i++) {
        LLVMValueRef off = LLVMBuildAdd(b, off0, c32(L, i * WARPGROUP * 16), ""), e[4];
        wg_ld_shared_v4(L, P->ring, off, e);
        for (uint32_t k = 0; k < 4; k++) { /* hic = mask_nonfinite(big, big), as wg_split() */
            LLVMValueRef bb[2] = {e[k], e[k]};
            e[k] = ew_apply(L, OP_MASK_NONFINITE, ELEM_F32, bb, 2, &mask);
        }
        wg_st_shared_v4(L, P->ring, LLVMBuildAdd(b, off, spare_off, ""), e);
    }
    wg_if_close(L, done);
}

/* A thread's `chunks` 16-byte chunks of a stage's tile, WARPGROUP * 16
 * bytes apart from ring offset off0, rounded (split) in place, four at a
 * time (swp_round_chunks). Returns i1: some chunk's big not finite. */
static LLVMValueRef swp_round_tile(Pipe *P, LLVMValueRef off0, uint32_t chunks, uint32_t copy_bytes)
{
    Lower *L = P->L;
    LLVMValueRef special = LLVMConstInt(LLVMInt1TypeInContext(L->ctx), 0, 0);
    for (uint32_t i0 = 0; i0 < chunks; i0 += 4) {
        LLVMValueRef off[4];
        uint32_t n = chunks - i0 < 4 ? chunks - i0 : 4;
        for (uint32_t i = 0; i < n; i++)
            off[i] = LLVMBuildAdd(L->b, off0, c32(L, (i0 + i) * WARPGROUP * 16), "");
        special = LLVMBuildOr(L->b, special, swp_round_chunks(P, off, n, copy_bytes), "");
    }
    return special;
}

/* An M-major f32 A (P->am): a stage's A^T tile, landed as 32-column panels
 * (panel128_offset: the TMA's boxes, or b_panel_copies), made the K-major
 * rows under the 128-byte swizzle that the wgmmas read, in place, rounded
 * (split: big in copy 0, small in copy 1) where `round`. Panel g's 4096
 * bytes are exactly those of A's rows 32g .. 32g+31, so warp w alone takes
 * panels w, w + 4, ..: lane l reads row 32g + l's 32 k (a column of the
 * panel: the warp's 32 loads read one 128-byte panel row each, 32 banks),
 * the warp syncs, and each lane writes its row's 8 chunks. Returns i1:
 * some big not finite (3xtf32's x3_spare). */
static LLVMValueRef am_transpose(Pipe *P, LLVMValueRef sbase, LLVMValueRef lt, int round)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef w = LLVMBuildLShr(b, lt, c32(L, 5), ""), lane = LLVMBuildAnd(b, lt, c32(L, 31), "");
    LLVMValueRef special = LLVMConstInt(LLVMInt1TypeInContext(L->ctx), 0, 0);
    for (uint32_t g0 = 0; g0 < P->bm / 32; g0 += WARPGROUP / 32) {
        LLVMValueRef g = LLVMBuildAdd(b, w, c32(L, g0), ""), special0 = special;
        LLVMBasicBlockRef before = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef done = g0 + WARPGROUP / 32 > P->bm / 32 /* (BM 64: warps 2 and 3 have none) */
                                     ? wg_if_open(L, LLVMBuildICmp(b, LLVMIntULT, g, c32(L, P->bm / 32), ""), "am.panel")
                                     : NULL;
        LLVMValueRef pbase = LLVMBuildAdd(b, sbase, LLVMBuildMul(b, g, c32(L, BK * 128), ""), "");
        LLVMValueRef v[BK];
        for (uint32_t k = 0; k < BK; k++) { /* A^T[k][32g + lane], in panel g */
            LLVMValueRef off = LLVMBuildAdd(b, pbase, panel128_offset(L, c32(L, k), lane), "");
            v[k] = LLVMBuildLoad2(b, L->t_f32, LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), P->ring, &off, 1, ""), "");
        }
        /* every lane's reads of the panel before any lane's writes over it */
        lw_asm(L, void_t(L), "bar.warp.sync -1;", "~{memory}", NULL, 0, SEC);
        LLVMValueRef m = LLVMBuildAdd(b, LLVMBuildShl(b, g, c32(L, 5), ""), lane, ""); /* the lane's row of A */
        for (uint32_t h = 0; h < BK; h += 16) {
            LLVMValueRef o[3][16], sp = NULL;
            if (round)
                wg_split_batch(P, &v[h], 16, o, &sp);
            else
                memcpy(o[0], &v[h], sizeof o[0]);
            if (sp)
                special = LLVMBuildOr(b, special, sp, "");
            for (uint32_t c = 0; c < 4; c++) { /* chunk h / 4 + c of row m */
                LLVMValueRef off = LLVMBuildAdd(b, sbase, wg_swz(L, m, c32(L, h / 4 + c)), "");
                for (uint32_t cp = 0; cp < (round ? swapped_a_copies(P) : 1); cp++)
                    wg_st_shared_v4(L, P->ring, cp ? LLVMBuildAdd(b, off, c32(L, cp * P->bm * ROW_BYTES), "") : off,
                                    &o[cp][4 * c]);
            }
        }
        if (done) {
            LLVMBasicBlockRef last = LLVMGetInsertBlock(b);
            wg_if_close(L, done);
            LLVMValueRef phi = LLVMBuildPhi(b, LLVMInt1TypeInContext(L->ctx), "");
            LLVMValueRef in[2] = {special0, special};
            LLVMBasicBlockRef from[2] = {before, last};
            LLVMAddIncoming(phi, in, from, 2);
            special = phi;
        }
    }
    return special;
}

/* ieee with a K-major B (P->bt): a stage's B^T rows, landed as A's are (at
 * `base`: row n at n * 128, chunk c at (c ^ (n % 8)) * 16), made the
 * 32-column panels a row-major B's TMA boxes give (b128: panel128_offset),
 * in place, as am_transpose does the other way: panel g's 4096 bytes are
 * exactly B^T's rows 32g .. 32g+31, so warp w alone takes panels w, w + 4,
 * ..: lane l reads row 32g + l's 8 chunks (a warp's load meets 8 distinct
 * chunks a row group: 4 wavefronts, the least for 512 bytes), the warp
 * syncs, and each lane writes its column of the panel, k by k (a warp's
 * store is one 128-byte panel row: 32 banks). */
static void bt_transpose(Pipe *P, LLVMValueRef base, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef w = LLVMBuildLShr(b, lt, c32(L, 5), ""), lane = LLVMBuildAnd(b, lt, c32(L, 31), "");
    for (uint32_t g0 = 0; g0 < P->bn / 32; g0 += WARPGROUP / 32) {
        LLVMValueRef g = LLVMBuildAdd(b, w, c32(L, g0), "");
        LLVMBasicBlockRef done = g0 + WARPGROUP / 32 > P->bn / 32 /* (BN 64: warps 2 and 3 have none) */
                                     ? wg_if_open(L, LLVMBuildICmp(b, LLVMIntULT, g, c32(L, P->bn / 32), ""), "bt.panel")
                                     : NULL;
        LLVMValueRef n = LLVMBuildAdd(b, LLVMBuildShl(b, g, c32(L, 5), ""), lane, ""); /* the lane's column of B */
        LLVMValueRef v[BK];
        for (uint32_t c = 0; c < BK / 4; c++) /* B^T[n][4c .. 4c+3] = B[4c .. 4c+3][n] */
            wg_ld_shared_v4(L, P->ring, LLVMBuildAdd(b, base, wg_swz(L, n, c32(L, c)), ""), &v[4 * c]);
        /* every lane's reads of the panel before any lane's writes over it */
        lw_asm(L, void_t(L), "bar.warp.sync -1;", "~{memory}", NULL, 0, SEC);
        for (uint32_t k = 0; k < BK; k++) {
            LLVMValueRef off = LLVMBuildAdd(b, base, panel128_offset(L, c32(L, k), n), "");
            LLVMBuildStore(b, v[k], LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), P->ring, &off, 1, ""));
        }
        if (done)
            wg_if_close(L, done);
    }
}

static void swp_transform(Pipe *P, LLVMValueRef j, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef s = wg_wait_step(P, P->landed32, j, 0);
    LLVMValueRef off0 = LLVMBuildAdd(b, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), LLVMBuildShl(b, lt, c32(L, 4), ""), "");
    /* chunks per thread; none to round for tf32-trunc (the tensor cores
     * truncate) and ieee (the FMA consumers read fp32) */
    /* tf32-rne's TMA copies round (TFLOAT32 maps): with TMA only, nothing is left to round */
    int rne_by_tma = P->tma_only && P->prec == PREC_TF32_RNE;
    uint32_t chunks = P->prec == PREC_TF32_TRUNC || P->prec == PREC_IEEE ||
                              P->a_ready || rne_by_tma
                          ? 0
                          : P->bm * ROW_BYTES / 16 / WARPGROUP;
    /* tf32-rne's TMA copies rounded both tiles already (-fno-wgmma-tma-direct);
     * tf32-rna's entry for views that come rounded (P->pre) has none to round
     * (but A where only B comes rounded, -fno-wgmma-preround-a) */
    /* an M-major A: transposed whatever the rest does; rounded as it goes (tf32-rne even where
     * its TMA copies rounded it already: the same bits) */
    LLVMValueRef special =
        P->am ? am_transpose(P, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), lt,
                             P->prec == PREC_3XTF32 || P->prec == PREC_TF32_RNE || (P->prec == PREC_TF32_RNA && !P->a_ready))
              : NULL;
    LLVMBasicBlockRef rounded = P->tma && !P->direct && P->prec == PREC_TF32_RNE && !rne_by_tma
                                    ? wg_if_open(L, LLVMBuildNot(b, P->use_tma, ""), "round")
                                    : NULL;
    if (!P->am)
        special = swp_round_tile(P, off0, chunks, P->bm * ROW_BYTES);
    if (P->kss && P->prec != PREC_TF32_TRUNC && !P->b_ready && !rne_by_tma) /* B^T's rows as A's */
        swp_round_tile(P, LLVMBuildAdd(b, off0, c32(L, P->bm * ROW_BYTES), ""), P->bn * ROW_BYTES / 16 / WARPGROUP, 0);
    if (P->bt)
        bt_transpose(P, LLVMBuildAdd(b, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""),
                                     c32(L, swapped_a_copies(P) * P->bm * ROW_BYTES), ""), lt);
    if (P->copies == 3) /* the stage's flag, which the consumers read, whatever chunks says */
        x3_spare(P, j, s, lt, off0, P->bm * ROW_BYTES / 16 / WARPGROUP, special);
    if (P->round_b && !rne_by_tma) { /* B's rows in place too (one copy): chunk lt, lt + 128, .. of the tile */
        uint32_t per_row = P->bn / 4, chunks_b = 32 * per_row / WARPGROUP;
        LLVMValueRef b0 = LLVMBuildAdd(b, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), c32(L, P->bm * ROW_BYTES), "");
        for (uint32_t i0 = 0; i0 < chunks_b; i0 += 4) {
            LLVMValueRef off[4];
            for (uint32_t i = 0; i < 4; i++) {
                LLVMValueRef idx = LLVMBuildAdd(b, lt, c32(L, (i0 + i) * WARPGROUP), "");
                LLVMValueRef row = LLVMBuildUDiv(b, idx, c32(L, per_row), ""), ch = LLVMBuildURem(b, idx, c32(L, per_row), "");
                off[i] = LLVMBuildAdd(b, b0, swapped_b_offset(P, row, LLVMBuildShl(b, ch, c32(L, 2), "")), "");
            }
            swp_round_chunks(P, off, 4, 0);
        }
    }
    if (rounded)
        wg_if_close(L, rounded);
    /* the tensor cores read A through the async proxy (and the bulk copies
     * that will overwrite B are async-proxy writes) */
    lw_asm(L, void_t(L), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0, SE);
    wg_bar_arrive(L, wg_bar_addr(L, P->full32, s));
}

/* What a producer step loop does with its steps. */
enum { DO_ISSUE = 1, DO_FINISH = 2 };

/* A producer step loop: iteration u issues step first + stride*u (u < mine)
 * and finishes step first + stride*(u - lag), of total = mine + lag
 * iterations (as transposed_producer(), without slots of its own); `work`
 * says which of the two it does. */
static void swp_steps(Pipe *P, const Access *xa, const Access *xb, const ACopy *ac, LLVMValueRef first,
                      uint32_t stride, LLVMValueRef lt, LLVMValueRef mine, LLVMValueRef total, uint32_t lag, int work)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    Loop lp = wg_loop_open(L, "prod");
    LLVMValueRef u = lp.i;
    wg_loop_test(L, &lp, total);
    if (work & DO_ISSUE) {
        LLVMBasicBlockRef issue = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.issue");
        LLVMBasicBlockRef issued = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.issued");
        LLVMValueRef go = LLVMBuildICmp(b, LLVMIntSLT, u, mine, "");
        LLVMValueRef first_thread = LLVMBuildICmp(b, LLVMIntEQ, lt, c32(L, 0), "");
        /* one thread issues a step's TMA copies; where two producer warpgroups each finish every
         * other step, the others wait for the stage as it does: else they could finish a step on
         * landed[]'s phase of a round before (a parity wait cannot tell them apart), rounding a
         * stage before its copies land (tf32-rna, -fno-wgmma-roles, 3 stages: some steps
         * unrounded, found by a review in session 31) */
        int all_wait = P->tma_now && (work & DO_FINISH) && P->producers > 1;
        if (P->tma_now && !all_wait)
            go = LLVMBuildAnd(b, go, first_thread, "");
        LLVMBuildCondBr(b, go, issue, issued);
        LLVMPositionBuilderAtEnd(b, issue);
        LLVMValueRef t = LLVMBuildAdd(b, first, LLVMBuildMul(b, u, c32(L, stride), ""), "");
        if (all_wait) {
            LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.tma.issue");
            LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.tma.wait");
            LLVMBuildCondBr(b, first_thread, one, rest);
            LLVMPositionBuilderAtEnd(b, one);
            wg_tma_issue(P, xa, xb, t);
            LLVMBuildBr(b, issued);
            LLVMPositionBuilderAtEnd(b, rest);
            wg_wait_step(P, P->empty32, t, 1);
        } else if (P->tma_now)
            wg_tma_issue(P, xa, xb, t);
        else
            swp_issue(P, xa, xb, ac, t, lt);
        LLVMBuildBr(b, issued);
        LLVMPositionBuilderAtEnd(b, issued);
    }
    if (work & DO_FINISH) {
        LLVMValueRef v = LLVMBuildSub(b, u, c32(L, lag), "");
        LLVMBasicBlockRef fin = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.finish");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.next");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGE, v, c32(L, 0), ""), fin, next);
        LLVMPositionBuilderAtEnd(b, fin);
        swp_transform(P, LLVMBuildAdd(b, first, LLVMBuildMul(b, v, c32(L, stride), ""), ""), lt);
        LLVMBuildBr(b, next);
        LLVMPositionBuilderAtEnd(b, next);
    }
    wg_loop_close(L, &lp);
    wg_producer_exit(L);
}

/* Whether some tile of x may be inside the matrix but not 16-byte aligned:
 * the base, the row stride or the first column (col0, fixed for the loop)
 * not a multiple of 16 bytes. */
static LLVMValueRef misaligned(Lower *L, const Access *x, LLVMValueRef col0)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef lo = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, x->base, L->t_i64, ""), c64(L, 15), "");
    lo = LLVMBuildOr(b, lo, LLVMBuildAnd(b, LLVMBuildOr(b, x->s0, col0, ""), c64(L, 3), ""), "");
    return LLVMBuildICmp(b, LLVMIntNE, lo, c64(L, 0), "");
}

/* The issuing step loop(s). With P->unaligned (the default) the loop is
 * versioned once, up front: the copy with the unchecked paths for
 * misaligned tiles runs only where A or B is misaligned, so those paths
 * never share the aligned loop's (few) registers (bench/NOTES.md v7). */
static void swp_issuing_steps(Pipe *P, const Access *xa, const Access *xb, const ACopy *ac, LLVMValueRef first,
                              uint32_t stride, LLVMValueRef lt, LLVMValueRef mine, LLVMValueRef total, uint32_t lag,
                              int work)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    if (P->tma) { /* TMA where the launch allows it, else the copies that take any operands */
        LLVMBasicBlockRef gbb = NULL;
        if (!P->tma_only) {
            LLVMBasicBlockRef tbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.tma");
            gbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.copies");
            LLVMBuildCondBr(b, P->use_tma, tbb, gbb);
            LLVMPositionBuilderAtEnd(b, tbb);
        }
        /* P->direct: nothing to finish (the consumers wait on landed[]) */
        int twork = P->direct ? work & DO_ISSUE : work;
        if (twork == DO_ISSUE) { /* the copier warpgroup: its first thread alone */
            LLVMBasicBlockRef rest = wg_if_open(L, LLVMBuildICmp(b, LLVMIntNE, lt, c32(L, 0), ""), "prod.idle");
            wg_producer_exit(L);
            LLVMPositionBuilderAtEnd(b, rest);
        }
        wg_tma_prepare(P);
        P->tma_now = 1;
        swp_steps(P, xa, xb, ac, first, stride, lt, mine, twork & DO_FINISH ? total : mine, lag, twork);
        P->tma_now = 0;
        if (!gbb)
            return;
        LLVMPositionBuilderAtEnd(b, gbb);
        swp_steps(P, xa, xb, ac, first, stride, lt, mine, total, lag, work);
        return;
    }
    if (!P->unaligned) {
        swp_steps(P, xa, xb, ac, first, stride, lt, mine, total, lag, work);
        return;
    }
    /* (the columns the copies start at: A's k, or A^T's first row of A for an M-major A) */
    LLVMValueRef odd = LLVMBuildOr(b, misaligned(L, xa, P->am ? xa->i1 : P->lo), misaligned(L, xb, xb->i1), "");
    LLVMBasicBlockRef obb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.misaligned");
    LLVMBasicBlockRef abb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.aligned");
    LLVMBuildCondBr(b, odd, obb, abb);
    LLVMPositionBuilderAtEnd(b, obb);
    swp_steps(P, xa, xb, ac, first, stride, lt, mine, total, lag, work);
    LLVMPositionBuilderAtEnd(b, abb);
    P->unaligned = 0;
    swp_steps(P, xa, xb, ac, first, stride, lt, mine, total, lag, work);
    P->unaligned = 1;
}

/* The thread's copy terms: A's, and B's where it is K-major (P->bk: xb is
 * its transpose). */
static void copy_terms(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef lt, ACopy ac[2])
{
    ac[0] = a_copy_terms(P, xa, lt);
    ac[1] = P->bk ? a_copy_terms(P, xb, lt) : ac[0];
}

/* The producer warpgroups. With roles (P->roles, the default for two
 * producer warpgroups) the first issues every step and the second finishes
 * every step: a stage is rounded as soon as it lands, not after the next
 * stage's copies wait for a free stage (bench/NOTES.md v7). Otherwise each
 * of the P issues and finishes every P-th step. */
void swapped_producer(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef pwg, lt, mine;
    wg_producer_steps(P, &pwg, &lt, &mine);
    ACopy ac[2];
    if (P->roles) {
        copy_terms(P, xa, xb, lt, ac);
        LLVMBasicBlockRef ibb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.copier");
        LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.rounder");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, pwg, c32(L, 0), ""), ibb, fbb);
        LLVMPositionBuilderAtEnd(b, ibb);
        swp_issuing_steps(P, xa, xb, ac, c32(L, 0), 1, lt, P->nsteps, P->nsteps, 0, DO_ISSUE);
        LLVMPositionBuilderAtEnd(b, fbb);
        if (P->direct) { /* under TMA the rounder has nothing to do: left waiting on landed[], it
                          * would wait past the last step for a phase no copy completes */
            LLVMBasicBlockRef rest = wg_if_open(L, P->use_tma, "prod.nothing");
            wg_producer_exit(L);
            LLVMPositionBuilderAtEnd(b, rest);
        }
        swp_steps(P, xa, xb, ac, c32(L, 0), 1, lt, P->nsteps, P->nsteps, 0, DO_FINISH);
        return;
    }
    LLVMValueRef total = LLVMBuildAdd(b, mine, c32(L, P->lag), "");
    copy_terms(P, xa, xb, lt, ac);
    swp_issuing_steps(P, xa, xb, ac, pwg, P->producers, lt, mine, total, P->lag, DO_ISSUE | DO_FINISH);
}

/* The wgmmas of k8 steps j0 .. j0+nk-1 of one stage, every block: block
 * r's accumulators are acc[r * BM/2 ..], its register operand
 * f[copy][r][j - j0][4] (i32), A copy c by descriptor da[c].
 * from_zero: each block's first wgmma ignores its accumulators. */
static void swp_mma_group(Pipe *P, LLVMValueRef f[3][4][4][4], uint32_t j0, uint32_t nk, const LLVMValueRef da[3],
                          LLVMValueRef *acc, uint32_t nacc, int from_zero, int pending)
{
    uint32_t npairs = P->copies == 3 ? 3 : 1, per = P->bm / 2, d = 0;
    /* -fwgmma-x3-halves: each wgmma as two on halves of the block's accumulators (A's rows
     * 0 .. BM/2-1 and BM/2 .. BM-1: BM/2 * 128 bytes on in the stage), the halves' wgmmas
     * independent of each other */
    uint32_t halves = P->copies == 3 && P->L->o->wgmma_x3_halves && P->bm % 16 == 0 ? 2 : 1;
    Wgmma w[4 * 3 * 4 * 2]; /* k8 steps x products x blocks x halves */
    for (uint32_t j = j0; j < j0 + nk; j++)
        for (uint32_t p = 0; p < npairs; p++)
            for (uint32_t r = 0; r < P->blocks; r++)
                for (uint32_t h = 0; h < halves; h++, d++) {
                    uint32_t ca = npairs == 3 ? wg_pairs3[p][0] : 0, cb = npairs == 3 ? wg_pairs3[p][1] : 0;
                    memcpy(w[d].a, f[cb][r][j - j0], sizeof w[d].a);
                    w[d].desc = LLVMBuildAdd(P->L->b, da[ca], c64(P->L, (j * 32 + h * P->bm / 2 * ROW_BYTES) >> 4), "");
                    w[d].adesc = NULL;
                    w[d].acc0 = r * per + h * per / 2;
                    w[d].from_zero = from_zero && j == j0 && p == 0;
                }
    wg_wgmma_group(P, w, d, P->bm / halves, per / halves, acc, nacc, pending);
}

/* b128: the thread's offsets of its pair B[t + 4E][n_r, n_r + 1] in a
 * stage's B tile, [r][E] (under the 128-byte swizzle no one base serves
 * every fragment). */
typedef LLVMValueRef FragOffsets[4][2];

/* The raw B fragments of block r, k8 steps j0 .. j0+kg-1, from the
 * thread's fragment base in the stage (swapped_stage()) and, under the
 * swizzle, its offsets: raw[4j + e]. */
static void swp_load_frags(Pipe *P, LLVMValueRef base, FragOffsets bfrag, uint32_t r, uint32_t j0, uint32_t kg,
                           LLVMValueRef raw[16])
{
    Lower *L = P->L;
    if (P->bkf) { /* B^T[n][k] at n * 128 + ((k / 4) ^ (n % 8)) * 16 + (k % 4) * 4: frag_base has the
                   * thread's n0 * 128 + t * 4, frag[0][0] its (n0 % 8) * 16 (n0 % 8 = g); a warp's loads
                   * meet 8 rows' chunks, each a distinct one, 4 words each: 32 banks */
        for (uint32_t j = 0; j < kg; j++)
            for (uint32_t e = 0; e < 4; e++) {
                uint32_t k4 = 2 * (j0 + j) + (e >> 1), n = 16 * r + 8 * (e & 1);
                LLVMValueRef sw = LLVMBuildXor(L->b, bfrag[0][0], c32(L, k4 << 4), "");
                LLVMValueRef off = LLVMBuildAdd(L->b, LLVMBuildAdd(L->b, base, c32(L, n * ROW_BYTES), ""), sw, "");
                raw[4 * j + e] = LLVMBuildLoad2(
                    L->b, L->t_f32, LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), P->ring, &off, 1, ""), "");
            }
        return;
    }
    if (P->b128) { /* fragment rows g and g + 8 are columns n, n + 1: one 8-byte load per k */
        LLVMTypeRef v2 = LLVMVectorType(L->t_f32, 2);
        for (uint32_t j = 0; j < kg; j++)
            for (uint32_t kk = 0; kk < 2; kk++) {
                LLVMValueRef off = LLVMBuildAdd(L->b, LLVMBuildAdd(L->b, base, bfrag[r][kk], ""),
                                                c32(L, 8 * (j0 + j) * 128), "");
                LLVMValueRef p = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), P->ring, &off, 1, "");
                LLVMValueRef v = LLVMBuildLoad2(L->b, v2, p, "");
                LLVMSetAlignment(v, 8);
                for (uint32_t h = 0; h < 2; h++)
                    raw[4 * j + 2 * kk + h] = LLVMBuildExtractElement(L->b, v, c32(L, h), "");
            }
        return;
    }
    for (uint32_t j = 0; j < kg; j++)
        for (uint32_t e = 0; e < 4; e++) {
            /* n a multiple of 8: an offset from the thread's base (the
             * unswizzled layouts) */
            uint32_t k = 8 * (j0 + j) + 4 * (e >> 1), n = 16 * r + 8 * (e & 1);
            LLVMValueRef off = LLVMBuildAdd(L->b, base, swapped_b_offset(P, c32(L, k), c32(L, n)), "");
            raw[4 * j + e] = LLVMBuildLoad2(L->b, L->t_f32,
                                            LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), P->ring, &off, 1, ""), "");
        }
}

/* ... rounded (split) into block r's wgmma register operands f[copy][r][j][e] (i32). */
static void swp_round_frags(Pipe *P, LLVMValueRef raw[16], uint32_t r, uint32_t kg, LLVMValueRef f[3][4][4][4])
{
    Lower *L = P->L;
    LLVMValueRef o[3][16];
    if (P->b_ready) /* rounded where it lies (by the producers, the TMA or the launch's copies) */
        memcpy(o[0], raw, sizeof o[0]);
    else
        wg_split_batch(P, raw, 4 * kg, o, NULL);
    for (uint32_t j = 0; j < kg; j++)
        for (uint32_t e = 0; e < 4; e++)
            for (uint32_t c = 0; c < P->copies; c++)
                f[c][r][j][e] = LLVMBuildBitCast(L->b, o[c][4 * j + e], L->t_i32, "");
}

/* One stage of the swapped product: B fragments from the raw B tile,
 * rounded (split) in registers, then the wgmmas. Block r, k8 step j, warp w
 * (of all consumers), lane g*4+t: B[8j+t][n], B[8j+t][n+8], B[8j+t+4][n],
 * B[8j+t+4][n+8] with n = 16*blocks*w + 16r + g, the C^T MMA layout's rows;
 * with P->b128 those rows are layout_nperm_row()'s, the pairs (n, n + 1). */
/* Once before the K loop, not in each stage: tilec's LLVM pipeline has no
 * loop-invariant code motion, and ptxas left them in the loop (24
 * instructions a stage at 128x256, bench/NOTES.md v21). */
void swapped_frags(Pipe *P)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef g = LLVMBuildLShr(b, LLVMBuildAnd(b, L->tid, c32(L, 31), ""), c32(L, 2), "");
    LLVMValueRef t = LLVMBuildAnd(b, L->tid, c32(L, 3), "");
    LLVMValueRef n0 = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildLShr(b, L->tid, c32(L, 5), ""), c32(L, 16 * P->blocks), ""),
                                   g, "");
    P->frag_base = c32(L, swapped_a_copies(P) * P->bm * ROW_BYTES);
    if (P->bkf) { /* B^T's rows as A's (swp_load_frags) */
        LLVMValueRef row = LLVMBuildAdd(b, LLVMBuildMul(b, n0, c32(L, ROW_BYTES), ""), LLVMBuildShl(b, t, c32(L, 2), ""), "");
        P->frag_base = LLVMBuildAdd(b, P->frag_base, row, "");
        P->frag[0][0] = LLVMBuildShl(b, g, c32(L, 4), "");
    } else if (P->b128) { /* block r's rows g, g + 8 are columns n, n + 1 (Layout.nperm): [r][k / 4] */
        LLVMValueRef G0 = LLVMBuildMul(b, LLVMBuildLShr(b, L->tid, c32(L, 5), ""), c32(L, P->blocks), "");
        LLVMValueRef nb = layout_nperm_row(L, G0, g);
        for (uint32_t r = 0; r < P->blocks; r++)
            for (uint32_t e = 0; e < 2; e++)
                P->frag[r][e] = swapped_b_offset(P, LLVMBuildAdd(b, t, c32(L, 4 * e), ""),
                                                 LLVMBuildAdd(b, nb, c32(L, layout_nperm_group(r)), ""));
    } else
        P->frag_base = LLVMBuildAdd(b, P->frag_base, swapped_b_offset(P, t, n0), "");
}

void swapped_stage(Pipe *P, LLVMValueRef s, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc,
                   LLVMValueRef rel_addr, LLVMValueRef rel_if)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef base = LLVMBuildAdd(b, soff, P->frag_base, "");
    FragOffsets bfrag = {{NULL}};
    memcpy(bfrag, P->frag, sizeof bfrag);
    /* A's copies: big (or the one rounded copy); 3xtf32's small after it, and its hic: big where
     * the stage's big is all finite, else the spare tile (its flag: x3_spare) */
    LLVMValueRef da[3] = {wg_descriptor(L, LLVMBuildAdd(b, P->ring32, soff, "")), NULL, NULL};
    if (P->copies == 3) {
        da[1] = LLVMBuildAdd(b, da[0], c64(L, P->bm * ROW_BYTES >> 4), "");
        LLVMValueRef fa = x3_flag_addr(P, s);
        LLVMValueRef flag = lw_asm(L, L->t_i32, "ld.shared.u32 $0, [$1];", "=r,r,~{memory}", &fa, 1, SE);
        da[2] = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, flag, c32(L, 0), ""), wg_descriptor(L, P->spare32),
                                da[0], "hic");
    }
    /* k8 steps per wgmma group; with split stages (P->split) only the last
     * group waits, so the next group's fragments load while one runs; with
     * k_overlap every group (two k8 steps: one each was 5-10% slower than
     * waiting per stage, bench/NOTES.md v8) waits for the one before only */
    /* 3xtf32: one group where a consumer warpgroup holds one 64-column block (with two or more the
     * fragments of 4 k8 steps spilled: 556 bytes at 64x256) */
    uint32_t kg = P->copies == 3 ? (P->L->o->wgmma_x3_one_group && P->blocks == 1 ? 4 : 2)
                                 : P->split || P->k_overlap ? 2 : 4;
    LLVMValueRef *part = acc;
    if (P->x3_sum2) { /* the part sums the loop carries after acc: from zero at even steps */
        part = acc + nacc;
    } else if (P->copies == 3) { /* this stage's products apart, then one RN add (as transposed_stage) */
        part = lw_regs(L, nacc);
        if (!part)
            return;
        for (uint32_t r = 0; r < nacc; r++)
            part[r] = LLVMConstReal(L->t_f32, 0.0);
    }
    /* group by group: its fragments loaded and rounded block by block, its
     * wgmmas issued; with k_overlap the next group's loads are issued
     * before this group's wgmmas and rounded after them, so they land while
     * the wgmmas issue and the group before finishes (the v8 profile had
     * the consumers waiting on those loads) */
    LLVMValueRef raw[4][16], f[3][4][4][4];
    for (uint32_t r = 0; r < P->blocks; r++) {
        swp_load_frags(P, base, bfrag, r, 0, kg, raw[r]);
        swp_round_frags(P, raw[r], r, kg, f);
    }
    /* Loading ahead needs the rounding to make new registers: where the
     * loaded values are the operands (tf32-trunc, b_ready), the next
     * stage's early load of its second group would rewrite the registers
     * that this stage's second group, still in flight, reads: the same
     * instructions of the loop (gpu_test_gemm caught it at 128x256 for
     * tf32-trunc, bench/NOTES.md v8). Not with four blocks (64x256, one
     * consumer warpgroup): the raw registers ahead made ptxas spill. */
    int early = P->k_overlap && P->prec != PREC_TF32_TRUNC && !P->b_ready && P->blocks < 4;
    for (uint32_t j0 = 0; j0 < 4; j0 += kg) {
        int more = j0 + kg < 4, ahead = more && early;
        for (uint32_t r = 0; ahead && r < P->blocks; r++)
            swp_load_frags(P, base, bfrag, r, j0 + kg, kg, raw[r]);
        int pending = P->k_overlap ? 1 : !P->split || j0 + kg == 4 ? 0 : WG_NO_WAIT;
        swp_mma_group(P, f, j0, kg, da, part, nacc, P->copies == 3 && j0 == 0, pending);
        if (P->k_overlap && j0 == 0) /* the stage before has no group in flight now */
            wg_release(P, rel_addr, rel_if);
        for (uint32_t r = 0; more && r < P->blocks; r++) {
            if (!ahead)
                swp_load_frags(P, base, bfrag, r, j0 + kg, kg, raw[r]);
            swp_round_frags(P, raw[r], r, kg, f);
        }
    }
    if (P->x3_sum2) { /* added at odd steps and the last: a branch, not 64 selects */
        LLVMValueRef odd = x3_odd_step(P);
        LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, P->step, LLVMBuildSub(b, P->nsteps, c32(L, 1), ""), "");
        LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef done = wg_if_open(L, LLVMBuildOr(b, odd, last, ""), "x3.add");
        LLVMValueRef *sum = lw_regs(L, nacc);
        if (!sum)
            return;
        for (uint32_t r = 0; r < nacc; r++)
            sum[r] = LLVMBuildFAdd(b, acc[r], part[r], "");
        LLVMBasicBlockRef added = LLVMGetInsertBlock(b);
        wg_if_close(L, done);
        for (uint32_t r = 0; r < nacc; r++) {
            LLVMValueRef phi = LLVMBuildPhi(b, L->t_f32, "");
            LLVMValueRef v[2] = {sum[r], acc[r]};
            LLVMBasicBlockRef bb[2] = {added, from};
            LLVMAddIncoming(phi, v, bb, 2);
            acc[r] = phi;
        }
    } else if (P->copies == 3)
        for (uint32_t r = 0; r < nacc; r++)
            acc[r] = LLVMBuildFAdd(b, acc[r], part[r], "");
}

