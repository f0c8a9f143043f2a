/*
 * Embedding tilec as a kernel JIT: the whole round trip in one file.
 *
 *   compile .tir source held in a string -> read the log and the PTX ->
 *   open a runtime on GPU 0 -> load the program (through the kernel cache)
 *   -> copy inputs, launch, copy back -> check against the CPU.
 *
 * Build against an installed tilec:
 *   cc embed.c $(pkg-config --cflags --libs tilec) -o embed
 * Run: ./embed [n]   prints PASS or FAIL; exits 77 when there is no GPU.
 * Set TILEC_DUMP=all to see the tile IR, LLVM IR and PTX it produced.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* y = a*x + b over a vector. Each program (CUDA block) handles one 1x1024
 * tile; the view's bounds make the last, partial tile safe: elements past n
 * read as 0 and are not written. */
static const char KERNEL[] =
    "kernel @axpb(%X: ptr<f32>, %Y: ptr<f32>, %a: f32, %b: f32, %n: i32) warps(4) {\n"
    "  %pid = program_id 0\n"
    "  %j = mul %pid, 1024\n"
    "  %vx = view %X [1, %n] strides [%n, 1]\n"
    "  %vy = view %Y [1, %n] strides [%n, 1]\n"
    "  %x = load %vx[0, %j] : tile<1x1024xf32>\n"
    "  %ax = mul %x, %a\n"
    "  %y = add %ax, %b\n"
    "  store %y, %vy[0, %j]\n"
    "}\n";

#define TILE 1024

/* Prints what failed with the runtime's explanation, and says whether to go on. */
static int ok(tilecResult r, tilecRuntime rt, const char *what)
{
    if (r == TILEC_SUCCESS)
        return 1;
    const char *log = "";
    if (rt)
        tilecRuntimeGetLog(rt, &log);
    fprintf(stderr, "%s: %s\n%s", what, tilecGetErrorString(r), log);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000003; /* not a multiple of the tile */
    if (n <= 0) {
        fprintf(stderr, "usage: %s [n > 0]\n", argv[0]);
        return 2;
    }
    printf("%s\n", tilecVersion());

    /* 1. Compile. This needs no GPU. Options use the command's spelling. */
    tilecProgram prog;
    const char *log, *ptx;
    size_t ptx_size;
    const char *opts[] = {"--arch=sm_80", "-O3"}; /* sm_80 code runs on Ampere and Hopper */
    if (!ok(tilecCreateProgram(&prog, KERNEL, strlen(KERNEL), "axpb.tir"), NULL, "tilecCreateProgram"))
        return 1;
    tilecResult r = tilecCompileProgram(prog, 2, opts);
    tilecGetProgramLog(prog, &log);
    if (r != TILEC_SUCCESS) {
        fprintf(stderr, "compile failed (%s):\n%s", tilecGetErrorString(r), log);
        tilecDestroyProgram(&prog);
        return 1;
    }
    tilecGetPTX(prog, &ptx, &ptx_size);
    printf("compiled: %zu bytes of PTX\n", ptx_size);

    /* 2. A runtime: the device, its context and the kernel cache. On
     * failure the handle still holds the explanation; destroy it anyway. */
    tilecRuntime rt;
    r = tilecRuntimeCreate(&rt, 0);
    if (r == TILEC_ERROR_NO_DRIVER || r == TILEC_ERROR_NO_DEVICE) {
        tilecRuntimeGetLog(rt, &log);
        printf("SKIP: no GPU to run on: %s", log);
        tilecRuntimeDestroy(&rt);
        tilecDestroyProgram(&prog);
        return 77;
    }
    if (!ok(r, rt, "tilecRuntimeCreate")) {
        tilecRuntimeDestroy(&rt);
        tilecDestroyProgram(&prog);
        return 1;
    }
    const char *dev;
    tilecRuntimeDeviceName(rt, &dev);
    printf("device: %s\n", dev);

    /* 3. Load. The program may go now: the module keeps what it needs. */
    tilecModule mod = NULL;
    int good = ok(tilecModuleLoad(rt, prog, &mod), rt, "tilecModuleLoad");
    tilecDestroyProgram(&prog);

    /* 4. Data. */
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes);
    tilecDevicePtr dx = 0, dy = 0;
    float a = 2.5f, b = -1.0f;
    if (!x || !y) {
        fprintf(stderr, "out of host memory\n");
        good = 0;
    }
    for (int i = 0; good && i < n; i++)
        x[i] = (float)((i * 37) % 1000) / 100.0f - 5.0f;
    good = good && ok(tilecMalloc(rt, &dx, bytes), rt, "tilecMalloc x");
    good = good && ok(tilecMalloc(rt, &dy, bytes), rt, "tilecMalloc y");
    good = good && ok(tilecMemcpyHtoD(rt, dx, x, bytes), rt, "copy x to the device");
    /* NaN everywhere, so an element the kernel missed cannot pass */
    good = good && ok(tilecMemsetD8(rt, dy, 0xFF, bytes), rt, "poison y");

    /* 5. Launch: args[i] points to parameter i's value (device pointers as
     * tilecDevicePtr, scalars as int32_t / int64_t / float). */
    unsigned grid[3] = {(unsigned)((n + TILE - 1) / TILE), 1, 1};
    void *args[] = {&dx, &dy, &a, &b, &n};
    good = good && ok(tilecLaunch(mod, "axpb", grid, NULL, args), rt, "tilecLaunch");
    good = good && ok(tilecSynchronize(rt), rt, "tilecSynchronize");
    good = good && ok(tilecMemcpyDtoH(rt, y, dy, bytes), rt, "copy y to the host");

    /* 6. Check against the CPU. mul then add, each rounded; allow one
     * rounding of slack in case the GPU fused them into an fma. */
    int bad = 0;
    for (int i = 0; good && i < n; i++) {
        float want = a * x[i] + b;
        if (!(fabsf(y[i] - want) <= 1e-6f * fabsf(want) + 1e-6f)) {
            if (bad < 5)
                fprintf(stderr, "y[%d] = %.9g, want %.9g\n", i, y[i], want);
            bad++;
        }
    }

    tilecFree(rt, dx);
    tilecFree(rt, dy);
    free(x);
    free(y);
    if (mod)
        tilecModuleUnload(&mod);
    tilecRuntimeDestroy(&rt);
    if (!good || bad) {
        printf("FAIL%s\n", bad ? ": wrong results" : "");
        return 1;
    }
    printf("PASS: y = %g*x + %g over %d elements, %u programs\n", a, b, n, grid[0]);
    return 0;
}
