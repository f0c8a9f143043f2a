/*
 * Clusters of two blocks that share B's copies (-fwgmma-cluster,
 * experimental; bench/NOTES.md v19 says why it was built: at the power cap
 * L2 traffic seemed to cost clock, and cuBLAS's TF32 kernel runs clusters
 * of 2; v20 what it did on the H200: L2 bytes -22%, the same speed; its GPU
 * tests have not passed yet).
 *
 * Which programs pair. One program a block: programs 2i and 2i + 1 along
 * program_id 0 (the launch rounds grid x up to even, TcKernelInfo.cluster;
 * the program it adds, TC_TMAP_FLAG_EXTRA_X, runs the pipeline for its
 * peer with every view empty, so it stores nothing); their B columns must
 * not depend on program_id 0. Persistent (lower_programs.c): blocks 2i and
 * 2i + 1 run programs 2j and 2j + 1 (the launch's blocks are even, whole
 * clusters), the pair's second past the grid reading empty views; whether
 * the two take the same columns of B is compared at run time
 * (wg_cluster_shares_b: the column's expression lowered again for the
 * peer's program), and where not, each block copies all of B alone.
 *
 * The protocol. The entry says .reqnctapercluster 2, 1, 1 (codegen.c).
 * Sharing, each block's producer copies A's box to itself and half of B's
 * 32-column panels (those p with p % 2 == its rank) to both blocks at once
 * (TMA .multicast::cluster), arming its own landed[] with every byte as
 * before. A block's stage may be written by both producers, so its
 * empty[] counts both blocks' consumer warps, whichever way the stage was
 * filled: lane 0 of each consumer warp releases a stage on its own
 * block's barrier and on the peer's, after the warp's lanes meet
 * (bar.warp.sync); arrivals and waits at CTA scope, as CUTLASS's (the
 * consumers' reads are over when they arrive, the copies that follow the
 * producer's wait are ordered by the barrier). The blocks meet (barrier.cluster) once their barriers are
 * initialized and before either stops using them (the end of the pipeline;
 * persistent: the end of the block's programs, both roles).
 *
 * Applies (wg_cluster_refusal) to the swapped f32 pipeline with TMA only
 * (-fwgmma-tma-only's proof: both blocks copy by TMA at every step), B as
 * 32-column panels (an even number), the loop's bounds independent of the
 * program (both blocks run the same steps), and no inline_ptx (nor, one
 * program a block, num_programs: the kernel must not see the rounded-up
 * grid).
 */
#include "compiler/lower_wgmma.h"

#include <stdlib.h>
#include <string.h>

/* Whether value v depends on program_id along an axis in `axes` (bit i:
 * axis i) or on num_programs; the values a loop's body defines count as
 * dependent (conservative). memo[v]: 0 not known yet, else 1 + the answer
 * (a value used twice is walked once: no exponential walk of a DAG). */
static int depends_walk(const TirModule *m, uint32_t v, unsigned axes, int depth, uint8_t *memo)
{
    if (memo[v])
        return memo[v] - 1;
    const TirValue *val = &m->values[v];
    int r = 0;
    if (val->kind == VAL_PARAM)
        r = 0;
    else if (val->kind != VAL_RESULT || depth > 32)
        r = 1;
    else {
        const TirInst *in = &m->insts[val->def];
        const uint32_t *a = tir_args(m, in);
        if (in->op == OP_PROGRAM_ID)
            r = (axes >> (in->ival % 3) & 1) != 0;
        else if (in->op == OP_NUM_PROGRAMS || in->op == OP_FOR || in->op == OP_LOAD || in->op == OP_INLINE_PTX)
            r = 1;
        else
            for (uint32_t i = 0; i < in->nargs && !r; i++)
                r = depends_walk(m, a[i], axes, depth + 1, memo);
    }
    memo[v] = (uint8_t)(r + 1);
    return r;
}

static int depends_on_program(const TirModule *m, uint32_t v, unsigned axes)
{
    uint8_t *memo = calloc(m->nvalues, 1);
    int r = memo ? depends_walk(m, v, axes, 0, memo) : 1;
    free(memo);
    return r;
}

/* Whether block `blk` (and the bodies of its loops) holds an op that sees
 * the grid or does what the compiler cannot follow (persistent: the
 * hidden grid parameters are the caller's grid, num_programs is safe). */
static int looks_at_grid(const TirModule *m, uint32_t blk, int persistent)
{
    const TirBlock *bl = &m->blocks[blk];
    const uint32_t *is = tir_block_insts(m, bl);
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        const TirInst *in = &m->insts[is[i]];
        if ((in->op == OP_NUM_PROGRAMS && !persistent) || in->op == OP_INLINE_PTX)
            return 1;
        if (in->op == OP_FOR && looks_at_grid(m, in->body, persistent))
            return 1;
    }
    return 0;
}

/* Whether integer scalar v is computed from parameters, constants and the
 * program alone, by integer arithmetic with no side effects on the
 * lowering (peer_value lowers it again; an op added here must keep that);
 * memo as depends_walk's. */
static int replay_walk(const TirModule *m, uint32_t v, int depth, uint8_t *memo)
{
    if (memo[v])
        return memo[v] - 1;
    const TirValue *val = &m->values[v];
    int r = 1;
    if (val->kind != VAL_PARAM) {
        TirType t = tir_value_type(m, v);
        r = val->kind == VAL_RESULT && depth <= 32 && t.kind == TY_SCALAR &&
            (t.elem == ELEM_I32 || t.elem == ELEM_I64);
        const TirInst *in = r ? &m->insts[val->def] : NULL;
        if (in)
            switch (in->op) {
            case OP_CONST: case OP_PROGRAM_ID: case OP_NUM_PROGRAMS: case OP_ADD: case OP_SUB: case OP_MUL:
            case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX: case OP_CDIV: case OP_NEG: case OP_ABS:
            case OP_CAST:
                break;
            default:
                r = 0;
            }
        for (uint32_t i = 0; r && in && i < in->nargs; i++)
            r = replay_walk(m, tir_args(m, in)[i], depth + 1, memo);
    }
    memo[v] = (uint8_t)(r + 1);
    return r;
}

enum { CHAIN_MAX = 64 }; /* instructions peer_value lowers again, at most */

static int program_chain(const TirModule *m, uint32_t v, uint32_t *order, uint32_t *n);

/* replay_walk, and a chain short enough for peer_value. */
static int replayable(const TirModule *m, uint32_t v)
{
    uint8_t *memo = calloc(m->nvalues, 1);
    int r = memo && replay_walk(m, v, 0, memo);
    free(memo);
    uint32_t order[CHAIN_MAX], n = 0;
    return r && program_chain(m, v, order, &n) > 0;
}

const char *wg_cluster_refusal(const TirModule *m, const TirKernel *k, const TcOptions *o, int persistent)
{
    if (o->arch != ARCH_SM90A || !o->wgmma)
        return "sm_90a's wgmma pipeline only";
    const TirInst *f = wgmma_marked_loop(m, k);
    if (!f || !wgmma_f32_pipeline(m, k, o))
        return "the kernel has no f32 wgmma pipeline (the swapped product)";
    const TirInst *dot = wgmma_loop_dot(m, f);
    const uint32_t *da = tir_args(m, dot);
    if ((TirPrecision)dot->ival == PREC_IEEE)
        return "clusters are built for the wgmma consumers, not ieee's FMA ones";
    if (!o->wgmma_tma || !o->wgmma_tma_b128 || !o->wgmma_tma_only)
        return "it needs TMA only (-fwgmma-tma-only) with B as 32-column panels";
    if (dot->type.dim[1] % 64)
        return "B's 32-column panels must split evenly between the two blocks (BN a multiple of 64)";
    const TirInst *lda = &m->insts[tir_value_def_inst(m, da[0])], *ldb = &m->insts[tir_value_def_inst(m, da[1])];
    if (wg_tma_only_refusal(m, f, lda, ldb, 0, 1, 0, 0))
        return "no proof that every program's boxes start on 16 bytes (-fwgmma-tma-only's)";
    uint32_t col = tir_args(m, ldb)[2];
    if (persistent && !replayable(m, col))
        return "B's first column is not integer arithmetic on parameters and the program, in at most 64 "
               "instructions (the pair compares theirs)";
    if (!persistent && depends_on_program(m, col, 1))
        return "B's first column may depend on program_id 0 (the pair along x must share it)";
    const uint32_t *fa = tir_args(m, f);
    for (uint32_t i = 0; i < 3; i++)
        if (depends_on_program(m, fa[i], 7))
            return "the loop's bounds may depend on the program (the pair must run the same steps)";
    if (looks_at_grid(m, k->body, persistent))
        return persistent ? "the kernel uses inline_ptx" :
                          "the kernel uses num_programs or inline_ptx (the launch rounds grid x up to even)";
    return NULL;
}

LLVMValueRef wg_cluster_extra(Lower *L)
{
    if (L->persist)
        return L->prog_added;
    LLVMBuilderRef b = L->b;
    LLVMValueRef flags = LLVMGetParam(L->fn, L->tma_param0 + L->ntmaps);
    LLVMValueRef added = LLVMBuildICmp(b, LLVMIntSLT, flags, c32(L, 0), ""); /* bit 31 */
    LLVMValueRef x = lw_call(L, "llvm.nvvm.read.ptx.sreg.ctaid.x", NULL, 0, NULL, 0);
    LLVMValueRef n = lw_call(L, "llvm.nvvm.read.ptx.sreg.nctaid.x", NULL, 0, NULL, 0);
    LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, x, LLVMBuildSub(b, n, c32(L, 1), ""), "");
    return LLVMBuildAnd(b, added, last, "extra");
}

static int chain_walk(const TirModule *m, uint32_t v, uint32_t *order, uint32_t *n, uint8_t *memo)
{
    const TirValue *val = &m->values[v];
    if (val->kind != VAL_RESULT || !depends_walk(m, v, 7, 0, memo))
        return 1;
    for (uint32_t i = 0; i < *n; i++)
        if (order[i] == val->def)
            return 1;
    const TirInst *in = &m->insts[val->def];
    const uint32_t *a = tir_args(m, in);
    for (uint32_t i = 0; i < in->nargs; i++)
        if (!chain_walk(m, a[i], order, n, memo))
            return 0;
    if (*n == CHAIN_MAX)
        return 0;
    order[(*n)++] = val->def;
    return 1;
}

/* The instructions value v depends on through the program, operands
 * first, into order[] (at most CHAIN_MAX, each once): 1; 0: too many; -1:
 * out of memory. */
static int program_chain(const TirModule *m, uint32_t v, uint32_t *order, uint32_t *n)
{
    uint8_t *memo = calloc(m->nvalues, 1); /* depends_walk's, for the whole chain */
    int r = memo ? chain_walk(m, v, order, n, memo) : -1;
    free(memo);
    return r;
}

/* Value v (replayable) as the peer block's program computes it: the
 * instructions between the program and v lowered again with L->prog
 * set to the peer's, then the values put back. */
static LLVMValueRef peer_value(Lower *L, uint32_t v)
{
    const TirModule *m = L->m;
    uint32_t order[CHAIN_MAX], n = 0;
    LVal saved[CHAIN_MAX];
    int got = program_chain(m, v, order, &n);
    if (got <= 0) {
        lw_error(L, (TirLoc){0}, got ? "out of memory" : "internal error: -fwgmma-cluster's column chain outgrew its check");
        return lw_val(L, v)->s;
    }
    LLVMValueRef own[3];
    memcpy(own, L->prog, sizeof own);
    memcpy(L->prog, L->peer_prog, sizeof own);
    for (uint32_t i = 0; i < n; i++) {
        saved[i] = *lw_val(L, m->insts[order[i]].result);
        lw_lower_inst(L, order[i]);
    }
    LLVMValueRef r = lw_val(L, v)->s;
    for (uint32_t i = n; i-- > 0;)
        lw_set(L, m->insts[order[i]].result, saved[i]);
    memcpy(L->prog, own, sizeof own);
    return r;
}

LLVMValueRef wg_cluster_shares_b(Lower *L, uint32_t col)
{
    if (!L->persist || !depends_on_program(L->m, col, 7)) /* one program a block: the refusal proved it */
        return LLVMConstInt(L->t_i1, 1, 0);
    return LLVMBuildICmp(L->b, LLVMIntEQ, lw_val(L, col)->s, peer_value(L, col), "shares.b");
}

LLVMValueRef wg_cluster_rank(Lower *L)
{
    return lw_asm(L, L->t_i32, "mov.u32 $0, %cluster_ctarank;", "=r", NULL, 0, 0);
}

void wg_cluster_sync(Lower *L)
{
    lw_asm(L, void_t(L), "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;", "~{memory}", NULL, 0,
           SEC);
}

/* Arrive on the barrier at shared address addr of this block and, with
 * P->cluster, on the one at the same offset of the peer block (where cond,
 * if given, holds). */
void wg_release(Pipe *P, LLVMValueRef addr, LLVMValueRef cond)
{
    Lower *L = P->L;
    if (!P->cluster) {
        if (cond)
            wg_bar_arrive_if(L, addr, cond);
        else
            wg_bar_arrive(L, addr);
        return;
    }
    /* once a warp (every consumer thread runs this, converged): its lanes' reads of the stage
     * are over (bar.warp.sync orders them before lane 0's release), and 32 times fewer
     * arrivals cross to the peer block */
    LLVMValueRef a[3] = {addr, cond ? LLVMBuildZExt(L->b, cond, L->t_i32, "") : c32(L, 1), P->peer};
    lw_asm(L, void_t(L),
           "{\n\t.reg .pred P1;\n\t.reg .b32 lane, remote;\n\tsetp.ne.b32 P1, $1, 0;\n\t"
           "bar.warp.sync -1;\n\tmov.u32 lane, %laneid;\n\tsetp.eq.and.u32 P1, lane, 0, P1;\n\t"
           "@P1 mbarrier.arrive.release.cta.shared::cta.b64 _, [$0];\n\t"
           "mapa.shared::cluster.u32 remote, $0, $2;\n\t"
           "@P1 mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}",
           "r,r,r,~{memory}", a, 3, SEC);
}

void wg_tma_box_multicast(Lower *L, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef c0, LLVMValueRef c1,
                          LLVMValueRef bar)
{
    LLVMValueRef a[5] = {dst, map, bar, c0, c1};
    lw_asm(L, void_t(L),
           "{\n\t.reg .b16 both;\n\tmov.b16 both, 3;\n\t"
           "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
           "[$0], [$1, {$3, $4}], [$2], both;\n\t}",
           "r,l,r,r,r,~{memory}", a, 5, SE);
}
