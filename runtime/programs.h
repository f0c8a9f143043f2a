/*
 * The grid of a persistent kernel's launch (compiler.h, TcKernelInfo.persistent;
 * compiler/lower_programs.c): pure, no driver.
 */
#ifndef TILEC_RUNTIME_PROGRAMS_H
#define TILEC_RUNTIME_PROGRAMS_H

/* The blocks a launch of the grid g (the programs, x * y * z) runs: as many
 * as the device holds at once (`resident`, at least 1), at most `cap`
 * where nonzero (TILEC_PERSIST_BLOCKS), never more than the programs; in
 * whole clusters where the kernel runs clusters of `cluster` > 1 blocks
 * (-fwgmma-cluster: the cap rounded down, to one cluster at least, the
 * count up: the last cluster's added program reads empty views). Returns
 * 0, or -1 where the programs number more than 2^31 - 1 (the kernel
 * counts them in i32). */
int tc_persist_blocks(const unsigned g[3], unsigned resident, unsigned cap, unsigned cluster, unsigned *blocks);

#endif
