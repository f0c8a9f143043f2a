/*
 * A PTX interpreter for the fake driver (fake_cuda.c): runs a kernel's
 * threads on the host, so that CI, which has no GPU, can check what the
 * kernels tilec emits compute. It knows the subset of PTX that LLVM's NVPTX
 * back end and tilec's inline asm write, Hopper's asynchronous parts
 * included (TMA copies, mbarriers, wgmma, clusters of blocks along x with
 * multicast copies, mapa and cluster barriers), and says which instruction
 * it does not know rather than guess.
 *
 * One legal schedule of many, chosen to expose a missing wait: a block's
 * threads run one at a time, each until it waits (a barrier, an mbarrier
 * phase, a warp or warpgroup collective). Asynchronous work completes as
 * late as it may: a copy into shared memory (TMA, bulk, cp.async) lands
 * only when no thread can go on without it (or when its thread waits for
 * it), one copy at a time, oldest first; a wgmma reads shared memory and
 * writes its accumulators only at the wait_group that completes it. Global
 * memory is host memory; an access outside every range ptx_emu_add_range
 * registered fails the launch (CUDA_ERROR_ILLEGAL_ADDRESS) instead of
 * touching the host's memory.
 *
 * Numerics: integer and f32 arithmetic as PTX defines it (fma, add, mul with
 * the host's round-to-nearest; .ftz flushes); approximate instructions
 * (ex2.approx, rcp.approx, ...) computed exactly, so results agree with a
 * GPU's to their documented error, not bit for bit; tensor-core products
 * exact, summed in double over one instruction's k and rounded once to f32.
 */
#ifndef TILEC_PTX_EMU_H
#define TILEC_PTX_EMU_H

#include <stddef.h>
#include <stdint.h>

/* The 128 bytes of a CUtensorMap as the fake cuTensorMapEncodeTiled writes
 * them (a real map is opaque; this one the interpreter reads back). */
typedef struct {
    uint32_t magic; /* PTX_EMU_TMAP_MAGIC */
    uint32_t dtype; /* CUtensorMapDataType */
    uint32_t rank, swizzle, oob_nan, esize;
    uint64_t base;
    uint32_t dims[5], box[5];
    uint64_t strides[4]; /* bytes, of dimensions 1 .. rank - 1 */
} PtxEmuTmap;
#define PTX_EMU_TMAP_MAGIC 0x54a9e3u

typedef struct PtxEmuModule PtxEmuModule;

/* Parses PTX text; NULL with a message in err where it cannot. */
PtxEmuModule *ptx_emu_parse(const char *ptx, char *err, size_t errlen);
void ptx_emu_free(PtxEmuModule *m);

/* Global memory the kernels may reach: [base, base + bytes). */
void ptx_emu_add_range(uint64_t base, uint64_t bytes);
void ptx_emu_remove_range(uint64_t base);

typedef enum {
    PTX_EMU_OK,
    PTX_EMU_ILLEGAL_ADDRESS, /* a load, store or copy outside memory the kernel may reach */
    PTX_EMU_TRAP,
    PTX_EMU_HANG,            /* a deadlock, or a loop past the instruction limit */
    PTX_EMU_FAULT,           /* any other misuse: barriers, collectives, mbarriers, the launch */
    PTX_EMU_UNSUPPORTED,     /* an instruction or form the interpreter does not know */
} PtxEmuResult;

/* Runs entry `entry` over the grid; params as cuLaunchKernel's. seed 0:
 * the fixed schedule above; any other: a random one drawn from it (threads
 * taken in a random order for random numbers of instructions, copies
 * landing in any order), for races the fixed one does not meet. Returns
 * PTX_EMU_OK, or another PtxEmuResult with a message in err. */
PtxEmuResult ptx_emu_launch(PtxEmuModule *m, const char *entry, const unsigned grid[3], const unsigned block[3],
                            unsigned dyn_shared, void **params, uint64_t seed, char *err, size_t errlen);

#endif
