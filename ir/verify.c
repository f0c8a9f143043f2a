/*
 * The verifier: structural checks of a module, run after parsing and after
 * every pass (compiler/pipeline.c) and before the reference executor runs.
 *
 * Needs: nothing beyond a TirModule whose array counts do not exceed their
 * capacities; every index inside it may be garbage.
 * Guarantees (when it returns 0): every index (operand, result, block,
 * instruction, pool range, string offset) is in range; every value is
 * defined exactly once and every use is dominated by its definition
 * (earlier in the same block, in an enclosing block, a block argument of an
 * enclosing for body, or a parameter of the kernel); every instruction sits
 * in at most one block; for loops are well formed (body block owned by the
 * loop, 1 + carried block arguments, one final yield whose types match);
 * each instruction passes tir_check_inst (typecheck.c) and its result value
 * has the type that check computes; kernels have warps in {1,2,4,8,16} and
 * loops nest at most TIR_MAX_NESTING deep.
 *
 * tir_check_inst is only called on an instruction whose indices were found
 * valid here, so the type checker never sees an out-of-range index.
 */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V_UNDEF, V_VISIBLE, V_HIDDEN };

typedef struct {
    const TirModule *m;
    Diag *d;
    int errors;
    uint8_t *vstate; /* per value: V_* */
    uint8_t *iseen;  /* per instruction: already placed in a block */
    uint8_t *bseen;  /* per block: already walked */
    uint32_t *scope; /* values defined in the open blocks, innermost last */
    size_t nscope, capscope;
    int oom;
} Verifier;

static void err(Verifier *v, TirLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void err(Verifier *v, TirLoc loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    v->errors++;
    diag_error(v->d, loc, "%s", msg);
}

/* A NUL-terminated string at pool offset off, or NULL if off is not one. */
static const char *safe_str(const TirModule *m, uint32_t off)
{
    if (!m->strs || off >= m->nstrs)
        return NULL;
    if (!memchr(m->strs + off, 0, m->nstrs - off))
        return NULL;
    return m->strs + off;
}

/* "%name", or "%<number>" for unnamed values and bad indices. */
static const char *vname(const TirModule *m, uint32_t val, char *buf, size_t size)
{
    const char *s = val < m->nvalues ? safe_str(m, m->values[val].name) : NULL;
    if (s && *s)
        snprintf(buf, size, "%%%.60s", s);
    else
        snprintf(buf, size, "%%<%u>", val);
    return buf;
}

static const char *opname(uint32_t op) { return op < OP_COUNT ? tir_ops[op].name : "<bad op>"; }

static int pool_range_ok(const TirModule *m, uint32_t off, uint32_t n)
{
    return n == 0 || (m->pool && (uint64_t)off + n <= m->npool);
}

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

/* A type a value may have. */
static int type_ok(TirType t)
{
    switch (t.kind) {
    case TY_SCALAR:
        return t.elem == ELEM_I32 || t.elem == ELEM_I64 || t.elem == ELEM_F32;
    case TY_PTR:
        return t.elem >= ELEM_I32 && t.elem <= ELEM_F32;
    case TY_VIEW:
        return t.elem >= ELEM_I32 && t.elem <= ELEM_F32 && (t.rank == 2 || t.rank == 3);
    case TY_TILE:
        return t.elem >= ELEM_I32 && t.elem <= ELEM_F32 && is_pow2(t.dim[0]) && is_pow2(t.dim[1]) &&
               t.dim[0] <= TIR_MAX_TILE_DIM && t.dim[1] <= TIR_MAX_TILE_DIM &&
               (uint64_t)t.dim[0] * t.dim[1] <= TIR_MAX_TILE_ELEMS;
    default:
        return 0;
    }
}

static void push_scope(Verifier *v, uint32_t val)
{
    if (v->nscope == v->capscope) {
        size_t ncap = v->capscope ? v->capscope * 2 : 256;
        uint32_t *p = realloc(v->scope, ncap * sizeof *p);
        if (!p) {
            v->oom = 1;
            return;
        }
        v->scope = p;
        v->capscope = ncap;
    }
    v->scope[v->nscope++] = val;
}

/* Makes value val defined here, after checking it was not defined before
 * and that its descriptor says what the definer expects. */
static int define(Verifier *v, TirLoc loc, uint32_t val, TirValueKind kind, uint32_t def, uint32_t index)
{
    const TirModule *m = v->m;
    char nb[80];
    if (val == 0 || val >= m->nvalues) {
        err(v, loc, "defines value number %u, which does not exist", val);
        return 0;
    }
    const TirValue *tv = &m->values[val];
    if (v->vstate[val] != V_UNDEF) {
        err(v, loc, "value %s is defined more than once", vname(m, val, nb, sizeof nb));
        return 0;
    }
    if (tv->kind != kind || tv->def != def || tv->index != index) {
        err(v, loc, "value %s does not point back at its definition", vname(m, val, nb, sizeof nb));
        return 0;
    }
    if (!type_ok(tv->type)) {
        err(v, loc, "value %s has an invalid type", vname(m, val, nb, sizeof nb));
        return 0;
    }
    v->vstate[val] = V_VISIBLE;
    push_scope(v, val);
    return 1;
}

/* Hides the values defined since scope mark `mark` (leaving a block). */
static void pop_scope(Verifier *v, size_t mark)
{
    while (v->nscope > mark)
        v->vstate[v->scope[--v->nscope]] = V_HIDDEN;
}

/* Checks that operand val may be used here. */
static int use_ok(Verifier *v, TirLoc loc, uint32_t inst, uint32_t k, uint32_t val)
{
    const TirModule *m = v->m;
    char nb[80];
    if (val == 0 || val >= m->nvalues) {
        err(v, loc, "operand %u of '%s' refers to value number %u, which does not exist", k + 1,
            opname(m->insts[inst].op), val);
        return 0;
    }
    if (v->vstate[val] == V_UNDEF) {
        err(v, loc, "use of %s before its definition", vname(m, val, nb, sizeof nb));
        return 0;
    }
    if (v->vstate[val] == V_HIDDEN) {
        err(v, loc, "%s is used outside the block that defines it", vname(m, val, nb, sizeof nb));
        return 0;
    }
    return 1;
}

/* After an error in a definer: makes its results (those in range and not
 * yet defined) visible anyway, so their uses do not cascade into errors. */
static void show_results(Verifier *v, const TirInst *in)
{
    for (uint32_t k = 0; k < in->nresults && k < 1024; k++) {
        uint64_t r = (uint64_t)in->result + k;
        if (in->result == 0 || r >= v->m->nvalues)
            return;
        if (v->vstate[r] == V_UNDEF) {
            v->vstate[r] = V_VISIBLE;
            push_scope(v, (uint32_t)r);
        }
    }
}

static void walk_block(Verifier *v, uint32_t b, uint32_t owner, int depth);

/* The instruction's own operand count rule beyond the fixed arities. */
static int arity_ok(Verifier *v, const TirInst *in)
{
    const TirModule *m = v->m;
    const uint32_t *a = m->pool + in->args;
    int fixed = tir_ops[in->op].nargs;
    if (fixed >= 0)
        return in->nargs == (uint32_t)fixed;
    /* operand 0 (load) / 1 (store) is a view whose rank fixes the count */
    uint32_t vi;
    switch (in->op) {
    case OP_VIEW:
        return in->nargs == 5 || in->nargs == 7;
    case OP_LOAD:
    case OP_STORE:
        vi = in->op == OP_LOAD ? 0 : 1;
        if (in->nargs <= vi)
            return 0;
        if (a[vi] && a[vi] < m->nvalues && m->values[a[vi]].type.kind == TY_VIEW)
            return in->nargs == vi + 1 + m->values[a[vi]].type.rank;
        return 1; /* not a view: the type checker says so */
    case OP_FOR:
        return in->nargs >= 3;
    default:
        return 1;
    }
}

static void check_for(Verifier *v, uint32_t i, int depth);

static void check_inst(Verifier *v, uint32_t i, int depth)
{
    const TirModule *m = v->m;
    const TirInst *in = &m->insts[i];
    if (in->op == OP_NONE || in->op >= OP_COUNT) {
        err(v, in->loc, "instruction %u has an invalid opcode %u", i, in->op);
        goto bad;
    }
    if (!pool_range_ok(m, in->args, in->nargs)) {
        err(v, in->loc, "'%s' has an operand list outside the module's pool", opname(in->op));
        goto bad;
    }
    int ok = 1;
    const uint32_t *a = m->pool + in->args;
    for (uint32_t k = 0; k < in->nargs; k++)
        ok &= use_ok(v, in->loc, i, k, a[k]);
    if (!ok)
        goto bad;
    if (!arity_ok(v, in)) {
        err(v, in->loc, "'%s' has the wrong number of operands (%u)", opname(in->op), in->nargs);
        goto bad;
    }
    if (in->op == OP_INLINE_PTX && !safe_str(m, in->str)) {
        err(v, in->loc, "inline_ptx template is not a valid string");
        goto bad;
    }
    if (in->op == OP_FOR) {
        check_for(v, i, depth);
        return;
    }
    unsigned flags = tir_ops[in->op].flags;
    if (flags & OPF_RESULT) {
        if (in->nresults != 1) {
            err(v, in->loc, "'%s' must define exactly one value", opname(in->op));
            goto bad;
        }
        if (in->result == 0 || in->result >= m->nvalues) {
            err(v, in->loc, "'%s' defines value number %u, which does not exist", opname(in->op), in->result);
            goto bad;
        }
    } else if (in->nresults != 0 || in->result != 0) {
        err(v, in->loc, "'%s' defines no value but has a result", opname(in->op));
        goto bad;
    }
    TirType t = {0};
    int before = v->d->nerrors;
    int terr = tir_check_inst(m, i, &t, v->d);
    if (terr > 0 || v->d->nerrors > before) {
        v->errors += terr > 0 ? terr : v->d->nerrors - before;
        goto bad;
    }
    if (flags & OPF_RESULT) {
        char want[64], have[64], nb[80];
        if (!tir_type_eq(t, m->values[in->result].type))
            err(v, in->loc, "%s has type %s, but '%s' produces %s", vname(m, in->result, nb, sizeof nb),
                tir_type_str(m->values[in->result].type, have, sizeof have), opname(in->op),
                tir_type_str(t, want, sizeof want));
        else if (in->type.kind != TY_NONE && !tir_type_eq(in->type, t))
            err(v, in->loc, "'%s' records type %s but produces %s", opname(in->op),
                tir_type_str(in->type, have, sizeof have), tir_type_str(t, want, sizeof want));
        define(v, in->loc, in->result, VAL_RESULT, i, 0);
    }
    return;
bad:
    show_results(v, in);
}

static void check_for(Verifier *v, uint32_t i, int depth)
{
    const TirModule *m = v->m;
    const TirInst *in = &m->insts[i];
    const uint32_t *a = m->pool + in->args;
    const uint32_t ncarried = in->nargs - 3;
    char t1[64], t2[64];
    if (depth >= TIR_MAX_NESTING) {
        err(v, in->loc, "for loops nest more than %d deep", TIR_MAX_NESTING);
        goto bad;
    }
    if (in->nresults != ncarried) {
        err(v, in->loc, "'for' with %u carried values must have %u results, not %u", ncarried, ncarried,
            in->nresults);
        goto bad;
    }
    if (ncarried && (in->result == 0 || (uint64_t)in->result + ncarried > m->nvalues)) {
        err(v, in->loc, "'for' results lie outside the module's values");
        goto bad;
    }
    if (!ncarried && in->result != 0) {
        err(v, in->loc, "'for' without carried values has a result");
        goto bad;
    }
    uint32_t b = in->body;
    if (b == 0 || b >= m->nblocks) {
        err(v, in->loc, "'for' has no body block (block %u)", b);
        goto bad;
    }
    if (v->bseen[b]) {
        err(v, in->loc, "'for' body block %u is also used elsewhere", b);
        goto bad;
    }
    const TirBlock *blk = &m->blocks[b];
    if (blk->parent != i) {
        err(v, in->loc, "'for' body block %u names instruction %u as its parent", b, blk->parent);
        goto bad;
    }
    if (blk->nargs != 1 + ncarried || !pool_range_ok(m, blk->args, blk->nargs)) {
        err(v, in->loc, "'for' body has %u arguments; it needs the induction variable and %u carried values",
            blk->nargs, ncarried);
        goto bad;
    }
    if (blk->ninsts == 0 || !pool_range_ok(m, blk->insts, blk->ninsts)) {
        err(v, in->loc, "'for' body must end with 'yield'");
        goto bad;
    }
    uint32_t last = m->pool[blk->insts + blk->ninsts - 1];
    if (last == 0 || last >= m->ninsts || m->insts[last].op != OP_YIELD) {
        err(v, in->loc, "'for' body must end with 'yield'");
        goto bad;
    }
    /* the bounds and initial values (operand indices were checked) */
    int before = v->d->nerrors;
    TirType ignored;
    int terr = tir_check_inst(m, i, &ignored, v->d);
    /* the type checker also compares results, body arguments and the yield
     * with the carried types; repeat those checks (in case a rewritten
     * module reaches here some other way) only when it found nothing, so an
     * error is not reported twice */
    int typed_ok = !(terr > 0 || v->d->nerrors > before);
    if (!typed_ok)
        v->errors += terr > 0 ? terr : v->d->nerrors - before;
    for (uint32_t k = 0; k < ncarried && typed_ok; k++) {
        TirType it = m->values[a[3 + k]].type;
        if (!tir_type_eq(it, m->values[in->result + k].type))
            err(v, in->loc, "'for' result %u has type %s but its initial value is %s", k + 1,
                tir_type_str(m->values[in->result + k].type, t1, sizeof t1), tir_type_str(it, t2, sizeof t2));
    }

    /* the body: its arguments are visible inside it only */
    v->bseen[b] = 1;
    size_t mark = v->nscope;
    const uint32_t *ba = m->pool + blk->args;
    if (define(v, in->loc, ba[0], VAL_BLOCK_ARG, b, 0)) {
        TirType iv = m->values[ba[0]].type;
        if (iv.kind != TY_SCALAR || (iv.elem != ELEM_I32 && iv.elem != ELEM_I64))
            err(v, in->loc, "'for' induction variable must be an integer scalar, not %s",
                tir_type_str(iv, t1, sizeof t1));
    }
    for (uint32_t k = 0; k < ncarried; k++) {
        if (!define(v, in->loc, ba[1 + k], VAL_BLOCK_ARG, b, 1 + k))
            continue;
        TirType ct = m->values[ba[1 + k]].type, it = m->values[a[3 + k]].type;
        if (typed_ok && !tir_type_eq(ct, it))
            err(v, in->loc, "carried value %u has type %s but its initial value is %s", k + 1,
                tir_type_str(ct, t1, sizeof t1), tir_type_str(it, t2, sizeof t2));
    }
    walk_block(v, b, i, depth + 1);
    /* the final yield: one operand per carried value, same types */
    const TirInst *y = &m->insts[last];
    if (!typed_ok)
        ; /* already reported */
    else if (y->nargs != ncarried)
        err(v, y->loc, "'yield' has %u operands; the loop carries %u values", y->nargs, ncarried);
    else if (pool_range_ok(m, y->args, y->nargs))
        for (uint32_t k = 0; k < ncarried; k++) {
            uint32_t yv = m->pool[y->args + k];
            if (yv == 0 || yv >= m->nvalues)
                continue; /* reported by the walk */
            TirType yt = m->values[yv].type, ct = m->values[ba[1 + k]].type;
            if (!tir_type_eq(yt, ct))
                err(v, y->loc, "'yield' operand %u has type %s; the loop carries %s", k + 1,
                    tir_type_str(yt, t1, sizeof t1), tir_type_str(ct, t2, sizeof t2));
        }
    pop_scope(v, mark);

    /* the results, visible after the loop */
    for (uint32_t k = 0; k < ncarried; k++)
        define(v, in->loc, in->result + k, VAL_RESULT, i, k);
    return;
bad:
    show_results(v, in);
}

/* Walks block b; owner is the for instruction owning it (0: a kernel body). */
static void walk_block(Verifier *v, uint32_t b, uint32_t owner, int depth)
{
    const TirModule *m = v->m;
    const TirBlock *blk = &m->blocks[b];
    TirLoc loc = owner ? m->insts[owner].loc : (TirLoc){0};
    if (!pool_range_ok(m, blk->insts, blk->ninsts)) {
        err(v, loc, "block %u has an instruction list outside the module's pool", b);
        return;
    }
    for (uint32_t k = 0; k < blk->ninsts && !v->oom; k++) {
        uint32_t i = m->pool[blk->insts + k];
        if (i == 0 || i >= m->ninsts) {
            err(v, loc, "block %u lists instruction number %u, which does not exist", b, i);
            continue;
        }
        if (v->iseen[i]) {
            err(v, m->insts[i].loc, "instruction %u ('%s') appears more than once in the module", i,
                opname(m->insts[i].op));
            continue;
        }
        v->iseen[i] = 1;
        if (m->insts[i].op == OP_YIELD && (!owner || k + 1 != blk->ninsts)) {
            err(v, m->insts[i].loc, "'yield' may only end the body of a 'for'");
            continue;
        }
        check_inst(v, i, depth);
    }
}

static void check_kernel(Verifier *v, uint32_t ki)
{
    const TirModule *m = v->m;
    const TirKernel *k = &m->kernels[ki];
    const char *name = safe_str(m, k->name);
    if (!name) {
        err(v, k->loc, "kernel %u has an invalid name", ki);
        name = "?";
    } else if (!tir_kernel_name_ok(name, strlen(name))) {
        err(v, k->loc, "kernel name '@%.60s' is not a PTX identifier", name);
    }
    for (uint32_t j = 0; j < ki; j++) {
        const char *other = safe_str(m, m->kernels[j].name);
        if (other && *name && !strcmp(other, name))
            err(v, k->loc, "kernel @%.60s is defined more than once", name);
    }
    if (k->warps != 1 && k->warps != 2 && k->warps != 4 && k->warps != 8 && k->warps != 16)
        err(v, k->loc, "kernel @%.60s: warps(%u) must be 1, 2, 4, 8 or 16", name, k->warps);
    for (int g = 0; g < 3; g++)
        if (k->grid[g] > 0x7FFFFFFFu)
            err(v, k->loc, "kernel @%.60s: grid size %u is too large", name, k->grid[g]);
    if (!pool_range_ok(m, k->params, k->nparams)) {
        err(v, k->loc, "kernel @%.60s: parameter list outside the module's pool", name);
        return;
    }
    size_t mark = v->nscope;
    for (uint32_t p = 0; p < k->nparams; p++) {
        uint32_t val = m->pool[k->params + p];
        if (!define(v, k->loc, val, VAL_PARAM, ki, p))
            continue;
        TirType t = m->values[val].type;
        if (t.kind != TY_PTR && t.kind != TY_SCALAR) {
            char tb[64];
            err(v, k->loc, "kernel @%.60s: parameter %u has type %s; only pointers and scalars can be passed",
                name, p + 1, tir_type_str(t, tb, sizeof tb));
        }
    }
    uint32_t b = k->body;
    if (b == 0 || b >= m->nblocks) {
        err(v, k->loc, "kernel @%.60s has no body block (block %u)", name, b);
    } else if (v->bseen[b]) {
        err(v, k->loc, "kernel @%.60s: body block %u is also used elsewhere", name, b);
    } else if (m->blocks[b].parent != 0 || m->blocks[b].nargs != 0) {
        err(v, k->loc, "kernel @%.60s: body block %u looks like a loop body", name, b);
    } else {
        v->bseen[b] = 1;
        walk_block(v, b, 0, 0);
    }
    pop_scope(v, mark);
}

int tir_verify(const TirModule *m, Diag *d)
{
    if (!m) {
        diag_error(d, (TirLoc){0}, "verifier: no module");
        return 1;
    }
    if (m->oom) {
        diag_error(d, (TirLoc){0}, "verifier: the module ran out of memory while it was built");
        return 1;
    }
    if (m->ninsts == 0 || m->nvalues == 0 || m->nblocks == 0 || !m->insts || !m->values || !m->blocks ||
        m->ninsts > m->cap_insts || m->nvalues > m->cap_values || m->nblocks > m->cap_blocks ||
        m->npool > m->cap_pool || m->nstrs > m->cap_strs || m->nkernels > m->cap_kernels ||
        (m->nkernels && !m->kernels)) {
        diag_error(d, (TirLoc){0}, "verifier: the module's arrays are inconsistent");
        return 1;
    }
    Verifier v = {.m = m, .d = d};
    v.vstate = calloc(m->nvalues, 1);
    v.iseen = calloc(m->ninsts, 1);
    v.bseen = calloc(m->nblocks, 1);
    if (!v.vstate || !v.iseen || !v.bseen)
        v.oom = 1;
    for (uint32_t k = 0; k < m->nkernels && !v.oom; k++)
        check_kernel(&v, k);
    if (v.oom) {
        diag_error(d, (TirLoc){0}, "verifier: out of memory");
        v.errors++;
    }
    free(v.vstate);
    free(v.iseen);
    free(v.bseen);
    free(v.scope);
    return v.errors;
}
