/*
 * Internals of the reference executor shared by exec.c (driver, control
 * flow, memory) and exec_ops.c (computations). Not a public interface.
 *
 * One Slot per value number of the module holds that value during a run.
 * Scalars keep their value in the slot itself and point `data` at it, so an
 * element-wise op reads a scalar operand as a 1-element tile that it
 * broadcasts (n == 1). Tiles own a buffer sized from the value's static type,
 * allocated on first definition and reused by every later definition (loop
 * iterations, later programs): SSA guarantees a value is written before it
 * is read in each program. Element storage is the memory format: f32 as
 * float, f16/bf16 as uint16 bit patterns, i32/i64 as int32_t/int64_t.
 */
#ifndef TILEC_REFERENCE_EXEC_IMPL_H
#define TILEC_REFERENCE_EXEC_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "reference/round.h"

typedef struct {
    void *data;       /* elements; &sv for scalars */
    uint32_t n;       /* element count: 1 for scalars */
    uint32_t rows, cols;
    uint8_t kind, elem;
    union {
        int32_t i32;
        int64_t i64;
        float f32;
    } sv;
    void *ptr;        /* TY_PTR */
    /* TY_VIEW: element (b, i, j) at base + (b*stride[0] + i*stride[1] + j*stride[2]) elements */
    char *base;
    int rank;
    int64_t dim[3], stride[3];
} Slot;

typedef struct {
    const TirModule *m;
    Slot *slots;
    unsigned pid[3], grid[3];
    TirPrecision defprec; /* never PREC_DEFAULT */
    StrBuf *err;
    size_t bytes;         /* tile memory held */
    int failed;
} Exec;

/* Appends "file:line:col: error: ..." for instruction `in` to e->err and
 * marks the run failed. Returns -1 so callers can `return fail(...)`. */
int exec_fail(Exec *e, const TirInst *in, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Makes the slot of value v ready to be written with its static type
 * (allocating a tile buffer on first use). NULL after a failure. */
Slot *exec_def(Exec *e, const TirInst *in, uint32_t v);

static inline Slot *exec_slot(Exec *e, uint32_t v) { return &e->slots[v]; }

static inline size_t elem_size(uint8_t elem)
{
    switch (elem) {
    case ELEM_I64: return 8;
    case ELEM_F16: case ELEM_BF16: return 2;
    default: return 4;
    }
}

/* element k of s as a float / an integer; n == 1 broadcasts */
static inline float slot_getf(const Slot *s, size_t k)
{
    size_t j = s->n == 1 ? 0 : k;
    switch (s->elem) {
    case ELEM_F16: return f16_to_f32(((const uint16_t *)s->data)[j]);
    case ELEM_BF16: return bf16_to_f32(((const uint16_t *)s->data)[j]);
    default: return ((const float *)s->data)[j];
    }
}
static inline void slot_putf(Slot *s, size_t k, float v)
{
    switch (s->elem) {
    case ELEM_F16: ((uint16_t *)s->data)[k] = f32_to_f16(v); break;
    case ELEM_BF16: ((uint16_t *)s->data)[k] = f32_to_bf16(v); break;
    default: ((float *)s->data)[k] = v; break;
    }
}
static inline int64_t slot_geti(const Slot *s, size_t k)
{
    size_t j = s->n == 1 ? 0 : k;
    return s->elem == ELEM_I64 ? ((const int64_t *)s->data)[j] : ((const int32_t *)s->data)[j];
}
/* stores the low bits: i32 results wrap (two's complement) */
static inline void slot_puti(Slot *s, size_t k, int64_t v)
{
    if (s->elem == ELEM_I64)
        ((int64_t *)s->data)[k] = v;
    else
        ((int32_t *)s->data)[k] = (int32_t)(uint32_t)(uint64_t)v;
}

/* exec_ops.c: the computing ops. Each returns 0, or -1 after exec_fail. */
int exec_ewise(Exec *e, const TirInst *in);
int exec_cast(Exec *e, const TirInst *in);
int exec_splat(Exec *e, const TirInst *in);
int exec_broadcast(Exec *e, const TirInst *in);
int exec_reduce(Exec *e, const TirInst *in);
int exec_dot(Exec *e, const TirInst *in);
int exec_inline_ptx(Exec *e, const TirInst *in);

#endif
