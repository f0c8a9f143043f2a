/*
 * Views, tile loads and tile stores: the only code that touches global
 * memory, and the only place bounds are handled.
 *
 * Loads never access memory outside the view: each element's coordinates
 * are clamped into the view (so the address is always that of an in-view
 * element, no per-element branch) and the value is replaced by the padding
 * where the element lies outside; a view with no elements skips the load
 * entirely. Stores write in-view elements only, each under its predicate,
 * except where the whole tile lies inside the view.
 */
#include "compiler/lower.h"

#include <string.h>

static LLVMValueRef sext64(Lower *L, uint32_t v)
{
    LLVMValueRef s = lw_val(L, v)->s;
    if (LLVMTypeOf(s) == L->t_i64)
        return s;
    return LLVMBuildSExt(L->b, s, L->t_i64, "");
}

void lower_VIEW(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    const uint32_t *a = tir_args(L->m, in);
    LVal v = {.kind = LV_VIEW, .rank = in->ival, .base = lw_val(L, a[0])->s};
    /* a cluster launch's added program (-fwgmma-cluster): every view empty, its checked stores store nothing */
    LLVMValueRef extra = L->cluster ? wg_cluster_extra(L) : NULL;
    for (int d = 0; d < v.rank; d++) {
        v.dims[d] = sext64(L, a[1 + d]);
        if (extra)
            v.dims[d] = LLVMBuildSelect(L->b, extra, lw_const_i64(L, 0), v.dims[d], "");
        v.strides[d] = sext64(L, a[1 + v.rank + d]);
    }
    lw_set(L, in->result, v);
}

/* 0 <= x < d, signed (d <= 0: never) */
LLVMValueRef lw_in_range(Lower *L, LLVMValueRef x, LLVMValueRef d)
{
    LLVMValueRef ge = LLVMBuildICmp(L->b, LLVMIntSGE, x, lw_const_i64(L, 0), "");
    return LLVMBuildAnd(L->b, ge, LLVMBuildICmp(L->b, LLVMIntSLT, x, d, ""), "");
}

Access lw_access(Lower *L, const TirInst *in, uint32_t view_arg, TirElem e)
{
    const uint32_t *a = tir_args(L->m, in);
    const LVal *v = lw_val(L, a[view_arg]);
    const uint32_t *idx = a + view_arg + 1;
    Access x = {.base = v->base};
    int o = v->rank - 2; /* 1 for a batched view */
    x.d0 = v->dims[o];
    x.d1 = v->dims[o + 1];
    x.s0 = v->strides[o];
    x.s1 = v->strides[o + 1];
    x.i0 = sext64(L, idx[o]);
    x.i1 = sext64(L, idx[o + 1]);
    LLVMValueRef pos = lw_const_i64(L, 0);
    x.nonempty = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, x.d0, pos, ""),
                              LLVMBuildICmp(L->b, LLVMIntSGT, x.d1, pos, ""), "nonempty");
    if (o) {
        LLVMValueRef bi = sext64(L, idx[0]);
        x.nonempty = LLVMBuildAnd(L->b, x.nonempty, lw_in_range(L, bi, v->dims[0]), "");
        /* only dereferenced when the batch index is in range */
        LLVMValueRef off = LLVMBuildMul(L->b, bi, v->strides[0], "");
        x.base = LLVMBuildGEP2(L->b, lw_elem_type(L, e), x.base, &off, 1, "batch");
    }
    return x;
}

static LLVMValueRef pad_value(Lower *L, TirElem e, double pad)
{
    if (tir_elem_is_float(e))
        return lw_const_float(L, e, pad);
    return LLVMConstInt(lw_elem_type(L, e), (unsigned long long)(long long)pad, 1);
}


static LLVMValueRef clamp(Lower *L, LLVMValueRef x, LLVMValueRef d)
{
    LLVMTypeRef t = L->t_i64;
    LLVMValueRef hi[2] = {x, LLVMBuildSub(L->b, d, lw_const_i64(L, 1), "")};
    LLVMValueRef y = lw_call(L, "llvm.smin", &t, 1, hi, 2);
    LLVMValueRef lo[2] = {y, lw_const_i64(L, 0)};
    return lw_call(L, "llvm.smax", &t, 1, lo, 2);
}

/* Per-row and per-column parts of element addresses: a thread's registers
 * share few distinct rows and columns, so bounds checks, clamps and the
 * stride multiplications are done once per row and once per column (and
 * for the checked stores, a row's address and a column's byte offset).
 * Unclamped, a row's or column's offset is the thread's first one plus
 * delta * stride (first: (origin + base) * stride, made once), so that with
 * a constant stride the offsets differ by constants: as (origin + base +
 * delta) * stride each, NVPTX's Nary reassociation rewrote every address
 * (bench/NOTES.md v42). */
typedef struct {
    uint32_t key[2][64];
    LLVMValueRef ok[2][64], off[2][64], at[2][64];
    LLVMValueRef first[2], first_at[2]; /* first_at: the checked stores' first row address, column bytes */
    uint32_t n[2];
} Coords;

/* The thread's first row's (axis 0) or column's offset, (origin + base) * stride. */
static LLVMValueRef first_of(Lower *L, Coords *c, const Access *x, int axis, LLVMValueRef base)
{
    if (!c->first[axis])
        c->first[axis] = LLVMBuildMul(L->b, LLVMBuildAdd(L->b, axis ? x->i1 : x->i0, base, ""), axis ? x->s1 : x->s0, "");
    return c->first[axis];
}

/* The element offset of a row or column (unclamped: first plus delta *
 * stride). */
static LLVMValueRef coord_off(Lower *L, Coords *c, const Access *x, int axis, LLVMValueRef base, uint32_t delta,
                              int clamped, LLVMValueRef g)
{
    LLVMValueRef s = axis ? x->s1 : x->s0;
    if (clamped)
        return LLVMBuildMul(L->b, clamp(L, g, axis ? x->d1 : x->d0), s, "");
    return LLVMBuildAdd(L->b, first_of(L, c, x, axis, base), LLVMBuildMul(L->b, lw_const_i64(L, delta), s, ""), "");
}

/* axis 0: rows (d0, s0), axis 1: columns (d1, s1); the offset only where
 * off is not NULL: a Coords serves loads and unchecked stores, which ask for
 * offsets, or checked stores, which make their addresses themselves (never
 * both); returns the entry's index in c, or -1 where c is full */
static int coord(Lower *L, Coords *c, const Access *x, int axis, LLVMValueRef base, uint32_t delta, int clamped,
                 LLVMValueRef *ok, LLVMValueRef *off)
{
    for (uint32_t k = 0; k < c->n[axis]; k++)
        if (c->key[axis][k] == delta) {
            *ok = c->ok[axis][k];
            if (off)
                *off = c->off[axis][k];
            return (int)k;
        }
    LLVMValueRef origin = axis ? x->i1 : x->i0, d = axis ? x->d1 : x->d0;
    LLVMValueRef g = LLVMBuildAdd(L->b, origin, LLVMBuildAdd(L->b, base, lw_const_i64(L, delta), ""), "");
    *ok = lw_in_range(L, g, d);
    LLVMValueRef o = off ? coord_off(L, c, x, axis, base, delta, clamped, g) : NULL;
    if (off)
        *off = o;
    if (c->n[axis] == 64)
        return -1;
    uint32_t k = c->n[axis]++;
    c->key[axis][k] = delta;
    c->ok[axis][k] = *ok;
    c->off[axis][k] = o;
    c->at[axis][k] = NULL;
    return (int)k;
}

/* For a checked store: a row's predicate (and own's) and address as an
 * integer (axis 0), or a column's predicate and byte offset (axis 1). */
static void store_coord(Lower *L, Coords *c, const Access *x, TirElem e, int axis, LLVMValueRef base, uint32_t delta,
                        LLVMValueRef own, LLVMValueRef *ok, LLVMValueRef *at)
{
    int k = coord(L, c, x, axis, base, delta, 0, ok, NULL);
    if (k >= 0 && c->at[axis][k]) {
        *ok = c->ok[axis][k];
        *at = c->at[axis][k];
        return;
    }
    /* the first row's address (column's bytes) plus delta's, the constant last */
    LLVMValueRef esize = lw_const_i64(L, tir_elem_bits(e) / 8), s = axis ? x->s1 : x->s0;
    if (!c->first_at[axis]) {
        c->first_at[axis] = LLVMBuildMul(L->b, first_of(L, c, x, axis, base), esize, "");
        if (axis == 0)
            c->first_at[axis] = LLVMBuildAdd(L->b, LLVMBuildPtrToInt(L->b, x->base, L->t_i64, ""), c->first_at[axis], "");
    }
    *at = LLVMBuildAdd(L->b, c->first_at[axis],
                       LLVMBuildMul(L->b, LLVMBuildMul(L->b, lw_const_i64(L, delta), s, ""), esize, ""), "");
    if (axis == 0 && own)
        *ok = LLVMBuildAnd(L->b, *ok, own, "");
    if (k >= 0) {
        c->ok[axis][k] = *ok;
        c->at[axis][k] = *at;
    }
}

/* Address and in-bounds flag of register r's element. */
static LLVMValueRef element(Lower *L, Coords *c, const Access *x, TirElem e, const Layout *lay, uint32_t r,
                            LLVMValueRef row0, LLVMValueRef col0, int clamped, LLVMValueRef *inb)
{
    uint32_t dr, dc;
    layout_offset(lay, r, &dr, &dc);
    LLVMValueRef rok, roff, cok, coff;
    coord(L, c, x, 0, row0, dr, clamped, &rok, &roff);
    coord(L, c, x, 1, col0, dc, clamped, &cok, &coff);
    *inb = LLVMBuildAnd(L->b, rok, cok, "");
    LLVMValueRef off = LLVMBuildAdd(L->b, roff, coff, "");
    return LLVMBuildGEP2(L->b, lw_elem_type(L, e), x->base, &off, 1, "");
}

void lower_LOAD(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    TirElem e = (TirElem)in->type.elem;
    Access x = lw_access(L, in, 0, e);
    Layout lay = layout_blocked(in->type.dim[0], in->type.dim[1], L->threads);
    uint32_t n = layout_nregs(&lay);
    LLVMValueRef *regs = lw_regs(L, n);
    LLVMValueRef *loaded = lw_regs(L, n);
    if (!regs || !loaded)
        return;
    lw_order_access(L, i, 0, &lay, 0);
    LLVMValueRef pad = pad_value(L, e, in->fval);

    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "load");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "loaded");
    LLVMBuildCondBr(L->b, x.nonempty, ld, done);
    LLVMPositionBuilderAtEnd(L->b, ld);
    LLVMValueRef row0 = LLVMBuildZExt(L->b, layout_base_row(L, &lay), L->t_i64, "");
    LLVMValueRef col0 = LLVMBuildZExt(L->b, layout_base_col(L, &lay), L->t_i64, "");
    Coords cc = {0};
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef inb;
        LLVMValueRef addr = element(L, &cc, &x, e, &lay, r, row0, col0, 1, &inb);
        LLVMValueRef v = LLVMBuildLoad2(L->b, lw_elem_type(L, e), addr, "");
        loaded[r] = LLVMBuildSelect(L->b, inb, v, pad, "");
    }
    LLVMBasicBlockRef ld_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    for (uint32_t r = 0; r < n; r++) {
        regs[r] = LLVMBuildPhi(L->b, lw_elem_type(L, e), "");
        LLVMValueRef vals[2] = {loaded[r], pad};
        LLVMBasicBlockRef bbs[2] = {ld_end, from};
        LLVMAddIncoming(regs[r], vals, bbs, 2);
    }
    lw_set(L, in->result, (LVal){.kind = LV_TILE, .regs = regs, .lay = lay});
}

/* One st.global under a predicate, not a branch and a block per element:
 * an edge tile's store of a 128x256 accumulator was ~130 blocks, which took
 * ~40% of the GEMM kernel's LLVM time (optimize and codegen). The predicate
 * (row and column) and the address (row address plus the column's byte
 * offset) are formed in the asm, which leaves LLVM two instructions an
 * element to handle; its memory clobber keeps the store ordered with the
 * kernel's other memory accesses. */
void lw_store_if(Lower *L, LLVMValueRef rok, LLVMValueRef cok, LLVMValueRef row, LLVMValueRef col, LLVMValueRef v,
                 TirElem e)
{
#define STORE_IF(b) "{ .reg .pred p; .reg .b64 a; and.pred p, $0, $1; add.s64 a, $2, $3; @p st.global.b" #b " [a], $4; }"
    static const char *const tmpl[3] = {STORE_IF(16), STORE_IF(32), STORE_IF(64)};
#undef STORE_IF
    static const char *const cons[3] = {"b,b,l,l,h,~{memory}", "b,b,l,l,r,~{memory}", "b,b,l,l,l,~{memory}"};
    int bits = tir_elem_bits(e), k = bits == 16 ? 0 : bits == 32 ? 1 : 2;
    LLVMValueRef args[5] = {rok, cok, row, col, LLVMBuildBitCast(L->b, v, LLVMIntTypeInContext(L->ctx, (unsigned)bits), "")};
    lw_asm(L, LLVMVoidTypeInContext(L->ctx), tmpl[k], cons[k], args, 5, LW_ASM_SIDE_EFFECTS);
}

/* Stores the tile's registers: checked, each under a predicate on its bounds
 * (and on own, where not NULL); else unconditionally, and where pair is not
 * NULL, the registers paired by layout_pairs() as one vector store each:
 * the accumulator layouts hold their tile in such pairs, and one store per
 * element half-fills each sector a warp writes (bench/NOTES.md v12). */
static void store_regs(Lower *L, const Access *x, TirElem e, const Layout *lay, LLVMValueRef *regs, LLVMValueRef row0,
                       LLVMValueRef col0, LLVMValueRef own, int checked, const uint32_t *pair)
{
    Coords cc = {0};
    LLVMTypeRef v2 = LLVMVectorType(lw_elem_type(L, e), 2);
    for (uint32_t r = 0; r < layout_nregs(lay); r++) {
        LLVMValueRef ok;
        if (pair && pair[r] == PAIR_RIGHT)
            continue;
        if (checked) {
            uint32_t dr, dc;
            layout_offset(lay, r, &dr, &dc);
            LLVMValueRef rok, row, cok, col;
            store_coord(L, &cc, x, e, 0, row0, dr, own, &rok, &row);
            store_coord(L, &cc, x, e, 1, col0, dc, NULL, &cok, &col);
            lw_store_if(L, rok, cok, row, col, regs[r], e);
            continue;
        }
        LLVMValueRef addr = element(L, &cc, x, e, lay, r, row0, col0, 0, &ok);
        if (pair && pair[r] != PAIR_NONE) {
            LLVMValueRef v = LLVMBuildInsertElement(L->b, LLVMGetUndef(v2), regs[r], lw_const_i32(L, 0), "");
            v = LLVMBuildInsertElement(L->b, v, regs[pair[r]], lw_const_i32(L, 1), "");
            LLVMSetAlignment(LLVMBuildStore(L->b, v, addr), (unsigned)tir_elem_bits(e) / 4);
            continue;
        }
        LLVMBuildStore(L->b, regs[r], addr);
    }
}

static void store_tile(Lower *L, uint32_t i);

/* The layout a band of rows goes to global memory in: a warp on 64
 * consecutive columns of a row (whole sectors), the block's other warps on
 * the rows below, so that a thread holds few distinct rows and columns
 * (LLVM handles each one's bounds and address: the benchmark's 128x256
 * kernel compiles in 6% more instructions than without stores by rows,
 * 22% with the block across all 256 columns); tc 0 where the band cannot
 * be spread so without two threads on one element. */
static Layout rows_layout(Lower *L, uint32_t band, uint32_t cols)
{
    Layout l = {.kind = LAYOUT_BLOCKED, .rows = band, .cols = cols};
    l.tc = cols < 64 ? cols : 64;
    while (l.tc < cols && L->threads / l.tc > band)
        l.tc *= 2;
    l.tr = L->threads / l.tc;
    if (cols % l.tc || L->threads % l.tc || band % l.tr)
        l.tc = 0;
    return l;
}

/* Shared memory the checked stores by rows may add beside a persistent
 * pipeline's ring: bands of 16 or 32 rows rather than the whole tile, which
 * would leave the kernel that much less L1 at every shape. */
enum { BY_ROWS_GROWTH = 32 * 1024 };

/* How many rows of a tile its checked stores take through shared memory at
 * a time (store_tile): for an MMA accumulator that no two threads share,
 * the whole tile or the tallest band of lw_band_rows() rows that fits in
 * the shared memory the kernel has (one program a block: after a pipeline,
 * its ring), or beside a persistent pipeline's ring in BY_ROWS_GROWTH more;
 * 0: none (the stores straight from the accumulator's registers). */
static uint32_t by_rows_band(Lower *L, const Layout *lay, TirType t)
{
    if (lay->kind != LAYOUT_MMA || layout_replicates(lay, L->threads))
        return 0;
    uint32_t limit = L->smem_bytes, unit = lw_band_rows(lay);
    if (L->smem_floor && limit < L->smem_floor + BY_ROWS_GROWTH)
        limit = L->smem_floor + BY_ROWS_GROWTH < TC_MAX_SHARED_BYTES ? L->smem_floor + BY_ROWS_GROWTH
                                                                      : TC_MAX_SHARED_BYTES;
    for (uint32_t band = t.dim[0]; band >= unit && band % unit == 0; band /= 2) {
        TirType bt = t;
        bt.dim[0] = band;
        if (L->smem_floor + lw_relayout_bytes(bt) <= limit && rows_layout(L, band, t.dim[1]).tc)
            return band;
    }
    return 0;
}

void lower_STORE(Lower *L, uint32_t i)
{
    if (L->tma_store && i == L->tma_store) {
        lw_order_access(L, i, 1, NULL, 1); /* by TMA or by any consumer thread (wg_tma_store) */
        wg_tma_store(L, i);
        return;
    }
    store_tile(L, i);
}

static void store_tile(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    uint32_t tv = tir_args(L->m, in)[0];
    TirType t = tir_value_type(L->m, tv);
    TirElem e = (TirElem)t.elem;
    Access x = lw_access(L, in, 1, e);
    Layout lay = lw_layout_of(L, tv);
    LLVMValueRef *regs = lw_tile_in(L, tv, &lay);
    if (!regs)
        return;
    /* The checked stores of an MMA accumulator go by rows through shared
     * memory where the kernel has it (by_rows_band): an accumulator's
     * thread holds pairs of columns, so each store instruction half-fills
     * its sectors, which at a C whose rows are off 8 bytes (every tile
     * checked) took 3.5x the L2 write sectors and 10-20% more time for the
     * GEMM kernels at 8191 x 8193 (bench/NOTES.md v32). */
    uint32_t band = by_rows_band(L, &lay, t);
    lw_order_access(L, i, 1, band ? NULL : &lay, 1); /* (by rows, an element's thread differs between the two paths) */

    LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "stored");
    LLVMBuildCondBr(L->b, x.nonempty, st, done);
    LLVMPositionBuilderAtEnd(L->b, st);
    LLVMValueRef row32 = layout_base_row(L, &lay);
    LLVMValueRef own = layout_owns(L, &lay, 0, row32);
    LLVMValueRef row0 = LLVMBuildZExt(L->b, row32, L->t_i64, "");
    LLVMValueRef col0 = LLVMBuildZExt(L->b, layout_base_col(L, &lay), L->t_i64, "");
    /* the whole tile inside the matrix (every tile of a GEMM but the
     * edges): the stores unconditional, not a predicate each */
    uint32_t nr = t.dim[0], nc = t.dim[1];
    LLVMValueRef inside = LLVMBuildAnd(L->b, lw_in_range(L, x.i0, x.d0), lw_in_range(L, x.i1, x.d1), "");
    inside = LLVMBuildAnd(L->b, inside, LLVMBuildICmp(L->b, LLVMIntSLE, LLVMBuildAdd(L->b, x.i0, lw_const_i64(L, nr), ""),
                                                      x.d0, ""), "");
    inside = LLVMBuildAnd(L->b, inside, LLVMBuildICmp(L->b, LLVMIntSLE, LLVMBuildAdd(L->b, x.i1, lw_const_i64(L, nc), ""),
                                                      x.d1, ""), "");
    if (own)
        inside = LLVMBuildAnd(L->b, inside, own, "");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.whole");
    LLVMBasicBlockRef checked = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.checked");
    uint32_t pair[TC_MAX_TILE_REGS + 1];
    int paired = layout_nregs(&lay) <= TC_MAX_TILE_REGS && layout_pairs(&lay, pair);
    if (paired) {
        /* pairs aligned: the matrix's base, row stride and the tile's first
         * column all even in elements (the pair's column is even in the
         * tile). A tile inside an odd-strided matrix takes the checked path:
         * its predicates are all true, and one copy of the stores less is
         * ~10% less LLVM time for a GEMM kernel. */
        LLVMValueRef odd = LLVMBuildOr(L->b, LLVMBuildPtrToInt(L->b, x.base, L->t_i64, ""),
                                       LLVMBuildMul(L->b, LLVMBuildOr(L->b, x.s0, x.i1, ""),
                                                    lw_const_i64(L, tir_elem_bits(e) / 8), ""), "");
        LLVMValueRef aligned = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, odd, lw_const_i64(L, tir_elem_bits(e) / 4 - 1), ""),
                                             lw_const_i64(L, 0), "");
        aligned = LLVMBuildAnd(L->b, aligned, LLVMBuildICmp(L->b, LLVMIntEQ, x.s1, lw_const_i64(L, 1), ""), "");
        inside = LLVMBuildAnd(L->b, inside, aligned, "");
    }
    LLVMBuildCondBr(L->b, inside, fast, checked);
    LLVMPositionBuilderAtEnd(L->b, fast);
    store_regs(L, &x, e, &lay, regs, row0, col0, NULL, 0, paired ? pair : NULL);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, checked);
    /* by rows: the branches above test the program's scalars only (uniform, docs/TIR.md) and
     * own is NULL, so every thread that runs the store (after a pipeline: every consumer)
     * reaches the barriers together */
    if (band) {
        MemPending keep = {.n = L->npending}; /* their ordering holds on this path only */
        memcpy(keep.acc, L->pending, sizeof keep.acc);
        Layout rows = rows_layout(L, band, nc);
        for (uint32_t q = 0; q < nr / band; q++) {
            LLVMValueRef *r = lw_relayout_band(L, regs, &lay, &rows, t, band, q);
            if (!r)
                return;
            LLVMValueRef brow = layout_base_row(L, &rows);
            LLVMValueRef at = LLVMBuildZExt(L->b, LLVMBuildAdd(L->b, brow, lw_const_i32(L, band * q), ""), L->t_i64, "");
            store_regs(L, &x, e, &rows, r, at, LLVMBuildZExt(L->b, layout_base_col(L, &rows), L->t_i64, ""),
                       layout_owns(L, &rows, 0, brow), 1, NULL);
        }
        memcpy(L->pending, keep.acc, sizeof keep.acc);
        L->npending = keep.n;
    } else {
        store_regs(L, &x, e, &lay, regs, row0, col0, own, 1, NULL);
    }
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}
