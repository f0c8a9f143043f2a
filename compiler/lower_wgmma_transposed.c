/*
 * The older sm_90a GEMM pipeline (-fno-wgmma-swapped; lower_wgmma.h): A
 * from registers, B transposed by the producers.
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
 * This pipeline runs with -fno-wgmma-swapped; the swapped product
 * (lower_wgmma_swapped.c) is the default (bench/NOTES.md v6: 1.4x at
 * 128x256).
 */
#include "compiler/lower_wgmma.h"

#include <stdio.h>
#include <string.h>

/* B runs of 16 bytes per producer thread and step: 32 x BN / 4 / 128, at
 * most 16 (pass_wgmma caps BN at 256) */
enum { MAX_B_RUNS = 16 };

/* setmaxnreg: producers need addresses and one 4x4 block per copy (more
 * with one producer, which covers a whole step alone), the consumers all
 * the accumulators, out of what the program holds at entry (setmaxnreg.inc
 * waits until the program's own registers suffice). Returns the producers'
 * count; *consumer gets the consumers' (both 0: leave the entry count, when
 * it is already 255). */
uint32_t transposed_register_split(uint32_t consumers, uint32_t producers, uint32_t copies, uint32_t *consumer)
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
    h->dsta = wg_swz(L, lt8, lt_8); /* run q: + q * 16 rows * 128 bytes */
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
        h->stsb[jj] = wg_swz(L, LLVMBuildAdd(b, LLVMBuildShl(b, lt8, c32(L, 2), ""), c32(L, jj), ""), kc);
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
    LLVMValueRef s = wg_wait_step(P, P->empty32, t, 1);
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
            dst[q] = LLVMBuildAdd(b, a_base, wg_swz(L, r, lt_8), "");
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
            wg_ld_shared_v4(L, P->ring, off, &v[4 * i]);
        }
        wg_split_batch(P, v, 16, o, NULL);
        for (uint32_t jj = 0; jj < 4; jj++) { /* row n = 4nc + jj of B^T: column jj of the 4 rows */
            LLVMValueRef off;
            if (h) {
                off = LLVMBuildAdd(b, LLVMBuildAdd(b, op, h->stsb[jj], ""), c32(L, q * 64 * ROW_BYTES), "");
            } else {
                LLVMValueRef n = LLVMBuildAdd(b, LLVMBuildShl(b, nc, c32(L, 2), ""), c32(L, jj), "");
                off = LLVMBuildAdd(b, op, wg_swz(L, n, kc), "");
            }
            for (uint32_t c = 0; c < P->copies; c++) {
                LLVMValueRef e4[4] = {o[c][jj], o[c][4 + jj], o[c][8 + jj], o[c][12 + jj]};
                wg_st_shared_v4(L, P->ring, LLVMBuildAdd(b, off, c32(L, c * P->bn * ROW_BYTES), ""), e4);
            }
        }
    }
}

/* Producer warpgroup p of P: its iteration u issues the copies of step
 * t = p + P*u and finishes step t - P*lag (its copies landed: B rounded into
 * place, both released to the consumers); then it returns. Its raw B slots
 * are its own: p*(lag+1) + u % (lag+1). */
void transposed_producer(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef pwg, lt, mine;
    wg_producer_steps(P, &pwg, &lt, &mine);
    LLVMValueRef bar_id = LLVMBuildAdd(b, pwg, c32(L, 2), "");
    LLVMValueRef total = LLVMBuildAdd(b, mine, c32(L, P->lag), "");
    LLVMValueRef slot0 = LLVMBuildMul(b, pwg, c32(L, P->lag + 1), "");
    Hoisted hoisted, *h = NULL;
    if (P->hoist) {
        hoist_terms(P, xa, xb, lt, &hoisted);
        h = &hoisted;
    }

    Loop lp = wg_loop_open(L, "prod");
    LLVMValueRef u = lp.i;
    wg_loop_test(L, &lp, total);
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
    wg_bar_arrive(L, wg_bar_addr(L, P->full32, LLVMBuildURem(b, j, c32(L, P->stages), "")));
    producer_barrier(L, bar_id); /* the raw slot is read by all before the next step reuses it */
    LLVMBuildBr(b, next);

    LLVMPositionBuilderAtEnd(b, next);
    wg_loop_close(L, &lp);
    LLVMBuildRetVoid(b);
}

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
            uint32_t ca = npairs == 3 ? wg_pairs3[p][0] : 0, cb = npairs == 3 ? wg_pairs3[p][1] : 0;
            memcpy(w[d].a, a[ca][j], sizeof w[d].a);
            int64_t addb = ((int64_t)cb * P->bn * ROW_BYTES + j * 32) >> 4;
            w[d].desc = LLVMBuildAdd(P->L->b, db, c64(P->L, addb), "");
            w[d].adesc = NULL;
            w[d].acc0 = 0;
            w[d].from_zero = from_zero && d == 0;
        }
    wg_wgmma_group(P, w, d, P->bn, nacc, acc, nacc, 0);
}

/* One stage: the A fragments from the raw A tile (rounded or split here,
 * once per element), then the wgmmas. Fragment of k8 step j, warp w, lane
 * g*4+t: A[16w+g][8j+t], A[16w+g+8][8j+t], A[16w+g][8j+t+4], A[16w+g+8][8j+t+4]. */
void transposed_stage(Pipe *P, LLVMValueRef a_off, LLVMValueRef db, LLVMValueRef *acc, uint32_t nacc)
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
        wg_split_batch(P, raw, 4 * kg, o, NULL);
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

