/*
 * The order of a program's global memory accesses (docs/TIR.md, "Memory
 * order"): a program runs its loads and stores as written, but its threads
 * run apart, so an element stored by one thread and loaded (or stored, or
 * loaded before and stored after) by another needs a barrier between the
 * two. This file decides where: before each load and store the lowering
 * calls lw_order_access(), which emits lw_barrier() (bar.sync orders the
 * block's global memory accesses too) where an access since the last
 * barrier may touch the same element from another thread.
 *
 * Needs: views whose base is a pointer parameter (the IR has no other
 * pointers). Guarantees: a load sees every store before it in the program,
 * and a store is not overwritten or read early by an access after it, for
 * accesses through the same parameter. Different pointer parameters are
 * taken not to overlap (as C's restrict): kernels that read one buffer and
 * write another, GEMMs among them, get no barrier at all.
 *
 * Two accesses through the same parameter need none where each element is
 * handled by the same thread on both sides: the same view, the same index
 * values, the same tile shape and the same layout, one that does not
 * replicate elements over threads (an elementwise update in place). Loops:
 * at a body's start every access of the body (of an earlier iteration)
 * counts as pending, as a wildcard for its parameter; after the loop, those
 * and what was pending before it (the body may not run). A wgmma pipeline
 * (lower_wgmma.c) is one access: loads of its operands' parameters.
 */
#include "compiler/lower.h"

#include <string.h>

/* The pointer parameter a view value reads, or UINT32_MAX if not one. */
static uint32_t view_param(const TirModule *m, uint32_t view)
{
    const TirInst *v = &m->insts[tir_value_def_inst(m, view)];
    if (v->op != OP_VIEW)
        return UINT32_MAX;
    const TirValue *base = &m->values[tir_args(m, v)[0]];
    return base->kind == VAL_PARAM ? base->index : UINT32_MAX;
}

/* Values a and b are equal in every run: one value, or equal constants
 * (each literal operand is a constant of its own). */
static int same_value(const TirModule *m, uint32_t a, uint32_t b)
{
    if (a == b)
        return 1;
    const TirValue *va = &m->values[a], *vb = &m->values[b];
    if (va->kind != VAL_RESULT || vb->kind != VAL_RESULT)
        return 0;
    const TirInst *ia = &m->insts[va->def], *ib = &m->insts[vb->def];
    return ia->op == OP_CONST && ib->op == OP_CONST && ia->i64 == ib->i64;
}

/* p and n (neither a wildcard) reach the same elements through the same
 * threads: one view, equal indices, one shape, one layout. */
static int same_elements(const TirModule *m, const MemAccess *p, const MemAccess *n)
{
    if (p->view != n->view || p->nidx != n->nidx || p->rows != n->rows || p->cols != n->cols ||
        !layout_eq(&p->lay, &n->lay))
        return 0;
    for (uint32_t k = 0; k < p->nidx; k++)
        if (!same_value(m, p->idx[k], n->idx[k]))
            return 0;
    return 1;
}

static int conflicts(const TirModule *m, const MemAccess *p, const MemAccess *n)
{
    if ((!p->store && !n->store) || p->param != n->param)
        return 0;
    if (p->wild || n->wild || !same_elements(m, p, n))
        return 1;
    return p->replicated; /* a replicated element is loaded by several threads, stored by one */
}

static int same_access(const TirModule *m, const MemAccess *p, const MemAccess *n)
{
    if (p->param != n->param || p->store != n->store || p->wild != n->wild)
        return 0;
    return p->wild || same_elements(m, p, n);
}

static void add_pending(Lower *L, const MemAccess *a)
{
    for (uint32_t k = 0; k < L->npending; k++) /* pending once is enough */
        if (same_access(L->m, &L->pending[k], a))
            return;
    if (L->npending == LW_MAX_PENDING) { /* too much to track: order everything now */
        lw_barrier(L);
        L->npending = 0;
    }
    L->pending[L->npending++] = *a;
}

/* Orders access a after the pending ones, then adds it. */
static void order(Lower *L, const MemAccess *a)
{
    for (uint32_t k = 0; k < L->npending; k++)
        if (conflicts(L->m, &L->pending[k], a)) {
            lw_barrier(L); /* clears pending */
            break;
        }
    add_pending(L, a);
}

void lw_order_reset(Lower *L) { L->npending = 0; }

void lw_order_access(Lower *L, uint32_t inst, uint32_t view_arg, const Layout *lay, int store)
{
    const TirModule *m = L->m;
    const TirInst *in = &m->insts[inst];
    const uint32_t *a = tir_args(m, in);
    MemAccess x = {.param = view_param(m, a[view_arg]), .view = a[view_arg], .store = (uint8_t)store};
    if (x.param == UINT32_MAX)
        return;
    x.nidx = in->nargs - view_arg - 1; /* the view's rank: 2 or 3 (the verifier's) */
    for (uint32_t k = 0; k < x.nidx; k++)
        x.idx[k] = a[view_arg + 1 + k];
    TirType t = in->op == OP_STORE ? tir_value_type(m, a[0]) : in->type;
    x.rows = t.dim[0];
    x.cols = t.dim[1];
    if (lay) {
        x.lay = *lay;
        x.replicated = layout_replicates(lay, L->threads);
    } else {
        x.wild = 1; /* the copy engine's (a TMA store): threads do not map to elements */
    }
    order(L, &x);
}

/* Calls f for each load (store = 0) and store (1) in block bi and the blocks
 * of its loops, with the parameter it reaches. */
static void each_access(Lower *L, uint32_t bi, void (*f)(Lower *, uint32_t param, int store))
{
    const TirModule *m = L->m;
    const TirBlock *blk = &m->blocks[bi];
    for (uint32_t k = 0; k < blk->ninsts; k++) {
        const TirInst *in = &m->insts[m->pool[blk->insts + k]];
        const uint32_t *a = tir_args(m, in);
        if (in->op == OP_LOAD || in->op == OP_STORE) {
            uint32_t p = view_param(m, a[in->op == OP_STORE]);
            if (p != UINT32_MAX)
                f(L, p, in->op == OP_STORE);
        } else if (in->op == OP_FOR) {
            each_access(L, in->body, f);
        }
    }
}

static void wildcard(Lower *L, uint32_t param, int store)
{
    add_pending(L, &(MemAccess){.param = param, .store = (uint8_t)store, .wild = 1});
}

static void wildcard_ordered(Lower *L, uint32_t param, int store)
{
    order(L, &(MemAccess){.param = param, .store = (uint8_t)store, .wild = 1});
}

void lw_order_loop_enter(Lower *L, uint32_t body, MemPending *saved)
{
    saved->n = L->npending;
    memcpy(saved->acc, L->pending, L->npending * sizeof *L->pending);
    each_access(L, body, wildcard);
}

void lw_order_loop_exit(Lower *L, uint32_t body, const MemPending *saved)
{
    for (uint32_t k = 0; k < saved->n; k++)
        add_pending(L, &saved->acc[k]);
    each_access(L, body, wildcard);
}

void lw_order_pipeline(Lower *L, uint32_t body) { each_access(L, body, wildcard_ordered); }
