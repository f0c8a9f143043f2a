/*
 * Precision pass: makes the fp32 -> TF32 treatment of every f32 dot explicit.
 *
 * Needs: a verified module.
 * Guarantees: every dot on f32 operands, except those of loops marked by
 * pass_wgmma or pass_mma (their pipelines round the operands), has precision ieee or tf32-trunc;
 * tf32-trunc dots whose mode was rna/rne/3xtf32 read operands that are
 * already TF32 values, so the tensor core's truncation is exact:
 *
 *   tf32-rna / tf32-rne:  x' = round_tf32 x {mode = rna|rne}
 *   3xtf32:               big   = round_tf32 x {mode = rna}
 *                         small = mask_nonfinite (round_tf32 (x - big) {rna}), big
 *                         hic   = mask_nonfinite big, big
 *                         s = dot hic_a, small_b, (dot small_a, hic_b, 0)
 *                         r = add c, (dot big_a, big_b, s {accumulate = rn})
 *
 * Why this shape: the cross terms are summed from zero, at their own
 * magnitude (added into a large accumulator, every tensor-core step would
 * truncate them to its ulp); the big products are added with a
 * round-to-nearest f32 add after each k-step ({accumulate = rn}), since the
 * tensor core's own accumulation truncates; the caller's accumulator is
 * added once, by an IEEE add. Masking with big instead of x also covers
 * finite x whose RNA rounding overflows to Inf: hic and small are 0 where
 * big is Inf or NaN, so Inf·0 never makes a NaN in the cross terms, and the
 * big product carries Inf and NaN as ieee does. Each operand is rounded
 * once, right after its definition (a tile loaded outside a loop is rounded
 * outside it), and shared by every dot that reads it with the same mode.
 */
#include "compiler/compiler.h"

#include <stdlib.h>
#include <string.h>

enum { SPLIT_RNA, SPLIT_RNE, SPLIT_SMALL, SPLIT_HIC, NSPLIT };

typedef struct {
    TirModule *m;
    uint32_t nvalues0;       /* values that existed before the pass */
    uint32_t *memo;          /* [nvalues0][NSPLIT] derived value, 0 = none */
    /* insertion lists: new instructions chained per anchor */
    uint32_t *after_inst;    /* head per instruction: insert after it */
    uint32_t *before_inst;   /* head per instruction: insert before it */
    uint32_t *block_start;   /* head per block: insert at its start */
    uint32_t *tail_after, *tail_before, *tail_block;
    uint32_t *next;          /* per new instruction: next in its chain */
    uint32_t ninsts0, nblocks0, cap_next;
    uint32_t *warps;         /* per instruction: its kernel's warps (0: none known) */
    Diag *d;
    int oom;
} Pass;

static void chain(Pass *p, uint32_t *head, uint32_t *tail, uint32_t anchor, uint32_t inst)
{
    if (inst >= p->cap_next) {
        uint32_t ncap = p->cap_next * 2 + 64;
        while (ncap <= inst)
            ncap *= 2;
        uint32_t *n = realloc(p->next, ncap * sizeof *n);
        if (!n) {
            p->oom = 1;
            return;
        }
        memset(n + p->cap_next, 0, (ncap - p->cap_next) * sizeof *n);
        p->next = n;
        p->cap_next = ncap;
    }
    if (!head[anchor])
        head[anchor] = inst;
    else
        p->next[tail[anchor]] = inst;
    tail[anchor] = inst;
}

/* Places a new instruction right after the definition of value v. */
static void insert_after_def(Pass *p, uint32_t v, uint32_t inst)
{
    const TirValue *val = &p->m->values[v];
    if (val->kind == VAL_RESULT)
        chain(p, p->after_inst, p->tail_after, val->def, inst);
    else /* a for body's argument: at the start of that body */
        chain(p, p->block_start, p->tail_block, val->def, inst);
}

static uint32_t build1(Pass *p, TirOp op, TirLoc loc, TirType t, const uint32_t *args, uint32_t n, int32_t ival)
{
    uint32_t i = tir_build(p->m, op, loc, t, args, n);
    if (!i) {
        p->oom = 1;
        return 0;
    }
    p->m->insts[i].ival = ival;
    return i;
}

/* Returns value v rounded/split as `kind`, creating it once after v's definition. */
static uint32_t derived(Pass *p, uint32_t v, int kind, TirLoc loc)
{
    uint32_t *slot = &p->memo[(size_t)v * NSPLIT + kind];
    if (*slot || p->oom)
        return *slot;
    TirType t = tir_value_type(p->m, v);
    uint32_t i = 0;
    switch (kind) {
    case SPLIT_RNA:
    case SPLIT_RNE:
        i = build1(p, OP_ROUND_TF32, loc, t, &v, 1, kind == SPLIT_RNA ? ROUND_RNA : ROUND_RNE);
        if (i)
            insert_after_def(p, v, i);
        break;
    case SPLIT_SMALL: {
        uint32_t big = derived(p, v, SPLIT_RNA, loc);
        uint32_t sargs[2] = {v, big};
        uint32_t diff = build1(p, OP_SUB, loc, t, sargs, 2, 0);
        uint32_t rd = diff ? p->m->insts[diff].result : 0;
        uint32_t rnd = build1(p, OP_ROUND_TF32, loc, t, &rd, 1, ROUND_RNA);
        uint32_t margs[2] = {rnd ? p->m->insts[rnd].result : 0, big};
        i = build1(p, OP_MASK_NONFINITE, loc, t, margs, 2, 0);
        if (i) {
            /* after big, which is itself after v's definition */
            insert_after_def(p, v, diff);
            insert_after_def(p, v, rnd);
            insert_after_def(p, v, i);
        }
        break;
    }
    case SPLIT_HIC: {
        uint32_t big = derived(p, v, SPLIT_RNA, loc);
        uint32_t margs[2] = {big, big};
        i = build1(p, OP_MASK_NONFINITE, loc, t, margs, 2, 0);
        if (i)
            insert_after_def(p, v, i);
        break;
    }
    }
    if (i)
        *slot = p->m->insts[i].result;
    return *slot;
}

/* The split below keeps the cross terms' sum (a tile like the result)
 * beside the caller's accumulator through the loop: where the two take
 * more registers per thread than a thread has, ptxas spills them, and the
 * kernel runs at a tenth of its speed or less (a 128x256 tile with 8 warps:
 * 10.8 against 105.7 TFLOP/s for 128x128 on the H200, bench/NOTES.md
 * v30). It compiles, so a warning, not an error. */
static void warn_two_tiles(Pass *p, uint32_t di, TirType ct)
{
    const TirModule *m = p->m;
    uint32_t warps = p->warps ? p->warps[di] : 0;
    if (ct.kind != TY_TILE || !warps)
        return;
    uint64_t elems = (uint64_t)ct.dim[0] * ct.dim[1], threads = (uint64_t)warps * 32;
    uint64_t regs = elems > threads ? elems / threads : 1;
    if (2 * regs <= TC_MAX_TILE_REGS || regs > TC_MAX_TILE_REGS) /* (past the second, lowering refuses the tile) */
        return;
    char ty[64];
    diag_warning(p->d, m->insts[di].loc,
                 "this 3xtf32 dot keeps its cross terms' sum (a %s) beside the accumulator: %llu registers per "
                 "thread with %u warps, more than the %u a thread has; ptxas will spill them and the loop run "
                 "at a fraction of its speed: use more warps or a smaller tile",
                 tir_type_str(ct, ty, sizeof ty), (unsigned long long)(2 * regs), warps, TC_MAX_TILE_REGS);
}

/* p->warps[i] = the warps of the kernel holding instruction i. */
static void kernel_warps(Pass *p)
{
    TirModule *m = p->m;
    uint32_t *stack = malloc((m->nblocks + 1) * sizeof *stack);
    p->warps = calloc(m->ninsts + 1, sizeof *p->warps);
    if (!stack || !p->warps) {
        free(stack);
        free(p->warps);
        p->warps = NULL; /* no warnings, nothing else lost */
        return;
    }
    for (uint32_t k = 0; k < m->nkernels; k++) {
        uint32_t n = 0;
        stack[n++] = m->kernels[k].body;
        while (n) {
            const TirBlock *b = &m->blocks[stack[--n]];
            for (uint32_t j = 0; j < b->ninsts; j++) {
                uint32_t i = m->pool[b->insts + j];
                p->warps[i] = m->kernels[k].warps;
                if (m->insts[i].op == OP_FOR && m->insts[i].body && n < m->nblocks)
                    stack[n++] = m->insts[i].body;
            }
        }
    }
    free(stack);
}

static void rewrite_dot(Pass *p, uint32_t di, TirPrecision def)
{
    TirModule *m = p->m;
    TirInst in = m->insts[di];
    const uint32_t *args = tir_args(m, &in);
    uint32_t a = args[0], b = args[1], c = args[2];
    if (tir_value_type(m, a).elem != ELEM_F32)
        return;
    TirPrecision mode = in.ival == PREC_DEFAULT ? def : (TirPrecision)in.ival;
    if (mode == PREC_DEFAULT)
        mode = PREC_TF32_RNA;
    uint32_t nargs[3];
    switch (mode) {
    case PREC_IEEE:
    case PREC_TF32_TRUNC:
    default:
        m->insts[di].ival = mode == PREC_IEEE ? PREC_IEEE : PREC_TF32_TRUNC;
        return;
    case PREC_TF32_RNA:
    case PREC_TF32_RNE: {
        int k = mode == PREC_TF32_RNA ? SPLIT_RNA : SPLIT_RNE;
        nargs[0] = derived(p, a, k, in.loc);
        nargs[1] = derived(p, b, k, in.loc);
        nargs[2] = c;
        break;
    }
    case PREC_3XTF32: {
        TirType ct = tir_value_type(m, c);
        warn_two_tiles(p, di, ct);
        uint32_t z = build1(p, OP_ZEROS, in.loc, ct, NULL, 0, 0);
        uint32_t a1[3] = {derived(p, a, SPLIT_SMALL, in.loc), derived(p, b, SPLIT_HIC, in.loc),
                          z ? m->insts[z].result : 0};
        uint32_t t1 = build1(p, OP_DOT, in.loc, ct, a1, 3, PREC_TF32_TRUNC);
        uint32_t a2[3] = {derived(p, a, SPLIT_HIC, in.loc), derived(p, b, SPLIT_SMALL, in.loc),
                          t1 ? m->insts[t1].result : 0};
        uint32_t t2 = build1(p, OP_DOT, in.loc, ct, a2, 3, PREC_TF32_TRUNC);
        uint32_t a3[3] = {derived(p, a, SPLIT_RNA, in.loc), derived(p, b, SPLIT_RNA, in.loc),
                          t2 ? m->insts[t2].result : 0};
        uint32_t t3 = build1(p, OP_DOT, in.loc, ct, a3, 3, PREC_TF32_TRUNC);
        if (p->oom)
            return;
        m->insts[t3].i64 = TIR_DOT_ACC_RN;
        chain(p, p->before_inst, p->tail_before, di, z);
        chain(p, p->before_inst, p->tail_before, di, t1);
        chain(p, p->before_inst, p->tail_before, di, t2);
        chain(p, p->before_inst, p->tail_before, di, t3);
        /* the dot itself becomes the final add, keeping its result value */
        uint32_t add[2] = {c, m->insts[t3].result};
        uint32_t off = tir_pool_push(m, add, 2);
        if (m->oom) {
            p->oom = 1;
            return;
        }
        m->insts[di].op = OP_ADD;
        m->insts[di].args = off;
        m->insts[di].nargs = 2;
        m->insts[di].ival = 0;
        return;
    }
    }
    if (p->oom)
        return;
    uint32_t off = tir_pool_push(m, nargs, 3);
    if (m->oom) {
        p->oom = 1;
        return;
    }
    m->insts[di].args = off;
    m->insts[di].ival = PREC_TF32_TRUNC;
}

/* Appends inst and everything chained after it (recursively: an inserted
 * instruction may itself anchor insertions) to the list being rebuilt. */
static void emit_chain(Pass *p, uint32_t head, uint32_t **list, uint32_t *n, uint32_t *cap);

static void emit(Pass *p, uint32_t inst, uint32_t **list, uint32_t *n, uint32_t *cap)
{
    if (inst < p->ninsts0)
        emit_chain(p, p->before_inst[inst], list, n, cap);
    if (*n == *cap) {
        *cap = *cap * 2 + 16;
        uint32_t *l = realloc(*list, *cap * sizeof **list);
        if (!l) {
            p->oom = 1;
            return;
        }
        *list = l;
    }
    (*list)[(*n)++] = inst;
    if (inst < p->ninsts0)
        emit_chain(p, p->after_inst[inst], list, n, cap);
}

static void emit_chain(Pass *p, uint32_t head, uint32_t **list, uint32_t *n, uint32_t *cap)
{
    for (uint32_t i = head; i && !p->oom; i = i < p->cap_next ? p->next[i] : 0)
        emit(p, i, list, n, cap);
}

int pass_precision(TirModule *m, TirPrecision default_mode, Diag *d)
{
    Pass p = {.m = m, .nvalues0 = m->nvalues, .ninsts0 = m->ninsts, .nblocks0 = m->nblocks, .d = d};
    kernel_warps(&p);
    p.memo = calloc((size_t)m->nvalues * NSPLIT, sizeof *p.memo);
    p.after_inst = calloc(m->ninsts, sizeof(uint32_t));
    p.before_inst = calloc(m->ninsts, sizeof(uint32_t));
    p.tail_after = calloc(m->ninsts, sizeof(uint32_t));
    p.tail_before = calloc(m->ninsts, sizeof(uint32_t));
    p.block_start = calloc(m->nblocks, sizeof(uint32_t));
    p.tail_block = calloc(m->nblocks, sizeof(uint32_t));
    uint32_t *list = NULL, cap = 0;
    int changed = 0;
    if (!p.memo || !p.after_inst || !p.before_inst || !p.tail_after || !p.tail_before || !p.block_start ||
        !p.tail_block)
        p.oom = 1;

    /* dots of loops marked by pass_wgmma or pass_mma keep their explicit
     * mode: the pipeline rounds their operands */
    uint8_t *skip = calloc(m->ninsts + 1, 1);
    if (!skip)
        p.oom = 1;
    for (uint32_t i = 1; skip && i < p.ninsts0; i++) {
        const TirInst *f = &m->insts[i];
        if (f->op != OP_FOR || f->ival == 0 || !f->body)
            continue;
        const TirBlock *b = &m->blocks[f->body];
        for (uint32_t k = 0; k < b->ninsts; k++)
            skip[m->pool[b->insts + k]] = 1;
    }

    for (uint32_t i = 1; i < p.ninsts0 && !p.oom; i++)
        if (m->insts[i].op == OP_DOT && !skip[i]) {
            uint32_t before = m->ninsts;
            rewrite_dot(&p, i, default_mode);
            changed |= m->ninsts != before;
        }

    /* Rebuild the instruction list of every block that existed before. */
    for (uint32_t bi = 1; changed && bi < p.nblocks0 && !p.oom; bi++) {
        uint32_t n = 0;
        emit_chain(&p, p.block_start[bi], &list, &n, &cap);
        const TirBlock blk = m->blocks[bi];
        for (uint32_t k = 0; k < blk.ninsts && !p.oom; k++)
            emit(&p, m->pool[blk.insts + k], &list, &n, &cap);
        if (p.oom || n == blk.ninsts)
            continue;
        uint32_t off = tir_pool_push(m, list, n);
        if (m->oom)
            p.oom = 1;
        else {
            m->blocks[bi].insts = off;
            m->blocks[bi].ninsts = n;
        }
    }

    free(skip);
    free(list);
    free(p.warps);
    free(p.memo);
    free(p.after_inst);
    free(p.before_inst);
    free(p.tail_after);
    free(p.tail_before);
    free(p.block_start);
    free(p.tail_block);
    free(p.next);
    if (p.oom || m->oom) {
        diag_error(d, (TirLoc){0}, "precision pass: out of memory");
        return -1;
    }
    return 0;
}
