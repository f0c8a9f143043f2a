/*
 * PTX -> cubin with an external ptxas, where there is one, instead of the
 * driver's JIT. The two can differ for the same CUDA version: the
 * driver's JIT (580.159, CUDA 13.0) spills the wgmma consumers of a
 * warp-specialized kernel into local memory where the toolkit's ptxas 13.0,
 * which allocates registers per setmaxnreg region, does not
 * (bench/NOTES.md v7). Triton ships and runs its own ptxas for the same
 * reason.
 */
#ifndef TILEC_PTXAS_H
#define TILEC_PTXAS_H

#include <stddef.h>

#include "ir/ir.h"
#include "tilec.h"

/* The ptxas to use: TILEC_PTXAS (a path; "off" or "0": none), else the
 * toolkit's /usr/local/cuda/bin/ptxas where it is installed; NULL: the
 * driver's JIT. */
const char *ptxas_path(void);

/* Runs `ptxas -arch=sm_<cc> -O3` on ptx in a private temporary directory
 * (under $TMPDIR, else /tmp),
 * for the device's compute capability (a cubin runs only there; an
 * arch-specific target, sm_90a, keeps its suffix); *cubin (malloc'ed) and
 * *cubin_len on success. On failure TILEC_ERROR_JIT with ptxas's messages
 * in log. */
/* ptxas runs at most this long before it is stopped (a failure, with a
 * note in the log: the driver's JIT takes over); 10 minutes unless a test
 * says otherwise. */
void ptxas_set_timeout_ms(unsigned ms);

tilecResult ptxas_compile(const char *ptxas, const char *ptx, size_t len, int cc_major, int cc_minor, void **cubin,
                          size_t *cubin_len, StrBuf *log);

#endif
