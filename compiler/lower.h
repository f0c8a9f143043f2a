/*
 * Internals of the tile IR -> LLVM IR lowering (compiler/lower*.c).
 *
 * A tile lives in registers, distributed over the program's threads by a
 * Layout: register r of thread `tid` holds element
 *     (base_row(tid) + drow(r), base_col(tid) + dcol(r)).
 * BLOCKED spreads a tile over a tr x tc grid of threads (consecutive threads
 * on consecutive columns: coalesced global access; with vec, on consecutive
 * runs of vec columns: the FMA pipeline's accumulators, lower_wgmma_ffma.c). MMA is the accumulator
 * layout of mma.sync m16n8: a wm x wn grid of warps, each holding mt x nt
 * 16x8 fragments; a transposed MMA layout (trans) holds a rows x cols tile
 * as the MMA layout of its cols x rows transpose (wm, mt, nt describe the
 * transpose: the swapped wgmma product's accumulators; with nperm, each
 * 32 rows of that transpose in the order that makes the product's B
 * fragment reads conflict-free, layout_offset()). Operations that need another layout (dot operands,
 * conversions, reductions, broadcasts) go through shared memory.
 */
#ifndef TILEC_LOWER_H
#define TILEC_LOWER_H

#include "compiler/compiler.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

typedef enum { LAYOUT_BLOCKED, LAYOUT_MMA } LayoutKind;

typedef struct {
    uint8_t kind;
    uint32_t rows, cols;
    uint32_t tr, tc;         /* BLOCKED: thread grid (tr * tc = threads) */
    uint8_t vec;             /* BLOCKED: a thread's columns in runs of vec (0 or 1: one at a time) */
    uint32_t wm, wn, mt, nt; /* MMA: warp grid and fragments per warp */
    uint8_t trans;           /* MMA: registers of the transpose (see above) */
    uint8_t nperm;           /* MMA, trans: the swapped product's permuted rows (mt 1 or even) */
} Layout;

uint32_t layout_nregs(const Layout *l);
void layout_offset(const Layout *l, uint32_t r, uint32_t *drow, uint32_t *dcol);
int layout_eq(const Layout *a, const Layout *b);
Layout layout_blocked(uint32_t rows, uint32_t cols, uint32_t threads);
/* Blocked layout with a square-ish thread grid (FMA dot results). */
Layout layout_blocked_2d(uint32_t rows, uint32_t cols, uint32_t threads);
/* The accumulator layout of an MMA dot of this shape, or 0 if the shape is
 * too small for mma.sync (then the dot uses FMA and a blocked layout). */
int layout_mma(uint32_t m, uint32_t n, uint32_t k, TirElem in, uint32_t warps, Layout *out);

/* Whether layout l holds some element in more than one of `threads`
 * threads (layout_owns() then names the one that stores it). */
int layout_replicates(const Layout *l, uint32_t threads);

/* A global memory access not yet ordered by a barrier (lower_order.c). */
typedef struct {
    uint32_t param;         /* the pointer parameter it goes through */
    uint32_t view, idx[3], nidx, rows, cols; /* the view and index values, the tile's shape */
    Layout lay;
    uint8_t store, replicated;
    uint8_t wild;           /* some access of this kind to param, threads unknown (a loop's, a pipeline's) */
} MemAccess;
enum { LW_MAX_PENDING = 16 };
typedef struct {
    MemAccess acc[LW_MAX_PENDING];
    uint32_t n;
} MemPending;

typedef enum { LV_NONE, LV_SCALAR, LV_SPLAT, LV_TILE, LV_BCAST, LV_VIEW } LValKind;

/* The lowered form of one IR value. */
typedef struct LVal {
    uint8_t kind;
    LLVMValueRef s;          /* SCALAR, SPLAT: the value */
    LLVMValueRef *regs;      /* TILE */
    Layout lay;              /* TILE */
    uint32_t src;            /* BCAST: the IR value broadcast (a 1xC, Rx1 or 1x1 tile) */
    LLVMValueRef base;       /* VIEW: global pointer */
    LLVMValueRef dims[3], strides[3]; /* VIEW: i64 */
    int rank;
} LVal;

typedef struct Lower {
    const TirModule *m;
    const TcOptions *o;
    Diag *d;
    int rounded_views;       /* the entry being lowered is the one for views that come rounded to
                              * tf32 (TC_ROUNDED_SUFFIX, compiler/entries.c) */
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef t_i1, t_i32, t_i64, t_f16, t_bf16, t_f32, t_ptr, t_gptr, t_sptr;
    /* per kernel */
    const TirKernel *k;
    LLVMValueRef fn;             /* the function being lowered into */
    LLVMValueRef entry_fn;       /* the kernel's entry point */
    LLVMValueRef producers_fn;   /* -frole-functions (lower_programs.c): the producers' function, whose PTX
                                  * body goes into the entry at its marker; else NULL */
    int part;                    /* what of the entry this module holds (TC_PART_*, lower_programs.c) */
    uint32_t threads;        /* threads the tile layouts spread over (warps(N) x 32) */
    uint32_t bar_threads;    /* nonzero: lw_barrier is a named barrier of this many */
    LVal *vals;              /* one per IR value */
    LLVMValueRef smem;       /* placeholder shared array, replaced at the end */
    uint32_t smem_bytes;     /* high-water mark */
    LLVMValueRef tid;
    uint32_t ntmaps, tma_param0; /* hidden tensor-map parameters (wgmma_tma_maps) and the first's index */
    int tmaps_round;             /* A's and B's maps have TcTmap.round (A's alone, -fno-wgmma-preround-b): a
                                  * launch may pass those views rounded */
    uint32_t tma_store;          /* the store that goes by TMA through map 2 (-fwgmma-tma-store), or 0 */
    int tmaps_pre;               /* the pipeline took them so (Pipe.pre); else TcTmap.round is cleared */
    int tmaps_required;          /* the pipeline copies by TMA only (Pipe.tma_only) */
    int tma_store_own;           /* wg_tma_store kept the kernel's own stores beside the TMA's (tested at
                                  * run time): C's map optional (TcTmap.optional) */
    /* -fpersistent (lower.c, lw_programs): the kernel loops over the launch's programs */
    int persist;                 /* 0: one program per block; PERSIST_LOOP, PERSIST_ROLES */
    int cluster;                 /* -fwgmma-cluster applies: blocks in pairs along x (lower_wgmma_cluster.c) */
    uint32_t grid_param0;        /* the hidden parameters: the launch's grid, 3 x i32 */
    LLVMValueRef prog[3], nprog[3]; /* program_id and num_programs of the program being run */
    LLVMValueRef peer_prog[3];   /* cluster, persistent: the peer block's program (index ^ 1) */
    LLVMValueRef prog_added;     /* cluster, persistent: i1, the program is the one past the grid that
                                  * pairs the last (wg_cluster_extra) */
    int role;                    /* PERSIST_ROLES: the half of the kernel being lowered (LW_PRODUCERS,
                                  * LW_CONSUMERS), each with its own loop over the programs */
    int persist_refused;         /* PERSIST_ROLES over the shared memory limit (the epilogue's
                                  * above the ring): lower_kernel starts again without */
    int no_persist;              /* that second attempt */
    int stop;                    /* the role's lowering is complete (the producers' after the pipeline) */
    LLVMBasicBlockRef role_entry; /* the role's block before its loop (setmaxnreg goes there) */
    LLVMBasicBlockRef prog_pre, prog_head; /* the loop's entry and head */
    LLVMBasicBlockRef next_prog; /* the loop's latch: where a role's program ends */
    LLVMValueRef carried[4], carried_next[4]; /* more values the loop carries (lw_programs_carry) */
    uint32_t ncarried;
    uint32_t smem_floor;         /* smem_ptr() allocates above it (persist: the pipeline's ring and
                                  * barriers stay in use while the consumers store C) */
    /* lower_order.c: the global memory accesses since the last barrier */
    MemAccess pending[LW_MAX_PENDING];
    uint32_t npending;
    /* debug info */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef difile, dicu, disp;
    /* per-kernel allocations (register arrays) */
    void **allocs;
    size_t nallocs, cap_allocs;
    int failed;
} Lower;

enum { PERSIST_LOOP = 1, PERSIST_ROLES = 2 };
enum { LW_PRODUCERS = 1, LW_CONSUMERS = 2 };

/* lower_programs.c: persistent kernels (L->persist) */
/* How kernel k runs under -fpersistent, launching `launch` threads per
 * block: 0 (not persistent; a remark says why), PERSIST_LOOP or
 * PERSIST_ROLES (a pipeline's roles, each in a loop of its own). */
int lw_persist_mode(Lower *L, const TirKernel *k, uint32_t launch);
/* The kernel's body, in the loop over the programs where L->persist; ends
 * the function. */
void lw_lower_body(Lower *L, const TirKernel *k);
/* Starts fn's body: the kernel's parameters and thread index (lower.c). */
void lw_begin_function(Lower *L, LLVMValueRef fn);
/* Leaves in the module only what part L->part holds (after lower_kernel);
 * 0 where that is nothing (a part whose entry has no role functions). */
int lw_keep_part(Lower *L);
/* The generic address of tensor-map parameter `param` (lower_wgmma_tma.c). */
LLVMValueRef lw_tmap_addr(Lower *L, uint32_t param);
/* The hidden grid parameters, described at the top of the PTX. */
void lw_describe_programs(Lower *L, const char *kernel);
/* A value the loop over the programs carries, `init` at the
 * first program; returns its phi (at the loop's head), whose value for the
 * next program lw_programs_next() sets. */
LLVMValueRef lw_programs_carry(Lower *L, LLVMValueRef init);
void lw_programs_next(Lower *L, LLVMValueRef phi, LLVMValueRef next);
void *lw_alloc(Lower *L, size_t bytes);
LLVMValueRef *lw_regs(Lower *L, uint32_t n);
void lw_error(Lower *L, TirLoc loc, const char *fmt, ...);
LLVMValueRef lw_const_i32(Lower *L, int64_t v);
LLVMValueRef lw_const_i64(Lower *L, int64_t v);
/* a constant of float element type e from a TirInst.fval: for f32 its bits
 * as the source gave them (a signalling NaN stays one, tir_f32_bits) */
LLVMValueRef lw_const_float(Lower *L, TirElem e, double v);
LLVMTypeRef lw_elem_type(Lower *L, TirElem e);
LLVMValueRef lw_call(Lower *L, const char *intrinsic, LLVMTypeRef *overload, unsigned noverload, LLVMValueRef *args,
                     unsigned nargs);
/* Inline PTX; flags: LW_ASM_* */
#define LW_ASM_CONVERGENT   1 /* warp-collective: never moved across control flow */
#define LW_ASM_SIDE_EFFECTS 2 /* never removed, merged or reordered with other side effects */
LLVMValueRef lw_asm(Lower *L, LLVMTypeRef ret, const char *tmpl, const char *constraints, LLVMValueRef *args,
                    unsigned nargs, int flags);
/* s[0..n) as text in an asm template (its '$' doubled: a '$' there is an
 * operand's), into out (cap bytes, cut short to fit, always terminated). */
void lw_asm_text(char *out, size_t cap, const char *s, size_t n);
void lw_barrier(Lower *L);

/* lower_order.c: barriers between a program's global memory accesses that
 * may meet in one element from two threads. lw_order_access() before load
 * or store `inst` (its view operand view_arg; lay NULL: the threads that
 * access an element are not known, e.g. a TMA store); the loop hooks around
 * a loop's body, the pipeline one before a wgmma loop; reset at a program's
 * start (programs are not ordered with each other). */
void lw_order_access(Lower *L, uint32_t inst, uint32_t view_arg, const Layout *lay, int store);
void lw_order_loop_enter(Lower *L, uint32_t body, MemPending *saved);
void lw_order_loop_exit(Lower *L, uint32_t body, const MemPending *saved);
void lw_order_pipeline(Lower *L, uint32_t body);
void lw_order_reset(Lower *L);
const LVal *lw_val(Lower *L, uint32_t v);
void lw_set(Lower *L, uint32_t v, LVal lv);
void lw_lower_block(Lower *L, uint32_t block);
/* Lowers instruction i alone (its operands lowered; lower_wgmma_cluster.c
 * lowers a scalar expression again for the peer block's program). */
void lw_lower_inst(Lower *L, uint32_t i);

/* lower_layout.c */
LLVMValueRef layout_base_row(Lower *L, const Layout *l);
LLVMValueRef layout_base_col(Lower *L, const Layout *l);
/* Whether every thread's first column (layout_base_col) is even. */
int layout_cols_even(const Layout *l);
/* Registers holding neighbours in a row, the left one at an even column of
 * the tile, where the layout starts every thread at an even column (so a
 * pair is one aligned vector where the matrix allows): pair[r] is the right
 * one's register, PAIR_RIGHT for that one, PAIR_NONE for the rest; pair has
 * layout_nregs() entries. Returns the number of pairs. */
#define PAIR_NONE  UINT32_MAX
#define PAIR_RIGHT (UINT32_MAX - 1)
uint32_t layout_pairs(const Layout *l, uint32_t *pair);
/* nperm's first row of 16-row group G for lane group g (i32 values);
 * layout_nperm_group(G) is its part from G alone (the offset of group
 * G0 + blk from G0 where G0 is even). */
LLVMValueRef layout_nperm_row(Lower *L, LLVMValueRef G, LLVMValueRef g);
static inline uint32_t layout_nperm_group(uint32_t G) { return G / 2 * 32 + G % 2 * 8; }
/* i1: this thread's register r holds an element of the tile that no other
 * thread writes (NULL = always true). */
LLVMValueRef layout_owns(Lower *L, const Layout *l, uint32_t r, LLVMValueRef base_row);
/* Shared memory of at least `bytes`, 16-byte aligned, starting at offset
 * L->smem_floor, 0 but after a persistent pipeline (each use is bracketed
 * by barriers, so uses may overlap: every call hands out the same bytes, and
 * a caller must have what it needs in registers before calling anything
 * that may use them too, lw_tile_in's conversions among them: lower_DOT). */
LLVMValueRef smem_ptr(Lower *L, uint32_t bytes);
/* Registers of IR value v in layout `to` (converting through shared memory
 * when needed). */
LLVMValueRef *lw_tile_in(Lower *L, uint32_t v, const Layout *to);
/* The shared memory a tile of type t takes on its way from one layout to
 * another (lw_tile_in, lw_relayout_band: rows padded against bank
 * conflicts). */
uint32_t lw_relayout_bytes(TirType t);
/* Band q of `band` rows (rows [band q, band (q + 1)) of a tile of type t,
 * band a multiple of lw_band_rows(from)) held as regs in layout `from`, in
 * layout `to` of a band x cols tile: through shared memory (smem_ptr,
 * lw_relayout_bytes of the band), between barriers. `to` is shared by no
 * two threads (BLOCKED, tr dividing band), every register of `from` held by
 * one thread. */
LLVMValueRef *lw_relayout_band(Lower *L, LLVMValueRef *regs, const Layout *from, const Layout *to, TirType t,
                               uint32_t band, uint32_t q);
/* The rows a band must be a multiple of: 8 where each thread's base row is
 * below 8 and its registers' rows fall in whole bands of 8 (an MMA layout
 * with one warp down its rows: the swapped product's accumulators), else
 * the whole tile. */
uint32_t lw_band_rows(const Layout *l);
/* The layout a tile value has (or the default blocked layout for splats and
 * broadcasts). */
Layout lw_layout_of(Lower *L, uint32_t v);
/* Writes a tile's owned registers to shared memory as a row-major
 * rows x ld array of elem (no barriers). */
void smem_store_tile(Lower *L, LLVMValueRef base, uint32_t ld, LLVMValueRef *regs, const Layout *l, TirElem e);

/* lower_mem.c: the 2-D part of a load or store (operand view_arg is the
 * view, the indices follow it): base pointer of the addressed matrix (a
 * batched view's batch applied), its extents and strides, the tile origin,
 * and whether any element exists. i64 values. */
typedef struct {
    LLVMValueRef base, d0, d1, s0, s1, i0, i1, nonempty;
} Access;
Access lw_access(Lower *L, const TirInst *in, uint32_t view_arg, TirElem e);
/* lower_wgmma_tma.c: store i by TMA (-fwgmma-tma-store, L->tma_store), or
 * through the same shared-memory bands by the consumers where a launch
 * gives no map for it */
void wg_tma_store(Lower *L, uint32_t i);
/* lower_mem.c: one st.global of v (element type e) at the integer address
 * row + col where rok and cok are both true */
void lw_store_if(Lower *L, LLVMValueRef rok, LLVMValueRef cok, LLVMValueRef row, LLVMValueRef col, LLVMValueRef v,
                 TirElem e);
/* 0 <= x < d (i64, signed) */
LLVMValueRef lw_in_range(Lower *L, LLVMValueRef x, LLVMValueRef d);

/* lower_dot.c: the layout a dot's result gets (MMA, or blocked for FMA). */
Layout dot_result_layout(Lower *L, uint32_t inst);
/* One k step of mma.sync (8 for f32 tiles, .tf32; 16 for f16/bf16) on
 * tiles of element type e in shared memory: A's rows of pitch lda at a, B's
 * rows of pitch ldb at b (in elements), from column (row) k0 of A (B), into
 * the accumulators acc of layout lay (row0, col0: layout_base_row/col);
 * each f32 fragment read as it is, or with round (LW_FRAG_*) half a TF32 ulp
 * added for the tensor core's truncation to complete, or split for 3xtf32
 * (lower_mma_pipeline.c). */
enum { LW_FRAG_AS_IS, LW_FRAG_RNA, LW_FRAG_RNE, LW_FRAG_X3 /* 3xtf32's split and three MMAs */ };
void lw_mma_smem_step(Lower *L, LLVMValueRef a, uint32_t lda, LLVMValueRef b, uint32_t ldb, TirElem e,
                      const Layout *lay, LLVMValueRef row0, LLVMValueRef col0, int round, LLVMValueRef k0,
                      LLVMValueRef *acc);
/* lower_mma_pipeline.c: a loop marked by pass_mma. */
void lower_mma_loop(Lower *L, uint32_t inst);

/* lower_mem.c, lower_dot.c, lower_ewise.c: one function per op, named from
 * the ops table (lower.c builds the dispatch table from ir/ops.h). */
#define OP(e, name, nargs, flags) void lower_##e(Lower *L, uint32_t inst);
#include "ir/ops.h"
#undef OP

/* Element-wise scalar arithmetic shared by ops and reductions. */
LLVMValueRef ew_apply(Lower *L, TirOp op, TirElem e, LLVMValueRef *x, int n, const TirInst *in);
LLVMValueRef ew_convert(Lower *L, LLVMValueRef x, TirElem from, TirElem to);

/* lower_wgmma.c: a loop marked by pass_wgmma, and the producer threads a
 * kernel launches beside its warps(N) for it (0 when it has no such loop). */
void lower_wgmma_loop(Lower *L, uint32_t inst);
uint32_t wgmma_producer_threads(const TirModule *m, const TirKernel *k, const TcOptions *o);
/* Whether kernel k's pipeline can run persistent (-fpersistent): the swapped
 * product's or the f16/bf16 one, not the older pipeline's. */
int wgmma_persistable(const TirModule *m, const TirKernel *k, const TcOptions *o);
/* Whether kernel k's pipeline is the swapped product's (f32 inputs). */
int wgmma_f32_pipeline(const TirModule *m, const TirKernel *k, const TcOptions *o);
/* lower_wgmma_cluster.c: why -fwgmma-cluster cannot apply to kernel k,
 * persistent (lw_persist_mode) or not (NULL: it can; the option itself is
 * the caller's to check). */
const char *wg_cluster_refusal(const TirModule *m, const TirKernel *k, const TcOptions *o, int persistent);
/* i1: this block runs the program a cluster launch added to pair the
 * last (one program a block: TC_TMAP_FLAG_EXTRA_X and the last block along
 * x; persistent: the program past the grid): its views read as empty, so
 * that it stores nothing (lower_VIEW). */
LLVMValueRef wg_cluster_extra(Lower *L);
/* What kernel k's pipeline will be, before any IR (L: m, o, threads, ntmaps
 * and tmaps_round set): whether it takes a second entry point for launches
 * whose views come rounded (Pipe.pre) and whether it copies by TMA alone
 * (-fwgmma-tma-only applies); 0 where the kernel has no pipeline. */
int wgmma_probe(Lower *L, const TirKernel *k, int *pre, int *tma_only);

/* lower.c: entry point `rounded` (0: the kernel as written; 1: for views
 * that come rounded) of kernel ki, or `part` of it (TC_PART_*), alone in an
 * LLVM context of its own, optimized and emitted: out's PTX (NULL for a
 * part left with nothing), IR and times, the kernel's facts in *info (ki
 * UINT32_MAX: an empty module). 0, or -1 with errors in d. Thread-safe:
 * entries.c runs several at once. */
int lw_lower_entry(const TirModule *m, const TcOptions *o, uint32_t ki, int rounded, int part, TcLowered *out,
                   TcKernelInfo *info, Diag *d);
/* Whether kernel ki has the entry for views that come rounded, and the
 * parts each of its entries compiles in: 2 where -frole-functions splits
 * off its producers (lower_programs.c), else 1. Asked before lowering,
 * from one look at its pipeline. */
void lw_entry_shape(const TirModule *m, const TcOptions *o, uint32_t ki, int *rounded, int *parts);

/* codegen.c */
int tc_codegen(Lower *L, LLVMModuleRef mod, TcLowered *out);
/* LLVM's one-time set-up (its NVPTX target, options, the globals it makes
 * at first use); tc_codegen calls it, entries.c before its threads start. */
void tc_codegen_init(void);

#endif
