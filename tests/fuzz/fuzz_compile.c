/*
 * Fuzz target: the whole compile (parse -> verify -> passes -> LLVM ->
 * PTX, tc_compile) on inputs that parse and verify.
 *
 * An input whose first byte is a control character (0x00-0x08) is not
 * text: the rest drives gen_kernel.c, which writes a well-typed kernel from
 * it, so mutations explore what the compiler does with valid programs
 * rather than where the parser stops. Other inputs are .tir text; those
 * that do not parse are left to fuzz_parse. To keep executions fast,
 * inputs over 4 KiB and
 * kernels whose tiles would need many registers per thread are skipped (the
 * size limits themselves are tested by tests/diag). The options (target,
 * precision, optimization level, line info, the experimental wgmma
 * options, persistence, one thread or two for the entry points, the
 * producers compiled apart) are
 * picked from a hash of the
 * input, so a reproducer replays with the options that found it.
 *
 * Findings beyond crashes and sanitizer reports: a compile that fails with
 * an internal error ("a tilec bug", invalid LLVM IR) aborts, as does a
 * successful compile without PTX for every kernel. An LLVM error that
 * exits the process is caught by libFuzzer as a finding too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "gen_kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_INPUT = 4096, MAX_REGS_PER_TILE = 256, MAX_REGS_TOTAL = 4096 };

/* Registers per thread that the tiles of block b and its loop bodies would
 * take, roughly (elements / threads); stops counting past the budget. */
static uint64_t block_regs(const TirModule *m, uint32_t b, uint32_t threads, int depth, int *too_big)
{
    uint64_t sum = 0;
    const TirBlock *blk = &m->blocks[b];
    for (uint32_t k = 0; k < blk->ninsts && !*too_big; k++) {
        const TirInst *in = &m->insts[m->pool[blk->insts + k]];
        if (in->type.kind == TY_TILE) {
            uint64_t r = (uint64_t)in->type.dim[0] * in->type.dim[1] / threads + 1;
            *too_big |= r > MAX_REGS_PER_TILE;
            sum += r;
        }
        if (in->op == OP_FOR && in->body && depth < TIR_MAX_NESTING)
            sum += block_regs(m, in->body, threads, depth + 1, too_big);
        *too_big |= sum > MAX_REGS_TOTAL;
    }
    return sum;
}

/* 1 when src parses, verifies and is small enough to compile quickly. */
static int worth_compiling(const char *src, size_t len)
{
    Diag d;
    diag_init(&d, "fuzz.tir", src, len);
    TirModule *m = tir_module_new("fuzz.tir");
    int ok = m && tir_parse(m, src, len, &d) == 0 && !m->oom && tir_verify(m, &d) == 0;
    int too_big = 0;
    for (uint32_t k = 0; ok && k < m->nkernels && !too_big; k++)
        block_regs(m, m->kernels[k].body, m->kernels[k].warps * 32, 0, &too_big);
    tir_module_free(m);
    diag_free(&d);
    return ok && !too_big;
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static int compile_text(const uint8_t *data, size_t size, const char *src, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    if (size == 0 || data[0] > 8)
        return compile_text(data, size, (const char *)data, size);
    StrBuf gen;
    sb_init(&gen);
    gen_kernel(data + 1, size - 1, &gen);
    if (getenv("TILEC_FUZZ_SHOW")) /* replaying a finding: show the kernel */
        fprintf(stderr, "%s", gen.data ? gen.data : "");
    int rc = gen.oom ? 0 : compile_text(data, size, gen.data, gen.len);
    sb_free(&gen);
    return rc;
}

/* Compiles src (made from data) if it is worth it; options from data. */
static int compile_text(const uint8_t *data, size_t size, const char *src, size_t len)
{
    if (!worth_compiling(src, len))
        return 0;
    static const char *const precisions[] = {"--precision=ieee", "--precision=tf32-trunc", "--precision=tf32-rna",
                                             "--precision=tf32-rne", "--precision=3xtf32"};
    uint32_t h = fnv1a(data, size);
    TcOptions o;
    StrBuf log;
    sb_init(&log);
    tc_options_default(&o);
    if (tc_option_parse(&o, h & 1 ? "--arch=sm_80" : "--arch=sm_90a", &log) ||
        tc_option_parse(&o, precisions[(h >> 1) % 5], &log))
        abort();
    o.opt_level = (h >> 4) % 4 == 0 ? 0 : 3;
    o.line_info = (h >> 6) & 1;
    o.wgmma_swapped = !((h >> 7) & 1); /* both pipelines, and the experimental options */
    o.wgmma_hoist = (h >> 8) & 1;
    o.wgmma_unaligned = (h >> 9) & 1;
    o.wgmma_roles = (h >> 10) & 1;
    o.wgmma_split = (h >> 11) & 1;
    o.wgmma_round_b = (h >> 12) & 1;
    o.wgmma_k_overlap = (h >> 13) & 1;
    o.wgmma_ffma = (h >> 14) & 1;
    o.wgmma_half = (h >> 15) & 1;
    o.wgmma_half_two_producers = (h >> 16) & 1;
    o.persistent = (h >> 17) % 3; /* off, every kernel, the default's choice (TC_PERSISTENT_AUTO) */
    o.wgmma_tma_only = (h >> 24) & 1;
    o.jobs = 1 + ((h >> 25) & 1); /* the entry points on one thread or two */
    o.wgmma_cluster = (h >> 26) & 1;
    o.wgmma_ffma_wide = (h >> 27) & 1;
    o.wgmma_one_producer = (h >> 28) & 1;
    o.role_functions = (h >> 29) & 1;
    o.wgmma_x3_one_group = (h >> 30) & 1;
    o.wgmma_tma_store = (h >> 31) & 1;
    o.wgmma_ffma_transpose_b = !(((h * 2654435761u) >> 31) & 1);
    o.wgmma_x3_halves = ((h * 2654435761u) >> 30) & 1;
    o.wgmma_x3_sum2 = ((h * 2654435761u) >> 29) & 1;
    o.wgmma_x3_rest_test = ((h * 2654435761u) >> 28) & 1;
    o.wgmma_unmasked = !(((h * 2654435761u) >> 27) & 1);
    o.wgmma_preround_b = !((h >> 20) & 1);
    o.wgmma_preround_a = !((h >> 23) & 1);
    o.wgmma_serial = (int)((h >> 21) % 3) - 1; /* at -O0 only, never, always */
    TcResult r;
    int rc = tc_compile("fuzz.tir", src, len, &o, &r, &log);
    const char *text = log.data ? log.data : "";
    if (strstr(text, "internal error") || strstr(text, "tilec bug")) {
        StrBuf os; /* every option that differs from the defaults (--jobs changes no output) */
        sb_init(&os);
        tc_options_str(&o, &os);
        fprintf(stderr, "fuzz_compile: internal error with %s --jobs=%d:\n%s", os.data ? os.data : "?", o.jobs, text);
        abort();
    }
    if (rc == 0) {
        if (!r.ptx)
            abort();
        for (unsigned k = 0; k < r.nkernels; k++)
            if (!strstr(r.ptx, r.kernels[k].name)) {
                fprintf(stderr, "fuzz_compile: kernel %s missing from the PTX\n", r.kernels[k].name);
                abort();
            }
    }
    tc_result_free(&r);
    sb_free(&log);
    return 0;
}
