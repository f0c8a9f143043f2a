/*
 * Prefetch pass: issues each loop's tile loads one iteration ahead, so that
 * the global-memory latency of step k+1 overlaps the math of step k.
 *
 *   for %k = lo to hi step s iter(%c = init) {      %a0 = load %v[%m, lo]
 *     %a = load %v[%m, %k]                    =>    for %k = lo to hi step s iter(%c = init, %a = %a0) {
 *     ...uses %a...                                   ...uses %a...
 *     yield %d                                        %k1 = add %k, s
 *   }                                                 %a1 = load %v[%m, %k1]
 *                                                     yield %d, %a1
 *                                                   }
 * Needs: a verified module. Guarantees: the same results. A load qualifies
 * when it sits directly in the loop body, every index is the induction
 * variable or defined outside the loop, and nothing in the loop stores to
 * memory (a store could change what the early load reads), and the loop
 * is not one pass_wgmma or pass_mma marked (its pipeline loads ahead itself). Loads are
 * bounds-checked, so the extra load past the last iteration reads only
 * in-view memory (or nothing) and its value is dropped.
 */
#include "compiler/compiler.h"

#include <stdlib.h>
#include <string.h>

/* 1 if block b (or a block nested in it) contains a store */
static int stores_in(const TirModule *m, uint32_t b)
{
    const TirBlock *blk = &m->blocks[b];
    for (uint32_t k = 0; k < blk->ninsts; k++) {
        const TirInst *in = &m->insts[m->pool[blk->insts + k]];
        if (in->op == OP_STORE || in->op == OP_INLINE_PTX)
            return 1;
        if (in->op == OP_FOR && stores_in(m, in->body))
            return 1;
    }
    return 0;
}

/* The block holding each instruction (0: in none). */
static uint32_t *inst_blocks(const TirModule *m)
{
    uint32_t *ib = calloc(m->ninsts + 1, sizeof *ib);
    for (uint32_t bi = 1; ib && bi < m->nblocks; bi++)
        for (uint32_t k = 0; k < m->blocks[bi].ninsts; k++)
            ib[m->pool[m->blocks[bi].insts + k]] = bi;
    return ib;
}

/* 1 if value v is defined outside the loop body b (not in b nor in a block
 * nested inside it) */
static int outside(const TirModule *m, const uint32_t *ib, uint32_t v, uint32_t b)
{
    const TirValue *val = &m->values[v];
    if (val->kind == VAL_PARAM)
        return 1;
    uint32_t blk = val->kind == VAL_BLOCK_ARG ? val->def : (val->def < m->ninsts ? ib[val->def] : 0);
    while (blk) {
        if (blk == b)
            return 0;
        uint32_t parent = m->blocks[blk].parent;
        blk = parent && parent < m->ninsts ? ib[parent] : 0;
    }
    return 1;
}

/* a literal: a const instruction, which can be copied wherever needed */
static int is_const(const TirModule *m, uint32_t v)
{
    uint32_t d = tir_value_def_inst(m, v);
    return d && m->insts[d].op == OP_CONST;
}

static int qualifies(const TirModule *m, const uint32_t *ib, uint32_t li, uint32_t body, uint32_t iv)
{
    const TirInst *in = &m->insts[li];
    const uint32_t *a = tir_args(m, in);
    for (uint32_t k = 0; k < in->nargs; k++)
        if (a[k] != iv && !is_const(m, a[k]) && !outside(m, ib, a[k], body))
            return 0;
    return 1;
}

/* Appends to out[*n] a copy of load li with the induction variable replaced
 * by `with`, preceded by copies of its literal operands (which may live in
 * the loop body, where the copy cannot see them). Returns the load. */
static uint32_t clone_load(TirModule *m, uint32_t li, uint32_t iv, uint32_t with, uint32_t *out, uint32_t *n)
{
    TirInst in = m->insts[li];
    uint32_t args[1 + TIR_MAX_VIEW_RANK];
    if (in.nargs > 1 + TIR_MAX_VIEW_RANK)
        return 0;
    for (uint32_t k = 0; k < in.nargs; k++) {
        uint32_t v = m->pool[in.args + k];
        args[k] = v == iv ? with : v;
        if (v != iv && is_const(m, v)) {
            const TirInst *c = &m->insts[tir_value_def_inst(m, v)];
            uint32_t ci = tir_build(m, OP_CONST, c->loc, c->type, NULL, 0);
            if (!ci)
                return 0;
            m->insts[ci].i64 = m->insts[tir_value_def_inst(m, v)].i64;
            m->insts[ci].fval = m->insts[tir_value_def_inst(m, v)].fval;
            out[(*n)++] = ci;
            args[k] = m->insts[ci].result;
        }
    }
    uint32_t l = tir_build(m, OP_LOAD, in.loc, in.type, args, in.nargs);
    if (l) {
        m->insts[l].fval = in.fval;
        out[(*n)++] = l;
    }
    return l;
}

/* Replaces every use of value `from` by `to` in the operand lists of all
 * instructions. */
static void replace_uses(TirModule *m, uint32_t from, uint32_t to)
{
    for (uint32_t i = 1; i < m->ninsts; i++) {
        TirInst *in = &m->insts[i];
        for (uint32_t k = 0; k < in->nargs; k++)
            if (m->pool[in->args + k] == from)
                m->pool[in->args + k] = to;
    }
}

/* Rewrites for instruction fi into a new one (*nfor), with the first
 * iteration's loads (*pre, *npre) to go before it. Returns 0 on success
 * (*nfor = 0: nothing to prefetch), -1 when memory ran out. */
static int prefetch_loop(TirModule *m, const uint32_t *ib, uint32_t fi, uint32_t **pre, uint32_t *npre,
                         uint32_t *nfor)
{
    *nfor = 0;
    TirInst f = m->insts[fi];
    TirBlock body = m->blocks[f.body];
    /* a loop marked by pass_wgmma keeps its shape: its pipeline prefetches */
    if (body.ninsts < 2 || f.ival != 0 || stores_in(m, f.body))
        return 0;
    uint32_t iv = m->pool[body.args];
    uint32_t lo = m->pool[f.args], step = m->pool[f.args + 2];

    /* candidate loads */
    uint32_t nl = 0, *loads = calloc(body.ninsts, sizeof *loads);
    if (!loads)
        return -1;
    for (uint32_t k = 0; k + 1 < body.ninsts; k++) {
        uint32_t i = m->pool[body.insts + k];
        if (m->insts[i].op == OP_LOAD && m->insts[i].type.kind == TY_TILE && qualifies(m, ib, i, f.body, iv))
            loads[nl++] = i;
    }
    if (!nl) {
        free(loads);
        return 0;
    }

    uint32_t ncar = f.nresults, ntot = ncar + nl;
    uint32_t *inits = malloc((ntot + 3) * sizeof *inits), *bargs = malloc((ntot + 1) * sizeof *bargs);
    uint32_t *yargs = malloc(ntot * sizeof *yargs);
    uint32_t *newbody = malloc((body.ninsts + (2 + TIR_MAX_VIEW_RANK) * nl + 2) * sizeof *newbody);
    uint32_t *pres = malloc((1 + TIR_MAX_VIEW_RANK) * nl * sizeof *pres), npres = 0;
    if (!inits || !bargs || !yargs || !newbody || !pres) {
        free(loads), free(inits), free(bargs), free(yargs), free(newbody), free(pres);
        return -1;
    }
    memcpy(inits, m->pool + f.args, (3 + ncar) * sizeof *inits);
    memcpy(bargs, m->pool + body.args, (1 + ncar) * sizeof *bargs);
    uint32_t yi = m->pool[body.insts + body.ninsts - 1];
    memcpy(yargs, m->pool + m->insts[yi].args, ncar * sizeof *yargs);

    /* the first iteration's loads, before the loop */
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t first = clone_load(m, loads[l], iv, lo, pres, &npres);
        inits[3 + ncar + l] = first ? m->insts[first].result : 0;
        bargs[1 + ncar + l] = tir_add_value(m, m->insts[loads[l]].type, VAL_BLOCK_ARG, f.body, 1 + ncar + l,
                                            m->values[m->insts[loads[l]].result].name);
    }
    /* the body: the loads become the carried values; the next ones at the end */
    uint32_t nb = 0;
    for (uint32_t k = 0; k + 1 < body.ninsts; k++) {
        uint32_t i = m->pool[body.insts + k];
        int is_load = 0;
        for (uint32_t l = 0; l < nl; l++)
            is_load |= loads[l] == i;
        if (!is_load)
            newbody[nb++] = i;
    }
    uint32_t addargs[2] = {iv, step};
    uint32_t next = tir_build(m, OP_ADD, f.loc, tir_value_type(m, iv), addargs, 2);
    newbody[nb++] = next;
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t nl_i = clone_load(m, loads[l], iv, next ? m->insts[next].result : 0, newbody, &nb);
        yargs[ncar + l] = nl_i ? m->insts[nl_i].result : 0;
    }
    if (m->oom)
        goto fail;
    for (uint32_t l = 0; l < nl; l++)
        replace_uses(m, m->insts[loads[l]].result, bargs[1 + ncar + l]);
    uint32_t ny = tir_build(m, OP_YIELD, m->insts[yi].loc, (TirType){0}, yargs, ntot);
    newbody[nb++] = ny;

    /* the new for: results for every carried value, consecutive */
    uint32_t nf = tir_build(m, OP_FOR, f.loc, (TirType){0}, inits, 3 + ntot);
    if (!nf || m->oom)
        goto fail;
    TirInst *fn = &m->insts[nf];
    fn->body = f.body;
    fn->nresults = ntot;
    fn->result = 0;
    for (uint32_t c = 0; c < ntot; c++) {
        TirType t = c < ncar ? m->values[f.result + c].type : m->insts[loads[c - ncar]].type;
        uint32_t name = c < ncar ? m->values[f.result + c].name : 0;
        uint32_t v = tir_add_value(m, t, VAL_RESULT, nf, c, name);
        if (!v)
            goto fail;
        if (c == 0)
            m->insts[nf].result = v;
    }
    for (uint32_t c = 0; c < ncar; c++)
        replace_uses(m, f.result + c, m->insts[nf].result + c);
    for (uint32_t c = 0; c < ncar; c++) /* the old results are gone: keep names unique */
        m->values[f.result + c].name = 0;
    m->blocks[f.body].args = tir_pool_push(m, bargs, ntot + 1);
    m->blocks[f.body].nargs = ntot + 1;
    m->blocks[f.body].insts = tir_pool_push(m, newbody, nb);
    m->blocks[f.body].ninsts = nb;
    m->blocks[f.body].parent = nf;
    for (uint32_t c = 0; c < ntot + 1; c++)
        m->values[bargs[c]].def = f.body, m->values[bargs[c]].index = c;
    /* the caller puts the first loads, then the new for, where the old for
     * was; the old for, loads and yield stay behind in no block */
    *pre = pres;
    *npre = npres;
    *nfor = nf;
    free(loads), free(inits), free(bargs), free(yargs), free(newbody);
    return m->oom ? -1 : 0;
fail:
    free(loads), free(inits), free(bargs), free(yargs), free(newbody), free(pres);
    return -1;
}

int pass_prefetch(TirModule *m, Diag *d)
{
    uint32_t nblocks = m->nblocks;
    for (uint32_t b = 1; b < nblocks; b++) {
        uint32_t ninsts = m->blocks[b].ninsts, n = 0, changed = 0;
        uint32_t *list = malloc(((size_t)ninsts * 2 + 1) * sizeof *list), cap = ninsts * 2 + 1;
        uint32_t *ib = inst_blocks(m);
        if (!list || !ib) {
            free(list), free(ib);
            goto oom;
        }
        for (uint32_t k = 0; k < ninsts; k++) {
            uint32_t i = m->pool[m->blocks[b].insts + k];
            uint32_t *pre = NULL, npre = 0, nf = 0;
            if (m->insts[i].op == OP_FOR && prefetch_loop(m, ib, i, &pre, &npre, &nf) != 0) {
                free(list), free(ib);
                goto oom;
            }
            if (n + npre + 1 > cap) {
                cap = (n + npre + 1) * 2;
                uint32_t *l2 = realloc(list, cap * sizeof *list);
                if (!l2) {
                    free(list), free(ib), free(pre);
                    goto oom;
                }
                list = l2;
            }
            for (uint32_t p = 0; p < npre; p++)
                list[n++] = pre[p];
            list[n++] = nf ? nf : i;
            changed |= nf != 0;
            free(pre);
        }
        if (changed) {
            uint32_t off = tir_pool_push(m, list, n);
            m->blocks[b].insts = off;
            m->blocks[b].ninsts = n;
        }
        free(list);
        free(ib);
        if (m->oom)
            goto oom;
    }
    return 0;
oom:
    diag_error(d, (TirLoc){0}, "prefetch pass: out of memory");
    return -1;
}
