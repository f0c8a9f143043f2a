/*
 * TMA copies for the sm_90a pipelines (-fwgmma-tma; lower_wgmma.h).
 *
 * The kernel takes two tensor maps in hidden parameters (TcTmap, encoded
 * by the runtime at each launch from the arguments), and one thread issues
 * each step's copies. f32 (the swapped product; ieee's FMA consumers too,
 * with B's 32-column panels alone): A's rows as the 128-byte
 * swizzled K-major stage layout, one box, and B as 32-column panels under
 * the same swizzle, a box each (the consumers read them conflict-free
 * through the permuted accumulator rows, Layout.nperm; -fno-wgmma-tma-b128:
 * panels of 8 columns, [n / 8][k][n % 8], one 3-D box), completing on
 * landed[]. For tf32-rne the maps have the TFLOAT32 element
 * type: the copy itself rounds to nearest even, bit-exact with
 * cvt.rn.tf32.f32 over all 2^32 inputs (NaN -> 0x7FFFE000; measured on the
 * H200, bench/NOTES.md v10), so nothing else rounds. An M-major f32 A:
 * A^T's 32-column panels, a box {32 columns, 32 k} each, as b128's B (the
 * producers transpose them, lower_wgmma_swapped.c). f16/bf16
 * (lower_wgmma_ss.c): A's rows and B's 64-column N-major panels, both under
 * the 128-byte swizzle, a box per panel, completing on full[] directly.
 *
 * The maps describe the loop's views where their extents and strides are
 * parameters or constants (the runtime evaluates them) and the views are
 * rank 2 (or 3: the batch one more dimension); the runtime encodes them
 * where the launch's arguments allow (aligned, unit column stride, f32 B's
 * columns a multiple of 8). The kernel takes the TMA copies only where the
 * runtime set both maps' flag bits (and f32 B's tile columns start at a
 * multiple of 8), and its own copies otherwise, so a launch with zero maps
 * is safe.
 */
#include "compiler/lower_wgmma.h"

#include <stdio.h>
#include <string.h>

/* Operand v of a view as a parameter or a constant. */
static int tmap_scalar(const TirModule *m, uint32_t v, TcTmapScalar *out)
{
    const TirValue *val = &m->values[v];
    if (val->kind == VAL_PARAM) {
        TirType t = val->type;
        if (t.kind != TY_SCALAR || (t.elem != ELEM_I32 && t.elem != ELEM_I64))
            return 0;
        *out = (TcTmapScalar){.param = (int32_t)val->index, .value = 0};
        return 1;
    }
    if (val->kind == VAL_RESULT && m->insts[val->def].op == OP_CONST) {
        *out = (TcTmapScalar){.param = -1, .value = m->insts[val->def].i64};
        return 1;
    }
    return 0;
}

/* How often value v is an operand, and how many of those are the view
 * operand of a load (a load's first). Dead instructions count too: a
 * conservative answer. */
static uint32_t operand_uses(const TirModule *m, uint32_t v, uint32_t *as_view_of_load)
{
    uint32_t n = 0, loads = 0;
    for (uint32_t i = 1; i < m->ninsts; i++) {
        const TirInst *in = &m->insts[i];
        const uint32_t *a = tir_args(m, in);
        for (uint32_t j = 0; j < in->nargs; j++)
            if (a[j] == v) {
                n++;
                loads += in->op == OP_LOAD && j == 0;
            }
    }
    if (as_view_of_load)
        *as_view_of_load = loads;
    return n;
}

/* TcTmap.stage for the rank-2 view `view` (operands p, d0, d1, s0, s1)
 * whose map t is: p used by this view alone, the view only by loads, s0 a
 * parameter used by this view alone. */
static uint8_t stageable(const TirModule *m, const TirInst *view, const TcTmap *t, int trans)
{
    const uint32_t *a = tir_args(m, view);
    uint32_t loads;
    if (t->batched || t->s0.param < 0 || operand_uses(m, a[0], NULL) != 1 ||
        operand_uses(m, a[trans ? 4 : 3], NULL) != 1)
        return 0;
    return operand_uses(m, view->result, &loads) == loads;
}

/* TcTmap.round for the map t of the view load `ld` reads, an operand of a
 * tf32-rna dot: the view staged as a whole could be rounded too where its
 * elements reach nothing but that dot (the view read by this load alone,
 * the load's tile by the dot alone). */
static uint8_t roundable(const TirModule *m, const TirInst *ld, const TcTmap *t)
{
    uint32_t view = tir_args(m, ld)[0], loads;
    return t->stage && operand_uses(m, view, &loads) == 1 && loads == 1 && operand_uses(m, ld->result, NULL) == 1;
}

/* The map of the rank-2 or rank-3 view `view` of `elem`, if it can be one:
 * view operands p, [db,] d0, d1, [sb,] s0, s1; with trans, of its transpose
 * (a K-major B: d1 x d0, row stride s1, s0 the constant 1). */
static int tmap_of_view(const TirModule *m, uint32_t view, TirElem elem, TcTmap *t, int trans)
{
    const TirInst *v = &m->insts[tir_value_def_inst(m, view)];
    if (v->op != OP_VIEW || (v->nargs != 5 && v->nargs != 7))
        return 0;
    const uint32_t *a = tir_args(m, v);
    uint32_t r = (v->nargs - 1) / 2, o = r - 2; /* o = 1: batched */
    uint32_t d0 = 1 + o + (trans != 0), d1 = 2 + o - (trans != 0), s0 = 1 + r + o + (trans != 0),
             s1 = 2 + r + o - (trans != 0);
    const TirValue *base = &m->values[a[0]];
    if (base->kind != VAL_PARAM || base->type.elem != elem || !tmap_scalar(m, a[s1], &t->s1) ||
        (t->s1.param < 0 && t->s1.value != 1))
        return 0;
    t->base_param = base->index;
    t->batched = (uint8_t)o;
    if (o && (!tmap_scalar(m, a[1], &t->db) || !tmap_scalar(m, a[1 + r], &t->sb)))
        return 0;
    if (!tmap_scalar(m, a[d0], &t->d0) || !tmap_scalar(m, a[d1], &t->d1) || !tmap_scalar(m, a[s0], &t->s0))
        return 0;
    t->stage = t->store ? 0 : stageable(m, v, t, trans);
    return 1;
}

/* The map of the view load `ld` reads. */
static int tmap_of_load(const TirModule *m, const TirInst *ld, TirElem elem, TcTmap *t, int trans)
{
    return tmap_of_view(m, tir_args(m, ld)[0], elem, t, trans);
}

uint32_t wgmma_tma_store_rows(const TirModule *m, const TirInst *f, const TcOptions *o, uint32_t *nbuf)
{
    const TirInst *dot = wgmma_loop_dot(m, f);
    uint32_t bm = dot->type.dim[0], bn = dot->type.dim[1];
    uint32_t pipe = wgmma_swapped_smem_bytes(bm, bn, (TirPrecision)dot->ival, (uint32_t)f->ival) + 16u + 1024u;
    uint32_t top = TMA_STORE_BYTES / (bn * 4u) / 8u * 8u, rb;
    top = top > bm ? bm : top;
    /* -fwgmma-tma-store-two-buffers: first the tallest band that fits twice */
    for (int two = o->wgmma_tma_store_two; two >= 0; two--)
        for (rb = top; rb >= 8 && bm % rb == 0; rb /= 2)
            for (*nbuf = 2; *nbuf > (two ? 1u : 0u); --*nbuf)
                if (pipe + *nbuf * rb * bn * 4u <= 227u * 1024u)
                    return rb;
    *nbuf = 0;
    return 0;
}

const TirInst *wgmma_tma_store_of(const TirModule *m, const TirKernel *k, const TcOptions *o, const char **why)
{
    *why = NULL;
    if (o->arch != ARCH_SM90A || !o->wgmma || !o->wgmma_tma || !o->wgmma_tma_store || !o->wgmma_swapped ||
        !o->wgmma_tma_b128)
        return NULL;
    const TirInst *f = wgmma_marked_loop(m, k);
    if (!f)
        return NULL;
    const TirInst *dot = wgmma_loop_dot(m, f);
    TirPrecision p = (TirPrecision)dot->ival;
    uint32_t nbuf;
    if (tir_value_type(m, tir_args(m, dot)[0]).elem != ELEM_F32 || p == PREC_IEEE || dot->type.dim[1] % 32)
        *why = "it takes the f32 pipeline's tf32 and 3xtf32 products with BN a multiple of 32";
    else if (o->wgmma_cluster)
        *why = "not with -fwgmma-cluster";
    else if (wgmma_kmajor_b_mma(m, k, o))
        *why = "it takes the swapped product's accumulators (B is K-major here: C = A B, not C^T = B^T A^T)";
    else if (!wgmma_tma_store_rows(m, f, o, &nbuf))
        *why = "no buffer of 8 rows fits in shared memory beside the pipeline's stages (--stages=N: fewer)";
    if (*why)
        return NULL;
    /* the first store of the loop's result (its tile as the dot's) into a view nothing else
     * reads or writes: the kernel does not wait for the TMA's writes */
    *why = "the loop's result is not stored straight into a view";
    for (uint32_t i = 1; i < m->ninsts; i++) {
        const TirInst *st = &m->insts[i];
        if (st->op != OP_STORE || tir_args(m, st)[0] != f->result)
            continue;
        uint32_t view = tir_args(m, st)[1];
        const TirInst *v = &m->insts[tir_value_def_inst(m, view)];
        if (v->op == OP_VIEW && operand_uses(m, view, NULL) == 1 && operand_uses(m, tir_args(m, v)[0], NULL) == 1) {
            *why = NULL;
            return st;
        }
        *why = "C's view or its pointer is used by more than that store";
        return NULL;
    }
    return NULL;
}

uint32_t wgmma_tma_maps(const TirModule *m, const TirKernel *k, const TcOptions *o, TcTmap maps[3])
{
    if (o->arch != ARCH_SM90A || !o->wgmma || !o->wgmma_tma)
        return 0;
    const TirInst *f = wgmma_marked_loop(m, k);
    if (!f)
        return 0;
    const TirInst *dot = wgmma_loop_dot(m, f);
    const uint32_t *da = tir_args(m, dot);
    TirPrecision p = (TirPrecision)dot->ival;
    TirElem elem = tir_value_type(m, da[0]).elem;
    uint32_t bm = dot->type.dim[0], bn = dot->type.dim[1];
    int bk = wgmma_kmajor_b(m, k, o), am = wgmma_mmajor_a(m, k, o);
    /* f32 A M-major: A^T's 32 k rows by 32-column panels, as b128's B (lower_wgmma_swapped.c's am_transpose) */
    TcTmap a_panels = {.kind = TC_TMAP_ROWS, .dtype = p == PREC_TF32_RNE ? TC_TMAP_TF32 : TC_TMAP_F32, .box = {32, BK, 0}};
    if (elem == ELEM_F32 && bk) { /* B K-major (lower_wgmma_kmajor.c): B^T's rows as A's, a box of 32 k by BN rows */
        uint8_t t = p == PREC_TF32_RNE ? TC_TMAP_TF32 : TC_TMAP_F32;
        maps[0] = am ? a_panels : (TcTmap){.kind = TC_TMAP_ROWS, .dtype = t, .box = {BK, (uint16_t)bm, 0}};
        maps[1] = (TcTmap){.kind = TC_TMAP_ROWS, .dtype = t, .box = {BK, (uint16_t)bn, 0}};
    } else if (elem != ELEM_F32) { /* f16/bf16 (lower_wgmma_ss.c): 64 k by BM rows, B's 64 k by 64-column panels
                                   * (K-major: B^T's 64 k by BN rows, as A's; an M-major A: A^T's 64 k by
                                   * 64-column panels, as a row-major B's) */
        uint8_t t = elem == ELEM_BF16 ? TC_TMAP_BF16 : TC_TMAP_F16;
        maps[0] = (TcTmap){.kind = TC_TMAP_ROWS, .dtype = t, .box = {am ? 64 : SS_BK, am ? SS_BK : (uint16_t)bm, 0}};
        maps[1] = (TcTmap){.kind = TC_TMAP_ROWS, .dtype = t, .box = {bk ? SS_BK : 64, bk ? (uint16_t)bn : SS_BK, 0}};
    } else if (o->wgmma_swapped && (p != PREC_IEEE || (o->wgmma_tma_b128 && bn % 32 == 0))) {
        /* (the FMA consumers read B's runs conflict-free from 32-column panels, not from 8-column
         * ones; their narrow tiles, BN 8 or 16, fill no panel: they keep their own copies) */
        uint8_t t = p == PREC_TF32_RNE ? TC_TMAP_TF32 : TC_TMAP_F32;
        maps[0] = am ? a_panels : (TcTmap){.kind = TC_TMAP_ROWS, .dtype = t, .box = {BK, (uint16_t)bm, 0}};
        maps[1] = (TcTmap){.kind = TC_TMAP_PANELS, .dtype = t, .box = {8, BK, (uint16_t)(bn / 8)}};
        if (o->wgmma_tma_b128) /* 32-column panels under the 128-byte swizzle */
            maps[1] = (TcTmap){.kind = TC_TMAP_ROWS, .dtype = t, .box = {32, BK, 0}};
    } else {
        return 0;
    }
    if (!tmap_of_load(m, &m->insts[tir_value_def_inst(m, da[0])], elem, &maps[0], am) ||
        !tmap_of_load(m, &m->insts[tir_value_def_inst(m, da[1])], elem, &maps[1], bk))
        return 0;
    /* the swapped product's rounding (lower_wgmma_swapped.c), of the views the launch is to round
     * (-fno-wgmma-preround-b: both entries round B's fragments in registers; -fno-wgmma-preround-a:
     * both round A in shared memory) */
    if (elem == ELEM_F32 && p == PREC_TF32_RNA)
        for (int i = 0; i < 2; i++)
            if (i ? o->wgmma_preround_b : o->wgmma_preround_a)
                maps[i].round = roundable(m, &m->insts[tir_value_def_inst(m, da[i])], &maps[i]);
    /* the loop walks A's columns and B's rows (k; B^T's columns, A^T's rows) */
    maps[0].walk = (uint8_t)!am;
    maps[0].across = (uint16_t)bm;
    maps[1].walk = (uint8_t)bk;
    maps[1].across = (uint16_t)bn;
    const char *why;
    const TirInst *st = wgmma_tma_store_of(m, k, o, &why);
    uint32_t nbuf;
    if (!st)
        return 2;
    maps[2] = (TcTmap){.kind = TC_TMAP_ROWS, .dtype = TC_TMAP_F32, .store = 1,
                       .box = {32, (uint16_t)wgmma_tma_store_rows(m, f, o, &nbuf), 0}};
    return tmap_of_view(m, tir_args(m, st)[1], ELEM_F32, &maps[2], 0) ? 3 : 2;
}

/* The generic address of hidden parameter `param` (a tensor map the TMA
 * unit reads in place, as CUDA's __grid_constant__ parameters): LLVM names
 * a kernel's parameters <kernel>_param_<index>. The entry's, also in a
 * role's function (lower_programs.c): its body ends up inside the entry
 * (compiler/ptx_splice.c). */
LLVMValueRef lw_tmap_addr(Lower *L, uint32_t param)
{
    size_t n;
    const char *fn = LLVMGetValueName2(L->entry_fn, &n);
    char name[2300], tmpl[2400];
    lw_asm_text(name, sizeof name, fn, n); /* (TC_ROUNDED_SUFFIX's '$') */
    snprintf(tmpl, sizeof tmpl, "mov.b64 $0, %s_param_%u;\n\tcvta.param.u64 $0, $0;", name, param);
    return lw_asm(L, L->t_i64, tmpl, "=l", NULL, 0, 0);
}

/* The alignment, in elements, that a box's innermost coordinate needs (16
 * bytes): A's first k (*ka) and B's first column (*cb; f32 8-column panels:
 * a whole panel). */
static void box_alignment(int ss, int b128, int bk, uint32_t *ka, uint32_t *cb)
{
    *ka = ss ? 8 : 4;
    *cb = bk ? 1 : ss ? 8 : b128 ? 4 : 8; /* (bk: B's innermost coordinate is k, as A's) */
}

LLVMValueRef wg_tma_usable(Pipe *P, const Access *xa, const Access *xb)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    LLVMValueRef flags = LLVMGetParam(L->fn, L->tma_param0 + L->ntmaps);
    LLVMValueRef both = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, flags, c32(L, 3), ""), c32(L, 3), "");
    /* a box's innermost coordinate must fall on 16 bytes (an unaligned one
     * is an illegal instruction: gpu_test_gemm's tiles from column 1 and k
     * 1, bench/NOTES.md v10): A's first k, B's first column (f32 8-column
     * panels: a whole panel) */
    uint32_t ka, cb;
    box_alignment(P->ss, P->b128, P->bk, &ka, &cb);
    /* (an M-major A's box: innermost A's rows, in 64-row panels (f16/bf16) or 32-row ones (f32); k
     * the row of A^T and of B, unless B is K-major too) */
    LLVMValueRef ok = P->am && !P->bk ? LLVMConstInt(L->t_i1, 1, 0)
                                      : LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, P->lo, c64(L, ka - 1), ""), c64(L, 0), "");
    if (P->am) { /* xa is A's transpose (its first column, A's first row: on 16 bytes) */
        ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, xa->i1, c64(L, P->ss ? 7 : 3), ""), c64(L, 0), ""), "");
        ok = LLVMBuildAnd(b, ok, wg_fits_i32(L, xa->i1, P->bm), "");
    } else {
        ok = LLVMBuildAnd(b, ok, wg_fits_i32(L, xa->i0, P->bm), "");
    }
    if (P->bk) { /* xb is B's transpose: its rows (B's columns) start anywhere */
        return LLVMBuildAnd(b, both, LLVMBuildAnd(b, ok, wg_fits_i32(L, xb->i0, P->bn), ""), "tma");
    }
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, xb->i1, c64(L, cb - 1), ""), c64(L, 0), ""), "");
    /* the boxes' coordinates are i32: a tile origin beyond it (an i64
     * index) would wrap onto real data instead of reading zeros (the loop's
     * k is i32, as its bounds) */
    ok = LLVMBuildAnd(b, ok, wg_fits_i32(L, xb->i1, P->bn), "");
    return LLVMBuildAnd(b, both, ok, "tma");
}

/* How many low bits of integer value v are known zero (at most 31): from
 * constants through products, sums, differences, negation, min and max;
 * anything else (a parameter, program_id, a loop's variable) none. */
static uint32_t known_zero_bits(const TirModule *m, uint32_t v, int depth)
{
    uint32_t i = tir_value_def_inst(m, v);
    if (!i || depth > 16)
        return 0;
    const TirInst *in = &m->insts[i];
    const uint32_t *a = tir_args(m, in);
    uint32_t x, y;
    switch (in->op) {
    case OP_CONST: {
        uint64_t c = (uint64_t)in->i64;
        uint32_t n = 0;
        while (n < 31 && !(c >> n & 1))
            n++;
        return n;
    }
    case OP_MUL:
        x = known_zero_bits(m, a[0], depth + 1) + known_zero_bits(m, a[1], depth + 1);
        return x > 31 ? 31 : x;
    case OP_ADD:
    case OP_SUB:
    case OP_MIN:
    case OP_MAX:
        x = known_zero_bits(m, a[0], depth + 1);
        y = known_zero_bits(m, a[1], depth + 1);
        return x < y ? x : y;
    case OP_NEG:
        return known_zero_bits(m, a[0], depth + 1);
    default:
        return 0;
    }
}

const char *wg_tma_only_refusal(const TirModule *m, const TirInst *loop, const TirInst *lda, const TirInst *ldb,
                                int ss, int b128, int bk, int am)
{
    /* a map whose column stride is a parameter is never encoded where it is not 1 (tmap.c):
     * a view read transposed (am, bk) has the constant 1 as its rows' stride, else its own
     * columns' must be */
    if ((!am && !wgmma_view_row_major(m, lda)) || (!bk && !wgmma_view_row_major(m, ldb)))
        return "a view the pipeline reads as it lies has no constant 1 as its column stride (a launch "
               "encodes no map for it where the stride is not 1)";
    /* wg_tma_usable's test, proven: the first k on ka elements where a box's innermost
     * coordinate is k, B's first column on cb, an M-major A's first row on 16 bytes (8 f16/bf16,
     * 4 f32) */
    uint32_t ka, cb;
    box_alignment(ss, b128, bk, &ka, &cb);
    const uint32_t *la = tir_args(m, lda), *lb = tir_args(m, ldb);
    if (lda->nargs != 3 || ldb->nargs != 3)
        return "a batched view (its batch's range is not known)";
    uint32_t lo = tir_args(m, loop)[0], i = tir_value_def_inst(m, lo);
    if (!(am && !bk) && !(i && m->insts[i].op == OP_CONST && m->insts[i].i64 % ka == 0))
        return "the loop's first k is not a constant multiple of 16 bytes";
    if (am && known_zero_bits(m, la[1], 0) < (ss ? 3u : 2u))
        return ss ? "A's first row (A is M-major) is not a known multiple of 8"
                  : "A's first row (A is M-major) is not a known multiple of 4";
    if ((1u << known_zero_bits(m, lb[2], 0)) % cb)
        return "B's first column is not a known multiple of its box's alignment";
    return NULL;
}

LLVMValueRef wg_fits_i32(Lower *L, LLVMValueRef x, uint32_t n)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef lo = LLVMBuildICmp(b, LLVMIntSGE, x, c64(L, INT32_MIN), "");
    return LLVMBuildAnd(b, lo, LLVMBuildICmp(b, LLVMIntSLE, x, c64(L, (int64_t)INT32_MAX - n), ""), "");
}

void wg_tma_prepare(Pipe *P)
{
    P->tmap_a = lw_tmap_addr(P->L, P->L->tma_param0);
    P->tmap_b = lw_tmap_addr(P->L, P->L->tma_param0 + 1);
    if (P->cluster)
        P->rank = wg_cluster_rank(P->L);
}

/* One box of `map` at coordinates c[0..n) (innermost first; a batched
 * view's batch appended) to shared address dst, its bytes completing on
 * barrier bar. */
static void tma_box(Lower *L, LLVMValueRef dst, LLVMValueRef map, const LLVMValueRef *c, uint32_t n,
                    LLVMValueRef batch, LLVMValueRef bar)
{
    LLVMValueRef a[8] = {dst, map, bar};
    uint32_t na = 3;
    char tmpl[256], cons[64] = "r,l,r";
    int len = snprintf(tmpl, sizeof tmpl,
                       "cp.async.bulk.tensor.%ud.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {",
                       n + (batch != NULL));
    for (uint32_t i = 0; i < n + (batch != NULL); i++) {
        LLVMValueRef x = i < n ? c[i] : batch;
        if (!x) { /* a literal 0 */
            len += snprintf(tmpl + len, sizeof tmpl - (size_t)len, "%s0", i ? ", " : "");
            continue;
        }
        a[na] = x;
        len += snprintf(tmpl + len, sizeof tmpl - (size_t)len, "%s$%u", i ? ", " : "", na);
        strcat(cons, ",r");
        na++;
    }
    snprintf(tmpl + len, sizeof tmpl - (size_t)len, "}], [$2];");
    strcat(cons, ",~{memory}");
    lw_asm(L, void_t(L), tmpl, cons, a, na, SE);
}

/* The i64 coordinate x as the TMA's i32 (wg_tma_usable checked that the
 * tile's fit; outside the view the box reads zeros). */
static LLVMValueRef coord(Lower *L, LLVMValueRef x) { return LLVMBuildTrunc(L->b, x, L->t_i32, ""); }

/* B's 32-column panels at step k, a box each (4096 bytes), to this block. */
static void b_panels(Pipe *P, const Access *xb, LLVMValueRef bdst, LLVMValueRef k, LLVMValueRef bar)
{
    Lower *L = P->L;
    for (uint32_t p = 0; p < P->bn / 32; p++) {
        LLVMValueRef kb[2] = {coord(L, LLVMBuildAdd(L->b, xb->i1, c64(L, 32 * p), "")), coord(L, k)};
        tma_box(L, LLVMBuildAdd(L->b, bdst, c32(L, p * BK * 128), ""), P->tmap_b, kb, 2, P->batch_b, bar);
    }
}

void wg_tma_issue(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef t)
{
    Lower *L = P->L;
    LLVMBuilderRef b = L->b;
    uint32_t bk = P->ss ? SS_BK : BK;
    /* with TMA, full[] (f16/bf16) or landed[] counts one arrival and the bytes */
    LLVMValueRef s = wg_wait_step(P, P->empty32, t, 1);
    LLVMValueRef k = LLVMBuildAdd(b, P->lo, LLVMBuildMul(b, LLVMBuildZExt(b, t, L->t_i64, ""), c64(L, bk), ""), "");
    LLVMValueRef stage = LLVMBuildAdd(b, P->ring32, LLVMBuildMul(b, s, c32(L, P->stage_bytes), ""), "");
    LLVMValueRef bar = wg_bar_addr(L, P->ss ? P->full32 : P->landed32, s);
    LLVMValueRef tx[2] = {bar, c32(L, (P->bm + P->bn) * ROW_BYTES)}; /* 128 bytes of k per row, column */
    lw_asm(L, void_t(L), "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}", tx, 2, SE);
    if (P->am) { /* A^T's panels as a row-major B's: f16/bf16 64 columns (8192 bytes each), f32 32 (4096) */
        uint32_t pw = P->ss ? 64 : 32, pbytes = (P->ss ? SS_BK : BK) * ROW_BYTES;
        for (uint32_t p = 0; p < P->bm / pw; p++) {
            LLVMValueRef km[2] = {coord(L, LLVMBuildAdd(b, xa->i1, c64(L, pw * p), "")), coord(L, k)};
            tma_box(L, LLVMBuildAdd(b, stage, c32(L, p * pbytes), ""), P->tmap_a, km, 2, P->batch_a, bar);
        }
    }
    else {
        LLVMValueRef ka[2] = {coord(L, k), coord(L, xa->i0)};
        tma_box(L, stage, P->tmap_a, ka, 2, P->batch_a, bar);
    }
    LLVMValueRef bdst = LLVMBuildAdd(b, stage, c32(L, swapped_a_copies(P) * P->bm * ROW_BYTES), "");
    if (P->bk) { /* B^T's rows, as A's (xb is the transpose) */
        LLVMValueRef kb[2] = {coord(L, k), coord(L, xb->i0)};
        tma_box(L, bdst, P->tmap_b, kb, 2, P->batch_b, bar);
        return;
    }
    if (P->cluster) { /* this block's half of the panels, p % 2 == rank, to both blocks */
        LLVMBasicBlockRef shared = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.multicast");
        LLVMBasicBlockRef alone = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.own");
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "b.done");
        LLVMBuildCondBr(b, P->shares_b, shared, alone);
        LLVMPositionBuilderAtEnd(b, shared);
        for (uint32_t q = 0; q < P->bn / 64; q++) {
            LLVMValueRef p = LLVMBuildAdd(b, c32(L, 2 * q), P->rank, "");
            LLVMValueRef col = LLVMBuildAdd(b, xb->i1, LLVMBuildZExt(b, LLVMBuildShl(b, p, c32(L, 5), ""), L->t_i64, ""), "");
            LLVMValueRef dst = LLVMBuildAdd(b, bdst, LLVMBuildMul(b, p, c32(L, BK * 128), ""), "");
            wg_tma_box_multicast(L, dst, P->tmap_b, coord(L, col), coord(L, k), bar);
        }
        LLVMBuildBr(b, done);
        LLVMPositionBuilderAtEnd(b, alone); /* the peer's program takes other columns */
        b_panels(P, xb, bdst, k, bar);
        LLVMBuildBr(b, done);
        LLVMPositionBuilderAtEnd(b, done);
        return;
    }
    if (P->b128) {
        b_panels(P, xb, bdst, k, bar);
        return;
    }
    if (!P->ss) { /* one box of BN / 8 panels: {0, k, column / 8} */
        LLVMValueRef kb[3] = {NULL, coord(L, k), coord(L, LLVMBuildAShr(b, xb->i1, c64(L, 3), ""))};
        tma_box(L, bdst, P->tmap_b, kb, 3, P->batch_b, bar);
        return;
    }
    for (uint32_t p = 0; p < P->bn / 64; p++) { /* a box per 64-column panel (8192 bytes) */
        LLVMValueRef kb[2] = {coord(L, LLVMBuildAdd(b, xb->i1, c64(L, 64 * p), "")), coord(L, k)};
        tma_box(L, LLVMBuildAdd(b, bdst, c32(L, p * SS_BK * ROW_BYTES), ""), P->tmap_b, kb, 2, P->batch_b, bar);
    }
}

/* Byte offset of element (row, col) of a store band of rb rows in the TMA's
 * layout: box col / 32 (rb rows of 128 bytes each), row `row`, its 16-byte
 * chunk col % 32 / 4 under the 128-byte swizzle, word col % 4. */
static LLVMValueRef band_offset(Lower *L, LLVMValueRef row, LLVMValueRef col, uint32_t rb)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef chunk = LLVMBuildAnd(b, LLVMBuildLShr(b, col, c32(L, 2), ""), c32(L, 7), "");
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildLShr(b, col, c32(L, 5), ""), c32(L, rb * ROW_BYTES), "");
    off = LLVMBuildAdd(b, off, wg_swz(L, row, chunk), "");
    return LLVMBuildAdd(b, off, LLVMBuildShl(b, LLVMBuildAnd(b, col, c32(L, 3), ""), c32(L, 2), ""), "");
}

/* The own path of wg_tma_store: band q of rb x bn elements, written in
 * buf (an i8 pointer) in the TMA's layout, stored by all the consumer
 * threads, an element a thread an iteration under its bounds (x: C's view),
 * in a loop rather than unrolled: a launch with no map for C (its rows not
 * on 16 bytes, e.g. N = 8193) is rare, and unrolled stores were half of the
 * consumers' LLVM IR (ptxas unrolls the loop itself). A warp takes 32
 * consecutive columns of a row: 128 contiguous bytes of C, one 128-byte row
 * of a box in shared memory (its 8 chunks under the swizzle: every bank
 * once). */
static void band_stores(Lower *L, const Access *x, LLVMValueRef buf, uint32_t q, uint32_t rb, uint32_t bn)
{
    LLVMBuilderRef b = L->b;
    uint32_t elems = rb * bn, iters = (elems + L->threads - 1) / L->threads;
    Loop lp = wg_loop_open(L, "store.own");
    wg_loop_test(L, &lp, c32(L, iters));
    LLVMValueRef j = lp.i;
    LLVMValueRef idx = LLVMBuildAdd(b, L->tid, LLVMBuildMul(b, j, c32(L, L->threads), ""), "");
    LLVMValueRef r = LLVMBuildUDiv(b, idx, c32(L, bn), ""), c = LLVMBuildURem(b, idx, c32(L, bn), "");
    LLVMValueRef off = band_offset(L, r, c, rb);
    LLVMValueRef tail = elems % L->threads ? LLVMBuildICmp(b, LLVMIntULT, idx, c32(L, elems), "") : NULL;
    if (tail) /* the last iteration's threads past the band read its first element, store nothing */
        off = LLVMBuildSelect(b, tail, off, c32(L, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(b, L->t_f32, LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), buf, &off, 1, ""), "");
    LLVMSetAlignment(v, 4);
    LLVMValueRef gr = LLVMBuildAdd(b, x->i0, LLVMBuildZExt(b, LLVMBuildAdd(b, r, c32(L, rb * q), ""), L->t_i64, ""), "");
    LLVMValueRef gc = LLVMBuildAdd(b, x->i1, LLVMBuildZExt(b, c, L->t_i64, ""), "");
    LLVMValueRef rok = lw_in_range(L, gr, x->d0);
    if (tail)
        rok = LLVMBuildAnd(b, rok, tail, "");
    LLVMValueRef base = LLVMBuildPtrToInt(b, x->base, L->t_i64, "");
    lw_store_if(L, rok, lw_in_range(L, gc, x->d1),
                LLVMBuildAdd(b, base, LLVMBuildMul(b, gr, LLVMBuildMul(b, x->s0, c64(L, 4), ""), ""), ""),
                LLVMBuildMul(b, gc, LLVMBuildMul(b, x->s1, c64(L, 4), ""), ""), v, ELEM_F32);
    wg_loop_close(L, &lp);
}

/* -fwgmma-tma-store: the tile of store i (the swapped product's
 * accumulators, lower_wgmma.c's transposed MMA layout) written to C by TMA
 * through map 2. The tile goes in bands of rb rows (wgmma_tma_store_rows):
 * a thread's register r lies in band drow(r) / rb, as every thread's first
 * row is below 8 and rb a multiple of 8. A band is written to a buffer in
 * shared memory as boxes of rb rows by 32 columns under the 128-byte
 * swizzle (A's stage layout), fenced for the async proxy, and one thread
 * stores each box; with two buffers (where they fit) a band is written
 * while the TMA reads the one before, the issuer waiting for the reads of
 * the band before that (with one, of its own). The TMA leaves out what
 * lies outside the view.
 * Where the map may be missing (not -fwgmma-tma-only) or the tile's first
 * column is not proven a multiple of 4 (a box's innermost coordinate off 16
 * bytes faults, bench/NOTES.md v10), a test on the program's scalars
 * (uniform) sends each band to band_stores instead of the TMA. The store is
 * ordered as one by any thread (lower_STORE). */
void wg_tma_store(Lower *L, uint32_t i)
{
    const TirModule *m = L->m;
    const TirInst *in = &m->insts[i];
    const uint32_t *a = tir_args(m, in);
    LLVMBuilderRef b = L->b;
    Layout lay = lw_layout_of(L, a[0]);
    uint32_t nbuf, bm = lay.rows, bn = lay.cols, rb = wgmma_tma_store_rows(m, wgmma_marked_loop(m, L->k), L->o, &nbuf);
    if (lay.kind != LAYOUT_MMA || !lay.trans || lay.wn != 1 || bn % 32 || !rb || rb % 8 || bm % rb) {
        lw_error(L, in->loc, "internal error: -fwgmma-tma-store on a %ux%u tile not in the swapped product's layout",
                 bm, bn);
        return;
    }
    LLVMValueRef *regs = lw_tile_in(L, a[0], &lay);
    uint32_t n = layout_nregs(&lay), pair[TC_MAX_TILE_REGS + 1];
    if (n > TC_MAX_TILE_REGS)
        lw_error(L, in->loc, "internal error: -fwgmma-tma-store on a tile of %u registers a thread", n);
    if (!regs || n > TC_MAX_TILE_REGS)
        return;
    if (!layout_pairs(&lay, pair))
        for (uint32_t r = 0; r < n; r++)
            pair[r] = PAIR_NONE;
    Access x = lw_access(L, in, 1, ELEM_F32);
    int batched = lw_val(L, a[1])->rank == 3;
    LLVMValueRef fits = LLVMBuildAnd(b, wg_fits_i32(L, x.i0, bm), wg_fits_i32(L, x.i1, bn), "");
    if (batched) { /* the batch a third coordinate */
        LLVMValueRef bs = lw_val(L, a[2])->s;
        if (LLVMTypeOf(bs) != L->t_i64)
            bs = LLVMBuildSExt(b, bs, L->t_i64, "");
        fits = LLVMBuildAnd(b, fits, wg_fits_i32(L, bs, 0), "");
    }
    /* the box's innermost coordinate on 16 bytes, as for the loads (wg_tma_usable): proven, or
     * tested with the kernel's own stores beside */
    int proven = L->tmaps_required && (1u << known_zero_bits(m, a[batched ? 4 : 3], 0)) % 4 == 0;
    L->tma_store_own |= !proven;
    LLVMBasicBlockRef tma = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.tma");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.tma.done");
    LLVMValueRef use = NULL; /* the TMA stores the bands (uniform); NULL: always */
    if (proven) /* the map is there (the launch checked): a tile it cannot address stops here */
        wg_trap_if(L, LLVMBuildAnd(b, x.nonempty, LLVMBuildNot(b, fits, ""), ""));
    else {
        LLVMValueRef flags = LLVMGetParam(L->fn, L->tma_param0 + L->ntmaps);
        LLVMValueRef mapped = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, flags, c32(L, 4), ""), c32(L, 0), "");
        LLVMValueRef col_ok = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, x.i1, c64(L, 3), ""), c64(L, 0), "");
        use = LLVMBuildAnd(b, fits, LLVMBuildAnd(b, col_ok, mapped, ""), "");
    }
    LLVMBuildCondBr(b, x.nonempty, tma, done);
    LLVMPositionBuilderAtEnd(b, tma);
    /* the buffers, 1024-byte aligned for the swizzle */
    uint32_t band_bytes = rb * bn * 4u;
    LLVMValueRef buf32, buf = wg_smem_1024(L, nbuf * band_bytes, &buf32);
    LLVMValueRef row0 = layout_base_row(L, &lay), col0 = layout_base_col(L, &lay);
    LLVMValueRef map = lw_tmap_addr(L, L->tma_param0 + 2);
    LLVMValueRef c0 = LLVMBuildTrunc(b, x.i1, L->t_i32, ""), r0 = LLVMBuildTrunc(b, x.i0, L->t_i32, "");
    LLVMValueRef bi = batched ? LLVMBuildIntCast2(b, lw_val(L, a[2])->s, L->t_i32, 1, "") : NULL;
    LLVMTypeRef f32 = L->t_f32, v2 = LLVMVectorType(L->t_f32, 2);
    for (uint32_t q = 0; q < bm / rb; q++) {
        lw_barrier(L); /* this band's buffer read by the TMA (the issuer waited) or by band_stores */
        LLVMValueRef boff = c32(L, q % nbuf * band_bytes);
        LLVMValueRef bq = LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), buf, &boff, 1, "");
        LLVMValueRef bq32 = LLVMBuildAdd(b, buf32, boff, "");
        for (uint32_t r = 0; r < n; r++) {
            uint32_t dr, dc;
            layout_offset(&lay, r, &dr, &dc);
            if (pair[r] == PAIR_RIGHT || dr / rb != q)
                continue;
            LLVMValueRef rho = LLVMBuildAdd(b, row0, c32(L, dr - rb * q), "");
            LLVMValueRef kap = LLVMBuildAdd(b, col0, c32(L, dc), "");
            LLVMValueRef off = band_offset(L, rho, kap, rb);
            LLVMValueRef at = LLVMBuildGEP2(b, LLVMInt8TypeInContext(L->ctx), bq, &off, 1, "");
            if (pair[r] != PAIR_NONE) { /* columns dc, dc + 1: 8 bytes in one 16-byte chunk (dc even) */
                LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetUndef(v2), regs[r], c32(L, 0), "");
                v = LLVMBuildInsertElement(b, v, regs[pair[r]], c32(L, 1), "");
                LLVMSetAlignment(LLVMBuildStore(b, v, at), 8);
            } else
                LLVMSetAlignment(LLVMBuildStore(b, LLVMBuildBitCast(b, regs[r], f32, ""), at), 4);
        }
        /* the band's shared stores seen by the TMA (the async proxy; not needed where the
         * consumers store the band themselves), then by the issuer */
        LLVMBasicBlockRef fenced = use ? wg_if_open(L, use, "store.tma.fence") : NULL;
        lw_asm(L, void_t(L), "fence.proxy.async.shared::cta;", "~{memory}", NULL, 0, SE);
        if (fenced)
            wg_if_close(L, fenced);
        lw_barrier(L);
        LLVMBasicBlockRef issue = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.tma.issue");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.tma.band");
        LLVMValueRef issuer = LLVMBuildICmp(b, LLVMIntEQ, L->tid, c32(L, 0), "");
        if (use) {
            LLVMBasicBlockRef by_tma = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.tma.mapped");
            LLVMBasicBlockRef own = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "store.tma.own");
            LLVMBuildCondBr(b, use, by_tma, own);
            LLVMPositionBuilderAtEnd(b, own);
            band_stores(L, &x, bq, q, rb, bn);
            LLVMBuildBr(b, next);
            LLVMPositionBuilderAtEnd(b, by_tma);
        }
        LLVMBuildCondBr(b, issuer, issue, next);
        LLVMPositionBuilderAtEnd(b, issue);
        for (uint32_t p = 0; p < bn / 32; p++) {
            LLVMValueRef ops[5] = {map, LLVMBuildAdd(b, c0, c32(L, 32 * p), ""),
                                   LLVMBuildAdd(b, r0, c32(L, rb * q), ""),
                                   LLVMBuildAdd(b, bq32, c32(L, p * rb * ROW_BYTES), ""), bi};
            lw_asm(L, void_t(L),
                   batched ? "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [$0, {$1, $2, $4}], [$3];"
                           : "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];",
                   batched ? "l,r,r,r,r,~{memory}" : "l,r,r,r,~{memory}", ops, 4u + (batched != 0), SE);
        }
        /* the next band's buffer free: the reads of the band nbuf - 1 before it (all of them after the last) */
        lw_asm(L, void_t(L),
               q + 1 == bm / rb || nbuf == 1 ? "cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;"
                                             : "cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 1;",
               "~{memory}", NULL, 0, SE);
        LLVMBuildBr(b, next);
        LLVMPositionBuilderAtEnd(b, next);
    }
    lw_barrier(L); /* the buffer free for whatever shared memory the kernel uses next */
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
}
