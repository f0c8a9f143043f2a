/*
 * mma pass: picks the GEMM loops that lower_mma_pipeline.c turns into a
 * multi-stage cp.async pipeline feeding mma.sync (sm_80's tensor cores, and
 * on sm_90a the loops no wgmma pipeline took), and marks them.
 *
 * Needs: a verified module, after pass_wgmma, before pass_precision.
 * Guarantees: a marked loop (for.ival = -stages, its dot's ival the
 * precision made explicit) has the GEMM form (gemm_loop_form; its
 * accumulator may start from any tile), f32 operands with precision
 * tf32-trunc, tf32-rna, tf32-rne or 3xtf32 or f16 / bf16 ones (both alike),
 * a constant step equal to the tiles' k extent BK (8 to 64; 16 to 64 for
 * 16-bit operands), f32 accumulators, at most 128 registers of them a
 * thread (64 for 3xtf32, whose fragments come three times), and at least
 * two stages in shared memory.
 * The loop may sit anywhere (nested, after other work): every thread of the
 * program runs the pipeline, so what comes before or after it is the
 * generic lowering's as ever. pass_precision leaves the marked dots alone:
 * the pipeline rounds (splits) each fragment as it reads it. Everything else is
 * left to the generic lowering.
 */
#include "compiler/compiler.h"

#include <stdio.h>

/* The most shared memory the pipeline plans for: on sm_80 what an A100
 * gives a block (163 KB), so that sm_80 PTX runs on the GPUs it names. */
#define SM80_SHARED_BYTES (163u * 1024u)

uint32_t mma_pipeline_pad_a(uint32_t esize) { return esize == 4 ? 4u : 8u; }

uint32_t mma_pipeline_stage_bytes(uint32_t bm, uint32_t bn, uint32_t bk, uint32_t esize)
{
    return (bm * (bk + mma_pipeline_pad_a(esize)) + bk * (bn + 8u)) * esize;
}

static int const_step(const TirModule *m, uint32_t v, int64_t want)
{
    uint32_t d = tir_value_def_inst(m, v);
    return d && m->insts[d].op == OP_CONST && m->insts[d].i64 == want;
}

/* The stages for loop fi, or 0 and why. */
static uint32_t match(TirModule *m, const TirKernel *k, uint32_t fi, const TcOptions *o, char *why, size_t n)
{
    uint32_t di = gemm_loop_form(m, fi, 1, why, n);
    if (!di)
        return 0;
    const TirInst *dot = &m->insts[di];
    const uint32_t *da = tir_args(m, dot);
    TirType ta = tir_value_type(m, da[0]), tb = tir_value_type(m, da[1]);
    uint32_t bm = ta.dim[0], bk = ta.dim[1], bn = tb.dim[1];
    TirPrecision p = dot->ival == PREC_DEFAULT ? o->precision : (TirPrecision)dot->ival;
    if (p == PREC_DEFAULT)
        p = PREC_TF32_RNA;
    int half = (ta.elem == ELEM_F16 || ta.elem == ELEM_BF16) && tb.elem == ta.elem;
    if (!half && (ta.elem != ELEM_F32 || tb.elem != ELEM_F32 ||
                  (p != PREC_TF32_TRUNC && p != PREC_TF32_RNA && p != PREC_TF32_RNE && p != PREC_3XTF32))) {
        snprintf(why, n, "the mma.sync pipeline takes f32 operands in tf32-trunc, tf32-rna, tf32-rne or 3xtf32, or "
                         "f16 or bf16 ones (here %s%s)",
                 ta.elem == ELEM_F32 ? tir_precision_name(p) : tir_elem_name((TirElem)ta.elem),
                 ta.elem == ELEM_F32 ? "" : " and other operands");
        return 0;
    }
    uint32_t kstep = half ? 16 : 8, esize = half ? 2 : 4;
    if (bk < kstep || bk > 64 || bm < 16 || bn < 8 || !const_step(m, tir_args(m, &m->insts[fi])[2], bk)) {
        snprintf(why, n, "the mma.sync pipeline takes a constant k step equal to the tiles' k extent (%u to 64), "
                         "BM of 16 or more and BN of 8 or more (here %ux%ux%u)", kstep, bm, bn, bk);
        return 0;
    }
    /* 3xtf32: each fragment three times (big, small, hic) */
    uint32_t threads = k->warps * 32, regs = bm * bn / threads, most = p == PREC_3XTF32 ? 64 : 128;
    if (regs > most) {
        snprintf(why, n, "a %ux%u accumulator needs %u registers a thread with %u warps; the mma.sync pipeline "
                         "takes at most %u%s", bm, bn, regs, k->warps, most, p == PREC_3XTF32 ? " for 3xtf32" : "");
        return 0;
    }
    uint32_t limit = o->arch == ARCH_SM80 ? SM80_SHARED_BYTES : TC_MAX_SHARED_BYTES;
    uint32_t stages = o->stages ? (uint32_t)o->stages : 4u;
    while (stages > 2 && stages * mma_pipeline_stage_bytes(bm, bn, bk, esize) > limit)
        stages--;
    if (stages * mma_pipeline_stage_bytes(bm, bn, bk, esize) > limit) {
        snprintf(why, n, "two stages of %ux%ux%u need %u bytes of shared memory, more than %u", bm, bn, bk,
                 2 * mma_pipeline_stage_bytes(bm, bn, bk, esize), limit);
        return 0;
    }
    if (!half) /* a 16-bit dot has no precision to make explicit */
        m->insts[di].ival = p;
    return stages;
}

static void mark_block(TirModule *m, const TirKernel *k, uint32_t bi, const TcOptions *o, Diag *d)
{
    const TirBlock *b = &m->blocks[bi];
    for (uint32_t j = 0; j < b->ninsts; j++) {
        uint32_t i = m->pool[b->insts + j];
        TirInst *f = &m->insts[i];
        if (f->op != OP_FOR || f->ival != 0)
            continue;
        int has_dot = 0;
        const TirBlock *body = &m->blocks[f->body];
        for (uint32_t l = 0; l < body->ninsts; l++)
            has_dot |= m->insts[m->pool[body->insts + l]].op == OP_DOT;
        char why[320] = "";
        uint32_t stages = has_dot ? match(m, k, i, o, why, sizeof why) : 0;
        if (stages) {
            m->insts[i].ival = -(int32_t)stages;
            const TirInst *dot = &m->insts[tir_value_def_inst(m, tir_args(m, &m->insts[m->pool[body->insts + 3]])[0])];
            TirElem e = tir_value_type(m, tir_args(m, dot)[0]).elem;
            if (o->remarks)
                diag_remark(d, m->insts[i].loc, "GEMM loop pipelined with cp.async and mma.sync: %s, %u stages",
                            e == ELEM_F32 ? tir_precision_name((TirPrecision)dot->ival) : tir_elem_name(e), stages);
            continue;
        }
        if (has_dot && o->remarks)
            diag_remark(d, m->insts[i].loc, "loop left to the generic lowering: %s", why);
        mark_block(m, k, m->insts[i].body, o, d);
    }
}

int pass_mma(TirModule *m, const TcOptions *o, Diag *d)
{
    if (!o->mma_pipeline)
        return 0;
    for (uint32_t ki = 0; ki < m->nkernels; ki++)
        mark_block(m, &m->kernels[ki], m->kernels[ki].body, o, d);
    return 0;
}
