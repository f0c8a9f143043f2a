/* The grid of a persistent kernel's launch (runtime/programs.h). */
#include "runtime/programs.h"

#include "compiler/compiler.h"

#include <stdint.h>

int tc_persist_blocks(const unsigned g[3], unsigned resident, unsigned cap, unsigned cluster, unsigned *blocks)
{
    uint64_t total = tc_grid_programs(g);
    if (total > INT32_MAX)
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
