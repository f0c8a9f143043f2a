/*
 * The f16/bf16 GEMM pipeline (lower_wgmma.h): both wgmma operands from
 * shared memory, as the matrices lie; nothing transposed, rounded or
 * converted.
 *
 * A stage holds 64 k. A: BM rows K-major, 128 bytes (64 k) each, under the
 * 128-byte swizzle, read by the K-major descriptor of the tf32 pipelines
 * (+32 bytes per k16). B: the 64 rows of a row-major B[K,N] N-major, in
 * panels of 64 columns: panel p's row k at p * 8192 + k * 128, its 16-byte
 * chunk c at (c ^ k % 8) * 16, the 128-byte swizzle's MN-major atoms (8 k x
 * 64 n, 1024 bytes); wgmma reads it with imm-trans-b = 1 through a
 * descriptor whose leading offset steps panels (8192) and stride offset
 * steps atoms along k (1024), +2048 bytes per k16
 * (docs/bf16_wgmma_notes.md). A K-major B (its view's k stride the
 * constant 1, P->bk; -fno-wgmma-kmajor-b: the N-major path, element by
 * element) is copied as A is, BN rows of 128 bytes, and read by a K-major
 * descriptor (+32 bytes per k16) without the transpose bit. An M-major A
 * (its view's m stride the constant 1, P->am; -fno-wgmma-mmajor-a: element
 * by element) is copied as a row-major B is, A^T's 64 k rows of BM columns
 * in 64-column panels, each consumer warpgroup's 64 rows of A one panel,
 * read with imm-trans-a = 1 (+2048 bytes per k16).
 *
 * One producer warpgroup (two with -fwgmma-half-two-producers, not yet run
 * on a GPU: ss_producers()) copies both with 16-byte cp.async (element by
 * element where a chunk is outside the matrix or not 16-byte aligned; at
 * odd strides that path is the limit, bench/NOTES.md v9), and each thread
 * has full[] track its copies (cp.async.mbarrier.arrive.noinc), so it never waits
 * for them itself (waiting two steps later was 45% of the consumers' time
 * in full[] waits, bench/NOTES.md v9). Each consumer warpgroup (64 rows of
 * C) fences a full stage for the async proxy (the copies are generic-proxy
 * writes; the tensor cores read through the async proxy), issues its four
 * m64nBNk16 wgmmas as one group, waits for the group before only, and
 * releases that group's stage. The accumulators are C's MMA layout.
 */
#include "compiler/lower_wgmma.h"

#include <string.h>

enum { CHUNK = 8 /* elements in 16 bytes */, PANEL_CHUNKS = 8 /* 64 columns */ };

/* Whether x's rows may be copied in 16-byte chunks from column c0: a
 * 16-byte aligned base, a row stride and c0 that are multiples of 8
 * elements, unit column stride. */
static LLVMValueRef chunk_aligned(Lower *L, const Access *x, LLVMValueRef c0)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef lo = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, x->base, L->t_i64, ""), c64(L, 15), "");
    lo = LLVMBuildOr(b, lo, LLVMBuildAnd(b, LLVMBuildOr(b, x->s0, c0, ""), c64(L, CHUNK - 1), ""), "");
    LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, lo, c64(L, 0), "");
    return LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntEQ, x->s1, c64(L, 1), ""), "");
}

/* [x0, x0 + n) inside [0, d) (i64) */
static LLVMValueRef span_inside(Lower *L, LLVMValueRef x0, uint32_t n, LLVMValueRef d)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef lo = LLVMBuildICmp(b, LLVMIntSGE, x0, c64(L, 0), "");
    return LLVMBuildAnd(b, lo, LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, x0, c64(L, n), ""), d, ""), "");
}

/* The chunk at (row, col) of x, element by element with plain loads (zero
 * outside the matrix), packed into four words: the matrix's edges, and rows
 * neither 16- nor 4-byte aligned. Nothing is read for a row outside the
 * matrix (or an empty view, whose base may point anywhere); in a row inside
 * it, a column outside reads the row's first element and drops it. */
static void load_chunk_elems(Pipe *P, const Access *x, LLVMValueRef row, LLVMValueRef col, LLVMValueRef w[4])
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMTypeRef i16 = LLVMInt16TypeInContext(L->ctx);
    LLVMValueRef rok = LLVMBuildAnd(b, x->nonempty, lw_in_range(L, row, x->d0), "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef lbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.elems.row");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.elems.done");
    LLVMBuildCondBr(b, rok, lbb, join);
    LLVMPositionBuilderAtEnd(b, lbb);
    LLVMValueRef roff = LLVMBuildMul(b, row, x->s0, ""), lw[4];
    for (uint32_t e = 0; e < CHUNK; e++) {
        LLVMValueRef c = LLVMBuildAdd(b, col, c64(L, e), "");
        LLVMValueRef ok = lw_in_range(L, c, x->d1);
        LLVMValueRef off = LLVMBuildAdd(b, roff, LLVMBuildSelect(b, ok, LLVMBuildMul(b, c, x->s1, ""), c64(L, 0), ""), "");
        LLVMValueRef v = LLVMBuildLoad2(b, i16, LLVMBuildGEP2(b, i16, x->base, &off, 1, ""), "");
        LLVMSetAlignment(v, 2);
        v = LLVMBuildZExt(b, LLVMBuildSelect(b, ok, v, LLVMConstInt(i16, 0, 0), ""), L->t_i32, "");
        if (e & 1)
            lw[e / 2] = LLVMBuildOr(b, lw[e / 2], LLVMBuildShl(b, v, c32(L, 16), ""), "");
        else
            lw[e / 2] = v;
    }
    LLVMBasicBlockRef lend = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    for (uint32_t k = 0; k < 4; k++) {
        w[k] = LLVMBuildPhi(b, L->t_i32, "");
        LLVMValueRef vals[2] = {c32(L, 0), lw[k]};
        LLVMBasicBlockRef bbs[2] = {from, lend};
        LLVMAddIncoming(w[k], vals, bbs, 2);
    }
}

static void cp_async16(Lower *L, LLVMValueRef dst32, LLVMValueRef src)
{
    LLVMValueRef a[2] = {dst32, LLVMBuildPtrToInt(L->b, src, L->t_i64, "")};
    lw_asm(L, void_t(L), "cp.async.cg.shared.global [$0], [$1], 16;", "r,l,~{memory}", a, 2, SE);
}

/* What a thread's chunks of one tile copy share (ss_copy). */
typedef struct {
    const Access *x;
    LLVMValueRef r0;      /* the tile's first row (i64) */
    LLVMValueRef col;     /* the thread's chunk's first column (i64) */
    LLVMValueRef pdst;    /* the chunk's panel in the ring (i32 offset) */
    LLVMValueRef ch8;     /* the chunk's place in a row of its panel */
    LLVMValueRef aligned; /* chunk_aligned(): rows copy in 16-byte chunks */
    uint32_t step;        /* rows between a thread's chunks */
} SsChunks;

/* One batch of the edge path: the chunks of tile rows rl0 + i * step (i <
 * nb) issue their cp.async copies and their element chunks' loads, then
 * store those, so the loads of a batch wait for memory once, not once a
 * chunk (odd shapes: every other row of B when its stride is odd). */
enum { BATCH = 4 };
static void ss_edge_batch(Pipe *P, const SsChunks *c, LLVMValueRef rl0, uint32_t nb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    const Access *x = c->x;
    LLVMTypeRef i16 = LLVMInt16TypeInContext(L->ctx);
    LLVMValueRef w[BATCH][4], by_elem[BATCH], dq[BATCH];
    for (uint32_t i = 0; i < nb; i++) {
        LLVMValueRef rl = LLVMBuildAdd(b, rl0, c32(L, i * c->step), "");
        LLVMValueRef row = LLVMBuildAdd(b, c->r0, LLVMBuildZExt(b, rl, L->t_i64, ""), "");
        dq[i] = LLVMBuildAdd(b, c->pdst, wg_swz(L, rl, c->ch8), "");
        LLVMValueRef d32 = LLVMBuildAdd(b, P->ring32, dq[i], "");
        LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildAnd(b, x->nonempty, lw_in_range(L, row, x->d0), ""),
                                       span_inside(L, c->col, CHUNK, x->d1), "");
        LLVMValueRef o = LLVMBuildAdd(b, LLVMBuildMul(b, row, x->s0, ""), c->col, "");
        LLVMValueRef src = LLVMBuildGEP2(b, i16, x->base, &o, 1, "");
        LLVMValueRef lo2 = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, src, L->t_i64, ""), c64(L, 3), "");
        LLVMValueRef four = LLVMBuildAnd(b, LLVMBuildAnd(b, in, LLVMBuildICmp(b, LLVMIntEQ, x->s1, c64(L, 1), ""), ""),
                                         LLVMBuildICmp(b, LLVMIntEQ, lo2, c64(L, 0), ""), "");
        LLVMBasicBlockRef fbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk16");
        LLVMBasicBlockRef tbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk.try4");
        LLVMBasicBlockRef c4bb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk4");
        LLVMBasicBlockRef lbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk.elems");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk.issued");
        LLVMBuildCondBr(b, LLVMBuildAnd(b, c->aligned, in, ""), fbb, tbb);
        LLVMPositionBuilderAtEnd(b, fbb);
        cp_async16(L, d32, src);
        LLVMBuildBr(b, join);
        /* a chunk inside the matrix whose start is 4-byte aligned (odd
         * shapes: every row where the row stride is even, every other
         * row where it is odd): four 4-byte cp.async */
        LLVMPositionBuilderAtEnd(b, tbb);
        LLVMBuildCondBr(b, four, c4bb, lbb);
        LLVMPositionBuilderAtEnd(b, c4bb);
        for (uint32_t e = 0; e < 4; e++) {
            LLVMValueRef ce = c64(L, 2 * e);
            LLVMValueRef a[2] = {LLVMBuildAdd(b, d32, c32(L, 4 * e), ""),
                                 LLVMBuildPtrToInt(b, LLVMBuildGEP2(b, i16, src, &ce, 1, ""), L->t_i64, "")};
            lw_asm(L, void_t(L), "cp.async.ca.shared.global [$0], [$1], 4;", "r,l,~{memory}", a, 2, SE);
        }
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, lbb);
        LLVMValueRef lw[4];
        load_chunk_elems(P, x, row, c->col, lw);
        LLVMBasicBlockRef lend = LLVMGetInsertBlock(b);
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, join);
        LLVMBasicBlockRef from[3] = {fbb, c4bb, lend};
        by_elem[i] = LLVMBuildPhi(b, L->t_i1, "");
        LLVMValueRef flags[3] = {LLVMConstInt(L->t_i1, 0, 0), LLVMConstInt(L->t_i1, 0, 0), LLVMConstInt(L->t_i1, 1, 0)};
        LLVMAddIncoming(by_elem[i], flags, from, 3);
        for (uint32_t k = 0; k < 4; k++) {
            w[i][k] = LLVMBuildPhi(b, L->t_i32, "");
            LLVMValueRef vals[3] = {LLVMGetUndef(L->t_i32), LLVMGetUndef(L->t_i32), lw[k]};
            LLVMAddIncoming(w[i][k], vals, from, 3);
        }
    }
    for (uint32_t i = 0; i < nb; i++) {
        LLVMBasicBlockRef sbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk.store");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.chunk.stored");
        LLVMBuildCondBr(b, by_elem[i], sbb, next);
        LLVMPositionBuilderAtEnd(b, sbb);
        LLVMValueRef f[4];
        for (uint32_t k = 0; k < 4; k++)
            f[k] = LLVMBuildBitCast(b, w[i][k], L->t_f32, "");
        wg_st_shared_v4(L, P->ring, dq[i], f);
        LLVMBuildBr(b, next);
        LLVMPositionBuilderAtEnd(b, next);
    }
}

/* The rows x cols tile of x at (r0, c0) into ring offset dst, as panels of
 * 64 columns, each `rows` rows of 128 bytes under the 128-byte swizzle.
 * Producer thread lt copies 16-byte chunk lt % cpr of rows lt / cpr + q *
 * (threads / cpr): a warp reads whole rows, contiguous. */
static void ss_copy(Pipe *P, const Access *x, LLVMValueRef r0, LLVMValueRef c0, uint32_t rows, uint32_t cols,
                    LLVMValueRef dst, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    uint32_t cpr = cols / CHUNK, step = P->producers * WARPGROUP / cpr, n = rows / step;
    LLVMValueRef ch = LLVMBuildURem(b, lt, c32(L, cpr), ""), r = LLVMBuildUDiv(b, lt, c32(L, cpr), "");
    /* the chunk's panel, and its place in a row of the panel */
    LLVMValueRef panel = LLVMBuildUDiv(b, ch, c32(L, PANEL_CHUNKS), "");
    LLVMValueRef pdst = LLVMBuildAdd(b, dst, LLVMBuildMul(b, panel, c32(L, rows * ROW_BYTES), ""), "");
    LLVMValueRef ch8 = LLVMBuildURem(b, ch, c32(L, PANEL_CHUNKS), "");
    LLVMValueRef row0 = LLVMBuildAdd(b, r0, LLVMBuildZExt(b, r, L->t_i64, ""), "");
    LLVMValueRef col = LLVMBuildAdd(b, c0, LLVMBuildZExt(b, LLVMBuildShl(b, ch, c32(L, 3), ""), L->t_i64, ""), "");
    LLVMValueRef aligned = chunk_aligned(L, x, c0);

    /* the whole tile inside the matrix and aligned (every step but the
     * edges): a running pointer, nothing checked */
    LLVMValueRef whole = LLVMBuildAnd(b, LLVMBuildAnd(b, aligned, x->nonempty, ""), span_inside(L, r0, rows, x->d0), "");
    whole = LLVMBuildAnd(b, whole, span_inside(L, c0, cols, x->d1), "");
    LLVMBasicBlockRef wbb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.whole");
    LLVMBasicBlockRef ebb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.edge");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "ss.copied");
    LLVMBuildCondBr(b, whole, wbb, ebb);
    LLVMPositionBuilderAtEnd(b, wbb);
    LLVMTypeRef i16 = LLVMInt16TypeInContext(L->ctx);
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, row0, x->s0, ""), col, "");
    LLVMValueRef p = LLVMBuildGEP2(b, i16, x->base, &off, 1, "");
    LLVMValueRef jump = LLVMBuildMul(b, x->s0, c64(L, step), "");
    for (uint32_t q = 0; q < n; q++) {
        if (q)
            p = LLVMBuildGEP2(b, i16, p, &jump, 1, "");
        LLVMValueRef d = LLVMBuildAdd(b, pdst, wg_swz(L, LLVMBuildAdd(b, r, c32(L, q * step), ""), ch8), "");
        cp_async16(L, LLVMBuildAdd(b, P->ring32, d, ""), p);
    }
    LLVMBuildBr(b, done);

    /* else chunk by chunk, BATCH at a time: a loop over the whole batches
     * (unrolled, the 128x256 bf16 kernel's 24 row blocks of element loads
     * were two thirds of its compile time), the rest after it */
    LLVMPositionBuilderAtEnd(b, ebb);
    SsChunks c = {.x = x, .r0 = r0, .col = col, .pdst = pdst, .ch8 = ch8, .aligned = aligned, .step = step};
    if (n / BATCH > 1) {
        Loop lp = wg_loop_open(L, "ss.batch");
        wg_loop_test(L, &lp, c32(L, n / BATCH));
        ss_edge_batch(P, &c, LLVMBuildAdd(b, r, LLVMBuildMul(b, lp.i, c32(L, BATCH * step), ""), ""), BATCH);
        wg_loop_close(L, &lp);
    } else if (n >= BATCH)
        ss_edge_batch(P, &c, r, BATCH);
    if (n % BATCH)
        ss_edge_batch(P, &c, LLVMBuildAdd(b, r, c32(L, n / BATCH * BATCH * step), ""), n % BATCH);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
}

/* Producer warpgroups: one; two with -fwgmma-half-two-producers (for the
 * element path at odd strides), but not where two consumer warpgroups hold
 * BN = 256 (512 threads start with 128 registers, and ptxas wants each
 * m64n256 wgmma to fit in that: it needs 154). */
uint32_t ss_producers(uint32_t consumers, uint32_t bn, const TcOptions *o)
{
    return o->wgmma_half_two_producers && !(consumers > WARPGROUP && bn > 128) ? 2 : 1;
}

/* The registers after setmaxnreg (0: left as they are): the producers keep
 * 128 (a batch of element chunks in registers; 96 spilled at 128x256),
 * but 72 beside two consumer warpgroups (65536 = 256 x 184 + 256 x 72);
 * the consumers get the rest (184 at BN = 256: 128 accumulators). */
uint32_t ss_register_split(uint32_t consumers, uint32_t producers, uint32_t *consumer)
{
    uint32_t nc = consumers / WARPGROUP, launch = consumers + producers * WARPGROUP;
    uint32_t prod = nc == 2 && producers == 2 ? 72 : 128;
    *consumer = 0;
    if (launch <= 256)
        return 0;
    uint32_t c = ((nc + producers) * wgmma_entry_regs(launch) - producers * prod) / nc / 8 * 8;
    *consumer = c > 240 ? 240 : c;
    return prod;
}

/* Step t's copies: once its stage is empty, A's BM x 64 tile and B's 64 x
 * BN; then full[stage] tracks the thread's copies (the phase cannot
 * complete before they have landed) and the thread arrives (its element
 * stores released). */
static void ss_issue(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef t, LLVMValueRef lt)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef s = wg_wait_step(P, P->empty32, t, 1);
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, t, L->t_i64, ""), c64(L, SS_BK), ""), "k");
    LLVMValueRef stage = LLVMBuildMul(b, s, c32(L, P->stage_bytes), "");
    if (P->am) /* A^T's rows as a row-major B's (xa is the transpose) */
        ss_copy(P, xa, k, xa->i1, SS_BK, P->bm, stage, lt);
    else
        ss_copy(P, xa, xa->i0, k, P->bm, SS_BK, stage, lt);
    if (P->bk) /* B^T's rows as A's (xb is the transpose) */
        ss_copy(P, xb, xb->i0, k, P->bn, SS_BK, LLVMBuildAdd(b, stage, c32(L, P->bm * ROW_BYTES), ""), lt);
    else
        ss_copy(P, xb, k, xb->i1, SS_BK, P->bn, LLVMBuildAdd(b, stage, c32(L, P->bm * ROW_BYTES), ""), lt);
    LLVMValueRef bar = wg_bar_addr(L, P->full32, s);
    /* two arrivals per thread, both counted at init: the copies' (.noinc:
     * the increment form raised the pending count of a phase the thread
     * never waits on, which compute-sanitizer's synccheck reports as a
     * missing wait), and the thread's own, which releases its element
     * stores */
    lw_asm(L, void_t(L), "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r,~{memory}", &bar, 1, SE);
    wg_bar_arrive(L, bar);
}

/* A producer thread: step after step, never waiting for its own copies
 * (full[] does). With TMA (where the launch allows it) the first thread
 * alone issues them. */
void ss_producer(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef lt = LLVMBuildSub(L->b, L->tid, c32(L, P->consumers), "");
    if (P->tma) {
        /* (with TMA only, no version without it: use_tma is true) */
        LLVMBasicBlockRef tbb = P->tma_only ? NULL : LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.tma");
        LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.tma.issue");
        LLVMBasicBlockRef idle = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.idle");
        LLVMBasicBlockRef gbb = P->tma_only ? NULL : LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prod.copies");
        if (tbb) {
            LLVMBuildCondBr(b, P->use_tma, tbb, gbb);
            LLVMPositionBuilderAtEnd(b, tbb);
        }
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, lt, c32(L, 0), ""), one, idle);
        LLVMPositionBuilderAtEnd(b, idle);
        wg_producer_exit(L);
        LLVMPositionBuilderAtEnd(b, one);
        wg_tma_prepare(P);
        Loop lt0 = wg_loop_open(L, "prod.tma");
        wg_loop_test(L, &lt0, P->nsteps);
        wg_tma_issue(P, xa, xb, lt0.i);
        wg_loop_close(L, &lt0);
        wg_producer_exit(L);
        if (!gbb)
            return;
        LLVMPositionBuilderAtEnd(b, gbb);
    }
    Loop lp = wg_loop_open(L, "prod");
    wg_loop_test(L, &lp, P->nsteps);
    ss_issue(P, xa, xb, lp.i, lt);
    wg_loop_close(L, &lp);
    /* no exit with copies in flight (full[] tracks them, but the thread
     * that issued them would be gone); persistent: at the kernel's end */
    if (!L->role)
        lw_asm(L, void_t(L), "cp.async.wait_all;", "~{memory}", NULL, 0, SE);
    wg_producer_exit(L);
}

void ss_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc, LLVMValueRef rel_addr, LLVMValueRef rel_if)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    const char *ty = P->elem == ELEM_BF16 ? "bf16" : "f16";
    LLVMValueRef wg = LLVMBuildLShr(b, L->tid, c32(L, 7), "");
    LLVMValueRef st = LLVMBuildAdd(b, P->ring32, soff, "");
    /* A: the warpgroup's 64 rows; M-major (P->am): its panel of A^T, 64 columns, read as B's
     * N-major panels are (one panel: the leading offset is never stepped) */
    LLVMValueRef ast = LLVMBuildAdd(b, st, LLVMBuildMul(b, wg, c32(L, 64 * ROW_BYTES), ""), "");
    LLVMValueRef da = P->am ? wg_descriptor_offsets(L, ast, SS_BK * ROW_BYTES, 1024) : wg_descriptor(L, ast);
    /* B's N-major panels: leading offset one panel (64 rows x 128 bytes),
     * stride offset 8 rows; a K-major B (P->bk): rows as A's */
    LLVMValueRef bst = LLVMBuildAdd(b, st, c32(L, P->bm * ROW_BYTES), "");
    LLVMValueRef db = P->bk ? wg_descriptor(L, bst) : wg_descriptor_offsets(L, bst, SS_BK * ROW_BYTES, 1024);
    /* the copies landed through the generic proxy; the tensor cores read
     * through the async one */
    lw_asm(L, void_t(L), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0, SE);
    enum { KSTEPS = SS_BK / 16 };
    LLVMValueRef in[2 * KSTEPS + 1];
    StrBuf t;
    sb_init(&t);
    sb_printf(&t, "{\n\t.reg .pred P1;\n\tsetp.ne.b32 P1, $%u, 0;\n\twgmma.fence.sync.aligned;\n", 2 * nacc + 2 * KSTEPS);
    for (uint32_t j = 0; j < KSTEPS; j++) {
        /* A: +32 bytes a k16 step (its 128-byte rows), M-major +2048 as B; B: +2048 (16 rows),
         * K-major +32 as A */
        in[2 * j] = LLVMBuildAdd(b, da, c64(L, (P->am ? 16 * ROW_BYTES : 32) * j >> 4), "");
        in[2 * j + 1] = LLVMBuildAdd(b, db, c64(L, (P->bk ? 32 : 16 * ROW_BYTES) * j >> 4), "");
        sb_printf(&t, "\twgmma.mma_async.sync.aligned.m64n%uk16.f32.%s.%s {", P->bn, ty, ty);
        for (uint32_t x = 0; x < nacc; x++)
            sb_printf(&t, "%s$%u", x ? ", " : "", x);
        sb_printf(&t, "}, $%u, $%u, P1, 1, 1, %d, %d;\n", 2 * nacc + 2 * j, 2 * nacc + 2 * j + 1, P->am, !P->bk);
    }
    /* the group before this one is done; -O0 (P->serial): this one too */
    sb_printf(&t, "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned %d;\n\t}", P->serial ? 0 : 1);
    in[2 * KSTEPS] = c32(L, 1); /* scale-d: accumulate */
    char cons[8 * KSTEPS + 4] = "";
    for (uint32_t j = 0; j < KSTEPS; j++)
        strcat(cons, ",l,l"); /* the two descriptors of each k16 step */
    strcat(cons, ",r");
    if (t.oom)
        lw_error(L, (TirLoc){0}, "out of memory while lowering");
    else
        wg_acc_asm(L, t.data, cons, acc, nacc, in, 2 * KSTEPS + 1);
    sb_free(&t);
    if (rel_addr) /* the group before, and so its stage, is done (serial: the consumer loop releases this one) */
        wg_release(P, rel_addr, rel_if);
}
