/*
 * wgmma pass (sm_90a): picks the GEMM loops that lower_wgmma*.c turn into a
 * warp-specialized pipeline, and marks them.
 *
 *   for %k = lo to hi step 32 iter(%c = init) {    same loop, marked:
 *     %a = load %va[.., %m0, %k] : tile<BMx32xf32>    for.ival = pipeline stages,
 *     %b = load %vb[.., %k, %n0] : tile<32xBNxf32>    dot.ival = its precision made
 *     %d = dot %a, %b, %c : tile<BMxBNxf32>            explicit (tf32-trunc, -rna,
 *     yield %d                                         -rne, 3xtf32 or ieee)
 *   }
 *
 * Needs: a verified module, before pass_precision. Guarantees: the marked
 * loops are exactly of the shape above: the loop is the kernel body's first,
 * everything before it computes scalars, views or constant tiles (the
 * producer warps run it too, outside the tile layouts, and exit after the
 * loop), init is a constant tile; the views and the non-k indices are
 * defined outside the loop; the dot has no {accumulate = rn}; padding 0;
 * warps(4) or warps(8) (one or two consumer warpgroups). The swapped
 * product (the default): BM 64..256 (wgmma's N), BN a multiple of 64 per
 * consumer warpgroup up to 256, the accumulators within 128 registers (64
 * for 3xtf32), at least two stages in shared memory (the A operand three
 * times for 3xtf32); where B's view has k stride 1 (wgmma_kmajor_b_fits:
 * tf32 modes, BM = 16 x warps, BN a multiple of 16 up to 256) its form
 * for a K-major B instead (lower_wgmma_kmajor.c; 3xtf32 keeps the swapped
 * product, B copied as A is: wgmma_kmajor_b_frags; so does ieee). -fno-wgmma-swapped: BM
 * = 16 x warps, BN 64..256, the B operand three times for 3xtf32,
 * producers * lag < stages. ieee (the
 * FMA consumers, swapped pipeline only, -fno-wgmma-ffma: never): BM
 * 64..256 and a thread grid from wgmma_ffma_grid(). f16/bf16 inputs
 * (lower_wgmma_ss.c, -fno-wgmma-half: never): step 64 and a BMx64 A tile,
 * BM = 16 x warps, BN 64, 128 or 256, f32 accumulators; the
 * dot is left as it is (no precision to make explicit).
 * pass_precision leaves marked dots alone: the pipeline rounds or splits
 * each element once, as it moves it through shared memory or registers.
 * Everything else is left for the generic lowering.
 */
#include "compiler/compiler.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The older pipeline's shared memory (lower_wgmma_transposed.c): per stage the raw A tile
 * and the B operand (once per copy), as 128-byte K-major rows of 32 f32;
 * lag + 1 raw B tiles in flight per producer warpgroup; two barriers per
 * stage; 1024 bytes of slack to align the stages to the swizzle's period. */
uint32_t wgmma_stage_bytes(uint32_t bm, uint32_t bn, TirPrecision p)
{
    return (bm + bn * (p == PREC_3XTF32 ? 3u : 1u)) * 128u;
}

/* The steps between a step's copies and its use by one producer: at least
 * 1, at most 2, and producers * lag < stages, or a producer would wait for a
 * stage to empty that only a step it has yet to finish can empty (checked
 * by simulating the protocol for 1..8 stages). */
uint32_t wgmma_lag(uint32_t stages, uint32_t producers)
{
    uint32_t lag = producers == 1 ? (stages >= 4 ? 2 : 1) : (stages - 1) / producers;
    return lag < 1 ? 1 : lag > 2 ? 2 : lag;
}

/* Whether the consumers may hold two stages (k-overlap releases a
 * stage only once the next one's first group is issued): with roles the
 * copier waits on the consumers alone; otherwise a producer finishes its own
 * steps lag behind issuing them, and with fewer than producers * lag + 2
 * stages it would wait for a stage that only a step it has yet to finish
 * can empty (unit/test_passes wgmma_protocol_completes plays both out). */
int wgmma_hold_two_ok(uint32_t stages, uint32_t producers, int roles)
{
    return roles || stages >= producers * wgmma_lag(stages, producers) + 2;
}

/* Two producer warpgroups (each with its own raw slots) where the
 * consumers leave them the registers (BN <= 128, one accumulator set) and
 * there are stages enough for both (producers * lag < stages). */
uint32_t wgmma_producers(uint32_t bn, TirPrecision p, uint32_t stages)
{
    return bn <= 128 && p != PREC_3XTF32 && stages >= 3 ? 2 : 1;
}

uint32_t wgmma_smem_bytes(uint32_t bm, uint32_t bn, TirPrecision p, uint32_t stages)
{
    uint32_t np = wgmma_producers(bn, p, stages), raw = np * (wgmma_lag(stages, np) + 1) * bn * 128u;
    return stages * wgmma_stage_bytes(bm, bn, p) + raw + 16u * stages + 1024u;
}

/* The swapped product's stage (-fwgmma-swapped): the A operand, BM rows of
 * 128 bytes once per copy (3xtf32: big and small; its third copy, hic, goes
 * to a spare tile beside the stages where a stage needs it,
 * lower_wgmma_swapped.c), then the raw B tile, 32 rows of BN f32 each
 * padded by 32 bytes (conflict-free fragment reads); no producer slots;
 * three barriers per stage (full, empty, landed), and for 3xtf32 a flag. */
uint32_t wgmma_swapped_stage_bytes(uint32_t bm, uint32_t bn, TirPrecision p)
{
    return (p == PREC_3XTF32 ? 2u : 1u) * bm * 128u + 32u * (bn * 4u + 32u);
}

uint32_t wgmma_swapped_smem_bytes(uint32_t bm, uint32_t bn, TirPrecision p, uint32_t stages)
{
    uint32_t x3 = p == PREC_3XTF32 ? bm * 128u + 4u * stages : 0; /* the spare tile, the flags */
    return stages * wgmma_swapped_stage_bytes(bm, bn, p) + x3 + 24u * stages + 1024u;
}

/* The swapped product's shapes: the A tile is wgmma's N (64..256), B's
 * columns split over the consumer warpgroups in blocks of 64 (wgmma's M),
 * and the accumulators (twice for 3xtf32: the per-step sums) fit in 128
 * registers. */
/* The accumulator registers per consumer thread (twice for 3xtf32), where
 * BN splits into 64-column blocks over the consumer warpgroups (else 0). */
static uint32_t swapped_acc_regs(uint32_t bm, uint32_t bn, uint32_t warps, TirPrecision p)
{
    uint32_t nc = warps / 4;
    return bn % (64 * nc) ? 0 : bn / (64 * nc) * bm / 2 * (p == PREC_3XTF32 ? 2u : 1u);
}

static int swapped_shape_ok(uint32_t bm, uint32_t bn, uint32_t warps, TirPrecision p)
{
    uint32_t acc = swapped_acc_regs(bm, bn, warps, p);
    return bm >= 64 && bm <= 256 && bn <= 256 && acc && acc <= 128u;
}

int wgmma_ffma_grid(uint32_t bm, uint32_t bn, uint32_t threads, int wide, uint32_t *tr, uint32_t *tc)
{
    /* 8 columns a thread where at most 8 rows each make the tile; else 16
     * (cuBLAS SGEMM's 8 x 16 a thread: fewer shared loads per FMA) */
    for (uint32_t cols = 8; cols <= (wide ? 16u : 8u); cols *= 2) {
        uint32_t c = bn / cols;
        if (bn % cols || c == 0 || c > threads || threads % c)
            continue;
        uint32_t r = threads / c;
        /* (r a multiple of 8, as it is for BM a power of two of at least 64: a thread's rows
         * then share one swizzle, lower_wgmma_ffma.c) */
        if (r > bm || bm % r || bm / r > 8 || r % 8)
            continue;
        *tr = r;
        *tc = c;
        return 1;
    }
    return 0;
}

static int is_const(const TirModule *m, uint32_t v, int64_t want)
{
    uint32_t d = tir_value_def_inst(m, v);
    return d && m->insts[d].op == OP_CONST && m->insts[d].i64 == want;
}

/* B K-major (lower_wgmma_kmajor.c): stage = A's BM rows and B's BN rows, 128
 * bytes (32 k) each under the 128-byte swizzle; three barriers per stage. */
uint32_t wgmma_kmajor_smem_bytes(uint32_t bm, uint32_t bn, uint32_t stages)
{
    return stages * (bm + bn) * 128u + 24u * stages + 1024u;
}

/* Whether the view load ld reads has the constant 1 as the stride `back`
 * places from its last: 0 the columns', 1 the rows' (batched or not). */
static int view_unit_stride(const TirModule *m, const TirInst *ld, uint32_t back)
{
    const TirInst *v = &m->insts[tir_value_def_inst(m, tir_args(m, ld)[0])];
    if (v->op != OP_VIEW || (v->nargs != 5 && v->nargs != 7))
        return 0;
    return is_const(m, tir_args(m, v)[v->nargs - 1 - back], 1);
}

int wgmma_view_row_major(const TirModule *m, const TirInst *ld) { return view_unit_stride(m, ld, 0); }
int wgmma_view_col_major(const TirModule *m, const TirInst *ld) { return view_unit_stride(m, ld, 1); }

int wgmma_kmajor_b_fits(const TirModule *m, const TirInst *ldb, uint32_t bm, uint32_t bn, uint32_t warps,
                        TirPrecision p, const TcOptions *o)
{
    if (!o->wgmma_kmajor_b || !o->wgmma_swapped || o->wgmma_cluster ||
        (p != PREC_TF32_TRUNC && p != PREC_TF32_RNA && p != PREC_TF32_RNE))
        return 0;
    return bm == 16 * warps && bn % 16 == 0 && bn >= 16 && bn <= 256 && wgmma_view_col_major(m, ldb);
}

int wgmma_kmajor_b_frags(const TirModule *m, const TirInst *ldb, uint32_t bm, uint32_t bn, uint32_t warps,
                         TirPrecision p, const TcOptions *o)
{
    uint32_t tr, tc;
    if (p == PREC_IEEE && !wgmma_ffma_grid(bm, bn, warps * 32, 0, &tr, &tc)) /* 8 columns a thread alone */
        return 0;
    return o->wgmma_kmajor_b && o->wgmma_swapped && !o->wgmma_cluster && (p == PREC_3XTF32 || p == PREC_IEEE) &&
           wgmma_view_col_major(m, ldb);
}

/* A value the loop cannot change: a parameter or a result of the kernel
 * body before the loop (the loop body itself holds only the four ops). */
static int invariant(const TirModule *m, uint32_t v, uint32_t body)
{
    const TirValue *val = &m->values[v];
    if (val->kind == VAL_BLOCK_ARG)
        return val->def != body;
    if (val->kind == VAL_PARAM)
        return 1;
    const TirBlock *b = &m->blocks[body];
    for (uint32_t k = 0; k < b->ninsts; k++)
        if (m->pool[b->insts + k] == val->def)
            return 0;
    return 1;
}

/* load %view[(batch,) i0, i1]: the view is invariant, as is every index but
 * the one at k_pos (0 or 1 of the last two), which must be the loop's k. */
static int load_ok(const TirModule *m, uint32_t v, uint32_t body, uint32_t kv, int k_pos)
{
    uint32_t li = tir_value_def_inst(m, v);
    if (!li || m->insts[li].op != OP_LOAD || m->insts[li].fval != 0.0)
        return 0;
    const TirInst *ld = &m->insts[li];
    const uint32_t *a = tir_args(m, ld);
    uint32_t rank = ld->nargs - 1;
    if (!invariant(m, a[0], body))
        return 0;
    for (uint32_t d = 0; d < rank; d++) {
        int is_k = d == rank - 2 + (uint32_t)k_pos;
        if (is_k ? a[1 + d] != kv : !invariant(m, a[1 + d], body))
            return 0;
    }
    return 1;
}

/* Tiles the producer warps may compute before the loop, where the program's
 * layouts do not cover them: constants only (no memory, no conversions). */
static int splat_op(TirOp op) { return op == OP_ZEROS || op == OP_FULL || op == OP_SPLAT; }

static int harmless_before_loop(const TirInst *in)
{
    if (splat_op((TirOp)in->op))
        return 1;
    if (in->op == OP_LOAD || in->op == OP_STORE || in->op == OP_INLINE_PTX || in->op == OP_FOR)
        return 0;
    return in->type.kind == TY_SCALAR || in->type.kind == TY_VIEW;
}

uint32_t wgmma_ss_stage_bytes(uint32_t bm, uint32_t bn) { return (bm + bn) * 128u; }

uint32_t wgmma_ss_smem_bytes(uint32_t bm, uint32_t bn, uint32_t stages)
{
    return stages * wgmma_ss_stage_bytes(bm, bn) + 16u * stages + 1024u;
}

/* The stages for an f16/bf16 loop (lower_wgmma_ss.c), 0 where it does not
 * fit: a k step of 64 (one 128-byte row of A per stage), BM = 64 per
 * consumer warpgroup (wgmma's M), BN 64..256 in 64-column panels (wgmma's
 * N), f32 accumulators. */
static uint32_t half_stages(const TirModule *m, const TirInst *f, const TirKernel *k, TirType ta, TirType tb,
                            TirElem acc, const TcOptions *o)
{
    if (!o->wgmma_half || ta.elem != tb.elem || (ta.elem != ELEM_F16 && ta.elem != ELEM_BF16) || acc != ELEM_F32)
        return 0;
    uint32_t bm = ta.dim[0], bn = tb.dim[1];
    /* BN a power of two: its 16-byte chunks per row (8..32) divide the
     * producer threads (lower_wgmma_ss.c's copies) */
    if (ta.dim[1] != 64 || !is_const(m, tir_args(m, f)[2], 64) || bm != 16 * k->warps || bn < 64 || bn > 256 ||
        (bn & (bn - 1)))
        return 0;
    /* as many as fit up to 6: 128x128 +4-9% over 4 (bench/NOTES.md v9) */
    uint32_t stages = o->stages ? (uint32_t)o->stages : 6u;
    while (stages > 1 && wgmma_ss_smem_bytes(bm, bn, stages) > 227u * 1024u)
        stages--;
    return stages >= 2 ? stages : 0;
}

/* Formats why a loop stays with the generic lowering (--remarks) and
 * returns 0. */
static uint32_t not_taken(char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static uint32_t not_taken(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return 0;
}

uint32_t gemm_loop_form(const TirModule *m, uint32_t fi, int any_init, char *why, size_t n)
{
    static const char shape[] = "not of the pipeline's form: for %%k step BK over load A[.., k], load B[k, ..], "
                                "dot, yield%s";
    const TirInst *f = &m->insts[fi];
    if (f->nresults != 1 || f->nargs != 4)
        return not_taken(why, n, shape, any_init ? "" : ", from a constant tile");
    const TirBlock *body = &m->blocks[f->body];
    if (body->ninsts != 4)
        return not_taken(why, n, shape, any_init ? "" : ", from a constant tile");
    const uint32_t *bargs = tir_block_args(m, body);
    uint32_t kv = bargs[0], carried = bargs[1];
    const TirInst *y = &m->insts[m->pool[body->insts + 3]];
    if (y->op != OP_YIELD || y->nargs != 1)
        return not_taken(why, n, shape, any_init ? "" : ", from a constant tile");
    uint32_t di = tir_value_def_inst(m, tir_args(m, y)[0]);
    if (!di || m->insts[di].op != OP_DOT)
        return not_taken(why, n, shape, any_init ? "" : ", from a constant tile");
    const TirInst *dot = &m->insts[di];
    if (dot->i64 & TIR_DOT_ACC_RN) /* asks for RN accumulation per k8 step: the generic lowering's */
        return not_taken(why, n, "the dot asks for {accumulate = rn}, which only the generic lowering does");
    const uint32_t *da = tir_args(m, dot);
    uint32_t init = tir_value_def_inst(m, tir_args(m, f)[3]);
    if (!any_init && (!init || !splat_op((TirOp)m->insts[init].op)))
        return not_taken(why, n, "the accumulator does not start from a constant tile");
    if (da[2] != carried || !load_ok(m, da[0], f->body, kv, 1) || !load_ok(m, da[1], f->body, kv, 0))
        return not_taken(why, n, "the dot's operands are not loads at [.., k] and [k, ..] of views "
                                 "defined before the loop (padding 0)");
    return di;
}

/* Returns the stages for loop fi (0: not a pipelined GEMM loop, and why;
 * what (a constant string) names the pipeline taken). */
static uint32_t match_loop(TirModule *m, const TirKernel *k, uint32_t fi, const TcOptions *o, char *why, size_t n,
                           const char **what, TirPrecision *prec)
{
    const TirInst *f = &m->insts[fi];
    uint32_t di = gemm_loop_form(m, fi, 0, why, n);
    if (!di)
        return 0;
    const TirInst *dot = &m->insts[di];
    const uint32_t *da = tir_args(m, dot);
    TirType ta = tir_value_type(m, da[0]), tb = tir_value_type(m, da[1]);
    if (k->warps != 4 && k->warps != 8)
        return not_taken(why, n, "warps(%u): the pipeline takes warps(4) or warps(8)", k->warps);
    if (ta.elem != ELEM_F32) {
        uint32_t st = half_stages(m, f, k, ta, tb, dot->type.elem, o);
        *what = "f16/bf16, both operands from shared memory";
        return st ? st
                  : not_taken(why, n, "%s inputs take it with a k step of 64, BM = 16 x warps (%u), BN 64, 128 or "
                                      "256 and f32 accumulators (here %ux%ux%u%s)",
                              tir_elem_name(ta.elem), 16 * k->warps, ta.dim[0], tb.dim[1], ta.dim[1],
                              o->wgmma_half ? "" : "; -fno-wgmma-half");
    }
    if (tb.elem != ELEM_F32 || ta.dim[1] != 32 || !is_const(m, tir_args(m, f)[2], 32))
        return not_taken(why, n, "f32 operands take it with a constant k step of 32 and 32-wide k tiles (here "
                                 "k tiles %u wide%s)",
                         ta.dim[1], is_const(m, tir_args(m, f)[2], 32) ? "" : ", another step");
    uint32_t bm = ta.dim[0], bn = tb.dim[1];
    TirPrecision p = dot->ival == PREC_DEFAULT ? o->precision : (TirPrecision)dot->ival;
    if (p == PREC_DEFAULT)
        p = PREC_TF32_RNA;
    *prec = p;
    uint32_t tr, tc;
    if (p == PREC_IEEE && !(o->wgmma_ffma && o->wgmma_swapped && bm >= 64 && bm <= 256 &&
                            wgmma_ffma_grid(bm, bn, k->warps * 32, o->wgmma_ffma_wide, &tr, &tc)))
        return not_taken(why, n, "ieee takes the FMA consumers where BM is 64..256 and a consumer thread "
                                 "holds at most 8 rows of 8 columns%s (here %ux%u with %u warps)%s%s",
                         o->wgmma_ffma_wide ? " or of 16" : " (-fwgmma-ffma-wide: or of 16)", bm, bn, k->warps,
                         o->wgmma_ffma ? "" : "; -fno-wgmma-ffma", o->wgmma_swapped ? "" : "; -fno-wgmma-swapped");
    uint32_t stages = o->stages ? (uint32_t)o->stages : 4u;
    if (wgmma_kmajor_b_fits(m, &m->insts[tir_value_def_inst(m, da[1])], bm, bn, k->warps, p, o)) {
        *what = "B K-major, both operands from shared memory";
        while (stages > 1 && wgmma_kmajor_smem_bytes(bm, bn, stages) > 227u * 1024u)
            stages--;
        if (stages < 2)
            return not_taken(why, n, "two stages of %ux%u need %u bytes of shared memory, more than 227 KB", bm, bn,
                             wgmma_kmajor_smem_bytes(bm, bn, 2));
        m->insts[di].ival = p;
        return stages;
    }
    if (o->wgmma_swapped) {
        int bkf = wgmma_kmajor_b_frags(m, &m->insts[tir_value_def_inst(m, da[1])], bm, bn, k->warps, p, o);
        *what = p == PREC_IEEE ? (bkf ? "the FMA consumers, B K-major (copied as A is)" : "the FMA consumers")
                : bkf          ? "the swapped product, B K-major (copied as A is)"
                               : "the swapped product";
        if (p != PREC_IEEE && !swapped_shape_ok(bm, bn, k->warps, p)) {
            uint32_t regs = swapped_acc_regs(bm, bn, k->warps, p); /* 0: the shape has none */
            char have[48] = "";
            if (regs)
                snprintf(have, sizeof have, ", %u accumulator registers a thread", regs);
            return not_taken(why, n, "the swapped product takes BM 64..256 and BN a multiple of %u up to 256, "
                                     "with its accumulators%s within 128 registers per consumer thread (here "
                                     "%ux%u with %u warps%s)",
                             64 * (k->warps / 4), p == PREC_3XTF32 ? " (twice for 3xtf32)" : "", bm, bn, k->warps,
                             have);
        }
        while (stages > 1 && wgmma_swapped_smem_bytes(bm, bn, p, stages) > 227u * 1024u)
            stages--;
        if (stages < 2)
            return not_taken(why, n, "two stages of %ux%u need %u bytes of shared memory, more than 227 KB", bm, bn,
                             wgmma_swapped_smem_bytes(bm, bn, p, 2));
        m->insts[di].ival = p;
        return stages;
    }
    *what = "B transposed by the producers (-fno-wgmma-swapped)";
    if (bm != 16 * k->warps || bn < 64 || bn > 256) /* lower_wgmma's arrays */
        return not_taken(why, n, "-fno-wgmma-swapped takes BM = 16 x warps (%u) and BN 64..256 (here %ux%u)",
                         16 * k->warps, bm, bn);
    while (stages > 1 && wgmma_smem_bytes(bm, bn, p, stages) > 227u * 1024u)
        stages--;
    uint32_t np = wgmma_producers(bn, p, stages);
    if (stages < 2 || np * wgmma_lag(stages, np) >= stages)
        return not_taken(why, n, "too few stages fit in shared memory (%u)", stages);
    m->insts[di].ival = p;
    return stages;
}

/* Whether in is a loop with a dot directly in its body (a GEMM loop). */
static int is_gemm_loop(const TirModule *m, const TirInst *in)
{
    if (in->op != OP_FOR)
        return 0;
    const TirBlock *body = &m->blocks[in->body];
    for (uint32_t l = 0; l < body->ninsts; l++)
        if (m->insts[m->pool[body->insts + l]].op == OP_DOT)
            return 1;
    return 0;
}

/* --remarks for the loops with a dot that the pipeline cannot take: with
 * why, every one (no pipeline at all: sm_80, -fno-wgmma); without, those
 * nested inside another loop (the pipeline takes a kernel's top-level loop
 * only), each said with the outermost loop around it */
static void remark_loops(const TirModule *m, const TirBlock *b, uint32_t outer, const char *why, const char *left,
                         Diag *d)
{
    for (uint32_t j = 0; j < b->ninsts; j++) {
        const TirInst *in = &m->insts[m->pool[b->insts + j]];
        if (in->op != OP_FOR)
            continue;
        int has_dot = is_gemm_loop(m, in);
        if (has_dot && why)
            diag_remark(d, in->loc, "%s: %s", left, why);
        else if (has_dot && outer)
            diag_remark(d, in->loc, "%s: it is inside the loop at line %u, and the pipeline takes a loop of the "
                                    "kernel's body only", left, m->insts[outer].loc.line);
        remark_loops(m, &m->blocks[in->body], outer ? outer : m->pool[b->insts + j], why, left, d);
    }
}

int pass_wgmma(TirModule *m, const TcOptions *o, Diag *d)
{
    /* where pass_mma may take what this pass does not, it says what becomes of the loop */
    const char *left = o->mma_pipeline ? "loop not pipelined with wgmma" : "loop left to the generic lowering";
    if (o->arch != ARCH_SM90A || !o->wgmma) {
        if (o->mma_pipeline) /* pass_mma's remarks say it all */
            return 0;
        const char *why = o->arch != ARCH_SM90A ? "the wgmma pipeline is sm_90a's (mma.sync here)"
                                                : "-fno-wgmma (mma.sync here)";
        for (uint32_t ki = 0; o->remarks && ki < m->nkernels; ki++)
            remark_loops(m, &m->blocks[m->kernels[ki].body], 0, why, left, d);
        return 0;
    }
    for (uint32_t ki = 0; ki < m->nkernels; ki++) {
        const TirKernel *k = &m->kernels[ki];
        const TirBlock *b = &m->blocks[k->body];
        for (uint32_t j = 0; j < b->ninsts; j++) {
            uint32_t i = m->pool[b->insts + j];
            if (m->insts[i].op == OP_FOR) {
                char why[320] = "";
                const char *what = "";
                TirPrecision p = PREC_DEFAULT;
                uint32_t stages = match_loop(m, k, i, o, why, sizeof why, &what, &p);
                if (stages)
                    m->insts[i].ival = (int32_t)stages;
                if (o->remarks && stages)
                    diag_remark(d, m->insts[i].loc, "GEMM loop pipelined with wgmma: %s%s%s, %u stages", what,
                                p == PREC_DEFAULT ? "" : ", ", p == PREC_DEFAULT ? "" : tir_precision_name(p), stages);
                else if (o->remarks)
                    diag_remark(d, m->insts[i].loc, "%s: %s", left, why);
                for (uint32_t l = j + 1; o->remarks && l < b->ninsts; l++) { /* the kernel's later GEMM loops */
                    const TirInst *later = &m->insts[m->pool[b->insts + l]];
                    if (is_gemm_loop(m, later))
                        diag_remark(d, later->loc, "%s: the pipeline takes a kernel's first loop only (line %u)",
                                    left, m->insts[i].loc.line);
                }
                break; /* one pipeline per kernel */
            }
            if (!harmless_before_loop(&m->insts[i])) {
                for (uint32_t l = j + 1; o->remarks && l < b->ninsts; l++)
                    if (m->insts[m->pool[b->insts + l]].op == OP_FOR) {
                        diag_remark(d, m->insts[m->pool[b->insts + l]].loc,
                                    "%s: the '%s' at line %u comes before it, and the pipeline's producer "
                                    "warps would run it too",
                                    left, tir_ops[m->insts[i].op].name, m->insts[i].loc.line);
                        break;
                    }
                break;
            }
        }
        for (uint32_t j = 0; o->remarks && j < b->ninsts; j++)
            if (m->insts[m->pool[b->insts + j]].op == OP_DOT)
                diag_remark(d, m->insts[m->pool[b->insts + j]].loc,
                            "dot outside a loop: the generic lowering (the wgmma pipeline takes a GEMM loop)");
        if (o->remarks)
            remark_loops(m, b, 0, NULL, left, d);
    }
    return 0;
}
