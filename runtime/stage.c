/*
 * Staging views whose rows TMA cannot describe (see stage.h).
 *
 * Needs: tc_tmap_geometry (tmap.h) for what the TMA unit takes; the driver
 * wrapper for the copy only (its kernels: tc_stage_ptx, loaded by the
 * runtime).
 * Guarantees: a plan only for a map whose geometry fails as the launch
 * gives it (or, pre-rounding, a map the kernel lets be rounded) and passes
 * with the copy's base and stride; the copy holds the view's rows (rounded
 * as the kernel would round them), nothing else of the buffer is read.
 */
#include "runtime/stage.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_api.h"
#include "runtime/tmap.h"

/* The copy's rows start on 128 bytes, not just the 16 the TMA unit needs:
 * a box's rows (128 bytes of B's panels) then each fill one cache line.
 * With 16 (an 8192 x 8193 f32 B at 32784-byte rows) the tf32-rne GEMM's
 * kernel read 9.0 GB from DRAM instead of 5.0 and took 4.43 ms instead of
 * 3.27 (ncu, bench/NOTES.md v13). */
#define ROW_ALIGN 128u

/* An i32 / i64 parameter's value, sign-extended. */
static int param_value(const TirType *params, unsigned nparams, void *const *args, int32_t param, int64_t *v)
{
    if (param < 0 || (unsigned)param >= nparams || params[param].kind != TY_SCALAR)
        return 0;
    if (params[param].elem == ELEM_I32) {
        int32_t x;
        memcpy(&x, args[param], sizeof x);
        *v = x;
        return 1;
    }
    if (params[param].elem == ELEM_I64) {
        memcpy(v, args[param], sizeof *v);
        return 1;
    }
    return 0;
}

/* A scalar of the map: its constant or its parameter's value. */
static int scalar(const TcTmapScalar *s, const TirType *params, unsigned nparams, void *const *args, int64_t *v)
{
    if (s->param < 0) {
        *v = s->value;
        return 1;
    }
    return param_value(params, nparams, args, s->param, v);
}

/* Whether the map's geometry passes with base and stride in place of the
 * launch's: what the TMA unit would take once the view is staged. */
static int geometry_with(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args, uint64_t base,
                         int64_t stride)
{
    void **a = malloc((nparams ? nparams : 1) * sizeof *a);
    if (!a)
        return 0;
    memcpy(a, args, nparams * sizeof *a);
    int32_t s32 = (int32_t)stride;
    a[m->base_param] = &base;
    a[m->s0.param] = params[m->s0.param].elem == ELEM_I32 ? (void *)&s32 : (void *)&stride;
    TcTmapGeometry g;
    int ok = tc_tmap_geometry(m, params, nparams, a, &g);
    free(a);
    return ok;
}

int tc_stage_plan(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args, uint64_t programs,
                  int round, TcStagePlan *p)
{
    memset(p, 0, sizeof *p);
    if (!m->stage || (round && (!m->round || m->dtype != TC_TMAP_F32)) || m->batched || m->base_param >= nparams ||
        params[m->base_param].kind != TY_PTR || m->s0.param < 0 || (unsigned)m->s0.param >= nparams || (int32_t)m->base_param == m->s0.param ||
        m->across == 0)
        return 0;
    int64_t d0, d1, s0, s1;
    uint64_t base;
    memcpy(&base, args[m->base_param], sizeof base);
    if (!scalar(&m->d0, params, nparams, args, &d0) || !scalar(&m->d1, params, nparams, args, &d1) ||
        !param_value(params, nparams, args, m->s0.param, &s0) || !scalar(&m->s1, params, nparams, args, &s1))
        return 0;
    unsigned esize = tc_tmap_esize(m->dtype);
    if (base == 0 || s1 != 1 || d0 < 1 || d1 < 1 || d0 > INT32_MAX || d1 > INT32_MAX || s0 < d1)
        return 0;
    /* worth it: programs x across >= MIN_REUSE x the extent across the loop */
    uint64_t other = (uint64_t)(m->walk ? d0 : d1), reuse = round ? TC_PREROUND_MIN_REUSE : TC_STAGE_MIN_REUSE;
    if (programs < (reuse * other + m->across - 1) / m->across)
        return 0;
    if (round && programs != UINT64_MAX && (m->walk ? d1 : d0) < TC_PREROUND_MIN_K)
        return 0;
    TcTmapGeometry g;
    if (!round && tc_tmap_geometry(m, params, nparams, args, &g)) /* encodable as it is */
        return 0;
    int64_t per = ROW_ALIGN / esize, stride = (d1 + per - 1) / per * per;
    if (params[m->s0.param].elem == ELEM_I32 && stride > INT32_MAX)
        return 0;
    if ((uint64_t)d0 > SIZE_MAX / ((uint64_t)stride * esize))
        return 0;
    if (!geometry_with(m, params, nparams, args, 256, stride))
        return 0;
    p->src = base;
    p->src_pitch = (size_t)s0 * esize;
    p->width = (size_t)d1 * esize;
    p->rows = (size_t)d0;
    p->pitch = (size_t)stride * esize;
    p->stride = stride;
    p->esize = esize;
    p->round = round;
    p->base_param = m->base_param;
    p->stride_param = (unsigned)m->s0.param;
    return 1;
}

/* The copy, one kernel per element size: thread t of a row writes its
 * 16-byte chunk t of the copy's row (zeros past the view's columns) from
 * the view's elements read one by one (they start on any element), rows
 * ctaid.y, ctaid.y + nctaid.y, ... Hand-written because the library call
 * that fits (cuMemcpy2DAsync) copies an 8191 x 8190 f32 view at 1.67 TB/s
 * (reads and writes) on the H200, this at 4.16 (3.58 for 2-byte elements),
 * byte-identical (bench/NOTES.md v13); PTX for sm_80, JIT-compiled once
 * per runtime. */
/* The 4-byte copy, thread t of a row writes 16 bytes; ROUND stores
 * %r6..%r9 (the plain copy) or their tf32 roundings as the kernel's own
 * rounding makes them (compiler/lower_ewise.c, round_tf32): cvt.rna.tf32.f32
 * (the low 13 bits to 0, DESIGN.md 4), and a NaN whose payload lay in those
 * bits, which cvt turns into Inf, kept a NaN by its quiet bit (a review
 * found 16382 such inputs); zeros past the view's columns stay zeros. */
#define STAGE_B32(NAME, ROUND) \
    ".visible .entry " NAME "(.param .u64 p_dst, .param .u64 p_dpitch, .param .u64 p_src, .param .u64 p_spitch,\n" \
    "                                .param .u64 p_cols, .param .u64 p_rows)\n" \
    "{\n" \
    "    .reg .pred %p<8>;\n" \
    "    .reg .b32 %r<16>;\n" \
    "    .reg .b64 %rd<24>;\n" \
    "    ld.param.u64 %rd1, [p_dst];\n" \
    "    ld.param.u64 %rd2, [p_dpitch];\n" \
    "    ld.param.u64 %rd3, [p_src];\n" \
    "    ld.param.u64 %rd4, [p_spitch];\n" \
    "    ld.param.u64 %rd5, [p_cols];\n" \
    "    ld.param.u64 %rd6, [p_rows];\n" \
    "    mov.u32 %r1, %ctaid.x;\n" \
    "    mov.u32 %r2, %ntid.x;\n" \
    "    mov.u32 %r3, %tid.x;\n" \
    "    mul.wide.u32 %rd7, %r1, %r2;\n" \
    "    cvt.u64.u32 %rd8, %r3;\n" \
    "    add.u64 %rd7, %rd7, %rd8;\n" \
    "    shl.b64 %rd9, %rd7, 2;\n" \
    "    setp.ge.u64 %p1, %rd9, %rd5;\n" \
    "    @%p1 bra DONE;\n" \
    "    mov.u32 %r4, %ctaid.y;\n" \
    "    cvt.u64.u32 %rd10, %r4;\n" \
    "    mov.u32 %r5, %nctaid.y;\n" \
    "    cvt.u64.u32 %rd11, %r5;\n" \
    "    shl.b64 %rd12, %rd9, 2;\n" \
    "    add.u64 %rd13, %rd9, 1;\n" \
    "    add.u64 %rd14, %rd9, 2;\n" \
    "    add.u64 %rd15, %rd9, 3;\n" \
    "    setp.lt.u64 %p2, %rd13, %rd5;\n" \
    "    setp.lt.u64 %p3, %rd14, %rd5;\n" \
    "    setp.lt.u64 %p4, %rd15, %rd5;\n" \
    "ROW:\n" \
    "    setp.ge.u64 %p5, %rd10, %rd6;\n" \
    "    @%p5 bra DONE;\n" \
    "    mad.lo.u64 %rd16, %rd10, %rd4, %rd3;\n" \
    "    add.u64 %rd16, %rd16, %rd12;\n" \
    "    mad.lo.u64 %rd17, %rd10, %rd2, %rd1;\n" \
    "    add.u64 %rd17, %rd17, %rd12;\n" \
    "    mov.b32 %r7, 0;\n" \
    "    mov.b32 %r8, 0;\n" \
    "    mov.b32 %r9, 0;\n" \
    "    ld.global.nc.b32 %r6, [%rd16];\n" \
    "    @%p2 ld.global.nc.b32 %r7, [%rd16+4];\n" \
    "    @%p3 ld.global.nc.b32 %r8, [%rd16+8];\n" \
    "    @%p4 ld.global.nc.b32 %r9, [%rd16+12];\n" \
    ROUND \
    "    add.u64 %rd10, %rd10, %rd11;\n" \
    "    bra ROW;\n" \
    "DONE:\n" \
    "    ret;\n" \
    "}\n"
#define STORE_AS_READ "    st.global.v4.b32 [%rd17], {%r6, %r7, %r8, %r9};\n"
#define RNA_NAN_KEPT(D, S)                                                                                        \
    "    cvt.rna.tf32.f32 " D ", " S ";\n"                                                                           \
    "    setp.nan.f32 %p6, " S ", " S ";\n"                                                                          \
    "    setp.num.f32 %p7, " D ", " D ";\n"                                                                          \
    "    and.pred %p6, %p6, %p7;\n"                                                                                  \
    "    @%p6 or.b32 " D ", " D ", 4194304;\n"
#define STORE_RNA                                                                                                 \
    RNA_NAN_KEPT("%r10", "%r6")                                                                                   \
    RNA_NAN_KEPT("%r11", "%r7")                                                                                   \
    RNA_NAN_KEPT("%r12", "%r8")                                                                                   \
    RNA_NAN_KEPT("%r13", "%r9")                                                                                   \
    "    st.global.v4.b32 [%rd17], {%r10, %r11, %r12, %r13};\n"

const char tc_stage_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    STAGE_B32("tilec_stage_b32", STORE_AS_READ)
    "\n"
    STAGE_B32("tilec_stage_b32_rna", STORE_RNA)
    "\n"
    ".visible .entry tilec_stage_b16(.param .u64 p_dst, .param .u64 p_dpitch, .param .u64 p_src, .param .u64 p_spitch,\n"
    "                                .param .u64 p_cols, .param .u64 p_rows)\n"
    "{\n"
    "    .reg .pred %p<12>;\n"
    "    .reg .b16 %h<10>;\n"
    "    .reg .b32 %r<16>;\n"
    "    .reg .b64 %rd<24>;\n"
    "    ld.param.u64 %rd1, [p_dst];\n"
    "    ld.param.u64 %rd2, [p_dpitch];\n"
    "    ld.param.u64 %rd3, [p_src];\n"
    "    ld.param.u64 %rd4, [p_spitch];\n"
    "    ld.param.u64 %rd5, [p_cols];\n"
    "    ld.param.u64 %rd6, [p_rows];\n"
    "    mov.u32 %r1, %ctaid.x;\n"
    "    mov.u32 %r2, %ntid.x;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mul.wide.u32 %rd7, %r1, %r2;\n"
    "    cvt.u64.u32 %rd8, %r3;\n"
    "    add.u64 %rd7, %rd7, %rd8;\n"
    "    shl.b64 %rd9, %rd7, 3;\n"
    "    setp.ge.u64 %p1, %rd9, %rd5;\n"
    "    @%p1 bra DONE;\n"
    "    mov.u32 %r4, %ctaid.y;\n"
    "    cvt.u64.u32 %rd10, %r4;\n"
    "    mov.u32 %r5, %nctaid.y;\n"
    "    cvt.u64.u32 %rd11, %r5;\n"
    "    shl.b64 %rd12, %rd9, 1;\n"
    "    sub.u64 %rd13, %rd5, %rd9;\n"
    "    setp.gt.u64 %p2, %rd13, 1;\n"
    "    setp.gt.u64 %p3, %rd13, 2;\n"
    "    setp.gt.u64 %p4, %rd13, 3;\n"
    "    setp.gt.u64 %p5, %rd13, 4;\n"
    "    setp.gt.u64 %p6, %rd13, 5;\n"
    "    setp.gt.u64 %p7, %rd13, 6;\n"
    "    setp.gt.u64 %p8, %rd13, 7;\n"
    "ROW:\n"
    "    setp.ge.u64 %p9, %rd10, %rd6;\n"
    "    @%p9 bra DONE;\n"
    "    mad.lo.u64 %rd16, %rd10, %rd4, %rd3;\n"
    "    add.u64 %rd16, %rd16, %rd12;\n"
    "    mad.lo.u64 %rd17, %rd10, %rd2, %rd1;\n"
    "    add.u64 %rd17, %rd17, %rd12;\n"
    "    mov.b16 %h1, 0;\n"
    "    mov.b16 %h2, 0;\n"
    "    mov.b16 %h3, 0;\n"
    "    mov.b16 %h4, 0;\n"
    "    mov.b16 %h5, 0;\n"
    "    mov.b16 %h6, 0;\n"
    "    mov.b16 %h7, 0;\n"
    "    ld.global.nc.b16 %h0, [%rd16];\n"
    "    @%p2 ld.global.nc.b16 %h1, [%rd16+2];\n"
    "    @%p3 ld.global.nc.b16 %h2, [%rd16+4];\n"
    "    @%p4 ld.global.nc.b16 %h3, [%rd16+6];\n"
    "    @%p5 ld.global.nc.b16 %h4, [%rd16+8];\n"
    "    @%p6 ld.global.nc.b16 %h5, [%rd16+10];\n"
    "    @%p7 ld.global.nc.b16 %h6, [%rd16+12];\n"
    "    @%p8 ld.global.nc.b16 %h7, [%rd16+14];\n"
    "    mov.b32 %r6, {%h0, %h1};\n"
    "    mov.b32 %r7, {%h2, %h3};\n"
    "    mov.b32 %r8, {%h4, %h5};\n"
    "    mov.b32 %r9, {%h6, %h7};\n"
    "    st.global.v4.b32 [%rd17], {%r6, %r7, %r8, %r9};\n"
    "    add.u64 %rd10, %rd10, %rd11;\n"
    "    bra ROW;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

tilecResult tc_stage_copy(const TcStagePlan *p, const TcStageKernels *k, void *pool, void *stream, uint64_t *dst,
                          StrBuf *log)
{
    *dst = 0;
    StrBuf why;
    sb_init(&why);
    uint64_t buf = 0;
    if (cu_mem_alloc_async(pool, &buf, p->rows * p->pitch, stream, &why) != TILEC_SUCCESS) {
        sb_printf(log, "%snote: not staging a %zu x %zu-byte view (its %zu bytes could not be allocated): the kernel "
                       "copies it itself\n",
                  why.data ? why.data : "", p->rows, p->width, p->rows * p->pitch);
        sb_free(&why);
        return TILEC_SUCCESS;
    }
    sb_free(&why);
    if (buf % ROW_ALIGN) { /* the plan's geometry and the copy's 16-byte stores assume it */
        sb_printf(log, "note: not staging a %zu x %zu-byte view: the pool gave memory at 0x%llx, off %u bytes\n",
                  p->rows, p->width, (unsigned long long)buf, ROW_ALIGN);
        (void)cu_mem_free_async(buf, stream, log);
        return TILEC_SUCCESS;
    }
    enum { THREADS = 128, MAX_GRID_Y = 65535 };
    size_t per = 16 / p->esize, chunks = (p->width / p->esize + per - 1) / per;
    unsigned grid[3] = {(unsigned)((chunks + THREADS - 1) / THREADS), p->rows < MAX_GRID_Y ? (unsigned)p->rows : MAX_GRID_Y,
                        1};
    uint64_t a_dst = buf, a_pitch = p->pitch, a_src = p->src, a_spitch = p->src_pitch, a_cols = p->width / p->esize,
             a_rows = p->rows;
    void *args[] = {&a_dst, &a_pitch, &a_src, &a_spitch, &a_cols, &a_rows};
    tilecResult t = cu_launch(p->round ? k->b32_rna : p->esize == 2 ? k->b16 : k->b32, grid, THREADS, 0, stream, args, log);
    if (t != TILEC_SUCCESS) {
        (void)cu_mem_free_async(buf, stream, log);
        return t;
    }
    *dst = buf;
    return TILEC_SUCCESS;
}
