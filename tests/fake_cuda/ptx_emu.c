/*
 * Running a parsed PTX entry (ptx_parse.c) over a grid: the blocks (the
 * clusters) one after another, a block's threads by a scheduler that runs
 * each until it waits; memory, mbarriers, copies, barriers and the
 * instruction switch (the computing instructions and the collectives are
 * ptx_emu_ops.c's). Warp and warpgroup collectives
 * (mma.sync, wgmma and its commit / wait, shfl, vote) run when the last
 * member arrives. Copies into shared memory wait in a queue (Landing) and
 * land when a pass over the block moves nothing else, or when their thread
 * waits for them; wgmmas wait in their warpgroup's queue (PendingMma) for
 * a wait_group. A pass in which no thread changed anything visible (a
 * store, an arrival, an exit) and no copy is left to land is a deadlock.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "ptx_emu_run.h"

/* ---- global memory ranges ------------------------------------------------------- */

static Range *ranges;
static unsigned nranges, capranges;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

void ptx_emu_add_range(uint64_t base, uint64_t bytes)
{
    pthread_mutex_lock(&mu);
    ranges = ptx_grow(ranges, &capranges, nranges + 1, sizeof *ranges);
    ranges[nranges++] = (Range){base, bytes};
    pthread_mutex_unlock(&mu);
}

void ptx_emu_remove_range(uint64_t base)
{
    pthread_mutex_lock(&mu);
    for (unsigned i = 0; i < nranges; i++)
        if (ranges[i].base == base) {
            ranges[i] = ranges[--nranges];
            break;
        }
    pthread_mutex_unlock(&mu);
}

int emu_fail(Blk *b, PtxEmuResult status, const PtxInsn *in, const char *fmt, ...)
{
    if (b->status)
        return X_FAIL;
    if (b->err[0]) { /* another block of the cluster said it first */
        b->status = status;
        return X_FAIL;
    }
    b->status = status;
    int n = 0;
    if (in)
        n = snprintf(b->err, b->errlen, "%s, block (%u,%u,%u): ptx line %d '%s': ", b->e->name, b->ctaid[0],
                     b->ctaid[1], b->ctaid[2], in->line, in->text);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < b->errlen)
        vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return X_FAIL;
}

uint64_t emu_sreg(const Blk *b, const Th *t, int which)
{
    switch (which) {
    case 0: return t->tid % b->block[0];
    case 1: return t->tid / b->block[0] % b->block[1];
    case 2: return t->tid / (b->block[0] * b->block[1]);
    case 3: case 4: case 5: return b->block[which - 3];
    case 6: case 7: case 8: return b->ctaid[which - 6];
    case 9: case 10: case 11: return b->grid[which - 9];
    case 12: return t->tid % 32;
    case 13: return t->tid / 32;
    case 14: case 15: case 19: return b->steps;
    case 16: return (b->nthreads + 31) / 32;
    case 17: return 0;
    case 18: return 132;
    case 20: return (1u << (t->tid % 32)) - 1;
    case 21: return b->dyn;
    case 22: return b->rank;
    case 23: return b->csize;
    default: return 1;
    }
}

uint64_t emu_sym_value(const Blk *b, int sym)
{
    if (sym >= PTX_SYM_PARAM_BASE)
        return (uint64_t)(uintptr_t)b->params[sym - PTX_SYM_PARAM_BASE];
    const PtxVar *v = &b->m->vars[sym];
    if (v->local)
        return 0;
    if (v->shared)
        return v->dynamic ? b->dyn_base : SHARED_RESERVED + v->offset;
    return (uint64_t)(uintptr_t)v->host;
}

/* ---- memory ------------------------------------------------------------------------- */

static int in_range(Blk *b, uint64_t a, uint64_t n)
{
    const Range *l = b->lastrange;
    if (l && a >= l->base && a + n <= l->base + l->bytes)
        return 1;
    for (unsigned i = 0; i < nranges; i++)
        if (a >= ranges[i].base && a + n <= ranges[i].base + ranges[i].bytes) {
            b->lastrange = &ranges[i];
            return 1;
        }
    for (unsigned i = 0; i < b->m->nvars; i++) /* .global variables */
        if (b->m->vars[i].host && a >= (uintptr_t)b->m->vars[i].host &&
            a + n <= (uintptr_t)b->m->vars[i].host + b->m->vars[i].bytes)
            return 1;
    for (unsigned i = 0; i < b->e->nparams; i++) /* parameters, through cvta.param */
        if (a >= (uintptr_t)b->params[i] && a + n <= (uintptr_t)b->params[i] + b->e->params[i].bytes)
            return 1;
    return 0;
}

uint8_t *emu_mem(Blk *b, const Th *t, const PtxInsn *in, int sp, uint64_t a, unsigned n)
{
    if (sp == SP_GENERIC) {
        if (a >= SHARED_GEN && a < SHARED_GEN + b->smem_bytes) {
            sp = SP_SHARED;
            a -= SHARED_GEN;
        } else if (a >= LOCAL_GEN && a < LOCAL_GEN + b->e->local_bytes) {
            sp = SP_LOCAL;
            a -= LOCAL_GEN;
        } else
            sp = SP_GLOBAL;
    }
    if (sp == SP_SHARED) {
        if (a + n > b->smem_bytes || a + n < a) {
            emu_fail(b, PTX_EMU_ILLEGAL_ADDRESS, in, "shared address 0x%llx + %u outside the block's %llu bytes", (unsigned long long)a, n,
                 (unsigned long long)b->smem_bytes);
            return NULL;
        }
        return b->smem + a;
    }
    if (sp == SP_LOCAL) {
        if (a + n > b->e->local_bytes) {
            emu_fail(b, PTX_EMU_ILLEGAL_ADDRESS, in, "local address 0x%llx outside the thread's %u bytes", (unsigned long long)a,
                 b->e->local_bytes);
            return NULL;
        }
        return t->local + a;
    }
    if (!in_range(b, a, n)) {
        emu_fail(b, PTX_EMU_ILLEGAL_ADDRESS, in, "illegal address 0x%llx (%u bytes) in %s memory", (unsigned long long)a, n,
             sp == SP_PARAM ? "parameter" : "global");
        return NULL;
    }
    return (uint8_t *)(uintptr_t)a;
}

static uint64_t addr_value(const Blk *b, const Th *t, const PtxOp *o)
{
    uint64_t a = (uint64_t)o->imm;
    if (o->reg >= 0)
        a += t->r[o->reg];
    if (o->sym >= 0)
        a += emu_sym_value(b, o->sym);
    return a;
}

/* the space an address operand's symbol implies where the instruction names none */
static int space_of(const Blk *b, const PtxInsn *in, const PtxOp *o)
{
    if (in->space != SP_GENERIC || o->sym < 0)
        return in->space == SP_PARAM ? SP_GLOBAL : in->space;
    if (o->sym >= PTX_SYM_PARAM_BASE)
        return SP_GLOBAL;
    const PtxVar *v = &b->m->vars[o->sym];
    return v->shared ? SP_SHARED : v->local ? SP_LOCAL : SP_GLOBAL;
}

/* ---- mbarriers ------------------------------------------------------------------------ */

static Mbar *mbar(Blk *b, const PtxInsn *in, uint32_t addr, int create)
{
    for (unsigned i = 0; i < b->nmb; i++)
        if (b->mb[i].addr == addr)
            return &b->mb[i];
    if (!create) {
        emu_fail(b, PTX_EMU_FAULT, in, "mbarrier at shared 0x%x used before mbarrier.init", addr);
        return NULL;
    }
    b->mb = ptx_grow(b->mb, &b->capmb, b->nmb + 1, sizeof *b->mb);
    Mbar *m = &b->mb[b->nmb++];
    memset(m, 0, sizeof *m);
    m->addr = addr;
    return m;
}

static void mbar_check(Mbar *m)
{
    if (m->pending == 0 && m->tx == 0) {
        m->phase++;
        m->pending = m->expected;
    }
}

/* the shared address of an mbarrier operand: generic or shared */
static uint32_t mbar_addr(const Blk *b, const Th *t, const PtxInsn *in, const PtxOp *o)
{
    uint64_t a = addr_value(b, t, o);
    if (space_of(b, in, o) == SP_GENERIC && a >= SHARED_GEN)
        a -= SHARED_GEN;
    return (uint32_t)a;
}

/* A shared::cluster address from mapa: ((rank + 1) << 28) | offset; a
 * plain shared address is the block's own. The block it names and the
 * offset there (NULL: no such block, reported). */
#define CLUSTER_SHIFT 28
static Blk *cluster_block(Blk *b, const PtxInsn *in, uint32_t *addr)
{
    unsigned r = *addr >> CLUSTER_SHIFT;
    if (!r)
        return b;
    *addr &= (1u << CLUSTER_SHIFT) - 1;
    if (r - 1 >= b->csize) {
        emu_fail(b, PTX_EMU_ILLEGAL_ADDRESS, in, "shared::cluster address of block rank %u in a cluster of %u", r - 1,
             b->csize);
        return NULL;
    }
    return &b->cl[r - 1];
}

static int complete_tx(Blk *b, const PtxInsn *in, uint32_t addr, int64_t bytes)
{
    Mbar *m = mbar(b, in, addr, 0);
    if (!m)
        return 0;
    m->tx -= bytes;
    mbar_check(m);
    return 1;
}

static int exec_mbar(Blk *b, Th *t, const PtxInsn *in)
{
    b->events++;
    switch (in->sub) {
    case MB_INIT: {
        Mbar *m = mbar(b, in, mbar_addr(b, t, in, &in->o[0]), 1);
        m->expected = m->pending = (uint32_t)rd(b, t, &in->o[1]);
        m->tx = 0;
        m->phase = 0;
        return X_NEXT;
    }
    case MB_INVAL: {
        uint32_t a = mbar_addr(b, t, in, &in->o[0]);
        for (unsigned i = 0; i < b->nmb; i++)
            if (b->mb[i].addr == a)
                b->mb[i] = b->mb[--b->nmb];
        return X_NEXT;
    }
    case MB_EXPECT_TX: {
        Mbar *m = mbar(b, in, mbar_addr(b, t, in, &in->o[0]), 0);
        if (!m)
            return X_FAIL;
        m->tx += (int64_t)rd(b, t, &in->o[1]);
        return X_NEXT;
    }
    case MB_ARRIVE: { /* [state,] [addr] [, tx or count]; the address may be another block's */
        unsigned k = in->o[0].kind == K_ADDR ? 0 : 1;
        uint32_t a = mbar_addr(b, t, in, &in->o[k]);
        Blk *tb = cluster_block(b, in, &a);
        if (!tb)
            return X_FAIL;
        if (tb != b)
            tb->events++;
        Mbar *m = mbar(tb, in, a, 0);
        if (!m)
            return X_FAIL;
        if (k)
            wr(t, &in->o[0], T_B64, m->phase);
        uint32_t count = 1;
        if (in->mods & M_TX)
            m->tx += (int64_t)rd(b, t, &in->o[k + 1]);
        else if (in->nops > k + 1)
            count = (uint32_t)rd(b, t, &in->o[k + 1]);
        if (m->pending < count)
            return emu_fail(b, PTX_EMU_FAULT, in, "more arrivals than the mbarrier expects");
        m->pending -= count;
        mbar_check(m);
        return X_NEXT;
    }
    case MB_TRY_WAIT: { /* p, [addr], parity | state */
        Mbar *m = mbar(b, in, mbar_addr(b, t, in, &in->o[1]), 0);
        if (!m)
            return X_FAIL;
        uint64_t v = rd(b, t, &in->o[2]);
        int done = in->mods & M_PARITY ? (m->phase & 1) != (v & 1) : m->phase != (uint32_t)v;
        wr(t, &in->o[0], T_PRED, (uint64_t)done);
        t->spinning = !done;
        if (!done) {
            b->events--; /* a failed wait changes nothing: let the others run */
            t->pc++;
            return X_YIELD;
        }
        return X_NEXT;
    }
    }
    return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "unknown mbarrier operation");
}

/* ---- copies ---------------------------------------------------------------------------- */

/* a new landing of n pieces of es bytes (filled by the caller) */
static Landing *land_new(Blk *b, unsigned n, unsigned es)
{
    b->land = ptx_grow(b->land, &b->capland, b->nland + 1, sizeof *b->land);
    Landing *l = &b->land[b->nland++];
    memset(l, 0, sizeof *l);
    l->n = n, l->es = es;
    l->owner = l->group = ~0u;
    l->seq = b->cl[0].seq++;
    l->off = malloc(n * sizeof *l->off);
    l->data = malloc((size_t)n * es);
    if (!l->off || !l->data)
        abort();
    return l;
}

/* landing i arrives in shared memory (its addresses were checked at issue) */
static int land(Blk *b, unsigned i)
{
    Landing l = b->land[i];
    memmove(b->land + i, b->land + i + 1, (b->nland - i - 1) * sizeof *b->land);
    b->nland--;
    for (unsigned k = 0; k < l.n; k++)
        memcpy(b->smem + l.off[k], l.data + (size_t)k * l.es, l.es);
    free(l.off);
    free(l.data);
    b->events++;
    return !l.has_mbar || complete_tx(b, NULL, l.mbar, l.tx);
}

static void land_drop_all(Blk *b)
{
    for (; b->nland; b->nland--) {
        free(b->land[b->nland - 1].off);
        free(b->land[b->nland - 1].data);
    }
}

/* thread tid's cp.asyncs of groups before `before` land */
static int land_thread(Blk *b, unsigned tid, unsigned before)
{
    for (unsigned i = 0; i < b->nland;)
        if (b->land[i].owner == tid && b->land[i].group < before) {
            if (!land(b, i))
                return 0;
        } else
            i++;
    return 1;
}

/* TMA: a box between global memory (the map's) and shared memory at dst;
 * a load lands later (l: its landing) */
static int tensor_copy(Blk *b, const Th *t, const PtxInsn *in, const PtxEmuTmap *map, const int32_t *c,
                       uint32_t smem, int store, Landing **lp)
{
    unsigned es = map->esize, r = map->rank;
    /* the hardware faults on a box whose innermost coordinate is off 16 bytes (an illegal
     * instruction on the H200: bench/NOTES.md v10) */
    if (((int64_t)c[0] * es) % 16 != 0)
        return emu_fail(b, PTX_EMU_FAULT, in, "a box's innermost coordinate %d is not on 16 bytes", c[0]), 0;
    uint64_t total = 1;
    for (unsigned d = 0; d < r; d++)
        total *= map->box[d];
    Landing *l = store ? NULL : land_new(b, (unsigned)total, es);
    if (lp)
        *lp = l;
    /* a store writes whole 16-byte chunks of a row: where the innermost extent is not a multiple of
     * 16 bytes, past it up to the next 16 (the H100's did: bench/NOTES.md v28) */
    int64_t row_end = store ? (int64_t)(((uint64_t)map->dims[0] * es + 15) / 16 * 16 / es) : (int64_t)map->dims[0];
    for (uint64_t i = 0; i < total; i++) {
        uint64_t rem = i, off = 0;
        int inside = 1;
        for (unsigned d = 0; d < r; d++) {
            int64_t g = (int64_t)c[d] + (int64_t)(rem % map->box[d]);
            rem /= map->box[d];
            if (g < 0 || g >= (d ? (int64_t)map->dims[d] : row_end))
                inside = 0;
            else
                off += d ? (uint64_t)g * map->strides[d - 1] : (uint64_t)g * es;
        }
        uint8_t *s = emu_mem(b, t, in, SP_SHARED, swizzle(smem + (uint32_t)(i * es), map->swizzle), es);
        if (!s) {
            size_t n = strlen(b->err);
            snprintf(b->err + n, b->errlen - n, " (a box of {%u, %u, %u} %u-byte elements at shared 0x%x)", map->box[0],
                     r > 1 ? map->box[1] : 1, r > 2 ? map->box[2] : 1, es, smem);
            return 0;
        }
        if (store) {
            if (inside) {
                uint8_t *g = emu_mem(b, t, in, SP_GLOBAL, map->base + off, es);
                if (!g)
                    return 0;
                memcpy(g, s, es);
            }
            continue;
        }
        uint64_t v = 0;
        if (inside) {
            uint8_t *g = emu_mem(b, t, in, SP_GLOBAL, map->base + off, es);
            if (!g)
                return 0;
            memcpy(&v, g, es);
            if (map->dtype == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32)
                v = tf32_hw_cvt_rn((uint32_t)v);
            else if (map->dtype == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ)
                v = tf32_hw_cvt_rn(bf32(ftz(f32(v), 1)));
        } else if (map->oob_nan)
            v = es == 8 ? 0x7FF8000000000000ull : es == 4 ? 0x7FFFFFFFu : 0x7FFFu;
        l->off[i] = (uint32_t)(s - b->smem);
        memcpy(l->data + i * es, &v, es);
    }
    return 1;
}

static int exec_cp(Blk *b, Th *t, const PtxInsn *in)
{
    b->events++;
    switch (in->sub) {
    case CP_NOP: return X_NEXT;
    case CP_COMMIT: t->cp_group++; return X_NEXT;
    case CP_WAIT: {
        unsigned keep = (unsigned)rd(b, t, &in->o[0]);
        return land_thread(b, t->tid, keep >= t->cp_group ? 0 : t->cp_group - keep) ? X_NEXT : X_FAIL;
    }
    case CP_WAIT_ALL: return land_thread(b, t->tid, ~0u) ? X_NEXT : X_FAIL;
    case CP_MBAR_ARRIVE: { /* the thread's copies land first; .noinc arrives, else nothing is owed */
        if (!land_thread(b, t->tid, ~0u))
            return X_FAIL;
        if (!(in->mods & M_NOINC))
            return X_NEXT;
        Mbar *m = mbar(b, in, mbar_addr(b, t, in, &in->o[0]), 0);
        if (!m)
            return X_FAIL;
        if (!m->pending)
            return emu_fail(b, PTX_EMU_FAULT, in, "more arrivals than the mbarrier expects");
        m->pending--;
        mbar_check(m);
        return X_NEXT;
    }
    case CP_ASYNC: { /* cp.async.ca|cg.shared.global [dst], [src], size[, src-size] */
        unsigned size = (unsigned)rd(b, t, &in->o[2]);
        unsigned src = in->nops > 3 && in->o[3].kind != K_SINK ? (unsigned)rd(b, t, &in->o[3]) : size;
        uint64_t da = addr_value(b, t, &in->o[0]);
        uint8_t *d = emu_mem(b, t, in, da >= SHARED_GEN ? SP_GENERIC : SP_SHARED, da, size);
        if (!d)
            return X_FAIL;
        if (size > 16)
            return emu_fail(b, PTX_EMU_FAULT, in, "a cp.async of %u bytes", size);
        Landing *l = land_new(b, 1, size);
        memset(l->data, 0, size);
        if (src) {
            const uint8_t *s = emu_mem(b, t, in, SP_GLOBAL, addr_value(b, t, &in->o[1]), src > size ? size : src);
            if (!s)
                return X_FAIL;
            memcpy(l->data, s, src > size ? size : src);
        }
        l->off[0] = (uint32_t)(d - b->smem);
        l->owner = t->tid;
        l->group = t->cp_group;
        return X_NEXT;
    }
    case CP_BULK: { /* [dst], [src], size, [mbar] (global to shared) */
        if (!strstr(in->text, ".shared::cluster.global") && !strstr(in->text, ".shared::cta.global"))
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only bulk copies from global to shared memory are known");
        unsigned size = (unsigned)rd(b, t, &in->o[2]);
        uint8_t *d = emu_mem(b, t, in, SP_SHARED, addr_value(b, t, &in->o[0]), size);
        const uint8_t *s = d ? emu_mem(b, t, in, SP_GLOBAL, addr_value(b, t, &in->o[1]), size) : NULL;
        if (!s)
            return X_FAIL;
        Landing *l = land_new(b, 1, size);
        l->off[0] = (uint32_t)(d - b->smem);
        memcpy(l->data, s, size);
        l->has_mbar = 1;
        l->mbar = mbar_addr(b, t, in, &in->o[3]);
        l->tx = size;
        return mbar(b, in, l->mbar, 0) ? X_NEXT : X_FAIL;
    }
    case CP_TENSOR: {
        int store = (in->mods & M_TO_GLOBAL) != 0;
        const PtxOp *mo = &in->o[store ? 0 : 1];
        const uint8_t *mp = emu_mem(b, t, in, SP_GENERIC, addr_value(b, t, mo), sizeof(PtxEmuTmap));
        if (!mp)
            return X_FAIL;
        PtxEmuTmap map;
        memcpy(&map, mp, sizeof map);
        if (map.magic != PTX_EMU_TMAP_MAGIC)
            return emu_fail(b, PTX_EMU_FAULT, in, "the tensor map was not encoded (its bytes are not a map)");
        int32_t c[5] = {0};
        if (mo->n != map.rank)
            return emu_fail(b, PTX_EMU_FAULT, in, "%u coordinates for a map of rank %u", mo->n, map.rank);
        for (unsigned d = 0; d < mo->n; d++)
            c[d] = (int32_t)rd(b, t, &b->m->vec[mo->first + d]);
        uint32_t smem = (uint32_t)addr_value(b, t, &in->o[store ? 1 : 0]);
        Landing *l;
        if (!tensor_copy(b, t, in, &map, c, smem, store, &l))
            return X_FAIL;
        if (store)
            return X_NEXT;
        l->has_mbar = 1;
        l->mbar = mbar_addr(b, t, in, &in->o[2]);
        l->tx = (int64_t)l->n * l->es;
        if (!mbar(b, in, l->mbar, 0))
            return X_FAIL;
        if (in->sub2) { /* multicast: the same box at the same offsets of each block in the mask */
            unsigned mask = (unsigned)rd(b, t, &in->o[3]) & 0xffff;
            for (unsigned r = 0; r < b->csize; r++) {
                Blk *o = &b->cl[r];
                if (!(mask >> r & 1) || o == b)
                    continue;
                Landing *c = land_new(o, l->n, l->es);
                l = &b->land[b->nland - 1]; /* (o's queue grew, not b's: l stays valid; reread anyway) */
                memcpy(c->off, l->off, l->n * sizeof *l->off);
                memcpy(c->data, l->data, (size_t)l->n * l->es);
                c->has_mbar = 1, c->mbar = l->mbar, c->tx = l->tx;
                if (!mbar(o, in, c->mbar, 0))
                    return X_FAIL;
            }
            if (!(mask >> b->rank & 1)) { /* not for this block itself */
                free(l->off);
                free(l->data);
                b->nland--;
            }
        }
        return X_NEXT;
    }
    }
    return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "unknown copy");
}


/* ---- barriers ------------------------------------------------------------------------------- */

static void bar_release(Blk *b, unsigned id)
{
    unsigned need = b->bar[id].expected < 0 ? b->alive : (unsigned)b->bar[id].expected;
    if (!b->bar[id].arrived || b->bar[id].arrived < need)
        return;
    b->bar[id].arrived = 0;
    for (unsigned i = 0; i < b->nthreads; i++)
        if (b->th[i].state == TS_BAR && b->th[i].bar == id) {
            b->th[i].state = TS_RUN;
            b->th[i].pc++;
        }
}

static int exec_bar(Blk *b, Th *t, const PtxInsn *in)
{
    unsigned id = in->nops ? (unsigned)rd(b, t, &in->o[0]) : 0;
    if (id >= MAX_BARRIERS)
        return emu_fail(b, PTX_EMU_FAULT, in, "barrier %u (at most 15)", id);
    int count = in->nops > 1 ? (int)rd(b, t, &in->o[1]) : -1;
    if (b->bar[id].arrived && b->bar[id].expected != count)
        return emu_fail(b, PTX_EMU_FAULT, in, "barrier %u with thread counts %d and %d", id, b->bar[id].expected, count);
    b->bar[id].expected = count;
    b->bar[id].arrived++;
    b->events++;
    int arrive = in->sub == BAR_ARRIVE;
    if (!arrive) {
        t->state = TS_BAR;
        t->bar = (uint8_t)id;
    }
    bar_release(b, id);
    if (arrive)
        return X_NEXT;
    return X_BLOCK;
}

/* barrier.cluster.arrive / .wait: every live thread of the cluster
 * arrives once a phase; a wait lasts until its phase completes */
static void cluster_bar_check(Blk *b)
{
    Blk *c0 = &b->cl[0];
    unsigned live = 0;
    for (unsigned r = 0; r < b->csize; r++)
        live += b->cl[r].alive;
    if (!c0->cb_arrived || c0->cb_arrived < live)
        return;
    c0->cb_arrived = 0;
    c0->cb_phase++;
    for (unsigned r = 0; r < b->csize; r++) {
        Blk *o = &b->cl[r];
        o->events++;
        for (unsigned i = 0; i < o->nthreads; i++)
            if (o->th[i].state == TS_CBAR) {
                o->th[i].state = TS_RUN;
                o->th[i].pc++;
            }
    }
}

static int exec_cluster_bar(Blk *b, Th *t, const PtxInsn *in)
{
    Blk *c0 = &b->cl[0];
    b->events++;
    if (in->sub == BAR_CLUSTER_ARRIVE) {
        if (t->cb_phase == c0->cb_phase + 1)
            return emu_fail(b, PTX_EMU_FAULT, in, "a second arrival on the cluster barrier in one phase");
        t->cb_phase = c0->cb_phase + 1; /* the phase this arrival completes */
        c0->cb_arrived++;
        cluster_bar_check(b);
        return X_NEXT;
    }
    if (t->cb_phase <= c0->cb_phase) /* its phase is complete */
        return X_NEXT;
    t->state = TS_CBAR;
    return X_BLOCK;
}

/* ---- one instruction ---------------------------------------------------------------------------- */

static int exec_mem(Blk *b, Th *t, const PtxInsn *in)
{
    int type = in->types[0];
    unsigned es = width(type) / 8, n = in->vec ? in->vec : 1;
    const PtxOp *ao = &in->o[in->op == PO_LD ? 1 : 0], *vo = &in->o[in->op == PO_LD ? 0 : 1];
    int sp = space_of(b, in, ao);
    uint64_t a = addr_value(b, t, ao);
    if (in->space == SP_PARAM && ao->sym >= PTX_SYM_PARAM_BASE) {
        const PtxParam *p = &b->e->params[ao->sym - PTX_SYM_PARAM_BASE];
        if ((uint64_t)ao->imm + es * n > p->bytes)
            return emu_fail(b, PTX_EMU_ILLEGAL_ADDRESS, in, "reads past parameter %s", p->name);
        sp = SP_GLOBAL; /* the launch's own memory: in_range knows it */
    }
    uint8_t *p = emu_mem(b, t, in, sp, a, es * n);
    if (!p)
        return X_FAIL;
    for (unsigned i = 0; i < n; i++) {
        const PtxOp *o = vo->kind == K_VEC ? &b->m->vec[vo->first + i] : vo;
        if (in->op == PO_LD)
            wr_ext(t, o, type, load_n(p + i * es, es));
        else {
            uint64_t v = rd(b, t, o);
            memcpy(p + i * es, &v, es);
        }
    }
    if (in->op == PO_ST)
        b->events++;
    return X_NEXT;
}

static int exec_atom(Blk *b, Th *t, const PtxInsn *in)
{
    int type = in->types[0], red = in->op == PO_RED;
    unsigned es = width(type) / 8;
    const PtxOp *ao = &in->o[red ? 0 : 1];
    uint8_t *p = emu_mem(b, t, in, space_of(b, in, ao), addr_value(b, t, ao), es);
    if (!p)
        return X_FAIL;
    uint64_t old = load_n(p, es), x = rd(b, t, &in->o[red ? 1 : 2]), v;
    switch (in->sub2) {
    case 10: v = is_float(type) ? fbits(type, fval(type, old) + fval(type, x)) : old + x; break;
    case 11: case 12: {
        PtxInsn mm = *in;
        mm.op = in->sub2 == 11 ? PO_MIN : PO_MAX;
        int wide;
        v = is_float(type) ? emu_float_op(&mm, type, old, x, 0) : emu_int_op(&mm, type, old, x, 0, &wide);
        break;
    }
    case 13: v = x; break;
    case 14: v = old == (x & mask_of(width(type))) ? rd(b, t, &in->o[3]) : old; break;
    case 15: v = old | x; break;
    case 16: v = old & x; break;
    default: return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "unknown atomic operation");
    }
    memcpy(p, &v, es);
    if (!red)
        wr(t, &in->o[0], type, old);
    b->events++;
    return X_NEXT;
}

static int exec(Blk *b, Th *t, const PtxInsn *in)
{
    int type = in->types[0];
    const PtxOp *o = in->o;
    switch (in->op) {
    case PO_NOP: return X_NEXT;
    case PO_MOV: {
        if (o[0].kind == K_VEC) { /* unpack */
            uint64_t v = rd(b, t, &o[1]);
            unsigned part = width(type) / o[0].n;
            for (unsigned i = 0; i < o[0].n; i++)
                wr(t, &b->m->vec[o[0].first + i], part == 16 ? T_B16 : part == 32 ? T_B32 : T_B8, v >> (part * i));
        } else if (o[1].kind == K_VEC) { /* pack */
            uint64_t v = 0;
            unsigned part = width(type) / o[1].n;
            for (unsigned i = 0; i < o[1].n; i++)
                v |= (rd(b, t, &b->m->vec[o[1].first + i]) & mask_of(part)) << (part * i);
            wr(t, &o[0], type, v);
        } else
            wr(t, &o[0], type, rd(b, t, &o[1]));
        return X_NEXT;
    }
    case PO_LD:
    case PO_ST: return exec_mem(b, t, in);
    case PO_ADD: case PO_SUB: case PO_MUL: case PO_MAD: case PO_FMA: case PO_DIV: case PO_REM: case PO_MIN:
    case PO_MAX: {
        uint64_t a = rd(b, t, &o[1]), x = rd(b, t, &o[2]), c = in->nops > 3 ? rd(b, t, &o[3]) : 0;
        if (is_float(type) && in->rnd != R_DEFAULT && in->rnd != R_RN)
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only round-to-nearest arithmetic is known");
        if (type == T_F32 && !in->mods && (in->op == PO_FMA || in->op == PO_ADD || in->op == PO_MUL)) {
            /* the FMA loops' instructions: one rounding, NaN as the GPU writes it */
            float fa = f32(a), fx = f32(x);
            float r = in->op == PO_FMA ? fmaf(fa, fx, f32(c)) : in->op == PO_ADD ? fa + fx : fa * fx;
            wr(t, &o[0], type, r != r ? F32_CANON_NAN : bf32(r));
            return X_NEXT;
        }
        if (type == T_F16X2 || type == T_BF16X2) {
            int h = type == T_F16X2 ? T_F16 : T_BF16;
            uint64_t lo = emu_float_op(in, h, a & 0xffff, x & 0xffff, c & 0xffff);
            uint64_t hi = emu_float_op(in, h, a >> 16 & 0xffff, x >> 16 & 0xffff, c >> 16 & 0xffff);
            wr(t, &o[0], T_B32, hi << 16 | lo);
        } else if (is_float(type))
            wr(t, &o[0], type, emu_float_op(in, type, a, x, c));
        else {
            int wide;
            uint64_t r = emu_int_op(in, type, a, x, c, &wide);
            if (wide)
                t->r[o[0].reg] = r & mask_of(2 * width(type));
            else
                wr_ext(t, &o[0], type, r);
        }
        return X_NEXT;
    }
    case PO_AND: case PO_OR: case PO_XOR: {
        uint64_t a = rd(b, t, &o[1]), x = rd(b, t, &o[2]);
        wr(t, &o[0], type, in->op == PO_AND ? a & x : in->op == PO_OR ? a | x : a ^ x);
        return X_NEXT;
    }
    case PO_NOT: wr(t, &o[0], type, ~rd(b, t, &o[1])); return X_NEXT;
    case PO_CNOT: wr(t, &o[0], type, rdt(b, t, &o[1], type) == 0); return X_NEXT;
    case PO_SHL: case PO_SHR: {
        unsigned w = width(type);
        uint64_t a = rdt(b, t, &o[1], type), s = rd(b, t, &o[2]) & 0xffffffffu;
        uint64_t r = in->op == PO_SHL  ? (s >= w ? 0 : a << s)
                     : is_signed(type) ? (uint64_t)(sext(a, w) >> (s >= w ? w - 1 : s))
                                       : (s >= w ? 0 : a >> s);
        wr_ext(t, &o[0], type, r);
        return X_NEXT;
    }
    case PO_ABS: case PO_NEG: {
        uint64_t a = rd(b, t, &o[1]);
        if (is_float(type)) {
            uint64_t sign = 1ull << (width(type) - 1);
            uint64_t r = in->op == PO_ABS ? a & ~sign : a ^ sign;
            if (type == T_F32)
                r = bf32(ftz(f32(r), in->mods & M_FTZ));
            wr(t, &o[0], type, r);
        } else {
            int64_t v = sext(a, width(type));
            wr_ext(t, &o[0], type, in->op == PO_NEG ? (uint64_t)-(uint64_t)v : (uint64_t)(v < 0 ? -(uint64_t)v : (uint64_t)v));
        }
        return X_NEXT;
    }
    case PO_SETP: {
        unsigned k = in->pair ? 2 : 1;
        uint64_t a = rd(b, t, &o[k]), x = rd(b, t, &o[k + 1]);
        if (type == T_F32 && (in->mods & M_FTZ))
            a = bf32(ftz(f32(a), 1)), x = bf32(ftz(f32(x), 1));
        int r = emu_compare(in->cmp, type, a, x), nr = !r;
        if (in->bop) {
            int c = (int)(rd(b, t, &o[k + 2]) & 1);
            r = in->bop == 1 ? r && c : in->bop == 2 ? r || c : r ^ c;
            nr = in->bop == 1 ? nr && c : in->bop == 2 ? nr || c : nr ^ c;
        }
        wr(t, &o[0], T_PRED, (uint64_t)r);
        if (in->pair)
            wr(t, &o[1], T_PRED, (uint64_t)nr);
        return X_NEXT;
    }
    case PO_SELP: wr(t, &o[0], type, rd(b, t, &o[3]) & 1 ? rd(b, t, &o[1]) : rd(b, t, &o[2])); return X_NEXT;
    case PO_CVT: return emu_cvt(b, t, in);
    case PO_CVTA: {
        uint64_t a = rd(b, t, &o[1]);
        int to = (in->mods & M_TO) != 0;
        if (in->space == SP_SHARED)
            a = to ? a - SHARED_GEN : a + SHARED_GEN;
        else if (in->space == SP_LOCAL)
            a = to ? a - LOCAL_GEN : a + LOCAL_GEN;
        wr(t, &o[0], type, a);
        return X_NEXT;
    }
    case PO_BRA: t->pc = (uint32_t)o[0].imm; return X_JUMP;
    case PO_RET: return X_BLOCK; /* the caller ends the thread */
    case PO_BAR:
        if (in->sub == BAR_WARP) /* bar.warp.sync: the warp's lanes meet */
            return emu_collective(b, t, in);
        return in->sub >= BAR_CLUSTER_ARRIVE ? exec_cluster_bar(b, t, in) : exec_bar(b, t, in);
    case PO_MAPA: {
        if (in->space != SP_SHARED)
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only mapa.shared::cluster is known");
        uint32_t a = (uint32_t)rd(b, t, &o[1]), r = (uint32_t)rd(b, t, &o[2]);
        if (r >= b->csize || a >> CLUSTER_SHIFT)
            return emu_fail(b, PTX_EMU_ILLEGAL_ADDRESS, in, "mapa of 0x%x to rank %u in a cluster of %u", a, r, b->csize);
        wr(t, &o[0], type, (uint64_t)((r + 1) << CLUSTER_SHIFT | a));
        return X_NEXT;
    }
    case PO_BFE: {
        unsigned w = width(type), pos = (unsigned)rd(b, t, &o[2]) & 0xff, len = (unsigned)rd(b, t, &o[3]) & 0xff;
        uint64_t a = rdt(b, t, &o[1], type), r = 0;
        /* the ISA's rule, bit by bit: d[i] = i < len && pos + i < w ? a[pos + i] : sbit */
        unsigned top = pos + len - 1 < w - 1 ? pos + len - 1 : w - 1;
        uint64_t sbit = !len || !is_signed(type) ? 0 : a >> top & 1;
        for (unsigned i = 0; i < w; i++)
            r |= (i < len && pos + i < w ? a >> (pos + i) & 1 : sbit) << i;
        wr(t, &o[0], type, r);
        return X_NEXT;
    }
    case PO_BFI: {
        unsigned w = width(type), pos = (unsigned)rd(b, t, &o[3]) & 0xff, len = (unsigned)rd(b, t, &o[4]) & 0xff;
        uint64_t a = rd(b, t, &o[1]), x = rd(b, t, &o[2]);
        uint64_t m = pos >= w ? 0 : (len >= 64 ? ~0ull : mask_of(len)) << pos;
        wr(t, &o[0], type, (x & ~m) | ((a << (pos & 63)) & m));
        return X_NEXT;
    }
    case PO_SHF: { /* the 64 bits b:a shifted, the high word kept (l) or the low (r) */
        uint64_t a = rd(b, t, &o[1]) & 0xffffffff, x = rd(b, t, &o[2]) & 0xffffffff, n = rd(b, t, &o[3]) & 0xffffffff;
        n = in->sub2 ? (n > 32 ? 32 : n) : n & 31;
        uint64_t both = x << 32 | a;
        wr(t, &o[0], T_B32, in->sub == 1 ? (both << n) >> 32 & 0xffffffff : (both >> n) & 0xffffffff);
        return X_NEXT;
    }
    case PO_PRMT: {
        uint64_t a = rd(b, t, &o[1]) & 0xffffffff, x = rd(b, t, &o[2]) & 0xffffffff, s = rd(b, t, &o[3]);
        uint64_t bytes = a | x << 32, r = 0;
        if (in->ntypes > 1 || strstr(in->text, ".f4e") || strstr(in->text, ".b4e") || strstr(in->text, ".rc"))
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "only the default prmt mode is known");
        for (unsigned i = 0; i < 4; i++) {
            unsigned sel = (unsigned)(s >> (4 * i)) & 15;
            uint64_t byte = bytes >> (8 * (sel & 7)) & 0xff;
            if (sel & 8)
                byte = byte & 0x80 ? 0xff : 0;
            r |= byte << (8 * i);
        }
        wr(t, &o[0], T_B32, r);
        return X_NEXT;
    }
    case PO_POPC: wr(t, &o[0], T_U32, (uint64_t)__builtin_popcountll(rdt(b, t, &o[1], type))); return X_NEXT;
    case PO_CLZ: {
        uint64_t a = rdt(b, t, &o[1], type);
        unsigned w = width(type);
        wr(t, &o[0], T_U32, a ? (uint64_t)(__builtin_clzll(a) - (64 - (int)w)) : w);
        return X_NEXT;
    }
    case PO_BREV: {
        uint64_t a = rdt(b, t, &o[1], type), r = 0;
        unsigned w = width(type);
        for (unsigned i = 0; i < w; i++)
            r |= (a >> i & 1) << (w - 1 - i);
        wr(t, &o[0], type, r);
        return X_NEXT;
    }
    case PO_RCP: case PO_SQRT: case PO_RSQRT: case PO_EX2: case PO_LG2: case PO_SIN: case PO_COS: case PO_TANH:
        return emu_float_unary(b, t, in);
    case PO_COPYSIGN: {
        uint64_t sign = 1ull << (width(type) - 1);
        wr(t, &o[0], type, (rd(b, t, &o[2]) & ~sign) | (rd(b, t, &o[1]) & sign));
        return X_NEXT;
    }
    case PO_TESTP: {
        double a = fval(type, rd(b, t, &o[1]));
        int r = strstr(in->text, "notanumber") ? isnan(a)
                : strstr(in->text, "number")   ? !isnan(a)
                : strstr(in->text, "infinite") ? isinf(a)
                : strstr(in->text, "finite")   ? isfinite(a)
                : strstr(in->text, "subnormal") ? fpclassify(type == T_F32 ? (float)a : a) == FP_SUBNORMAL
                : strstr(in->text, "normal")   ? fpclassify(type == T_F32 ? (float)a : a) == FP_NORMAL
                                               : -1;
        if (r < 0)
            return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "unknown testp");
        wr(t, &o[0], T_PRED, (uint64_t)r);
        return X_NEXT;
    }
    case PO_MMA: case PO_SHFL: case PO_VOTE: case PO_ACTIVEMASK: return emu_collective(b, t, in);
    case PO_WGMMA: return in->sub == WG_FENCE ? X_NEXT : emu_collective(b, t, in);
    case PO_ATOM: case PO_RED: return exec_atom(b, t, in);
    case PO_TRAP: return emu_fail(b, PTX_EMU_TRAP, in, "trap");
    case PO_MBAR: return exec_mbar(b, t, in);
    case PO_CP: return exec_cp(b, t, in);
    }
    return emu_fail(b, PTX_EMU_UNSUPPORTED, in, "no semantics for this instruction");
}

static int thread_exit(Blk *b, Th *t)
{
    land_thread(b, t->tid, ~0u);
    t->state = TS_DONE;
    b->alive--;
    b->events++;
    for (unsigned id = 0; id < MAX_BARRIERS; id++)
        bar_release(b, id);
    cluster_bar_check(b);
    /* a warp collective the rest of the warp waits at may now have all its live lanes */
    unsigned first = t->tid / 32 * 32, n = b->nthreads - first < 32 ? b->nthreads - first : 32;
    return emu_collective_finish(b, &b->warp[t->tid / 32], first, n, 0) != X_FAIL;
}

/* the schedule's random numbers (xorshift64*; seed 0: none are drawn) */
static uint64_t rnd_next(Blk *b)
{
    uint64_t *x = &b->cl[0].rng;
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1Dull;
}

/* runs t until it waits, ends or has run its turn's instructions
 * (STEP_BUDGET; a random 1 .. 64 with a seed, for finer interleavings) */
static int step(Blk *b, Th *t)
{
    const PtxEntry *e = b->e;
    unsigned budget = b->cl[0].rng ? 1 + (unsigned)(rnd_next(b) % 64) : STEP_BUDGET;
    for (unsigned n = 0; n < budget; n++) {
        if (t->pc >= e->ninsns)
            return thread_exit(b, t);
        const PtxInsn *in = &e->insns[t->pc];
        b->steps++;
        if (in->guard >= 0 && (int)(t->r[in->guard] & 1) == in->guard_neg) {
            t->pc++;
            continue;
        }
        int r = exec(b, t, in);
        switch (r) {
        case X_NEXT: t->pc++; break;
        case X_JUMP: break;
        case X_FAIL: return 0;
        case X_YIELD: return 1;
        case X_BLOCK:
            if (in->op == PO_RET)
                return thread_exit(b, t);
            return 1;
        }
    }
    if (b->steps > LAUNCH_LIMIT)
        return emu_fail(b, PTX_EMU_HANG, NULL, "%s: over %llu instructions: a loop that never ends?", e->name,
                    (unsigned long long)LAUNCH_LIMIT) == X_NEXT;
    if (!t->spinning)
        b->events++; /* a long computation is progress: only LAUNCH_LIMIT ends one */
    return 1;
}

/* a block as it starts */
static void blk_reset(Blk *b)
{
    b->alive = b->nthreads;
    b->nmb = 0;
    b->cb_arrived = b->cb_phase = 0;
    b->seq = 0;
    b->lastrange = NULL;
    memset(b->bar, 0, sizeof b->bar);
    memset(b->smem, 0, b->smem_bytes);
    memset(b->regs, 0, (size_t)b->nthreads * b->e->nslots * sizeof *b->regs);
    for (unsigned i = 0; i < b->nthreads; i++) {
        Th *t = &b->th[i];
        t->pc = 0;
        t->state = TS_RUN;
        t->tid = i;
        t->cp_group = t->cb_phase = 0;
        t->spinning = 0;
    }
    unsigned nw = (b->nthreads + 31) / 32, nwg = (b->nthreads + 127) / 128;
    memset(b->warp, 0, nw * sizeof *b->warp);
    memset(b->wg, 0, nwg * sizeof *b->wg);
    for (unsigned i = 0; i < nwg; i++)
        b->wgq[i].n = b->wgq[i].group = 0;
}

static uint64_t cluster_events(const Blk *cl, unsigned n)
{
    uint64_t ev = 0;
    for (unsigned r = 0; r < n; r++)
        ev += cl[r].events;
    return ev;
}

/* the deadlock's report: where each thread waits (runs of alike threads once) */
static void report_deadlock(Blk *cl, unsigned n)
{
    char where[512] = "";
    size_t len = 0;
    for (unsigned r = 0; r < n; r++)
        for (unsigned i = 0; i < cl[r].nthreads && len < sizeof where - 80; i++) {
            const Th *t = &cl[r].th[i];
            if (t->state == TS_DONE || (i && cl[r].th[i - 1].pc == t->pc && cl[r].th[i - 1].state == t->state))
                continue;
            const PtxInsn *in = &cl[r].e->insns[t->pc < cl[r].e->ninsns ? t->pc : 0];
            len += (size_t)snprintf(where + len, sizeof where - len, " %sthread %u at line %d '%s';",
                                    n > 1 ? (r ? "rank 1 " : "rank 0 ") : "", i, in->line, in->text);
        }
    emu_fail(&cl[0], PTX_EMU_HANG, NULL, "%s, block (%u,%u,%u): deadlock:%s", cl[0].e->name, cl[0].ctaid[0],
         cl[0].ctaid[1], cl[0].ctaid[2], where);
}

/* runs the n blocks of a cluster (n = 1: a block) to their end */
static int run_cluster(Blk *cl, unsigned n, uint64_t seed)
{
    unsigned stalls = 0;
    for (unsigned r = 0; r < n; r++)
        blk_reset(&cl[r]);
    cl[0].rng = seed;
    for (;;) {
        uint64_t ev = cluster_events(cl, n);
        unsigned alive = 0;
        for (unsigned r = 0; r < n; r++) {
            Blk *b = &cl[r];
            /* with a seed, each pass starts at a random thread and skips some */
            unsigned start = cl[0].rng ? (unsigned)(rnd_next(b) % b->nthreads) : 0;
            for (unsigned k = 0; k < b->nthreads; k++) {
                Th *t = &b->th[(start + k) % b->nthreads];
                if (t->state == TS_RUN && (!cl[0].rng || rnd_next(b) % 4) && !step(b, t))
                    return 0;
            }
            alive += b->alive;
        }
        if (!alive)
            break;
        if (cluster_events(cl, n) != ev) {
            stalls = 0;
            continue;
        }
        /* nobody moves until a copy lands: the cluster's oldest does (with a seed, any one) */
        Blk *oldest = NULL;
        unsigned pending = 0;
        for (unsigned r = 0; r < n; r++) {
            pending += cl[r].nland;
            if (cl[r].nland && (!oldest || cl[r].land[0].seq < oldest->land[0].seq))
                oldest = &cl[r];
        }
        if (!pending) {
            if (cl[0].rng && stalls++ < 8) /* a pass that skipped threads may move nothing by chance */
                continue;
            report_deadlock(cl, n);
            return 0;
        }
        stalls = 0;
        if (cl[0].rng) { /* copies land in any order */
            unsigned k = (unsigned)(rnd_next(&cl[0]) % pending), r = 0;
            while (k >= cl[r].nland)
                k -= cl[r++].nland;
            if (!land(&cl[r], k))
                return 0;
            continue;
        }
        if (!land(oldest, 0))
            return 0;
    }
    for (unsigned r = 0; r < n; r++)
        land_drop_all(&cl[r]); /* copies nobody waited for go with the block's shared memory */
    return 1;
}

static void blk_alloc(Blk *b)
{
    const PtxEntry *e = b->e;
    b->smem = malloc(b->smem_bytes);
    b->th = calloc(b->nthreads, sizeof *b->th);
    b->regs = calloc((size_t)b->nthreads * (e->nslots ? e->nslots : 1), sizeof *b->regs);
    b->local = calloc((size_t)b->nthreads, e->local_bytes ? e->local_bytes : 1);
    b->warp = calloc((b->nthreads + 31) / 32, sizeof *b->warp);
    b->wg = calloc((b->nthreads + 127) / 128, sizeof *b->wg);
    b->wgq = calloc((b->nthreads + 127) / 128, sizeof *b->wgq);
    if (!b->smem || !b->th || !b->regs || !b->local || !b->warp || !b->wg || !b->wgq)
        abort();
    for (unsigned i = 0; i < (b->nthreads + 127) / 128; i++)
        if (!(b->wgq[i].p = malloc(WG_PENDING_MAX * sizeof *b->wgq[i].p)))
            abort();
    for (unsigned i = 0; i < b->nthreads; i++) {
        b->th[i].r = b->regs + (size_t)i * e->nslots;
        b->th[i].local = b->local + (size_t)i * e->local_bytes;
    }
}

static void blk_free(Blk *b)
{
    free(b->smem);
    free(b->th);
    free(b->regs);
    free(b->local);
    free(b->warp);
    free(b->wg);
    for (unsigned i = 0; i < (b->nthreads + 127) / 128; i++)
        free(b->wgq[i].p);
    free(b->wgq);
    land_drop_all(b); /* a failed block's */
    free(b->land);
    free(b->mb);
}

PtxEmuResult ptx_emu_launch(PtxEmuModule *m, const char *entry, const unsigned grid[3], const unsigned block[3],
                            unsigned dyn_shared, void **params, uint64_t seed, char *err, size_t errlen)
{
    const PtxEntry *e = NULL;
    for (unsigned i = 0; i < m->nentries; i++)
        if (!strcmp(m->entries[i].name, entry))
            e = &m->entries[i];
    if (!e) {
        snprintf(err, errlen, "no entry %s in the module", entry);
        return PTX_EMU_FAULT;
    }
    unsigned nthreads = block[0] * block[1] * block[2], cs = e->cluster ? e->cluster : 1;
    if (!nthreads || nthreads > 1024) {
        snprintf(err, errlen, "%u threads a block", nthreads);
        return PTX_EMU_FAULT;
    }
    if (grid[0] % cs) {
        snprintf(err, errlen, "a grid of %u blocks along x in clusters of %u", grid[0], cs);
        return PTX_EMU_FAULT;
    }
    err[0] = 0;
    Blk cl[8];
    memset(cl, 0, sizeof cl);
    uint64_t top = SHARED_RESERVED + m->shared_bytes;
    for (unsigned r = 0; r < cs; r++) {
        Blk *b = &cl[r];
        b->m = m, b->e = e, b->params = params, b->err = err, b->errlen = errlen, b->dyn = dyn_shared;
        memcpy(b->grid, grid, sizeof b->grid);
        memcpy(b->block, block, sizeof b->block);
        b->nthreads = nthreads;
        b->dyn_base = (top + m->dynamic_align - 1) / m->dynamic_align * m->dynamic_align;
        b->smem_bytes = b->dyn_base + dyn_shared;
        b->cl = cl, b->rank = r, b->csize = cs;
        blk_alloc(b);
    }
    pthread_mutex_lock(&mu);
    int ok = 1;
    for (unsigned z = 0; ok && z < grid[2]; z++)
        for (unsigned y = 0; ok && y < grid[1]; y++)
            for (unsigned x = 0; ok && x < grid[0]; x += cs) {
                for (unsigned r = 0; r < cs; r++) {
                    cl[r].ctaid[0] = x + r, cl[r].ctaid[1] = y, cl[r].ctaid[2] = z;
                }
                ok = run_cluster(cl, cs, seed ? seed ^ (x + 1) * 0x9E3779B97F4A7C15ull ^ y << 20 ^ z : 0);
            }
    pthread_mutex_unlock(&mu);
    PtxEmuResult status = PTX_EMU_OK;
    for (unsigned r = 0; r < cs; r++) {
        if (!status)
            status = (PtxEmuResult)cl[r].status;
        blk_free(&cl[r]);
    }
    return ok ? PTX_EMU_OK : status ? status : PTX_EMU_FAULT;
}
