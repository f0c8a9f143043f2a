/* The grid of a persistent kernel's launch (runtime/programs.h). */
#include "runtime/programs.h"

#include <stdint.h>

int tc_persist_blocks(const unsigned g[3], unsigned resident, unsigned cap, unsigned *blocks)
{
    uint64_t total = (uint64_t)g[0] * g[1] * g[2];
    if (total > INT32_MAX)
        return -1;
    uint64_t most = resident ? resident : 1;
    if (cap && cap < most)
        most = cap;
    *blocks = (unsigned)(total < most ? total : most);
    return 0;
}
