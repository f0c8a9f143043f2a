/*
 * The compiler: options, the pass pipeline, and the LLVM lowering.
 * compiler/pipeline.c lists every stage in order; each pass lives in its own
 * file and states what it needs and guarantees.
 */
#ifndef TILEC_COMPILER_H
#define TILEC_COMPILER_H

#include "ir/ir.h"

typedef enum { ARCH_SM80 = 80, ARCH_SM90A = 90 } TcArch;

typedef struct {
    TcArch arch;               /* default sm_90a */
    TirPrecision precision;    /* default for dots without an attribute; default tf32-rna */
    int opt_level;             /* 0..3, default 3 */
    int verify;                /* run the verifier between passes (default on) */
    int remarks;               /* --remarks: passes say in the log what they did and why not */
    int line_info;             /* .loc lines in the PTX (default on) */
    int prefetch;              /* pass_prefetch (default off; -fprefetch) */
    int wgmma;                 /* sm_90a: pass_wgmma pipelines GEMM loops (default on; -fno-wgmma) */
    int mma_pipeline;          /* pass_mma pipelines the GEMM loops wgmma does not take, with cp.async and
                                * mma.sync (sm_80's, default on; -fno-mma-pipeline) */
    int wgmma_hoist;           /* experimental (-fwgmma-hoist, default off): producer address terms
                                * hoisted, unchecked 4-byte copies for misaligned inside tiles */
    int wgmma_unaligned;       /* sm_90a (default on; -fno-wgmma-unaligned): where A or B is not 16-byte
                                * aligned (odd row strides), the swapped product's producers run a loop
                                * of their own that copies the tiles inside the matrix without
                                * per-element checks (2.7x on 8191x8193x8190) */
    int wgmma_roles;           /* sm_90a (default on; -fno-wgmma-roles): where the swapped product has two
                                * producer warpgroups, one copies every step and the other rounds
                                * every step (else each does both for every other step) */
    int wgmma_round_b;         /* experimental (-fwgmma-round-b): with the roles, tf32-rna/rne, the rounding
                                * warpgroup rounds B in place too, so the consumers only load it */
    int wgmma_kmajor_b;        /* sm_90a (default on; -fno-wgmma-kmajor-b): a tf32 GEMM loop whose B is
                                * K-major (its view's k stride the constant 1) copies B as it copies A and
                                * takes both wgmma operands from shared memory (lower_wgmma_kmajor.c); an
                                * f16/bf16 one copies B as A and reads it without the transpose bit */
    int wgmma_mmajor_a;        /* sm_90a (default on; -fno-wgmma-mmajor-a: element copies): a GEMM loop
                                * whose A is M-major (its view's m stride the constant 1: A^T @ B's A)
                                * copies A^T as a row-major B; f16/bf16 read it with wgmma's transpose
                                * bit for A, f32's producers transpose it in shared memory */
    int wgmma_split;           /* sm_90a (default on; -fno-wgmma-split-stage): the swapped product's
                                * consumers issue a stage's wgmmas in two groups, loading the second's
                                * fragments while the first runs, where a stage has 8 wgmmas or more */
    int wgmma_k_overlap;       /* sm_90a (default on; -fno-wgmma-k-overlap): the swapped product's tf32 consumers
                                * issue a wgmma group per two k8 steps and wait only for the group
                                * before (wait_group 1), so a group's fragments load while the group
                                * before runs, across stages too; not at BM 256 (m64n256 wgmmas:
                                * 256x128 -40% for tf32-rna on the H200, bench/NOTES.md v13, v14) */
    int wgmma_ffma;            /* sm_90a (default on; -fno-wgmma-ffma): ieee dots on the pipeline too, its
                                * consumers computing with fp32 FMAs from the stages */
    int wgmma_cluster;         /* experimental (-fwgmma-cluster; on the H200 as fast as without, its GPU
                                * tests not yet passed, bench/NOTES.md v20): blocks in clusters of two
                                * that share B's copies (TMA multicast; lower_wgmma_cluster.c says where) */
    int wgmma_one_producer;    /* experimental (-fwgmma-one-producer; not yet run on a GPU): the swapped
                                * f32 pipeline with one producer warpgroup that issues and finishes
                                * every step (384 threads at 8 warps, as cuBLAS's TF32 kernel), where it
                                * would take two (bench/NOTES.md v20) */
    int wgmma_ffma_wide;       /* experimental (-fwgmma-ffma-wide; slower on the H200, bench/NOTES.md v20,
                                * its GPU tests pass): the FMA consumers
                                * also take 8 x 16 a thread where 8 x 8 cannot cover the tile (256x128,
                                * 128x256 with 8 warps; cuBLAS SGEMM's thread tile) */
    int wgmma_half;            /* sm_90a (default on; -fno-wgmma-half): f16/bf16 dots on the pipeline,
                                * both wgmma operands from shared memory (lower_wgmma_ss.c) */
    int wgmma_half_two_producers; /* experimental (-fwgmma-half-two-producers; timed in session 7, its
                                * gpu_test_gemm run timed out before the f16/bf16 cases):
                                * two producer warpgroups for f16/bf16 where the registers allow */
    int wgmma_tma;             /* sm_90a (-fwgmma-tma): the swapped product's producers copy A and B with
                                * TMA through tensor maps in hidden kernel parameters (TcTmap), which
                                * also rounds them for tf32-rne */
    int wgmma_tma_b128;        /* with -fwgmma-tma (default on; -fno-wgmma-tma-b128: 8-column panels, one
                                * box of 32-byte rows, slower than no TMA): f32 B's stage tile as
                                * 32-column panels under the 128-byte swizzle, a box 128 bytes wide
                                * each; the accumulators' rows permuted so that the consumers' B
                                * fragment reads are 8-byte loads without bank conflicts */
    int wgmma_tma_direct;      /* experimental (-fwgmma-tma-direct; passes gpu_test_gemm on the H200,
                                * timings mixed): with TMA, tf32-trunc/rne's consumers wait on the barriers
                                * the copies complete on, with no producer warpgroup between
                                * (nothing to round) */
    int wgmma_tma_only;        /* -fwgmma-tma-only (the JIT adds it, runtime/api.c): with TMA, the
                                * pipeline has no copies of its own (and tf32-rne no rounding of its
                                * own) where the compiler proves every program's boxes aligned (the
                                * loop's first k a constant, B's first column a known multiple of the
                                * panel): a launch must then pass every map encoded but an optional
                                * one (TcKernelInfo.tma_required, TcTmap.optional), else the kernel
                                * traps. Compiles in about two thirds of the time (bench/NOTES.md v18) */
    int wgmma_tma_store;       /* -fwgmma-tma-store (the JIT adds it, runtime/api.c): the f32 swapped
                                * product's accumulators stored by TMA where the loop's result goes
                                * straight to a rank-2 or batched f32 view: bands of rows through a
                                * buffer in shared memory, each band a box per 32 columns, through a
                                * third tensor map (TcTmap.store); the kernel's own stores where that
                                * map is not encoded (with -fwgmma-tma-only none, the map required,
                                * where the store's first column is proven a multiple of 4; else the
                                * map optional, TcTmap.optional) */
    int wgmma_tma_store_two;   /* experimental (-fwgmma-tma-store-two-buffers): the store's bands as tall as
                                * two buffers of them fit (the TMA reads one while the next is written),
                                * not the tallest band that fits once (128x256's 4 stages: 8 rows twice,
                                * not 16 rows once) */
    int persistent;            /* -fpersistent: a grid of as many blocks as the GPU runs at once, each
                                * taking the launch's programs in turn (program b, then b + the blocks
                                * launched, ...); a GEMM pipeline's producers then copy the next
                                * program's first stages while the consumers store C
                                * (lower_programs.c). Default TC_PERSISTENT_AUTO: where the kernel has
                                * the f32 wgmma pipeline (bf16's measured slower at 8192^3);
                                * -fno-persistent: never */
    int role_functions;        /* default on (-fno-role-functions; the same kernel speed on the H100, 40%
                                * less compile on 16 cores, bench/NOTES.md v24): a persistent pipeline's
                                * producers (lower_programs.c) lowered as a function of their own, optimized
                                * and emitted apart on a thread of its own, its PTX then spliced into the
                                * entry (ptx_splice.c; bench/NOTES.md v21) */
    int wgmma_x3_halves;       /* experimental (-fwgmma-x3-halves; 2-4% slower on an H100, bench/NOTES.md v40):
                                * 3xtf32's wgmmas as two chains, each on half of the accumulators
                                * (m64n{BM/2}), issued in turns, not one chain m64n{BM} */
    int wgmma_x3_rest_test;    /* experimental (-fwgmma-x3-rest-test; 3-7% slower on an H100, bench/NOTES.md
                                * v41): 3xtf32's split takes its short path where the sum of the rests
                                * x - big is finite, not by a compare an element (wg_split_batch; the
                                * same bits) */
    int wgmma_unmasked;        /* default on (-fno-wgmma-unmasked-rounding: masked): the pipelines' RNA
                                * rounding in integers leaves the low 13 bits of a copy only the tensor
                                * cores read ((x + 0x1000), not & 0xFFFFE000: they drop those bits
                                * themselves, DESIGN.md 5); 3xtf32's big, which makes the rest, masked,
                                * its hic the unmasked value (no copy of big where the paths join);
                                * 3xtf32 +1-3% on an H100, bench/NOTES.md v41 */
    int wgmma_x3_sum2;         /* experimental (-fwgmma-x3-sum2): 3xtf32's part sums over two stages of
                                * the swapped product, one RN add into the accumulators every second
                                * step (its error ~1.5x: 64 products a part sum, not 32) */
    int wgmma_x3_one_group;    /* default on (-fno-wgmma-x3-one-group: two groups, each waited for;
                                * +1-4% on the H200, bench/NOTES.md v25): 3xtf32's consumers issue a
                                * stage's 12 wgmmas per block as one group, one wait a stage */
    int wgmma_ffma_transpose_b; /* default on (-fno-wgmma-ffma-transpose-b: the FMA consumers read B^T's
                                * rows, 8 columns a thread): ieee with a K-major B, whose B^T rows the
                                * producers copy as A's, has them transposed in place into a row-major
                                * B's 32-column panels by the producer warpgroup that has nothing to
                                * round, and the consumers read them as they read a row-major B's
                                * (lower_wgmma_swapped.c, bt_transpose; bench/NOTES.md v39) */
    int wgmma_serial;          /* -1 (default): at -O0 only; -fwgmma-serial / -fno-wgmma-serial: always /
                                * never. Every wgmma group waited for inside its own asm statement (no
                                * k-overlap, no split stages): LLVM's -O0 code generation copies values
                                * between asm statements, and a copy of an accumulator still in flight
                                * reads what the PTX ISA leaves undefined. -fno-wgmma-serial at -O0 gives
                                * the optimized pipeline's structure in unoptimized IR, for reading it
                                * (scripts/hosttrace.py), not PTX to run */
    int wgmma_preround_a;      /* default on (-fno-wgmma-preround-a: experimental, bench/NOTES.md v33): a
                                * tf32-rna launch that pre-rounds copies A rounded as well as B; off, only B
                                * is copied rounded, and the entry for rounded views has its rounding
                                * warpgroup round A in shared memory, as the kernel's own entry does */
    int wgmma_preround_b;      /* default on (-fno-wgmma-preround-b: experimental, 10-20% slower at 8192^3
                                * on an H100, bench/NOTES.md v30): a tf32-rna launch
                                * that pre-rounds (runtime/stage.h) copies B rounded as well as A, and the
                                * entry for rounded views leaves B as it loads; off, only A is copied
                                * rounded (A feeds the tensor cores from shared memory, where rounding
                                * it costs a pass) and both entries round B in the consumers' registers
                                * (TcTmap.round on A's map alone) */
    int wgmma_swapped;         /* sm_90a: the swapped product C^T = B^T A^T (default on;
                                * -fno-wgmma-swapped: the older pipeline; lower_wgmma.h) */
    int stages;                /* pipeline stages (--stages=N, 2..8); 0 = as many as fit, at most 4 (6 for f16/bf16) */
    unsigned dump_after;       /* the passes whose tile IR to record: bit i = tc_pass_names[i] (--dump-after,
                                * a list; repeated, the lists add up); 0: none */
    TirDefines defines;        /* -DNAME=VALUE: the source's $NAME constants (tile shapes, ...) */
    int jobs;                  /* --jobs=N: entry points compiled at once, on threads (0, the default:
                                * one per CPU, at most TC_MAX_JOBS); the output is the same bytes */
    int keep_llvm_ir;          /* print the LLVM IR into TcResult.llvm_ir (default on; the command line
                                * turns it off unless --emit=llvm: printing the GEMM's module is ~3 ms) */
    int stop_after;            /* TC_STOP_PARSE | TC_STOP_PASSES: tc_compile returns (0) with the tile IR
                                * of that stage and nothing lowered (--emit=tir-input, --emit=tir: the
                                * IR of a kernel that fails to lower can still be read); 0: the whole
                                * compile */
} TcOptions;

enum { TC_STOP_PARSE = 1, TC_STOP_PASSES = 2 };

enum { TC_PERSISTENT_AUTO = 2, TC_MAX_JOBS = 64 };
/* The programs of grid g (x * y * z; 0 counts as 1, an axis a grid(...)
 * attribute leaves out): exact up to INT32_MAX, past it some larger count
 * (x * y first, under 2^64; z only where that is not past INT32_MAX, so
 * nothing wraps). A persistent kernel takes at most INT32_MAX. */
static inline uint64_t tc_grid_programs(const uint32_t g[3])
{
    uint64_t n = (uint64_t)(g[0] ? g[0] : 1) * (g[1] ? g[1] : 1);
    return n > INT32_MAX ? n : n * (g[2] ? g[2] : 1);
}
/* the passes --dump-after names, in pipeline order; NULL-terminated */
extern const char *const tc_pass_names[];
/* TcOptions.dump_after's bit for the pass named name[0..n), 0 for none */
unsigned tc_pass_bit(const char *name, size_t n);
void tc_options_default(TcOptions *o);
/* Parses one option in the command's spelling ("--arch=sm_80", "-O2", ...).
 * Returns 0, or -1 with an explanation appended to err. Shared by the
 * command line and the library so both accept exactly the same names. */
int tc_option_parse(TcOptions *o, const char *opt, StrBuf *err);
/* The canonical option string (for cache keys and dumps). */
void tc_options_str(const TcOptions *o, StrBuf *out);
const char *tc_arch_name(TcArch a); /* "sm_80", "sm_90a" */

/* A TMA tensor map that a kernel reads from a hidden parameter (the sm_90a
 * f32 pipeline, -fwgmma-tma): the runtime encodes it at each launch from the
 * arguments (runtime/tmap.c). It describes a rank-2 (or batched rank-3)
 * view, row-major (encoded only where the column stride is 1); each of its
 * scalars is a parameter's value (param >= 0: an i32 or i64 parameter,
 * sign-extended) or a constant (param < 0). */
typedef struct {
    int32_t param;
    int64_t value;
} TcTmapScalar;

typedef enum {
    /* rank 2: dims {d1, d0}, byte strides {esize * s0}, box {box[0],
     * box[1]}, 128-byte swizzle (box[0] x esize = 128 bytes: a K-major
     * stage layout, or f16/bf16 B's N-major panels) */
    TC_TMAP_ROWS,
    /* rank 3: dims {8, d0, d1 / 8}, byte strides {4 * s0, 32}, box {8,
     * box[1], box[2]}, no swizzle: panels of 8 columns (f32 B's stage
     * layout) */
    TC_TMAP_PANELS,
} TcTmapKind;

/* The element type: FLOAT32, TFLOAT32 (the copy rounds f32 to nearest
 * even), FLOAT16, BFLOAT16. */
typedef enum { TC_TMAP_F32, TC_TMAP_TF32, TC_TMAP_F16, TC_TMAP_BF16 } TcTmapType;
/* "f32", "tf32", "f16", "bf16"; "?" for another value */
static inline const char *tc_tmap_type_name(unsigned t)
{
    static const char *const names[] = {"f32", "tf32", "f16", "bf16"};
    return t <= TC_TMAP_BF16 ? names[t] : "?";
}

typedef struct {
    uint8_t kind;        /* TcTmapKind */
    uint8_t dtype;       /* TcTmapType */
    uint8_t batched;     /* a rank-3 view: one more, outermost dimension {db} with byte stride esize * sb
                          * (box 1), for the batch */
    uint16_t box[3];
    uint32_t base_param; /* the ptr<f32> (ptr<f16>, ptr<bf16>) parameter */
    TcTmapScalar d0, d1, s0, s1; /* the view's extents and strides, in elements (encoded only for s1 = 1) */
    TcTmapScalar db, sb;     /* batched: the batch extent and stride, in elements */
    /* Staging (runtime/stage.h): where a launch's rows are not 16-byte
     * aligned, the runtime may copy the view to a buffer whose rows are and
     * pass that buffer and its row stride in place of base_param and s0's
     * parameter. stage = 1 only where that changes nothing else: the kernel
     * reads base_param through this view's loads alone (nothing stores
     * through it) and s0 is a parameter that nothing else uses. */
    uint8_t stage;
    /* Pre-rounding (runtime/stage.h): 1 where the kernel rounds this view's
     * elements to tf32 (RNA) before any use (a stageable view read only by
     * the one load that feeds a tf32-rna dot). A launch may then pass a
     * staged copy already rounded, and set flag bit 16 + i: where the bits
     * of every map with this set are set, it launches the kernel's entry
     * for rounded views (TcKernelInfo.rounded), which skips their rounding
     * (the same bits reach the tensor cores either way). A's and B's maps,
     * or A's alone with -fno-wgmma-preround-b. */
    uint8_t round;
    /* 1: the kernel stores through this map (-fwgmma-tma-store: C's view, a
     * ROWS map of 32 columns by a band of rows); never staged or rounded */
    uint8_t store;
    /* 1 (a store map of a kernel with TcKernelInfo.tma_required): the
     * kernel runs without this map too, its own stores beside the TMA's (the
     * store's first column is not proven a multiple of 4: tested at run
     * time, the flag bit with it); the launch needs the other maps alone */
    uint8_t optional;
    uint8_t walk;    /* the dimension the kernel's loop walks (0: rows, 1: columns) */
    uint16_t across; /* a program's extent along the other one (its tile's rows or columns) */
} TcTmap;

/* The hidden parameters a kernel with ntmaps > 0 takes after its declared
 * ones: ntmaps tensor maps (.param .align 64 .b8 [128] each), then a u32
 * whose bit i says map i was encoded and bit 16 + i that map i's view holds
 * values already rounded to tf32 (RNA; only for maps with TcTmap.round).
 * The kernel copies by TMA only where bits 0 and 1 (A's and B's maps) are
 * set, and stores C by TMA (map 2, -fwgmma-tma-store) only where bit 2 is
 * (else its own copies and stores: zeros are always safe). The bits 16 + i are the launcher's:
 * where every one is set, it launches the kernel's entry for rounded views
 * (TcKernelInfo.rounded), which reads what it is given (by TMA or by its own
 * copies) as rounded already; the kernel's own entry always rounds. */
#define TC_TMAP_FLAG_ROUNDED(i) (1u << (16 + (i)))
/* Bit 31 (TcKernelInfo.cluster): the launch rounded grid x up by one
 * program to pair the blocks; that last program along x stores nothing. */
#define TC_TMAP_FLAG_EXTRA_X (1u << 31)
/* That entry's name: the kernel's and this ('$' is in no kernel's name). */
#define TC_ROUNDED_SUFFIX "$rounded"
/* A persistent pipeline's producers as a function of their own
 * (-frole-functions): the entry's name and this; its PTX body goes into the
 * entry at the marker below. */
#define TC_ROLE_PRODUCERS "$producers"
/* The entry's inline-asm line where that function's body goes (ptx_splice.c),
 * followed by the function's name. */
#define TC_SPLICE_MARK "// tilec: the body of "
/* What of an entry point one LLVM module holds (compiler/entries.c): all of
 * it, or, where its producers are a function, the entry (MAIN) or that
 * function. */
enum { TC_PART_ALL, TC_PART_MAIN, TC_PART_PRODUCERS };
typedef struct {
    char *name;
    unsigned threads;
    unsigned shared_bytes; /* dynamic shared memory per program */
    unsigned grid[3];
    unsigned char persistent; /* -fpersistent: the grid goes to 3 hidden i32 parameters (after the
                               * tensor maps' flags), and at most as many blocks as run at once
                               * take its programs in turn (lower_programs.c) */
    unsigned nparams;
    TirType *params;       /* nparams types */
    unsigned ntmaps;
    TcTmap *tmaps;         /* ntmaps */
    unsigned char tma_required; /* -fwgmma-tma-only applied: a launch must pass every tensor map
                                 * encoded (flag bits 0 .. ntmaps - 1 set) but the optional ones
                                 * (TcTmap.optional), else the kernel traps */
    unsigned char cluster; /* -fwgmma-cluster applied: the entry runs as clusters of this many blocks
                            * along x (2; its .reqnctapercluster): the launch rounds grid x up to a
                            * multiple, else 0 */
    unsigned char rounded; /* the PTX has a second entry, name TC_ROUNDED_SUFFIX, with the same
                            * parameters, launch shape and shared memory, for launches whose views
                            * that may come rounded all do (the TC_TMAP_FLAG_ROUNDED of every map with
                            * TcTmap.round: A's and B's, or A's alone with -fno-wgmma-preround-b) */
} TcKernelInfo;

typedef struct {
    char *tir_input;   /* tile IR as parsed (printed) */
    char *tir;         /* after all passes */
    char *tir_passes;  /* after each pass dump_after names, else "" */
    char *llvm_ir;     /* after optimization */
    char *ptx;
    TcKernelInfo *kernels;
    unsigned nkernels;
    double ms_parse, ms_passes, ms_lower, ms_opt, ms_codegen; /* stage times (lower, opt, codegen: summed
                                                               * over the entry points, which compile
                                                               * on several threads at once) */
    double ms_entries;   /* the entry points' stage as it took, start to end (compiler/entries.c) */
    unsigned nentries, threads; /* the PTX entry points, and the threads that compiled them */
    char *unit_times;    /* a line per unit compiled on its own (an entry point, or a part of one), its
                          * stage times: on enough CPUs the longest sets ms_entries (NULL: not reached,
                          * or out of memory) */
} TcResult;

/* Milliseconds on the monotonic clock: the stage times above, ptxas's time limit. */
double tc_now_ms(void);

/* Runs the whole pipeline on .tir source. Returns 0 on success; otherwise
 * nonzero with diagnostics in log. Thread-safe (no global mutable state
 * besides LLVM's one-time target initialization). On failure, whatever
 * stages completed are still in *out (so a user can see the IR that failed
 * to lower). */
int tc_compile(const char *file, const char *src, size_t len, const TcOptions *opts, TcResult *out, StrBuf *log);
void tc_result_free(TcResult *r);

/* ptx_splice.c: entry_ptx (len bytes) with the body of function fn, defined
 * in fn_ptx, in place of its one call (the entry's name: entry); NULL and
 * *why where the PTX is not as LLVM's NVPTX writes it (a tilec bug). */
char *tc_ptx_splice(const char *entry_ptx, size_t len, const char *fn_ptx, const char *fn, const char *entry,
                    const char **why);

/* parallel.c: jobs 0 .. n-1 of job(ctx, i), each once, on the calling
 * thread and up to threads - 1 more (at most 64 in all); returns the
 * threads that ran them. tc_cpus: the CPUs online (at least 1). */
unsigned tc_parallel(unsigned n, unsigned threads, void (*job)(void *ctx, unsigned i), void *ctx);
unsigned tc_cpus(void);

/* ---- passes (one file each) ---- */

/* Structural limits of one kernel, checked op by op as it is lowered
 * (lower.c) and reported at the op: the registers one tile value may take
 * per thread (the hardware's per-thread maximum; past it every access
 * would spill), and the shared memory of one program (the most that any
 * supported GPU, sm_90, gives a block). pass_precision warns where the
 * 3xtf32 split keeps two such tiles past the first limit. */
#define TC_MAX_TILE_REGS    255u
#define TC_MAX_SHARED_BYTES (227u * 1024u)

/* pass_precision.c: makes every f32 dot's precision explicit (ieee or
 * tf32-trunc on pre-rounded operands). */
int pass_precision(TirModule *m, TirPrecision default_mode, Diag *d);

/* pass_wgmma.c: marks GEMM loops for the sm_90a warp-specialized wgmma
 * pipeline (before pass_precision). */
int pass_wgmma(TirModule *m, const TcOptions *o, Diag *d);
/* The GEMM loop form every pipeline takes (pass_wgmma.c's top: for %k over
 * load A[.., k], load B[k, ..], dot, yield, the views and the other indices
 * defined before the loop, padding 0; from a constant tile unless any_init):
 * loop fi's dot instruction, or 0 and why (a remark's text, at most n
 * bytes). */
uint32_t gemm_loop_form(const TirModule *m, uint32_t fi, int any_init, char *why, size_t n);
/* pass_mma.c: marks the GEMM loops no wgmma pipeline took for the
 * multi-stage cp.async + mma.sync pipeline (lower_mma_pipeline.c), after
 * pass_wgmma and before pass_precision: for.ival = -stages. */
int pass_mma(TirModule *m, const TcOptions *o, Diag *d);
/* Its shared memory per stage for elements of esize bytes (4: f32; 2:
 * f16/bf16): A as BM rows of BK + mma_pipeline_pad_a(esize), B as BK rows of
 * BN + 8 (conflict-free fragment reads, rows on 16 bytes). */
uint32_t mma_pipeline_pad_a(uint32_t esize);
uint32_t mma_pipeline_stage_bytes(uint32_t bm, uint32_t bn, uint32_t bk, uint32_t esize);
/* The pipeline's shared memory: one stage, the lag between a step's copies
 * and its use, and the whole (pass_wgmma.c says how it is laid out). */
uint32_t wgmma_stage_bytes(uint32_t bm, uint32_t bn, TirPrecision p);
uint32_t wgmma_lag(uint32_t stages, uint32_t producers);
int wgmma_hold_two_ok(uint32_t stages, uint32_t producers, int roles);
uint32_t wgmma_producers(uint32_t bn, TirPrecision p, uint32_t stages);
uint32_t wgmma_smem_bytes(uint32_t bm, uint32_t bn, TirPrecision p, uint32_t stages);
uint32_t wgmma_swapped_stage_bytes(uint32_t bm, uint32_t bn, TirPrecision p);
uint32_t wgmma_swapped_smem_bytes(uint32_t bm, uint32_t bn, TirPrecision p, uint32_t stages);
/* B K-major (lower_wgmma_kmajor.c): where a tf32 loop's B load ldb reads a
 * view whose k stride is the constant 1, with BM = 16 x warps and BN a
 * multiple of 16 up to 256 (wgmma_kmajor_b_fits), and for kernel k's marked
 * loop (wgmma_kmajor_b); its shared memory. */
int wgmma_kmajor_b_fits(const TirModule *m, const TirInst *ldb, uint32_t bm, uint32_t bn, uint32_t warps,
                        TirPrecision p, const TcOptions *o);
int wgmma_kmajor_b(const TirModule *m, const TirKernel *k, const TcOptions *o);
/* A 3xtf32 or ieee loop's B load ldb reading such a view: the swapped
 * product with B's tile copied as A's (as above) and read from that layout:
 * 3xtf32's register fragments, split as they load (lower_wgmma_swapped.c),
 * ieee's FMA operands (lower_wgmma_ffma.c) where a thread holds 8 columns;
 * any tile of those pipelines' otherwise. wgmma_kmajor_b() covers these loops too; the kernel's
 * question (wgmma_kmajor_b_mma) is whether its accumulators are C = A B's. */
int wgmma_kmajor_b_frags(const TirModule *m, const TirInst *ldb, uint32_t bm, uint32_t bn, uint32_t warps,
                         TirPrecision p, const TcOptions *o);
int wgmma_kmajor_b_mma(const TirModule *m, const TirKernel *k, const TcOptions *o);
/* A loop whose A is M-major (its view's m stride the constant 1;
 * -fno-wgmma-mmajor-a: element copies): A^T's rows copied as a row-major B's
 * panels, read with wgmma's transpose bit for A (f16/bf16, lower_wgmma_ss.c)
 * or transposed in shared memory by the producers (f32, the swapped
 * product's and B K-major's, lower_wgmma_swapped.c). */
int wgmma_mmajor_a(const TirModule *m, const TirKernel *k, const TcOptions *o);
/* Whether the view load ld reads is column-major: the constant 1 as its
 * rows' stride (B's k stride: B K-major; A's m stride: A M-major, as A^T @
 * B's A; also the f16/bf16 pipeline's, lower_wgmma_ss.c). */
int wgmma_view_col_major(const TirModule *m, const TirInst *ld);
/* ... row-major: the constant 1 as its columns' stride. */
int wgmma_view_row_major(const TirModule *m, const TirInst *ld);
uint32_t wgmma_kmajor_smem_bytes(uint32_t bm, uint32_t bn, uint32_t stages);
/* The f16/bf16 pipeline's (lower_wgmma_ss.c): per stage BM rows of A and BN
 * columns of B, 128 bytes each (64 k); two barriers per stage. */
uint32_t wgmma_ss_stage_bytes(uint32_t bm, uint32_t bn);
uint32_t wgmma_ss_smem_bytes(uint32_t bm, uint32_t bn, uint32_t stages);
/* The pipelines' registers (lower_wgmma*.c): per thread at entry for
 * `launch` threads (the register file shared evenly, in the multiples of 8
 * setmaxnreg works in); each pipeline's split after setmaxnreg, the
 * producers' count returned and the consumers' in *consumer (0 and 0:
 * left as they are); the f16/bf16 pipeline's producer warpgroups. */
uint32_t wgmma_entry_regs(uint32_t launch);
uint32_t transposed_register_split(uint32_t consumers, uint32_t producers, uint32_t copies, uint32_t *consumer);
uint32_t swapped_register_split(uint32_t consumers, uint32_t producers, uint32_t copies, int x3_sum2,
                                uint32_t *consumer);
uint32_t ss_register_split(uint32_t consumers, uint32_t producers, uint32_t *consumer);
uint32_t ss_producers(uint32_t consumers, uint32_t bn, const TcOptions *o);
/* The FMA consumers' thread grid for a BM x BN tile (lower_wgmma_ffma.c):
 * tr x tc threads, each BM / tr <= 8 rows of 8 columns (two runs of 4), or
 * with wide (-fwgmma-ffma-wide) where that does not cover the tile, of 16
 * (four runs); 0 where none fits. */
int wgmma_ffma_grid(uint32_t bm, uint32_t bn, uint32_t threads, int wide, uint32_t *tr, uint32_t *tc);

/* lower_wgmma_tma.c: the tensor maps kernel k takes in hidden parameters
 * (after its own; then a u32 of flags): A's and B's of its pipeline where
 * the TMA copies apply (2; 3 with C's, -fwgmma-tma-store), else none (0). */
uint32_t wgmma_tma_maps(const TirModule *m, const TirKernel *k, const TcOptions *o, TcTmap maps[3]);
/* -fwgmma-tma-store: the store of kernel k's pipeline result that goes by
 * TMA through the third map (NULL: none), and for marked loop f the rows of
 * C a band of it takes through a buffer in shared memory (a multiple of 8
 * dividing BM, at most TMA_STORE_BYTES a band) and how many such buffers
 * (*nbuf: 2, or 1) fit beside the pipeline's stages (the tallest band
 * first; -fwgmma-tma-store-two-buffers: two buffers first); 0 where none does.
 * *why: why the option, asked for, does not apply to a kernel with the
 * pipeline (NULL: it does, or nothing to say). */
enum { TMA_STORE_BYTES = 16384 };
const TirInst *wgmma_tma_store_of(const TirModule *m, const TirKernel *k, const TcOptions *o, const char **why);
uint32_t wgmma_tma_store_rows(const TirModule *m, const TirInst *f, const TcOptions *o, uint32_t *nbuf);

/* pass_prefetch.c: a loop's tile loads issued one iteration ahead. */
int pass_prefetch(TirModule *m, Diag *d);

/* lower*.c, codegen.c: tile IR -> LLVM IR -> PTX. */
typedef struct {
    char *llvm_ir;
    char *ptx;
    TcKernelInfo *kernels;
    unsigned nkernels;
    double ms_lower, ms_opt, ms_codegen;
    double ms_entries;          /* tc_lower: its time, start to end */
    unsigned nentries, threads; /* tc_lower: entry points compiled, on so many threads */
    char *unit_times;           /* tc_lower: TcResult.unit_times */
} TcLowered;
int tc_lower(const TirModule *m, const TcOptions *o, TcLowered *out, Diag *d);

#endif
