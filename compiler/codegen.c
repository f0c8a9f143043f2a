/*
 * The target description and the back end: which GPUs tilec targets (an
 * allow-list; LLVM itself accepts any CPU name with a warning), the PTX
 * version for each, the LLVM optimization pipeline and PTX emission.
 */
#include "compiler/lower.h"

#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    TcArch arch;
    const char *cpu;
    const char *features; /* explicit PTX ISA: LLVM's default is the CPU's minimum */
} targets[] = {
    {ARCH_SM80, "sm_80", "+ptx70"},
    {ARCH_SM90A, "sm_90a", "+ptx80"},
};

static const char triple[] = "nvptx64-nvidia-cuda";

/* LLVM's own settings, parsed once per process (they are global to the LLVM
 * that tilec links statically):
 *   -cgpp-huge-func=0  CodeGenPrepare restarts its walk over the whole
 *       function after each change that touches the dominator tree, unless
 *       the function counts as huge (more than 10000 blocks); then it
 *       revisits only the blocks that changed. The GEMM kernel (~180 blocks,
 *       most of them bounds-checked stores) made it walk the function 34
 *       times, its address matching each time: 9.4 -> 1.1 ms, and the PTX
 *       is byte-identical on all 672 kernel/arch/precision/option combos.
 *   -disable-lsr  Loop Strength Reduction took 28 ms of the 128x256
 *       kernel's codegen and left ptxas too few registers for the step
 *       count (an 8-byte spill); without it the pipelines spill nothing
 *       (bench/NOTES.md v15, v16; timed on the H200 in session 13's runs).
 *   -disable-nvptx-load-store-vectorizer  the lowering emits its vector
 *       accesses itself: the vectorizer found nothing to merge (the PTX of
 *       180 kernel/arch/precision/persistence combos byte-identical) and
 *       took ~12% of codegen. */
static const char *const llvm_args[] = {"tilec", "-cgpp-huge-func=0", "-disable-lsr",
                                        "-disable-nvptx-load-store-vectorizer"};

/* The lowered IR is straight-line code per tile with a few loops: a short
 * scalar pipeline cleans it up as well as default<O3> does, in a third of
 * the time, and without O3's hoisting that raised register use by half
 * on the GEMM example (248 -> 159 registers). */
static const char *const pipelines[4] = {
    "verify",
    "function(early-cse,instcombine<no-verify-fixpoint>,simplifycfg)",
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,instcombine<no-verify-fixpoint>,dce)",
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,instcombine<no-verify-fixpoint>,dce)",
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_nvptx(void)
{
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    /* the C API parses with a null error stream: an LLVM without one of
     * these options ignores it (no message, no exit) */
    LLVMParseCommandLineOptions(sizeof llvm_args / sizeof llvm_args[0], llvm_args, NULL);
    /* an empty module through the whole pipeline, so that the globals LLVM
     * makes at first use (its timer groups and their lock, pass registries)
     * are made here, once, before entries.c's threads use them: their lazy
     * creation is safe, but through atomics in LLVM's own code, which
     * ThreadSanitizer cannot see (it reported a race there); ~0.5 ms once
     * per process */
    LLVMTargetRef target;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &err) == 0) {
        LLVMContextRef ctx = LLVMContextCreate();
        LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("tilec-init", ctx);
        LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, "sm_90a", "+ptx80", LLVMCodeGenLevelDefault,
                                                          LLVMRelocDefault, LLVMCodeModelDefault);
        LLVMSetTarget(mod, triple);
        LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
        LLVMErrorRef perr = LLVMRunPasses(mod, pipelines[3], tm, pbo);
        if (perr)
            LLVMConsumeError(perr);
        LLVMDisposePassBuilderOptions(pbo);
        LLVMMemoryBufferRef buf = NULL;
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf) == 0)
            LLVMDisposeMemoryBuffer(buf);
        LLVMDisposeTargetMachine(tm);
        LLVMDisposeModule(mod);
        LLVMContextDispose(ctx);
    }
    LLVMDisposeMessage(err);
}

void tc_codegen_init(void) { pthread_once(&init_once, init_nvptx); }

static char *take_message(char *msg)
{
    char *s = strdup(msg ? msg : "");
    LLVMDisposeMessage(msg);
    return s;
}

/* text inserted after the first line of *ptx that holds marker (none: no
 * change); -1 when out of memory */
static int insert_after_line(char **ptx, const char *marker, const char *text)
{
    char *at = strstr(*ptx, marker);
    if (!at)
        return 0;
    char *eol = strchr(at, '\n');
    size_t head = eol ? (size_t)(eol - *ptx) + 1 : strlen(*ptx), n = strlen(*ptx), tn = strlen(text);
    char *s = malloc(n + tn + 1);
    if (!s)
        return -1;
    memcpy(s, *ptx, head);
    memcpy(s + head, text, tn);
    memcpy(s + head + tn, *ptx + head, n - head + 1);
    free(*ptx);
    *ptx = s;
    return 0;
}

int tc_codegen(Lower *L, LLVMModuleRef mod, TcLowered *out)
{
    tc_codegen_init();
    const char *cpu = NULL, *features = NULL;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (targets[i].arch == L->o->arch) {
            cpu = targets[i].cpu;
            features = targets[i].features;
        }
    if (!cpu) {
        diag_error(L->d, (TirLoc){0}, "unsupported target");
        return -1;
    }
    char *err = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        diag_error(L->d, (TirLoc){0}, "LLVM has no NVPTX target: %s", err ? err : "?");
        LLVMDisposeMessage(err);
        return -1;
    }
    /* -O3 generates code at Default: Aggressive only runs a second GVN over
     * the IR that the pipeline below already GVN'd; measured, it gave
     * byte-identical PTX for every GEMM kernel of the benchmark at ~10% more
     * codegen time */
    static const LLVMCodeGenOptLevel levels[4] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                  LLVMCodeGenLevelDefault, LLVMCodeGenLevelDefault};
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features, levels[L->o->opt_level & 3],
                                                      LLVMRelocDefault, LLVMCodeModelDefault);
    LLVMSetTarget(mod, triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, dl);
    LLVMDisposeTargetData(dl);

    double t0 = tc_now_ms();
    LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
    LLVMErrorRef perr = LLVMRunPasses(mod, pipelines[L->o->opt_level & 3], tm, pbo);
    LLVMDisposePassBuilderOptions(pbo);
    int rc = 0;
    if (perr) {
        char *msg = LLVMGetErrorMessage(perr);
        diag_error(L->d, (TirLoc){0}, "LLVM optimization failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        rc = -1;
    }
    out->ms_opt = tc_now_ms() - t0;
    if (L->o->keep_llvm_ir)
        out->llvm_ir = take_message(LLVMPrintModuleToString(mod));

    t0 = tc_now_ms();
    LLVMMemoryBufferRef buf = NULL;
    if (rc == 0 && LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf)) {
        diag_error(L->d, (TirLoc){0}, "PTX emission failed: %s", err ? err : "?");
        LLVMDisposeMessage(err);
        rc = -1;
    }
    if (buf) {
        size_t n = LLVMGetBufferSize(buf);
        out->ptx = malloc(n + 1);
        if (out->ptx) {
            memcpy(out->ptx, LLVMGetBufferStart(buf), n);
            out->ptx[n] = 0;
        } else
            rc = -1;
        LLVMDisposeMemoryBuffer(buf);
    }
    /* -fwgmma-cluster: the entry must run as clusters of 2 along x; LLVM 19 emits no
     * .reqnctapercluster, so it goes after .maxntid as text (a launch without clusters then fails
     * at the driver instead of reaching a peer block that does not exist) */
    if (rc == 0 && L->cluster && out->ptx && insert_after_line(&out->ptx, ".maxntid", ".reqnctapercluster 2, 1, 1\n"))
        rc = -1;
    out->ms_codegen = tc_now_ms() - t0;
    LLVMDisposeTargetMachine(tm);
    return rc;
}
