/*
 * Internals of the sm_90a GEMM pipelines that a loop marked by pass_wgmma
 * lowers to: the driver and what both pipelines share (lower_wgmma.c), the
 * swapped product, the default (lower_wgmma_swapped.c), and the older
 * pipeline that transposes B in its producers (lower_wgmma_transposed.c,
 * -fno-wgmma-swapped), the FMA consumers for ieee dots
 * (lower_wgmma_ffma.c; -fno-wgmma-ffma turns them off), the swapped
 * product's form for a K-major B, C = A B from two shared-memory operands
 * (lower_wgmma_kmajor.c; -fno-wgmma-kmajor-b), and the f16/bf16
 * pipeline with both wgmma operands in shared memory (lower_wgmma_ss.c;
 * its producers copy only, a stage completing on full[] alone).
 *
 * Both run the same protocol over a ring of S shared-memory stages: P
 * producer warpgroups, producer p's iteration u issuing the copies of step
 * p + P*u (once stage step % S is empty) and finishing step p + P*(u - lag)
 * (its data rounded into place, the stage released on full[stage]); the
 * consumer warpgroups wait on full[], run their wgmmas and release the stage
 * on empty[]. unit/test_passes models it (no deadlock for P * lag < S);
 * not modelled there: 3xtf32's producers, finishing step j of a stage with
 * a non-finite element, also wait for the release of step j - 1 (x3_spare in
 * lower_wgmma_swapped.c), which needs only steps they have finished.
 */
#ifndef TILEC_LOWER_WGMMA_H
#define TILEC_LOWER_WGMMA_H
#include "compiler/lower.h"

enum { WARPGROUP = 128, ROW_BYTES = 128, BK = 32 };
enum { SS_BK = 64 }; /* f16/bf16 (lower_wgmma_ss.c): k per stage */

/* One pipeline being lowered. */
typedef struct {
    Lower *L;
    uint32_t bm, bn, stages, lag, copies, consumers, producers; /* producers: warpgroups */
    TirPrecision prec;
    uint32_t stage_bytes; /* raw A tile, then the B operand copies */
    LLVMValueRef ring;    /* ptr addrspace(3), 1024-byte aligned (the swizzle's period) */
    LLVMValueRef ring32;  /* its shared-window address, i32 */
    LLVMValueRef raw_off, raw32; /* the raw B slots: offset from ring, address */
    LLVMValueRef full32, empty32; /* the barrier arrays, i32 addresses */
    LLVMValueRef nsteps;  /* i32 */
    LLVMValueRef base;    /* persistent (L->role): i32, the first step's number in the ring's
                           * sequence (wg_wait_step); NULL: 0 */
    LLVMValueRef lo;      /* i64: k of step 0 */
    int hoist;            /* -fwgmma-hoist: the producer's per-thread address terms computed once */
    int swapped;          /* the swapped product (default; -fno-wgmma-swapped: the older pipeline) */
    int unaligned;        /* swapped: a producer loop of its own for misaligned operands (default) */
    int roles;            /* two producer warpgroups: one copies, the other rounds (-fno-wgmma-roles) */
    int round_b;          /* -fwgmma-round-b (with roles, tf32-rna/rne): B rounded in place by the
                           * rounding warpgroup, not by the consumers as they load it */
    int a_ready;          /* A comes rounded: the entry for rounded views, unless -fno-wgmma-preround-a */
    int b_ready;          /* the consumers take B's fragments as they load them: round_b, or the
                           * entry for views that come rounded (pre) */
    int split;            /* a stage's wgmmas in two groups, the second's fragments loaded
                           * while the first runs (default where a stage has 8 wgmmas or more) */
    int serial;           /* -O0 (TcOptions.wgmma_serial): every wgmma group waited for inside its own asm
                           * statement (no k-overlap, no split stages, bf16's group waited for at once):
                           * unoptimized, LLVM copies values between asm statements, and a copy of an
                           * accumulator still in flight reads what the PTX ISA leaves undefined (all
                           * zeros or partial sums on the interpreter, bench/NOTES.md v30) */
    int k_overlap;        /* swapped, tf32 modes (default; -fno-wgmma-k-overlap): a wgmma group per 2 k8 steps, each
                           * waiting for the one before only; a stage is released after the
                           * next stage's first group */
    int x3_rest_test;     /* 3xtf32 (TcOptions.wgmma_x3_rest_test): wg_split_batch's short-path test by
                           * the sum of the rests */
    int x3_sum2;          /* swapped 3xtf32, -fwgmma-x3-sum2: the part sums run over two steps (the
                           * loop carries them after the accumulators), added at odd steps and the last */
    LLVMValueRef step;    /* the consumers' step in this program (i32), while a stage is emitted */
    int ffma;             /* ieee: the consumers compute with fp32 FMAs (lower_wgmma_ffma.c) */
    int ss;               /* f16/bf16: both wgmma operands from shared memory (lower_wgmma_ss.c) */
    int bk;               /* swapped, B K-major: B's tile copied (and rounded) as A's; kss, bkf or bt */
    int kss;              /* bk, tf32 modes (lower_wgmma_kmajor.c): C = A B from two descriptors, C's MMA
                           * layout */
    int bkf;              /* bk, 3xtf32 and ieee: B's tile copied as A's (after A's copies) but read as the
                           * swapped product's register fragments, split as they load (3xtf32), or as
                           * the FMA consumers' operands (ieee); the swapped product's layouts */
    int bt;               /* bk, ieee (-fwgmma-ffma-transpose-b): B^T's rows copied as A's, then
                           * transposed in place into b128's 32-column panels by the producer
                           * warpgroup that rounds nothing (bt_transpose, lower_wgmma_swapped.c);
                           * the FMA consumers read them as a row-major B's (bkf is off) */
    int am;               /* A M-major: A^T's rows copied as a row-major B's panels; ss reads them with the
                           * transpose bit for A, the swapped product's producers transpose them in place
                           * (am_transpose, lower_wgmma_swapped.c) */
    int bk_one_stage;     /* kss: the consumers wait for each stage's wgmmas before the next (where holding
                           * two stages would deadlock the producers: wgmma_hold_two_ok) */
    TirElem elem;         /* ss: the inputs' element type */
    uint32_t blocks;      /* swapped: 64-column blocks of B per consumer warpgroup */
    LLVMValueRef landed32; /* swapped: the barriers a stage's copies complete on */
    LLVMValueRef spare32, x3flags32; /* swapped 3xtf32: the spare tile for a stage's hic copy of A, and
                                      * a word a stage, nonzero where the spare holds it (a warp a byte) */
    int tma;              /* the kernel takes tensor maps (lower_wgmma_tma.c): a producer loop
                           * version copies by TMA; swapped: B's stage tile is panels (b128) */
    int tma_now;          /* the producer loop version being emitted is the TMA one */
    int b128;             /* with tma (-fno-wgmma-tma-b128: off): B's stage tile as 32-column
                           * panels under the 128-byte swizzle, a 128-byte-wide TMA box each,
                           * read as conflict-free 8-byte pairs: the accumulators' rows permuted
                           * (Layout.nperm; blocks is 1, 2 or 4: tile sides are powers of two) */
    int direct;           /* tma, tf32-trunc/rne (nothing to round): under TMA the consumers wait on
                           * landed[] alone, where the copies complete; no producer finishes a step */
    LLVMValueRef use_tma; /* i1, uniform: this launch takes the TMA version */
    int cluster;          /* -fwgmma-cluster applies (L->cluster): B's copies shared with the peer block,
                           * stages released on both blocks' empty[] (lower_wgmma_cluster.c) */
    int tma_only;         /* -fwgmma-tma-only where it applies (wg_tma_only_refusal): no version
                           * without TMA (use_tma is true; a program for which it would not be
                           * traps) */
    int pre;              /* tf32-rna, maps with TcTmap.round: a launch may pass A's and B's views
                           * rounded; the kernel then has a second entry point for them
                           * (L->rounded_views, compiler/entries.c), where the rounding warpgroup
                           * leaves A as it lands and the consumers take B's fragments as they
                           * load them */
    LLVMValueRef tmap_a, tmap_b; /* the tensor maps' generic addresses (producers) */
    LLVMValueRef rank;           /* P->cluster: %cluster_ctarank (producers) */
    LLVMValueRef shares_b;       /* P->cluster: i1, the peer's program copies the same B (producers) */
    LLVMValueRef peer;           /* P->cluster: the other block's rank (consumers' releases) */
    LLVMValueRef batch_a, batch_b; /* batched views' batch index (i32), else NULL */
    LLVMValueRef frag_base, frag[4][2]; /* swapped consumers (swapped_frags): the thread's B fragment offsets in
                                         * a stage, computed before the K loop (bkf: frag[0][0] the
                                         * swizzle's row term); the FMA consumers'
                                         * (ffma_frags): frag_base its first A row's offset */
    LLVMValueRef ffma_chunk[8], ffma_bcol; /* ffma_frags: A's chunk ch under the row's swizzle, B's first column */
    LLVMValueRef ffma_bk[8], ffma_c0;     /* ffma_frags, b128: B's first run at k % 8 = j, less k * 128
                                           * (bkf: chunk j of the thread's B^T row, swizzled, from the
                                           * stage; no ffma_bcol);
                                           * the thread's first column */
} Pipe;

/* A counted loop: `i` runs from 0 while `i < n`; the caller adds its own phis
 * at `head` (incoming from `pre`), emits the body, and loop_close()s. */
typedef struct {
    LLVMBasicBlockRef pre, head, body, exit;
    LLVMValueRef i;
} Loop;

/* One wgmma of a group: its register operand (4 x i32) or A's descriptor, its
 * shared-memory B operand's descriptor, the accumulators it updates (acc[acc0 ..]), and
 * whether it ignores their values (starts from zero). */
typedef struct {
    LLVMValueRef a[4], desc;
    LLVMValueRef adesc; /* else NULL: A's operand from shared memory by this descriptor, not a[] */
    uint32_t acc0;
    int from_zero;
} Wgmma;

/* The swapped product's raw B rows (wgmma_swapped_stage_bytes()): BN f32
 * and 32 bytes of padding, so 8 rows t..t+3 of a fragment read hit
 * distinct banks. */
enum { B_PAD = 32 };
static inline uint32_t raw_b_row_bytes(uint32_t bn) { return bn * 4 + B_PAD; }
/* The swapped product's copies of A in a stage: 3xtf32's big and small (its
 * hic in the spare tile), else one. */
static inline uint32_t swapped_a_copies(const Pipe *P) { return P->copies == 3 ? 2 : P->copies; }

static inline LLVMValueRef c32(Lower *L, int64_t v) { return lw_const_i32(L, v); }
static inline LLVMValueRef c64(Lower *L, int64_t v) { return lw_const_i64(L, v); }
static inline LLVMTypeRef void_t(Lower *L) { return LLVMVoidTypeInContext(L->ctx); }

static const int SE = LW_ASM_SIDE_EFFECTS, SEC = LW_ASM_SIDE_EFFECTS | LW_ASM_CONVERGENT;

/* lower_wgmma.c: mbarriers (inline PTX: LLVM 19 has no parity wait) */
LLVMValueRef wg_bar_addr(Lower *L, LLVMValueRef arr32, LLVMValueRef stage);
void wg_bar_arrive(Lower *L, LLVMValueRef addr);
/* Arrives where cond (i1) holds: one predicated instruction, no branch. */
void wg_bar_arrive_if(Lower *L, LLVMValueRef addr, LLVMValueRef cond);
/* Spins until the phase of the given parity has completed. */
void wg_bar_wait(Lower *L, LLVMValueRef addr, LLVMValueRef parity);
/* Waits on barrier array arr32 (i32 address) for step t's phase and returns
 * t's stage, t % S. full[] and landed[] complete once per round of the
 * ring: parity (t / S) & 1. empty[] (prior_round) waits for the release of
 * step t - S, the round before: a fresh barrier lets the first S steps by. */
LLVMValueRef wg_wait_step(Pipe *P, LLVMValueRef arr32, LLVMValueRef t, int prior_round);
/* x3_sum2, while a consumer stage is emitted: i1, the step is odd (its
 * group's first wgmmas add to the part sums of the step before, and the
 * part sums go into the accumulators after it); else NULL. */
LLVMValueRef x3_odd_step(const Pipe *P);
/* Opens `if (cond)` (a block named name); returns the block wg_if_close()
 * ends it in and continues from. */
LLVMBasicBlockRef wg_if_open(Lower *L, LLVMValueRef cond, const char *name);
void wg_if_close(Lower *L, LLVMBasicBlockRef done);
/* A counted loop (Loop above). */
Loop wg_loop_open(Lower *L, const char *name);
void wg_loop_test(Lower *L, Loop *lp, LLVMValueRef n);
void wg_loop_close(Lower *L, Loop *lp);
/* The copies of element x the pipeline feeds the tensor cores (P->prec):
 * out[0] = the rounded value (or x for tf32-trunc); 3xtf32: big, small and
 * the masked big. */
void wg_split(Pipe *P, LLVMValueRef x, LLVMValueRef out[3]);
/* wg_split() for n <= 16 elements at once, out[c][i] = copy c of x[i];
 * *special (if not NULL): i1, some element not finite or rounding to Inf
 * (3xtf32: its hic copy is not its big one). */
void wg_split_batch(Pipe *P, const LLVMValueRef *x, uint32_t n, LLVMValueRef out[3][16], LLVMValueRef *special);
/* A trap where i1 cond holds (a program the tensor maps cannot serve). */
void wg_trap_if(Lower *L, LLVMValueRef cond);
/* `bytes` of shared memory (smem_ptr) from a 1024-byte boundary, as the
 * 128-byte swizzle wants: the pointer, and in *addr32 its shared address. */
LLVMValueRef wg_smem_1024(Lower *L, uint32_t bytes, LLVMValueRef *addr32);
/* Byte offset of 16-byte chunk `chunk` of 128-byte row `row` under the
 * 128-byte swizzle: chunk ^ (row % 8). */
LLVMValueRef wg_swz(Lower *L, LLVMValueRef row, LLVMValueRef chunk);
void wg_st_shared_v4(Lower *L, LLVMValueRef base, LLVMValueRef off, LLVMValueRef *e);
/* ... and its load: e[0..3] from base + off (16-byte aligned) */
void wg_ld_shared_v4(Lower *L, LLVMValueRef base, LLVMValueRef off, LLVMValueRef *e);
/* wgmma descriptor of a 128-byte swizzled operand at shared address a32
 * (start >> 4, swizzle mode 1) with leading and stride offsets in bytes;
 * wg_descriptor(): a K-major one. */
LLVMValueRef wg_descriptor_offsets(Lower *L, LLVMValueRef a32, uint32_t lbo, uint32_t sbo);
LLVMValueRef wg_descriptor(Lower *L, LLVMValueRef a32);
/* Inline PTX on the accumulators (operands 0..nacc-1, in place), then the
 * inputs in[0..nin) with constraints in_cons (each with its leading comma). */
void wg_acc_asm(Lower *L, const char *tmpl, const char *in_cons, LLVMValueRef *acc, uint32_t nacc,
                const LLVMValueRef *in, uint32_t nin);
/* n wgmmas m64 x wn x k8 (tf32), each on per accumulators, in one asm
 * statement that commits them as a group and then waits until at most
 * `pending` groups are in flight (WG_NO_WAIT: does not wait). */
enum { WG_NO_WAIT = -1 };
void wg_wgmma_group(Pipe *P, const Wgmma *w, uint32_t n, uint32_t wn, uint32_t per, LLVMValueRef *acc,
                    uint32_t nacc, int pending);
/* A producer thread's warpgroup p (i32), its thread index in it, and the
 * number of steps it issues: ceil((nsteps - p) / P), at least 0. */
void wg_producer_steps(Pipe *P, LLVMValueRef *pwg, LLVMValueRef *lt, LLVMValueRef *mine);
/* (A copy, B copy) of each product: 3xtf32 sums small*hic, hic*small, big*big */
extern const uint32_t wg_pairs3[3][2];

/* Where a producer thread is done with the program: it returns, or
 * (persistent) goes on to the next program. */
void wg_producer_exit(Lower *L);

/* lower_wgmma_transposed.c (-fno-wgmma-swapped) */
void transposed_producer(Pipe *P, const Access *xa, const Access *xb);
/* One stage for the consumers: A fragments from the stage, B by descriptor db. */
void transposed_stage(Pipe *P, LLVMValueRef a_off, LLVMValueRef db, LLVMValueRef *acc, uint32_t nacc);

/* lower_wgmma_swapped.c (the default) */
uint32_t swapped_producers(uint32_t bm, uint32_t bn, uint32_t consumer_threads, TirPrecision p, uint32_t stages,
                           int one);
void swapped_producer(Pipe *P, const Access *xa, const Access *xb);
/* Byte offset of B[k][n] in a stage's B tile (i32 values; constants fold):
 * raw padded rows, or with TMA its panels (P->b128: 32 columns under the
 * 128-byte swizzle). */
LLVMValueRef swapped_b_offset(Pipe *P, LLVMValueRef k, LLVMValueRef n);
/* The thread's B fragment offsets in a stage (P->frag_base, P->frag), once
 * before the consumers' K loop: they depend on the thread alone. */
void swapped_frags(Pipe *P);
/* Stage s (at ring offset soff). With k_overlap, rel_addr/rel_if: the
 * barrier to arrive on (where rel_if holds) once the stage's first group has
 * left only itself in flight. */
void swapped_stage(Pipe *P, LLVMValueRef s, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc,
                   LLVMValueRef rel_addr, LLVMValueRef rel_if);

/* lower_wgmma_kmajor.c */
/* The access of x's transpose (rows and columns swapped): the copies of a
 * K-major B and of an M-major A read it. */
Access transposed_access(const Access *x);
uint32_t kmajor_producers(uint32_t bm, uint32_t bn, uint32_t consumer_threads, TirPrecision p, uint32_t stages,
                          int one);
/* One stage (ring offset soff) of C = A B, its wgmmas one group; then,
 * where rel_addr, the release of the stage before (where rel_if holds). */
void kmajor_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc, LLVMValueRef rel_addr,
                  LLVMValueRef rel_if);

/* lower_wgmma_tma.c */
/* i1: the launch's tensor maps were both encoded and the boxes' innermost
 * coordinates (A's first k, or an M-major A's first row; B's first column,
 * or a K-major B's first k) fall on 16 bytes (f32 8-column panels: on a
 * panel). */
LLVMValueRef wg_tma_usable(Pipe *P, const Access *xa, const Access *xb);
/* NULL where -fwgmma-tma-only applies, else why not: every map a launch
 * can encode (each view's unit stride the constant 1: a map's column
 * stride) and every program's boxes provably aligned: neither view
 * batched, the loop's first k a constant multiple of 16 bytes (where a
 * box's innermost coordinate is k), B's first column and an M-major A's
 * first row known multiples of what their boxes need (a product with a
 * constant, sums of such, constants). */
const char *wg_tma_only_refusal(const TirModule *m, const TirInst *loop, const TirInst *lda, const TirInst *ldb,
                                int ss, int b128, int bk, int am);
/* i1: x .. x + n fit in i32 (x i64). */
LLVMValueRef wg_fits_i32(Lower *L, LLVMValueRef x, uint32_t n);
/* The tensor maps' addresses, once per producer thread. */
void wg_tma_prepare(Pipe *P);
/* Step t's copies by one thread: expect_tx on landed[stage] (f16/bf16:
 * full[stage]), then A's and B's boxes (zeros outside the matrix). */
void wg_tma_issue(Pipe *P, const Access *xa, const Access *xb, LLVMValueRef t);
/* lower_wgmma.c: the dot of a marked loop */
const TirInst *wgmma_loop_dot(const TirModule *m, const TirInst *f);
/* Kernel k's loop that pass_wgmma marked (one pipeline a kernel), or NULL. */
const TirInst *wgmma_marked_loop(const TirModule *m, const TirKernel *k);

/* lower_wgmma_cluster.c (-fwgmma-cluster) */
/* %cluster_ctarank (i32). */
LLVMValueRef wg_cluster_rank(Lower *L);
/* Every thread of both blocks meets (release, acquire: cluster scope). */
void wg_cluster_sync(Lower *L);
/* A consumer's release of a stage: arrive on addr (where cond holds; NULL:
 * always), and with P->cluster once a warp, on the peer block's barrier at
 * the same offset too (empty[] then counts 2 x the consumer warps). */
void wg_release(Pipe *P, LLVMValueRef addr, LLVMValueRef cond);
/* i1: whether the peer block's program reads the same columns of B as
 * this block's, whose first is col (one program a block: always, the
 * refusal proved it; persistent: compared where it depends on the
 * program). Where they differ, each block copies all of B itself. */
LLVMValueRef wg_cluster_shares_b(Lower *L, uint32_t col);
/* A 2-D box of map at {c0, c1} to shared address dst of both blocks of the
 * cluster, completing on each block's barrier at bar's offset. */
void wg_tma_box_multicast(Lower *L, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef c0, LLVMValueRef c1,
                          LLVMValueRef bar);

/* lower_wgmma_ss.c (f16/bf16) */
void ss_producer(Pipe *P, const Access *xa, const Access *xb);
/* One stage's wgmmas, left in flight; then the stage before is released
 * (arrive on rel_addr where rel_if holds). */
void ss_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc, LLVMValueRef rel_addr, LLVMValueRef rel_if);

/* lower_wgmma_ffma.c (ieee) */
Layout ffma_layout(const Pipe *P);
/* The thread's offsets in a stage, once before the K loop (Pipe.frag_base, ffma_chunk, ffma_bcol). */
void ffma_frags(Pipe *P);
void ffma_stage(Pipe *P, LLVMValueRef soff, LLVMValueRef *acc, uint32_t nacc);

#endif
