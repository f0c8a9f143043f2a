/* The grid of a persistent kernel's launch (runtime/programs.h). */
#include "runtime/programs.h"

#include <stdint.h>

int tc_persist_blocks(const unsigned g[3], unsigned resident, unsigned cap, unsigned cluster, unsigned *blocks)
{
    uint64_t total = (uint64_t)g[0] * g[1]; /* under 2^64; times z only below INT32_MAX (no wrap) */
    if (total > INT32_MAX || (total *= g[2]) > INT32_MAX)
        return -1;
    uint64_t c = cluster > 1 ? cluster : 1;
    if (cap)
        cap = cap < c ? (unsigned)c : (unsigned)(cap / c * c);
    uint64_t most = resident ? resident : 1;
    if (cap && cap < most)
        most = cap;
    uint64_t n = total < most ? total : most;
    *blocks = (unsigned)((n + c - 1) / c * c);
    return 0;
}
