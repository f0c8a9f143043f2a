/*
 * Staging views whose rows TMA cannot describe (see stage.h).
 *
 * Needs: tc_tmap_geometry (tmap.h) for what the TMA unit takes; the driver
 * wrapper for the copy only.
 * Guarantees: a plan only for a map whose geometry fails as the launch
 * gives it and passes with the copy's base and stride; the copy holds the
 * view's rows, nothing else of the buffer is read.
 */
#include "runtime/stage.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_api.h"
#include "runtime/tmap.h"

#define ROW_ALIGN 16u /* bytes: the TMA unit's row stride and base alignment */

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
                  TcStagePlan *p)
{
    memset(p, 0, sizeof *p);
    if (!m->stage || m->batched || m->base_param >= nparams || params[m->base_param].kind != TY_PTR ||
        m->s0.param < 0 || (unsigned)m->s0.param >= nparams || (int32_t)m->base_param == m->s0.param ||
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
    uint64_t other = (uint64_t)(m->walk ? d0 : d1);
    if (programs < (TC_STAGE_MIN_REUSE * other + m->across - 1) / m->across)
        return 0;
    TcTmapGeometry g;
    if (tc_tmap_geometry(m, params, nparams, args, &g)) /* encodable as it is */
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
    p->base_param = m->base_param;
    p->stride_param = (unsigned)m->s0.param;
    return 1;
}

tilecResult tc_stage_copy(const TcStagePlan *p, void *pool, void *stream, uint64_t *dst, StrBuf *log)
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
    tilecResult t = cu_memcpy2d_dtod_async(buf, p->pitch, p->src, p->src_pitch, p->width, p->rows, stream, log);
    if (t != TILEC_SUCCESS) {
        (void)cu_mem_free_async(buf, stream, log);
        return t;
    }
    *dst = buf;
    return TILEC_SUCCESS;
}
