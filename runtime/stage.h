/*
 * Staging: a view whose rows the TMA unit cannot describe (a base or a row
 * stride off 16 bytes: an 8191 x 8190 f32 matrix, a bf16 one with an odd
 * column count) would make the kernel copy it element by element, at about
 * half its speed (bench/NOTES.md v13). Where the kernel allows it
 * (TcTmap.stage) and the view is read often enough to repay it,
 * tilecLaunch instead copies the view, for that launch, into a buffer whose
 * rows start on 128 bytes (a copy kernel on the launch's stream, into memory
 * from the runtime's own pool), and passes that buffer and its row stride in
 * place of the view's base and row-stride arguments; the tensor map then
 * describes the copy, and the buffer is freed on the stream after the
 * launch. The copy reads the view once and writes it once; the kernel's
 * results are the same bits either way (the same elements, read from
 * another place). TILEC_STAGE=0 turns it off.
 *
 * Pre-rounding: where the kernel rounds a view's elements to tf32 (RNA)
 * before any use (TcTmap.round: the tf32-rna GEMM's A and B, or A alone
 * with -fno-wgmma-preround-b), the copy can round them instead, once per
 * element rather than once per program that reads it; the launch then
 * stages those views, rounded, even where a map could describe them as
 * they are (the others only where none can), and sets the flag bits that
 * make the kernel skip their rounding. The tensor cores get the same bits
 * either way; the copy's traffic (each view read and written once) is
 * repaid where each element is read by enough programs
 * (TC_PREROUND_MIN_REUSE). TILEC_PREROUND=0 turns it off, =1 applies it
 * whatever the reuse.
 */
#ifndef TILEC_STAGE_H
#define TILEC_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/compiler.h"
#include "tilec.h"

/* A view is staged only where each of its elements is read by this many
 * programs or more (estimated from the grid and the kernel's tile: programs
 * x TcTmap.across / the extent across the loop): the copy costs about two
 * reads of the view, and a view read by few programs (a GEMM with a narrow
 * grid) has little time to win back. */
#define TC_STAGE_MIN_REUSE 16
/* The same for pre-rounding, with a floor on the loop's extent (K): the
 * copies cost two launches (a few µs) besides their traffic, and a short
 * loop leaves the kernel's time to its epilogue, where rounding costs
 * nothing. Measured on the H200 (bench/NOTES.md v15), tf32-rna 128x256:
 * 8192^3 268.9 -> 321.4 TFLOP/s pre-rounded, 4096^3 279.3 -> 316.9, but
 * 4096x4096x64 61.0 -> 50.7 and 2048^3 (A read by 8 programs per element)
 * 272.9 -> 235.1; 128x128 at 2048^3 (16 each) 196.0 -> 210.5. */
#define TC_PREROUND_MIN_REUSE 16
#define TC_PREROUND_MIN_K 1024

typedef struct {
    uint64_t src;           /* the view's base */
    size_t src_pitch;       /* its row stride, in bytes */
    size_t width, rows;     /* bytes per row, rows */
    size_t pitch;           /* the copy's row stride in bytes: a multiple of 128 */
    int64_t stride;         /* the same in elements: the row-stride argument's value */
    unsigned esize;         /* bytes per element: 2 or 4 */
    int round;              /* the copy rounds each f32 to tf32 (RNA, as cvt.rna.tf32.f32) */
    unsigned base_param, stride_param;
} TcStagePlan;

/* Pure (no driver): 1 and *p when map m of a launch of `programs` programs
 * with these arguments (as tc_tmap_geometry takes them) is to be staged: the
 * kernel allows it (m->stage), the map cannot be encoded as it is but could
 * with its base and row stride on 16 bytes, its rows do not overlap (row
 * stride >= columns), the copy's size fits, and the view is read by at
 * least TC_STAGE_MIN_REUSE programs per element. 0 otherwise. With round
 * (m->round required): the copy rounds, and the map may be one that
 * encodes as it is; the reuse wanted is TC_PREROUND_MIN_REUSE, and the
 * extent along the loop at least TC_PREROUND_MIN_K (unless programs is
 * UINT64_MAX: whatever the reuse, for tests). */
int tc_stage_plan(const TcTmap *m, const TirType *params, unsigned nparams, void *const *args, uint64_t programs,
                  int round, TcStagePlan *p);

/* PTX of the copy kernels, tilec_stage_b32, tilec_stage_b32_rna (rounding
 * to tf32) and tilec_stage_b16 (for sm_80 and later), which the runtime
 * loads once (TcStageKernels). */
extern const char tc_stage_ptx[];
typedef struct {
    void *b32, *b32_rna, *b16; /* CUfunction */
} TcStageKernels;

/* Allocates the copy from pool on stream and enqueues the copy kernel
 * (context current). *dst = 0 and SUCCESS when the pool has no memory for
 * it or gives it off 128 bytes (the launch goes unstaged; the log says
 * so); LAUNCH (CUDA) when the
 * driver refuses the copy (nothing is left allocated). */
tilecResult tc_stage_copy(const TcStagePlan *p, const TcStageKernels *k, void *pool, void *stream, uint64_t *dst,
                          StrBuf *log);

#endif
