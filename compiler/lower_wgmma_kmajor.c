/*
 * B K-major (lower_wgmma.h; -fno-wgmma-kmajor-b turns it off): a tf32 GEMM
 * loop whose B view has k stride 1 (a column-major B[K,N]: x @ W^T's W,
 * stored [N, K] row-major) runs the swapped product's producers with B's
 * tile copied as A's is, and consumers that compute C = A B with both
 * wgmma operands from shared memory.
 *
 * TF32 wgmma reads only K-major operands from shared memory; a row-major B
 * is not one, which is why the default pipeline swaps the product and
 * feeds B^T from registers (lower_wgmma_swapped.c). A K-major B needs
 * neither: its BN x 32 tile is BN rows of 128 bytes, the layout of A's
 * tile, so the producers copy it by the same paths (TMA through a map of
 * the view's transpose, 16-byte cp.async, element copies at the edges) and
 * round it where A is rounded, in place in shared memory (tf32-rna;
 * tf32-rne without TMA; nothing where the launch passes it rounded). Each
 * consumer warpgroup owns 64 rows of A and all BN columns: per stage four
 * wgmma m64nBNk8, A and B by descriptor, +32 bytes a k8 step. The
 * accumulators are C's MMA layout (warp w: rows 16w..16w+15), not the
 * swapped product's transposed one.
 *
 * Needs: pass_wgmma's shapes (wgmma_kmajor_b_fits: BM = 16 x warps, BN a
 * multiple of 16 up to 256, so 16..256 as tile sides are powers of two;
 * tf32-trunc, -rna or -rne). With BN above 128, one producer warpgroup:
 * with two, 512 threads start with 128 registers, and an m64n256 wgmma's
 * 128 accumulators and descriptors do not fit.
 */
#include "compiler/lower_wgmma.h"

Access transposed_access(const Access *x)
{
    return (Access){.base = x->base, .d0 = x->d1, .d1 = x->d0, .s0 = x->s1, .s1 = x->s0, .i0 = x->i1, .i1 = x->i0,
                    .nonempty = x->nonempty};
}

uint32_t kmajor_producers(uint32_t bm, uint32_t bn, uint32_t consumer_threads, TirPrecision p, uint32_t stages,
                          int one)
{
    return swapped_producers(bm, bn, consumer_threads, p, stages, one || bn > 128);
}

void kmajor_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc, LLVMValueRef rel_addr,
                  LLVMValueRef rel_if)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef st = LLVMBuildAdd(b, P->ring32, soff, "");
    LLVMValueRef wg = LLVMBuildLShr(b, L->tid, c32(L, 7), "");
    LLVMValueRef da = wg_descriptor(L, LLVMBuildAdd(b, st, LLVMBuildMul(b, wg, c32(L, 64 * ROW_BYTES), ""), ""));
    LLVMValueRef db = wg_descriptor(L, LLVMBuildAdd(b, st, c32(L, P->bm * ROW_BYTES), ""));
    Wgmma w[BK / 8];
    for (uint32_t j = 0; j < BK / 8; j++) /* +32 bytes a k8 step in both */
        w[j] = (Wgmma){.adesc = LLVMBuildAdd(b, da, c64(L, j * 32 >> 4), ""),
                       .desc = LLVMBuildAdd(b, db, c64(L, j * 32 >> 4), "")};
    /* as the f16/bf16 pipeline: the stage's wgmmas one group, waiting for
     * the group before only (-O0, P->serial, P->bk_one_stage: for this one too) */
    wg_wgmma_group(P, w, BK / 8, P->bn, nacc, acc, nacc, P->serial || P->bk_one_stage ? 0 : 1);
    if (rel_addr) /* the group before, and so its stage, is done */
        wg_release(P, rel_addr, rel_if);
}
