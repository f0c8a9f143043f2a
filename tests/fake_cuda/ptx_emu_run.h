/*
 * The state of a running launch, shared by ptx_emu.c (the scheduler,
 * memory, mbarriers, copies, barriers, the instruction switch) and
 * ptx_emu_ops.c (arithmetic, conversions, the warp and warpgroup
 * collectives with the tensor cores). Not an interface.
 */
#ifndef TILEC_PTX_EMU_RUN_H
#define TILEC_PTX_EMU_RUN_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ptx_emu_impl.h"
#include "reference/round.h"

/* generic addresses of the shared and local windows: outside the host's */
#define SHARED_GEN 0x1000000000000000ull
#define LOCAL_GEN 0x2000000000000000ull
#define SHARED_RESERVED 1024 /* Hopper keeps the first KB of a block's shared memory */
#define MAX_BARRIERS 16
#define STEP_BUDGET (1u << 16)
#define LAUNCH_LIMIT (1ull << 33) /* instructions a launch may run (a minute or two): past it, a loop that never ends */

typedef struct {
    uint64_t base, bytes;
} Range;

/* ---- launch state ----------------------------------------------------------------- */

enum { TS_RUN, TS_DONE, TS_BAR, TS_COLL, TS_CBAR };
enum { X_NEXT, X_JUMP, X_BLOCK, X_YIELD, X_FAIL };

typedef struct {
    uint32_t pc;
    uint8_t state;
    uint8_t bar;
    unsigned tid;
    unsigned cp_group; /* cp.async: the open commit group */
    unsigned cb_phase; /* the cluster barrier's phase it last arrived in */
    uint8_t spinning;  /* its last mbarrier wait failed: a turn spent looping is no progress */
    uint64_t *r;
    uint8_t *local;
} Th;

typedef struct {
    uint32_t addr, expected, pending, phase;
    int64_t tx;
} Mbar;

typedef struct {
    int pc;
    unsigned arrived;
    uint32_t mask; /* the lanes that take part (a warp collective's membermask) */
} Coll;

#define WG_PENDING_MAX 64
/* A wgmma issued and not yet complete: its descriptors and scale-d read
 * at issue; A's registers (where it comes from them), shared memory and
 * the accumulators read, and the accumulators written, when a wait_group
 * completes it: the PTX ISA leaves a kernel undefined that touches those
 * registers or reuses a stage before then, and so a kernel that does sees
 * wrong values here. */
typedef struct PendingMma {
    const PtxInsn *in;
    unsigned group; /* the warpgroup's commit group it belongs to */
    int scale_d, neg, tn_a, tn_b;
    uint64_t da, db;
    int a_regs;
} PendingMma;

typedef struct WgQueue {
    struct PendingMma *p; /* [WG_PENDING_MAX] */
    unsigned n, group;    /* in flight; the open commit group */
} WgQueue;

/* A copy into shared memory issued and not yet landed: n pieces of es
 * bytes, each to its own shared address; then complete_tx on an mbarrier
 * (TMA, bulk) or nothing (cp.async, which its thread waits for). */
typedef struct Landing {
    unsigned n, es;
    uint32_t *off;
    uint8_t *data;
    int has_mbar;
    uint32_t mbar;
    int64_t tx;
    unsigned owner, group; /* cp.async: the thread and its commit group; else ~0u */
    uint64_t seq;          /* issue order in the cluster */
} Landing;

typedef struct Blk {
    const PtxEmuModule *m;
    const PtxEntry *e;
    void **params;
    unsigned grid[3], block[3], ctaid[3], nthreads, alive, dyn;
    uint8_t *smem;
    uint64_t smem_bytes, dyn_base;
    Th *th;
    uint64_t *regs;
    uint8_t *local;
    Mbar *mb;
    unsigned nmb, capmb;
    struct {
        unsigned arrived;
        int expected; /* -1: every thread alive */
    } bar[MAX_BARRIERS];
    Coll *warp, *wg;
    struct WgQueue *wgq;   /* each warpgroup's wgmmas in flight */
    struct Landing *land;  /* copies into shared memory not yet landed, oldest first */
    unsigned nland, capland;
    uint64_t events, steps;
    char *err;
    size_t errlen;
    int status; /* PtxEmuResult */
    const Range *lastrange;
    struct Blk *cl;        /* the cluster's blocks (this one among them), rank order */
    unsigned rank, csize;  /* in the cluster */
    unsigned cb_arrived, cb_phase; /* the cluster barrier (kept in cl[0]) */
    uint64_t seq;          /* copies issued in the cluster (cl[0]): landing order */
    uint64_t rng;          /* cl[0]: the schedule's random state (0: the fixed schedule) */
} Blk;

/* ---- shared by the two files ---- */

/* records the launch's failure (the first only) and returns X_FAIL */
int emu_fail(Blk *b, PtxEmuResult status, const PtxInsn *in, const char *fmt, ...);
uint64_t emu_sreg(const Blk *b, const Th *t, int which);
uint64_t emu_sym_value(const Blk *b, int sym);
/* the host memory of n bytes at address a of state space sp, or NULL (a fault, reported) */
uint8_t *emu_mem(Blk *b, const Th *t, const PtxInsn *in, int sp, uint64_t a, unsigned n);
int emu_compare(int cmp, int type, uint64_t a, uint64_t b);
uint64_t emu_float_op(const PtxInsn *in, int type, uint64_t ua, uint64_t ub, uint64_t uc);
uint64_t emu_int_op(const PtxInsn *in, int type, uint64_t a, uint64_t x, uint64_t c, int *wide);
int emu_float_unary(Blk *b, Th *t, const PtxInsn *in);
int emu_cvt(Blk *b, Th *t, const PtxInsn *in);
/* a thread arrives at a warp or warpgroup collective; the last member runs it */
int emu_collective(Blk *b, Th *t, const PtxInsn *in);
/* runs the collective c waits at once every live member of [first, first + n) has arrived */
int emu_collective_finish(Blk *b, Coll *c, unsigned first, unsigned n, int wg);

/* ---- values (inline: every file reads registers) ------------------------------------------------------------------------- */

static inline unsigned width(int t)
{
    switch (t) {
    case T_PRED: return 1;
    case T_B8: case T_U8: case T_S8: return 8;
    case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 16;
    case T_B64: case T_U64: case T_S64: case T_F64: return 64;
    default: return 32;
    }
}
static inline int is_signed(int t) { return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64; }
static inline int is_float(int t) { return t == T_F32 || t == T_F64 || t == T_F16 || t == T_BF16 || t == T_TF32; }
static inline uint64_t mask_of(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }
static inline int64_t sext(uint64_t v, unsigned w) { return w >= 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w); }
static inline float f32(uint64_t v) { return bits_f32((uint32_t)v); }
static inline uint64_t bf32(float f) { return f32_bits(f); }
static inline double f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static inline uint64_t bf64(double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return v;
}
static inline float ftz(float f, int on) { return on && f != 0 && fabsf(f) < 1.17549435e-38f ? copysignf(0.0f, f) : f; }

static inline uint64_t rd(const Blk *b, const Th *t, const PtxOp *o)
{
    if (o->kind == K_REG && !o->neg) /* the common case first */
        return t->r[o->reg];
    uint64_t v;
    switch (o->kind) {
    case K_REG: v = t->r[o->reg]; break;
    case K_IMM: v = (uint64_t)o->imm; break;
    case K_SREG: v = emu_sreg(b, t, o->reg); break;
    case K_SYM: v = emu_sym_value(b, o->sym); break;
    default: v = 0;
    }
    return o->neg ? !(v & 1) : v;
}

static inline uint64_t rdt(const Blk *b, const Th *t, const PtxOp *o, int type) { return rd(b, t, o) & mask_of(width(type)); }

static inline void wr(Th *t, const PtxOp *o, int type, uint64_t v)
{
    if (o->kind == K_REG)
        t->r[o->reg] = v & mask_of(width(type));
}

/* a register written with a signed type keeps its sign in the bits above */
static inline void wr_ext(Th *t, const PtxOp *o, int type, uint64_t v)
{
    if (o->kind == K_REG)
        t->r[o->reg] = is_signed(type) ? (uint64_t)sext(v, width(type)) : v & mask_of(width(type));
}

static inline double fval(int type, uint64_t v)
{
    switch (type) {
    case T_F64: return f64(v);
    case T_F16: return f16_to_f32((uint16_t)v);
    case T_BF16: return bf16_to_f32((uint16_t)v);
    default: return f32(v);
    }
}

/* a double rounded once to type's format (nearest even) */
static inline uint64_t fbits(int type, double d)
{
    switch (type) {
    case T_F64: return bf64(d);
    case T_F16: return f64_to_f16(d);
    case T_BF16: return f64_to_bf16(d);
    default: return bf32((float)d);
    }
}

/* operand k of thread t as a register list item i */
static inline uint64_t vec_item(const Blk *b, const Th *t, const PtxOp *o, unsigned i)
{
    return rd(b, t, &b->m->vec[o->first + i]);
}

static inline uint64_t load_n(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    memcpy(&v, p, bytes);
    return v;
}

static inline uint32_t swizzle(uint32_t a, unsigned span)
{
    switch (span) {
    case 128: return a ^ (((a >> 7) & 7) << 4);
    case 64: return a ^ (((a >> 7) & 3) << 4);
    case 32: return a ^ (((a >> 7) & 1) << 4);
    default: return a;
    }
}

#endif
