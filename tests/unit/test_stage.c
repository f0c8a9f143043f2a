/*
 * Staging (runtime/stage.c): which maps of which launches are staged, and
 * the copy's geometry; and (compiler) which views a kernel lets the runtime
 * stage (TcTmap.stage, walk, across); the copy kernels assemble. No
 * driver: the copy itself is run by gpu_test_gemm's staged cases.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "runtime/ptxas.h"
#include "runtime/stage.h"
#include "runtime/tmap.h"
#include <stdio.h>

/* (%A: ptr<f32>, %M: i32, %K: i32, %lda: i32, %ldb: i64, %H: ptr<bf16>) */
enum { P_A, P_M, P_K, P_LDA, P_LDB, P_H, NPARAMS };
static const TirType PARAMS[NPARAMS] = {
    [P_A] = {.kind = TY_PTR, .elem = ELEM_F32},   [P_M] = {.kind = TY_SCALAR, .elem = ELEM_I32},
    [P_K] = {.kind = TY_SCALAR, .elem = ELEM_I32}, [P_LDA] = {.kind = TY_SCALAR, .elem = ELEM_I32},
    [P_LDB] = {.kind = TY_SCALAR, .elem = ELEM_I64}, [P_H] = {.kind = TY_PTR, .elem = ELEM_BF16},
};

typedef struct {
    uint64_t a, h;
    int32_t m, k, lda;
    int64_t ldb;
    void *args[NPARAMS];
} Args;

static void args_init(Args *x, uint64_t a, int32_t m, int32_t k, int32_t lda)
{
    *x = (Args){.a = a, .h = a, .m = m, .k = k, .lda = lda, .ldb = lda};
    x->args[P_A] = &x->a;
    x->args[P_M] = &x->m;
    x->args[P_K] = &x->k;
    x->args[P_LDA] = &x->lda;
    x->args[P_LDB] = &x->ldb;
    x->args[P_H] = &x->h;
}

static TcTmapScalar param(int p) { return (TcTmapScalar){.param = p, .value = 0}; }
static TcTmapScalar constant(int64_t v) { return (TcTmapScalar){.param = -1, .value = v}; }

/* A GEMM's A: M rows of K columns, row stride lda, the loop walking the
 * columns, 128 rows a program. */
static TcTmap a_map(void)
{
    return (TcTmap){.kind = TC_TMAP_ROWS, .dtype = TC_TMAP_F32, .box = {32, 128, 0}, .base_param = P_A,
                    .d0 = param(P_M), .d1 = param(P_K), .s0 = param(P_LDA), .s1 = constant(1), .stage = 1,
                    .walk = 1, .across = 128};
}

START_TEST(odd_stride_staged)
{
    Args x;
    args_init(&x, 0x7f0000010000ull, 8191, 8190, 8190); /* 32760-byte rows */
    TcTmap m = a_map();
    TcStagePlan p;
    /* 64 x 32 programs of 128 x 256: each element of A read by 32 */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, 64 * 32, 0, &p), 1);
    ck_assert_uint_eq(p.src, 0x7f0000010000ull);
    ck_assert_uint_eq(p.src_pitch, 32760);
    ck_assert_uint_eq(p.width, 32760);
    ck_assert_uint_eq(p.rows, 8191);
    ck_assert_uint_eq(p.pitch, 32768);
    ck_assert_int_eq(p.stride, 8192);
    ck_assert_uint_eq(p.base_param, P_A);
    ck_assert_uint_eq(p.stride_param, P_LDA);
    /* with the copy's base and stride the map encodes */
    uint64_t base = 0x7f0000200000ull;
    int32_t stride = (int32_t)p.stride;
    x.args[P_A] = &base;
    x.args[P_LDA] = &stride;
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.byte_strides[0], 32768);
}
END_TEST

/* A map that encodes as it is, or that the kernel does not let the runtime
 * stage, is not staged. */
START_TEST(not_needed_or_not_allowed)
{
    Args x;
    TcStagePlan p;
    TcTmap m = a_map();
    args_init(&x, 0x7f0000010000ull, 8192, 8192, 8192);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
    args_init(&x, 0x7f0000010000ull, 8191, 8190, 8190);
    m.stage = 0;
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
    m = a_map();
    m.batched = 1;
    m.db = constant(1);
    m.sb = constant(0);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
    m = a_map();
    m.s0 = constant(8190); /* no parameter to pass the copy's stride in */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
    m = a_map();
    x.a = 0;
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
}
END_TEST

/* Only a view read by TC_STAGE_MIN_REUSE programs per element or more. */
START_TEST(reuse_threshold)
{
    Args x;
    TcStagePlan p;
    TcTmap m = a_map();
    args_init(&x, 0x7f0000010000ull, 1000, 333, 333);
    /* programs x 128 / 1000 rows: 125 programs give 16, 124 give 15.9 */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, 125, 0, &p), 1);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, 124, 0, &p), 0);
    /* walking rows (B): the extent across is the column count */
    m.walk = 0;
    m.across = 256;
    /* programs x 256 / 333 columns >= 16: 21 programs */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, 21, 0, &p), 1);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, 20, 0, &p), 0);
}
END_TEST

/* Pre-rounding (stage.h): a view the kernel rounds is staged rounded even
 * where a map describes it as it is, at TC_PREROUND_MIN_REUSE programs
 * per element; never for a map without TcTmap.round or of another element
 * type; an odd view's copy rounds too. */
START_TEST(preround_plan)
{
    Args x;
    TcStagePlan p;
    TcTmap m = a_map();
    m.round = 1;
    args_init(&x, 0x7f0000010000ull, 8192, 8192, 8192);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0); /* encodes as it is */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 1, &p), 1);
    ck_assert_int_eq(p.round, 1);
    ck_assert_uint_eq(p.src_pitch, 32768);
    ck_assert_uint_eq(p.pitch, 32768);
    ck_assert_uint_eq(p.rows, 8192);
    /* programs x 128 / 8192 rows >= TC_PREROUND_MIN_REUSE */
    uint64_t enough = (TC_PREROUND_MIN_REUSE * 8192 + 127) / 128;
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, enough, 1, &p), 1);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, enough - 1, 1, &p), 0);
    /* a short loop (K below TC_PREROUND_MIN_K): not by the rule, yes for tests */
    args_init(&x, 0x7f0000010000ull, 8192, TC_PREROUND_MIN_K - 32, TC_PREROUND_MIN_K);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX - 1, 1, &p), 0);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 1, &p), 1);
    args_init(&x, 0x7f0000010000ull, 8192, TC_PREROUND_MIN_K, TC_PREROUND_MIN_K);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX - 1, 1, &p), 1);
    args_init(&x, 0x7f0000010000ull, 8191, 8190, 8190);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 1, &p), 1);
    ck_assert_int_eq(p.round, 1);
    ck_assert_uint_eq(p.pitch, 32768);
    m.round = 0; /* the kernel reads the values as they are */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 1, &p), 0);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 1);
    ck_assert_int_eq(p.round, 0);
    m.round = 1;
    m.dtype = TC_TMAP_TF32; /* only f32 maps: the rounding is f32 -> tf32 */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 1, &p), 0);
}
END_TEST

/* Rows that overlap (a stride below the column count) cannot be copied
 * row by row; a misaligned base with an aligned stride is staged; strides
 * round up to 128 bytes of the element type; i64 strides as well. */
START_TEST(geometry_cases)
{
    Args x;
    TcStagePlan p;
    TcTmap m = a_map();
    args_init(&x, 0x7f0000010000ull, 300, 333, 301); /* 301: no map takes it as it is */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
    args_init(&x, 0x7f0000010000ull, 300, 333, 333); /* the same rows, not overlapping */
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 1);
    args_init(&x, 0x7f0000010004ull, 300, 333, 336);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 1);
    ck_assert_int_eq(p.stride, 352);
    ck_assert_uint_eq(p.pitch, 352 * 4);
    ck_assert_uint_eq(p.src_pitch, 336 * 4);
    ck_assert_uint_eq(p.width, 333 * 4);
    /* bf16: 64 elements in 128 bytes */
    m.dtype = TC_TMAP_BF16;
    m.base_param = P_H;
    m.box[0] = 64;
    args_init(&x, 0x7f0000010000ull, 300, 333, 335);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 1);
    ck_assert_int_eq(p.stride, 384);
    ck_assert_uint_eq(p.pitch, 768);
    ck_assert_uint_eq(p.width, 666);
    /* an i64 stride parameter */
    m = a_map();
    m.s0 = param(P_LDB);
    args_init(&x, 0x7f0000010000ull, 300, 333, 335);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 1);
    ck_assert_uint_eq(p.stride_param, P_LDB);
    ck_assert_int_eq(p.stride, 352);
}
END_TEST

/* f32 panels need a column count that is a multiple of 8: staging does
 * not change the columns, so it cannot help there. */
START_TEST(panels_need_columns)
{
    Args x;
    TcStagePlan p;
    TcTmap m = {.kind = TC_TMAP_PANELS, .dtype = TC_TMAP_F32, .box = {8, 32, 16}, .base_param = P_A,
                .d0 = param(P_M), .d1 = param(P_K), .s0 = param(P_LDA), .s1 = constant(1), .stage = 1,
                .walk = 0, .across = 128};
    args_init(&x, 0x7f0000010000ull, 300, 333, 335);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 0);
    args_init(&x, 0x7f0000010000ull, 300, 336, 337);
    ck_assert_int_eq(tc_stage_plan(&m, PARAMS, NPARAMS, x.args, UINT64_MAX, 0, &p), 1);
    ck_assert_int_eq(p.stride, 352);
}
END_TEST

/* The compiler's side: which views of a kernel may be staged. */
static const char *const GEMM =
    "kernel @mm(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32,\n"
    "           %lda: i32, %ldb: i32, %ldc: i32) warps(8) {\n"
    "  %pm = program_id 0\n"
    "  %pn = program_id 1\n"
    "  %m0 = mul %pm, 128\n"
    "  %n0 = mul %pn, 256\n"
    "  %va = view %A [%M, %K] strides [%lda, 1]\n"
    "  %vb = view %B [%K, %N] strides [%ldb, 1]\n"
    "  %vc = view %C [%M, %N] strides [%ldc, 1]\n"
    "  %z = zeros : tile<128x256xf32>\n"
    "  %acc = for %k = 0 to %K step 32 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<128x32xf32>\n"
    "    %b = load %vb[%k, %n0] : tile<32x256xf32>\n"
    "    %d = dot %a, %b, %c : tile<128x256xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  STORE\n"
    "}\n";

/* Compiles GEMM with STORE replaced (tf32-rna, else the precision
 * maps_precision names); the kernel's two maps. */
static TirPrecision maps_precision = PREC_TF32_RNA;
static int maps_round_b; /* -fwgmma-round-b */
static void maps_of(const char *store, TcTmap out[2])
{
    char src[2048];
    const char *at = strstr(GEMM, "STORE");
    snprintf(src, sizeof src, "%.*s%s%s", (int)(at - GEMM), GEMM, store, at + 5);
    TcOptions o;
    tc_options_default(&o);
    o.keep_llvm_ir = 0;
    o.precision = maps_precision;
    o.wgmma_round_b = maps_round_b;
    TcResult r;
    StrBuf log;
    sb_init(&log);
    int rc = tc_compile("mm.tir", src, strlen(src), &o, &r, &log);
    ck_assert_msg(rc == 0, "%s", log.data ? log.data : "");
    ck_assert_uint_eq(r.nkernels, 1);
    ck_assert_uint_eq(r.kernels[0].ntmaps, 2);
    memcpy(out, r.kernels[0].tmaps, 2 * sizeof *out);
    tc_result_free(&r);
    sb_free(&log);
}

/* A and B read through their views' loads alone, strides used once:
 * both may be staged; A's loop walks its columns with 128 rows a program,
 * B's its rows with 256 columns. */
START_TEST(compiler_allows)
{
    TcTmap t[2];
    maps_of("store %acc, %vc[%m0, %n0]", t);
    ck_assert_uint_eq(t[0].stage, 1);
    ck_assert_uint_eq(t[0].walk, 1);
    ck_assert_uint_eq(t[0].across, 128);
    ck_assert_uint_eq(t[1].stage, 1);
    ck_assert_uint_eq(t[1].walk, 0);
    ck_assert_uint_eq(t[1].across, 256);
    /* tf32-rna rounds both before the dot and nothing else reads them */
    ck_assert_uint_eq(t[0].round, 1);
    ck_assert_uint_eq(t[1].round, 1);
}
END_TEST

/* Only tf32-rna's maps take rounded views: rne's TMA copies round
 * themselves, trunc reads the values as they are (3xtf32 at this tile
 * takes no maps: the generic lowering); and not with -fwgmma-round-b,
 * whose rounding warpgroup rounds B too (no entry for rounded views). */
START_TEST(compiler_rounds_rna_only)
{
    static const TirPrecision others[] = {PREC_TF32_RNE, PREC_TF32_TRUNC};
    for (unsigned i = 0; i < sizeof others / sizeof others[0]; i++) {
        TcTmap t[2];
        maps_precision = others[i];
        maps_of("store %acc, %vc[%m0, %n0]", t);
        maps_precision = PREC_TF32_RNA;
        ck_assert_msg(t[0].round == 0 && t[1].round == 0 && t[0].stage == 1, "precision %u", (unsigned)others[i]);
    }
    TcTmap t[2];
    maps_round_b = 1;
    maps_of("store %acc, %vc[%m0, %n0]", t);
    maps_round_b = 0;
    ck_assert(t[0].round == 0 && t[1].round == 0 && t[0].stage == 1);
}
END_TEST

/* A view of A that is also stored to (writes would go to the copy), a
 * second view of B's pointer, and a row stride used elsewhere (C's) each
 * keep that view unstaged. */
START_TEST(compiler_refuses)
{
    TcTmap t[2];
    maps_of("store %acc, %va[%m0, %n0]", t);
    ck_assert_uint_eq(t[0].stage, 0);
    ck_assert_uint_eq(t[1].stage, 1);
    ck_assert_uint_eq(t[0].round, 0);
    ck_assert_uint_eq(t[1].round, 0); /* B could be, but the kernel takes rounded views only both at once */
    maps_of("%vb2 = view %B [%M, %N] strides [%ldc, 1]\n  store %acc, %vb2[%m0, %n0]", t);
    ck_assert_uint_eq(t[0].stage, 1);
    ck_assert_uint_eq(t[1].stage, 0);
    ck_assert_uint_eq(t[1].round, 0);
    /* A's view loaded again after the loop: those values must stay as they are */
    maps_of("%a2 = load %va[%m0, 0] : tile<128x32xf32>\n  store %acc, %vc[%m0, %n0]", t);
    ck_assert_uint_eq(t[0].stage, 1);
    ck_assert_uint_eq(t[0].round, 0);
    ck_assert_uint_eq(t[1].round, 0);
    maps_of("%vc2 = view %C [%M, %N] strides [%lda, 1]\n  store %acc, %vc2[%m0, %n0]", t);
    ck_assert_uint_eq(t[0].stage, 0);
    ck_assert_uint_eq(t[1].stage, 1);
}
END_TEST

/* A launch's plan (tc_stage_views_plan) for GEMM's kernel, compiled for
 * tf32-rna (its maps take rounded views) or tf32-rne. */
typedef struct {
    uint64_t A, B, C;
    int32_t M, N, K, lda, ldb, ldc;
    void *args[9];
} GemmArgs;

static void gemm_args(GemmArgs *g, int32_t M, int32_t N, int32_t K, int32_t lda, int32_t ldb)
{
    *g = (GemmArgs){.A = 0x7f0000100000ull, .B = 0x7f0040000000ull, .C = 0x7f0080000000ull, .M = M, .N = N,
                    .K = K, .lda = lda, .ldb = ldb, .ldc = N};
    void *p[9] = {&g->A, &g->B, &g->C, &g->M, &g->N, &g->K, &g->lda, &g->ldb, &g->ldc};
    memcpy(g->args, p, sizeof p);
}

/* GEMM's kernel compiled for prec (its maps take rounded views for
 * tf32-rna), tma_store: with -fwgmma-tma-only -fwgmma-tma-store (a third
 * map, C's, stored through; no copies or stores of its own); free with
 * tc_result_free. */
static int kernel_preround_b = 1; /* -fno-wgmma-preround-b where 0 */
static void gemm_kernel_with(TirPrecision prec, int tma_store, TcResult *r)
{
    char src[2048];
    const char *at = strstr(GEMM, "STORE");
    snprintf(src, sizeof src, "%.*s%s%s", (int)(at - GEMM), GEMM, "store %acc, %vc[%m0, %n0]", at + 5);
    TcOptions o;
    tc_options_default(&o);
    o.keep_llvm_ir = 0;
    o.precision = prec;
    o.wgmma_tma_only = o.wgmma_tma_store = tma_store;
    o.wgmma_preround_b = kernel_preround_b;
    StrBuf log;
    sb_init(&log);
    ck_assert_int_eq(tc_compile("mm.tir", src, strlen(src), &o, r, &log), 0);
    ck_assert_uint_eq(r->kernels[0].ntmaps, tma_store ? 3 : 2);
    ck_assert_int_eq(r->kernels[0].tma_required, tma_store);
    sb_free(&log);
}

static void gemm_kernel(TirPrecision prec, TcResult *r) { gemm_kernel_with(prec, 0, r); }

static unsigned plan_for(const TcResult *r, const GemmArgs *g, uint64_t programs, int round_mode, TcStagePlan *plans,
                         unsigned *map_of, int *round)
{
    TcStageCtx ctx = {.programs = programs, .round = round_mode};
    return tc_stage_views_plan(&r->kernels[0], g->args, &ctx, plans, map_of, round);
}

/* Aligned views: staged only to be rounded, both, by the rule (reuse and
 * K), or always; never for rne or with pre-rounding off. Odd strides:
 * staged rounded where the rule allows, else staged as they are, only the
 * maps that need it; nothing where one of them cannot be staged. */
START_TEST(launch_plans)
{
    GemmArgs g;
    TcStagePlan plans[TC_TMAP_MAX];
    unsigned map_of[TC_TMAP_MAX];
    int round;
    TcResult rna, rne;
    gemm_kernel(PREC_TF32_RNA, &rna);
    gemm_kernel(PREC_TF32_RNE, &rne);
    uint64_t grid8192 = 64 * 32; /* 128 x 256 tiles of 8192^3 */
    gemm_args(&g, 8192, 8192, 8192, 8192, 8192);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 2);
    ck_assert_int_eq(round, 1);
    ck_assert(plans[0].round && plans[1].round && map_of[0] == 0 && map_of[1] == 1);
    ck_assert_uint_eq(plans[0].base_param, 0);
    ck_assert_uint_eq(plans[1].base_param, 1);
    ck_assert_uint_eq(plans[1].stride_param, 7); /* %ldb */
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_OFF, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rne, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rna, &g, 16 * 8, TC_PREROUND_AUTO, plans, map_of, &round), 0); /* 2048^3's grid */
    ck_assert_uint_eq(plan_for(&rna, &g, 16 * 8, TC_PREROUND_ALWAYS, plans, map_of, &round), 2);
    ck_assert_int_eq(round, 1);
    gemm_args(&g, 4096, 4096, 64, 64, 4096); /* small K: not by the rule */
    ck_assert_uint_eq(plan_for(&rna, &g, 32 * 16, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rna, &g, UINT64_MAX, TC_PREROUND_AUTO, plans, map_of, &round), 2);
    /* odd K: A's rows are off 16 bytes */
    gemm_args(&g, 8192, 8192, 8190, 8190, 8192);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 2);
    ck_assert_int_eq(round, 1);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_OFF, plans, map_of, &round), 1);
    ck_assert_int_eq(round, 0);
    ck_assert(map_of[0] == 0 && !plans[0].round && plans[0].pitch == 32768);
    ck_assert_uint_eq(plan_for(&rne, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 1);
    ck_assert_int_eq(round, 0);
    /* A's rows off 16 bytes and overlapping (lda < K): A cannot be staged, so B (ldb odd) is not
     * either: the kernel copies both itself */
    gemm_args(&g, 8192, 8192, 8190, 8101, 8193);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rne, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    tc_result_free(&rna);
    tc_result_free(&rne);
}
END_TEST

/* -fno-wgmma-preround-b: only A's map may come rounded (B's fragments are
 * rounded in registers by both entries), so a pre-rounding launch copies A
 * rounded and B only where its map cannot describe it as it is (plain);
 * where A's copy is not by the rule, the plain plan as before; the rounded
 * bits the launch sets are A's alone. */
START_TEST(launch_plans_a_only)
{
    GemmArgs g;
    TcStagePlan plans[TC_TMAP_MAX];
    unsigned map_of[TC_TMAP_MAX];
    int round;
    TcResult rna;
    kernel_preround_b = 0;
    gemm_kernel_with(PREC_TF32_RNA, 1, &rna);
    kernel_preround_b = 1;
    const TcKernelInfo *k = &rna.kernels[0];
    ck_assert(k->rounded && k->tmaps[0].round && !k->tmaps[1].round && !k->tmaps[2].round);
    ck_assert_uint_eq(tc_tmaps_roundable(k), 1);
    uint64_t grid8192 = 64 * 32;
    gemm_args(&g, 8192, 8192, 8192, 8192, 8192);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 1);
    ck_assert(round == 1 && map_of[0] == 0 && plans[0].round);
    gemm_args(&g, 8192, 8188, 8192, 8192, 8190); /* B's rows off 16 bytes: B staged as it is */
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 2);
    ck_assert(round == 1 && map_of[0] == 0 && plans[0].round && map_of[1] == 1 && !plans[1].round);
    ck_assert_uint_eq(plans[1].pitch, 32768);
    /* A not by the rule (small K): B's plain copy alone */
    gemm_args(&g, 4096, 4096, 64, 64, 4090);
    g.N = 4088; /* (C's map encodes: N a multiple of 4 on 16-byte rows) */
    g.ldc = 4088;
    ck_assert_uint_eq(plan_for(&rna, &g, 32 * 16, TC_PREROUND_AUTO, plans, map_of, &round), 1);
    ck_assert(round == 0 && map_of[0] == 1 && !plans[0].round);
    /* B cannot be staged (its rows overlap): A is not rounded alone, nothing is staged */
    gemm_args(&g, 8192, 8192, 8192, 8192, 8101);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    tc_result_free(&rna);
}
END_TEST

/* A kernel with no stores of its own (-fwgmma-tma-only -fwgmma-tma-store)
 * cannot run where C's map cannot be encoded (the JIT then launches its
 * full kernel, which stages for itself): nothing is staged for it, rounded
 * or not. With C on 16 bytes it stages as the others do; C is never staged. */
START_TEST(launch_plans_store_map)
{
    GemmArgs g;
    TcStagePlan plans[TC_TMAP_MAX];
    unsigned map_of[TC_TMAP_MAX];
    int round;
    TcResult rna, rne;
    gemm_kernel_with(PREC_TF32_RNA, 1, &rna);
    gemm_kernel_with(PREC_TF32_RNE, 1, &rne);
    ck_assert(rna.kernels[0].tmaps[2].store && !rna.kernels[0].tmaps[0].store);
    uint64_t grid8192 = 64 * 32;
    gemm_args(&g, 8192, 8192, 8190, 8190, 8192); /* A's rows off 16 bytes, C's on */
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 2);
    ck_assert_int_eq(round, 1);
    ck_assert_uint_eq(plan_for(&rne, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 1);
    ck_assert(map_of[0] == 0 && round == 0);
    g.ldc = 8191; /* C's rows off 16 bytes: no map for C, so none of the copies */
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_ALWAYS, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rne, &g, UINT64_MAX, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    g.ldc = 8192;
    g.C += 4; /* C's base off 16 bytes: the same */
    ck_assert_uint_eq(plan_for(&rne, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    g.C -= 4;
    g.N = 8190; /* C's rows on 16 bytes but 8190 floats long: a store would write past them, no map */
    ck_assert_uint_eq(plan_for(&rna, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    ck_assert_uint_eq(plan_for(&rne, &g, grid8192, TC_PREROUND_AUTO, plans, map_of, &round), 0);
    tc_result_free(&rna);
    tc_result_free(&rne);
}
END_TEST

/* The copy kernels' PTX passes ptxas (the toolkit's, where installed) for
 * sm_80 and sm_90, and names both entries. */
START_TEST(copy_kernels_assemble)
{
    ck_assert_ptr_nonnull(strstr(tc_stage_ptx, ".entry tilec_stage_b32("));
    ck_assert_ptr_nonnull(strstr(tc_stage_ptx, ".entry tilec_stage_b32_rna("));
    /* the rounding copy keeps NaNs that cvt.rna.tf32.f32 alone turns into Inf, for each of its 4
     * elements (gpu/test_preround checks what it computes) */
    unsigned nan_kept = 0;
    for (const char *q = tc_stage_ptx; (q = strstr(q, "setp.nan.f32")) != NULL; q++)
        nan_kept++;
    ck_assert_uint_eq(nan_kept, 4);
    ck_assert_ptr_nonnull(strstr(tc_stage_ptx, ".entry tilec_stage_b16("));
    const char *ptxas = ptxas_path();
    if (!ptxas) {
        printf("copy_kernels_assemble: no ptxas here, PTX not assembled\n");
        return;
    }
    for (int cc = 80; cc <= 90; cc += 10) {
        void *cubin = NULL;
        size_t n = 0;
        StrBuf log;
        sb_init(&log);
        tilecResult r = ptxas_compile(ptxas, tc_stage_ptx, strlen(tc_stage_ptx), cc / 10, cc % 10, &cubin, &n, &log);
        ck_assert_msg(r == TILEC_SUCCESS && n > 0, "ptxas sm_%d: %s", cc, log.data ? log.data : "");
        free(cubin);
        sb_free(&log);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("stage");
    TCase *p = tcase_create("plan");
    tcase_add_test(p, odd_stride_staged);
    tcase_add_test(p, not_needed_or_not_allowed);
    tcase_add_test(p, reuse_threshold);
    tcase_add_test(p, preround_plan);
    tcase_add_test(p, geometry_cases);
    tcase_add_test(p, panels_need_columns);
    tcase_add_test(p, copy_kernels_assemble);
    suite_add_tcase(s, p);
    TCase *c = tcase_create("compiler");
    tcase_add_test(c, compiler_allows);
    tcase_add_test(c, compiler_refuses);
    tcase_add_test(c, compiler_rounds_rna_only);
    tcase_add_test(c, launch_plans);
    tcase_add_test(c, launch_plans_store_map);
    tcase_add_test(c, launch_plans_a_only);
    tcase_set_timeout(c, 120); /* compiles GEMM kernels: slow under sanitizers */
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
