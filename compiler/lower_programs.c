/*
 * Persistent kernels (by default those with the f32 wgmma pipeline;
 * -fpersistent: every kernel, -fno-persistent: none): the launch runs as
 * many blocks as the GPU holds at once, and each block loops over the
 * launch's programs:
 * block b runs programs b, b + blocks, b + 2 * blocks, ... of the grid the
 * caller asked for, which reaches the kernel in three hidden i32
 * parameters (program_id and num_programs read them, not the block's
 * index). The body is lowered inside that loop.
 *
 * A kernel with a wgmma pipeline (PERSIST_ROLES) splits into its roles
 * before the loop, so each runs setmaxnreg once: the producers' loop runs
 * the body up to the pipeline and issues its copies, the consumers' loop
 * runs the whole body. The pipeline's barriers then carry their phases
 * from program to program (lower_wgmma.c: the step count runs on), so the
 * producers copy the next program's first stages while the consumers still
 * store C, and the consumers' shared memory after the pipeline lies above
 * the ring (L->smem_floor); where the two exceed the limit together,
 * lower.c lowers the kernel again, one program per block.
 *
 * -frole-functions (the default): where the kernel keeps copies of its own
 * (not TMA alone), the producers' loop is lowered as a function of its own
 * (lower.c's lw_entry_shape says so; each part of the entry is then a module that
 * entries.c compiles on a thread of its own), the entry holding a marker
 * where ptx_splice.c puts the function's PTX body; lw_keep_part leaves each
 * module its own function.
 *
 * Needs: what lower.c needs. Guarantees: programs run in order of their
 * index within a block, each as the non-persistent kernel would run it;
 * where the body uses shared memory outside a pipeline, a barrier ends
 * each program (the next one's first writes wait for the last reads).
 */
#include "compiler/lower.h"
#include "compiler/lower_wgmma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lw_persist_mode(Lower *L, const TirKernel *k, uint32_t launch)
{
    if (!L->o->persistent)
        return 0;
    if (launch == L->threads) /* no pipeline: only where asked for (nothing to overlap) */
        return L->o->persistent == 1 ? PERSIST_LOOP : 0;
    if (L->o->persistent == TC_PERSISTENT_AUTO && !wgmma_f32_pipeline(L->m, k, L->o))
        return 0;
    /* (pass_wgmma takes no loop after ops that compute tiles: the ops before
     * the pipeline are scalars, views and constant tiles, which either role
     * may run alone, with no shared memory) */
    const char *why = L->no_persist ? "its pipeline's stages and the shared memory of the ops after it exceed "
                                      "227 KB together"
                      : !wgmma_persistable(L->m, k, L->o) ? "its pipeline is the older one (-fno-wgmma-swapped)"
                                                          : NULL;
    if (!why)
        return PERSIST_ROLES;
    if (L->o->remarks)
        diag_remark(L->d, k->loc, "%s@%s stays one program per block: %s",
                    L->o->persistent == 1 ? "-fpersistent: " : "", tir_str(L->m, k->name), why);
    return 0;
}

LLVMValueRef lw_programs_carry(Lower *L, LLVMValueRef init)
{
    if (L->ncarried == sizeof L->carried / sizeof L->carried[0]) {
        lw_error(L, (TirLoc){0}, "internal error: the programs' loop carries too many values");
        return init;
    }
    LLVMBasicBlockRef at = LLVMGetInsertBlock(L->b);
    LLVMPositionBuilderBefore(L->b, LLVMGetFirstInstruction(L->prog_head));
    LLVMValueRef phi = LLVMBuildPhi(L->b, LLVMTypeOf(init), "carried");
    LLVMAddIncoming(phi, &init, &L->prog_pre, 1);
    LLVMPositionBuilderAtEnd(L->b, at);
    L->carried[L->ncarried] = phi;
    L->carried_next[L->ncarried++] = NULL;
    return phi;
}

void lw_programs_next(Lower *L, LLVMValueRef phi, LLVMValueRef next)
{
    for (uint32_t c = 0; c < L->ncarried; c++)
        if (L->carried[c] == phi)
            L->carried_next[c] = next;
}

/* Program p's index along x, y and z. */
static void program_ids(Lower *L, LLVMValueRef p, LLVMValueRef id[3])
{
    LLVMValueRef yz = LLVMBuildUDiv(L->b, p, L->nprog[0], "");
    id[0] = LLVMBuildURem(L->b, p, L->nprog[0], "pid.x");
    id[1] = LLVMBuildURem(L->b, yz, L->nprog[1], "pid.y");
    id[2] = LLVMBuildUDiv(L->b, yz, L->nprog[1], "pid.z");
}

/* The loop over the programs, the body inside; ends the function. */
static void programs(Lower *L, uint32_t body)
{
    LLVMBuilderRef b = L->b;
    LLVMValueRef total = NULL;
    for (int a = 0; a < 3; a++) {
        L->nprog[a] = LLVMGetParam(L->fn, L->grid_param0 + a);
        total = total ? LLVMBuildMul(b, total, L->nprog[a], "") : L->nprog[a]; /* tilecLaunch: <= INT32_MAX */
    }
    LLVMValueRef first = lw_call(L, "llvm.nvvm.read.ptx.sreg.ctaid.x", NULL, 0, NULL, 0);
    LLVMValueRef blocks = lw_call(L, "llvm.nvvm.read.ptx.sreg.nctaid.x", NULL, 0, NULL, 0);
    L->prog_pre = LLVMGetInsertBlock(b);
    L->prog_head = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prog.loop");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prog");
    L->next_prog = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prog.next");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "prog.exit");
    LLVMBuildBr(b, L->prog_head);
    LLVMPositionBuilderAtEnd(b, L->prog_head);
    LLVMValueRef p = LLVMBuildPhi(b, L->t_i32, "program");
    LLVMAddIncoming(p, &first, &L->prog_pre, 1);
    L->ncarried = 0;
    /* clusters (lower_wgmma_cluster.c): blocks 2i and 2i + 1 run programs 2j and 2j + 1 together,
     * the same number of them (the launch's blocks are even): a pair runs while its first is in the
     * grid, a program past the grid reads empty views (and runs its peer's tile: B shared) */
    LLVMValueRef pair = L->cluster ? LLVMBuildAnd(b, p, lw_const_i32(L, -2), "") : p;
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, pair, total, ""), run, exit);

    LLVMPositionBuilderAtEnd(b, run);
    if (L->cluster) {
        /* the program past the grid takes its peer's ids (coordinates the peer's checks passed), in
         * both blocks' eyes: each block's view of the pair must be the same (wg_cluster_shares_b) */
        LLVMValueRef peer = LLVMBuildXor(b, p, lw_const_i32(L, 1), "");
        L->prog_added = LLVMBuildICmp(b, LLVMIntUGE, p, total, "added");
        LLVMValueRef peer_added = LLVMBuildICmp(b, LLVMIntUGE, peer, total, "");
        program_ids(L, LLVMBuildSelect(b, L->prog_added, peer, p, ""), L->prog);
        program_ids(L, LLVMBuildSelect(b, peer_added, p, peer, ""), L->peer_prog);
    } else {
        program_ids(L, p, L->prog);
    }
    lw_order_reset(L); /* a new program: nothing of the last one to order against */
    lw_lower_block(L, body);
    if (L->failed)
        return;
    if (!L->stop) { /* the end of the body: the next program's shared memory writes wait */
        if (L->smem_bytes > L->smem_floor)
            lw_barrier(L);
        LLVMBuildBr(b, L->next_prog);
    }

    LLVMPositionBuilderAtEnd(b, L->next_prog);
    LLVMValueRef np = LLVMBuildAdd(b, p, blocks, "");
    LLVMAddIncoming(p, &np, &L->next_prog, 1);
    for (uint32_t c = 0; c < L->ncarried; c++) {
        if (!L->carried_next[c]) {
            lw_error(L, (TirLoc){0}, "internal error: a value the programs' loop carries has no next value");
            return;
        }
        LLVMAddIncoming(L->carried[c], &L->carried_next[c], &L->next_prog, 1);
    }
    LLVMBuildBr(b, L->prog_head);

    LLVMPositionBuilderAtEnd(b, exit);
    if (L->role == LW_PRODUCERS) /* no exit with copies in flight (lower_wgmma_ss.c's producers) */
        lw_asm(L, LLVMVoidTypeInContext(L->ctx), "cp.async.wait_all;", "~{memory}", NULL, 0, LW_ASM_SIDE_EFFECTS);
    if (L->cluster) /* no exit before the peer's last releases have reached this block's barriers */
        wg_cluster_sync(L);
    LLVMBuildRetVoid(b);
}

static LLVMAttributeRef enum_attr(Lower *L, const char *name)
{
    return LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName(name, strlen(name)), 0);
}

/* -frole-functions: the producers' role as a function of its own,
 * <entry>$producers, with the entry's parameters (read as the entry's once
 * its body is inside it), which entries.c has LLVM optimize and emit in a
 * module of its own, on a thread beside the entry's. The entry holds a
 * marker where the producers start, and ptx_splice.c puts the function's
 * body there: no call is left for ptxas, which keeps registers for the ABI
 * around a call (the 128x256 consumers then spilled 856 bytes, C7512) and
 * serializes the wgmmas of a function a call reaches (C7510). */
static LLVMValueRef role_function(Lower *L)
{
    unsigned n = LLVMCountParams(L->fn);
    LLVMTypeRef *ty = lw_alloc(L, (n + 1) * sizeof *ty);
    if (!ty)
        return NULL;
    LLVMGetParamTypes(LLVMGlobalGetValueType(L->fn), ty);
    size_t len;
    const char *entry = LLVMGetValueName2(L->fn, &len);
    char name[1200];
    snprintf(name, sizeof name, "%.*s%s", (int)len, entry, TC_ROLE_PRODUCERS);
    LLVMValueRef f = LLVMAddFunction(L->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(L->ctx), ty, n, 0));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, enum_attr(L, "noinline"));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, enum_attr(L, "convergent"));
    /* the marker, then the end of the entry for the producers' threads */
    char mark[2600] = TC_SPLICE_MARK;
    lw_asm_text(mark + strlen(mark), sizeof mark - strlen(mark), name, strlen(name));
    lw_asm(L, LLVMVoidTypeInContext(L->ctx), mark, "~{memory}", NULL, 0, LW_ASM_SIDE_EFFECTS | LW_ASM_CONVERGENT);
    LLVMBuildRetVoid(L->b);
    return f;
}

void lw_lower_body(Lower *L, const TirKernel *k)
{
    LLVMBuilderRef b = L->b;
    lw_order_reset(L);
    if (!L->persist) {
        lw_lower_block(L, k->body);
        if (!L->failed)
            LLVMBuildRetVoid(b);
        return;
    }
    if (L->persist == PERSIST_LOOP) {
        programs(L, k->body);
        return;
    }
    LLVMBasicBlockRef start = LLVMGetInsertBlock(b), entry[2];
    entry[0] = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "producers");
    entry[1] = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "consumers");
    LLVMPositionBuilderAtEnd(b, start);
    /* split: the consumers as the branch's target, the producers' marker falling through, as
     * LLVM lays the kernel out whole: the other way round, ptxas held the consumers to 168
     * registers after their setmaxnreg.inc 200 (856 bytes of spills at 128x256, C7512) */
    int split = L->part != TC_PART_ALL;
    LLVMValueRef ult = LLVMBuildICmp(b, split ? LLVMIntULT : LLVMIntUGE, L->tid, lw_const_i32(L, L->threads), "");
    LLVMBuildCondBr(b, ult, entry[split], entry[!split]);
    if (split) {
        LLVMPositionBuilderAtEnd(b, entry[0]);
        if (!(L->producers_fn = role_function(L)))
            return;
    }
    /* split: the consumers first, in the entry; then the producers in their function, which
     * lw_begin_function gives the parameters and the thread index of its own */
    LLVMValueRef kernel = L->fn, tid = L->tid;
    LLVMMetadataRef scope = L->disp;
    for (int i = 0; i < 2 && !L->failed; i++) {
        int r = split ? 1 - i : i; /* 0: the producers, 1: the consumers */
        if (split && r == 0) {
            lw_begin_function(L, L->producers_fn);
            entry[0] = LLVMGetInsertBlock(b);
        }
        L->role_entry = entry[r];
        LLVMPositionBuilderAtEnd(b, L->role_entry);
        L->role = r ? LW_CONSUMERS : LW_PRODUCERS;
        L->stop = 0;
        L->bar_threads = 0;
        L->smem_floor = 0;
        programs(L, k->body);
    }
    L->role = 0;
    L->fn = kernel;
    L->disp = scope;
    L->tid = tid;
}

/* f, a function the module's part does not hold, as a declaration of the
 * same name and type (its calls, its metadata now name that) */
static void to_declaration(Lower *L, LLVMValueRef f)
{
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    char *keep = strndup(name, n);
    if (!keep) {
        lw_error(L, (TirLoc){0}, "out of memory");
        return;
    }
    LLVMSetValueName2(f, "", 0);
    LLVMValueRef d = LLVMAddFunction(L->mod, keep, LLVMGlobalGetValueType(f));
    free(keep);
    LLVMSetFunctionCallConv(d, LLVMGetFunctionCallConv(f));
    LLVMReplaceAllUsesWith(f, d);
    LLVMDeleteFunction(f);
}

int lw_keep_part(Lower *L)
{
    if (L->part == TC_PART_ALL)
        return 1;
    if (!L->producers_fn) /* no role functions after all (lower.c's second attempt): the main part is all */
        return L->part == TC_PART_MAIN;
    if (L->part == TC_PART_MAIN) {
        to_declaration(L, L->producers_fn);
        return 1;
    }
    to_declaration(L, L->entry_fn);
    LLVMSetModuleInlineAsm2(L->mod, "", 0); /* the entry's description: the main part's */
    return 1;
}

/* The hidden grid's parameter comment at the top of the PTX (docs/TIR.md). */
void lw_describe_programs(Lower *L, const char *kernel)
{
    if (!L->persist)
        return;
    char line[512];
    int n = snprintf(line, sizeof line,
                     "// tilec: %s_param_%u .. %u: the grid of programs (x, y, z; their product at most "
                     "2^31 - 1); launch at most as many blocks as run at once, each takes programs "
                     "blockIdx.x, blockIdx.x + gridDim.x, ...\n",
                     kernel, L->grid_param0, L->grid_param0 + 2);
    if (n > 0 && (size_t)n < sizeof line)
        LLVMAppendModuleInlineAsm(L->mod, line, (size_t)n);
}
