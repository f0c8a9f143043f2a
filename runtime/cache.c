/*
 * The kernel cache (see cache.h for what it guarantees).
 *
 * Entry file layout, all integers little-endian:
 *   0   magic "tilecKC\n"
 *   8   u32 format version (9; 8 had no optional bit, 7 had no store flag, 6 no cluster bit, 5 no rounded entries, 3 no round flag, 2 no staging fields,
 *       1 no tensor maps)
 *   12  u32 header size (96)
 *   16  key (32 bytes)
 *   48  u64 payload length
 *   56  SHA-256 of bytes 0..55 followed by the payload
 *   88  u64 reserved (0)
 *   96  payload: u32 nkernels, per kernel {str name, u32 threads,
 *       shared_bytes, grid[3], u8 persistent | rounded << 1 | tma_required << 2 | (cluster == 2) << 3, u32 nparams, per param {u8 kind, elem, rank, 0,
 *       u32 dim0, dim1}, u32 ntmaps, per map {u8 kind, dtype, batched, u16
 *       box[3], u32 base_param, then for d0, d1, s0, s1, db, sb: i32 param,
 *       i64 value, then u8 stage, round, walk, store | optional << 1, u16 across}}, then
 *       u64 + PTX bytes, u64 + cubin bytes (str = u32 length + bytes)
 * Bytes 0..55 are checksummed too, so a file with the right length and a
 * damaged header is caught like one with a damaged payload. A reader takes
 * only its own version, and refuses tensor maps that point outside their
 * kernel's parameters (the file is untrusted input).
 */
#include "runtime/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/tmap.h"
#include "tilec_build_id.h" /* TILEC_BUILD_ID (cmake/build_id.cmake) */

#if !defined(TILEC_VERSION) || !defined(TILEC_LLVM_VERSION)
#error "TILEC_VERSION and TILEC_LLVM_VERSION must be defined: they are part of every cache key"
#endif

enum { HDR_SIZE = 96, FORMAT_VERSION = 9, MEM_ENTRIES = 64 };
/* The bytes of the smallest kernel (no name, parameters or maps), of one
 * parameter and of one tensor map, for bounding counts before allocating. */
enum { KERNEL_MIN_BYTES = 32, PARAM_BYTES = 12, TMAP_BYTES = 91 };
static const char MAGIC[8] = {'t', 'i', 'l', 'e', 'c', 'K', 'C', '\n'};
/* A bound on what a reader will allocate for one file. */
#define MAX_ENTRY_BYTES ((uint64_t)1 << 30)

/* ---- SHA-256 (FIPS 180-4) ---------------------------------------------------- */

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void tc_sha256_init(TcSha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->nbuf = 0;
}

void tc_sha256_update(TcSha256 *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->len += len;
    while (len) {
        if (s->nbuf == 0 && len >= 64) {
            sha_block(s->h, p);
            p += 64, len -= 64;
            continue;
        }
        size_t n = 64 - s->nbuf < len ? 64 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, n);
        s->nbuf += n, p += n, len -= n;
        if (s->nbuf == 64) {
            sha_block(s->h, s->buf);
            s->nbuf = 0;
        }
    }
}

void tc_sha256_final(TcSha256 *s, uint8_t out[32])
{
    uint64_t bits = s->len * 8;
    uint8_t pad[72] = {0x80};
    size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
    for (int i = 0; i < 8; i++)
        pad[npad + i] = (uint8_t)(bits >> (56 - 8 * i));
    tc_sha256_update(s, pad, npad + 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void tc_sha256(const void *data, size_t len, uint8_t out[32])
{
    TcSha256 s;
    tc_sha256_init(&s);
    tc_sha256_update(&s, data, len);
    tc_sha256_final(&s, out);
}

void tc_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = 0;
}

/* ---- keys ------------------------------------------------------------------ */

/* Each field is length-prefixed, so no two different tuples hash alike by
 * concatenation ("ab"+"c" vs "a"+"bc"). */
static void key_field(TcSha256 *s, const void *p, size_t n)
{
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)((uint64_t)n >> (8 * i));
    tc_sha256_update(s, len, 8);
    tc_sha256_update(s, p, n);
}

void tc_cache_key(const TcCacheKeyParts *p, TcCacheKey *k)
{
    TcSha256 s;
    char num[64];
    tc_sha256_init(&s);
    key_field(&s, "tilec-cache-key-v1", 18);
    key_field(&s, p->src ? p->src : "", p->src ? p->src_len : 0);
    key_field(&s, p->options ? p->options : "", p->options ? strlen(p->options) : 0);
    key_field(&s, p->target ? p->target : "", p->target ? strlen(p->target) : 0);
    key_field(&s, TILEC_VERSION, strlen(TILEC_VERSION));
    key_field(&s, TILEC_LLVM_VERSION, strlen(TILEC_LLVM_VERSION));
    key_field(&s, TILEC_BUILD_ID, strlen(TILEC_BUILD_ID));
    int n = snprintf(num, sizeof num, "cc%d.%d driver%d", p->cc_major, p->cc_minor, p->driver_version);
    key_field(&s, num, (size_t)n);
    tc_sha256_final(&s, k->b);
}

/* ---- entries ----------------------------------------------------------------- */

void tc_kernel_infos_free(TcKernelInfo *k, unsigned n)
{
    if (!k)
        return;
    for (unsigned i = 0; i < n; i++) {
        free(k[i].name);
        free(k[i].params);
        free(k[i].tmaps);
    }
    free(k);
}

/* A malloc'ed copy of n elements of size bytes at src; NULL for none. */
static void *dup_array(const void *src, size_t n, size_t size, int *oom)
{
    if (!n)
        return NULL;
    void *p = malloc(n * size);
    if (!p)
        *oom = 1;
    else
        memcpy(p, src, n * size);
    return p;
}

int tc_kernel_infos_copy(TcKernelInfo **dst, const TcKernelInfo *src, unsigned n)
{
    *dst = NULL;
    if (n == 0)
        return 0;
    TcKernelInfo *k = calloc(n, sizeof *k);
    if (!k)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        int oom = 0;
        k[i] = src[i];
        k[i].name = strdup(src[i].name ? src[i].name : "");
        k[i].params = dup_array(src[i].params, src[i].nparams, sizeof *k[i].params, &oom);
        k[i].tmaps = dup_array(src[i].tmaps, src[i].ntmaps, sizeof *k[i].tmaps, &oom);
        if (!k[i].name || oom) {
            tc_kernel_infos_free(k, i + 1);
            return -1;
        }
    }
    *dst = k;
    return 0;
}

void tc_cache_entry_free(TcCacheEntry *e)
{
    free(e->ptx);
    tc_kernel_infos_free(e->kernels, e->nkernels);
    free(e->cubin);
    memset(e, 0, sizeof *e);
}

int tc_cache_entry_copy(TcCacheEntry *dst, const TcCacheEntry *src)
{
    memset(dst, 0, sizeof *dst);
    dst->ptx = malloc(src->ptx_len + 1);
    if (dst->ptx) {
        if (src->ptx_len)
            memcpy(dst->ptx, src->ptx, src->ptx_len);
        dst->ptx[src->ptx_len] = 0;
        dst->ptx_len = src->ptx_len;
    }
    if (src->cubin) {
        dst->cubin = malloc(src->cubin_len ? src->cubin_len : 1);
        if (dst->cubin) {
            memcpy(dst->cubin, src->cubin, src->cubin_len);
            dst->cubin_len = src->cubin_len;
        }
    }
    int bad = tc_kernel_infos_copy(&dst->kernels, src->kernels, src->nkernels);
    dst->nkernels = bad ? 0 : src->nkernels;
    if (!dst->ptx || (src->cubin && !dst->cubin) || bad) {
        tc_cache_entry_free(dst);
        return -1;
    }
    return 0;
}

/* ---- encoding ------------------------------------------------------------------ */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    int oom;
} Buf;

static void put(Buf *b, const void *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put_le(Buf *b, uint64_t v, int bytes)
{
    uint8_t t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

static void store_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t load_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_tmap_scalar(Buf *b, const TcTmapScalar *s)
{
    put_le(b, (uint32_t)s->param, 4);
    put_le(b, (uint64_t)s->value, 8);
}

static void put_tmap(Buf *b, const TcTmap *m)
{
    uint8_t small[3] = {m->kind, m->dtype, m->batched};
    put(b, small, 3);
    for (int i = 0; i < 3; i++)
        put_le(b, m->box[i], 2);
    put_le(b, m->base_param, 4);
    put_tmap_scalar(b, &m->d0);
    put_tmap_scalar(b, &m->d1);
    put_tmap_scalar(b, &m->s0);
    put_tmap_scalar(b, &m->s1);
    put_tmap_scalar(b, &m->db);
    put_tmap_scalar(b, &m->sb);
    uint8_t st[4] = {m->stage, m->round, m->walk, (uint8_t)(m->store | m->optional << 1)};
    put(b, st, 4);
    put_le(b, m->across, 2);
}

/* header bytes 0..55 and the payload, hashed together */
static void entry_checksum(const uint8_t *hdr, const uint8_t *payload, size_t n, uint8_t out[32])
{
    TcSha256 s;
    tc_sha256_init(&s);
    tc_sha256_update(&s, hdr, 56);
    tc_sha256_update(&s, payload, n);
    tc_sha256_final(&s, out);
}

/* The whole file image of an entry; NULL when memory runs out. */
static uint8_t *encode(const TcCacheKey *k, const TcCacheEntry *e, size_t *len)
{
    for (unsigned i = 0; i < e->nkernels; i++)
        if (e->kernels[i].ntmaps > TC_TMAP_MAX) /* a reader would refuse it: kept in memory only */
            return NULL;
    Buf b = {0};
    uint8_t zero[HDR_SIZE] = {0};
    put(&b, zero, HDR_SIZE);
    put_le(&b, e->nkernels, 4);
    for (unsigned i = 0; i < e->nkernels; i++) {
        const TcKernelInfo *ki = &e->kernels[i];
        size_t nl = ki->name ? strlen(ki->name) : 0;
        put_le(&b, nl, 4);
        put(&b, ki->name, nl);
        put_le(&b, ki->threads, 4);
        put_le(&b, ki->shared_bytes, 4);
        for (int j = 0; j < 3; j++)
            put_le(&b, ki->grid[j], 4);
        put_le(&b,
               (ki->persistent ? 1u : 0u) | (ki->rounded ? 2u : 0u) | (ki->tma_required ? 4u : 0u) |
                   (ki->cluster == 2 ? 8u : 0u),
               1);
        put_le(&b, ki->nparams, 4);
        for (unsigned j = 0; j < ki->nparams; j++) {
            const TirType *t = &ki->params[j];
            uint8_t small[4] = {t->kind, t->elem, t->rank, 0};
            put(&b, small, 4);
            put_le(&b, t->dim[0], 4);
            put_le(&b, t->dim[1], 4);
        }
        put_le(&b, ki->ntmaps, 4);
        for (unsigned j = 0; j < ki->ntmaps; j++)
            put_tmap(&b, &ki->tmaps[j]);
    }
    put_le(&b, e->ptx_len, 8);
    put(&b, e->ptx, e->ptx_len);
    put_le(&b, e->cubin ? e->cubin_len : 0, 8);
    if (e->cubin)
        put(&b, e->cubin, e->cubin_len);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    memcpy(b.p, MAGIC, 8);
    store_le(b.p + 8, FORMAT_VERSION, 4);
    store_le(b.p + 12, HDR_SIZE, 4);
    memcpy(b.p + 16, k->b, 32);
    store_le(b.p + 48, b.len - HDR_SIZE, 8);
    entry_checksum(b.p, b.p + HDR_SIZE, b.len - HDR_SIZE, b.p + 56);
    *len = b.len;
    return b.p;
}

typedef struct {
    const uint8_t *p;
    size_t len, off;
    int bad;
} Reader;

static const uint8_t *take(Reader *r, uint64_t n)
{
    if (r->bad || n > r->len - r->off) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += (size_t)n;
    return p;
}

static uint64_t get_le(Reader *r, int bytes)
{
    const uint8_t *p = take(r, (uint64_t)bytes);
    return p ? load_le(p, bytes) : 0;
}

/* A tensor map scalar's parameter: a constant (< 0) or one of nparams. */
static int get_tmap_scalar(Reader *r, unsigned nparams, TcTmapScalar *s)
{
    s->param = (int32_t)(uint32_t)get_le(r, 4);
    s->value = (int64_t)get_le(r, 8);
    return s->param < 0 || (uint32_t)s->param < nparams;
}

/* One tensor map of a kernel with nparams parameters; NULL or why not. */
static const char *get_tmap(Reader *r, unsigned nparams, TcTmap *m)
{
    const uint8_t *small = take(r, 3);
    if (!small)
        return "truncated payload";
    m->kind = small[0];
    m->dtype = small[1];
    m->batched = small[2];
    for (int i = 0; i < 3; i++)
        m->box[i] = (uint16_t)get_le(r, 2);
    m->base_param = (uint32_t)get_le(r, 4);
    int scalars_ok = get_tmap_scalar(r, nparams, &m->d0);
    scalars_ok &= get_tmap_scalar(r, nparams, &m->d1);
    scalars_ok &= get_tmap_scalar(r, nparams, &m->s0);
    scalars_ok &= get_tmap_scalar(r, nparams, &m->s1);
    scalars_ok &= get_tmap_scalar(r, nparams, &m->db);
    scalars_ok &= get_tmap_scalar(r, nparams, &m->sb);
    const uint8_t *st = take(r, 4);
    if (!st)
        return "truncated payload";
    m->stage = st[0];
    m->round = st[1];
    m->walk = st[2];
    m->store = st[3] & 1;
    m->optional = st[3] >> 1;
    m->across = (uint16_t)get_le(r, 2);
    if (r->bad)
        return "truncated payload";
    if (m->kind > TC_TMAP_PANELS || m->dtype > TC_TMAP_BF16 || m->batched > 1 || m->base_param >= nparams ||
        !scalars_ok || m->stage > 1 || m->round > m->stage || m->walk > 1 || m->optional > 1 ||
        (m->optional && !m->store) || (m->store && m->stage))
        return "bad tensor map";
    return NULL;
}

/* A kernel's tensor maps, after its parameters; NULL or why not. */
static const char *get_tmaps(Reader *r, TcKernelInfo *ki)
{
    uint64_t nt = get_le(r, 4);
    if (r->bad || nt > TC_TMAP_MAX || nt > (r->len - r->off) / TMAP_BYTES)
        return "bad tensor map count";
    if (nt && !(ki->tmaps = calloc((size_t)nt, sizeof *ki->tmaps)))
        return "out of memory";
    ki->ntmaps = (unsigned)nt;
    for (uint64_t j = 0; j < nt; j++) {
        const char *why = get_tmap(r, ki->nparams, &ki->tmaps[j]);
        if (why)
            return why;
    }
    return NULL;
}

/* Decodes a payload whose checksum already matched. Still bounds-checks
 * everything: the checksum guards against damage, not against a file built
 * to look valid. Returns NULL or why it failed. */
static const char *decode(const uint8_t *p, size_t len, TcCacheEntry *e)
{
    Reader r = {p, len, 0, 0};
    memset(e, 0, sizeof *e);
    uint64_t nk = get_le(&r, 4);
    /* refuse counts the file cannot hold */
    if (r.bad || nk > (len - r.off) / KERNEL_MIN_BYTES)
        return "bad kernel count";
    if (nk) {
        e->kernels = calloc((size_t)nk, sizeof *e->kernels);
        if (!e->kernels)
            return "out of memory";
    }
    for (uint64_t i = 0; i < nk; i++) {
        TcKernelInfo *ki = &e->kernels[i];
        uint64_t nl = get_le(&r, 4);
        const uint8_t *name = take(&r, nl);
        if (!name)
            break;
        ki->name = malloc((size_t)nl + 1);
        e->nkernels = (unsigned)i + 1;
        if (!ki->name)
            return "out of memory";
        memcpy(ki->name, name, (size_t)nl);
        ki->name[nl] = 0;
        ki->threads = (unsigned)get_le(&r, 4);
        ki->shared_bytes = (unsigned)get_le(&r, 4);
        for (int j = 0; j < 3; j++)
            ki->grid[j] = (unsigned)get_le(&r, 4);
        uint64_t bits = get_le(&r, 1);
        ki->persistent = (bits & 1) != 0;
        ki->rounded = (bits & 2) != 0;
        ki->tma_required = (bits & 4) != 0;
        ki->cluster = bits & 8 ? 2 : 0;
        uint64_t np = get_le(&r, 4);
        if (r.bad || np > (len - r.off) / PARAM_BYTES)
            return "bad parameter count";
        ki->nparams = (unsigned)np;
        if (np && !(ki->params = calloc((size_t)np, sizeof *ki->params)))
            return "out of memory";
        for (uint64_t j = 0; j < np; j++) {
            const uint8_t *t = take(&r, 12);
            if (!t)
                break;
            ki->params[j].kind = t[0];
            ki->params[j].elem = t[1];
            ki->params[j].rank = t[2];
            ki->params[j].dim[0] = (uint32_t)load_le(t + 4, 4);
            ki->params[j].dim[1] = (uint32_t)load_le(t + 8, 4);
        }
        const char *why = r.bad ? "truncated payload" : get_tmaps(&r, ki);
        if (why)
            return why;
    }
    uint64_t n = get_le(&r, 8);
    const uint8_t *ptx = take(&r, n);
    if (!ptx)
        return "truncated payload";
    if (!(e->ptx = malloc((size_t)n + 1)))
        return "out of memory";
    memcpy(e->ptx, ptx, (size_t)n);
    e->ptx[n] = 0;
    e->ptx_len = (size_t)n;
    n = get_le(&r, 8);
    const uint8_t *cubin = take(&r, n);
    if (!cubin)
        return "truncated payload";
    if (n) {
        if (!(e->cubin = malloc((size_t)n)))
            return "out of memory";
        memcpy(e->cubin, cubin, (size_t)n);
        e->cubin_len = (size_t)n;
    }
    if (r.off != len)
        return "trailing bytes";
    return NULL;
}

/* ---- the cache ------------------------------------------------------------------- */

typedef struct {
    TcCacheKey key;
    TcCacheEntry e;
    int used;
} MemSlot;

struct TcCache {
    pthread_mutex_t mu;
    char *dir;          /* NULL: memory only */
    int write_ok;       /* cleared after the first failed write (noted once) */
    MemSlot mem[MEM_ENTRIES];
    unsigned next;      /* ring position for the next insertion */
    unsigned seq;       /* temp name uniquifier within the process */
};

/* mkdir -p with mode 0700 for what it creates; 0 or an errno */
static int make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return ENOMEM;
    int err = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != 0)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            err = errno;
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    if (!err) {
        struct stat st;
        if (stat(path, &st) != 0)
            err = errno;
        else if (!S_ISDIR(st.st_mode))
            err = ENOTDIR;
    }
    return err;
}

TcCache *tc_cache_new(const char *dir, StrBuf *log)
{
    TcCache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    if (!dir || !dir[0])
        return c;
    int err = make_dirs(dir);
    if (err) {
        sb_printf(log, "cache: cannot use directory %s (%s); continuing without the disk cache\n", dir,
                  strerror(err));
        return c;
    }
    if (!(c->dir = strdup(dir))) {
        tc_cache_free(c);
        return NULL;
    }
    c->write_ok = 1;
    if (access(dir, W_OK) != 0) {
        /* reads can still hit (a cache prepared by someone else) */
        sb_printf(log, "cache: directory %s is not writable (%s); new entries will not be saved\n", dir,
                  strerror(errno));
        c->write_ok = 0;
    }
    return c;
}

TcCache *tc_cache_open(int on, const char *dir, StrBuf *log)
{
    if (!on)
        return tc_cache_new(NULL, log);
    if (dir && dir[0])
        return tc_cache_new(dir, log);
    StrBuf path;
    sb_init(&path);
    const char *x = getenv("XDG_CACHE_HOME");
    const char *h = getenv("HOME");
    /* XDG: relative paths are invalid and must be ignored */
    if (x && x[0] == '/')
        sb_printf(&path, "%s/tilec", x);
    else if (h && h[0])
        sb_printf(&path, "%s/.cache/tilec", h);
    else
        sb_puts(log, "cache: no directory given (--cache-dir, TILEC_CACHE_DIR) and neither XDG_CACHE_HOME nor HOME is set; "
                     "continuing without the disk cache\n");
    if (path.oom) {
        sb_free(&path);
        return NULL;
    }
    TcCache *c = tc_cache_new(path.data, log);
    sb_free(&path);
    return c;
}

void tc_cache_free(TcCache *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < MEM_ENTRIES; i++)
        if (c->mem[i].used)
            tc_cache_entry_free(&c->mem[i].e);
    pthread_mutex_destroy(&c->mu);
    free(c->dir);
    free(c);
}

const char *tc_cache_dir(const TcCache *c) { return c->dir; }

int tc_cache_entry_path(const TcCache *c, const TcCacheKey *k, char *buf, size_t size)
{
    if (!c->dir)
        return -1;
    char hex[65];
    tc_hex(k->b, 32, hex);
    int n = snprintf(buf, size, "%s/%s.tkc", c->dir, hex);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Reads the whole file at fd; NULL with errno set or *why on failure. */
static uint8_t *read_all(int fd, size_t *len, const char **why)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    if (!S_ISREG(st.st_mode)) { /* a FIFO, device or directory in the entry's place */
        *why = "not a regular file";
        return NULL;
    }
    if (st.st_size < HDR_SIZE) {
        *why = "truncated header";
        return NULL;
    }
    if ((uint64_t)st.st_size > MAX_ENTRY_BYTES) {
        *why = "too large";
        return NULL;
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *p = malloc(n);
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                *why = "truncated";
            free(p);
            return NULL;
        }
        got += (size_t)r;
    }
    *len = n;
    return p;
}

/* Why the file image f is not a valid entry for k, or NULL if it is. */
static const char *check_image(const uint8_t *f, size_t n, const TcCacheKey *k)
{
    if (memcmp(f, MAGIC, 8) != 0)
        return "not a tilec cache entry";
    if (load_le(f + 8, 4) != FORMAT_VERSION || load_le(f + 12, 4) != HDR_SIZE)
        return "unknown format version";
    if (load_le(f + 48, 8) != n - HDR_SIZE)
        return "truncated or padded";
    uint8_t sum[32];
    entry_checksum(f, f + HDR_SIZE, n - HDR_SIZE, sum);
    if (memcmp(sum, f + 56, 32) != 0)
        return "checksum mismatch";
    if (memcmp(f + 16, k->b, 32) != 0)
        return "entry of another key";
    return NULL;
}

static int disk_get(TcCache *c, const TcCacheKey *k, TcCacheEntry *out, StrBuf *log)
{
    char path[4096];
    if (tc_cache_entry_path(c, k, path, sizeof path) != 0)
        return 0;
    /* O_NONBLOCK: opening a FIFO put in the entry's place must not wait
     * for a writer (it has no effect on a regular file's reads) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT)
            sb_printf(log, "cache: cannot read %s (%s)\n", path, strerror(errno));
        return 0;
    }
    const char *why = NULL;
    size_t n = 0;
    uint8_t *f = read_all(fd, &n, &why);
    int err = errno;
    close(fd);
    if (!f && !why) {
        sb_printf(log, "cache: cannot read %s (%s)\n", path, strerror(err));
        return 0;
    }
    if (f && !(why = check_image(f, n, k))) {
        why = decode(f + HDR_SIZE, n - HDR_SIZE, out);
        if (why)
            tc_cache_entry_free(out);
    }
    free(f);
    if (!why)
        return 1;
    if (!strcmp(why, "out of memory"))
        return 0;
    sb_printf(log, "cache: entry %s is corrupt (%s); rebuilding\n", path, why);
    /* gone, so the note comes once; a failed unlink (read-only dir) only
     * means the next process notices too */
    (void)unlink(path);
    return 0;
}

static void mem_put(TcCache *c, const TcCacheKey *k, const TcCacheEntry *e)
{
    TcCacheEntry copy;
    if (tc_cache_entry_copy(&copy, e) != 0)
        return; /* a memory cache that cannot grow just misses later */
    pthread_mutex_lock(&c->mu);
    MemSlot *s = NULL;
    for (unsigned i = 0; i < MEM_ENTRIES && !s; i++)
        if (c->mem[i].used && !memcmp(c->mem[i].key.b, k->b, 32))
            s = &c->mem[i];
    if (!s) {
        s = &c->mem[c->next];
        c->next = (c->next + 1) % MEM_ENTRIES;
    }
    if (s->used)
        tc_cache_entry_free(&s->e);
    s->key = *k;
    s->e = copy;
    s->used = 1;
    pthread_mutex_unlock(&c->mu);
}

int tc_cache_get(TcCache *c, const TcCacheKey *k, TcCacheEntry *out, StrBuf *log)
{
    memset(out, 0, sizeof *out);
    int hit = 0;
    pthread_mutex_lock(&c->mu);
    for (unsigned i = 0; i < MEM_ENTRIES; i++)
        if (c->mem[i].used && !memcmp(c->mem[i].key.b, k->b, 32)) {
            hit = tc_cache_entry_copy(out, &c->mem[i].e) == 0;
            break;
        }
    pthread_mutex_unlock(&c->mu);
    if (hit)
        return 1;
    if (!c->dir || !disk_get(c, k, out, log))
        return 0;
    mem_put(c, k, out);
    return 1;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w == 0 ? (errno = EIO, -1) : -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Writes the image under a unique temporary name and renames it into
 * place; 0 or an errno. */
static int disk_put(TcCache *c, const char *path, const uint8_t *img, size_t n)
{
    char tmp[4200];
    for (int attempt = 0;; attempt++) {
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
            rnd = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)&rnd;
        pthread_mutex_lock(&c->mu);
        unsigned seq = c->seq++;
        pthread_mutex_unlock(&c->mu);
        snprintf(tmp, sizeof tmp, "%s.%ld.%u.%016llx.tmp", path, (long)getpid(), seq, (unsigned long long)rnd);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            if (errno == EEXIST && attempt < 3)
                continue;
            return errno;
        }
        int err = 0;
        if (write_all(fd, img, n) != 0 || fsync(fd) != 0)
            err = errno;
        if (close(fd) != 0 && !err)
            err = errno;
        if (!err && rename(tmp, path) != 0)
            err = errno;
        if (err) {
            unlink(tmp);
            return err;
        }
        /* make the rename itself durable; failure here loses nothing */
        int dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        return 0;
    }
}

int tc_cache_write_file(TcCache *c, const char *path, const void *data, size_t n)
{
    return c && c->dir ? disk_put(c, path, data, n) : ENOENT;
}

void tc_cache_put(TcCache *c, const TcCacheKey *k, const TcCacheEntry *e, StrBuf *log)
{
    mem_put(c, k, e);
    pthread_mutex_lock(&c->mu);
    int ok = c->dir && c->write_ok;
    pthread_mutex_unlock(&c->mu);
    if (!ok)
        return;
    char path[4096];
    if (tc_cache_entry_path(c, k, path, sizeof path) != 0)
        return;
    size_t n = 0;
    uint8_t *img = encode(k, e, &n);
    if (!img)
        return;
    int err = disk_put(c, path, img, n);
    free(img);
    if (!err)
        return;
    pthread_mutex_lock(&c->mu);
    int first = c->write_ok;
    c->write_ok = 0;
    pthread_mutex_unlock(&c->mu);
    if (first)
        sb_printf(log, "cache: cannot write to %s (%s); continuing without saving to the disk cache\n", c->dir,
                  strerror(err));
}

void tc_cache_drop(TcCache *c, const TcCacheKey *k)
{
    pthread_mutex_lock(&c->mu);
    for (unsigned i = 0; i < MEM_ENTRIES; i++)
        if (c->mem[i].used && !memcmp(c->mem[i].key.b, k->b, 32)) {
            tc_cache_entry_free(&c->mem[i].e);
            c->mem[i].used = 0;
        }
    pthread_mutex_unlock(&c->mu);
    char path[4096];
    if (tc_cache_entry_path(c, k, path, sizeof path) == 0)
        (void)unlink(path);
}
