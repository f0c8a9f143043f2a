/*
 * TMA tensor maps in hidden kernel parameters (compiler/compiler.h: TcTmap):
 * what tilecLaunch passes after the declared arguments of a kernel whose
 * TcKernelInfo lists tensor maps.
 *
 * A map is encoded only where the launch's arguments describe a view the
 * TMA unit can copy (tc_tmap_geometry says which); any other map goes as
 * 128 zero bytes with its flag bit clear, which makes the kernel take its
 * own copies, so an odd argument (a misaligned pointer, an odd row stride)
 * is never an error. The one failure is the driver refusing a map that
 * passed those checks: the launch fails rather than run with a bad map.
 */
#ifndef TILEC_TMAP_H
#define TILEC_TMAP_H

#include <stdint.h>

#include "compiler/compiler.h"
#include "runtime/stage.h"
#include "tilec.h"

#define TC_TMAP_BYTES 128 /* a CUtensorMap, passed by value */
/* The most maps per kernel tilec passes encoded (more: all zero, flag 0):
 * the flags word's bits 0..14 and 16..30 (bit 31: TC_TMAP_FLAG_EXTRA_X).
 * The disk cache refuses entries with more, as damaged. */
#define TC_TMAP_MAX 15

#define TC_TMAP_MAX_RANK 4 /* panels (3) of a batched view (+1) */

/* The bytes of one element of a map of dtype (TcTmapType). */
static inline unsigned tc_tmap_esize(unsigned dtype)
{
    return dtype == TC_TMAP_F16 || dtype == TC_TMAP_BF16 ? 2u : 4u;
}

/* A map as cuTensorMapEncodeTiled takes it. */
typedef struct {
    unsigned rank;                                /* 2..TC_TMAP_MAX_RANK */
    int dtype;                                    /* TcTmapType */
    int swizzle128;                               /* 128-byte swizzle, else none */
    uint64_t base;                                /* device address */
    uint64_t dims[TC_TMAP_MAX_RANK];              /* rank, innermost first */
    uint64_t byte_strides[TC_TMAP_MAX_RANK - 1];  /* rank - 1: of dims 1.. */
    uint32_t box[TC_TMAP_MAX_RANK];               /* rank */
} TcTmapGeometry;

/* Pure (no driver): 1 and *g when map m can be encoded for a launch with
 * these arguments (args[i] points to parameter i's value, as tilecLaunch
 * takes them, for every i < nparams); 0 when it cannot: a null base or one
 * not 16-byte aligned, an extent outside 1..INT32_MAX, a column stride
 * other than 1, a row (or batch) stride that is not a positive multiple of
 * 16 bytes below 2^40, panels of another element type than f32 or whose
 * column count is not a multiple of 8, a map stored through (TcTmap.store)
 * whose rows are not a multiple of 16 bytes long (a TMA store writes whole
 * 16-byte chunks), or parameter indices and types that do not fit the map. */
int tc_tmap_geometry(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args,
                     TcTmapGeometry *g);
/* "rank 2, dims {..}, byte strides {..}, box {..}, f32, 128-byte swizzle,
 * base 0x..." for log lines. */
void tc_tmap_geometry_str(const TcTmapGeometry *g, StrBuf *out);

/* The parameter pointers of one launch of a kernel with tensor maps: the
 * caller's nparams pointers, then one per map, then one to the flags. It
 * holds pointers into itself: build it where it stays (the caller's
 * stack) and do not copy it. */
typedef struct {
    void **args;          /* nparams + ntmaps + 1: what cuLaunchKernel takes */
    unsigned char *maps;  /* ntmaps * TC_TMAP_BYTES, 64-byte aligned */
    uint32_t flags;       /* bit i: map i was encoded; 16 + i: its view rounded (compiler.h) */
    uint32_t rounded;     /* the rounded bits the staged copies earn (encode_maps adds them to flags) */
    /* staged views (runtime/stage.h): the values args points to in place
     * of the caller's base and row stride, and the copies to free */
    struct {
        uint64_t base;
        int64_t stride64;
        int32_t stride32;
    } staged_args[TC_TMAP_MAX];
    uint64_t staged[TC_TMAP_MAX];
    unsigned nstaged;
    void *stream;
} TcTmapArgs;

/* Where and how a launch may stage views (runtime/stage.h): pool NULL (the
 * driver has none, TILEC_STAGE=0): never. */
enum { TC_PREROUND_OFF, TC_PREROUND_AUTO, TC_PREROUND_ALWAYS }; /* TILEC_PREROUND=0, unset, 1 */
typedef struct {
    void *pool;
    const TcStageKernels *kernels;
    void *stream;
    uint64_t programs; /* the grid's size */
    int round;         /* TC_PREROUND_*: whether views the kernel rounds are staged rounded */
    int quiet;         /* the kernel's staged views were noted at an earlier launch: not again */
    int any_reuse;     /* plain copies of the views no map describes whatever their reuse (a kernel
                        * without copies of its own: TcKernelInfo.tma_required); not rounded ones */
} TcStageCtx;

/* The flag bits (i for map i) that a launch of k must set, else the kernel
 * traps: with TcKernelInfo.tma_required every map's but the optional ones'
 * (TcTmap.optional); none otherwise. */
static inline uint32_t tc_tmaps_required(const TcKernelInfo *k)
{
    uint32_t need = 0;
    for (unsigned i = 0; k->tma_required && i < k->ntmaps && i < TC_TMAP_MAX; i++)
        need |= k->tmaps[i].optional ? 0u : 1u << i;
    return need;
}

/* Bit i: map i has TcTmap.round (its view may come rounded; the flags'
 * rounded bits are these shifted by 16 where it does). */
static inline uint32_t tc_tmaps_roundable(const TcKernelInfo *k)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < k->ntmaps && i < TC_TMAP_MAX; i++)
        r |= k->tmaps[i].round ? 1u << i : 0u;
    return r;
}

/* Bit i: map i is one the kernel stores through (TcTmap.store). */
static inline uint32_t tc_tmaps_stored(const TcKernelInfo *k)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < k->ntmaps && i < TC_TMAP_MAX; i++)
        r |= k->tmaps[i].store ? 1u << i : 0u;
    return r;
}

/* Pure (no driver): the views a launch of k with these args stages,
 * plans[0..n) for maps map_of[0..n), and *round whether they go rounded:
 * a map that cannot be encoded as the arguments are is staged where
 * stage.h says so, all or none (only where every map then can be; none:
 * 0); where the maps with TcTmap.round (tc_tmaps_roundable) are some and
 * stage->round and the rule allow, their views rounded, and the other
 * views read only where they must be, plain (a map the kernel stores through,
 * TcTmap.store, is never staged; where it cannot be encoded as it is and
 * the launch needs it, tc_tmaps_required, nothing is staged). Two
 * maps of one view (A times A) share its copy. stage->pool and kernels are not looked at. */
unsigned tc_stage_views_plan(const TcKernelInfo *k, void *const *args, const TcStageCtx *stage,
                             TcStagePlan plans[TC_TMAP_MAX], unsigned map_of[TC_TMAP_MAX], int *round);

/* Fills a for a launch of k with the caller's args (non-NULL for each
 * declared parameter); context current (the driver encodes in it). A map
 * that cannot be encoded as the arguments are is staged where stage.h says
 * so, all or none (only where every map then can be; the log notes each
 * view staged); where tc_stage_views_plan rounds, the views of the maps
 * with TcTmap.round are staged rounded and the flags say so (their rounded
 * bits: the launcher's test for the rounded entry is all of them). A driver without
 * cuTensorMapEncodeTiled encodes nothing (flags: only the rounded bits). OUT_OF_MEMORY; CUDA when the driver refuses a map (the log
 * names the kernel, the map and its geometry); or what a staging copy's
 * launch returned (the log names the kernel and the map); a is then empty.
 * tc_tmap_args_free releases a after the launch, on every path, with the
 * context still current (it frees the staged copies on the stream). */
tilecResult tc_tmap_args_build(TcTmapArgs *a, const TcKernelInfo *k, void *const *args, const TcStageCtx *stage,
                               StrBuf *log);
void tc_tmap_args_free(TcTmapArgs *a);

#endif
