/*
 * TMA tensor maps in hidden kernel parameters (see tmap.h).
 *
 * Needs: the driver wrapper (cuda_api.h) for the encoding only; deciding
 * whether and how a map is encoded (tc_tmap_geometry) is pure.
 * Guarantees: the kernel sees flag bit i set only where map i holds what
 * cuTensorMapEncodeTiled wrote for the launch's own arguments (for a staged
 * view, stage.h: the copy's base and row stride, which the kernel is passed
 * too); every other map is 128 zero bytes. Nothing is kept between launches
 * (the maps hold the launch's addresses and extents; staged copies are
 * freed on the launch's stream after it).
 */
#include "runtime/tmap.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_api.h"
#include "runtime/stage.h"

/* The TMA unit's limits on a global view (cuTensorMapEncodeTiled). */
#define BASE_ALIGN 16u
#define STRIDE_ALIGN 16u
#define STRIDE_LIMIT ((uint64_t)1 << 40)
#define PANEL_COLUMNS 8u /* a panel of B's stage layout: 8 f32 columns, 32 bytes */

/* s's value for a launch: its constant, or its i32 / i64 parameter
 * sign-extended. 0 where the parameter is not such a scalar. */
static int scalar_value(const TcTmapScalar *s, const TirType *params, unsigned nparams, void *const *args,
                        int64_t *v)
{
    if (s->param < 0) {
        *v = s->value;
        return 1;
    }
    unsigned p = (unsigned)s->param;
    if (p >= nparams || params[p].kind != TY_SCALAR)
        return 0;
    /* memcpy: the caller's values need not be aligned */
    if (params[p].elem == ELEM_I32) {
        int32_t x;
        memcpy(&x, args[p], sizeof x);
        *v = x;
        return 1;
    }
    if (params[p].elem == ELEM_I64) {
        memcpy(v, args[p], sizeof *v);
        return 1;
    }
    return 0;
}

/* The map's base address; 0 where its parameter is not a pointer to its
 * element type. */
static int base_value(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args, uint64_t *base)
{
    static const TirElem elems[] = {[TC_TMAP_F32] = ELEM_F32, [TC_TMAP_TF32] = ELEM_F32, [TC_TMAP_F16] = ELEM_F16,
                                    [TC_TMAP_BF16] = ELEM_BF16};
    unsigned p = m->base_param;
    if (m->dtype > TC_TMAP_BF16 || p >= nparams || params[p].kind != TY_PTR || params[p].elem != elems[m->dtype])
        return 0;
    memcpy(base, args[p], sizeof *base);
    return 1;
}

static int extent_ok(int64_t d) { return d >= 1 && d <= INT32_MAX; }

/* A stride of s elements of esize bytes: a multiple of 16 bytes below 2^40. */
static int stride_ok(int64_t s, unsigned esize)
{
    return s >= 1 && (uint64_t)s < STRIDE_LIMIT / esize && ((uint64_t)s * esize) % STRIDE_ALIGN == 0;
}

/* A batched view's batch as one more, outermost dimension of g. With a
 * single batch its stride is never used, so any valid one does (the view's
 * may be misaligned: a batch's padding). */
static int add_batch(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args, int64_t s0,
                     TcTmapGeometry *g)
{
    int64_t db, sb;
    if (!scalar_value(&m->db, params, nparams, args, &db) || !scalar_value(&m->sb, params, nparams, args, &sb) ||
        !extent_ok(db))
        return 0;
    unsigned esize = tc_tmap_esize(m->dtype);
    if (db == 1)
        sb = s0;
    if (!stride_ok(sb, esize))
        return 0;
    g->dims[g->rank] = (uint64_t)db;
    g->byte_strides[g->rank - 1] = (uint64_t)sb * esize;
    g->box[g->rank] = 1;
    g->rank++;
    return 1;
}

int tc_tmap_geometry(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args,
                     TcTmapGeometry *g)
{
    memset(g, 0, sizeof *g);
    uint64_t base;
    int64_t d0, d1, s0, s1;
    if (m->kind > TC_TMAP_PANELS || !base_value(m, params, nparams, args, &base) ||
        !scalar_value(&m->d0, params, nparams, args, &d0) || !scalar_value(&m->d1, params, nparams, args, &d1) ||
        !scalar_value(&m->s0, params, nparams, args, &s0) || !scalar_value(&m->s1, params, nparams, args, &s1))
        return 0;
    unsigned esize = tc_tmap_esize(m->dtype);
    if (base == 0 || base % BASE_ALIGN != 0 || !extent_ok(d0) || !extent_ok(d1) || !stride_ok(s0, esize) || s1 != 1)
        return 0;
    /* a TMA store writes whole 16-byte chunks of a row: a row that ends inside one would have the
     * elements after it written (bench/NOTES.md v28), so a map stored through needs rows of whole chunks */
    if (m->store && ((uint64_t)d1 * esize) % 16 != 0)
        return 0;
    g->dtype = m->dtype;
    g->base = base;
    g->byte_strides[0] = (uint64_t)s0 * esize;
    if (m->kind == TC_TMAP_ROWS) { /* d0 rows of d1 columns */
        g->rank = 2;
        g->swizzle128 = 1;
        g->dims[0] = (uint64_t)d1;
        g->dims[1] = (uint64_t)d0;
        g->box[0] = m->box[0];
        g->box[1] = m->box[1];
        return !m->batched || add_batch(m, params, nparams, args, s0, g);
    }
    /* panels (f32): the d1 columns as d1 / 8 panels of 8, one after another */
    if (d1 % PANEL_COLUMNS != 0 || esize != 4)
        return 0;
    g->rank = 3;
    g->dims[0] = PANEL_COLUMNS;
    g->dims[1] = (uint64_t)d0;
    g->dims[2] = (uint64_t)d1 / PANEL_COLUMNS;
    g->byte_strides[1] = PANEL_COLUMNS * esize;
    g->box[0] = PANEL_COLUMNS;
    g->box[1] = m->box[1];
    g->box[2] = m->box[2];
    return !m->batched || add_batch(m, params, nparams, args, s0, g);
}

void tc_tmap_geometry_str(const TcTmapGeometry *g, StrBuf *out)
{
    unsigned rank = g->rank <= 4 ? g->rank : 4;
    sb_printf(out, "rank %u, dims {", g->rank);
    for (unsigned i = 0; i < rank; i++)
        sb_printf(out, "%s%llu", i ? ", " : "", (unsigned long long)g->dims[i]);
    sb_puts(out, "}, byte strides {");
    for (unsigned i = 0; i + 1 < rank; i++)
        sb_printf(out, "%s%llu", i ? ", " : "", (unsigned long long)g->byte_strides[i]);
    sb_puts(out, "}, box {");
    for (unsigned i = 0; i < rank; i++)
        sb_printf(out, "%s%u", i ? ", " : "", g->box[i]);
    sb_printf(out, "}, %s, %s, base 0x%llx", tc_tmap_type_name((unsigned)g->dtype),
              g->swizzle128 ? "128-byte swizzle" : "no swizzle", (unsigned long long)g->base);
}

void tc_tmap_args_free(TcTmapArgs *a)
{
    StrBuf ignored; /* a failed free leaves the memory to the pool's destruction */
    sb_init(&ignored);
    for (unsigned i = 0; i < a->nstaged; i++)
        (void)cu_mem_free_async(a->staged[i], a->stream, &ignored);
    sb_free(&ignored);
    free(a->args);
    free(a->maps);
    memset(a, 0, sizeof *a);
}

/* Adds map i's plan p to plans[n], unless a plan of the same view (its
 * base parameter) is there: two maps of one view share its copy. */
static void add_plan(TcStagePlan *plans, unsigned *map_of, unsigned *n, unsigned i, const TcStagePlan *p)
{
    for (unsigned j = 0; j < *n; j++)
        if (plans[j].base_param == p->base_param)
            return;
    map_of[*n] = i;
    plans[(*n)++] = *p;
}

/* The plans of a launch that stages the views the kernel lets be rounded
 * (TcTmap.round), rounded, where the rule (stage.h) allows, and the other
 * views it reads only where no map can describe them as they are (round),
 * or only the latter (plain copies); 0 where some view that needs one gets
 * none (all or none), or round and none is rounded. One plan per view:
 * add_plan. The views the kernel stores through (TcTmap.store) are never
 * staged: their maps are encoded as they are or not at all (the kernel's
 * own stores). */
static unsigned plans_for(const TcKernelInfo *k, void *const *args, const TcStageCtx *stage, int round,
                          TcStagePlan *plans, unsigned *map_of)
{
    uint64_t plain = stage->any_reuse ? UINT64_MAX : stage->programs,
             rounding = stage->round == TC_PREROUND_ALWAYS ? UINT64_MAX : stage->programs;
    unsigned n = 0, rounded = 0;
    for (unsigned i = 0; i < k->ntmaps; i++) {
        TcTmapGeometry g;
        TcStagePlan p;
        int r = round && k->tmaps[i].round;
        if (k->tmaps[i].store)
            continue;
        if (!r && tc_tmap_geometry(&k->tmaps[i], k->params, k->nparams, args, &g))
            continue; /* encodes as it is */
        if (!tc_stage_plan(&k->tmaps[i], k->params, k->nparams, args, r ? rounding : plain, r, &p))
            return 0; /* this map stays as it is: the kernel copies every view itself */
        rounded += (unsigned)r;
        add_plan(plans, map_of, &n, i, &p);
    }
    return round && !rounded ? 0 : n;
}

unsigned tc_stage_views_plan(const TcKernelInfo *k, void *const *args, const TcStageCtx *stage,
                             TcStagePlan plans[TC_TMAP_MAX], unsigned map_of[TC_TMAP_MAX], int *round)
{
    *round = 0;
    if (k->ntmaps == 0 || k->ntmaps > TC_TMAP_MAX)
        return 0;
    /* a store map the kernel needs (no stores of its own) that cannot be encoded means this kernel
     * cannot run (the launch takes the JIT's full kernel, which stages for itself, or fails), so
     * copies made for it would be thrown away */
    uint32_t need = tc_tmaps_required(k);
    for (unsigned i = 0; i < k->ntmaps; i++) {
        TcTmapGeometry g;
        if (k->tmaps[i].store && (need >> i & 1) && !tc_tmap_geometry(&k->tmaps[i], k->params, k->nparams, args, &g))
            return 0;
    }
    unsigned n = stage->round == TC_PREROUND_OFF ? 0 : plans_for(k, args, stage, 1, plans, map_of);
    if (n) {
        *round = 1;
        return n;
    }
    return plans_for(k, args, stage, 0, plans, map_of);
}

/* Stages the views tc_stage_views_plan names: each copy's base and row
 * stride go in place of the caller's (a->args), the log notes each, and
 * where they are rounded the rounded bits are set once all are. */
static tilecResult stage_views(TcTmapArgs *a, const TcKernelInfo *k, const TcStageCtx *stage, StrBuf *log)
{
    if (!stage || !stage->pool || !stage->kernels)
        return TILEC_SUCCESS;
    TcStagePlan plans[TC_TMAP_MAX];
    unsigned map_of[TC_TMAP_MAX];
    int round;
    unsigned n = tc_stage_views_plan(k, (void *const *)a->args, stage, plans, map_of, &round);
    for (unsigned j = 0; j < n; j++) {
        const TcStagePlan *p = &plans[j];
        uint64_t buf;
        tilecResult t = tc_stage_copy(p, stage->kernels, stage->pool, stage->stream, &buf, log);
        if (t != TILEC_SUCCESS) {
            sb_printf(log, "while staging the view of tensor map %u of @%s (%zu rows of %zu bytes)\n", map_of[j],
                      k->name, p->rows, p->width);
            return t;
        }
        if (!buf) /* no memory for it (noted): the views left go as they are (maps whose views are not on
                   * 16 bytes then fail to encode); nothing counts as rounded */
            return TILEC_SUCCESS;
        a->staged[a->nstaged] = buf;
        a->staged_args[a->nstaged].base = buf;
        a->staged_args[a->nstaged].stride64 = p->stride;
        a->staged_args[a->nstaged].stride32 = (int32_t)p->stride;
        a->args[p->base_param] = &a->staged_args[a->nstaged].base;
        a->args[p->stride_param] = k->params[p->stride_param].elem == ELEM_I32
                                       ? (void *)&a->staged_args[a->nstaged].stride32
                                       : (void *)&a->staged_args[a->nstaged].stride64;
        a->nstaged++;
        if (!stage->quiet)
            sb_printf(log,
                      "note: tilecLaunch @%s: staged the view of tensor map %u (%zu rows of %zu bytes at a row "
                      "stride of %zu bytes, copied to rows of %zu%s)\n",
                      k->name, map_of[j], p->rows, p->width, p->src_pitch, p->pitch,
                      p->round ? ", rounded to tf32 (rna)" : "");
    }
    if (round) /* the views that may come rounded did: the kernel need not round them (whether it copies
                * by TMA or not; api.c launches the rounded entry where all their bits are set) */
        a->rounded = tc_tmaps_roundable(k) * TC_TMAP_FLAG_ROUNDED(0);
    return TILEC_SUCCESS;
}

/* Encodes the maps the arguments allow (staging views where that makes
 * every map encodable), setting their flag bits. */
static tilecResult encode_maps(TcTmapArgs *a, const TcKernelInfo *k, const TcStageCtx *stage, StrBuf *log)
{
    if (k->ntmaps > TC_TMAP_MAX) /* more than the flags word promises to cover: none */
        return TILEC_SUCCESS;
    a->stream = stage ? stage->stream : NULL;
    tilecResult st = stage_views(a, k, stage, log);
    if (st != TILEC_SUCCESS)
        return st;
    for (unsigned i = 0; i < k->ntmaps; i++) {
        TcTmapGeometry g;
        if (!tc_tmap_geometry(&k->tmaps[i], k->params, k->nparams, (void *const *)a->args, &g))
            continue;
        StrBuf why;
        sb_init(&why);
        tilecResult t = cu_tensor_map_encode_tiled(a->maps + (size_t)i * TC_TMAP_BYTES, g.dtype, g.rank, g.base,
                                                   g.dims, g.byte_strides, g.box, g.swizzle128, &why);
        if (t == TILEC_ERROR_NOT_FOUND) { /* an older driver: the kernel's own copies (of the rounded views) */
            sb_free(&why);
            a->flags = a->rounded;
            return TILEC_SUCCESS;
        }
        if (t != TILEC_SUCCESS) {
            sb_printf(log, "%stilecLaunch @%s: the driver refused tensor map %u of %u (", why.data ? why.data : "",
                      k->name, i, k->ntmaps);
            tc_tmap_geometry_str(&g, log);
            sb_puts(log, "); not launching with a bad map\n");
            sb_free(&why);
            return TILEC_ERROR_CUDA;
        }
        sb_free(&why);
        a->flags |= 1u << i;
    }
    a->flags |= a->rounded;
    return TILEC_SUCCESS;
}

tilecResult tc_tmap_args_build(TcTmapArgs *a, const TcKernelInfo *k, void *const *args, const TcStageCtx *stage,
                               StrBuf *log)
{
    memset(a, 0, sizeof *a);
    size_t nargs = (size_t)k->nparams + k->ntmaps + 1;
    size_t map_bytes = (size_t)(k->ntmaps ? k->ntmaps : 1) * TC_TMAP_BYTES; /* a multiple of the alignment */
    a->args = malloc(nargs * sizeof *a->args);
    a->maps = aligned_alloc(64, map_bytes); /* cuTensorMapEncodeTiled wants a map 64-byte aligned */
    if (!a->args || !a->maps) {
        tc_tmap_args_free(a);
        sb_printf(log, "tilecLaunch @%s: out of host memory for its tensor maps\n", k->name);
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    memset(a->maps, 0, map_bytes);
    if (k->nparams)
        memcpy(a->args, args, k->nparams * sizeof *a->args);
    for (unsigned i = 0; i < k->ntmaps; i++)
        a->args[k->nparams + i] = a->maps + (size_t)i * TC_TMAP_BYTES;
    a->args[k->nparams + k->ntmaps] = &a->flags;
    tilecResult t = encode_maps(a, k, stage, log);
    if (t != TILEC_SUCCESS)
        tc_tmap_args_free(a);
    return t;
}
