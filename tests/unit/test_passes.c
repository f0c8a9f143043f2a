/*
 * The passes keep the meaning of a kernel: the CPU reference executor gives
 * bit-identical results on the tile IR before and after them.
 *   - pass_prefetch on a K loop with partial tiles (and a load it must
 *     leave alone);
 *   - pass_precision: the un-rewritten IR (the executor implements every
 *     mode itself) against the rewritten one, for every mode;
 *   - pass_wgmma: marks exactly the GEMM loops its lowering handles, and a
 *     marked kernel (after pass_precision, which leaves marked dots alone)
 *     computes what the unmarked one does, for every mode.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "exec_util.h"

static const char *gemm_src =
    "kernel @g(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32) warps(4) {\n"
    "  %pm = program_id 0\n"
    "  %pn = program_id 1\n"
    "  %m0 = mul %pm, 32\n"
    "  %n0 = mul %pn, 32\n"
    "  %va = view %A [%M, %K] strides [%K, 1]\n"
    "  %vb = view %B [%K, %N] strides [%N, 1]\n"
    "  %vc = view %C [%M, %N] strides [%N, 1]\n"
    "  %z = zeros : tile<32x32xf32>\n"
    "  %acc = for %k = 0 to %K step 16 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<32x16xf32>\n"
    "    %k2 = add %k, 0\n"
    "    %b = load %vb[%k2, %n0] : tile<16x32xf32>\n"
    "    %d = dot %a, %b, %c : tile<32x32xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  store %acc, %vc[%m0, %n0]\n"
    "}\n";

/* The shape pass_wgmma pipelines: 16 x warps rows, BN >= 64, K step 32;
 * %s is replaced by what a case puts before the loop. */
static const char *wg_fmt =
    "kernel @g(%%A: ptr<f32>, %%B: ptr<f32>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32) warps(4) {\n"
    "  %%pm = program_id 0\n"
    "  %%pn = program_id 1\n"
    "  %%m0 = mul %%pm, 64\n"
    "  %%n0 = mul %%pn, 64\n"
    "  %%va = view %%A [%%M, %%K] strides [%%K, 1]\n"
    "  %%vb = view %%B [%%K, %%N] strides [%%N, 1]\n"
    "  %%vc = view %%C [%%M, %%N] strides [%%N, 1]\n"
    "%s"
    "  %%z = zeros : tile<64x64xf32>\n"
    "  %%acc = for %%k = 0 to %%K step %d iter(%%c = %%z) {\n"
    "    %%a = load %%va[%%m0, %%k] : tile<64x32xf32>\n"
    "    %%b = load %%vb[%%k, %%n0] : tile<32x64xf32>\n"
    "    %%d = dot %%a, %%b, %%c : tile<64x64xf32>\n"
    "    yield %%d\n"
    "  }\n"
    "  store %%acc, %%vc[%%m0, %%n0]\n"
    "}\n";

enum { M = 45, N = 37, K = 53 };

static void fill(float *p, size_t n, unsigned seed)
{
    srand(seed);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    p[3] = INFINITY; /* Inf and NaN take the same path through every form */
    p[n / 2] = NAN;
}

/* Runs gemm_src through the passes selected and the executor. */
static void run(float *C, TirPrecision mode, int precision_pass, int prefetch)
{
    static float A[M * K], B[K * N];
    fill(A, M * K, 1);
    fill(B, K * N, 2);
    for (int i = 0; i < M * N; i++)
        C[i] = -7.0f;
    TirModule *m = parse_ok(gemm_src);
    Diag d;
    diag_init(&d, "g.tir", gemm_src, strlen(gemm_src));
    if (precision_pass)
        ck_assert_int_eq(pass_precision(m, mode, &d), 0);
    if (prefetch)
        ck_assert_int_eq(pass_prefetch(m, &d), 0);
    ck_assert_int_eq(tir_verify(m, &d), 0);
    diag_free(&d);
    int32_t mm = M, nn = N, kk = K;
    void *a = A, *b = B, *c = C;
    void *args[] = {&a, &b, &c, &mm, &nn, &kk};
    unsigned grid[3] = {(M + 31) / 32, (N + 31) / 32, 1};
    exec_ok(m, grid, args, mode);
    tir_module_free(m);
}

static void assert_same(const float *x, const float *y, size_t n)
{
    ck_assert_int_eq(memcmp(x, y, n * sizeof *x), 0);
}

START_TEST(prefetch_keeps_results)
{
    static float ref[M * N], got[M * N];
    run(ref, PREC_TF32_RNA, 1, 0);
    run(got, PREC_TF32_RNA, 1, 1);
    assert_same(ref, got, M * N);
    for (int i = 0; i < M * N; i++) /* every element was written */
        ck_assert(ref[i] != -7.0f);
    ck_assert(isinf(ref[3]) || isnan(ref[3]) || isinf(ref[0]) || isnan(ref[0])); /* row 0 met the Inf */
}
END_TEST

START_TEST(precision_pass_keeps_results)
{
    static const TirPrecision modes[] = {PREC_IEEE, PREC_TF32_TRUNC, PREC_TF32_RNA, PREC_TF32_RNE, PREC_3XTF32};
    static float ref[M * N], got[M * N];
    TirPrecision p = modes[_i];
    run(ref, p, 0, 0); /* the executor applies the mode itself */
    run(got, p, 1, 0); /* the pass made it explicit */
    assert_same(ref, got, M * N);
}
END_TEST

START_TEST(prefetch_leaves_dependent_loads)
{
    TirModule *m = parse_ok(gemm_src);
    Diag d;
    diag_init(&d, "g.tir", gemm_src, strlen(gemm_src));
    ck_assert_int_eq(pass_prefetch(m, &d), 0);
    StrBuf out;
    sb_init(&out);
    tir_print(m, &out);
    /* %a moved ahead (carried), %b (indexed by a value computed in the loop) stayed */
    ck_assert_ptr_nonnull(strstr(out.data, "iter(%c = %z, %a = "));
    ck_assert_ptr_nonnull(strstr(out.data, "%b = load %vb[%k2, %n0]"));
    sb_free(&out);
    diag_free(&d);
    tir_module_free(m);
}
END_TEST

static char wg_src[2048];

static TirModule *wg_module(const char *before, int step)
{
    snprintf(wg_src, sizeof wg_src, wg_fmt, before, step);
    return parse_ok(wg_src);
}

/* The kernel body's first loop. */
static const TirInst *first_for(const TirModule *m)
{
    const TirBlock *b = &m->blocks[m->kernels[0].body];
    for (uint32_t k = 0; k < b->ninsts; k++)
        if (m->insts[m->pool[b->insts + k]].op == OP_FOR)
            return &m->insts[m->pool[b->insts + k]];
    return NULL;
}

/* Runs pass_wgmma with these options; returns the loop's mark. */
static int wg_mark(TirModule *m, const TcOptions *o)
{
    Diag d;
    diag_init(&d, "g.tir", wg_src, strlen(wg_src));
    ck_assert_int_eq(pass_wgmma(m, o, &d), 0);
    ck_assert_int_eq(tir_verify(m, &d), 0);
    diag_free(&d);
    return first_for(m)->ival;
}

START_TEST(wgmma_marks_gemm_loops)
{
    TcOptions o;
    tc_options_default(&o);
    TirModule *m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 4); /* 4 stages of (64 + 64) x 128 bytes fit */
    /* the dot's mode is explicit, and pass_precision leaves the loop as it is */
    const TirInst *f = first_for(m);
    uint32_t ninsts = m->blocks[f->body].ninsts;
    Diag d;
    diag_init(&d, "g.tir", wg_src, strlen(wg_src));
    ck_assert_int_eq(pass_precision(m, PREC_TF32_RNA, &d), 0);
    diag_free(&d);
    f = first_for(m);
    ck_assert_uint_eq(m->blocks[f->body].ninsts, ninsts);
    StrBuf out;
    sb_init(&out);
    tir_print(m, &out);
    ck_assert_ptr_nonnull(strstr(out.data, "// wgmma pipeline, 4 stages"));
    ck_assert_ptr_nonnull(strstr(out.data, "precision = tf32-rna"));
    ck_assert_ptr_null(strstr(out.data, "round_tf32"));
    sb_free(&out);
    tir_module_free(m);
    o.stages = 2; /* --stages=2 */
    m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 2);
    tir_module_free(m);
}
END_TEST

/* wg_fmt's kernel with elem inputs, k step and tile K `kt`, and warps(w). */
static TirModule *half_module(const char *elem, int kt, int w)
{
    char f[2048], *p;
    snprintf(f, sizeof f, "%s", wg_fmt);
    for (const char *pat = "ptr<f32>, %%B: ptr<f32>"; (p = strstr(f, pat)) != NULL;) {
        char rest[2048];
        snprintf(rest, sizeof rest, "%s", p + strlen(pat));
        snprintf(p, sizeof f - (size_t)(p - f), "ptr<%s>, %%%%B: ptr<%s>%s", elem, elem, rest);
    }
    snprintf(wg_src, sizeof wg_src, f, "", kt);
    /* the tiles: 64xKTxE, KTx64xE, warps */
    char out[2048];
    snprintf(out, sizeof out, "%s", wg_src);
    char a_old[] = "tile<64x32xf32>", b_old[] = "tile<32x64xf32>", a_new[32], b_new[32], w_new[16];
    snprintf(a_new, sizeof a_new, "tile<64x%dx%s>", kt, elem);
    snprintf(b_new, sizeof b_new, "tile<%dx64x%s>", kt, elem);
    snprintf(w_new, sizeof w_new, "warps(%d)", w);
    const char *olds[] = {a_old, b_old, "warps(4)"}, *news[] = {a_new, b_new, w_new};
    for (int i = 0; i < 3; i++) {
        p = strstr(out, olds[i]);
        ck_assert_ptr_nonnull(p);
        char rest[2048];
        snprintf(rest, sizeof rest, "%s", p + strlen(olds[i]));
        snprintf(p, sizeof out - (size_t)(p - out), "%s%s", news[i], rest);
    }
    snprintf(wg_src, sizeof wg_src, "%s", out);
    return parse_ok(wg_src);
}

/* f16/bf16 loops (lower_wgmma_ss.c): marked with a k step of 64 and BM =
 * 16 x warps, their dot left without a precision; otherwise generic. */
START_TEST(wgmma_marks_half_loops)
{
    TcOptions o;
    tc_options_default(&o);
    static const char *const elems[] = {"bf16", "f16"};
    for (int e = 0; e < 2; e++) {
        TirModule *m = half_module(elems[e], 64, 4);
        ck_assert_int_eq(wg_mark(m, &o), 6); /* 6 stages of (64 + 64) x 128 bytes */
        const TirInst *f = first_for(m);
        const TirBlock *body = &m->blocks[f->body];
        const TirInst *dot = &m->insts[m->pool[body->insts + 2]];
        ck_assert_int_eq(dot->op, OP_DOT);
        ck_assert_int_eq(dot->ival, 0);
        tir_module_free(m);
        m = half_module(elems[e], 32, 4); /* a k step of 32: generic */
        ck_assert_int_eq(wg_mark(m, &o), 0);
        tir_module_free(m);
        m = half_module(elems[e], 64, 8); /* BM 64 with two consumer warpgroups */
        ck_assert_int_eq(wg_mark(m, &o), 0);
        tir_module_free(m);
        o.wgmma_half = 0;
        m = half_module(elems[e], 64, 4);
        ck_assert_int_eq(wg_mark(m, &o), 0);
        tir_module_free(m);
        o.wgmma_half = 1;
    }
}
END_TEST

/* Replaces the first `from` in wg_src by `to`. */
static void wg_replace(const char *from, const char *to)
{
    char out[2048], *p = strstr(wg_src, from);
    ck_assert_ptr_nonnull(p);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(p - wg_src), wg_src, to, p + strlen(from));
    snprintf(wg_src, sizeof wg_src, "%s", out);
}

/* ... and parses it. */
static TirModule *wg_replaced(const char *from, const char *to)
{
    wg_replace(from, to);
    return parse_ok(wg_src);
}

/* The tensor maps of -fwgmma-tma (lower_wgmma_tma.c) describe the loop's
 * views through the parameters (or constants) the runtime reads at launch:
 * A's rows (a 32 x BM box, 128-byte swizzle), B's 8-column panels (a
 * 8 x 32 x BN/8 box); TFLOAT32 only for tf32-rne (the copy rounds). No maps
 * for extents the runtime cannot evaluate, for ieee or without the option. */
START_TEST(tma_maps_describe_views)
{
    TcOptions o;
    tc_options_default(&o);
    o.wgmma_tma = 1;
    o.wgmma_tma_b128 = 0; /* B as one box of 8-column panels */
    o.precision = PREC_TF32_RNE;
    TirModule *m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 4);
    TcTmap t[3];
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 2);
    ck_assert_int_eq(t[0].kind, TC_TMAP_ROWS);
    ck_assert_int_eq(t[0].dtype, TC_TMAP_TF32);
    ck_assert_uint_eq(t[0].box[0], 32);
    ck_assert_uint_eq(t[0].box[1], 64);
    ck_assert_uint_eq(t[0].base_param, 0);
    ck_assert_int_eq(t[0].d0.param, 3); /* %M */
    ck_assert_int_eq(t[0].d1.param, 5); /* %K */
    ck_assert_int_eq(t[0].s0.param, 5);
    ck_assert_int_eq(t[1].kind, TC_TMAP_PANELS);
    ck_assert_uint_eq(t[1].box[0], 8);
    ck_assert_uint_eq(t[1].box[1], 32);
    ck_assert_uint_eq(t[1].box[2], 8);
    ck_assert_uint_eq(t[1].base_param, 1);
    ck_assert_int_eq(t[1].d0.param, 5);
    ck_assert_int_eq(t[1].d1.param, 4); /* %N */
    ck_assert_int_eq(t[1].s0.param, 4);
    ck_assert_int_eq(t[1].s1.param, -1);
    ck_assert_int_eq(t[1].s1.value, 1);
    ck_assert_int_eq(t[0].batched, 0);
    o.wgmma_tma_b128 = 1; /* the default: B as 32-column panels, a box each */
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 2);
    ck_assert_int_eq(t[1].kind, TC_TMAP_ROWS);
    ck_assert_uint_eq(t[1].box[0], 32);
    ck_assert_uint_eq(t[1].box[1], 32);
    ck_assert_int_eq(t[1].d1.param, 4);
    o.wgmma_tma = 0;
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 0);
    o.wgmma_tma = 1;
    tir_module_free(m);

    o.precision = PREC_TF32_RNA; /* raw copies: the pipeline rounds */
    m = wg_module("", 32);
    wg_mark(m, &o);
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 2);
    ck_assert_int_eq(t[0].dtype, TC_TMAP_F32);
    ck_assert_int_eq(t[1].dtype, TC_TMAP_F32);
    tir_module_free(m);

    tir_module_free(wg_module("", 32));
    m = wg_replaced("strides [%N, 1]", "strides [256, 1]"); /* a constant row stride */
    wg_mark(m, &o);
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 2);
    ck_assert_int_eq(t[1].s0.param, -1);
    ck_assert_int_eq(t[1].s0.value, 256);
    tir_module_free(m);

    tir_module_free(wg_module("", 32));
    m = wg_replaced("[%M, %K]", "[%m0, %K]"); /* computed in the kernel */
    ck_assert_int_eq(wg_mark(m, &o), 4);
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 0);
    tir_module_free(m);

    tir_module_free(wg_module("", 32)); /* a batched A: the batch one more dimension */
    wg_replace("view %A [%M, %K] strides [%K, 1]", "view %A [%M, %M, %K] strides [%N, %K, 1]");
    m = wg_replaced("load %va[%m0, %k]", "load %va[%pn, %m0, %k]");
    ck_assert_int_eq(wg_mark(m, &o), 4);
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 2);
    ck_assert_int_eq(t[0].batched, 1);
    ck_assert_int_eq(t[0].db.param, 3);
    ck_assert_int_eq(t[0].sb.param, 4);
    ck_assert_int_eq(t[0].d0.param, 3);
    ck_assert_int_eq(t[0].d1.param, 5);
    ck_assert_int_eq(t[0].s0.param, 5);
    ck_assert_int_eq(t[1].batched, 0);
    tir_module_free(m);

    tir_module_free(wg_module("", 32));
    m = wg_replaced("strides [%K, 1]", "strides [%K, 2]"); /* a constant column stride other than 1 */
    wg_mark(m, &o);
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 0);
    tir_module_free(m);

    o.precision = PREC_IEEE; /* the FMA consumers read B's runs from 32-column panels, as tf32-trunc's */
    m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 4);
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 2);
    ck_assert_int_eq(t[0].dtype, TC_TMAP_F32);
    ck_assert_int_eq(t[1].kind, TC_TMAP_ROWS);
    ck_assert_int_eq(t[1].box[0], 32);
    o.wgmma_tma_b128 = 0; /* not from 8-column panels: a half warp's runs would meet in 8 banks */
    ck_assert_uint_eq(wgmma_tma_maps(m, &m->kernels[0], &o, t), 0);
    tir_module_free(m);
}
END_TEST

START_TEST(wgmma_leaves_other_loops)
{
    TcOptions o;
    tc_options_default(&o);
    TirModule *m;
    /* what the pipeline cannot take: a store or a tile load before the loop, a step that
     * is not the tile's K, no wgmma (sm_80 or -fno-wgmma), ieee with -fno-wgmma-ffma,
     * {accumulate = rn} */
    const char *before[] = {"  %t = load %vc[0, 0] : tile<64x64xf32>\n  store %t, %vc[0, 0]\n",
                            "  %t = load %vc[0, 0] : tile<64x64xf32>\n"};
    for (int i = 0; i < 2; i++) {
        m = wg_module(before[i], 32);
        ck_assert_int_eq(wg_mark(m, &o), 0);
        tir_module_free(m);
    }
    m = wg_module("", 16);
    ck_assert_int_eq(wg_mark(m, &o), 0);
    tir_module_free(m);
    o.arch = ARCH_SM80;
    m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 0);
    tir_module_free(m);
    tc_options_default(&o);
    o.wgmma = 0;
    m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 0);
    tir_module_free(m);
    tc_options_default(&o);
    o.precision = PREC_IEEE;
    m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 4); /* the FMA consumers (the default) */
    tir_module_free(m);
    o.wgmma_ffma = 0;
    m = wg_module("", 32);
    ck_assert_int_eq(wg_mark(m, &o), 0);
    tir_module_free(m);
    /* a dot that asks for RN accumulation per k8 step keeps the generic lowering */
    tc_options_default(&o);
    snprintf(wg_src, sizeof wg_src, wg_fmt, "", 32);
    char *dot = strstr(wg_src, "dot %a, %b, %c");
    ck_assert_ptr_nonnull(dot);
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", dot + strlen("dot %a, %b, %c"));
    snprintf(dot, sizeof wg_src - (size_t)(dot - wg_src), "dot %%a, %%b, %%c {accumulate = rn}%s", rest);
    m = parse_ok(wg_src);
    ck_assert_int_eq(wg_mark(m, &o), 0);
    tir_module_free(m);
    /* and pass_prefetch leaves a marked loop alone */
    tc_options_default(&o);
    m = wg_module("", 32);
    ck_assert_int_gt(wg_mark(m, &o), 0);
    Diag d;
    diag_init(&d, "g.tir", wg_src, strlen(wg_src));
    ck_assert_int_eq(pass_prefetch(m, &d), 0);
    diag_free(&d);
    ck_assert_uint_eq(first_for(m)->nresults, 1);
    tir_module_free(m);
}
END_TEST

/* Executor results of the wgmma kernel with and without the mark. */
static void run_wg(float *C, TirPrecision mode, int mark)
{
    static float A[M * K], B[K * N];
    fill(A, M * K, 3);
    fill(B, K * N, 4);
    for (int i = 0; i < M * N; i++)
        C[i] = -7.0f;
    TirModule *m = wg_module("", 32);
    TcOptions o;
    tc_options_default(&o);
    o.precision = mode;
    if (mark)
        wg_mark(m, &o);
    Diag d;
    diag_init(&d, "g.tir", wg_src, strlen(wg_src));
    ck_assert_int_eq(pass_precision(m, mode, &d), 0);
    ck_assert_int_eq(tir_verify(m, &d), 0);
    diag_free(&d);
    int32_t mm = M, nn = N, kk = K;
    void *a = A, *b = B, *c = C;
    void *args[] = {&a, &b, &c, &mm, &nn, &kk};
    unsigned grid[3] = {1, 1, 1};
    exec_ok(m, grid, args, mode);
    tir_module_free(m);
}

START_TEST(wgmma_keeps_results)
{
    static const TirPrecision modes[] = {PREC_TF32_TRUNC, PREC_TF32_RNA, PREC_TF32_RNE, PREC_3XTF32};
    static float ref[M * N], got[M * N];
    run_wg(ref, modes[_i], 0);
    run_wg(got, modes[_i], 1);
    assert_same(ref, got, M * N);
    for (int i = 0; i < M * N; i++)
        ck_assert(ref[i] != -7.0f);
}
END_TEST

/* The pipeline's protocol (lower_wgmma.c) played out step by step: producer
 * p's iteration u first issues step p + P*u, waiting until stage
 * (step % S) is empty (step - S released), then finishes step p + P*(u - lag);
 * the consumers take steps in order as they are finished and release each
 * once its wgmmas are done, or (hold: -fwgmma-k-overlap) once they have
 * taken the next. Both pipelines (the swapped product and
 * -fno-wgmma-swapped) follow it. With one or two producers and the lag
 * wgmma_lag picks, every step gets consumed for every step count: no
 * deadlock. With roles (the swapped product's default) one producer only
 * issues and the other only finishes, in order, as steps have been issued. */
static int protocol_completes(uint32_t P, uint32_t S, uint32_t lag, int n, int hold, int roles)
{
    if (roles) {
        int issued = 0, finished = 0, started = 0, released = -1;
        for (int progress = 1; progress;) {
            progress = 0;
            if (issued < n && issued - (int)S <= released)
                issued++, progress = 1;
            if (finished < issued)
                finished++, progress = 1;
            if (started < finished) {
                started++;
                released = started - 1 - hold;
                progress = 1;
            }
            if (started == n && released < n - 1)
                released = n - 1, progress = 1;
        }
        return started == n;
    }
    int started = 0, released = -1, u[2] = {0, 0}, finishing[2] = {0, 0}, done[64] = {0};
    for (int progress = 1; progress;) {
        progress = 0;
        for (uint32_t p = 0; p < P; p++) {
            int mine = n > (int)p ? (n - (int)p + (int)P - 1) / (int)P : 0;
            if (u[p] >= mine + (int)lag)
                continue;
            if (!finishing[p]) {
                int t = (int)p + (int)P * u[p];
                if (u[p] < mine && t - (int)S > released)
                    continue; /* waits for an empty stage */
                finishing[p] = 1;
            } else {
                int v = u[p] - (int)lag;
                if (v >= 0)
                    done[(int)p + (int)P * v] = 1;
                finishing[p] = 0;
                u[p]++;
            }
            progress = 1;
        }
        while (started < n && done[started]) {
            started++;
            released = started - 1 - hold;
            progress = 1;
        }
        if (started == n && released < n - 1) {
            released = n - 1;
            progress = 1;
        }
    }
    return started == n;
}

/* Every pipeline's setmaxnreg split fits the register file: what the
 * warpgroups hold after it is at most what the launch holds at entry, each
 * value a multiple of 8 in [24, 240], and the f16/bf16 consumers keep the
 * 184 that 128 accumulators (BN = 256) need. */
static void check_split(uint32_t consumers, uint32_t producers, uint32_t preg, uint32_t creg)
{
    uint32_t launch = consumers + producers * 128;
    if (!preg) { /* left as they are: only for small launches */
        ck_assert_uint_le(launch, 256);
        return;
    }
    ck_assert_uint_eq(preg % 8, 0);
    ck_assert_uint_eq(creg % 8, 0);
    ck_assert(preg >= 24 && creg >= 24 && preg <= 240 && creg <= 240);
    ck_assert_uint_le(consumers * creg + producers * 128 * preg, launch * wgmma_entry_regs(launch));
}

START_TEST(register_splits_fit)
{
    TcOptions o;
    tc_options_default(&o);
    for (uint32_t nc = 1; nc <= 2; nc++)
        for (int two = 0; two < 2; two++)
            for (uint32_t bn = 64; bn <= 256; bn += 64) {
                o.wgmma_half_two_producers = two;
                uint32_t np = ss_producers(nc * 128, bn, &o), creg;
                ck_assert(np == 1 || np == 2);
                if (nc == 2 && bn == 256)
                    ck_assert_uint_eq(np, 1); /* 512 threads: too few registers for m64n256 */
                uint32_t preg = ss_register_split(nc * 128, np, &creg);
                check_split(nc * 128, np, preg, creg);
                if (preg && bn == 256)
                    ck_assert_uint_ge(creg, 184);
            }
    for (uint32_t nc = 1; nc <= 2; nc++)
        for (uint32_t np = 1; np <= 2; np++)
            for (uint32_t copies = 1; copies <= 3; copies += 2) {
                uint32_t creg, preg = swapped_register_split(nc * 128, np, copies, 0, &creg);
                check_split(nc * 128, np, preg, creg);
                if (copies == 3) { /* -fwgmma-x3-sum2: 8 more for the consumers, within the file */
                    uint32_t creg2, preg2 = swapped_register_split(nc * 128, np, copies, 1, &creg2);
                    check_split(nc * 128, np, preg2, creg2);
                    if (preg)
                        ck_assert_uint_ge(creg2, creg);
                }
                preg = transposed_register_split(nc * 128, np, copies, &creg);
                check_split(nc * 128, np, preg, creg);
            }
}
END_TEST

/* The FMA pipeline's thread grid (ieee): every tile it takes is covered
 * exactly (tr x tc threads, each BM / tr <= 8 rows of 8 columns, or with
 * -fwgmma-ffma-wide of 16 where 8 would not cover the tile); the tiles it
 * refuses hold more. */
START_TEST(ffma_grid_covers_tiles)
{
    static const uint32_t take[][4] = {{128, 128, 256, 8}, {64, 256, 256, 8},  {128, 64, 128, 8},
                                       {64, 64, 128, 8},   {256, 64, 256, 8},  {128, 256, 256, 16},
                                       {256, 128, 256, 16}, {128, 128, 128, 16}};
    static const uint32_t refuse[][3] = {{256, 256, 256}, {256, 128, 128}, {64, 36, 128}, {8, 64, 128}};
    for (size_t i = 0; i < sizeof take / sizeof take[0]; i++) {
        uint32_t bm = take[i][0], bn = take[i][1], threads = take[i][2], tr = 0, tc = 0;
        ck_assert_int_eq(wgmma_ffma_grid(bm, bn, threads, 1, &tr, &tc), 1);
        /* the 16-column grids only with -fwgmma-ffma-wide */
        ck_assert_int_eq(wgmma_ffma_grid(bm, bn, threads, 0, &tr, &tc), take[i][3] == 8);
        ck_assert_uint_eq(tr * tc, threads);
        ck_assert_uint_eq(tc * take[i][3], bn);
        ck_assert_uint_eq(bm % tr, 0);
        ck_assert_uint_le(bm / tr, 8);
    }
    for (size_t i = 0; i < sizeof refuse / sizeof refuse[0]; i++) {
        uint32_t tr = 0, tc = 0;
        ck_assert_int_eq(wgmma_ffma_grid(refuse[i][0], refuse[i][1], refuse[i][2], 1, &tr, &tc), 0);
    }
}
END_TEST

START_TEST(wgmma_protocol_completes)
{
    for (uint32_t S = 2; S <= 8; S++)
        for (uint32_t P = 1; P <= 2; P++) {
            if (P == 2 && S < 3) /* both pipelines take two producers only from 3 stages */
                continue;
            uint32_t lag = wgmma_lag(S, P);
            ck_assert_uint_lt(P * lag, S);
            for (int n = 0; n < 64; n++)
                ck_assert_msg(protocol_completes(P, S, lag, n, 0, 0), "deadlock: %u producers, %u stages, lag %u, %d steps",
                              P, S, lag, n);
            /* consumers holding two stages (k-overlap): exactly where
             * wgmma_hold_two_ok allows it, every step count completes */
            int all = 1;
            for (int n = 0; n < 64; n++)
                all &= protocol_completes(P, S, lag, n, 1, 0);
            ck_assert_msg(all == wgmma_hold_two_ok(S, P, 0), "k-overlap: %u producers, %u stages, lag %u: %s", P, S, lag,
                          all ? "completes but refused" : "deadlocks but allowed");
            if (P == 2) /* roles: the copier and the rounder, held or not */
                for (int n = 0; n < 64; n++)
                    for (int hold = 0; hold < 2; hold++)
                        ck_assert_msg(protocol_completes(P, S, lag, n, hold, 1) && wgmma_hold_two_ok(S, P, 1),
                                      "roles: %u stages, %d steps, hold %d", S, n, hold);
        }
    ck_assert(!protocol_completes(2, 4, 2, 10, 0, 0)); /* the model does catch a deadlock */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("passes");
    TCase *tc = tcase_create("passes");
    tcase_add_test(tc, prefetch_keeps_results);
    tcase_add_loop_test(tc, precision_pass_keeps_results, 0, 5);
    tcase_add_test(tc, prefetch_leaves_dependent_loads);
    tcase_add_test(tc, wgmma_marks_gemm_loops);
    tcase_add_test(tc, wgmma_marks_half_loops);
    tcase_add_test(tc, register_splits_fit);
    tcase_add_test(tc, wgmma_leaves_other_loops);
    tcase_add_test(tc, tma_maps_describe_views);
    tcase_add_loop_test(tc, wgmma_keeps_results, 0, 4);
    tcase_add_test(tc, ffma_grid_covers_tiles);
    tcase_add_test(tc, wgmma_protocol_completes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
