/*
 * CUDA-core consumers for ieee dots on the sm_90a pipeline (the default;
 * -fno-wgmma-ffma keeps ieee on the generic lowering).
 *
 * The producers fill the stages as for tf32-trunc (nothing rounded): A
 * K-major under the 128-byte swizzle, B as raw rows (lower_wgmma_swapped.c)
 * or, with TMA, as 32-column panels under the same swizzle (P->b128: a run
 * of 4 columns stays one 16-byte chunk, and a warp's 16 runs at one k fill
 * 32 banks per panel).
 * The consumers compute C += A B with fp32 FMAs in k order, the same
 * arithmetic as the generic lowering, so ieee keeps its exact semantics.
 *
 * Thread (r, c) of a tr x tc grid (wgmma_ffma_grid) holds rows r + tr*i of
 * the tile and columns 4c .. 4c+3 + 4tc*h: a blocked layout with runs of 4
 * columns (Layout.vec), two runs or (-fwgmma-ffma-wide, tiles that 8 x 8
 * a thread does not cover, e.g. 256x128 with 8 warps) four. Per 4 k it loads each of its A
 * rows' 16-byte chunk (the lanes of one row read one address) and each of
 * its B runs for each k (a half warp reads 256 bytes of a B row: contiguous
 * raw, or two panels' 128 under TMA), all 16-byte shared loads: with 8 x 8 elements, 16 loads for 256
 * FMAs; with 8 x 16, 24 for 512 (B's runs loaded k by k, so that 128
 * accumulators, 32 A and 16 B values fit the consumers' 200).
 *
 * A K-major B (x @ W^T): the producers copy B^T's rows as A's, after A's
 * tile; by default (P->bt) the producer warpgroup that rounds nothing then
 * transposes them in place into the panels above (bt_transpose,
 * lower_wgmma_swapped.c), TMA or not, and the consumers read B as a
 * row-major B's. Otherwise (P->bkf, -fno-wgmma-ffma-transpose-b) they read
 * B^T's rows: a column n's 4 k are one 16-byte chunk, at n * 128 + ((k / 4)
 * ^ (n % 8)) * 16. Runs of 4 columns would lie in 4 rows there, and the 16
 * runs of a half warp in 2 chunks: 8-way bank conflicts. So the thread's
 * columns are c + tc*j instead (Layout.vec 1): per 4 k it loads each column's
 * chunk, the lanes of a warp 8 distinct chunks a row group (all 32 banks):
 * 64 accumulators, 32 A and 32 B values, as many 16-byte loads as the raw
 * rows take. Only with 8 columns a thread (wgmma_kmajor_b_frags): at 8 x 16
 * (-fwgmma-ffma-wide) ptxas spilled 124-1916 bytes however the columns were
 * grouped (16, 8, 4 or 2 at a time), and such a B keeps the element copies.
 * Slower than the transposed panels (0.89x the row-major kernel against
 * 0.95-1.0x on an H100, bench/NOTES.md v39): A's and B^T's 16-byte loads
 * both put k % 4 in a register's bank, so an FMA's two operands and its
 * accumulator meet in one bank twice as often.
 *
 * Needs a stage laid out as wgmma_swapped_stage_bytes() says (bkf: A's rows,
 * then B^T's); the accumulators are the layout ffma_layout() returns.
 */
#include "compiler/lower_wgmma.h"

Layout ffma_layout(const Pipe *P)
{
    uint32_t tr = 0, tc = 0;
    wgmma_ffma_grid(P->bm, P->bn, P->consumers, P->L->o->wgmma_ffma_wide, &tr, &tc); /* pass_wgmma checked it */
    return (Layout){.kind = LAYOUT_BLOCKED, .rows = P->bm, .cols = P->bn, .tr = tr, .tc = tc, .vec = P->bkf ? 1 : 4};
}

/* out[j] = ((sel % 8) ^ j) * 16, j < 8: the 128-byte swizzle's byte offset of chunk j in a row
 * whose swizzle is sel (its index % 8), computed once before the K loop */
static void swizzled_chunks(Lower *L, LLVMValueRef sel, LLVMValueRef out[8])
{
    LLVMValueRef s = LLVMBuildAnd(L->b, sel, c32(L, 7), "");
    for (uint32_t j = 0; j < 8; j++)
        out[j] = LLVMBuildShl(L->b, LLVMBuildXor(L->b, s, c32(L, j), ""), c32(L, 4), "");
}

/* B's stage tile as b128's 32-column panels: the TMA's boxes, or bt_transpose's (TMA or not) */
static int b_panels(const Pipe *P) { return P->tma || P->bt; }

void ffma_frags(Pipe *P)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    Layout lay = ffma_layout(P);
    LLVMValueRef r0 = layout_base_row(L, &lay), c0 = layout_base_col(L, &lay); /* c0: a multiple of 4 (not bkf) */
    /* the thread's rows are r0 + tr*i with tr a multiple of 8 (wgmma_ffma_grid makes it so), so
     * one swizzle (r0 % 8) serves them all: chunk ch of row i lies at (r0 + tr*i) * 128 +
     * ((r0 % 8) ^ ch) * 16; once before the K loop (as swapped_frags: 62 instructions a stage) */
    P->frag_base = LLVMBuildMul(b, r0, c32(L, ROW_BYTES), "");
    swizzled_chunks(L, r0, P->ffma_chunk);
    P->ffma_c0 = c0;
    if (P->bkf) { /* B^T's row c0 after A's tile; chunk ch of column c0 + tc*j at ffma_bk[ch ^ (tc*j % 8)]
                   * + tc*j*128 (tc a power of two: c0 % 8 and tc*j % 8 share no bit where tc < 8, and
                   * tc*j % 8 is 0 where tc >= 8). The row's offset is in ffma_bk, so that a load's
                   * address is a stage's sum plus a constant: with the row apart, LLVM kept a register
                   * a column and ptxas an add a load (64 IADD3 a stage at 128x128, now 2) */
        LLVMValueRef row = LLVMBuildAdd(b, c32(L, P->bm * ROW_BYTES), LLVMBuildMul(b, c0, c32(L, ROW_BYTES), ""), "");
        swizzled_chunks(L, c0, P->ffma_bk);
        for (uint32_t j = 0; j < 8; j++)
            P->ffma_bk[j] = LLVMBuildAdd(b, row, P->ffma_bk[j], "");
        return;
    }
    P->ffma_bcol = LLVMBuildAdd(b, c32(L, P->bm * ROW_BYTES), LLVMBuildShl(b, c0, c32(L, 2), ""), "");
    if (b_panels(P)) { /* run 0 at k, less k * 128, for each k % 8 */
        LLVMValueRef b0 = LLVMBuildAdd(b, c32(L, P->bm * ROW_BYTES), swapped_b_offset(P, c32(L, 0), c0), "");
        LLVMValueRef ch = LLVMBuildAnd(b, LLVMBuildLShr(b, c0, c32(L, 2), ""), c32(L, 7), "");
        b0 = LLVMBuildSub(b, b0, LLVMBuildShl(b, ch, c32(L, 4), ""), ""); /* the panel's row 0 */
        for (uint32_t j = 0; j < 8; j++)
            P->ffma_bk[j] = LLVMBuildAdd(b, b0, LLVMBuildShl(b, LLVMBuildXor(b, ch, c32(L, j), ""), c32(L, 4), ""), "");
    }
}

/* Address of run h of the thread's B columns at k (a constant) in the stage
 * at soff, whose bcol (raw rows) or bk (b128: ffma_bk there) is given. */
static LLVMValueRef ffma_b_run(Pipe *P, const Layout *lay, LLVMValueRef soff, LLVMValueRef bcol, LLVMValueRef *bk,
                               uint32_t k, uint32_t h)
{
    Lower *L = P->L;
    uint32_t dc = h * lay->tc * 16; /* bytes from run 0 */
    if (!b_panels(P))
        return LLVMBuildAdd(L->b, bcol, c32(L, k * raw_b_row_bytes(P->bn) + dc), "");
    if (dc % 128 == 0) /* whole panels on: the same chunk, a constant further */
        return LLVMBuildAdd(L->b, bk[k % 8], c32(L, k * 128 + dc / 128 * BK * 128), "");
    /* a run in another chunk of the panel (tc not a multiple of 8: BN 64 at 8 x 16 a thread) */
    LLVMValueRef n = LLVMBuildAdd(L->b, P->ffma_c0, c32(L, dc / 4), "");
    return LLVMBuildAdd(L->b, LLVMBuildAdd(L->b, soff, c32(L, P->bm * ROW_BYTES), ""), swapped_b_offset(P, c32(L, k), n), "");
}

/* One stage: 8 chunks of 4 k. acc[i * ci + j]: row i, column j (run j / 4). */
void ffma_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    Layout lay = ffma_layout(P);
    uint32_t ri = lay.rows / lay.tr, ci = lay.cols / lay.tc, runs = ci / 4;
    if (ri * ci != nacc || ri > 8 || (runs != 2 && runs != 4) || lay.tr % 8 || (P->bkf && ci != 8)) {
        /* (wgmma_ffma_grid() allows none; wgmma_kmajor_b_frags() takes its 8 columns a thread alone) */
        lw_error(L, (TirLoc){0}, "internal error: FMA pipeline tile %ux%u", P->bm, P->bn);
        return;
    }
    LLVMValueRef arow = LLVMBuildAdd(b, soff, P->frag_base, ""); /* A row r0 in the stage */
    LLVMValueRef bcol = P->bkf ? NULL : LLVMBuildAdd(b, soff, P->ffma_bcol, "");
    LLVMValueRef bk[8];
    for (uint32_t j = 0; j < 8 && (b_panels(P) || P->bkf); j++) /* this stage's ffma_bk */
        bk[j] = LLVMBuildAdd(b, soff, P->ffma_bk[j], "");
    LLVMTypeRef f32 = L->t_f32;
    for (uint32_t ch = 0; ch < BK / 4; ch++) {
        LLVMValueRef a[8][4], bv[4][4][4];
        LLVMValueRef chunk = LLVMBuildAdd(b, arow, P->ffma_chunk[ch], "");
        for (uint32_t i = 0; i < ri; i++)
            wg_ld_shared_v4(L, P->ring, LLVMBuildAdd(b, chunk, c32(L, i * lay.tr * ROW_BYTES), ""), a[i]);
        if (P->bkf) { /* B^T's rows: each of the 8 columns' 4 k in one chunk */
            LLVMValueRef bc[8][4];
            for (uint32_t j = 0; j < 8; j++)
                wg_ld_shared_v4(L, P->ring, LLVMBuildAdd(b, bk[ch ^ (lay.tc * j % 8)], c32(L, j * lay.tc * ROW_BYTES), ""),
                                bc[j]);
            for (uint32_t q = 0; q < 4; q++)
                for (uint32_t i = 0; i < ri; i++)
                    for (uint32_t j = 0; j < 8; j++) {
                        LLVMValueRef x[3] = {a[i][q], bc[j][q], acc[i * ci + j]};
                        acc[i * ci + j] = lw_call(L, "llvm.fma", &f32, 1, x, 3);
                    }
            continue;
        }
        /* two runs: every k's B loaded ahead (as before); four: k by k */
        uint32_t ahead = runs == 2 ? 4 : 1;
        for (uint32_t q = 0; q < 4; q++) {
            for (uint32_t l = q; q % ahead == 0 && l < q + ahead; l++) /* k q .. q + ahead - 1, at their first */
                for (uint32_t h = 0; h < runs; h++)
                    wg_ld_shared_v4(L, P->ring, ffma_b_run(P, &lay, soff, bcol, bk, 4 * ch + l, h), bv[l][h]);
            for (uint32_t i = 0; i < ri; i++)
                for (uint32_t j = 0; j < ci; j++) {
                    LLVMValueRef x[3] = {a[i][q], bv[q][j / 4][j % 4], acc[i * ci + j]};
                    acc[i * ci + j] = lw_call(L, "llvm.fma", &f32, 1, x, 3);
                }
        }
    }
}
