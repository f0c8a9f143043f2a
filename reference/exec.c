/*
 * The reference executor's driver: argument binding, the grid, control flow
 * (blocks, for loops with carried values), constants, views, loads and
 * stores. The computing ops live in exec_ops.c; the layout of a value during
 * a run is described in exec_impl.h.
 *
 * Needs: a module that tir_verify accepts (checked here first), so every
 * index and type below is known to be consistent.
 * Guarantees: docs/TIR.md semantics; loads and stores touch only the
 * in-bounds elements of their view (address math in 64 bits, wrapping, no
 * undefined behaviour whatever the strides); no signal for any data; every
 * allocation is freed before returning.
 */
#include "reference/exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/exec_impl.h"

int exec_fail(Exec *e, const TirInst *in, const char *fmt, ...)
{
    if (e->failed)
        return -1; /* keep the first explanation */
    e->failed = 1;
    const char *file = e->m->file ? e->m->file : "<input>";
    if (in && in->loc.line)
        sb_printf(e->err, "%s:%u:%u: error: ", file, in->loc.line, in->loc.col);
    else
        sb_printf(e->err, "%s: error: ", file);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(e->err, fmt, ap);
    va_end(ap);
    if (in && in->op < OP_COUNT)
        sb_printf(e->err, " (in '%s', program (%u, %u, %u))\n", tir_ops[in->op].name, e->pid[0], e->pid[1],
                  e->pid[2]);
    else
        sb_puts(e->err, "\n");
    return -1;
}

Slot *exec_def(Exec *e, const TirInst *in, uint32_t v)
{
    Slot *s = &e->slots[v];
    TirType t = e->m->values[v].type;
    if (s->kind == TY_NONE) {
        s->kind = t.kind;
        s->elem = t.elem;
        if (t.kind == TY_TILE) {
            size_t n = (size_t)t.dim[0] * t.dim[1], bytes = n * elem_size(t.elem);
            if (n == 0 || n > TIR_MAX_TILE_ELEMS) {
                exec_fail(e, in, "tile of %zu elements", n);
                return NULL;
            }
            if (e->bytes + bytes > TIR_EXEC_MAX_BYTES) {
                exec_fail(e, in, "the run needs more than %zu MiB of tile memory", TIR_EXEC_MAX_BYTES >> 20);
                return NULL;
            }
            s->data = malloc(bytes);
            if (!s->data) {
                exec_fail(e, in, "out of memory");
                return NULL;
            }
            e->bytes += bytes;
            s->n = (uint32_t)n;
            s->rows = t.dim[0];
            s->cols = t.dim[1];
        } else {
            s->data = &s->sv;
            s->n = 1;
            s->rows = s->cols = 1;
        }
    }
    return s;
}

/* Copies one value into another of the same type (loop-carried values). */
static int copy_value(Exec *e, const TirInst *in, uint32_t dst, uint32_t src)
{
    Slot *d = exec_def(e, in, dst);
    const Slot *s = &e->slots[src];
    if (!d)
        return -1;
    if (d->kind == TY_TILE)
        memcpy(d->data, s->data, (size_t)d->n * elem_size(d->elem));
    else {
        d->sv = s->sv;
        d->ptr = s->ptr;
    }
    return 0;
}

static int64_t scalar_int(Exec *e, uint32_t v) { return slot_geti(&e->slots[v], 0); }

/* The bit pattern of `value` as one element of type elem (full, padding). */
static void elem_pattern(uint8_t elem, double value, unsigned char out[8])
{
    memset(out, 0, 8);
    switch (elem) {
    case ELEM_F32: {
        uint32_t bits = tir_f32_bits(value);
        memcpy(out, &bits, 4);
        break;
    }
    case ELEM_F16:
    case ELEM_BF16: {
        uint16_t h = elem == ELEM_F16 ? f64_to_f16(value) : f64_to_bf16(value);
        memcpy(out, &h, 2);
        break;
    }
    case ELEM_I32: {
        /* the type checker admits only whole numbers in range */
        int32_t i = (value >= -2147483648.0 && value <= 2147483647.0) ? (int32_t)value : 0;
        memcpy(out, &i, 4);
        break;
    }
    default: {
        int64_t i = (value >= -9223372036854775808.0 && value < 9223372036854775808.0) ? (int64_t)value : 0;
        memcpy(out, &i, 8);
        break;
    }
    }
}

static void fill(Slot *s, const unsigned char pat[8])
{
    size_t es = elem_size(s->elem);
    for (uint32_t k = 0; k < s->n; k++)
        memcpy((char *)s->data + (size_t)k * es, pat, es);
}

/* ---- views, loads, stores ---- */

static int exec_view(Exec *e, const TirInst *in, const uint32_t *a)
{
    Slot *s = exec_def(e, in, in->result);
    if (!s)
        return -1;
    int rank = (int)((in->nargs - 1) / 2);
    s->base = (char *)e->slots[a[0]].ptr;
    s->rank = rank;
    for (int d = 0; d < rank; d++) {
        s->dim[d] = scalar_int(e, a[1 + d]);
        s->stride[d] = scalar_int(e, a[1 + rank + d]);
    }
    return 0;
}

/* The address of element (b, row, col) of view v, in wrapping 64-bit
 * arithmetic (only computed for in-bounds elements). */
static void *elem_addr(const Slot *v, int64_t b, int64_t row, int64_t col, size_t es)
{
    int r = v->rank;
    uint64_t off = (uint64_t)row * (uint64_t)v->stride[r - 2] + (uint64_t)col * (uint64_t)v->stride[r - 1];
    if (r == 3)
        off += (uint64_t)b * (uint64_t)v->stride[0];
    return (void *)((uintptr_t)v->base + (uintptr_t)(off * es));
}

/* i + r without overflow, or -1 (out of bounds) when it does not fit. */
static int64_t add_index(int64_t i, uint32_t r)
{
    int64_t out;
    return __builtin_add_overflow(i, (int64_t)r, &out) ? -1 : out;
}

/* load / store: the view operand and the indices that follow it. */
typedef struct {
    const Slot *v;
    int64_t b, i, j;
    int64_t rows, cols; /* the view's last two extents */
    int batch_ok;
} Access;

static Access access_of(Exec *e, const uint32_t *a, uint32_t vpos)
{
    Access x = {.v = &e->slots[a[vpos]]};
    int r = x.v->rank;
    x.b = r == 3 ? scalar_int(e, a[vpos + 1]) : 0;
    x.i = scalar_int(e, a[vpos + r - 1]);
    x.j = scalar_int(e, a[vpos + r]);
    x.rows = x.v->dim[r - 2];
    x.cols = x.v->dim[r - 1];
    x.batch_ok = r == 2 || (x.b >= 0 && x.b < x.v->dim[0]);
    return x;
}

static int exec_load(Exec *e, const TirInst *in, const uint32_t *a)
{
    Slot *t = exec_def(e, in, in->result);
    if (!t)
        return -1;
    Access x = access_of(e, a, 0);
    size_t es = elem_size(t->elem);
    unsigned char pad[8];
    elem_pattern(t->elem, in->fval, pad);
    char *dst = t->data;
    for (uint32_t r = 0; r < t->rows; r++) {
        int64_t row = add_index(x.i, r);
        int row_ok = x.batch_ok && row >= 0 && row < x.rows;
        for (uint32_t c = 0; c < t->cols; c++, dst += es) {
            int64_t col = add_index(x.j, c);
            if (row_ok && col >= 0 && col < x.cols)
                memcpy(dst, elem_addr(x.v, x.b, row, col, es), es);
            else
                memcpy(dst, pad, es);
        }
    }
    return 0;
}

static int exec_store(Exec *e, const uint32_t *a)
{
    const Slot *t = &e->slots[a[0]];
    Access x = access_of(e, a, 1);
    if (!x.batch_ok)
        return 0;
    size_t es = elem_size(t->elem);
    const char *src = t->data;
    for (uint32_t r = 0; r < t->rows; r++) {
        int64_t row = add_index(x.i, r);
        if (row < 0 || row >= x.rows)
            continue;
        for (uint32_t c = 0; c < t->cols; c++) {
            int64_t col = add_index(x.j, c);
            if (col >= 0 && col < x.cols)
                memcpy(elem_addr(x.v, x.b, row, col, es), src + ((size_t)r * t->cols + c) * es, es);
        }
    }
    return 0;
}

/* ---- control flow ---- */

static int run_block(Exec *e, uint32_t b, uint32_t *yield);

static int exec_for(Exec *e, const TirInst *in, const uint32_t *a)
{
    const TirModule *m = e->m;
    const TirBlock *blk = &m->blocks[in->body];
    const uint32_t *ba = tir_block_args(m, blk);
    uint32_t nc = in->nargs - 3;
    int64_t lo = scalar_int(e, a[0]), hi = scalar_int(e, a[1]), step = scalar_int(e, a[2]);
    /* results start as the initial values: a loop that runs zero times
     * returns them; otherwise each yield overwrites them */
    for (uint32_t k = 0; k < nc; k++)
        if (copy_value(e, in, in->result + k, a[3 + k]) || copy_value(e, in, ba[1 + k], a[3 + k]))
            return -1;
    Slot *iv = exec_def(e, in, ba[0]);
    if (!iv)
        return -1;
    /* the bounds are i32, so i + step never overflows in 64 bits */
    for (int64_t i = lo; step > 0 && i < hi; i += step) {
        slot_puti(iv, 0, i);
        uint32_t y = 0;
        if (run_block(e, in->body, &y))
            return -1;
        if (!y)
            return exec_fail(e, in, "loop body ended without 'yield'");
        const uint32_t *ya = tir_args(m, &m->insts[y]);
        /* through the results, so that `yield %b, %a` swaps correctly */
        for (uint32_t k = 0; k < nc; k++)
            if (copy_value(e, in, in->result + k, ya[k]))
                return -1;
        for (uint32_t k = 0; k < nc; k++)
            if (copy_value(e, in, ba[1 + k], in->result + k))
                return -1;
    }
    return 0;
}

static int exec_inst(Exec *e, uint32_t i)
{
    const TirModule *m = e->m;
    const TirInst *in = &m->insts[i];
    const uint32_t *a = tir_args(m, in);
    Slot *s;
    unsigned char pat[8];
    switch ((TirOp)in->op) {
    case OP_CONST:
        if (!(s = exec_def(e, in, in->result)))
            return -1;
        if (s->elem == ELEM_F32) {
            uint32_t bits = tir_f32_bits(in->fval); /* a NaN's payload as given */
            memcpy(&s->sv.f32, &bits, sizeof bits);
        } else
            slot_puti(s, 0, in->i64);
        return 0;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        if (!(s = exec_def(e, in, in->result)))
            return -1;
        if (in->ival < 0 || in->ival > 2)
            return exec_fail(e, in, "axis %d", (int)in->ival);
        slot_puti(s, 0, in->op == OP_PROGRAM_ID ? e->pid[in->ival] : e->grid[in->ival]);
        return 0;
    case OP_ZEROS:
    case OP_FULL:
        if (!(s = exec_def(e, in, in->result)))
            return -1;
        elem_pattern(s->elem, in->op == OP_FULL ? in->fval : 0.0, pat);
        fill(s, pat);
        return 0;
    case OP_VIEW:
        return exec_view(e, in, a);
    case OP_LOAD:
        return exec_load(e, in, a);
    case OP_STORE:
        return exec_store(e, a);
    case OP_FOR:
        return exec_for(e, in, a);
    case OP_CAST:
        return exec_cast(e, in);
    case OP_SPLAT:
        return exec_splat(e, in);
    case OP_BROADCAST:
        return exec_broadcast(e, in);
    case OP_DOT:
        return exec_dot(e, in);
    case OP_REDUCE_SUM:
    case OP_REDUCE_MAX:
        return exec_reduce(e, in);
    case OP_INLINE_PTX:
        return exec_inline_ptx(e, in);
    case OP_YIELD:
        return exec_fail(e, in, "'yield' outside a loop body");
    default:
        if (in->op < OP_COUNT && (tir_ops[in->op].flags & OPF_EWISE || in->op == OP_CDIV))
            return exec_ewise(e, in);
        return exec_fail(e, in, "the reference executor does not implement op %u", in->op);
    }
}

/* Runs block b; a final yield is not executed but returned in *yield. */
static int run_block(Exec *e, uint32_t b, uint32_t *yield)
{
    const TirModule *m = e->m;
    const TirBlock *blk = &m->blocks[b];
    const uint32_t *insts = tir_block_insts(m, blk);
    for (uint32_t k = 0; k < blk->ninsts; k++) {
        uint32_t i = insts[k];
        if (m->insts[i].op == OP_YIELD) {
            *yield = i;
            return 0;
        }
        if (exec_inst(e, i))
            return -1;
    }
    return 0;
}

/* ---- entry point ---- */

static int bind_params(Exec *e, const TirKernel *k, void **args)
{
    const TirModule *m = e->m;
    const char *kname = tir_str(m, k->name);
    if (k->nparams && !args) {
        exec_fail(e, NULL, "kernel @%s takes %u arguments; args is NULL", kname, k->nparams);
        return -1;
    }
    const uint32_t *params = m->pool + k->params;
    for (uint32_t p = 0; p < k->nparams; p++) {
        const TirValue *v = &m->values[params[p]];
        if (!args[p]) {
            exec_fail(e, NULL, "kernel @%s: argument %u (%%%s) is NULL; args[i] must point to the value", kname,
                      p + 1, tir_str(m, v->name));
            return -1;
        }
        Slot *s = exec_def(e, NULL, params[p]);
        if (!s)
            return -1;
        if (v->type.kind == TY_PTR)
            memcpy(&s->ptr, args[p], sizeof(void *));
        else if (v->type.elem == ELEM_I32)
            memcpy(&s->sv.i32, args[p], sizeof(int32_t));
        else if (v->type.elem == ELEM_I64)
            memcpy(&s->sv.i64, args[p], sizeof(int64_t));
        else
            memcpy(&s->sv.f32, args[p], sizeof(float));
    }
    return 0;
}

int tir_exec(const TirModule *m, uint32_t kernel, const unsigned grid[3], void **args,
             TirPrecision default_precision, StrBuf *err)
{
    if (!m || !err) {
        if (err)
            sb_puts(err, "error: tir_exec: no module\n");
        return -1;
    }
    Diag d;
    diag_init(&d, m->file, NULL, 0);
    int nerr = tir_verify(m, &d);
    if (nerr || d.nerrors) {
        sb_puts(err, "error: tir_exec: the module does not verify:\n");
        sb_putn(err, d.log.data ? d.log.data : "", d.log.len);
        diag_free(&d);
        return -1;
    }
    diag_free(&d);
    Exec e = {.m = m, .err = err};
    e.defprec = default_precision > PREC_DEFAULT && default_precision < PREC_COUNT ? default_precision
                                                                                 : PREC_TF32_RNA;
    if (kernel >= m->nkernels) {
        exec_fail(&e, NULL, "tir_exec: no kernel number %u (the module has %u)", kernel, m->nkernels);
        return -1;
    }
    const TirKernel *k = &m->kernels[kernel];
    const char *kname = tir_str(m, k->name);
    if (grid) {
        for (int g = 0; g < 3; g++)
            e.grid[g] = grid[g];
    } else if (k->grid[0] == 0) {
        exec_fail(&e, NULL, "kernel @%s has no grid(...) attribute; pass a grid", kname);
        return -1;
    } else {
        for (int g = 0; g < 3; g++)
            e.grid[g] = k->grid[g] ? k->grid[g] : 1;
    }
    for (int g = 0; g < 3; g++)
        if (e.grid[g] > 0x7FFFFFFFu) { /* 0: no programs run (tilecLaunch: nothing launched) */
            exec_fail(&e, NULL, "kernel @%s: grid size %u along axis %d (must be 0 .. 2^31-1)", kname, e.grid[g], g);
            return -1;
        }
    if ((uint64_t)m->nvalues * sizeof(Slot) > TIR_EXEC_MAX_BYTES) {
        exec_fail(&e, NULL, "the module has too many values (%u) to execute", m->nvalues);
        return -1;
    }
    e.slots = calloc(m->nvalues, sizeof *e.slots);
    if (!e.slots) {
        exec_fail(&e, NULL, "out of memory");
        return -1;
    }
    int rc = bind_params(&e, k, args);
    for (unsigned z = 0; z < e.grid[2] && !rc; z++)
        for (unsigned y = 0; y < e.grid[1] && !rc; y++)
            for (unsigned x = 0; x < e.grid[0] && !rc; x++) {
                e.pid[0] = x, e.pid[1] = y, e.pid[2] = z;
                uint32_t yield = 0;
                rc = run_block(&e, k->body, &yield);
            }
    for (uint32_t v = 0; v < m->nvalues; v++)
        if (e.slots[v].kind == TY_TILE)
            free(e.slots[v].data);
    free(e.slots);
    return rc ? -1 : 0;
}
