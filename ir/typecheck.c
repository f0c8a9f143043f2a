/*
 * Per-instruction typing rules of docs/TIR.md: operand counts and types,
 * attribute ranges, written result types, and the inferred result type.
 *
 * tir_check_inst() looks at one instruction and the types of its operand
 * values only, so the parser can call it as each instruction is built (the
 * error then points at the op's token) and the verifier can call it on a
 * module rewritten by passes. It never trusts indices: operand, block, value
 * and string offsets are range-checked before use, so a corrupt module gives
 * errors, not crashes. Errors are reported at in->loc, prefixed by the op name.
 * A yield is matched against its loop by the check of the for (errors at the
 * yield's loc) once the body holds instructions: a yield alone cannot find
 * its loop.
 *
 * tir_literal_type() is the one place that decides the type of a literal
 * operand (`add %x, 1`); the parser uses it to type the literal and the
 * printer to decide whether a constant can be printed back inline. It is not
 * in ir.h yet, so parse.c and print.c declare it themselves.
 *
 * Rules chosen where docs/TIR.md is silent:
 * - splat of an f32 scalar to an f16/bf16 tile is allowed (the value is
 *   rounded to nearest even), because f16/bf16 scalars do not exist and a
 *   tile of them could otherwise only come from load or cast;
 * - dot on f16/bf16 inputs takes no precision attribute (it only means
 *   something for f32 operands), so a non-default precision there is an error;
 * - for-loops carry scalars and tiles only (not pointers or views);
 * - casts go between any two scalar types or any two tile types of one shape.
 */
#include "ir.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

TirType tir_literal_type(const TirModule *m, TirOp op, const uint32_t *args, const uint8_t *is_lit,
                         uint32_t nargs, uint32_t k, TirType written, uint32_t loop);

/* The state of one check: where errors go and how many there were. */
typedef struct {
    const TirModule *m;
    const TirInst *in;
    Diag *d;
    int nerr;
    unsigned slot;
    char buf[4][48]; /* type strings for messages */
} Ck;

#define ERR(c, ...) (diag_error((c)->d, (c)->in->loc, __VA_ARGS__), (c)->nerr++)
#define NAME(c) (tir_ops[(c)->in->op].name)

/* Formats t into one of four rotating buffers, so a message can show up to
 * four types. */
static const char *ts(Ck *c, TirType t)
{
    char *b = c->buf[c->slot++ % 4];
    return tir_type_str(t, b, sizeof c->buf[0]);
}

static TirType T(Ck *c, uint32_t j) { return c->m->values[c->m->pool[c->in->args + j]].type; }

static int is_scalar(TirType t, TirElem e) { return t.kind == TY_SCALAR && t.elem == e; }
static int is_int_scalar(TirType t) { return t.kind == TY_SCALAR && (t.elem == ELEM_I32 || t.elem == ELEM_I64); }
static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

/* Reports why a written result type cannot exist (tile limits, scalar elems). */
static int check_written(Ck *c, TirType w)
{
    switch (w.kind) {
    case TY_SCALAR:
        if (w.elem == ELEM_I32 || w.elem == ELEM_I64 || w.elem == ELEM_F32)
            return 1;
        ERR(c, "%s: %s is not a scalar type (scalars are i32, i64 and f32)", NAME(c), tir_elem_name((TirElem)w.elem));
        return 0;
    case TY_TILE:
        if (w.elem < ELEM_I32 || w.elem > ELEM_F32 || !is_pow2(w.dim[0]) || !is_pow2(w.dim[1]) ||
            w.dim[0] > TIR_MAX_TILE_DIM || w.dim[1] > TIR_MAX_TILE_DIM ||
            (uint64_t)w.dim[0] * w.dim[1] > TIR_MAX_TILE_ELEMS) {
            ERR(c, "%s: invalid tile type %s (dimensions must be powers of two up to %u, at most %u elements)",
                NAME(c), ts(c, w), TIR_MAX_TILE_DIM, TIR_MAX_TILE_ELEMS);
            return 0;
        }
        return 1;
    case TY_NONE:
        ERR(c, "%s needs a result type (': type')", NAME(c));
        return 0;
    default:
        ERR(c, "%s: a result of type %s cannot be written", NAME(c), ts(c, w));
        return 0;
    }
}

/* A float stored in fval for an integer element type must be a whole number
 * of that type's range (full values, load padding). */
static int int_value_ok(double v, TirElem e)
{
    if (!isfinite(v) || v != trunc(v))
        return 0;
    if (e == ELEM_I32)
        return v >= -2147483648.0 && v <= 2147483647.0;
    return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
}

/* Element-wise ops: scalars of one type, tiles of one type and shape, or
 * tiles with scalars of their element type. */
static TirType check_ewise(Ck *c)
{
    TirType none = {0}, tile = {0};
    const TirInst *in = c->in;
    unsigned flags = tir_ops[in->op].flags;
    TirType t0 = T(c, 0);
    for (uint32_t j = 0; j < in->nargs; j++) {
        TirType t = T(c, j);
        if (t.kind != TY_SCALAR && t.kind != TY_TILE) {
            ERR(c, "%s: operand %u has type %s; expected a scalar or a tile", NAME(c), j + 1, ts(c, t));
            return none;
        }
        if (t.elem != t0.elem) {
            ERR(c, "%s: operand types differ: %s and %s", NAME(c), ts(c, t0), ts(c, t));
            return none;
        }
        if (t.kind == TY_TILE) {
            if (tile.kind == TY_TILE && !tir_type_eq(tile, t)) {
                ERR(c, "%s: tile shapes differ: %s and %s", NAME(c), ts(c, tile), ts(c, t));
                return none;
            }
            tile = t;
        }
    }
    if ((flags & OPF_SCALAR) && tile.kind == TY_TILE) {
        ERR(c, "%s takes scalar operands only, got %s", NAME(c), ts(c, tile));
        return none;
    }
    if ((flags & OPF_FLOAT) && !tir_elem_is_float((TirElem)t0.elem)) {
        ERR(c, "%s needs float operands, got %s", NAME(c), ts(c, t0));
        return none;
    }
    if ((flags & OPF_INT) && tir_elem_is_float((TirElem)t0.elem)) {
        ERR(c, "%s needs integer operands, got %s", NAME(c), ts(c, t0));
        return none;
    }
    if (in->op == OP_ROUND_TF32) {
        if (t0.elem != ELEM_F32) {
            ERR(c, "round_tf32: operand must be f32, got %s", ts(c, t0));
            return none;
        }
        if (in->ival < 0 || in->ival >= ROUND_COUNT) {
            ERR(c, "round_tf32: unknown rounding mode %d", (int)in->ival);
            return none;
        }
    }
    return tile.kind == TY_TILE ? tile : t0;
}

/* Integer scalar operands [from, nargs): indices, extents, strides. */
static int check_indices(Ck *c, uint32_t from, const char *what)
{
    for (uint32_t j = from; j < c->in->nargs; j++)
        if (!is_int_scalar(T(c, j))) {
            ERR(c, "%s: %s must be i32 or i64 scalars, got %s", NAME(c), what, ts(c, T(c, j)));
            return 0;
        }
    return 1;
}

/* The view operand of load/store and the operand count its rank implies. */
static int check_view_access(Ck *c, uint32_t vpos, TirType *view)
{
    *view = T(c, vpos);
    if (view->kind != TY_VIEW) {
        ERR(c, "%s: operand %u must be a view, got %s", NAME(c), vpos + 1, ts(c, *view));
        return 0;
    }
    uint32_t nidx = c->in->nargs - vpos - 1;
    if (nidx != view->rank) {
        ERR(c, "%s: a rank-%u view needs %u indices, got %u", NAME(c), view->rank, view->rank, nidx);
        return 0;
    }
    return check_indices(c, vpos + 1, "indices");
}

static TirType check_dot(Ck *c)
{
    TirType none = {0}, a = T(c, 0), b = T(c, 1), acc = T(c, 2);
    if (a.kind != TY_TILE || b.kind != TY_TILE || acc.kind != TY_TILE) {
        ERR(c, "dot: operands must be tiles, got %s, %s, %s", ts(c, a), ts(c, b), ts(c, acc));
        return none;
    }
    if (a.elem != b.elem || !tir_elem_is_float((TirElem)a.elem)) {
        ERR(c, "dot: inputs must be both f32, both f16 or both bf16, got %s and %s", ts(c, a), ts(c, b));
        return none;
    }
    if (acc.elem != ELEM_F32) {
        ERR(c, "dot: the accumulator must be f32, got %s", ts(c, acc));
        return none;
    }
    if (a.dim[1] != b.dim[0]) {
        ERR(c, "dot: inner dimensions differ: %s times %s", ts(c, a), ts(c, b));
        return none;
    }
    if (acc.dim[0] != a.dim[0] || acc.dim[1] != b.dim[1]) {
        ERR(c, "dot: accumulator %s does not match %s times %s", ts(c, acc), ts(c, a), ts(c, b));
        return none;
    }
    if (c->in->ival < 0 || c->in->ival >= PREC_COUNT) {
        ERR(c, "dot: unknown precision %d", (int)c->in->ival);
        return none;
    }
    if (a.elem != ELEM_F32 && c->in->ival != PREC_DEFAULT) {
        ERR(c, "dot: precision applies to f32 inputs only; remove it for %s inputs",
            tir_elem_name((TirElem)a.elem));
        return none;
    }
    return tir_tile(ELEM_F32, a.dim[0], b.dim[1]);
}

/* inline_ptx: 32-bit elements everywhere; tiles of the result's shape; every
 * $N of the template names the result ($0) or an operand. */
static TirType check_inline_ptx(Ck *c)
{
    TirType none = {0}, w = c->in->type;
    const TirModule *m = c->m;
    if (c->in->str == 0 || c->in->str >= m->nstrs || !m->strs[c->in->str]) {
        ERR(c, "inline_ptx: empty template");
        return none;
    }
    if (!check_written(c, w))
        return none;
    if (w.kind != TY_SCALAR && w.kind != TY_TILE)
        return ERR(c, "inline_ptx: result must be a scalar or a tile, got %s", ts(c, w)), none;
    if (tir_elem_bits((TirElem)w.elem) != 32)
        return ERR(c, "inline_ptx: result must have 32-bit elements (i32 or f32), got %s", ts(c, w)), none;
    for (uint32_t j = 0; j < c->in->nargs; j++) {
        TirType t = T(c, j);
        if ((t.kind != TY_SCALAR && t.kind != TY_TILE) || tir_elem_bits((TirElem)t.elem) != 32)
            return ERR(c, "inline_ptx: operand %u must be a scalar or tile of i32 or f32, got %s", j + 1, ts(c, t)),
                   none;
        if (t.kind == TY_TILE && (w.kind != TY_TILE || t.dim[0] != w.dim[0] || t.dim[1] != w.dim[1]))
            return ERR(c, "inline_ptx: tile operand %s does not have the shape of the result %s", ts(c, t),
                       ts(c, w)),
                   none;
    }
    /* the template is NUL-terminated inside the string pool. Only $$, $N
     * and ${N} are accepted: LLVM's asm printer aborts the whole process
     * (report_fatal_error) on other uses of '$' such as "$x", a trailing
     * '$', "${1" or "$(", so they must never reach it. */
    for (const char *s = m->strs + c->in->str; *s; s++) {
        if ((unsigned char)*s >= 0x80) /* ptxas refuses the whole module on one */
            return ERR(c, "inline_ptx: the template has a byte outside ASCII (0x%02x at offset %u); PTX is ASCII",
                       (unsigned char)*s, (unsigned)(s - (m->strs + c->in->str))),
                   none;
        if (*s != '$')
            continue;
        if (s[1] == '$') {
            s++;
            continue;
        }
        int brace = s[1] == '{';
        if (s[1 + brace] < '0' || s[1 + brace] > '9')
            return ERR(c, "inline_ptx: '$' must be followed by an operand number ($0, ${0}) or another '$' "
                          "(for a literal '$')"),
                   none;
        s += brace;
        uint64_t n = 0;
        while (s[1] >= '0' && s[1] <= '9') {
            if (n < 100000)
                n = n * 10 + (uint64_t)(s[1] - '0');
            s++;
        }
        if (brace && *++s != '}')
            return ERR(c, "inline_ptx: '${%llu' must be closed by '}' (operand modifiers are not supported)",
                       (unsigned long long)n),
                   none;
        if (n > c->in->nargs)
            return ERR(c, "inline_ptx: the template refers to $%llu but there %s only %u operand%s",
                       (unsigned long long)n, c->in->nargs == 1 ? "is" : "are", c->in->nargs,
                       c->in->nargs == 1 ? "" : "s"),
                   none;
    }
    return w;
}

/* for: i32 bounds, carried scalars/tiles, body arguments and results of the
 * carried types, and (once the body is complete) a final matching yield. */
static void check_for(Ck *c)
{
    const TirModule *m = c->m;
    const TirInst *in = c->in;
    if (in->nargs < 3) {
        ERR(c, "for needs a lower bound, an upper bound and a step");
        return;
    }
    for (uint32_t j = 0; j < 3; j++)
        if (!is_scalar(T(c, j), ELEM_I32)) {
            static const char *const what[] = {"lower bound", "upper bound", "step"};
            ERR(c, "for: the %s must be i32, got %s", what[j], ts(c, T(c, j)));
            return;
        }
    uint32_t ncarry = in->nargs - 3;
    for (uint32_t k = 0; k < ncarry; k++) {
        TirType t = T(c, 3 + k);
        if (t.kind != TY_SCALAR && t.kind != TY_TILE) {
            ERR(c, "for: carried value %u has type %s; only scalars and tiles can be carried", k + 1, ts(c, t));
            return;
        }
    }
    if (in->nresults != ncarry || (ncarry && (in->result == 0 || (uint64_t)in->result + ncarry > m->nvalues))) {
        ERR(c, "for: %u results for %u carried values", in->nresults, ncarry);
        return;
    }
    for (uint32_t k = 0; k < ncarry; k++)
        if (!tir_type_eq(m->values[in->result + k].type, T(c, 3 + k))) {
            ERR(c, "for: result %u has type %s but the loop carries %s", k + 1,
                ts(c, m->values[in->result + k].type), ts(c, T(c, 3 + k)));
            return;
        }
    if (in->body == 0 || in->body >= m->nblocks) {
        ERR(c, "for has no body");
        return;
    }
    const TirBlock *b = &m->blocks[in->body];
    if (b->nargs != ncarry + 1 || (uint64_t)b->args + b->nargs > m->npool) {
        ERR(c, "for: the body has %u arguments; expected the induction variable and %u carried values", b->nargs,
            ncarry);
        return;
    }
    for (uint32_t k = 0; k <= ncarry; k++) {
        uint32_t v = m->pool[b->args + k];
        TirType want = k ? T(c, 2 + k) : tir_scalar(ELEM_I32);
        if (v == 0 || v >= m->nvalues || !tir_type_eq(m->values[v].type, want)) {
            ERR(c, "for: body argument %u does not have type %s", k, ts(c, want));
            return;
        }
    }
    if (b->ninsts == 0 || (uint64_t)b->insts + b->ninsts > m->npool)
        return; /* the parser checks the header before the body exists */
    uint32_t y = m->pool[b->insts + b->ninsts - 1];
    if (y == 0 || y >= m->ninsts || m->insts[y].op != OP_YIELD) {
        ERR(c, "for: the body must end with 'yield'");
        return;
    }
    const TirInst *yi = &m->insts[y];
    if (yi->nargs != ncarry || (uint64_t)yi->args + yi->nargs > m->npool) {
        diag_error(c->d, yi->loc, "yield gives %u value%s but the loop carries %u", yi->nargs,
                   yi->nargs == 1 ? "" : "s", ncarry);
        c->nerr++;
        return;
    }
    for (uint32_t k = 0; k < ncarry; k++) {
        uint32_t v = m->pool[yi->args + k];
        TirType t = v < m->nvalues ? m->values[v].type : (TirType){0};
        if (!tir_type_eq(t, T(c, 3 + k))) {
            diag_error(c->d, yi->loc, "yield: value %u has type %s but the loop carries %s", k + 1, ts(c, t),
                       ts(c, T(c, 3 + k)));
            c->nerr++;
            return;
        }
    }
}

/* The result type of a well-formed instruction, or TY_NONE after an error. */
static TirType check_op(Ck *c)
{
    TirType none = {0}, w = c->in->type;
    const TirInst *in = c->in;
    TirOp op = (TirOp)in->op;
    unsigned flags = tir_ops[op].flags;
    if (flags & OPF_EWISE || op == OP_CDIV)
        return check_ewise(c);
    if ((flags & OPF_TYPED) && op != OP_INLINE_PTX && !check_written(c, w))
        return none;
    switch (op) {
    case OP_CONST:
        if (w.kind != TY_SCALAR)
            return ERR(c, "const: type must be i32, i64 or f32, got %s", ts(c, w)), none;
        if (w.elem == ELEM_I32 && (in->i64 < INT32_MIN || in->i64 > INT32_MAX))
            return ERR(c, "const: %lld does not fit in i32", (long long)in->i64), none;
        return w;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        if (in->ival < 0 || in->ival > 2)
            return ERR(c, "%s: axis must be 0, 1 or 2, got %d", NAME(c), (int)in->ival), none;
        return tir_scalar(ELEM_I32);
    case OP_CAST: {
        TirType t = T(c, 0);
        if ((t.kind != TY_SCALAR && t.kind != TY_TILE) || t.kind != w.kind)
            return ERR(c, "cast: cannot cast %s to %s%s", ts(c, t), ts(c, w),
                       t.kind == TY_SCALAR && w.kind == TY_TILE ? " (use splat to make a tile of a scalar)" : ""),
                   none;
        if (t.kind == TY_TILE && (t.dim[0] != w.dim[0] || t.dim[1] != w.dim[1]))
            return ERR(c, "cast: shapes differ: %s to %s", ts(c, t), ts(c, w)), none;
        return w;
    }
    case OP_SPLAT: {
        TirType t = T(c, 0);
        int elem_ok = t.elem == w.elem || (t.elem == ELEM_F32 && (w.elem == ELEM_F16 || w.elem == ELEM_BF16));
        if (t.kind != TY_SCALAR)
            return ERR(c, "splat takes a scalar operand, got %s (broadcast stretches a tile)", ts(c, t)), none;
        if (w.kind != TY_TILE)
            return ERR(c, "splat: the result must be a tile, got %s", ts(c, w)), none;
        if (!elem_ok)
            return ERR(c, "splat: cannot splat %s to %s (the scalar must have the tile's element type)", ts(c, t),
                       ts(c, w)),
                   none;
        return w;
    }
    case OP_BROADCAST: {
        TirType t = T(c, 0);
        if (t.kind != TY_TILE || w.kind != TY_TILE || t.elem != w.elem || (t.dim[0] != 1 && t.dim[1] != 1) ||
            (t.dim[0] != 1 && t.dim[0] != w.dim[0]) || (t.dim[1] != 1 && t.dim[1] != w.dim[1]))
            return ERR(c, "broadcast: cannot broadcast %s to %s (the operand must be 1xC, Rx1 or 1x1 of the same "
                          "element type)", ts(c, t), ts(c, w)),
                   none;
        return w;
    }
    case OP_ZEROS:
    case OP_FULL:
        if (w.kind != TY_TILE)
            return ERR(c, "%s: result must be a tile, got %s", NAME(c), ts(c, w)), none;
        if (op == OP_FULL && !tir_elem_is_float((TirElem)w.elem) && !int_value_ok(in->fval, (TirElem)w.elem))
            return ERR(c, "full: %g is not a valid %s value", in->fval, tir_elem_name((TirElem)w.elem)), none;
        return w;
    case OP_VIEW: {
        int rank = in->ival;
        if (rank != 2 && rank != 3)
            return ERR(c, "view: rank must be 2 or 3, got %d", rank), none;
        if (in->nargs != 1u + 2u * (unsigned)rank)
            return ERR(c, "view: rank %d needs a pointer, %d extents and %d strides, got %u operands", rank, rank,
                       rank, in->nargs),
                   none;
        if (T(c, 0).kind != TY_PTR)
            return ERR(c, "view: operand 1 must be a pointer, got %s", ts(c, T(c, 0))), none;
        if (!check_indices(c, 1, "extents and strides"))
            return none;
        return (TirType){.kind = TY_VIEW, .elem = T(c, 0).elem, .rank = (uint8_t)rank};
    }
    case OP_LOAD: {
        TirType v;
        if (in->nargs < 1 || !check_view_access(c, 0, &v))
            return none;
        if (w.kind != TY_TILE)
            return ERR(c, "load: result must be a tile, got %s", ts(c, w)), none;
        if (w.elem != v.elem)
            return ERR(c, "load: tile element type %s differs from the view's %s", tir_elem_name((TirElem)w.elem),
                       tir_elem_name((TirElem)v.elem)),
                   none;
        if (!tir_elem_is_float((TirElem)w.elem) && !int_value_ok(in->fval, (TirElem)w.elem))
            return ERR(c, "load: padding %g is not a valid %s value", in->fval, tir_elem_name((TirElem)w.elem)),
                   none;
        return w;
    }
    case OP_STORE: {
        TirType v, t;
        if (in->nargs < 2)
            return ERR(c, "store needs a tile, a view and indices"), none;
        t = T(c, 0);
        if (t.kind != TY_TILE)
            return ERR(c, "store: operand 1 must be a tile, got %s", ts(c, t)), none;
        if (!check_view_access(c, 1, &v))
            return none;
        if (t.elem != v.elem)
            return ERR(c, "store: tile element type %s differs from the view's %s", tir_elem_name((TirElem)t.elem),
                       tir_elem_name((TirElem)v.elem)),
                   none;
        return none;
    }
    case OP_DOT:
        return check_dot(c);
    case OP_REDUCE_SUM:
    case OP_REDUCE_MAX: {
        TirType t = T(c, 0);
        if (t.kind != TY_TILE)
            return ERR(c, "%s: operand must be a tile, got %s", NAME(c), ts(c, t)), none;
        if (in->ival != 0 && in->ival != 1)
            return ERR(c, "%s: axis must be 0 or 1, got %d", NAME(c), (int)in->ival), none;
        return in->ival == 0 ? tir_tile((TirElem)t.elem, 1, t.dim[1]) : tir_tile((TirElem)t.elem, t.dim[0], 1);
    }
    case OP_INLINE_PTX:
        return check_inline_ptx(c);
    case OP_FOR:
        check_for(c);
        return none;
    case OP_YIELD: /* matched against the loop by check_for and the parser */
        return none;
    default:
        ERR(c, "invalid opcode %u", in->op);
        return none;
    }
}

int tir_check_inst(const TirModule *m, uint32_t i, TirType *result, Diag *d)
{
    TirType none = {0};
    if (result)
        *result = none;
    if (i == 0 || i >= m->ninsts) {
        diag_error(d, (TirLoc){0, 0}, "invalid instruction index %u", i);
        return 1;
    }
    Ck c = {.m = m, .in = &m->insts[i], .d = d};
    const TirInst *in = c.in;
    if (in->op == OP_NONE || in->op >= OP_COUNT)
        return ERR(&c, "invalid opcode %u", in->op), c.nerr;
    int want = tir_ops[in->op].nargs;
    if ((uint64_t)in->args + in->nargs > m->npool)
        return ERR(&c, "%s: operand list out of range", NAME(&c)), c.nerr;
    if (want >= 0 && in->nargs != (uint32_t)want)
        return ERR(&c, "%s expects %d operand%s, got %u", NAME(&c), want, want == 1 ? "" : "s", in->nargs), c.nerr;
    for (uint32_t j = 0; j < in->nargs; j++) {
        uint32_t v = m->pool[in->args + j];
        if (v == 0 || v >= m->nvalues)
            return ERR(&c, "%s: operand %u is not a value", NAME(&c), j + 1), c.nerr;
        if (m->values[v].type.kind == TY_NONE)
            return ERR(&c, "%s: operand %u has no type", NAME(&c), j + 1), c.nerr;
    }
    TirType r = check_op(&c);
    if (c.nerr)
        return c.nerr;
    if (!(tir_ops[in->op].flags & OPF_TYPED) && in->type.kind != TY_NONE && !tir_type_eq(in->type, r)) {
        if (r.kind == TY_NONE)
            ERR(&c, "%s does not produce a value", NAME(&c));
        else
            ERR(&c, "%s: written type %s does not match the inferred type %s", NAME(&c), ts(&c, in->type),
                ts(&c, r));
        return c.nerr;
    }
    if (result)
        *result = r;
    return 0;
}

/* ---- literal operands ---- */

static TirType scalar_of(TirElem e)
{
    TirType none = {0};
    return (e == ELEM_I32 || e == ELEM_I64 || e == ELEM_F32) ? tir_scalar(e) : none;
}

/* Integer operands [from, nargs) are i32 unless one of the non-literal ones
 * is i64. */
static TirType int_group(const TirModule *m, const uint32_t *args, const uint8_t *is_lit, uint32_t from,
                         uint32_t nargs)
{
    for (uint32_t j = from; j < nargs; j++)
        if (!is_lit[j] && args[j] < m->nvalues && is_scalar(m->values[args[j]].type, ELEM_I64))
            return tir_scalar(ELEM_I64);
    return tir_scalar(ELEM_I32);
}

/* The type a literal in operand slot k gets (docs/TIR.md: "the type the op
 * expects there"), from the op, the other operands that are not literals
 * (is_lit[j] == 0, args[j] a value), the written result type and, for a
 * yield, the enclosing for instruction `loop`. TY_NONE when it cannot be
 * told: the caller reports an error (parser) or names the constant (printer). */
TirType tir_literal_type(const TirModule *m, TirOp op, const uint32_t *args, const uint8_t *is_lit,
                         uint32_t nargs, uint32_t k, TirType written, uint32_t loop)
{
    TirType none = {0};
    if (op <= OP_NONE || op >= OP_COUNT || k >= nargs)
        return none;
    if ((tir_ops[op].flags & OPF_EWISE) || op == OP_CDIV) {
        for (uint32_t j = 0; j < nargs; j++) {
            if (is_lit[j] || args[j] >= m->nvalues)
                continue;
            TirType t = m->values[args[j]].type;
            return (t.kind == TY_SCALAR || t.kind == TY_TILE) ? scalar_of((TirElem)t.elem) : none;
        }
        return none;
    }
    switch (op) {
    case OP_SPLAT:
        if (written.kind != TY_TILE)
            return none;
        return (written.elem == ELEM_F16 || written.elem == ELEM_BF16) ? tir_scalar(ELEM_F32)
                                                                       : scalar_of((TirElem)written.elem);
    case OP_INLINE_PTX:
        return (written.kind == TY_SCALAR || written.kind == TY_TILE) ? scalar_of((TirElem)written.elem) : none;
    case OP_VIEW:
    case OP_LOAD:
        return k >= 1 ? int_group(m, args, is_lit, 1, nargs) : none;
    case OP_STORE:
        return k >= 2 ? int_group(m, args, is_lit, 2, nargs) : none;
    case OP_FOR:
        return k < 3 ? tir_scalar(ELEM_I32) : none;
    case OP_YIELD: {
        if (loop == 0 || loop >= m->ninsts || m->insts[loop].op != OP_FOR)
            return none;
        const TirInst *f = &m->insts[loop];
        if (3 + k >= f->nargs || (uint64_t)f->args + f->nargs > m->npool)
            return none;
        uint32_t v = m->pool[f->args + 3 + k];
        return (v < m->nvalues && m->values[v].type.kind == TY_SCALAR) ? m->values[v].type : none;
    }
    default:
        return none;
    }
}
