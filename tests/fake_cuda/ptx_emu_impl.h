/*
 * The PTX interpreter's internals, shared by ptx_parse.c (text to
 * instructions) and ptx_emu.c (running them). Not an interface.
 */
#ifndef TILEC_PTX_EMU_IMPL_H
#define TILEC_PTX_EMU_IMPL_H

#include <stdint.h>

#include "ptx_emu.h"

enum {
    T_PRED, T_B8, T_B16, T_B32, T_B64, T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64,
    T_F16, T_F32, T_F64, T_BF16, T_F16X2, T_BF16X2, T_TF32,
};

enum {
    PO_NONE, PO_MOV, PO_LD, PO_ST, PO_ADD, PO_SUB, PO_MUL, PO_MAD, PO_FMA, PO_DIV, PO_REM, PO_AND, PO_OR, PO_XOR,
    PO_NOT, PO_CNOT, PO_SHL, PO_SHR, PO_MIN, PO_MAX, PO_ABS, PO_NEG, PO_SETP, PO_SELP, PO_CVT, PO_CVTA, PO_BRA,
    PO_RET, PO_BAR, PO_BFE, PO_BFI, PO_PRMT, PO_POPC, PO_CLZ, PO_BREV, PO_RCP, PO_SQRT, PO_RSQRT, PO_EX2, PO_LG2,
    PO_SIN, PO_COS, PO_TANH, PO_COPYSIGN, PO_TESTP, PO_MMA, PO_SHFL, PO_VOTE, PO_ATOM, PO_RED, PO_TRAP, PO_NOP,
    PO_MBAR, PO_WGMMA, PO_CP, PO_ACTIVEMASK, PO_MAPA, PO_SHF,
};

enum { SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_PARAM, SP_LOCAL };
enum { R_DEFAULT, R_RN, R_RZ, R_RM, R_RP, R_RNA };
enum { M_FTZ = 1, M_SAT = 2, M_LO = 4, M_HI = 8, M_WIDE = 16, M_NAN = 32, M_APPROX = 64, M_TO = 128,
       M_TX = 256, M_PARITY = 512, M_RINT = 1024,
       M_NOINC = 2048,   /* cp.async.mbarrier.arrive.noinc */
       M_TO_GLOBAL = 4096 /* a copy from shared to global memory (.global.shared) */ };
enum { SHFL_IDX = 1, SHFL_UP, SHFL_DOWN, SHFL_BFLY };
enum { MB_INIT = 1, MB_INVAL, MB_ARRIVE, MB_EXPECT_TX, MB_TRY_WAIT };
enum { WG_FENCE = 1, WG_MMA, WG_COMMIT, WG_WAIT };
enum { CP_ASYNC = 1, CP_BULK, CP_TENSOR, CP_NOP, CP_MBAR_ARRIVE, CP_COMMIT, CP_WAIT, CP_WAIT_ALL };
/* bar / barrier: sync (0), arrive, bar.warp.sync, barrier.cluster.arrive / .wait */
enum { BAR_SYNC, BAR_ARRIVE, BAR_WARP, BAR_CLUSTER_ARRIVE, BAR_CLUSTER_WAIT };
enum { K_NONE, K_REG, K_IMM, K_ADDR, K_VEC, K_SREG, K_SYM, K_SINK, K_LABEL };

/* symbols: module variables by index, an entry's parameters from here */
#define PTX_SYM_PARAM_BASE 0x100000
#define PTX_MAX_OPS 10
#define PTX_MAX_REGS (1u << 20) /* a register array at most */

typedef struct {
    uint8_t kind, neg;
    int32_t reg; /* K_REG: slot; K_ADDR: base register or -1; K_SREG: which */
    int32_t sym; /* K_ADDR / K_SYM: symbol or -1 */
    uint32_t first, n; /* K_VEC: items in the module's vec[] */
    int64_t imm; /* K_IMM: value (f32/f64 as bits); K_ADDR: offset; K_LABEL: target */
} PtxOp;

typedef struct {
    uint8_t op, sub, sub2, space, vec, rnd, cmp, bop, ntypes, nops, guard_neg, pair;
    uint8_t types[4];
    uint16_t shape[3];
    uint32_t mods;
    int32_t guard;
    int line;
    char text[96];
    PtxOp o[PTX_MAX_OPS];
} PtxInsn;

typedef struct {
    char name[64];
    unsigned bytes;
} PtxParam;

typedef struct {
    char name[64];
    unsigned pc;
} PtxLabel;

typedef struct {
    char name[64];
    PtxInsn *insns;
    unsigned ninsns, capinsns;
    PtxParam *params;
    unsigned nparams, capparams;
    PtxLabel *labels;
    unsigned nlabels, caplabels;
    unsigned nslots, maxntid, local_bytes;
    unsigned cluster; /* blocks a cluster along x (.reqnctapercluster), 1: none */
} PtxEntry;

typedef struct {
    char name[64];
    int shared, dynamic, local;
    uint64_t offset, bytes; /* shared: offset in the block's shared memory */
    uint8_t *host;          /* .global / .const: its memory */
} PtxVar;

struct PtxEmuModule {
    PtxEntry *entries;
    unsigned nentries, capentries;
    PtxVar *vars;
    unsigned nvars, capvars;
    PtxOp *vec;
    unsigned nvec, capvec;
    uint64_t shared_bytes; /* static shared memory; dynamic follows */
    unsigned dynamic_align;
};

/* p's array grown to hold need items of size bytes (capacity in *cap,
 * doubled); out of host memory aborts: test code. */
void *ptx_grow(void *p, unsigned *cap, unsigned need, size_t size);

#endif
