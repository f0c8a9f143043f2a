/*
 * Reads scripts/hosttrace.py's trace of an element-wise exp kernel (y = exp x
 * over one tile) and checks every stored value against ir/exp_f32.h's
 * tir_exp_f32 of the value hosttrace made up for the load at the same
 * offset: the lowering's exp, run on the host, gives the reference
 * executor's bits. Exit status 0: all equal (and at least 1024 of them);
 * 1: a difference or too few stores; 2: usage or an unreadable trace.
 *   exp_trace_check TRACE
 */
#include "ir/exp_f32.h"

#include <stdio.h>
#include <string.h>

/* hosttrace's made-up load value: __ht_mem(addr, 0) (its driver's mix) */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

enum { X_BASE = 0, GLOBAL_BASE_SHIFT = 44 }; /* pointer parameter i at (i + 1) << 44: x, then y */

int main(int argc, char **argv)
{
    FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        fprintf(stderr, "usage: exp_trace_check TRACE (a readable hosttrace trace)\n");
        return 2;
    }
    char line[512];
    unsigned long long addr, val;
    long n = 0, bad = 0;
    const uint64_t x_base = 1ull << GLOBAL_BASE_SHIFT, y_base = 2ull << GLOBAL_BASE_SHIFT;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, " st float, ptr addrspace(1) %llx %llx", &addr, &val) != 2 || addr < y_base)
            continue;
        uint32_t in = (uint32_t)mix((x_base + (addr - y_base)) * 64);
        float x, want;
        memcpy(&x, &in, sizeof x);
        want = tir_exp_f32(x);
        uint32_t w;
        memcpy(&w, &want, sizeof w);
        if (w != (uint32_t)val && bad++ < 5)
            printf("exp(%a) (0x%08x): lowered 0x%08x, tir_exp_f32 0x%08x\n", x, in, (unsigned)val, w);
        n++;
    }
    fclose(f);
    printf("%ld stores of exp checked, %ld differ\n", n, bad);
    return bad || n < 1024;
}
