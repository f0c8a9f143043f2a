/*
 * TMA tensor maps in hidden kernel parameters (runtime/tmap.c): which
 * launches get an encoded map and with what geometry, and the parameter
 * array tilecLaunch hands the driver.
 *
 * The geometry tests need no driver. The parameter array is checked with
 * whatever driver the machine has: without cuTensorMapEncodeTiled every
 * map must come back zero with its flag clear; with it (and device 0's
 * context current, which the driver needs to encode), the encodable maps
 * are encoded and a map the driver refuses fails the launch.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cuda_api.h"
#include "runtime/tmap.h"

/* A GEMM-like kernel: (%A: ptr<f32>, %M: i32, %K: i32, %lda: i64, %N: i64). */
enum { P_A, P_M, P_K, P_LDA, P_N, NPARAMS };
static const TirType PARAMS[NPARAMS] = {
    [P_A] = {.kind = TY_PTR, .elem = ELEM_F32},
    [P_M] = {.kind = TY_SCALAR, .elem = ELEM_I32},
    [P_K] = {.kind = TY_SCALAR, .elem = ELEM_I32},
    [P_LDA] = {.kind = TY_SCALAR, .elem = ELEM_I64},
    [P_N] = {.kind = TY_SCALAR, .elem = ELEM_I64},
};

/* Argument values, each in a buffer of 8 bytes as a launch would have. */
typedef struct {
    uint64_t a;
    int32_t m, k;
    int64_t lda, n;
    void *args[NPARAMS];
} Args;

static void args_init(Args *x, uint64_t a, int32_t m, int32_t k, int64_t lda, int64_t n)
{
    x->a = a, x->m = m, x->k = k, x->lda = lda, x->n = n;
    x->args[P_A] = &x->a;
    x->args[P_M] = &x->m;
    x->args[P_K] = &x->k;
    x->args[P_LDA] = &x->lda;
    x->args[P_N] = &x->n;
}

static TcTmapScalar param(int p) { return (TcTmapScalar){.param = p, .value = 0}; }
static TcTmapScalar constant(int64_t v) { return (TcTmapScalar){.param = -1, .value = v}; }

/* A's map: M rows of K columns, row stride lda, boxes of 64 rows x 32 columns. */
static TcTmap rows_map(void)
{
    return (TcTmap){.kind = TC_TMAP_ROWS, .dtype = TC_TMAP_TF32, .box = {32, 64, 0}, .base_param = P_A,
                    .d0 = param(P_M), .d1 = param(P_K), .s0 = param(P_LDA), .s1 = constant(1)};
}

/* B's map: K rows of N columns in panels of 8, boxes of 8 x 32 x 16. */
static TcTmap panels_map(void)
{
    return (TcTmap){.kind = TC_TMAP_PANELS, .dtype = TC_TMAP_F32, .box = {0, 32, 16}, .base_param = P_A,
                    .d0 = param(P_K), .d1 = param(P_N), .s0 = param(P_LDA), .s1 = constant(1)};
}

static int encodable(const TcTmap *m, const Args *x)
{
    TcTmapGeometry g;
    return tc_tmap_geometry(m, PARAMS, NPARAMS, x->args, &g);
}

START_TEST(rows_geometry)
{
    Args x;
    args_init(&x, 0x7f0000010000ull, 100, 200, 204, 0);
    TcTmap m = rows_map();
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.rank, 2);
    ck_assert_int_eq(g.dtype, TC_TMAP_TF32);
    ck_assert_int_eq(g.swizzle128, 1);
    ck_assert_uint_eq(g.base, 0x7f0000010000ull);
    ck_assert_uint_eq(g.dims[0], 200); /* innermost: the columns */
    ck_assert_uint_eq(g.dims[1], 100);
    ck_assert_uint_eq(g.byte_strides[0], 816);
    ck_assert_uint_eq(g.box[0], 32);
    ck_assert_uint_eq(g.box[1], 64);
    m.dtype = TC_TMAP_F32;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_int_eq(g.dtype, TC_TMAP_F32);
}
END_TEST

/* A map stored through (C's, -fwgmma-tma-store): a TMA store writes whole
 * 16-byte chunks of a row, so rows that end inside one (K not a multiple
 * of 4 floats, however the row stride is aligned) get no map; a map read
 * from does. */
START_TEST(store_rows_whole_chunks)
{
    Args x;
    TcTmap m = rows_map();
    m.dtype = TC_TMAP_F32;
    m.store = 1;
    args_init(&x, 0x7f0000010000ull, 100, 200, 204, 0);
    ck_assert_int_eq(encodable(&m, &x), 1);
    for (int32_t k = 197; k < 200; k++) {
        args_init(&x, 0x7f0000010000ull, 100, k, 204, 0);
        ck_assert_msg(!encodable(&m, &x), "K %d", k);
        m.store = 0;
        ck_assert_msg(encodable(&m, &x), "K %d read", k);
        m.store = 1;
    }
}
END_TEST

START_TEST(panels_geometry)
{
    Args x;
    args_init(&x, 0x10000, 0, 256, 140, 136);
    TcTmap m = panels_map();
    m.d1 = param(P_N);
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.rank, 3);
    ck_assert_int_eq(g.dtype, TC_TMAP_F32);
    ck_assert_int_eq(g.swizzle128, 0);
    ck_assert_uint_eq(g.base, 0x10000);
    ck_assert_uint_eq(g.dims[0], 8);
    ck_assert_uint_eq(g.dims[1], 256);
    ck_assert_uint_eq(g.dims[2], 17);
    ck_assert_uint_eq(g.byte_strides[0], 560);
    ck_assert_uint_eq(g.byte_strides[1], 32);
    ck_assert_uint_eq(g.box[0], 8); /* whatever box[0] says */
    ck_assert_uint_eq(g.box[1], 32);
    ck_assert_uint_eq(g.box[2], 16);

    StrBuf s;
    sb_init(&s);
    tc_tmap_geometry_str(&g, &s);
    ck_assert_str_eq(s.data, "rank 3, dims {8, 256, 17}, byte strides {560, 32}, box {8, 32, 16}, f32, "
                             "no swizzle, base 0x10000");
    sb_free(&s);
}
END_TEST

START_TEST(base_alignment)
{
    TcTmap m = rows_map();
    Args x;
    static const struct {
        uint64_t base;
        int ok;
    } cases[] = {{0, 0}, {0x10004, 0}, {0x10008, 0}, {0x1000c, 0}, {0x10001, 0}, {0x10010, 1}, {16, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        args_init(&x, cases[i].base, 64, 64, 64, 0);
        ck_assert_msg(encodable(&m, &x) == cases[i].ok, "base 0x%llx", (unsigned long long)cases[i].base);
    }
}
END_TEST

START_TEST(row_stride)
{
    TcTmap m = rows_map();
    Args x;
    static const struct {
        int64_t lda;
        int ok;
    } cases[] = {
        {64, 1}, {4, 1}, {68, 1},                       /* multiples of 16 bytes */
        {63, 0}, {66, 0}, {65, 0}, {2, 0}, {1, 0},      /* 4 elements is 16 bytes */
        {0, 0}, {-64, 0}, {INT64_MIN, 0},               /* not positive */
        {((int64_t)1 << 38) - 4, 1},                    /* 4 * s0 just below 2^40 */
        {(int64_t)1 << 38, 0}, {INT64_MAX - 3, 0},      /* 2^40 bytes and beyond */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        args_init(&x, 0x10000, 64, 64, cases[i].lda, 0);
        ck_assert_msg(encodable(&m, &x) == cases[i].ok, "lda %lld", (long long)cases[i].lda);
    }
    /* the same rules for panels */
    TcTmap p = panels_map();
    args_init(&x, 0x10000, 0, 64, 66, 64);
    ck_assert_int_eq(encodable(&p, &x), 0);
    x.lda = 72;
    ck_assert_int_eq(encodable(&p, &x), 1);
}
END_TEST

START_TEST(panel_columns)
{
    TcTmap p = panels_map(), r = rows_map();
    r.d1 = param(P_N); /* the same view as rows */
    r.d0 = param(P_K);
    Args x;
    for (int64_t n = 1; n <= 40; n++) {
        args_init(&x, 0x10000, 0, 64, 64, n);
        ck_assert_msg(encodable(&p, &x) == (n % 8 == 0), "panels, N = %lld", (long long)n);
        ck_assert_msg(encodable(&r, &x) == 1, "rows, N = %lld", (long long)n);
    }
}
END_TEST

START_TEST(extents)
{
    TcTmap m = rows_map();
    Args x;
    args_init(&x, 0x10000, 64, 64, 64, 0);
    ck_assert_int_eq(encodable(&m, &x), 1);
    x.m = 0;
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.m = -5;
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.m = 1;
    ck_assert_int_eq(encodable(&m, &x), 1);
    x.k = 0;
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.k = INT32_MIN;
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.k = INT32_MAX;
    ck_assert_int_eq(encodable(&m, &x), 1);

    /* i64 extents: up to INT32_MAX */
    m.d1 = param(P_N);
    x.n = INT32_MAX;
    ck_assert_int_eq(encodable(&m, &x), 1);
    x.n = (int64_t)INT32_MAX + 1;
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.n = (int64_t)1 << 32; /* its low 32 bits are 0: read as 64 bits, it is too large */
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.n = ((int64_t)1 << 32) + 64; /* low 32 bits 64, but as a whole too large */
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.n = -1;
    ck_assert_int_eq(encodable(&m, &x), 0);
}
END_TEST

/* An i32 parameter is read as 4 bytes and sign-extended; an i64 as 8. */
START_TEST(param_widths)
{
    TcTmap m = rows_map();
    Args x;
    args_init(&x, 0x10000, 64, 64, 64, 0);
    /* an i32 in a buffer whose next bytes hold garbage: only 4 are read */
    union {
        int32_t v[2];
        int64_t whole;
    } k = {.v = {96, 0x7fffffff}};
    x.args[P_K] = &k;
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.dims[0], 96);
    /* an i32 row stride of -4 is negative (zero-extended it would be a
     * valid 4294967292) */
    static const TirType p32[NPARAMS] = {
        [P_A] = {.kind = TY_PTR, .elem = ELEM_F32}, [P_M] = {.kind = TY_SCALAR, .elem = ELEM_I32},
        [P_K] = {.kind = TY_SCALAR, .elem = ELEM_I32}, [P_LDA] = {.kind = TY_SCALAR, .elem = ELEM_I32},
        [P_N] = {.kind = TY_SCALAR, .elem = ELEM_I64}};
    int32_t lda32 = -4;
    x.args[P_LDA] = &lda32;
    ck_assert_int_eq(tc_tmap_geometry(&m, p32, NPARAMS, x.args, &g), 0);
    lda32 = 100;
    ck_assert_int_eq(tc_tmap_geometry(&m, p32, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.byte_strides[0], 400);
    /* the same bytes as an i64 */
    int64_t lda64 = 100;
    x.args[P_LDA] = &lda64;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.byte_strides[0], 400);
    lda64 = ((int64_t)1 << 36) + 100; /* the high half counts */
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.byte_strides[0], 4 * (((uint64_t)1 << 36) + 100));
}
END_TEST

START_TEST(constants)
{
    TcTmap m = {.kind = TC_TMAP_PANELS, .box = {8, 64, 4}, .base_param = P_A,
                .d0 = constant(512), .d1 = constant(1024), .s0 = constant(1028), .s1 = constant(1)};
    Args x;
    args_init(&x, 0x20000, -1, -1, -1, -1); /* the scalar arguments are not read */
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.dims[0], 8);
    ck_assert_uint_eq(g.dims[1], 512);
    ck_assert_uint_eq(g.dims[2], 128);
    ck_assert_uint_eq(g.byte_strides[0], 4112);
    ck_assert_uint_eq(g.box[1], 64);
    ck_assert_uint_eq(g.box[2], 4);
    /* constants are checked like arguments */
    m.s0 = constant(1027);
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 0);
    m.s0 = constant(1028);
    m.d1 = constant(1020);
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 0);
    m.d1 = constant(0);
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 0);
    /* mixed: a constant extent, a parameter's stride */
    m.d1 = constant(64);
    m.s0 = param(P_LDA);
    x.lda = 80;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.byte_strides[0], 320);
    ck_assert_uint_eq(g.dims[2], 8);
}
END_TEST

/* Maps that do not fit their kernel's parameters are never encoded. */
START_TEST(bad_maps)
{
    Args x;
    args_init(&x, 0x10000, 64, 64, 64, 64);
    TcTmap m = rows_map();
    ck_assert_int_eq(encodable(&m, &x), 1);
    m.base_param = NPARAMS; /* no such parameter */
    ck_assert_int_eq(encodable(&m, &x), 0);
    m.base_param = P_M; /* not a pointer */
    ck_assert_int_eq(encodable(&m, &x), 0);
    m = rows_map();
    m.d0 = param(NPARAMS);
    ck_assert_int_eq(encodable(&m, &x), 0);
    m.d0 = param(P_A); /* a pointer as an extent */
    ck_assert_int_eq(encodable(&m, &x), 0);
    m = rows_map();
    m.kind = TC_TMAP_PANELS + 1;
    ck_assert_int_eq(encodable(&m, &x), 0);
    /* a pointer to another element type */
    TirType p16[NPARAMS];
    memcpy(p16, PARAMS, sizeof p16);
    p16[P_A].elem = ELEM_F16;
    m = rows_map();
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, p16, NPARAMS, x.args, &g), 0);
    /* an f32 scalar as a stride */
    TirType pf[NPARAMS];
    memcpy(pf, PARAMS, sizeof pf);
    pf[P_LDA].elem = ELEM_F32;
    ck_assert_int_eq(tc_tmap_geometry(&m, pf, NPARAMS, x.args, &g), 0);
}
END_TEST

/* Device 0's context around the launch tests, where there is a driver. */
static CuDevice dev;
static int have_context;

static void enter_context(void)
{
    have_context = 0;
    if (!cu_tensor_map_available())
        return;
    StrBuf log;
    sb_init(&log);
    ck_assert_msg(cu_device_open(0, &dev, &log) == TILEC_SUCCESS && cu_ctx_enter(&dev, &log) == TILEC_SUCCESS,
                  "a driver with tensor maps but no context on device 0: %s", log.data ? log.data : "");
    have_context = 1;
    sb_free(&log);
}

static void leave_context(void)
{
    if (!have_context)
        return;
    cu_ctx_leave();
    cu_device_close(&dev);
}

/* The parameter array: the caller's pointers, then the maps, then the flags. */
static void check_layout(const TcTmapArgs *a, const Args *x, unsigned ntmaps)
{
    for (unsigned i = 0; i < NPARAMS; i++)
        ck_assert_ptr_eq(a->args[i], x->args[i]);
    for (unsigned i = 0; i < ntmaps; i++) {
        ck_assert_ptr_eq(a->args[NPARAMS + i], a->maps + i * TC_TMAP_BYTES);
        ck_assert_uint_eq((uintptr_t)a->args[NPARAMS + i] % 64, 0);
    }
    ck_assert_ptr_eq(a->args[NPARAMS + ntmaps], &a->flags);
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* f16 / bf16 maps: 2-byte elements, so a row stride of a multiple of 8
 * elements; the base must point to that type; panels are f32 only. */
START_TEST(half_types)
{
    TirType p16[NPARAMS];
    memcpy(p16, PARAMS, sizeof p16);
    Args x;
    args_init(&x, 0x10000, 100, 200, 72, 64);
    TcTmap m = rows_map();
    m.box[0] = 64; /* 128 bytes of f16 */
    static const struct {
        uint8_t dtype;
        TirElem elem;
    } types[] = {{TC_TMAP_F16, ELEM_F16}, {TC_TMAP_BF16, ELEM_BF16}};
    for (size_t t = 0; t < 2; t++) {
        m.dtype = types[t].dtype;
        p16[P_A].elem = types[t].elem;
        TcTmapGeometry g;
        x.lda = 72;
        ck_assert_int_eq(tc_tmap_geometry(&m, p16, NPARAMS, x.args, &g), 1);
        ck_assert_int_eq(g.dtype, types[t].dtype);
        ck_assert_uint_eq(g.byte_strides[0], 144);
        ck_assert_uint_eq(g.dims[0], 200);
        ck_assert_uint_eq(g.box[0], 64);
        x.lda = 68; /* 136 bytes: 4 f32 would do, 4 f16 do not */
        ck_assert_int_eq(tc_tmap_geometry(&m, p16, NPARAMS, x.args, &g), 0);
        x.lda = 8;
        ck_assert_int_eq(tc_tmap_geometry(&m, p16, NPARAMS, x.args, &g), 1);
        ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 0); /* ptr<f32> */
        TcTmap p = panels_map();
        p.dtype = types[t].dtype;
        ck_assert_int_eq(tc_tmap_geometry(&p, p16, NPARAMS, x.args, &g), 0);
    }
    m.dtype = TC_TMAP_BF16 + 1; /* no such type */
    ck_assert_int_eq(tc_tmap_geometry(&m, p16, NPARAMS, x.args, &(TcTmapGeometry){0}), 0);
}
END_TEST

/* Only a unit column stride is encoded (a parameter, read at launch). */
START_TEST(column_stride)
{
    Args x;
    args_init(&x, 0x10000, 100, 200, 256, 64);
    TcTmap m = rows_map();
    m.s1 = param(P_N); /* 64 */
    ck_assert_int_eq(encodable(&m, &x), 0);
    x.n = 1;
    ck_assert_int_eq(encodable(&m, &x), 1);
}
END_TEST

/* A batched view: the batch one more, outermost dimension, box 1; its
 * stride must be 16-byte aligned unless there is a single batch. */
START_TEST(batched)
{
    Args x;
    args_init(&x, 0x10000, 100, 200, 256, 64);
    TcTmap m = panels_map(); /* 3 batches of 256 x 300 elements */
    m.batched = 1;
    m.db = constant(3);
    m.sb = constant(256 * 300);
    TcTmapGeometry g;
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.rank, 4);
    ck_assert_uint_eq(g.dims[3], 3);
    ck_assert_uint_eq(g.byte_strides[2], 4 * 256 * 300);
    ck_assert_uint_eq(g.box[3], 1);
    ck_assert_uint_eq(g.dims[2], 8);
    m.sb = constant(256 * 300 + 1); /* a misaligned batch stride */
    ck_assert_int_eq(encodable(&m, &x), 0);
    m.db = constant(1); /* ... unused for one batch */
    ck_assert_int_eq(tc_tmap_geometry(&m, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.byte_strides[2] % 16, 0);
    m.db = constant(0); /* no batch at all */
    ck_assert_int_eq(encodable(&m, &x), 0);
    TcTmap r = rows_map();
    r.batched = 1;
    r.db = constant(2);
    r.sb = param(P_LDA); /* 256 */
    ck_assert_int_eq(tc_tmap_geometry(&r, PARAMS, NPARAMS, x.args, &g), 1);
    ck_assert_uint_eq(g.rank, 3);
    ck_assert_uint_eq(g.dims[2], 2);
    ck_assert_uint_eq(g.byte_strides[1], 1024);
}
END_TEST

START_TEST(launch_args)
{
    TcTmap maps[3] = {rows_map(), panels_map(), rows_map()};
    TcKernelInfo k = {.name = "gemm", .threads = 384, .nparams = NPARAMS, .params = (TirType *)PARAMS,
                      .ntmaps = 3, .tmaps = maps};
    Args x;
    /* maps 0 and 2 encodable; map 1 not (N = 100 is no multiple of 8) */
    args_init(&x, 0x10000, 64, 64, 64, 100);
    StrBuf log;
    sb_init(&log);
    TcTmapArgs a;
    ck_assert_int_eq(tc_tmap_args_build(&a, &k, x.args, NULL, &log), TILEC_SUCCESS);
    check_layout(&a, &x, 3);
    ck_assert(all_zero(a.maps + TC_TMAP_BYTES, TC_TMAP_BYTES));
    if (have_context) {
        ck_assert_uint_eq(a.flags, 5);
        ck_assert(!all_zero(a.maps, TC_TMAP_BYTES));
        ck_assert(!all_zero(a.maps + 2 * TC_TMAP_BYTES, TC_TMAP_BYTES));
    } else { /* no driver here: the kernel's own copies */
        ck_assert_uint_eq(a.flags, 0);
        ck_assert(all_zero(a.maps, 3 * TC_TMAP_BYTES));
    }
    ck_assert_uint_eq(log.len, 0);
    tc_tmap_args_free(&a);
    ck_assert_ptr_null(a.args);
    ck_assert_ptr_null(a.maps);

    /* all three encodable */
    x.n = 128;
    ck_assert_int_eq(tc_tmap_args_build(&a, &k, x.args, NULL, &log), TILEC_SUCCESS);
    check_layout(&a, &x, 3);
    ck_assert_uint_eq(a.flags, have_context ? 7u : 0u);
    tc_tmap_args_free(&a);

    /* none: a misaligned base */
    x.a = 0x10004;
    ck_assert_int_eq(tc_tmap_args_build(&a, &k, x.args, NULL, &log), TILEC_SUCCESS);
    ck_assert_uint_eq(a.flags, 0);
    ck_assert(all_zero(a.maps, 3 * TC_TMAP_BYTES));
    tc_tmap_args_free(&a);
    sb_free(&log);
}
END_TEST

/* More maps than the flags word covers: passed, all zero. */
START_TEST(too_many_maps)
{
    TcTmap maps[TC_TMAP_MAX + 1];
    for (unsigned i = 0; i < TC_TMAP_MAX + 1; i++)
        maps[i] = rows_map();
    TcKernelInfo k = {.name = "many", .nparams = NPARAMS, .params = (TirType *)PARAMS, .ntmaps = TC_TMAP_MAX + 1,
                      .tmaps = maps};
    Args x;
    args_init(&x, 0x10000, 64, 64, 64, 64);
    StrBuf log;
    sb_init(&log);
    TcTmapArgs a;
    ck_assert_int_eq(tc_tmap_args_build(&a, &k, x.args, NULL, &log), TILEC_SUCCESS);
    check_layout(&a, &x, TC_TMAP_MAX + 1);
    ck_assert_uint_eq(a.flags, 0);
    ck_assert(all_zero(a.maps, (TC_TMAP_MAX + 1) * TC_TMAP_BYTES));
    tc_tmap_args_free(&a);
    sb_free(&log);
}
END_TEST

/* A map that passes the checks but that the driver refuses (a box wider
 * than the 128-byte swizzle span) fails the launch, saying which. */
START_TEST(driver_refuses)
{
    if (!have_context)
        return; /* nothing to refuse it here */
    TcTmap maps[2] = {rows_map(), rows_map()};
    maps[1].box[0] = 64; /* 256 bytes per box row: more than the swizzle span */
    TcKernelInfo k = {.name = "gemm", .nparams = NPARAMS, .params = (TirType *)PARAMS, .ntmaps = 2, .tmaps = maps};
    Args x;
    args_init(&x, 0x10000, 64, 64, 64, 64);
    StrBuf log;
    sb_init(&log);
    TcTmapArgs a;
    ck_assert_int_eq(tc_tmap_args_build(&a, &k, x.args, NULL, &log), TILEC_ERROR_CUDA);
    ck_assert_ptr_null(a.args);
    ck_assert_ptr_null(a.maps);
    ck_assert_msg(log.data && strstr(log.data, "cuTensorMapEncodeTiled: CUDA_ERROR") &&
                      strstr(log.data, "@gemm") && strstr(log.data, "tensor map 1 of 2") &&
                      strstr(log.data, "dims {64, 64}, byte strides {256}, box {64, 64}"),
                  "log: %s", log.data ? log.data : "");
    sb_free(&log);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("tmap");
    TCase *g = tcase_create("geometry");
    tcase_add_test(g, rows_geometry);
    tcase_add_test(g, store_rows_whole_chunks);
    tcase_add_test(g, panels_geometry);
    tcase_add_test(g, base_alignment);
    tcase_add_test(g, row_stride);
    tcase_add_test(g, panel_columns);
    tcase_add_test(g, extents);
    tcase_add_test(g, param_widths);
    tcase_add_test(g, constants);
    tcase_add_test(g, bad_maps);
    tcase_add_test(g, column_stride);
    tcase_add_test(g, batched);
    tcase_add_test(g, half_types);
    suite_add_tcase(s, g);
    TCase *l = tcase_create("launch");
    tcase_add_checked_fixture(l, enter_context, leave_context);
    tcase_add_test(l, launch_args);
    tcase_add_test(l, too_many_maps);
    tcase_add_test(l, driver_refuses);
    suite_add_tcase(s, l);
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
