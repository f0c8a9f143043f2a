/*
 * Tile layouts (compiler/lower_layout.c), evaluated on the CPU: the LLVM
 * builder folds a layout's base row and column to constants when the
 * thread id is one, so every thread's elements can be listed.
 *   - every layout the lowering makes (mma.sync's, the swapped wgmma
 *     product's with and without its permuted rows, the FMA pipeline's
 *     blocked runs) puts each element of the tile in exactly one register
 *     of exactly one thread;
 *   - layout_pairs() pairs only an element with its right neighbour, at an
 *     even column of the matrix where the tile starts at one, each register
 *     at most once, and every accumulator of the layouts that hold their
 *     tile in pairs (the whole-tile stores' 8-byte pairs);
 *   - the swapped product's consumers read their B fragments without bank
 *     conflicts: 4-byte loads from the padded raw rows (32 lanes, 32
 *     banks), and with TMA 8-byte pairs from the swizzled 32-column panels
 *     through the permuted rows (each half-warp, 16 distinct bank pairs).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower_wgmma.h"

static Lower L;

static void setup(void)
{
    memset(&L, 0, sizeof L);
    L.ctx = LLVMContextCreate();
    L.b = LLVMCreateBuilderInContext(L.ctx);
    L.t_i32 = LLVMInt32TypeInContext(L.ctx);
    L.t_i64 = LLVMInt64TypeInContext(L.ctx);
}

static void teardown(void)
{
    LLVMDisposeBuilder(L.b);
    LLVMContextDispose(L.ctx);
}

static uint32_t folded(LLVMValueRef v)
{
    ck_assert_msg(LLVMIsAConstantInt(v), "a layout's base did not fold to a constant");
    return (uint32_t)LLVMConstIntGetZExtValue(v);
}

/* Thread t's base row and column. */
static void base_of(const Layout *l, uint32_t t, uint32_t *row, uint32_t *col)
{
    L.tid = LLVMConstInt(L.t_i32, t, 0);
    *row = folded(layout_base_row(&L, l));
    *col = folded(layout_base_col(&L, l));
}

/* The threads that hold elements of the layout. */
static uint32_t owners(const Layout *l, uint32_t threads)
{
    if (l->kind == LAYOUT_MMA)
        return l->wm * l->wn * 32;
    return l->tr * l->tc < threads ? l->tr * l->tc : threads;
}

/* Every element in exactly one register of one thread. */
static void check_bijection(const Layout *l, uint32_t threads, const char *what)
{
    uint32_t n = layout_nregs(l);
    uint8_t *seen = calloc((size_t)l->rows * l->cols, 1);
    ck_assert_ptr_nonnull(seen);
    uint32_t held = 0;
    for (uint32_t t = 0; t < owners(l, threads); t++) {
        uint32_t r0, c0;
        base_of(l, t, &r0, &c0);
        if (layout_cols_even(l))
            ck_assert_msg(c0 % 2 == 0, "%s: thread %u starts at column %u", what, t, c0);
        for (uint32_t r = 0; r < n; r++) {
            uint32_t dr, dc;
            layout_offset(l, r, &dr, &dc);
            uint32_t row = r0 + dr, col = c0 + dc;
            if (l->kind == LAYOUT_BLOCKED && (row >= l->rows || col >= l->cols))
                continue; /* a blocked layout's threads past a small tile hold nothing */
            ck_assert_msg(row < l->rows && col < l->cols, "%s: thread %u register %u at (%u, %u)", what, t, r, row,
                          col);
            ck_assert_msg(!seen[(size_t)row * l->cols + col], "%s: (%u, %u) held twice", what, row, col);
            seen[(size_t)row * l->cols + col] = 1;
            held++;
        }
    }
    ck_assert_msg(held == l->rows * l->cols, "%s: %u of %u elements held", what, held, l->rows * l->cols);
    free(seen);
}

/* layout_pairs(): (r, pair[r]) are (row, c) and (row, c + 1), c even; each
 * register in one pair at most; all of them paired where want_all. */
static void check_pairs(const Layout *l, int want_all, const char *what)
{
    uint32_t n = layout_nregs(l), pair[TC_MAX_TILE_REGS + 1], right = 0;
    ck_assert_uint_le(n, TC_MAX_TILE_REGS);
    uint32_t np = layout_pairs(l, pair);
    for (uint32_t r = 0; r < n; r++) {
        if (pair[r] == PAIR_RIGHT) {
            right++;
            continue;
        }
        if (pair[r] == PAIR_NONE)
            continue;
        ck_assert_uint_lt(pair[r], n);
        ck_assert_uint_eq(pair[pair[r]], PAIR_RIGHT);
        uint32_t dr, dc, qr, qc;
        layout_offset(l, r, &dr, &dc);
        layout_offset(l, pair[r], &qr, &qc);
        ck_assert_msg(qr == dr && qc == dc + 1 && dc % 2 == 0, "%s: register %u (%u, %u) paired with %u (%u, %u)",
                      what, r, dr, dc, pair[r], qr, qc);
    }
    ck_assert_uint_eq(right, np);
    if (want_all)
        ck_assert_msg(2 * np == n, "%s: %u pairs of %u registers", what, np, n);
    if (!layout_cols_even(l))
        ck_assert_uint_eq(np, 0);
}

START_TEST(mma_layouts)
{
    /* mma.sync's accumulators, as layout_mma() picks them for the generic dot */
    static const uint32_t shapes[][3] = {{16, 8, 1}, {64, 64, 4}, {128, 128, 8}, {128, 256, 8}, {64, 32, 4},
                                         {32, 128, 4}, {256, 64, 8}, {16, 256, 2}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        Layout l;
        ck_assert(layout_mma(shapes[i][0], shapes[i][1], 16, ELEM_F32, shapes[i][2], &l));
        char what[64];
        snprintf(what, sizeof what, "mma %ux%u w%u", shapes[i][0], shapes[i][1], shapes[i][2]);
        check_bijection(&l, shapes[i][2] * 32, what);
        check_pairs(&l, 1, what);
    }
}
END_TEST

START_TEST(swapped_layouts)
{
    /* the swapped product's C^T layouts (lower_wgmma.c): BM x BN with
     * `blocks` 64-column blocks of B per consumer warpgroup; nperm (the TMA
     * layout) permutes the rows of each 32 */
    static const uint32_t shapes[][3] = {{128, 128, 8}, {128, 256, 8}, {256, 128, 8}, {64, 256, 4},
                                         {128, 128, 4}, {256, 64, 4},  {64, 256, 8}, {64, 64, 4}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int nperm = 0; nperm < 2; nperm++) {
            uint32_t bm = shapes[i][0], bn = shapes[i][1], warps = shapes[i][2];
            uint32_t blocks = bn / (64 * (warps / 4));
            Layout l = {.kind = LAYOUT_MMA, .trans = 1, .rows = bm, .cols = bn, .wm = warps, .wn = 1, .mt = blocks,
                        .nt = bm / 8, .nperm = (uint8_t)nperm};
            char what[64];
            snprintf(what, sizeof what, "swapped %ux%u w%u nperm %d", bm, bn, warps, nperm);
            check_bijection(&l, warps * 32, what);
            /* the permuted rows put n, n + 1 in one thread; mma's rows g, g + 8 do not */
            check_pairs(&l, nperm, what);
            if (!nperm)
                ck_assert(!layout_cols_even(&l));
        }
}
END_TEST

START_TEST(ffma_layouts)
{
    /* the FMA pipeline's blocked runs of 4 columns (lower_wgmma_ffma.c), and
     * the plain blocked layout of loads; the last three 8 x 16 a thread,
     * -fwgmma-ffma-wide) */
    static const uint32_t shapes[][3] = {{128, 128, 256}, {128, 64, 128}, {64, 64, 128}, {64, 128, 128},
                                         {256, 128, 256}, {128, 256, 256}, {128, 128, 128}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        uint32_t tr, tc;
        ck_assert(wgmma_ffma_grid(shapes[i][0], shapes[i][1], shapes[i][2], 1, &tr, &tc));
        Layout l = {.kind = LAYOUT_BLOCKED, .rows = shapes[i][0], .cols = shapes[i][1], .tr = tr, .tc = tc, .vec = 4};
        char what[64];
        snprintf(what, sizeof what, "ffma %ux%u, %u threads", shapes[i][0], shapes[i][1], shapes[i][2]);
        check_bijection(&l, shapes[i][2], what);
        check_pairs(&l, 1, what);
        Layout b = layout_blocked(shapes[i][0], 32, shapes[i][2]);
        snprintf(what, sizeof what, "blocked %ux32, %u threads", shapes[i][0], shapes[i][2]);
        check_bijection(&b, shapes[i][2], what);
        check_pairs(&b, 0, what);
    }
}
END_TEST

static uint32_t fold(LLVMValueRef v) { return folded(v); }

START_TEST(b_fragments_conflict_free)
{
    /* (BN, warps): the swapped product's blocks = BN / (64 * consumer warpgroups) */
    static const uint32_t cfg[][2] = {{128, 8}, {256, 8}, {64, 4}, {128, 4}, {256, 4}, {64, 8}};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
        for (int b128 = 0; b128 < 2; b128++) {
            uint32_t bn = cfg[i][0], warps = cfg[i][1], blocks = bn / (64 * (warps / 4));
            Pipe P = {.L = &L, .bn = bn, .tma = b128, .b128 = b128, .blocks = blocks};
            for (uint32_t w = 0; w < warps; w++)
                for (uint32_t r = 0; r < blocks; r++)
                    for (uint32_t j = 0; j < 4; j++)
                        for (uint32_t e = 0; e < (b128 ? 2u : 4u); e++) {
                            uint32_t word[32];
                            for (uint32_t lane = 0; lane < 32; lane++) {
                                uint32_t t = lane % 4, g = lane / 4, k, n;
                                if (b128) { /* swapped_stage: rows g, g + 8 are columns n, n + 1 */
                                    k = 8 * j + t + 4 * e;
                                    n = fold(layout_nperm_row(&L, LLVMConstInt(L.t_i32, w * blocks, 0),
                                                              LLVMConstInt(L.t_i32, g, 0))) +
                                        layout_nperm_group(r);
                                    ck_assert_uint_eq(n % 2, 0);
                                } else {
                                    k = 8 * j + t + 4 * (e >> 1);
                                    n = 16 * blocks * w + 16 * r + 8 * (e & 1) + g;
                                }
                                uint32_t off = fold(swapped_b_offset(&P, LLVMConstInt(L.t_i32, k, 0),
                                                                     LLVMConstInt(L.t_i32, n, 0)));
                                if (b128) /* the pair's second element is the next word */
                                    ck_assert_uint_eq(fold(swapped_b_offset(&P, LLVMConstInt(L.t_i32, k, 0),
                                                                            LLVMConstInt(L.t_i32, n + 1, 0))),
                                                      off + 4);
                                word[lane] = b128 ? off / 8 % 16 : off / 4 % 32;
                            }
                            /* 8-byte loads go a half-warp at a time */
                            for (uint32_t h = 0; h < (b128 ? 2u : 1u); h++) {
                                uint32_t used = 0, lanes = b128 ? 16 : 32;
                                uint64_t seen = 0;
                                for (uint32_t l = h * lanes; l < (h + 1) * lanes; l++)
                                    if (!(seen >> word[l] & 1)) {
                                        seen |= 1ull << word[l];
                                        used++;
                                    }
                                ck_assert_msg(used == lanes,
                                              "BN %u warps %u b128 %d: warp %u block %u k8 %u e %u half %u: %u of %u banks",
                                              bn, warps, b128, w, r, j, e, h, used, lanes);
                            }
                        }
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("layout");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, mma_layouts);
    tcase_add_test(tc, swapped_layouts);
    tcase_add_test(tc, ffma_layouts);
    tcase_add_test(tc, b_fragments_conflict_free);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
