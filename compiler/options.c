/*
 * Compile options, spelled the same way on the command line and in the
 * library (tilecCompileProgram), so a flag that works in one works in both.
 */
#include "compiler/compiler.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tc_options_default(TcOptions *o)
{
    memset(o, 0, sizeof *o);
    o->arch = ARCH_SM90A;
    o->precision = PREC_TF32_RNA;
    o->opt_level = 3;
    o->verify = 1;
    o->line_info = 1;
    o->prefetch = 0; /* measured no faster on the H200 (bench/NOTES.md v1) */
    o->wgmma = 1;
    o->mma_pipeline = 1;
    o->wgmma_swapped = 1;
    o->wgmma_unaligned = 1; /* a loop of its own, taken only for misaligned operands (bench/NOTES.md v7) */
    o->wgmma_roles = 1;     /* 128x128 +17%, 128x256 +5% on the H200 (bench/NOTES.md v7) */
    o->wgmma_split = 1;     /* where a stage has 8 wgmmas or more (lower_wgmma.c) */
    o->wgmma_ffma = 1;      /* ieee on the pipeline, where the tile fits (bench/NOTES.md v8) */
    o->wgmma_half = 1;      /* f16/bf16 dots on the pipeline (lower_wgmma_ss.c) */
    o->wgmma_tma = 1;       /* tf32-rne 1.4x at 128x256; zero maps are safe (docs/TIR.md, bench/NOTES.md v10, v11) */
    o->wgmma_tma_b128 = 1;  /* with -fwgmma-tma: 8-column panels were slower than no TMA (bench/NOTES.md v10) */
    o->wgmma_kmajor_b = 1;
    o->wgmma_mmajor_a = 1; /* H100: bf16 A^T @ B 0.82-0.89x cuBLAS, f32 2.2-3.3x the element copies (bench/NOTES.md v36) */
    o->wgmma_k_overlap = 1; /* tf32-rna 128x256 +6% to +11% on the H200 (bench/NOTES.md v12) */
    o->wgmma_tma_direct = 0; /* experimental: passes gpu_test_gemm, timings mixed (bench/NOTES.md v11, v12) */
    o->persistent = TC_PERSISTENT_AUTO; /* the f32 pipeline: small K +33%, large shapes within 1.5% (bench/NOTES.md v16) */
    o->role_functions = 1; /* the same kernel speed on the H100, -40% compile on 16 cores (bench/NOTES.md v21, v24) */
    o->wgmma_x3_one_group = 1; /* 3xtf32 +1-4% on the H200 (bench/NOTES.md v25) */
    o->wgmma_unmasked = 1; /* the same products; 3xtf32 +1-3% on an H100 (bench/NOTES.md v41) */
    o->wgmma_preround_a = 1;
    o->wgmma_preround_b = 1;
    o->wgmma_ffma_transpose_b = 1; /* ieee K-major B 0.95-1.0x the row-major kernel on an H100 (bench/NOTES.md v39) */
    o->wgmma_serial = -1; /* at -O0 (lower_wgmma.c) */
    o->keep_llvm_ir = 1;
}

const char *tc_arch_name(TcArch a) { return a == ARCH_SM80 ? "sm_80" : "sm_90a"; }

/* The passes --dump-after accepts (pipeline.c runs them in this order). */
const char *const tc_pass_names[] = {"parse", "wgmma", "mma", "precision", "prefetch", NULL};

unsigned tc_pass_bit(const char *name, size_t n)
{
    for (unsigned i = 0; tc_pass_names[i]; i++)
        if (strlen(tc_pass_names[i]) == n && !strncmp(name, tc_pass_names[i], n))
            return 1u << i;
    return 0;
}

/* The boolean -fNAME / -fno-NAME options and the field each sets. */
static const struct {
    const char *name;
    size_t offset;
} flags[] = {
    {"prefetch", offsetof(TcOptions, prefetch)},
    {"wgmma", offsetof(TcOptions, wgmma)},
    {"mma-pipeline", offsetof(TcOptions, mma_pipeline)},
    {"wgmma-hoist", offsetof(TcOptions, wgmma_hoist)},
    {"wgmma-ffma-wide", offsetof(TcOptions, wgmma_ffma_wide)},
    {"wgmma-one-producer", offsetof(TcOptions, wgmma_one_producer)},
    {"wgmma-cluster", offsetof(TcOptions, wgmma_cluster)},
    {"wgmma-swapped", offsetof(TcOptions, wgmma_swapped)},
    {"wgmma-unaligned", offsetof(TcOptions, wgmma_unaligned)},
    {"wgmma-roles", offsetof(TcOptions, wgmma_roles)},
    {"wgmma-split-stage", offsetof(TcOptions, wgmma_split)},
    {"wgmma-round-b", offsetof(TcOptions, wgmma_round_b)},
    {"wgmma-k-overlap", offsetof(TcOptions, wgmma_k_overlap)},
    {"wgmma-kmajor-b", offsetof(TcOptions, wgmma_kmajor_b)},
    {"wgmma-mmajor-a", offsetof(TcOptions, wgmma_mmajor_a)},
    {"wgmma-ffma", offsetof(TcOptions, wgmma_ffma)},
    {"wgmma-half", offsetof(TcOptions, wgmma_half)},
    {"wgmma-half-two-producers", offsetof(TcOptions, wgmma_half_two_producers)},
    {"wgmma-tma", offsetof(TcOptions, wgmma_tma)},
    {"wgmma-tma-b128", offsetof(TcOptions, wgmma_tma_b128)},
    {"wgmma-tma-direct", offsetof(TcOptions, wgmma_tma_direct)},
    {"wgmma-tma-only", offsetof(TcOptions, wgmma_tma_only)},
    {"wgmma-tma-store", offsetof(TcOptions, wgmma_tma_store)},
    {"wgmma-tma-store-two-buffers", offsetof(TcOptions, wgmma_tma_store_two)},
    {"persistent", offsetof(TcOptions, persistent)},
    {"role-functions", offsetof(TcOptions, role_functions)},
    {"wgmma-x3-one-group", offsetof(TcOptions, wgmma_x3_one_group)},
    {"wgmma-x3-halves", offsetof(TcOptions, wgmma_x3_halves)},
    {"wgmma-x3-rest-test", offsetof(TcOptions, wgmma_x3_rest_test)},
    {"wgmma-unmasked-rounding", offsetof(TcOptions, wgmma_unmasked)},
    {"wgmma-x3-sum2", offsetof(TcOptions, wgmma_x3_sum2)},
    {"wgmma-ffma-transpose-b", offsetof(TcOptions, wgmma_ffma_transpose_b)},
    {"wgmma-preround-a", offsetof(TcOptions, wgmma_preround_a)},
    {"wgmma-preround-b", offsetof(TcOptions, wgmma_preround_b)},
    {"wgmma-serial", offsetof(TcOptions, wgmma_serial)},
};

static int starts(const char *s, const char *prefix, const char **rest)
{
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0)
        return 0;
    *rest = s + n;
    return 1;
}

int tc_option_parse(TcOptions *o, const char *opt, StrBuf *err)
{
    const char *v;
    if (!opt) {
        sb_puts(err, "error: NULL option\n");
        return -1;
    }
    if (starts(opt, "--arch=", &v)) {
        if (!strcmp(v, "sm_80"))
            o->arch = ARCH_SM80;
        else if (!strcmp(v, "sm_90a"))
            o->arch = ARCH_SM90A;
        else {
            sb_printf(err, "error: unknown target '%s' in '%s'; supported targets: sm_80, sm_90a\n", v, opt);
            return -1;
        }
        return 0;
    }
    if (starts(opt, "--precision=", &v)) {
        TirPrecision p = tir_precision_lookup(v, strlen(v));
        if (p == PREC_DEFAULT) {
            sb_printf(err, "error: unknown precision '%s'; use one of ieee, tf32-trunc, tf32-rna, tf32-rne, 3xtf32\n", v);
            return -1;
        }
        o->precision = p;
        return 0;
    }
    if (starts(opt, "-D", &v)) {
        const char *why;
        if (tir_define(&o->defines, v, &why)) {
            sb_printf(err, "error: bad define '%s': %s (e.g. -DBM=128)\n", opt, why);
            return -1;
        }
        return 0;
    }
    if (opt[0] == '-' && opt[1] == 'O' && opt[2] >= '0' && opt[2] <= '3' && opt[3] == 0) {
        o->opt_level = opt[2] - '0';
        return 0;
    }
    if (starts(opt, "--dump-after=", &v)) { /* all, or a comma-separated list of passes */
        unsigned set = 0;
        for (const char *p = v;; p++) {
            size_t n = strcspn(p, ",");
            unsigned bit = tc_pass_bit(p, n);
            if (n == 3 && !strncmp(p, "all", 3))
                set = ~0u;
            else if (bit)
                set |= bit;
            else {
                sb_printf(err, "error: unknown pass '%.*s' in --dump-after; use all, or some of parse, wgmma, "
                          "mma, precision, prefetch (a comma between two)\n", (int)n, p);
                return -1;
            }
            p += n;
            if (!*p)
                break;
        }
        o->dump_after |= set;
        return 0;
    }
    if (!strcmp(opt, "--no-verify")) {
        o->verify = 0;
        return 0;
    }
    if (!strcmp(opt, "--remarks")) {
        o->remarks = 1;
        return 0;
    }
    const char *name; /* -fNAME / -fno-NAME */
    int on = !starts(opt, "-fno-", &name);
    if (!on || starts(opt, "-f", &name))
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (!strcmp(name, flags[i].name)) {
                *(int *)((char *)o + flags[i].offset) = on;
                return 0;
            }
    if (starts(opt, "--stages=", &v)) {
        if (v[0] < '2' || v[0] > '8' || v[1]) {
            sb_printf(err, "error: --stages takes a number from 2 to 8, got '%s'\n", v);
            return -1;
        }
        o->stages = v[0] - '0';
        return 0;
    }
    if (starts(opt, "--jobs=", &v)) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < 0 || n > TC_MAX_JOBS) {
            sb_printf(err, "error: --jobs takes a number from 0 (one per CPU) to %d, got '%s'\n", TC_MAX_JOBS, v);
            return -1;
        }
        o->jobs = (int)n;
        return 0;
    }
    if (!strcmp(opt, "-g0")) {
        o->line_info = 0;
        return 0;
    }
    if (!strcmp(opt, "-g")) {
        o->line_info = 1;
        return 0;
    }
    sb_printf(err, "error: unknown option '%s'\n", opt);
    return -1;
}

/* Every option that differs from the defaults, the flags from the table,
 * so that none can be left out of the kernel cache's key; not --jobs,
 * which changes no byte of the output. */
void tc_options_str(const TcOptions *o, StrBuf *out)
{
    TcOptions d;
    tc_options_default(&d);
    sb_printf(out, "--arch=%s --precision=%s -O%d%s%s", tc_arch_name(o->arch), tir_precision_name(o->precision),
              o->opt_level, o->line_info ? "" : " -g0", o->verify ? "" : " --no-verify");
    if (o->stages)
        sb_printf(out, " --stages=%d", o->stages);
    if (o->remarks)
        sb_puts(out, " --remarks");
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        int v = *(const int *)((const char *)o + flags[i].offset);
        if (v != *(const int *)((const char *)&d + flags[i].offset))
            sb_printf(out, " -f%s%s", v ? "" : "no-", flags[i].name);
    }
    for (int i = 0; i < o->defines.n; i++)
        sb_printf(out, " -D%s=%s", o->defines.d[i].name, o->defines.d[i].text);
}
