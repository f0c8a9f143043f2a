/*
 * Lowering driver: builds the LLVM function of one kernel entry point in a
 * module of its own (lw_lower_entry; compiler/entries.c runs the entries of
 * a module, several at once) (ptx_kernel calling convention, line info from
 * each op's source location), walks the blocks
 * and dispatches each op to lower_<OP>() through a table made from
 * ir/ops.h. Loops become LLVM loops whose phis carry every register of the
 * loop-carried tiles. A persistent kernel's body goes inside a loop over
 * the launch's programs (lower_programs.c), once per role of its pipeline.
 *
 * Needs: a verified module after pass_precision (f32 dots are ieee or
 * tf32-trunc). Guarantees: a valid LLVM module, or an error in the log.
 */
#include "compiler/lower.h"

#include <llvm-c/Analysis.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*LowerFn)(Lower *L, uint32_t inst);
static const LowerFn lower_table[OP_COUNT] = {
#define OP(e, name, nargs, flags) [OP_##e] = lower_##e,
#include "ir/ops.h"
#undef OP
};

/* ---- small helpers ---- */

void *lw_alloc(Lower *L, size_t bytes)
{
    if (L->nallocs == L->cap_allocs) {
        size_t ncap = L->cap_allocs ? L->cap_allocs * 2 : 256;
        void **n = realloc(L->allocs, ncap * sizeof *n);
        if (!n)
            goto oom;
        L->allocs = n;
        L->cap_allocs = ncap;
    }
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        goto oom;
    L->allocs[L->nallocs++] = p;
    return p;
oom:
    if (!L->failed)
        diag_error(L->d, (TirLoc){0}, "out of memory while lowering");
    L->failed = 1;
    return NULL;
}

LLVMValueRef *lw_regs(Lower *L, uint32_t n) { return lw_alloc(L, (size_t)n * sizeof(LLVMValueRef)); }

void lw_error(Lower *L, TirLoc loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(L->d, loc, "%s", msg);
    L->failed = 1;
}

LLVMValueRef lw_const_i32(Lower *L, int64_t v) { return LLVMConstInt(L->t_i32, (unsigned long long)v, 1); }
LLVMValueRef lw_const_i64(Lower *L, int64_t v) { return LLVMConstInt(L->t_i64, (unsigned long long)v, 1); }

LLVMValueRef lw_const_float(Lower *L, TirElem e, double v)
{
    if (e == ELEM_F32 && isnan(v))
        return LLVMConstBitCast(LLVMConstInt(L->t_i32, tir_f32_bits(v), 0), L->t_f32);
    return LLVMConstReal(lw_elem_type(L, e), v);
}

LLVMTypeRef lw_elem_type(Lower *L, TirElem e)
{
    switch (e) {
    case ELEM_I32: return L->t_i32;
    case ELEM_I64: return L->t_i64;
    case ELEM_F16: return L->t_f16;
    case ELEM_BF16: return L->t_bf16;
    default: return L->t_f32;
    }
}

LLVMValueRef lw_call(Lower *L, const char *name, LLVMTypeRef *overload, unsigned noverload, LLVMValueRef *args,
                     unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) {
        lw_error(L, (TirLoc){0}, "internal error: LLVM has no intrinsic '%s'", name);
        return LLVMGetUndef(L->t_i32);
    }
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->mod, id, overload, noverload);
    LLVMTypeRef fty = LLVMIntrinsicGetType(L->ctx, id, overload, noverload);
    return LLVMBuildCall2(L->b, fty, fn, args, nargs, "");
}

LLVMValueRef lw_asm(Lower *L, LLVMTypeRef ret, const char *tmpl, const char *constraints, LLVMValueRef *args,
                    unsigned nargs, int flags)
{
    LLVMTypeRef small[8], *ptys = nargs <= 8 ? small : lw_alloc(L, nargs * sizeof *ptys);
    if (!ptys)
        return LLVMGetUndef(ret);
    for (unsigned i = 0; i < nargs; i++)
        ptys[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, ptys, nargs, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)tmpl, strlen(tmpl), (char *)constraints, strlen(constraints),
                                       (flags & LW_ASM_SIDE_EFFECTS) != 0, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(L->b, fty, fn, args, nargs, "");
    if (flags & LW_ASM_CONVERGENT) {
        unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, 0));
    }
    return call;
}

void lw_asm_text(char *out, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < cap; i++) {
        if (s[i] == '$')
            out[o++] = '$';
        out[o++] = s[i];
    }
    out[o] = 0;
}

/* A barrier of the threads running this code: all of the program's, or,
 * after a wgmma pipeline whose producer warps have left, named barrier 1 of
 * the consumer threads. */
void lw_barrier(Lower *L)
{
    lw_order_reset(L); /* bar.sync orders the block's global memory accesses too */
    if (!L->bar_threads) {
        lw_call(L, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
        return;
    }
    char t[48];
    snprintf(t, sizeof t, "bar.sync 1, %u;", L->bar_threads);
    lw_asm(L, LLVMVoidTypeInContext(L->ctx), t, "~{memory}", NULL, 0, LW_ASM_CONVERGENT | LW_ASM_SIDE_EFFECTS);
}

const LVal *lw_val(Lower *L, uint32_t v) { return &L->vals[v]; }
void lw_set(Lower *L, uint32_t v, LVal lv) { L->vals[v] = lv; }

static LLVMValueRef sreg(Lower *L, const char *name) { return lw_call(L, name, NULL, 0, NULL, 0); }

/* ---- scalar sources ---- */

void lower_CONST(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    LLVMValueRef v;
    if (in->type.elem == ELEM_F32)
        v = lw_const_float(L, ELEM_F32, in->fval);
    else
        v = LLVMConstInt(lw_elem_type(L, (TirElem)in->type.elem), (unsigned long long)in->i64, 1);
    lw_set(L, in->result, (LVal){.kind = LV_SCALAR, .s = v});
}

static const char *const ctaid[3] = {"llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
                                     "llvm.nvvm.read.ptx.sreg.ctaid.z"};
static const char *const nctaid[3] = {"llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y",
                                      "llvm.nvvm.read.ptx.sreg.nctaid.z"};

/* Persistent kernels (L->persist) take the program from their loop over
 * the launch's programs (lw_programs), not from the block's index. */
void lower_PROGRAM_ID(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    LLVMValueRef v = L->persist ? L->prog[in->ival % 3] : sreg(L, ctaid[in->ival % 3]);
    lw_set(L, in->result, (LVal){.kind = LV_SCALAR, .s = v});
}

void lower_NUM_PROGRAMS(Lower *L, uint32_t i)
{
    const TirInst *in = &L->m->insts[i];
    LLVMValueRef v = L->persist ? L->nprog[in->ival % 3] : sreg(L, nctaid[in->ival % 3]);
    lw_set(L, in->result, (LVal){.kind = LV_SCALAR, .s = v});
}

/* ---- loops ---- */

/* The layout a loop-carried tile keeps across iterations: that of the value
 * the body yields when it is a dot (so the accumulator never leaves the MMA
 * registers), else that of the initial value. */
static Layout carried_layout(Lower *L, uint32_t init, uint32_t yielded)
{
    uint32_t def = tir_value_def_inst(L->m, yielded);
    if (def && L->m->insts[def].op == OP_DOT)
        return lw_layout_of(L, yielded); /* not lowered yet: computed from the dot's shape */
    return lw_layout_of(L, init);
}

void lower_FOR(Lower *L, uint32_t i)
{
    const TirModule *m = L->m;
    const TirInst in = m->insts[i];
    if (in.ival > 0 && L->o->arch == ARCH_SM90A) { /* marked by pass_wgmma */
        lw_order_pipeline(L, in.body);
        lower_wgmma_loop(L, i);
        return;
    }
    if (in.ival < 0) { /* marked by pass_mma */
        lw_order_pipeline(L, in.body);
        lower_mma_loop(L, i);
        return;
    }
    const uint32_t *args = tir_args(m, &in);
    const TirBlock *body = &m->blocks[in.body];
    const uint32_t *bargs = tir_block_args(m, body);
    uint32_t ncar = in.nresults;
    const TirInst *yield = &m->insts[m->pool[body->insts + body->ninsts - 1]];
    const uint32_t *yargs = tir_args(m, yield);

    LLVMValueRef lo = LLVMBuildSExt(L->b, lw_val(L, args[0])->s, L->t_i64, "lo");
    LLVMValueRef hi = LLVMBuildSExt(L->b, lw_val(L, args[1])->s, L->t_i64, "hi");
    LLVMValueRef step = LLVMBuildSExt(L->b, lw_val(L, args[2])->s, L->t_i64, "step");
    LLVMValueRef posstep = LLVMBuildICmp(L->b, LLVMIntSGT, step, lw_const_i64(L, 0), "");

    /* initial values, in the layouts the loop keeps */
    Layout *lays = lw_alloc(L, (ncar + 1) * sizeof *lays);
    LLVMValueRef **init = lw_alloc(L, (ncar + 1) * sizeof *init);
    if (!lays || !init)
        return;
    for (uint32_t c = 0; c < ncar; c++) {
        uint32_t iv = args[3 + c];
        if (tir_value_type(m, iv).kind == TY_TILE) {
            lays[c] = carried_layout(L, iv, yargs[c]);
            init[c] = lw_tile_in(L, iv, &lays[c]);
        }
    }
    if (L->failed)
        return;

    MemPending *before = lw_alloc(L, sizeof *before);
    if (!before)
        return;
    lw_order_loop_enter(L, in.body, before);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "loop");
    LLVMBasicBlockRef bodybb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "body");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "endloop");
    LLVMBuildBr(L->b, head);
    LLVMPositionBuilderAtEnd(L->b, head);

    LLVMValueRef ivphi = LLVMBuildPhi(L->b, L->t_i64, "i");
    LLVMAddIncoming(ivphi, &lo, &pre, 1);
    LLVMValueRef **phis = lw_alloc(L, (ncar + 1) * sizeof *phis);
    if (!phis)
        return;
    for (uint32_t c = 0; c < ncar; c++) {
        uint32_t iv = args[3 + c];
        TirType t = tir_value_type(m, iv);
        if (t.kind == TY_TILE) {
            uint32_t n = layout_nregs(&lays[c]);
            phis[c] = lw_regs(L, n);
            if (!phis[c])
                return;
            for (uint32_t r = 0; r < n; r++) {
                phis[c][r] = LLVMBuildPhi(L->b, lw_elem_type(L, (TirElem)t.elem), "");
                LLVMAddIncoming(phis[c][r], &init[c][r], &pre, 1);
            }
            lw_set(L, bargs[1 + c], (LVal){.kind = LV_TILE, .regs = phis[c], .lay = lays[c]});
        } else {
            phis[c] = lw_regs(L, 1);
            if (!phis[c])
                return;
            phis[c][0] = LLVMBuildPhi(L->b, lw_elem_type(L, (TirElem)t.elem), "");
            LLVMValueRef s = lw_val(L, iv)->s;
            LLVMAddIncoming(phis[c][0], &s, &pre, 1);
            lw_set(L, bargs[1 + c], (LVal){.kind = LV_SCALAR, .s = phis[c][0]});
        }
    }
    LLVMValueRef more = LLVMBuildICmp(L->b, LLVMIntSLT, ivphi, hi, "");
    LLVMBuildCondBr(L->b, LLVMBuildAnd(L->b, more, posstep, ""), bodybb, exit);

    LLVMPositionBuilderAtEnd(L->b, bodybb);
    lw_set(L, bargs[0], (LVal){.kind = LV_SCALAR, .s = LLVMBuildTrunc(L->b, ivphi, L->t_i32, "")});
    lw_lower_block(L, in.body); /* everything but the yield */
    if (L->failed)
        return;
    for (uint32_t c = 0; c < ncar; c++) {
        TirType t = tir_value_type(m, args[3 + c]);
        if (t.kind == TY_TILE) {
            LLVMValueRef *y = lw_tile_in(L, yargs[c], &lays[c]);
            if (!y)
                return;
            LLVMBasicBlockRef cur = LLVMGetInsertBlock(L->b);
            for (uint32_t r = 0; r < layout_nregs(&lays[c]); r++)
                LLVMAddIncoming(phis[c][r], &y[r], &cur, 1);
        }
    }
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    for (uint32_t c = 0; c < ncar; c++)
        if (tir_value_type(m, args[3 + c]).kind != TY_TILE) {
            LLVMValueRef s = lw_val(L, yargs[c])->s;
            LLVMAddIncoming(phis[c][0], &s, &latch, 1);
        }
    LLVMValueRef next = LLVMBuildAdd(L->b, ivphi, step, "");
    LLVMAddIncoming(ivphi, &next, &latch, 1);
    LLVMBuildBr(L->b, head);

    LLVMPositionBuilderAtEnd(L->b, exit);
    lw_order_loop_exit(L, in.body, before);
    for (uint32_t c = 0; c < ncar; c++) {
        if (tir_value_type(m, args[3 + c]).kind == TY_TILE)
            lw_set(L, in.result + c, (LVal){.kind = LV_TILE, .regs = phis[c], .lay = lays[c]});
        else
            lw_set(L, in.result + c, (LVal){.kind = LV_SCALAR, .s = phis[c][0]});
    }
}

void lower_YIELD(Lower *L, uint32_t i)
{
    (void)L;
    (void)i; /* handled by lower_FOR */
}

/* ---- blocks and kernels ---- */

static void set_loc(Lower *L, TirLoc loc)
{
    if (!L->dib)
        return;
    LLVMMetadataRef dl = LLVMDIBuilderCreateDebugLocation(L->ctx, loc.line, loc.col, L->disp, NULL);
    LLVMSetCurrentDebugLocation2(L->b, dl);
}

/* Registers per thread that one tile of type t takes in any layout: its
 * elements spread over the program's threads (at least one each), two
 * registers for 64-bit elements. */
static uint64_t tile_regs(const Lower *L, TirType t)
{
    uint64_t elems = (uint64_t)t.dim[0] * t.dim[1], per = elems > L->threads ? elems / L->threads : 1;
    return per * (tir_elem_bits((TirElem)t.elem) == 64 ? 2 : 1);
}

/* The structural limits of a kernel (TC_MAX_TILE_REGS, TC_MAX_SHARED_BYTES):
 * a tile too big for its program's threads is refused before it is lowered
 * (its lowering alone would take seconds and the GPU could not hold it), a
 * shared memory need past what any GPU gives a block right after the op
 * that raised it. Both are errors at the op, not failures at launch. */
static int within_limits_before(Lower *L, const TirInst *in)
{
    char ty[64];
    if (in->type.kind != TY_TILE || tile_regs(L, in->type) <= TC_MAX_TILE_REGS)
        return 1;
    lw_error(L, in->loc, "%s: a %s needs %llu registers per thread with %u warp%s; at most %u fit: use more "
             "warps or a smaller tile", tir_ops[in->op].name, tir_type_str(in->type, ty, sizeof ty),
             (unsigned long long)tile_regs(L, in->type), L->threads / 32, L->threads == 32 ? "" : "s",
             TC_MAX_TILE_REGS);
    return 0;
}

void lw_lower_inst(Lower *L, uint32_t i) { lower_table[L->m->insts[i].op](L, i); }

void lw_lower_block(Lower *L, uint32_t bi)
{
    const TirBlock *blk = &L->m->blocks[bi];
    for (uint32_t k = 0; k < blk->ninsts && !L->failed && !L->stop; k++) {
        uint32_t i = L->m->pool[blk->insts + k];
        const TirInst *in = &L->m->insts[i];
        set_loc(L, in->loc);
        if (!within_limits_before(L, in))
            break;
        lower_table[in->op](L, i);
        if (L->smem_bytes <= TC_MAX_SHARED_BYTES || L->failed)
            continue;
        if (L->persist == PERSIST_ROLES) /* lower_kernel tries again, one program per block */
            L->persist_refused = L->failed = 1;
        else
            lw_error(L, in->loc, "%s needs %u bytes of shared memory; a program may use at most %u (227 KB): "
                     "use smaller tiles", tir_ops[in->op].name, L->smem_bytes, TC_MAX_SHARED_BYTES);
    }
}

static LLVMTypeRef param_type(Lower *L, TirType t)
{
    return t.kind == TY_PTR ? L->t_ptr : lw_elem_type(L, (TirElem)t.elem);
}

static void free_kernel_allocs(Lower *L)
{
    for (size_t i = 0; i < L->nallocs; i++)
        free(L->allocs[i]);
    L->nallocs = 0;
}

/* "param 3" or "64" */
static void tmap_scalar_str(StrBuf *b, const char *what, const TcTmapScalar *x)
{
    if (x->param >= 0)
        sb_printf(b, " %s = param %d,", what, (int)x->param);
    else
        sb_printf(b, " %s = %lld,", what, (long long)x->value);
}

/* What each hidden tensor-map parameter holds, as comments at the top of
 * the PTX (for whoever launches it without tilecLaunch; docs/TIR.md). */
static void describe_tmaps(Lower *L, const char *kernel, uint32_t nparams, const TcTmap *t)
{
    StrBuf b;
    sb_init(&b);
    int rounds = 0, optional = 0;
    for (uint32_t i = 0; i < L->ntmaps; i++) {
        sb_printf(&b, "// tilec: %s_param_%u: tensor map %u, %s, %s, of the view of param %u:", kernel, nparams + i, i,
                  t[i].kind == TC_TMAP_ROWS ? "rows" : "8-column panels", tc_tmap_type_name(t[i].dtype), t[i].base_param);
        tmap_scalar_str(&b, "d0", &t[i].d0);
        tmap_scalar_str(&b, "d1", &t[i].d1);
        tmap_scalar_str(&b, "s0", &t[i].s0);
        tmap_scalar_str(&b, "s1", &t[i].s1);
        if (t[i].batched) {
            tmap_scalar_str(&b, "batches", &t[i].db);
            tmap_scalar_str(&b, "batch stride", &t[i].sb);
        }
        sb_printf(&b, " box {%u, %u, %u}%s%s\n", t[i].box[0], t[i].box[1], t[i].box[2],
                  t[i].round   ? ", its view may come rounded to tf32 (rna)"
                  : t[i].store ? ", stored through (-fwgmma-tma-store)"
                               : "",
                  t[i].optional ? "; optional: the kernel's own stores where it is not encoded" : "");
        optional |= t[i].optional;
        rounds |= t[i].round;
    }
    sb_printf(&b, "// tilec: %s_param_%u: flags, bit i = tensor map i encoded (%s)", kernel, nparams + L->ntmaps,
              !L->tmaps_required ? "0: the kernel copies without TMA"
              : optional         ? "all required but the optional ones: compiled with -fwgmma-tma-only, the kernel traps without them"
                                 : "all required: compiled with -fwgmma-tma-only, the kernel traps without them");
    if (rounds)
        sb_printf(&b, "; bit 16 + i = its view holds values rounded to tf32 (rna%s%s%s)",
                  L->rounded_views ? "" : "; all of these set: launch ", L->rounded_views ? "" : tir_str(L->m, L->k->name),
                  L->rounded_views ? "" : TC_ROUNDED_SUFFIX " instead");
    sb_puts(&b, "\n");
    if (rounds && L->rounded_views)
        sb_printf(&b, "// tilec: %s: @%s for launches whose views that may come rounded to tf32 all do (rna; flag "
                      "bits 16 + i set): it does not round them%s\n",
                  kernel, tir_str(L->m, L->k->name),
                  !L->o->wgmma_preround_b   ? " (B, which comes as it is, is rounded in the consumers' registers)"
                  : !L->o->wgmma_preround_a ? " (A, which comes as it is, is rounded in shared memory)"
                                            : "");
    if (!b.oom)
        LLVMAppendModuleInlineAsm(L->mod, b.data, b.len);
    sb_free(&b);
}

/* Whether a launch may pass the dot's views rounded (Lower.tmaps_round):
 * A's and B's, or one of them where only it is to be (-fno-wgmma-preround-b,
 * -fno-wgmma-preround-a: the other's map has no TcTmap.round,
 * wgmma_tma_maps). */
static int tmaps_roundable(const TcOptions *o, uint32_t ntmaps, const TcTmap *t)
{
    return ntmaps >= 2 && (t[0].round || t[1].round) && (t[0].round || !o->wgmma_preround_a) &&
           (t[1].round || !o->wgmma_preround_b);
}

/* Starts the body of fn (the kernel's entry, or a role's function with the
 * kernel's parameters, lower_programs.c): its debug scope, its entry block,
 * the kernel's parameters as IR values, and the thread index. */
void lw_begin_function(Lower *L, LLVMValueRef fn)
{
    const TirModule *m = L->m;
    const TirKernel *k = L->k;
    const uint32_t *params = m->pool + k->params;
    L->fn = fn;
    if (L->dib) {
        size_t n;
        const char *name = LLVMGetValueName2(fn, &n);
        LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(L->dib, L->difile, NULL, 0, LLVMDIFlagZero);
        L->disp = LLVMDIBuilderCreateFunction(L->dib, L->difile, name, n, name, n, L->difile, k->loc.line, sty, 0, 1,
                                              k->loc.line, LLVMDIFlagZero, 1);
        LLVMSetSubprogram(fn, L->disp);
    }
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
    LLVMPositionBuilderAtEnd(L->b, entry);
    set_loc(L, k->loc);
    for (uint32_t p = 0; p < k->nparams; p++) {
        LLVMValueRef pv = LLVMGetParam(fn, p);
        TirType t = tir_value_type(m, params[p]);
        if (t.kind == TY_PTR) {
            LLVMAddAttributeAtIndex(fn, p + 1,
                                    LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("noundef", 7), 0));
            pv = LLVMBuildAddrSpaceCast(L->b, pv, L->t_gptr, tir_str(m, m->values[params[p]].name));
        }
        lw_set(L, params[p], (LVal){.kind = LV_SCALAR, .s = pv});
    }
    L->tid = sreg(L, "llvm.nvvm.read.ptx.sreg.tid.x");
}

/* 0, -1 (an error, in the log), or 1: persistent, the kernel's shared
 * memory did not fit (nothing left of the attempt; lower it again with
 * L->no_persist). */
static int lower_kernel(Lower *L, uint32_t ki, TcKernelInfo *info)
{
    const TirModule *m = L->m;
    const TirKernel *k = &m->kernels[ki];
    L->k = k;
    L->threads = k->warps * 32;
    L->bar_threads = 0;
    L->smem_bytes = 0;
    uint32_t launch = L->threads + (L->o->arch == ARCH_SM90A ? wgmma_producer_threads(m, k, L->o) : 0);
    L->vals = calloc(m->nvalues, sizeof *L->vals);
    TcTmap tmaps[3];
    L->ntmaps = wgmma_tma_maps(m, k, L->o, tmaps);
    L->tma_param0 = k->nparams;
    L->tmaps_round = tmaps_roundable(L->o, L->ntmaps, tmaps);
    const char *no_store;
    const TirInst *st = wgmma_tma_store_of(m, k, L->o, &no_store);
    L->tma_store = L->ntmaps == 3 ? (uint32_t)(st - m->insts) : 0;
    if (L->o->remarks && !L->rounded_views && L->tma_store)
        diag_remark(L->d, st->loc, "C stored by TMA (-fwgmma-tma-store)");
    else if (L->o->remarks && !L->rounded_views && L->ntmaps && no_store)
        diag_remark(L->d, k->loc, "-fwgmma-tma-store does not apply to @%s: %s", tir_str(m, k->name), no_store);
    L->tmaps_pre = 0;
    L->tmaps_required = 0;
    L->tma_store_own = 0;
    L->persist = lw_persist_mode(L, k, launch);
    if (L->persist && tc_grid_programs(k->grid) > INT32_MAX) /* its launch would be refused (tc_persist_blocks) */
        lw_error(L, k->loc,
                 "@%s is persistent, and its grid attribute has more than 2^31 - 1 programs, the most a "
                 "persistent launch takes (-fno-persistent, or a smaller grid)",
                 tir_str(m, k->name));
    L->cluster = 0;
    if (L->o->wgmma_cluster) {
        const char *why =
            L->ntmaps >= 2 ? wg_cluster_refusal(m, k, L->o, L->persist != 0) : "the kernel takes no tensor maps";
        L->cluster = why == NULL;
        if (why && L->o->remarks && !L->rounded_views)
            diag_remark(L->d, k->loc, "-fwgmma-cluster does not apply to @%s: %s", tir_str(m, k->name), why);
    }
    L->role = L->stop = 0;
    L->smem_floor = 0;
    uint32_t nhidden = (L->ntmaps ? L->ntmaps + 1 : 0) + (L->persist ? 3 : 0);
    L->grid_param0 = k->nparams + (L->ntmaps ? L->ntmaps + 1 : 0);
    uint32_t nargs = k->nparams + nhidden;
    LLVMTypeRef *ptys = calloc(nargs + 1, sizeof *ptys);
    if (!L->vals || !ptys) {
        free(ptys);
        free(L->vals);
        L->vals = NULL;
        lw_error(L, k->loc, "out of memory");
        return -1;
    }
    const uint32_t *params = m->pool + k->params;
    for (uint32_t p = 0; p < k->nparams; p++)
        ptys[p] = param_type(L, tir_value_type(m, params[p]));
    for (uint32_t p = k->nparams; p < L->grid_param0; p++) /* the tensor maps' byval pointers, then the flags */
        ptys[p] = p + 1 < L->grid_param0 ? L->t_ptr : L->t_i32;
    for (uint32_t p = L->grid_param0; p < nargs; p++) /* persistent: the grid */
        ptys[p] = L->t_i32;
    /* the entry's name: the kernel's (at most 1024 characters: the lexer's limit), and
     * TC_ROUNDED_SUFFIX for the one for views that come rounded ('$' is in no kernel name) */
    char name[1100];
    snprintf(name, sizeof name, "%s%s", tir_str(m, k->name), L->rounded_views ? TC_ROUNDED_SUFFIX : "");
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(L->ctx), ptys, nargs, 0);
    free(ptys);
    L->fn = LLVMAddFunction(L->mod, name, fty);
    LLVMSetFunctionCallConv(L->fn, LLVMPTXKernelCallConv);
    for (uint32_t i = 0; i < L->ntmaps; i++) { /* .param .align 64 .b8 [128]: a CUtensorMap by value */
        LLVMTypeRef map = LLVMArrayType(LLVMInt8TypeInContext(L->ctx), 128);
        LLVMAddAttributeAtIndex(L->fn, k->nparams + i + 1,
                                LLVMCreateTypeAttribute(L->ctx, LLVMGetEnumAttributeKindForName("byval", 5), map));
        LLVMAddAttributeAtIndex(L->fn, k->nparams + i + 1,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("align", 5), 64));
    }

    /* launch bounds: LLVM 19 reads nvvm.annotations, newer LLVM the attribute */
    char nt[16];
    snprintf(nt, sizeof nt, "%u", launch);
    LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex,
                               LLVMCreateStringAttribute(L->ctx, "nvvm.maxntid", 12, nt, (unsigned)strlen(nt)));
    LLVMValueRef md[3] = {L->fn, LLVMMDStringInContext(L->ctx, "maxntidx", 8), lw_const_i32(L, launch)};
    LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations", LLVMMDNodeInContext(L->ctx, md, 3));
    if (launch > L->threads) { /* a register cap at entry, so the pipeline's setmaxnreg takes effect */
        char nr[16];
        snprintf(nr, sizeof nr, "%u", wgmma_entry_regs(launch));
        LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(L->ctx, "nvvm.maxnreg", 12, nr, (unsigned)strlen(nr)));
        LLVMValueRef mr[3] = {L->fn, LLVMMDStringInContext(L->ctx, "maxnreg", 7), lw_const_i32(L, wgmma_entry_regs(launch))};
        LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations", LLVMMDNodeInContext(L->ctx, mr, 3));
    }

    L->entry_fn = L->fn;
    lw_begin_function(L, L->fn);
    /* placeholder: resized once the kernel's shared memory need is known */
    L->smem = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType(LLVMInt8TypeInContext(L->ctx), 0), "__tilec_smem_tmp", 3);

    lw_lower_body(L, k);
    if (L->persist_refused) { /* the ring and what follows it do not fit together: again, not persistent */
        LLVMDeleteFunction(L->fn);
        if (L->producers_fn)
            LLVMDeleteFunction(L->producers_fn);
        L->producers_fn = NULL;
        LLVMDeleteGlobal(L->smem);
        L->smem = NULL;
        free(L->vals);
        L->vals = NULL;
        free_kernel_allocs(L);
        L->failed = L->persist_refused = L->persist = 0;
        return 1;
    }

    /* the real shared array: static up to 48 KB, dynamic (extern) above */
    uint32_t bytes = (L->smem_bytes + 15) & ~15u;
    unsigned dyn = 0;
    LLVMValueRef real = NULL;
    char gname[1200];
    snprintf(gname, sizeof gname, "__tilec_smem_%s", name);
    if (bytes > 48 * 1024) {
        real = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType(LLVMInt8TypeInContext(L->ctx), 0), gname, 3);
        LLVMSetLinkage(real, LLVMExternalLinkage);
        dyn = bytes;
    } else if (bytes) {
        LLVMTypeRef aty = LLVMArrayType(LLVMInt8TypeInContext(L->ctx), bytes);
        real = LLVMAddGlobalInAddressSpace(L->mod, aty, gname, 3);
        LLVMSetInitializer(real, LLVMGetUndef(aty));
        LLVMSetLinkage(real, LLVMInternalLinkage);
    }
    if (real) {
        LLVMSetAlignment(real, 16);
        LLVMReplaceAllUsesWith(L->smem, real);
    }
    LLVMDeleteGlobal(L->smem);
    L->smem = NULL;

    info->name = strdup(tir_str(m, k->name));
    info->threads = launch;
    info->shared_bytes = dyn;
    memcpy(info->grid, k->grid, sizeof info->grid);
    info->persistent = L->persist != 0;
    info->tma_required = (unsigned char)L->tmaps_required;
    info->cluster = L->cluster ? 2 : 0;
    info->nparams = k->nparams;
    info->params = calloc(k->nparams + 1, sizeof *info->params);
    if (!info->name || !info->params)
        lw_error(L, k->loc, "out of memory");
    else
        for (uint32_t p = 0; p < k->nparams; p++)
            info->params[p] = tir_value_type(m, params[p]);
    if (L->ntmaps && !L->failed) {
        for (uint32_t t = 0; !L->tmaps_pre && t < L->ntmaps; t++) /* no second loop took rounded views */
            tmaps[t].round = 0;
        for (uint32_t t = 0; t < L->ntmaps; t++)
            tmaps[t].optional = tmaps[t].store && L->tmaps_required && L->tma_store_own;
        describe_tmaps(L, name, k->nparams, tmaps);
        info->tmaps = malloc(L->ntmaps * sizeof *info->tmaps);
        if (!info->tmaps)
            lw_error(L, k->loc, "out of memory");
        else {
            memcpy(info->tmaps, tmaps, L->ntmaps * sizeof *info->tmaps);
            info->ntmaps = L->ntmaps;
        }
    }
    if (!L->failed)
        lw_describe_programs(L, name);
    L->persist = 0;
    free(L->vals);
    L->vals = NULL;
    free_kernel_allocs(L);
    return L->failed ? -1 : 0;
}

/* .file/.loc directives without DWARF sections: LineTablesOnly would mark
 * the PTX `.target ..., debug`. The C API has no name for this kind; its
 * value is DICompileUnit::DebugDirectivesOnly, which LLVM casts through. */
#define DEBUG_DIRECTIVES_ONLY ((LLVMDWARFEmissionKind)3)

/* LLVM reports some errors in what the user wrote (an inline_ptx template
 * its asm printer cannot expand, e.g. "${0:q}") through the context's
 * diagnostic handler; without one it prints them and calls exit(1), which
 * would take the embedding process down. */
static void llvm_diagnostic(LLVMDiagnosticInfoRef di, void *ctx)
{
    Lower *L = ctx;
    if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
        return;
    char *msg = LLVMGetDiagInfoDescription(di);
    lw_error(L, (TirLoc){0}, "LLVM cannot compile the kernel: %s", msg ? msg : "?");
    LLVMDisposeMessage(msg);
}

/* The entry points and parts kernel ki compiles to, asked before lowering:
 * a Lower with what lw_persist_mode and wgmma_probe read (no remarks). */
static Lower probe(const TirModule *m, const TcOptions *quiet, uint32_t ki, int *pre, int *tma_only)
{
    const TirKernel *k = &m->kernels[ki];
    TcTmap tmaps[3];
    Lower L = {.m = m, .o = quiet, .threads = k->warps * 32};
    L.ntmaps = wgmma_tma_maps(m, k, quiet, tmaps);
    L.tmaps_round = tmaps_roundable(quiet, L.ntmaps, tmaps);
    *pre = *tma_only = 0;
    wgmma_probe(&L, k, pre, tma_only);
    return L;
}

void lw_entry_shape(const TirModule *m, const TcOptions *o, uint32_t ki, int *rounded, int *parts)
{
    TcOptions quiet = *o;
    quiet.remarks = 0;
    int pre, tma_only;
    Lower L = probe(m, &quiet, ki, &pre, &tma_only);
    const TirKernel *k = &m->kernels[ki];
    *rounded = L.tmaps_round && pre;
    /* copying by TMA alone, the producers are a tenth of the kernel: apart, they cost more
     * than they save (bench/NOTES.md v21) */
    *parts = o->role_functions && o->arch == ARCH_SM90A && !tma_only &&
                     lw_persist_mode(&L, k, L.threads + wgmma_producer_threads(m, k, o)) == PERSIST_ROLES
                 ? 2
                 : 1;
}

int lw_lower_entry(const TirModule *m, const TcOptions *o, uint32_t ki, int rounded, int part, TcLowered *out,
                   TcKernelInfo *info, Diag *d)
{
    memset(out, 0, sizeof *out);
    double t0 = tc_now_ms();
    Lower L = {.m = m, .o = o, .d = d, .rounded_views = rounded, .part = part};
    L.ctx = LLVMContextCreate();
    LLVMContextSetDiagnosticHandler(L.ctx, llvm_diagnostic, &L);
    L.mod = LLVMModuleCreateWithNameInContext(m->file, L.ctx);
    L.b = LLVMCreateBuilderInContext(L.ctx);
    L.t_i1 = LLVMInt1TypeInContext(L.ctx);
    L.t_i32 = LLVMInt32TypeInContext(L.ctx);
    L.t_i64 = LLVMInt64TypeInContext(L.ctx);
    L.t_f16 = LLVMHalfTypeInContext(L.ctx);
    L.t_bf16 = LLVMBFloatTypeInContext(L.ctx);
    L.t_f32 = LLVMFloatTypeInContext(L.ctx);
    L.t_ptr = LLVMPointerTypeInContext(L.ctx, 0);
    L.t_gptr = LLVMPointerTypeInContext(L.ctx, 1);
    L.t_sptr = LLVMPointerTypeInContext(L.ctx, 3);

    if (o->line_info) {
        L.dib = LLVMCreateDIBuilder(L.mod);
        const char *f = m->file;
        const char *slash = strrchr(f, '/');
        const char *base = slash ? slash + 1 : f;
        size_t dirlen = slash ? (size_t)(slash - f) : 1;
        L.difile = LLVMDIBuilderCreateFile(L.dib, base, strlen(base), slash ? f : ".", dirlen);
        L.dicu = LLVMDIBuilderCreateCompileUnit(L.dib, LLVMDWARFSourceLanguageC11, L.difile, "tilec", 5, 1, "", 0, 0,
                                                "", 0, DEBUG_DIRECTIVES_ONLY, 0, 0, 0, "", 0, "", 0);
        LLVMAddModuleFlag(L.mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                          LLVMValueAsMetadata(lw_const_i32(&L, LLVMDebugMetadataVersion())));
    }

    int rc = 0;
    if (ki != UINT32_MAX) {
        size_t said = d->log.len; /* what the attempt below says, dropped if it is abandoned */
        int nerrors = d->nerrors;
        rc = lower_kernel(&L, ki, info);
        if (rc == 1) { /* persistent, its shared memory did not fit */
            if (d->log.data && d->log.len > said) { /* its remarks describe a kernel that is not made */
                d->log.len = said;
                d->log.data[said] = 0;
            }
            d->nerrors = nerrors; /* (an error in it, the second attempt finds again) */
            L.no_persist = 1;
            rc = lower_kernel(&L, ki, info);
            L.no_persist = 0;
        }
    }
    if (L.dib) {
        LLVMDIBuilderFinalize(L.dib);
        LLVMDisposeDIBuilder(L.dib);
    }
    int empty = rc == 0 && !lw_keep_part(&L); /* a part with nothing to compile: no PTX */
    out->ms_lower = tc_now_ms() - t0;
    if (rc == 0 && !empty) {
        char *err = NULL;
        if (LLVMVerifyModule(L.mod, LLVMReturnStatusAction, &err)) {
            diag_error(d, (TirLoc){0}, "internal error: invalid LLVM IR produced (a tilec bug):\n%s", err);
            rc = -1;
        }
        LLVMDisposeMessage(err);
    }
    if (rc == 0 && !empty)
        rc = tc_codegen(&L, L.mod, out);
    if (rc == 0 && L.failed) /* an error LLVM reported through llvm_diagnostic */
        rc = -1;
    if (!out->llvm_ir && o->keep_llvm_ir && !empty) { /* keep the unoptimized IR for inspection */
        char *s = LLVMPrintModuleToString(L.mod);
        out->llvm_ir = strdup(s ? s : "");
        LLVMDisposeMessage(s);
    }
    free(L.allocs);
    LLVMDisposeBuilder(L.b);
    LLVMDisposeModule(L.mod);
    LLVMContextDispose(L.ctx);
    return rc;
}
