/*
 * Register layouts of tiles and conversions between them through shared
 * memory. Tile dimensions are powers of two (the verifier guarantees it), so
 * every thread grid below divides the tile or replicates it exactly.
 */
#include "compiler/lower.h"

static uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }

Layout layout_blocked(uint32_t rows, uint32_t cols, uint32_t threads)
{
    Layout l = {.kind = LAYOUT_BLOCKED, .rows = rows, .cols = cols};
    l.tc = min_u(cols, threads);
    l.tr = threads / l.tc;
    return l;
}

Layout layout_blocked_2d(uint32_t rows, uint32_t cols, uint32_t threads)
{
    Layout l = {.kind = LAYOUT_BLOCKED, .rows = rows, .cols = cols};
    uint32_t tc = 1;
    while (tc * tc < threads)
        tc *= 2;
    tc = min_u(tc, cols);
    while (threads / tc > rows && tc < cols && tc < threads)
        tc *= 2;
    l.tc = tc;
    l.tr = threads / tc;
    return l;
}

int layout_mma(uint32_t m, uint32_t n, uint32_t k, TirElem in, uint32_t warps, Layout *out)
{
    uint32_t kstep = in == ELEM_F32 ? 8 : 16;
    if (m < 16 || n < 8 || k < kstep)
        return 0;
    /* fewest smem fragment loads per warp: A fragments cost 4 registers per
     * 16 rows, B fragments 2 per 8 columns; idle warps only when the tile is
     * too small for all of them */
    for (uint32_t w = warps; w >= 1; w /= 2) {
        int best = -1;
        uint32_t best_cost = 0;
        for (uint32_t wm = 1; wm <= w; wm *= 2) {
            uint32_t wn = w / wm;
            if (wm * 16 > m || wn * 8 > n)
                continue;
            uint32_t mt = m / (16 * wm), nt = n / (8 * wn);
            uint32_t cost = 4 * mt + 2 * nt;
            if (best < 0 || cost <= best_cost) {
                best = (int)wm;
                best_cost = cost;
            }
        }
        if (best > 0) {
            uint32_t wm = (uint32_t)best, wn = w / wm;
            *out = (Layout){.kind = LAYOUT_MMA, .rows = m, .cols = n, .wm = wm, .wn = wn,
                            .mt = m / (16 * wm), .nt = n / (8 * wn)};
            return 1;
        }
    }
    return 0;
}

/* Columns per run of a blocked layout (vec 0 means 1). */
static uint32_t run_cols(const Layout *l) { return l->vec > 1 ? l->vec : 1; }

uint32_t layout_nregs(const Layout *l)
{
    if (l->kind == LAYOUT_MMA)
        return l->mt * l->nt * 4;
    uint32_t ri = l->tr >= l->rows ? 1 : l->rows / l->tr;
    uint32_t ci = l->tc >= l->cols ? 1 : l->cols / l->tc;
    return ri * ci;
}

void layout_offset(const Layout *l, uint32_t r, uint32_t *drow, uint32_t *dcol)
{
    if (l->kind == LAYOUT_MMA) {
        uint32_t f = r / 4, c = r % 4, blk = f / l->nt;
        uint32_t dr = blk * 16 + (c >> 1) * 8, dc = (f % l->nt) * 8 + (c & 1);
        if (l->nperm) /* fragment rows g and g + 8 are rows n and n + 1 (mma_base_row) */
            dr = layout_nperm_group(blk) + (c >> 1);
        *drow = l->trans ? dc : dr;
        *dcol = l->trans ? dr : dc;
        return;
    }
    uint32_t ci = l->tc >= l->cols ? 1 : l->cols / l->tc, v = run_cols(l);
    *drow = (r / ci) * l->tr;
    *dcol = (r % ci) / v * l->tc * v + (r % ci) % v;
}

int layout_eq(const Layout *a, const Layout *b)
{
    if (a->kind != b->kind || a->rows != b->rows || a->cols != b->cols)
        return 0;
    if (a->kind == LAYOUT_MMA)
        return a->wm == b->wm && a->wn == b->wn && a->trans == b->trans && a->nperm == b->nperm;
    return a->tr == b->tr && a->tc == b->tc && run_cols(a) == run_cols(b);
}

/* Row and column of register 0 in the (untransposed) MMA layout. With
 * nperm, the 16-row group G = wy * mt + blk of lane g * 4 + t holds rows
 * 32 (G / 2) + 8 (G % 2) + [4 (g / 4) + 16 (g % 4 / 2) + 2 (g % 2)] + {0, 1}
 * (c >> 1 = 0, 1): a bijection on each 32 rows, under which the swapped
 * product's 8-byte B fragment loads meet no bank conflict in the 128-byte
 * swizzled panels (lower_wgmma_swapped.c). */
static LLVMValueRef mma_base_row(Lower *L, const Layout *l)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef w = LLVMBuildLShr(b, L->tid, lw_const_i32(L, 5), "");
    LLVMValueRef wy = LLVMBuildURem(b, LLVMBuildUDiv(b, w, lw_const_i32(L, l->wn), ""), lw_const_i32(L, l->wm), "");
    LLVMValueRef g = LLVMBuildLShr(b, LLVMBuildAnd(b, L->tid, lw_const_i32(L, 31), ""), lw_const_i32(L, 2), "");
    if (l->nperm)
        return layout_nperm_row(L, LLVMBuildMul(b, wy, lw_const_i32(L, l->mt), ""), g);
    return LLVMBuildAdd(b, LLVMBuildMul(b, wy, lw_const_i32(L, l->mt * 16), ""), g, "row");
}

LLVMValueRef layout_nperm_row(Lower *L, LLVMValueRef G, LLVMValueRef g)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef one = lw_const_i32(L, 1);
    LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildShl(b, LLVMBuildLShr(b, G, one, ""), lw_const_i32(L, 5), ""),
                                  LLVMBuildShl(b, LLVMBuildAnd(b, G, one, ""), lw_const_i32(L, 3), ""), "");
    LLVMValueRef gq = LLVMBuildShl(b, LLVMBuildLShr(b, g, lw_const_i32(L, 2), ""), lw_const_i32(L, 2), ""); /* 4 (g / 4) */
    LLVMValueRef gh = LLVMBuildShl(b, LLVMBuildAnd(b, LLVMBuildLShr(b, g, one, ""), one, ""), lw_const_i32(L, 4), "");
    LLVMValueRef gl = LLVMBuildShl(b, LLVMBuildAnd(b, g, one, ""), one, "");
    return LLVMBuildAdd(b, r, LLVMBuildAdd(b, gq, LLVMBuildAdd(b, gh, gl, ""), ""), "row");
}

static LLVMValueRef mma_base_col(Lower *L, const Layout *l)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef w = LLVMBuildLShr(b, L->tid, lw_const_i32(L, 5), "");
    LLVMValueRef wx = LLVMBuildURem(b, w, lw_const_i32(L, l->wn), "");
    LLVMValueRef t = LLVMBuildAnd(b, L->tid, lw_const_i32(L, 3), "");
    return LLVMBuildAdd(b, LLVMBuildMul(b, wx, lw_const_i32(L, l->nt * 8), ""), LLVMBuildShl(b, t, lw_const_i32(L, 1), ""),
                        "col");
}

LLVMValueRef layout_base_row(Lower *L, const Layout *l)
{
    if (l->kind == LAYOUT_MMA)
        return l->trans ? mma_base_col(L, l) : mma_base_row(L, l);
    return LLVMBuildUDiv(L->b, L->tid, lw_const_i32(L, l->tc), "row");
}

int layout_cols_even(const Layout *l)
{
    if (l->kind == LAYOUT_MMA) /* 2t + 8 nt wx; transposed, the permuted rows (even) */
        return !l->trans || l->nperm;
    return run_cols(l) % 2 == 0; /* runs of vec columns from vec * (tid % tc) */
}

uint32_t layout_pairs(const Layout *l, uint32_t *pair)
{
    uint32_t n = layout_nregs(l), np = 0;
    for (uint32_t r = 0; r < n; r++)
        pair[r] = PAIR_NONE;
    if (!layout_cols_even(l))
        return 0;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t dr, dc;
        layout_offset(l, r, &dr, &dc);
        if (pair[r] != PAIR_NONE || dc % 2)
            continue;
        for (uint32_t q = 0; q < n; q++) {
            uint32_t qr, qc;
            layout_offset(l, q, &qr, &qc);
            if (qr == dr && qc == dc + 1 && pair[q] == PAIR_NONE) {
                pair[r] = q;
                pair[q] = PAIR_RIGHT;
                np++;
                break;
            }
        }
    }
    return np;
}

LLVMValueRef layout_base_col(Lower *L, const Layout *l)
{
    if (l->kind == LAYOUT_MMA)
        return l->trans ? mma_base_row(L, l) : mma_base_col(L, l);
    LLVMValueRef c = LLVMBuildURem(L->b, L->tid, lw_const_i32(L, l->tc), "col");
    return l->vec > 1 ? LLVMBuildMul(L->b, c, lw_const_i32(L, l->vec), "") : c;
}

int layout_replicates(const Layout *l, uint32_t threads)
{
    return l->kind == LAYOUT_MMA ? l->wm * l->wn * 32 < threads : l->tr > l->rows;
}

LLVMValueRef layout_owns(Lower *L, const Layout *l, uint32_t r, LLVMValueRef base_row)
{
    (void)r;
    if (!layout_replicates(l, L->threads))
        return NULL;
    if (l->kind == LAYOUT_MMA)
        return LLVMBuildICmp(L->b, LLVMIntULT, L->tid, lw_const_i32(L, l->wm * l->wn * 32), "");
    return LLVMBuildICmp(L->b, LLVMIntULT, base_row, lw_const_i32(L, l->rows), "");
}

LLVMValueRef smem_ptr(Lower *L, uint32_t bytes)
{
    if (L->smem_floor + bytes > L->smem_bytes)
        L->smem_bytes = L->smem_floor + bytes;
    if (!L->smem_floor)
        return L->smem;
    LLVMValueRef off = lw_const_i32(L, L->smem_floor);
    return LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->ctx), L->smem, &off, 1, "");
}

/* Row pitch of a staging array: one extra element breaks the power-of-two
 * stride that would put a warp's column accesses on one bank. */
static uint32_t pitch(uint32_t cols, TirElem e) { return cols + (tir_elem_bits(e) == 16 ? 2 : 1); }

static LLVMValueRef smem_addr(Lower *L, LLVMValueRef base, TirElem e, LLVMValueRef idx)
{
    return LLVMBuildGEP2(L->b, lw_elem_type(L, e), base, &idx, 1, "");
}

/* Runs `store` only where `cond` holds (cond NULL: always). */
static void guarded_store(Lower *L, LLVMValueRef cond, LLVMValueRef val, LLVMValueRef addr)
{
    if (!cond) {
        LLVMBuildStore(L->b, val, addr);
        return;
    }
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "st");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildCondBr(L->b, cond, yes, next);
    LLVMPositionBuilderAtEnd(L->b, yes);
    LLVMBuildStore(L->b, val, addr);
    LLVMBuildBr(L->b, next);
    LLVMPositionBuilderAtEnd(L->b, next);
}

/* The address of a thread's element (row0 + dr, col0 + dc) of a shared
 * array of pitch ld: one base, row0 * ld + col0, made once, plus a constant
 * an element, which ISel folds into each access. Written as (row0 + dr) * ld
 * + col0 + dc an element, the i32 sums reach the GEPs through sext, which
 * NVPTX's straight-line passes rewrite element by element (Nary
 * reassociation: 70% of the codegen of a 128x128x128 dot, bench/NOTES.md
 * v42). A pointer for LLVM's loads and stores; smem_at() below makes the
 * i32 address that the relayouts' inline-asm accesses take. */
static LLVMValueRef smem_base(Lower *L, LLVMValueRef base, TirElem e, LLVMValueRef row0, uint32_t ld, LLVMValueRef col0)
{
    LLVMValueRef idx = col0; /* NULL row0 or col0: a broadcast's, left out */
    if (row0) {
        LLVMValueRef r = LLVMBuildMul(L->b, row0, lw_const_i32(L, ld), "");
        idx = col0 ? LLVMBuildAdd(L->b, r, col0, "") : r;
    }
    return idx ? smem_addr(L, base, e, idx) : base;
}

void smem_store_tile(Lower *L, LLVMValueRef base, uint32_t ld, LLVMValueRef *regs, const Layout *l, TirElem e)
{
    LLVMValueRef row0 = layout_base_row(L, l), col0 = layout_base_col(L, l);
    LLVMValueRef own = layout_owns(L, l, 0, row0);
    LLVMValueRef at = smem_base(L, base, e, row0, ld, col0);
    for (uint32_t r = 0; r < layout_nregs(l); r++) {
        uint32_t dr, dc;
        layout_offset(l, r, &dr, &dc);
        guarded_store(L, own, regs[r], smem_addr(L, at, e, lw_const_i32(L, dr * ld + dc)));
    }
}

/* Reads element (row % srows, col % scols) of a rows' x ld shared array for
 * every register of layout `to`: a plain read when the shapes match, a
 * broadcast when the source has one row or column. */
static LLVMValueRef *smem_load_tile(Lower *L, LLVMValueRef base, uint32_t ld, uint32_t srows, uint32_t scols,
                                    const Layout *to, TirElem e)
{
    uint32_t n = layout_nregs(to);
    LLVMValueRef *regs = lw_regs(L, n);
    if (!regs)
        return NULL;
    LLVMValueRef row0 = layout_base_row(L, to), col0 = layout_base_col(L, to);
    int wrap = srows != 1 && to->tr > to->rows; /* replicated rows: row % srows stays inside the array */
    /* a broadcast's row or column is 0: left out of the base and the constants */
    LLVMValueRef at = wrap ? NULL : smem_base(L, base, e, srows == 1 ? NULL : row0, ld, scols == 1 ? NULL : col0);
    for (uint32_t r = 0; r < n; r++) {
        uint32_t dr, dc;
        layout_offset(to, r, &dr, &dc);
        dr = srows == 1 ? 0 : dr;
        dc = scols == 1 ? 0 : dc;
        LLVMValueRef addr;
        if (wrap) {
            LLVMValueRef row = LLVMBuildURem(L->b, LLVMBuildAdd(L->b, row0, lw_const_i32(L, dr), ""),
                                             lw_const_i32(L, srows), "");
            LLVMValueRef col = scols == 1 ? lw_const_i32(L, 0) : LLVMBuildAdd(L->b, col0, lw_const_i32(L, dc), "");
            addr = smem_addr(L, base, e, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, lw_const_i32(L, ld), ""), col, ""));
        } else
            addr = smem_addr(L, at, e, lw_const_i32(L, dr * ld + dc));
        regs[r] = LLVMBuildLoad2(L->b, lw_elem_type(L, e), addr, "");
    }
    return regs;
}

Layout lw_layout_of(Lower *L, uint32_t v)
{
    const LVal *lv = lw_val(L, v);
    if (lv->kind == LV_TILE)
        return lv->lay;
    TirType t = tir_value_type(L->m, v);
    uint32_t def = tir_value_def_inst(L->m, v);
    if (lv->kind == LV_NONE && def && L->m->insts[def].op == OP_DOT)
        return dot_result_layout(L, def);
    return layout_blocked(t.dim[0], t.dim[1], L->threads);
}

uint32_t lw_relayout_bytes(TirType t)
{
    return t.dim[0] * pitch(t.dim[1], (TirElem)t.elem) * (uint32_t)tir_elem_bits((TirElem)t.elem) / 8;
}

uint32_t lw_band_rows(const Layout *l)
{
    return l->kind == LAYOUT_MMA && (l->trans ? l->wn : l->wm) == 1 ? 8 : l->rows;
}

/* One inline PTX statement for n shared-memory accesses of a thread at its
 * address addr (i32) plus byte offsets off[]: v[i] stored (load 0) or
 * loaded (load 1). LLVM then handles one call where it would handle an
 * address and an access each. */
enum { SMEM_BATCH = 32 };
static void smem_batch(Lower *L, LLVMValueRef addr, const uint32_t *off, LLVMValueRef *v, uint32_t n, TirElem e,
                       int load)
{
    int bits = tir_elem_bits(e);
    const char *reg = bits == 16 ? "h" : bits == 64 ? "l" : "r";
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, (unsigned)bits), et = lw_elem_type(L, e);
    StrBuf tm, cs;
    sb_init(&tm);
    sb_init(&cs);
    LLVMValueRef args[SMEM_BATCH + 1] = {addr};
    LLVMTypeRef rt[SMEM_BATCH];
    for (uint32_t i = 0; i < n; i++) {
        if (load) {
            sb_printf(&tm, "ld.shared.b%d $%u, [$%u+%u];\n\t", bits, i, n, off[i]);
            sb_printf(&cs, "%s=%s", i ? "," : "", reg);
            rt[i] = it;
        } else {
            sb_printf(&tm, "st.shared.b%d [$0+%u], $%u;\n\t", bits, off[i], i + 1);
            args[i + 1] = LLVMBuildBitCast(L->b, v[i], it, "");
        }
    }
    if (load) {
        sb_puts(&cs, ",r,~{memory}");
    } else {
        sb_puts(&cs, "r");
        for (uint32_t i = 0; i < n; i++)
            sb_printf(&cs, ",%s", reg);
        sb_puts(&cs, ",~{memory}");
    }
    if (tm.oom || cs.oom) {
        lw_error(L, (TirLoc){0}, "out of memory while lowering");
    } else if (load) {
        LLVMValueRef r = lw_asm(L, n == 1 ? it : LLVMStructTypeInContext(L->ctx, rt, n, 0), tm.data, cs.data, args, 1,
                                LW_ASM_SIDE_EFFECTS);
        for (uint32_t i = 0; i < n; i++)
            v[i] = LLVMBuildBitCast(L->b, n == 1 ? r : LLVMBuildExtractValue(L->b, r, i, ""), et, "");
    } else {
        lw_asm(L, LLVMVoidTypeInContext(L->ctx), tm.data, cs.data, args, n + 1, LW_ASM_SIDE_EFFECTS);
    }
    sb_free(&tm);
    sb_free(&cs);
}

/* A thread's shared address (i32) of element (row, col) of a pitch-ld array at base. */
static LLVMValueRef smem_at(Lower *L, LLVMValueRef base, uint32_t ld, LLVMValueRef row, LLVMValueRef col, TirElem e)
{
    LLVMValueRef b32 = LLVMBuildTrunc(L->b, LLVMBuildPtrToInt(L->b, base, L->t_i64, ""), L->t_i32, "");
    LLVMValueRef idx = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, lw_const_i32(L, ld), ""), col, "");
    return LLVMBuildAdd(L->b, b32, LLVMBuildMul(L->b, idx, lw_const_i32(L, (uint32_t)tir_elem_bits(e) / 8), ""), "");
}

LLVMValueRef *lw_relayout_band(Lower *L, LLVMValueRef *regs, const Layout *from, const Layout *to, TirType t,
                               uint32_t band, uint32_t q)
{
    TirElem e = (TirElem)t.elem;
    uint32_t ld = pitch(t.dim[1], e), es = (uint32_t)tir_elem_bits(e) / 8, nt = layout_nregs(to);
    TirType bt = t;
    bt.dim[0] = band;
    LLVMValueRef base = smem_ptr(L, lw_relayout_bytes(bt));
    LLVMValueRef *out = lw_regs(L, nt), v[SMEM_BATCH];
    if (!out)
        return NULL;
    uint32_t off[SMEM_BATCH], n = 0;
    lw_barrier(L);
    /* the registers of rows [band q, band (q + 1)), at their rows in the band */
    LLVMValueRef at = smem_at(L, base, ld, layout_base_row(L, from), layout_base_col(L, from), e);
    for (uint32_t r = 0; r < layout_nregs(from); r++) {
        uint32_t dr, dc;
        layout_offset(from, r, &dr, &dc);
        if (dr / band != q)
            continue;
        off[n] = ((dr - band * q) * ld + dc) * es;
        v[n++] = regs[r];
        if (n == SMEM_BATCH) {
            smem_batch(L, at, off, v, n, e, 0);
            n = 0;
        }
    }
    if (n)
        smem_batch(L, at, off, v, n, e, 0);
    lw_barrier(L);
    at = smem_at(L, base, ld, layout_base_row(L, to), layout_base_col(L, to), e);
    for (uint32_t r0 = 0; r0 < nt; r0 += SMEM_BATCH) {
        n = nt - r0 < SMEM_BATCH ? nt - r0 : SMEM_BATCH;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t dr, dc;
            layout_offset(to, r0 + i, &dr, &dc);
            off[i] = (dr * ld + dc) * es;
        }
        smem_batch(L, at, off, out + r0, n, e, 1);
    }
    return out;
}

/* A whole tile of type t held as regs in layout `from`, in layout `to`:
 * through shared memory (rows padded), between barriers. */
static LLVMValueRef *relayout_tile(Lower *L, LLVMValueRef *regs, const Layout *from, const Layout *to, TirType t)
{
    TirElem e = (TirElem)t.elem;
    uint32_t ld = pitch(t.dim[1], e);
    LLVMValueRef base = smem_ptr(L, lw_relayout_bytes(t));
    lw_barrier(L);
    smem_store_tile(L, base, ld, regs, from, e);
    lw_barrier(L);
    return smem_load_tile(L, base, ld, t.dim[0], t.dim[1], to, e);
}

LLVMValueRef *lw_tile_in(Lower *L, uint32_t v, const Layout *to)
{
    const LVal *lv = lw_val(L, v);
    TirType t = tir_value_type(L->m, v);
    uint32_t n = layout_nregs(to);
    if (lv->kind == LV_TILE && layout_eq(&lv->lay, to))
        return lv->regs;
    if (lv->kind == LV_SPLAT || lv->kind == LV_SCALAR) {
        LLVMValueRef *regs = lw_regs(L, n);
        for (uint32_t r = 0; regs && r < n; r++)
            regs[r] = lv->s;
        return regs;
    }
    if (lv->kind == LV_BCAST) {
        const LVal *src = lw_val(L, lv->src);
        TirType st = tir_value_type(L->m, lv->src);
        if (src->kind == LV_SPLAT) {
            LLVMValueRef *regs = lw_regs(L, n);
            for (uint32_t r = 0; regs && r < n; r++)
                regs[r] = src->s;
            return regs;
        }
        if (src->kind != LV_TILE)
            goto bad;
        return relayout_tile(L, src->regs, &src->lay, to, st);
    }
    if (lv->kind == LV_TILE)
        return relayout_tile(L, lv->regs, &lv->lay, to, t);
bad:
    lw_error(L, (TirLoc){0}, "internal error: value %%%u used before it was lowered", v);
    return NULL;
}
